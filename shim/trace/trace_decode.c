// SPDX-License-Identifier: MIT
/*
 * Decoding a call for the trace, the way strace decodes system calls:
 * enum names, flag names, handles as short stable ids ("qp#2"), sizes as
 * numbers, the fields of the attribute structs the caller passes in, and
 * never the contents of user buffers (a buffer is its address).  The
 * parameters' types and names come from the rows' own text, parsed once.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "vs_trace.h"

void vs__tflags(char *buf, size_t size, size_t *len, uint64_t v,
		const struct vs_tflag *names, size_t n)
{
	const char *sep = "";
	size_t i;

	if (!v) {
		vs__tputs(buf, size, len, "0");
		return;
	}
	for (i = 0; i < n; i++)
		if (names[i].bit && (v & names[i].bit) == names[i].bit) {
			vs__tprintf(buf, size, len, "%s%s", sep, names[i].name);
			v &= ~names[i].bit;
			sep = "|";
		}
	if (v)
		vs__tprintf(buf, size, len, "%s0x%llx", sep,
			    (unsigned long long)v);
}

/* A string the caller passed (a host, a file), quoted, at most 64
 * bytes, control bytes as '?': a trace line stays one line. */
static void vs_tquote(char *buf, size_t size, size_t *len, const char *s)
{
	char q[67];
	size_t i;

	q[0] = '"';
	for (i = 0; i < 64 && s[i]; i++)
		q[i + 1] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	q[i + 1] = '"';
	q[i + 2] = '\0';
	vs__tputs(buf, size, len, q);
}

#define VS_NAME(v, table)                                                      \
	((v) < sizeof(table) / sizeof((table)[0]) ? (table)[v] : NULL)

const char *vs__tname_qp_state(uint64_t v)
{
	static const char *const n[] = {
		[IBV_QPS_RESET] = "IBV_QPS_RESET", [IBV_QPS_INIT] = "IBV_QPS_INIT",
		[IBV_QPS_RTR] = "IBV_QPS_RTR",	   [IBV_QPS_RTS] = "IBV_QPS_RTS",
		[IBV_QPS_SQD] = "IBV_QPS_SQD",	   [IBV_QPS_SQE] = "IBV_QPS_SQE",
		[IBV_QPS_ERR] = "IBV_QPS_ERR",
	};
	return VS_NAME(v, n);
}

const char *vs__tname_qp_type(uint64_t v)
{
	static const char *const n[] = {
		[IBV_QPT_RC] = "IBV_QPT_RC",	     [IBV_QPT_UC] = "IBV_QPT_UC",
		[IBV_QPT_UD] = "IBV_QPT_UD",	     [8] = "IBV_QPT_RAW_PACKET",
		[IBV_QPT_XRC_SEND] = "IBV_QPT_XRC_SEND",
		[IBV_QPT_XRC_RECV] = "IBV_QPT_XRC_RECV",
	};
	/* IBV_QPT_DRIVER is 0xff: as a row it made this table 2 KB of empty
	 * pointers in every program that links the trace */
	if (v == IBV_QPT_DRIVER)
		return "IBV_QPT_DRIVER";
	return VS_NAME(v, n);
}

const char *vs__tname_port_state(uint64_t v)
{
	static const char *const n[] = {
		[IBV_PORT_NOP] = "IBV_PORT_NOP",
		[IBV_PORT_DOWN] = "IBV_PORT_DOWN",
		[IBV_PORT_INIT] = "IBV_PORT_INIT",
		[IBV_PORT_ARMED] = "IBV_PORT_ARMED",
		[IBV_PORT_ACTIVE] = "IBV_PORT_ACTIVE",
		[IBV_PORT_ACTIVE_DEFER] = "IBV_PORT_ACTIVE_DEFER",
	};
	return VS_NAME(v, n);
}

const char *vs__tname_cm_event(uint64_t v)
{
	static const char *const n[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED",	"RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST",
		"RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR",	"RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED",	"RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED",	"RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE",	"RDMA_CM_EVENT_TIMEWAIT_EXIT",
		"RDMA_CM_EVENT_ADDRINFO_RESOLVED",
		"RDMA_CM_EVENT_ADDRINFO_ERROR",
	};
	return VS_NAME(v, n);
}

const char *vs__tname_wr_opcode(uint64_t v)
{
	static const char *const n[] = {
		[IBV_WR_RDMA_WRITE] = "IBV_WR_RDMA_WRITE",
		[IBV_WR_RDMA_WRITE_WITH_IMM] = "IBV_WR_RDMA_WRITE_WITH_IMM",
		[IBV_WR_SEND] = "IBV_WR_SEND",
		[IBV_WR_SEND_WITH_IMM] = "IBV_WR_SEND_WITH_IMM",
		[IBV_WR_RDMA_READ] = "IBV_WR_RDMA_READ",
		[IBV_WR_ATOMIC_CMP_AND_SWP] = "IBV_WR_ATOMIC_CMP_AND_SWP",
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = "IBV_WR_ATOMIC_FETCH_AND_ADD",
		[IBV_WR_LOCAL_INV] = "IBV_WR_LOCAL_INV",
		[IBV_WR_BIND_MW] = "IBV_WR_BIND_MW",
		[IBV_WR_SEND_WITH_INV] = "IBV_WR_SEND_WITH_INV",
		[IBV_WR_TSO] = "IBV_WR_TSO",
		[IBV_WR_DRIVER1] = "IBV_WR_DRIVER1",
	};
	return VS_NAME(v, n);
}

