// SPDX-License-Identifier: MIT
/*
 * test/shell/setuid_knobs.sh's probe: what each VERBSHIM_ knob did in this
 * process, one line a knob ("KNOB what-it-did"), after "AT_SECURE n".  Run
 * setuid root by an unprivileged user, every knob must have done nothing;
 * run plainly, each must have done its thing.
 *
 *   knob_probe libs            the libraries' paths (VERBSHIM_LIB*)
 *   knob_probe run FAKE        the rest, on the fake provider FAKE,
 *                              loaded first by its path (no knob needed)
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "verbshim.h"

static int libs(void)
{
	static const char *const knobs[VS_LIB_COUNT] = {
		[VS_LIB_IBVERBS] = "VERBSHIM_LIBIBVERBS",
		[VS_LIB_RDMACM] = "VERBSHIM_LIBRDMACM",
		[VS_LIB_EFA] = "VERBSHIM_LIBEFA",
		[VS_LIB_MLX5] = "VERBSHIM_LIBMLX5",
		[VS_LIB_MLX4] = "VERBSHIM_LIBMLX4",
		[VS_LIB_IBUMAD] = "VERBSHIM_LIBIBUMAD",
	};

	for (int lib = 0; lib < VS_LIB_COUNT; lib++) {
		struct vs_library_info info;

		if (vs_library_query((enum vs_library)lib, &info))
			return 1;
		printf("%s %s\n", knobs[lib],
		       info.loaded ? info.path : info.error);
	}
	return 0;
}

static int run(const char *fake, const char *prefix)
{
	struct vs_context *ctx;
	struct vs_call_stat st[4];
	struct ibv_pd *pd;
	char path[4096];
	size_t count;
	int fault;

	/* the fake by its path: the shim joins the copy the process has */
	if (!dlopen(fake, RTLD_NOW | RTLD_GLOBAL)) {
		printf("cannot load %s: %s\n", fake, dlerror());
		return 1;
	}
	if (vs_device_open("fake0", &ctx)) {
		printf("vs_device_open: %s\n", vs_last_error()->message);
		return 1;
	}
	printf("VERBSHIM_TRUST_WR_SGE bounce_ring=%d\n", ctx->bounce_sge);
	printf("VERBSHIM_FORCE_LEGACY legacy=%d\n", vs_force_legacy());
	printf("VERBSHIM_STATS counted=%d\n", vs_call_stats(st, 4, &count) == 0);
	errno = 0;
	pd = ibv_alloc_pd(vs_context_raw(ctx));
	fault = !pd && errno == ENOMEM;
	printf("VERBSHIM_FAULT injected=%d\n", fault);
	if (pd)
		ibv_dealloc_pd(pd);
	if (vs_device_close(ctx))
		return 1;
	snprintf(path, sizeof(path), "%s.%ld", prefix, (long)getpid());
	printf("VERBSHIM_TRACE_FILE made=%d\n", access(path, F_OK) == 0);
	/* VERBSHIM_TRACE's lines: the script counts them, in that file or on
	 * stderr */
	return 0;
}

int main(int argc, char **argv)
{
	printf("AT_SECURE %lu\n", getauxval(AT_SECURE));
	if (argc == 2 && !strcmp(argv[1], "libs"))
		return libs();
	if (argc == 4 && !strcmp(argv[1], "run"))
		return run(argv[2], argv[3]);
	fprintf(stderr, "usage: knob_probe libs | run FAKE TRACE_PREFIX\n");
	return 2;
}
