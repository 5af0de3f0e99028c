/* SPDX-License-Identifier: MIT */
/*
 * EFA SRD (scalable reliable datagram): AWS EFA's transport.  Reliable but
 * unordered datagrams, each addressed by an address handle, QPN and Q_Key
 * like UD; RDMA read and write where the device reports them.  Created by
 * efadv_create_qp_ex (libefa, loaded at the first SRD call); on a device
 * that is not EFA every call here fails with "device NAME is not an EFA
 * device: SRD needs the efa provider".
 *
 *	struct vs_srd_qp *qp;
 *	struct vs_srd_dest dest;
 *	vs_srd_qp_create(pd, &(struct vs_srd_config){ .send_cq = cq }, &qp);
 *	vs_srd_endpoint(qp, &mine);           // to the peer, peer's to us
 *	vs_srd_handshake(qp, &theirs, &dest); // INIT -> RTR -> RTS, an AH
 *	vs_srd_batch_start(qp, &b);
 *	vs_srd_send(&b, 1, VS_WR_SIGNALED, &dest, &sge, 1);
 *	vs_srd_batch_submit(&b);
 *
 * No atomics, no UC/RC-only knobs: those have no SRD function, so misuse
 * does not compile.  Receives carry no GRH (unlike UD).  The data path was
 * never run on a real EFA device by this project's tests (none is
 * reachable from them); the control path is tested against a fake libefa.
 */
#ifndef VERBSHIM_SRD_H
#define VERBSHIM_SRD_H

#include "verbshim/batch.h"
#include "verbshim/endpoint.h"
#include "verbshim/recv.h"

VS_BEGIN_DECLS

struct vs_srd_config {
	uint64_t comp_mask;         /* VS_QP_CFG_GID_INDEX, _PSN, _RETRY */
	struct vs_cq *send_cq;      /* required */
	struct vs_cq *recv_cq;      /* NULL = send_cq */
	struct vs_srq *srq;         /* optional */
	struct vs_qp_caps caps;     /* 0 fields: the default, capped by the
				       EFA device's limits */
	uint8_t port;               /* 0 = 1 */
	uint32_t gid_index;         /* with VS_QP_CFG_GID_INDEX */
	uint32_t psn;               /* with VS_QP_CFG_PSN */
	uint32_t max_batch;         /* WRs per doorbell batch; 0 = max_send_wr */
	bool sq_sig_all;
	/* SRD only */
	uint32_t qkey;              /* [VS_DEFAULT_QKEY] */
	uint8_t rnr_retry;          /* [7 when the device can retry RNR, else
				       not set]; literal with VS_QP_CFG_RETRY */
};

/* Where an SRD send, write or read goes: from vs_srd_handshake(). */
struct vs_srd_dest {
	struct vs_ud_dest base;     /* the AH, remote QPN and Q_Key */
};

/* What the EFA device can do (efadv_query_device). */
enum vs_efa_cap_flags {
	VS_EFA_CAP_RDMA_READ = 1u << 0,
	VS_EFA_CAP_RNR_RETRY = 1u << 1,
	VS_EFA_CAP_CQ_WITH_SGID = 1u << 2,
	VS_EFA_CAP_RDMA_WRITE = 1u << 3,
	VS_EFA_CAP_UNSOLICITED_WRITE_RECV = 1u << 4,
};

/* Which fields of struct vs_efa_caps hold a value (its comp_mask). */
enum vs_efa_caps_mask {
	VS_EFA_CAPS_QUEUES = 1u << 0,   /* max_sq_wr ... inline_buf_size */
	VS_EFA_CAPS_FLAGS = 1u << 1,    /* flags, device_caps */
	VS_EFA_CAPS_RDMA_SIZE = 1u << 2, /* max_rdma_size */
};

struct vs_efa_caps {
	uint64_t comp_mask;         /* in: 0; out: enum vs_efa_caps_mask */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint32_t max_sq_sge;
	uint32_t max_rq_sge;
	uint32_t inline_buf_size;   /* bytes a WR may carry inline */
	uint32_t max_rdma_size;     /* bytes per RDMA read / write */
	uint32_t flags;             /* enum vs_efa_cap_flags */
	uint32_t device_caps;       /* efadv's raw EFADV_DEVICE_ATTR_CAPS_* */
};

/* An address handle on EFA (efadv_query_ah). */
struct vs_efa_ah_info {
	uint64_t comp_mask;         /* in: 0; out: 0 (no optional field yet) */
	uint16_t ahn;               /* the device's address handle number */
};

