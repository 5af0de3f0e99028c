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

struct vs__channel_cqs; /* private: lib/channel.c */

/*
 * A completion channel (owns an ibv_comp_channel).  Its fd is
 * non-blocking, so it can go straight into epoll/poll/select: readable
 * means vs_channel_wait(ch, 0, ...) has work.  CQs created with
 * .channel = ch hold a reference on it.
 */
struct vs_channel {
	struct vs_handle h; /* private */
	struct ibv_comp_channel *ch;
	struct vs_context *ctx;
	struct vs__channel_cqs *cqs; /* private: the CQs on it, lock, counts */
};

int vs_channel_create(struct vs_context *ctx, struct vs_channel **out);
/*
 * -EBUSY naming them while CQs the caller has not closed are on it.  CQs
 * the caller closed that QPs still keep alive do not stop the close: the
 * channel goes with the last of them (docs/API.md, Lifetimes, rule 4).
 */
int vs_channel_close(struct vs_channel *ch);
/* The fd to watch (-1 for a NULL, closed or other-kind handle). */
int vs_channel_fd(const struct vs_channel *ch);
struct ibv_comp_channel *vs_channel_raw(const struct vs_channel *ch);

/*
 * Waits for completions on any CQ of the channel and polls up to max of
 * them, all from one CQ, into wc[]; *cq_out is that CQ (its user context:
 * vs_cq_context).  Returns how many (>= 1), -EAGAIN when timeout_ms is 0
 * and nothing is there, -ETIMEDOUT after timeout_ms (> 0) without any, or
 * another negative errno.  timeout_ms -1 waits for ever.
 *
 * Race-free by construction: a CQ on a channel is armed at creation;
 * when its event arrives it is acknowledged (counted, acked in batches),
 * re-armed (solicited-only if the CQ was created so) and only then
 * polled, so a completion that arrives at any moment either is polled
 * now or raises the next event.  A CQ whose last poll filled wc[] (or a
 * legacy CQ with completions buffered in the library) is polled again by
 * the next wait before it sleeps, so nothing is left behind, whatever
 * max is.  Completions are never lost to another CQ's wait.
 */
int vs_channel_wait(struct vs_channel *ch, int timeout_ms,
		    struct vs_cq **cq_out, struct vs_wc *wc, int max);

/*
 * The same for one CQ (which must have a channel): events of other CQs
 * on the channel met while waiting are kept for their own waits.
 */
int vs_cq_wait(struct vs_cq *cq, int timeout_ms, struct vs_wc *wc, int max);

/* The user context given at creation (vs_cq_config.user_context). */
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
	 * NULL for objects the typed API did not create.  Handle memory is
	 * never freed, so these stay valid pointers; a handle the caller has
	 * closed since is reported all the same (its calls refuse it).
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

/*
 * The context's async event fd, switched to non-blocking at the first
 * call; -EINVAL for a bad handle.
 */
int vs_async_fd(struct vs_context *ctx);

/*
 * The next async event of the device, mapped to its typed handle and
 * acknowledged before return (so a close never waits for it).  0, or
 * -EAGAIN (timeout 0), -ETIMEDOUT, another negative errno.
 */
int vs_async_next(struct vs_context *ctx, int timeout_ms,
		  struct vs_async_event *ev);

/* "IBV_EVENT_QP_FATAL", ...; "unknown event" otherwise. */
const char *vs_async_event_name(enum ibv_event_type type);

#ifdef VS__TYPE_GUARDS
#define vs_channel_create(c, ...) vs_channel_create(VS__IS(struct vs_context, c), __VA_ARGS__)
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
