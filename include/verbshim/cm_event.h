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
	 * VS_CM_REQUEST, on its own event channel: watch vs_cm_fd of it;
	 * or on the listener's shared channel, vs_cm_channel_next),
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
 * Return: the fd, or -1 for a bad handle, or (recorded) for an id on a
 * shared channel (watch vs_cm_channel_fd()).
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
 * explanation in vs_last_error().  vs_cm_state() follows, except for
 * RDMA_CM_EVENT_ADDR_CHANGE (@ev->err ENETRESET): the kernel tears
 * nothing down, so the id keeps its state; reconnect (or listen again)
 * to use the new address.
 *
 * Return: 0 (an event, failures included), -EAGAIN (@timeout_ms 0, none:
 * not recorded), -ETIMEDOUT (none: recorded), or -errno when reading failed (-EINVAL bad arguments,
 * or an id on a shared channel: its events come by vs_cm_channel_next()).
 */
int vs_cm_next(struct vs_cm_id *id, int timeout_ms, struct vs_cm_event *ev);

/**
 * vs_cm_channel_create() - a CM event channel many ids share
 * @out: the new channel (cleared first)
 *
 * One fd for the events of many CM ids, as librdmacm's own programs use
 * one rdma_event_channel (cmtime): no channel, fd and epoll entry per
 * id.  Put ids on it with vs_cm_config.channel (VS_CM_CONFIG_CHANNEL in
 * comp_mask) at vs_cm_resolve() / vs_cm_listen(); a listener's connect
 * requests stay on it.  Their events come only from
 * vs_cm_channel_next(), so steps on them must not wait (no_wait
 * resolves, connects and accepts; a waiting step is refused).  Each id
 * holds a reference on the channel until its close.
 *
 * Return: 0, or -errno (-ENODEV: no rdma_cm device file, rdma_ucm not
 * loaded; -ENOMEM).
 */
VS_MUST_CHECK
int vs_cm_channel_create(struct vs_cm_channel **out);

/**
 * vs_cm_channel_close() - close a shared CM event channel
 * @ch: the channel
 *
 * Return: 0; -EBUSY (the channel stays open) while ids are on it, the
 * message naming them: close them first; -EINVAL for a NULL, closed or
 * other-kind handle.
 */
int vs_cm_channel_close(struct vs_cm_channel *ch);

/**
 * vs_cm_channel_fd() - the fd of a shared CM event channel, for an event loop
 * @ch: the channel
 *
 * Non-blocking; readable means vs_cm_channel_next(@ch, 0, ...) has an
 * event.
 *
 * Return: the fd, or -1 for a bad handle.
 */
int vs_cm_channel_fd(const struct vs_cm_channel *ch);

/**
 * vs_cm_channel_next() - the next CM event of any id on a shared channel
 * @ch: the channel
 * @timeout_ms: 0 never sleeps, -1 waits for ever, else the limit
 * @ev: where the event goes; @ev->id is the id it concerns
 *
 * As vs_cm_next() (the library acts on each event and acknowledges it),
 * for whichever id on @ch the event concerns.  A connect request's new id
 * (@ev->id, @ev->listener its listener) is on @ch too.  An event of an
 * id the caller already closed is acknowledged and dropped, never
 * returned.
 *
 * Return: 0 (an event, failures included: @ev->err), -EAGAIN (none:
 * not recorded), -ETIMEDOUT (none: recorded), or -errno (-EINVAL bad
 * arguments).
 */
int vs_cm_channel_next(struct vs_cm_channel *ch, int timeout_ms,
		       struct vs_cm_event *ev);

#ifdef VS__TYPE_GUARDS
#define vs_cm_channel_close(ch) vs_cm_channel_close(VS__IS(struct vs_cm_channel, ch))
#define vs_cm_channel_fd(ch) vs_cm_channel_fd(VS__IS_C(struct vs_cm_channel, ch))
#define vs_cm_channel_next(ch, ...) vs_cm_channel_next(VS__IS(struct vs_cm_channel, ch), __VA_ARGS__)
#define vs_cm_fd(id) vs_cm_fd(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_next(id, ...) vs_cm_next(VS__IS(struct vs_cm_id, id), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_CM_EVENT_H */
