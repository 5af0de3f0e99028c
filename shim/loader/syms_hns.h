/* SPDX-License-Identifier: MIT */
/*
 * libhns (hnsdv_*, HiSilicon): every public function symbol, one row each;
 * the row format (facts included) is that of shim/loader/syms_ibverbs.h.  Upstream, the int
 * function returns a positive errno (EOPNOTSUPP on a device that is not
 * hns), hnsdv_create_qp NULL + errno, hnsdv_is_supported false.  The whole
 * library is optional: headers older than rdma-core 51 have no hnsdv.h.
 */
#ifndef VS_SYMS_HNS_H
#define VS_SYMS_HNS_H

#define VS_HNS_NODES(N)                                                        \
	N(HNS_1_0, "HNS_1.0", 51)

#define VS_HNS_LIST_1_0(X)                                                     \
	X(HNS_1_0, hnsdv_create_qp, struct ibv_qp *, (struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_attr, struct hnsdv_qp_init_attr *hns_qp_attr), (context, qp_attr, hns_qp_attr), PTR, "context=h qp_attr=inout hns_qp_attr=in return=h") \
	X(HNS_1_0, hnsdv_is_supported, bool, (struct ibv_device *device), (device), ZERO, "device=h") \
	X(HNS_1_0, hnsdv_query_device, int, (struct ibv_context *ctx_in, struct hnsdv_context *attrs_out), (ctx_in, attrs_out), ERRNO, "ctx_in=h attrs_out=inout")

#define VS_HNS_SYMBOLS(X) VS_ON_HNS_1_0(X)

#endif /* VS_SYMS_HNS_H */
