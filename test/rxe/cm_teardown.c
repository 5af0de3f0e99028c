/* SPDX-License-Identifier: MIT */
/*
 * The connection manager's teardown events on rxe, produced on demand
 * (docs/API.md, "Connection manager", failures explained):
 *  - timewait: after a disconnect each side's id gets
 *    RDMA_CM_EVENT_TIMEWAIT_EXIT (not a failure: err 0, the id stays
 *    DISCONNECTED), within 10 s;
 *  - device removal: a second rxe device on a dummy netdev of its own
 *    (made here, through RDMA netlink; rxe0 is never touched), a listener,
 *    a client and its accepted peer connected on it, then the netdev
 *    deleted: each id gets RDMA_CM_EVENT_DEVICE_REMOVAL explained as
 *    ENODEV, FAILED, and everything closes cleanly.
 * Not produced: RDMA_CM_EVENT_ADDR_CHANGE (the kernel raises it on a
 * bonding fail-over only, and the VM has no bonding module).
 */
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/vs_typed.h"

#define MSG 64
#define RM_NETDEV "vsrm0"
#define RM_DEV "vsrxe_rm"
#define RM_IP "192.168.78.1"

static const char *ip;

/* Both sides of one RC connection in this thread (no_wait steps). */
struct pair {
	struct vs_cm_id *l, *c, *s;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *cqp, *sqp;
	struct vs_mr *mr;
};

static void next_type(struct vs_cm_id *id, enum rdma_cm_event_type want,
		      int limit_ms, struct vs_cm_event *ev)
{
	uint64_t t0 = vs_t_now_ms();

	for (;;) {
		int left = limit_ms - (int)(vs_t_now_ms() - t0);
		int ret = vs_cm_next(id, left > 0 ? left : 0, ev);

		if (ret)
			VS_FAIL("waiting for %s on %s: %d %s", vs_cm_event_name(want),
				vs_cm_peer(id), ret, vs_t_err());
		if (ev->type == want)
			return;
		printf("  (%s on the way to %s)\n", ev->name, vs_cm_event_name(want));
	}
}

static void pair_connect(struct pair *p, const char *host)
{
	struct vs_cm_event ev;
	char port[16];
	struct vs_wc wc[2];

	memset(p, 0, sizeof(*p));
	VS_OK(vs_cm_listen(host, "0", NULL, &p->l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(p->l));
	VS_OK(vs_cm_resolve(host, port, NULL, &p->c));
	VS_OK(vs_pd_alloc(vs_cm_context(p->c), &p->pd));
	VS_OK(vs_cq_create(vs_cm_context(p->c), NULL, &p->cq));
	VS_OK(vs_mr_alloc(p->pd, 2 * MSG, 0, &p->mr));
	VS_OK(vs_cm_rc_qp_create(p->c, p->pd, &(struct vs_rc_config){ .send_cq = p->cq },
				 &p->cqp));
	VS_OK(vs_cm_connect(p->c, &(struct vs_cm_conn_config){ .no_wait = true }));
	VS_OK(vs_cm_get_request(p->l, 5000, &p->s));
	/* one device: the client's PD and CQ serve the server side too */
	VS_OK(vs_cm_rc_qp_create(p->s, p->pd, &(struct vs_rc_config){ .send_cq = p->cq },
				 &p->sqp));
	vs_t_rc_recv(p->sqp, 1, vs_mr_sge(p->mr, MSG, MSG));
	VS_OK(vs_cm_accept(p->s, &(struct vs_cm_conn_config){ .no_wait = true }));
	next_type(p->c, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	VS_ASSERT_EQ(ev.err, 0);
	next_type(p->s, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	/* the data path works before the teardown */
	memcpy(vs_mr_ptr(p->mr, 0), "teardown, a message before it...", 33);
	vs_t_rc_send(p->cqp, 2, vs_mr_sge(p->mr, 0, MSG));
	vs_t_wait(p->cq, wc, 2);
	VS_ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	VS_ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	VS_ASSERT_MEMEQ(vs_mr_ptr(p->mr, MSG), vs_mr_ptr(p->mr, 0), MSG);
}

static void pair_close(struct pair *p)
{
	VS_OK(vs_cm_close(p->c));
	VS_OK(vs_cm_close(p->s));
	VS_OK(vs_cm_close(p->l));
	VS_OK(vs_rc_qp_close(p->cqp));
	VS_OK(vs_rc_qp_close(p->sqp));
	VS_OK(vs_mr_close(p->mr));
	VS_OK(vs_cq_close(p->cq));
	VS_OK(vs_pd_close(p->pd));
}

static void test_timewait(void)
{
	struct pair p;
	struct vs_cm_event ev;
	uint64_t t0;

	pair_connect(&p, ip);
	VS_OK(vs_cm_disconnect(p.c));
	t0 = vs_t_now_ms();
	next_type(p.s, RDMA_CM_EVENT_DISCONNECTED, 5000, &ev);
	VS_OK(vs_cm_disconnect(p.s));
	next_type(p.c, RDMA_CM_EVENT_TIMEWAIT_EXIT, 10000, &ev);
	printf("timewait: the client's TIMEWAIT_EXIT %llu ms after its disconnect\n",
	       (unsigned long long)(vs_t_now_ms() - t0));
	VS_ASSERT_STREQ(ev.name, "RDMA_CM_EVENT_TIMEWAIT_EXIT");
	VS_ASSERT_EQ(ev.err, 0);
	VS_ASSERT_PTR_EQ(ev.id, p.c);
	VS_ASSERT_EQ(ev.state, VS_CM_DISCONNECTED);
	next_type(p.s, RDMA_CM_EVENT_TIMEWAIT_EXIT, 10000, &ev);
	VS_ASSERT_EQ(ev.err, 0);
	VS_ASSERT_EQ(vs_cm_state(p.s), VS_CM_DISCONNECTED);
	printf("timewait: the server's %llu ms after\n",
	       (unsigned long long)(vs_t_now_ms() - t0));
	pair_close(&p);
}

/* An rxe device on netdev ndev (RDMA_NLDEV_CMD_NEWLINK, as `rdma link add`). */
static void rxe_add(const char *name, const char *ndev)
{
	struct {
		struct nlmsghdr h;
		char buf[256];
	} req = { 0 };
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
		char pad[256];
	} ans;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	const struct { uint16_t type; const char *s; } attrs[] = {
		{ RDMA_NLDEV_ATTR_DEV_NAME, name },
		{ RDMA_NLDEV_ATTR_LINK_TYPE, "rxe" },
		{ RDMA_NLDEV_ATTR_NDEV_NAME, ndev },
	};
	ssize_t n;

	VS_ASSERT(fd >= 0);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK);
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.h.nlmsg_seq = 1;
	req.h.nlmsg_len = NLMSG_LENGTH(0);
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		struct nlattr *a = (struct nlattr *)((char *)&req + NLMSG_ALIGN(req.h.nlmsg_len));
		size_t len = strlen(attrs[i].s) + 1;

		a->nla_type = attrs[i].type;
		a->nla_len = (uint16_t)(NLA_HDRLEN + len);
		memcpy((char *)a + NLA_HDRLEN, attrs[i].s, len);
		req.h.nlmsg_len = NLMSG_ALIGN(req.h.nlmsg_len) + NLA_ALIGN(a->nla_len);
	}
	VS_ASSERT(req.h.nlmsg_len <= sizeof(req));
	n = sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to));
	VS_ASSERT_EQ(n, (ssize_t)req.h.nlmsg_len);
	n = recv(fd, &ans, sizeof(ans), 0);
	VS_ASSERT(n >= (ssize_t)(NLMSG_HDRLEN + sizeof(struct nlmsgerr)));
	VS_ASSERT_EQ(ans.h.nlmsg_type, NLMSG_ERROR);
	if (ans.e.error)
		VS_FAIL("RDMA netlink NEWLINK %s (rxe on %s): %s", name, ndev,
			strerror(-ans.e.error));
	close(fd);
}

