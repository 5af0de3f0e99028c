/* SPDX-License-Identifier: MIT */
/*
 * libmlx5 (mlx5dv_*): every public function symbol that mlx5dv.h declares,
 * one row each; the row format is that of shim/loader/syms_ibverbs.h.  Upstream,
 * mlx5dv int functions return a positive errno (EOPNOTSUPP on a device
 * that is not mlx5), pointer functions NULL + errno, mlx5dv_is_supported()
 * false; the exceptions are marked (dump_dr_* and
 * qp_cancel_posted_send_wrs: -errno; devx_get_event and the fd getters:
 * -1 + errno).  _mlx5dv_* and __mlx5dv_* are reached by the header's
 * inlines and macros.  mlx5dv_init_obj is pinned to MLX5_1.2, its default
 * version (MLX5_1.0 is the compat one).
 */
#ifndef VS_SYMS_MLX5_H
#define VS_SYMS_MLX5_H

#define VS_MLX5_NODES(N)                                        \
	N(MLX5_1_0, "MLX5_1.0", 15) \
	N(MLX5_1_1, "MLX5_1.1", 15) \
	N(MLX5_1_2, "MLX5_1.2", 15) \
	N(MLX5_1_3, "MLX5_1.3", 16) \
	N(MLX5_1_4, "MLX5_1.4", 17) \
	N(MLX5_1_5, "MLX5_1.5", 18) \
	N(MLX5_1_6, "MLX5_1.6", 20) \
	N(MLX5_1_7, "MLX5_1.7", 21) \
	N(MLX5_1_8, "MLX5_1.8", 22) \
	N(MLX5_1_9, "MLX5_1.9", 23) \
	N(MLX5_1_10, "MLX5_1.10", 24) \
	N(MLX5_1_11, "MLX5_1.11", 25) \
	N(MLX5_1_12, "MLX5_1.12", 28) \
	N(MLX5_1_13, "MLX5_1.13", 29) \
	N(MLX5_1_14, "MLX5_1.14", 30) \
	N(MLX5_1_15, "MLX5_1.15", 31) \
	N(MLX5_1_16, "MLX5_1.16", 32) \
	N(MLX5_1_17, "MLX5_1.17", 33) \
	N(MLX5_1_18, "MLX5_1.18", 34) \
	N(MLX5_1_19, "MLX5_1.19", 35) \
	N(MLX5_1_20, "MLX5_1.20", 36) \
	N(MLX5_1_21, "MLX5_1.21", 37) \
	N(MLX5_1_22, "MLX5_1.22", 38) \
	N(MLX5_1_23, "MLX5_1.23", 40) \
	N(MLX5_1_24, "MLX5_1.24", 42) \
	N(MLX5_1_25, "MLX5_1.25", 54) \
	N(MLX5_1_25_1, "MLX5_1.25.1", 63) \
	N(MLX5_1_26, "MLX5_1.26", 62) \
	N(MLX5_1_27, "MLX5_1.27", 63)

