// SPDX-License-Identifier: MIT
/*
 * The rows, and the two ways out: the table a person reads and the JSON
 * report a bug report carries (its keys: docs/selftest.schema.json).
 * Rows are only appended, under a lock, into room made once (main.c): the
 * loopback server's thread adds its own while the client side holds
 * pointers to its rows.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "selftest.h"

static pthread_mutex_t rows_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct result spare;	/* where rows go once the room is full */

/* The watchdog's (main.c): when a row last began or ended, and which. */
static uint64_t last_progress_ns;
static const char *last_row = "looking for ports";

void progress(const char *row)
{
	__atomic_store_n(&last_progress_ns, now_ns(), __ATOMIC_RELAXED);
	if (row)
		__atomic_store_n(&last_row, row, __ATOMIC_RELAXED);
}

uint64_t progress_last(const char **row)
{
	*row = __atomic_load_n(&last_row, __ATOMIC_RELAXED);
	return __atomic_load_n(&last_progress_ns, __ATOMIC_RELAXED);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The row's start time, kept in ms until result_end() makes it a span. */
struct result *result_begin(struct run *r, const struct port_under_test *p,
			    const char *api, const char *name)
{
	struct result *res = &spare;

	pthread_mutex_lock(&rows_lock);
	if (r->nresults < r->cap)
		res = &r->results[r->nresults++];
	pthread_mutex_unlock(&rows_lock);
	*res = (struct result){ .port = p ? p->port : 0, .verdict = FAIL,
				.ms = (double)now_ns() / 1e6 };
	snprintf(res->name, sizeof(res->name), "%s", name);
	snprintf(res->api, sizeof(res->api), "%s", api);
	snprintf(res->device, sizeof(res->device), "%s", p ? p->device : "");
	snprintf(res->reason, sizeof(res->reason), "did not finish");
	progress(res == &spare ? NULL : res->name);
	return res;
}

void result_end(struct result *res, enum verdict v, const char *fmt, ...)
{
	va_list ap;

	res->ms = (double)now_ns() / 1e6 - res->ms;
	res->verdict = v;
	va_start(ap, fmt);
	vsnprintf(res->reason, sizeof(res->reason), fmt, ap);
	va_end(ap);
	progress(NULL);
}

struct result *teardown_vs(struct run *r, const struct port_under_test *p,
			   const char *call, int ret)
{
	struct result *res = result_begin(r, p, "typed", "teardown");
	char msg[VS_ERROR_MSG_MAX + 64];

	(void)ret;
	/* the record names the call (and the provider function in it) */
	if (vs_last_error()->call && !strcmp(vs_last_error()->call, call))
		result_end(res, FAIL, "%s",
			   vs_format_error(vs_last_error(), msg, sizeof(msg)));
	else
		result_end(res, FAIL, "%s: %s", call,
			   vs_format_error(vs_last_error(), msg, sizeof(msg)));
	return res;
}

void teardown_retried(struct result *res, int ret)
{
	size_t n = strlen(res->reason);

	if (ret)
		snprintf(res->reason + n, sizeof(res->reason) - n,
			 "; closed again: failed too (%s)", strerror(-ret));
	else
		snprintf(res->reason + n, sizeof(res->reason) - n,
			 "; closed again: done");
}

struct result *teardown_plain(struct run *r, const struct port_under_test *p,
			      const char *call, int err)
{
	struct result *res = result_begin(r, p, "dropin", "teardown");

	result_end(res, FAIL, "%s: %s", call, strerror(err));
	return res;
}

void result_fail_vs(struct result *res, const char *what, int ret)
{
	char msg[VS_ERROR_MSG_MAX + 64];
	const struct vs_error *e = vs_last_error();

	/* A refusal of what this device or rdma-core cannot do is a skip. */
	if (ret == -EOPNOTSUPP || ret == -ENOSYS || ret == -EPROTONOSUPPORT)
		result_end(res, SKIP, "%s: not supported here: %s", what,
			   vs_format_error(e, msg, sizeof(msg)));
	else
		result_end(res, FAIL, "%s: %s", what,
			   vs_format_error(e, msg, sizeof(msg)));
}

static const char *verdict_name(enum verdict v)
{
	return v == PASS ? "pass" : v == SKIP ? "skip" : "fail";
}

static void count(const struct run *r, size_t n[3])
{
	n[PASS] = n[FAIL] = n[SKIP] = 0;
	for (size_t i = 0; i < r->nresults; i++)
		n[r->results[i].verdict]++;
}

int run_exit_code(const struct run *r)
{
	size_t n[3];

	count(r, n);
	if (n[FAIL])
		return EXIT_FAIL;
	return n[PASS] ? EXIT_PASS : EXIT_NOTHING;
}

/* What the rows ran on, for a person: the build, the libraries, the ports. */
static void print_header(FILE *f, const struct run *r)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(f, "verbshim-selftest %s (%s) on Linux %s %s\n", VERBSHIM_VERSION_STRING,
		r->opt.server ? "server" : r->opt.client ? "client" : "loopback",
		u.release, u.machine);
	for (int i = 0; i < 2; i++) {	/* libibverbs, librdmacm */
		struct vs_library_info l = { 0 };
		char nodes[128] = "";

		vs_library_query((enum vs_library)i, &l);
		if (!l.loaded) {
			fprintf(f, "  %s: not loaded: %s\n", l.name, l.error ? l.error : "?");
			continue;
		}
		vs_library_nodes((enum vs_library)i, nodes, sizeof(nodes));
		fprintf(f, "  %s: %s, %s (rdma-core %d or later)\n", l.name, l.path,
			nodes, l.min_release);
	}
	for (size_t i = 0; i < r->nports; i++) {
		const struct port_under_test *p = &r->ports[i];

		fprintf(f, "  %s port %u: %s (%s), provider %s, firmware %s, address %s\n",
			p->device, p->port, vs_link_kind_name(p->kind), p->link_layer,
			p->provider, p->firmware[0] ? p->firmware : "-",
			p->addr[0] ? p->addr : "none");
	}
}