static void sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		VS_FAIL("`%s` exited %d", cmd, rc);
}

/* Waits until RM_IP has its GID on RM_DEV (the CM binds by it). */
static void wait_gid(void)
{
	uint64_t t0 = vs_t_now_ms();
	char path[128], line[64];

	while (vs_t_now_ms() - t0 < 10000) {
		for (int i = 0; i < 16; i++) {
			FILE *f;

			snprintf(path, sizeof(path),
				 "/sys/class/infiniband/" RM_DEV "/ports/1/gids/%d", i);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(line, sizeof(line), f) &&
			    strstr(line, "ffff:c0a8:4e01")) { /* 192.168.78.1 */
				fclose(f);
				return;
			}
			fclose(f);
		}
		usleep(100000);
	}
	VS_FAIL("no GID for " RM_IP " on " RM_DEV " after 10 s");
}

static void test_device_removal(void)
{
	struct stat st;
	struct pair p;
	struct vs_cm_id *ids[3];
	uint64_t t0;
	pid_t del;
	int status;

	sh("ip link add " RM_NETDEV " type dummy && ip addr add " RM_IP "/24 dev "
	   RM_NETDEV " && ip link set " RM_NETDEV " up");
	rxe_add(RM_DEV, RM_NETDEV);
	wait_gid();
	pair_connect(&p, RM_IP);
	ids[0] = p.c;
	ids[1] = p.s;
	ids[2] = p.l;
	/*
	 * The netdev goes, and rxe unregisters its device with it.  `ip link
	 * del` waits until the device lets the netdev go, which is when the
	 * last user of the device has closed it: not waited for here.
	 */
	t0 = vs_t_now_ms();
	del = fork();
	VS_ASSERT(del >= 0);
	if (!del) {
		execlp("ip", "ip", "link", "del", RM_NETDEV, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 3; i++) {
		struct vs_cm_event ev;

		next_type(ids[i], RDMA_CM_EVENT_DEVICE_REMOVAL, 10000, &ev);
		printf("device removal: %s after %llu ms: %s\n", ev.name,
		       (unsigned long long)(vs_t_now_ms() - t0), vs_t_err());
		VS_ASSERT_EQ(ev.err, ENODEV);
		VS_ASSERT_EQ(ev.state, VS_CM_FAILED);
		VS_ASSERT_EQ(vs_cm_state(ids[i]), VS_CM_FAILED);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_next");
		VS_ASSERT(strstr(vs_last_error()->message, "the RDMA device was removed"));
	}
	pair_close(&p);
	/*
	 * librdmacm may keep the device's context open to the process's end
	 * (then `ip link del` finishes when this test exits).
	 */
	t0 = vs_t_now_ms();
	while (waitpid(del, &status, WNOHANG) == 0 && vs_t_now_ms() - t0 < 3000)
		usleep(100000);
	printf("device removal: every id closed; %s\n",
	       stat("/sys/class/infiniband/" RM_DEV, &st) ?
	       "the device is gone" :
	       "the device stays until this process ends (librdmacm keeps its context)");
}

int main(void)
{
	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	setvbuf(stdout, NULL, _IOLBF, 0); /* a timeout's log shows how far it got */
	if (geteuid())
		VS_FAIL("the VM runs tests as root; here euid %d", (int)geteuid());
	test_timewait();
	test_device_removal();
	printf("ok\n");
	return 0;
}
