/* SPDX-License-Identifier: MIT */
/*
 * The facts beside every row of shim/loader/syms_*.h (what VERBSHIM_TRACE may
 * read through each pointer, and when; docs/trace.md):
 *
 * - every row of every library: each pointer parameter and pointer result
 *   has a fact, no other parameter has one, and no fact contradicts the
 *   prototype (a handle that is no struct, an output through const, a
 *   bound that is no integer, a socket address not bounded by the
 *   socklen_t its row passes);
 * - through the stub libraries with VERBSHIM_TRACE=all, the bugs the
 *   facts fixed: a freed list never read after its free; an output
 *   address read after the call, within *addrlen; an input address within
 *   addrlen; rdma_destroy_qp/srq ending the id's QP/SRQ, not the id;
 *   mlx5dv_dr_rule_create's actions an input array of num_actions.  The
 *   memory errors among them are caught by this test's ASan and valgrind
 *   runs (test/tests.list).
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "../common/vs_test.h"

#include "trace/vs_trace.h"
#include <rdma/rdma_verbs.h>	/* rdma_destroy_srq */

/* ---- every row ---- */

static int is_int_tag(const char *tag)
{
	static const char *const ints[] = {
		"int", "unsigned int", "socklen_t", "size_t", "uint8_t",
		"uint16_t", "uint32_t", "uint64_t", "long", "nfds_t",
	};
	size_t i;

	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(tag, ints[i]))
			return 1;
	return 0;
}

/* What the prototype says against fact f of parameter p (or the result):
 * NULL, or the contradiction. */
static const char *contradiction(const struct vs_tsig *s,
				 const struct vs_tparam *p, int is_ret)
{
	const struct vs_tfact *f = &p->fact;
	unsigned int k;

	if (!p->ptr)
		return f->role ? "a fact on a parameter that is no pointer" : NULL;
	if (!f->role)
		return "a pointer without a fact";
	if (is_ret && f->role != VS_TR_H && f->role != VS_TR_STR &&
	    f->role != VS_TR_BUF)
		return "a result is a handle, a string or a buffer";
	switch (f->role) {
	case VS_TR_H:
	case VS_TR_END:
		if (!p->is_struct || (p->ptr != 1 && !(p->ptr == 2 &&
		    f->role == VS_TR_H && f->len == VS_TL_COUNT)))
			return "a handle is a struct pointer (or an array of "
			       "them with count=)";
		break;
	case VS_TR_HOUT:
		if (!p->is_struct || p->ptr != 2)
			return "hout is a struct T **";
		break;
	case VS_TR_STR:
		if (p->ptr != 1 || strcmp(p->tag, "char") || !p->is_const)
			return "a string is a const char *";
		break;
	default:
		break;
	}
	if ((f->role == VS_TR_OUT || f->role == VS_TR_INOUT ||
	     f->role == VS_TR_HOUT) && p->is_const)
		return "an output through a const pointer";
	if (f->len) {
		const struct vs_tparam *lp = &s->p[f->len_arg];

		if (f->len_deref ? lp->ptr != 1 || !is_int_tag(lp->tag) ||
				   (lp->fact.role != VS_TR_IN &&
				    lp->fact.role != VS_TR_INOUT)
				 : lp->ptr || !is_int_tag(lp->tag))
			return "a bound is an integer, or an input integer "
			       "behind a pointer (*PARAM)";
	}
	if (f->nends && f->role != VS_TR_H && f->role != VS_TR_END)
		return "ends= is a handle's";
	for (k = 0; k < f->nends; k++)
		if (strcmp(vs__tfields[f->ends[k]].tag, p->tag))
			return "ends= names a field of another struct";
	/* a row that passes a socklen_t bounds its addresses by it */
	if (!strcmp(p->tag, "sockaddr") && f->len != VS_TL_BYTES) {
		int i;

		for (i = 0; i < s->n; i++)
			if (!strcmp(s->p[i].tag, "socklen_t"))
				return "a socket address not bounded by the "
				       "socklen_t of its row";
	}
	return NULL;
}