const char *vs__tname_async_event(uint64_t v)
{
	static const char *const n[] = {
		"IBV_EVENT_CQ_ERR",		"IBV_EVENT_QP_FATAL",
		"IBV_EVENT_QP_REQ_ERR",		"IBV_EVENT_QP_ACCESS_ERR",
		"IBV_EVENT_COMM_EST",		"IBV_EVENT_SQ_DRAINED",
		"IBV_EVENT_PATH_MIG",		"IBV_EVENT_PATH_MIG_ERR",
		"IBV_EVENT_DEVICE_FATAL",	"IBV_EVENT_PORT_ACTIVE",
		"IBV_EVENT_PORT_ERR",		"IBV_EVENT_LID_CHANGE",
		"IBV_EVENT_PKEY_CHANGE",	"IBV_EVENT_SM_CHANGE",
		"IBV_EVENT_SRQ_ERR",		"IBV_EVENT_SRQ_LIMIT_REACHED",
		"IBV_EVENT_QP_LAST_WQE_REACHED", "IBV_EVENT_CLIENT_REREGISTER",
		"IBV_EVENT_GID_CHANGE",		"IBV_EVENT_WQ_FATAL",
	};
	return VS_NAME(v, n);
}

const char *vs__tname_wc_status(uint64_t v)
{
	static const char *const n[] = {
		"IBV_WC_SUCCESS",	    "IBV_WC_LOC_LEN_ERR",
		"IBV_WC_LOC_QP_OP_ERR",	    "IBV_WC_LOC_EEC_OP_ERR",
		"IBV_WC_LOC_PROT_ERR",	    "IBV_WC_WR_FLUSH_ERR",
		"IBV_WC_MW_BIND_ERR",	    "IBV_WC_BAD_RESP_ERR",
		"IBV_WC_LOC_ACCESS_ERR",    "IBV_WC_REM_INV_REQ_ERR",
		"IBV_WC_REM_ACCESS_ERR",    "IBV_WC_REM_OP_ERR",
		"IBV_WC_RETRY_EXC_ERR",	    "IBV_WC_RNR_RETRY_EXC_ERR",
		"IBV_WC_LOC_RDD_VIOL_ERR",  "IBV_WC_REM_INV_RD_REQ_ERR",
		"IBV_WC_REM_ABORT_ERR",	    "IBV_WC_INV_EECN_ERR",
		"IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
		"IBV_WC_RESP_TIMEOUT_ERR",  "IBV_WC_GENERAL_ERR",
		"IBV_WC_TM_ERR",	    "IBV_WC_TM_RNDV_INCOMPLETE",
	};
	return VS_NAME(v, n);
}

const char *vs__tname_mtu(uint64_t v)
{
	static const char *const n[] = {
		[IBV_MTU_256] = "IBV_MTU_256",	 [IBV_MTU_512] = "IBV_MTU_512",
		[IBV_MTU_1024] = "IBV_MTU_1024", [IBV_MTU_2048] = "IBV_MTU_2048",
		[IBV_MTU_4096] = "IBV_MTU_4096",
	};
	return VS_NAME(v, n);
}

#define VS_F(x) { x, #x }
void vs__tdecode_access(char *buf, size_t size, size_t *len, uint64_t v)
{
	static const struct vs_tflag f[] = {
		VS_F(IBV_ACCESS_LOCAL_WRITE),	VS_F(IBV_ACCESS_REMOTE_WRITE),
		VS_F(IBV_ACCESS_REMOTE_READ),	VS_F(IBV_ACCESS_REMOTE_ATOMIC),
		VS_F(IBV_ACCESS_MW_BIND),	VS_F(IBV_ACCESS_ZERO_BASED),
		VS_F(IBV_ACCESS_ON_DEMAND),	VS_F(IBV_ACCESS_HUGETLB),
		VS_F(IBV_ACCESS_RELAXED_ORDERING),
		{ 1u << 21, "IBV_ACCESS_FLUSH_GLOBAL" },
		{ 1u << 22, "IBV_ACCESS_FLUSH_PERSISTENT" },
	};
	vs__tflags(buf, size, len, v, f, sizeof(f) / sizeof(f[0]));
}

