/* SPDX-License-Identifier: MIT */
/*
 * The grammar of VERBSHIM_TRACE and VERBSHIM_FAULT (shim/trace/trace_knobs.c)
 * and the trace's decoders (shim/trace/trace_decode.c), called directly: what
 * each item selects, which values are refused and with what sentence,
 * when a fault rule fires (Nth, every Nth, seeded probability: the same
 * calls for the same seed), and how arguments, results and flags read.
 */
#include "../common/vs_test.h"

#include "trace/vs_trace.h"

static struct vs_tfilter filter(const char *s)
{
	struct vs_tfilter f;
	char why[384];

	if (vs__tfilter_parse(s, &f, why, sizeof(why)))
		VS_FAIL("VERBSHIM_TRACE=%s refused: %s", s, why);
	return f;
}

static void filter_refused(const char *s, const char *words)
{
	struct vs_tfilter f;
	char why[384] = "";

	VS_ASSERT_EQ(vs__tfilter_parse(s, &f, why, sizeof(why)), -EINVAL);
	if (!strstr(why, words))
		VS_FAIL("VERBSHIM_TRACE=%s: \"%s\" lacks \"%s\"", s, why, words);
}

static int sel(const struct vs_tfilter *f, const char *name)
{
	unsigned int lib = !strncmp(name, "rdma_", 5) ? VS_LIB_RDMACM :
			   !strncmp(name, "efadv_", 6) ? VS_LIB_EFA :
							VS_LIB_IBVERBS;

	return vs__tfilter_match(f, name, lib);
}

static void test_filter(void)
{
	struct vs_tfilter f;

	f = filter("all");
	VS_ASSERT(sel(&f, "ibv_reg_mr") && sel(&f, "rdma_connect"));
	VS_ASSERT(!f.failed_only);
	f = filter("1");
	VS_ASSERT(sel(&f, "efadv_query_device"));
	f = filter("rdmacm");
	VS_ASSERT(sel(&f, "rdma_connect") && !sel(&f, "ibv_reg_mr"));
	f = filter("librdmacm");
	VS_ASSERT(sel(&f, "rdma_connect") && !sel(&f, "ibv_reg_mr"));
	f = filter("ibv_*_qp,ibv_reg_mr");
	VS_ASSERT(sel(&f, "ibv_create_qp") && sel(&f, "ibv_modify_qp"));
	VS_ASSERT(sel(&f, "ibv_reg_mr") && !sel(&f, "ibv_dereg_mr"));
	VS_ASSERT(!sel(&f, "rdma_connect"));
	/* exclusions win wherever they stand */
	f = filter("-ibv_query_*,ibverbs");
	VS_ASSERT(sel(&f, "ibv_reg_mr") && !sel(&f, "ibv_query_port"));
	f = filter("all, -rdmacm");
	VS_ASSERT(sel(&f, "ibv_reg_mr") && !sel(&f, "rdma_connect"));
	/* failed alone: every function, failed calls only */
	f = filter("failed");
	VS_ASSERT(f.failed_only && sel(&f, "rdma_connect"));
	f = filter("failed,rdmacm");
	VS_ASSERT(f.failed_only && !sel(&f, "ibv_reg_mr"));
	/* exclusions alone: everything else */
	f = filter("-ibv_wc_status_str");
	VS_ASSERT(sel(&f, "ibv_reg_mr") && !sel(&f, "ibv_wc_status_str"));

	filter_refused("", "empty");
	filter_refused("all,,rdmacm", "empty item");
	filter_refused("ibv_reg_mr;rdma", "neither all, failed, a library");
	filter_refused("ibv_reg_mrr", "names no function");
	filter_refused("libfoo", "names no function");
	filter_refused("yes please", "neither all");
	filter_refused("ibv_reg_mr\n-all", "has \"ibv_reg_mr\\x0a-all\"");
	/* every byte that is not printable ASCII is escaped: C1 controls
	 * (0x85 NEL, 0x9b CSI), ESC, DEL, UTF-8 */
	filter_refused("ibv_\xc2\x85\x9b" "2J\x1b[31m\x7f",
		       "has \"ibv_\\xc2\\x85\\x9b2J\\x1b[31m\\x7f\", which");
	{
		char out[8];

		vs__tescape(out, sizeof(out), "ab\x85" "cdef");
		VS_ASSERT_STREQ(out, "ab\\x85c");	/* cut after a whole escape */
		vs__tescape(out, 5, "ab\x85");
		VS_ASSERT_STREQ(out, "ab");
	}
	{
		char big[200];

		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		filter_refused(big, "longer than");
	}
	VS_ASSERT_EQ(vs__tfilter_parse(NULL, &f, NULL, 0), -EINVAL);
}