static void test_rows(void)
{
	unsigned int i, bad = 0, pointers = 0, nofail = 0;

	for (i = 0; i < VS_TSYM_COUNT; i++) {
		const struct vs_tsym_info *in = &vs__tsym_info[i];
		struct vs_tsig s;
		char why[256];
		const char *what;
		int k;

		if (vs__tsig_parse(in->params, in->ret, in->facts, &s, why,
				   sizeof(why))) {
			fprintf(stderr, "%s: \"%s\": %s\n", in->name, in->facts,
				why);
			bad++;
			continue;
		}
		/* fails= says what the convention cannot: only on a row
		 * whose convention has a failure, and read the same way by
		 * the fault rules (vs__tfails) as by the parser */
		if (s.fails != vs__tfails(in->facts) ||
		    (s.fails && in->conv >= VS_TC_STR)) {
			fprintf(stderr, "%s: \"%s\": a fails= fact on a row "
				"that cannot fail anyway, or read two ways\n",
				in->name, in->facts);
			bad++;
		}
		nofail += s.fails != VS_TFAILS_CAN;
		for (k = 0; k <= s.n; k++) {
			const struct vs_tparam *p = k < s.n ? &s.p[k] : &s.ret;

			if (k == s.n && in->conv == VS_TC_VOID)
				break;
			pointers += p->ptr > 0;
			what = contradiction(&s, p, k == s.n);
			if (what) {
				fprintf(stderr, "%s: %s (%s, fact %s): %s\n",
					in->name, k < s.n ? p->name : "return",
					p->type, vs__trole_name(p->fact.role),
					what);
				bad++;
			}
		}
	}
	VS_ASSERT_EQ(bad, 0);
	VS_ASSERT(pointers > 400);	/* the walk saw the rows */
	VS_ASSERT(nofail >= 20);	/* and the fails= facts */
}

/* The grammar's refusals name what is wrong. */
static void refused(const char *params, const char *facts, const char *words)
{
	struct vs_tsig s;
	char why[256] = "";

	VS_ASSERT_EQ(vs__tsig_parse(params, "int", facts, &s, why, sizeof(why)),
		     -1);
	if (!strstr(why, words))
		VS_FAIL("\"%s\": \"%s\" lacks \"%s\"", facts, why, words);
}

static void test_grammar(void)
{
	struct vs_tsig s;

	VS_ASSERT_EQ(vs__tsig_parse("(int socket, struct sockaddr *addr, "
				    "socklen_t *addrlen)", "int",
				    "addr=out,bytes=*addrlen addrlen=inout",
				    &s, NULL, 0), 0);
	VS_ASSERT_EQ(s.n, 3);
	VS_ASSERT_EQ(s.p[1].fact.role, VS_TR_OUT);
	VS_ASSERT_EQ(s.p[1].fact.len, VS_TL_BYTES);
	VS_ASSERT_EQ(s.p[1].fact.len_arg, 2);
	VS_ASSERT(s.p[1].fact.len_deref);
	VS_ASSERT_EQ(s.p[2].fact.role, VS_TR_INOUT);
	VS_ASSERT_EQ(vs__tsig_parse("(struct rdma_cm_id *id)", "void",
				    "id=h,ends=qp,ends=srq", &s, NULL, 0), 0);
	VS_ASSERT_EQ(s.p[0].fact.nends, 2);
	VS_ASSERT_STREQ(vs__tfields[s.p[0].fact.ends[1]].name, "srq");
	/* the declarators the rows use */
	VS_ASSERT_EQ(vs__tparams_parse("(char (*cas)[UMAD_CA_NAME_LEN], int max)",
				       s.p, 8), 2);
	VS_ASSERT_STREQ(s.p[0].name, "cas");
	VS_ASSERT_STREQ(s.p[1].name, "max");
	VS_ASSERT_EQ(vs__tparams_parse("(int portid, long method_mask[16 / "
				       "sizeof(long)], int x)", s.p, 8), 3);
	VS_ASSERT(s.p[1].is_array && s.p[1].ptr == 1);
	VS_ASSERT_STREQ(s.p[2].name, "x");

	VS_ASSERT_EQ(vs__tsig_parse("(struct rdma_cm_event *event)", "int",
				    "event=end fails=null", &s, NULL, 0), 0);
	VS_ASSERT_EQ(s.fails, VS_TFAILS_NULL);
	VS_ASSERT_EQ(s.p[0].fact.role, VS_TR_END);
	VS_ASSERT_EQ(vs__tfails("event=end fails=null"), VS_TFAILS_NULL);
	VS_ASSERT_EQ(vs__tfails("fails=never"), VS_TFAILS_NEVER);
	VS_ASSERT_EQ(vs__tfails("event=end"), VS_TFAILS_CAN);
	refused("(int *a)", "a=out fails=sometimes", "fails= is never or null");
	refused("(int *a)", "fails=never fails=null", "two fails=");
	refused("(int *a)", "b=out", "names no parameter");
	refused("(int *a)", "a=out a=in", "two facts");
	refused("(int *a)", "a=sideways", "is no role");
	refused("(int *a, int n)", "a=out,bytes=m", "names no parameter");
	refused("(int *a, int n)", "a=out,bytes=n,count=n", "two bounds");
	refused("(int *a)", "a=out,bytes=a", "its own bound");
	refused("(struct rdma_cm_id *id)", "id=h,ends=pd", "no field");
	refused("(int *a)", "a=out,size=3", "neither bytes=");
	refused("(int *a)", "a", "not NAME=ROLE");
	refused("(int a", "", "not understood");
}

