/* SPDX-License-Identifier: MIT */
/*
 * Overlapped connection setup on rxe (vs_cm_config.no_wait): resolves
 * started together and completed by vs_cm_next() in one epoll loop, as
 * librdmacm's cmtime overlaps them (docs/API.md, "Connection manager"):
 *  - N clients: each id RESOLVING, then ADDR_RESOLVED (the library asks
 *    for the route), then ROUTE_RESOLVED (RESOLVED), in that order; QPs
 *    on one PD and CQ, connects sent together, the server (same loop)
 *    accepting on one PD and CQ; one message per connection, bytes and
 *    private data checked on the server;
 *  - each connected QP's source GID is the CM's (the IPv4-mapped GID of
 *    the rxe address), set at RTR;
 *  - an id still RESOLVING refuses a QP and a connect, naming its state;
 *  - a group address (UD): ADDR_RESOLVED leaves the id RESOLVED, no route;
 *  - an address off every subnet: the failure names the step and the
 *    host, from vs_cm_resolve or as vs_cm_next's event, within the limit.
 */
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "../common/vs_typed.h"

#define MSG 64
#define N 8

static const char *ip;
static char port[16];

/* The QP's own GID, once connected: the CM's, ::ffff:<ip>. */
static void check_gid(struct vs_rc_qp *qp)
{
	struct vs_endpoint e;
	uint8_t want[16] = { [10] = 0xff, [11] = 0xff };

	VS_ASSERT_EQ(inet_pton(AF_INET, ip, want + 12), 1);
	if (vs_t_iwarp_no_endpoint(qp))
		return;
	VS_OK(vs_rc_endpoint(qp, &e));
	VS_ASSERT_MEMEQ(e.gid.raw, want, 16);
}

static void ep_add(int ep, int fd, uint32_t tag)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u32 = tag };

	VS_ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e), 0);
}

#define T_LISTENER 1000u
#define T_SERVER 2000u /* + the server's connection index */

struct client {
	struct vs_cm_id *id;
	struct vs_rc_qp *qp;
	int addr_seen, route_seen;
	bool established;
};

