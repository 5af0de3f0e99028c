/* SPDX-License-Identifier: MIT */
/*
 * rdma_create_ep-style setup on rxe (vs_cm_create_ep: rdma_getaddrinfo
 * hints to an id ready for its QP; docs/API.md, "Connection manager"):
 *  - RC: a passive endpoint (RAI_PASSIVE, RDMA_PS_TCP) listens; an active
 *    one by the guest's host name (ai_qp_type IBV_QPT_RC, AF_INET; by
 *    address in a release root, which has no /etc/hosts) is RESOLVED, its
 *    QP connects, a message goes each way, bytes checked;
 *  - UD: the hints' QP type or port space makes UD ids (a UD QP goes on
 *    them, an RC QP is refused);
 *  - no_wait: the active id RESOLVING, then RESOLVED through vs_cm_next;
 *  - the hints taken as rdma_getaddrinfo's: RAI_NUMERICHOST refuses the
 *    host name, AF_INET6 an IPv4 address, each explained;
 *  - bad input: a port space or QP type the typed CM does not connect,
 *    hints that disagree, cfg->transport against the hints, cfg->src on a
 *    passive id, no host for an active id, no port, no out.
 */
#include <netdb.h>
#include <pthread.h>
#include <sys/socket.h>

#include "../common/vs_typed.h"

#define MSG 64
/* the other thread's steps, under valgrind in TCG too (cm_valgrind.sh) */
#define WAIT_MS 60000

static const char *ip;

/* Reads id's CM events until the disconnect, within ms each. */
static void await_disconnect(struct vs_cm_id *id, int ms)
{
	struct vs_cm_event ev;

	do
		VS_OK(vs_cm_next(id, ms, &ev));
	while (ev.type != RDMA_CM_EVENT_DISCONNECTED);
}

/*
 * The server: accept, post the receive of message 1, then send message 2
 * (the client's receive was posted before it connected).  The client
 * sends only once message 2 came, so its send never finds the server
 * without a receive (the CM's RNR timer: 655 ms a retry).  The server
 * disconnects once both of its completions are in; the client answers.
 */
static void *serve(void *arg)
{
	struct vs_cm_id *l = arg, *c;
	struct vs_mr *mr;
	struct vs_wc wc[2];

	VS_OK(vs_cm_rc_serve(l, &(struct vs_cm_conn_config){ .timeout_ms = 10000 },
			     NULL, &c));
	VS_OK(vs_mr_alloc(vs_cm_pd(c), 2 * MSG, 0, &mr));
	vs_t_rc_recv(vs_cm_rc_qp(c), 1, vs_mr_sge(mr, 0, MSG));
	vs_t_fill(vs_mr_ptr(mr, MSG), MSG, 2);
	vs_t_rc_send(vs_cm_rc_qp(c), 2, vs_mr_sge(mr, MSG, MSG));
	vs_t_wait_ms(vs_cm_cq(c), wc, 2, WAIT_MS);
	for (int i = 0; i < 2; i++) {
		if (wc[i].opcode == IBV_WC_RECV) {
			vs_t_expect_wc(&wc[i], 1, IBV_WC_RECV, MSG);
			vs_t_check(vs_mr_ptr(mr, 0), MSG, 1);
		} else {
			vs_t_expect_wc(&wc[i], 2, IBV_WC_SEND, UINT32_MAX);
		}
	}
	VS_ASSERT(wc[0].opcode != wc[1].opcode);
	/*
	 * The server ends the connection, once its own send is acked: a
	 * client that left first would drop the retransmission of message
	 * 2 should its ack have been lost (seen once on a loaded host).
	 */
	VS_OK(vs_cm_disconnect(c));
	await_disconnect(c, 10000);
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cm_close(c));
	return NULL;
}

