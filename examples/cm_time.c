/* SPDX-License-Identifier: MIT */
/*
 * cm_time: connection setup timing through the typed connection manager
 * (in the manner of librdmacm's cmtime): N connections one after the
 * other, the time of each step.
 *
 *   server:  cm_time [-p port] [-n connections] [-P [-I]]
 *   client:  cm_time [-p port] [-n connections] [-P [-I]] server_host
 *
 * Client steps: resolve (address and route), qp (PD, CQ and RC QP on the
 * id's context), connect (request, answer, RTR/RTS, ready-to-use),
 * disconnect, close; one connection after the other (each resolving the
 * name, vs_cm_resolve), or with -P each step for all connections before
 * the next (as cmtime: one PD and CQ, the address looked up once and
 * resolved per connection, vs_cm_resolve_addr), the resolves and
 * the connects overlapping (vs_cm_config.no_wait,
 * vs_cm_conn_config.no_wait), all ids on one shared CM event channel
 * (vs_cm_channel_create, as cmtime's one rdma_event_channel), their
 * events from vs_cm_channel_next(); -P -I instead gives each id its own
 * channel, served from one epoll set of the ids' fds (the library's
 * default).  The server accepts every request without waiting, with a
 * QP on one shared PD and CQ, then closes each connection when its
 * client disconnects; with -P from one shared channel (its requests'
 * ids stay on the listener's channel), else each request id on its own.
 */
#include <getopt.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/ex_common.h"

enum { S_RESOLVE, S_QP, S_CONNECT, S_DISCONNECT, S_CLOSE, S_N };
static const char *const step_names[S_N] = {
	"resolve (addr+route)", "create PD+CQ+QP", "connect", "disconnect", "close",
};

/*
 * As cmtime, look the server's address up once before the clock starts:
 * librdmacm's one-time start (every device opened and queried, 0.2 s
 * under TCG) happens there, outside the steps timed.  The staged client
 * then resolves that address for every connection (vs_cm_resolve_addr),
 * as cmtime does; NULL on failure.
 */
static struct rdma_addrinfo *look_up(const char *host, const char *port)
{
	struct rdma_addrinfo *ai;

	if (rdma_getaddrinfo(host, port, &(struct rdma_addrinfo){
		.ai_port_space = RDMA_PS_TCP }, &ai)) {
		perror("cm_time: rdma_getaddrinfo");
		return NULL;
	}
	return ai;
}

/* cmtime's QP: one WR and one SGE each way (inline stays the typed default) */
#define QP_CAPS { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 }
#define CQ_DEPTH 2

static int serve(const char *port, int n)
{
	struct vs_cm_id *l, **ids = calloc((size_t)n, sizeof(*ids));
	struct vs_rc_qp **qps = calloc((size_t)n, sizeof(*qps));
	struct vs_pd *pd = NULL;
	struct vs_cq *cq = NULL;

	if (!ids || !qps)
		return 1;
	ex_check(vs_cm_listen(NULL, port, NULL, &l), "vs_cm_listen");
	printf("cm_time: listening on port %s for %d connections\n", port, n);
	fflush(stdout);
	/* accepted without waiting: the clients' connects may overlap (-P) */
	for (int i = 0; i < n; i++) {
		ex_check(vs_cm_get_request(l, 60000, &ids[i]), "vs_cm_get_request");
		if (!pd) { /* the listener's device: shared by every connection */
			ex_check(vs_pd_alloc(vs_cm_context(ids[i]), &pd), "vs_pd_alloc");
			ex_check(vs_cq_create(vs_cm_context(ids[i]), NULL, &cq), "vs_cq_create");
		}
		ex_check(vs_cm_rc_qp_create(ids[i], pd, &(struct vs_rc_config){
			.send_cq = cq, .caps = QP_CAPS },
			&qps[i]), "vs_cm_rc_qp_create");
		ex_check(vs_cm_accept(ids[i], &(struct vs_cm_conn_config){ .no_wait = true }),
			 "vs_cm_accept");
	}
	for (int i = 0; i < n; i++) {
		ex_cm_await_disconnect(ids[i]);
		ex_check(vs_cm_disconnect(ids[i]), "vs_cm_disconnect");
		ex_check(vs_rc_qp_close(qps[i]), "vs_rc_qp_close");
		ex_check(vs_cm_close(ids[i]), "vs_cm_close");
	}
	ex_check(vs_cq_close(cq), "vs_cq_close");
	ex_check(vs_pd_close(pd), "vs_pd_close");
	ex_check(vs_cm_close(l), "vs_cm_close");
	printf("cm_time: served %d connections\n", n);
	free(ids);
	free(qps);
	return 0;
}

