/* SPDX-License-Identifier: MIT */
/*
 * Handle kinds: the runtime check behind "a handle of another kind".
 */
#include "vs_internal.h"

const char *vs_kind_name(uint32_t magic)
{
	switch (magic) {
	case VS_KIND_CONTEXT:
		return "device context";
	case VS_KIND_PD:
		return "PD";
	case VS_KIND_MR:
		return "MR";
	case VS_KIND_CQ:
		return "CQ";
	case VS_KIND_SRQ:
		return "SRQ";
	case VS_KIND_AH:
		return "AH";
	case VS_KIND_RC_QP:
		return "RC QP";
	case VS_KIND_UC_QP:
		return "UC QP";
	case VS_KIND_UD_QP:
		return "UD QP";
	case 0xdeadbeef:
		return "closed handle";
	default:
		return "unknown handle";
	}
}

int vs__check_handle(const void *h, uint32_t kind, const char *verb,
		    const char *what)
{
	const struct vs_handle *hd = (const struct vs_handle *)h;

	if (!h)
		return vs__set_error(verb, EINVAL, "%s is NULL", what);
	if (hd->magic != kind)
		return vs__set_error(verb, EINVAL,
				    "%s is a handle of another kind (%s, expected %s)",
				    what, vs_kind_name(hd->magic),
				    vs_kind_name(kind));
	if (hd->refs <= 0)
		return vs__set_error(verb, EINVAL, "%s was already closed", what);
	return 0;
}

int vs__not_started(const char *verb)
{
	return vs__set_error(verb, EINVAL,
			    "the batch is NULL or not started (call the "
			    "*_start function first; a submitted or aborted "
			    "batch must be started again)");
}