/* One work queue of an SRD QP (efadv_query_qp_wqs, rdma-core >= 59). */
struct vs_efa_wq {
	uint8_t *buffer;
	uint32_t entry_size;
	uint32_t num_entries;
	uint32_t *doorbell;
	uint32_t max_batch;
};

struct vs_efa_wqs {
	uint64_t comp_mask;         /* in: 0; out: 0 (no optional field yet) */
	struct vs_efa_wq sq, rq;
};

/**
 * vs_efa_query_caps() - what an EFA device can do
 * @ctx: an open device context
 * @out: where the caps go (comp_mask 0 on input)
 *
 * efadv_query_device, as a typed struct: queue limits, inline size, RDMA
 * size and the capability flags.  Needs no QP.
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL @out or nonzero comp_mask;
 * -EOPNOTSUPP the device is not an EFA device, or libefa did not load (the
 * message names the device and the loader's reason); efadv's error.
 */
int vs_efa_query_caps(struct vs_context *ctx, struct vs_efa_caps *out);

/**
 * vs_srd_qp_create() - create an SRD QP on an EFA device, in INIT
 * @pd: an open PD
 * @cfg: the configuration (send_cq at least)
 * @out: where the result goes
 *
 * efadv_create_qp_ex with driver_qp_type EFADV_QP_DRIVER_TYPE_SRD and the
 * send operations the device reports (send and send with immediate
 * always; RDMA read and write when its caps say so).  Zero queue sizes
 * take the defaults of struct vs_qp_caps, capped by the device's.
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL cfg or send_cq, sizes over
 * the device's; -EOPNOTSUPP the device is not an EFA device or libefa did
 * not load; the error of efadv_create_qp_ex with the sizes.  *out is NULL
 * on any failure.
 */
VS_MUST_CHECK
VS_INLINE int vs_srd_qp_create(struct vs_pd *pd, const struct vs_srd_config *cfg,
			       struct vs_srd_qp **out)
{
	struct vs_qp *qp = NULL;
	int ret = vs__qp_create(pd, VS_TRANSPORT_SRD, cfg, out ? &qp : NULL);

	if (out)
		*out = (struct vs_srd_qp *)qp;
	return ret;
}

/**
 * vs_srd_qp_close() - the user's close of an SRD QP
 * @qp: an open SRD QP
 *
 * Return: as vs_rc_qp_close().
 */
VS_INLINE int vs_srd_qp_close(struct vs_srd_qp *qp)
{
	return vs__qp_close((struct vs_qp *)qp, VS_KIND_SRD_QP, "vs_srd_qp_close");
}

/**
 * vs_srd_qp_modify() - ibv_modify_qp on an SRD QP, explained when refused
 * @qp: an open SRD QP
 * @attr: the ibv_qp_attr to apply
 * @mask: IBV_QP_* bits of @attr to apply (UD's rules)
 *
 * Return: as vs_rc_qp_modify().
 */
VS_INLINE int vs_srd_qp_modify(struct vs_srd_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	return vs__qp_modify((struct vs_qp *)qp, VS_KIND_SRD_QP, "vs_srd_qp_modify",
			     attr, mask);
}

/* vs_srd_qp_raw, _num, _is_extended, _caps: as the RC accessors (qp.h) */
VS__QP_ACCESSORS(srd, VS_KIND_SRD_QP)

/**
 * vs_srd_endpoint() - what the peer needs to reach this SRD QP
 * @qp: an open SRD QP
 * @out: where the result goes
 *
 * GID, QPN and Q_Key (an SRD endpoint is addressed by GID, lid 0).
 *
 * Return: as vs_rc_endpoint().
 */
VS_INLINE int vs_srd_endpoint(const struct vs_srd_qp *qp, struct vs_endpoint *out)
{
	return vs__qp_endpoint((const struct vs_qp *)qp, VS_KIND_SRD_QP,
			       "vs_srd_endpoint", out);
}

/**
 * vs_srd_handshake() - bring an SRD QP to RTS and make a destination
 * @qp: an open SRD QP
 * @remote: the peer's SRD endpoint
 * @dest: the destination filled toward @remote
 *
 * INIT -> RTR -> RTS once (the Q_Key at INIT, the RNR retry at RTS when
 * the device can retry), then an address handle toward the remote GID.
 * Release @dest with vs_srd_dest_release().
 *
 * Return: as vs_ud_handshake().
 */
VS_MUST_CHECK
int vs_srd_handshake(struct vs_srd_qp *qp, const struct vs_endpoint *remote,
		     struct vs_srd_dest *dest);