void vs__tdecode_qp_mask(char *buf, size_t size, size_t *len, uint64_t v)
{
	static const struct vs_tflag f[] = {
		VS_F(IBV_QP_STATE),	      VS_F(IBV_QP_CUR_STATE),
		VS_F(IBV_QP_EN_SQD_ASYNC_NOTIFY), VS_F(IBV_QP_ACCESS_FLAGS),
		VS_F(IBV_QP_PKEY_INDEX),      VS_F(IBV_QP_PORT),
		VS_F(IBV_QP_QKEY),	      VS_F(IBV_QP_AV),
		VS_F(IBV_QP_PATH_MTU),	      VS_F(IBV_QP_TIMEOUT),
		VS_F(IBV_QP_RETRY_CNT),	      VS_F(IBV_QP_RNR_RETRY),
		VS_F(IBV_QP_RQ_PSN),	      VS_F(IBV_QP_MAX_QP_RD_ATOMIC),
		VS_F(IBV_QP_ALT_PATH),	      VS_F(IBV_QP_MIN_RNR_TIMER),
		VS_F(IBV_QP_SQ_PSN),	      VS_F(IBV_QP_MAX_DEST_RD_ATOMIC),
		VS_F(IBV_QP_PATH_MIG_STATE),  VS_F(IBV_QP_CAP),
		VS_F(IBV_QP_DEST_QPN),	      VS_F(IBV_QP_RATE_LIMIT),
	};
	vs__tflags(buf, size, len, v, f, sizeof(f) / sizeof(f[0]));
}

/* A name, or the number when the table has none. */
static void vs_tenum(char *buf, size_t size, size_t *len, const char *name,
		     uint64_t v)
{
	if (name)
		vs__tputs(buf, size, len, name);
	else
		vs__tprintf(buf, size, len, "%lld", (long long)v);
}

/* ---- what the facts allow to be read ---- */

/* An integer behind a pointer: its size, sign, and whether hex reads best. */
struct vs_tint {
	const char *tag;
	unsigned char size, is_signed, hex;
};

/* One integer behind a pointer (an array of them, with a bound, is
 * shown by its address). */
static const struct vs_tint *vs_tint_of(const struct vs_tparam *p)
{
	static const struct vs_tint ints[] = {
		{ "int", sizeof(int), 1, 0 },
		{ "unsigned int", sizeof(unsigned int), 0, 0 },
		{ "socklen_t", sizeof(socklen_t), 0, 0 },
		{ "size_t", sizeof(size_t), 0, 0 },
		{ "long", sizeof(long), 1, 0 },
		{ "uint8_t", 1, 0, 0 },	 { "uint16_t", 2, 0, 0 },
		{ "uint32_t", 4, 0, 0 }, { "uint64_t", 8, 0, 0 },
		{ "__be16", 2, 0, 1 },	 { "__be32", 4, 0, 1 },
		{ "__be64", 8, 0, 1 },
	};
	static const struct vs_tint as_enum = { "enum", sizeof(int), 1, 0 };
	size_t i;

	if (p->ptr != 1 || p->is_array || p->is_struct || p->fact.len)
		return NULL;
	if (p->is_enum)
		return &as_enum;
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(ints[i].tag, p->tag))
			return &ints[i];
	return NULL;
}

/* By memcpy: the caller's integer need not be aligned. */
static uint64_t vs_tint_read(const struct vs_tint *t, const void *ptr)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (t->size) {
	case 1:
		memcpy(&u8, ptr, 1);
		return u8;
	case 2:
		memcpy(&u16, ptr, 2);
		return u16;
	case 4:
		memcpy(&u32, ptr, 4);
		return t->is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default:
		memcpy(&u64, ptr, 8);
		return u64;
	}
}

static void vs_tint_print(char *buf, size_t size, size_t *len,
			  const struct vs_tint *t, uint64_t v)
{
	if (t->hex)
		vs__tprintf(buf, size, len, "0x%llx", (unsigned long long)v);
	else if (t->is_signed)
		vs__tprintf(buf, size, len, "%lld", (long long)(int64_t)v);
	else
		vs__tprintf(buf, size, len, "%llu", (unsigned long long)v);
}

#define VS_NOBOUND ((size_t)-1)

/* The caller's bound on argument i (bytes or elements, as its fact
 * says), VS_NOBOUND when its fact has none.  A *PARAM bound is the value
 * read before the call; after it (out), the smaller of that and the value
 * the call left there. */
static size_t vs_tbound(const struct vs_tcall *c, int i, int out)
{
	const struct vs_tsig *s = &c->facts.sig;
	const struct vs_tfact *f = &s->p[i].fact;
	const struct vs_tparam *lp;
	const struct vs_tint *t;
	uint64_t v;

	if (f->len == VS_TL_NONE)
		return VS_NOBOUND;
	lp = &s->p[f->len_arg];
	if (f->len_deref) {
		t = vs_tint_of(lp);
		if (!t || !(c->facts.pre_set & 1u << f->len_arg))
			return 0;
		v = c->facts.pre[f->len_arg];
		if (out) {
			uint64_t now = vs_tint_read(
				t, (const void *)(uintptr_t)c->args[f->len_arg]);

			if (now < v || (t->is_signed && (int64_t)now < 0))
				v = now;
		}
		if (t->is_signed && (int64_t)v < 0)
			return 0;
	} else {
		if (lp->ptr)
			return 0;
		v = c->args[f->len_arg];
		if (lp->is_signed && (int64_t)v < 0)
			return 0;
	}
	return v >= VS_NOBOUND ? VS_NOBOUND - 1 : (size_t)v;
}

/* A socket address within bytes (VS_NOBOUND: as long as its family says,
 * as librdmacm reads the addresses it takes without a length). */
