// SPDX-License-Identifier: MIT
/*
 * What a machine older than a verb answers, on the fake provider: the
 * typed dmabuf registration's control path (test/stubs/stub_fake_ibverbs.c
 * has ibv_reg_dmabuf_mr) and vs_feature_query() / vs_library_nodes().
 *   - the fake as rdma-core 33 (build/stubs/fake33: nodes up to
 *     IBVERBS_1.11): the feature is absent, the drop-in gives upstream's
 *     not-supported result (NULL, EOPNOTSUPP) without reaching the library,
 *     and vs_mr_register_dmabuf fails naming the verb, the release that
 *     added it and the node found;
 *   - the fake as rdma-core 44, its provider refusing dmabuf MRs (as rxe
 *     does): the verb is there and the provider's refusal comes through;
 *   - the same accepting them (VS_FAKE_DMABUF=1): an MR at iova 0x10000000
 *     (its SGEs and remote address there, vs_mr_ptr refused), closed
 *     again, and a closed fd's EBADF from the provider.
 * Each case runs in a child process, since a process loads once.
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "../common/vs_fake.h"
#include "vs_config.h" /* VS_HAVE_IBVERBS_1_12: the headers declared the verb */

static char fake33[PATH_MAX + 32];	/* set by old_library() */

#ifdef VS_HAVE_IBVERBS_1_12
/* The last verb the loaded fake (or fake33) saw. */
static const char *stub_last(void)
{
	void *h, *sym;

	if (!fake33[0])
		return vs_t_fake_sym("vs_stub_last");
	h = dlopen(fake33, RTLD_NOW | RTLD_NOLOAD);
	VS_ASSERT(h != NULL);
	sym = dlsym(h, "vs_stub_last");
	VS_ASSERT(sym != NULL);
	dlclose(h);	/* only the reference NOLOAD took */
	return sym;
}
#endif

static void open_pd(struct vs_context **ctx, struct vs_pd **pd)
{
	VS_OK(vs_device_open("fake0", ctx));
	VS_OK(vs_pd_alloc(*ctx, pd));
}

static void close_pd(struct vs_context *ctx, struct vs_pd *pd)
{
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_device_close(ctx));
}

/* rdma-core 33: no IBVERBS_1.12. */
static void old_library(void)
{
	char *fake = fake33, nodes[96];
	struct vs_feature_info fi;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr = NULL;
	int fd;

	vs_t_fake_path("libibverbs.so.1", fake, sizeof(fake33));
	/* .../stubs/fake/libibverbs.so.1 -> .../stubs/fake33/... */
	snprintf(strstr(fake, "/fake/"), sizeof(fake33) - (size_t)(strstr(fake, "/fake/") - fake),
		 "/fake33/libibverbs.so.1");
	VS_ASSERT(access(fake, R_OK) == 0);
	setenv("VERBSHIM_LIBIBVERBS", fake, 1);

	VS_ASSERT_EQ(vs_feature_query(VS_FEATURE_DMABUF_MR, &fi), 0);
	VS_ASSERT_STREQ(fi.verb, "ibv_reg_dmabuf_mr");
	VS_ASSERT_STREQ(fi.node, "IBVERBS_1.12");
	VS_ASSERT_EQ(fi.release, 34);
	VS_ASSERT_EQ(fi.available, 0);
	VS_ASSERT_STREQ(fi.found, "IBVERBS_1.11 (rdma-core 33)");
	VS_ASSERT(vs_library_nodes(VS_LIB_IBVERBS, nodes, sizeof(nodes)) > 0);
	VS_ASSERT_STREQ(nodes, "IBVERBS_1.0-1.11");
	/* the GID table (IBVERBS_1.11) is there, port speed (1.16) is not */
	VS_ASSERT_EQ(vs_feature_query(VS_FEATURE_GID_TABLE, &fi), 0);
	VS_ASSERT_EQ(fi.available, 1);
	VS_ASSERT_EQ(vs_feature_query(VS_FEATURE_PORT_SPEED, &fi), 0);
	VS_ASSERT_EQ(fi.available, 0);
	VS_ASSERT_EQ(fi.release, 62);

	open_pd(&ctx, &pd);
	fd = open("/dev/null", O_RDONLY);
	VS_ASSERT(fd >= 0);
#ifdef VS_HAVE_IBVERBS_1_12
	VS_ASSERT_EQ(vs_feature_query(VS_FEATURE_DMABUF_MR, &fi), 0);
	VS_ASSERT_EQ(fi.compiled_in, 1);
	VS_FAILS(vs_mr_register_dmabuf(pd, fd, 0, 4096, 0, 0, &mr), EOPNOTSUPP,
		 "ibv_reg_dmabuf_mr needs rdma-core 34 or later; this machine "
		 "has IBVERBS_1.11 (rdma-core 33)");
	/* the drop-in: upstream's result for an op that is not there,
	 * without a call into the library (the fake has the function, but
	 * not at IBVERBS_1.12) */
	errno = 0;
	VS_ASSERT(ibv_reg_dmabuf_mr(vs_pd_raw(pd), 0, 4096, 0, fd, 0) == NULL);
	VS_ASSERT_EQ(errno, EOPNOTSUPP);
	VS_ASSERT(strcmp(stub_last(), "ibv_reg_dmabuf_mr") != 0);
#else
	VS_FAILS(vs_mr_register_dmabuf(pd, fd, 0, 4096, 0, 0, &mr), EOPNOTSUPP,
		 "ibv_reg_dmabuf_mr needs rdma-core 34 or later headers");
#endif
	VS_ASSERT(mr == NULL);
	close(fd);
	close_pd(ctx, pd);
	printf("ok: rdma-core 33 (fake33): IBVERBS_1.0-1.11 here; "
	       "vs_mr_register_dmabuf: %s\n", vs_last_error()->message);
}

