/* SPDX-License-Identifier: MIT */
/*
 * The CQs of a completion channel: a list under one lock, and the
 * channel's last reference.  Apart from lib/events/channel.c so that cq.c
 * (attach at create, destroy at close) and channel.c (the wait) both
 * build on it without depending on each other.
 *
 * A CQ's destroy unlinks it and acks the events counted for it under the
 * lock, then calls ibv_destroy_cq without the lock: that call waits until
 * every event the channel gave out for the CQ is acked, and the reader of
 * such an event may need the lock to learn that the CQ is gone (then it
 * acks at once, lib/events/channel.c).  An event is counted in cq->unacked only
 * while its CQ is on the list (under the lock, or by a wait that holds a
 * reference on that CQ, which keeps it from its destroy), so the destroy
 * acks all of them; the kernel drops the events of a destroyed CQ from
 * the channel, so nothing reads one after.
 */
#include <pthread.h>

#include "core.h"

void vs__channel_cqs_remove(struct vs__channel_cqs *l, struct vs_cq *cq)
{
	if (cq->ch_prev)
		cq->ch_prev->ch_next = cq->ch_next;
	else
		l->head = cq->ch_next;
	if (cq->ch_next)
		cq->ch_next->ch_prev = cq->ch_prev;
	else
		l->tail = cq->ch_prev;
	cq->ch_prev = cq->ch_next = NULL;
	l->n--;
}

void vs__channel_cqs_append(struct vs__channel_cqs *l, struct vs_cq *cq)
{
	cq->ch_next = NULL;
	cq->ch_prev = l->tail;
	if (l->tail)
		l->tail->ch_next = cq;
	else
		l->head = cq;
	l->tail = cq;
	l->n++;
}

int vs__channel_attach(struct vs_channel *ch, struct vs_cq *cq, const char *verb)
{
	struct vs__channel_cqs *l = ch->cqs;
	int err;

	pthread_mutex_lock(&l->lock);
	if (__atomic_load_n(&ch->h.magic, __ATOMIC_ACQUIRE) != VS_KIND_CHANNEL) {
		pthread_mutex_unlock(&l->lock);
		return vs__check_handle(ch, VS_KIND_CHANNEL, verb, "cfg->channel");
	}
	/* armed before anything can complete on it: no first event is lost */
	err = ibv_req_notify_cq(cq->cq, cq->solicited_only);
	if (err) {
		pthread_mutex_unlock(&l->lock);
		return vs__verb_error(verb, "ibv_req_notify_cq", err,
				      "cannot arm the new CQ");
	}
	cq->channel = ch;
	vs__channel_cqs_append(l, cq);
	vs__ref_get(&ch->h);
	pthread_mutex_unlock(&l->lock);
	return 0;
}

int vs__channel_cq_destroy(struct vs_cq *cq)
{
	struct vs__channel_cqs *l = cq->channel->cqs;
	int err;

	pthread_mutex_lock(&l->lock);
	vs__channel_cqs_remove(l, cq);
	if (cq->unacked) {
		ibv_ack_cq_events(cq->cq, cq->unacked);
		cq->unacked = 0;
	}
	pthread_mutex_unlock(&l->lock);
	/* without the lock: a reader of its last event acks it under the lock */
	err = ibv_destroy_cq(cq->cq);
	if (err) {
		/*
		 * The CQ stays: back on the list, armed again and marked, since
		 * its events meanwhile were acked and not followed up.
		 */
		pthread_mutex_lock(&l->lock);
		vs__channel_cqs_append(l, cq);
		ibv_req_notify_cq(cq->cq, cq->solicited_only);
		__atomic_store_n(&cq->ev_pending, true, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&l->lock);
	}
	return err;
}

int vs__channel_put(struct vs_channel *ch, const char *verb)
{
	struct vs_context *ctx;
	int err;

	if (!vs__ref_put(&ch->h))
		return 0;
	err = ibv_destroy_comp_channel(ch->ch);
	if (err) {
		int ret;

		vs__handle_reopen(&ch->h, VS_KIND_CHANNEL);
		ret = vs__verb_error(verb, "ibv_destroy_comp_channel", err,
				     "cannot destroy the completion channel "
				     "(a CQ created through a raw handle still "
				     "uses it?); it stays open: close it again "
				     "to retry");
		vs__deferred_note(verb, "vs_channel_close", "completion channel");
		return ret;
	}
	pthread_cond_destroy(&ch->cqs->turn);
	pthread_mutex_destroy(&ch->cqs->lock);
	free(ch->cqs);
	ch->cqs = NULL;
	ctx = ch->ctx;
	vs__handle_free(ch, sizeof(*ch));
	return vs__context_put(ctx, verb);
}

