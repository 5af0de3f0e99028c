/* SPDX-License-Identifier: MIT */
/*
 * The call trace, counters and fault injection (VERBSHIM_TRACE,
 * VERBSHIM_STATS, VERBSHIM_FAULT; docs/trace.md): internals.
 *
 * Every row of shim/loader/syms_*.h gets an index (enum vs_tsym), a wrapper with
 * its exact prototype (shim/trace/trace_wrap.c) and a description (name,
 * parameters as text, failure convention).  When no knob is set nothing
 * of this is reached: the tables hold the library's own functions.  When
 * one is, the loader stores the wrapper of each selected symbol in the
 * table slot instead, and the wrapper calls the real function kept in
 * vs__tsym[].
 */
#ifndef VS_TRACE_H
#define VS_TRACE_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "loader/vs_shim.h"
#include "verbshim/trace.h"

/* One index per row, over all libraries, in VS_LIBRARIES' order. */
#define VS_TSYM_ENUM(node, name, ret, params, args, conv, facts) VS_TSYM_##name,
#define VS_LIB_TSYM_ENUM(lib, LIB, ...) VS_##LIB##_SYMBOLS(VS_TSYM_ENUM)
enum vs_tsym {
	VS_LIBRARIES(VS_LIB_TSYM_ENUM)
	VS_TSYM_COUNT
};

/* How a function reports failure (shim/loader/syms_ibverbs.h's conventions, the
 * CUSTOM rows mapped to theirs); what an injected fault returns. */
enum vs_tconv {
	VS_TC_PTR,	/* NULL + errno */
	VS_TC_ERRNO,	/* a positive errno */
	VS_TC_NEG1,	/* -1 + errno */
	VS_TC_NEGERR,	/* a negative errno */
	VS_TC_ZERO,	/* 0 + errno (cannot be told from a valid 0) */
	VS_TC_STR,	/* a string: cannot fail */
	VS_TC_NOFAIL,	/* a value that never means failure */
	VS_TC_VOID,	/* cannot fail */
	VS_TC_NONE,	/* not wrapped (variadic) */
};

struct vs_tsym_info {
	const char *name;
	const char *params;	/* "(struct ibv_pd *pd, int access)" */
	const char *ret;	/* "struct ibv_mr *" */
	const char *facts;	/* "pd=h addr=buf return=h" (shim/loader/syms_ibverbs.h) */
	unsigned char lib;	/* enum vs_library */
	unsigned char conv;	/* enum vs_tconv */
};
extern VS_HIDDEN const struct vs_tsym_info vs__tsym_info[VS_TSYM_COUNT];
/* the wrappers, as generic pointers (NULL: not wrapped) */
extern VS_HIDDEN void (*const vs__tsym_wrapper[VS_TSYM_COUNT])(void);

/* Failures by errno: the first VS_TSTAT_ERRNOS distinct ones, then other. */
#define VS_TSTAT_ERRNOS 6

/* One symbol's run-time state, touched only while a knob is on. */
struct vs_tsym_state {
	void (*real)(void);	/* the library's function */
	unsigned char traced;	/* selected by VERBSHIM_TRACE */
	unsigned char ends_handle;	/* its facts end a handle */
	signed char fault;	/* index of its VERBSHIM_FAULT rule, or -1 */
	uint64_t fault_calls;	/* atomic: calls seen by the fault rule */
	/* VERBSHIM_STATS, all atomic */
	uint64_t calls, failures, total_ns, max_ns;
	int err[VS_TSTAT_ERRNOS];
	uint64_t err_count[VS_TSTAT_ERRNOS + 1];
};
extern VS_HIDDEN struct vs_tsym_state vs__tsym[VS_TSYM_COUNT];

/*
 * The knobs, parsed once.  vs__trace_knobs_on() is read by the loader
 * before it fills a table: 0 when no knob is set, and then the fill is
 * the same as without this file.
 */
int vs__trace_knobs_on(void);
/* The slot's new value: the real function, or its wrapper
 * (shim/trace/trace_wrap.c). */
void *vs__trace_slot(enum vs_tsym sym, void *real);
/* Sets up the row's state for its real function; whether its slot
 * needs the wrapper (wrapped: the row has one). */
int vs__tsym_setup(enum vs_tsym sym, void *real, int wrapped);

/* ---- a row's text and facts, parsed (shim/trace/trace_facts.c, pure) ---- */

/* What a row's facts column says of one pointer parameter or result
 * (shim/loader/syms_ibverbs.h documents the column). */
