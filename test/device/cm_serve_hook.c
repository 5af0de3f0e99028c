/* SPDX-License-Identifier: MIT */
/*
 * The one-call server's before_accept hook (vs_cm_conn_config,
 * VS_CM_CONN_BEFORE_ACCEPT; docs/API.md, "Connection manager"), on the
 * device under test (rxe or siw):
 *  - the hook posts the server's receives on the new id's own PD and QP
 *    before the accept, so a one-call client may send at once after its
 *    connect (on iWARP once the serve returned: siw's accept window,
 *    test/common/vs_siw_window.h): ROUNDS clients, each sending BURST
 *    messages without waiting for an answer,
 *    every byte checked at the server and in the echo (on iWARP, which
 *    has no RNR retry, this is the only safe one-call server);
 *  - a hook's failure rejects the client: its own -errno (recorded,
 *    naming before_accept and the client), or the record of the vs_ call
 *    that failed in it; the client sees the rejection;
 *  - misuse: the bit on vs_cm_connect / vs_cm_accept / vs_cm_rc_client,
 *    the bit without a hook, a hook that closes the id it was given
 *    (refused in the call, EBUSY: the id is vs_cm_rc_serve's).
 */
#include <pthread.h>

#include "../common/vs_siw_window.h"
#include "../common/vs_typed.h"

#define MSG 64
#define BURST 4
#define ROUNDS 3
#define WAIT_MS 20000

static const char *ip;
static char port[16];
/* on iWARP the burst waits for the serve's return: siw's accept window */
static struct vs_t_accepted accepted;
/* siw's close window: the client's completions before the server leaves */
static struct vs_t_accepted completed;

/* what the hook made for the server's connection */
struct posted {
	struct vs_mr *mr;
	int calls;
	int fail;     /* 1: return -EPERM; 2: a vs_ call fails; 3: close the id */
};

static int post_receives(struct vs_cm_id *id, void *arg)
{
	struct posted *p = arg;
	struct vs_mr *bad;
	int ret;

	p->calls++;
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_REQUEST);
	VS_ASSERT(vs_cm_pd(id) && vs_cm_cq(id) && vs_cm_rc_qp(id));
	switch (p->fail) {
	case 1:
		return -EPERM;
	case 2:
		ret = vs_mr_alloc(vs_cm_pd(id), 0, 0, &bad);
		VS_ASSERT(ret < 0);
		return ret;
	case 3: /* refused in the call: the id is vs_cm_rc_serve's (issue 36) */
		ret = vs_cm_close(id);
		VS_ASSERT_EQ(ret, -EBUSY);
		return ret;
	}
	ret = vs_mr_alloc(vs_cm_pd(id), 2 * BURST * MSG, 0, &p->mr);
	if (ret)
		return ret;
	for (int k = 0; k < BURST; k++)
		vs_t_rc_recv(vs_cm_rc_qp(id), (uint64_t)k,
			     vs_mr_sge(p->mr, (size_t)k * MSG, MSG));
	return 0;
}

static struct vs_cm_conn_config hooked(struct posted *p)
{
	return (struct vs_cm_conn_config){
		.comp_mask = VS_CM_CONN_BEFORE_ACCEPT,
		.timeout_ms = WAIT_MS,
		.before_accept = post_receives,
		.before_accept_arg = p,
	};
}

static void await_disconnect(struct vs_cm_id *id)
{
	struct vs_cm_event ev;

	do
		VS_OK(vs_cm_next(id, WAIT_MS, &ev));
	while (ev.type != RDMA_CM_EVENT_DISCONNECTED);
}

