/* SPDX-License-Identifier: MIT */
/*
 * A CQ's stash: completions a wait took from the CQ that were not the
 * ones it waited for (vs_cq_wait_wr, scopes).  They must not be lost, so
 * the CQ's next polls give them back first, in the order they completed.
 *
 * The poll inlines call cq->poll_ops.  While the stash is empty that is
 * the provider's ops (or lib/core/legacy_cq.c's) as always, so the data path
 * pays nothing; while it holds completions poll_ops points at the ops
 * here, which serve the stash and then pass on to the real ops.  The
 * stash is made at the CQ's first wait and lives until its destroy, so
 * a poller that loaded either pointer stays on valid ops.
 *
 * Lock order: the stash's lock, then the real ops' (ibv_start_poll).
 */
#include <pthread.h>

#include "core.h"

enum { SERVING_NONE, SERVING_STASH, SERVING_REAL };

struct vs__cq_stash {
	struct ibv_cq_ex ex;    /* first: the ops while completions wait here */
	struct vs_cq *cq;
	struct ibv_cq_ex *real; /* the provider's ops, or the legacy emulation's */
	pthread_mutex_t lock;
	struct vs_wc *e;        /* e[head .. head + count) wait, oldest first */
	uint32_t head, count, cap;
	uint32_t waiting;       /* count, for readers without the lock */
	int serving;            /* of the poll open on ex */
};

static struct vs__cq_stash *stash_of(struct ibv_cq_ex *ex)
{
	return (struct vs__cq_stash *)ex;
}

/* After every change, under the lock: which ops the inlines poll. */
static void publish(struct vs__cq_stash *st)
{
	if (!st->count)
		st->head = 0;
	__atomic_store_n(&st->waiting, st->count, __ATOMIC_RELEASE);
	__atomic_store_n(&st->cq->poll_ops, st->count ? &st->ex : st->real,
			 __ATOMIC_RELEASE);
}

static void copy_current(struct vs__cq_stash *st)
{
	const struct ibv_cq_ex *from = st->serving == SERVING_STASH ?
		NULL : st->real;

	if (from) {
		st->ex.wr_id = from->wr_id;
		st->ex.status = from->status;
	} else {
		st->ex.wr_id = st->e[st->head].wr_id;
		st->ex.status = st->e[st->head].status;
	}
}

static void pop(struct vs__cq_stash *st)
{
	st->head++;
	st->count--;
	publish(st);
}

/* The stash is empty: go on with the real CQ. */
static int start_real(struct vs__cq_stash *st, struct ibv_poll_cq_attr *attr)
{
	struct ibv_poll_cq_attr none = { 0 };
	int ret = ibv_start_poll(st->real, attr ? attr : &none);

	st->serving = ret ? SERVING_NONE : SERVING_REAL;
	if (!ret)
		copy_current(st);
	return ret;
}

static int start_poll(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct vs__cq_stash *st = stash_of(ex);
	int ret = 0;

	pthread_mutex_lock(&st->lock);
	if (st->count) {
		st->serving = SERVING_STASH;
		copy_current(st);
	} else {
		ret = start_real(st, attr);
	}
	if (ret)
		pthread_mutex_unlock(&st->lock);
	return ret; /* held until end_poll, as a provider does */
}

static int next_poll(struct ibv_cq_ex *ex)
{
	struct vs__cq_stash *st = stash_of(ex);
	int ret;

	switch (st->serving) {
	case SERVING_STASH:
		pop(st);
		if (st->count) {
			copy_current(st);
			return 0;
		}
		return start_real(st, NULL);
	case SERVING_REAL:
		ret = ibv_next_poll(st->real);
		if (!ret)
			copy_current(st);
		return ret;
	default:
		return ENOENT;
	}
}

static void end_poll(struct ibv_cq_ex *ex)
{
	struct vs__cq_stash *st = stash_of(ex);

	if (st->serving == SERVING_STASH)
		pop(st);
	else if (st->serving == SERVING_REAL)
		ibv_end_poll(st->real);
	st->serving = SERVING_NONE;
	pthread_mutex_unlock(&st->lock);
}

/* The readers: the stashed completion, or the real one's. */
#define CUR(ex) (stash_of(ex)->e[stash_of(ex)->head])
#define FROM_STASH(ex) (stash_of(ex)->serving == SERVING_STASH)

static enum ibv_wc_opcode read_opcode(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).opcode : ibv_wc_read_opcode(stash_of(ex)->real);
}

static uint32_t read_vendor_err(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).vendor_err :
				ibv_wc_read_vendor_err(stash_of(ex)->real);
}

static uint32_t read_byte_len(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).byte_len :
				ibv_wc_read_byte_len(stash_of(ex)->real);
}

static __be32 read_imm_data(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? htonl(CUR(ex).imm) :
				ibv_wc_read_imm_data(stash_of(ex)->real);
}

static uint32_t read_qp_num(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).qp_num :
				ibv_wc_read_qp_num(stash_of(ex)->real);
}

static uint32_t read_src_qp(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).src_qp :
				ibv_wc_read_src_qp(stash_of(ex)->real);
}

static unsigned int read_wc_flags(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).wc_flags :
				ibv_wc_read_wc_flags(stash_of(ex)->real);
}

static uint32_t read_slid(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).slid : ibv_wc_read_slid(stash_of(ex)->real);
}

static uint8_t read_sl(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).sl : ibv_wc_read_sl(stash_of(ex)->real);
}

static uint8_t read_dlid_path_bits(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).dlid_path_bits :
				ibv_wc_read_dlid_path_bits(stash_of(ex)->real);
}

