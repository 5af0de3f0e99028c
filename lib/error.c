/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's last error: with the handle arena (lib/handle.c)
 * the only state of the typed API besides the shim's tables.
 */
#include "vs_internal.h"

static _Thread_local struct vs_error last_error;

int vs__set_errorv(const char *verb, int err, const char *fmt, va_list ap)
{
	if (err <= 0)
		err = EINVAL;
	last_error.verb = verb ? verb : "verbshim";
	last_error.err = err;
	last_error.batch_posted = 0;
	vsnprintf(last_error.message, sizeof(last_error.message), fmt, ap);
	if (!last_error.message[0])
		snprintf(last_error.message, sizeof(last_error.message), "%s",
			 strerror(err));
	return -err;
}

int vs__set_error(const char *verb, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vs__set_errorv(verb, err, fmt, ap);
	va_end(ap);
	return ret;
}

/* After vs__set_error: what a failed batch submit posted anyway. */
void vs__error_set_batch_posted(long n)
{
	last_error.batch_posted = n;
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
		snprintf(buf, len, "%s: %s: %s", e->verb ? e->verb : "verbshim",
			 strerror(e->err), e->message);
	return buf;
}
