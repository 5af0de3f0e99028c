/* SPDX-License-Identifier: MIT */
/*
 * The typed connection manager on rxe, client and server in one VM
 * (docs/API.md, "Connection manager"):
 *  - one-call client and server: private data both ways, bytes echoed
 *    and checked both ways, the server serving several clients;
 *  - the steps (resolve by socket address, QP on the id's borrowed
 *    context, connect; get_request, accept) with a caller's PD and CQ;
 *  - reject with private data: the client sees reason 28 and the data;
 *  - no listener on the port: a clear rejected / unreachable error;
 *    an unroutable address: an error within the requested time;
 *  - bad input: connect on a listener, accept twice, private data over
 *    the limit (naming it), NULL and closed ids, closing the borrowed
 *    context;
 *  - non-blocking: both sides in one thread driven by one epoll loop over
 *    the CM fds and a completion channel;
 *  - IPv6: an address added to the netdev, connected by it, bytes checked;
 *  - VS_CM_CYCLES (default 200) connect/transfer/disconnect cycles with
 *    the same open fds before and after.
 */
#include <arpa/inet.h>
#include <linux/ipv6.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "../common/vs_siw_window.h"
#include "../common/vs_typed.h"

#define MSG 64

static const char *ip;
static char port[16];
/* each server accept posts it; on iWARP a client's first send waits for it */
static struct vs_t_accepted accepted;

/*
 * Waits (5 s) for exactly that many sends and receives on cq, successful
 * (or flushed, when flushed_ok).
 */
static void wait_counts_flush(struct vs_cq *cq, int sends, int recvs, bool flushed_ok)
{
	uint64_t deadline = vs_t_now_ms() + 5000;
	struct vs_wc wc;

	while (sends > 0 || recvs > 0) {
		int n = vs_cq_poll(cq, &wc, 1);

		VS_ASSERT(n >= 0);
		if (n) {
			/*
			 * siw ends a send caught by the peer's disconnect with
			 * a local QP operation error rather than a flush
			 */
			if (wc.status != IBV_WC_SUCCESS &&
			    !(flushed_ok && (wc.status == IBV_WC_WR_FLUSH_ERR ||
					     (wc.status == IBV_WC_LOC_QP_OP_ERR &&
					      vs_t_iwarp()))))
				VS_FAIL("completion status %s",
					ibv_wc_status_str(wc.status));
			if (wc.opcode == IBV_WC_RECV)
				recvs--;
			else
				sends--;
			VS_ASSERT(sends >= 0 && recvs >= 0);
			continue;
		}
		if (vs_t_now_ms() > deadline)
			VS_FAIL("cq %p: still %d sends and %d receives to complete after 5 s", (void *)cq,
				sends, recvs);
		usleep(100);
	}
}

static void wait_counts(struct vs_cq *cq, int sends, int recvs)
{
	wait_counts_flush(cq, sends, recvs, false);
}

static void fill(uint8_t *p, int seed)
{
	for (int k = 0; k < MSG; k++)
		p[k] = (uint8_t)(seed * 31 + k * 7 + 1);
}

static void check(const uint8_t *p, int seed)
{
	for (int k = 0; k < MSG; k++)
		if (p[k] != (uint8_t)(seed * 31 + k * 7 + 1))
			VS_FAIL("byte %d of message %d: 0x%02x, expected 0x%02x",
				k, seed, p[k], (uint8_t)(seed * 31 + k * 7 + 1));
}

/* Server side of one connection: receive a message, echo it +1, wait for the disconnect. */
static void serve_echo(struct vs_cm_id *c, struct vs_pd *pd, struct vs_cq *cq,
		       struct vs_rc_qp *qp, bool posted, struct vs_mr *mr)
{
	uint8_t *m = vs_mr_ptr(mr, 0);
	struct vs_cm_event ev;

	if (!posted)
		vs_t_rc_recv(qp, 1, vs_mr_sge(mr, 0, MSG));
	wait_counts(cq, 0, 1);
	for (int k = 0; k < MSG; k++)
		m[MSG + k] = (uint8_t)(m[k] + 1);
	vs_t_rc_send(qp, 2, vs_mr_sge(mr, MSG, MSG));
	/*
	 * The client disconnects once the echo arrived, maybe before its
	 * device acknowledged it: this send then completes flushed (the
	 * bytes were checked at the client).
	 */
	VS_OK(vs_cm_next(c, 5000, &ev));
	while (ev.type == RDMA_CM_EVENT_ESTABLISHED) /* not read by a no_wait accept */
		VS_OK(vs_cm_next(c, 5000, &ev));
	VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_DISCONNECTED);
	VS_ASSERT_PTR_EQ(ev.id, c);
	VS_ASSERT_EQ(vs_cm_state(c), VS_CM_DISCONNECTED);
	VS_ASSERT_EQ(ev.err, ECONNRESET);
	VS_OK(vs_cm_disconnect(c));
	wait_counts_flush(cq, 1, 0, true);
	(void)pd;
}

