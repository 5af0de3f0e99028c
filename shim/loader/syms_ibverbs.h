/* SPDX-License-Identifier: MIT */
/*
 * libibverbs: every public function symbol, one row each.
 *
 *   X(node, name, return type, (parameters), (arguments), convention, facts)
 *
 * node:       the version node the symbol is pinned to with dlvsym(); 1.1
 *             for symbols also exported as a 1.0 compat version, 1.0 for
 *             those that only exist there.
 * convention: what the drop-in does when the library or the symbol is
 *             missing, following upstream (see shim/loader/vs_shim.h):
 *             PTR NULL + errno, ERRNO returns EOPNOTSUPP, NEG1 -1 + errno,
 *             NEGERR -EOPNOTSUPP, ZERO 0 + errno, STR "unknown", VOID,
 *             CUSTOM (hand-written: a fallback or out-parameters to clear).
 * facts:      what VERBSHIM_TRACE may read through each pointer parameter,
 *             and when (docs/trace.md, "What is decoded when"): a string of
 *             "NAME=ROLE[,MODIFIER...]" items, one for every pointer
 *             parameter and one for a pointer result (NAME "return"),
 *             e.g. "addr=out,bytes=*addrlen addrlen=inout".  ROLE:
 *               h      a handle of the library's: shown as its id, never
 *                      read ("actions=h,count=num_actions": an array of
 *                      handles, that many)
 *               hout   a handle the call writes into *NAME (struct T **)
 *               end    a handle the call ends: id shown, then forgotten
 *               in     the caller's data, read before the call
 *               out    written by the call: read only after it succeeded
 *               inout  both
 *               buf    bytes never shown (data, user contexts): address
 *               str    a NUL-terminated input string
 *               free   freed by the call: never read after it
 *             MODIFIER: bytes=LEN or count=LEN, the caller's bound on
 *             what may be read (LEN a parameter, or *PARAM for the value
 *             it points to: for an output the smaller of that value
 *             before and after the call); ends=FIELD, the call also ends
 *             the handle in NAME->FIELD (read before the call; the
 *             fields known are in shim/trace/trace_decode.c).  No fact: never
 *             read.  test/unit/trace_facts.c walks every row and fails on
 *             a pointer without a fact or a fact the prototype contradicts.
 *
 * Nodes newer than the oldest supported headers (rdma-core 33) are in
 * lists of their own, compiled in only when the headers in use declare
 * them (scripts/build/feature-config.sh).  Adding a symbol is one row.
 */
#ifndef VS_SYMS_IBVERBS_H
#define VS_SYMS_IBVERBS_H

/* node id, version string, first rdma-core release */
#define VS_IBVERBS_NODES(N)                                                    \
	N(IBVERBS_1_0, "IBVERBS_1.0", 13)                                      \
	N(IBVERBS_1_1, "IBVERBS_1.1", 13)                                      \
	N(IBVERBS_1_5, "IBVERBS_1.5", 20)                                      \
	N(IBVERBS_1_6, "IBVERBS_1.6", 24)                                      \
	N(IBVERBS_1_7, "IBVERBS_1.7", 25)                                      \
	N(IBVERBS_1_8, "IBVERBS_1.8", 28)                                      \
	N(IBVERBS_1_9, "IBVERBS_1.9", 30)                                      \
	N(IBVERBS_1_10, "IBVERBS_1.10", 31)                                    \
	N(IBVERBS_1_11, "IBVERBS_1.11", 32)                                    \
	N(IBVERBS_1_12, "IBVERBS_1.12", 34)                                    \
	N(IBVERBS_1_13, "IBVERBS_1.13", 35)                                    \
	N(IBVERBS_1_14, "IBVERBS_1.14", 36)                                    \
	N(IBVERBS_1_15, "IBVERBS_1.15", 59)                                    \
	N(IBVERBS_1_16, "IBVERBS_1.16", 62)                                    \
	N(IBVERBS_1_17, "IBVERBS_1.17", 64)                                    \
	N(IBVERBS_1_18, "IBVERBS_1.18", 65)

