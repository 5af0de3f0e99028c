/* SPDX-License-Identifier: MIT */
/*
 * The legacy-mode knob: forces ibv_create_cq/ibv_post_send even where the
 * extended verbs exist, so the same tests cover both paths.
 */
#include <pthread.h>

#include "base.h"

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int force_legacy;

static void read_env(void)
{
	const char *v = vs__knob(VS_KNOB_FORCE_LEGACY);

	__atomic_store_n(&force_legacy, v && *v && strcmp(v, "0") ? 1 : 0,
			 __ATOMIC_RELAXED);
}

void vs_set_force_legacy(bool on)
{
	/* Read the environment first so it cannot override this call later. */
	pthread_once(&env_once, read_env);
	__atomic_store_n(&force_legacy, on ? 1 : 0, __ATOMIC_RELAXED);
}

bool vs_force_legacy(void)
{
	pthread_once(&env_once, read_env);
	return __atomic_load_n(&force_legacy, __ATOMIC_RELAXED) > 0;
}
