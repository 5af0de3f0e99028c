/* SPDX-License-Identifier: MIT */
/*
 * libmana (manadv_*, Microsoft Azure Network Adapter): every public
 * function symbol, one row each; the row format is that of
 * shim/loader/syms_ibverbs.h.  Upstream, the int functions return a positive
 * errno, manadv_alloc_pd NULL + errno.  The whole library is optional:
 * headers older than rdma-core 41 have no manadv.h.
 */
#ifndef VS_SYMS_MANA_H
#define VS_SYMS_MANA_H

#define VS_MANA_NODES(N)                                                       \
	N(MANA_1_0, "MANA_1.0", 41)                                            \
	N(MANA_1_1, "MANA_1.1", 65)

#define VS_MANA_LIST_1_0(X)                                                    \
	X(MANA_1_0, manadv_init_obj, int, (struct manadv_obj *obj, uint64_t obj_type), (obj, obj_type), ERRNO, "obj=inout") \
	X(MANA_1_0, manadv_set_context_attr, int, (struct ibv_context *ibv_ctx, enum manadv_set_ctx_attr_type type, void *attr), (ibv_ctx, type, attr), ERRNO, "ibv_ctx=h attr=in")

#define VS_MANA_LIST_1_1(X)                                                    \
	X(MANA_1_1, manadv_alloc_pd, struct ibv_pd *, (struct ibv_context *context, uint32_t flags), (context, flags), PTR, "context=h return=h")

#define VS_MANA_SYMBOLS(X) VS_ON_MANA_1_0(X) VS_ON_MANA_1_1(X)

#endif /* VS_SYMS_MANA_H */
