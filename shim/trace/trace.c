// SPDX-License-Identifier: MIT
/*
 * VERBSHIM_TRACE, VERBSHIM_STATS and VERBSHIM_FAULT at run time
 * (docs/trace.md).  The knobs are read once, under their own once-flag,
 * by the first table fill.  With none set, vs__trace_knobs_on() says 0
 * and the tables hold the libraries' own functions: nothing here runs
 * on a call.  The global state (the knobs, the per-symbol counters; the
 * handle ids and the file are the process's, in shim/trace/trace_hub.c) exists
 * for the knobs alone; docs/API.md justifies it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vs_trace.h"

struct vs_tsym_state vs__tsym[VS_TSYM_COUNT];

static struct {
	int on;			/* any knob */
	int trace, stats, faults;
	struct vs_tfilter filter;
	struct vs_tfault fault;
} vs_knobs;
static pthread_once_t vs_knobs_once = PTHREAD_ONCE_INIT;

/* The last injected failure on each thread, for the error record: a
 * pthread key made when VERBSHIM_FAULT is on, not a __thread variable,
 * whose TLS relocations would make every program that links the shim
 * need ld.so's __tls_get_addr (test/shell/static.sh). */
static pthread_key_t vs_fault_key;

/* The counters at exit, where the trace goes (not when it stopped). */
static void vs_stats_at_exit(void)
{
	int fd = vs__tfile_fd();

	if (fd >= 0)
		vs__tstats_print(fd);
}

static int vs_truthy(const char *v, const char *knob)
{
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on"))
		return 1;
	if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off"))
		return 0;
	vs__tsay("verbshim: %s=%s is not 1 or 0; it is off", knob, v);
	return 0;
}

static void vs_knobs_read(void)
{
	const char *trace = vs__knob(VS_KNOB_TRACE);
	const char *stats = vs__knob(VS_KNOB_STATS);
	const char *fault = vs__knob(VS_KNOB_FAULT);
	const char *file = vs__knob(VS_KNOB_TRACE_FILE);
	char why[384];

	vs__tstderr_take();	/* the stderr the trace starts with */
	if (trace && *trace) {
		if (!strcmp(trace, "0"))
			;
		else if (vs__tfilter_parse(trace, &vs_knobs.filter, why,
					   sizeof(why)))
			vs__tsay("verbshim: VERBSHIM_TRACE=%s %s; tracing is off",
			       trace, why);
		else
			vs_knobs.trace = 1;
	}
	if (stats && *stats)
		vs_knobs.stats = vs_truthy(stats, "VERBSHIM_STATS");
	if (fault && *fault) {
		if (vs__tfault_parse(fault, &vs_knobs.fault, why, sizeof(why)))
			vs__tsay("verbshim: VERBSHIM_FAULT=%s %s; no fault is "
			       "injected", fault, why);
		else if (pthread_key_create(&vs_fault_key, NULL))
			vs__tsay("verbshim: VERBSHIM_FAULT: no thread key left "
			       "(pthread_key_create); no fault is injected");
		else
			vs_knobs.faults = 1;
	}
	if (vs_knobs.trace || vs_knobs.stats)
		vs__tfile_open(file);
	else if (file && *file)
		vs__tsay("verbshim: VERBSHIM_TRACE_FILE is set but neither "
		       "VERBSHIM_TRACE nor VERBSHIM_STATS is: no file made");
	if (vs_knobs.stats)
		atexit(vs_stats_at_exit);
	__atomic_store_n(&vs_knobs.on,
			 vs_knobs.trace || vs_knobs.stats || vs_knobs.faults,
			 __ATOMIC_RELEASE);
}

int vs__trace_knobs_on(void)
{
	int caller_errno = errno;	/* the knobs are read on its behalf */

	pthread_once(&vs_knobs_once, vs_knobs_read);
	errno = caller_errno;
	return vs_knobs.on;
}

int vs__tsym_setup(enum vs_tsym sym, void *real, int wrapped)
{
	struct vs_tsym_state *st = &vs__tsym[sym];
	const struct vs_tsym_info *in = &vs__tsym_info[sym];
	unsigned int i;

	st->real = (void (*)(void))real;
	st->fault = -1;
	if (!wrapped)
		return 0;
	st->traced = vs_knobs.trace &&
		     vs__tfilter_match(&vs_knobs.filter, in->name, in->lib);
	for (i = 0; vs_knobs.faults && i < vs_knobs.fault.nrules; i++)
		if (in->conv < VS_TC_STR && !vs__tfails(in->facts) &&
		    !fnmatch(vs_knobs.fault.rule[i].pattern, in->name, 0)) {
			st->fault = (signed char)i;
			break;
		}
	if (!st->traced && st->fault < 0 && !vs_knobs.stats)
		return 0;
	/* a successful call forgets the ids of the handles it ended */
	st->ends_handle = vs_knobs.trace && vs__tfacts_ends(sym);
	return 1;
}

