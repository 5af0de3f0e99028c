/* SPDX-License-Identifier: MIT */
/*
 * Completion channels: many CQs on one ibv_comp_channel, and the
 * race-free wait (docs/API.md, "Events").
 *
 * The channel's CQ list and its lock are lib/core/channel_cqs.c (cq.c attaches
 * and destroys through it).  The lock is never held while sleeping.
 *
 * The fd stays blocking until the program is handed it (vs_channel_fd,
 * vs_channel_raw): a wait for ever then sleeps inside its one read of the
 * event, as the textbook loop does, instead of poll() and a read.  Then
 * it is O_NONBLOCK for good, for epoll.
 *
 * Who reads the fd: whoever holds l->reader, taken by compare-and-swap.
 * A read that cannot block (the fd non-blocking, or poll() said an event
 * is there) takes it under the lock for the length of its reads; a wait
 * that sleeps on the fd (the sleeper) takes it for its sleep, under the
 * lock in the general path, without it in vs_cq_wait's path for ever
 * (wait_forever).  While it is taken nobody else reads the fd, so every
 * event wakes the sleeper, which marks the event's CQ (or, its own,
 * polls it) and gives the right back; waits that found it taken sleep on
 * l->turn until then.  Giving it back and going to sleep on turn are a
 * store then a load on each side (reader, turn_waiters; sequentially
 * consistent), so one of the two sees the other: the giver broadcasts,
 * under the lock, or the waiter does not sleep.  While the fd is blocking
 * nothing reads it unless that cannot block: the sleeper's read for ever,
 * or a read after poll() said an event is there (the kernel removes a
 * queued event only on a read, which needs the right, or its CQ's destroy,
 * after which nothing reads that event).
 *
 * No lost wake-up: a CQ is armed at creation, and re-armed by whoever
 * read its event before it is polled; the reader marks it (ev_pending)
 * for the waits, or polls it itself.  A wait checks the marks after it
 * took the right and before it sleeps, and the mark of an event read is
 * made while the right is held, so no wait sleeps through one.  (A poll
 * that filled wc[] marks its CQ after it, without the right: more may be
 * there for that CQ's next wait, which polls before anything else.)
 * vs_cq_wait clears its CQ's mark before it polls, never after.
 *
 * Acks: events are counted per CQ and acked ACK_BATCH at a time (a CQ's
 * destroy acks the rest, lib/core/channel_cqs.c); an event whose CQ is no
 * longer on the list (its destroy is waiting for this ack) or is not one
 * of ours is acked at once.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>

#include "events.h"

/* Events acked per ibv_ack_cq_events call (it takes a mutex each time). */
#define ACK_BATCH 64

int vs_channel_create(struct vs_context *ctx, struct vs_channel **out)
{
	struct vs_channel *ch;
	int ret = vs__check_handle(ctx, VS_KIND_CONTEXT, "vs_channel_create",
				   "ctx");

	if (ret)
		return ret;
	ret = vs__out_clear(out, "vs_channel_create");
	if (ret)
		return ret;
	ch = vs__handle_alloc(sizeof(*ch));
	if (!ch)
		return vs__set_error("vs_channel_create", ENOMEM, "out of memory");
	ch->cqs = calloc(1, sizeof(*ch->cqs));
	if (!ch->cqs || pthread_mutex_init(&ch->cqs->lock, NULL)) {
		free(ch->cqs);
		vs__handle_unpublish(ch, sizeof(*ch));
		return vs__set_error("vs_channel_create", ENOMEM, "out of memory");
	}
	if (vs__cond_init(&ch->cqs->turn)) {
		pthread_mutex_destroy(&ch->cqs->lock);
		free(ch->cqs);
		vs__handle_unpublish(ch, sizeof(*ch));
		return vs__set_error("vs_channel_create", ENOMEM, "out of memory");
	}
	errno = 0;
	ch->ch = ibv_create_comp_channel(ctx->ctx);
	if (!ch->ch) {
		ret = vs__verb_error("vs_channel_create", "ibv_create_comp_channel",
				     vs__errno_or(ENOMEM),
				     "cannot create a completion channel on %s",
				     ctx->name);
		goto fail;
	}
	vs__handle_init(&ch->h, VS_KIND_CHANNEL);
	ch->ctx = ctx;
	vs__ref_get(&ctx->h);
	*out = ch;
	return 0;
fail:
	pthread_cond_destroy(&ch->cqs->turn);
	pthread_mutex_destroy(&ch->cqs->lock);
	free(ch->cqs);
	vs__handle_unpublish(ch, sizeof(*ch));
	return ret;
}

