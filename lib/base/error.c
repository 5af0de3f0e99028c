/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's last error: with the handle arena (lib/base/handle.c)
 * the only state of the typed API besides the shim's tables.
 */
#include "base.h"
#include "verbshim/loader.h"

static _Thread_local struct vs_error last_error;

/*
 * When the verb's failure was injected (VERBSHIM_FAULT, shim/trace/trace.c), the
 * record says so: the last injected failure on this thread was this verb,
 * or the symbol its verbs.h macro calls (ibv_reg_mr -> ibv_reg_mr_iova2).
 */
static void vs_note_injected(char *m, const char *verb)
{
	const char *f = verb ? vs__fault_last() : NULL;
	size_t vl = verb ? strlen(verb) : 0, len;

	if (!f || strncmp(f, verb, vl) || (f[vl] && f[vl] != '_'))
		return;
	len = strlen(m);
	if (len < VS_ERROR_MSG_MAX - 1)
		snprintf(m + len, VS_ERROR_MSG_MAX - len,
			 " [injected: VERBSHIM_FAULT made %s fail]", f);
}

/* Formats into the record's message from off on; a cut message says so. */
static void message_put(size_t off, const char *fmt, va_list ap)
{
	char *m = last_error.message;
	const size_t cut = sizeof(VS_ERROR_CUT) - 1;
	int n = vsnprintf(m + off, VS_ERROR_MSG_MAX - off, fmt, ap);

	if (n >= 0 && (size_t)n >= VS_ERROR_MSG_MAX - off)
		memcpy(m + VS_ERROR_MSG_MAX - 1 - cut, VS_ERROR_CUT, cut + 1);
}

int vs__errorv(const char *call, const char *verb, int err, const char *fmt,
	       va_list ap)
{
	char *m = last_error.message;

	if (err <= 0)
		err = EINVAL;
	last_error.call = call ? call : "verbshim";
	last_error.verb = verb;
	last_error.err = err;
	last_error.batch_posted = 0;
	message_put(0, fmt, ap);
	if (!m[0])
		snprintf(m, VS_ERROR_MSG_MAX, "%s", strerror(err));
	vs_note_injected(m, verb);
	return -err;
}

int vs__set_error(const char *call, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vs__errorv(call, NULL, err, fmt, ap);
	va_end(ap);
	return ret;
}

int vs__out_null(const char *call)
{
	return vs__set_error(call, EINVAL, "out is NULL");
}

int vs__verb_error(const char *call, const char *verb, int err,
		   const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vs__errorv(call, verb, err, fmt, ap);
	va_end(ap);
	return ret;
}

const char *vs__library_reason(int lib, char *buf, size_t len)
{
	struct vs_library_info info;

	buf[0] = 0;
	if (vs__library_query_linked(lib, &info) || info.loaded)
		return NULL;
	snprintf(buf, len, "%s did not load: %s", info.name,
		 info.error ? info.error : strerror(info.load_errno));
	return buf;
}

/* After vs__set_error: what a failed batch submit posted anyway. */
void vs__error_set_batch_posted(long n)
{
	last_error.batch_posted = n;
}

void vs__error_restore(const struct vs_error *e)
{
	last_error = *e;
}

void vs__error_append(const char *fmt, ...)
{
	size_t len = strlen(last_error.message);
	va_list ap;

	if (len >= VS_ERROR_MSG_MAX - 1)
		return;
	va_start(ap, fmt);
	message_put(len, fmt, ap);
	va_end(ap);
}

void vs__deferred_note(const char *verb, const char *own, const char *what)
{
	if (!verb || !strcmp(verb, own))
		return;
	vs__error_append(" (the %s was closed before and its free deferred to "
			 "this %s: retry with %s on the %s, whose handle is "
			 "open again; what %s closed is gone, so a second %s "
			 "is a double close)", what, verb, own, what, verb, verb);
}

const struct vs_error *vs_last_error(void)
{
	return &last_error;
}

void vs_clear_error(void)
{
	memset(&last_error, 0, sizeof(last_error));
}

char *vs_format_error(const struct vs_error *e, char *buf, size_t len)
{
	if (!buf || !len)
		return buf;
	if (!e || !e->err)
		snprintf(buf, len, "no error");
	else
		snprintf(buf, len, "%s: %s%s%s: %s", e->call ? e->call : "verbshim",
			 e->verb ? e->verb : "", e->verb ? ": " : "",
			 strerror(e->err), e->message);
	return buf;
}