/* In every supported header set (rdma-core >= 33). */
#define VS_IBVERBS_BASE(X)                                                     \
	X(IBVERBS_1_0, ibv_create_comp_channel, struct ibv_comp_channel *, (struct ibv_context *context), (context), PTR, "context=h return=h") \
	X(IBVERBS_1_0, ibv_destroy_comp_channel, int, (struct ibv_comp_channel *channel), (channel), ERRNO, "channel=end") \
	X(IBVERBS_1_0, ibv_rate_to_mult, int, (enum ibv_rate rate), (rate), NEG1, "fails=never") \
	X(IBVERBS_1_0, mult_to_ibv_rate, enum ibv_rate, (int mult), (mult), ZERO, "fails=never") \
	X(IBVERBS_1_0, ibv_copy_path_rec_from_kern, void, (struct ibv_sa_path_rec *dst, struct ib_user_path_rec *src), (dst, src), VOID, "dst=out src=in") \
	X(IBVERBS_1_0, ibv_copy_path_rec_to_kern, void, (struct ib_user_path_rec *dst, struct ibv_sa_path_rec *src), (dst, src), VOID, "dst=out src=in") \
	X(IBVERBS_1_0, ibv_copy_qp_attr_from_kern, void, (struct ibv_qp_attr *dst, struct ib_uverbs_qp_attr *src), (dst, src), VOID, "dst=out src=in") \
	X(IBVERBS_1_0, ibv_get_sysfs_path, const char *, (void), (), PTR, "return=str") \
	X(IBVERBS_1_0, ibv_read_sysfs_file, int, (const char *dir, const char *file, char *buf, size_t size), (dir, file, buf, size), NEG1, "dir=str file=str buf=buf") \
	X(IBVERBS_1_1, ibv_get_device_list, struct ibv_device **, (int *num_devices), (num_devices), CUSTOM, "num_devices=out return=buf") \
	X(IBVERBS_1_1, ibv_free_device_list, void, (struct ibv_device **list), (list), VOID, "list=free") \
	X(IBVERBS_1_1, ibv_get_device_name, const char *, (struct ibv_device *device), (device), PTR, "device=h return=str fails=never") \
	X(IBVERBS_1_1, ibv_get_device_guid, __be64, (struct ibv_device *device), (device), ZERO, "device=h") \
	X(IBVERBS_1_1, ibv_open_device, struct ibv_context *, (struct ibv_device *device), (device), PTR, "device=h return=h") \
	X(IBVERBS_1_1, ibv_close_device, int, (struct ibv_context *context), (context), NEG1, "context=end") \
	X(IBVERBS_1_1, ibv_get_async_event, int, (struct ibv_context *context, struct ibv_async_event *event), (context, event), NEG1, "context=h event=out") \
	X(IBVERBS_1_1, ibv_ack_async_event, void, (struct ibv_async_event *event), (event), VOID, "event=in") \
	X(IBVERBS_1_1, ibv_query_device, int, (struct ibv_context *context, struct ibv_device_attr *device_attr), (context, device_attr), ERRNO, "context=h device_attr=out") \
	X(IBVERBS_1_1, ibv_query_port, int, (struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr), (context, port_num, port_attr), ERRNO, "context=h port_attr=out") \
	X(IBVERBS_1_1, ibv_query_gid, int, (struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid), (context, port_num, index, gid), NEG1, "context=h gid=out") \
	X(IBVERBS_1_1, ibv_query_pkey, int, (struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey), (context, port_num, index, pkey), NEG1, "context=h pkey=out") \
	X(IBVERBS_1_1, ibv_alloc_pd, struct ibv_pd *, (struct ibv_context *context), (context), PTR, "context=h return=h") \
	X(IBVERBS_1_1, ibv_dealloc_pd, int, (struct ibv_pd *pd), (pd), ERRNO, "pd=end") \
	X(IBVERBS_1_1, ibv_reg_mr, struct ibv_mr *, (struct ibv_pd *pd, void *addr, size_t length, int access), (pd, addr, length, access), PTR, "pd=h addr=buf return=h") \
	X(IBVERBS_1_1, ibv_rereg_mr, int, (struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length, int access), (mr, flags, pd, addr, length, access), NEG1, "mr=h pd=h addr=buf") \
	X(IBVERBS_1_1, ibv_dereg_mr, int, (struct ibv_mr *mr), (mr), ERRNO, "mr=end") \
	X(IBVERBS_1_1, ibv_create_cq, struct ibv_cq *, (struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel, int comp_vector), (context, cqe, cq_context, channel, comp_vector), PTR, "context=h cq_context=buf channel=h return=h") \
	X(IBVERBS_1_1, ibv_resize_cq, int, (struct ibv_cq *cq, int cqe), (cq, cqe), ERRNO, "cq=h") \
	X(IBVERBS_1_1, ibv_destroy_cq, int, (struct ibv_cq *cq), (cq), ERRNO, "cq=end") \
	X(IBVERBS_1_1, ibv_get_cq_event, int, (struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context), (channel, cq, cq_context), NEG1, "channel=h cq=hout cq_context=out") \
	X(IBVERBS_1_1, ibv_ack_cq_events, void, (struct ibv_cq *cq, unsigned int nevents), (cq, nevents), VOID, "cq=h") \
	X(IBVERBS_1_1, ibv_create_srq, struct ibv_srq *, (struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr), (pd, srq_init_attr), PTR, "pd=h srq_init_attr=inout return=h") \
	X(IBVERBS_1_1, ibv_modify_srq, int, (struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask), (srq, srq_attr, srq_attr_mask), ERRNO, "srq=h srq_attr=in") \
	X(IBVERBS_1_1, ibv_query_srq, int, (struct ibv_srq *srq, struct ibv_srq_attr *srq_attr), (srq, srq_attr), ERRNO, "srq=h srq_attr=out") \
	X(IBVERBS_1_1, ibv_destroy_srq, int, (struct ibv_srq *srq), (srq), ERRNO, "srq=end") \
	X(IBVERBS_1_1, ibv_create_qp, struct ibv_qp *, (struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr), (pd, qp_init_attr), PTR, "pd=h qp_init_attr=inout return=h") \
	X(IBVERBS_1_1, ibv_query_qp, int, (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init_attr), (qp, attr, attr_mask, init_attr), ERRNO, "qp=h attr=out init_attr=out") \
	X(IBVERBS_1_1, ibv_modify_qp, int, (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask), (qp, attr, attr_mask), ERRNO, "qp=h attr=in") \
	X(IBVERBS_1_1, ibv_destroy_qp, int, (struct ibv_qp *qp), (qp), ERRNO, "qp=end") \
	X(IBVERBS_1_1, ibv_create_ah, struct ibv_ah *, (struct ibv_pd *pd, struct ibv_ah_attr *attr), (pd, attr), PTR, "pd=h attr=in return=h") \
	X(IBVERBS_1_1, ibv_destroy_ah, int, (struct ibv_ah *ah), (ah), ERRNO, "ah=end") \
	X(IBVERBS_1_1, ibv_attach_mcast, int, (struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid), (qp, gid, lid), ERRNO, "qp=h gid=in") \
	X(IBVERBS_1_1, ibv_detach_mcast, int, (struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid), (qp, gid, lid), ERRNO, "qp=h gid=in") \
	X(IBVERBS_1_1, ibv_create_ah_from_wc, struct ibv_ah *, (struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port_num), (pd, wc, grh, port_num), PTR, "pd=h wc=in grh=in return=h") \
	X(IBVERBS_1_1, ibv_init_ah_from_wc, int, (struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc, struct ibv_grh *grh, struct ibv_ah_attr *ah_attr), (context, port_num, wc, grh, ah_attr), ERRNO, "context=h wc=in grh=in ah_attr=out") \
	X(IBVERBS_1_1, ibv_dofork_range, int, (void *base, size_t size), (base, size), ERRNO, "base=buf") \
	X(IBVERBS_1_1, ibv_dontfork_range, int, (void *base, size_t size), (base, size), ERRNO, "base=buf") \
	X(IBVERBS_1_1, ibv_fork_init, int, (void), (), CUSTOM, "") \
	X(IBVERBS_1_1, ibv_event_type_str, const char *, (enum ibv_event_type event), (event), STR, "return=str") \
	X(IBVERBS_1_1, ibv_node_type_str, const char *, (enum ibv_node_type node_type), (node_type), STR, "return=str") \
	X(IBVERBS_1_1, ibv_port_state_str, const char *, (enum ibv_port_state port_state), (port_state), STR, "return=str") \
	X(IBVERBS_1_1, ibv_wc_status_str, const char *, (enum ibv_wc_status status), (status), STR, "return=str") \
	X(IBVERBS_1_1, ibv_rate_to_mbps, int, (enum ibv_rate rate), (rate), NEG1, "fails=never") \
	X(IBVERBS_1_1, mbps_to_ibv_rate, enum ibv_rate, (int mbps), (mbps), ZERO, "fails=never") \
	X(IBVERBS_1_1, ibv_resolve_eth_l2_from_gid, int, (struct ibv_context *context, struct ibv_ah_attr *attr, uint8_t eth_mac[6], uint16_t *vid), (context, attr, eth_mac, vid), ERRNO, "context=h attr=in eth_mac=out vid=out") \
	X(IBVERBS_1_1, ibv_copy_ah_attr_from_kern, void, (struct ibv_ah_attr *dst, struct ib_uverbs_ah_attr *src), (dst, src), VOID, "dst=out src=in") \
	X(IBVERBS_1_5, ibv_get_pkey_index, int, (struct ibv_context *context, uint8_t port_num, __be16 pkey), (context, port_num, pkey), NEG1, "context=h") \
	X(IBVERBS_1_6, ibv_qp_to_qp_ex, struct ibv_qp_ex *, (struct ibv_qp *qp), (qp), PTR, "qp=h return=h") \
	X(IBVERBS_1_7, ibv_reg_mr_iova, struct ibv_mr *, (struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access), (pd, addr, length, iova, access), CUSTOM, "pd=h addr=buf return=h") \
	X(IBVERBS_1_8, ibv_reg_mr_iova2, struct ibv_mr *, (struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access), (pd, addr, length, iova, access), CUSTOM, "pd=h addr=buf return=h") \
	X(IBVERBS_1_9, ibv_get_device_index, int, (struct ibv_device *device), (device), NEG1, "device=h") \
	X(IBVERBS_1_10, ibv_import_device, struct ibv_context *, (int cmd_fd), (cmd_fd), PTR, "return=h") \
	X(IBVERBS_1_10, ibv_import_pd, struct ibv_pd *, (struct ibv_context *context, uint32_t pd_handle), (context, pd_handle), PTR, "context=h return=h") \
	X(IBVERBS_1_10, ibv_unimport_pd, void, (struct ibv_pd *pd), (pd), VOID, "pd=end") \
	X(IBVERBS_1_10, ibv_import_mr, struct ibv_mr *, (struct ibv_pd *pd, uint32_t mr_handle), (pd, mr_handle), PTR, "pd=h return=h") \
	X(IBVERBS_1_10, ibv_unimport_mr, void, (struct ibv_mr *mr), (mr), VOID, "mr=end") \
	X(IBVERBS_1_10, ibv_query_ece, int, (struct ibv_qp *qp, struct ibv_ece *ece), (qp, ece), ERRNO, "qp=h ece=out") \
	X(IBVERBS_1_10, ibv_set_ece, int, (struct ibv_qp *qp, struct ibv_ece *ece), (qp, ece), ERRNO, "qp=h ece=in") \
	X(IBVERBS_1_11, _ibv_query_gid_ex, int, (struct ibv_context *context, uint32_t port_num, uint32_t gid_index, struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size), (context, port_num, gid_index, entry, flags, entry_size), CUSTOM, "context=h entry=out,bytes=entry_size") \
	X(IBVERBS_1_11, _ibv_query_gid_table, ssize_t, (struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries, uint32_t flags, size_t entry_size), (context, entries, max_entries, flags, entry_size), CUSTOM, "context=h entries=out,count=max_entries")