static uint64_t read_completion_ts(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).timestamp :
				ibv_wc_read_completion_ts(stash_of(ex)->real);
}

/* vs__wc_read keeps the wall clock in timestamp_ns when the CQ reads it */
static uint64_t read_completion_wallclock_ns(struct ibv_cq_ex *ex)
{
	return FROM_STASH(ex) ? CUR(ex).timestamp_ns :
				ibv_wc_read_completion_wallclock_ns(stash_of(ex)->real);
}

#undef CUR
#undef FROM_STASH

static struct vs__cq_stash *stash_create(struct vs_cq *cq)
{
	struct vs__cq_stash *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	if (pthread_mutex_init(&st->lock, NULL)) {
		free(st);
		return NULL;
	}
	st->cq = cq;
	st->real = cq->poll_ops;
	st->ex = (struct ibv_cq_ex){
		.context = st->real->context,
		.cqe = st->real->cqe,
		.status = IBV_WC_SUCCESS,
		.start_poll = start_poll,
		.next_poll = next_poll,
		.end_poll = end_poll,
		.read_opcode = read_opcode,
		.read_vendor_err = read_vendor_err,
		.read_byte_len = read_byte_len,
		.read_imm_data = read_imm_data,
		.read_qp_num = read_qp_num,
		.read_src_qp = read_src_qp,
		.read_wc_flags = read_wc_flags,
		.read_slid = read_slid,
		.read_sl = read_sl,
		.read_dlid_path_bits = read_dlid_path_bits,
		.read_completion_ts = read_completion_ts,
		.read_completion_wallclock_ns = read_completion_wallclock_ns,
	};
	return st;
}

/* cq's stash, made at the first use (two racing makers: one wins). */
static struct vs__cq_stash *stash_get(struct vs_cq *cq)
{
	struct vs__cq_stash *st = __atomic_load_n(&cq->stash, __ATOMIC_ACQUIRE);
	struct vs__cq_stash *none = NULL;

	if (st)
		return st;
	st = stash_create(cq);
	if (!st)
		return NULL;
	if (!__atomic_compare_exchange_n(&cq->stash, &none, st, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		vs__cq_stash_free(st);
		return none;
	}
	return st;
}

/* Room for one more at the tail; false when out of memory. */
static bool reserve(struct vs__cq_stash *st)
{
	struct vs_wc *e;
	uint32_t cap;

	if (st->head + st->count < st->cap)
		return true;
	if (st->head) {
		memmove(st->e, st->e + st->head, st->count * sizeof(*st->e));
		st->head = 0;
		return true;
	}
	cap = st->cap ? st->cap * 2 : 64;
	e = realloc(st->e, cap * sizeof(*e));
	if (!e)
		return false;
	st->e = e;
	st->cap = cap;
	return true;
}

int vs__cq_take(struct vs_cq *cq, vs__wc_match match, void *arg,
		const char *call)
{
	struct vs__cq_stash *st = stash_get(cq);
	struct ibv_poll_cq_attr attr = { 0 };
	int taken = 0, ret = 0;
	uint32_t budget;

	if (!st)
		return vs__set_error(call, ENOMEM, "out of memory (the CQ's stash)");
	pthread_mutex_lock(&st->lock);
	/* first what earlier waits kept: it completed before the rest */
	for (uint32_t i = 0; i < st->count;) {
		struct vs_wc *w = &st->e[st->head + i];

		if (!match(arg, w)) {
			i++;
			continue;
		}
		memmove(w, w + 1, (st->count - i - 1) * sizeof(*w));
		st->count--;
		taken++;
	}
	/* then the CQ, one completion per start/end (right on any provider) */
	for (budget = 4 * cq->depth + 64; budget; budget--) {
		struct vs_wc wc;

		if (!reserve(st)) {
			/* nothing consumed: the completion stays in the CQ */
			ret = vs__set_error(call, ENOMEM,
					    "out of memory (the CQ's stash, %u "
					    "completions)", st->count);
			break;
		}
		ret = ibv_start_poll(st->real, &attr);
		if (ret == ENOENT) {
			ret = 0;
			break;
		}
		if (ret) {
			ret = vs__cq_poll_failed(st->real, ret, call);
			break;
		}
		vs__wc_read(cq, st->real, &wc);
		ibv_end_poll(st->real);
		if (match(arg, &wc))
			taken++;
		else
			st->e[st->head + st->count++] = wc;
	}
	publish(st);
	pthread_mutex_unlock(&st->lock);
	return ret ? ret : taken;
}

bool vs__cq_stash_waiting(const struct vs_cq *cq)
{
	const struct vs__cq_stash *st = __atomic_load_n(&cq->stash,
							__ATOMIC_ACQUIRE);

	return st && __atomic_load_n(&st->waiting, __ATOMIC_ACQUIRE);
}

/* The poll inlines' failure report; ops may be the stash's. */
int vs__cq_poll_failed(struct ibv_cq_ex *ops, int err, const char *call)
{
	bool legacy;

	if (ops->start_poll == start_poll)
		ops = stash_of(ops)->real;
	legacy = vs__legacy_cq_is(ops);
	return vs__verb_error(call, legacy ? "ibv_poll_cq" : "ibv_start_poll", err,
			     "polling the %s CQ failed (CQ overrun or device "
			     "error)", legacy ? "legacy" : "extended");
}

void vs__cq_stash_free(struct vs__cq_stash *st)
{
	if (!st)
		return;
	pthread_mutex_destroy(&st->lock);
	free(st->e);
	free(st);
}
