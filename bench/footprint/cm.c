// SPDX-License-Identifier: MIT
/*
 * bench/footprint.sh's CM program: librdmacm's event channel and an id,
 * as a connection manager client starts (and libibverbs under it).  On
 * rdma-core's static archives (RDMA_STATIC_PROVIDERS), the providers are
 * registered by the program's own ibv_get_device_list() (verbs.h's
 * inline), which librdmacm's call of the library function is not.
 */
#include <stdio.h>

#include <rdma/rdma_cma.h>

int main(void)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

#ifdef RDMA_STATIC_PROVIDERS
	ibv_free_device_list(ibv_get_device_list(NULL));
#endif
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("rdma_create_event_channel");
		return 1;
	}
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		rdma_destroy_event_channel(ch);
		return 1;
	}
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return 0;
}
