/* SPDX-License-Identifier: MIT */
/*
 * The connection manager (librdmacm), typed: CM ids (resolved, listening
 * or a peer's request), their typed QPs and what can be read of them at
 * any time.  Connecting, accepting and disconnecting are cm_connect.h,
 * the events cm_event.h.  docs/API.md, "Connection manager".
 *
 * By default every CM id owns its own event channel (like a socket owns
 * its fd), so a blocking step on one id never consumes another id's
 * events, and an event loop watches vs_cm_fd() of each id next to its
 * completion channels.  Many ids may instead share one channel
 * (struct vs_cm_channel, cm_event.h: one fd, no channel per id; then
 * only no_wait steps and vs_cm_channel_next()).  A CM id is for one
 * thread at a time.
 */
#ifndef VERBSHIM_CM_H
#define VERBSHIM_CM_H

#include <rdma/rdma_cma.h>

#include "verbshim/qp.h"
#include "verbshim/ah.h"

VS_BEGIN_DECLS

/* A CM id (opaque; a handle of kind VS_KIND_CM_ID). */
struct vs_cm_id;
/* A CM event channel shared by many ids (opaque; cm_event.h). */
struct vs_cm_channel;

/*
 * How much private data each message carries (the IB CM message less the
 * rdma_cm header of 36 bytes; librdmacm's limits).
 */
#define VS_CM_CONNECT_DATA_MAX 56  /* RC connect request (REQ) */
#define VS_CM_ACCEPT_DATA_MAX 196  /* RC accept (REP) */
#define VS_CM_REJECT_DATA_MAX 148  /* reject (REJ) */
#define VS_CM_UD_CONNECT_DATA_MAX 180 /* UD connect request (SIDR REQ) */
#define VS_CM_UD_ACCEPT_DATA_MAX 136  /* UD accept (SIDR REP) */
/* Room for the private data a peer sent (any message). */
#define VS_CM_DATA_MAX 256

/* Where a CM id is, readable at any time (vs_cm_state). */
enum vs_cm_state {
	VS_CM_IDLE = 0,        /* created, nothing resolved */
	VS_CM_RESOLVED = 1,    /* address and route resolved: create the QP, connect */
	VS_CM_LISTENING = 2,   /* a listener */
	VS_CM_REQUEST = 3,     /* a peer's connect request: accept or reject it */
	VS_CM_CONNECTING = 4,  /* connect sent, no answer yet */
	VS_CM_ACCEPTING = 5,   /* accept sent, the peer's ready-to-use not yet seen */
	VS_CM_CONNECTED = 6,   /* established: the QP is in RTS */
	VS_CM_REJECTED = 7,    /* the connect was rejected (or this side rejected) */
	VS_CM_DISCONNECTED = 8,/* either side disconnected */
	VS_CM_FAILED = 9,      /* a step failed: vs_cm_close() it */
	VS_CM_RESOLVING = 10,  /* no_wait resolve under way: its events come by vs_cm_next() */
};

/* vs_cm_config.comp_mask: which optional fields are set */
enum vs_cm_config_mask {
	VS_CM_CONFIG_CHANNEL = 1 << 0, /* .channel */
};

/* Resolving or listening. */
struct vs_cm_config {
	uint64_t comp_mask;           /* VS_CM_CONFIG_* of the optional fields set, or 0 */
	enum vs_transport transport;  /* 0 = RC; UD for datagrams (RDMA_PS_UDP) */
	int timeout_ms;               /* resolve: [2000] each of address, route */
	const char *src;              /* resolve: a local address to bind, or NULL */
	int backlog;                  /* listen: [64] */
	/*
	 * resolve: start the address resolution and return (the id
	 * RESOLVING); vs_cm_next() then delivers ADDR_RESOLVED (the route
	 * is asked for there), ROUTE_RESOLVED (RESOLVED) or the failure.
	 * Many resolves overlap, as librdmacm's cmtime does them.
	 */
	bool no_wait;
	/*
	 * Optional (VS_CM_CONFIG_CHANNEL): the id goes on this shared
	 * channel (vs_cm_channel_create) instead of one of its own; so do
	 * the connect requests of a listener.  Its events come only from
	 * vs_cm_channel_next(): a resolve needs no_wait, and a step that
	 * waits (connect, accept without no_wait, vs_cm_get_request,
	 * vs_cm_next, vs_cm_join) is refused with -EINVAL.
	 */
	struct vs_cm_channel *channel;
};