/* Client side: send message seed, receive it back +1 each byte. */
static void client_echo(struct vs_rc_qp *qp, struct vs_cq *cq, struct vs_mr *mr,
			int seed)
{
	uint8_t *m = vs_mr_ptr(mr, 0);

	vs_t_rc_recv(qp, 3, vs_mr_sge(mr, MSG, MSG));
	vs_t_accepted_wait(&accepted);
	fill(m, seed);
	vs_t_rc_send(qp, 4, vs_mr_sge(mr, 0, MSG));
	wait_counts(cq, 1, 1);
	for (int k = 0; k < MSG; k++)
		if (m[MSG + k] != (uint8_t)(m[k] + 1))
			VS_FAIL("echo byte %d: 0x%02x, expected 0x%02x", k,
				m[MSG + k], (uint8_t)(m[k] + 1));
}

/* ---- one-call server serving n clients (a thread) ---- */
struct server_args {
	struct vs_cm_id *l;
	int n;
	bool reject;
};

/*
 * The one-call server's hook: the echo's MR on the id's PD and its
 * receive, posted before the accept (iWARP has no RNR retry).
 */
static int post_first(struct vs_cm_id *c, void *arg)
{
	struct vs_mr **mr = arg;
	int ret = vs_mr_alloc(vs_cm_pd(c), 2 * MSG, 0, mr);

	if (!ret)
		vs_t_rc_recv(vs_cm_rc_qp(c), 1, vs_mr_sge(*mr, 0, MSG));
	return ret;
}

static void *one_call_server(void *arg)
{
	struct server_args *a = arg;

	for (int i = 0; i < a->n; i++) {
		struct vs_cm_id *c;
		struct vs_mr *mr;
		uint8_t len;
		const char *pd;
		char want[32];

		if (a->reject) {
			VS_OK(vs_cm_get_request(a->l, 10000, &c));
			VS_ASSERT_EQ(vs_cm_state(c), VS_CM_REQUEST);
			VS_OK(vs_cm_reject(c, "go away: full", 14));
			VS_ASSERT_EQ(vs_cm_state(c), VS_CM_REJECTED);
			VS_FAILS(vs_cm_accept(c, NULL), EINVAL, "REJECTED");
			VS_OK(vs_cm_close(c));
			continue;
		}
		VS_OK(vs_cm_rc_serve(a->l, &(struct vs_cm_conn_config){
			.comp_mask = VS_CM_CONN_BEFORE_ACCEPT,
			.private_data = "welcome", .private_data_len = 8,
			.timeout_ms = 10000, .before_accept = post_first,
			.before_accept_arg = &mr }, NULL, &c));
		vs_t_accepted_post(&accepted);
		VS_ASSERT_EQ(vs_cm_state(c), VS_CM_CONNECTED);
		pd = vs_cm_private_data(c, &len);
		snprintf(want, sizeof(want), "client %d", i);
		/*
		 * The IB CM pads private data to its message's room (56 for a
		 * REQ); iWARP's MPA carries it as sent
		 */
		VS_ASSERT_EQ(len, vs_t_iwarp() ? strlen(want) + 1 : VS_CM_CONNECT_DATA_MAX);
		VS_ASSERT_STREQ(pd, want);
		serve_echo(c, vs_cm_pd(c), vs_cm_cq(c), vs_cm_rc_qp(c), true, mr);
		VS_OK(vs_mr_close(mr));
		VS_OK(vs_cm_close(c));
	}
	return NULL;
}

