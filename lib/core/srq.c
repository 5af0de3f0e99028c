/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues with a limit.
 */
#include "core.h"

int vs_srq_create(struct vs_pd *pd, const struct vs_srq_config *cfg,
		  struct vs_srq **out)
{
	static const struct vs_srq_config defaults;
	const struct ibv_device_attr *da;
	struct ibv_srq_init_attr ia;
	struct vs_srq *srq;
	int ret;

	ret = vs__out_clear(out, "vs_srq_create");
	if (ret)
		return ret;
	ret = vs__check_handle(pd, VS_KIND_PD, "vs_srq_create", "pd");
	if (ret)
		return ret;
	if (!cfg)
		cfg = &defaults;
	if (cfg->comp_mask)
		return vs__set_error("vs_srq_create", EINVAL,
				     "comp_mask 0x%llx is not 0",
				     (unsigned long long)cfg->comp_mask);
	da = &pd->ctx->attr.orig_attr;
	if (!da->max_srq)
		return vs__set_error("vs_srq_create", EOPNOTSUPP,
				     "%s has no shared receive queues (max_srq 0)",
				     pd->ctx->name);
	memset(&ia, 0, sizeof(ia));
	ia.attr.max_wr = cfg->max_wr ? cfg->max_wr : 256;
	ia.attr.max_sge = cfg->max_sge ? cfg->max_sge : 4;
	ia.attr.srq_limit = cfg->limit;
	if (cfg->limit >= ia.attr.max_wr)
		return vs__set_error("vs_srq_create", EINVAL,
				     "limit %u must be below max_wr %u",
				     cfg->limit, ia.attr.max_wr);
	if ((da->max_srq_wr > 0 && ia.attr.max_wr > (uint32_t)da->max_srq_wr) ||
	    (da->max_srq_sge > 0 && ia.attr.max_sge > (uint32_t)da->max_srq_sge))
		return vs__set_error("vs_srq_create", EINVAL,
				     "max_wr %u / max_sge %u exceed the device's "
				     "max_srq_wr %d / max_srq_sge %d",
				     ia.attr.max_wr, ia.attr.max_sge,
				     da->max_srq_wr, da->max_srq_sge);
	srq = vs__handle_alloc(sizeof(*srq));
	if (!srq)
		return vs__set_error("vs_srq_create", ENOMEM, "out of memory");
	ia.srq_context = srq; /* async events map back to the handle */
	errno = 0;
	srq->srq = ibv_create_srq(pd->pd, &ia);
	if (!srq->srq) {
		ret = vs__verb_error("vs_srq_create", "ibv_create_srq", vs__errno_or(EINVAL),
				    "cannot create an SRQ of %u x %u SGE on %s",
				    ia.attr.max_wr, ia.attr.max_sge, pd->ctx->name);
		vs__handle_unpublish(srq, sizeof(*srq));
		return ret;
	}
	srq->max_wr = ia.attr.max_wr;
	srq->max_sge = ia.attr.max_sge;
	if (vs__recv_store_init(&srq->recv, srq->max_wr, srq->max_sge)) {
		ibv_destroy_srq(srq->srq);
		vs__handle_unpublish(srq, sizeof(*srq));
		return vs__set_error("vs_srq_create", ENOMEM, "out of memory");
	}
	vs__handle_init(&srq->h, VS_KIND_SRQ);
	srq->pd = pd;
	vs__ref_get(&pd->h);
	*out = srq;
	return 0;
}

int vs_srq_set_limit(struct vs_srq *srq, uint32_t limit)
{
	struct ibv_srq_attr a;
	int ret = vs__check_handle(srq, VS_KIND_SRQ, "vs_srq_set_limit", "srq");

	if (ret)
		return ret;
	if (limit >= srq->max_wr)
		return vs__set_error("vs_srq_set_limit", EINVAL,
				     "limit %u must be below the SRQ's %u WRs",
				     limit, srq->max_wr);
	memset(&a, 0, sizeof(a));
	a.srq_limit = limit;
	ret = ibv_modify_srq(srq->srq, &a, IBV_SRQ_LIMIT);
	if (ret)
		return vs__verb_error("vs_srq_set_limit", "ibv_modify_srq", ret,
				     "cannot arm the SRQ limit at %u", limit);
	return 0;
}

int vs__srq_put(struct vs_srq *srq, const char *verb)
{
	struct vs_pd *pd;
	int err;

	if (!vs__ref_put(&srq->h))
		return 0;
	err = ibv_destroy_srq(srq->srq);
	if (err) {
		int ret;

		vs__handle_reopen(&srq->h, VS_KIND_SRQ);
		ret = vs__verb_error(verb, "ibv_destroy_srq", err,
				     "cannot destroy the SRQ; it stays open: "
				     "close it again to retry");
		vs__deferred_note(verb, "vs_srq_close", "SRQ");
		return ret;
	}
	vs__recv_store_free(&srq->recv);
	pd = srq->pd;
	vs__handle_free(srq, sizeof(*srq));
	return vs__pd_put(pd, verb);
}

int vs_srq_close(struct vs_srq *srq)
{
	int ret = vs__check_handle(srq, VS_KIND_SRQ, "vs_srq_close", "srq");

	if (ret)
		return ret;
	if (srq->recv.open)
		return vs__set_error("vs_srq_close", EBUSY,
				     "a receive batch is open on this SRQ: submit "
				     "or abort it first");
	ret = vs__user_close(srq, VS_KIND_SRQ, "vs_srq_close", "srq");
	return ret ? ret : vs__srq_put(srq, "vs_srq_close");
}

struct ibv_srq *vs_srq_raw(const struct vs_srq *srq)
{
	return srq && srq->h.magic == VS_KIND_SRQ ? srq->srq : NULL;
}
