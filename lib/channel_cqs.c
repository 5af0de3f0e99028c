/* SPDX-License-Identifier: MIT */
/*
 * The CQs of a completion channel: a list under one lock, and the
 * channel's last reference.  Apart from lib/channel.c so that cq.c
 * (attach at create, destroy at close) and channel.c (the wait) both
 * build on it without depending on each other.
 *
 * Everything that reads events, acks them or destroys a CQ of the
 * channel holds the lock, so an event read for a CQ is acked before that
 * CQ's ibv_destroy_cq (which would otherwise wait for the ack for ever),
 * and a CQ is never touched after its destroy (the kernel drops the
 * events of a destroyed CQ from the channel).
 */
#include <pthread.h>

#include "vs_internal.h"

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
	if (cq->unacked) {
		ibv_ack_cq_events(cq->cq, cq->unacked);
		cq->unacked = 0;
	}
	err = ibv_destroy_cq(cq->cq);
	if (!err)
		vs__channel_cqs_remove(l, cq);
	pthread_mutex_unlock(&l->lock);
	return err;
}

int vs__channel_put(struct vs_channel *ch, const char *verb)
{
	int err;

	if (!vs__ref_put(&ch->h))
		return 0;
	err = ibv_destroy_comp_channel(ch->ch);
	if (err) {
		vs__handle_reopen(&ch->h, VS_KIND_CHANNEL);
		return vs__verb_error(verb, "ibv_destroy_comp_channel", err,
				      "cannot destroy the completion channel "
				      "(a CQ created through a raw handle still "
				      "uses it?); it stays open: close it again "
				      "to retry");
	}
	pthread_cond_destroy(&ch->cqs->turn);
	pthread_mutex_destroy(&ch->cqs->lock);
	free(ch->cqs);
	ch->cqs = NULL;
	return vs__context_put(ch->ctx, verb);
}