/* rdma-core 44: the verb is there; the provider refuses or registers. */
static void new_library(int accept)
{
	struct vs_feature_info fi;
	struct vs_context *ctx;
	struct vs_pd *pd;
	struct vs_mr *mr = NULL;
	void *fail;
	int *live, fd;

	if (accept)
		setenv("VS_FAKE_DMABUF", "1", 1);
	vs_t_use_fake(&fail, &live);
	VS_ASSERT_EQ(vs_feature_query(VS_FEATURE_DMABUF_MR, &fi), 0);
#ifndef VS_HAVE_IBVERBS_1_12
	VS_ASSERT_EQ(fi.compiled_in, 0);
	printf("skip: built without IBVERBS_1.12 (RDMA_CORE_INCLUDE older "
	       "than 34): nothing reaches the provider\n");
	(void)ctx; (void)pd; (void)mr; (void)fd; (void)live;
	exit(77);
#else
	VS_ASSERT_EQ(fi.available, 1);
	VS_ASSERT_STREQ(fi.found, "IBVERBS_1.14 (rdma-core 36-58)");
	open_pd(&ctx, &pd);
	fd = open("/dev/null", O_RDONLY);
	VS_ASSERT(fd >= 0);
	if (!accept) {
		VS_FAILS(vs_mr_register_dmabuf(pd, fd, 0, 4096, 0, 0, &mr),
			 EOPNOTSUPP, "(fake0 does not)");
		VS_ASSERT_STREQ(stub_last(), "ibv_reg_dmabuf_mr");
		printf("ok: rdma-core 44 (fake), provider without dmabuf MRs: %s\n",
		       vs_last_error()->message);
	} else {
		VS_OK(vs_mr_register_dmabuf(pd, fd, 0, 4096, 0x10000000, 0, &mr));
		VS_ASSERT_STREQ(stub_last(), "ibv_reg_dmabuf_mr");
		VS_ASSERT_EQ(live[2], 1);
		VS_ASSERT_EQ(vs_mr_raw(mr)->length, 4096);
		/* the device sees the iova; the CPU sees nothing */
		VS_ASSERT_EQ(vs_mr_sge(mr, 64, 8).addr, 0x10000040);
		VS_ASSERT_EQ(vs_mr_remote(mr, 64).addr, 0x10000040);
		VS_ASSERT(vs_mr_ptr(mr, 64) == NULL);
		VS_ASSERT(strstr(vs_last_error()->message, "no CPU address"));
		VS_OK(vs_mr_close(mr));
		VS_ASSERT_EQ(live[2], 0);
		mr = NULL;
		close(fd);
		fd = open("/dev/null", O_RDONLY);
		VS_ASSERT(fd >= 0);
		close(fd);	/* a closed fd: the provider's EBADF */
		VS_FAILS(vs_mr_register_dmabuf(pd, fd, 0, 4096, 0, 0, &mr),
			 EBADF, "cannot register 4096 bytes of dmabuf fd");
		printf("ok: rdma-core 44 (fake), provider with dmabuf MRs: "
		       "registered and closed; closed fd: %s\n",
		       vs_last_error()->message);
	}
	VS_ASSERT(mr == NULL);
	if (!accept)
		close(fd);
	close_pd(ctx, pd);
#endif
}

static int run(void (*fn)(int), int arg)
{
	int status;
	pid_t pid = fork();

	VS_ASSERT(pid >= 0);
	if (!pid) {
		fn(arg);
		exit(0);
	}
	VS_ASSERT(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void old_case(int arg)
{
	(void)arg;
	old_library();
}

int main(void)
{
	int rc[3];

	fflush(stdout);
	rc[0] = run(old_case, 0);
	rc[1] = run(new_library, 0);
	rc[2] = run(new_library, 1);
	for (int i = 0; i < 3; i++)
		if (rc[i] && rc[i] != 77)
			return 1;
	return rc[1] == 77 ? 77 : 0;
}
