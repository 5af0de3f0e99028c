/* SPDX-License-Identifier: MIT */
/*
 * libionic (ionic_dv_*, AMD Pensando): every public function symbol, one
 * row each; the row format is that of shim/loader/syms_ibverbs.h.  Upstream, the
 * getters return 0 for an object that is not ionic's and the setters a
 * positive errno.  The whole library is optional: headers older than
 * rdma-core 59 have no ionic_dv.h.
 */
#ifndef VS_SYMS_IONIC_H
#define VS_SYMS_IONIC_H

#define VS_IONIC_NODES(N)                                                      \
	N(IONIC_1_0, "IONIC_1.0", 59)

#define VS_IONIC_LIST_1_0(X)                                                   \
	X(IONIC_1_0, ionic_dv_ctx_get_udma_count, uint8_t, (struct ibv_context *ibctx), (ibctx), ZERO, "ibctx=h") \
	X(IONIC_1_0, ionic_dv_ctx_get_udma_mask, uint8_t, (struct ibv_context *ibctx), (ibctx), ZERO, "ibctx=h") \
	X(IONIC_1_0, ionic_dv_pd_get_udma_mask, uint8_t, (struct ibv_pd *ibpd), (ibpd), ZERO, "ibpd=h") \
	X(IONIC_1_0, ionic_dv_pd_set_rqcmb, int, (struct ibv_pd *ibpd, bool enable, bool expdb, bool require), (ibpd, enable, expdb, require), ERRNO, "ibpd=h") \
	X(IONIC_1_0, ionic_dv_pd_set_sqcmb, int, (struct ibv_pd *ibpd, bool enable, bool expdb, bool require), (ibpd, enable, expdb, require), ERRNO, "ibpd=h") \
	X(IONIC_1_0, ionic_dv_pd_set_udma_mask, int, (struct ibv_pd *ibpd, uint8_t udma_mask), (ibpd, udma_mask), ERRNO, "ibpd=h")

#define VS_IONIC_SYMBOLS(X) VS_ON_IONIC_1_0(X)

#endif /* VS_SYMS_IONIC_H */
