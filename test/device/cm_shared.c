/* SPDX-License-Identifier: MIT */
/*
 * CM ids on shared event channels (vs_cm_channel_*, vs_cm_config.channel)
 * on rxe: one listener and N clients, one shared channel per side, every
 * step no_wait and every event from vs_cm_channel_next() in one epoll
 * loop of the two channels' fds:
 *  - each event names the right id (ADDR_RESOLVED, ROUTE_RESOLVED,
 *    ESTABLISHED in order per client; the server's requests carry their
 *    client's private data and stay on the listener's channel); one
 *    message each way per connection, bytes checked;
 *  - a step that would wait on a shared id is refused, before anything is
 *    sent, with the reason (resolve without no_wait, connect, accept,
 *    vs_cm_get_request, vs_cm_next, vs_cm_join; vs_cm_fd is -1);
 *  - closes in three orders: the channel with ids on it is -EBUSY naming
 *    them, and closes once they are gone; ids closed with their events
 *    still queued on the channel (the peer's DISCONNECTED): nothing of
 *    them comes back; the listener closed before its connections;
 *  - each connected QP's MTU is the path MTU it was brought up with, its
 *    source GID the CM's (its create read no port and no GID: the route's);
 *  - no fd left behind (/proc/self/fd counted after each round).
 */
#include <arpa/inet.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "../common/vs_typed.h"

#define MSG 64
#define N 8

static const char *ip;

struct side {
	struct vs_cm_channel *ch;
	struct vs_pd *pd;
	struct vs_cq *cq;
	struct vs_mr *mr; /* N receive slots, then N send slots */
};

struct conn {
	struct vs_cm_id *id;
	struct vs_rc_qp *qp;
	int addr_seen, route_seen;
	bool established;
};

static int client_of(struct conn *c, const struct vs_cm_id *id)
{
	for (int i = 0; i < N; i++)
		if (c[i].id == id)
			return i;
	VS_FAIL("an event names id %p, not one of this side's", (const void *)id);
}

static void side_objects(struct side *s, struct vs_cm_id *id)
{
	if (s->pd)
		return;
	VS_OK(vs_pd_alloc(vs_cm_context(id), &s->pd));
	VS_OK(vs_cq_create(vs_cm_context(id), &(struct vs_cq_config){
		.depth = 4 * N }, &s->cq));
	VS_OK(vs_mr_alloc(s->pd, 2 * N * MSG, 0, &s->mr));
}

static void side_close(struct side *s)
{
	VS_OK(vs_mr_close(s->mr));
	VS_OK(vs_cq_close(s->cq));
	VS_OK(vs_pd_close(s->pd));
}

/* The channel refuses its close while ids are on it, naming one. */
static void close_busy(struct vs_cm_channel *ch, int open, struct vs_cm_id *one)
{
	char want[64], ptr[32];

	snprintf(want, sizeof(want), "%d CM id%s still on this channel", open,
		 open > 1 ? "s are" : " is");
	VS_FAILS(vs_cm_channel_close(ch), EBUSY, want);
	/* the first four are named: all of them, or some when more */
	snprintf(ptr, sizeof(ptr), "CM id %p", (void *)one);
	if (!strstr(vs_last_error()->message, open <= 4 ? ptr : "CM id 0x"))
		VS_FAIL("the EBUSY message does not name %s: %s",
			open <= 4 ? ptr : "the ids", vs_t_err());
	VS_ASSERT(vs_cm_channel_fd(ch) >= 0); /* still open */
}

/* The next DISCONNECTED on ch (a TIMEWAIT_EXIT may come before it). */
static void next_disconnect(struct vs_cm_channel *ch, struct vs_cm_event *ev)
{
	do
		VS_OK(vs_cm_channel_next(ch, 5000, ev));
	while (ev->type == RDMA_CM_EVENT_TIMEWAIT_EXIT);
	VS_ASSERT_EQ(ev->type, RDMA_CM_EVENT_DISCONNECTED);
}

/*
 * A connected QP's port facts, which its create took from the CM's route
 * rather than a port query (lib/cm/cm_qp.c): its MTU is the path MTU it
 * was brought up with, no LID on RoCE, and its source GID the CM's,
 * ::ffff:<ip>, read at RTR.
 */
