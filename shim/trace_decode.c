// SPDX-License-Identifier: MIT
/*
 * Decoding a call for the trace, the way strace decodes system calls:
 * enum names, flag names, handles as short stable ids ("qp#2"), sizes as
 * numbers, the fields of the attribute structs the caller passes in, and
 * never the contents of user buffers (a buffer is its address).  The
 * parameters' types and names come from the rows' own text, parsed once.
 */
#include <arpa/inet.h>
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
		[IBV_QPT_DRIVER] = "IBV_QPT_DRIVER",
	};
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

int vs__tparams_parse(const char *params, struct vs_tparam *p, int max)
{
	const char *s = params, *end;
	int n = 0;

	if (*s++ != '(')
		return -1;
	while (*s && *s != ')') {
		char text[128], *name, *q;
		size_t l;

		while (*s == ' ')
			s++;
		end = s + strcspn(s, ",)");
		l = (size_t)(end - s);
		if (l >= sizeof(text) || n >= max)
			return -1;
		memcpy(text, s, l);
		text[l] = '\0';
		s = *end == ',' ? end + 1 : end;
		if (!strcmp(text, "void") || !strcmp(text, "..."))
			continue;
		memset(&p[n], 0, sizeof(p[n]));
		q = strchr(text, '[');	/* uint8_t eth_mac[6] */
		if (q) {
			*q = '\0';
			p[n].ptr++;
		}
		l = strlen(text);
		while (l && text[l - 1] == ' ')
			text[--l] = '\0';
		name = text + l;
		while (name > text && (name[-1] == '_' ||
				       (name[-1] >= 'a' && name[-1] <= 'z') ||
				       (name[-1] >= 'A' && name[-1] <= 'Z') ||
				       (name[-1] >= '0' && name[-1] <= '9')))
			name--;
		if (name == text || !*name || strlen(name) >= sizeof(p[n].name))
			return -1;
		memcpy(p[n].name, name, strlen(name) + 1);
		*name = '\0';
		for (q = text; *q; q++)
			p[n].ptr += *q == '*';
		l = strlen(text);
		while (l && (text[l - 1] == ' ' || text[l - 1] == '*'))
			text[--l] = '\0';
		if (strlen(text) >= sizeof(p[n].type))
			return -1;
		memcpy(p[n].type, text, strlen(text) + 1);
		q = text;
		if (!strncmp(q, "const ", 6)) {
			p[n].is_const = 1;
			q += 6;
		}
		if (!strncmp(q, "struct ", 7) || !strncmp(q, "union ", 6)) {
			p[n].is_struct = 1;
			q = strchr(q, ' ') + 1;
		} else if (!strncmp(q, "enum ", 5)) {
			p[n].is_enum = 1;
			q += 5;
		}
		memcpy(p[n].tag, q, strlen(q) + 1);	/* shorter than type */
		p[n].is_signed = !strcmp(q, "int") || !strcmp(q, "ssize_t") ||
				 !strcmp(q, "off_t") || !strcmp(q, "long");
		n++;
	}
	return *s == ')' ? n : -1;
}

