/* SPDX-License-Identifier: MIT */
/*
 * Queue pair creation and teardown for the typed transports (a transport's
 * own create hook, SRD's in lib/transport/qp_srd.c, replaces ibv_create_qp_ex).
 */
#include <sys/random.h>

#include "core.h"

#define VS_QP_DEFAULT_WR 128
#define VS_QP_DEFAULT_SGE 4
#define VS_QP_DEFAULT_INLINE 64

static uint32_t random_psn(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint32_t)rand();
	return v & 0xffffff;
}

/*
 * iWARP has reliable connected QPs only, and the CM (iw_cm) connects them
 * and moves them to RTS itself: there is no address to exchange and no
 * RTR/RTS for the caller.  Refused at create, not at the handshake, so the
 * user learns it before building anything on the QP.
 */
static int iwarp_refuses(const struct vs_context *c, const struct vs__transport *tr,
			 const struct vs__port_now *now, const char *verb)
{
	if (tr->create_qp)
		return 0; /* a provider's own transport (SRD): its hook says no */
	if (tr->t != VS_TRANSPORT_RC)
		return vs__set_error(verb, EOPNOTSUPP,
				     "%s is an iWARP device: it has no %s QPs "
				     "(iWARP connects RC QPs only, through the "
				     "connection manager: vs_cm_rc_qp_create)",
				     c->name, tr->name);
	return now ? 0 : vs__iwarp_cm_only(c, verb);
}

/*
 * The send operations a QP is made with: its transport's, less the
 * atomics of a device that has none (atomic_cap NONE: siw), so adding
 * one is refused naming the device (vs__batch_add_failed).
 */