static void check_port_facts(struct vs_rc_qp *qp)
{
	struct vs_endpoint e;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	uint8_t want[16] = { [10] = 0xff, [11] = 0xff };

	VS_ASSERT_EQ(inet_pton(AF_INET, ip, want + 12), 1);
	if (vs_t_iwarp_no_endpoint(qp))
		return;
	VS_OK(vs_rc_endpoint(qp, &e));
	VS_ASSERT(e.flags & VS_EP_GID_VALID);
	VS_ASSERT_MEMEQ(e.gid.raw, want, 16);
	VS_ASSERT_EQ(e.lid, 0);
	VS_ASSERT_EQ(ibv_query_qp(vs_rc_qp_raw(qp), &a, IBV_QP_PATH_MTU, &ia), 0);
	VS_ASSERT_EQ((int)e.mtu, (int)a.path_mtu);
}

static const char *shared_msg = "shares a CM event channel";

/* The refusals of a step that would wait, on a client id still RESOLVED. */
static void refuse_waits(struct vs_cm_id *id, struct vs_cm_channel *ch)
{
	struct vs_cm_event ev;
	struct vs_cm_id *x;

	VS_FAILS(vs_cm_connect(id, NULL), EINVAL, shared_msg);
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVED); /* nothing was sent */
	VS_FAILS(vs_cm_connect(id, &(struct vs_cm_conn_config){ .timeout_ms = 100 }),
		 EINVAL, "vs_cm_channel_next");
	VS_FAILS(vs_cm_next(id, 0, &ev), EINVAL, shared_msg);
	VS_FAILS(vs_cm_get_request(id, 0, &x), EINVAL, "not a listener");
	VS_ASSERT_EQ(vs_cm_fd(id), -1);
	VS_ASSERT(strstr(vs_last_error()->message, "vs_cm_channel_fd"));
	/* a resolve on the channel must not wait either */
	VS_FAILS(vs_cm_resolve(ip, "7471", &(struct vs_cm_config){
		.comp_mask = VS_CM_CONFIG_CHANNEL, .channel = ch }, &x),
		EINVAL, "no_wait");
	VS_ASSERT_PTR_EQ(x, NULL);
}