static void test_rc(const char *name)
{
	struct vs_cm_id *l, *id;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;
	struct vs_mr *mr;
	struct vs_wc wc[2];
	char port[16];
	pthread_t t;
	bool iwarp = vs_t_iwarp();
	int ret;

	VS_OK(vs_cm_create_ep(ip, "0", &(struct rdma_addrinfo){
		.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP }, NULL, &l));
	VS_ASSERT_EQ(vs_cm_state(l), VS_CM_LISTENING);
	VS_ASSERT(vs_cm_port(l) != 0);
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	VS_ASSERT_EQ(pthread_create(&t, NULL, serve, l), 0);

	VS_OK(vs_cm_create_ep(name, port, &(struct rdma_addrinfo){
		.ai_family = AF_INET, .ai_qp_type = IBV_QPT_RC }, NULL, &id));
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVED);
	VS_ASSERT(strstr(vs_cm_peer(id), ip));
	VS_ASSERT(strstr(vs_cm_peer(id), port));
	VS_OK(vs_pd_alloc(vs_cm_context(id), &pd));
	VS_OK(vs_cq_create(vs_cm_context(id), NULL, &cq));
	VS_OK(vs_cm_rc_qp_create(id, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
	VS_OK(vs_mr_alloc(pd, 2 * MSG, 0, &mr));
	vs_t_rc_recv(qp, 2, vs_mr_sge(mr, MSG, MSG));
	ret = vs_cm_connect(id, &(struct vs_cm_conn_config){ .timeout_ms = 10000 });
	if (ret) {
		char why[700];
		struct timespec ts;

		/*
		 * Said now, then the server thread is given 5 s to say its
		 * own: a server whose accept failed rejects the client, and
		 * only its failure names the call (a client that failed
		 * rejects the server likewise, which then fails too)
		 */
		snprintf(why, sizeof(why), "%s", vs_t_err());
		printf("vs_cm_connect = %d: %s\n", ret, why);
		fflush(stdout);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 5;
		pthread_timedjoin_np(t, NULL, &ts);
		VS_FAIL("vs_cm_connect = %d: %s", ret, why);
	}
	vs_t_wait_ms(cq, wc, 1, WAIT_MS);
	vs_t_expect_wc(&wc[0], 2, IBV_WC_RECV, MSG);
	vs_t_check(vs_mr_ptr(mr, MSG), MSG, 2);
	vs_t_fill(vs_mr_ptr(mr, 0), MSG, 1);
	vs_t_rc_send(qp, 1, vs_mr_sge(mr, 0, MSG));
	vs_t_wait_ms(cq, wc, 1, WAIT_MS);
	/*
	 * The server disconnects once message 1 is in (its bytes checked
	 * there); siw may then end this send, not yet completed on its side,
	 * with a local QP operation error (as test/device/cm_rc.c allows too).
	 */
	if (iwarp && wc[0].status == IBV_WC_LOC_QP_OP_ERR)
		VS_ASSERT_EQ(wc[0].wr_id, 1);
	else
		vs_t_expect_wc(&wc[0], 1, IBV_WC_SEND, UINT32_MAX);
	await_disconnect(id, WAIT_MS);
	VS_OK(vs_cm_disconnect(id));
	pthread_join(t, NULL);
	VS_OK(vs_cm_close(id));
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_cm_close(l));
	printf("rc: passive and active endpoints from hints (\"%s\" port %s), "
	       "a message each way checked\n", name, port);
}

static void test_ud(void)
{
	struct vs_cm_id *l, *id;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_ud_qp *qp;
	struct vs_rc_qp *rc;
	char port[16];

	VS_OK(vs_cm_create_ep(ip, "0", &(struct rdma_addrinfo){
		.ai_flags = RAI_PASSIVE, .ai_qp_type = IBV_QPT_UD }, NULL, &l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	VS_OK(vs_cm_create_ep(ip, port, &(struct rdma_addrinfo){
		.ai_port_space = RDMA_PS_UDP }, NULL, &id));
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVED);
	VS_OK(vs_pd_alloc(vs_cm_context(id), &pd));
	VS_OK(vs_cq_create(vs_cm_context(id), NULL, &cq));
	VS_FAILS(vs_cm_rc_qp_create(id, pd, &(struct vs_rc_config){ .send_cq = cq }, &rc),
		 EINVAL, "for UD, not RC");
	if (vs_t_iwarp()) {
		/* the id resolves (rdma_cm's UDP port space), the QP cannot be */
		VS_FAILS(vs_cm_ud_qp_create(id, pd, &(struct vs_ud_config){
			.send_cq = cq }, &qp), EOPNOTSUPP,
			"is an iWARP device: it has no UD QPs");
		VS_ASSERT(qp == NULL);
		printf("  %s\n", vs_t_err());
	} else {
		VS_OK(vs_cm_ud_qp_create(id, pd, &(struct vs_ud_config){
			.send_cq = cq }, &qp));
	}
	VS_OK(vs_cm_close(id));
	if (qp)
		VS_OK(vs_ud_qp_close(qp));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_cm_close(l));
	printf("ud: the hints' QP type and port space make UD ids\n");
}

