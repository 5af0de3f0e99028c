// SPDX-License-Identifier: MIT
/*
 * The grammar of VERBSHIM_TRACE and VERBSHIM_FAULT (docs/trace.md): pure
 * functions, no global state, so that the unit tests and the fuzz target
 * can drive them directly.  A value that does not parse gives one
 * sentence saying what was wrong; the caller prints it and leaves the knob
 * off rather than guessing.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vs_trace.h"

static int vs_why(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int vs_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		char raw[512];

		va_start(ap, fmt);
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		/* the value is echoed: its bytes must not act on the terminal
		 * nor break the one line the sentence must be */
		vs__tescape(why, len, raw);
	}
	return -EINVAL;
}

#define VS_ERRNO_ROW(e) { e, #e },
static const struct {
	int err;
	const char *name;
} vs_errnos[] = {
	VS_ERRNO_ROW(EPERM) VS_ERRNO_ROW(ENOENT) VS_ERRNO_ROW(ESRCH)
	VS_ERRNO_ROW(EINTR) VS_ERRNO_ROW(EIO) VS_ERRNO_ROW(ENXIO)
	VS_ERRNO_ROW(E2BIG) VS_ERRNO_ROW(EBADF) VS_ERRNO_ROW(EAGAIN)
	VS_ERRNO_ROW(ENOMEM) VS_ERRNO_ROW(EACCES) VS_ERRNO_ROW(EFAULT)
	VS_ERRNO_ROW(EBUSY) VS_ERRNO_ROW(EEXIST) VS_ERRNO_ROW(ENODEV)
	VS_ERRNO_ROW(EINVAL) VS_ERRNO_ROW(ENFILE) VS_ERRNO_ROW(EMFILE)
	VS_ERRNO_ROW(ENOSPC) VS_ERRNO_ROW(EPIPE) VS_ERRNO_ROW(ERANGE)
	VS_ERRNO_ROW(EDEADLK) VS_ERRNO_ROW(ENOSYS) VS_ERRNO_ROW(ENODATA)
	VS_ERRNO_ROW(ETIME) VS_ERRNO_ROW(ENOLINK) VS_ERRNO_ROW(EPROTO)
	VS_ERRNO_ROW(EOVERFLOW) VS_ERRNO_ROW(ELIBBAD) VS_ERRNO_ROW(ENOTSOCK)
	VS_ERRNO_ROW(EMSGSIZE) VS_ERRNO_ROW(EPROTONOSUPPORT)
	VS_ERRNO_ROW(EOPNOTSUPP) VS_ERRNO_ROW(EAFNOSUPPORT)
	VS_ERRNO_ROW(EADDRINUSE) VS_ERRNO_ROW(EADDRNOTAVAIL)
	VS_ERRNO_ROW(ENETDOWN) VS_ERRNO_ROW(ENETUNREACH)
	VS_ERRNO_ROW(ECONNABORTED) VS_ERRNO_ROW(ECONNRESET)
	VS_ERRNO_ROW(ENOBUFS) VS_ERRNO_ROW(EISCONN) VS_ERRNO_ROW(ENOTCONN)
	VS_ERRNO_ROW(ETIMEDOUT) VS_ERRNO_ROW(ECONNREFUSED)
	VS_ERRNO_ROW(EHOSTDOWN) VS_ERRNO_ROW(EHOSTUNREACH)
	VS_ERRNO_ROW(EALREADY) VS_ERRNO_ROW(EINPROGRESS)
	VS_ERRNO_ROW(ECANCELED) VS_ERRNO_ROW(ENOTSUP) VS_ERRNO_ROW(EREMOTEIO)
};

int vs__errno_from_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(vs_errnos) / sizeof(vs_errnos[0]); i++)
		if (!strcmp(vs_errnos[i].name, name))
			return vs_errnos[i].err;
	return 0;
}

const char *vs__errno_name(int err)
{
	size_t i;

	/* EOPNOTSUPP before ENOTSUP: the same value on Linux */
	for (i = 0; i < sizeof(vs_errnos) / sizeof(vs_errnos[0]); i++)
		if (vs_errnos[i].err == err)
			return vs_errnos[i].name;
	return NULL;
}