#define VS_IBVERBS_LIST_1_12(X)                                                \
	X(IBVERBS_1_12, ibv_reg_dmabuf_mr, struct ibv_mr *, (struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access), (pd, offset, length, iova, fd, access), PTR, "pd=h return=h")

#define VS_IBVERBS_LIST_1_13(X)                                                \
	X(IBVERBS_1_13, ibv_import_dm, struct ibv_dm *, (struct ibv_context *context, uint32_t dm_handle), (context, dm_handle), PTR, "context=h return=h") \
	X(IBVERBS_1_13, ibv_unimport_dm, void, (struct ibv_dm *dm), (dm), VOID, "dm=end") \
	X(IBVERBS_1_13, ibv_is_fork_initialized, enum ibv_fork_status, (void), (), CUSTOM, "")

#define VS_IBVERBS_LIST_1_14(X)                                                \
	X(IBVERBS_1_14, ibv_query_qp_data_in_order, int, (struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags), (qp, op, flags), ZERO, "qp=h")

#define VS_IBVERBS_LIST_1_15(X)                                                \
	X(IBVERBS_1_15, ibv_alloc_dmah, struct ibv_dmah *, (struct ibv_context *context, struct ibv_dmah_init_attr *attr), (context, attr), PTR, "context=h attr=in return=h") \
	X(IBVERBS_1_15, ibv_dealloc_dmah, int, (struct ibv_dmah *dmah), (dmah), ERRNO, "dmah=end") \
	X(IBVERBS_1_15, ibv_reg_mr_ex, struct ibv_mr *, (struct ibv_pd *pd, struct ibv_mr_init_attr *mr_init_attr), (pd, mr_init_attr), PTR, "pd=h mr_init_attr=in return=h")