static struct vs_tfault fault(const char *s)
{
	struct vs_tfault f;
	char why[384];

	if (vs__tfault_parse(s, &f, why, sizeof(why)))
		VS_FAIL("VERBSHIM_FAULT=%s refused: %s", s, why);
	return f;
}

static void fault_refused(const char *s, const char *words)
{
	struct vs_tfault f;
	char why[384] = "";

	VS_ASSERT_EQ(vs__tfault_parse(s, &f, why, sizeof(why)), -EINVAL);
	if (!strstr(why, words))
		VS_FAIL("VERBSHIM_FAULT=%s: \"%s\" lacks \"%s\"", s, why, words);
}

static void test_fault(void)
{
	struct vs_tfault f;
	unsigned int hits, k, again;

	fault_refused("ibv_reg_mr:ENOMEM:\xff", "has ibv_reg_mr:ENOMEM:\\xff: the last");
	f = fault("ibv_reg_mr:ENOMEM:3");
	VS_ASSERT_EQ(f.nrules, 1);
	VS_ASSERT_STREQ(f.rule[0].pattern, "ibv_reg_mr");
	VS_ASSERT_EQ(f.rule[0].err, ENOMEM);
	VS_ASSERT_EQ(f.rule[0].mode, VS_TF_NTH);
	for (k = 1; k <= 10; k++)
		VS_ASSERT_EQ(vs__tfault_fires(&f.rule[0], "ibv_reg_mr", k),
			     k == 3);

	f = fault("rdma_resolve_addr:ETIMEDOUT:1, ibv_create_qp:EINVAL:%4");
	VS_ASSERT_EQ(f.nrules, 2);
	VS_ASSERT_EQ(f.rule[0].err, ETIMEDOUT);
	VS_ASSERT_EQ(f.rule[1].mode, VS_TF_EVERY);
	for (k = 1; k <= 12; k++)
		VS_ASSERT_EQ(vs__tfault_fires(&f.rule[1], "ibv_create_qp", k),
			     k % 4 == 0);

	/* a probability: about that share of calls, the same ones per seed */
	f = fault("ibv_*:EIO:0.25@7,rdma_*:EIO:0.25@8");
	for (k = 1, hits = 0, again = 0; k <= 4000; k++) {
		int a = vs__tfault_fires(&f.rule[0], "ibv_reg_mr", k);

		hits += a;
		again += a == vs__tfault_fires(&f.rule[0], "ibv_reg_mr", k);
	}
	VS_ASSERT_EQ(again, 4000);
	VS_ASSERT(hits > 800 && hits < 1200);
	for (k = 1, again = 0; k <= 4000; k++)
		again += vs__tfault_fires(&f.rule[0], "ibv_reg_mr", k) ==
			 vs__tfault_fires(&f.rule[1], "ibv_reg_mr", k);
	VS_ASSERT(again < 4000);	/* another seed, other calls */
	f = fault("ibv_reg_mr:EIO:1.0");
	for (k = 1; k <= 100; k++)
		VS_ASSERT(vs__tfault_fires(&f.rule[0], "ibv_reg_mr", k));
	VS_ASSERT_EQ(fault("ibv_reg_mr:EIO:0.5").rule[0].seed, 1);

	fault_refused("", "empty");
	fault_refused("ibv_reg_mr", "not FUNCTION:ERRNO:N");
	fault_refused("ibv_reg_mr:ENOMEM", "not FUNCTION:ERRNO:N");
	fault_refused("ibv_reg_mr:ENOMEN:3", "not an errno name");
	fault_refused("ibv_reg_mr:ENOMEM:0", "the last part");
	fault_refused("ibv_reg_mr:ENOMEM:-1", "the last part");
	fault_refused("ibv_reg_mr:ENOMEM:3x", "the last part");
	fault_refused("ibv_reg_mr:ENOMEM:%0", "the last part");
	fault_refused("ibv_reg_mr:ENOMEM:1.5", "the last part");
	fault_refused("ibv_reg_mr:ENOMEM:0.0", "the last part");
	fault_refused("ibv_reg_mr:ENOMEM:0.5@x", "the last part");
	fault_refused("ibv_reg_mr:ENOMEM:99999999999999999999999", "the last part");
	fault_refused("ibv_no_such:ENOMEM:1", "names no function");
	fault_refused("ibv_wc_status_str:EIO:1", "cannot fail");
	fault_refused("ibv_free_device_list:EIO:1", "cannot fail");
	/* rdma-core's own cannot fail (their rows' fails= facts), and the
	 * refusal says why */
	fault_refused("ibv_get_device_name:EIO:1", "no failure path");
	fault_refused("rdma_ack_cm_event:EINVAL:1", "only when it is given NULL");
	fault_refused("umad_size:ENOMEM:1", "no failure path");
	fault_refused("ibv_rate_to_mult:EINVAL:%2", "no failure path");
	/* a pattern keeps the functions that can fail, not those */
	fault_refused("rdma_ack_*:EIO:1", "only when it is given NULL");
	f = fault("ibv_get_device_*:ENODEV:1");
	VS_ASSERT_EQ(f.nrules, 1);
	VS_ASSERT_EQ(f.rule[0].matched, 3);	/* _list, _guid, _index */
	fault_refused("ibv reg:EIO:1", "not a function name");
}