/* Receives the burst (every byte checked) and echoes it transformed. */
static void serve_burst(struct vs_cm_id *c, struct vs_mr *mr, int round)
{
	struct vs_wc wc[BURST];
	uint8_t *m = vs_mr_ptr(mr, 0);

	vs_t_wait_ms(vs_cm_cq(c), wc, BURST, WAIT_MS);
	for (int k = 0; k < BURST; k++) {
		vs_t_expect_wc(&wc[k], (uint64_t)k, IBV_WC_RECV, MSG);
		vs_t_check(m + k * MSG, MSG, round * BURST + k);
	}
	vs_t_fill(m + BURST * MSG, MSG, -round - 1);
	vs_t_rc_send(vs_cm_rc_qp(c), 100, vs_mr_sge(mr, BURST * MSG, MSG));
	vs_t_wait_ms(vs_cm_cq(c), wc, 1, WAIT_MS);
	vs_t_expect_wc(&wc[0], 100, IBV_WC_SEND, UINT32_MAX);
	/*
	 * The server ends the connection once its echo is acked: a client
	 * that left at its receive's completion could take the ack with it
	 * (rxe acks after completing); on iWARP once the client has its
	 * completions (test/common/vs_siw_window.h: the close window)
	 */
	vs_t_completed_wait(&completed);
	VS_OK(vs_cm_disconnect(c));
	await_disconnect(c);
}

static void *server(void *arg)
{
	struct vs_cm_id *l = arg;

	for (int r = 0; r < ROUNDS; r++) {
		struct posted p = { 0 };
		struct vs_cm_conn_config conn = hooked(&p);
		struct vs_cm_id *c;

		VS_OK(vs_cm_rc_serve(l, &conn, NULL, &c));
		vs_t_accepted_post(&accepted);
		VS_ASSERT_EQ(p.calls, 1);
		VS_ASSERT_EQ(vs_cm_state(c), VS_CM_CONNECTED);
		serve_burst(c, p.mr, r);
		VS_OK(vs_mr_close(p.mr));
		VS_OK(vs_cm_close(c));
	}
	return NULL;
}

/* The client sends its burst right after the connect, then reads the echo. */
static void client(int round)
{
	struct vs_cm_id *id;
	struct vs_mr *mr;
	struct vs_wc wc[BURST + 1];
	uint8_t *m;

	VS_OK(vs_cm_rc_client(ip, port, NULL, &(struct vs_cm_conn_config){
		.timeout_ms = WAIT_MS }, NULL, &id));
	VS_OK(vs_mr_alloc(vs_cm_pd(id), (BURST + 1) * MSG, 0, &mr));
	m = vs_mr_ptr(mr, 0);
	vs_t_rc_recv(vs_cm_rc_qp(id), 200, vs_mr_sge(mr, BURST * MSG, MSG));
	vs_t_accepted_wait(&accepted);
	for (int k = 0; k < BURST; k++) {
		vs_t_fill(m + k * MSG, MSG, round * BURST + k);
		vs_t_rc_send(vs_cm_rc_qp(id), (uint64_t)k,
			     vs_mr_sge(mr, (size_t)k * MSG, MSG));
	}
	vs_t_wait_ms(vs_cm_cq(id), wc, BURST + 1, WAIT_MS);
	for (int k = 0; k <= BURST; k++)
		VS_ASSERT_EQ(wc[k].status, IBV_WC_SUCCESS);
	vs_t_completed_post(&completed);
	vs_t_check(m + BURST * MSG, MSG, -round - 1);
	await_disconnect(id);
	VS_OK(vs_cm_disconnect(id));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cm_close(id));
}

static void test_bursts(struct vs_cm_id *l)
{
	pthread_t t;

	VS_ASSERT_EQ(pthread_create(&t, NULL, server, l), 0);
	for (int r = 0; r < ROUNDS; r++)
		client(r);
	pthread_join(t, NULL);
	printf("bursts: %d clients each sent %d messages at once after the "
	       "connect, into receives the hook posted; bytes and echoes checked\n",
	       ROUNDS, BURST);
}

/* A failing hook: the serve's error as expected, the client rejected. */
struct refusal {
	struct vs_cm_id *l;
	int fail;
	int ret;
	char msg[VS_ERROR_MSG_MAX];
};

static void *refusing_server(void *arg)
{
	struct refusal *f = arg;
	struct posted p = { .fail = f->fail };
	struct vs_cm_conn_config conn = hooked(&p);
	struct vs_cm_id *c = (struct vs_cm_id *)&c;

	f->ret = vs_cm_rc_serve(f->l, &conn, NULL, &c);
	VS_ASSERT_PTR_EQ(c, NULL);
	VS_ASSERT_EQ(p.calls, 1);
	snprintf(f->msg, sizeof(f->msg), "%s", vs_t_err());
	return NULL;
}