enum vs_trole {
	VS_TR_NONE,	/* no fact: never read */
	VS_TR_H,	/* a handle: its id */
	VS_TR_HOUT,	/* a handle written into *param */
	VS_TR_END,	/* a handle the call ends */
	VS_TR_IN,	/* the caller's data, read before the call */
	VS_TR_OUT,	/* written by the call, read after its success */
	VS_TR_INOUT,
	VS_TR_BUF,	/* bytes never shown */
	VS_TR_STR,	/* an input string */
	VS_TR_FREE,	/* freed by the call */
};
enum vs_tlen { VS_TL_NONE, VS_TL_BYTES, VS_TL_COUNT };
#define VS_TENDS_MAX 6

struct vs_tfact {
	unsigned char role;	/* enum vs_trole */
	unsigned char len;	/* enum vs_tlen: the caller's bound */
	signed char len_arg;	/* the parameter that holds it */
	unsigned char len_deref;	/* the bound is *that parameter */
	unsigned char nends;	/* ends=: vs__tfields[] indices */
	unsigned char ends[VS_TENDS_MAX];
};

/* One parameter of a row, from its text. */
struct vs_tparam {
	char type[64];		/* "struct ibv_pd *", "int", "const char *" */
	char name[32];
	char tag[64];		/* "ibv_pd": the type without const, struct, enum */
	unsigned char ptr;	/* levels of '*' (an array counts as one) */
	unsigned char is_const, is_struct, is_enum, is_signed, is_array;
	struct vs_tfact fact;
};
/* Parse "(struct ibv_pd *pd, int access)": the number of parameters
 * (0 for "(void)"), at most max, or -1 when the text is not understood. */
int vs__tparams_parse(const char *params, struct vs_tparam *p, int max);

#define VS_TARGS_MAX 8
/* A row's parameters, result and facts. */
struct vs_tsig {
	int n;
	struct vs_tparam p[VS_TARGS_MAX];
	struct vs_tparam ret;	/* the result's type ("r") and fact */
	unsigned char fails;	/* enum vs_tfails: the row's fails= fact */
};
/*
 * Whether rdma-core's implementation of a row can fail, its "fails=" fact
 * (shim/loader/syms_ibverbs.h): checked against rdma-core's source, a
 * VERBSHIM_FAULT rule is refused for a function that cannot, saying why.
 */
enum vs_tfails {
	VS_TFAILS_CAN,		/* no fails= fact: by its convention */
	VS_TFAILS_NEVER,	/* fails=never: no failure path at all */
	VS_TFAILS_NULL,		/* fails=null: only for a NULL argument */
};
/* The fails= fact of a row's facts text (VS_TFAILS_CAN without one). */
unsigned int vs__tfails(const char *facts);
/* Why a rule is refused for name, whose row says fails (not CAN). */
void vs__tfails_why(unsigned int fails, const char *name, char *why,
		    size_t whylen);
/* "h", "out"... ("none" for no fact) */
const char *vs__trole_name(unsigned int role);
/* 0, or -1 with one sentence in why: text not understood, a fact naming
 * no parameter or twice the same, an unknown role, bound or field. */
int vs__tsig_parse(const char *params, const char *ret, const char *facts,
		   struct vs_tsig *s, char *why, size_t whylen);

/* The handles a fact's ends= may name: a pointer field of a struct. */
struct vs_tfield {
	const char *tag, *name;	/* "rdma_cm_id", "qp" */
	size_t offset;
};
extern VS_HIDDEN const struct vs_tfield vs__tfields[];
extern VS_HIDDEN const unsigned int vs__tnfields;

/* What the facts need of one call: the row, and what is read before it. */
struct vs_tfacts_call {
	int parsed;		/* sig holds the row */
	struct vs_tsig sig;
	uint64_t pre[VS_TARGS_MAX];	/* *param before the call ... */
	unsigned int pre_set;		/* ... for the bits set here */
	const void *ending[VS_TENDS_MAX];	/* ends= fields' handles */
	unsigned int nending;
};

/* One call in flight, on the wrapper's stack. */
struct vs_tcall {
	enum vs_tsym sym;
	int fault_errno;	/* nonzero: inject this errno */
	int traced;
	int caller_errno;	/* errno at entry, given back on success */
	uint64_t start_ns;
	const uint64_t *args;
	size_t len;		/* used in line */
	char line[1024];
	struct vs_tfacts_call facts;
};

