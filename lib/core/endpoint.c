/* SPDX-License-Identifier: MIT */
/*
 * Endpoints and their versioned, fixed-size, big-endian wire form.
 */
#include <arpa/inet.h>

#include "core.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static bool gid_is_zero(const union ibv_gid *g)
{
	static const union ibv_gid zero;

	return !memcmp(g, &zero, sizeof(zero));
}

/*
 * The one set of rules of a well-formed endpoint, shared by the wire
 * parser, vs_endpoint_to_bytes, the handshakes and vs_endpoint_to_str.
 * NULL when ep is well-formed; else the problem, naming the field, in why.
 */
static const char *endpoint_problem(const struct vs_endpoint *ep, char *why,
				    size_t len)
{
	const struct vs__transport *tr = vs__transport(ep->transport);
	bool eth = ep->flags & VS_EP_ETHERNET;
	bool by_gid = tr && tr->by_gid; /* SRD: by GID on any link layer */
	bool gid_valid = ep->flags & VS_EP_GID_VALID;
	bool gid_set = !gid_is_zero(&ep->gid);
	char g[64];

	if (ep->comp_mask)
		snprintf(why, len, "comp_mask 0x%llx is not 0",
			 (unsigned long long)ep->comp_mask);
	else if (!tr)
		snprintf(why, len, "transport %d is not RC (1), UC (2), UD (3) "
			 "or SRD (4)", (int)ep->transport);
	else if (ep->flags & ~(uint32_t)VS_EP_FLAGS_ALL)
		snprintf(why, len, "flags 0x%x has bits this version does not "
			 "define (known: 0x%x)", ep->flags,
			 (unsigned int)VS_EP_FLAGS_ALL);
	else if (!ep->qpn || ep->qpn > 0xffffff)
		snprintf(why, len, "qpn 0x%x is 0 or does not fit 24 bits", ep->qpn);
	else if (ep->psn > 0xffffff)
		snprintf(why, len, "psn 0x%x does not fit 24 bits", ep->psn);
	else if (ep->mtu < IBV_MTU_256 || ep->mtu > IBV_MTU_4096)
		snprintf(why, len, "mtu %d is not an enum ibv_mtu (1..5)",
			 (int)ep->mtu);
	else if (!ep->port || ep->port > 2)
		snprintf(why, len, "port %u is not 1 or 2", ep->port);
	else if (!tr->datagram && ep->qkey)
		snprintf(why, len, "qkey 0x%x on %s %s endpoint: only UD and SRD "
			 "endpoints carry a Q_Key (it must be 0)", ep->qkey,
			 vs__article(vs_transport_name(ep->transport)),
			 vs_transport_name(ep->transport));
	else if (by_gid && !eth && !gid_valid)
		snprintf(why, len, "flags: %s %s endpoint is addressed by GID and "
			 "must carry one (GID_VALID)", vs__article(tr->name),
			 tr->name);
	else if (by_gid && !eth && ep->lid)
		snprintf(why, len, "lid 0x%x on %s %s endpoint: it is addressed "
			 "by GID (lid must be 0)", ep->lid,
			 vs__article(tr->name), tr->name);
	else if (eth && !gid_valid)
		snprintf(why, len, "flags: a RoCE endpoint (ETHERNET) must carry "
			 "a GID (GID_VALID)");
	else if (eth && ep->lid)
		snprintf(why, len, "lid 0x%x on a RoCE endpoint: RoCE has no "
			 "LIDs (it must be 0)", ep->lid);
	else if (!eth && !by_gid && gid_valid)
		snprintf(why, len, "flags: an InfiniBand endpoint (no ETHERNET) "
			 "says GID_VALID, but it is addressed by LID and carries "
			 "no GID");
	else if (!eth && !by_gid && !ep->lid)
		snprintf(why, len, "lid 0 on an InfiniBand endpoint: it is "
			 "addressed by LID");
	else if (gid_valid && !gid_set)
		snprintf(why, len, "gid is all zero although flags say GID_VALID");
	else if (!gid_valid && gid_set)
		snprintf(why, len, "gid %s is set without the flag GID_VALID",
			 vs_gid_to_str(&ep->gid, g, sizeof(g)));
	else
		return NULL;
	return why;
}

int vs__endpoint_check(const struct vs_endpoint *ep, const char *verb,
		       const char *what)
{
	char why[160];

	if (!ep)
		return vs__set_error(verb, EINVAL, "%s is NULL", what);
	if (endpoint_problem(ep, why, sizeof(why)))
		return vs__set_error(verb, EINVAL, "%s endpoint: %s", what, why);
	return 0;
}

int vs_endpoint_to_bytes(const struct vs_endpoint *ep,
			 uint8_t out[VS_ENDPOINT_WIRE_SIZE])
{
	int ret;

	if (!out)
		return vs__out_null("vs_endpoint_to_bytes");
	ret = vs__endpoint_check(ep, "vs_endpoint_to_bytes", "ep");
	if (ret)
		return ret;
	memset(out, 0, VS_ENDPOINT_WIRE_SIZE);
	out[0] = 'V';
	out[1] = 'S';
	out[2] = VS_ENDPOINT_WIRE_VERSION;
	out[3] = (uint8_t)ep->transport;
	put16(out + 4, (uint16_t)ep->flags);
	put16(out + 6, ep->lid);
	put32(out + 8, ep->qpn);
	put32(out + 12, ep->psn);
	put32(out + 16, ep->qkey);
	out[20] = (uint8_t)ep->mtu;
	out[21] = ep->port;
	memcpy(out + 24, ep->gid.raw, 16);
	return 0;
}