static void test_one_call(struct vs_cm_id *l)
{
	struct server_args a = { .l = l, .n = 3 };
	pthread_t t;

	VS_ASSERT_EQ(pthread_create(&t, NULL, one_call_server, &a), 0);
	for (int i = 0; i < a.n; i++) {
		struct vs_cm_id *id;
		struct vs_mr *mr;
		char hello[32];
		uint8_t len;

		snprintf(hello, sizeof(hello), "client %d", i);
		VS_OK(vs_cm_rc_client(ip, port, NULL, &(struct vs_cm_conn_config){
			.private_data = hello,
			.private_data_len = (uint8_t)(strlen(hello) + 1) },
			NULL, &id));
		VS_ASSERT_EQ(vs_cm_state(id), VS_CM_CONNECTED);
		VS_ASSERT_STREQ(vs_cm_private_data(id, &len), "welcome");
		VS_ASSERT(len >= 8);
		VS_ASSERT(strstr(vs_cm_peer(id), ip));
		VS_ASSERT_EQ(vs_rc_qp_caps(vs_cm_rc_qp(id))->max_send_wr >= 128, 1);
		VS_OK(vs_mr_alloc(vs_cm_pd(id), 2 * MSG, 0, &mr));
		client_echo(vs_cm_rc_qp(id), vs_cm_cq(id), mr, i);
		VS_OK(vs_cm_disconnect(id));
		VS_ASSERT_EQ(vs_cm_state(id), VS_CM_DISCONNECTED);
		VS_OK(vs_mr_close(mr));
		VS_OK(vs_cm_close(id));
		VS_FAILS(vs_cm_close(id), EINVAL, "already closed");
		VS_FAILS(vs_cm_connect(id, NULL), EINVAL, "already closed");
	}
	pthread_join(t, NULL);
	printf("one-call: %d clients served, bytes echoed and checked\n", a.n);
}

/* ---- the steps, with the caller's PD and CQ on the borrowed context ---- */
static void *steps_server(void *arg)
{
	struct vs_cm_id *l = arg, *c;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct vs_mr *mr;
	uint8_t len;

	VS_OK(vs_cm_get_request(l, 10000, &c));
	VS_ASSERT_STREQ(vs_cm_private_data(c, &len), "steps");
	ctx = vs_cm_context(c);
	VS_ASSERT(ctx);
	VS_FAILS(vs_device_close(ctx), EINVAL, "borrowed");
	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	VS_FAILS(vs_cm_accept(c, NULL), EINVAL, "no QP");
	VS_OK(vs_cm_rc_qp_create(c, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
	{
		struct vs_rc_qp *second = (struct vs_rc_qp *)&second;

		VS_FAILS(vs_cm_rc_qp_create(c, pd, &(struct vs_rc_config){ .send_cq = cq }, &second),
			 EINVAL, "already has its QP");
		VS_ASSERT_PTR_EQ(second, NULL);
	}
	VS_OK(vs_mr_alloc(pd, 2 * MSG, 0, &mr));
	vs_t_rc_recv(qp, 1, vs_mr_sge(mr, 0, MSG)); /* before the client can send */
	{
		uint8_t big[VS_CM_ACCEPT_DATA_MAX + 1] = { 0 };

		VS_FAILS(vs_cm_accept(c, &(struct vs_cm_conn_config){
			.private_data = big, .private_data_len = sizeof(big) }),
			EINVAL, "exceeds the 196 bytes");
	}
	VS_OK(vs_cm_accept(c, NULL));
	vs_t_accepted_post(&accepted);
	VS_FAILS(vs_cm_accept(c, NULL), EINVAL, "already accepted");
	VS_FAILS(vs_cm_connect(l, NULL), EINVAL, "listener");
	serve_echo(c, pd, cq, qp, true, mr);
	/* any order: the id keeps its QP, the QP its CQ and PD */
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_cm_close(c));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_rc_qp_close(qp));
	return NULL;
}

static void test_steps(struct vs_cm_id *l)
{
	struct vs_cm_id *id;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct vs_mr *mr;
	pthread_t t;

	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)atoi(port)) };
	char want[64];

	VS_ASSERT_EQ(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
	VS_ASSERT_EQ(pthread_create(&t, NULL, steps_server, l), 0);
	/* by socket address: no name lookup; the peer's text made when asked */
	VS_OK(vs_cm_resolve_addr((struct sockaddr *)&sin, &(struct vs_cm_config){
		.timeout_ms = 3000 }, &id));
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVED);
	snprintf(want, sizeof(want), "%s:%s", ip, port);
	VS_ASSERT_STREQ(vs_cm_peer(id), want);
	VS_FAILS(vs_cm_connect(id, NULL), EINVAL, "no QP");
	ctx = vs_cm_context(id);
	VS_ASSERT(ctx);
	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	VS_OK(vs_cm_rc_qp_create(id, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
	VS_ASSERT_PTR_EQ(vs_cm_rc_qp(id), qp);
	VS_ASSERT_EQ(vs_cm_rc_qp_create(id, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp), -EINVAL);
	qp = vs_cm_rc_qp(id);
	{
		uint8_t big[VS_CM_CONNECT_DATA_MAX + 1] = { 0 };

		VS_FAILS(vs_cm_connect(id, &(struct vs_cm_conn_config){
			.private_data = big, .private_data_len = sizeof(big) }),
			EINVAL, "exceeds the 56 bytes an RC connect request (REQ) carries");
	}
	VS_OK(vs_cm_connect(id, &(struct vs_cm_conn_config){
		.private_data = "steps", .private_data_len = 6 }));
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_CONNECTED);
	VS_FAILS(vs_cm_connect(id, NULL), EINVAL, "CONNECTED");
	VS_OK(vs_mr_alloc(pd, 2 * MSG, 0, &mr));
	client_echo(qp, cq, mr, 77);
	VS_OK(vs_cm_disconnect(id));
	VS_OK(vs_cm_close(id));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	pthread_join(t, NULL);
	printf("steps: caller's PD/CQ on the borrowed context, bytes checked\n");
}

