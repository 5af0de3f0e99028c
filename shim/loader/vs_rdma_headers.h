/* SPDX-License-Identifier: MIT */
/*
 * The rdma-core headers the shim is compiled against, made fit for
 * defining the exported symbols: the macros that shadow a symbol's name
 * (ibv_reg_mr, ibv_query_port, ...) are removed, and the few public
 * symbols that no installed header declares get their upstream prototype.
 */
#ifndef VS_RDMA_HEADERS_H
#define VS_RDMA_HEADERS_H

#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <infiniband/verbs.h>
#include <infiniband/efadv.h>
#include <infiniband/mlx4dv.h>
#include <infiniband/mlx5dv.h>
/* rdma-core 41, 51 and 59 added these: older header sets build without
 * their libraries (feature-config.sh then leaves their nodes out). */
#if __has_include(<infiniband/hnsdv.h>)
#include <infiniband/hnsdv.h>
#endif
#if __has_include(<infiniband/manadv.h>)
#include <infiniband/manadv.h>
#endif
#if __has_include(<infiniband/ionic_dv.h>)
#include <infiniband/ionic_dv.h>
#endif
#include <infiniband/umad.h>
#include <infiniband/umad_str.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#undef ibv_reg_mr
#undef ibv_reg_mr_iova
#undef ibv_query_port
#undef ibv_get_device_list
/* rdma-core >= 63 headers make it a macro over __mlx5dv_create_flow (the
 * symbol MLX5_1.6 still exports it); its prototype is upstream's. */
#undef mlx5dv_create_flow
struct ibv_flow *mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				    struct mlx5dv_flow_match_parameters *match_value,
				    size_t num_actions,
				    struct mlx5dv_flow_action_attr actions_attr[]);

/* Exported by libibverbs (1.0/1.1 nodes) but declared only in rdma-core's
 * private driver.h / marshall.h; the prototypes are upstream's. */
struct ibv_sa_path_rec;
struct ib_user_path_rec;
struct ib_uverbs_qp_attr;
struct ib_uverbs_ah_attr;
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);

/* Exported by libibverbs only in IBVERBS_PRIVATE_* and declared in its
 * uninstalled driver.h, yet called by rdma-core's own pyverbs and
 * ibv_devinfo: verbshim defines it on public calls (fallback_ibverbs.c).
 * The enum is driver.h's enum ibv_gid_type_sysfs, under our own name. */
enum vs_gid_type_sysfs {
	VS_GID_TYPE_SYSFS_IB_ROCE_V1,
	VS_GID_TYPE_SYSFS_ROCE_V2,
};
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum vs_gid_type_sysfs *type);
/* Every such compatibility entry, for test/shell/hygiene.sh's list of
 * drop-ins (they have no row in shim/loader/syms_*.h: nothing is resolved). */
#define VS_COMPAT_ENTRIES(X) X(ibv_query_gid_type)

#endif /* VS_RDMA_HEADERS_H */
