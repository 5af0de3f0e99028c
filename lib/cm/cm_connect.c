/* SPDX-License-Identifier: MIT */
/*
 * Connections: connect (client), get a request, accept or reject it
 * (server), disconnect.  The QP is the caller's typed QP, brought up
 * here with the CM's attributes (lib/cm/cm_qp.c); librdmacm never touches
 * it (the id has no rdma_create_qp QP), so the CM's answer to a connect
 * arrives as RDMA_CM_EVENT_CONNECT_RESPONSE and rdma_establish completes
 * it after RTR and RTS.  A librdmacm older than 23 has neither verb (the
 * old_cm rows, VS__CM_KINDS): there the id owns the QP, librdmacm brings
 * it up in rdma_accept and at the connect's answer (ESTABLISHED), and the
 * library reads back what it set.
 */
#include "cm_internal.h"

#define DEFAULT_CONNECT_MS 5000

int vs__cm_conn_check(const struct vs_cm_conn_config *cfg, unsigned int max,
		      const char *what, const char *call)
{
	if (!cfg)
		return 0;
	if (cfg->comp_mask & VS_CM_CONN_BEFORE_ACCEPT)
		return vs__set_error(call, EINVAL, "comp_mask has "
				     "VS_CM_CONN_BEFORE_ACCEPT: only the one-call "
				     "vs_cm_rc_serve calls before_accept; with the "
				     "steps, post receives before vs_cm_accept");
	if (cfg->comp_mask)
		return vs__set_error(call, EINVAL, "comp_mask 0x%llx has unknown bits",
				     (unsigned long long)cfg->comp_mask);
	if (cfg->private_data_len && !cfg->private_data)
		return vs__set_error(call, EINVAL,
				     "private_data is NULL with private_data_len %u",
				     cfg->private_data_len);
	if (cfg->timeout_ms < -1)
		return vs__set_error(call, EINVAL, "timeout_ms %d (0: the "
				     "default, -1: for ever)", cfg->timeout_ms);
	if (cfg->private_data_len > max)
		return vs__set_error(call, EINVAL,
				     "private_data_len %u exceeds the %u bytes %s "
				     "carries (the IB CM message less the rdma_cm "
				     "header)", cfg->private_data_len, max, what);
	return 0;
}

/* 0: do not wait (no_wait), else the limit (-1: for ever) */
static int wait_ms(const struct vs_cm_conn_config *cfg)
{
	if (cfg && cfg->no_wait)
		return 0;
	return cfg && cfg->timeout_ms ? cfg->timeout_ms : DEFAULT_CONNECT_MS;
}

static void fill_param(struct vs_cm_id *id, const struct vs_cm_conn_config *cfg,
		       struct rdma_conn_param *p)
{
	struct vs_qp *qp = id->qp;

	memset(p, 0, sizeof(*p));
	if (cfg) {
		p->private_data = cfg->private_data;
		p->private_data_len = cfg->private_data_len;
	}
	p->qp_num = qp->qp->qp_num;
	p->srq = qp->srq != NULL;
	if (!id->kind->datagram) {
		p->responder_resources = qp->max_dest_rd_atomic;
		p->initiator_depth = qp->max_rd_atomic;
		/*
		 * an accept grants no more than the request offered (the
		 * library's RTR/RTS did so already; librdmacm before 23 sets
		 * the QP from these)
		 */
		if (id->state == VS_CM_REQUEST) {
			if (p->responder_resources > id->req_initiator_depth)
				p->responder_resources = id->req_initiator_depth;
			if (p->initiator_depth > id->req_responder_resources)
				p->initiator_depth = id->req_responder_resources;
		}
		p->flow_control = 1;
		p->retry_count = qp->retry_cnt;
		p->rnr_retry_count = qp->rnr_retry;
	}
}

/*
 * The id's QP is there and may change its state: what the typed modify
 * would check (its handle open, of its row's kind: the user may have
 * closed it, the id's reference keeps it; no send batch open), checked
 * once per call before anything leaves, so the bring-up's modifies ask
 * no more (lib/cm/cm_qp.c).
 */