static void test_reject(struct vs_cm_id *l)
{
	struct server_args a = { .l = l, .n = 1, .reject = true };
	struct vs_cm_id *id;
	pthread_t t;

	VS_ASSERT_EQ(pthread_create(&t, NULL, one_call_server, &a), 0);
	if (vs_t_iwarp())
		VS_FAILS(vs_cm_rc_client(ip, port, NULL, NULL, NULL, &id), ECONNREFUSED,
			 "the peer refused the connection, an iWARP MPA reject) "
			 "with private data \"go away: full\"");
	else
		VS_FAILS(vs_cm_rc_client(ip, port, NULL, NULL, NULL, &id), ECONNREFUSED,
			 "reason 28: consumer defined: the peer's program rejected the "
			 "request) with private data \"go away: full\"");
	VS_ASSERT(strstr(vs_last_error()->message, ip));
	VS_ASSERT_PTR_EQ(id, NULL);
	printf("reject: %s\n", vs_last_error()->message);
	pthread_join(t, NULL);
	/* the steps keep the id: reason and data readable */
	VS_ASSERT_EQ(pthread_create(&t, NULL, one_call_server, &a), 0);
	{
		struct vs_context *ctx;
		struct vs_pd *pd;
		struct vs_cq *cq;
		struct vs_rc_qp *qp;
		uint8_t len;

		VS_OK(vs_cm_resolve(ip, port, NULL, &id));
		ctx = vs_cm_context(id);
		VS_OK(vs_pd_alloc(ctx, &pd));
		VS_OK(vs_cq_create(ctx, NULL, &cq));
		VS_OK(vs_cm_rc_qp_create(id, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
		VS_FAILS(vs_cm_connect(id, NULL), ECONNREFUSED, "go away");
		VS_ASSERT_EQ(vs_cm_state(id), VS_CM_REJECTED);
		/* iWARP: iw_cm's errno (siw: -ECONNRESET), no IB CM reason */
		if (vs_t_iwarp())
			VS_ASSERT(vs_cm_reject_reason(id) < 0);
		else
			VS_ASSERT_EQ(vs_cm_reject_reason(id), 28);
		VS_ASSERT_STREQ(vs_cm_private_data(id, &len), "go away: full");
		VS_ASSERT(len >= 14);
		VS_OK(vs_rc_qp_close(qp));
		VS_OK(vs_cq_close(cq));
		VS_OK(vs_pd_close(pd));
		VS_OK(vs_cm_close(id));
	}
	pthread_join(t, NULL);
}

static void test_no_listener(void)
{
	struct vs_cm_id *l, *id;
	char free_port[16];
	uint64_t t0;
	int ret;

	/* a port nobody listens on: one that was just closed */
	VS_OK(vs_cm_listen(ip, "0", NULL, &l));
	snprintf(free_port, sizeof(free_port), "%u", vs_cm_port(l));
	VS_OK(vs_cm_close(l));
	t0 = vs_t_now_ms();
	vs_clear_error();
	ret = vs_cm_rc_client(ip, free_port, NULL,
			      &(struct vs_cm_conn_config){ .timeout_ms = 4000 },
			      NULL, &id);
	printf("no listener (%llu ms): %s\n",
	       (unsigned long long)(vs_t_now_ms() - t0), vs_t_err());
	VS_ASSERT(ret == -ECONNREFUSED || ret == -EHOSTUNREACH || ret == -ETIMEDOUT);
	VS_ASSERT(strstr(vs_last_error()->message, "connecting to"));
	VS_ASSERT(strstr(vs_last_error()->message, free_port));
	if (ret == -ECONNREFUSED)
		VS_ASSERT(strstr(vs_last_error()->message, "nobody listens"));
	VS_ASSERT(vs_t_now_ms() - t0 < 6000);
}

/*
 * Addresses nobody answers at: on the dummy netdev's subnet (NOARP: the
 * address resolves at once, the connect finds nobody), off every subnet,
 * and an IPv6 one.  Each fails, naming the host, within the limits asked
 * (1000 ms per resolve step, 3000 ms for the connect) plus slack.
 */
static void test_unroutable(void)
{
	const char *hosts[] = { "192.168.77.99", "10.255.255.1", "fd99::1" };
	/*
	 * siw makes its TCP connect inside rdma_connect, blocking until TCP
	 * gives up (about 130 s): no timeout of the CM can end that wait.  A
	 * silent peer on the local subnet is not tried there.
	 */
	bool iwarp = vs_t_iwarp();

	if (iwarp)
		printf("unroutable %s: not on iWARP (siw's connect blocks in the "
		       "kernel until TCP gives up)\n", hosts[0]);
	for (size_t i = iwarp ? 1 : 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		struct vs_cm_id *id = (struct vs_cm_id *)&id;
		uint64_t t0 = vs_t_now_ms();
		int ret = vs_cm_rc_client(hosts[i], "7471",
					  &(struct vs_cm_config){ .timeout_ms = 1000 },
					  &(struct vs_cm_conn_config){ .timeout_ms = 3000 },
					  NULL, &id);
		uint64_t took = vs_t_now_ms() - t0;

		printf("unroutable %s (%llu ms): %d %s\n", hosts[i],
		       (unsigned long long)took, ret, vs_t_err());
		VS_ASSERT(ret < 0);
		VS_ASSERT_PTR_EQ(id, NULL);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_rc_client");
		VS_ASSERT(strstr(vs_last_error()->message, hosts[i]));
		VS_ASSERT(took < 2 * 1000 + 3000 + 2000);
	}
}

static void test_bad_input(struct vs_cm_id *l)
{
	struct vs_cm_id *id = (struct vs_cm_id *)&id;
	struct vs_pd *pd = (struct vs_pd *)&pd;
	int ret;

	VS_FAILS(vs_cm_connect(NULL, NULL), EINVAL, "id is NULL");
	VS_FAILS(vs_cm_accept(NULL, NULL), EINVAL, "id is NULL");
	VS_FAILS(vs_cm_close(NULL), EINVAL, "id is NULL");
	VS_FAILS(vs_cm_connect(l, NULL), EINVAL, "listener");
	VS_FAILS(vs_cm_accept(l, NULL), EINVAL, "LISTENING");
	/* no request yet; any other answer is said with its record (the
	 * event read's failure names rdma_get_cm_event and its errno) */
	ret = vs_cm_get_request(l, 0, &id);
	if (ret != -EAGAIN)
		VS_FAIL("vs_cm_get_request(l, 0, &id) = %d, expected -EAGAIN "
			"(no request yet): %s", ret, vs_t_err());
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_FAILS(vs_cm_resolve(NULL, "1", NULL, &id), EINVAL, "host is NULL");
	VS_FAILS(vs_cm_resolve_addr(NULL, NULL, &id), EINVAL, "dst is NULL");
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_FAILS(vs_cm_resolve_addr((struct sockaddr *)&(struct sockaddr_in){
		.sin_family = AF_INET }, NULL, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_cm_resolve_addr(&(struct sockaddr){ .sa_family = AF_UNIX },
				    NULL, &id), EAFNOSUPPORT,
		 "dst's family is 1, not AF_INET (2) or AF_INET6 (10)");
	VS_FAILS(vs_cm_resolve_addr((struct sockaddr *)&(struct sockaddr_in){
		.sin_family = AF_INET }, &(struct vs_cm_config){ .timeout_ms = -1 },
		&id), EINVAL, "timeout_ms -1");
	VS_FAILS(vs_cm_resolve(ip, "1", &(struct vs_cm_config){ .transport = VS_TRANSPORT_UC }, &id),
		 EINVAL, "RC and UD");
	VS_FAILS(vs_cm_rc_qp_create(l, pd, &(struct vs_rc_config){ 0 }, (struct vs_rc_qp **)&id),
		 EINVAL, "listener");
	VS_FAILS(vs_cm_listen(ip, "0", &(struct vs_cm_config){ .comp_mask = 2 }, &id),
		 EINVAL, "comp_mask");
	VS_FAILS(vs_cm_connect((struct vs_cm_id *)pd, NULL), EINVAL, "another kind");
	VS_ASSERT_EQ(vs_cm_fd(NULL), -1);
	VS_ASSERT_EQ(vs_cm_state(NULL), VS_CM_FAILED);
}

/* ---- non-blocking: both sides in one thread, one epoll loop ---- */
static void ep_add(int ep, int fd, uint64_t tag)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u64 = tag };

	VS_ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e), 0);
}

