/* SPDX-License-Identifier: MIT */
/*
 * The control block of the fake libefa (stub_fake_efa.c), exported as
 * vs_stub_efa: what the tests set and read back.  NOT an EFA data path.
 */
#ifndef VS_FAKE_EFA_H
#define VS_FAKE_EFA_H

#include <stdint.h>
#include <infiniband/efadv.h>

struct vs_stub_efa {
	int efa_device;                 /* 1: fake0 is an EFA device */
	struct efadv_device_attr attr;  /* what efadv_query_device answers */
	int query_err;                  /* efadv_query_device fails with it */
	int create_err;                 /* efadv_create_qp_ex fails once */
	/* recorded by the last efadv_create_qp_ex */
	int creates;
	uint32_t inlen;
	uint32_t driver_qp_type;
	uint64_t efa_comp_mask;
	int qp_type;
	uint32_t comp_mask;
	uint64_t send_ops_flags;
	struct ibv_qp_cap cap;
	int queries;                    /* efadv_query_device calls */
};

#endif /* VS_FAKE_EFA_H */
