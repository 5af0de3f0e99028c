/* SPDX-License-Identifier: MIT */
/*
 * The typed QP of a CM id: created by the typed API on the id's borrowed
 * context, kept by the id, brought up with rdma_init_qp_attr's masks
 * through the typed modify (and its diagnosis), or, on a librdmacm older
 * than 23 (the old_cm rows), by librdmacm itself and read back; UD
 * destinations from the CM's answer.
 */
#include "cm_internal.h"

/* What every QP create on an id checks; fills the port (and UD's Q_Key). */
static int qp_begin(struct vs_cm_id *id, struct vs_pd *pd, enum vs_transport t,
		    uint32_t *qkey, const char *call)
{
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (id->transport != t)
		return vs__set_error(call, EINVAL,
				     "the CM id is for %s, not %s QPs (its "
				     "transport comes from vs_cm_config.transport)",
				     vs_transport_name(id->transport),
				     vs_transport_name(t));
	if (id->qp)
		return vs__set_error(call, EINVAL,
				     "the CM id already has its QP (one per id)");
	if (id->state == VS_CM_LISTENING)
		return vs__set_error(call, EINVAL,
				     "the CM id is a listener: QPs go on the ids "
				     "of its requests (vs_cm_get_request)");
	if (id->state != VS_CM_RESOLVED && id->state != VS_CM_REQUEST &&
	    !(t == VS_TRANSPORT_UD && id->id->verbs &&
	      id->state == VS_CM_IDLE))
		return vs__set_error(call, EINVAL,
				     "the CM id is %s: a QP goes on an id that is "
				     "RESOLVED (client) or a REQUEST (server)",
				     vs_cm_state_name(id->state));
	ret = vs__check_handle(pd, VS_KIND_PD, call, "pd");
	if (ret)
		return ret;
	/* the PD's context handle when it is the id's device (one ioctl less) */
	if (!id->ctx && id->id->verbs && pd->ctx->ctx == id->id->verbs) {
		vs__ref_get(&pd->ctx->h);
		vs__cm_bound(id, pd->ctx);
	}
	ret = vs__cm_bind_ctx(id, call);
	if (ret)
		return ret;
	if (pd->ctx->ctx != id->id->verbs)
		return vs__set_error(call, EINVAL,
				     "pd is on device %s, the CM id on %s: create "
				     "the PD on vs_cm_context(id)", pd->ctx->name,
				     id->ctx->name);
	if (t == VS_TRANSPORT_UD && id->kind->old_cm) {
		/* no rdma_init_qp_attr: the kernel's Q_Key of the UDP port space */
		*qkey = RDMA_UDP_QKEY;
	} else if (t == VS_TRANSPORT_UD) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
		int mask = 0;

		errno = 0;
		if (rdma_init_qp_attr(id->id, &a, &mask))
			return vs__verb_error(call, "rdma_init_qp_attr",
					      vs__errno_or(EINVAL),
					      "cannot get the CM's INIT attributes "
					      "(Q_Key) of the UD id");
		*qkey = a.qkey;
	}
	return 0;
}

/* The create's failure, renamed for the call the program made. */
static int renamed(const char *call, int ret)
{
	const struct vs_error *e = vs_last_error();
	char msg[sizeof(e->message)];
	const char *verb = e->verb;

	snprintf(msg, sizeof(msg), "%s", e->message);
	return verb ? vs__verb_error(call, verb, -ret, "%s", msg)
		    : vs__set_error(call, -ret, "%s", msg);
}

/*
 * What the id's route says of the port (the path the CM brings the QP up
 * with): its MTU and source LID; mtu 0 when the id has no path (then the
 * create reads the port), except on iWARP, whose QPs have no path MTU.
 */
static void port_now(const struct vs_cm_id *id, bool gid_at_rtr,
		     struct vs__port_now *now)
{
	const struct rdma_route *r = &id->id->route;

	memset(now, 0, sizeof(*now));
	now->gid_at_rtr = gid_at_rtr;
	if (id->kind->iwarp) {
		now->no_path = true; /* no port query for an MTU it never uses */
		return;
	}
	if (r->num_paths < 1 || !r->path_rec ||
	    r->path_rec->mtu < IBV_MTU_256 || r->path_rec->mtu > IBV_MTU_4096)
		return;
	now->mtu = (enum ibv_mtu)r->path_rec->mtu;
	now->lid = ntohs(r->path_rec->slid);
}

static void qp_keep(struct vs_cm_id *id, struct vs_qp *qp)
{
	id->qp = qp;
	qp->cm_id_qp = true;
	vs__ref_get(&qp->h);
	/*
	 * librdmacm before 23 brings up the QP the id owns, as after
	 * rdma_create_qp (which is only this field set and the QP in INIT);
	 * the id's reference keeps it until the raw id is destroyed
	 */
	if (id->kind->old_cm && !id->kind->datagram && !id->kind->iwarp)
		id->id->qp = qp->qp;
}

