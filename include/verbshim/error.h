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

struct vs_error {
	/* The vs_ call or verb that failed ("vs_mr_register", "ibv_modify_qp"). */
	const char *verb;
	/* Positive errno value; 0 when nothing has failed on this thread. */
	int err;
	/* One or more sentences saying what was wrong, never empty on error. */
	char message[VS_ERROR_MSG_MAX];
	/*
	 * After a failed batch submit (send or receive): how many of the
	 * batch's first WRs were posted anyway and will complete.  0 for
	 * extended QPs (ibv_wr_complete posts all or nothing) and for every
	 * other failure; -1 when the provider did not say.
	 */
	long batch_posted;
};

/*
 * The calling thread's last failure.  Never NULL; err == 0 and an empty
 * message when nothing failed yet.  Successful calls do not clear it.
 */
const struct vs_error *vs_last_error(void);

/* Forget the calling thread's last failure. */
void vs_clear_error(void);

/* "verb: strerror(err): message" into buf (always terminated); returns buf. */
char *vs_format_error(const struct vs_error *e, char *buf, size_t len);

VS_END_DECLS

#endif /* VERBSHIM_ERROR_H */