int vs_endpoint_from_bytes(const void *buf, size_t len, struct vs_endpoint *out)
{
	const char *verb = "vs_endpoint_from_bytes";
	const uint8_t *p = buf;
	struct vs_endpoint ep;
	int ret;

	if (!buf || !out)
		return vs__set_error(verb, EINVAL, "%s is NULL", buf ? "out" : "buf");
	if (len < 3 || p[0] != 'V' || p[1] != 'S')
		return vs__set_error(verb, EINVAL,
				     "not a verbshim endpoint (no \"VS\" magic in "
				     "the first bytes of %zu)", len);
	if (p[2] > VS_ENDPOINT_WIRE_VERSION)
		return vs__set_error(verb, EPROTO,
				     "endpoint version %u is newer than this "
				     "library understands (%u)", p[2],
				     VS_ENDPOINT_WIRE_VERSION);
	if (p[2] != VS_ENDPOINT_WIRE_VERSION)
		return vs__set_error(verb, EINVAL,
				     "endpoint version %u does not exist", p[2]);
	if (len != VS_ENDPOINT_WIRE_SIZE)
		return vs__set_error(verb, EINVAL,
				     "endpoint is %zu bytes, version %u is exactly %d",
				     len, p[2], VS_ENDPOINT_WIRE_SIZE);
	if (get16(p + 22))
		return vs__set_error(verb, EINVAL,
				     "reserved bytes 22-23 are 0x%04x, must be 0",
				     get16(p + 22));
	memset(&ep, 0, sizeof(ep));
	ep.transport = (enum vs_transport)p[3];
	ep.flags = get16(p + 4);
	ep.lid = get16(p + 6);
	ep.qpn = get32(p + 8);
	ep.psn = get32(p + 12);
	ep.qkey = get32(p + 16);
	ep.mtu = (enum ibv_mtu)p[20];
	ep.port = p[21];
	memcpy(ep.gid.raw, p + 24, 16);
	ret = vs__endpoint_check(&ep, verb, "the");
	if (ret)
		return ret;
	*out = ep;
	return 0;
}

static const char *port_state_name(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	case IBV_PORT_ACTIVE: return "ACTIVE";
	default: return "not up";
	}
}

/*
 * The LID an endpoint of qp carries.  An InfiniBand port has none (0)
 * until a subnet manager configures it: a QP made before that reads the
 * port again, and an endpoint with LID 0, which no peer could reach, is
 * refused naming the cause.
 */
static int ib_lid(const struct vs_qp *qp, const char *verb, uint16_t *lid)
{
	struct vs_port_info pi;
	int ret;

	*lid = qp->lid;
	if (qp->lid || vs__transport(qp->transport)->by_gid ||
	    !vs__link(qp->link_row)->by_lid)
		return 0;
	ret = vs__port_info(qp->pd->ctx, qp->port, &pi, verb);
	if (ret)
		return ret;
	if (!pi.lid)
		return vs__set_error(verb, ENETDOWN,
				     "%s port %u (InfiniBand) has no LID yet (port "
				     "%s): no subnet manager has configured it; "
				     "run one on the fabric (opensm) and ask again",
				     qp->pd->ctx->name, qp->port,
				     port_state_name(pi.state));
	*lid = pi.lid;
	return 0;
}

int vs__qp_endpoint(const struct vs_qp *qp, uint32_t kind, const char *verb,
		    struct vs_endpoint *out)
{
	uint16_t lid;
	int ret = vs__check_handle(qp, kind, verb, "qp");

	if (ret)
		return ret;
	if (!out)
		return vs__out_null(verb);
	/* a CM id's QP on iWARP: nothing a peer could connect to by bytes */
	ret = vs__iwarp_cm_only(qp->pd->ctx, verb);
	if (ret)
		return ret;
	ret = ib_lid(qp, verb, &lid);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->transport = qp->transport;
	out->qpn = qp->qp->qp_num;
	out->psn = qp->psn;
	out->qkey = vs__transport(qp->transport)->datagram ? qp->qkey : 0;
	out->lid = lid;
	out->port = qp->port;
	out->mtu = qp->mtu;
	/* Ethernet and SRD: addressed by GID, no LID; IB: by LID, no GID */
	if (vs__link(qp->link_row)->ethernet ||
	    vs__transport(qp->transport)->by_gid) {
		out->lid = 0;
		out->gid = qp->gid;
		if (vs__link(qp->link_row)->ethernet)
			out->flags |= VS_EP_ETHERNET;
		if (!gid_is_zero(&qp->gid))
			out->flags |= VS_EP_GID_VALID;
	}
	return 0;
}

char *vs_endpoint_to_str(const struct vs_endpoint *ep, char *buf, size_t len)
{
	static const unsigned int mtu_bytes[] = { 0, 256, 512, 1024, 2048, 4096 };
	char gid[64], why[160];
	const char *bad;
	unsigned int mtu;

	if (!buf || !len)
		return buf;
	if (!ep) {
		snprintf(buf, len, "(null endpoint)");
		return buf;
	}
	/* defined for every bit pattern: no field indexes or shifts unchecked */
	mtu = (unsigned int)ep->mtu < 6 ? mtu_bytes[ep->mtu] : 0;
	vs_gid_to_str(&ep->gid, gid, sizeof(gid));
	bad = endpoint_problem(ep, why, sizeof(why));
	snprintf(buf, len, "%s qpn 0x%06x psn 0x%06x lid %u port %u mtu %u gid %s%s%s%s%s%s",
		 vs_transport_name(ep->transport), ep->qpn, ep->psn, ep->lid,
		 ep->port, mtu, gid,
		 ep->flags & VS_EP_ETHERNET ? " (RoCE)" : "",
		 vs__transport(ep->transport) &&
		 vs__transport(ep->transport)->datagram ? " +qkey" : "",
		 bad ? " [invalid: " : "", bad ? bad : "", bad ? "]" : "");
	return buf;
}