enum { T_LISTENER = 1, T_CLIENT, T_SERVER, T_CHANNEL };

static void test_epoll(struct vs_cm_id *l)
{
	struct vs_cm_id *cid, *sid = NULL;
	struct vs_context *cctx;
	struct vs_pd *cpd, *spd = NULL;
	struct vs_cq *ccq, *scq = NULL;
	struct vs_channel *sch = NULL;
	struct vs_rc_qp *cqp, *sqp = NULL;
	struct vs_mr *cmr, *smr = NULL;
	int ep = epoll_create1(0), phase = 0;
	bool c_est = false, s_est = false, got = false;
	uint64_t deadline = vs_t_now_ms() + 15000;

	VS_ASSERT(ep >= 0);
	ep_add(ep, vs_cm_fd(l), T_LISTENER);
	VS_OK(vs_cm_resolve(ip, port, NULL, &cid));
	cctx = vs_cm_context(cid);
	VS_OK(vs_pd_alloc(cctx, &cpd));
	VS_OK(vs_cq_create(cctx, NULL, &ccq));
	VS_OK(vs_cm_rc_qp_create(cid, cpd, &(struct vs_rc_config){ .send_cq = ccq }, &cqp));
	VS_OK(vs_mr_alloc(cpd, MSG, 0, &cmr));
	ep_add(ep, vs_cm_fd(cid), T_CLIENT);
	VS_OK(vs_cm_connect(cid, &(struct vs_cm_conn_config){
		.private_data = "nb", .private_data_len = 3, .no_wait = true }));
	VS_ASSERT_EQ(vs_cm_state(cid), VS_CM_CONNECTING);
	while (!(c_est && s_est && got)) {
		struct epoll_event e[4];
		int n = epoll_wait(ep, e, 4, 1000);

		if (vs_t_now_ms() > deadline)
			VS_FAIL("epoll loop: client %d server %d message %d after 15 s",
				c_est, s_est, got);
		for (int i = 0; i < n; i++) {
			struct vs_cm_event ev;

			switch (e[i].data.u64) {
			case T_LISTENER:
				while (vs_cm_next(l, 0, &ev) == 0) {
					VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_CONNECT_REQUEST);
					VS_ASSERT_PTR_EQ(ev.listener, l);
					VS_ASSERT_STREQ((char *)ev.private_data, "nb");
					sid = ev.id;
					VS_ASSERT_EQ(vs_cm_state(sid), VS_CM_REQUEST);
					ep_add(ep, vs_cm_fd(sid), T_SERVER);
					VS_OK(vs_channel_create(vs_cm_context(sid), &sch));
					ep_add(ep, vs_channel_fd(sch), T_CHANNEL);
					VS_OK(vs_pd_alloc(vs_cm_context(sid), &spd));
					VS_OK(vs_cq_create(vs_cm_context(sid), &(struct vs_cq_config){
						.channel = sch }, &scq));
					VS_OK(vs_cm_rc_qp_create(sid, spd, &(struct vs_rc_config){
						.send_cq = scq }, &sqp));
					VS_OK(vs_mr_alloc(spd, MSG, 0, &smr));
					vs_t_rc_recv(sqp, 9, vs_mr_sge(smr, 0, MSG));
					VS_OK(vs_cm_accept(sid, &(struct vs_cm_conn_config){
						.no_wait = true }));
					VS_ASSERT_EQ(vs_cm_state(sid), VS_CM_ACCEPTING);
				}
				break;
			case T_CLIENT:
				while (vs_cm_next(cid, 0, &ev) == 0) {
					VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_ESTABLISHED);
					VS_ASSERT_EQ(ev.err, 0);
					VS_ASSERT_PTR_EQ(ev.id, cid);
					VS_ASSERT_EQ(vs_cm_state(cid), VS_CM_CONNECTED);
					c_est = true;
					fill(vs_mr_ptr(cmr, 0), 5);
					vs_t_rc_send(cqp, 8, vs_mr_sge(cmr, 0, MSG));
				}
				break;
			case T_SERVER:
				while (vs_cm_next(sid, 0, &ev) == 0) {
					VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_ESTABLISHED);
					VS_ASSERT_EQ(vs_cm_state(sid), VS_CM_CONNECTED);
					s_est = true;
				}
				break;
			case T_CHANNEL: {
				struct vs_cq *from;
				struct vs_wc wc[4];
				int k;

				while ((k = vs_channel_wait(sch, 0, &from, wc, 4)) > 0) {
					VS_ASSERT_PTR_EQ(from, scq);
					VS_ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
					VS_ASSERT_EQ(wc[0].opcode, IBV_WC_RECV);
					check(vs_mr_ptr(smr, 0), 5);
					got = true;
				}
				VS_ASSERT_EQ(k, -EAGAIN);
				break;
			}
			}
		}
		(void)phase;
	}
	wait_counts(ccq, 1, 0);
	VS_OK(vs_cm_close(cid));
	VS_OK(vs_cm_close(sid));
	VS_OK(vs_rc_qp_close(cqp));
	VS_OK(vs_rc_qp_close(sqp));
	VS_OK(vs_mr_close(cmr));
	VS_OK(vs_mr_close(smr));
	VS_OK(vs_cq_close(ccq));
	VS_OK(vs_cq_close(scq));
	VS_OK(vs_channel_close(sch));
	VS_OK(vs_pd_close(cpd));
	VS_OK(vs_pd_close(spd));
	close(ep);
	printf("epoll: both sides and a completion channel in one loop, bytes checked\n");
}

