/* SPDX-License-Identifier: MIT */
/*
 * The common case in one call: a connected RC id with its own PD, CQ and
 * QP, client side (vs_cm_rc_client) or server side (vs_cm_rc_serve).
 */
#include "cm_internal.h"

static int qp_cfg_check(const struct vs_rc_config *c, const char *call)
{
	if (c && (c->send_cq || c->recv_cq || c->srq))
		return vs__set_error(call, EINVAL,
				     "qp_cfg names CQs or an SRQ: the one-call "
				     "setup creates the id's own CQ; bring your "
				     "own with the steps (vs_cm_rc_qp_create)");
	return 0;
}

/* A failed step of a one-call setup, named for the call the program made. */
static int renamed(const char *call, int ret)
{
	const struct vs_error *e = vs_last_error();
	char msg[sizeof(e->message) + 64];

	if (!ret || !e->call || !strcmp(e->call, call))
		return ret;
	snprintf(msg, sizeof(msg), "%s: %s", e->call, e->message);
	return e->verb ? vs__verb_error(call, e->verb, -ret, "%s", msg) :
			 vs__set_error(call, -ret, "%s", msg);
}

/* PD, CQ and QP on the id's context, owned by the id. */
static int build(struct vs_cm_id *id, const struct vs_rc_config *qp_cfg,
		 const char *call)
{
	struct vs_rc_config c = qp_cfg ? *qp_cfg : (struct vs_rc_config){ 0 };
	struct vs_context *ctx;
	struct vs_rc_qp *qp;
	int ret = vs__cm_bind_ctx(id, call);

	if (ret)
		return ret;
	ctx = id->ctx;
	ret = (vs_pd_alloc)(ctx, &id->own_pd);
	if (!ret)
		ret = (vs_cq_create)(ctx, &(struct vs_cq_config){
			.depth = (c.caps.max_send_wr ? c.caps.max_send_wr : 128) +
				 (c.caps.max_recv_wr ? c.caps.max_recv_wr : 128),
		}, &id->own_cq);
	if (ret)
		return renamed(call, ret);
	c.send_cq = id->own_cq;
	ret = (vs_cm_rc_qp_create)(id, id->own_pd, &c, &qp);
	if (ret)
		return renamed(call, ret);
	id->own_qp = true;
	return 0;
}

static void *close_thread(void *id)
{
	(vs_cm_close)(id);
	return NULL;
}

/*
 * Closes the one-call id (its own QP, CQ and PD with it) that failed.
 * iWARP after a timed-out wait: in a thread of its own, for the kernel
 * holds the connect until it ends (the peer's MPA answer or reject, or
 * the provider's own timeout): siw's QP destroy waits for the connection
 * manager's reference and rdma_destroy_id for the connect (3 s measured
 * after a 5 s limit; docs/API.md, deadlines).  Nobody else has the id or
 * its objects, so nothing waits for that close.
 */
static void close_failed(struct vs_cm_id *id)
{
	pthread_attr_t attr;
	pthread_t t;
	bool later = id->wait_timed_out && id->id && id->kind->iwarp &&
		     !pthread_attr_init(&attr);

	if (later) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		later = !pthread_create(&t, &attr, close_thread, id);
		pthread_attr_destroy(&attr);
	}
	if (!later)
		(vs_cm_close)(id); /* keeps the first error: a close does not fail here */
}

int vs_cm_rc_client(const char *host, const char *port,
		    const struct vs_cm_config *cfg,
		    const struct vs_cm_conn_config *conn,
		    const struct vs_rc_config *qp_cfg, struct vs_cm_id **out)
{
	const char *call = "vs_cm_rc_client";
	struct vs_cm_id *id;
	int ret;

	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	if (cfg && cfg->transport && cfg->transport != VS_TRANSPORT_RC)
		return vs__set_error(call, EINVAL, "cfg->transport is %s: this "
				     "call connects RC", vs_transport_name(cfg->transport));
	if (conn && conn->no_wait)
		return vs__set_error(call, EINVAL, "conn->no_wait: the one-call "
				     "client waits; use the steps to not wait");
	ret = qp_cfg_check(qp_cfg, call);
	if (ret)
		return ret;
	ret = (vs_cm_resolve)(host, port, cfg, &id);
	if (ret)
		return renamed(call, ret);
	ret = build(id, qp_cfg, call);
	if (!ret)
		ret = renamed(call, (vs_cm_connect)(id, conn));
	if (ret) {
		struct vs_error e = *vs_last_error();

		close_failed(id);
		vs__error_restore(&e);
		return ret;
	}
	*out = id;
	return 0;
}

