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
 * the client vs_t_accepted_wait() before each first send.  The close
 * window, below, the same way round: vs_t_completed_*.
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

/* On iWARP: until A was posted (20 s at most), WHAT naming it. */
static inline void vs_t_window_wait(struct vs_t_accepted *a, const char *what)
{
	struct timespec ts;

	if (!a->iwarp)
		return;
	VS_ASSERT_EQ(clock_gettime(CLOCK_REALTIME, &ts), 0);
	ts.tv_sec += 20;
	while (sem_timedwait(&a->sem, &ts))
		if (errno != EINTR)
			VS_FAIL("%s within 20 s: %s", what, strerror(errno));
}

/* On iWARP: until the server's next accept returned. */
static inline void vs_t_accepted_wait(struct vs_t_accepted *a)
{
	vs_t_window_wait(a, "the server's accept did not return");
}

/*
 * siw's close window: siw_qp_sq_proc_tx (siw_qp_tx.c, Linux 6.1 and 6.12)
 * looks at tx_suspend before DDP_FLAG_LAST, so a send whose last segment
 * is already in TCP ends with IBV_WC_LOC_QP_OP_ERR if the connection
 * starts closing before the sending thread got there: a peer that took
 * the message, answered and disconnected at once can fail the completion
 * of a message it received (seen once in make check on a loaded host,
 * cm_serve_hook_cxx's last send; the window is the local loopback's
 * delivery of the bytes inside the sender's own send call).  A kernel
 * bug the library cannot reach: on iWARP the in-process tests' server
 * disconnects only once the client has its completions; the client
 * calls vs_t_completed_post() after them, the server
 * vs_t_completed_wait() before its disconnect.  Elsewhere no one waits.
 */
static inline void vs_t_completed_post(struct vs_t_accepted *a)
{
	vs_t_accepted_post(a);
}

static inline void vs_t_completed_wait(struct vs_t_accepted *a)
{
	vs_t_window_wait(a, "the client did not have its completions");
}

#endif /* VS_SIW_WINDOW_H */