static void vs_tsockaddr(char *buf, size_t size, size_t *len, const void *p,
			 size_t bytes)
{
	char a[INET6_ADDRSTRLEN];
	sa_family_t family;

	if (bytes < sizeof(family)) {
		vs__tprintf(buf, size, len, "{addrlen=%zu}", bytes);
		return;
	}
	memcpy(&family, p, sizeof(family));
	if (family == AF_INET && bytes >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;

		memcpy(&in, p, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, a, sizeof(a));
		vs__tprintf(buf, size, len, "{AF_INET %s:%u}", a,
			    ntohs(in.sin_port));
	} else if (family == AF_INET6 && bytes >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;

		memcpy(&in6, p, sizeof(in6));
		inet_ntop(AF_INET6, &in6.sin6_addr, a, sizeof(a));
		vs__tprintf(buf, size, len, "{AF_INET6 [%s]:%u}", a,
			    ntohs(in6.sin6_port));
	} else if (family == AF_INET || family == AF_INET6) {
		vs__tprintf(buf, size, len, "{%s, addrlen=%zu}",
			    family == AF_INET ? "AF_INET" : "AF_INET6", bytes);
	} else {
		vs__tprintf(buf, size, len, "{family=%u}", family);
	}
}

static void vs_tqp_cap(char *buf, size_t size, size_t *len,
		       const struct ibv_qp_cap *cap)
{
	vs__tprintf(buf, size, len,
		    "cap={max_send_wr=%u, max_recv_wr=%u, max_send_sge=%u, "
		    "max_recv_sge=%u, max_inline_data=%u}",
		    cap->max_send_wr, cap->max_recv_wr, cap->max_send_sge,
		    cap->max_recv_sge, cap->max_inline_data);
}

/* Lists and arrays show at most this many entries: a cyclic list, or a
 * count of millions, stays one short line. */
#define VS_TLIST_MAX 8

/* An array of count handles. */
static void vs_thandles(char *buf, size_t size, size_t *len, const char *tag,
			const void *array, size_t count)
{
	size_t k;

	vs__tputs(buf, size, len, "[");
	for (k = 0; k < count && k < VS_TLIST_MAX; k++) {
		const void *h;

		memcpy(&h, (const char *)array + k * sizeof(h), sizeof(h));
		if (k)
			vs__tputs(buf, size, len, ", ");
		vs__thandle(buf, size, len, tag, h);
	}
	vs__tputs(buf, size, len, count > k ? ", ...]" : "]");
}

/* ---- the structs worth opening, by tag and direction ---- */

enum { VS_TD_IN = 1, VS_TD_OUT = 2 };

static int vs_ts_qp_init_attr(char *buf, size_t size, size_t *len,
			      const void *v, size_t bound,
			      const struct vs_tcall *c)
{
	const struct ibv_qp_init_attr *a = v;

	(void)bound;
	(void)c;
	vs__tputs(buf, size, len, "{qp_type=");
	vs_tenum(buf, size, len, vs__tname_qp_type(a->qp_type), a->qp_type);
	vs__tputs(buf, size, len, ", send_cq=");
	vs__thandle(buf, size, len, "ibv_cq", a->send_cq);
	vs__tputs(buf, size, len, ", recv_cq=");
	vs__thandle(buf, size, len, "ibv_cq", a->recv_cq);
	if (a->srq) {
		vs__tputs(buf, size, len, ", srq=");
		vs__thandle(buf, size, len, "ibv_srq", a->srq);
	}
	vs__tputs(buf, size, len, ", ");
	vs_tqp_cap(buf, size, len, &a->cap);
	vs__tprintf(buf, size, len, ", sq_sig_all=%d}", a->sq_sig_all);
	return 1;
}

/* The fields ibv_modify_qp's mask selects: needs its attr_mask. */
static int vs_ts_qp_attr(char *buf, size_t size, size_t *len, const void *v,
			 size_t bound, const struct vs_tcall *c)
{
	const struct ibv_qp_attr *a = v;
	const char *sep = "";
	uint64_t mask = 0;
	int i;

	(void)bound;
	for (i = 0; i < c->facts.sig.n; i++)
		if (!strcmp(c->facts.sig.p[i].name, "attr_mask") &&
		    !c->facts.sig.p[i].ptr)
			break;
	if (i == c->facts.sig.n)
		return 0;
	mask = c->args[i];
	vs__tputs(buf, size, len, "{");
	if (mask & IBV_QP_STATE) {
		vs__tputs(buf, size, len, "qp_state=");
		vs_tenum(buf, size, len, vs__tname_qp_state(a->qp_state),
			 a->qp_state);
		sep = ", ";
	}
	if (mask & IBV_QP_ACCESS_FLAGS) {
		vs__tprintf(buf, size, len, "%sqp_access_flags=", sep);
		vs__tdecode_access(buf, size, len, a->qp_access_flags);
		sep = ", ";
	}
	if (mask & IBV_QP_PORT) {
		vs__tprintf(buf, size, len, "%sport_num=%u", sep, a->port_num);
		sep = ", ";
	}
	if (mask & IBV_QP_PATH_MTU) {
		vs__tprintf(buf, size, len, "%spath_mtu=", sep);
		vs_tenum(buf, size, len, vs__tname_mtu(a->path_mtu),
			 a->path_mtu);
		sep = ", ";
	}
	if (mask & IBV_QP_DEST_QPN) {
		vs__tprintf(buf, size, len, "%sdest_qp_num=%u", sep,
			    a->dest_qp_num);
		sep = ", ";
	}
	if (mask & IBV_QP_RQ_PSN) {
		vs__tprintf(buf, size, len, "%srq_psn=%u", sep, a->rq_psn);
		sep = ", ";
	}
	if (mask & IBV_QP_SQ_PSN) {
		vs__tprintf(buf, size, len, "%ssq_psn=%u", sep, a->sq_psn);
		sep = ", ";
	}
	if (mask & IBV_QP_AV)
		vs__tprintf(buf, size, len, "%sah_attr={dlid=%u, is_global=%u, "
			    "sgid_index=%u, port_num=%u}", sep, a->ah_attr.dlid,
			    a->ah_attr.is_global, a->ah_attr.grh.sgid_index,
			    a->ah_attr.port_num);
	vs__tputs(buf, size, len, mask & ~(uint64_t)(IBV_QP_STATE |
		  IBV_QP_ACCESS_FLAGS | IBV_QP_PORT | IBV_QP_PATH_MTU |
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN |
		  IBV_QP_AV) ? ", ...}" : "}");
	return 1;
}

