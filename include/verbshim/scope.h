/* SPDX-License-Identifier: MIT */
/*
 * Blocking and scoped completion for sequential code: wait until one
 * given work request has completed, and scopes that do not return until
 * every send posted inside them has completed, so a buffer is never
 * reused while the device may still read or write it.  Completions of
 * other work met while waiting are kept for the CQ's later polls and
 * waits (a per-CQ stash; the poll inlines pay nothing while it is
 * empty).  docs/API.md, "Waiting for one's own work", has the rules.
 */
#ifndef VERBSHIM_SCOPE_H
#define VERBSHIM_SCOPE_H

#include "verbshim/event.h"
#include "verbshim/batch.h"

VS_BEGIN_DECLS

/* How a wait waits between polls of the CQ. */
enum vs_wait_mode {
	VS_WAIT_POLL = 0,  /* busy-poll the CQ */
	VS_WAIT_SLEEP = 1, /* sleep on the CQ's completion channel */
};

/**
 * vs_cq_wait_wr() - wait until one given work request has completed
 * @cq: the CQ its completion goes to
 * @qp_num: the QP it was posted on (vs_rc_qp_num(), ...)
 * @wr_id: its wr_id
 * @mode: VS_WAIT_POLL, or VS_WAIT_SLEEP (the CQ needs a channel)
 * @timeout_ms: 0 never waits, -1 waits for ever, else the limit
 * @wc: its completion (every field, as vs_cq_poll)
 *
 * Takes the first completion of @cq with this QP number and wr_id (a
 * signaled send, any receive, or an error completion).  Every other
 * completion met on the way is kept in the CQ's stash and given back, in
 * order, by the next vs_cq_poll(), iteration or wait on @cq.
 *
 * Return: 0 when it completed successfully; -EIO when it completed with
 * an error status (@wc says which; the error record names the status);
 * -EAGAIN (@timeout_ms 0: not recorded) or -ETIMEDOUT (recorded) when it
 * has not completed yet; -EINVAL for bad arguments or VS_WAIT_SLEEP on a CQ
 * without a channel; -ENOMEM; the provider's errno when a poll fails.
 */
VS_MUST_CHECK
int vs_cq_wait_wr(struct vs_cq *cq, uint32_t qp_num, uint64_t wr_id,
		  enum vs_wait_mode mode, int timeout_ms, struct vs_wc *wc);

struct vs__scope; /* private: lib/events/scope.c */

/*
 * A scope: the sends posted in it are tracked until each has completed.
 * On the caller's stack; everything in it is private.
 */
struct vs_scope {
	struct vs__scope *p;
};

/**
 * vs_scope_begin() - open a scope
 * @s: the scope (the caller's)
 * @mode: how its waits wait: VS_WAIT_POLL, or VS_WAIT_SLEEP (the send
 *	CQs of its QPs then need a completion channel)
 *
 * Return: 0, -EINVAL (NULL @s, unknown @mode), -ENOMEM.
 */
VS_MUST_CHECK
int vs_scope_begin(struct vs_scope *s, enum vs_wait_mode mode);

/**
 * vs_scope_rc_batch_start() - start a send batch whose WRs the scope tracks
 * @s: an open scope
 * @qp: an RC QP in RTS
 * @b: the batch, added to and submitted as any (vs_rc_write(), ...)
 *
 * Every WR added to @b is posted signaled, whatever its flags say, and
 * under a wr_id of the scope's: its completion is the scope's, and the
 * scope reports it under the caller's wr_id.  The scope holds @qp (a
 * close of @qp meanwhile defers its destroy) until the scope ends.
 * Before the batch starts, the scope takes the completions already on the
 * QP's send CQ, so that signaling every WR needs no deeper CQ than the
 * send queue.
 *
 * Return: 0, or the errors of vs_rc_batch_start(); -EINVAL also for a
 * scope not open and for VS_WAIT_SLEEP when the QP's send CQ has no
 * channel; -ENOMEM.
 */
VS_MUST_CHECK
int vs_scope_rc_batch_start(struct vs_scope *s, struct vs_rc_qp *qp,
			    struct vs_rc_batch *b);