static void vs_tsockaddr(char *buf, size_t size, size_t *len,
			 const struct sockaddr *sa)
{
	char a[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		vs__tprintf(buf, size, len, "{AF_INET %s:%u}", a,
			    ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		vs__tprintf(buf, size, len, "{AF_INET6 [%s]:%u}", a,
			    ntohs(in6->sin6_port));
	} else {
		vs__tprintf(buf, size, len, "{family=%u}", sa->sa_family);
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

/* The input structs worth opening: the caller's own, read before the call. */
static int vs_tstruct_in(char *buf, size_t size, size_t *len, enum vs_tsym sym,
			 const struct vs_tparam *p, const void *v,
			 const uint64_t *all, int nargs)
{
	const char *fn = vs__tsym_info[sym].name;

	if (!strcmp(p->tag, "ibv_qp_init_attr")) {
		const struct ibv_qp_init_attr *a = v;

		if (strstr(fn, "query"))
			return 0;	/* an out-parameter */
		vs__tputs(buf, size, len, "{qp_type=");
		vs_tenum(buf, size, len, vs__tname_qp_type(a->qp_type),
			 a->qp_type);
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
	if (!strcmp(p->tag, "ibv_qp_attr") && !strcmp(fn, "ibv_modify_qp") &&
	    nargs == 3) {
		const struct ibv_qp_attr *a = v;
		uint64_t mask = all[2];
		const char *sep = "";

		vs__tputs(buf, size, len, "{");
		if (mask & IBV_QP_STATE) {
			vs__tputs(buf, size, len, "qp_state=");
			vs_tenum(buf, size, len,
				 vs__tname_qp_state(a->qp_state), a->qp_state);
			sep = ", ";
		}
		if (mask & IBV_QP_ACCESS_FLAGS) {
			vs__tprintf(buf, size, len, "%sqp_access_flags=", sep);
			vs__tdecode_access(buf, size, len, a->qp_access_flags);
			sep = ", ";
		}
		if (mask & IBV_QP_PORT) {
			vs__tprintf(buf, size, len, "%sport_num=%u", sep,
				    a->port_num);
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
			vs__tprintf(buf, size, len, "%srq_psn=%u", sep,
				    a->rq_psn);
			sep = ", ";
		}
		if (mask & IBV_QP_SQ_PSN) {
			vs__tprintf(buf, size, len, "%ssq_psn=%u", sep,
				    a->sq_psn);
			sep = ", ";
		}
		if (mask & IBV_QP_AV)
			vs__tprintf(buf, size, len, "%sah_attr={dlid=%u, "
				    "is_global=%u, sgid_index=%u, port_num=%u}",
				    sep, a->ah_attr.dlid, a->ah_attr.is_global,
				    a->ah_attr.grh.sgid_index,
				    a->ah_attr.port_num);
		vs__tputs(buf, size, len, mask & ~(uint64_t)(IBV_QP_STATE |
			  IBV_QP_ACCESS_FLAGS | IBV_QP_PORT | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN |
			  IBV_QP_AV) ? ", ...}" : "}");
		return 1;
	}
	if (!strcmp(p->tag, "sockaddr") && p->ptr == 1) {
		vs_tsockaddr(buf, size, len, v);
		return 1;
	}
	if (!strcmp(p->tag, "rdma_cm_event") && p->ptr == 1) {
		const struct rdma_cm_event *e = v;

		vs__tputs(buf, size, len, "{event=");
		vs_tenum(buf, size, len, vs__tname_cm_event(e->event),
			 e->event);
		vs__tprintf(buf, size, len, ", status=%d, id=", e->status);
		vs__thandle(buf, size, len, "rdma_cm_id", e->id);
		vs__tputs(buf, size, len, "}");
		return 1;
	}
	if (!strcmp(p->tag, "ibv_srq_init_attr")) {
		const struct ibv_srq_init_attr *a = v;

		vs__tprintf(buf, size, len, "{max_wr=%u, max_sge=%u}",
			    a->attr.max_wr, a->attr.max_sge);
		return 1;
	}
	if (!strcmp(p->tag, "rdma_conn_param")) {
		const struct rdma_conn_param *c = v;

		vs__tprintf(buf, size, len, "{private_data_len=%u, "
			    "responder_resources=%u, initiator_depth=%u, "
			    "retry_count=%u, rnr_retry_count=%u, qp_num=%u}",
			    c->private_data_len, c->responder_resources,
			    c->initiator_depth, c->retry_count,
			    c->rnr_retry_count, c->qp_num);
		return 1;
	}
	return 0;
}

/* Struct tags whose pointers are objects of the caller's to open or out-
 * parameters to report, not handles. */
static int vs_is_attr(const char *tag)
{
	return strstr(tag, "attr") || strstr(tag, "param") ||
	       !strcmp(tag, "sockaddr") || !strcmp(tag, "ibv_wc") ||
	       !strcmp(tag, "ibv_grh") || !strcmp(tag, "ibv_gid_entry") ||
	       !strcmp(tag, "ibv_gid") ||
	       !strcmp(tag, "ibv_async_event") || !strcmp(tag, "ibv_ece") ||
	       !strcmp(tag, "rdma_addrinfo") || !strcmp(tag, "msghdr") ||
	       !strcmp(tag, "iovec") || !strcmp(tag, "pollfd") ||
	       !strcmp(tag, "timeval") || !strcmp(tag, "epoll_event") ||
	       !strcmp(tag, "ibv_sa_path_rec") || !strncmp(tag, "ib_", 3) ||
	       !strcmp(tag, "_compat_ibv_port_attr");
}

void vs__tdecode_arg(char *buf, size_t size, size_t *len, enum vs_tsym sym,
		     const struct vs_tparam *p, uint64_t v,
		     const uint64_t *all, int nargs)
{
	const void *ptr = (const void *)(uintptr_t)v;
	const char *fn = vs__tsym_info[sym].name;

	vs__tprintf(buf, size, len, "%s=", p->name);
	if (p->ptr) {
		if (!ptr) {
			vs__tputs(buf, size, len, "NULL");
			return;
		}
		if (p->ptr == 1 && p->is_struct && !vs_is_attr(p->tag) &&
		    strcmp(p->tag, "rdma_cm_event")) {
			vs__thandle(buf, size, len, p->tag, ptr);
			return;
		}
		if (p->ptr == 1 && p->is_struct &&
		    vs_tstruct_in(buf, size, len, sym, p, ptr, all, nargs))
			return;
		/* input strings: names of files, hosts, services, CAs */
		if (p->ptr == 1 && p->is_const && !strcmp(p->tag, "char")) {
			vs_tquote(buf, size, len, ptr);
			return;
		}
		/* a buffer or an out-parameter: its address only */
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

int vs__tdecode_out(char *buf, size_t size, size_t *len, enum vs_tsym sym,
		    const struct vs_tparam *p, uint64_t v)
{
	const void *ptr = (const void *)(uintptr_t)v;

	(void)sym;
	if (!ptr)
		return 0;
	if (p->ptr == 2 && !strcmp(p->tag, "rdma_cm_event")) {
		const struct rdma_cm_event *e =
			*(struct rdma_cm_event *const *)ptr;
		struct vs_tparam ev = { .ptr = 1, .is_struct = 1 };

		snprintf(ev.tag, sizeof(ev.tag), "rdma_cm_event");
		vs__tprintf(buf, size, len, "*%s=", p->name);
		vs__thandle(buf, size, len, "rdma_cm_event", e);
		return vs_tstruct_in(buf, size, len, sym, &ev, e, NULL, 0) || 1;
	}
	if (p->ptr == 2 && p->is_struct && !vs_is_attr(p->tag) &&
	    strcmp(p->tag, "ibv_device")) {
		vs__tprintf(buf, size, len, "*%s=", p->name);
		vs__thandle(buf, size, len, p->tag,
			    *(void *const *)ptr);
		return 1;
	}
	if (p->ptr == 1 && (!strcmp(p->tag, "_compat_ibv_port_attr") ||
			    !strcmp(p->tag, "ibv_port_attr"))) {
		const struct ibv_port_attr *a = ptr;

		vs__tprintf(buf, size, len, "%s={state=", p->name);
		vs_tenum(buf, size, len, vs__tname_port_state(a->state),
			 a->state);
		vs__tputs(buf, size, len, ", active_mtu=");
		vs_tenum(buf, size, len, vs__tname_mtu(a->active_mtu),
			 a->active_mtu);
		vs__tprintf(buf, size, len, ", lid=%u, link_layer=%u}", a->lid,
			    a->link_layer);
		return 1;
	}
	if (p->ptr == 1 && !strcmp(p->tag, "ibv_async_event")) {
		const struct ibv_async_event *a = ptr;

		vs__tprintf(buf, size, len, "%s={event_type=", p->name);
		vs_tenum(buf, size, len, vs__tname_async_event(a->event_type),
			 a->event_type);
		vs__tputs(buf, size, len, "}");
		return 1;
	}
	if (p->ptr == 1 && !p->is_const && !strcmp(p->tag, "int") &&
	    (!strcmp(p->name, "num_devices") || !strcmp(p->name, "qp_attr_mask"))) {
		vs__tprintf(buf, size, len, "*%s=%d", p->name,
			    *(const int *)ptr);
		return 1;
	}
	return 0;
}

int vs__tfailed(enum vs_tsym sym, uint64_t ret, int err, int *e)
{
	*e = 0;
	switch (vs__tsym_info[sym].conv) {
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

void vs__tdecode_ret(char *buf, size_t size, size_t *len, enum vs_tsym sym,
		     uint64_t ret, int err, int failed)
{
	const struct vs_tsym_info *in = &vs__tsym_info[sym];
	const char *name;

	(void)err;
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
		{
			struct vs_tparam r[1];
			char text[80];

			snprintf(text, sizeof(text), "(%s r)", in->ret);
			if (vs__tparams_parse(text, r, 1) == 1 && r->ptr == 1 &&
			    r->is_struct && !vs_is_attr(r->tag)) {
				vs__tputs(buf, size, len, " = ");
				vs__thandle(buf, size, len, r->tag,
					    (const void *)(uintptr_t)ret);
				return;
			}
			if (r->is_const && !strcmp(r->tag, "char")) {
				vs__tputs(buf, size, len, " = ");
				vs_tquote(buf, size, len,
					  (const char *)(uintptr_t)ret);
				return;
			}
		}
		vs__tprintf(buf, size, len, " = %p",
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
	if (!strcmp(in->ret, "int") || strstr(in->ret, "ssize_t") ||
	    strstr(in->ret, "off_t"))
		vs__tprintf(buf, size, len, " = %lld", (long long)(int64_t)ret);
	else if (strstr(in->ret, "__be"))
		vs__tprintf(buf, size, len, " = 0x%llx", (unsigned long long)ret);
	else
		vs__tprintf(buf, size, len, " = %llu", (unsigned long long)ret);
}