#define VS_IBVERBS_LIST_1_16(X)                                                \
	X(IBVERBS_1_16, ibv_dm_export_dmabuf_fd, int, (struct ibv_dm *dm), (dm), NEG1, "dm=h") \
	X(IBVERBS_1_16, ibv_query_port_speed, int, (struct ibv_context *context, uint32_t port_num, uint64_t *port_speed), (context, port_num, port_speed), ERRNO, "context=h port_speed=out")

#define VS_IBVERBS_LIST_1_17(X)                                                \
	X(IBVERBS_1_17, ibv_alloc_buf, void *, (struct ibv_pd *pd, size_t size, struct ibv_buf **buf), (pd, size, buf), PTR, "pd=h buf=hout return=buf") \
	X(IBVERBS_1_17, ibv_free_buf, void, (struct ibv_buf *buf), (buf), VOID, "buf=end") \
	X(IBVERBS_1_17, ibv_reg_buf_mr, struct ibv_mr *, (struct ibv_pd *pd, struct ibv_buf *buf, void *addr, size_t length, int access), (pd, buf, addr, length, access), PTR, "pd=h buf=h addr=buf return=h")

#define VS_IBVERBS_LIST_1_18(X)                                                \
	X(IBVERBS_1_18, _ibv_query_comp_cntr_caps, int, (struct ibv_context *context, struct ibv_comp_cntr_caps *caps, size_t caps_size), (context, caps, caps_size), ERRNO, "context=h caps=out,bytes=caps_size") \
	X(IBVERBS_1_18, ibv_create_comp_cntr, struct ibv_comp_cntr *, (struct ibv_context *context, struct ibv_comp_cntr_init_attr *cc_attr), (context, cc_attr), PTR, "context=h cc_attr=in return=h") \
	X(IBVERBS_1_18, ibv_destroy_comp_cntr, int, (struct ibv_comp_cntr *comp_cntr), (comp_cntr), ERRNO, "comp_cntr=end") \
	X(IBVERBS_1_18, ibv_export_buf_dmabuf_fd, int, (struct ibv_buf *buf), (buf), NEG1, "buf=h") \
	X(IBVERBS_1_18, ibv_inc_comp_cntr, int, (struct ibv_comp_cntr *comp_cntr, uint64_t amount), (comp_cntr, amount), ERRNO, "comp_cntr=h") \
	X(IBVERBS_1_18, ibv_inc_err_comp_cntr, int, (struct ibv_comp_cntr *comp_cntr, uint64_t amount), (comp_cntr, amount), ERRNO, "comp_cntr=h") \
	X(IBVERBS_1_18, ibv_qp_attach_comp_cntr, int, (struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr, struct ibv_qp_attach_comp_cntr_attr *attr), (qp, comp_cntr, attr), ERRNO, "qp=h comp_cntr=h attr=in") \
	X(IBVERBS_1_18, ibv_read_comp_cntr, int, (struct ibv_comp_cntr *comp_cntr, uint64_t *value), (comp_cntr, value), ERRNO, "comp_cntr=h value=out") \
	X(IBVERBS_1_18, ibv_read_err_comp_cntr, int, (struct ibv_comp_cntr *comp_cntr, uint64_t *value), (comp_cntr, value), ERRNO, "comp_cntr=h value=out") \
	X(IBVERBS_1_18, ibv_set_comp_cntr, int, (struct ibv_comp_cntr *comp_cntr, uint64_t value), (comp_cntr, value), ERRNO, "comp_cntr=h") \
	X(IBVERBS_1_18, ibv_set_err_comp_cntr, int, (struct ibv_comp_cntr *comp_cntr, uint64_t value), (comp_cntr, value), ERRNO, "comp_cntr=h")

/* All rows: VS_ON_<node> (generated, build/gen/vs_config.h) expands a
 * node's list when the headers in use declare it, to nothing otherwise. */
#define VS_IBVERBS_SYMBOLS(X)                                                  \
	VS_IBVERBS_BASE(X) VS_ON_IBVERBS_1_12(X) VS_ON_IBVERBS_1_13(X)         \
	VS_ON_IBVERBS_1_14(X) VS_ON_IBVERBS_1_15(X) VS_ON_IBVERBS_1_16(X)      \
	VS_ON_IBVERBS_1_17(X) VS_ON_IBVERBS_1_18(X)

#endif /* VS_SYMS_IBVERBS_H */
