/* SPDX-License-Identifier: MIT */
/*
 * Completion channels: many CQs on one ibv_comp_channel, and the
 * race-free wait (docs/API.md, "Events").
 *
 * The channel's CQ list and its lock are lib/channel_cqs.c (cq.c attaches
 * and destroys through it).  The lock is never held while sleeping.
 *
 * The fd stays blocking until the program is handed it (vs_channel_fd,
 * vs_channel_raw): a wait for ever then sleeps inside its one read of the
 * event, as the textbook loop does, instead of poll() and a read.  Then
 * it is O_NONBLOCK for good, for epoll.  One wait at a time sleeps on the
 * fd (the sleeper); others sleep on the channel's condition until the
 * sleeper has read an event (it marks the event's CQ for them) or leaves.
 * While a wait sleeps on the fd no other reads it, so every event wakes
 * the sleeper, which marks the event's CQ and wakes the others.  While
 * the fd is blocking nothing reads it unless that cannot block: the
 * sleeper's read for ever, or a read under the lock after poll() said an
 * event is there while no wait sleeps (the kernel removes a queued event
 * only on a read or its CQ's destroy, and both take turns under the lock
 * then).
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>

#include "vs_internal.h"

/* Events acked per ibv_ack_cq_events call (it takes a mutex each time). */
#define ACK_BATCH 64

