// SPDX-License-Identifier: MIT
/*
 * The responder, through the typed connection manager: for each client a
 * fresh MR in the layout the RC suite expects (its address and rkey in
 * the accept's private data), one receive posted before the accept
 * (iWARP has no RNR retry), the received message sent back, then the
 * client's disconnect.  A thread of this process in loopback runs, the
 * whole process under --server.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

struct server {
	struct run *r;
	const struct port_under_test *p;
	struct vs_cm_id *listener;
	int conns, accept_ms, failed;
	pthread_t thread;
};

/* One connection's memory, set up before the accept. */
struct served {
	struct vs_mr *mr;
	struct peer_info info;
};

static int before_accept(struct vs_cm_id *id, void *arg)
{
	struct served *s = arg;
	struct ibv_sge recv;
	struct vs_recv_batch rb;
	int ret = vs_mr_alloc(vs_cm_pd(id), REMOTE_SIZE, 0, &s->mr);

	if (ret)
		return ret;
	responder_init(vs_mr_ptr(s->mr, 0));
	recv = vs_mr_sge(s->mr, R_RECV, 4096);
	ret = vs_rc_recv_start(vs_cm_rc_qp(id), &rb);
	if (!ret)
		ret = vs_recv_add(&rb, 1, &recv, 1);
	if (!ret)
		ret = vs_recv_submit(&rb);
	s->info = (struct peer_info){
		.addr = htobe64(vs_mr_remote(s->mr, 0).addr),
		.rkey = htobe32(vs_mr_remote(s->mr, 0).rkey),
		.magic = htobe32(PEER_MAGIC) };
	return ret;
}

/* Completions until one of wr_id; its byte count into *len.  0 or -errno. */
static int wait_wr(struct server *s, struct vs_cq *cq, uint64_t wr_id,
		   uint32_t *len, char *why, size_t whylen)
{
	uint64_t end = now_ns() + (uint64_t)s->r->opt.timeout_ms * 1000000u;
	struct vs_wc wc;

	while (now_ns() < end) {
		int n = vs_cq_poll(cq, &wc, 1);

		if (n < 0) {
			snprintf(why, whylen, "vs_cq_poll failed (%d)", n);
			return n;
		}
		if (n == 0)
			continue;
		if (wc.status) {
			snprintf(why, whylen, "completion %llu: %s",
				 (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
			return -EIO;
		}
		if (wc.wr_id == wr_id) {
			*len = wc.byte_len;
			return 0;
		}
	}
	snprintf(why, whylen, "no completion %llu within %d ms",
		 (unsigned long long)wr_id, s->r->opt.timeout_ms);
	return -ETIMEDOUT;
}

/* Serves one client: the echo of its message, then its disconnect. */
static int serve_one(struct server *s)
{
	struct result *res = result_begin(s->r, s->p, "typed", "serve");
	struct served sv = { 0 };
	struct vs_cm_id *id = NULL;
	struct vs_cm_event ev;
	struct vs_rc_batch b;
	struct ibv_sge echo;
	char why[512] = "";
	uint32_t len = 0, sent;
	int ret;

	ret = vs_cm_rc_serve(s->listener, &(struct vs_cm_conn_config){
		.comp_mask = VS_CM_CONN_BEFORE_ACCEPT, .private_data = &sv.info,
		.private_data_len = sizeof(sv.info), .timeout_ms = s->accept_ms,
		.before_accept = before_accept, .before_accept_arg = &sv },
		&(struct vs_rc_config){ .caps = { .max_send_wr = 8,
						  .max_recv_wr = 8 } }, &id);
	if (ret) {
		result_fail_vs(res, "vs_cm_rc_serve", ret);
		goto out;
	}
	ret = wait_wr(s, vs_cm_cq(id), 1, &len, why, sizeof(why));
	if (!ret) {
		echo = vs_mr_sge(sv.mr, R_RECV, len);
		ret = vs_rc_batch_start(vs_cm_rc_qp(id), &b);
		if (!ret)
			ret = vs_rc_send(&b, 2, VS_WR_SIGNALED, &echo, 1);
		if (!ret)
			ret = vs_rc_batch_submit(&b);
		if (ret)
			snprintf(why, sizeof(why), "the echo's send: %s",
				 vs_last_error()->message);
	}
	if (!ret)
		ret = wait_wr(s, vs_cm_cq(id), 2, &sent, why, sizeof(why));
	if (ret) {
		result_end(res, FAIL, "client %s: %s", vs_cm_peer(id), why);
		goto out;
	}
	/* the client reads and writes our memory, then disconnects */
	do {
		ret = vs_cm_next(id, s->r->opt.timeout_ms * 6, &ev);
	} while (!ret && ev.type != RDMA_CM_EVENT_DISCONNECTED);
	if (ret)
		result_fail_vs(res, "waiting for the client's disconnect", ret);
	else
		result_end(res, PASS, "client %s: accepted, %u bytes echoed, "
			   "disconnected", vs_cm_peer(id), len);
out:
	if (id)
		TEARDOWN(s->r, s->p, vs_cm_close, id);
	if (sv.mr)
		TEARDOWN(s->r, s->p, vs_mr_close, sv.mr);
	return res->verdict == PASS ? 0 : -1;
}

void server_run(struct server *s)
{
	for (int i = 0; i < s->conns; i++)
		if (serve_one(s))
			s->failed++;
}

static void *server_thread(void *arg)
{
	server_run(arg);
	return NULL;
}

int server_start(struct run *r, const struct port_under_test *p,
		 const char *host, const char *port, int conns,
		 struct server **out)
{
	struct result *res = result_begin(r, p, "typed", "cm-listen");
	struct server *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s) {
		result_end(res, FAIL, "out of memory");
		return -ENOMEM;
	}
	*s = (struct server){ .r = r, .p = p, .conns = conns,
			      .accept_ms = !r->opt.server ? r->opt.timeout_ms :
					   r->opt.wait_ms ? r->opt.wait_ms : -1 };
	ret = vs_cm_listen(host, port, NULL, &s->listener);
	if (ret) {
		result_fail_vs(res, "vs_cm_listen", ret);
		free(s);
		return ret;
	}
	result_end(res, PASS, "listening on %s port %s", host ? host : "every address",
		   port);
	if (!r->opt.server) {
		ret = -pthread_create(&s->thread, NULL, server_thread, s);
		if (ret) {
			result_end(result_begin(r, p, "typed", "cm-listen"), FAIL,
				   "pthread_create of the server: %s", strerror(-ret));
			TEARDOWN(r, p, vs_cm_close, s->listener);
			free(s);
			return ret;
		}
	}
	*out = s;
	return 0;
}

int server_finish(struct server *s)
{
	int failed;

	if (!s)
		return -1;
	if (!s->r->opt.server)
		pthread_join(s->thread, NULL);
	failed = s->failed;
	TEARDOWN(s->r, s->p, vs_cm_close, s->listener);
	free(s);
	return failed ? -1 : 0;
}