int vs_channel_close(struct vs_channel *ch)
{
	struct vs__channel_cqs *l;
	char names[256];
	size_t len = 0;
	int open = 0, ret = vs__check_handle(ch, VS_KIND_CHANNEL,
					     "vs_channel_close", "ch");

	if (ret)
		return ret;
	l = ch->cqs;
	pthread_mutex_lock(&l->lock);
	names[0] = 0;
	for (struct vs_cq *cq = l->head; cq; cq = cq->ch_next) {
		if (__atomic_load_n(&cq->h.magic, __ATOMIC_ACQUIRE) != VS_KIND_CQ)
			continue; /* closed by the user, kept by its QPs */
		if (open++ < 4 && len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len,
						"%sCQ %p (user context %p)",
						open > 1 ? ", " : "", (void *)cq,
						cq->user_context);
	}
	if (open) {
		pthread_mutex_unlock(&l->lock);
		return vs__set_error("vs_channel_close", EBUSY,
				     "%d CQ%s still on this channel: %s%s; close "
				     "them first", open, open > 1 ? "s are" : " is",
				     names, open > 4 ? ", ..." : "");
	}
	/* under the lock: no CQ can join between the check and the mark */
	ret = vs__user_close(ch, VS_KIND_CHANNEL, "vs_channel_close", "ch");
	pthread_mutex_unlock(&l->lock);
	return ret ? ret : vs__channel_put(ch, "vs_channel_close");
}

/*
 * The fd is handed out: O_NONBLOCK from now on (once, under the lock, so
 * no wait is between its check of the mode and its read).  false, with
 * the error recorded, when fcntl refuses.
 */
static bool hand_out(const struct vs_channel *ch, const char *call)
{
	struct vs__channel_cqs *l = ch->cqs;
	int flags, err = 0;

	if (__atomic_load_n(&l->nonblocking, __ATOMIC_ACQUIRE))
		return true;
	pthread_mutex_lock(&l->lock);
	if (!l->nonblocking) {
		flags = fcntl(ch->ch->fd, F_GETFL);
		if (flags < 0 || fcntl(ch->ch->fd, F_SETFL, flags | O_NONBLOCK) < 0)
			err = errno ? errno : EIO;
		else
			__atomic_store_n(&l->nonblocking, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&l->lock);
	if (err)
		vs__set_error(call, err, "fcntl cannot make the completion "
			      "channel's fd %d non-blocking", ch->ch->fd);
	return !err;
}

int vs_channel_fd(const struct vs_channel *ch)
{
	if (!ch || ch->h.magic != VS_KIND_CHANNEL ||
	    !hand_out(ch, "vs_channel_fd"))
		return -1;
	return ch->ch->fd;
}

struct ibv_comp_channel *vs_channel_raw(const struct vs_channel *ch)
{
	if (!ch || ch->h.magic != VS_KIND_CHANNEL ||
	    !hand_out(ch, "vs_channel_raw"))
		return NULL;
	return ch->ch;
}

void *vs_cq_context(const struct vs_cq *cq)
{
	return cq && cq->h.magic == VS_KIND_CQ ? cq->user_context : NULL;
}

/* A CQ's mark: it may hold completions to poll (see the header comment). */
static bool pending(const struct vs_cq *cq)
{
	return __atomic_load_n(&cq->ev_pending, __ATOMIC_RELAXED);
}

static void set_pending(struct vs_cq *cq, bool on)
{
	__atomic_store_n(&cq->ev_pending, on, __ATOMIC_RELAXED);
}

static bool cq_open(const struct vs_cq *cq)
{
	return __atomic_load_n(&cq->h.magic, __ATOMIC_ACQUIRE) == VS_KIND_CQ;
}

/* Takes the right to read the fd; false when another holds it. */
static bool take_reader(struct vs__channel_cqs *l)
{
	bool no = false;

	return __atomic_compare_exchange_n(&l->reader, &no, true, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* Gives it back, the lock held: wakes the waits sleeping on turn. */
static void give_reader_locked(struct vs__channel_cqs *l)
{
	__atomic_store_n(&l->reader, false, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->turn_waiters, __ATOMIC_SEQ_CST))
		pthread_cond_broadcast(&l->turn);
}

/* The same without the lock: it is taken only when some wait sleeps on turn. */
static void give_reader(struct vs__channel_cqs *l)
{
	__atomic_store_n(&l->reader, false, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->turn_waiters, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&l->lock);
		pthread_cond_broadcast(&l->turn);
		pthread_mutex_unlock(&l->lock);
	}
}

/*
 * The lock held, the right taken by another: sleeps on turn until it is
 * given back (or the timeout).  0: look again; -EAGAIN, -ETIMEDOUT.
 */
static int wait_turn(struct vs__channel_cqs *l, int timeout_ms, int64_t deadline)
{
	int ret = 0;

	__atomic_add_fetch(&l->turn_waiters, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->reader, __ATOMIC_SEQ_CST))
		ret = vs__wait_cond(&l->turn, &l->lock, timeout_ms, deadline);
	__atomic_sub_fetch(&l->turn_waiters, 1, __ATOMIC_SEQ_CST);
	return ret;
}

