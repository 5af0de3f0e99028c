/* SPDX-License-Identifier: MIT */
/*
 * One sleep on an event fd with the timeout rules of the waits
 * (vs_channel_wait, vs_cq_wait, vs_async_next): 0 = do not sleep,
 * -1 = for ever, else milliseconds from the call.
 */
#include <poll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vs_internal.h"

/*
 * The system call, not clock_gettime(): libc's is GLIBC_2.17 where older
 * glibc had it in librt only (shim/glibc_floor.h pins every libc symbol
 * to its oldest node); only timed waits read the clock, once per sleep.
 */
static int64_t now_ms(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t vs__deadline(int timeout_ms)
{
	return timeout_ms > 0 ? now_ms() + timeout_ms : 0;
}

int vs__wait_fd(int fd, int timeout_ms, int64_t deadline, const char *call)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int left = -1;

	if (timeout_ms == 0)
		return -EAGAIN;
	if (timeout_ms > 0) {
		int64_t d = deadline - now_ms();

		if (d <= 0)
			return -ETIMEDOUT;
		left = d > 0x7fffffff ? 0x7fffffff : (int)d;
	}
	if (poll(&pfd, 1, left) < 0 && errno != EINTR)
		return vs__set_error(call, errno, "poll: waiting on fd %d failed",
				     fd);
	return 0;
}

int vs__wait_over(int timeout_ms, int64_t deadline)
{
	if (timeout_ms == 0)
		return -EAGAIN;
	if (timeout_ms > 0 && deadline - now_ms() <= 0)
		return -ETIMEDOUT;
	return 0;
}