static int vs_ts_sockaddr(char *buf, size_t size, size_t *len, const void *v,
			  size_t bound, const struct vs_tcall *c)
{
	(void)c;
	vs_tsockaddr(buf, size, len, v, bound);
	return 1;
}

static int vs_ts_cm_event(char *buf, size_t size, size_t *len, const void *v,
			  size_t bound, const struct vs_tcall *c)
{
	const struct rdma_cm_event *e = v;

	(void)bound;
	(void)c;
	vs__tputs(buf, size, len, "{event=");
	vs_tenum(buf, size, len, vs__tname_cm_event(e->event), e->event);
	vs__tprintf(buf, size, len, ", status=%d, id=", e->status);
	vs__thandle(buf, size, len, "rdma_cm_id", e->id);
	vs__tputs(buf, size, len, "}");
	return 1;
}

static int vs_ts_srq_init_attr(char *buf, size_t size, size_t *len,
			       const void *v, size_t bound,
			       const struct vs_tcall *c)
{
	const struct ibv_srq_init_attr *a = v;

	(void)bound;
	(void)c;
	vs__tprintf(buf, size, len, "{max_wr=%u, max_sge=%u}", a->attr.max_wr,
		    a->attr.max_sge);
	return 1;
}

static int vs_ts_conn_param(char *buf, size_t size, size_t *len,
			    const void *v, size_t bound,
			    const struct vs_tcall *c)
{
	const struct rdma_conn_param *p = v;

	(void)bound;
	(void)c;
	vs__tprintf(buf, size, len, "{private_data_len=%u, "
		    "responder_resources=%u, initiator_depth=%u, "
		    "retry_count=%u, rnr_retry_count=%u, qp_num=%u}",
		    p->private_data_len, p->responder_resources,
		    p->initiator_depth, p->retry_count, p->rnr_retry_count,
		    p->qp_num);
	return 1;
}

/* The exported symbol's struct is ibv_port_attr up to flags (the header's
 * inline passes a whole one): read nothing after. */
#define VS_COMPAT_PORT_ATTR offsetof(struct ibv_port_attr, port_cap_flags2)
static int vs_ts_port_attr(char *buf, size_t size, size_t *len,
			   const void *v, size_t bound,
			   const struct vs_tcall *c)
{
	const struct ibv_port_attr *a = v;

	(void)bound;
	(void)c;
	vs__tputs(buf, size, len, "{state=");
	vs_tenum(buf, size, len, vs__tname_port_state(a->state), a->state);
	vs__tputs(buf, size, len, ", active_mtu=");
	vs_tenum(buf, size, len, vs__tname_mtu(a->active_mtu), a->active_mtu);
	vs__tprintf(buf, size, len, ", lid=%u, link_layer=%u}", a->lid,
		    a->link_layer);
	return 1;
}

static int vs_ts_async_event(char *buf, size_t size, size_t *len,
			     const void *v, size_t bound,
			     const struct vs_tcall *c)
{
	const struct ibv_async_event *a = v;

	(void)bound;
	(void)c;
	vs__tputs(buf, size, len, "{event_type=");
	vs_tenum(buf, size, len, vs__tname_async_event(a->event_type),
		 a->event_type);
	vs__tputs(buf, size, len, "}");
	return 1;
}

/* A list of rdma_getaddrinfo(): each entry's addresses within their own
 * lengths, at most VS_TLIST_MAX entries (a list that loops ends there). */