/*
 * -P: the listener and every request's id on one shared channel, each
 * event from vs_cm_channel_next() (cmtime's server: one channel).
 */
static int serve_shared(const char *port, int n)
{
	struct vs_cm_channel *ch;
	struct vs_cm_id *l;
	struct vs_pd *pd = NULL;
	struct vs_cq *cq = NULL;
	int closed = 0;

	ex_check(vs_cm_channel_create(&ch), "vs_cm_channel_create");
	ex_check(vs_cm_listen(NULL, port, &(struct vs_cm_config){
		.comp_mask = VS_CM_CONFIG_CHANNEL, .channel = ch }, &l),
		"vs_cm_listen");
	printf("cm_time: listening on port %s for %d connections (one shared "
	       "CM event channel)\n", port, n);
	fflush(stdout);
	while (closed < n) {
		struct vs_cm_event ev;
		struct vs_rc_qp *qp;

		ex_check(vs_cm_channel_next(ch, 60000, &ev), "vs_cm_channel_next");
		switch (ev.type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!pd) { /* the listener's device: shared by every connection */
				ex_check(vs_pd_alloc(vs_cm_context(ev.id), &pd), "vs_pd_alloc");
				ex_check(vs_cq_create(vs_cm_context(ev.id), NULL, &cq),
					 "vs_cq_create");
			}
			ex_check(vs_cm_rc_qp_create(ev.id, pd, &(struct vs_rc_config){
				.send_cq = cq, .caps = QP_CAPS }, &qp),
				"vs_cm_rc_qp_create");
			ex_check(vs_cm_accept(ev.id, &(struct vs_cm_conn_config){
				.no_wait = true }), "vs_cm_accept");
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			ex_check(vs_cm_disconnect(ev.id), "vs_cm_disconnect");
			ex_check(vs_rc_qp_close(vs_cm_rc_qp(ev.id)), "vs_rc_qp_close");
			ex_check(vs_cm_close(ev.id), "vs_cm_close");
			closed++;
			break;
		default:
			if (ev.err)
				ex_die(ev.name);
		}
	}
	ex_check(vs_cq_close(cq), "vs_cq_close");
	ex_check(vs_pd_close(pd), "vs_pd_close");
	ex_check(vs_cm_close(l), "vs_cm_close");
	ex_check(vs_cm_channel_close(ch), "vs_cm_channel_close");
	printf("cm_time: served %d connections\n", n);
	return 0;
}

/*
 * Waits until every one of the n ids has delivered an event of type want:
 * from the shared channel ch, or (ch NULL)
 * serving all their events from one epoll set (vs_cm_next acts on each:
 * a resolved address asks for the route, a connect's answer completes
 * the connection).
 */
static void wait_all(struct vs_cm_channel *ch, int ep, struct vs_cm_id **ids,
		     int n, enum rdma_cm_event_type want, const char *what)
{
	int left = n;

	while (left && ch) {
		struct vs_cm_event ev;
		int ret = vs_cm_channel_next(ch, 10000, &ev);

		if (ret == -ETIMEDOUT || ret == -EAGAIN) {
			fprintf(stderr, "cm_time: %d %s unanswered after 10 s\n",
				left, what);
			exit(1);
		}
		if (ret || ev.err)
			ex_die(what);
		if (ev.type == want)
			left--;
	}
	while (left) {
		struct epoll_event e[16];
		int k = epoll_wait(ep, e, 16, 10000);

		if (k <= 0) {
			fprintf(stderr, "cm_time: %d %s unanswered after 10 s\n",
				left, what);
			exit(1);
		}
		/*
		 * One event per ready fd: the epoll set is level-triggered, so
		 * an fd with more reports again, and no read ends in EAGAIN.
		 */
		for (int j = 0; j < k; j++) {
			struct vs_cm_event ev;
			struct vs_cm_id *id = ids[e[j].data.u32];
			int ret = vs_cm_next(id, 0, &ev);

			if (ret == -EAGAIN)
				continue;
			if (ret || ev.err)
				ex_die(what);
			if (ev.type == want)
				left--;
		}
	}
}