/* The CQ of an event, if it is one of this channel's (never trusts ctx blindly). */
static struct vs_cq *cq_of_event(struct vs__channel_cqs *l, struct ibv_cq *icq,
				 const void *ctx)
{
	for (struct vs_cq *cq = l->head; cq; cq = cq->ch_next)
		if ((const void *)cq == ctx && cq->cq == icq)
			return cq;
	return NULL;
}

/* An event of cq was read: counted, acked ACK_BATCH at a time. */
static void count_event(struct vs_cq *cq)
{
	if (++cq->unacked >= ACK_BATCH) {
		ibv_ack_cq_events(cq->cq, cq->unacked);
		cq->unacked = 0;
	}
}

static inline bool may_hold(struct vs_cq *cq)
{
	return pending(cq) ||
	       (__atomic_load_n(&cq->stash, __ATOMIC_RELAXED) &&
		vs__cq_stash_waiting(cq)) ||
	       (cq->legacy && vs__legacy_cq_buffered(cq->legacy));
}

/*
 * Polls the CQs that may hold completions (only: just that one), serving
 * them round robin; > 0 with *from set, 0 when none had any, < 0.
 */
static int poll_ready(struct vs__channel_cqs *l, struct vs_cq *only,
		      struct vs_cq **from, struct vs_wc *wc, int max)
{
	struct vs_cq *cq, *next;

	for (cq = only ? only : l->head; cq; cq = next) {
		int n;

		next = only ? NULL : cq->ch_next;
		if (!may_hold(cq))
			continue;
		if (!cq_open(cq)) {
			set_pending(cq, false); /* closed by the user */
			continue;
		}
		/* cleared before the poll: a mark made after it stays */
		set_pending(cq, false);
		n = vs_cq_poll(cq, wc, max);
		if (n < 0)
			return n;
		/* a full wc[] may have left more: poll it again before sleeping */
		if (n == max)
			set_pending(cq, true);
		if (n) {
			if (!only && l->n > 1) {
				/* the others go first next time */
				vs__channel_cqs_remove(l, cq);
				vs__channel_cqs_append(l, cq);
			}
			*from = cq;
			return n;
		}
	}
	return 0;
}

/*
 * An event of cq was read (and counted or acked): re-arms cq before it is
 * polled, so a later completion raises an event, and marks it to be
 * polled.  1, 0 when the user closed cq (nobody polls it), or < 0.
 */
static int rearm(struct vs_cq *cq, const char *verb)
{
	int err;

	if (!cq_open(cq))
		return 0;
	err = ibv_req_notify_cq(cq->cq, cq->solicited_only);
	if (err)
		return vs__verb_error(verb, "ibv_req_notify_cq", err,
				      "cannot re-arm the CQ");
	set_pending(cq, true);
	return 1;
}

/*
 * The lock and the right held: an event (icq, ctx) was read.  Counted
 * when its CQ is on the list (then re-armed and marked), else acked at
 * once: a CQ created on the raw channel, or one whose destroy, past the
 * list, waits for this ack.  Returns rearm's answer, or 0.
 */
static int took_event(struct vs__channel_cqs *l, struct ibv_cq *icq, void *ctx,
		      struct vs_cq **cq_out, const char *verb)
{
	struct vs_cq *cq = cq_of_event(l, icq, ctx);

	*cq_out = cq;
	if (!cq) {
		ibv_ack_cq_events(icq, 1);
		return 0;
	}
	count_event(cq);
	return rearm(cq, verb);
}

