/* SPDX-License-Identifier: MIT */
/*
 * siw's accept window (docs/testbed.md, "A second provider"): siw_accept
 * sends its MPA reply before it hands the socket to the QP, and a message
 * that arrives in between sits unread until the next one comes: a client
 * that sends once and waits for the answer can wait for ever (seen once in
 * a make check, in cm_rc's connection cycles). A kernel bug the library
 * cannot reach; so on iWARP the in-process tests let their client send
 * its first message only once the server's accept has returned. On other
 * devices the client does not wait: it sends at once, as programs do.
 *
 * The server calls vs_t_accepted_post() after each accept that returned 0,
 * the client vs_t_accepted_wait() before each first send.
 */
#ifndef VS_SIW_WINDOW_H
#define VS_SIW_WINDOW_H

#include <semaphore.h>
#include <time.h>

#include "vs_typed.h"

struct vs_t_accepted {
	sem_t sem;
	bool iwarp; /* the device under test is iWARP: the client waits */
};

static inline void vs_t_accepted_init(struct vs_t_accepted *a)
{
	VS_ASSERT_EQ(sem_init(&a->sem, 0, 0), 0);
	a->iwarp = vs_t_iwarp();
}

static inline void vs_t_accepted_post(struct vs_t_accepted *a)
{
	VS_ASSERT_EQ(sem_post(&a->sem), 0);
}

/* On iWARP: until the server's next accept returned (20 s at most). */
static inline void vs_t_accepted_wait(struct vs_t_accepted *a)
{
	struct timespec ts;

	if (!a->iwarp)
		return;
	VS_ASSERT_EQ(clock_gettime(CLOCK_REALTIME, &ts), 0);
	ts.tv_sec += 20;
	while (sem_timedwait(&a->sem, &ts))
		if (errno != EINTR)
			VS_FAIL("the server's accept did not return within 20 s: %s",
				strerror(errno));
}

#endif /* VS_SIW_WINDOW_H */