static void test_no_wait(void)
{
	struct vs_cm_id *id;
	struct vs_cm_event ev;

	VS_OK(vs_cm_create_ep(ip, "7471", NULL, &(struct vs_cm_config){
		.no_wait = true }, &id));
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVING);
	do {
		VS_OK(vs_cm_next(id, 5000, &ev));
		/* the library's own step on the event (the route's request
		 * on ADDR_RESOLVED) failed: no ROUTE_RESOLVED will come */
		if (ev.err)
			VS_FAIL("%s: %d: %s", ev.name, ev.err, vs_t_err());
	} while (ev.type == RDMA_CM_EVENT_ADDR_RESOLVED);
	VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_ROUTE_RESOLVED);
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVED);
	VS_OK(vs_cm_close(id));
	printf("no_wait: RESOLVING, then RESOLVED through vs_cm_next\n");
}

static void test_hints_apply(const char *name)
{
	struct vs_cm_id *id = (struct vs_cm_id *)&id;
	int ret;

	vs_clear_error();
	ret = vs_cm_create_ep(name, "7471", &(struct rdma_addrinfo){
		.ai_flags = RAI_NUMERICHOST }, NULL, &id);
	printf("numeric host \"%s\": %d %s\n", name, ret, vs_t_err());
	VS_ASSERT(ret < 0);
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_create_ep");
	VS_ASSERT_STREQ(vs_last_error()->verb, "rdma_getaddrinfo");
	VS_ASSERT(strstr(vs_last_error()->message, name));
	vs_clear_error();
	ret = vs_cm_create_ep(ip, "7471", &(struct rdma_addrinfo){
		.ai_family = AF_INET6, .ai_flags = RAI_NUMERICHOST }, NULL, &id);
	printf("AF_INET6 for %s: %d %s\n", ip, ret, vs_t_err());
	VS_ASSERT(ret < 0);
	VS_ASSERT_STREQ(vs_last_error()->verb, "rdma_getaddrinfo");
	VS_ASSERT(strstr(vs_last_error()->message, "cannot resolve"));
}

static void test_bad_input(void)
{
	struct vs_cm_id *id = (struct vs_cm_id *)&id;

	VS_FAILS(vs_cm_create_ep(ip, "1", &(struct rdma_addrinfo){
		.ai_port_space = RDMA_PS_IB }, NULL, &id), EINVAL, "ai_port_space 0x13f");
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_FAILS(vs_cm_create_ep(ip, "1", &(struct rdma_addrinfo){
		.ai_qp_type = IBV_QPT_UC }, NULL, &id), EINVAL, "ai_qp_type 3");
	VS_FAILS(vs_cm_create_ep(ip, "1", &(struct rdma_addrinfo){
		.ai_port_space = RDMA_PS_TCP, .ai_qp_type = IBV_QPT_UD }, NULL, &id),
		 EINVAL, "hints disagree");
	VS_FAILS(vs_cm_create_ep(ip, "1", &(struct rdma_addrinfo){
		.ai_port_space = RDMA_PS_TCP }, &(struct vs_cm_config){
		.transport = VS_TRANSPORT_UD }, &id), EINVAL, "the hints ask for RC");
	VS_FAILS(vs_cm_create_ep(ip, "0", &(struct rdma_addrinfo){
		.ai_flags = RAI_PASSIVE }, &(struct vs_cm_config){ .src = ip }, &id),
		 EINVAL, "on a passive id");
	VS_FAILS(vs_cm_create_ep(NULL, "1", NULL, NULL, &id), EINVAL, "host is NULL");
	VS_FAILS(vs_cm_create_ep(ip, NULL, NULL, NULL, &id), EINVAL, "port is NULL");
	VS_FAILS(vs_cm_create_ep(ip, "1", NULL, NULL, NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_cm_create_ep(ip, "1", NULL, &(struct vs_cm_config){
		.comp_mask = 4 }, &id), EINVAL, "comp_mask");
	printf("bad input: refused, each explained\n");
}

static bool resolvable(const char *name)
{
	struct addrinfo *ai;

	if (getaddrinfo(name, NULL, &(struct addrinfo){ .ai_family = AF_INET }, &ai))
		return false;
	freeaddrinfo(ai);
	return true;
}

int main(void)
{
	const char *name = getenv("VS_GUEST_HOSTNAME");

	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	if (!name || !*name)
		VS_FAIL("VS_GUEST_HOSTNAME is not set (scripts/vm-run.sh sets it)");
	test_bad_input();
	/* a release root has no /etc/hosts (scripts/vm/init.sh): by address there */
	test_rc(resolvable(name) ? name : ip);
	test_ud();
	test_no_wait();
	test_hints_apply(name);
	printf("ok\n");
	return 0;
}