/**
 * vs_srd_dest_release() - close a destination's address handle and clear it
 * @dest: what vs_srd_handshake() filled; a cleared one is accepted
 *
 * Return: as vs_ud_dest_release().
 */
int vs_srd_dest_release(struct vs_srd_dest *dest);

/**
 * vs_srd_dest_query() - the EFA address handle number of a destination
 * @dest: a filled destination
 * @out: where the result goes (comp_mask 0 on input)
 *
 * efadv_query_ah on the destination's address handle.
 *
 * Return: 0 or -errno: -EINVAL NULL, released or closed destination,
 * nonzero comp_mask; efadv's error (-EOPNOTSUPP not EFA).
 */
int vs_srd_dest_query(const struct vs_srd_dest *dest, struct vs_efa_ah_info *out);

/**
 * vs_srd_qp_query_wqs() - the work queues of an SRD QP (direct access)
 * @qp: an open SRD QP
 * @out: where the result goes (comp_mask 0 on input)
 *
 * efadv_query_qp_wqs: each queue's buffer, entry size and count, doorbell
 * and max batch, for code that writes WQEs itself.
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL @out or nonzero comp_mask;
 * -EOPNOTSUPP this verbshim was built against rdma-core headers without
 * efadv_query_qp_wqs, or the run-time libefa lacks it (EFA_1.4); efadv's
 * error.
 */
int vs_srd_qp_query_wqs(const struct vs_srd_qp *qp, struct vs_efa_wqs *out);

/**
 * vs_srd_recv_start() - open a receive batch on an SRD QP without an SRQ
 * @qp: an open SRD QP
 * @rb: the receive batch
 *
 * Return: as vs_rc_recv_start().
 */
VS_INLINE int vs_srd_recv_start(struct vs_srd_qp *qp, struct vs_recv_batch *rb)
{
	return vs__recv_start(rb, qp, VS_KIND_SRD_QP, "vs_srd_recv_start");
}

#ifdef VS__TYPE_GUARDS
#define vs_efa_query_caps(ctx, out) vs_efa_query_caps(VS__IS(struct vs_context, ctx), VS__IS(struct vs_efa_caps, out))
#define vs_srd_qp_create(pd, ...)                                             \
	vs_srd_qp_create(VS__OUT(struct vs_srd_qp **, VS__CFG(struct vs_srd_config, \
			 VS__IS(struct vs_pd, pd), __VA_ARGS__), __VA_ARGS__),    \
			 __VA_ARGS__)
#define vs_srd_qp_close(qp) vs_srd_qp_close(VS__IS(struct vs_srd_qp, qp))
#define vs_srd_qp_modify(qp, ...) vs_srd_qp_modify(VS__IS(struct vs_srd_qp, qp), __VA_ARGS__)
#define vs_srd_qp_raw(qp) vs_srd_qp_raw(VS__IS_C(struct vs_srd_qp, qp))
#define vs_srd_qp_num(qp) vs_srd_qp_num(VS__IS_C(struct vs_srd_qp, qp))
#define vs_srd_qp_is_extended(qp) vs_srd_qp_is_extended(VS__IS_C(struct vs_srd_qp, qp))
#define vs_srd_qp_caps(qp) vs_srd_qp_caps(VS__IS_C(struct vs_srd_qp, qp))
#define vs_srd_endpoint(qp, out) \
	vs_srd_endpoint(VS__IS_C(struct vs_srd_qp, qp), VS__IS(struct vs_endpoint, out))
#define vs_srd_handshake(qp, remote, dest)                                   \
	vs_srd_handshake(VS__IS(struct vs_srd_qp, qp),                        \
			 VS__IS_C(struct vs_endpoint, remote), VS__IS(struct vs_srd_dest, dest))
#define vs_srd_dest_release(dest) vs_srd_dest_release(VS__IS(struct vs_srd_dest, dest))
#define vs_srd_dest_query(dest, out) vs_srd_dest_query(VS__IS_C(struct vs_srd_dest, dest), VS__IS(struct vs_efa_ah_info, out))
#define vs_srd_qp_query_wqs(qp, out) vs_srd_qp_query_wqs(VS__IS_C(struct vs_srd_qp, qp), VS__IS(struct vs_efa_wqs, out))
#define vs_srd_recv_start(qp, rb) vs_srd_recv_start(VS__IS(struct vs_srd_qp, qp), VS__IS(struct vs_recv_batch, rb))
#endif

VS_END_DECLS

#endif /* VERBSHIM_SRD_H */
