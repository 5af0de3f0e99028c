/* SPDX-License-Identifier: MIT */
/*
 * Every VERBSHIM_ knob the archive reads, one row each, and the one
 * function that reads them (shim/loader/knob_env.c): always secure_getenv(), so
 * that a setuid or setgid program ignores them all (docs/dropin.md's
 * table lists the same rows; test/shell/setuid_knobs.sh runs each one in
 * a setuid-root program).  The shim is the bottom layer: lib/ reads its
 * knobs through here too, never with getenv() of its own
 * (test/shell/hygiene.sh).
 */
#ifndef VS_KNOBS_H
#define VS_KNOBS_H

/* X(NAME): the knob VERBSHIM_NAME, enum value VS_KNOB_NAME */
#define VS_KNOBS(X)                                                           \
	X(LIBIBVERBS) X(LIBRDMACM) X(LIBEFA) X(LIBMLX5) X(LIBMLX4)            \
	X(LIBIBUMAD) X(LIBHNS) X(LIBMANA) X(LIBIONIC)                         \
			/* shim/loader/loader.c: the library's path */                \
	X(TRACE) X(TRACE_FILE) X(STATS) X(FAULT) /* shim/trace/trace.c */           \
	X(FORCE_LEGACY)	/* lib/base/knobs.c: legacy verbs */                   \
	X(TRUST_WR_SGE)	/* lib/core/device.c: no rxe bounce ring */

#define VS_KNOB_ENUM(name) VS_KNOB_##name,
enum vs_knob { VS_KNOBS(VS_KNOB_ENUM) VS_KNOB_COUNT };
#undef VS_KNOB_ENUM

/* The knob's value (secure_getenv: NULL in a setuid program), read now;
 * errno is left as it was. */
const char *vs__knob(enum vs_knob knob);
/* "VERBSHIM_TRACE" */
const char *vs__knob_name(enum vs_knob knob);

#endif /* VS_KNOBS_H */
