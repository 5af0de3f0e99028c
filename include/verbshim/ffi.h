/* SPDX-License-Identifier: MIT */
/*
 * The FFI twin: every static inline function of the public headers also
 * compiled out of line (lib/core/ffi.c) as vs_ffi_NAME for vs_NAME, so that
 * bindings (Rust, Python ctypes/cffi, Go cgo) that cannot expand a C
 * inline can call it.  Same arguments, results and errors (the error
 * record names vs_NAME); one call more per use.  C and C++ callers use
 * the inlines.
 */
#ifndef VERBSHIM_FFI_H
#define VERBSHIM_FFI_H

#include "verbshim/cq_iter.h"
#include "verbshim/endpoint.h"
#include "verbshim/post.h"
#include "verbshim/recv.h"
#include "verbshim/post_srd.h"

VS_BEGIN_DECLS

/*
 * One row per inline: XFN(return type, NAME, (parameters), (arguments)),
 * XVOID for those returning nothing.  Written from the headers by
 * scripts/ffi-gen.sh (the compiler's -aux-info: each function the headers
 * define), never by hand; test/shell/ffi_rows.sh fails when they differ.
 */
#define VS__FFI_FUNCTIONS(XFN, XVOID) \
	XFN(struct ibv_sge, mr_sge, (const struct vs_mr *mr, size_t offset, uint32_t length), (mr, offset, length)) \
	XFN(struct vs_remote, mr_remote, (const struct vs_mr *mr, size_t offset), (mr, offset)) \
	XFN(void *, mr_ptr, (const struct vs_mr *mr, size_t offset), (mr, offset)) \
	XFN(bool, cq_is_extended, (const struct vs_cq *cq), (cq)) \
	XFN(int, cq_poll, (struct vs_cq *cq, struct vs_wc *wc, int max), (cq, wc, max)) \
	XFN(int, cq_iter_start, (struct vs_cq *cq, struct vs_cq_iter *it), (cq, it)) \
	XFN(int, cq_iter_next, (struct vs_cq_iter *it), (it)) \
	XVOID(cq_iter_end, (struct vs_cq_iter *it), (it)) \
	XFN(uint64_t, cq_iter_wr_id, (const struct vs_cq_iter *it), (it)) \
	XFN(enum ibv_wc_status, cq_iter_status, (const struct vs_cq_iter *it), (it)) \
	XFN(enum ibv_wc_opcode, cq_iter_opcode, (const struct vs_cq_iter *it), (it)) \
	XFN(uint32_t, cq_iter_byte_len, (const struct vs_cq_iter *it), (it)) \
	XFN(unsigned int, cq_iter_wc_flags, (const struct vs_cq_iter *it), (it)) \
	XFN(uint32_t, cq_iter_imm, (const struct vs_cq_iter *it), (it)) \
	XFN(uint32_t, cq_iter_qp_num, (const struct vs_cq_iter *it), (it)) \
	XFN(uint32_t, cq_iter_src_qp, (const struct vs_cq_iter *it), (it)) \
	XFN(uint64_t, cq_iter_timestamp, (const struct vs_cq_iter *it), (it)) \
	XVOID(cq_iter_read, (const struct vs_cq_iter *it, struct vs_wc *wc), (it, wc)) \
	XFN(int, rc_qp_create, (struct vs_pd *pd, const struct vs_rc_config *cfg, struct vs_rc_qp **out), (pd, cfg, out)) \
	XFN(int, uc_qp_create, (struct vs_pd *pd, const struct vs_uc_config *cfg, struct vs_uc_qp **out), (pd, cfg, out)) \
	XFN(int, ud_qp_create, (struct vs_pd *pd, const struct vs_ud_config *cfg, struct vs_ud_qp **out), (pd, cfg, out)) \
	XFN(int, rc_qp_close, (struct vs_rc_qp *qp), (qp)) \
	XFN(int, uc_qp_close, (struct vs_uc_qp *qp), (qp)) \
	XFN(int, ud_qp_close, (struct vs_ud_qp *qp), (qp)) \
	XFN(int, rc_qp_modify, (struct vs_rc_qp *qp, struct ibv_qp_attr *attr, int mask), (qp, attr, mask)) \
	XFN(int, uc_qp_modify, (struct vs_uc_qp *qp, struct ibv_qp_attr *attr, int mask), (qp, attr, mask)) \
	XFN(int, ud_qp_modify, (struct vs_ud_qp *qp, struct ibv_qp_attr *attr, int mask), (qp, attr, mask)) \
	XFN(struct ibv_qp *, rc_qp_raw, (const struct vs_rc_qp *qp), (qp)) \
	XFN(uint32_t, rc_qp_num, (const struct vs_rc_qp *qp), (qp)) \
	XFN(bool, rc_qp_is_extended, (const struct vs_rc_qp *qp), (qp)) \
	XFN(const struct vs_qp_caps *, rc_qp_caps, (const struct vs_rc_qp *qp), (qp)) \
	XFN(struct ibv_qp *, uc_qp_raw, (const struct vs_uc_qp *qp), (qp)) \
	XFN(uint32_t, uc_qp_num, (const struct vs_uc_qp *qp), (qp)) \
	XFN(bool, uc_qp_is_extended, (const struct vs_uc_qp *qp), (qp)) \
	XFN(const struct vs_qp_caps *, uc_qp_caps, (const struct vs_uc_qp *qp), (qp)) \
	XFN(struct ibv_qp *, ud_qp_raw, (const struct vs_ud_qp *qp), (qp)) \
	XFN(uint32_t, ud_qp_num, (const struct vs_ud_qp *qp), (qp)) \
	XFN(bool, ud_qp_is_extended, (const struct vs_ud_qp *qp), (qp)) \
	XFN(const struct vs_qp_caps *, ud_qp_caps, (const struct vs_ud_qp *qp), (qp)) \
	XFN(int, rc_endpoint, (const struct vs_rc_qp *qp, struct vs_endpoint *out), (qp, out)) \
	XFN(int, uc_endpoint, (const struct vs_uc_qp *qp, struct vs_endpoint *out), (qp, out)) \
	XFN(int, ud_endpoint, (const struct vs_ud_qp *qp, struct vs_endpoint *out), (qp, out)) \
	XFN(int, rc_handshake, (struct vs_rc_qp *qp, const struct vs_endpoint *remote), (qp, remote)) \
	XFN(int, uc_handshake, (struct vs_uc_qp *qp, const struct vs_endpoint *remote), (qp, remote)) \
	XFN(int, rc_batch_start, (struct vs_rc_qp *qp, struct vs_rc_batch *b), (qp, b)) \
	XFN(int, rc_send, (struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags, const struct ibv_sge *sgl, size_t num_sge), (b, wr_id, flags, sgl, num_sge)) \
	XFN(int, rc_send_imm, (struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags, uint32_t imm, const struct ibv_sge *sgl, size_t num_sge), (b, wr_id, flags, imm, sgl, num_sge)) \
	XFN(int, rc_write, (struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags, const struct ibv_sge *sgl, size_t num_sge, struct vs_remote remote), (b, wr_id, flags, sgl, num_sge, remote)) \
	XFN(int, rc_write_imm, (struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags, uint32_t imm, const struct ibv_sge *sgl, size_t num_sge, struct vs_remote remote), (b, wr_id, flags, imm, sgl, num_sge, remote)) \
	XFN(int, rc_read, (struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags, const struct ibv_sge *sgl, size_t num_sge, struct vs_remote remote), (b, wr_id, flags, sgl, num_sge, remote)) \
	XFN(int, rc_cas, (struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags, const struct ibv_sge *result, struct vs_remote remote, uint64_t compare, uint64_t swap), (b, wr_id, flags, result, remote, compare, swap)) \
	XFN(int, rc_faa, (struct vs_rc_batch *b, uint64_t wr_id, unsigned int flags, const struct ibv_sge *result, struct vs_remote remote, uint64_t add), (b, wr_id, flags, result, remote, add)) \
	XFN(int, rc_batch_submit, (struct vs_rc_batch *b), (b)) \
	XVOID(rc_batch_abort, (struct vs_rc_batch *b), (b)) \
	XFN(int, uc_batch_start, (struct vs_uc_qp *qp, struct vs_uc_batch *b), (qp, b)) \
	XFN(int, uc_send, (struct vs_uc_batch *b, uint64_t wr_id, unsigned int flags, const struct ibv_sge *sgl, size_t num_sge), (b, wr_id, flags, sgl, num_sge)) \
	XFN(int, uc_send_imm, (struct vs_uc_batch *b, uint64_t wr_id, unsigned int flags, uint32_t imm, const struct ibv_sge *sgl, size_t num_sge), (b, wr_id, flags, imm, sgl, num_sge)) \
	XFN(int, uc_write, (struct vs_uc_batch *b, uint64_t wr_id, unsigned int flags, const struct ibv_sge *sgl, size_t num_sge, struct vs_remote remote), (b, wr_id, flags, sgl, num_sge, remote)) \
	XFN(int, uc_write_imm, (struct vs_uc_batch *b, uint64_t wr_id, unsigned int flags, uint32_t imm, const struct ibv_sge *sgl, size_t num_sge, struct vs_remote remote), (b, wr_id, flags, imm, sgl, num_sge, remote)) \
	XFN(int, uc_batch_submit, (struct vs_uc_batch *b), (b)) \
	XVOID(uc_batch_abort, (struct vs_uc_batch *b), (b)) \
	XFN(int, ud_batch_start, (struct vs_ud_qp *qp, struct vs_ud_batch *b), (qp, b)) \
	XFN(int, ud_send, (struct vs_ud_batch *b, uint64_t wr_id, unsigned int flags, const struct vs_ud_dest *dest, const struct ibv_sge *sgl, size_t num_sge), (b, wr_id, flags, dest, sgl, num_sge)) \
	XFN(int, ud_send_imm, (struct vs_ud_batch *b, uint64_t wr_id, unsigned int flags, const struct vs_ud_dest *dest, uint32_t imm, const struct ibv_sge *sgl, size_t num_sge), (b, wr_id, flags, dest, imm, sgl, num_sge)) \
	XFN(int, ud_batch_submit, (struct vs_ud_batch *b), (b)) \
	XVOID(ud_batch_abort, (struct vs_ud_batch *b), (b)) \
	XFN(int, rc_recv_start, (struct vs_rc_qp *qp, struct vs_recv_batch *rb), (qp, rb)) \
	XFN(int, uc_recv_start, (struct vs_uc_qp *qp, struct vs_recv_batch *rb), (qp, rb)) \
	XFN(int, ud_recv_start, (struct vs_ud_qp *qp, struct vs_recv_batch *rb), (qp, rb)) \
	XFN(int, srq_recv_start, (struct vs_srq *srq, struct vs_recv_batch *rb), (srq, rb)) \
	XFN(int, recv_add, (struct vs_recv_batch *rb, uint64_t wr_id, const struct ibv_sge *sgl, size_t num_sge), (rb, wr_id, sgl, num_sge)) \
	XFN(int, recv_submit, (struct vs_recv_batch *rb), (rb)) \
	XVOID(recv_abort, (struct vs_recv_batch *rb), (rb)) \
	XFN(int, srd_qp_create, (struct vs_pd *pd, const struct vs_srd_config *cfg, struct vs_srd_qp **out), (pd, cfg, out)) \
	XFN(int, srd_qp_close, (struct vs_srd_qp *qp), (qp)) \
	XFN(int, srd_qp_modify, (struct vs_srd_qp *qp, struct ibv_qp_attr *attr, int mask), (qp, attr, mask)) \
	XFN(struct ibv_qp *, srd_qp_raw, (const struct vs_srd_qp *qp), (qp)) \
	XFN(uint32_t, srd_qp_num, (const struct vs_srd_qp *qp), (qp)) \
	XFN(bool, srd_qp_is_extended, (const struct vs_srd_qp *qp), (qp)) \
	XFN(const struct vs_qp_caps *, srd_qp_caps, (const struct vs_srd_qp *qp), (qp)) \
	XFN(int, srd_endpoint, (const struct vs_srd_qp *qp, struct vs_endpoint *out), (qp, out)) \
	XFN(int, srd_recv_start, (struct vs_srd_qp *qp, struct vs_recv_batch *rb), (qp, rb)) \
	XFN(int, srd_batch_start, (struct vs_srd_qp *qp, struct vs_srd_batch *b), (qp, b)) \
	XFN(int, srd_send, (struct vs_srd_batch *b, uint64_t wr_id, unsigned int flags, const struct vs_srd_dest *dest, const struct ibv_sge *sgl, size_t num_sge), (b, wr_id, flags, dest, sgl, num_sge)) \
	XFN(int, srd_send_imm, (struct vs_srd_batch *b, uint64_t wr_id, unsigned int flags, const struct vs_srd_dest *dest, uint32_t imm, const struct ibv_sge *sgl, size_t num_sge), (b, wr_id, flags, dest, imm, sgl, num_sge)) \
	XFN(int, srd_write, (struct vs_srd_batch *b, uint64_t wr_id, unsigned int flags, const struct vs_srd_dest *dest, const struct ibv_sge *sgl, size_t num_sge, struct vs_remote remote), (b, wr_id, flags, dest, sgl, num_sge, remote)) \
	XFN(int, srd_write_imm, (struct vs_srd_batch *b, uint64_t wr_id, unsigned int flags, const struct vs_srd_dest *dest, uint32_t imm, const struct ibv_sge *sgl, size_t num_sge, struct vs_remote remote), (b, wr_id, flags, dest, imm, sgl, num_sge, remote)) \
	XFN(int, srd_read, (struct vs_srd_batch *b, uint64_t wr_id, unsigned int flags, const struct vs_srd_dest *dest, const struct ibv_sge *sgl, size_t num_sge, struct vs_remote remote), (b, wr_id, flags, dest, sgl, num_sge, remote)) \
	XFN(int, srd_batch_submit, (struct vs_srd_batch *b), (b)) \
	XVOID(srd_batch_abort, (struct vs_srd_batch *b), (b))

#define VS__FFI_DECL(ret, name, params, args) ret vs_ffi_##name params;
#define VS__FFI_DECL_VOID(name, params, args) void vs_ffi_##name params;
VS__FFI_FUNCTIONS(VS__FFI_DECL, VS__FFI_DECL_VOID)
#undef VS__FFI_DECL
#undef VS__FFI_DECL_VOID

VS_END_DECLS

#endif /* VERBSHIM_FFI_H */
