/* SPDX-License-Identifier: MIT */
/*
 * One sleep on an event fd, or on a condition variable, with the timeout
 * rules of the waits (vs_channel_wait, vs_cq_wait, vs_async_next): 0 = do
 * not sleep, -1 = for ever, else milliseconds from the call.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "events.h"

/*
 * The system call, not clock_gettime(): libc's is GLIBC_2.17 where older
 * glibc had it in librt only (shim/loader/glibc_floor.h pins every libc symbol
 * to its oldest node); only timed waits read the clock, once per sleep.
 */
static int64_t now_ms(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t vs__now_deadline(int timeout_ms)
{
	return now_ms() + timeout_ms;
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

/* Monotonic, like the deadlines: a wall-clock step does not stretch a wait. */
int vs__cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t a;
	int err = pthread_condattr_init(&a);

	if (err)
		return err;
	err = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	if (!err)
		err = pthread_cond_init(cond, &a);
	pthread_condattr_destroy(&a);
	return err;
}

int vs__wait_cond(pthread_cond_t *cond, pthread_mutex_t *lock, int timeout_ms,
		  int64_t deadline)
{
	struct timespec at;
	int64_t d;

	if (timeout_ms == 0)
		return -EAGAIN;
	if (timeout_ms < 0) {
		pthread_cond_wait(cond, lock);
		return 0;
	}
	d = deadline - now_ms();
	if (d <= 0)
		return -ETIMEDOUT;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &at);
	at.tv_sec += (time_t)(d / 1000);
	at.tv_nsec += (long)(d % 1000) * 1000000;
	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(cond, lock, &at); /* timed out: the next call says so */
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