static int vs_ts_addrinfo(char *buf, size_t size, size_t *len, const void *v,
			  size_t bound, const struct vs_tcall *c)
{
	static const struct vs_tflag flags[] = {
		{ RAI_PASSIVE, "RAI_PASSIVE" },
		{ RAI_NUMERICHOST, "RAI_NUMERICHOST" },
		{ RAI_NOROUTE, "RAI_NOROUTE" },
		{ RAI_FAMILY, "RAI_FAMILY" },
	};
	const struct rdma_addrinfo *ai = v;
	unsigned int k;

	(void)bound;
	(void)c;
	vs__tputs(buf, size, len, "[");
	for (k = 0; ai && k < VS_TLIST_MAX; k++, ai = ai->ai_next) {
		vs__tputs(buf, size, len, k ? ", {flags=" : "{flags=");
		vs__tflags(buf, size, len, (unsigned int)ai->ai_flags, flags,
			   sizeof(flags) / sizeof(flags[0]));
		vs__tprintf(buf, size, len, ", family=%d, qp_type=",
			    ai->ai_family);
		vs_tenum(buf, size, len, vs__tname_qp_type(ai->ai_qp_type),
			 (uint64_t)ai->ai_qp_type);
		vs__tprintf(buf, size, len, ", port_space=0x%x",
			    (unsigned int)ai->ai_port_space);
		if (ai->ai_src_addr) {
			vs__tputs(buf, size, len, ", src=");
			vs_tsockaddr(buf, size, len, ai->ai_src_addr,
				     ai->ai_src_len);
		}
		if (ai->ai_dst_addr) {
			vs__tputs(buf, size, len, ", dst=");
			vs_tsockaddr(buf, size, len, ai->ai_dst_addr,
				     ai->ai_dst_len);
		}
		vs__tputs(buf, size, len, "}");
	}
	vs__tputs(buf, size, len, ai ? ", ...]" : "]");
	return 1;
}

/* size: what the decoder reads (a bytes= bound below it shows the
 * address instead); 0: it bounds itself by the bound it is given. */
static const struct vs_tstruct {
	const char *tag;
	unsigned char dirs;
	size_t size;
	int (*show)(char *buf, size_t size, size_t *len, const void *v,
		    size_t bound, const struct vs_tcall *c);
} vs_tstructs[] = {
	{ "ibv_qp_init_attr", VS_TD_IN, sizeof(struct ibv_qp_init_attr),
	  vs_ts_qp_init_attr },
	{ "ibv_qp_attr", VS_TD_IN, sizeof(struct ibv_qp_attr), vs_ts_qp_attr },
	{ "sockaddr", VS_TD_IN | VS_TD_OUT, 0, vs_ts_sockaddr },
	{ "rdma_cm_event", VS_TD_IN | VS_TD_OUT, sizeof(struct rdma_cm_event),
	  vs_ts_cm_event },
	{ "ibv_srq_init_attr", VS_TD_IN, sizeof(struct ibv_srq_init_attr),
	  vs_ts_srq_init_attr },
	{ "rdma_conn_param", VS_TD_IN, sizeof(struct rdma_conn_param),
	  vs_ts_conn_param },
	{ "_compat_ibv_port_attr", VS_TD_OUT, VS_COMPAT_PORT_ATTR,
	  vs_ts_port_attr },
	{ "ibv_async_event", VS_TD_IN | VS_TD_OUT,
	  sizeof(struct ibv_async_event), vs_ts_async_event },
	{ "rdma_addrinfo", VS_TD_IN | VS_TD_OUT, sizeof(struct rdma_addrinfo),
	  vs_ts_addrinfo },
};

/* The struct v points to (of argument i's tag), if a decoder opens it in
 * this direction within the caller's bound: 1, or 0 having written
 * nothing. */
static int vs_tstruct(char *buf, size_t size, size_t *len,
		      const struct vs_tcall *c, int i, const void *v, int dir)
{
	const struct vs_tparam *p = &c->facts.sig.p[i];
	size_t k, bound = vs_tbound(c, i, dir == VS_TD_OUT);

	if (!p->is_struct)
		return 0;
	for (k = 0; k < sizeof(vs_tstructs) / sizeof(vs_tstructs[0]); k++) {
		const struct vs_tstruct *d = &vs_tstructs[k];

		if (strcmp(d->tag, p->tag) || !(d->dirs & dir))
			continue;
		if (p->fact.len == VS_TL_COUNT ? bound < 1 :
		    d->size && bound < d->size)
			return 0;
		return d->show(buf, size, len, v,
			       p->fact.len == VS_TL_BYTES ? bound : VS_NOBOUND,
			       c);
	}
	return 0;
}

