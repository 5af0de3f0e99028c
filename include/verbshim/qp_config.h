/* SPDX-License-Identifier: MIT */
/*
 * What a typed QP is created with: its queue sizes and the config of each
 * transport (only the knobs that exist on it: retries and rd_atomic on RC,
 * the Q_Key on UD).  Zero fields mean the default in brackets.
 */
#ifndef VERBSHIM_QP_CONFIG_H
#define VERBSHIM_QP_CONFIG_H

#include "verbshim/cq.h"
#include "verbshim/srq.h"

VS_BEGIN_DECLS

/* Queue sizes; 0 in any field means the default in brackets. */
struct vs_qp_caps {
	uint32_t max_send_wr;     /* [128] */
	uint32_t max_recv_wr;     /* [128] */
	uint32_t max_send_sge;    /* [4] */
	uint32_t max_recv_sge;    /* [4] */
	uint32_t max_inline_data; /* [64]; the QP may get more */
};

/* Which optional config fields hold a value (comp_mask bits). */
enum vs_qp_config_mask {
	VS_QP_CFG_GID_INDEX = 1u << 0, /* gid_index as given, no auto-pick */
	VS_QP_CFG_PSN = 1u << 1,       /* psn as given, not random */
	VS_QP_CFG_RETRY = 1u << 2,     /* RC: timeout/retry_cnt/rnr_retry literal, 0 included */
};

struct vs_rc_config {
	uint64_t comp_mask;         /* enum vs_qp_config_mask */
	struct vs_cq *send_cq;      /* required */
	struct vs_cq *recv_cq;      /* NULL = send_cq */
	struct vs_srq *srq;         /* optional */
	struct vs_qp_caps caps;
	uint8_t port;               /* 0 = 1 */
	uint32_t gid_index;         /* with VS_QP_CFG_GID_INDEX */
	uint32_t psn;               /* with VS_QP_CFG_PSN */
	enum ibv_mtu mtu;           /* 0 = the port's active MTU */
	unsigned int access;        /* remote access; 0 = VS_ACCESS_DEFAULT */
	uint32_t max_batch;         /* WRs per doorbell batch; 0 = max_send_wr */
	bool legacy;                /* force ibv_post_send instead of ibv_wr_* */
	bool sq_sig_all;
	/* RC only */
	uint8_t timeout;            /* [14] 4.096us * 2^timeout */
	uint8_t retry_cnt;          /* [7] */
	uint8_t rnr_retry;          /* [7] = infinite */
	uint8_t min_rnr_timer;      /* [12] */
	uint8_t max_rd_atomic;      /* [min(16, device max)] */
	uint8_t max_dest_rd_atomic; /* [min(16, device max)] */
};

struct vs_uc_config {
	uint64_t comp_mask;
	struct vs_cq *send_cq;
	struct vs_cq *recv_cq;
	struct vs_srq *srq;
	struct vs_qp_caps caps;
	uint8_t port;
	uint32_t gid_index;
	uint32_t psn;
	enum ibv_mtu mtu;
	unsigned int access;        /* 0 = local write | remote write */
	uint32_t max_batch;
	bool legacy;
	bool sq_sig_all;
};

struct vs_ud_config {
	uint64_t comp_mask;
	struct vs_cq *send_cq;
	struct vs_cq *recv_cq;
	struct vs_srq *srq;
	struct vs_qp_caps caps;
	uint8_t port;
	uint32_t gid_index;
	uint32_t psn;
	uint32_t max_batch;
	bool legacy;
	bool sq_sig_all;
	/* UD only */
	uint32_t qkey;              /* [VS_DEFAULT_QKEY] */
};

#define VS_DEFAULT_QKEY 0x11111111u
/* A UD receive buffer starts with this many bytes of GRH. */
#define VS_UD_GRH_BYTES 40

/**
 * vs_set_force_legacy() - force the legacy verbs for new CQs and QPs
 * @on: true to force the legacy verbs
 *
 * Process-wide knob: when on, every CQ and QP created afterwards is legacy
 * (as if .legacy were set). Also set at start-up by
 * VERBSHIM_FORCE_LEGACY=1 in the environment.
 *
 * Return: nothing.
 */
void vs_set_force_legacy(bool on);
/**
 * vs_force_legacy() - whether the legacy verbs are forced
 *
 * Return: the knob (vs_set_force_legacy() or VERBSHIM_FORCE_LEGACY=1).
 */
bool vs_force_legacy(void);

VS_END_DECLS

#endif /* VERBSHIM_QP_CONFIG_H */
