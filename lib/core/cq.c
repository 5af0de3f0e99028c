/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: extended where the provider has them, legacy
 * otherwise (or when asked), one API.
 */
#include "core.h"

#define VS_CQ_DEFAULT_DEPTH 256

int vs_cq_create(struct vs_context *c, const struct vs_cq_config *cfg,
		 struct vs_cq **out)
{
	static const struct vs_cq_config defaults;
	struct vs_cq *cq;
	bool legacy;
	uint32_t depth;
	int ret;

	ret = vs__out_clear(out, "vs_cq_create");
	if (ret)
		return ret;
	ret = vs__check_handle(c, VS_KIND_CONTEXT, "vs_cq_create", "ctx");
	if (ret)
		return ret;
	if (!cfg)
		cfg = &defaults;
	if (cfg->comp_mask)
		return vs__set_error("vs_cq_create", EINVAL,
				     "comp_mask 0x%llx has bits this version does "
				     "not know", (unsigned long long)cfg->comp_mask);
	depth = cfg->depth ? cfg->depth : VS_CQ_DEFAULT_DEPTH;
	if (c->attr.orig_attr.max_cqe > 0 &&
	    depth > (uint32_t)c->attr.orig_attr.max_cqe)
		return vs__set_error("vs_cq_create", EINVAL,
				     "depth %u exceeds the device's max_cqe %d",
				     depth, c->attr.orig_attr.max_cqe);
	if (cfg->channel) {
		ret = vs__check_handle(cfg->channel, VS_KIND_CHANNEL,
				       "vs_cq_create", "cfg->channel");
		if (ret)
			return ret;
		if (cfg->channel->ctx->ctx != c->ctx) /* the device's, as qp.c */
			return vs__set_error("vs_cq_create", EINVAL,
					     "cfg->channel belongs to another "
					     "device context");
	}
	legacy = cfg->legacy || vs_force_legacy();
	if (legacy && cfg->timestamps)
		return vs__set_error("vs_cq_create", EOPNOTSUPP,
				     "completion timestamps need an extended CQ, "
				     "and a legacy CQ was asked for");
	cq = vs__handle_alloc(sizeof(*cq));
	if (!cq)
		return vs__set_error("vs_cq_create", ENOMEM, "out of memory");
	if (!legacy) {
		struct ibv_cq_init_attr_ex ia;

		memset(&ia, 0, sizeof(ia));
		ia.cqe = depth;
		ia.channel = cfg->channel ? cfg->channel->ch : NULL;
		ia.cq_context = cq; /* events map back to the handle */
		ia.comp_vector = (uint32_t)cfg->comp_vector;
		ia.wc_flags = IBV_WC_STANDARD_FLAGS;
		if (cfg->timestamps)
			ia.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		errno = 0;
		cq->cqx = ibv_create_cq_ex(c->ctx, &ia);
		if (cq->cqx) {
			cq->cq = ibv_cq_ex_to_cq(cq->cqx);
			cq->read_flags = ia.wc_flags;
			cq->clock_khz = c->attr.hca_core_clock;
			cq->one_per_start = vs__quirks(c)->cq_one_per_start;
		} else {
			int err = vs__errno_or(EOPNOTSUPP);

			if (cfg->timestamps) {
				/*
				 * ENOSYS: the provider has no extended CQs at
				 * all (rxe before rdma-core 2x): not supported
				 * either, said as such
				 */
				bool none = err == ENOSYS;

				vs__handle_unpublish(cq, sizeof(*cq));
				return vs__verb_error("vs_cq_create", "ibv_create_cq_ex",
						     none ? EOPNOTSUPP : err,
						     "%s cannot create a CQ with "
						     "completion timestamps%s",
						     c->name, none ?
						     " (the provider does not support "
						     "them: it has no extended CQs, "
						     "ibv_create_cq_ex ENOSYS)" :
						     err == EOPNOTSUPP ?
						     " (the provider does not support them)" : "");
			}
			if (err != EOPNOTSUPP && err != ENOSYS) {
				vs__handle_unpublish(cq, sizeof(*cq));
				return vs__verb_error("vs_cq_create", "ibv_create_cq_ex", err,
						     "cannot create a CQ of depth %u on %s",
						     depth, c->name);
			}
			/* No extended CQs here: fall back to legacy. */
		}
	}
	if (!cq->cqx) {
		errno = 0;
		cq->cq = ibv_create_cq(c->ctx, (int)depth, cq,
				       cfg->channel ? cfg->channel->ch : NULL,
				       cfg->comp_vector);
		if (!cq->cq) {
			ret = vs__verb_error("vs_cq_create", "ibv_create_cq", vs__errno_or(ENOMEM),
					    "cannot create a CQ of depth %u on %s",
					    depth, c->name);
			vs__handle_unpublish(cq, sizeof(*cq));
			return ret;
		}
		cq->legacy = vs__legacy_cq_create(cq->cq);
		if (!cq->legacy) {
			ibv_destroy_cq(cq->cq);
			vs__handle_unpublish(cq, sizeof(*cq));
			return vs__set_error("vs_cq_create", ENOMEM, "out of memory");
		}
		cq->poll_ops = vs__legacy_cq_ops(cq->legacy);
	} else {
		cq->poll_ops = cq->cqx;
	}
	vs__handle_init(&cq->h, VS_KIND_CQ);
	cq->ctx = c;
	cq->depth = depth;
	cq->user_context = cfg->user_context;
	cq->solicited_only = cfg->solicited_only;
	if (cfg->channel) {
		ret = vs__channel_attach(cfg->channel, cq, "vs_cq_create");
		if (ret) {
			ibv_destroy_cq(cq->cq);
			vs__legacy_cq_free(cq->legacy);
			vs__handle_unpublish(cq, sizeof(*cq));
			return ret;
		}
	}
	vs__ref_get(&c->h);
	*out = cq;
	return 0;
}