/*
 * Adds addr/64 to the netdev carrying the device's IPv4 address (found by
 * address: siw's GIDs name no netdev) (SIOCSIFADDR).
 */
static void add_ipv6(const char *addr)
{
	char dev[IFNAMSIZ] = "";
	struct in6_ifreq r = { .ifr6_prefixlen = 64 };
	struct ifaddrs *ifs;
	struct in_addr want;
	int fd;

	VS_ASSERT_EQ(inet_pton(AF_INET, ip, &want), 1);
	VS_ASSERT_EQ(getifaddrs(&ifs), 0);
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == want.s_addr)
			snprintf(dev, sizeof(dev), "%s", i->ifa_name);
	freeifaddrs(ifs);
	VS_ASSERT(dev[0]);
	r.ifr6_ifindex = (int)if_nametoindex(dev);
	VS_ASSERT(r.ifr6_ifindex > 0);
	VS_ASSERT_EQ(inet_pton(AF_INET6, addr, &r.ifr6_addr), 1);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	VS_ASSERT(fd >= 0);
	if (ioctl(fd, SIOCSIFADDR, &r) && errno != EEXIST)
		VS_FAIL("cannot add %s/64 to %s: %s", addr, dev, strerror(errno));
	close(fd);
}

/*
 * IPv6: an address added to the rxe netdev (dummy0 of the VM) becomes a
 * RoCE v2 GID; a one-call client and server by that address, bytes
 * echoed and checked.
 */