static void test_overlap(void)
{
	struct client c[N] = { 0 };
	struct vs_cm_id *l, *sid[N] = { 0 };
	struct vs_rc_qp *sqp[N] = { 0 };
	struct vs_pd *cpd = NULL, *spd = NULL;
	struct vs_cq *ccq = NULL, *scq = NULL;
	struct vs_mr *cmr = NULL, *smr = NULL;
	int ep = epoll_create1(0), resolved = 0, established = 0, accepted = 0;
	int served = 0, seq = 0;
	struct vs_t_watch watch = { 0 };
	struct vs_wc wc[N];

	VS_ASSERT(ep >= 0);
	VS_OK(vs_cm_listen(ip, "0", &(struct vs_cm_config){ .backlog = N }, &l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	ep_add(ep, vs_cm_fd(l), T_LISTENER);
	for (int i = 0; i < N; i++) {
		VS_OK(vs_cm_resolve(ip, port, &(struct vs_cm_config){ .no_wait = true },
				    &c[i].id));
		VS_ASSERT_EQ(vs_cm_state(c[i].id), VS_CM_RESOLVING);
		ep_add(ep, vs_cm_fd(c[i].id), (uint32_t)i);
	}
	/* still resolving (at least the first): no QP, no connect yet */
	if (vs_cm_state(c[0].id) == VS_CM_RESOLVING) {
		struct vs_pd *pd;
		struct vs_cq *cq;
		struct vs_rc_qp *qp;

		/* (its own context is not known before ADDR_RESOLVED) */
		VS_OK(vs_pd_alloc(vs_cm_context(l), &pd));
		VS_OK(vs_cq_create(vs_cm_context(l), NULL, &cq));
		VS_FAILS(vs_cm_rc_qp_create(c[0].id, pd, &(struct vs_rc_config){
			.send_cq = cq }, &qp), EINVAL, "RESOLVING");
		VS_FAILS(vs_cm_connect(c[0].id, NULL), EINVAL, "RESOLVING");
		VS_OK(vs_cq_close(cq));
		VS_OK(vs_pd_close(pd));
	}
	while (established < N || accepted < N || served < N) {
		struct epoll_event e[8];
		int k = epoll_wait(ep, e, 8, 1000);

		if (vs_t_stalled(&watch, resolved + seq + established + accepted + served, 20000))
			VS_FAIL("nothing new for 20 s: %d of %d resolved, %d requests, "
				"%d connected, %d accepted, %d messages", resolved,
				N, seq, established, accepted, served);
		for (int j = 0; j < k; j++) {
			uint32_t tag = e[j].data.u32;
			struct vs_cm_event ev;

			if (tag == T_LISTENER) {
				while (vs_cm_next(l, 0, &ev) == 0) {
					int s = seq++;
					char want[8];

					VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_CONNECT_REQUEST);
					VS_ASSERT(s < N);
					sid[s] = ev.id;
					if (!spd) {
						VS_OK(vs_pd_alloc(vs_cm_context(sid[s]), &spd));
						VS_OK(vs_cq_create(vs_cm_context(sid[s]), &(struct vs_cq_config){
							.depth = 4 * N }, &scq));
						VS_OK(vs_mr_alloc(spd, N * MSG, 0, &smr));
					}
					/* the client's index: its private data "cI" */
					VS_ASSERT(ev.private_data_len >= 3);
					VS_ASSERT(ev.private_data[0] == 'c');
					snprintf(want, sizeof(want), "c%d", ev.private_data[1] - '0');
					VS_ASSERT_STREQ((char *)ev.private_data, want);
					VS_OK(vs_cm_rc_qp_create(sid[s], spd, &(struct vs_rc_config){
						.send_cq = scq }, &sqp[s]));
					vs_t_rc_recv(sqp[s], (uint64_t)(ev.private_data[1] - '0'),
						     vs_mr_sge(smr, (size_t)(ev.private_data[1] - '0') * MSG, MSG));
					VS_OK(vs_cm_accept(sid[s], &(struct vs_cm_conn_config){
						.no_wait = true }));
					ep_add(ep, vs_cm_fd(sid[s]), T_SERVER + (uint32_t)s);
				}
				continue;
			}
			if (tag >= T_SERVER) {
				struct vs_cm_id *id = sid[tag - T_SERVER];

				while (vs_cm_next(id, 0, &ev) == 0) {
					VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_ESTABLISHED);
					VS_ASSERT_EQ(vs_cm_state(id), VS_CM_CONNECTED);
					check_gid(sqp[tag - T_SERVER]);
					accepted++;
				}
				continue;
			}
			struct client *cl = &c[tag];

			while (vs_cm_next(cl->id, 0, &ev) == 0) {
				if (ev.err)
					VS_FAIL("client %u: %s err %d: %s", tag, ev.name,
						ev.err, vs_t_err());
				VS_ASSERT_PTR_EQ(ev.id, cl->id);
				switch (ev.type) {
				case RDMA_CM_EVENT_ADDR_RESOLVED:
					VS_ASSERT_EQ(cl->addr_seen++, 0);
					VS_ASSERT_EQ(cl->route_seen, 0);
					VS_ASSERT_EQ(ev.state, VS_CM_RESOLVING);
					break;
				case RDMA_CM_EVENT_ROUTE_RESOLVED: {
					char pdata[4] = { 'c', (char)('0' + tag), 0, 0 };

					VS_ASSERT_EQ(cl->addr_seen, 1);
					VS_ASSERT_EQ(cl->route_seen++, 0);
					VS_ASSERT_EQ(ev.state, VS_CM_RESOLVED);
					VS_ASSERT_EQ(vs_cm_state(cl->id), VS_CM_RESOLVED);
					resolved++;
					if (!cpd) {
						struct vs_context *ctx = vs_cm_context(cl->id);

						VS_OK(vs_pd_alloc(ctx, &cpd));
						VS_OK(vs_cq_create(ctx, &(struct vs_cq_config){
							.depth = 4 * N }, &ccq));
						VS_OK(vs_mr_alloc(cpd, N * MSG, 0, &cmr));
					}
					VS_OK(vs_cm_rc_qp_create(cl->id, cpd, &(struct vs_rc_config){
						.send_cq = ccq }, &cl->qp));
					VS_OK(vs_cm_connect(cl->id, &(struct vs_cm_conn_config){
						.private_data = pdata, .private_data_len = 3,
						.no_wait = true }));
					break;
				}
				case RDMA_CM_EVENT_ESTABLISHED:
					VS_ASSERT(!cl->established);
					cl->established = true;
					check_gid(cl->qp);
					established++;
					vs_t_fill(vs_mr_ptr(cmr, tag * MSG), MSG, (int)tag);
					vs_t_rc_send(cl->qp, tag, vs_mr_sge(cmr, tag * MSG, MSG));
					break;
				default:
					VS_FAIL("client %u: unexpected %s", tag, ev.name);
				}
			}
		}
		if (scq) {
			int got = vs_cq_poll(scq, wc, N);

			VS_ASSERT(got >= 0);
			for (int w = 0; w < got; w++) {
				vs_t_expect_wc(&wc[w], wc[w].wr_id, IBV_WC_RECV, MSG);
				VS_ASSERT(wc[w].wr_id < N);
				vs_t_check(vs_mr_ptr(smr, wc[w].wr_id * MSG), MSG, (int)wc[w].wr_id);
				served++;
			}
		}
	}
	vs_t_wait(ccq, wc, N);
	for (int i = 0; i < N; i++)
		vs_t_expect_wc(&wc[i], wc[i].wr_id, IBV_WC_SEND, UINT32_MAX);
	for (int i = 0; i < N; i++) {
		VS_OK(vs_cm_close(c[i].id));
		VS_OK(vs_rc_qp_close(c[i].qp));
		VS_OK(vs_cm_close(sid[i]));
		VS_OK(vs_rc_qp_close(sqp[i]));
	}
	VS_OK(vs_mr_close(cmr));
	VS_OK(vs_mr_close(smr));
	VS_OK(vs_cq_close(ccq));
	VS_OK(vs_cq_close(scq));
	VS_OK(vs_pd_close(cpd));
	VS_OK(vs_pd_close(spd));
	VS_OK(vs_cm_close(l));
	close(ep);
	printf("overlap: %d resolves and connects in one epoll loop, %d messages checked\n",
	       N, served);
}