/* round: 0, 1, 2: the order of the closes */
static void run_round(int round)
{
	struct side cs = { 0 }, ss = { 0 };
	struct conn c[N] = { 0 }, s[N] = { 0 }; /* s[i]: client i's server id */
	struct vs_cm_id *l;
	struct vs_wc wc[2 * N];
	char port[16];
	int ep = epoll_create1(0), established = 0, accepted = 0;
	int crecv = 0, srecv = 0, csent = 0, ssent = 0;
	struct vs_t_watch watch = { 0 };
	bool refused = false;

	VS_ASSERT(ep >= 0);
	VS_OK(vs_cm_channel_create(&cs.ch));
	VS_OK(vs_cm_channel_create(&ss.ch));
	VS_OK(vs_cm_listen(ip, "0", &(struct vs_cm_config){
		.comp_mask = VS_CM_CONFIG_CHANNEL, .channel = ss.ch,
		.backlog = N }, &l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	VS_ASSERT_EQ(vs_cm_fd(l), -1);
	{
		struct vs_cm_id *x;

		VS_FAILS(vs_cm_get_request(l, 0, &x), EINVAL, shared_msg);
	}
	for (int i = 0; i < N; i++) {
		VS_OK(vs_cm_resolve(ip, port, &(struct vs_cm_config){
			.comp_mask = VS_CM_CONFIG_CHANNEL, .channel = cs.ch,
			.no_wait = true }, &c[i].id));
		VS_ASSERT_EQ(vs_cm_state(c[i].id), VS_CM_RESOLVING);
	}
	VS_ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, vs_cm_channel_fd(cs.ch),
			       &(struct epoll_event){ .events = EPOLLIN, .data.u32 = 0 }), 0);
	VS_ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, vs_cm_channel_fd(ss.ch),
			       &(struct epoll_event){ .events = EPOLLIN, .data.u32 = 1 }), 0);

	while (established < N || accepted < N || crecv < N || srecv < N ||
	       csent < N || ssent < N) {
		struct epoll_event e[2];
		int k = epoll_wait(ep, e, 2, 200);
		struct vs_cm_event ev;

		if (vs_t_stalled(&watch, established + accepted + crecv + srecv +
				 csent + ssent, 30000))
			VS_FAIL("nothing new for 30 s: %d connected, %d accepted, "
				"received %d / %d, sent %d / %d", established,
				accepted, crecv, srecv, csent, ssent);
		for (int j = 0; j < k; j++) {
			if (e[j].data.u32 == 0) { /* the clients' channel */
				while (vs_cm_channel_next(cs.ch, 0, &ev) == 0) {
					int i = client_of(c, ev.id);
					struct conn *cl = &c[i];

					if (ev.err)
						VS_FAIL("client %d: %s err %d: %s", i,
							ev.name, ev.err, vs_t_err());
					VS_ASSERT_PTR_EQ(ev.listener, NULL);
					switch (ev.type) {
					case RDMA_CM_EVENT_ADDR_RESOLVED:
						VS_ASSERT_EQ(cl->addr_seen++, 0);
						VS_ASSERT_EQ(cl->route_seen, 0);
						break;
					case RDMA_CM_EVENT_ROUTE_RESOLVED: {
						char pdata[4] = { 'c', (char)('0' + i), 0, 0 };

						VS_ASSERT_EQ(cl->addr_seen, 1);
						VS_ASSERT_EQ(cl->route_seen++, 0);
						VS_ASSERT_EQ(vs_cm_state(cl->id), VS_CM_RESOLVED);
						side_objects(&cs, cl->id);
						VS_OK(vs_cm_rc_qp_create(cl->id, cs.pd, &(struct vs_rc_config){
							.send_cq = cs.cq }, &cl->qp));
						if (!refused) {
							refuse_waits(cl->id, cs.ch);
							refused = true;
						}
						vs_t_rc_recv(cl->qp, (uint64_t)i,
							     vs_mr_sge(cs.mr, (size_t)i * MSG, MSG));
						VS_OK(vs_cm_connect(cl->id, &(struct vs_cm_conn_config){
							.private_data = pdata, .private_data_len = 3,
							.no_wait = true }));
						break;
					}
					case RDMA_CM_EVENT_ESTABLISHED:
						VS_ASSERT_EQ(cl->route_seen, 1);
						VS_ASSERT(!cl->established);
						cl->established = true;
						established++;
						check_port_facts(cl->qp);
						vs_t_fill(vs_mr_ptr(cs.mr, (size_t)(N + i) * MSG), MSG, i);
						vs_t_rc_send(cl->qp, (uint64_t)(N + i),
							     vs_mr_sge(cs.mr, (size_t)(N + i) * MSG, MSG));
						break;
					default:
						VS_FAIL("client %d: unexpected %s", i, ev.name);
					}
				}
				continue;
			}
			/* the server's channel: the listener's requests, its ids' events */
			while (vs_cm_channel_next(ss.ch, 0, &ev) == 0) {
				if (ev.err)
					VS_FAIL("server: %s err %d: %s", ev.name,
						ev.err, vs_t_err());
				if (ev.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
					int i;

					VS_ASSERT_PTR_EQ(ev.listener, l);
					VS_ASSERT(ev.private_data_len >= 3 &&
						  ev.private_data[0] == 'c');
					i = ev.private_data[1] - '0';
					VS_ASSERT(i >= 0 && i < N && !s[i].id);
					s[i].id = ev.id;
					VS_ASSERT_EQ(vs_cm_state(ev.id), VS_CM_REQUEST);
					VS_ASSERT_EQ(vs_cm_fd(ev.id), -1); /* on ss.ch */
					side_objects(&ss, ev.id);
					VS_OK(vs_cm_rc_qp_create(ev.id, ss.pd, &(struct vs_rc_config){
						.send_cq = ss.cq }, &s[i].qp));
					vs_t_rc_recv(s[i].qp, (uint64_t)i,
						     vs_mr_sge(ss.mr, (size_t)i * MSG, MSG));
					if (i == 0) /* refused before the accept leaves */
						VS_FAILS(vs_cm_accept(ev.id, NULL), EINVAL,
							 shared_msg);
					VS_ASSERT_EQ(vs_cm_state(ev.id), VS_CM_REQUEST);
					VS_OK(vs_cm_accept(ev.id, &(struct vs_cm_conn_config){
						.no_wait = true }));
					continue;
				}
				VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_ESTABLISHED);
				VS_ASSERT_PTR_EQ(ev.listener, NULL);
				{
					int i = client_of(s, ev.id);

					VS_ASSERT(!s[i].established);
					s[i].established = true;
					VS_ASSERT_EQ(vs_cm_state(ev.id), VS_CM_CONNECTED);
					accepted++;
					check_port_facts(s[i].qp);
					vs_t_fill(vs_mr_ptr(ss.mr, (size_t)(N + i) * MSG), MSG, 100 + i);
					vs_t_rc_send(s[i].qp, (uint64_t)(N + i),
						     vs_mr_sge(ss.mr, (size_t)(N + i) * MSG, MSG));
				}
			}
		}
		for (int side = 0; side < 2; side++) {
			struct side *sd = side ? &ss : &cs;
			int got = sd->cq ? vs_cq_poll(sd->cq, wc, 2 * N) : 0;

			VS_ASSERT(got >= 0);
			for (int w = 0; w < got; w++) {
				uint64_t id = wc[w].wr_id;

				if (id >= N) { /* a send's completion */
					vs_t_expect_wc(&wc[w], id, IBV_WC_SEND, UINT32_MAX);
					*(side ? &ssent : &csent) += 1;
					continue;
				}
				vs_t_expect_wc(&wc[w], id, IBV_WC_RECV, MSG);
				/* the client gets 100 + i from its server id, the server i */
				vs_t_check(vs_mr_ptr(sd->mr, id * MSG), MSG,
					   side ? (int)id : 100 + (int)id);
				*(side ? &srecv : &crecv) += 1;
			}
		}
	}
	close(ep);

	/* closes, in the round's order */
	close_busy(cs.ch, N, c[0].id);
	close_busy(ss.ch, N + 1, l);
	if (round == 0) {
		/* clients first; each server id then sees its DISCONNECTED */
		for (int i = 0; i < N; i++) {
			struct vs_cm_event ev;

			VS_OK(vs_cm_close(c[i].id));
			VS_OK(vs_rc_qp_close(c[i].qp));
			next_disconnect(ss.ch, &ev);
			VS_ASSERT_PTR_EQ(ev.id, s[i].id);
			VS_ASSERT_EQ(vs_cm_state(s[i].id), VS_CM_DISCONNECTED);
			if (i == N / 2)
				close_busy(cs.ch, N - 1 - i, c[N - 1].id);
		}
		VS_OK(vs_cm_channel_close(cs.ch));
		for (int i = 0; i < N; i++) {
			VS_OK(vs_cm_close(s[i].id));
			VS_OK(vs_rc_qp_close(s[i].qp));
		}
		close_busy(ss.ch, 1, l);
		VS_OK(vs_cm_close(l));
		VS_OK(vs_cm_channel_close(ss.ch));
	} else if (round == 1) {
		/* server ids first, backwards; each client sees its DISCONNECTED */
		for (int i = N - 1; i >= 0; i--) {
			struct vs_cm_event ev;

			VS_OK(vs_rc_qp_close(s[i].qp));
			VS_OK(vs_cm_close(s[i].id));
			next_disconnect(cs.ch, &ev);
			VS_ASSERT_PTR_EQ(ev.id, c[i].id);
		}
		VS_OK(vs_cm_close(l));
		VS_OK(vs_cm_channel_close(ss.ch));
		for (int i = N - 1; i >= 0; i--) {
			VS_OK(vs_cm_close(c[i].id));
			VS_OK(vs_rc_qp_close(c[i].qp));
		}
		VS_OK(vs_cm_channel_close(cs.ch));
	} else {
		/*
		 * The listener first; then the clients, so the server's
		 * channel holds a DISCONNECTED for every server id; those ids
		 * closed without reading them: none comes back.
		 */
		struct vs_cm_event ev;

		VS_OK(vs_cm_close(l));
		for (int i = 0; i < N; i++) {
			VS_OK(vs_rc_qp_close(c[i].qp));
			VS_OK(vs_cm_close(c[i].id));
		}
		VS_OK(vs_cm_channel_close(cs.ch));
		/* the first DISCONNECTED is in: the others follow it closely */
		for (uint64_t t = vs_t_now_ms(); vs_t_now_ms() - t < 5000;) {
			struct pollfd p = { .fd = vs_cm_channel_fd(ss.ch), .events = POLLIN };

			if (poll(&p, 1, 100) == 1)
				break;
		}
		for (int i = 0; i < N; i++) {
			VS_OK(vs_rc_qp_close(s[i].qp));
			VS_OK(vs_cm_close(s[i].id));
		}
		VS_ASSERT_EQ(vs_cm_channel_next(ss.ch, 300, &ev), -ETIMEDOUT);
		VS_OK(vs_cm_channel_close(ss.ch));
	}
	VS_FAILS(vs_cm_channel_close(cs.ch), EINVAL, "already closed");
	VS_ASSERT_EQ(vs_cm_channel_fd(ss.ch), -1);
	side_close(&cs);
	side_close(&ss);
	printf("round %d: %d connections on two shared channels, %d + %d "
	       "messages checked, closed in order %d\n", round, N, crecv, srecv,
	       round);
}

int main(void)
{
	int fds;

	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	/* round 0 also opens what librdmacm keeps for the process's life */
	run_round(0);
	fds = vs_t_count_fds();
	run_round(1);
	VS_ASSERT_EQ(vs_t_count_fds(), fds);
	run_round(2);
	VS_ASSERT_EQ(vs_t_count_fds(), fds);
	printf("fds: %d after each round\nok\n", fds);
	return 0;
}
