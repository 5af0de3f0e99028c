// SPDX-License-Identifier: MIT
/*
 * A constructor for a stub libibverbs that calls back into ibv_* while it
 * is being loaded, chosen by $VS_STUB_CTOR:
 *
 *   hook=ADDR  call the function at ADDR (a test's own, which then calls
 *              the shim: a callback into the program during the load)
 *   direct     call ibv_wc_status_str() and ibv_get_device_list() itself
 *              and record what came back in vs_stub_ctor: in a program
 *              built VISIBILITY=default -rdynamic these references bind
 *              to the program's exported drop-ins, not to this library
 */
#include <stdint.h>
#include <stdlib.h>

#include "stub.h"

VS_STUB_EXPORT struct {
	int ran;
	const char *status_str;
	int status_errno;
	struct ibv_device **list;
	int n;
	int list_errno;
} vs_stub_ctor;

__attribute__((constructor)) static void stub_ctor(void)
{
	const char *mode = getenv("VS_STUB_CTOR");

	if (!mode)
		return;
	vs_stub_ctor.ran = 1;
	if (!strncmp(mode, "hook=", 5)) {
		void (*hook)(void) =
			(void (*)(void))(uintptr_t)strtoull(mode + 5, NULL, 0);

		hook();
	} else if (!strcmp(mode, "direct")) {
		errno = 0;
		vs_stub_ctor.status_str = ibv_wc_status_str(IBV_WC_SUCCESS);
		vs_stub_ctor.status_errno = errno;
		errno = 0;
		vs_stub_ctor.n = -1;
		vs_stub_ctor.list = ibv_get_device_list(&vs_stub_ctor.n);
		vs_stub_ctor.list_errno = errno;
	}
}
