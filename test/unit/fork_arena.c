/* SPDX-License-Identifier: MIT */
/*
 * fork() while another thread creates and closes handles: the child's own
 * first create and close must not wait for ever on the arena's lock,
 * which the other thread may have held at the fork (lib/base/handle.c
 * takes it across fork()).  A thread churns handle slots; the main thread
 * forks FORKS children, each of which allocates and frees a slot under a
 * 10 s alarm.  Without the fork handlers a child is left holding a
 * locked lock nobody will release: it dies of SIGALRM (measured: the
 * handlers removed, a child hung at the 1st, 2nd and 3rd fork of 3 runs).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vs_test.h"

/* lib/base/handle.c (private): a slot of size bytes, and its close */
void *vs__handle_alloc(size_t size);
void vs__handle_free(void *h, size_t size);

#define FORKS 300
#define SLOT 128

static atomic_bool stop;

static void *churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		void *h = vs__handle_alloc(SLOT);

		VS_ASSERT(h != NULL);
		vs__handle_free(h, SLOT);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	int hung = 0, i;

	/* the first slot, before the thread: the arena exists at each fork */
	vs__handle_free(vs__handle_alloc(SLOT), SLOT);
	VS_ASSERT_EQ(pthread_create(&t, NULL, churn, NULL), 0);
	for (i = 0; i < FORKS; i++) {
		int status;
		pid_t pid = fork();

		VS_ASSERT(pid >= 0);
		if (!pid) {
			void *h;

			alarm(10);
			h = vs__handle_alloc(SLOT);
			if (!h)
				_exit(2);
			vs__handle_free(h, SLOT);
			_exit(0);
		}
		VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
			hung++;
			break;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			VS_FAIL("fork %d: the child's create and close: status 0x%x",
				i, status);
	}
	atomic_store(&stop, true);
	VS_ASSERT_EQ(pthread_join(t, NULL), 0);
	if (hung)
		VS_FAIL("fork %d: the child waited 10 s on the arena's lock "
			"(held by the parent's other thread at the fork)", i);
	printf("%d forks beside a thread creating and closing handles: every "
	       "child created and closed its own\n", FORKS);
	return 0;
}