/*
 * Under the lock, the right held: reads the channel's events until one
 * concerns only (any CQ when only is NULL) or none is left, re-arming and
 * marking each CQ.  Reads only when that cannot block: the fd is
 * non-blocking (EAGAIN says none), or poll() says an event is there.
 * Events after that one stay in the fd (it stays readable) for the next
 * wait: no read that can only say EAGAIN.  Returns 1 when an event
 * concerned only (or any), 0, or a negative errno.
 */
static int read_held(struct vs_channel *ch, struct vs_cq *only, const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;

	for (;;) {
		struct pollfd p = { .fd = ch->ch->fd, .events = POLLIN };
		struct ibv_cq *icq;
		struct vs_cq *cq;
		void *ctx;
		int n;

		if (!__atomic_load_n(&l->nonblocking, __ATOMIC_ACQUIRE) &&
		    poll(&p, 1, 0) != 1)
			return 0;
		if (ibv_get_cq_event(ch->ch, &icq, &ctx)) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return vs__verb_error(verb, "ibv_get_cq_event",
					      vs__errno_or(EIO),
					      "reading the completion channel "
					      "(fd %d) failed", ch->ch->fd);
		}
		n = took_event(l, icq, ctx, &cq, verb);
		if (n < 0)
			return n;
		if (n && (!only || cq == only))
			return 1;
	}
}

/*
 * Under the lock: reads the events it can (read_held) unless another wait
 * sleeps on the fd; that one would sleep on through an event read here
 * (or, the fd blocking, this read would take the event poll() saw).
 */
static int read_events(struct vs_channel *ch, struct vs_cq *only, const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;
	int ret;

	if (!take_reader(l))
		return 0;
	ret = read_held(ch, only, verb);
	/* no wait sleeps on turn for this: they look at reader under the lock */
	__atomic_store_n(&l->reader, false, __ATOMIC_SEQ_CST);
	return ret;
}

/* A read of the blocking fd failed: 0 to look again, or < 0. */
static int read_failed(struct vs_channel *ch, int err, const char *verb)
{
	/* a signal, or the fd was handed out (non-blocking) meanwhile */
	if (err == EINTR || err == EAGAIN || err == EWOULDBLOCK)
		return 0;
	return vs__verb_error(verb, "ibv_get_cq_event", err ? err : EIO,
			      "reading the completion channel (fd %d) failed",
			      ch->ch->fd);
}

/*
 * The sleeper's read for ever on the blocking fd, the right held, without
 * the lock (a CQ's close must not wait for it): one system call, as the
 * textbook's.  Entered and left with the lock held; 0 (look again) or < 0.
 */
static int read_blocking(struct vs_channel *ch, const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;
	struct ibv_cq *icq;
	struct vs_cq *cq;
	void *ctx;
	int got, err, ret;

	pthread_mutex_unlock(&l->lock);
	got = !ibv_get_cq_event(ch->ch, &icq, &ctx);
	err = errno;
	pthread_mutex_lock(&l->lock);
	if (!got)
		return read_failed(ch, err, verb);
	ret = took_event(l, icq, ctx, &cq, verb);
	return ret < 0 ? ret : 0;
}

/*
 * One sleep of a wait, lock held (released while sleeping): as the
 * sleeper on the fd when no other wait has the right to read it, else on
 * the condition until it is given back.  0: look again; -EAGAIN,
 * -ETIMEDOUT or an error.
 */
static int sleep_once(struct vs_channel *ch, int timeout_ms, int64_t deadline,
		      const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;
	int ret;

	if (timeout_ms == 0)
		return -EAGAIN;
	if (!take_reader(l))
		return wait_turn(l, timeout_ms, deadline);
	if (timeout_ms < 0 && !__atomic_load_n(&l->nonblocking, __ATOMIC_ACQUIRE)) {
		ret = read_blocking(ch, verb);
	} else {
		/* -EAGAIN and -ETIMEDOUT: the public call records */
		pthread_mutex_unlock(&l->lock);
		ret = vs__wait_fd(ch->ch->fd, timeout_ms, deadline, verb);
		pthread_mutex_lock(&l->lock);
	}
	give_reader_locked(l);
	return ret;
}

/*
 * Reads the events a wait can read before it sleeps; 1 when one concerned
 * only (any), 0, < 0.  A wait for ever on a blocking fd reads nothing
 * here: its sleep reads the event in one call.  first: the wait has not
 * slept yet; when the last wait had to sleep, this one likely will:
 * the sleep's poll() returns at once if an event is there, cheaper than a
 * read that says EAGAIN.  Race-free either way: a completion on an armed
 * CQ raises an event, and a CQ is disarmed only while its event waits in
 * the fd or after a read that marked it to be polled.
 */