void print_table(FILE *f, const struct run *r)
{
	size_t n[3];

	print_header(f, r);
	fprintf(f, "%-10s %-4s %-7s %-16s %-5s %9s  %s\n", "device", "port",
		"api", "test", "", "ms", "what was checked / why");
	for (size_t i = 0; i < r->nresults; i++) {
		const struct result *x = &r->results[i];

		fprintf(f, "%-10s %-4u %-7s %-16s %-5s %9.2f  %s\n",
			x->device[0] ? x->device : "-", x->port, x->api, x->name,
			verdict_name(x->verdict), x->ms, x->reason);
	}
	count(r, n);
	fprintf(f, "verbshim-selftest: %zu passed, %zu failed, %zu skipped",
		n[PASS], n[FAIL], n[SKIP]);
	if (n[FAIL])
		fputs(": FAILED (rerun with VERBSHIM_TRACE=failed to see the "
		      "failing calls; docs/selftest.md)\n", f);
	else if (!n[PASS])
		fprintf(f, ": nothing to test: %s\n",
			r->nothing[0] ? r->nothing : "every test was skipped");
	else
		fputs(": verbshim works on this machine\n", f);
}

/* A JSON string: quotes, backslashes and control bytes escaped; bytes
 * >= 0x80 pass as they are (device names, paths, errors from this host). */