void vs__tdecode_arg(char *buf, size_t size, size_t *len,
		     const struct vs_tcall *c, int i)
{
	const struct vs_tparam *p = &c->facts.sig.p[i];
	uint64_t v = c->args[i];
	const void *ptr = (const void *)(uintptr_t)v;
	const char *fn = vs__tsym_info(c->sym)->name;
	const struct vs_tint *t;

	vs__tprintf(buf, size, len, "%s=", p->name);
	if (p->ptr) {
		if (!ptr) {
			vs__tputs(buf, size, len, "NULL");
			return;
		}
		switch (p->fact.role) {
		case VS_TR_H:
		case VS_TR_END:
			if (p->is_struct && p->ptr == 1) {
				/* its id, and what it holds when it is the
				 * caller's to read (an event being acked) */
				vs__thandle(buf, size, len, p->tag, ptr);
				vs_tstruct(buf, size, len, c, i, ptr, VS_TD_IN);
				return;
			}
			if (p->is_struct && p->ptr == 2 &&
			    p->fact.len == VS_TL_COUNT) {
				vs_thandles(buf, size, len, p->tag, ptr,
					    vs_tbound(c, i, 0));
				return;
			}
			break;
		case VS_TR_STR:
			if (p->ptr == 1 && !strcmp(p->tag, "char")) {
				vs_tquote(buf, size, len, ptr);
				return;
			}
			break;
		case VS_TR_IN:
		case VS_TR_INOUT:
			t = vs_tint_of(p);
			if (t && c->facts.pre_set & 1u << i) {
				vs__tputs(buf, size, len, "[");
				vs_tint_print(buf, size, len, t, c->facts.pre[i]);
				vs__tputs(buf, size, len, "]");
				return;
			}
			if (p->ptr == 1 &&
			    vs_tstruct(buf, size, len, c, i, ptr, VS_TD_IN))
				return;
			break;
		default:
			break;
		}
		/* anything else: its address only */
		vs__tprintf(buf, size, len, "%p", ptr);
		return;
	}
	if (!strcmp(p->name, "access") || !strcmp(p->name, "qp_access_flags")) {
		vs__tdecode_access(buf, size, len, v);
		return;
	}
	if (!strcmp(p->name, "attr_mask") &&
	    (!strcmp(fn, "ibv_modify_qp") || !strcmp(fn, "ibv_query_qp"))) {
		vs__tdecode_qp_mask(buf, size, len, v);
		return;
	}
	if (p->is_enum) {
		const char *name = NULL;

		if (!strcmp(p->tag, "ibv_wr_opcode"))
			name = vs__tname_wr_opcode(v);
		else if (!strcmp(p->tag, "rdma_cm_event_type"))
			name = vs__tname_cm_event(v);
		else if (!strcmp(p->tag, "ibv_event_type"))
			name = vs__tname_async_event(v);
		else if (!strcmp(p->tag, "ibv_wc_status"))
			name = vs__tname_wc_status(v);
		else if (!strcmp(p->tag, "ibv_port_state"))
			name = vs__tname_port_state(v);
		vs_tenum(buf, size, len, name, v);
		return;
	}
	if (!strcmp(p->tag, "__be16") || !strcmp(p->tag, "__be32") ||
	    !strcmp(p->tag, "__be64") || !strcmp(p->name, "iova")) {
		vs__tprintf(buf, size, len, "0x%llx", (unsigned long long)v);
		return;
	}
	if (p->is_signed)
		vs__tprintf(buf, size, len, "%lld", (long long)(int64_t)v);
	else
		vs__tprintf(buf, size, len, "%llu", (unsigned long long)v);
}

void vs__tdecode_out(char *buf, size_t size, size_t *len,
		     const struct vs_tcall *c, int i)
{
	const struct vs_tparam *p = &c->facts.sig.p[i];
	const void *ptr = (const void *)(uintptr_t)c->args[i];
	const struct vs_tint *t;
	size_t mark = *len;

	if (!ptr || (p->fact.role != VS_TR_OUT && p->fact.role != VS_TR_INOUT &&
		     p->fact.role != VS_TR_HOUT))
		return;
	if (p->is_struct && p->ptr == 2) {
		/* *param: a handle (hout), or a struct the call made */
		const void *obj;

		memcpy(&obj, ptr, sizeof(obj));
		vs__tprintf(buf, size, len, " => *%s=", p->name);
		if (p->fact.role == VS_TR_HOUT)
			vs__thandle(buf, size, len, p->tag, obj);
		else if (!obj)
			vs__tputs(buf, size, len, "NULL");
		if (obj && !vs_tstruct(buf, size, len, c, i, obj, VS_TD_OUT) &&
		    p->fact.role != VS_TR_HOUT)
			goto nothing;
		return;
	}
	t = vs_tint_of(p);
	if (t) {
		vs__tprintf(buf, size, len, " => *%s=", p->name);
		vs_tint_print(buf, size, len, t, vs_tint_read(t, ptr));
		return;
	}
	vs__tprintf(buf, size, len, " => %s=", p->name);
	if (p->ptr == 1 && vs_tstruct(buf, size, len, c, i, ptr, VS_TD_OUT))
		return;
nothing:
	*len = mark;
	buf[mark] = '\0';
}

/* ---- the facts at work on a call ---- */

