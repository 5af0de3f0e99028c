/* SPDX-License-Identifier: MIT */
/*
 * The connection manager set up from rdma_getaddrinfo hints, the way
 * rdma_create_ep does it: one call from a host, a port and the hints
 * (passive or active, port space or QP type, family, numeric host) to an
 * id ready for its QP.  docs/API.md, "Connection manager".
 */
#ifndef VERBSHIM_CM_EP_H
#define VERBSHIM_CM_EP_H

#include "verbshim/cm.h"

VS_BEGIN_DECLS

/**
 * vs_cm_create_ep() - a CM id from rdma_getaddrinfo hints, as rdma_create_ep
 * @host: a name or numeric address (passive: a local one, or NULL for all)
 * @port: a port number or service name ("0" with RAI_PASSIVE: a free one)
 * @hints: rdma_getaddrinfo's hints, or NULL (active, RC): RAI_PASSIVE in
 *	ai_flags makes a listener, else the id is resolved toward @host;
 *	ai_port_space RDMA_PS_TCP or ai_qp_type IBV_QPT_RC is RC,
 *	RDMA_PS_UDP or IBV_QPT_UD is UD; ai_family, RAI_NUMERICHOST and the
 *	other flags are rdma_getaddrinfo's own
 * @cfg: timeout, backlog, no_wait, src as vs_cm_resolve() and
 *	vs_cm_listen(); transport 0 or the hints'; NULL for the defaults
 * @out: the id (cleared first): RESOLVED (no_wait: RESOLVING), ready for
 *	vs_cm_rc_qp_create() / vs_cm_ud_qp_create() and vs_cm_connect(); or
 *	LISTENING, its requests ready for theirs
 *
 * The first address rdma_getaddrinfo answers is used, as rdma_create_ep
 * does; resolving and listening are vs_cm_resolve()'s and vs_cm_listen()'s
 * (bounded by @cfg->timeout_ms, failures explained).
 *
 * Return: 0, or -errno: -EINVAL a port space or QP type the typed CM does
 * not connect, hints and @cfg->transport disagreeing, @cfg->src on a
 * passive id; rdma_getaddrinfo's errno ("cannot resolve"); the errors of
 * vs_cm_resolve() and vs_cm_listen().
 */
VS_MUST_CHECK
int vs_cm_create_ep(const char *host, const char *port,
		    const struct rdma_addrinfo *hints,
		    const struct vs_cm_config *cfg, struct vs_cm_id **out);

VS_END_DECLS

#endif /* VERBSHIM_CM_EP_H */