static void jstr(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

static void json_libraries(FILE *f)
{
	fputs("  \"rdma_core\": [", f);
	for (int i = 0; i < VS_LIB_COUNT; i++) {
		struct vs_library_info l = { 0 };
		char nodes[128] = "";

		vs_library_query((enum vs_library)i, &l);
		if (l.loaded)
			vs_library_nodes((enum vs_library)i, nodes, sizeof(nodes));
		fprintf(f, "%s\n    {\"library\": ", i ? "," : "");
		jstr(f, l.name);
		fprintf(f, ", \"loaded\": %s, \"path\": ", l.loaded ? "true" : "false");
		jstr(f, l.path);
		fputs(", \"highest_node\": ", f);
		jstr(f, l.loaded ? l.highest_node : NULL);
		fputs(", \"nodes\": ", f);
		jstr(f, l.loaded ? nodes : NULL);
		fprintf(f, ", \"min_release\": %d, \"provider_abi\": %d, "
			"\"symbols_resolved\": %u, \"symbols_known\": %u, \"error\": ",
			l.min_release, l.provider_abi, l.symbols_resolved,
			l.symbols_known);
		jstr(f, l.loaded ? NULL : l.error);
		fputc('}', f);
	}
	fputs("\n  ],\n  \"features\": [", f);
	for (int i = 0; i < VS_FEATURE_COUNT; i++) {
		struct vs_feature_info fi = { 0 };

		vs_feature_query((enum vs_feature)i, &fi);
		fprintf(f, "%s\n    {\"verb\": ", i ? "," : "");
		jstr(f, fi.verb);
		fprintf(f, ", \"release\": %d, \"available\": %s}", fi.release,
			fi.available ? "true" : "false");
	}
	fputs("\n  ],\n", f);
}

/* The VERBSHIM_STATS counters, or null when they were not on. */
static void json_counters(FILE *f)
{
	struct vs_call_stat *s = NULL;
	size_t n = 0;

	fputs("  \"counters\": ", f);
	if (vs_call_stats(NULL, 0, &n) || !(s = calloc(n ? n : 1, sizeof(*s))) ||
	    vs_call_stats(s, n, &n)) {
		free(s);
		fputs("null,\n", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n    {\"function\": ", i ? "," : "");
		jstr(f, s[i].name);
		fprintf(f, ", \"calls\": %llu, \"failures\": %llu, \"total_ns\": %llu}",
			(unsigned long long)s[i].calls,
			(unsigned long long)s[i].failures,
			(unsigned long long)s[i].total_ns);
	}
	fputs(n ? "\n  ],\n" : "],\n", f);
	free(s);
}

static void json_ports(FILE *f, const struct run *r)
{
	fputs("  \"devices\": [", f);
	for (size_t i = 0; i < r->nports; i++) {
		const struct port_under_test *p = &r->ports[i];

		fprintf(f, "%s\n    {\"device\": ", i ? "," : "");
		jstr(f, p->device);
		fprintf(f, ", \"port\": %u, \"provider\": ", p->port);
		jstr(f, p->provider);
		fputs(", \"firmware\": ", f);
		jstr(f, p->firmware);
		fprintf(f, ", \"vendor_id\": %u, \"vendor_part_id\": %u, \"link_layer\": ",
			p->vendor_id, p->vendor_part_id);
		jstr(f, p->link_layer);
		fputs(", \"kind\": ", f);
		jstr(f, vs_link_kind_name(p->kind));
		fputs(", \"address\": ", f);
		jstr(f, p->addr[0] ? p->addr : NULL);
		fputc('}', f);
	}
	fputs(r->nports ? "\n  ],\n" : "],\n", f);
}

int write_json(const char *path, const struct run *r)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	struct vs_build_info b = { 0 };
	struct utsname u;
	size_t n[3];

	if (!f)
		return -errno;
	vs_build_query(&b);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	count(r, n);
	fputs("{\n  \"format\": \"verbshim-selftest/1\",\n  \"mode\": ", f);
	jstr(f, r->opt.server ? "server" : r->opt.client ? "client" : "loopback");
	fputs(",\n  \"peer\": ", f);
	jstr(f, r->opt.client);
	fputs(",\n  \"kernel\": ", f);
	jstr(f, u.release);
	fputs(", \"machine\": ", f);
	jstr(f, u.machine);
	fputs(",\n  \"verbshim\": {\"version\": ", f);
	jstr(f, VERBSHIM_VERSION_STRING);
	fputs(", \"nodes_in\": ", f);
	jstr(f, b.nodes_in);
	fputs(", \"nodes_out\": ", f);
	jstr(f, b.nodes_out);
	fputs("},\n", f);
	json_libraries(f);
	json_ports(f, r);
	json_counters(f);
	fputs("  \"tests\": [", f);
	for (size_t i = 0; i < r->nresults; i++) {
		const struct result *x = &r->results[i];

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		jstr(f, x->name);
		fputs(", \"api\": ", f);
		jstr(f, x->api);
		fputs(", \"device\": ", f);
		jstr(f, x->device[0] ? x->device : NULL);
		fprintf(f, ", \"port\": %u, \"verdict\": \"%s\", \"time_ms\": %.3f,"
			"\n     \"reason\": ", x->port, verdict_name(x->verdict), x->ms);
		jstr(f, x->reason);
		fputc('}', f);
	}
	fprintf(f, "%s  \"summary\": {\"passed\": %zu, \"failed\": %zu, "
		"\"skipped\": %zu, \"exit\": %d, \"nothing_to_test\": ",
		r->nresults ? "\n  ],\n" : "],\n", n[PASS], n[FAIL], n[SKIP],
		run_exit_code(r));
	jstr(f, run_exit_code(r) == EXIT_NOTHING ?
		(r->nothing[0] ? r->nothing : "every test was skipped") : NULL);
	fputs("}\n}\n", f);
	if (f == stdout)
		return fflush(f) ? -errno : 0;
	return fclose(f) ? -errno : 0;
}
