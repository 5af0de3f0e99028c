/* SPDX-License-Identifier: MIT */
/*
 * Address handles (UD and SRD destinations).
 */
#include "core.h"

void vs__fill_ah_attr(const struct vs_qp *qp, const struct vs_endpoint *remote,
		      struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->port_num = qp->port;
	ah->dlid = remote->lid;
	ah->sl = 0;
	/* Ethernet has no LIDs, SRD is addressed by GID: a GRH. */
	if (vs__link(qp->link_row)->ethernet ||
	    vs__transport(qp->transport)->by_gid) {
		ah->is_global = 1;
		ah->grh.dgid = remote->gid;
		ah->grh.sgid_index = (uint8_t)qp->gid_index;
		ah->grh.hop_limit = 64;
		ah->grh.traffic_class = 0;
		ah->grh.flow_label = 0;
	}
}

int vs__ah_create_for(struct vs_pd *pd, const struct vs_qp *qp,
		      const struct vs_endpoint *remote, struct vs_ah **out,
		      const char *verb)
{
	struct ibv_ah_attr attr;
	struct vs_ah *ah;
	int ret;

	*out = NULL;
	vs__fill_ah_attr(qp, remote, &attr);
	ah = vs__handle_alloc(sizeof(*ah));
	if (!ah)
		return vs__set_error(verb, ENOMEM, "out of memory");
	errno = 0;
	ah->ah = ibv_create_ah(pd->pd, &attr);
	if (!ah->ah) {
		char route[400] = "";
		int err = vs__errno_or(EINVAL);

		vs__describe_route(qp, err, &remote->gid, route, sizeof(route));
		ret = vs__verb_error(verb, "ibv_create_ah", err,
				    "cannot create an address handle toward "
				    "qpn 0x%06x%s%s", remote->qpn,
				    route[0] ? ": " : "", route);
		vs__handle_unpublish(ah, sizeof(*ah));
		return ret;
	}
	vs__handle_init(&ah->h, VS_KIND_AH);
	ah->pd = pd;
	vs__ref_get(&pd->h);
	*out = ah;
	return 0;
}

int vs__ah_put(struct vs_ah *ah, const char *verb)
{
	struct vs_pd *pd = ah->pd;
	int err;

	if (!vs__ref_put(&ah->h))
		return 0;
	err = ibv_destroy_ah(ah->ah);
	if (err) {
		vs__handle_reopen(&ah->h, VS_KIND_AH);
		return vs__verb_error(verb, "ibv_destroy_ah", err,
				     "cannot destroy the AH; it stays open: "
				     "close it again to retry");
	}
	vs__handle_free(ah, sizeof(*ah));
	return vs__pd_put(pd, verb);
}

int vs_ah_close(struct vs_ah *ah)
{
	int ret = vs__user_close(ah, VS_KIND_AH, "vs_ah_close", "ah");

	return ret ? ret : vs__ah_put(ah, "vs_ah_close");
}

struct ibv_ah *vs_ah_raw(const struct vs_ah *ah)
{
	return ah && ah->h.magic == VS_KIND_AH ? ah->ah : NULL;
}

static int dest_release(struct vs_ud_dest *dest, const char *call)
{
	int ret;

	if (!dest)
		return vs__set_error(call, EINVAL, "dest is NULL");
	if (!dest->ah)
		return 0;
	ret = vs__user_close(dest->ah, VS_KIND_AH, call, "dest->ah");
	if (!ret)
		ret = vs__ah_put(dest->ah, call);
	/* a failed destroy keeps the AH open: dest stays, to retry */
	if (!ret)
		memset(dest, 0, sizeof(*dest));
	return ret;
}

int vs_ud_dest_release(struct vs_ud_dest *dest)
{
	return dest_release(dest, "vs_ud_dest_release");
}

int vs_srd_dest_release(struct vs_srd_dest *dest)
{
	return dest_release(dest ? &dest->base : NULL, "vs_srd_dest_release");
}
