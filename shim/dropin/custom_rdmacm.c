// SPDX-License-Identifier: MIT
/* The rdma_* drop-ins that are more than a forward. */
#include "dropin.h"

struct ibv_context **rdma_get_devices(int *num_devices)
{
	VS_RESOLVE(rdmacm, rdma_get_devices,
		   if (num_devices) *num_devices = 0;
		   errno = vs_err; return NULL)
	return fn(num_devices);
}
