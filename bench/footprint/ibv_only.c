// SPDX-License-Identifier: MIT
/*
 * bench/footprint.sh's smallest program (test/shell/footprint.sh links it
 * too): it calls libibverbs' device list and nothing else, so it carries
 * libibverbs' rows and no other library's.
 */
#include <stdio.h>

#include <infiniband/verbs.h>

int main(void)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	printf("%d device(s)\n", n);
	ibv_free_device_list(list);
	return 0;
}
