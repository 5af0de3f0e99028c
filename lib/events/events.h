/* SPDX-License-Identifier: MIT */
/*
 * Private to the events room (lib/events/): completion channels, waits,
 * async events, scopes.  Over the core objects; the connection manager
 * includes it.
 */
#ifndef VS_EVENTS_H
#define VS_EVENTS_H

#include "../core/core.h"

/*
 * lib/wait.c: the deadline of a wait of timeout_ms (0 and -1: none), and
 * one sleep on fd until it is readable or the deadline: 0 (look again),
 * -EAGAIN when timeout_ms is 0, -ETIMEDOUT past the deadline (neither
 * recorded as an error: they are answers), or poll's errno.
 */
int64_t vs__now_deadline(int timeout_ms);
/* inline: a wait for ever or of 0 reads no clock */
static inline int64_t vs__deadline(int timeout_ms)
{
	return timeout_ms > 0 ? vs__now_deadline(timeout_ms) : 0;
}
int vs__wait_fd(int fd, int timeout_ms, int64_t deadline, const char *call);
/*
 * lib/wait.c: the same rules for a sleep on cond (a CLOCK_MONOTONIC one,
 * vs__cond_init), lock held: 0 (woken: look again), -EAGAIN, -ETIMEDOUT.
 */
int vs__wait_cond(pthread_cond_t *cond, pthread_mutex_t *lock, int timeout_ms,
		  int64_t deadline);
int vs__cond_init(pthread_cond_t *cond);
/*
 * lib/channel.c: the sleep of a wait on cq's channel, after a poll of cq
 * found nothing it wanted: reads the channel's events (re-arming their
 * CQs); 0 when cq may have completions now (poll it again), else sleeps
 * until the channel fd is readable: 0, -EAGAIN, -ETIMEDOUT or an error.
 */
int vs__channel_sleep(struct vs_cq *cq, int timeout_ms, int64_t deadline,
		      const char *call);
/*
 * lib/wr_wait.c: -EINVAL unless mode is known and, to sleep, cq has a
 * channel; the pause between two passes over cq that did not find what a
 * wait wants (0: pass again; -EAGAIN, -ETIMEDOUT, an error); -EIO
 * recorded for a WR that completed in error.
 */
int vs__wait_mode_check(struct vs_cq *cq, enum vs_wait_mode mode,
			const char *call);
int vs__wait_pause(struct vs_cq *cq, enum vs_wait_mode mode, int timeout_ms,
		   int64_t deadline, unsigned int *spins, const char *call);
int vs__wc_failed(const struct vs_wc *wc, const char *call);
/* lib/wait.c: whether a wait of timeout_ms begun at deadline is over */
int vs__wait_over(int timeout_ms, int64_t deadline);

#endif /* VS_EVENTS_H */