static int need_qp(struct vs_cm_id *id, const char *call)
{
	int ret;

	if (!id->qp)
		return vs__set_error(call, EINVAL,
				     "the CM id has no QP: create it first "
				     "(vs_cm_%s_qp_create)",
				     id->kind->qp);
	ret = vs__check_handle(id->qp, id->kind->qp_kind, call, "qp");
	if (ret)
		return ret;
	if (vs__qp_batch_open(id->qp))
		return vs__set_error(call, EBUSY, "a send batch is open on the "
				     "id's QP: submit or abort it first");
	return 0;
}

/* vs__cm_complete of a QP checked already (need_qp) */
static int complete_checked(struct vs_cm_id *id, const char *call)
{
	int ret = vs__cm_qp_up(id, call);

	if (!ret) {
		errno = 0;
		if (rdma_establish(id->id))
			ret = vs__verb_error(call, "rdma_establish",
					     vs__errno_or(EINVAL),
					     "connecting to %s: cannot send the "
					     "ready-to-use", vs__cm_peer_or(id));
	}
	if (ret) {
		id->state = VS_CM_FAILED;
		rdma_reject(id->id, NULL, 0);
		return ret;
	}
	id->state = VS_CM_CONNECTED;
	return 0;
}

/* the answer came later (vs_cm_next): the user may have closed the QP since */
int vs__cm_complete(struct vs_cm_id *id, const char *call)
{
	int ret;

	if (!id->kind->rtu)
		return 0; /* the answer is the ESTABLISHED event itself */
	ret = need_qp(id, call);
	return ret ? ret : complete_checked(id, call);
}

/*
 * What a connect and an accept check alike once the id's state is right:
 * the config (its private data within max, the most what carries, and
 * its timeout), then the QP.
 */
static int conn_prologue(struct vs_cm_id *id,
			 const struct vs_cm_conn_config *cfg, unsigned int max,
			 const char *what, const char *call)
{
	int ret = vs__cm_conn_check(cfg, max, what, call);

	return ret ? ret : need_qp(id, call);
}

int vs_cm_connect(struct vs_cm_id *id, const struct vs_cm_conn_config *cfg)
{
	const char *call = "vs_cm_connect";
	struct rdma_conn_param p;
	struct vs__cm_ev ev;
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (id->state == VS_CM_LISTENING)
		return vs__set_error(call, EINVAL,
				     "the CM id is a listener: connect needs an "
				     "id from vs_cm_resolve");
	if (id->state != VS_CM_RESOLVED)
		return vs__set_error(call, EINVAL,
				     "the CM id is %s: connect needs a RESOLVED "
				     "id (vs_cm_resolve) that never connected",
				     vs_cm_state_name(id->state));
	ret = conn_prologue(id, cfg, id->kind->connect_max,
			    id->kind->connect_what, call);
	if (ret)
		return ret;
	/* refused before the request leaves, not after */
	if (wait_ms(cfg) && id->chan)
		return vs__cm_shared_refused(call);
	/*
	 * UD: ready before the request leaves (the answer needs no more);
	 * iWARP: in INIT, for iw_cm to take to RTS
	 */
	if (!id->kind->rtu) {
		ret = vs__cm_qp_up(id, call);
		if (ret)
			return ret;
	}
	fill_param(id, cfg, &p);
	id->pdata_len = 0;
	errno = 0;
	if (rdma_connect(id->id, &p)) {
		id->state = VS_CM_FAILED;
		/* iWARP: the TCP connect is made here, and refused here */
		if (errno == ECONNREFUSED)
			return vs__verb_error(call, "rdma_connect", ECONNREFUSED,
					      "connecting to %s: refused: nobody "
					      "listens on that port there",
					      vs__cm_peer_or(id));
		return vs__verb_error(call, "rdma_connect", vs__errno_or(EINVAL),
				      "connecting to %s: the request cannot be "
				      "sent", vs__cm_peer_or(id));
	}
	id->state = VS_CM_CONNECTING;
	if (wait_ms(cfg) == 0)
		return 0;
	ret = vs__cm_wait_for(id, id->kind->rtu ?
			      RDMA_CM_EVENT_CONNECT_RESPONSE :
			      RDMA_CM_EVENT_ESTABLISHED, wait_ms(cfg), &ev,
			      "connecting to", call);
	if (ret)
		return ret;
	/* the QP was checked at the start (need_qp): the wait ran nothing of the user's */
	return id->kind->rtu ? complete_checked(id, call) : 0;
}

