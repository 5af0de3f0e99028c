// SPDX-License-Identifier: MIT
/*
 * The trace line's buffer: appends that truncate and keep it
 * NUL-terminated, for everything that writes into a line (the ids, the
 * decoders, the call's own text, the counters' table); the escape of
 * bytes that are not printable ASCII and the one-line messages on stderr
 * that use it (a knob refused, the trace file lost).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vs_trace.h"

/*
 * Descriptor 2 as the trace found it when it started (the knobs' first
 * read): the stderr the trace and its messages go to, and only while
 * descriptor 2 is still that file.  A program started with it closed, or
 * that closes it and opens a file of its own there (which lands on 2),
 * gets nothing written into that file (docs/trace.md, "Where it goes").
 */
static struct {
	int taken, open;
	uint64_t dev, ino;
} vs_tstderr;

void vs__tstderr_take(void)
{
	struct stat st;
	int saved = errno;

	vs_tstderr.open = !fstat(2, &st);
	if (vs_tstderr.open) {
		vs_tstderr.dev = (uint64_t)st.st_dev;
		vs_tstderr.ino = (uint64_t)st.st_ino;
	}
	__atomic_store_n(&vs_tstderr.taken, 1, __ATOMIC_RELEASE);
	errno = saved;
}

int vs__tstderr_ok(void)
{
	struct stat st;
	int saved = errno, ok;

	if (!__atomic_load_n(&vs_tstderr.taken, __ATOMIC_ACQUIRE))
		vs__tstderr_take();
	ok = vs_tstderr.open && !fstat(2, &st) &&
	     (uint64_t)st.st_dev == vs_tstderr.dev &&
	     (uint64_t)st.st_ino == vs_tstderr.ino;
	errno = saved;
	return ok;
}

void vs__tputs(char *buf, size_t size, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + 1 >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
}

void vs__tprintf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

void vs__tescape(char *dst, size_t size, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (!size)
		return;
	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;
		int plain = c >= 0x20 && c < 0x7f;

		if (n + (plain ? 1 : 4) >= size)
			break;	/* cut, but never inside an escape */
		if (plain) {
			dst[n++] = (char)c;
			continue;
		}
		dst[n++] = '\\';
		dst[n++] = 'x';
		dst[n++] = hex[c >> 4];
		dst[n++] = hex[c & 15];
	}
	dst[n] = '\0';
}

void vs__tsay(const char *fmt, ...)
{
	/* room for a path (the hub's 4096) and the sentence around it */
	char raw[4096 + 512], msg[sizeof(raw) + 512];
	va_list ap;
	size_t n;
	int saved = errno;

	if (!vs__tstderr_ok())	/* closed, or another file now: not stderr */
		return;
	va_start(ap, fmt);
	if (vsnprintf(raw, sizeof(raw), fmt, ap) < 0)
		raw[0] = '\0';
	va_end(ap);
	/* one line of printable ASCII, whatever a knob or a path held */
	vs__tescape(msg, sizeof(msg) - 1, raw);
	n = strlen(msg);
	msg[n++] = '\n';
	if (write(2, msg, n) < 0)
		n = 0;	/* nowhere else to say it */
	errno = saved;
}
