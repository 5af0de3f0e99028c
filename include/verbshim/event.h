/* SPDX-License-Identifier: MIT */
/*
 * Events: completion channels shared by many CQs, the race-free wait in
 * one call, and the device's asynchronous events with the typed handle
 * they concern.  docs/API.md, "Events", has the pattern and the rules.
 */
#ifndef VERBSHIM_EVENT_H
#define VERBSHIM_EVENT_H

#include "verbshim/cq.h"
#include "verbshim/qp.h"

VS_BEGIN_DECLS

struct vs__channel_cqs; /* private: lib/events/channel.c */

/*
 * A completion channel (owns an ibv_comp_channel).  The fd the program is
 * handed (vs_channel_fd, vs_channel_raw) is non-blocking, so it can go
 * straight into epoll/poll/select: readable means vs_channel_wait(ch, 0,
 * ...) has work.  Until it is handed out the fd is blocking, so that a
 * wait for ever sleeps in its one read of the event.  CQs created with
 * .channel = ch hold a reference on it.  Reach the fd through the calls,
 * not through the fields.
 */
struct vs_channel {
	struct vs_handle h; /* private */
	struct ibv_comp_channel *ch;
	struct vs_context *ctx;
	struct vs__channel_cqs *cqs; /* private: the CQs on it, lock, counts */
};

/**
 * vs_channel_create() - create a completion channel on a device
 * @ctx: an open device context
 * @out: where the channel goes (cleared first)
 *
 * CQs join it through vs_cq_config.channel; each holds a reference on it.
 * Its fd is blocking until vs_channel_fd() or vs_channel_raw() first hands
 * it out, and non-blocking from then on (see vs_channel_fd()).
 *
 * Return: 0, or -EINVAL (bad @ctx or NULL @out), -ENOMEM, or the errno of
 * ibv_create_comp_channel; the error record names the call and the verb.
 */
VS_MUST_CHECK
int vs_channel_create(struct vs_context *ctx, struct vs_channel **out);
/**
 * vs_channel_close() - close a completion channel
 * @ch: the channel
 *
 * CQs the caller closed that QPs still keep alive do not stop the close:
 * the channel goes with the last of them (docs/API.md, Lifetimes, rule 4).
 *
 * Return: 0, -EINVAL for a NULL, closed or other-kind handle, -EBUSY
 * naming the CQs the caller has not closed that are still on it, or the
 * errno of ibv_destroy_comp_channel (the channel stays open: retry).
 */
int vs_channel_close(struct vs_channel *ch);
/**
 * vs_channel_fd() - the fd to watch for completions
 * @ch: the channel
 *
 * Readable means vs_channel_wait(@ch, 0, ...) has work.  The first call
 * (or vs_channel_raw()'s) makes the fd O_NONBLOCK for the rest of the
 * channel's life, so it can go straight into epoll; until then the waits
 * keep it blocking, and a wait with timeout -1 sleeps inside its read of
 * the event (one system call, as the textbook loop's) instead of poll()
 * and a read.  Do not change the fd's flags yourself.
 *
 * Return: the non-blocking fd; -1 for a NULL, closed or other-kind handle
 * (nothing recorded), or when fcntl cannot make it non-blocking (recorded).
 */
int vs_channel_fd(const struct vs_channel *ch);
/**
 * vs_channel_raw() - the underlying ibv_comp_channel
 * @ch: the channel
 *
 * Hands the fd out as vs_channel_fd() does: it is non-blocking from the
 * first call on.
 *
 * Return: the raw channel (owned by @ch); NULL for a bad handle (nothing
 * recorded), or when fcntl cannot make its fd non-blocking (recorded).
 */
struct ibv_comp_channel *vs_channel_raw(const struct vs_channel *ch);

/**
 * vs_channel_wait() - wait for completions on any CQ of a channel
 * @ch: the channel
 * @timeout_ms: 0 never sleeps, -1 waits for ever, else the limit
 * @cq_out: the CQ they came from (its user context: vs_cq_context())
 * @wc: where the completions go
 * @max: room in @wc (at least 1)
 *
 * Polls up to @max completions, all from one CQ, into @wc.
 *
 * Race-free by construction: a CQ on a channel is armed at creation;
 * when its event arrives it is acknowledged (counted, acked in batches),
 * re-armed (solicited-only if the CQ was created so) and only then
 * polled, so a completion that arrives at any moment either is polled
 * now or raises the next event.  A CQ whose last poll filled wc[] (or a
 * legacy CQ with completions buffered in the library) is polled again by
 * the next wait before it sleeps, so nothing is left behind, whatever
 * max is.  Completions are never lost to another CQ's wait.
 *
 * Several threads may wait on one channel (each on its own CQ, or on the
 * channel): one sleeps on the fd, the others until it has read an event
 * (it marks the event's CQ for them) or leaves; no other wait reads the
 * fd meanwhile, so a wait with @timeout_ms 0 (which never blocks) may say
 * -EAGAIN while the sleeper is about to mark its CQ.  Hence an epoll loop
 * on vs_channel_fd() should be the channel's only waiter.  A wait holds a
 * reference on the channel (vs_cq_wait: on its CQ, which holds the
 * channel): a close meanwhile never frees what it uses.  Closing the CQ a
 * wait is on returns at once (the CQ goes when the wait leaves) and does
 * not wake it (no event need come; as with ibv_get_cq_event): it returns
 * -EINVAL ("cq was closed while this wait was on it") when it wakes.
 *
 * Return: how many (>= 1), -EAGAIN when @timeout_ms is 0 and nothing is
 * there (a poll's answer: not recorded), -ETIMEDOUT after @timeout_ms
 * without any (recorded: what was waited for, how long), or another
 * negative errno (-EINVAL for bad arguments).
 */