int vs__cq_put(struct vs_cq *cq, const char *verb)
{
	return vs__ref_put(&cq->h) ? vs__cq_destroy(cq, verb) : 0;
}

int vs__cq_destroy(struct vs_cq *cq, const char *verb)
{
	struct vs__first first = { 0 };
	struct vs_channel *ch;
	struct vs_context *ctx;
	int err;

	/* on a channel: its outstanding events are acked first, never a hang */
	err = cq->channel ? vs__channel_cq_destroy(cq) : ibv_destroy_cq(cq->cq);
	if (err) {
		int ret;

		vs__handle_reopen(&cq->h, VS_KIND_CQ);
		ret = vs__verb_error(verb, "ibv_destroy_cq", err,
				     "cannot destroy the CQ (a QP created "
				     "through the raw handle still uses it?); the "
				     "CQ stays open: close it again to retry");
		vs__deferred_note(verb, "vs_cq_close", "CQ");
		return ret;
	}
	vs__legacy_cq_free(cq->legacy);
	cq->legacy = NULL;
	vs__cq_stash_free(cq->stash);
	cq->stash = NULL;
	ch = cq->channel;
	ctx = cq->ctx;
	vs__handle_free(cq, sizeof(*cq));
	if (ch)
		vs__first_keep(&first, vs__channel_put(ch, verb));
	vs__first_keep(&first, vs__context_put(ctx, verb));
	return vs__first_end(&first);
}

int vs_cq_close(struct vs_cq *cq)
{
	int ret = vs__check_handle(cq, VS_KIND_CQ, "vs_cq_close", "cq");

	if (ret)
		return ret;
	/* an iteration holds the CQ: it must end first */
	if (__atomic_load_n(&cq->h.gate, __ATOMIC_RELAXED))
		return vs__set_error("vs_cq_close", EBUSY,
				     "an iteration is open on this CQ: end it "
				     "first (vs_cq_iter_end)");
	ret = vs__user_close(cq, VS_KIND_CQ, "vs_cq_close", "cq");

	return ret ? ret : vs__cq_put(cq, "vs_cq_close");
}

struct ibv_cq *vs_cq_raw(const struct vs_cq *cq)
{
	return cq && cq->h.magic == VS_KIND_CQ ? cq->cq : NULL;
}

struct ibv_cq_ex *vs_cq_raw_ex(const struct vs_cq *cq)
{
	return cq && cq->h.magic == VS_KIND_CQ ? cq->cqx : NULL;
}

int vs__cq_bad(const struct vs_cq *cq, const char *out_name, const char *verb)
{
	int ret = vs__check_handle(cq, VS_KIND_CQ, verb, "cq");

	return ret ? ret : vs__set_error(verb, EINVAL, "%s is NULL", out_name);
}

int vs__cq_iter_null(const char *verb)
{
	return vs__set_error(verb, EINVAL, "it is NULL");
}

/* The idle iterator's ops (cq.h): nothing to poll, nothing held, zeros. */
static int idle_start(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	(void)cq;
	(void)attr;
	return ENOENT;
}

static int idle_next(struct ibv_cq_ex *cq)
{
	(void)cq;
	return ENOENT;
}

static void idle_end(struct ibv_cq_ex *cq)
{
	(void)cq;
}

static enum ibv_wc_opcode idle_opcode(struct ibv_cq_ex *cq)
{
	(void)cq;
	return IBV_WC_SEND;
}

static uint32_t idle_u32(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

static __be32 idle_be32(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

static unsigned int idle_uint(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

static uint8_t idle_u8(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

static uint64_t idle_u64(struct ibv_cq_ex *cq)
{
	(void)cq;
	return 0;
}

const struct ibv_cq_ex vs__cq_idle_ops = {
	.status = IBV_WC_SUCCESS,
	.start_poll = idle_start,
	.next_poll = idle_next,
	.end_poll = idle_end,
	.read_opcode = idle_opcode,
	.read_vendor_err = idle_u32,
	.read_byte_len = idle_u32,
	.read_imm_data = idle_be32,
	.read_qp_num = idle_u32,
	.read_src_qp = idle_u32,
	.read_wc_flags = idle_uint,
	.read_slid = idle_u32,
	.read_sl = idle_u8,
	.read_dlid_path_bits = idle_u8,
	.read_completion_ts = idle_u64,
	.read_completion_wallclock_ns = idle_u64,
};

struct vs_cq vs__cq_idle = {
	.poll_ops = (struct ibv_cq_ex *)&vs__cq_idle_ops,
};
