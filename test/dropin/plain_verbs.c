// SPDX-License-Identifier: MIT
/*
 * A plain verbs program: rdma-core headers only, nothing of verbshim, built
 * the way a user replacing -libverbs would (-lverbshim -ldl -lpthread).  It
 * uses the calls whose header macros and inlines reach exported symbols:
 * ibv_reg_mr() with an access the compiler cannot see, ibv_query_port(),
 * ibv_query_gid_ex(), ibv_query_gid_table(), rdmacm and rsockets.
 *
 * With no device (the host): the no-device answers, and no crash.  With
 * one (the VM, VERBSHIM_IN_VM=1): every call succeeds on the first device.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__,     \
				#cond);                                        \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			exit(1);                                               \
		}                                                              \
	} while (0)

static int access_flags(void)
{
	/* Read at run time: the ibv_reg_mr() macro must take its
	 * ibv_reg_mr_iova2 branch. */
	const char *env = getenv("PLAIN_VERBS_ACCESS");

	return env ? atoi(env) : IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
}

static void verbs_on_device(struct ibv_device *device)
{
	struct ibv_gid_entry entries[64], entry;
	struct ibv_context *ctx = ibv_open_device(device);
	struct ibv_port_attr port;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	ssize_t n;
	char *buf;

	CHECK(ctx, "ibv_open_device: %s", strerror(errno));
	CHECK(ibv_query_port(ctx, 1, &port) == 0, "ibv_query_port");
	CHECK(port.state == IBV_PORT_ACTIVE, "port 1 is %s",
	      ibv_port_state_str(port.state));
	CHECK(ibv_query_gid_ex(ctx, 1, 0, &entry, 0) == 0, "gid 0");
	n = ibv_query_gid_table(ctx, entries, 64, 0);
	CHECK(n >= 1, "ibv_query_gid_table: %zd", n);
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "ibv_alloc_pd: %s", strerror(errno));
	buf = calloc(1, 4096);
	CHECK(buf, "calloc");
	mr = ibv_reg_mr(pd, buf, 4096, access_flags());
	CHECK(mr, "ibv_reg_mr: %s", strerror(errno));
	CHECK(mr->addr == buf && mr->length == 4096, "mr covers the buffer");
	CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
	CHECK(ibv_dealloc_pd(pd) == 0, "ibv_dealloc_pd");
	CHECK(ibv_close_device(ctx) == 0, "ibv_close_device");
	free(buf);
	printf("device %s: port active, %zd GIDs, reg_mr through iova2 ok\n",
	       ibv_get_device_name(device), n);
}

static void rdmacm_and_rsockets(int have_device)
{
	struct rdma_event_channel *channel = rdma_create_event_channel();
	struct sockaddr_in addr = { .sin_family = AF_INET };
	const char *ip = getenv("VS_RXE_IP");
	struct rdma_cm_id *id;
	int fd;

	if (!have_device) {
		/* No /dev/infiniband/rdma_cm: a clean failure. */
		if (channel)
			rdma_destroy_event_channel(channel);
		fd = rsocket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0)
			rclose(fd);
		else
			CHECK(errno != 0, "rsocket failed without errno");
		printf("rdmacm/rsockets without a device: no crash\n");
		return;
	}
	CHECK(channel, "rdma_create_event_channel: %s", strerror(errno));
	CHECK(rdma_create_id(channel, &id, NULL, RDMA_PS_TCP) == 0,
	      "rdma_create_id: %s", strerror(errno));
	CHECK(ip && inet_pton(AF_INET, ip, &addr.sin_addr) == 1,
	      "VS_RXE_IP=%s", ip ? ip : "(unset)");
	CHECK(rdma_bind_addr(id, (struct sockaddr *)&addr) == 0,
	      "rdma_bind_addr %s: %s", ip, strerror(errno));
	CHECK(id->verbs != NULL, "bound id has a device");
	CHECK(rdma_destroy_id(id) == 0, "rdma_destroy_id");
	rdma_destroy_event_channel(channel);

	fd = rsocket(AF_INET, SOCK_STREAM, 0);
	CHECK(fd >= 0, "rsocket: %s", strerror(errno));
	CHECK(rbind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0,
	      "rbind: %s", strerror(errno));
	CHECK(rlisten(fd, 1) == 0, "rlisten: %s", strerror(errno));
	CHECK(rfcntl(fd, F_SETFL, O_NONBLOCK) == 0, "rfcntl");
	CHECK(rfcntl(fd, F_GETFL) & O_NONBLOCK, "rfcntl F_GETFL");
	CHECK(rclose(fd) == 0, "rclose");
	printf("rdmacm bind on %s, rsocket bind/listen/fcntl ok\n", ip);
}

int main(void)
{
	int in_vm = getenv("VERBSHIM_IN_VM") != NULL;
	struct ibv_device **list;
	int n = -1;

	list = ibv_get_device_list(&n);
	if (!in_vm) {
		CHECK(n == 0 || list, "n=%d", n);
		CHECK(!list || n == 0 || n > 0, "list");
		printf("no device expected here: %d (%s)\n", n,
		       list ? "empty list" : strerror(errno));
		if (list)
			ibv_free_device_list(list);
		rdmacm_and_rsockets(0);
		return 0;
	}
	CHECK(list && n > 0, "no device in the VM: %s", strerror(errno));
	verbs_on_device(list[0]);
	ibv_free_device_list(list);
	rdmacm_and_rsockets(1);
	return 0;
}