int vs_cm_rc_qp_create(struct vs_cm_id *id, struct vs_pd *pd,
		       const struct vs_rc_config *cfg, struct vs_rc_qp **out)
{
	const char *call = "vs_cm_rc_qp_create";
	struct vs__port_now now;
	struct vs_rc_config c;
	struct vs_qp *qp;
	int ret;

	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	ret = qp_begin(id, pd, VS_TRANSPORT_RC, NULL, call);
	if (ret)
		return ret;
	if (!cfg)
		return vs__set_error(call, EINVAL,
				     "cfg is NULL (it names the CQs, at least send_cq)");
	c = *cfg;
	c.port = id->id->port_num;
	/*
	 * The source GID is the CM's, set at RTR (step): no auto-pick scan
	 * of the GID table and its netdevs here (about 15 system calls per
	 * QP, a third of a connection's; docs/bench-cm.md).
	 */
	port_now(id, !(c.comp_mask & VS_QP_CFG_GID_INDEX), &now);
	if (!(c.comp_mask & VS_QP_CFG_GID_INDEX)) {
		c.comp_mask |= VS_QP_CFG_GID_INDEX;
		c.gid_index = 0;
	}
	/* the CM's PSN replaces it at RTS: no random one drawn (getrandom) */
	if (!(c.comp_mask & VS_QP_CFG_PSN)) {
		c.comp_mask |= VS_QP_CFG_PSN;
		c.psn = 0;
	}
	/* and no port query: the route's MTU and LID (docs/bench-cm.md) */
	ret = vs__qp_create_now(pd, VS_TRANSPORT_RC, &c, &now, &qp);
	if (ret)
		return renamed(call, ret);
	qp_keep(id, qp);
	*out = (struct vs_rc_qp *)qp;
	return 0;
}

int vs_cm_ud_qp_create(struct vs_cm_id *id, struct vs_pd *pd,
		       const struct vs_ud_config *cfg, struct vs_ud_qp **out)
{
	const char *call = "vs_cm_ud_qp_create";
	struct vs__port_now now;
	struct vs_ud_config c;
	struct vs_qp *qp;
	uint32_t qkey = 0;
	int ret;

	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	ret = qp_begin(id, pd, VS_TRANSPORT_UD, &qkey, call);
	if (ret)
		return ret;
	if (!cfg)
		return vs__set_error(call, EINVAL,
				     "cfg is NULL (it names the CQs, at least send_cq)");
	c = *cfg;
	c.port = id->id->port_num;
	c.qkey = qkey;
	port_now(id, false, &now); /* UD: its AHs need its GID now */
	ret = vs__qp_create_now(pd, VS_TRANSPORT_UD, &c, &now, &qp);
	if (ret)
		return renamed(call, ret);
	qp_keep(id, qp);
	*out = (struct vs_ud_qp *)qp;
	return 0;
}

static uint8_t min3(uint8_t a, uint8_t b, uint8_t c)
{
	uint8_t m = a < b ? a : b;

	return m < c ? m : c;
}

static bool gid_zero(const union ibv_gid *g)
{
	static const union ibv_gid zero;

	return !memcmp(g, &zero, sizeof(zero)); /* not read yet (gid_at_rtr) */
}

/*
 * What the typed modify checks of the QP, once before UD's modifies
 * (vs__qp_modify_held then asks no more), its kind the row's: the user
 * may have closed it (the id's reference keeps it), a send batch may be
 * open on it.  RC's are checked by the calls that bring it up
 * (lib/cm/cm_connect.c, need_qp), before anything leaves.
 */
static int held(struct vs_cm_id *id, const char *call)
{
	int ret = vs__check_handle(id->qp, id->kind->qp_kind, call, "qp");

	if (ret)
		return ret;
	if (vs__qp_batch_open(id->qp))
		return vs__set_error(call, EBUSY,
				     "a send batch is open on this QP: submit or "
				     "abort it before changing the QP's state");
	return 0;
}

/* The CM's attributes and mask of an RC QP's step to `to`; -errno recorded. */
static int cm_attrs(struct vs_cm_id *id, enum ibv_qp_state to,
		    struct vs__qp_step *st, const char *call)
{
	const struct vs_qp *qp = id->qp;
	struct ibv_qp_attr *a = &st->attr;