static int read_ready(struct vs_channel *ch, struct vs_cq *only, int timeout_ms,
		      bool first, const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;

	if (!__atomic_load_n(&l->nonblocking, __ATOMIC_ACQUIRE)) {
		if (timeout_ms < 0)
			return 0;
	} else if (first && l->slept && timeout_ms != 0) {
		return 0;
	}
	return read_events(ch, only, verb);
}

/*
 * A reference on ch for the length of a wait, so that a close meanwhile
 * never frees what the wait uses (the wait's release destroys then):
 * 0, or -EINVAL when the channel is already going.
 */
static int hold(struct vs_channel *ch, const char *verb)
{
	if (!vs__ref_get_live(&ch->h))
		return vs__set_error(verb, EINVAL, "the completion channel is "
				     "being closed");
	return 0;
}

/* The end of a held wait: its result, else the error of the last put. */
static int release(struct vs_channel *ch, int ret, const char *verb)
{
	int err = vs__channel_put(ch, verb);

	return ret ? ret : err;
}

static int closed_under_wait(const char *verb)
{
	return vs__set_error(verb, EINVAL, "cq was closed while this wait was on it");
}

static int wait_on(struct vs_channel *ch, struct vs_cq *only, int timeout_ms,
		   struct vs_cq **from, struct vs_wc *wc, int max,
		   const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;
	int64_t deadline = vs__deadline(timeout_ms);
	bool slept = false;
	int n;

	pthread_mutex_lock(&l->lock);
	/* a CQ's own wait looks at the CQ first: no system call if it has some */
	if (only)
		set_pending(only, true);
	for (;;) {
		if (only && !cq_open(only)) {
			n = closed_under_wait(verb);
			break;
		}
		n = poll_ready(l, only, from, wc, max);
		if (n)
			break;
		n = read_ready(ch, only, timeout_ms, !slept, verb);
		if (n < 0)
			break;
		if (n)
			continue; /* re-armed: now poll them */
		n = sleep_once(ch, timeout_ms, deadline, verb);
		if (n)
			break;
		slept = true;
	}
	if (n > 0)
		l->slept = slept;
	pthread_mutex_unlock(&l->lock);
	return n;
}

/*
 * vs_cq_wait for ever on a blocking fd, cq held by the caller (so never
 * destroyed meanwhile): the general path's steps in a straight line, the
 * lock taken only for another CQ's event.  Polls cq, takes the right to
 * read the fd, looks at cq's marks once more (a reader may have marked it
 * after the poll), sleeps in the read; its own event is counted, cq
 * re-armed and polled.  Another wait holding the right, or the fd handed
 * out: the general path.
 */
static int wait_forever(struct vs_cq *cq, struct vs_wc *wc, int max)
{
	struct vs_channel *ch = cq->channel;
	struct vs__channel_cqs *l = ch->cqs;
	struct vs_cq *from;

	for (;;) {
		struct ibv_cq *icq;
		void *ctx;
		int n, err;

		if (!cq_open(cq))
			return closed_under_wait("vs_cq_wait");
		/* cleared before the poll: a mark made after it stays */
		if (pending(cq))
			set_pending(cq, false);
		n = vs_cq_poll(cq, wc, max);
		if (n) {
			if (n == max)
				set_pending(cq, true);
			return n;
		}
		if (!take_reader(l))
			break;
		if (may_hold(cq)) {
			give_reader(l);
			continue;
		}
		/* handed out: the read may not block (looked at with the right) */
		if (__atomic_load_n(&l->nonblocking, __ATOMIC_ACQUIRE)) {
			give_reader(l);
			break;
		}
		if (!ibv_get_cq_event(ch->ch, &icq, &ctx)) {
			if (ctx == (void *)cq && icq == cq->cq) {
				/* ours: on the list until our reference goes */
				count_event(cq);
				/* closed meanwhile: nobody polls it, no re-arm */
				err = cq_open(cq) ? ibv_req_notify_cq(cq->cq,
						cq->solicited_only) : 0;
				give_reader(l);
				if (err)
					return vs__verb_error("vs_cq_wait",
							      "ibv_req_notify_cq",
							      err, "cannot re-arm "
							      "the CQ");
				continue;
			}
			pthread_mutex_lock(&l->lock);
			n = took_event(l, icq, ctx, &from, "vs_cq_wait");
		} else {
			err = errno;
			pthread_mutex_lock(&l->lock);
			n = read_failed(ch, err, "vs_cq_wait");
		}
		give_reader_locked(l);
		pthread_mutex_unlock(&l->lock);
		if (n < 0)
			return n;
	}
	return wait_on(ch, cq, -1, &from, wc, max, "vs_cq_wait");
}