int vs_channel_wait(struct vs_channel *ch, int timeout_ms,
		    struct vs_cq **cq_out, struct vs_wc *wc, int max);

/**
 * vs_cq_wait() - wait for completions on one CQ of a channel
 * @cq: a CQ created with a channel
 * @timeout_ms: as vs_channel_wait()
 * @wc: where the completions go
 * @max: room in @wc (at least 1)
 *
 * Events of other CQs on the channel met while waiting are kept for their
 * own waits.
 *
 * Return: as vs_channel_wait(); -EINVAL when @cq has no channel.
 */
int vs_cq_wait(struct vs_cq *cq, int timeout_ms, struct vs_wc *wc, int max);

/**
 * vs_cq_context() - the user context given at the CQ's creation
 * @cq: the CQ
 *
 * Return: vs_cq_config.user_context, or NULL for a bad handle.
 */
void *vs_cq_context(const struct vs_cq *cq);

/* ---- asynchronous device events ---- */

/* What an async event concerns. */
enum vs_async_about {
	VS_ASYNC_DEVICE = 0,
	VS_ASYNC_PORT = 1,
	VS_ASYNC_QP = 2,
	VS_ASYNC_CQ = 3,
	VS_ASYNC_SRQ = 4,
};

struct vs_async_event {
	enum ibv_event_type type;
	const char *name;	/* "IBV_EVENT_PORT_ACTIVE", ... */
	enum vs_async_about about;
	/*
	 * The typed handle (one of them, by about and, for a QP, transport);
	 * NULL for objects the typed API did not create.  A handle the
	 * caller closes after the event is refused by its calls as closed for
	 * the next 4096 closes of its size class (docs/API.md, Lifetimes,
	 * rule 7); after that its memory may be a newer handle's.
	 */
	struct vs_rc_qp *rc_qp;
	struct vs_uc_qp *uc_qp;
	struct vs_ud_qp *ud_qp;
	enum vs_transport qp_transport; /* 0 unless about == VS_ASYNC_QP */
	struct vs_cq *cq;
	struct vs_srq *srq;
	uint8_t port;		/* VS_ASYNC_PORT */
	struct ibv_async_event raw; /* already acknowledged: do not ack again */
};

/**
 * vs_async_fd() - the device's async event fd, to watch in an event loop
 * @ctx: an open device context
 *
 * The fd is switched to non-blocking at the first call.
 *
 * Return: the fd, -EINVAL for a bad handle, or fcntl's errno.
 */
int vs_async_fd(struct vs_context *ctx);

/**
 * vs_async_next() - the next async event of a device
 * @ctx: an open device context
 * @timeout_ms: 0 never sleeps, -1 waits for ever, else the limit
 * @ev: where the event goes
 *
 * The event is mapped to the typed handle it concerns and acknowledged
 * before return, so a close never waits for it.
 *
 * Return: 0, -EAGAIN (@timeout_ms 0, none there: not recorded),
 * -ETIMEDOUT (recorded), or another negative errno (-EINVAL for bad
 * arguments).
 */
int vs_async_next(struct vs_context *ctx, int timeout_ms,
		  struct vs_async_event *ev);

/**
 * vs_async_event_name() - the name of an async event type
 * @type: the event type
 *
 * Return: "IBV_EVENT_QP_FATAL", ...; "unknown event" otherwise.
 */
const char *vs_async_event_name(enum ibv_event_type type);

#ifdef VS__TYPE_GUARDS
#define vs_channel_create(c, out) \
	vs_channel_create(VS__IS(struct vs_context, c), VS__IS(struct vs_channel *, out))
#define vs_channel_close(ch) vs_channel_close(VS__IS(struct vs_channel, ch))
#define vs_channel_fd(ch) vs_channel_fd(VS__IS_C(struct vs_channel, ch))
#define vs_channel_raw(ch) vs_channel_raw(VS__IS_C(struct vs_channel, ch))
#define vs_channel_wait(ch, ...) vs_channel_wait(VS__IS(struct vs_channel, ch), __VA_ARGS__)
#define vs_cq_wait(cq, ...) vs_cq_wait(VS__IS(struct vs_cq, cq), __VA_ARGS__)
#define vs_cq_context(cq) vs_cq_context(VS__IS_C(struct vs_cq, cq))
#define vs_async_fd(c) vs_async_fd(VS__IS(struct vs_context, c))
#define vs_async_next(c, ...) vs_async_next(VS__IS(struct vs_context, c), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_EVENT_H */
