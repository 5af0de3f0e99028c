/* SPDX-License-Identifier: MIT */
/*
 * The connection manager's connection steps: connect a resolved id, take
 * a listener's requests, accept or reject them, disconnect.  Blocking
 * with a timeout, or sending only (no_wait) with the outcome an event of
 * vs_cm_next() (cm_event.h).  docs/API.md, "Connection manager".
 */
#ifndef VERBSHIM_CM_CONNECT_H
#define VERBSHIM_CM_CONNECT_H

#include "verbshim/cm.h"

VS_BEGIN_DECLS

struct vs_cm_id;

enum vs_cm_conn_config_mask {
	VS_CM_CONN_BEFORE_ACCEPT = 1 << 0, /* .before_accept (vs_cm_rc_serve) */
};

/* Connecting, accepting. */
struct vs_cm_conn_config {
	uint64_t comp_mask;           /* enum vs_cm_conn_config_mask */
	const void *private_data;     /* sent with the request / the accept */
	uint8_t private_data_len;     /* at most VS_CM_*_DATA_MAX of the message */
	/*
	 * connect: until established; accept: until the peer's
	 * ready-to-use.  0 = the default 5000, -1 = for ever.
	 */
	int timeout_ms;
	/*
	 * Non-blocking: send and return; the outcome arrives as an event of
	 * vs_cm_next() (ESTABLISHED, REJECTED, ...).
	 */
	bool no_wait;
	/*
	 * vs_cm_rc_serve() only (VS_CM_CONN_BEFORE_ACCEPT): called with the
	 * new id once its PD, CQ and QP exist, before the accept, to post
	 * the receives the client's first messages need (iWARP has no RNR
	 * retry: a send that finds no receive breaks the connection).  A
	 * negative -errno rejects the client and is returned.
	 */
	int (*before_accept)(struct vs_cm_id *id, void *arg);
	void *before_accept_arg;
};

/**
 * vs_cm_connect() - connect a resolved id that has its QP
 * @id: an id in VS_CM_RESOLVED with its QP
 * @cfg: private data and timeout; NULL for none and 5000 ms
 *
 * Sends the request; on the answer brings the QP to RTR and RTS with the
 * CM's attributes and completes the connection.  The peer's private data
 * of the accept is vs_cm_private_data() after.  With timeout 0 it only
 * sends: the outcome is an event of vs_cm_next().
 *
 * Return: 0 (connected, or sent), or -errno explained: -ECONNREFUSED
 * rejected (the reason and the peer's private data in the message and
 * vs_cm_reject_reason() / vs_cm_private_data()), -EHOSTUNREACH
 * unreachable, -ETIMEDOUT no answer in time, -EINVAL private data over
 * the limit, no QP, a listening id, wrong state.
 */
int vs_cm_connect(struct vs_cm_id *id, const struct vs_cm_conn_config *cfg);

/**
 * vs_cm_get_request() - the next connect request on a listener
 * @listener: a listening id
 * @timeout_ms: 0 never sleeps, -1 waits for ever, else the limit
 * @out: the new id in VS_CM_REQUEST, on its own event channel (cleared first)
 *
 * The request's private data is vs_cm_private_data(*@out).  Answer it
 * with vs_cm_accept() (after vs_cm_rc_qp_create()) or vs_cm_reject(),
 * and close the id when done.
 *
 * Return: 0, -EAGAIN (@timeout_ms 0, none there: not recorded),
 * -ETIMEDOUT (none came: recorded, naming the listener's address), or
 * -errno.
 */
VS_MUST_CHECK
int vs_cm_get_request(struct vs_cm_id *listener, int timeout_ms,
		      struct vs_cm_id **out);

/**
 * vs_cm_accept() - accept a connect request
 * @id: an id in VS_CM_REQUEST with its QP
 * @cfg: private data for the peer and timeout; NULL for none and 5000 ms
 *
 * Brings the QP to RTR and RTS with the CM's attributes, sends the accept
 * and waits for the peer's ready-to-use (with @cfg->no_wait it does not:
 * the ESTABLISHED event arrives through vs_cm_next()).
 *
 * Return: 0, or -errno explained; -EINVAL when already accepted or
 * rejected, no QP, private data over VS_CM_ACCEPT_DATA_MAX.
 */
int vs_cm_accept(struct vs_cm_id *id, const struct vs_cm_conn_config *cfg);

/**
 * vs_cm_reject() - reject a connect request
 * @id: an id in VS_CM_REQUEST
 * @private_data: what the peer reads with the rejection (the place for
 *	an application's reason), or NULL
 * @len: its length, at most VS_CM_REJECT_DATA_MAX
 *
 * The peer sees reason 28 (IB CM "consumer defined": its program said no)
 * and @private_data.
 *
 * Return: 0, or -errno; -EINVAL in another state or data over the limit.
 */
int vs_cm_reject(struct vs_cm_id *id, const void *private_data, uint8_t len);

/**
 * vs_cm_disconnect() - disconnect a connected id
 * @id: the id
 *
 * Moves the QP to the error state (outstanding work requests flush) and
 * sends the disconnect; the peer gets RDMA_CM_EVENT_DISCONNECTED.
 *
 * Return: 0, or -errno; -EINVAL when not connected.
 */
int vs_cm_disconnect(struct vs_cm_id *id);

#ifdef VS__TYPE_GUARDS
#define vs_cm_connect(id, ...) vs_cm_connect(VS__IS(struct vs_cm_id, id), __VA_ARGS__)
#define vs_cm_get_request(l, ...) vs_cm_get_request(VS__IS(struct vs_cm_id, l), __VA_ARGS__)
#define vs_cm_accept(id, ...) vs_cm_accept(VS__IS(struct vs_cm_id, id), __VA_ARGS__)
#define vs_cm_reject(id, ...) vs_cm_reject(VS__IS(struct vs_cm_id, id), __VA_ARGS__)
#define vs_cm_disconnect(id) vs_cm_disconnect(VS__IS(struct vs_cm_id, id))
#endif

VS_END_DECLS

#endif /* VERBSHIM_CM_CONNECT_H */