int vs_channel_create(struct vs_context *ctx, struct vs_channel **out)
{
	struct vs_channel *ch;
	int ret = vs__check_handle(ctx, VS_KIND_CONTEXT, "vs_channel_create",
				   "ctx");

	if (ret)
		return ret;
	if (!out)
		return vs__set_error("vs_channel_create", EINVAL, "out is NULL");
	*out = NULL;
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

/* The CQ of an event, if it is one of this channel's (never trusts ctx blindly). */
static struct vs_cq *cq_of_event(struct vs__channel_cqs *l, struct ibv_cq *icq)
{
	for (struct vs_cq *cq = l->head; cq; cq = cq->ch_next)
		if (cq->cq == icq)
			return cq;
	return NULL;
}

static bool may_hold(struct vs_cq *cq)
{
	return cq->ev_pending || vs__cq_stash_waiting(cq) ||
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

	for (cq = l->head; cq; cq = next) {
		int n;

		next = cq->ch_next;
		if ((only && cq != only) || !may_hold(cq))
			continue;
		if (__atomic_load_n(&cq->h.magic, __ATOMIC_ACQUIRE) != VS_KIND_CQ) {
			cq->ev_pending = false; /* closed by the user */
			continue;
		}
		n = vs_cq_poll(cq, wc, max);
		if (n < 0)
			return n;
		/* a full wc[] may have left more: poll it again before sleeping */
		cq->ev_pending = n == max;
		if (n) {
			vs__channel_cqs_remove(l, cq);
			vs__channel_cqs_append(l, cq); /* the others go first next time */
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

	if (__atomic_load_n(&cq->h.magic, __ATOMIC_ACQUIRE) != VS_KIND_CQ)
		return 0;
	err = ibv_req_notify_cq(cq->cq, cq->solicited_only);
	if (err)
		return vs__verb_error(verb, "ibv_req_notify_cq", err,
				      "cannot re-arm the CQ");
	cq->ev_pending = true;
	return 1;
}

/*
 * Under the lock: whether this wait may read the fd now.  Not while
 * another sleeps on it: that one would sleep on through the event read
 * here (or, the fd blocking, take the event poll() saw, and this read
 * would block).  Then only when the read cannot block: the fd is
 * non-blocking (EAGAIN says none), or poll() says an event is there.
 */
static bool can_read(struct vs_channel *ch)
{
	struct vs__channel_cqs *l = ch->cqs;
	struct pollfd p = { .fd = ch->ch->fd, .events = POLLIN };

	if (l->sleeper)
		return false;
	return __atomic_load_n(&l->nonblocking, __ATOMIC_ACQUIRE) ||
	       poll(&p, 1, 0) == 1;
}

/*
 * Reads the channel's events until one concerns only (any CQ when only is
 * NULL) or none is left: acks them (in batches), re-arms and marks each
 * CQ to be polled.  Events after that one stay in the fd (it stays
 * readable) for the next wait: no read that can only say EAGAIN.
 * Returns 1 when an event concerned only (or any), 0, or a negative errno.
 */
static int read_events(struct vs_channel *ch, struct vs_cq *only, const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;

	while (can_read(ch)) {
		struct ibv_cq *icq;
		struct vs_cq *cq;
		void *ctx;
		int n;

		if (ibv_get_cq_event(ch->ch, &icq, &ctx)) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return vs__verb_error(verb, "ibv_get_cq_event",
					      vs__errno_or(EIO),
					      "reading the completion channel "
					      "(fd %d) failed", ch->ch->fd);
		}
		cq = cq_of_event(l, icq);
		if (!cq) {
			/* a CQ created on the raw channel: not ours to track */
			ibv_ack_cq_events(icq, 1);
			continue;
		}
		if (++cq->unacked >= ACK_BATCH) {
			ibv_ack_cq_events(icq, cq->unacked);
			cq->unacked = 0;
		}
		n = rearm(cq, verb);
		if (n < 0)
			return n;
		if (n && (!only || cq == only))
			return 1;
	}
	return 0;
}

/*
 * The sleeper's read for ever on the blocking fd, without the lock (a CQ's
 * close must not wait for it): one system call, as the textbook's.  The
 * event is acked at once, before the lock is taken again, because a
 * destroy of its CQ may be waiting for that ack under the lock.  Entered
 * and left with the lock held; 0 (look again) or < 0.
 */
static int read_blocking(struct vs_channel *ch, const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;
	struct ibv_cq *icq;
	struct vs_cq *cq;
	void *ctx;
	int got, err;

	pthread_mutex_unlock(&l->lock);
	got = !ibv_get_cq_event(ch->ch, &icq, &ctx);
	err = errno;
	if (got)
		ibv_ack_cq_events(icq, 1);
	pthread_mutex_lock(&l->lock);
	if (!got) {
		/* a signal, or the fd was handed out (non-blocking) meanwhile */
		if (err == EINTR || err == EAGAIN || err == EWOULDBLOCK)
			return 0;
		return vs__verb_error(verb, "ibv_get_cq_event", err ? err : EIO,
				      "reading the completion channel (fd %d) "
				      "failed", ch->ch->fd);
	}
	/*
	 * Its CQ may be gone by now: believed only if ctx is a handle still on
	 * this channel (handles are never reused) with that very ibv_cq.
	 */
	for (cq = l->head; cq; cq = cq->ch_next)
		if ((void *)cq == ctx && cq->cq == icq)
			break;
	got = cq ? rearm(cq, verb) : 0;
	return got < 0 ? got : 0;
}

/*
 * One sleep of a wait, lock held (released while sleeping): as the
 * sleeper on the fd when no other wait is, else on the condition until the
 * sleeper has read something or left.  0: look again; -EAGAIN,
 * -ETIMEDOUT or an error.
 */
static int sleep_once(struct vs_channel *ch, int timeout_ms, int64_t deadline,
		      const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;
	int ret;

	if (timeout_ms == 0)
		return -EAGAIN;
	if (l->sleeper)
		return vs__wait_cond(&l->turn, &l->lock, timeout_ms, deadline);
	l->sleeper = true;
	if (timeout_ms < 0 && !__atomic_load_n(&l->nonblocking, __ATOMIC_ACQUIRE)) {
		ret = read_blocking(ch, verb);
	} else {
		/* -EAGAIN and -ETIMEDOUT record nothing */
		pthread_mutex_unlock(&l->lock);
		ret = vs__wait_fd(ch->ch->fd, timeout_ms, deadline, verb);
		pthread_mutex_lock(&l->lock);
	}
	l->sleeper = false;
	pthread_cond_broadcast(&l->turn);
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
	int refs = __atomic_load_n(&ch->h.refs, __ATOMIC_RELAXED);

	do {
		if (refs <= 0)
			return vs__set_error(verb, EINVAL, "the completion "
					     "channel is being closed");
	} while (!__atomic_compare_exchange_n(&ch->h.refs, &refs, refs + 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return 0;
}

/* The end of a held wait: its result, else the error of the last put. */
static int release(struct vs_channel *ch, int ret, const char *verb)
{
	int err = vs__channel_put(ch, verb);

	return ret ? ret : err;
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
		only->ev_pending = true;
	for (;;) {
		if (only && __atomic_load_n(&only->h.magic, __ATOMIC_ACQUIRE) !=
				    VS_KIND_CQ) {
			n = vs__set_error(verb, EINVAL, "cq was closed while this "
					  "wait was on it");
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
	return ret;
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
	ret = wait_args(wc, max, "vs_cq_wait");
	if (!ret)
		ret = hold(cq->channel, "vs_cq_wait");
	if (ret)
		return ret;
	return release(cq->channel, wait_on(cq->channel, cq, timeout_ms, &from,
					    wc, max, "vs_cq_wait"), "vs_cq_wait");
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
	if (n == 0 && !cq->ev_pending)
		n = sleep_once(ch, timeout_ms, deadline, call);
	cq->ev_pending = false; /* the caller polls it to empty now */
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
