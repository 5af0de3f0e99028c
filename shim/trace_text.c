// SPDX-License-Identifier: MIT
/*
 * The trace line's buffer: appends that truncate and keep it
 * NUL-terminated, for everything that writes into a line (the ids, the
 * decoders, the call's own text, the counters' table).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
