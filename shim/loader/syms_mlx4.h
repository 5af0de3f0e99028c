/* SPDX-License-Identifier: MIT */
/*
 * libmlx4 (mlx4dv_*): every public function symbol, one row each; the row
 * format is that of shim/loader/syms_ibverbs.h.  Upstream, int functions return
 * a positive errno, mlx4dv_create_qp NULL + errno.
 */
#ifndef VS_SYMS_MLX4_H
#define VS_SYMS_MLX4_H

#define VS_MLX4_NODES(N)                                        \
	N(MLX4_1_0, "MLX4_1.0", 15)

/* In every supported header set (rdma-core >= 33). */
#define VS_MLX4_BASE(X) \
	X(MLX4_1_0, mlx4dv_create_qp, struct ibv_qp *, (struct ibv_context *context, struct ibv_qp_init_attr_ex *attr, struct mlx4dv_qp_init_attr *mlx4_qp_attr), (context, attr, mlx4_qp_attr), PTR, "context=h attr=inout mlx4_qp_attr=in return=h") \
	X(MLX4_1_0, mlx4dv_init_obj, int, (struct mlx4dv_obj *obj, uint64_t obj_type), (obj, obj_type), ERRNO, "obj=inout") \
	X(MLX4_1_0, mlx4dv_query_device, int, (struct ibv_context *ctx_in, struct mlx4dv_context *attrs_out), (ctx_in, attrs_out), ERRNO, "ctx_in=h attrs_out=inout") \
	X(MLX4_1_0, mlx4dv_set_context_attr, int, (struct ibv_context *context, enum mlx4dv_set_ctx_attr_type attr_type, void *attr), (context, attr_type, attr), ERRNO, "context=h attr=in")

#define VS_MLX4_SYMBOLS(X) \
	VS_MLX4_BASE(X) 

#endif /* VS_SYMS_MLX4_H */