/*
 * -P: each step for all n connections before the next step, as cmtime
 * does: resolves and connects started without waiting and completed as
 * their events arrive on the shared channel (-I: on one epoll set of the
 * ids' own fds); one PD and one CQ for all, made with the first QP (as
 * cmtime's: it makes its PD and CQ once, at the first create qp).
 */
static int staged(const char *host, const char *port, int n, bool own)
{
	struct vs_cm_id **ids = calloc((size_t)n, sizeof(*ids));
	struct vs_rc_qp **qps = calloc((size_t)n, sizeof(*qps));
	struct vs_cm_channel *ch = NULL;
	struct vs_pd *pd = NULL;
	struct vs_cq *cq = NULL;
	uint64_t t[S_N + 1], started;
	int ep = own ? epoll_create1(0) : -1;
	struct rdma_addrinfo *ai;

	if (!ids || !qps || (own && ep < 0))
		return 1;
	ai = look_up(host, port);
	if (!ai)
		return 1;
	t[0] = ex_now_ns();
	if (!own)
		ex_check(vs_cm_channel_create(&ch), "vs_cm_channel_create");
	for (int i = 0; i < n; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		ex_check(vs_cm_resolve_addr(ai->ai_dst_addr, &(struct vs_cm_config){
			.comp_mask = own ? 0 : VS_CM_CONFIG_CHANNEL,
			.channel = ch, .no_wait = true }, &ids[i]), "vs_cm_resolve_addr");
		if (own && epoll_ctl(ep, EPOLL_CTL_ADD, vs_cm_fd(ids[i]), &e))
			return 1;
	}
	started = ex_now_ns();
	wait_all(ch, ep, ids, n, RDMA_CM_EVENT_ROUTE_RESOLVED, "resolves");
	t[1] = ex_now_ns();
	for (int i = 0; i < n; i++) {
		/* one device here: every id's route goes out of ids[0]'s */
		if (!pd) {
			struct vs_context *ctx = vs_cm_context(ids[0]);

			ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
			ex_check(vs_cq_create(ctx, &(struct vs_cq_config){
				.depth = CQ_DEPTH }, &cq), "vs_cq_create");
		}
		ex_check(vs_cm_rc_qp_create(ids[i], pd, &(struct vs_rc_config){
			.send_cq = cq, .caps = QP_CAPS },
			&qps[i]), "vs_cm_rc_qp_create");
	}
	t[2] = ex_now_ns();
	for (int i = 0; i < n; i++)
		ex_check(vs_cm_connect(ids[i], &(struct vs_cm_conn_config){ .no_wait = true }),
			 "vs_cm_connect");
	wait_all(ch, ep, ids, n, RDMA_CM_EVENT_ESTABLISHED, "connects");
	t[3] = ex_now_ns();
	for (int i = 0; i < n; i++)
		ex_check(vs_cm_disconnect(ids[i]), "vs_cm_disconnect");
	t[4] = ex_now_ns();
	for (int i = 0; i < n; i++) {
		ex_check(vs_cm_close(ids[i]), "vs_cm_close");
		ex_check(vs_rc_qp_close(qps[i]), "vs_rc_qp_close");
	}
	ex_check(vs_cq_close(cq), "vs_cq_close");
	ex_check(vs_pd_close(pd), "vs_pd_close");
	if (ch)
		ex_check(vs_cm_channel_close(ch), "vs_cm_channel_close");
	t[5] = ex_now_ns();
	printf("cm_time: %d connections to %s:%s, staged (%s), in %.1f ms\n", n,
	       host, port, own ? "-P -I: a channel per id" :
	       "-P: one shared channel", (t[5] - t[0]) / 1e6);
	printf("%-22s %12s %12s\n", "step", "total (ms)", "us / conn");
	for (int s = 0; s < S_N; s++)
		printf("%-22s %12.2f %12.1f\n", step_names[s], (t[s + 1] - t[s]) / 1e6,
		       (t[s + 1] - t[s]) / 1e3 / n);
	printf("(resolve: %.2f ms to start all, %.2f ms for their events)\n",
	       (started - t[0]) / 1e6, (t[1] - started) / 1e6);
	if (ep >= 0)
		close(ep);
	rdma_freeaddrinfo(ai);
	free(ids);
	free(qps);
	return 0;
}

