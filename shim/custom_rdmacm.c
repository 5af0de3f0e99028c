// SPDX-License-Identifier: MIT
/* The librdmacm drop-ins that are more than a forward. */
#include <stdarg.h>

#include "vs_shim.h"

struct ibv_context **rdma_get_devices(int *num_devices)
{
	VS_RESOLVE(rdmacm, rdma_get_devices,
		   if (num_devices) *num_devices = 0;
		   errno = vs_err; return NULL)
	return fn(num_devices);
}

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