	memset(a, 0, sizeof(*a));
	a->qp_state = to;
	st->mask = 0;
	errno = 0;
	if (rdma_init_qp_attr(id->id, a, &st->mask))
		return vs__verb_error(call, "rdma_init_qp_attr", vs__errno_or(EINVAL),
				      "cannot get the CM's %s attributes for the "
				      "QP toward %s", vs_qp_state_name(to),
				      vs__cm_peer_or(id));
	/*
	 * min_rnr_timer stays the CM's (0: 655 ms, as every librdmacm
	 * program gets); shorter ones are untested on rxe (docs/API.md,
	 * "RNR").  Post receives before the peer may send.
	 */
	if (to == IBV_QPS_RTR) {
		uint8_t offer = id->state == VS_CM_REQUEST ?
				id->req_initiator_depth : a->max_dest_rd_atomic;

		a->max_dest_rd_atomic = min3(a->max_dest_rd_atomic,
					     qp->max_dest_rd_atomic, offer);
	}
	if (to == IBV_QPS_RTS) {
		uint8_t offer = id->state == VS_CM_REQUEST ?
				id->req_responder_resources : a->max_rd_atomic;

		a->max_rd_atomic = min3(a->max_rd_atomic, qp->max_rd_atomic, offer);
	}
	return 0;
}

/* What a step the QP made sets in the typed QP. */
static void cm_took(struct vs_qp *qp, const struct vs__qp_step *st)
{
	const struct ibv_qp_attr *a = &st->attr;
	enum ibv_qp_state to = a->qp_state;
	int mask = st->mask;

	if (to == IBV_QPS_RTS && (mask & IBV_QP_SQ_PSN))
		qp->psn = a->sq_psn;
	if (to == IBV_QPS_RTR && (mask & IBV_QP_AV) && a->ah_attr.is_global &&
	    (a->ah_attr.grh.sgid_index != qp->gid_index || gid_zero(&qp->gid))) {
		union ibv_gid gid;

		/*
		 * the QP's source GID is the one the CM chose; one that cannot
		 * be read is recorded unknown (zero: vs_rc_endpoint then sets
		 * no VS_EP_GID_VALID), never the old index's GID under the
		 * new index.  The connection itself does not need it.
		 */
		if (ibv_query_gid(qp->pd->ctx->ctx, qp->port,
				  a->ah_attr.grh.sgid_index, &gid))
			memset(&gid, 0, sizeof(gid));
		qp->gid = gid;
		qp->gid_index = a->ah_attr.grh.sgid_index;
	}
	if (to == IBV_QPS_RTR && (mask & IBV_QP_MAX_DEST_RD_ATOMIC))
		qp->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (to == IBV_QPS_RTS && (mask & IBV_QP_MAX_QP_RD_ATOMIC))
		qp->max_rd_atomic = a->max_rd_atomic;
}

/*
 * The steps of an RC QP from its state through `last` with the CM's
 * attributes: all asked of the CM first (the attributes depend on the
 * CM id, not on the QP's state), then made in one pass of the typed
 * modify (lib/core/qp_modify.c), then recorded.  A step whose attributes
 * cannot be had ends the run there: the steps before it are made, as
 * one at a time would have made them, and the first failure in that
 * order is the one returned (and recorded).
 */
static int cm_steps(struct vs_cm_id *id, enum ibv_qp_state last,
		    const char *call)
{
	static const enum ibv_qp_state order[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS
	};
	struct vs__qp_step st[3];
	struct vs_qp *qp = id->qp;
	int n = 0, done = 0, ret = 0, mret;

	for (int i = qp->state == IBV_QPS_RESET ? 0 : 1; i < 3 && !ret; i++) {
		ret = cm_attrs(id, order[i], &st[n], call);
		if (!ret)
			n++;
		if (order[i] == last)
			break;
	}
	mret = vs__qp_modify_run(qp, call, st, n, &done);
	for (int i = 0; i < done; i++)
		cm_took(qp, &st[i]);
	return mret ? mret : ret;
}

/*
 * UD: the CM's attributes are INIT's only (port, P_Key, Q_Key: the QP was
 * created with them); RTR and RTS need nothing from it, as librdmacm's
 * own UD bring-up does.
 */
