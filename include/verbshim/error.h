/* SPDX-License-Identifier: MIT */
/*
 * Errors: every fallible vs_ call returns 0 or a negative errno; the
 * calling thread's last failure is kept in detail.
 */
#ifndef VERBSHIM_ERROR_H
#define VERBSHIM_ERROR_H

#include "verbshim/common.h"

VS_BEGIN_DECLS

#define VS_ERROR_MSG_MAX 384

/* Ends a message that did not fit VS_ERROR_MSG_MAX and was cut. */
#define VS_ERROR_CUT " [cut]"

/*
 * The record of the calling thread's last failure.
 */
struct vs_error {
	/* The vs_ call that failed ("vs_mr_register"); set by every failure. */
	const char *call;
	/*
	 * The provider function that failed inside it ("ibv_reg_mr"), or NULL
	 * when the call refused its arguments or state by itself.
	 */
	const char *verb;
	/* Positive errno value; 0 when nothing has failed on this thread. */
	int err;
	/*
	 * One or more sentences saying what was wrong, never empty on error.
	 * When rdma-core did not load, the loader's reason (the path it tried
	 * and the dlerror() text) is part of it.  A message longer than the
	 * buffer ends in VS_ERROR_CUT.
	 */
	char message[VS_ERROR_MSG_MAX];
	/*
	 * After a failed batch submit (send or receive): how many of the
	 * batch's first WRs were posted anyway and will complete.  0 for
	 * extended QPs (ibv_wr_complete posts all or nothing) and for every
	 * other failure; -1 when the provider did not say.
	 */
	long batch_posted;
};

/**
 * vs_last_error() - the calling thread's last failure
 *
 * Successful calls do not clear it.
 *
 * Return: never NULL; a record with err == 0, call == NULL and an empty
 * message when nothing failed on this thread yet.  It belongs to the
 * thread and is overwritten by its next failure.
 */
const struct vs_error *vs_last_error(void);

/**
 * vs_clear_error() - forget the calling thread's last failure
 */
void vs_clear_error(void);

/**
 * vs_format_error() - one line for a log
 * @e: a record (vs_last_error()), or NULL
 * @buf: where to write; always terminated when @len > 0
 * @len: size of @buf
 *
 * Writes "call: verb: strerror(err): message" (", verb" only when a
 * provider function failed), or "no error".
 *
 * Return: @buf.
 */
char *vs_format_error(const struct vs_error *e, char *buf, size_t len);

VS_END_DECLS

#endif /* VERBSHIM_ERROR_H */
