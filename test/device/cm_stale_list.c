/* SPDX-License-Identifier: MIT */
/*
 * A device added after the process's first CM call, then bound to.
 * librdmacm before rdma-core 32 lists the devices once, at that first
 * call (cma.c: ucma_init; sync_devices_list came in 32): its bind answers
 * "No such device" though the device is there with its port up, and the
 * typed CM must say that, not "no RDMA device is on its netdev"
 * (vs__cm_stale_list_why).  From 32 on the bind succeeds.  Which applies
 * is read from the libibverbs the loader found (its newest node).
 */
#include <unistd.h>

#include "../common/vs_cm_rig.h"

#define ST_NETDEV "vsst0"
/* the provider's name first: 17.1's and 22.4's rxe claims "rxe*" only */
#define ST_DEV (iwarp ? "siw_vsst" : "rxe_vsst")
#define ST_IP "192.168.82.1"

static bool iwarp;

/* One byte through a pipe: the two processes take turns. */
static void step_send(int fd)
{
	VS_ASSERT_EQ(write(fd, "x", 1), 1);
}

static void step_wait(int fd)
{
	char c;

	VS_ASSERT_EQ(read(fd, &c, 1), 1);
}

/*
 * The CM side: its first CM call, then (the device added meanwhile) the
 * bind to the new device's address.  A process of its own: librdmacm
 * keeps its devices open until the process ends, and the netdev cannot
 * go before that.
 */
static int cm_side(const char *ip, int go, int done)
{
	struct vs_library_info li;
	struct vs_cm_id *first = NULL, *l = NULL;
	int rc;

	VS_OK(vs_library_query(VS_LIB_IBVERBS, &li));
	VS_ASSERT(li.loaded && li.min_release > 0);
	/* the process's first CM call: librdmacm reads its device list */
	VS_OK(vs_cm_listen(ip, "0", NULL, &first));
	step_send(done);
	step_wait(go);

	rc = vs_cm_listen(ST_IP, "0", NULL, &l);
	printf("libibverbs of rdma-core >= %d: bind to %s on the new %s: %d: %s\n",
	       li.min_release, ST_IP, ST_DEV, rc, rc ? vs_t_err() : "bound");
	if (li.min_release < 32) {
		VS_ASSERT_EQ(rc, -ENODEV);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_listen");
		VS_ASSERT_STREQ(vs_last_error()->verb, "rdma_bind_addr");
		VS_ASSERT_EQ(vs_last_error()->err, ENODEV);
		VS_ASSERT(strstr(vs_last_error()->message,
				 "lists the devices once"));
		VS_ASSERT(strstr(vs_last_error()->message, ST_DEV));
		VS_ASSERT(!strstr(vs_last_error()->message, "no RDMA device"));
	} else {
		VS_OK(rc);
		VS_OK(vs_cm_close(l));
	}
	VS_OK(vs_cm_close(first));
	return 0;
}

int main(void)
{
	const char *ip = getenv("VS_RXE_IP");
	int to_cm[2], from_cm[2], status;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!ip)
		VS_SKIP("VS_RXE_IP is unset (run in the VM: test/vm)");
	if (geteuid())
		VS_FAIL("the VM runs tests as root; here euid %d", (int)geteuid());
	iwarp = vs_t_iwarp();
	VS_ASSERT(!pipe(to_cm) && !pipe(from_cm));
	pid = fork();
	VS_ASSERT(pid >= 0);
	if (!pid) {
		close(to_cm[1]);
		close(from_cm[0]);
		_exit(cm_side(ip, to_cm[0], from_cm[1]));
	}
	/* a side that dies reads as EOF on the other, never a wait for good */
	close(to_cm[0]);
	close(from_cm[1]);
	step_wait(from_cm[0]);
	vs_t_sh("ip link add " ST_NETDEV " type dummy && ip addr add " ST_IP
		"/24 dev " ST_NETDEV " && ip link set " ST_NETDEV " up");
	vs_t_rdma_link_add(ST_DEV, iwarp ? "siw" : "rxe", ST_NETDEV);
	if (iwarp)
		vs_t_port_wait_active(ST_DEV);
	else
		vs_t_rxe_wait_gid(ST_DEV, ST_IP);
	step_send(to_cm[1]);
	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	/* the device goes with its netdev, now that no process holds it */
	vs_t_sh("ip link del " ST_NETDEV);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		VS_FAIL("the CM side: status 0x%x", status);
	printf("ok\n");
	return 0;
}
