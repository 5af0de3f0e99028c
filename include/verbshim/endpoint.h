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

/**
 * vs_endpoint_to_bytes() - the 40-byte wire form of an endpoint
 * @ep: the endpoint
 * @out: where the result goes
 *
 * Return: 0 or -errno: -EINVAL an endpoint the rules refuse (the message
 * names the field).
 */
int vs_endpoint_to_bytes(const struct vs_endpoint *ep,
			 uint8_t out[VS_ENDPOINT_WIRE_SIZE]);
/**
 * vs_endpoint_from_bytes() - parse the wire form
 * @buf: the output buffer
 * @len: size of @buf
 * @out: where the result goes
 *
 * Parses and checks a wire form: wrong magic, version, length, transport,
 * MTU, flags, reserved bits or out-of-range QPN/PSN give -EINVAL (-EPROTO
 * for a newer version) with the reason.
 *
 * Return: 0 or -errno: -EINVAL bad magic, length or a refused field;
 * -EPROTO a newer version. @out untouched on failure.
 */
int vs_endpoint_from_bytes(const void *buf, size_t len, struct vs_endpoint *out);

/* private */
int vs__qp_endpoint(const struct vs_qp *qp, uint32_t kind, const char *verb,
		    struct vs_endpoint *out);
int vs__qp_handshake(struct vs_qp *qp, uint32_t kind, const char *verb,
		     const struct vs_endpoint *remote);

/**
 * vs_rc_endpoint() - what the peer needs to reach this RC QP
 * @qp: an open QP of this transport
 * @out: where the result goes
 *
 * The local endpoint of a created QP, to send to the peer.
 *
 * Return: 0 or -errno: -EINVAL bad handle or NULL out; -ENETDOWN on an
 * InfiniBand port that no subnet manager has given a LID yet.
 */
VS_INLINE int vs_rc_endpoint(const struct vs_rc_qp *qp, struct vs_endpoint *out)
{
	return vs__qp_endpoint((const struct vs_qp *)qp, VS_KIND_RC_QP, "vs_rc_endpoint", out);
}

/**
 * vs_uc_endpoint() - what the peer needs to reach this UC QP
 * @qp: an open QP of this transport
 * @out: where the result goes
 *
 * Return: as vs_rc_endpoint().
 */
VS_INLINE int vs_uc_endpoint(const struct vs_uc_qp *qp, struct vs_endpoint *out)
{
	return vs__qp_endpoint((const struct vs_qp *)qp, VS_KIND_UC_QP, "vs_uc_endpoint", out);
}

/**
 * vs_ud_endpoint() - what the peer needs to reach this UD QP (with its Q_Key)
 * @qp: an open QP of this transport
 * @out: where the result goes
 *
 * Return: as vs_rc_endpoint().
 */
VS_INLINE int vs_ud_endpoint(const struct vs_ud_qp *qp, struct vs_endpoint *out)
{
	return vs__qp_endpoint((const struct vs_qp *)qp, VS_KIND_UD_QP, "vs_ud_endpoint", out);
}

/**
 * vs_rc_handshake() - bring an RC QP to RTS toward remote
 * @qp: an open QP of this transport
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * INIT -> RTR -> RTS toward remote in one call; LID or GRH addressing by
 * the port's link layer. The remote endpoint must be of the same
 * transport. A QP may be handshaken with its own endpoint (loopback).
 *
 * Return: 0 or -errno: -EINVAL bad handle, refused or mismatched endpoint,
 * QP past INIT; -EBUSY batch open; the explained error of ibv_modify_qp.
 */
VS_INLINE int vs_rc_handshake(struct vs_rc_qp *qp, const struct vs_endpoint *remote)
{
	return vs__qp_handshake((struct vs_qp *)qp, VS_KIND_RC_QP, "vs_rc_handshake", remote);
}

/**
 * vs_uc_handshake() - bring a UC QP to RTS toward remote
 * @qp: an open QP of this transport
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 *
 * Return: as vs_rc_handshake().
 */
VS_INLINE int vs_uc_handshake(struct vs_uc_qp *qp, const struct vs_endpoint *remote)
{
	return vs__qp_handshake((struct vs_qp *)qp, VS_KIND_UC_QP, "vs_uc_handshake", remote);
}

/**
 * vs_ud_handshake() - bring a UD QP to RTS and make a destination toward remote
 * @qp: an open QP of this transport
 * @remote: the remote buffer (vs_mr_remote() on the peer)
 * @dest: the UD destination (vs_ud_handshake())
 *
 * Brings the UD QP to RTS (once) and fills dest for sending to remote (an
 * address handle by link layer, its QPN and qkey). Release with
 * vs_ud_dest_release().
 *
 * Return: 0 or -errno as vs_rc_handshake(); the error of ibv_create_ah
 * with the route.
 */
VS_MUST_CHECK
int vs_ud_handshake(struct vs_ud_qp *qp, const struct vs_endpoint *remote,
		    struct vs_ud_dest *dest);

/**
 * vs_endpoint_to_str() - one line describing an endpoint (for logs)
 * @ep: the endpoint
 * @buf: the output buffer
 * @len: size of @buf
 *
 * One line describing an endpoint (for logs); returns buf.
 *
 * Return: @buf; defined for every bit pattern, "[invalid: why]" at the end
 * when the rules refuse it.
 */
char *vs_endpoint_to_str(const struct vs_endpoint *ep, char *buf, size_t len);

#ifdef VS__TYPE_GUARDS
#define vs_rc_endpoint(qp, out) \
	vs_rc_endpoint(VS__IS_C(struct vs_rc_qp, qp), VS__IS(struct vs_endpoint, out))
#define vs_uc_endpoint(qp, out) \
	vs_uc_endpoint(VS__IS_C(struct vs_uc_qp, qp), VS__IS(struct vs_endpoint, out))
#define vs_ud_endpoint(qp, out) \
	vs_ud_endpoint(VS__IS_C(struct vs_ud_qp, qp), VS__IS(struct vs_endpoint, out))
#define vs_rc_handshake(qp, remote) \
	vs_rc_handshake(VS__IS(struct vs_rc_qp, qp), VS__IS_C(struct vs_endpoint, remote))
#define vs_uc_handshake(qp, remote) \
	vs_uc_handshake(VS__IS(struct vs_uc_qp, qp), VS__IS_C(struct vs_endpoint, remote))
#define vs_ud_handshake(qp, remote, dest)                                    \
	vs_ud_handshake(VS__IS(struct vs_ud_qp, qp),                          \
			VS__IS_C(struct vs_endpoint, remote), VS__IS(struct vs_ud_dest, dest))
#endif

VS_END_DECLS

#endif /* VERBSHIM_ENDPOINT_H */