/*
 * The caller's hook on the new id: a failure of a vs_ call in it keeps
 * its record (named for this call), another is recorded naming the hook.
 */
static int before_accept(struct vs_cm_id *id, const struct vs_cm_conn_config *hook,
			 const char *call, bool *closed)
{
	struct vs_error before = *vs_last_error();
	/* the hook may use them, not close them: refused in its close call */
	const void *const mine[] = { id, id->qp, id->own_cq, id->own_pd };
	int ret;

	vs__close_guard(mine, sizeof(mine) / sizeof(mine[0]),
			"the new connection's, vs_cm_rc_serve's until it "
			"returns: before_accept may use it, not close it");
	ret = hook->before_accept(id, hook->before_accept_arg);
	vs__close_guard(NULL, 0, NULL);
	/* the id's slot outlives a close (quarantine): safe to look at */
	*closed = vs__check_handle(id, VS_KIND_CM_ID, call, "id") != 0;
	if (*closed)
		return vs__set_error(call, EINVAL, "before_accept closed the "
				     "new id (from another thread): it belongs "
				     "to vs_cm_rc_serve until it returns");
	if (ret >= 0)
		return 0;
	/* any int: only -1 .. -4095 is an errno (no negation of INT_MIN) */
	if (ret < -4095)
		return vs__set_error(call, EINVAL, "before_accept returned %d, "
				     "not 0 or a negative errno: taken as a "
				     "failure, the client %s is rejected", ret,
				     vs__cm_peer_or(id));
	if (memcmp(&before, vs_last_error(), sizeof(before)))
		return renamed(call, ret);
	return vs__set_error(call, -ret, "before_accept failed (%s): the "
			     "client %s is rejected", strerror(-ret),
			     vs__cm_peer_or(id));
}

int vs_cm_rc_serve(struct vs_cm_id *l, const struct vs_cm_conn_config *conn,
		   const struct vs_rc_config *qp_cfg, struct vs_cm_id **out)
{
	const char *call = "vs_cm_rc_serve";
	struct vs_cm_conn_config c;
	bool hook;
	struct vs_cm_id *id;
	int ret = vs__check_handle(l, VS_KIND_CM_ID, call, "listener");

	if (ret)
		return ret;
	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	if (l->transport != VS_TRANSPORT_RC)
		return vs__set_error(call, EINVAL, "the listener is for UD: this "
				     "call accepts RC");
	if (conn && conn->no_wait)
		return vs__set_error(call, EINVAL, "conn->no_wait: the one-call "
				     "server waits; use the steps to not wait");
	ret = qp_cfg_check(qp_cfg, call);
	if (ret)
		return ret;
	if (conn && (conn->comp_mask & ~(uint64_t)VS_CM_CONN_BEFORE_ACCEPT))
		return vs__set_error(call, EINVAL, "comp_mask 0x%llx has unknown bits",
				     (unsigned long long)conn->comp_mask);
	hook = conn && (conn->comp_mask & VS_CM_CONN_BEFORE_ACCEPT);
	if (hook && !conn->before_accept)
		return vs__set_error(call, EINVAL, "comp_mask has "
				     "VS_CM_CONN_BEFORE_ACCEPT and before_accept "
				     "is NULL");
	if (hook) { /* the steps know no hook; the copy keeps it for here */
		c = *conn;
		c.comp_mask &= ~(uint64_t)VS_CM_CONN_BEFORE_ACCEPT;
		conn = &c;
	}
	/* what the accept would refuse, refused before a client is taken */
	ret = vs__cm_conn_check(conn, VS_CM_ACCEPT_DATA_MAX,
				"an RC accept (REP)", call);
	if (ret)
		return ret;
	ret = (vs_cm_get_request)(l, conn && conn->timeout_ms ? conn->timeout_ms :
				  5000, &id);
	if (ret)
		return renamed(call, ret);
	ret = build(id, qp_cfg, call);
	if (!ret && hook) {
		bool closed;

		ret = before_accept(id, conn, call, &closed);
		if (closed)
			return ret;
	}
	if (ret) {
		rdma_reject(id->id, NULL, 0);
		id->state = VS_CM_REJECTED;
	} else {
		ret = renamed(call, (vs_cm_accept)(id, conn));
	}
	if (ret) {
		struct vs_error e = *vs_last_error();

		close_failed(id);
		vs__error_restore(&e);
		return ret;
	}
	*out = id;
	return 0;
}
