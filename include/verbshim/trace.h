/* SPDX-License-Identifier: MIT */
/*
 * verbshim call counters (VERBSHIM_STATS=1; docs/trace.md): how many
 * calls went through the shim's function tables, per function, how many
 * failed and with which errno, and how long they took.  The counters exist
 * only while VERBSHIM_STATS=1 was set when the first library loaded; the
 * data-path inlines of verbs.h (ibv_post_send, ibv_poll_cq, ...) go
 * straight to the provider and are never counted.
 */
#ifndef VERBSHIM_TRACE_H
#define VERBSHIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Failures of one function by errno: the first six distinct errnos seen. */
#define VS_CALL_STAT_ERRNOS 6

struct vs_call_stat {
	const char *name;	/* "ibv_reg_mr", static */
	uint64_t calls;		/* calls that went through the table */
	uint64_t failures;	/* of those, failed (by its convention) */
	uint64_t total_ns;	/* time inside the call, summed */
	uint64_t max_ns;	/* the longest call */
	struct {
		int err;	/* positive errno; 0: unused */
		uint64_t count;
	} errors[VS_CALL_STAT_ERRNOS];
	uint64_t other_errors;	/* failures with a seventh or later errno */
};

/**
 * vs_call_stats() - the counters of every function called so far
 * @out: where the counters go, one per function called at least once, in
 *       the order of verbshim's symbol lists (may be NULL when @max is 0)
 * @max: room in @out
 * @count: set to the number of functions called at least once (more than
 *         @max when @out was too small: only @max were written)
 *
 * A snapshot taken while other threads call: each counter is read
 * atomically, not all of them at one instant.
 *
 * Return: 0; -ENODATA when VERBSHIM_STATS=1 was not set (nothing is
 * counted); -EINVAL for a NULL @count, or a NULL @out with @max > 0.
 */
int vs_call_stats(struct vs_call_stat *out, size_t max, size_t *count);

/**
 * vs_call_stats_print() - write the counters as a table
 * @fd: where to write (2 for stderr)
 *
 * The table printed at exit under VERBSHIM_STATS=1: per function, calls,
 * failures, total, mean and max time in microseconds, failures by errno;
 * then the totals.  Lines start with "verbshim: ".
 *
 * Return: 0; -ENODATA when VERBSHIM_STATS=1 was not set; the negative
 * errno of a failed write().
 */
int vs_call_stats_print(int fd);

#ifdef __cplusplus
}
#endif

#endif /* VERBSHIM_TRACE_H */