static int up_ud(struct vs_cm_id *id, const char *call)
{
	struct vs_qp *qp = id->qp;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int ret = 0;

	if (qp->state != IBV_QPS_INIT && qp->state != IBV_QPS_RTR)
		return 0;
	ret = held(id, call);
	if (!ret && qp->state == IBV_QPS_INIT)
		ret = vs__qp_modify_held(qp, call, &a, IBV_QP_STATE);
	if (!ret && qp->state == IBV_QPS_RTR) {
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = qp->psn;
		ret = vs__qp_modify_held(qp, call, &a,
					 IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	return ret;
}

/* RC on iWARP: INIT only; iw_cm moves it on when the connection is up */
static int up_iwarp(struct vs_cm_id *id, const char *call)
{
	return id->qp->state == IBV_QPS_RESET ?
	       cm_steps(id, IBV_QPS_INIT, call) : 0;
}

/* RC: to RTS (from RESET or INIT), the caller having checked the QP */
static int up_rc(struct vs_cm_id *id, const char *call)
{
	return cm_steps(id, IBV_QPS_RTS, call);
}

/* RC on librdmacm before 23: in INIT since its create; librdmacm takes it on (vs__cm_qp_synced) */
static int up_by_cm(struct vs_cm_id *id, const char *call)
{
	(void)id;
	(void)call;
	return 0;
}

/* The rows' up column (lib/cm/cm_internal.h), by row */
#define UP(KIND, qp_, qpk_, ps_, dg_, iwarp_, old_, rtu_, up_, ...)           \
	[VS__CM_KIND_##KIND] = up_,
static int (*const ups[])(struct vs_cm_id *id, const char *call) = {
	VS__CM_KINDS(UP)
};
#undef UP

int vs__cm_qp_up(struct vs_cm_id *id, const char *call)
{
	return ups[id->kind->index](id, call);
}

int vs__cm_qp_synced(struct vs_cm_id *id, const char *call)
{
	struct vs_qp *qp = id->qp;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = ibv_query_qp(qp->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_AV |
			   IBV_QP_MAX_QP_RD_ATOMIC |
			   IBV_QP_MAX_DEST_RD_ATOMIC, &init);
	if (ret)
		return vs__verb_error(call, "ibv_query_qp", ret,
				      "cannot read back the QP toward %s that "
				      "librdmacm brought up (%s)",
				      vs__cm_peer_or(id), vs__cm_old_why());
	vs__qp_set_state(qp, a.qp_state);
	if (a.qp_state != IBV_QPS_RTS)
		return vs__set_error(call, EPROTO,
				     "librdmacm left the QP toward %s in %s, "
				     "not RTS (it brings the QP up itself: %s)",
				     vs__cm_peer_or(id),
				     vs_qp_state_name(a.qp_state),
				     vs__cm_old_why());
	qp->psn = a.sq_psn;
	qp->max_rd_atomic = a.max_rd_atomic;
	qp->max_dest_rd_atomic = a.max_dest_rd_atomic;
	if (a.ah_attr.is_global) {
		union ibv_gid gid;

		/* the QP's source GID is the one the CM chose */
		if (!ibv_query_gid(qp->pd->ctx->ctx, qp->port,
				   a.ah_attr.grh.sgid_index, &gid))
			qp->gid = gid;
		qp->gid_index = a.ah_attr.grh.sgid_index;
	}
	return 0;
}

void vs__cm_qp_to_error(struct vs_cm_id *id)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	if (!id->qp || id->qp->state == IBV_QPS_ERR ||
	    id->qp->state == IBV_QPS_RESET)
		return;
	/* the QP's owner may have closed it: the id's reference keeps it */
	if (!ibv_modify_qp(id->qp->qp, &a, IBV_QP_STATE))
		vs__qp_set_state(id->qp, IBV_QPS_ERR);
}

int vs_cm_ud_dest(struct vs_cm_id *id, struct vs_ud_dest *dest)
{
	const char *call = "vs_cm_ud_dest";
	struct vs_ah *ah;
	struct ibv_ah_attr attr;
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (!dest)
		return vs__set_error(call, EINVAL, "dest is NULL");
	if (!id->kind->datagram || !id->qp)
		return vs__set_error(call, EINVAL,
				     "the CM id has no UD QP (vs_cm_ud_qp_create)");
	if (!id->have_ud)
		return vs__set_error(call, EINVAL,
				     "the CM has not answered yet: a UD destination "
				     "comes with the connect's answer (client) or "
				     "a multicast join (the server learns its "
				     "clients from their messages)");
	attr = id->ud_ah;
	ah = vs__handle_alloc(sizeof(*ah));
	if (!ah)
		return vs__set_error(call, ENOMEM, "out of memory");
	errno = 0;
	ah->ah = ibv_create_ah(id->qp->pd->pd, &attr);
	if (!ah->ah) {
		ret = vs__verb_error(call, "ibv_create_ah", vs__errno_or(EINVAL),
				     "cannot create the address handle the CM "
				     "resolved toward %s", vs__cm_peer_or(id));
		vs__handle_unpublish(ah, sizeof(*ah));
		return ret;
	}
	vs__handle_init(&ah->h, VS_KIND_AH);
	ah->pd = id->qp->pd;
	vs__ref_get(&ah->pd->h);
	dest->ah = ah;
	dest->remote_qpn = id->ud_qpn;
	dest->remote_qkey = id->ud_qkey;
	return 0;
}
