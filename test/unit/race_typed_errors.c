/* SPDX-License-Identifier: MIT */
/*
 * Under TSan: vs_last_error() is per thread (no shared state), and the
 * legacy knob may be flipped while other threads read it.
 */
#include <pthread.h>

#include "../common/vs_typed.h"

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 2000; i++) {
		if ((i + id) % 2) {
			VS_FAILS(vs_pd_close(NULL), EINVAL, "pd is NULL");
			VS_ASSERT_STREQ(vs_last_error()->call, "vs_pd_close");
		} else {
			VS_FAILS(vs_cq_close(NULL), EINVAL, "cq is NULL");
			VS_ASSERT_STREQ(vs_last_error()->call, "vs_cq_close");
		}
		if (id == 0)
			vs_set_force_legacy(i % 3 == 0);
		else
			(void)vs_force_legacy();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		VS_ASSERT_EQ(pthread_create(&t[i], NULL, worker, (void *)i), 0);
	for (int i = 0; i < 4; i++)
		VS_ASSERT_EQ(pthread_join(t[i], NULL), 0);
	vs_set_force_legacy(false);
	printf("errors stayed per thread across 4 threads\n");
	return 0;
}