static uint64_t vs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *vs__fault_last(void)
{
	vs__trace_knobs_on();
	return vs_knobs.faults ? pthread_getspecific(vs_fault_key) : NULL;
}

/* "verbshim: [tid] name(arg=..., ...)" into c->line */
static void vs_decode_call(struct vs_tcall *c)
{
	int i;

	/* a system call per traced line: no thread-local cache (above) */
	vs__tprintf(c->line, sizeof(c->line), &c->len, "verbshim: [%ld] %s(",
		    (long)syscall(SYS_gettid), vs__tsym_info[c->sym].name);
	for (i = 0; i < c->facts.sig.n; i++) {
		if (i)
			vs__tputs(c->line, sizeof(c->line), &c->len, ", ");
		vs__tdecode_arg(c->line, sizeof(c->line), &c->len, c, i);
	}
	vs__tputs(c->line, sizeof(c->line), &c->len, ")");
}

int vs__tcall_begin(struct vs_tcall *c, enum vs_tsym sym, const uint64_t *args)
{
	const struct vs_tsym_state *st = &vs__tsym[sym];
	const char *name = vs__tsym_info[sym].name;

	c->sym = sym;
	c->caller_errno = errno;
	c->fault_errno = 0;
	c->traced = st->traced;
	c->args = args;
	c->len = 0;
	c->line[0] = '\0';
	c->facts.parsed = 0;
	c->facts.sig.n = 0;
	c->facts.nending = 0;
	/* what the row's facts need read before the call (docs/trace.md) */
	if (c->traced || st->ends_handle)
		vs__tfacts_before(c);
	if (st->fault >= 0 && pthread_getspecific(vs_fault_key) == name)
		pthread_setspecific(vs_fault_key, NULL);
	/* The inputs are read before the call, which may free them
	 * (rdma_ack_cm_event); "failed" decodes only failed calls, after,
	 * when a failure has freed nothing. */
	if (c->traced && !vs_knobs.filter.failed_only)
		vs_decode_call(c);
	c->start_ns = c->traced || vs_knobs.stats ? vs_now_ns() : 0;
	if (st->fault >= 0) {
		struct vs_tsym_state *w = &vs__tsym[sym];
		const struct vs_tfault_rule *r = &vs_knobs.fault.rule[st->fault];
		uint64_t k = __atomic_add_fetch(&w->fault_calls, 1,
						__ATOMIC_RELAXED);

		if (vs__tfault_fires(r, name, k)) {
			c->fault_errno = r->err;
			pthread_setspecific(vs_fault_key, name);
			return 1;
		}
	}
	return 0;
}