static uint64_t send_ops(const struct vs_pd *pd, const struct vs__transport *tr)
{
	uint64_t ops = tr->ops;

	if (pd->ctx->attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		ops &= ~(uint64_t)(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	return ops;
}

/*
 * Validates the config and fills the QP's fixed fields.  now (a CM id's
 * route) spares the port query, once the context knows the port's fixed
 * fields, and (gid_at_rtr) the GID read.
 */
static int prepare(struct vs_pd *pd, const struct vs__transport *tr,
		   struct vs__qp_params *p, struct vs_qp *qp,
		   const struct vs__port_now *now, const char *verb)
{
	const struct ibv_device_attr *da = &pd->ctx->attr.orig_attr;
	const uint64_t known = tr->cfg;
	struct vs_port_info pi;
	enum vs__link_row link_row;
	const struct vs__link *link;
	int ret;

	if (p->comp_mask & ~known)
		return vs__set_error(verb, EINVAL,
				     "comp_mask 0x%llx has bits unknown for %s %s QP",
				     (unsigned long long)p->comp_mask,
				     vs__article(tr->name), tr->name);
	ret = vs__check_handle(p->send_cq, VS_KIND_CQ, verb, "send_cq");
	if (ret)
		return ret;
	if (!p->recv_cq)
		p->recv_cq = p->send_cq;
	ret = vs__check_handle(p->recv_cq, VS_KIND_CQ, verb, "recv_cq");
	if (ret)
		return ret;
	/*
	 * By device, not by handle: ids of the CM each borrow their own
	 * handle of librdmacm's one context per device.
	 */
	if (p->send_cq->ctx->ctx != pd->ctx->ctx ||
	    p->recv_cq->ctx->ctx != pd->ctx->ctx)
		return vs__set_error(verb, EINVAL,
				     "the CQs and the PD belong to different "
				     "devices (send_cq on %s, recv_cq on %s, pd "
				     "on %s)", p->send_cq->ctx->name,
				     p->recv_cq->ctx->name, pd->ctx->name);
	if (p->srq) {
		ret = vs__check_handle(p->srq, VS_KIND_SRQ, verb, "srq");
		if (ret)
			return ret;
		if (p->srq->pd->ctx->ctx != pd->ctx->ctx)
			return vs__set_error(verb, EINVAL,
					     "the SRQ belongs to another device "
					     "(srq on %s, pd on %s)",
					     p->srq->pd->ctx->name, pd->ctx->name);
	}
	p->asked = p->caps;
	if (!p->caps.max_send_wr)
		p->caps.max_send_wr = VS_QP_DEFAULT_WR;
	if (!p->caps.max_recv_wr)
		p->caps.max_recv_wr = VS_QP_DEFAULT_WR;
	if (!p->caps.max_send_sge)
		p->caps.max_send_sge = VS_QP_DEFAULT_SGE;
	if (!p->caps.max_recv_sge)
		p->caps.max_recv_sge = VS_QP_DEFAULT_SGE;
	if (!p->caps.max_inline_data)
		p->caps.max_inline_data = VS_QP_DEFAULT_INLINE;
	if (da->max_qp_wr > 0 &&
	    (p->caps.max_send_wr > (uint32_t)da->max_qp_wr ||
	     p->caps.max_recv_wr > (uint32_t)da->max_qp_wr))
		return vs__set_error(verb, EINVAL,
				     "max_send_wr %u / max_recv_wr %u exceed the "
				     "device's max_qp_wr %d", p->caps.max_send_wr,
				     p->caps.max_recv_wr, da->max_qp_wr);
	if (da->max_sge > 0 &&
	    (p->caps.max_send_sge > (uint32_t)da->max_sge ||
	     p->caps.max_recv_sge > (uint32_t)da->max_sge))
		return vs__set_error(verb, EINVAL,
				     "max_send_sge %u / max_recv_sge %u exceed the "
				     "device's max_sge %d", p->caps.max_send_sge,
				     p->caps.max_recv_sge, da->max_sge);
	if (!p->port)
		p->port = 1;
	if (now && (now->mtu || now->no_path) && vs__port_fixed(pd->ctx, p->port, &pi)) {
		/* the route's: what the CM brings the QP up with */
		link_row = vs__link_of(pd->ctx, pi.link_layer);
		link = vs__link(link_row);
		pi.active_mtu = now->mtu;
		pi.lid = link->ethernet ? 0 : now->lid;
	} else {
		ret = vs__port_info(pd->ctx, p->port, &pi, verb);
		if (ret)
			return ret;
		link_row = vs__link_of(pd->ctx, pi.link_layer);
		link = vs__link(link_row);
	}
	if (link->cm_only) {
		ret = iwarp_refuses(pd->ctx, tr, now, verb);
		if (ret)
			return ret;
	}
	if (p->comp_mask & VS_QP_CFG_PSN) {
		if (p->psn > 0xffffff)
			return vs__set_error(verb, EINVAL,
					     "psn 0x%x does not fit 24 bits", p->psn);
	} else {
		p->psn = random_psn();
	}
	qp->port = p->port;
	qp->link_row = (uint8_t)link_row;
	qp->lid = pi.lid;
	qp->mtu = p->mtu && p->mtu < pi.active_mtu ? p->mtu : pi.active_mtu;
	if (p->mtu && (p->mtu < IBV_MTU_256 || p->mtu > IBV_MTU_4096))
		return vs__set_error(verb, EINVAL, "mtu %d is not an enum ibv_mtu",
				     (int)p->mtu);
	if (p->comp_mask & VS_QP_CFG_GID_INDEX) {
		if (p->gid_index >= (uint32_t)pi.gid_tbl_len)
			return vs__set_error(verb, EINVAL,
					     "gid_index %u is beyond the port's "
					     "GID table (%d entries)", p->gid_index,
					     pi.gid_tbl_len);
		/* gid_at_rtr: zero until the CM's RTR names the source GID */
		ret = now && now->gid_at_rtr &&
		      link->ethernet ? 0 :
		      ibv_query_gid(pd->ctx->ctx, p->port, (int)p->gid_index, &qp->gid);
		if (ret)
			return vs__verb_error(verb, "ibv_query_gid", vs__errno_or(EINVAL),
					     "cannot read GID %u of port %u",
					     p->gid_index, p->port);
		qp->gid_index = p->gid_index;
	} else if (!link->cm_only) { /* iWARP: no GID to pick */
		struct vs_gid_info g;

		ret = vs__gid_pick(pd->ctx, p->port, &g, verb);
		if (ret && (link->ethernet || tr->by_gid))
			return ret;
		if (!ret) {
			qp->gid_index = g.index;
			qp->gid = g.gid;
		}
	}
	qp->psn = p->psn;
	qp->transport = tr->t;
	if (tr->datagram) {
		qp->qkey = p->qkey ? p->qkey : VS_DEFAULT_QKEY;
	} else {
		if (!p->access)
			p->access = tr->access_default;
		if (p->access & ~tr->access)
			return vs__set_error(verb, EINVAL,
					     "access 0x%x has bits %s %s QP cannot "
					     "grant (allowed: 0x%x)", p->access,
					     vs__article(tr->name), tr->name,
					     tr->access);
		qp->access = p->access;
	}
	if (tr->reliable) {
		uint8_t dev_rd = (uint8_t)(da->max_qp_rd_atom > 16 ? 16 : da->max_qp_rd_atom);
		uint8_t dev_dest = (uint8_t)(da->max_qp_init_rd_atom > 16 ? 16 :
					     da->max_qp_init_rd_atom);
		bool literal = p->comp_mask & VS_QP_CFG_RETRY;

		if (!dev_dest)
			dev_dest = dev_rd;
		qp->timeout = literal || p->timeout ? p->timeout : 14;
		qp->retry_cnt = literal || p->retry_cnt ? p->retry_cnt : 7;
		qp->rnr_retry = literal || p->rnr_retry ? p->rnr_retry : 7;
		qp->min_rnr_timer = p->min_rnr_timer ? p->min_rnr_timer : 12;
		qp->max_rd_atomic = p->max_rd_atomic ? p->max_rd_atomic : dev_dest;
		qp->max_dest_rd_atomic = p->max_dest_rd_atomic ?
					 p->max_dest_rd_atomic : dev_rd;
		if (qp->timeout > 31 || qp->retry_cnt > 7 || qp->rnr_retry > 7 ||
		    qp->min_rnr_timer > 31)
			return vs__set_error(verb, EINVAL,
					     "timeout %u (0..31), retry_cnt %u (0..7), "
					     "rnr_retry %u (0..7) or min_rnr_timer %u "
					     "(0..31) out of range", qp->timeout,
					     qp->retry_cnt, qp->rnr_retry,
					     qp->min_rnr_timer);
	}
	return 0;
}

static int create_raw(struct vs_pd *pd, const struct vs__transport *tr,
		      struct vs__qp_params *p, struct vs_qp *qp, const char *verb)
{
	enum ibv_qp_type type = tr->qpt;
	struct ibv_qp_cap cap = {
		.max_send_wr = p->caps.max_send_wr,
		.max_recv_wr = p->caps.max_recv_wr,
		.max_send_sge = p->caps.max_send_sge,
		.max_recv_sge = p->caps.max_recv_sge,
		.max_inline_data = p->caps.max_inline_data,
	};
	int err;

	if (tr->create_qp || (!p->legacy && !vs_force_legacy())) {
		struct ibv_qp_init_attr_ex ia = {
			.qp_context = qp, /* async events map back to the handle */
			.send_cq = p->send_cq->cq,
			.recv_cq = p->recv_cq->cq,
			.srq = p->srq ? p->srq->srq : NULL,
			.cap = cap,
			.qp_type = type,
			.sq_sig_all = p->sq_sig_all,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd->pd,
			.send_ops_flags = send_ops(pd, tr),
		};

		if (tr->create_qp) {
			/* the hook's own verb: no legacy fallback */
			err = tr->create_qp(pd, p, &ia, qp, verb);
			if (err)
				return err;
			qp->send_ops = ia.send_ops_flags;
			cap = ia.cap;
			goto created;
		}
		errno = 0;
		qp->qp = ibv_create_qp_ex(pd->ctx->ctx, &ia);
		if (qp->qp) {
			qp->send_ops = ia.send_ops_flags;
			qp->qpx = ibv_qp_to_qp_ex(qp->qp);
			if (!qp->qpx) {
				/* created, but no ibv_wr_* table: post legacy */
			}
			cap = ia.cap;
			goto created;
		}
		err = vs__errno_or(EOPNOTSUPP);
		if (err != EOPNOTSUPP && err != ENOSYS && err != EINVAL)
			return vs__verb_error(verb, "ibv_create_qp_ex", err,
					     "cannot create %s %s QP (send %u x %u "
					     "SGE, recv %u x %u SGE, inline %u)",
					     vs__article(tr->name), tr->name, cap.max_send_wr,
					     cap.max_send_sge, cap.max_recv_wr,
					     cap.max_recv_sge, cap.max_inline_data);
		/* No extended QPs for this (provider, transport): legacy. */
	}
	{
		struct ibv_qp_init_attr ia = {
			.qp_context = qp,
			.send_cq = p->send_cq->cq,
			.recv_cq = p->recv_cq->cq,
			.srq = p->srq ? p->srq->srq : NULL,
			.cap = cap,
			.qp_type = type,
			.sq_sig_all = p->sq_sig_all,
		};

		errno = 0;
		qp->qp = ibv_create_qp(pd->pd, &ia);
		if (!qp->qp)
			return vs__verb_error(verb, "ibv_create_qp", vs__errno_or(EINVAL),
					     "cannot create %s %s QP (send %u x %u "
					     "SGE, recv %u x %u SGE, inline %u: lower "
					     "them if the device cannot)",
					     vs__article(tr->name), tr->name, cap.max_send_wr,
					     cap.max_send_sge, cap.max_recv_wr,
					     cap.max_recv_sge, cap.max_inline_data);
		cap = ia.cap;
		qp->send_ops = send_ops(pd, tr);
	}
created:
	qp->caps.max_send_wr = cap.max_send_wr;
	qp->caps.max_recv_wr = cap.max_recv_wr;
	qp->caps.max_send_sge = cap.max_send_sge;
	qp->caps.max_recv_sge = cap.max_recv_sge;
	/* Providers may round up; never promise less than what was asked. */
	qp->caps.max_inline_data = cap.max_inline_data;
	return 0;
}

int vs__qp_init_attr(const struct vs_qp *qp, struct ibv_qp_attr *a)
{
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_INIT;
	a->pkey_index = 0;
	a->port_num = qp->port;
	if (vs__transport(qp->transport)->datagram) {
		a->qkey = qp->qkey;
		mask |= IBV_QP_QKEY;
	} else {
		a->qp_access_flags = qp->access;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return mask;
}

static int to_init(struct vs_qp *qp, const char *verb)
{
	struct ibv_qp_attr a;
	int mask = vs__qp_init_attr(qp, &a);
	int ret = ibv_modify_qp(qp->qp, &a, mask);

	if (ret)
		return vs__verb_error(verb, "ibv_modify_qp", ret,
				     "RESET->INIT of the new %s QP failed", vs_transport_name(qp->transport));
	vs__qp_set_state(qp, IBV_QPS_INIT);
	return 0;
}


/* the ring itself comes with the first batch start (lib/core/bounce.c) */
static void bounce_plan(struct vs_qp *qp)
{
	qp->bounce_slot_size = qp->caps.max_inline_data > 4096 ?
			       qp->caps.max_inline_data : 4096;
}

/* What the QP owns besides the ibv_qp; the handle's bytes stay. */
static void free_qp_parts(struct vs_qp *qp)
{
	/* at create: the ring is made at the first batch start, never yet */
	(void)vs__bounce_free(qp, "vs__qp_create");
	vs__legacy_sq_free(qp->legacy);
	vs__recv_store_free(&qp->recv);
	qp->legacy = NULL;
	qp->post_ops = NULL;
}

int vs__qp_create(struct vs_pd *pd, enum vs_transport t, const void *cfg,
		  struct vs_qp **out)
{
	return vs__qp_create_now(pd, t, cfg, NULL, out);
}

int vs__qp_create_now(struct vs_pd *pd, enum vs_transport t, const void *cfg,
		      const struct vs__port_now *now, struct vs_qp **out)
{
	const struct vs__transport *tr = vs__transport(t);
	const char *verb = tr ? tr->create : "vs__qp_create";
	struct vs__qp_params p;
	struct vs_qp *qp;
	int ret;

	if (!tr)
		return vs__set_error(verb, EINVAL, "transport %d is not RC, UC, UD "
				     "or SRD", (int)t);
	ret = vs__out_clear(out, verb);
	if (ret)
		return ret;
	ret = vs__check_handle(pd, VS_KIND_PD, verb, "pd");
	if (ret)
		return ret;
	if (!cfg)
		return vs__set_error(verb, EINVAL,
				     "cfg is NULL (it names the CQs, at least send_cq)");
	memset(&p, 0, sizeof(p));
	tr->flatten(cfg, &p);
	qp = vs__handle_alloc(sizeof(*qp));
	if (!qp)
		return vs__set_error(verb, ENOMEM, "out of memory");
	ret = prepare(pd, tr, &p, qp, now, verb);
	if (ret)
		goto fail;
	ret = create_raw(pd, tr, &p, qp, verb);
	if (ret)
		goto fail;
	qp->max_batch = p.max_batch ? p.max_batch : qp->caps.max_send_wr;
	if (qp->max_batch > qp->caps.max_send_wr) {
		ret = vs__set_error(verb, EINVAL,
				    "max_batch %u exceeds the send queue (%u WRs)",
				    qp->max_batch, qp->caps.max_send_wr);
		goto fail_qp;
	}
	/* the send inlines assume both (VS_ASSUME in vs__batch_start) */
	if (!qp->max_batch || !qp->caps.max_send_sge) {
		ret = vs__set_error(verb, EINVAL,
				    "the QP got room for %u WRs of %u SGEs per "
				    "batch; sends need at least one of one",
				    qp->max_batch, qp->caps.max_send_sge);
		goto fail_qp;
	}
	if (qp->qpx) {
		qp->post_ops = qp->qpx;
	} else {
		qp->legacy = vs__legacy_sq_create(qp->qp, qp->max_batch,
						  qp->caps.max_send_sge);
		if (!qp->legacy) {
			ret = vs__set_error(verb, ENOMEM, "out of memory");
			goto fail_qp;
		}
		qp->post_ops = vs__legacy_sq_ops(qp->legacy);
	}
	/* lib/core/quirks.c: providers whose ibv_wr_set_* need the bounce ring */
	if (qp->qpx && pd->ctx->bounce_sge)
		bounce_plan(qp);
	if (!p.srq && vs__recv_store_init(&qp->recv, qp->caps.max_recv_wr,
					  qp->caps.max_recv_sge)) {
		ret = vs__set_error(verb, ENOMEM, "out of memory");
		goto fail_qp;
	}
	ret = to_init(qp, verb);
	if (ret)
		goto fail_qp;
	vs__handle_init(&qp->h, tr->kind);
	qp->pd = pd;
	qp->send_cq = p.send_cq;
	qp->recv_cq = p.recv_cq;
	qp->srq = p.srq;
	vs__ref_get(&pd->h);
	vs__ref_get(&p.send_cq->h);
	vs__ref_get(&p.recv_cq->h);
	if (p.srq)
		vs__ref_get(&p.srq->h);
	*out = qp;
	return 0;
fail_qp:
	ibv_destroy_qp(qp->qp);
fail:
	free_qp_parts(qp);
	vs__handle_unpublish(qp, sizeof(*qp));
	return ret;
}

/* A QP whose teardown stopped after its destroy (its close again finishes). */
static bool teardown_left(struct vs_qp *qp, uint32_t kind)
{
	bool yes = true;

	return qp && __atomic_load_n(&qp->h.magic, __ATOMIC_ACQUIRE) ==
		     (kind | VS__CLOSED) &&
	       __atomic_compare_exchange_n(&qp->teardown_left, &yes, false,
					   false, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

static int qp_finish(struct vs_qp *qp, uint32_t kind, const char *verb);

int vs__qp_close(struct vs_qp *qp, uint32_t kind, const char *verb)
{
	int ret;

	if (teardown_left(qp, kind))
		return qp_finish(qp, kind, verb);
	ret = vs__check_handle(qp, kind, verb, "qp");
	if (ret)
		return ret;
	/* the caller's batch points into the QP: it must end first */
	if (vs__qp_batch_open(qp))
		return vs__set_error(verb, EBUSY,
				     "a send batch is open on this QP: submit or "
				     "abort it first");
	if (qp->recv.open)
		return vs__set_error(verb, EBUSY,
				     "a receive batch is open on this QP: submit "
				     "or abort it first");
	ret = vs__user_close(qp, kind, verb, "qp");
	return ret ? ret : vs__qp_put(qp, verb);
}

/*
 * After the QP's destroy: its bounce ring, its parts, its references.
 * The ring's MR failing to deregister stops here, before anything that
 * needs it gone (the PD would refuse with EBUSY and the cause be lost):
 * the QP stays closed, holding the rest, and its close again resumes
 * here.  The puts after that go on past a failure, each object that
 * stays saying so; the first failure is the one returned and recorded.
 */
static int qp_finish(struct vs_qp *qp, uint32_t kind, const char *verb)
{
	struct vs__first first = { 0 };
	struct vs_cq *send_cq, *recv_cq;
	struct vs_srq *srq;
	struct vs_pd *pd;
	int ret = vs__bounce_free(qp, verb);

	if (ret) {
		__atomic_store_n(&qp->h.gate, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&qp->h.magic, kind | VS__CLOSED, __ATOMIC_RELEASE);
		__atomic_store_n(&qp->teardown_left, true, __ATOMIC_RELEASE);
		return ret;
	}
	free_qp_parts(qp);
	send_cq = qp->send_cq;
	recv_cq = qp->recv_cq;
	srq = qp->srq;
	pd = qp->pd;
	vs__handle_free(qp, sizeof(*qp));
	vs__first_keep(&first, vs__cq_put(send_cq, verb));
	vs__first_keep(&first, vs__cq_put(recv_cq, verb));
	if (srq)
		vs__first_keep(&first, vs__srq_put(srq, verb));
	vs__first_keep(&first, vs__pd_put(pd, verb));
	return vs__first_end(&first);
}

/* Drops one reference (the user's, or a CM id's); destroys with the last. */
int vs__qp_put(struct vs_qp *qp, const char *verb)
{
	uint32_t kind = vs__transport(qp->transport)->kind;
	int err;

	if (!vs__ref_put(&qp->h))
		return 0;
	err = ibv_destroy_qp(qp->qp);
	if (err) {
		vs__handle_reopen(&qp->h, kind);
		vs__qp_set_state(qp, qp->state); /* reopens the send gate */
		return vs__verb_error(verb, "ibv_destroy_qp", err,
				     "cannot destroy the %s QP %u; it stays "
				     "open: close it again to retry",
				     vs_transport_name(qp->transport),
				     qp->qp->qp_num);
	}
	return qp_finish(qp, kind, verb);
}