static void refused(struct vs_cm_id *l, int fail, int want, const char *text)
{
	struct refusal f = { .l = l, .fail = fail };
	struct vs_cm_id *id = (struct vs_cm_id *)&id;
	pthread_t t;
	int ret;

	VS_ASSERT_EQ(pthread_create(&t, NULL, refusing_server, &f), 0);
	ret = vs_cm_rc_client(ip, port, NULL, &(struct vs_cm_conn_config){
		.timeout_ms = WAIT_MS }, NULL, &id);
	pthread_join(t, NULL);
	printf("hook %d: server %d: %s\n        client %d: %s\n", fail, f.ret,
	       f.msg, ret, vs_t_err());
	VS_ASSERT_EQ(f.ret, -want);
	VS_ASSERT(strstr(f.msg, "vs_cm_rc_serve"));
	if (!strstr(f.msg, text))
		VS_FAIL("hook %d: \"%s\" is not in \"%s\"", fail, text, f.msg);
	VS_ASSERT_EQ(ret, -ECONNREFUSED);
	VS_ASSERT_PTR_EQ(id, NULL);
}

static void test_refusals(struct vs_cm_id *l)
{
	refused(l, 1, EPERM, "before_accept failed (Operation not permitted): "
		"the client");
	refused(l, 2, EINVAL, "vs_mr_alloc");
	refused(l, 3, EBUSY, "before_accept may use it, not close it");
	printf("refusals: a hook's -errno, a failed vs_ call in it and a "
	       "refused close of its id reject the client, each named\n");
}

static void test_misuse(struct vs_cm_id *l)
{
	struct vs_cm_conn_config bit = { .comp_mask = VS_CM_CONN_BEFORE_ACCEPT,
					 .before_accept = post_receives };
	struct vs_cm_conn_config nohook = { .comp_mask = VS_CM_CONN_BEFORE_ACCEPT };
	struct vs_cm_id *id = (struct vs_cm_id *)&id;

	VS_FAILS(vs_cm_rc_client(ip, port, NULL, &bit, NULL, &id), EINVAL,
		 "only the one-call vs_cm_rc_serve calls before_accept");
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_rc_client");
	VS_FAILS(vs_cm_rc_serve(l, &nohook, NULL, &id), EINVAL,
		 "before_accept is NULL");
	VS_FAILS(vs_cm_rc_serve(l, &(struct vs_cm_conn_config){
		.comp_mask = 1u << 7 }, NULL, &id), EINVAL, "unknown bits");
	{
		struct vs_cm_id *c;
		struct vs_pd *pd;
		struct vs_cq *cq;
		struct vs_rc_qp *qp;

		VS_OK(vs_cm_resolve(ip, port, NULL, &c));
		VS_OK(vs_pd_alloc(vs_cm_context(c), &pd));
		VS_OK(vs_cq_create(vs_cm_context(c), NULL, &cq));
		VS_OK(vs_cm_rc_qp_create(c, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
		VS_FAILS(vs_cm_connect(c, &bit), EINVAL,
			 "with the steps, post receives before vs_cm_accept");
		VS_ASSERT_EQ(vs_cm_state(c), VS_CM_RESOLVED);
		VS_OK(vs_cm_close(c));
		VS_OK(vs_rc_qp_close(qp));
		VS_OK(vs_cq_close(cq));
		VS_OK(vs_pd_close(pd));
	}
	printf("misuse: the bit outside vs_cm_rc_serve, without a hook, and "
	       "unknown bits refused\n");
}

int main(void)
{
	struct vs_cm_id *l;

	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	setvbuf(stdout, NULL, _IOLBF, 0);
	vs_t_accepted_init(&accepted);
	vs_t_accepted_init(&completed);
	VS_OK(vs_cm_listen(ip, "0", NULL, &l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	test_misuse(l);
	test_bursts(l);
	test_refusals(l);
	VS_OK(vs_cm_close(l));
	printf("ok\n");
	return 0;
}
