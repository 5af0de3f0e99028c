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
#include <unistd.h>

#include "vs_trace.h"

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
