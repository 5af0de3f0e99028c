/* SPDX-License-Identifier: MIT */
/*
 * VERBSHIM_FAULT, VERBSHIM_TRACE and VERBSHIM_STATS on a real device
 * (docs/trace.md): a typed CM client whose first rdma_resolve_addr is
 * made to fail with ETIMEDOUT gets exactly the failure the kernel would
 * give (-ETIMEDOUT) and an error record naming the injection; its next
 * resolve, not injected, resolves on rxe.  With every call traced to a
 * file, the counters' total equals the trace's line count, the injected
 * call is one line marked so, and the CM event types are decoded.
 */
#include <fcntl.h>
#include <unistd.h>

#include "../common/vs_cm_rig.h"

static unsigned int count(const char *text, const char *needle)
{
	unsigned int n = 0;

	for (; (text = strstr(text, needle)); text++)
		n++;
	return n;
}

int main(void)
{
	static char text[1 << 22];
	char dir[] = "/tmp/vs_trace_cm.XXXXXX", file[64], port[16];
	const char *ip = getenv("VS_RXE_IP");
	struct vs_cm_id *listener, *id = (struct vs_cm_id *)&id;
	struct vs_call_stat st[128];
	uint64_t total = 0, resolve_calls = 0, resolve_failed = 0;
	size_t n, i;
	ssize_t got;
	int fd;

	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	VS_ASSERT(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/t", dir);
	/* read at the first load: set before any verbshim call */
	setenv("VERBSHIM_TRACE", "all", 1);
	setenv("VERBSHIM_TRACE_FILE", file, 1);
	setenv("VERBSHIM_STATS", "1", 1);
	setenv("VERBSHIM_FAULT", "rdma_resolve_addr:ETIMEDOUT:1", 1);

	VS_OK(vs_cm_listen(ip, "0", NULL, &listener));
	snprintf(port, sizeof(port), "%u", vs_cm_port(listener));
	VS_FAILS(vs_cm_resolve(ip, port, NULL, &id), ETIMEDOUT,
		 "[injected: VERBSHIM_FAULT made rdma_resolve_addr fail]");
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_ASSERT_STREQ(vs_last_error()->verb, "rdma_resolve_addr");
	printf("injected: %s\n", vs_t_err());
	VS_OK(vs_cm_resolve(ip, port, NULL, &id));
	VS_ASSERT_EQ(vs_cm_state(id), VS_CM_RESOLVED);
	VS_OK(vs_cm_close(id));
	VS_OK(vs_cm_close(listener));

	VS_OK(vs_call_stats(st, 128, &n));
	VS_ASSERT(n <= 128);
	for (i = 0; i < n; i++) {
		total += st[i].calls;
		if (!strcmp(st[i].name, "rdma_resolve_addr")) {
			resolve_calls = st[i].calls;
			resolve_failed = st[i].failures;
			VS_ASSERT_EQ(st[i].errors[0].err, ETIMEDOUT);
		}
	}
	VS_ASSERT_EQ(resolve_calls, 2);
	VS_ASSERT_EQ(resolve_failed, 1);

	snprintf(file, sizeof(file), "%s/t.%ld", dir, (long)getpid());
	fd = open(file, O_RDONLY);
	VS_ASSERT(fd >= 0);
	got = read(fd, text, sizeof(text) - 1);
	VS_ASSERT(got > 0 && (size_t)got < sizeof(text) - 1);
	text[got] = '\0';
	close(fd);
	printf("%llu calls counted, %u trace lines\n", (unsigned long long)total,
	       count(text, "\nverbshim: [") + !strncmp(text, "verbshim: [", 11));
	VS_ASSERT_EQ(count(text, "\nverbshim: [") +
			     !strncmp(text, "verbshim: [", 11), total);
	VS_ASSERT_EQ(count(text, "[injected by VERBSHIM_FAULT]"), 1);
	if (!strstr(text, ") = -1 ETIMEDOUT (Connection timed out) [injected by "
			  "VERBSHIM_FAULT]") ||
	    !strstr(text, "RDMA_CM_EVENT_ADDR_RESOLVED") ||
	    !strstr(text, "RDMA_CM_EVENT_ROUTE_RESOLVED") ||
	    !strstr(text, "] rdma_resolve_addr(id=cm_id#"))
		VS_FAIL("the trace lacks the decoded calls:\n%s", text);
	fputs(text, stdout);
	VS_ASSERT_EQ(unlink(file), 0);
	VS_ASSERT_EQ(rmdir(dir), 0);
	printf("ok\n");
	return 0;
}
