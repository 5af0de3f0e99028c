// SPDX-License-Identifier: MIT
/*
 * The exported rsockets definitions (r*, repoll_*), generated from
 * shim/loader/syms_rdmacm.h.  An archive member of its own: a program that uses
 * rdma_* and defines its own rclose() or rpoll() links, as it does with
 * -lrdmacm, because nothing pulls this member in.
 */
#include <stdarg.h>

#include "dropin.h"

VS_RDMACM_RSOCKET_SYMBOLS(VS_DEFINE_RDMACM)

/* Variadic: forward the one optional argument as glibc's fcntl() does,
 * read as a pointer-sized value whether or not the command takes one. */
int rfcntl(int socket, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	VS_RESOLVE(rdmacm, rfcntl, errno = vs_err; return -1)
	return fn(socket, cmd, arg);
}