/**
 * vs_cm_resolve() - resolve an address and a route to it (the client's first step)
 * @host: a name or a numeric IPv4 / IPv6 address
 * @port: a port number or service name
 * @cfg: transport, timeout, source address; NULL for the defaults
 * @out: the new CM id, in VS_CM_RESOLVED (cleared first)
 *
 * Creates an id with its own event channel, resolves @host (rdma_getaddrinfo),
 * its address and its route, each within @cfg->timeout_ms.  Then
 * vs_cm_context() is the device the route goes out of: create the PD, CQs
 * and the QP (vs_cm_rc_qp_create()) on it, then vs_cm_connect().  With
 * @cfg->no_wait it returns once the address resolution is started: the id
 * is VS_CM_RESOLVING until vs_cm_next() has delivered ROUTE_RESOLVED.
 *
 * Return: 0, or -errno with the step, the peer and the reason in
 * vs_last_error(): -EINVAL bad arguments, -EADDRNOTAVAIL / -EHOSTUNREACH /
 * -ENETUNREACH / -ETIMEDOUT address or route errors, errnos of librdmacm.
 */
VS_MUST_CHECK
int vs_cm_resolve(const char *host, const char *port,
		  const struct vs_cm_config *cfg, struct vs_cm_id **out);

/**
 * vs_cm_resolve_addr() - resolve a socket address and a route to it
 * @dst: the peer's address and port: a struct sockaddr_in or sockaddr_in6
 * @cfg: as vs_cm_resolve() (@cfg->src, a name, is still looked up)
 * @out: the new CM id, in VS_CM_RESOLVED (cleared first)
 *
 * vs_cm_resolve() without the name lookup, for a caller that has the
 * address: one lookup (getaddrinfo, rdma_getaddrinfo), then as many ids
 * to it as wanted, the way librdmacm's cmtime resolves its connections.
 * Everything else is vs_cm_resolve()'s, @cfg->no_wait and the shared
 * channel included.
 *
 * Return: as vs_cm_resolve(); -EINVAL for a NULL @dst or @out,
 * -EAFNOSUPPORT for an address neither IPv4 nor IPv6.
 */
VS_MUST_CHECK
int vs_cm_resolve_addr(const struct sockaddr *dst,
		       const struct vs_cm_config *cfg, struct vs_cm_id **out);

/**
 * vs_cm_listen() - listen for connect requests
 * @host: a local address, or NULL for every address (IPv4 and IPv6)
 * @port: a port number or service name; "0" picks a free one (vs_cm_port())
 * @cfg: transport and backlog; NULL for the defaults
 * @out: the new listening id (cleared first)
 *
 * Return: 0, or -errno (-EADDRINUSE, -EADDRNOTAVAIL, ...), explained.
 */
VS_MUST_CHECK
int vs_cm_listen(const char *host, const char *port,
		 const struct vs_cm_config *cfg, struct vs_cm_id **out);

/**
 * vs_cm_close() - close a CM id
 * @id: the id
 *
 * A connected id is disconnected first (its QP moved to the error state,
 * so outstanding work requests flush).  The id drops its QP (and the PD
 * and CQ of vs_cm_rc_client()/vs_cm_rc_serve()); the caller's own
 * handles stay valid.  The context of vs_cm_context() stays usable by
 * the objects created on it.
 *
 * Return: 0, -EINVAL for a NULL, closed or other-kind handle, or the
 * errno of rdma_destroy_id (the id stays open: retry).
 */
int vs_cm_close(struct vs_cm_id *id);

/**
 * vs_cm_context() - the device context a CM id is bound to
 * @id: a resolved id, a listener bound to an address, or a request
 *
 * Borrowed from librdmacm: create PDs, CQs, MRs on it; never close it
 * (vs_device_close() refuses it).  It stays valid while objects on it
 * live, after the id's close too.
 *
 * Return: the context, or NULL (recorded) for a bad handle or an id not
 * yet bound to a device (a wildcard listener).
 */
struct vs_context *vs_cm_context(struct vs_cm_id *id);

/**
 * vs_cm_rc_qp_create() - create the typed RC QP of a CM id
 * @id: an id in VS_CM_RESOLVED (client) or VS_CM_REQUEST (server)
 * @pd: a PD on vs_cm_context(@id)
 * @cfg: as vs_rc_qp_create(); port is the id's
 * @out: the QP (cleared first)
 *
 * The QP is the ordinary typed RC QP (batches, SRQ, events work on it);
 * the id keeps a reference on it until its close, as the QP keeps its CQs
 * and PD.  vs_cm_connect() / vs_cm_accept() bring it up with the masks of
 * rdma_init_qp_attr, through the typed modify and its diagnosis.
 *
 * Return: 0, or the errors of vs_rc_qp_create(); -EINVAL when the id
 * already has a QP, is of another transport or in another state.
 */