/* Before the real call: 1 when the call is to fail (c->fault_errno). */
int vs__tcall_begin(struct vs_tcall *c, enum vs_tsym sym,
		    const uint64_t *args);
/* After it (or after the injected failure), with errno as it returned. */
void vs__tcall_end(struct vs_tcall *c, uint64_t ret, int err);

/* ---- the process's hub (shim/trace/trace_hub.c): what every copy of the shim
 * in the process shares, at the bottom of the trace ---- */

/* Its layout's name: change it with any change of struct vs_thub, so
 * that copies of two layouts never share one. */
#define VS_THUB_MAGIC 0x0176737468756231ull
#define VS_TKINDS 64

enum vs_tfile_state {
	VS_TFILE_UNSET,		/* no copy has opened it yet */
	VS_TFILE_STDERR,	/* no VERBSHIM_TRACE_FILE */
	VS_TFILE_FILE,		/* fd, while it is dev/ino */
	VS_TFILE_OFF,		/* the file could not be made: nothing is written */
};

struct vs_thandle {
	const void *key;	/* NULL: free; 1: deleted */
	unsigned short kind;
	unsigned int id;
};

struct vs_thub {
	uint64_t magic, layout_size;	/* sizeof(struct vs_thub) */
	unsigned int copies;	/* atomic: the copies of the shim that joined */
	pthread_mutex_t lock;	/* the ids, the file's opening */
	uintptr_t fork_owner;	/* the thread holding lock across fork() */
	/* the file (shim/trace/trace_file.c) */
	int file;		/* enum vs_tfile_state */
	int fd;
	int stopped;		/* atomic: the descriptor is no longer the file */
	uint64_t dev, ino;
	char path[4096];
	/* the ids (shim/trace/trace_ids.c) */
	struct vs_thandle *slot;
	size_t size, used;
	struct {
		char name[24];
		unsigned int next;
	} kind[VS_TKINDS];
	unsigned int nkinds;
};

/* This copy's hub: the process's, joined at the first call. */
struct vs_thub *vs__thub(void);
/* Which copy this is (1: the first to join), of how many so far. */
void vs__thub_copies(unsigned int *mine, unsigned int *all);
/* Its lock (the ids, the file's opening): whether taken, to give back. */
int vs__thub_lock(struct vs_thub *h);
void vs__thub_unlock(struct vs_thub *h, int taken);

/* Short stable ids of handles ("pd#3"), the same in every copy: looked up
 * or given (shim/trace/trace_ids.c). */
void vs__thandle(char *buf, size_t size, size_t *len, const char *tag,
		 const void *p);
void vs__thandle_forget(const void *p);

/* The trace's destination (shim/trace/trace_file.c), errno untouched:
 * VERBSHIM_TRACE_FILE's prefix (NULL: stderr), opened once per process;
 * the descriptor to write to now, or -1 (stopped, or off); one line. */
void vs__tfile_open(const char *prefix);
int vs__tfile_fd(void);
void vs__tfile_write(const char *line, size_t len);

/* ---- the knob parsers (shim/trace/trace_knobs.c), pure, for the unit tests --- */

#define VS_TFILTER_MAX 32
#define VS_TFAULT_MAX 16
#define VS_TPATTERN_MAX 64

struct vs_tfilter_rule {
	char pattern[VS_TPATTERN_MAX];	/* fnmatch() pattern or library */
	unsigned char exclude;
	signed char lib;		/* enum vs_library, or -1: a pattern */
};

struct vs_tfilter {
	unsigned int nrules;
	unsigned char all, failed_only;
	struct vs_tfilter_rule rule[VS_TFILTER_MAX];
};

enum vs_tfault_mode { VS_TF_NTH, VS_TF_EVERY, VS_TF_PROB };

struct vs_tfault_rule {
	char pattern[VS_TPATTERN_MAX];
	int err;
	enum vs_tfault_mode mode;
	uint64_t n;		/* NTH, EVERY */
	uint64_t threshold;	/* PROB: fails when hash < threshold */
	uint64_t seed;
	double prob;
	unsigned int matched;	/* symbols it applies to */
};

struct vs_tfault {
	unsigned int nrules;
	struct vs_tfault_rule rule[VS_TFAULT_MAX];
};

/* 0, or -EINVAL with one sentence in why (what was wrong, and what is
 * done about it). */
int vs__tfilter_parse(const char *s, struct vs_tfilter *f, char *why,
		      size_t whylen);
