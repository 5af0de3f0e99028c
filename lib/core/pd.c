/* SPDX-License-Identifier: MIT */
/*
 * Protection domains.
 */
#include "core.h"

int vs_pd_alloc(struct vs_context *c, struct vs_pd **out)
{
	struct vs_pd *pd;
	int ret;

	ret = vs__out_clear(out, "vs_pd_alloc");
	if (ret)
		return ret;
	ret = vs__check_handle(c, VS_KIND_CONTEXT, "vs_pd_alloc", "ctx");
	if (ret)
		return ret;
	pd = vs__handle_alloc(sizeof(*pd));
	if (!pd)
		return vs__set_error("vs_pd_alloc", ENOMEM, "out of memory");
	errno = 0;
	pd->pd = ibv_alloc_pd(c->ctx);
	if (!pd->pd) {
		ret = vs__verb_error("vs_pd_alloc", "ibv_alloc_pd", vs__errno_or(ENOMEM),
				    "cannot allocate a PD on %s", c->name);
		vs__handle_unpublish(pd, sizeof(*pd));
		return ret;
	}
	vs__handle_init(&pd->h, VS_KIND_PD);
	vs__ref_get(&c->h);
	pd->ctx = c;
	*out = pd;
	return 0;
}

int vs__pd_put(struct vs_pd *pd, const char *verb)
{
	struct vs_context *ctx = pd->ctx;
	int err;

	if (!vs__ref_put(&pd->h))
		return 0;
	err = ibv_dealloc_pd(pd->pd);
	if (err) {
		int ret;

		vs__handle_reopen(&pd->h, VS_KIND_PD);
		ret = vs__verb_error(verb, "ibv_dealloc_pd", err,
				     "cannot free the PD (objects created on "
				     "it through the raw handle still exist?); "
				     "the PD stays open: close it again to retry");
		vs__deferred_note(verb, "vs_pd_close", "PD");
		return ret;
	}
	vs__handle_free(pd, sizeof(*pd));
	return vs__context_put(ctx, verb);
}

int vs_pd_close(struct vs_pd *pd)
{
	int ret = vs__user_close(pd, VS_KIND_PD, "vs_pd_close", "pd");

	return ret ? ret : vs__pd_put(pd, "vs_pd_close");
}

struct ibv_pd *vs_pd_raw(const struct vs_pd *pd)
{
	return pd && pd->h.magic == VS_KIND_PD ? pd->pd : NULL;
}