void vs__tfacts_before(struct vs_tcall *c)
{
	struct vs_tfacts_call *fc = &c->facts;
	const struct vs_tsym_info *in = vs__tsym_info(c->sym);
	int i;

	fc->pre_set = 0;
	fc->nending = 0;
	fc->parsed = !vs__tsig_parse(vs__tsym_params(in), vs__tsym_ret(in),
				     vs__tsym_facts(in), &fc->sig, NULL, 0);
	if (!fc->parsed) {
		fc->sig.n = 0;
		return;
	}
	for (i = 0; i < fc->sig.n; i++) {
		const struct vs_tparam *p = &fc->sig.p[i];
		const void *ptr = (const void *)(uintptr_t)c->args[i];
		const struct vs_tint *t = vs_tint_of(p);
		unsigned int k;

		if (!ptr)
			continue;
		/* an input integer, as it was before the call changed it */
		if (t && (p->fact.role == VS_TR_IN ||
			  p->fact.role == VS_TR_INOUT)) {
			fc->pre[i] = vs_tint_read(t, ptr);
			fc->pre_set |= 1u << i;
		}
		/* the handles the call ends, while the struct is there */
		for (k = 0; k < p->fact.nends && fc->nending < VS_TENDS_MAX; k++) {
			const void *h;

			memcpy(&h, (const char *)ptr +
				   vs__tfields[p->fact.ends[k]].offset, sizeof(h));
			if (h)
				fc->ending[fc->nending++] = h;
		}
	}
}

void vs__tfacts_forget(const struct vs_tcall *c)
{
	unsigned int k;
	int i;

	for (i = 0; i < c->facts.sig.n; i++)
		if (c->facts.sig.p[i].fact.role == VS_TR_END && c->args[i])
			vs__thandle_forget((const void *)(uintptr_t)c->args[i]);
	for (k = 0; k < c->facts.nending; k++)
		vs__thandle_forget(c->facts.ending[k]);
}

int vs__tfacts_ends(enum vs_tsym sym)
{
	const struct vs_tsym_info *in = vs__tsym_info(sym);
	struct vs_tsig s;
	int i;

	if (vs__tsig_parse(vs__tsym_params(in), vs__tsym_ret(in),
			   vs__tsym_facts(in), &s, NULL, 0))
		return 0;
	for (i = 0; i < s.n; i++)
		if (s.p[i].fact.role == VS_TR_END || s.p[i].fact.nends)
			return 1;
	return 0;
}

int vs__tfailed(enum vs_tsym sym, uint64_t ret, int err, int *e)
{
	*e = 0;
	switch (vs__tsym_info(sym)->conv) {
	case VS_TC_PTR:
		if (ret)
			return 0;
		*e = err;
		return 1;
	case VS_TC_ERRNO:
		if (!ret)
			return 0;
		*e = (int)(int64_t)ret < 0 ? -(int)(int64_t)ret : (int)ret;
		return 1;
	/* the wrappers widen signed results with their sign */
	case VS_TC_NEG1:
		if ((int64_t)ret != -1)
			return 0;
		*e = err;
		return 1;
	case VS_TC_NEGERR:
		if ((int64_t)ret >= 0)
			return 0;
		*e = -(int)(int64_t)ret;
		return 1;
	case VS_TC_ZERO:
		if (ret || !err)
			return 0;
		*e = err;
		return 1;
	default:
		return 0;
	}
}

void vs__tdecode_ret(char *buf, size_t size, size_t *len,
		     const struct vs_tcall *c, uint64_t ret, int failed)
{
	const struct vs_tsym_info *in = vs__tsym_info(c->sym);
	const struct vs_tparam *r = &c->facts.sig.ret;
	const char *name, *rtype;

	switch (in->conv) {
	case VS_TC_VOID:
		return;
	case VS_TC_STR:
		vs__tputs(buf, size, len, " = ");
		if (ret)
			vs_tquote(buf, size, len, (const char *)(uintptr_t)ret);
		else
			vs__tputs(buf, size, len, "NULL");
		return;
	case VS_TC_PTR:
		if (!ret) {
			vs__tputs(buf, size, len, " = NULL");
			return;
		}
		vs__tputs(buf, size, len, " = ");
		if (r->fact.role == VS_TR_H && r->is_struct && r->ptr == 1)
			vs__thandle(buf, size, len, r->tag,
				    (const void *)(uintptr_t)ret);
		else if (r->fact.role == VS_TR_STR && r->ptr == 1 &&
			 !strcmp(r->tag, "char"))
			vs_tquote(buf, size, len, (const char *)(uintptr_t)ret);
		else
			vs__tprintf(buf, size, len, "%p",
				    (const void *)(uintptr_t)ret);
		return;
	default:
		break;
	}
	if (failed && in->conv == VS_TC_ERRNO) {
		int e = (int)ret;

		name = vs__errno_name(e < 0 ? -e : e);
		if (name)
			vs__tprintf(buf, size, len, " = %s%s", e < 0 ? "-" : "",
				    name);
		else
			vs__tprintf(buf, size, len, " = %d", e);
		return;
	}
	if (failed && in->conv == VS_TC_NEGERR) {
		int e = (int)(int64_t)ret;

		name = vs__errno_name(-e);
		if (name)
			vs__tprintf(buf, size, len, " = -%s", name);
		else
			vs__tprintf(buf, size, len, " = %d", e);
		return;
	}
	rtype = vs__tsym_ret(in);
	if (!strcmp(rtype, "int") || strstr(rtype, "ssize_t") ||
	    strstr(rtype, "off_t"))
		vs__tprintf(buf, size, len, " = %lld", (long long)(int64_t)ret);
	else if (strstr(rtype, "__be"))
		vs__tprintf(buf, size, len, " = 0x%llx", (unsigned long long)ret);
	else
		vs__tprintf(buf, size, len, " = %llu", (unsigned long long)ret);
}