/* ---- through the stubs ---- */

static char dir[] = "/tmp/vs_trace_facts.XXXXXX";

static void stub_path(const char *var, const char *lib)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	VS_ASSERT(n > 0);
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/../../stubs/v44/%s", dirname(exe), lib);
	if (access(path, R_OK))
		VS_FAIL("the stub %s is missing (make tests builds it)", path);
	VS_ASSERT_EQ(setenv(var, path, 1), 0);
}

/* The trace so far. */
static char *trace(void)
{
	static char text[1 << 18];
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/t.%ld", dir, (long)getpid());
	fd = open(path, O_RDONLY);
	VS_ASSERT(fd >= 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	VS_ASSERT(n > 0);
	text[n] = '\0';
	return text;
}

/* The last line of the trace that has needle, in line (one line). */
static void last_line(const char *needle, char *line, size_t size)
{
	const char *t = trace(), *p, *found = NULL;

	for (p = strstr(t, needle); p; p = strstr(p + 1, needle))
		found = p;
	if (!found)
		VS_FAIL("no \"%s\" in the trace:\n%s", needle, t);
	while (found > t && found[-1] != '\n')
		found--;
	snprintf(line, size, "%.*s", (int)strcspn(found, "\n"), found);
}

static void line_has(const char *line, const char *want)
{
	if (!strstr(line, want))
		VS_FAIL("\"%s\" not in\n%s", want, line);
}

static void line_lacks(const char *line, const char *unwanted)
{
	if (strstr(line, unwanted))
		VS_FAIL("\"%s\" in\n%s", unwanted, line);
}

/* The number of a handle's id after "NAME=KIND#" in line. */
static unsigned int id_in(const char *line, const char *prefix)
{
	const char *p = strstr(line, prefix);

	if (!p)
		VS_FAIL("\"%s\" not in\n%s", prefix, line);
	return (unsigned int)strtoul(p + strlen(prefix), NULL, 10);
}

/* A list freed by the call is never read after it. */
static void test_freed_lists(void)
{
	char line[1024];
	struct ibv_context **cms;
	struct ibv_device **devs;
	int n;

	cms = rdma_get_devices(&n);
	VS_ASSERT(cms && n == 1);
	rdma_free_devices(cms);	/* the stub frees it, as librdmacm does */
	last_line("] rdma_free_devices(", line, sizeof(line));
	line_lacks(line, "=>");
	devs = ibv_get_device_list(&n);
	VS_ASSERT(devs);
	ibv_free_device_list(devs);
	last_line("] ibv_free_device_list(", line, sizeof(line));
	line_lacks(line, "=>");
}

/* raccept and its kin: the address is the call's output, read after it
 * and within the length the caller gave. */
static void test_output_addresses(void)
{
	static const char *const names[] = { "raccept", "rgetsockname",
					     "rgetpeername", "rrecvfrom" };
	unsigned int k;

	for (k = 0; k < 4; k++) {
		struct sockaddr_in6 six = { .sin6_family = AF_INET6 };
		/* 16 bytes whose old contents say AF_INET6 (28 bytes) */
		struct sockaddr *sa = malloc(sizeof(struct sockaddr_in));
		socklen_t full = sizeof(struct sockaddr_in), shortlen = 4;
		char line[1024], needle[64];
		int pass;

		VS_ASSERT(sa);
		for (pass = 0; pass < 2; pass++) {
			socklen_t *alen = pass ? &shortlen : &full;
			char buf[4];

			memcpy(sa, &six, sizeof(struct sockaddr_in));
			switch (k) {
			case 0:
				VS_ASSERT_EQ(raccept(3, sa, alen), 5);
				break;
			case 1:
				VS_ASSERT_EQ(rgetsockname(3, sa, alen), 0);
				break;
			case 2:
				VS_ASSERT_EQ(rgetpeername(3, sa, alen), 0);
				break;
			default:
				VS_ASSERT_EQ(rrecvfrom(3, buf, sizeof(buf), 0,
						       sa, alen), 0);
			}
			snprintf(needle, sizeof(needle), "] %s(", names[k]);
			last_line(needle, line, sizeof(line));
			/* before the call: the buffer's address, its length */
			line_has(line, pass ? "addrlen=[4])" : "addrlen=[16])");
			line_lacks(line, "AF_INET6");
			if (!pass)
				line_has(line, "addr={AF_INET 10.0.0.9:7471}");
			else	/* 4 bytes given: the family, not the address */
				line_has(line, "addr={AF_INET, addrlen=4}");
			line_has(line, "=> *addrlen=16");
		}
		free(sa);
	}
}

/* rsendto and rconnect: an input address within the addrlen given. */
static void test_short_inputs(void)
{
	struct sockaddr_in6 six = { .sin6_family = AF_INET6 };
	char *four = malloc(4), line[1024];

	VS_ASSERT(four);
	memcpy(four, &six, 4);
	VS_ASSERT_EQ(rsendto(3, "x", 1, 0, (struct sockaddr *)four, 4), 0);
	last_line("] rsendto(", line, sizeof(line));
	line_has(line, "dest_addr={AF_INET6, addrlen=4}");
	VS_ASSERT_EQ(rconnect(3, (struct sockaddr *)four, 4), 0);
	last_line("] rconnect(", line, sizeof(line));
	line_has(line, "addr={AF_INET6, addrlen=4}");
	VS_ASSERT_EQ(rconnect(3, (struct sockaddr *)four, 1), 0);
	last_line("] rconnect(", line, sizeof(line));
	line_has(line, "addr={addrlen=1}");
	free(four);
}

/* rdma_destroy_qp(id) ends id->qp, rdma_destroy_srq(id) id->srq: the id
 * keeps its number, a new QP or SRQ at the old address gets a new one. */
static void test_cm_destroys(void)
{
	struct rdma_cm_id *id = calloc(1, sizeof(*id));
	struct ibv_qp *qp = calloc(1, sizeof(*qp));
	struct ibv_srq *srq = calloc(1, sizeof(*srq));
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT };
	struct ibv_srq_attr sattr = { .max_wr = 1 };
	char line[1024];
	unsigned int cm, q, s;

	VS_ASSERT(id && qp && srq);
	id->qp = qp;
	id->srq = srq;
	VS_ASSERT_EQ(rdma_resolve_route(id, 1), 0);
	last_line("] rdma_resolve_route(", line, sizeof(line));
	cm = id_in(line, "id=cm_id#");
	VS_ASSERT_EQ(ibv_modify_qp(qp, &attr, IBV_QP_STATE), 0);
	last_line("] ibv_modify_qp(", line, sizeof(line));
	q = id_in(line, "qp=qp#");
	VS_ASSERT_EQ(ibv_modify_srq(srq, &sattr, 0), 0);
	last_line("] ibv_modify_srq(", line, sizeof(line));
	s = id_in(line, "srq=srq#");

	rdma_destroy_qp(id);
	last_line("] rdma_destroy_qp(", line, sizeof(line));
	VS_ASSERT_EQ(id_in(line, "id=cm_id#"), cm);
	VS_ASSERT_EQ(ibv_modify_qp(qp, &attr, IBV_QP_STATE), 0);
	last_line("] ibv_modify_qp(", line, sizeof(line));
	VS_ASSERT_NE(id_in(line, "qp=qp#"), q);
	VS_ASSERT_EQ(ibv_modify_srq(srq, &sattr, 0), 0);
	last_line("] ibv_modify_srq(", line, sizeof(line));
	VS_ASSERT_EQ(id_in(line, "srq=srq#"), s);	/* not ended yet */

	rdma_destroy_srq(id);
	VS_ASSERT_EQ(rdma_resolve_route(id, 1), 0);
	last_line("] rdma_resolve_route(", line, sizeof(line));
	VS_ASSERT_EQ(id_in(line, "id=cm_id#"), cm);
	VS_ASSERT_EQ(ibv_modify_srq(srq, &sattr, 0), 0);
	last_line("] ibv_modify_srq(", line, sizeof(line));
	VS_ASSERT_NE(id_in(line, "srq=srq#"), s);

	/* rdma_destroy_id ends the id itself */
	VS_ASSERT_EQ(rdma_destroy_id(id), 0);
	VS_ASSERT_EQ(rdma_resolve_route(id, 1), 0);
	last_line("] rdma_resolve_route(", line, sizeof(line));
	VS_ASSERT_NE(id_in(line, "id=cm_id#"), cm);
	free(srq);
	free(qp);
	free(id);
}