static void vs_stats_add(struct vs_tsym_state *st, uint64_t ns, int failed,
			 int e)
{
	uint64_t max = __atomic_load_n(&st->max_ns, __ATOMIC_RELAXED);
	unsigned int i;

	__atomic_add_fetch(&st->calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&st->total_ns, ns, __ATOMIC_RELAXED);
	while (ns > max &&
	       !__atomic_compare_exchange_n(&st->max_ns, &max, ns, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (!failed)
		return;
	__atomic_add_fetch(&st->failures, 1, __ATOMIC_RELAXED);
	for (i = 0; i < VS_TSTAT_ERRNOS; i++) {
		int cur = __atomic_load_n(&st->err[i], __ATOMIC_ACQUIRE), zero = 0;

		if (!cur &&
		    __atomic_compare_exchange_n(&st->err[i], &zero, e, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			cur = e;
		else if (!cur)
			cur = zero;	/* another thread took it: its errno */
		if (cur == e)
			break;
	}
	__atomic_add_fetch(&st->err_count[i], 1, __ATOMIC_RELAXED);
}

void vs__tcall_end(struct vs_tcall *c, uint64_t ret, int err)
{
	struct vs_tsym_state *st = &vs__tsym[c->sym];
	uint64_t ns = c->start_ns ? vs_now_ns() - c->start_ns : 0;
	int e, failed, i;

	if (c->fault_errno)
		err = c->fault_errno;
	failed = vs__tfailed(c->sym, ret, err, &e);
	if (vs_knobs.stats)
		vs_stats_add(st, ns, failed, e);
	if (!failed && st->ends_handle)
		vs__tfacts_forget(c);
	if (!c->traced || (vs_knobs.filter.failed_only && !failed))
		return;
	if (!c->len)
		vs_decode_call(c);
	for (i = 0; !failed && i < c->facts.sig.n; i++)
		vs__tdecode_out(c->line, sizeof(c->line), &c->len, c, i);
	vs__tdecode_ret(c->line, sizeof(c->line), &c->len, c, ret, failed);
	if (failed && e) {
		const char *name = vs__errno_name(e);

		vs__tprintf(c->line, sizeof(c->line), &c->len, " %s (%s)",
			    name ? name : "errno", strerror(e));
	}
	if (c->fault_errno)
		vs__tputs(c->line, sizeof(c->line), &c->len,
			  " [injected by VERBSHIM_FAULT]");
	vs__tprintf(c->line, sizeof(c->line), &c->len, " <%llu.%09llu>\n",
		    (unsigned long long)(ns / 1000000000u),
		    (unsigned long long)(ns % 1000000000u));
	if (c->len && c->line[c->len - 1] != '\n')
		c->line[c->len - 1] = '\n';	/* cut: still one line */
	vs__tfile_write(c->line, c->len);
}

/* ---- the counters, for lib/base/call_stats.c (include/verbshim/trace.h) ---- */

int vs__tstats_get(struct vs_call_stat *out, size_t max, size_t *count)
{
	size_t n = 0, i;
	unsigned int j;

	vs__trace_knobs_on();
	if (!vs_knobs.stats)
		return -ENODATA;
	for (i = 0; i < VS_TSYM_COUNT; i++) {
		const struct vs_tsym_state *st = &vs__tsym[i];
		struct vs_call_stat s;

		if (!__atomic_load_n(&st->calls, __ATOMIC_RELAXED))
			continue;
		if (n < max) {
			memset(&s, 0, sizeof(s));
			s.name = vs__tsym_info[i].name;
			s.calls = __atomic_load_n(&st->calls, __ATOMIC_RELAXED);
			s.failures = __atomic_load_n(&st->failures,
						     __ATOMIC_RELAXED);
			s.total_ns = __atomic_load_n(&st->total_ns,
						     __ATOMIC_RELAXED);
			s.max_ns = __atomic_load_n(&st->max_ns,
						   __ATOMIC_RELAXED);
			for (j = 0; j < VS_TSTAT_ERRNOS; j++) {
				s.errors[j].err = __atomic_load_n(
					&st->err[j], __ATOMIC_ACQUIRE);
				s.errors[j].count = __atomic_load_n(
					&st->err_count[j], __ATOMIC_RELAXED);
			}
			s.other_errors = __atomic_load_n(
				&st->err_count[VS_TSTAT_ERRNOS],
				__ATOMIC_RELAXED);
			out[n] = s;
		}
		n++;
	}
	*count = n;
	return 0;
}

int vs__tstats_print(int fd)
{
	unsigned int copy, copies;
	Dl_info self;
	char line[1024];
	size_t i, len;
	uint64_t calls = 0, failures = 0;
	unsigned int j;

	vs__trace_knobs_on();
	if (!vs_knobs.stats)
		return -ENODATA;
	len = 0;
	/* which copy of the shim counted these: a process may hold several
	 * (plugins that link the archive), each with its own counters */
	if (!dladdr((void *)vs__tstats_print, &self) || !self.dli_fname ||
	    !*self.dli_fname)
		self.dli_fname = "the program";
	vs__thub_copies(&copy, &copies);
	vs__tprintf(line, sizeof(line), &len,
		    "verbshim: calls through the shim (VERBSHIM_STATS), pid %ld, "
		    "by its copy in %s (%u of %u)\n"
		    "verbshim: %-28s %10s %8s %12s %10s %10s  failures by errno\n",
		    (long)getpid(), self.dli_fname, copy, copies, "function",
		    "calls", "failed", "total us", "mean us", "max us");
	if (write(fd, line, len) < 0)
		return -errno;
	for (i = 0; i < VS_TSYM_COUNT; i++) {
		const struct vs_tsym_state *st = &vs__tsym[i];
		uint64_t c = __atomic_load_n(&st->calls, __ATOMIC_RELAXED);
		uint64_t f = __atomic_load_n(&st->failures, __ATOMIC_RELAXED);
		uint64_t t = __atomic_load_n(&st->total_ns, __ATOMIC_RELAXED);

		if (!c)
			continue;
		calls += c;
		failures += f;
		len = 0;
		vs__tprintf(line, sizeof(line), &len,
			    "verbshim: %-28s %10llu %8llu %12.1f %10.2f %10.1f",
			    vs__tsym_info[i].name, (unsigned long long)c,
			    (unsigned long long)f, t / 1e3, t / 1e3 / (double)c,
			    __atomic_load_n(&st->max_ns, __ATOMIC_RELAXED) / 1e3);
		for (j = 0; j <= VS_TSTAT_ERRNOS; j++) {
			uint64_t n = __atomic_load_n(&st->err_count[j],
						     __ATOMIC_RELAXED);
			const char *name = j < VS_TSTAT_ERRNOS ?
				vs__errno_name(st->err[j]) : "other";

			if (!n)
				continue;
			if (name)
				vs__tprintf(line, sizeof(line), &len, "  %s:%llu",
					    name, (unsigned long long)n);
			else
				vs__tprintf(line, sizeof(line), &len, "  %d:%llu",
					    st->err[j], (unsigned long long)n);
		}
		vs__tputs(line, sizeof(line), &len, "\n");
		if (write(fd, line, len) < 0)
			return -errno;
	}
	len = 0;
	vs__tprintf(line, sizeof(line), &len,
		    "verbshim: %-28s %10llu %8llu\n", "total",
		    (unsigned long long)calls, (unsigned long long)failures);
	if (write(fd, line, len) < 0)
		return -errno;
	return 0;
}