static void test_ipv6(void)
{
	const char *ip6 = "fd77::1";
	struct vs_cm_id *l = NULL;
	struct server_args a = { .n = 1 };
	char p6[16];
	pthread_t t;
	struct vs_cm_id *id;
	struct vs_mr *mr;
	char hello[] = "client 0";

	add_ipv6(ip6);
	/*
	 * The GID appears shortly after the address: until then the bind
	 * says the address is not there yet (no device on it, or not an
	 * address here while it is tentative), and only that is waited out.
	 */
	for (int i = 0; i < 50; i++) {
		int ret = vs_cm_listen(ip6, "0", NULL, &l);

		if (ret != -ENODEV && ret != -EADDRNOTAVAIL)
			break;
		usleep(100000);
	}
	if (!l)
		VS_FAIL("listening on %s: %s", ip6, vs_t_err());
	snprintf(p6, sizeof(p6), "%u", vs_cm_port(l));
	a.l = l;
	VS_ASSERT_EQ(pthread_create(&t, NULL, one_call_server, &a), 0);
	VS_OK(vs_cm_rc_client(ip6, p6, NULL, &(struct vs_cm_conn_config){
		.private_data = hello, .private_data_len = sizeof(hello),
		.timeout_ms = 10000 }, NULL, &id));
	VS_ASSERT(strstr(vs_cm_peer(id), "[fd77::1]:"));
	VS_OK(vs_mr_alloc(vs_cm_pd(id), 2 * MSG, 0, &mr));
	client_echo(vs_cm_rc_qp(id), vs_cm_cq(id), mr, 6);
	VS_OK(vs_cm_disconnect(id));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cm_close(id));
	pthread_join(t, NULL);
	{
		/* resolving a sockaddr_in6: address and route, peer named */
		struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
					     .sin6_port = htons(vs_cm_port(l)) };
		char want[64];

		VS_ASSERT_EQ(inet_pton(AF_INET6, ip6, &sin6.sin6_addr), 1);
		VS_OK(vs_cm_resolve_addr((struct sockaddr *)&sin6, NULL, &id));
		VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVED);
		VS_ASSERT(vs_cm_context(id) != NULL);
		snprintf(want, sizeof(want), "[%s]:%s", ip6, p6);
		VS_ASSERT_STREQ(vs_cm_peer(id), want);
		VS_OK(vs_cm_close(id));
	}
	VS_OK(vs_cm_close(l));
	printf("ipv6: connected to [%s]:%s, bytes echoed and checked\n", ip6, p6);
}