int vs_cm_get_request(struct vs_cm_id *l, int timeout_ms, struct vs_cm_id **out)
{
	const char *call = "vs_cm_get_request";
	int64_t deadline = vs__deadline(timeout_ms);
	struct vs__cm_ev ev;
	int ret = vs__check_handle(l, VS_KIND_CM_ID, call, "listener");

	if (ret)
		return ret;
	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	if (l->state != VS_CM_LISTENING)
		return vs__set_error(call, EINVAL,
				     "the CM id is %s, not a listener (vs_cm_listen)",
				     vs_cm_state_name(l->state));
	for (;;) {
		ret = vs__cm_read(l, timeout_ms, &deadline, &ev, call);
		if (ret == -ETIMEDOUT)
			return vs__cm_timed_out(l, timeout_ms,
						"connection request", call);
		if (ret)
			return ret;
		if (ev.type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			*out = ev.id;
			return 0;
		}
		if (vs__cm_is_failure(ev.type))
			return vs__cm_explain(l, &ev, "listening on", call);
	}
}

/*
 * After an accept step failed with ret: when the id's events say the
 * client withdrew its request (it gave up waiting and destroyed its id,
 * or its CM timed out), that is recorded instead (ECONNABORTED), with how
 * long ago the request came; else ret stands.
 */
static int client_gone(struct vs_cm_id *id, int ret, const char *call)
{
	struct vs_error first = *vs_last_error();
	int64_t age = id->req_at_ms ? vs__now_deadline(0) - id->req_at_ms : -1;

	for (int i = 0; i < 4; i++) {
		struct vs__cm_ev ev;
		int64_t none = 0;
		const char *name;

		if (vs__cm_read(id, 0, &none, &ev, call))
			break;
		name = vs_cm_event_name(ev.type);
		if (ev.type == RDMA_CM_EVENT_REJECTED ||
		    ev.type == RDMA_CM_EVENT_CONNECT_ERROR ||
		    ev.type == RDMA_CM_EVENT_DISCONNECTED ||
		    ev.type == RDMA_CM_EVENT_UNREACHABLE ||
		    ev.type == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			id->state = VS_CM_FAILED;
			return vs__set_error(call, ECONNABORTED,
					     "accepting %s: the client is gone: "
					     "it withdrew its connection request "
					     "(%s, status %d) %lld ms after it "
					     "came, before this accept (its "
					     "connect's time limit ran out, or it "
					     "closed its id)", vs__cm_peer_or(id),
					     name, ev.status, (long long)age);
		}
	}
	/*
	 * No event (IB CM: the client's REJ ends the request without one):
	 * the CM's attributes of a request it no longer holds fail EINVAL,
	 * asked by the library or, before rdma-core 23, by rdma_accept.
	 */
	if (first.verb && first.err == EINVAL && !id->kind->iwarp &&
	    (!strcmp(first.verb, "rdma_init_qp_attr") ||
	     (id->kind->old_cm && !strcmp(first.verb, "rdma_accept")))) {
		id->state = VS_CM_FAILED;
		return vs__set_error(call, ECONNABORTED,
				     "accepting %s: the client is gone: the CM "
				     "no longer holds its connection request "
				     "(%s: EINVAL) %lld ms after it came: the "
				     "client gave up waiting (its connect's time "
				     "limit ran out) or withdrew it",
				     vs__cm_peer_or(id), first.verb,
				     (long long)age);
	}
	/* nothing says so: the first failure stands, as recorded */
	vs__error_restore(&first);
	return ret;
}

