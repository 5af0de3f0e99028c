/* SPDX-License-Identifier: MIT */
/*
 * Endpoints and their versioned, fixed-size, big-endian wire form.
 */
#include <arpa/inet.h>

#include "vs_internal.h"

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

/* Shared by both directions: what makes an endpoint well-formed. */
static int check_fields(const struct vs_endpoint *ep, const char *verb)
{
	if (ep->transport < VS_TRANSPORT_RC || ep->transport > VS_TRANSPORT_UD)
		return vs__set_error(verb, EINVAL,
				    "transport %d is not RC (1), UC (2) or UD (3)",
				    (int)ep->transport);
	if (ep->flags & ~(uint32_t)VS_EP_FLAGS_ALL)
		return vs__set_error(verb, EINVAL,
				    "flags 0x%x has bits this version does not "
				    "define (known: 0x%x)", ep->flags,
				    (unsigned int)VS_EP_FLAGS_ALL);
	if ((ep->flags & VS_EP_ETHERNET) && !(ep->flags & VS_EP_GID_VALID))
		return vs__set_error(verb, EINVAL,
				    "a RoCE endpoint must carry a GID (flag "
				    "ETHERNET without GID_VALID)");
	if (ep->qpn > 0xffffff || !ep->qpn)
		return vs__set_error(verb, EINVAL,
				    "qpn 0x%x is 0 or does not fit 24 bits", ep->qpn);
	if (ep->psn > 0xffffff)
		return vs__set_error(verb, EINVAL,
				    "psn 0x%x does not fit 24 bits", ep->psn);
	if (ep->mtu < IBV_MTU_256 || ep->mtu > IBV_MTU_4096)
		return vs__set_error(verb, EINVAL,
				    "mtu %d is not an enum ibv_mtu (1..5)",
				    (int)ep->mtu);
	if (!ep->port)
		return vs__set_error(verb, EINVAL, "port 0 does not exist");
	return 0;
}

int vs_endpoint_to_bytes(const struct vs_endpoint *ep,
			 uint8_t out[VS_ENDPOINT_WIRE_SIZE])
{
	int ret;

	if (!ep || !out)
		return vs__set_error("vs_endpoint_to_bytes", EINVAL, "%s is NULL",
				    ep ? "out" : "ep");
	if (ep->comp_mask)
		return vs__set_error("vs_endpoint_to_bytes", EINVAL,
				    "comp_mask 0x%x is not 0", ep->comp_mask);
	ret = check_fields(ep, "vs_endpoint_to_bytes");
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
	ret = check_fields(&ep, verb);
	if (ret)
		return ret;
	*out = ep;
	return 0;
}

int vs__qp_endpoint(const struct vs_qp *qp, uint32_t kind, const char *verb,
		    struct vs_endpoint *out)
{
	static const union ibv_gid zero;
	int ret = vs__check_handle(qp, kind, verb, "qp");

	if (ret)
		return ret;
	if (!out)
		return vs__set_error(verb, EINVAL, "out is NULL");
	memset(out, 0, sizeof(*out));
	out->transport = qp->transport;
	out->qpn = qp->qp->qp_num;
	out->psn = qp->psn;
	out->qkey = qp->transport == VS_TRANSPORT_UD ? qp->qkey : 0;
	out->lid = qp->lid;
	out->port = qp->port;
	out->mtu = qp->mtu;
	out->gid = qp->gid;
	if (memcmp(&qp->gid, &zero, sizeof(zero)))
		out->flags |= VS_EP_GID_VALID;
	if (qp->link_layer == IBV_LINK_LAYER_ETHERNET)
		out->flags |= VS_EP_ETHERNET;
	return 0;
}

char *vs_endpoint_to_str(const struct vs_endpoint *ep, char *buf, size_t len)
{
	char gid[64];

	if (!buf || !len)
		return buf;
	if (!ep) {
		snprintf(buf, len, "(null endpoint)");
		return buf;
	}
	vs_gid_to_str(&ep->gid, gid, sizeof(gid));
	snprintf(buf, len, "%s qpn 0x%06x psn 0x%06x lid %u port %u mtu %d gid %s%s%s",
		 vs_transport_name(ep->transport), ep->qpn, ep->psn, ep->lid,
		 ep->port, 128 << ep->mtu, gid,
		 ep->flags & VS_EP_ETHERNET ? " (RoCE)" : "",
		 ep->transport == VS_TRANSPORT_UD ? " +qkey" : "");
	return buf;
}