VS_MUST_CHECK
int vs_cm_rc_qp_create(struct vs_cm_id *id, struct vs_pd *pd,
		       const struct vs_rc_config *cfg, struct vs_rc_qp **out);

/**
 * vs_cm_ud_qp_create() - create the typed UD QP of a UD CM id
 * @id: an id of transport UD, resolved, a request, or bound (multicast)
 * @pd: a PD on vs_cm_context(@id)
 * @cfg: as vs_ud_qp_create(); qkey and port come from the CM
 * @out: the QP (cleared first)
 *
 * Return: 0, or the errors of vs_ud_qp_create(); -EINVAL as
 * vs_cm_rc_qp_create().
 */
VS_MUST_CHECK
int vs_cm_ud_qp_create(struct vs_cm_id *id, struct vs_pd *pd,
		       const struct vs_ud_config *cfg, struct vs_ud_qp **out);

/**
 * vs_cm_rc_qp() - the RC QP of a CM id
 * @id: the id
 *
 * Return: the QP (owned by the id), or NULL (none, UD, a bad handle).
 */
struct vs_rc_qp *vs_cm_rc_qp(const struct vs_cm_id *id);
/**
 * vs_cm_ud_qp() - the UD QP of a CM id
 * @id: the id
 *
 * Return: the QP (owned by the id), or NULL (none, RC, a bad handle).
 */
struct vs_ud_qp *vs_cm_ud_qp(const struct vs_cm_id *id);

/**
 * vs_cm_state() - where a CM id is
 * @id: the id
 *
 * Return: the state; VS_CM_FAILED for a NULL, closed or other-kind handle.
 */
enum vs_cm_state vs_cm_state(const struct vs_cm_id *id);

/**
 * vs_cm_state_name() - the name of a state
 * @state: the state
 *
 * Return: "CONNECTED", ...; "unknown state".
 */
const char *vs_cm_state_name(enum vs_cm_state state);

/**
 * vs_cm_private_data() - the private data the peer sent last
 * @id: the id
 * @len: where its length goes (0 when none)
 *
 * With the request (server side), the accept or the reject (client side).
 *
 * Return: the bytes (kept by the id, valid until its next step or its
 * close), or NULL.
 */
const void *vs_cm_private_data(const struct vs_cm_id *id, uint8_t *len);

/**
 * vs_cm_reject_reason() - the reason of the rejection an id received
 * @id: an id in VS_CM_REJECTED
 *
 * Return: the IB CM reason (28: the peer's program), 0 when not rejected.
 */
int vs_cm_reject_reason(const struct vs_cm_id *id);

/**
 * vs_cm_peer() - the peer's address as text
 * @id: the id
 *
 * Return: "192.168.77.1:7471" or "[fd00::1]:7471", "" when unknown,
 * "(bad id)" for a bad handle.
 */
const char *vs_cm_peer(const struct vs_cm_id *id);

/**
 * vs_cm_port() - the local port of an id
 * @id: the id (a listener bound to port 0: the port picked)
 *
 * Return: the port in host order, 0 for a bad handle.
 */
uint16_t vs_cm_port(const struct vs_cm_id *id);

/**
 * vs_cm_raw() - the underlying rdma_cm_id
 * @id: the id
 *
 * Return: the raw id (owned by @id), or NULL for a bad handle.
 */
struct rdma_cm_id *vs_cm_raw(const struct vs_cm_id *id);

#ifdef VS__TYPE_GUARDS
#define vs_cm_close(id) vs_cm_close(VS__IS(struct vs_cm_id, id))
#define vs_cm_context(id) vs_cm_context(VS__IS(struct vs_cm_id, id))
#define vs_cm_rc_qp_create(id, pd, ...) vs_cm_rc_qp_create(VS__IS(struct vs_cm_id, id), VS__IS(struct vs_pd, pd), __VA_ARGS__)
#define vs_cm_ud_qp_create(id, pd, ...) vs_cm_ud_qp_create(VS__IS(struct vs_cm_id, id), VS__IS(struct vs_pd, pd), __VA_ARGS__)
#define vs_cm_rc_qp(id) vs_cm_rc_qp(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_ud_qp(id) vs_cm_ud_qp(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_state(id) vs_cm_state(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_private_data(id, ...) vs_cm_private_data(VS__IS_C(struct vs_cm_id, id), __VA_ARGS__)
#define vs_cm_reject_reason(id) vs_cm_reject_reason(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_peer(id) vs_cm_peer(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_port(id) vs_cm_port(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_raw(id) vs_cm_raw(VS__IS_C(struct vs_cm_id, id))
#endif

VS_END_DECLS

#endif /* VERBSHIM_CM_H */
