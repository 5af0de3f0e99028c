/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the rxe CM tests that make a netdev and an rxe device of
 * their own and connect through it (cm_teardown, cm_addr_change): a shell
 * command that must succeed, an rxe device added or deleted over RDMA
 * netlink (the release roots have no `rdma` tool), the wait for its IPv4 GID, and a
 * listener, client and accepted peer connected in one thread.
 */
#ifndef VS_CM_RIG_H
#define VS_CM_RIG_H

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vs_typed.h"

#define VS_T_CM_MSG 64

/* cmd (through /bin/sh) must exit 0. */
static inline void vs_t_sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		VS_FAIL("`%s` exited %d", cmd, rc);
}

/* An rxe device on netdev ndev (RDMA_NLDEV_CMD_NEWLINK, as `rdma link add`). */
static inline void vs_t_rdma_link_add(const char *name, const char *type,
				      const char *ndev)
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
		{ RDMA_NLDEV_ATTR_LINK_TYPE, type },
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
		VS_FAIL("RDMA netlink NEWLINK %s (%s on %s): %s", name, type, ndev,
			strerror(-ans.e.error));
	close(fd);
}

/* The kernel's index of RDMA device name (an RDMA_NLDEV_CMD_GET dump, as
 * `rdma dev` reads it), or -1 when no device has that name. */
static inline int vs_t_rdma_dev_index(const char *name)
{
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(0),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nlmsg_seq = 1,
	};
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	static char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	int index = -1;
	bool done = false;

	VS_ASSERT(fd >= 0);
	VS_ASSERT_EQ(sendto(fd, &req, req.nlmsg_len, 0, (struct sockaddr *)&to,
			    sizeof(to)), (ssize_t)req.nlmsg_len);
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		VS_ASSERT(n > 0);
		for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			struct nlattr *a = (struct nlattr *)NLMSG_DATA(h);
			size_t left = h->nlmsg_len - NLMSG_HDRLEN;
			int idx = -1;
			bool named = false;

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			/* RDMA netlink has no family header: attributes follow */
			while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= left) {
				const char *v = (const char *)a + NLA_HDRLEN;

				if (a->nla_type == RDMA_NLDEV_ATTR_DEV_INDEX)
					memcpy(&idx, v, sizeof(idx));
				else if (a->nla_type == RDMA_NLDEV_ATTR_DEV_NAME)
					named = !strncmp(v, name, a->nla_len - NLA_HDRLEN);
				if ((size_t)NLA_ALIGN(a->nla_len) >= left)
					break;
				left -= (size_t)NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
			}
			if (named)
				index = idx;
		}
	}
	close(fd);
	return index;
}

/*
 * Delete RDMA device name (RDMA_NLDEV_CMD_DELLINK, as `rdma link delete`,
 * which no release root has), 20 s at most: the kernel waits for every
 * user of the device to close it (librdmacm keeps its contexts), so the
 * request runs in a child that an alarm ends.  True when it was deleted.
 */
static inline bool vs_t_rdma_link_del(const char *name)
{
	int index = vs_t_rdma_dev_index(name), status;
	pid_t pid;

	if (index < 0)
		VS_FAIL("no RDMA device %s to delete", name);
	pid = fork();
	VS_ASSERT(pid >= 0);
	if (!pid) {
		struct {
			struct nlmsghdr h;
			struct nlattr a;
			uint32_t index;
		} req = {
			.h = {
				.nlmsg_len = sizeof(req),
				.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
							       RDMA_NLDEV_CMD_DELLINK),
				.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
				.nlmsg_seq = 1,
			},
			.a = { .nla_len = NLA_HDRLEN + sizeof(uint32_t),
			       .nla_type = RDMA_NLDEV_ATTR_DEV_INDEX },
			.index = (uint32_t)index,
		};
		struct {
			struct nlmsghdr h;
			struct nlmsgerr e;
		} ans;
		struct sockaddr_nl to = { .nl_family = AF_NETLINK };
		int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);

		alarm(20);
		if (fd < 0 || sendto(fd, &req, sizeof(req), 0,
				     (struct sockaddr *)&to, sizeof(to)) != sizeof(req) ||
		    recv(fd, &ans, sizeof(ans), 0) < (ssize_t)sizeof(ans) ||
		    ans.h.nlmsg_type != NLMSG_ERROR)
			_exit(2);
		if (ans.e.error) {
			fprintf(stderr, "RDMA netlink DELLINK %s: %s\n", name,
				strerror(-ans.e.error));
			_exit(1);
		}
		_exit(0);
	}
	VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static inline void vs_t_rxe_add(const char *name, const char *ndev)
{
	vs_t_rdma_link_add(name, "rxe", ndev);
}

