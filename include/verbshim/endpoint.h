/* SPDX-License-Identifier: MIT */
/*
 * Bring-up: a QP's endpoint (what the peer needs), its fixed-size wire
 * form, and the one-call handshake to RTS.
 */
#ifndef VERBSHIM_ENDPOINT_H
#define VERBSHIM_ENDPOINT_H

#include "verbshim/qp.h"
#include "verbshim/ah.h"

VS_BEGIN_DECLS

enum vs_endpoint_flags {
	VS_EP_GID_VALID = 1u << 0, /* gid holds the QP's source GID */
	VS_EP_ETHERNET = 1u << 1,  /* RoCE port: the peer must use a GRH */
};
#define VS_EP_FLAGS_ALL (VS_EP_GID_VALID | VS_EP_ETHERNET)

struct vs_endpoint {
	uint64_t comp_mask;      /* must be 0 */
	enum vs_transport transport;
	uint32_t flags;          /* enum vs_endpoint_flags */
	uint32_t qpn;            /* 24 bits */
	uint32_t psn;            /* 24 bits: the first PSN this QP sends */
	uint32_t qkey;           /* UD; 0 otherwise */
	uint16_t lid;
	uint8_t port;
	enum ibv_mtu mtu;
	union ibv_gid gid;
};

/*
 * Wire form, version 1, 40 bytes, all integers big-endian:
 *   0 'V' 'S'   2 version   3 transport   4 flags (16)   6 lid (16)
 *   8 qpn (32)  12 psn (32)  16 qkey (32)  20 mtu  21 port  22 zero (16)
 *   24 gid (16 bytes, network order as in union ibv_gid)
 * Fits rdmacm private data (56 bytes for RC connect).
 */
#define VS_ENDPOINT_WIRE_VERSION 1
#define VS_ENDPOINT_WIRE_SIZE 40

int vs_endpoint_to_bytes(const struct vs_endpoint *ep,
			 uint8_t out[VS_ENDPOINT_WIRE_SIZE]);
/*
 * Parses and checks a wire form: wrong magic, version, length, transport,
 * MTU, flags, reserved bits or out-of-range QPN/PSN give -EINVAL (-EPROTO
 * for a newer version) with the reason.
 */
int vs_endpoint_from_bytes(const void *buf, size_t len, struct vs_endpoint *out);

/* private */
int vs__qp_endpoint(const struct vs_qp *qp, uint32_t kind, const char *verb,
		    struct vs_endpoint *out);
int vs__qp_handshake(struct vs_qp *qp, uint32_t kind, const char *verb,
		     const struct vs_endpoint *remote);

/* The local endpoint of a created QP, to send to the peer. */
VS_INLINE int vs_rc_endpoint(const struct vs_rc_qp *qp, struct vs_endpoint *out)
{
	return vs__qp_endpoint((const struct vs_qp *)qp, VS_KIND_RC_QP, "vs_rc_endpoint", out);
}

VS_INLINE int vs_uc_endpoint(const struct vs_uc_qp *qp, struct vs_endpoint *out)
{
	return vs__qp_endpoint((const struct vs_qp *)qp, VS_KIND_UC_QP, "vs_uc_endpoint", out);
}

VS_INLINE int vs_ud_endpoint(const struct vs_ud_qp *qp, struct vs_endpoint *out)
{
	return vs__qp_endpoint((const struct vs_qp *)qp, VS_KIND_UD_QP, "vs_ud_endpoint", out);
}

/*
 * INIT -> RTR -> RTS toward remote in one call; LID or GRH addressing by
 * the port's link layer.  The remote endpoint must be of the same
 * transport.  A QP may be handshaken with its own endpoint (loopback).
 */
VS_INLINE int vs_rc_handshake(struct vs_rc_qp *qp, const struct vs_endpoint *remote)
{
	return vs__qp_handshake((struct vs_qp *)qp, VS_KIND_RC_QP, "vs_rc_handshake", remote);
}

VS_INLINE int vs_uc_handshake(struct vs_uc_qp *qp, const struct vs_endpoint *remote)
{
	return vs__qp_handshake((struct vs_qp *)qp, VS_KIND_UC_QP, "vs_uc_handshake", remote);
}

/*
 * Brings the UD QP to RTS (once) and fills dest for sending to remote
 * (an address handle by link layer, its QPN and qkey).  Release with
 * vs_ud_dest_release().
 */
VS_MUST_CHECK
int vs_ud_handshake(struct vs_ud_qp *qp, const struct vs_endpoint *remote,
		    struct vs_ud_dest *dest);

/* One line describing an endpoint (for logs); returns buf. */
char *vs_endpoint_to_str(const struct vs_endpoint *ep, char *buf, size_t len);

#ifdef VS__TYPE_GUARDS
#define vs_rc_endpoint(qp, ...) vs_rc_endpoint(VS__IS_C(struct vs_rc_qp, qp), __VA_ARGS__)
#define vs_uc_endpoint(qp, ...) vs_uc_endpoint(VS__IS_C(struct vs_uc_qp, qp), __VA_ARGS__)
#define vs_ud_endpoint(qp, ...) vs_ud_endpoint(VS__IS_C(struct vs_ud_qp, qp), __VA_ARGS__)
#define vs_rc_handshake(qp, ...) vs_rc_handshake(VS__IS(struct vs_rc_qp, qp), __VA_ARGS__)
#define vs_uc_handshake(qp, ...) vs_uc_handshake(VS__IS(struct vs_uc_qp, qp), __VA_ARGS__)
#define vs_ud_handshake(qp, ...) vs_ud_handshake(VS__IS(struct vs_ud_qp, qp), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_ENDPOINT_H */
