/* SPDX-License-Identifier: MIT */
/*
 * The host tests of the typed API against the fake provider
 * (test/stubs/stub_fake_ibverbs.c, built as build/.../stubs/fake).
 */
#ifndef VS_FAKE_TEST_H
#define VS_FAKE_TEST_H

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>

#include "vs_typed.h"
#include "../stubs/fake_efa.h"

/*
 * The path of a fake library, lib ("libibverbs.so.1"), of this build:
 * build/.../test/unit/NAME -> build/.../stubs/fake/lib.  Fails the test
 * when it is not built.
 */
static inline void vs_t_fake_path(const char *lib, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	VS_ASSERT(n > 0);
	exe[n] = 0;
	snprintf(buf, len, "%s/../../stubs/fake/%s", dirname(exe), lib);
	if (access(buf, R_OK))
		VS_FAIL("the fake %s is missing (make tests builds it)", buf);
}

/* A symbol of the fake libibverbs, already loaded (vs_t_use_fake); fails if absent. */
static inline void *vs_t_fake_sym(const char *name)
{
	char fake[PATH_MAX + 32];
	void *h, *sym;

	vs_t_fake_path("libibverbs.so.1", fake, sizeof(fake));
	h = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
	VS_ASSERT(h != NULL);
	sym = dlsym(h, name);
	VS_ASSERT(sym != NULL);
	dlclose(h); /* only the reference NOLOAD took */
	return sym;
}

/*
 * Loads the fake (extended verbs offered) through VERBSHIM_LIBIBVERBS and
 * returns its vs_stub_fail and vs_stub_live.
 */
static inline void vs_t_use_fake(void **fail, int **live)
{
	char fake[PATH_MAX + 32];

	vs_t_fake_path("libibverbs.so.1", fake, sizeof(fake));
	setenv("VERBSHIM_LIBIBVERBS", fake, 1);
	setenv("VS_FAKE_EXTENDED", "1", 1);
	vs_set_force_legacy(false);
	{
		/* the first call loads the fake */
		struct vs_device_entry e[2];
		size_t count;

		VS_OK(vs_device_list(e, 2, &count));
		VS_ASSERT_EQ(count, 1);
		VS_ASSERT_STREQ(e[0].name, "fake0");
	}
	*fail = vs_t_fake_sym("vs_stub_fail");
	*live = vs_t_fake_sym("vs_stub_live");
}

/*
 * Loads the fake libefa (after vs_t_use_fake; before anything loaded a
 * libefa) and returns its control block, reset: fake0 an EFA device
 * with the given efadv device_caps and these limits.
 */
static inline struct vs_stub_efa *vs_t_use_fake_efa(uint32_t device_caps)
{
	char fake[PATH_MAX + 32];
	struct vs_stub_efa *efa;
	void *h;

	vs_t_fake_path("libefa.so.1", fake, sizeof(fake));
	setenv("VERBSHIM_LIBEFA", fake, 1);
	VS_OK(vs_library_load(VS_LIB_EFA));
	h = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
	VS_ASSERT(h != NULL);
	efa = dlsym(h, "vs_stub_efa");
	VS_ASSERT(efa != NULL);
	dlclose(h);
	memset(efa, 0, sizeof(*efa));
	efa->efa_device = 1;
	efa->attr.max_sq_wr = 512;
	efa->attr.max_rq_wr = 256;
	efa->attr.max_sq_sge = 2;
	efa->attr.max_rq_sge = 3;
	efa->attr.inline_buf_size = 32;
	efa->attr.device_caps = device_caps;
	efa->attr.max_rdma_size = 1u << 30;
	return efa;
}

/* An RC QP on the fake whose send CQ is cq, connected to itself. */
static inline void vs_t_fake_rc_loop(struct vs_pd *pd, struct vs_cq *cq,
				     struct vs_rc_qp **qp)
{
	struct vs_endpoint ep;

	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, qp));
	VS_OK(vs_rc_endpoint(*qp, &ep));
	VS_OK(vs_rc_handshake(*qp, &ep));
}

/* Fails the test when the fake still has objects (live: vs_t_use_fake's). */
static inline void vs_t_fake_all_gone(const int *live)
{
	for (int k = 0; k < 7; k++)
		if (live[k])
			VS_FAIL("%d objects of kind %d left", live[k], k);
}

#endif /* VS_FAKE_TEST_H */