/* In every supported header set (rdma-core >= 33). */
#define VS_MLX5_BASE(X) \
	X(MLX5_1_0, mlx5dv_query_device, int, (struct ibv_context *ctx_in, struct mlx5dv_context *attrs_out), (ctx_in, attrs_out), ERRNO, "ctx_in=h attrs_out=inout") \
	X(MLX5_1_1, mlx5dv_create_cq, struct ibv_cq_ex *, (struct ibv_context *context, struct ibv_cq_init_attr_ex *cq_attr, struct mlx5dv_cq_init_attr *mlx5_cq_attr), (context, cq_attr, mlx5_cq_attr), PTR, "context=h cq_attr=in mlx5_cq_attr=in return=h") \
	X(MLX5_1_2, mlx5dv_init_obj, int, (struct mlx5dv_obj *obj, uint64_t obj_type), (obj, obj_type), ERRNO, "obj=inout") \
	X(MLX5_1_2, mlx5dv_set_context_attr, int, (struct ibv_context *context, enum mlx5dv_set_ctx_attr_type type, void *attr), (context, type, attr), ERRNO, "context=h attr=in") \
	X(MLX5_1_3, mlx5dv_create_qp, struct ibv_qp *, (struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_attr, struct mlx5dv_qp_init_attr *mlx5_qp_attr), (context, qp_attr, mlx5_qp_attr), PTR, "context=h qp_attr=inout mlx5_qp_attr=in return=h") \
	X(MLX5_1_3, mlx5dv_create_wq, struct ibv_wq *, (struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr, struct mlx5dv_wq_init_attr *mlx5_wq_attr), (context, wq_init_attr, mlx5_wq_attr), PTR, "context=h wq_init_attr=in mlx5_wq_attr=in return=h") \
	X(MLX5_1_4, mlx5dv_get_clock_info, int, (struct ibv_context *context, struct mlx5dv_clock_info *clock_info), (context, clock_info), ERRNO, "context=h clock_info=out") \
	X(MLX5_1_5, mlx5dv_create_flow_action_esp, struct ibv_flow_action *, (struct ibv_context *ctx, struct ibv_flow_action_esp_attr *esp, struct mlx5dv_flow_action_esp *mlx5_attr), (ctx, esp, mlx5_attr), PTR, "ctx=h esp=in mlx5_attr=in return=h") \
	X(MLX5_1_6, mlx5dv_create_flow, struct ibv_flow *, (struct mlx5dv_flow_matcher *matcher, struct mlx5dv_flow_match_parameters *match_value, size_t num_actions, struct mlx5dv_flow_action_attr *actions_attr), (matcher, match_value, num_actions, actions_attr), PTR, "matcher=h match_value=in actions_attr=in,count=num_actions return=h") \
	X(MLX5_1_6, mlx5dv_create_flow_matcher, struct mlx5dv_flow_matcher *, (struct ibv_context *context, struct mlx5dv_flow_matcher_attr *matcher_attr), (context, matcher_attr), PTR, "context=h matcher_attr=in return=h") \
	X(MLX5_1_6, mlx5dv_destroy_flow_matcher, int, (struct mlx5dv_flow_matcher *matcher), (matcher), ERRNO, "matcher=end") \
	X(MLX5_1_7, mlx5dv_create_flow_action_modify_header, struct ibv_flow_action *, (struct ibv_context *ctx, size_t actions_sz, uint64_t *actions, enum mlx5_ib_uapi_flow_table_type ft_type), (ctx, actions_sz, actions, ft_type), PTR, "ctx=h actions=in,bytes=actions_sz return=h") \
	X(MLX5_1_7, mlx5dv_create_flow_action_packet_reformat, struct ibv_flow_action *, (struct ibv_context *ctx, size_t data_sz, void *data, enum mlx5_ib_uapi_flow_action_packet_reformat_type reformat_type, enum mlx5_ib_uapi_flow_table_type ft_type), (ctx, data_sz, data, reformat_type, ft_type), PTR, "ctx=h data=buf return=h") \
	X(MLX5_1_7, mlx5dv_devx_alloc_uar, struct mlx5dv_devx_uar *, (struct ibv_context *context, uint32_t flags), (context, flags), PTR, "context=h return=h") \
	X(MLX5_1_7, mlx5dv_devx_free_uar, void, (struct mlx5dv_devx_uar *devx_uar), (devx_uar), VOID, "devx_uar=end") \
	X(MLX5_1_7, mlx5dv_devx_general_cmd, int, (struct ibv_context *context, const void *in, size_t inlen, void *out, size_t outlen), (context, in, inlen, out, outlen), ERRNO, "context=h in=buf out=buf") \
	X(MLX5_1_7, mlx5dv_devx_obj_create, struct mlx5dv_devx_obj *, (struct ibv_context *context, const void *in, size_t inlen, void *out, size_t outlen), (context, in, inlen, out, outlen), PTR, "context=h in=buf out=buf return=h") \
	X(MLX5_1_7, mlx5dv_devx_obj_destroy, int, (struct mlx5dv_devx_obj *obj), (obj), ERRNO, "obj=end") \
	X(MLX5_1_7, mlx5dv_devx_obj_modify, int, (struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out, size_t outlen), (obj, in, inlen, out, outlen), ERRNO, "obj=h in=buf out=buf") \
	X(MLX5_1_7, mlx5dv_devx_obj_query, int, (struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out, size_t outlen), (obj, in, inlen, out, outlen), ERRNO, "obj=h in=buf out=buf") \
	X(MLX5_1_7, mlx5dv_devx_query_eqn, int, (struct ibv_context *context, uint32_t vector, uint32_t *eqn), (context, vector, eqn), ERRNO, "context=h eqn=out") \
	X(MLX5_1_7, mlx5dv_devx_umem_dereg, int, (struct mlx5dv_devx_umem *umem), (umem), ERRNO, "umem=end") \
	X(MLX5_1_7, mlx5dv_devx_umem_reg, struct mlx5dv_devx_umem *, (struct ibv_context *ctx, void *addr, size_t size, uint32_t access), (ctx, addr, size, access), PTR, "ctx=h addr=buf return=h") \
	X(MLX5_1_7, mlx5dv_open_device, struct ibv_context *, (struct ibv_device *device, struct mlx5dv_context_attr *attr), (device, attr), PTR, "device=h attr=in return=h") \
	X(MLX5_1_8, mlx5dv_devx_cq_modify, int, (struct ibv_cq *cq, const void *in, size_t inlen, void *out, size_t outlen), (cq, in, inlen, out, outlen), ERRNO, "cq=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_cq_query, int, (struct ibv_cq *cq, const void *in, size_t inlen, void *out, size_t outlen), (cq, in, inlen, out, outlen), ERRNO, "cq=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_ind_tbl_modify, int, (struct ibv_rwq_ind_table *ind_tbl, const void *in, size_t inlen, void *out, size_t outlen), (ind_tbl, in, inlen, out, outlen), ERRNO, "ind_tbl=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_ind_tbl_query, int, (struct ibv_rwq_ind_table *ind_tbl, const void *in, size_t inlen, void *out, size_t outlen), (ind_tbl, in, inlen, out, outlen), ERRNO, "ind_tbl=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_qp_modify, int, (struct ibv_qp *qp, const void *in, size_t inlen, void *out, size_t outlen), (qp, in, inlen, out, outlen), ERRNO, "qp=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_qp_query, int, (struct ibv_qp *qp, const void *in, size_t inlen, void *out, size_t outlen), (qp, in, inlen, out, outlen), ERRNO, "qp=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_srq_modify, int, (struct ibv_srq *srq, const void *in, size_t inlen, void *out, size_t outlen), (srq, in, inlen, out, outlen), ERRNO, "srq=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_srq_query, int, (struct ibv_srq *srq, const void *in, size_t inlen, void *out, size_t outlen), (srq, in, inlen, out, outlen), ERRNO, "srq=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_wq_modify, int, (struct ibv_wq *wq, const void *in, size_t inlen, void *out, size_t outlen), (wq, in, inlen, out, outlen), ERRNO, "wq=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_devx_wq_query, int, (struct ibv_wq *wq, const void *in, size_t inlen, void *out, size_t outlen), (wq, in, inlen, out, outlen), ERRNO, "wq=h in=buf out=buf") \
	X(MLX5_1_8, mlx5dv_is_supported, bool, (struct ibv_device *device), (device), ZERO, "device=h") \
	X(MLX5_1_9, mlx5dv_devx_create_cmd_comp, struct mlx5dv_devx_cmd_comp *, (struct ibv_context *context), (context), PTR, "context=h return=h") \
	X(MLX5_1_9, mlx5dv_devx_destroy_cmd_comp, void, (struct mlx5dv_devx_cmd_comp *cmd_comp), (cmd_comp), VOID, "cmd_comp=end") \
	X(MLX5_1_9, mlx5dv_devx_get_async_cmd_comp, int, (struct mlx5dv_devx_cmd_comp *cmd_comp, struct mlx5_ib_uapi_devx_async_cmd_hdr *cmd_resp, size_t cmd_resp_len), (cmd_comp, cmd_resp, cmd_resp_len), ERRNO, "cmd_comp=h cmd_resp=out,bytes=cmd_resp_len") \
	X(MLX5_1_9, mlx5dv_devx_obj_query_async, int, (struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, size_t outlen, uint64_t wr_id, struct mlx5dv_devx_cmd_comp *cmd_comp), (obj, in, inlen, outlen, wr_id, cmd_comp), ERRNO, "obj=h in=buf cmd_comp=h") \
	X(MLX5_1_10, mlx5dv_alloc_dm, struct ibv_dm *, (struct ibv_context *context, struct ibv_alloc_dm_attr *dm_attr, struct mlx5dv_alloc_dm_attr *mlx5_dm_attr), (context, dm_attr, mlx5_dm_attr), PTR, "context=h dm_attr=in mlx5_dm_attr=in return=h") \
	X(MLX5_1_10, mlx5dv_create_mkey, struct mlx5dv_mkey *, (struct mlx5dv_mkey_init_attr *mkey_init_attr), (mkey_init_attr), PTR, "mkey_init_attr=in return=h") \
	X(MLX5_1_10, mlx5dv_destroy_mkey, int, (struct mlx5dv_mkey *mkey), (mkey), ERRNO, "mkey=end") \
	X(MLX5_1_10, mlx5dv_dr_action_create_dest_ibv_qp, struct mlx5dv_dr_action *, (struct ibv_qp *ibqp), (ibqp), PTR, "ibqp=h return=h") \
	X(MLX5_1_10, mlx5dv_dr_action_create_dest_table, struct mlx5dv_dr_action *, (struct mlx5dv_dr_table *table), (table), PTR, "table=h return=h") \
	X(MLX5_1_10, mlx5dv_dr_action_create_dest_vport, struct mlx5dv_dr_action *, (struct mlx5dv_dr_domain *domain, uint32_t vport), (domain, vport), PTR, "domain=h return=h") \
	X(MLX5_1_10, mlx5dv_dr_action_create_drop, struct mlx5dv_dr_action *, (void), (), PTR, "return=h") \
	X(MLX5_1_10, mlx5dv_dr_action_create_flow_counter, struct mlx5dv_dr_action *, (struct mlx5dv_devx_obj *devx_obj, uint32_t offset), (devx_obj, offset), PTR, "devx_obj=h return=h") \
	X(MLX5_1_10, mlx5dv_dr_action_create_modify_header, struct mlx5dv_dr_action *, (struct mlx5dv_dr_domain *domain, uint32_t flags, size_t actions_sz, __be64 *actions), (domain, flags, actions_sz, actions), PTR, "domain=h actions=in,bytes=actions_sz return=h") \
	X(MLX5_1_10, mlx5dv_dr_action_create_packet_reformat, struct mlx5dv_dr_action *, (struct mlx5dv_dr_domain *domain, uint32_t flags, enum mlx5_ib_uapi_flow_action_packet_reformat_type reformat_type, size_t data_sz, void *data), (domain, flags, reformat_type, data_sz, data), PTR, "domain=h data=buf return=h") \
	X(MLX5_1_10, mlx5dv_dr_action_create_tag, struct mlx5dv_dr_action *, (uint32_t tag_value), (tag_value), PTR, "return=h") \
	X(MLX5_1_10, mlx5dv_dr_action_destroy, int, (struct mlx5dv_dr_action *action), (action), ERRNO, "action=end") \
	X(MLX5_1_10, mlx5dv_dr_domain_create, struct mlx5dv_dr_domain *, (struct ibv_context *ctx, enum mlx5dv_dr_domain_type type), (ctx, type), PTR, "ctx=h return=h") \
	X(MLX5_1_10, mlx5dv_dr_domain_destroy, int, (struct mlx5dv_dr_domain *domain), (domain), ERRNO, "domain=end") \
	X(MLX5_1_10, mlx5dv_dr_domain_sync, int, (struct mlx5dv_dr_domain *domain, uint32_t flags), (domain, flags), ERRNO, "domain=h") \
	X(MLX5_1_10, mlx5dv_dr_matcher_create, struct mlx5dv_dr_matcher *, (struct mlx5dv_dr_table *table, uint16_t priority, uint8_t match_criteria_enable, struct mlx5dv_flow_match_parameters *mask), (table, priority, match_criteria_enable, mask), PTR, "table=h mask=in return=h") \
	X(MLX5_1_10, mlx5dv_dr_matcher_destroy, int, (struct mlx5dv_dr_matcher *matcher), (matcher), ERRNO, "matcher=end") \
	X(MLX5_1_10, mlx5dv_dr_rule_create, struct mlx5dv_dr_rule *, (struct mlx5dv_dr_matcher *matcher, struct mlx5dv_flow_match_parameters *value, size_t num_actions, struct mlx5dv_dr_action **actions), (matcher, value, num_actions, actions), PTR, "matcher=h value=in actions=h,count=num_actions return=h") \
	X(MLX5_1_10, mlx5dv_dr_rule_destroy, int, (struct mlx5dv_dr_rule *rule), (rule), ERRNO, "rule=end") \
	X(MLX5_1_10, mlx5dv_dr_table_create, struct mlx5dv_dr_table *, (struct mlx5dv_dr_domain *domain, uint32_t level), (domain, level), PTR, "domain=h return=h") \
	X(MLX5_1_10, mlx5dv_dr_table_destroy, int, (struct mlx5dv_dr_table *table), (table), ERRNO, "table=end") \
	X(MLX5_1_10, mlx5dv_qp_ex_from_ibv_qp_ex, struct mlx5dv_qp_ex *, (struct ibv_qp_ex *qp), (qp), PTR, "qp=h return=h") \
	X(MLX5_1_11, mlx5dv_devx_create_event_channel, struct mlx5dv_devx_event_channel *, (struct ibv_context *context, enum mlx5_ib_uapi_devx_create_event_channel_flags flags), (context, flags), PTR, "context=h return=h") \
	X(MLX5_1_11, mlx5dv_devx_destroy_event_channel, void, (struct mlx5dv_devx_event_channel *event_channel), (event_channel), VOID, "event_channel=end") \
	X(MLX5_1_11, mlx5dv_devx_get_event, ssize_t, (struct mlx5dv_devx_event_channel *event_channel, struct mlx5_ib_uapi_devx_async_event_hdr *event_data, size_t event_resp_len), (event_channel, event_data, event_resp_len), NEG1, "event_channel=h event_data=out,bytes=event_resp_len") \
	X(MLX5_1_11, mlx5dv_devx_subscribe_devx_event, int, (struct mlx5dv_devx_event_channel *event_channel, struct mlx5dv_devx_obj *obj, uint16_t events_sz, uint16_t *events_num, uint64_t cookie), (event_channel, obj, events_sz, events_num, cookie), ERRNO, "event_channel=h obj=h events_num=in,bytes=events_sz") \
	X(MLX5_1_11, mlx5dv_devx_subscribe_devx_event_fd, int, (struct mlx5dv_devx_event_channel *event_channel, int fd, struct mlx5dv_devx_obj *obj, uint16_t event_num), (event_channel, fd, obj, event_num), ERRNO, "event_channel=h obj=h") \
	X(MLX5_1_12, mlx5dv_alloc_var, struct mlx5dv_var *, (struct ibv_context *context, uint32_t flags), (context, flags), PTR, "context=h return=h") \
	X(MLX5_1_12, mlx5dv_dr_action_create_flow_meter, struct mlx5dv_dr_action *, (struct mlx5dv_dr_flow_meter_attr *attr), (attr), PTR, "attr=in return=h") \
	X(MLX5_1_12, mlx5dv_dr_action_modify_flow_meter, int, (struct mlx5dv_dr_action *action, struct mlx5dv_dr_flow_meter_attr *attr, __be64 modify_field_select), (action, attr, modify_field_select), ERRNO, "action=h attr=in") \
	X(MLX5_1_12, mlx5dv_dump_dr_domain, int, (FILE *fout, struct mlx5dv_dr_domain *domain), (fout, domain), NEGERR, "fout=buf domain=h") \
	X(MLX5_1_12, mlx5dv_dump_dr_matcher, int, (FILE *fout, struct mlx5dv_dr_matcher *matcher), (fout, matcher), NEGERR, "fout=buf matcher=h") \
	X(MLX5_1_12, mlx5dv_dump_dr_rule, int, (FILE *fout, struct mlx5dv_dr_rule *rule), (fout, rule), NEGERR, "fout=buf rule=h") \
	X(MLX5_1_12, mlx5dv_dump_dr_table, int, (FILE *fout, struct mlx5dv_dr_table *table), (fout, table), NEGERR, "fout=buf table=h") \
	X(MLX5_1_12, mlx5dv_free_var, void, (struct mlx5dv_var *dv_var), (dv_var), VOID, "dv_var=end") \
	X(MLX5_1_13, mlx5dv_pp_alloc, struct mlx5dv_pp *, (struct ibv_context *context, size_t pp_context_sz, const void *pp_context, uint32_t flags), (context, pp_context_sz, pp_context, flags), PTR, "context=h pp_context=buf return=h") \
	X(MLX5_1_13, mlx5dv_pp_free, void, (struct mlx5dv_pp *pp), (pp), VOID, "pp=end") \
	X(MLX5_1_14, mlx5dv_dr_action_create_default_miss, struct mlx5dv_dr_action *, (void), (), PTR, "return=h") \
	X(MLX5_1_14, mlx5dv_dr_domain_set_reclaim_device_memory, void, (struct mlx5dv_dr_domain *dmn, bool enable), (dmn, enable), VOID, "dmn=h") \
	X(MLX5_1_14, mlx5dv_modify_qp_lag_port, int, (struct ibv_qp *qp, uint8_t port_num), (qp, port_num), ERRNO, "qp=h") \
	X(MLX5_1_14, mlx5dv_query_qp_lag_port, int, (struct ibv_qp *qp, uint8_t *port_num, uint8_t *active_port_num), (qp, port_num, active_port_num), ERRNO, "qp=h port_num=out active_port_num=out") \
	X(MLX5_1_15, mlx5dv_dr_action_create_dest_devx_tir, struct mlx5dv_dr_action *, (struct mlx5dv_devx_obj *devx_obj), (devx_obj), PTR, "devx_obj=h return=h") \
	X(MLX5_1_16, mlx5dv_dr_action_create_dest_array, struct mlx5dv_dr_action *, (struct mlx5dv_dr_domain *domain, size_t num_dest, struct mlx5dv_dr_action_dest_attr **dests), (domain, num_dest, dests), PTR, "domain=h dests=in,count=num_dest return=h") \
	X(MLX5_1_16, mlx5dv_dr_action_create_flow_sampler, struct mlx5dv_dr_action *, (struct mlx5dv_dr_flow_sampler_attr *attr), (attr), PTR, "attr=in return=h") \
	X(MLX5_1_17, mlx5dv_dr_action_create_aso, struct mlx5dv_dr_action *, (struct mlx5dv_dr_domain *domain, struct mlx5dv_devx_obj *devx_obj, uint32_t offset, uint32_t flags, uint8_t return_reg_c), (domain, devx_obj, offset, flags, return_reg_c), PTR, "domain=h devx_obj=h return=h") \
	X(MLX5_1_17, mlx5dv_dr_action_create_pop_vlan, struct mlx5dv_dr_action *, (void), (), PTR, "return=h") \
	X(MLX5_1_17, mlx5dv_dr_action_create_push_vlan, struct mlx5dv_dr_action *, (struct mlx5dv_dr_domain *domain, __be32 vlan_hdr), (domain, vlan_hdr), PTR, "domain=h return=h") \
	X(MLX5_1_17, mlx5dv_dr_action_modify_aso, int, (struct mlx5dv_dr_action *action, uint32_t offset, uint32_t flags, uint8_t return_reg_c), (action, offset, flags, return_reg_c), ERRNO, "action=h") \
	X(MLX5_1_17, mlx5dv_modify_qp_sched_elem, int, (struct ibv_qp *qp, const struct mlx5dv_sched_leaf *requestor, const struct mlx5dv_sched_leaf *responder), (qp, requestor, responder), ERRNO, "qp=h requestor=h responder=h") \
	X(MLX5_1_17, mlx5dv_modify_qp_udp_sport, int, (struct ibv_qp *qp, uint16_t udp_sport), (qp, udp_sport), ERRNO, "qp=h") \
	X(MLX5_1_17, mlx5dv_sched_leaf_create, struct mlx5dv_sched_leaf *, (struct ibv_context *context, const struct mlx5dv_sched_attr *sched_attr), (context, sched_attr), PTR, "context=h sched_attr=in return=h") \
	X(MLX5_1_17, mlx5dv_sched_leaf_destroy, int, (struct mlx5dv_sched_leaf *leaf), (leaf), ERRNO, "leaf=end") \
	X(MLX5_1_17, mlx5dv_sched_leaf_modify, int, (struct mlx5dv_sched_leaf *leaf, const struct mlx5dv_sched_attr *sched_attr), (leaf, sched_attr), ERRNO, "leaf=h sched_attr=in") \
	X(MLX5_1_17, mlx5dv_sched_node_create, struct mlx5dv_sched_node *, (struct ibv_context *context, const struct mlx5dv_sched_attr *sched_attr), (context, sched_attr), PTR, "context=h sched_attr=in return=h") \
	X(MLX5_1_17, mlx5dv_sched_node_destroy, int, (struct mlx5dv_sched_node *node), (node), ERRNO, "node=end") \
	X(MLX5_1_17, mlx5dv_sched_node_modify, int, (struct mlx5dv_sched_node *node, const struct mlx5dv_sched_attr *sched_attr), (node, sched_attr), ERRNO, "node=h sched_attr=in")

#define VS_MLX5_LIST_1_18(X) \
	X(MLX5_1_18, mlx5dv_reserved_qpn_alloc, int, (struct ibv_context *ctx, uint32_t *qpn), (ctx, qpn), ERRNO, "ctx=h qpn=out") \
	X(MLX5_1_18, mlx5dv_reserved_qpn_dealloc, int, (struct ibv_context *ctx, uint32_t qpn), (ctx, qpn), ERRNO, "ctx=h")

#define VS_MLX5_LIST_1_19(X) \
	X(MLX5_1_19, _mlx5dv_query_port, int, (struct ibv_context *context, uint32_t port_num, struct mlx5_ib_uapi_query_port *info, size_t info_len), (context, port_num, info, info_len), ERRNO, "context=h info=out,bytes=info_len") \
	X(MLX5_1_19, mlx5dv_devx_umem_reg_ex, struct mlx5dv_devx_umem *, (struct ibv_context *ctx, struct mlx5dv_devx_umem_in *umem_in), (ctx, umem_in), PTR, "ctx=h umem_in=in return=h") \
	X(MLX5_1_19, mlx5dv_dm_map_op_addr, void *, (struct ibv_dm *dm, uint8_t op), (dm, op), PTR, "dm=h return=buf")

#define VS_MLX5_LIST_1_20(X) \
	X(MLX5_1_20, _mlx5dv_mkey_check, int, (struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err_info, size_t err_info_size), (mkey, err_info, err_info_size), ERRNO, "mkey=h err_info=out,bytes=err_info_size") \
	X(MLX5_1_20, mlx5dv_dr_domain_allow_duplicate_rules, void, (struct mlx5dv_dr_domain *domain, bool allow), (domain, allow), VOID, "domain=h") \
	X(MLX5_1_20, mlx5dv_map_ah_to_qp, int, (struct ibv_ah *ah, uint32_t qp_num), (ah, qp_num), ERRNO, "ah=h") \
	X(MLX5_1_20, mlx5dv_qp_cancel_posted_send_wrs, int, (struct mlx5dv_qp_ex *mqp, uint64_t wr_id), (mqp, wr_id), NEGERR, "mqp=h")

#define VS_MLX5_LIST_1_21(X) \
	X(MLX5_1_21, mlx5dv_crypto_login, int, (struct ibv_context *context, struct mlx5dv_crypto_login_attr *login_attr), (context, login_attr), ERRNO, "context=h login_attr=in") \
	X(MLX5_1_21, mlx5dv_crypto_login_query_state, int, (struct ibv_context *context, enum mlx5dv_crypto_login_state *state), (context, state), ERRNO, "context=h state=out") \
	X(MLX5_1_21, mlx5dv_crypto_logout, int, (struct ibv_context *context), (context), ERRNO, "context=h") \
	X(MLX5_1_21, mlx5dv_dci_stream_id_reset, int, (struct ibv_qp *qp, uint16_t stream_id), (qp, stream_id), ERRNO, "qp=h") \
	X(MLX5_1_21, mlx5dv_dek_create, struct mlx5dv_dek *, (struct ibv_context *context, struct mlx5dv_dek_init_attr *init_attr), (context, init_attr), PTR, "context=h init_attr=in return=h") \
	X(MLX5_1_21, mlx5dv_dek_destroy, int, (struct mlx5dv_dek *dek), (dek), ERRNO, "dek=end") \
	X(MLX5_1_21, mlx5dv_dek_query, int, (struct mlx5dv_dek *dek, struct mlx5dv_dek_attr *attr), (dek, attr), ERRNO, "dek=h attr=out") \
	X(MLX5_1_21, mlx5dv_dr_action_create_dest_ib_port, struct mlx5dv_dr_action *, (struct mlx5dv_dr_domain *domain, uint32_t ib_port), (domain, ib_port), PTR, "domain=h return=h") \
	X(MLX5_1_21, mlx5dv_dr_matcher_set_layout, int, (struct mlx5dv_dr_matcher *matcher, struct mlx5dv_dr_matcher_layout *layout), (matcher, layout), ERRNO, "matcher=h layout=in") \
	X(MLX5_1_21, mlx5dv_get_vfio_device_list, struct ibv_device **, (struct mlx5dv_vfio_context_attr *attr), (attr), PTR, "attr=in return=buf") \
	X(MLX5_1_21, mlx5dv_vfio_get_events_fd, int, (struct ibv_context *ibctx), (ibctx), NEG1, "ibctx=h") \
	X(MLX5_1_21, mlx5dv_vfio_process_events, int, (struct ibv_context *context), (context), ERRNO, "context=h")

#define VS_MLX5_LIST_1_22(X) \
	X(MLX5_1_22, mlx5dv_dr_aso_other_domain_link, int, (struct mlx5dv_devx_obj *devx_obj, struct mlx5dv_dr_domain *peer_dmn, struct mlx5dv_dr_domain *dmn, uint32_t flags, uint8_t return_reg_c), (devx_obj, peer_dmn, dmn, flags, return_reg_c), ERRNO, "devx_obj=h peer_dmn=h dmn=h") \
	X(MLX5_1_22, mlx5dv_dr_aso_other_domain_unlink, int, (struct mlx5dv_devx_obj *devx_obj, struct mlx5dv_dr_domain *dmn), (devx_obj, dmn), ERRNO, "devx_obj=h dmn=h")

#define VS_MLX5_LIST_1_23(X) \
	X(MLX5_1_23, mlx5dv_devx_alloc_msi_vector, struct mlx5dv_devx_msi_vector *, (struct ibv_context *ibctx), (ibctx), PTR, "ibctx=h return=h") \
	X(MLX5_1_23, mlx5dv_devx_create_eq, struct mlx5dv_devx_eq *, (struct ibv_context *ibctx, const void *in, size_t inlen, void *out, size_t outlen), (ibctx, in, inlen, out, outlen), PTR, "ibctx=h in=buf out=buf return=h") \
	X(MLX5_1_23, mlx5dv_devx_destroy_eq, int, (struct mlx5dv_devx_eq *eq), (eq), ERRNO, "eq=end") \
	X(MLX5_1_23, mlx5dv_devx_free_msi_vector, int, (struct mlx5dv_devx_msi_vector *msi), (msi), ERRNO, "msi=end")

#define VS_MLX5_LIST_1_24(X) \
	X(MLX5_1_24, mlx5dv_create_steering_anchor, struct mlx5dv_steering_anchor *, (struct ibv_context *context, struct mlx5dv_steering_anchor_attr *attr), (context, attr), PTR, "context=h attr=in return=h") \
	X(MLX5_1_24, mlx5dv_crypto_login_create, struct mlx5dv_crypto_login_obj *, (struct ibv_context *context, struct mlx5dv_crypto_login_attr_ex *login_attr), (context, login_attr), PTR, "context=h login_attr=in return=h") \
	X(MLX5_1_24, mlx5dv_crypto_login_destroy, int, (struct mlx5dv_crypto_login_obj *crypto_login), (crypto_login), ERRNO, "crypto_login=end") \
	X(MLX5_1_24, mlx5dv_crypto_login_query, int, (struct mlx5dv_crypto_login_obj *crypto_login, struct mlx5dv_crypto_login_query_attr *query_attr), (crypto_login, query_attr), ERRNO, "crypto_login=h query_attr=out") \
	X(MLX5_1_24, mlx5dv_destroy_steering_anchor, int, (struct mlx5dv_steering_anchor *sa), (sa), ERRNO, "sa=end") \
	X(MLX5_1_24, mlx5dv_dr_action_create_dest_root_table, struct mlx5dv_dr_action *, (struct mlx5dv_dr_table *table, uint16_t priority), (table, priority), PTR, "table=h return=h")

#define VS_MLX5_LIST_1_25(X) \
	X(MLX5_1_25, mlx5dv_get_data_direct_sysfs_path, int, (struct ibv_context *context, char *buf, size_t buf_len), (context, buf, buf_len), ERRNO, "context=h buf=out,bytes=buf_len") \
	X(MLX5_1_25, mlx5dv_reg_dmabuf_mr, struct ibv_mr *, (struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access, int mlx5_access), (pd, offset, length, iova, fd, access, mlx5_access), PTR, "pd=h return=h")

#define VS_MLX5_LIST_1_25_1(X) \
	X(MLX5_1_25_1, __mlx5dv_create_flow, struct ibv_flow *, (struct mlx5dv_flow_matcher *matcher, struct mlx5dv_flow_match_parameters *match_value, size_t num_actions, struct mlx5dv_flow_action_attr *actions_attr, size_t attr_len), (matcher, match_value, num_actions, actions_attr, attr_len), PTR, "matcher=h match_value=in actions_attr=in,count=num_actions return=h")

#define VS_MLX5_LIST_1_26(X) \
	X(MLX5_1_26, mlx5dv_devx_uar_export_dmabuf_fd, int, (struct mlx5dv_devx_uar *devx_uar), (devx_uar), NEG1, "devx_uar=h")

#define VS_MLX5_LIST_1_27(X) \
	X(MLX5_1_27, _mlx5dv_get_export_sizes, void, (struct mlx5dv_export_sizes *sizes, size_t sizes_len), (sizes, sizes_len), VOID, "sizes=out,bytes=sizes_len") \
	X(MLX5_1_27, mlx5dv_devx_obj_export, int, (struct mlx5dv_devx_obj *obj, void *data), (obj, data), ERRNO, "obj=h data=buf") \
	X(MLX5_1_27, mlx5dv_devx_obj_import, struct mlx5dv_devx_obj *, (struct ibv_context *context, void *data), (context, data), PTR, "context=h data=buf return=h") \
	X(MLX5_1_27, mlx5dv_devx_obj_unimport, void, (struct mlx5dv_devx_obj *obj), (obj), VOID, "obj=end") \
	X(MLX5_1_27, mlx5dv_devx_umem_export, int, (struct mlx5dv_devx_umem *umem, void *data), (umem, data), ERRNO, "umem=h data=buf") \
	X(MLX5_1_27, mlx5dv_devx_umem_import, struct mlx5dv_devx_umem *, (struct ibv_context *context, void *data), (context, data), PTR, "context=h data=buf return=h") \
	X(MLX5_1_27, mlx5dv_devx_umem_unimport, void, (struct mlx5dv_devx_umem *umem), (umem), VOID, "umem=end") \
	X(MLX5_1_27, mlx5dv_var_export, int, (struct mlx5dv_var *dv_var, void *data), (dv_var, data), ERRNO, "dv_var=h data=buf") \
	X(MLX5_1_27, mlx5dv_var_import, struct mlx5dv_var *, (struct ibv_context *context, void *data), (context, data), PTR, "context=h data=buf return=h") \
	X(MLX5_1_27, mlx5dv_var_unimport, void, (struct mlx5dv_var *dv_var), (dv_var), VOID, "dv_var=end")

#define VS_MLX5_SYMBOLS(X) \
	VS_MLX5_BASE(X) VS_ON_MLX5_1_18(X) VS_ON_MLX5_1_19(X) VS_ON_MLX5_1_20(X) VS_ON_MLX5_1_21(X) VS_ON_MLX5_1_22(X) VS_ON_MLX5_1_23(X) VS_ON_MLX5_1_24(X) VS_ON_MLX5_1_25(X) VS_ON_MLX5_1_25_1(X) VS_ON_MLX5_1_26(X) VS_ON_MLX5_1_27(X)

#endif /* VS_SYMS_MLX5_H */
