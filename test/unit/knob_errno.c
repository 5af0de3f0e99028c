/* SPDX-License-Identifier: MIT */
/*
 * What the shim does on the caller's behalf leaves errno alone: the first
 * call of a process loads rdma-core and reads the VERBSHIM_ knobs (a
 * fraction parsed with strtod, a trace file that cannot be made, values
 * refused with a sentence on stderr), and the errno the caller had before
 * that call is still there after it succeeds, whether the call goes
 * through a tracing wrapper or not.  The call is one that sets no errno of
 * its own (ibv_wc_status_str), on the fake provider.  The typed API's
 * knobs (VERBSHIM_FORCE_LEGACY, VERBSHIM_TRUST_WR_SGE) likewise.  And the
 * refusals on stderr are printable ASCII lines whatever bytes the knobs
 * held (C1 controls, escape sequences), the bytes named as \xNN.
 * Each case is a fresh process: the knobs are read once.
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "../common/vs_fake.h"

#define CALLER_ERRNO 1234

struct knob_case {
	const char *name;
	const char *env[5];
	const char *said;	/* in its stderr, or NULL: nothing said */
};

static const struct knob_case cases[] = {
	{ "traced, counted, faults parsed, no trace file",
	  { "VERBSHIM_TRACE=all", "VERBSHIM_STATS=1",
	    "VERBSHIM_FAULT=ibv_reg_mr:ENOMEM:0.5@3",
	    "VERBSHIM_TRACE_FILE=/nonexistent/dir/t" },
	  "cannot create /nonexistent/dir/t." },
	{ "knobs set, the call not wrapped",
	  { "VERBSHIM_TRACE=rdmacm", "VERBSHIM_FAULT=rdma_connect:EIO:0.25" },
	  NULL },
	{ "every value refused",
	  { "VERBSHIM_TRACE=ibv_\xc2\x85\x1b[2J", "VERBSHIM_STATS=maybe\x9b",
	    "VERBSHIM_FAULT=ibv_reg_mr:ENOMEM:1.0e999" },
	  "VERBSHIM_TRACE=ibv_\\xc2\\x85\\x1b[2J has \"ibv_\\xc2\\x85\\x1b[2J\"" },
	{ "the typed API's knobs",
	  { "VERBSHIM_FORCE_LEGACY=1", "VERBSHIM_TRUST_WR_SGE=1" }, NULL },
};

static void one_case(const struct knob_case *c)
{
	const char *s;
	int e;

	for (const char *const *v = c->env; *v; v++)
		putenv((char *)*v);
	errno = CALLER_ERRNO;
	s = ibv_wc_status_str(IBV_WC_SUCCESS);
	e = errno;
	if (e != CALLER_ERRNO)
		VS_FAIL("%s: errno %d after the first call, the caller's was %d",
			c->name, e, CALLER_ERRNO);
	VS_ASSERT(s && strcmp(s, "unknown"));	/* the library answered */
	errno = CALLER_ERRNO;
	VS_ASSERT_EQ(vs_force_legacy(), strstr(c->env[0], "FORCE_LEGACY") != NULL);
	VS_ASSERT_EQ(errno, CALLER_ERRNO);
}

/* stderr is printable ASCII, one line a sentence, and says what it must */
static void check_said(const struct knob_case *c, const char *path)
{
	char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	VS_ASSERT(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	VS_ASSERT(n >= 0);
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] != '\n' && (buf[i] < 0x20 || buf[i] > 0x7e))
			VS_FAIL("%s: byte 0x%02x at %zd of its stderr:\n%s", c->name,
				(unsigned char)buf[i], i, buf);
	if (c->said ? !strstr(buf, c->said) : n != 0)
		VS_FAIL("%s: stderr \"%s\", expected %s", c->name, buf,
			c->said ? c->said : "nothing");
}

int main(void)
{
	char fake[PATH_MAX + 32], dir[] = "/tmp/vs_knob_errno.XXXXXX", path[64];

	vs_t_fake_path("libibverbs.so.1", fake, sizeof(fake));
	setenv("VERBSHIM_LIBIBVERBS", fake, 1);
	VS_ASSERT(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int status;
		pid_t pid;

		snprintf(path, sizeof(path), "%s/err", dir);
		fflush(stdout);
		pid = fork();
		VS_ASSERT(pid >= 0);
		if (!pid) {
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(120);
			one_case(&cases[i]);
			exit(0);
		}
		VS_ASSERT_EQ(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			char cmd[128];

			snprintf(cmd, sizeof(cmd), "cat %s >&2", path);
			if (system(cmd)) {
			}
			VS_FAIL("case \"%s\": status 0x%x", cases[i].name, status);
		}
		check_said(&cases[i], path);
		unlink(path);
		printf("ok: %s: errno kept\n", cases[i].name);
	}
	rmdir(dir);
	return 0;
}