/* Waits (10 s at most) until port 1 of dev is ACTIVE (siw: then the CM finds it). */
static inline void vs_t_port_wait_active(const char *dev)
{
	uint64_t t0 = vs_t_now_ms();
	char path[128], line[64];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/state", dev);
	while (vs_t_now_ms() - t0 < 10000) {
		FILE *f = fopen(path, "r");
		bool up = f && fgets(line, sizeof(line), f) && strstr(line, "ACTIVE");

		if (f)
			fclose(f);
		if (up)
			return;
		usleep(100000);
	}
	VS_FAIL("port 1 of %s not ACTIVE after 10 s", dev);
}

/* Waits (10 s at most) until IPv4 address ip has its GID on rxe device dev: the CM binds by it. */
static inline void vs_t_rxe_wait_gid(const char *dev, const char *ip)
{
	uint64_t t0 = vs_t_now_ms();
	unsigned char a[4];
	char want[48], path[128], line[64];

	VS_ASSERT_EQ(inet_pton(AF_INET, ip, a), 1);
	/* sysfs shows ::ffff:a.b.c.d as 0000:...:ffff:aabb:ccdd */
	snprintf(want, sizeof(want),
		 "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n", a[0], a[1],
		 a[2], a[3]);
	while (vs_t_now_ms() - t0 < 10000) {
		for (int i = 0; i < 16; i++) {
			FILE *f;
			bool found;

			snprintf(path, sizeof(path),
				 "/sys/class/infiniband/%s/ports/1/gids/%d", dev, i);
			f = fopen(path, "r");
			if (!f)
				continue;
			found = fgets(line, sizeof(line), f) && !strcmp(line, want);
			fclose(f);
			if (found)
				return;
		}
		usleep(100000);
	}
	VS_FAIL("no GID for %s on %s after 10 s", ip, dev);
}

/* The next event of id of type want, within limit_ms; others on the way are shown. */
static inline void vs_t_cm_next_type(struct vs_cm_id *id, enum rdma_cm_event_type want,
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

/* Both sides of one RC connection in this thread (no_wait steps). */
struct vs_t_cm_pair {
	struct vs_cm_id *l, *c, *s; /* listener, client, the accepted peer */
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *cqp, *sqp;
	struct vs_mr *mr;
};

/* A listener on host, a client connected to it, one message checked. */
static inline void vs_t_cm_pair_connect(struct vs_t_cm_pair *p, const char *host)
{
	struct vs_cm_event ev;
	char port[16];
	struct vs_wc wc[2];
	enum { MSG = VS_T_CM_MSG };

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
	vs_t_cm_next_type(p->c, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	VS_ASSERT_EQ(ev.err, 0);
	vs_t_cm_next_type(p->s, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	/* the data path works before the event under test */
	vs_t_fill(vs_mr_ptr(p->mr, 0), MSG, 7);
	vs_t_rc_send(p->cqp, 2, vs_mr_sge(p->mr, 0, MSG));
	vs_t_wait(p->cq, wc, 2);
	VS_ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	VS_ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	vs_t_check(vs_mr_ptr(p->mr, MSG), MSG, 7);
}

static inline void vs_t_cm_pair_close(struct vs_t_cm_pair *p)
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

#endif /* VS_CM_RIG_H */
