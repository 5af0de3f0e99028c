/* SPDX-License-Identifier: MIT */
/*
 * rdma_create_ep-style setup: rdma_getaddrinfo with the caller's hints,
 * then the resolve or listen of lib/cm/cm_id.c on its first answer.
 */
#include "cm_internal.h"

/* The transport the hints ask for, or -errno recorded. */
static int hints_transport(const struct rdma_addrinfo *h,
			   const struct vs_cm_config *cfg, enum vs_transport *t,
			   const char *call)
{
	enum vs_transport by_space = 0, by_type = 0;

	if (h && h->ai_port_space == RDMA_PS_TCP)
		by_space = VS_TRANSPORT_RC;
	else if (h && h->ai_port_space == RDMA_PS_UDP)
		by_space = VS_TRANSPORT_UD;
	else if (h && h->ai_port_space)
		return vs__set_error(call, EINVAL,
				     "hints->ai_port_space 0x%x: the typed "
				     "connection manager connects RC "
				     "(RDMA_PS_TCP) and UD (RDMA_PS_UDP) ids",
				     (unsigned int)h->ai_port_space);
	if (h && h->ai_qp_type == IBV_QPT_RC)
		by_type = VS_TRANSPORT_RC;
	else if (h && h->ai_qp_type == IBV_QPT_UD)
		by_type = VS_TRANSPORT_UD;
	else if (h && h->ai_qp_type)
		return vs__set_error(call, EINVAL,
				     "hints->ai_qp_type %d: the typed connection "
				     "manager connects RC and UD QPs",
				     h->ai_qp_type);
	if (by_space && by_type && by_space != by_type)
		return vs__set_error(call, EINVAL,
				     "hints disagree: ai_port_space is %s's, "
				     "ai_qp_type %s", vs_transport_name(by_space),
				     vs_transport_name(by_type));
	*t = by_space ? by_space : by_type ? by_type : VS_TRANSPORT_RC;
	if (cfg && cfg->transport && cfg->transport != *t)
		return vs__set_error(call, EINVAL,
				     "cfg->transport is %s, the hints ask for %s",
				     vs_transport_name(cfg->transport),
				     vs_transport_name(*t));
	return 0;
}

int vs_cm_create_ep(const char *host, const char *port,
		    const struct rdma_addrinfo *hints,
		    const struct vs_cm_config *cfg, struct vs_cm_id **out)
{
	const char *call = "vs_cm_create_ep";
	struct rdma_addrinfo h = { 0 }, *res = NULL, *src = NULL;
	enum vs_transport t = VS_TRANSPORT_RC;
	bool passive;
	int ret;

	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	if (!port)
		return vs__set_error(call, EINVAL, "port is NULL");
	ret = vs__cm_config_check(cfg, call);
	if (!ret)
		ret = hints_transport(hints, cfg, &t, call);
	if (ret)
		return ret;
	if (hints)
		h = *hints;
	passive = h.ai_flags & RAI_PASSIVE;
	if (!passive && !host)
		return vs__set_error(call, EINVAL, "host is NULL (an active id "
				     "resolves toward a host; RAI_PASSIVE in "
				     "hints->ai_flags listens)");
	if (passive && cfg && cfg->src)
		return vs__set_error(call, EINVAL, "cfg->src \"%s\" on a passive "
				     "id: it binds to host's address", cfg->src);
	h.ai_port_space = t == VS_TRANSPORT_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
	/* rdma_getaddrinfo's answer owns these: the hints give none */
	h.ai_src_addr = h.ai_dst_addr = NULL;
	h.ai_src_len = h.ai_dst_len = 0;
	h.ai_src_canonname = h.ai_dst_canonname = NULL;
	h.ai_route = h.ai_connect = NULL;
	h.ai_route_len = h.ai_connect_len = 0;
	h.ai_next = NULL;
	ret = vs__cm_lookup(host, port, &h, &res, call);
	if (ret)
		return ret;
	if (passive) {
		ret = vs__cm_listen_ai(res, t, cfg, out, call);
	} else {
		if (cfg && cfg->src) {
			struct rdma_addrinfo sh = { .ai_flags = RAI_PASSIVE,
						    .ai_family = h.ai_family,
						    .ai_port_space = h.ai_port_space };

			ret = vs__cm_lookup(cfg->src, NULL, &sh, &src, call);
		}
		if (!ret)
			ret = vs__cm_resolve_sa(res->ai_dst_addr, src ?
						src->ai_src_addr : res->ai_src_addr,
						t, cfg, out, call);
	}
	if (src)
		rdma_freeaddrinfo(src);
	rdma_freeaddrinfo(res);
	return ret;
}