static void test_errno_names(void)
{
	VS_ASSERT_EQ(vs__errno_from_name("ETIMEDOUT"), ETIMEDOUT);
	VS_ASSERT_EQ(vs__errno_from_name("enomem"), 0);
	VS_ASSERT_EQ(vs__errno_from_name(""), 0);
	VS_ASSERT_STREQ(vs__errno_name(ENOMEM), "ENOMEM");
	VS_ASSERT_STREQ(vs__errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	VS_ASSERT(vs__errno_name(0) == NULL);
	VS_ASSERT(vs__errno_name(4095) == NULL);
	VS_ASSERT_EQ(vs__tlib_from_name("libibumad"), VS_LIB_IBUMAD);
	VS_ASSERT_EQ(vs__tlib_from_name("lib"), -1);
	/* every library of VS_LIBRARIES by its name, in its enum place */
#define VS_TLIB_NAMED(lib, LIB, ...)                                           \
	VS_ASSERT_EQ(vs__tlib_from_name(#lib), VS_LIB_##LIB);                  \
	VS_ASSERT_EQ(vs__tlib_from_name("lib" #lib), VS_LIB_##LIB);
	VS_LIBRARIES(VS_TLIB_NAMED)
#undef VS_TLIB_NAMED
}

static enum vs_tsym sym_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < VS_TSYM_COUNT; i++)
		if (!strcmp(vs__tsym_info[i].name, name))
			return (enum vs_tsym)i;
	VS_FAIL("no row %s", name);
}

/* Every row's parameter text parses, and matches its wrapper's presence. */
static void test_rows(void)
{
	unsigned int i;

	for (i = 0; i < VS_TSYM_COUNT; i++) {
		struct vs_tparam p[8];
		int n = vs__tparams_parse(vs__tsym_info[i].params, p, 8);

		if (n < 0)
			VS_FAIL("%s: %s not understood", vs__tsym_info[i].name,
				vs__tsym_info[i].params);
		VS_ASSERT_EQ(vs__tsym_wrapper[i] == NULL,
			     vs__tsym_info[i].conv == VS_TC_NONE);
	}
	VS_ASSERT(vs__tsym_wrapper[sym_of("rfcntl")] == NULL);
}

static void test_params(void)
{
	struct vs_tparam p[8];

	VS_ASSERT_EQ(vs__tparams_parse("(struct ibv_pd *pd, void *addr, "
				       "size_t length, int access)", p, 8), 4);
	VS_ASSERT_STREQ(p[0].name, "pd");
	VS_ASSERT_STREQ(p[0].tag, "ibv_pd");
	VS_ASSERT(p[0].is_struct && p[0].ptr == 1);
	VS_ASSERT_STREQ(p[2].type, "size_t");
	VS_ASSERT(!p[2].is_signed && p[3].is_signed);
	VS_ASSERT_EQ(vs__tparams_parse("(void)", p, 8), 0);
	VS_ASSERT_EQ(vs__tparams_parse("(const char *node, struct "
				       "rdma_cm_event **event, uint8_t "
				       "eth_mac[6], enum ibv_rate rate)", p, 8), 4);
	VS_ASSERT(p[0].is_const && p[0].ptr == 1);
	VS_ASSERT_STREQ(p[0].tag, "char");
	VS_ASSERT_EQ(p[1].ptr, 2);
	VS_ASSERT_STREQ(p[2].name, "eth_mac");
	VS_ASSERT_EQ(p[2].ptr, 1);
	VS_ASSERT(p[3].is_enum);
	VS_ASSERT_STREQ(p[3].tag, "ibv_rate");
	VS_ASSERT_EQ(vs__tparams_parse("(int a, int b)", p, 1), -1);
	VS_ASSERT_EQ(vs__tparams_parse("int a", p, 8), -1);
	VS_ASSERT_EQ(vs__tparams_parse("(int a", p, 8), -1);
	VS_ASSERT_EQ(vs__tparams_parse("(*)", p, 8), -1);
}

/* A call of the row name with arguments a, its facts read as the
 * wrapper reads them before the call. */
static struct vs_tcall call_of(const char *name, const uint64_t *a)
{
	struct vs_tcall c;

	memset(&c, 0, sizeof(c));
	c.sym = sym_of(name);
	c.args = a;
	vs__tfacts_before(&c);
	VS_ASSERT(c.facts.parsed);
	return c;
}

#define LINE(expr, want)                                                       \
	do {                                                                   \
		char buf[512];                                                 \
		size_t len = 0;                                                \
									       \
		buf[0] = '\0';                                                 \
		expr;                                                          \
		VS_ASSERT_STREQ(buf, want);                                    \
		VS_ASSERT_EQ(len, strlen(want));                               \
	} while (0)

static void test_decoders(void)
{
	static const struct vs_tflag fl[] = { { 1, "A" }, { 4, "C" } };
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 2, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTR,
				  .path_mtu = IBV_MTU_1024, .dest_qp_num = 17 };
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(7471),
				   .sin_addr.s_addr = htonl(0x0a000002) };
	struct vs_tcall c;
	uint64_t a[8];
	char small[8];
	size_t len;

	LINE(vs__tflags(buf, sizeof(buf), &len, 0, fl, 2), "0");
	LINE(vs__tflags(buf, sizeof(buf), &len, 5, fl, 2), "A|C");
	LINE(vs__tflags(buf, sizeof(buf), &len, 0x13, fl, 2), "A|0x12");
	LINE(vs__tdecode_access(buf, sizeof(buf), &len, 0x7),
	     "IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_WRITE|"
	     "IBV_ACCESS_REMOTE_READ");
	LINE(vs__tdecode_qp_mask(buf, sizeof(buf), &len, IBV_QP_STATE |
				 IBV_QP_AV),
	     "IBV_QP_STATE|IBV_QP_AV");
	VS_ASSERT_STREQ(vs__tname_qp_state(IBV_QPS_RTS), "IBV_QPS_RTS");
	VS_ASSERT(vs__tname_qp_state(99) == NULL);
	VS_ASSERT_STREQ(vs__tname_port_state(IBV_PORT_ACTIVE),
			"IBV_PORT_ACTIVE");
	VS_ASSERT_STREQ(vs__tname_cm_event(RDMA_CM_EVENT_ESTABLISHED),
			"RDMA_CM_EVENT_ESTABLISHED");
	VS_ASSERT_STREQ(vs__tname_cm_event(RDMA_CM_EVENT_TIMEWAIT_EXIT),
			"RDMA_CM_EVENT_TIMEWAIT_EXIT");
	VS_ASSERT_STREQ(vs__tname_wr_opcode(IBV_WR_RDMA_READ),
			"IBV_WR_RDMA_READ");
	VS_ASSERT_STREQ(vs__tname_async_event(IBV_EVENT_PORT_ERR),
			"IBV_EVENT_PORT_ERR");
	VS_ASSERT_STREQ(vs__tname_wc_status(IBV_WC_RETRY_EXC_ERR),
			"IBV_WC_RETRY_EXC_ERR");

	/* appending never overflows and stays terminated */
	len = 0;
	vs__tputs(small, sizeof(small), &len, "abcdefghij");
	VS_ASSERT_STREQ(small, "abcdefg");
	vs__tprintf(small, sizeof(small), &len, "%d", 12345);
	VS_ASSERT_STREQ(small, "abcdefg");
	VS_ASSERT_EQ(len, 7);

	/* arguments by type, name and facts */
	memset(a, 0, sizeof(a));
	a[1] = (uintptr_t)small;
	a[2] = 4096;
	a[3] = IBV_ACCESS_LOCAL_WRITE;
	c = call_of("ibv_reg_mr", a);
	LINE(vs__tdecode_arg(buf, sizeof(buf), &len, &c, 3),
	     "access=IBV_ACCESS_LOCAL_WRITE");
	LINE(vs__tdecode_arg(buf, sizeof(buf), &len, &c, 2), "length=4096");
	LINE(vs__tdecode_arg(buf, sizeof(buf), &len, &c, 0), "pd=NULL");
	/* a handle keeps its id; another gets the next; a forgotten one a new */
	LINE(vs__thandle(buf, sizeof(buf), &len, "ibv_srq", &ia),
	     "srq#1");
	LINE(vs__thandle(buf, sizeof(buf), &len, "ibv_srq", &qa),
	     "srq#2");
	LINE(vs__thandle(buf, sizeof(buf), &len, "ibv_srq", &ia),
	     "srq#1");
	vs__thandle_forget(&ia);
	LINE(vs__thandle(buf, sizeof(buf), &len, "ibv_srq", &ia),
	     "srq#3");
	LINE(vs__thandle(buf, sizeof(buf), &len, "rdma_cm_id", &sin),
	     "cm_id#1");

	ia.send_cq = (void *)&sin;
	a[1] = (uintptr_t)&ia;
	c = call_of("ibv_create_qp", a);
	LINE(vs__tdecode_arg(buf, sizeof(buf), &len, &c, 1),
	     "qp_init_attr={qp_type=IBV_QPT_UD, send_cq=cm_id#1, "
	     "recv_cq=NULL, cap={max_send_wr=8, max_recv_wr=2, "
	     "max_send_sge=1, max_recv_sge=1, max_inline_data=0}, "
	     "sq_sig_all=0}");
	/* an output struct is never opened as an input */
	c = call_of("ibv_query_qp", (uint64_t[8]){ 0, (uintptr_t)&qa, 0,
						    (uintptr_t)&ia });
	{
		char b[64] = "";
		size_t l = 0;

		vs__tdecode_arg(b, sizeof(b), &l, &c, 3);
		VS_ASSERT(!strncmp(b, "init_attr=0x", 12) && !strchr(b, '{'));
	}

	a[1] = (uintptr_t)&qa;
	a[2] = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN;
	c = call_of("ibv_modify_qp", a);
	LINE(vs__tdecode_arg(buf, sizeof(buf), &len, &c, 1),
	     "attr={qp_state=IBV_QPS_RTR, path_mtu=IBV_MTU_1024, "
	     "dest_qp_num=17}");
	LINE(vs__tdecode_arg(buf, sizeof(buf), &len, &c, 2),
	     "attr_mask=IBV_QP_STATE|IBV_QP_PATH_MTU|IBV_QP_DEST_QPN");

	c = call_of("rdma_resolve_addr", (uint64_t[8]){ 0, 0, (uintptr_t)&sin,
							 2000 });
	LINE(vs__tdecode_arg(buf, sizeof(buf), &len, &c, 2),
	     "dst_addr={AF_INET 10.0.0.2:7471}");

	/* a caller's string: quoted, one line, at most 64 bytes */
	c = call_of("rdma_getaddrinfo",
		    (uint64_t[8]){ (uintptr_t)"host\nname" });
	LINE(vs__tdecode_arg(buf, sizeof(buf), &len, &c, 0),
	     "node=\"host?name\"");

	/* results in each convention, failed or not */
	memset(a, 0, sizeof(a));
	c = call_of("ibv_reg_mr", a);
	LINE(vs__tdecode_ret(buf, sizeof(buf), &len, &c, 0, 1), " = NULL");
	c = call_of("ibv_dereg_mr", a);
	LINE(vs__tdecode_ret(buf, sizeof(buf), &len, &c, EBUSY, 1), " = EBUSY");
	c = call_of("rdma_connect", a);
	LINE(vs__tdecode_ret(buf, sizeof(buf), &len, &c, (uint64_t)-1, 1),
	     " = -1");
	c = call_of("ibv_ack_cq_events", a);
	LINE(vs__tdecode_ret(buf, sizeof(buf), &len, &c, 0, 0), "");
	{
		int e;

		VS_ASSERT(vs__tfailed(sym_of("ibv_reg_mr"), 0, ENOMEM, &e));
		VS_ASSERT_EQ(e, ENOMEM);
		VS_ASSERT(!vs__tfailed(sym_of("ibv_reg_mr"), 8, ENOMEM, &e));
		VS_ASSERT(vs__tfailed(sym_of("ibv_modify_qp"), EINVAL, 0, &e));
		VS_ASSERT_EQ(e, EINVAL);
		VS_ASSERT(vs__tfailed(sym_of("rdma_connect"), (uint64_t)-1,
				      ETIMEDOUT, &e));
		VS_ASSERT(!vs__tfailed(sym_of("rdma_connect"), 0, 0, &e));
		VS_ASSERT(vs__tfailed(sym_of("_ibv_query_gid_table"),
				      (uint64_t)(int64_t)-EINVAL, 0, &e));
		VS_ASSERT_EQ(e, EINVAL);
		VS_ASSERT(!vs__tfailed(sym_of("ibv_wc_status_str"), 0, 0, &e));
	}
}

int main(void)
{
	test_filter();
	test_fault();
	test_errno_names();
	test_rows();
	test_params();
	test_decoders();
	return 0;
}
