/* SPDX-License-Identifier: MIT */
/*
 * libefa (efadv_*): every public function symbol, one row each; the row
 * format is that of shim/loader/syms_ibverbs.h.  Upstream, efadv int functions
 * return a positive errno (EOPNOTSUPP on a device that is not EFA) and the
 * sq/rq depth queries a negative one.
 */
#ifndef VS_SYMS_EFA_H
#define VS_SYMS_EFA_H

#define VS_EFA_NODES(N)                                                        \
	N(EFA_1_0, "EFA_1.0", 24)                                              \
	N(EFA_1_1, "EFA_1.1", 26)                                              \
	N(EFA_1_2, "EFA_1.2", 43)                                              \
	N(EFA_1_3, "EFA_1.3", 50)                                              \
	N(EFA_1_4, "EFA_1.4", 59)                                              \
	N(EFA_1_5, "EFA_1.5", 63)                                              \
	N(EFA_1_6, "EFA_1.6", 64)                                              \
	N(EFA_1_7, "EFA_1.7", 65)

#define VS_EFA_BASE(X)                                                         \
	X(EFA_1_0, efadv_create_driver_qp, struct ibv_qp *, (struct ibv_pd *ibvpd, struct ibv_qp_init_attr *attr, uint32_t driver_qp_type), (ibvpd, attr, driver_qp_type), PTR, "ibvpd=h attr=inout return=h") \
	X(EFA_1_1, efadv_create_qp_ex, struct ibv_qp *, (struct ibv_context *ibvctx, struct ibv_qp_init_attr_ex *attr_ex, struct efadv_qp_init_attr *efa_attr, uint32_t inlen), (ibvctx, attr_ex, efa_attr, inlen), PTR, "ibvctx=h attr_ex=inout efa_attr=in,bytes=inlen return=h") \
	X(EFA_1_1, efadv_query_device, int, (struct ibv_context *ibvctx, struct efadv_device_attr *attr, uint32_t inlen), (ibvctx, attr, inlen), ERRNO, "ibvctx=h attr=out,bytes=inlen") \
	X(EFA_1_1, efadv_query_ah, int, (struct ibv_ah *ibvah, struct efadv_ah_attr *attr, uint32_t inlen), (ibvah, attr, inlen), ERRNO, "ibvah=h attr=out,bytes=inlen")

#define VS_EFA_LIST_1_2(X)                                                     \
	X(EFA_1_2, efadv_create_cq, struct ibv_cq_ex *, (struct ibv_context *ibvctx, struct ibv_cq_init_attr_ex *attr_ex, struct efadv_cq_init_attr *efa_attr, uint32_t inlen), (ibvctx, attr_ex, efa_attr, inlen), PTR, "ibvctx=h attr_ex=in efa_attr=in,bytes=inlen return=h") \
	X(EFA_1_2, efadv_cq_from_ibv_cq_ex, struct efadv_cq *, (struct ibv_cq_ex *ibvcqx), (ibvcqx), PTR, "ibvcqx=h return=h")

#define VS_EFA_LIST_1_3(X)                                                     \
	X(EFA_1_3, efadv_query_mr, int, (struct ibv_mr *ibvmr, struct efadv_mr_attr *attr, uint32_t inlen), (ibvmr, attr, inlen), ERRNO, "ibvmr=h attr=out,bytes=inlen")

#define VS_EFA_LIST_1_4(X)                                                     \
	X(EFA_1_4, efadv_query_qp_wqs, int, (struct ibv_qp *ibvqp, struct efadv_wq_attr *sq_attr, struct efadv_wq_attr *rq_attr, uint32_t inlen), (ibvqp, sq_attr, rq_attr, inlen), ERRNO, "ibvqp=h sq_attr=out,bytes=inlen rq_attr=out,bytes=inlen") \
	X(EFA_1_4, efadv_query_cq, int, (struct ibv_cq *ibvcq, struct efadv_cq_attr *attr, uint32_t inlen), (ibvcq, attr, inlen), ERRNO, "ibvcq=h attr=out,bytes=inlen")

#define VS_EFA_LIST_1_5(X)                                                     \
	X(EFA_1_5, efadv_get_max_sq_depth, int, (struct ibv_context *ibvctx, struct efadv_sq_depth_attr *attr, uint32_t inlen), (ibvctx, attr, inlen), NEGERR, "ibvctx=h attr=in,bytes=inlen") \
	X(EFA_1_5, efadv_get_max_rq_depth, int, (struct ibv_context *ibvctx, struct efadv_rq_depth_attr *attr, uint32_t inlen), (ibvctx, attr, inlen), NEGERR, "ibvctx=h attr=in,bytes=inlen")

#define VS_EFA_LIST_1_6(X)                                                     \
	X(EFA_1_6, efadv_qp_from_ibv_qp_ex, struct efadv_qp *, (struct ibv_qp_ex *ibvqpx), (ibvqpx), PTR, "ibvqpx=h return=h")

#define VS_EFA_LIST_1_7(X)                                                     \
	X(EFA_1_7, efadv_create_comp_cntr, struct ibv_comp_cntr *, (struct ibv_context *ibvctx, struct ibv_comp_cntr_init_attr *attr, struct efadv_comp_cntr_init_attr *efa_attr, uint32_t inlen), (ibvctx, attr, efa_attr, inlen), PTR, "ibvctx=h attr=in efa_attr=in,bytes=inlen return=h")

#define VS_EFA_SYMBOLS(X)                                                      \
	VS_EFA_BASE(X) VS_ON_EFA_1_2(X) VS_ON_EFA_1_3(X) VS_ON_EFA_1_4(X)      \
	VS_ON_EFA_1_5(X) VS_ON_EFA_1_6(X) VS_ON_EFA_1_7(X)

#endif /* VS_SYMS_EFA_H */
