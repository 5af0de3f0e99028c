/* SPDX-License-Identifier: MIT */
/*
 * A legacy CQ behind the ibv_start_poll family.  The poll inlines call
 * the same ops on every CQ; where the provider has no ibv_cq_ex (or
 * .legacy was asked) they get these, over ibv_poll_cq.  Like a provider,
 * a successful start holds the CQ's lock until the end, so iterations on
 * one CQ from several threads take turns.  Completions are polled 16 at a
 * time; the ones not yet consumed wait here for the next poll.
 */
#include <pthread.h>

#include "core.h"

#define LEGACY_CQ_BATCH 16

struct vs__legacy_cq {
	struct ibv_cq_ex ex; /* first: the ops the inlines call */
	struct ibv_cq *cq;
	pthread_mutex_t lock;
	struct ibv_wc wc[LEGACY_CQ_BATCH];
	int pos; /* wc[pos] is current while pos < n */
	int n;
	/*
	 * n - pos as of the last end (atomic): what a wait reads before it
	 * sleeps, without the lock.  A poll in progress looks not yet begun,
	 * as it would to a reader that took the lock first.
	 */
	int buffered;
};

static struct vs__legacy_cq *cq_of(struct ibv_cq_ex *ex)
{
	return (struct vs__legacy_cq *)ex;
}

static const struct ibv_wc *current_wc(struct ibv_cq_ex *ex)
{
	struct vs__legacy_cq *l = cq_of(ex);

	return &l->wc[l->pos];
}

/* Makes a completion current, polling when all are consumed: 0, ENOENT or an errno. */
static int fill(struct vs__legacy_cq *l)
{
	if (l->pos == l->n) {
		int got = ibv_poll_cq(l->cq, LEGACY_CQ_BATCH, l->wc);

		l->pos = l->n = 0;
		if (got < 0)
			return got < -1 ? -got : EIO;
		if (got == 0)
			return ENOENT;
		l->n = got;
	}
	l->ex.wr_id = l->wc[l->pos].wr_id;
	l->ex.status = l->wc[l->pos].status;
	return 0;
}

static int start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct vs__legacy_cq *l = cq_of(ex);
	int ret;

	(void)attr;
	pthread_mutex_lock(&l->lock);
	ret = fill(l);
	if (ret) {
		__atomic_store_n(&l->buffered, 0, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&l->lock);
	}
	return ret;
}

static int next_poll(struct ibv_cq_ex *ex)
{
	struct vs__legacy_cq *l = cq_of(ex);

	if (l->pos < l->n)
		l->pos++;
	return fill(l);
}

static void end_poll(struct ibv_cq_ex *ex)
{
	struct vs__legacy_cq *l = cq_of(ex);

	if (l->pos < l->n)
		l->pos++;
	__atomic_store_n(&l->buffered, l->n - l->pos, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&l->lock);
}

static enum ibv_wc_opcode read_opcode(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->opcode;
}

static uint32_t read_vendor_err(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->vendor_err;
}

static uint32_t read_byte_len(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->byte_len;
}

static __be32 read_imm_data(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->imm_data;
}

static uint32_t read_qp_num(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->qp_num;
}

static uint32_t read_src_qp(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->src_qp;
}

static unsigned int read_wc_flags(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->wc_flags;
}

static uint32_t read_slid(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->slid;
}

static uint8_t read_sl(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->sl;
}

static uint8_t read_dlid_path_bits(struct ibv_cq_ex *ex)
{
	return current_wc(ex)->dlid_path_bits;
}

struct vs__legacy_cq *vs__legacy_cq_create(struct ibv_cq *cq)
{
	struct vs__legacy_cq *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	if (pthread_mutex_init(&l->lock, NULL)) {
		free(l);
		return NULL;
	}
	l->cq = cq;
	l->ex.context = cq->context;
	l->ex.cqe = cq->cqe;
	l->ex.start_poll = start_poll;
	l->ex.next_poll = next_poll;
	l->ex.end_poll = end_poll;
	l->ex.read_opcode = read_opcode;
	l->ex.read_vendor_err = read_vendor_err;
	l->ex.read_byte_len = read_byte_len;
	l->ex.read_imm_data = read_imm_data;
	l->ex.read_qp_num = read_qp_num;
	l->ex.read_src_qp = read_src_qp;
	l->ex.read_wc_flags = read_wc_flags;
	l->ex.read_slid = read_slid;
	l->ex.read_sl = read_sl;
	l->ex.read_dlid_path_bits = read_dlid_path_bits;
	return l;
}

bool vs__legacy_cq_is(const struct ibv_cq_ex *ops)
{
	return ops->start_poll == start_poll;
}

struct ibv_cq_ex *vs__legacy_cq_ops(struct vs__legacy_cq *l)
{
	return &l->ex;
}

void vs__legacy_cq_free(struct vs__legacy_cq *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

bool vs__legacy_cq_buffered(struct vs__legacy_cq *l)
{
	return __atomic_load_n(&l->buffered, __ATOMIC_ACQUIRE) > 0;
}