/*
 * The cycles' server: one PD, CQ and MR for all its connections, the
 * receive posted before the accept (a send that finds no receive waits
 * for the CM's RNR timer, 655 ms).
 */
static void *cycle_server(void *arg)
{
	struct server_args *a = arg;
	struct vs_pd *pd = NULL;
	struct vs_cq *cq = NULL;
	struct vs_mr *mr = NULL;

	for (int i = 0; i < a->n; i++) {
		struct vs_cm_id *c;
		struct vs_rc_qp *qp;

		VS_OK(vs_cm_get_request(a->l, 10000, &c));
		if (!pd) {
			VS_OK(vs_pd_alloc(vs_cm_context(c), &pd));
			VS_OK(vs_cq_create(vs_cm_context(c), NULL, &cq));
			VS_OK(vs_mr_alloc(pd, 2 * MSG, 0, &mr));
		}
		VS_OK(vs_cm_rc_qp_create(c, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
		vs_t_rc_recv(qp, 1, vs_mr_sge(mr, 0, MSG));
		VS_OK(vs_cm_accept(c, NULL));
		vs_t_accepted_post(&accepted);
		serve_echo(c, pd, cq, qp, true, mr);
		VS_OK(vs_rc_qp_close(qp));
		VS_OK(vs_cm_close(c));
	}
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	return NULL;
}

static void test_cycles(struct vs_cm_id *l, int cycles)
{
	struct server_args a = { .l = l, .n = cycles };
	pthread_t t;
	int before = vs_t_count_fds(), after;
	uint64_t t0 = vs_t_now_ms(), steps[4] = { 0 };

	VS_ASSERT_EQ(pthread_create(&t, NULL, cycle_server, &a), 0);
	for (int i = 0; i < cycles; i++) {
		struct vs_cm_id *id;
		struct vs_mr *mr;
		char hello[32];

		uint64_t t[5];

		snprintf(hello, sizeof(hello), "client %d", i);
		t[0] = vs_t_now_ms();
		VS_OK(vs_cm_rc_client(ip, port, NULL, &(struct vs_cm_conn_config){
			.private_data = hello,
			.private_data_len = (uint8_t)(strlen(hello) + 1),
			.timeout_ms = 10000 }, NULL, &id));
		t[1] = vs_t_now_ms();
		VS_OK(vs_mr_alloc(vs_cm_pd(id), 2 * MSG, 0, &mr));
		client_echo(vs_cm_rc_qp(id), vs_cm_cq(id), mr, i);
		t[2] = vs_t_now_ms();
		VS_OK(vs_cm_disconnect(id));
		t[3] = vs_t_now_ms();
		VS_OK(vs_mr_close(mr));
		VS_OK(vs_cm_close(id));
		t[4] = vs_t_now_ms();
		for (int k = 0; k < 4; k++)
			steps[k] += t[k + 1] - t[k];
	}
	pthread_join(t, NULL);
	after = vs_t_count_fds();
	printf("cycles: %d connect/transfer/disconnect in %llu ms; fds %d before, %d after\n",
	       cycles, (unsigned long long)(vs_t_now_ms() - t0), before, after);
	printf("cycles: ms in total: connect %llu, transfer %llu, disconnect %llu, close %llu\n",
	       (unsigned long long)steps[0], (unsigned long long)steps[1],
	       (unsigned long long)steps[2], (unsigned long long)steps[3]);
	VS_ASSERT_EQ(after, before);
}

int main(void)
{
	struct vs_cm_id *l;
	const char *cyc = getenv("VS_CM_CYCLES");

	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	setvbuf(stdout, NULL, _IOLBF, 0); /* a timeout's log shows how far it got */
	vs_t_accepted_init(&accepted);
	VS_OK(vs_cm_listen(ip, "0", &(struct vs_cm_config){ .backlog = 8 }, &l));
	VS_ASSERT_EQ(vs_cm_state(l), VS_CM_LISTENING);
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	VS_ASSERT(vs_cm_port(l) != 0);
	printf("listening on %s:%s\n", ip, port);
	test_bad_input(l);
	test_one_call(l);
	test_steps(l);
	test_reject(l);
	test_no_listener();
	test_unroutable();
	test_epoll(l);
	test_ipv6();
	test_cycles(l, cyc ? atoi(cyc) : 200);
	VS_OK(vs_cm_close(l));
	printf("ok\n");
	return 0;
}