static int client(const char *host, const char *port, int n)
{
	uint64_t sum[S_N] = { 0 }, lo[S_N], hi[S_N] = { 0 }, t0, all = ex_now_ns();

	struct rdma_addrinfo *ai = look_up(host, port);

	if (!ai)
		return 1;
	rdma_freeaddrinfo(ai);
	for (int s = 0; s < S_N; s++)
		lo[s] = UINT64_MAX;
	all = ex_now_ns();
	for (int i = 0; i < n; i++) {
		uint64_t t[S_N + 1];
		struct vs_cm_id *id;
		struct vs_context *ctx;
		struct vs_pd *pd;
		struct vs_cq *cq;
		struct vs_rc_qp *qp;

		t[0] = ex_now_ns();
		ex_check(vs_cm_resolve(host, port, NULL, &id), "vs_cm_resolve");
		t[1] = ex_now_ns();
		ctx = vs_cm_context(id);
		if (!ctx)
			ex_die("vs_cm_context");
		ex_check(vs_pd_alloc(ctx, &pd), "vs_pd_alloc");
		ex_check(vs_cq_create(ctx, &(struct vs_cq_config){ .depth = CQ_DEPTH }, &cq),
			 "vs_cq_create");
		ex_check(vs_cm_rc_qp_create(id, pd, &(struct vs_rc_config){
			.send_cq = cq, .caps = QP_CAPS },
			&qp), "vs_cm_rc_qp_create");
		t[2] = ex_now_ns();
		ex_check(vs_cm_connect(id, NULL), "vs_cm_connect");
		t[3] = ex_now_ns();
		ex_check(vs_cm_disconnect(id), "vs_cm_disconnect");
		t[4] = ex_now_ns();
		ex_check(vs_cm_close(id), "vs_cm_close");
		ex_check(vs_rc_qp_close(qp), "vs_rc_qp_close");
		ex_check(vs_cq_close(cq), "vs_cq_close");
		ex_check(vs_pd_close(pd), "vs_pd_close");
		t[5] = ex_now_ns();
		for (int s = 0; s < S_N; s++) {
			uint64_t d = t[s + 1] - t[s];

			sum[s] += d;
			lo[s] = d < lo[s] ? d : lo[s];
			hi[s] = d > hi[s] ? d : hi[s];
		}
	}
	t0 = ex_now_ns() - all;
	printf("cm_time: %d connections to %s:%s in %.1f ms (%.1f connections/s)\n",
	       n, host, port, t0 / 1e6, n / (t0 / 1e9));
	printf("%-22s %12s %12s %12s\n", "step", "avg (us)", "min (us)", "max (us)");
	for (int s = 0; s < S_N; s++)
		printf("%-22s %12.1f %12.1f %12.1f\n", step_names[s],
		       sum[s] / 1e3 / n, lo[s] / 1e3, hi[s] / 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	const char *port = "7471";
	int n = 100, c;
	bool par = false, own = false;

	setvbuf(stdout, NULL, _IOLBF, 0); /* the last line a failure prints is its reason */
	while ((c = getopt(argc, argv, "p:n:PIh")) != -1) {
		switch (c) {
		case 'P': par = true; break;
		case 'I': own = true; break;
		case 'p': port = optarg; break;
		case 'n': n = atoi(optarg); break;
		default:
			fprintf(stderr,
				"usage: %s [-p port] [-n connections] [-P [-I]] [server_host]\n"
				"  -P  staged, as cmtime: each step for all connections, the\n"
				"      ids on one shared CM event channel per side\n"
				"  -I  with -P: a CM event channel per id instead (epoll of their fds)\n",
				argv[0]);
			return 2;
		}
	}
	if (n < 1)
		n = 1;
	if (optind >= argc)
		return par && !own ? serve_shared(port, n) : serve(port, n);
	return par ? staged(argv[optind], port, n, own) : client(argv[optind], port, n);
}