/* Whether the filter selects the symbol. */
int vs__tfilter_match(const struct vs_tfilter *f, const char *name,
		      unsigned int lib);
int vs__tfault_parse(const char *s, struct vs_tfault *f, char *why,
		     size_t whylen);
/* Whether the kth call (1-based) of function name fails under rule r. */
int vs__tfault_fires(const struct vs_tfault_rule *r, const char *name,
		     uint64_t k);
/* src into dst (cut to size, never inside an escape), every byte that is
 * not printable ASCII (C0 and C1 controls, DEL, any byte >= 0x80) as \xNN:
 * a knob's value echoed to a terminal.  Printable bytes stay as they are,
 * so that escaping twice (a refusal inside a message) changes nothing. */
void vs__tescape(char *dst, size_t size, const char *src);
/* Descriptor 2 when the trace starts (take: at the knobs' first read),
 * and whether it is still that file now (ok: open, the same device and
 * inode); errno untouched.  Nothing goes to a stderr that is not. */
void vs__tstderr_take(void);
int vs__tstderr_ok(void);
/* One line on stderr (when vs__tstderr_ok), escaped as vs__tescape does;
 * errno untouched. */
void vs__tsay(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "ENOMEM" -> ENOMEM, or 0 */
int vs__errno_from_name(const char *name);
/* ENOMEM -> "ENOMEM", or NULL */
const char *vs__errno_name(int err);
/* Library name ("ibverbs", "libibverbs", "rdmacm"...) -> enum vs_library,
 * or -1. */
int vs__tlib_from_name(const char *name);

/* ---- decoding (shim/trace/trace_decode.c) ---- */

/* Appends to buf at *len (stays NUL-terminated, truncates). */
void vs__tputs(char *buf, size_t size, size_t *len, const char *s);
void vs__tprintf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Flags as "A|B|0x40", or "0". */
struct vs_tflag {
	uint64_t bit;
	const char *name;
};
void vs__tflags(char *buf, size_t size, size_t *len, uint64_t v,
		const struct vs_tflag *names, size_t n);
/* Enum names; NULL when out of range. */
const char *vs__tname_qp_state(uint64_t v);
const char *vs__tname_qp_type(uint64_t v);
const char *vs__tname_port_state(uint64_t v);
const char *vs__tname_cm_event(uint64_t v);
const char *vs__tname_wr_opcode(uint64_t v);
const char *vs__tname_async_event(uint64_t v);
const char *vs__tname_mtu(uint64_t v);
const char *vs__tname_wc_status(uint64_t v);
void vs__tdecode_access(char *buf, size_t size, size_t *len, uint64_t v);
void vs__tdecode_qp_mask(char *buf, size_t size, size_t *len, uint64_t v);


/*
 * The facts at work on a call (c->sym, c->args): vs__tfacts_before()
 * parses the row and reads, before the call, what the facts need then
 * (the lengths behind pointers, the handles ends= names);
 * vs__tfacts_forget() forgets, after a successful call, the ids of the
 * handles it ended.  vs__tfacts_ends(): whether a row ends any.
 */
void vs__tfacts_before(struct vs_tcall *c);
void vs__tfacts_forget(const struct vs_tcall *c);
int vs__tfacts_ends(enum vs_tsym sym);
/* Argument i as its facts allow, before the call (or after a failed
 * one); what argument i gives back after a successful call, as
 * " => ..." (nothing when its facts or its type have nothing to show). */
void vs__tdecode_arg(char *buf, size_t size, size_t *len,
		     const struct vs_tcall *c, int i);
void vs__tdecode_out(char *buf, size_t size, size_t *len,
		     const struct vs_tcall *c, int i);
/* The result as the row's convention and its return= fact say. */
void vs__tdecode_ret(char *buf, size_t size, size_t *len,
		     const struct vs_tcall *c, uint64_t ret, int failed);
/* Whether ret (with errno err) is a failure; its errno in *e. */
int vs__tfailed(enum vs_tsym sym, uint64_t ret, int err, int *e);

/* The counters (lib/base/call_stats.c makes them vs_call_stats() and
 * vs_call_stats_print()): 0, -ENODATA when VERBSHIM_STATS is off, or a
 * failed write's -errno. */
int vs__tstats_get(struct vs_call_stat *out, size_t max, size_t *count);
int vs__tstats_print(int fd);

/* The thread-local note of the last injected fault (for lib/'s error
 * records): the function's name, until that function is called again;
 * or NULL. */
const char *vs__fault_last(void);

#endif /* VS_TRACE_H */