int vs_cm_accept(struct vs_cm_id *id, const struct vs_cm_conn_config *cfg)
{
	const char *call = "vs_cm_accept";
	struct rdma_conn_param p;
	struct vs__cm_ev ev;
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (id->state != VS_CM_REQUEST)
		return vs__set_error(call, EINVAL,
				     "the CM id is %s: accept answers a connect "
				     "request (an id from vs_cm_get_request or a "
				     "CONNECT_REQUEST event), once%s",
				     vs_cm_state_name(id->state),
				     id->state == VS_CM_ACCEPTING ||
				     id->state == VS_CM_CONNECTED ?
				     " (it was already accepted)" : "");
	ret = conn_prologue(id, cfg, id->kind->accept_max,
			    id->kind->accept_what, call);
	if (ret)
		return ret;
	/* UD's accept never waits; RC's waits unless no_wait */
	if (!id->kind->datagram && wait_ms(cfg) && id->chan)
		return vs__cm_shared_refused(call);
	/* ready before the accept leaves: the client may send at once */
	ret = vs__cm_qp_up(id, call);
	if (ret) {
		const char *verb = vs_last_error()->verb;

		/* the CM's attributes fail when the request is no more */
		if (verb && !strcmp(verb, "rdma_init_qp_attr"))
			ret = client_gone(id, ret, call);
		rdma_reject(id->id, NULL, 0);
		id->state = VS_CM_FAILED;
		return ret;
	}
	fill_param(id, cfg, &p);
	errno = 0;
	if (rdma_accept(id->id, &p)) {
		int err = vs__errno_or(EINVAL);
		bool old = id->kind->old_cm && !id->kind->datagram;

		id->state = VS_CM_FAILED;
		ret = vs__verb_error(call, "rdma_accept", err,
				     "accepting %s: %s%s%s", vs__cm_peer_or(id),
				     old ? "librdmacm could not bring the QP to "
				     "RTR and RTS or send the accept (it brings "
				     "the QP up itself: " :
				     "the accept cannot be sent",
				     old ? vs__cm_old_why() : "", old ? ")" : "");
		return client_gone(id, ret, call);
	}
	if (id->kind->datagram) {
		id->state = VS_CM_CONNECTED; /* SIDR: no ready-to-use follows */
		return 0;
	}
	/* librdmacm before 23 brought the QP to RTS in rdma_accept */
	if (id->kind->old_cm && !id->kind->iwarp) {
		ret = vs__cm_qp_synced(id, call);
		if (ret) {
			id->state = VS_CM_FAILED;
			vs__cm_qp_to_error(id);
			rdma_disconnect(id->id);
			return ret;
		}
	}
	id->state = VS_CM_ACCEPTING;
	if (wait_ms(cfg) == 0)
		return 0;
	return vs__cm_wait_for(id, RDMA_CM_EVENT_ESTABLISHED, wait_ms(cfg), &ev,
			       "accepting", call);
}

int vs_cm_reject(struct vs_cm_id *id, const void *private_data, uint8_t len)
{
	const char *call = "vs_cm_reject";
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (id->state != VS_CM_REQUEST)
		return vs__set_error(call, EINVAL,
				     "the CM id is %s: reject answers a connect "
				     "request, once", vs_cm_state_name(id->state));
	if (len && !private_data)
		return vs__set_error(call, EINVAL, "private_data is NULL with len %u",
				     len);
	if (len > VS_CM_REJECT_DATA_MAX)
		return vs__set_error(call, EINVAL,
				     "len %u exceeds the %u bytes a reject (REJ) "
				     "carries", len, VS_CM_REJECT_DATA_MAX);
	errno = 0;
	if (rdma_reject(id->id, private_data, len))
		return vs__verb_error(call, "rdma_reject", vs__errno_or(EINVAL),
				      "cannot reject %s", vs__cm_peer_or(id));
	id->state = VS_CM_REJECTED;
	return 0;
}

int vs_cm_disconnect(struct vs_cm_id *id)
{
	const char *call = "vs_cm_disconnect";
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (id->state != VS_CM_CONNECTED && id->state != VS_CM_ACCEPTING &&
	    id->state != VS_CM_DISCONNECTED)
		return vs__set_error(call, EINVAL,
				     "the CM id is %s: only a connection "
				     "disconnects", vs_cm_state_name(id->state));
	vs__cm_qp_to_error(id);
	if (id->kind->datagram) {
		id->state = VS_CM_DISCONNECTED;
		return 0; /* no connection on the wire to end */
	}
	errno = 0;
	/*
	 * after the peer's disconnect this answers it; EINVAL then says the
	 * kernel's side of it is done already.  Any other failure is one:
	 * the peer's request goes unanswered until its timeout.
	 */
	if (rdma_disconnect(id->id)) {
		int err = vs__errno_or(EINVAL);

		if (id->state != VS_CM_DISCONNECTED || err != EINVAL)
			return vs__verb_error(call, "rdma_disconnect", err,
					      "cannot %s %s",
					      id->state == VS_CM_DISCONNECTED ?
					      "answer the disconnect of" :
					      "disconnect from", vs__cm_peer_or(id));
	}
	id->state = VS_CM_DISCONNECTED;
	return 0;
}
