/* SPDX-License-Identifier: MIT */
/*
 * Completion channels: many CQs on one ibv_comp_channel, and the
 * race-free wait (docs/API.md, "Events").
 *
 * The channel's CQ list and its lock are lib/channel_cqs.c (cq.c attaches
 * and destroys through it).  The lock is not held while sleeping in
 * poll().
 */
#include <fcntl.h>
#include <pthread.h>

#include "vs_internal.h"

/* Events acked per ibv_ack_cq_events call (it takes a mutex each time). */
#define ACK_BATCH 64

int vs_channel_create(struct vs_context *ctx, struct vs_channel **out)
{
	struct vs_channel *ch;
	int flags, ret = vs__check_handle(ctx, VS_KIND_CONTEXT,
					  "vs_channel_create", "ctx");

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
	errno = 0;
	ch->ch = ibv_create_comp_channel(ctx->ctx);
	if (!ch->ch) {
		ret = vs__verb_error("vs_channel_create", "ibv_create_comp_channel",
				     vs__errno_or(ENOMEM),
				     "cannot create a completion channel on %s",
				     ctx->name);
		goto fail;
	}
	/* non-blocking: the fd may go straight into an event loop */
	flags = fcntl(ch->ch->fd, F_GETFL);
	if (flags < 0 || fcntl(ch->ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		ret = vs__set_error("vs_channel_create", errno,
				    "fcntl cannot make the completion channel's "
				    "fd %d non-blocking", ch->ch->fd);
		ibv_destroy_comp_channel(ch->ch);
		goto fail;
	}
	vs__handle_init(&ch->h, VS_KIND_CHANNEL);
	ch->ctx = ctx;
	vs__ref_get(&ctx->h);
	*out = ch;
	return 0;
fail:
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

int vs_channel_fd(const struct vs_channel *ch)
{
	return ch && ch->h.magic == VS_KIND_CHANNEL ? ch->ch->fd : -1;
}

struct ibv_comp_channel *vs_channel_raw(const struct vs_channel *ch)
{
	return ch && ch->h.magic == VS_KIND_CHANNEL ? ch->ch : NULL;
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
 * Reads the channel's events until one concerns only (any CQ when only is
 * NULL) or none is left: acks them (in batches), re-arms and marks each
 * CQ to be polled.  Events after that one stay in the fd (it stays
 * readable) for the next wait: no read that can only say EAGAIN.
 * Returns 1 when an event concerned only (or any), 0, or a negative errno.
 */
static int read_events(struct vs_channel *ch, struct vs_cq *only, const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;

	for (;;) {
		struct ibv_cq *icq;
		struct vs_cq *cq;
		void *ctx;
		int err;

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
		if (__atomic_load_n(&cq->h.magic, __ATOMIC_ACQUIRE) != VS_KIND_CQ)
			continue; /* closed by the user: nobody polls it */
		/* re-armed before it is polled: a later completion raises an event */
		err = ibv_req_notify_cq(icq, cq->solicited_only);
		if (err)
			return vs__verb_error(verb, "ibv_req_notify_cq", err,
					      "cannot re-arm the CQ");
		cq->ev_pending = true;
		if (!only || cq == only)
			return 1;
	}
}

static int wait_on(struct vs_channel *ch, struct vs_cq *only, int timeout_ms,
		   struct vs_cq **from, struct vs_wc *wc, int max,
		   const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;
	int64_t deadline = vs__deadline(timeout_ms);
	bool sleep_first, slept = false;
	int n;

	pthread_mutex_lock(&l->lock);
	/* a CQ's own wait looks at the CQ first: no system call if it has some */
	if (only)
		only->ev_pending = true;
	/*
	 * When the last wait had to sleep, this one likely will: poll() the fd
	 * first rather than a read that says EAGAIN (poll returns at once if
	 * an event is there).  Race-free either way: a completion on an armed
	 * CQ raises an event, and a CQ is disarmed only while its event waits
	 * in the fd or after a read that marked it to be polled.
	 */
	sleep_first = l->slept && timeout_ms != 0;
	for (;;) {
		n = poll_ready(l, only, from, wc, max);
		if (n)
			break;
		if (!sleep_first) {
			n = read_events(ch, only, verb);
			if (n < 0)
				break;
			if (n)
				continue; /* re-armed: now poll them */
		}
		sleep_first = false;
		/* sleeps without the lock; -EAGAIN and -ETIMEDOUT record nothing */
		pthread_mutex_unlock(&l->lock);
		n = vs__wait_fd(ch->ch->fd, timeout_ms, deadline, verb);
		if (n)
			return n;
		slept = true;
		pthread_mutex_lock(&l->lock);
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
	ret = wait_on(ch, NULL, timeout_ms, &from, wc, max, "vs_channel_wait");
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
	return ret ? ret : wait_on(cq->channel, cq, timeout_ms, &from, wc, max,
				   "vs_cq_wait");
}

int vs__channel_sleep(struct vs_cq *cq, int timeout_ms, int64_t deadline,
		      const char *call)
{
	struct vs_channel *ch = cq->channel;
	struct vs__channel_cqs *l = ch->cqs;
	int n;

	pthread_mutex_lock(&l->lock);
	n = read_events(ch, cq, call);
	/* an event read earlier (by any wait) says the same: poll again */
	if (n == 0 && cq->ev_pending)
		n = 1;
	cq->ev_pending = false; /* the caller polls it to empty now */
	pthread_mutex_unlock(&l->lock);
	if (n)
		return n < 0 ? n : 0;
	return vs__wait_fd(ch->ch->fd, timeout_ms, deadline, call);
}