static int wait_args(const struct vs_wc *wc, int max, const char *verb)
{
	if (!wc)
		return vs__set_error(verb, EINVAL, "wc is NULL");
	if (max <= 0)
		return vs__set_error(verb, EINVAL, "max is %d: room for at "
				     "least one completion is needed", max);
	return 0;
}

int vs_channel_wait(struct vs_channel *ch, int timeout_ms,
		    struct vs_cq **cq_out, struct vs_wc *wc, int max)
{
	struct vs_cq *from = NULL;
	int ret = vs__check_handle(ch, VS_KIND_CHANNEL, "vs_channel_wait", "ch");

	if (ret)
		return ret;
	if (!cq_out)
		return vs__set_error("vs_channel_wait", EINVAL, "cq_out is NULL");
	*cq_out = NULL;
	ret = wait_args(wc, max, "vs_channel_wait");
	if (ret)
		return ret;
	ret = hold(ch, "vs_channel_wait");
	if (ret)
		return ret;
	ret = release(ch, wait_on(ch, NULL, timeout_ms, &from, wc, max,
				  "vs_channel_wait"), "vs_channel_wait");
	if (ret > 0)
		*cq_out = from;
	else if (ret == -ETIMEDOUT)
		vs__set_error("vs_channel_wait", ETIMEDOUT, "no completion on "
			      "the CQs of channel %p (fd %d) within %d ms "
			      "(timed out)", (void *)ch, ch->ch->fd, timeout_ms);
	return ret;
}

/*
 * A reference on cq for the length of its wait: a close meanwhile never
 * destroys it (the wait's put does), and cq's own reference on its
 * channel keeps the channel.  0, or -EINVAL when cq is already going.
 */
static int hold_cq(struct vs_cq *cq)
{
	return vs__ref_get_live(&cq->h) ? 0 : closed_under_wait("vs_cq_wait");
}

int vs_cq_wait(struct vs_cq *cq, int timeout_ms, struct vs_wc *wc, int max)
{
	struct vs_cq *from;
	int ret = vs__check_handle(cq, VS_KIND_CQ, "vs_cq_wait", "cq");

	if (ret)
		return ret;
	if (!cq->channel)
		return vs__set_error("vs_cq_wait", EINVAL,
				     "cq has no completion channel (create it "
				     "with .channel = a vs_channel to wait on it)");
	if (VS_UNLIKELY(!wc || max <= 0))
		return wait_args(wc, max, "vs_cq_wait");
	ret = hold_cq(cq);
	if (ret)
		return ret;
	ret = timeout_ms < 0 ? wait_forever(cq, wc, max) :
			       wait_on(cq->channel, cq, timeout_ms, &from, wc,
				       max, "vs_cq_wait");
	/* the put inline: the destroy is the rare case */
	if (VS_UNLIKELY(vs__ref_put(&cq->h)))
		ret = vs__first_err(ret, vs__cq_destroy(cq, "vs_cq_wait"));
	if (VS_UNLIKELY(ret == -ETIMEDOUT))
		vs__set_error("vs_cq_wait", ETIMEDOUT, "no completion on CQ %p "
			      "within %d ms (timed out)", (void *)cq, timeout_ms);
	return ret;
}

static int sleep_on(struct vs_cq *cq, int timeout_ms, int64_t deadline,
		    const char *call)
{
	struct vs_channel *ch = cq->channel;
	struct vs__channel_cqs *l = ch->cqs;
	int n;

	pthread_mutex_lock(&l->lock);
	n = read_ready(ch, cq, timeout_ms, false, call);
	/* an event read earlier (by any wait) says the same: poll again */
	if (n == 0 && !pending(cq))
		n = sleep_once(ch, timeout_ms, deadline, call);
	set_pending(cq, false); /* the caller polls it to empty now */
	pthread_mutex_unlock(&l->lock);
	return n < 0 ? n : 0;
}

int vs__channel_sleep(struct vs_cq *cq, int timeout_ms, int64_t deadline,
		      const char *call)
{
	int ret = hold(cq->channel, call);

	return ret ? ret : release(cq->channel,
				   sleep_on(cq, timeout_ms, deadline, call), call);
}