int vs__tlib_from_name(const char *name)
{
	static const char *const names[VS_LIB_COUNT] = {
		[VS_LIB_IBVERBS] = "ibverbs", [VS_LIB_RDMACM] = "rdmacm",
		[VS_LIB_EFA] = "efa",	      [VS_LIB_MLX5] = "mlx5",
		[VS_LIB_MLX4] = "mlx4",	      [VS_LIB_IBUMAD] = "ibumad",
		[VS_LIB_HNS] = "hns",	      [VS_LIB_MANA] = "mana",
		[VS_LIB_IONIC] = "ionic",
	};
	unsigned int i;

	if (!strncmp(name, "lib", 3))
		name += 3;
	for (i = 0; i < VS_LIB_COUNT; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -1;
}

/* The next comma-separated item of *s into item (trimmed of spaces): its
 * length, or -1 when it does not fit. */
static int vs_next_item(const char **s, char *item, size_t size)
{
	const char *p = *s, *end;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	end = strchr(p, ',');
	if (!end)
		end = p + strlen(p);
	*s = *end ? end + 1 : end;
	n = (size_t)(end - p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= size)
		return -1;
	memcpy(item, p, n);
	item[n] = '\0';
	return (int)n;
}

/* A symbol name or fnmatch() pattern: what a C identifier and * ? [ ] ! -
 * may spell; anything else is a typo to report. */
static int vs_pattern_ok(const char *p)
{
	if (!*p)
		return 0;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_*?[]!-", *p)))
			return 0;
	return 1;
}

/* Whether any row's name matches the pattern. */
static int vs_pattern_matches_any(const char *pattern)
{
	unsigned int i;

	for (i = 0; i < VS_TSYM_COUNT; i++)
		if (!fnmatch(pattern, vs__tsym_info[i].name, 0))
			return 1;
	return 0;
}

/*
 * VERBSHIM_TRACE: comma-separated items, read left to right.
 *   1, all        every function
 *   failed        only the calls that failed (with any selection)
 *   ibverbs, librdmacm, ...   one library's functions
 *   PATTERN       functions whose name matches (fnmatch: ibv_*_qp)
 *   -ITEM         not these (a library or a pattern), wherever it stands
 * "failed" alone means all failed calls.
 */
int vs__tfilter_parse(const char *s, struct vs_tfilter *f, char *why,
		      size_t whylen)
{
	char item[VS_TPATTERN_MAX];
	unsigned int selectors = 0;

	memset(f, 0, sizeof(*f));
	if (!s || !*s)
		return vs_why(why, whylen, "is empty");
	while (*s) {
		struct vs_tfilter_rule *r;
		const char *name = item;
		int exclude = 0, lib;

		if (vs_next_item(&s, item, sizeof(item)) < 0)
			return vs_why(why, whylen,
				      "has an item longer than %d characters",
				      VS_TPATTERN_MAX - 1);
		if (!*item)
			return vs_why(why, whylen, "has an empty item");
		if (*name == '-') {
			exclude = 1;
			name++;
		}
		if (!exclude && (!strcmp(name, "1") || !strcmp(name, "all"))) {
			f->all = 1;
			selectors++;
			continue;
		}
		if (!exclude && !strcmp(name, "failed")) {
			f->failed_only = 1;
			continue;
		}
		if (f->nrules == VS_TFILTER_MAX)
			return vs_why(why, whylen, "has more than %d items",
				      VS_TFILTER_MAX);
		lib = vs__tlib_from_name(name);
		if (lib < 0 && !vs_pattern_ok(name))
			return vs_why(why, whylen,
				      "has \"%s\", which is neither all, failed, "
				      "a library (ibverbs, rdmacm, efa, mlx5, "
				      "mlx4, ibumad, hns, mana, ionic) nor a "
				      "function name pattern",
				      item);
		if (lib < 0 && !vs_pattern_matches_any(name))
			return vs_why(why, whylen,
				      "has \"%s\", which names no function this "
				      "build knows", item);
		r = &f->rule[f->nrules++];
		memcpy(r->pattern, name, strlen(name) + 1);	/* fits: item did */
		r->exclude = (unsigned char)exclude;
		r->lib = (signed char)lib;
		selectors += !exclude;
	}
	if (!selectors)
		f->all = 1;	/* "failed" or exclusions alone: of everything */
	return 0;
}

static int vs_rule_matches(const struct vs_tfilter_rule *r, const char *name,
			   unsigned int lib)
{
	if (r->lib >= 0)
		return (unsigned int)r->lib == lib;
	return !fnmatch(r->pattern, name, 0);
}

int vs__tfilter_match(const struct vs_tfilter *f, const char *name,
		      unsigned int lib)
{
	int selected = f->all;
	unsigned int i;

	for (i = 0; i < f->nrules; i++)
		if (!f->rule[i].exclude &&
		    vs_rule_matches(&f->rule[i], name, lib))
			selected = 1;
	for (i = 0; i < f->nrules; i++)
		if (f->rule[i].exclude &&
		    vs_rule_matches(&f->rule[i], name, lib))
			selected = 0;
	return selected;
}

/* A decimal count >= 1 that fits: 0 when it is not one. */
static uint64_t vs_count(const char *s)
{
	uint64_t v = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	return v;
}

/*
 * VERBSHIM_FAULT: comma-separated rules FUNCTION:ERRNO:WHEN, where
 * FUNCTION is a name or pattern, ERRNO a name (ENOMEM) and WHEN
 *   N          the Nth call fails, once (counted per function)
 *   %N         every Nth call fails (N, 2N, ...)
 *   P          a fraction 0 < P <= 1 with a dot ("0.25"): each call fails
 *              with that probability,
 *   P@SEED     drawn from SEED (default 1): the same calls fail each run
 */
static int vs_parse_when(const char *when, struct vs_tfault_rule *r)
{
	const char *at = strchr(when, '@');
	char frac[32], *end;

	if (*when == '%') {
		r->mode = VS_TF_EVERY;
		r->n = vs_count(when + 1);
		return r->n ? 0 : -1;
	}
	if (!strchr(when, '.')) {
		r->mode = VS_TF_NTH;
		r->n = vs_count(when);
		return r->n ? 0 : -1;
	}
	r->mode = VS_TF_PROB;
	r->seed = 1;
	if (at) {
		r->seed = vs_count(at + 1);
		if (!r->seed && strcmp(at + 1, "0"))
			return -1;
	}
	if ((size_t)(at ? at - when : (long)strlen(when)) >= sizeof(frac))
		return -1;
	snprintf(frac, sizeof(frac), "%.*s",
		 (int)(at ? at - when : (long)strlen(when)), when);
	if (frac[0] < '0' || frac[0] > '9')
		return -1;
	{
		int caller_errno = errno;	/* parsed on the caller's behalf */
		int range;

		errno = 0;
		r->prob = strtod(frac, &end);
		range = errno;
		errno = caller_errno;
		if (range || *end || !(r->prob > 0.0) || r->prob > 1.0)
			return -1;
	}
	/* 2^64 * prob, saturated at 1 */
	r->threshold = r->prob >= 1.0 ? UINT64_MAX
				      : (uint64_t)(r->prob * 18446744073709551616.0);
	return 0;
}

int vs__tfault_parse(const char *s, struct vs_tfault *f, char *why,
		     size_t whylen)
{
	char item[2 * VS_TPATTERN_MAX];

	memset(f, 0, sizeof(*f));
	if (!s || !*s)
		return vs_why(why, whylen, "is empty");
	while (*s) {
		struct vs_tfault_rule *r;
		char *errname, *when;
		unsigned int i, cannot = 0, fails = 0, refused = 0;

		if (vs_next_item(&s, item, sizeof(item)) < 0)
			return vs_why(why, whylen, "has a rule longer than %d "
				      "characters", (int)sizeof(item) - 1);
		errname = strchr(item, ':');
		when = errname ? strchr(errname + 1, ':') : NULL;
		if (!when)
			return vs_why(why, whylen,
				      "has \"%s\", not FUNCTION:ERRNO:N (e.g. "
				      "ibv_reg_mr:ENOMEM:3)", item);
		*errname++ = '\0';
		*when++ = '\0';
		if (f->nrules == VS_TFAULT_MAX)
			return vs_why(why, whylen, "has more than %d rules",
				      VS_TFAULT_MAX);
		r = &f->rule[f->nrules];
		if (strlen(item) >= sizeof(r->pattern) || !vs_pattern_ok(item))
			return vs_why(why, whylen, "has \"%s\", not a function "
				      "name or pattern", item);
		for (i = 0; i < VS_TSYM_COUNT; i++) {
			if (fnmatch(item, vs__tsym_info[i].name, 0))
				continue;
			if (vs__tsym_info[i].conv >= VS_TC_STR) {
				cannot++;
			} else if (vs__tfails(vs__tsym_info[i].facts)) {
				/* rdma-core's cannot fail (its row's fails=) */
				if (!fails++)
					refused = i;
			} else {
				r->matched++;
			}
		}
		if (!r->matched && fails) {
			char because[256];

			vs__tfails_why(vs__tfails(vs__tsym_info[refused].facts),
				       vs__tsym_info[refused].name, because,
				       sizeof(because));
			return vs_why(why, whylen, "has %s, which cannot fail: "
				      "%s", item, because);
		}
		if (!r->matched)
			return vs_why(why, whylen, cannot || fails ?
				      "has %s, which cannot fail (it returns "
				      "no error)" : "has %s, which names no "
				      "function this build knows", item);
		r->err = vs__errno_from_name(errname);
		if (!r->err)
			return vs_why(why, whylen, "has %s:%s: %s is not an "
				      "errno name this build knows (ENOMEM, "
				      "EINVAL, ETIMEDOUT, ...)", item, errname,
				      errname);
		if (vs_parse_when(when, r))
			return vs_why(why, whylen, "has %s:%s:%s: the last "
				      "part is not N (the Nth call, N >= 1), %%N "
				      "(every Nth) or a probability 0 < P <= 1 "
				      "with a dot and an optional @SEED", item,
				      errname, when);
		memcpy(r->pattern, item, strlen(item) + 1);
		f->nrules++;
	}
	return 0;
}

/* splitmix64: a good spread from (seed, function name, call number)
 * alone, so that which calls fail depends neither on the threads' timing
 * nor on the build's symbol list. */
static uint64_t vs_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

int vs__tfault_fires(const struct vs_tfault_rule *r, const char *name,
		     uint64_t k)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a of the name */

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ull;
	switch (r->mode) {
	case VS_TF_NTH:
		return k == r->n;
	case VS_TF_EVERY:
		return k % r->n == 0;
	case VS_TF_PROB:
		return r->threshold == UINT64_MAX ||
		       vs_mix(vs_mix(r->seed) ^ vs_mix(k) ^ h) < r->threshold;
	}
	return 0;
}