/* Waits (limit ms) for the next event of id. */
static void next_event(struct vs_cm_id *id, int limit, struct vs_cm_event *ev)
{
	int ret = vs_cm_next(id, limit, ev);

	if (ret)
		VS_FAIL("vs_cm_next = %d within %d ms: %s", ret, limit, vs_t_err());
}

static void test_group(void)
{
	struct vs_cm_id *id;
	struct vs_cm_event ev;

	VS_OK(vs_cm_resolve("239.77.0.5", "0", &(struct vs_cm_config){
		.transport = VS_TRANSPORT_UD, .src = ip, .no_wait = true }, &id));
	next_event(id, 5000, &ev);
	VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_ADDR_RESOLVED);
	VS_ASSERT_EQ(ev.err, 0);
	VS_ASSERT_EQ(ev.state, VS_CM_RESOLVED);
	VS_ASSERT_EQ(vs_cm_next(id, 200, &ev), -ETIMEDOUT); /* no route step */
	VS_OK(vs_cm_close(id));
	printf("group: resolved by ADDR_RESOLVED alone\n");
}

static void test_unroutable(void)
{
	const char *host = "10.255.255.1";
	uint64_t t0 = vs_t_now_ms();
	struct vs_cm_id *id;
	struct vs_cm_event ev;
	int ret;

	vs_clear_error();
	ret = vs_cm_resolve(host, "7471", &(struct vs_cm_config){
		.timeout_ms = 1000, .no_wait = true }, &id);
	if (ret) { /* refused at once (no route in the kernel's table) */
		printf("unroutable: vs_cm_resolve = %d: %s\n", ret, vs_t_err());
		VS_ASSERT_PTR_EQ(id, NULL);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_resolve");
	} else {
		VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVING);
		next_event(id, 4000, &ev);
		printf("unroutable: %s, err %d: %s\n", ev.name, ev.err, vs_t_err());
		VS_ASSERT(ev.type == RDMA_CM_EVENT_ADDR_ERROR ||
			  ev.type == RDMA_CM_EVENT_ROUTE_ERROR);
		VS_ASSERT(ev.err > 0);
		VS_ASSERT_EQ(ev.state, VS_CM_FAILED);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_next");
		VS_ASSERT(strstr(vs_last_error()->message, "resolving the"));
		VS_OK(vs_cm_close(id));
	}
	VS_ASSERT(strstr(vs_last_error()->message, host));
	VS_ASSERT(vs_t_now_ms() - t0 < 4000);
}

/*
 * Two ids on one device hold two handles of librdmacm's one context: a
 * PD from one and a CQ from the other make a QP (same device), as
 * cm_time's shared PD and CQ do.
 */
static void test_shared_device(void)
{
	struct vs_cm_id *a, *b;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_rc_qp *qp;

	VS_OK(vs_cm_resolve(ip, "7471", NULL, &a));
	VS_OK(vs_cm_resolve(ip, "7471", NULL, &b));
	VS_OK(vs_pd_alloc(vs_cm_context(a), &pd));
	VS_OK(vs_cq_create(vs_cm_context(b), NULL, &cq));
	VS_ASSERT(vs_cm_context(a) != vs_cm_context(b));
	VS_OK(vs_cm_rc_qp_create(b, pd, &(struct vs_rc_config){ .send_cq = cq }, &qp));
	VS_OK(vs_rc_qp_close(qp));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_cm_close(b));
	VS_OK(vs_cm_close(a));
	printf("shared device: a PD and a CQ from two ids' handles make a QP\n");
}

int main(void)
{
	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	test_overlap();
	test_group();
	test_unroutable();
	test_shared_device();
	printf("ok\n");
	return 0;
}
