/* SPDX-License-Identifier: MIT */
/*
 * The connection manager's events, for an event loop: each id's fd, each
 * event typed, acted on and acknowledged; the names of events and of
 * reject reasons.  docs/API.md, "Connection manager".
 */
#ifndef VERBSHIM_CM_EVENT_H
#define VERBSHIM_CM_EVENT_H

#include "verbshim/cm.h"

VS_BEGIN_DECLS

/* One CM event, typed and already acknowledged (vs_cm_next). */
struct vs_cm_event {
	enum rdma_cm_event_type type;
	const char *name;             /* "RDMA_CM_EVENT_ESTABLISHED", ... */
	/*
	 * The id it concerns: for RDMA_CM_EVENT_CONNECT_REQUEST a new id (in
	 * VS_CM_REQUEST, on its own event channel: watch vs_cm_fd of it),
	 * which the caller owns and closes.
	 */
	struct vs_cm_id *id;
	struct vs_cm_id *listener;    /* CONNECT_REQUEST: the listener it came to */
	int status;                   /* the raw status (a reject reason, -errno) */
	enum vs_cm_state state;       /* the id's state after the event */
	int err;                      /* 0, or the errno of a failure event (explained in vs_last_error) */
	uint8_t private_data_len;
	uint8_t private_data[VS_CM_DATA_MAX];
};

/**
 * vs_cm_event_name() - the name of a CM event type
 * @type: the type
 *
 * Return: "RDMA_CM_EVENT_REJECTED", ...; "unknown CM event".
 */
const char *vs_cm_event_name(enum rdma_cm_event_type type);

/**
 * vs_cm_reject_reason_name() - what an IB CM reject reason means
 * @reason: the status of RDMA_CM_EVENT_REJECTED
 *
 * Return: "consumer defined (the peer's program rejected)", ...;
 * "unknown reason".
 */
const char *vs_cm_reject_reason_name(int reason);

/**
 * vs_cm_fd() - the fd of the id's event channel, for an event loop
 * @id: the id
 *
 * Non-blocking; readable means vs_cm_next(@id, 0, ...) has an event.
 *
 * Return: the fd, or -1 for a bad handle.
 */
int vs_cm_fd(const struct vs_cm_id *id);

/**
 * vs_cm_next() - the next CM event of an id, typed and acknowledged
 * @id: the id (a listener: its connect requests)
 * @timeout_ms: 0 never sleeps, -1 waits for ever, else the limit
 * @ev: where the event goes
 *
 * The library acts on each event before it returns it: a connect request
 * becomes a new id (@ev->id); a no_wait resolve's ADDR_RESOLVED asks for
 * the route (ROUTE_RESOLVED follows: the id is RESOLVED); the answer to a
 * connect brings the QP up and completes the connection, reported as
 * RDMA_CM_EVENT_ESTABLISHED;
 * a failure (rejected, unreachable, ...) sets @ev->err and records the
 * explanation in vs_last_error().  vs_cm_state() follows.
 *
 * Return: 0 (an event, failures included), -EAGAIN / -ETIMEDOUT (none,
 * not recorded), or -errno when reading failed (-EINVAL bad arguments).
 */
int vs_cm_next(struct vs_cm_id *id, int timeout_ms, struct vs_cm_event *ev);

#ifdef VS__TYPE_GUARDS
#define vs_cm_fd(id) vs_cm_fd(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_next(id, ...) vs_cm_next(VS__IS(struct vs_cm_id, id), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_CM_EVENT_H */
