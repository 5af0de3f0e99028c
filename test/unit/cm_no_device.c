/* SPDX-License-Identifier: MIT */
/*
 * The connection manager on a machine it cannot work on names that, not
 * its arguments (issue 36): on this host (rdma-core, no RDMA device) the
 * resolve, the listen on the any-address and the one-call client say
 * "there is no RDMA device"; re-run with librdmacm or libibverbs made
 * unloadable (VERBSHIM_LIBRDMACM / VERBSHIM_LIBIBVERBS: no rdma-core),
 * they say rdma-core is missing.
 */
#include <errno.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

#include "../common/vs_typed.h"

static void expect_cause(const char *cause)
{
	struct vs_cm_id *id = (struct vs_cm_id *)&id;
	int ret;

	ret = vs_cm_resolve("127.0.0.1", "7471", NULL, &id);
	VS_ASSERT(ret < 0);
	VS_ASSERT_PTR_EQ(id, NULL);
	printf("  resolve: %s\n", vs_t_err());
	VS_ASSERT(strstr(vs_last_error()->message, cause));
	VS_ASSERT(strstr(vs_last_error()->message, "\"127.0.0.1\" port \"7471\""));
	ret = vs_cm_listen(NULL, "7471", NULL, &id);
	VS_ASSERT(ret < 0);
	printf("  listen:  %s\n", vs_t_err());
	VS_ASSERT(strstr(vs_last_error()->message, cause));
	ret = vs_cm_rc_client("localhost", "7471", NULL, NULL, NULL, &id);
	VS_ASSERT(ret < 0);
	printf("  client:  %s\n", vs_t_err());
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_rc_client");
	VS_ASSERT(strstr(vs_last_error()->message, cause));
}

/* This program's path: /proc/self/exe read, not run (valgrind's is its own) */
static const char *self_path(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	VS_ASSERT(n > 0);
	path[n] = 0;
	return path;
}

static void child(const char *var, const char *val, const char *self)
{
	pid_t pid = fork();
	int st;

	VS_ASSERT(pid >= 0);
	if (!pid) {
		setenv(var, val, 1);
		execl(self, "cm_no_device", "--no-rdma-core", (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	VS_ASSERT_EQ(waitpid(pid, &st, 0), pid);
	/* An arm64 build under qemu-user (make check-arm64) cannot exec
	 * itself unless binfmt_misc knows qemu-aarch64. */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 126)
		VS_SKIP("the no-device half passed; the missing-library half re-executes %s, "
			"which this kernel cannot run (ENOEXEC: another architecture, qemu-user without binfmt_misc)",
			self);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		VS_FAIL("with %s=%s: status 0x%x", var, val, st);
}

int main(int argc, char **argv)
{
	struct vs_context *ctx;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--no-rdma-core")) {
		expect_cause("rdma-core is missing");
		return 0;
	}
	if (getenv("VERBSHIM_IN_VM"))
		VS_SKIP("there is a device in the VM (test/device/cm_truth makes none)");
	if (!vs_device_open(NULL, &ctx)) {
		VS_OK(vs_device_close(ctx));
		VS_SKIP("this host has an RDMA device");
	}
	if (access("/proc/self/exe", X_OK))
		VS_SKIP("no /proc/self/exe");
	printf("no RDMA device:\n");
	expect_cause("there is no RDMA device on this machine");
	printf("no librdmacm:\n");
	child("VERBSHIM_LIBRDMACM", "/nonexistent/librdmacm.so.1", self_path());
	printf("no libibverbs:\n");
	child("VERBSHIM_LIBIBVERBS", "/nonexistent/libibverbs.so.1", self_path());
	printf("ok\n");
	return 0;
}