/**
 * vs_scope_uc_batch_start() - start a UC send batch the scope tracks
 * @s: an open scope
 * @qp: a UC QP in RTS
 * @b: the batch
 *
 * As vs_scope_rc_batch_start().
 *
 * Return: as vs_scope_rc_batch_start().
 */
VS_MUST_CHECK
int vs_scope_uc_batch_start(struct vs_scope *s, struct vs_uc_qp *qp,
			    struct vs_uc_batch *b);
/**
 * vs_scope_ud_batch_start() - start a UD send batch the scope tracks
 * @s: an open scope
 * @qp: a UD QP in RTS
 * @b: the batch
 *
 * As vs_scope_rc_batch_start().
 *
 * Return: as vs_scope_rc_batch_start().
 */
VS_MUST_CHECK
int vs_scope_ud_batch_start(struct vs_scope *s, struct vs_ud_qp *qp,
			    struct vs_ud_batch *b);

/**
 * vs_scope_wait() - wait until one WR of a scope has completed
 * @s: an open scope
 * @wr_id: the caller's wr_id of a WR posted in @s (the oldest such WR
 *	whose status has not been given by a vs_scope_wait yet)
 * @timeout_ms: 0 never waits, -1 waits for ever, else the limit
 * @wc: its completion (wr_id is the caller's)
 *
 * The other WRs of the scope that complete meanwhile are taken too (an
 * error among them becomes the scope's first error); other work's
 * completions are kept for the CQ's later polls.
 *
 * Return: 0 when it completed successfully; -EIO when it completed in
 * error (@wc says how); -EAGAIN (not recorded) or -ETIMEDOUT (recorded)
 * when it has not completed; -ENOENT when no such WR was posted in @s; -EINVAL.
 */
VS_MUST_CHECK
int vs_scope_wait(struct vs_scope *s, uint64_t wr_id, int timeout_ms,
		  struct vs_wc *wc);

/**
 * vs_scope_end() - wait until every WR posted in a scope has completed
 * @s: an open scope
 * @timeout_ms: 0 never waits, -1 waits for ever, else the limit
 * @first_err: the first error completion of the scope, or NULL
 *
 * When every WR has completed the scope is closed (its QPs are let go)
 * and their buffers are the caller's again.  On -EAGAIN or -ETIMEDOUT the
 * scope stays open and its buffers are NOT safe: the device may still
 * use them.  Call vs_scope_end() again to keep waiting; to give up, move
 * the QPs to the error state (their WRs then complete, flushed) and end
 * the scope.  A batch of the scope still open is refused (-EBUSY).
 *
 * Return: 0 when every WR completed successfully; -EIO when one failed
 * (@first_err: the first failure in the order they completed that is not
 * a flush, IBV_WC_WR_FLUSH_ERR only when every failure was one: the
 * cause was outside the scope); -EAGAIN (not recorded), -ETIMEDOUT
 * (recorded; the scope is still open either way); -EINVAL for a scope not open; -EBUSY.
 */
VS_MUST_CHECK
int vs_scope_end(struct vs_scope *s, int timeout_ms, struct vs_wc *first_err);

#ifdef VS__TYPE_GUARDS
#define vs_cq_wait_wr(cq, ...) vs_cq_wait_wr(VS__IS(struct vs_cq, cq), __VA_ARGS__)
#define vs_scope_rc_batch_start(s, qp, b) vs_scope_rc_batch_start(VS__IS(struct vs_scope, s), VS__IS(struct vs_rc_qp, qp), VS__IS(struct vs_rc_batch, b))
#define vs_scope_uc_batch_start(s, qp, b) vs_scope_uc_batch_start(VS__IS(struct vs_scope, s), VS__IS(struct vs_uc_qp, qp), VS__IS(struct vs_uc_batch, b))
#define vs_scope_ud_batch_start(s, qp, b) vs_scope_ud_batch_start(VS__IS(struct vs_scope, s), VS__IS(struct vs_ud_qp, qp), VS__IS(struct vs_ud_batch, b))
#define vs_scope_wait(s, ...) vs_scope_wait(VS__IS(struct vs_scope, s), __VA_ARGS__)
#define vs_scope_end(s, ...) vs_scope_end(VS__IS(struct vs_scope, s), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_SCOPE_H */
