/* SPDX-License-Identifier: MIT */
/*
 * On a machine without RDMA (the host), opening and listing devices is a
 * clean error (or an empty list), never a crash, and nothing leaks (the
 * valgrind stage; the dlopen'ed libibverbs stays loaded for the process's
 * life, which is still-reachable, not a leak).
 */
#include "../common/vs_typed.h"

int main(void)
{
	struct vs_context *ctx = (struct vs_context *)&ctx;
	size_t n = 99;
	int ret;

	if (getenv("VERBSHIM_IN_VM"))
		VS_SKIP("there is a device in the VM");
	ret = vs_device_open(NULL, &ctx);
	if (ret == 0) {
		VS_OK(vs_device_close(ctx));
		VS_SKIP("this host has an RDMA device");
	}
	VS_ASSERT(ctx == NULL);
	VS_ASSERT(ret < 0);
	VS_ASSERT_EQ(vs_last_error()->err, -ret);
	VS_ASSERT(vs_last_error()->message[0]);
	printf("no device: %s\n", vs_t_err());
	ret = vs_device_list(NULL, 0, &n);
	VS_ASSERT_EQ(n, 0);
	VS_FAILS(vs_device_open("rxe0", &ctx), -ret ? -ret : ENODEV, "");
	printf("device calls fail cleanly without a device\n");
	return 0;
}