/* rdma_ack_cm_event ends the event: shown before the call, its id then
 * forgotten (the next event at that address is another). */
static void test_ack(void)
{
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ESTABLISHED };
	char line[1024];
	unsigned int first;

	VS_ASSERT_EQ(rdma_ack_cm_event(&ev), 0);
	last_line("] rdma_ack_cm_event(", line, sizeof(line));
	line_has(line, "{event=RDMA_CM_EVENT_ESTABLISHED, status=0, id=NULL})");
	first = id_in(line, "event=cm_event#");
	VS_ASSERT_EQ(rdma_ack_cm_event(&ev), 0);
	last_line("] rdma_ack_cm_event(", line, sizeof(line));
	VS_ASSERT_NE(id_in(line, "event=cm_event#"), first);
}

/* mlx5dv_dr_rule_create's actions: an input array of num_actions
 * handles, never read as an output (nor beyond num_actions). */
static void test_rule_actions(void)
{
	static volatile size_t one = 1;	/* smaller than a pointer */
	struct mlx5dv_dr_action **none = malloc(one), *two[2];
	struct mlx5dv_flow_match_parameters value = { .match_sz = 0 };
	char line[1024];

	VS_ASSERT(none);
	two[0] = (void *)&two[0];
	two[1] = (void *)&two[1];
	VS_ASSERT(mlx5dv_dr_rule_create((void *)&value, &value, 0, none));
	last_line("] mlx5dv_dr_rule_create(", line, sizeof(line));
	line_has(line, "num_actions=0, actions=[])");
	line_lacks(line, "=>");
	VS_ASSERT(mlx5dv_dr_rule_create((void *)&value, &value, 2, two));
	last_line("] mlx5dv_dr_rule_create(", line, sizeof(line));
	line_has(line, "actions=[dr_action#");
	line_lacks(line, "=>");
	free(none);
}

int main(void)
{
	char file[sizeof(dir) + 32];

	test_rows();
	test_grammar();

	VS_ASSERT(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/t", dir);
	VS_ASSERT_EQ(setenv("VERBSHIM_TRACE", "all", 1), 0);
	VS_ASSERT_EQ(setenv("VERBSHIM_TRACE_FILE", file, 1), 0);
	stub_path("VERBSHIM_LIBIBVERBS", "libibverbs.so.1");
	stub_path("VERBSHIM_LIBRDMACM", "librdmacm.so.1");
	stub_path("VERBSHIM_LIBMLX5", "libmlx5.so.1");
	test_freed_lists();
	test_output_addresses();
	test_short_inputs();
	test_cm_destroys();
	test_ack();
	test_rule_actions();
	{
		char cmd[sizeof(dir) + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		VS_ASSERT_EQ(system(cmd), 0);
	}
	return 0;
}
