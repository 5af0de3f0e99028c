/* SPDX-License-Identifier: MIT */
/*
 * Memory: protection domains and memory regions.
 */
#ifndef VERBSHIM_MEM_H
#define VERBSHIM_MEM_H

#include "verbshim/device.h"

VS_BEGIN_DECLS

struct vs_pd {
	struct vs_handle h; /* private */
	struct ibv_pd *pd;
	struct vs_context *ctx;
};

/**
 * vs_pd_alloc() - allocate a protection domain
 * @ctx: an open device context
 * @out: where the result goes
 *
 * Return: 0 or -errno: -EINVAL bad handle or NULL out (*out is NULL on any
 * failure); the error of ibv_alloc_pd.
 */
VS_MUST_CHECK
int vs_pd_alloc(struct vs_context *ctx, struct vs_pd **out);
/**
 * vs_pd_close() - the user's close of a PD (freed when its MRs, QPs and SRQs are gone)
 * @pd: an open PD
 *
 * Drops the caller's reference; MRs, QPs, SRQs and AHs hold their own.
 *
 * Return: 0 or -errno: -EINVAL NULL, closed or other-kind handle; the
 * provider's error when the destroy fails (the object then stays open:
 * close it again to retry).
 */
int vs_pd_close(struct vs_pd *pd);
/**
 * vs_pd_raw() - the ibv_pd behind a PD
 * @pd: an open PD
 *
 * Return: it, or NULL for a NULL, closed or other-kind handle.
 */
struct ibv_pd *vs_pd_raw(const struct vs_pd *pd);

/* Access used when access == 0: local write, remote read/write/atomic. */
#define VS_ACCESS_DEFAULT                                                     \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |                   \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

struct vs_mr {
	struct vs_handle h; /* private */
	/* private: freed on the last close; in h's tail padding, so that the
	 * MR stays in the handle arena's 64-byte class with PDs and AHs */
	bool owns_buffer;
	struct ibv_mr *mr;
	struct vs_pd *pd;
	void *addr;	/* byte 0 for the CPU; NULL for a dmabuf MR (no CPU mapping) */
	uint64_t iova;	/* byte 0 for the device (SGEs, remote): addr, or the dmabuf's iova */
	size_t length;
};

/**
 * vs_mr_alloc() - allocate a zeroed, page-aligned buffer and register it
 * @pd: an open PD
 * @length: bytes
 * @access: IBV_ACCESS_* (0: VS_ACCESS_DEFAULT)
 * @out: where the result goes
 *
 * An MR over a fresh zeroed page-aligned buffer of length bytes it owns.
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL out, length 0 or
 * inconsistent access; the error of ibv_reg_mr with a hint. *out is NULL
 * on any failure.
 */
VS_MUST_CHECK
int vs_mr_alloc(struct vs_pd *pd, size_t length, unsigned int access,
		struct vs_mr **out);
/**
 * vs_mr_register() - register the caller's memory
 * @pd: an open PD
 * @addr: the caller's memory
 * @length: bytes
 * @access: IBV_ACCESS_* (0: VS_ACCESS_DEFAULT)
 * @out: where the result goes
 *
 * An MR over caller memory (malloc, mmap, hugepages); the caller keeps it.
 *
 * Return: 0 or -errno as vs_mr_alloc(), and -EINVAL for a NULL addr; the
 * memory is not freed by the close.
 */
VS_MUST_CHECK
int vs_mr_register(struct vs_pd *pd, void *addr, size_t length,
		   unsigned int access, struct vs_mr **out);
/**
 * vs_mr_register_dmabuf() - register a dmabuf
 * @pd: an open PD
 * @fd: the dmabuf file descriptor
 * @offset: byte offset into the MR
 * @length: bytes
 * @iova: the I/O virtual address
 * @access: IBV_ACCESS_* (0: VS_ACCESS_DEFAULT)
 * @out: where the result goes
 *
 * An MR over a dmabuf (fd, offset into it, iova the device will see).
 * Its SGEs and remote addresses are iova-based (vs_mr_sge(mr, off, n).addr
 * is iova + off); it has no CPU address, so vs_mr_ptr() refuses it.
 *
 * Return: 0 or -errno: -EBADF fd < 0; -EOPNOTSUPP where dmabuf MRs are not
 * supported: the machine's libibverbs predates ibv_reg_dmabuf_mr (the
 * record names the release that added it and the node found, as
 * vs_feature_query(VS_FEATURE_DMABUF_MR) tells beforehand), or the provider
 * or kernel refuses them; as vs_mr_register() otherwise.
 */
VS_MUST_CHECK
int vs_mr_register_dmabuf(struct vs_pd *pd, int fd, uint64_t offset,
			  size_t length, uint64_t iova, unsigned int access,
			  struct vs_mr **out);
/**
 * vs_mr_advise() - memory advice (prefetch) on an on-demand-paging MR
 * @mr: an open MR
 * @advice: enum ibv_advise_mr_advice
 * @flags: enum vs_wr_flags
 * @offset: byte offset into the MR
 * @length: bytes
 *
 * Prefetch advice (ibv_advise_mr) for [offset, offset+length) of the MR;
 * -EOPNOTSUPP with the reason where the device or kernel has none.
 *
 * Return: 0 or -errno: -EINVAL bad handle or range outside the MR;
 * -EOPNOTSUPP no advise_mr or not an ODP MR.
 */
int vs_mr_advise(struct vs_mr *mr, enum ibv_advise_mr_advice advice,
		 uint32_t flags, size_t offset, size_t length);
/**
 * vs_mr_close() - the user's close of an MR (deregistered at once unless in use)
 * @mr: an open MR
 *
 * Return: 0 or -errno: -EINVAL NULL, closed or other-kind handle; the
 * provider's error when the destroy fails (the object then stays open:
 * close it again to retry).
 */
int vs_mr_close(struct vs_mr *mr);
/**
 * vs_mr_raw() - the ibv_mr behind an MR
 * @mr: an open MR
 *
 * Return: it, or NULL for a NULL, closed or other-kind handle.
 */
struct ibv_mr *vs_mr_raw(const struct vs_mr *mr);

/* A remote buffer: what a peer needs to read, write or do atomics on. */
struct vs_remote {
	uint64_t addr;
	uint32_t rkey;
};

/* private: the out-of-line halves of the helpers below */
int vs__mr_bad(const struct vs_mr *mr, size_t offset, size_t length,
	       const char *verb) VS_COLD;
struct ibv_sge vs__mr_sge_bad(const struct vs_mr *mr, size_t offset,
			      uint32_t length) VS_COLD;

/* private: mr is an open MR and [offset, offset+length) lies inside it */
VS__INLINE bool vs__mr_range_ok(const struct vs_mr *mr, size_t offset,
			       size_t length)
{
	return mr && mr->h.magic == VS_KIND_MR && offset <= mr->length &&
	       length <= mr->length - offset;
}

/**
 * vs_mr_sge() - an SGE over [offset, offset + length) of the MR
 * @mr: an open MR
 * @offset: byte offset into the MR
 * @length: bytes
 *
 * One scatter/gather entry over [offset, offset+length) of the MR. A NULL,
 * closed or other-kind mr, or a range outside the MR, gives the poisoned
 * entry { 0, 0, 0 } and records the error (vs_last_error); the batch adds
 * refuse a poisoned entry with -EINVAL naming its index.
 *
 * Return: the SGE; for a bad handle or a range outside the MR the error is
 * recorded and the SGE is {0, 0, 0}, which a batch add refuses.
 */
VS_INLINE struct ibv_sge vs_mr_sge(const struct vs_mr *mr, size_t offset,
				   uint32_t length)
{
	struct ibv_sge sge;

	if (VS_UNLIKELY(!vs__mr_range_ok(mr, offset, length)))
		return vs__mr_sge_bad(mr, offset, length);
	sge.addr = mr->iova + offset;
	sge.length = length;
	sge.lkey = mr->mr->lkey;
	return sge;
}

/**
 * vs_mr_remote() - what a peer needs to reach offset of the MR
 * @mr: an open MR
 * @offset: byte offset into the MR
 *
 * The MR at offset as a remote buffer (to hand to a peer, or loopback). A
 * NULL, closed or other-kind mr, or offset past its end, gives { 0, 0 }
 * and records the error.
 *
 * Return: {addr, rkey}; {0, 0} with the error recorded for a bad handle or
 * offset.
 */
VS_INLINE struct vs_remote vs_mr_remote(const struct vs_mr *mr, size_t offset)
{
	struct vs_remote r = { 0, 0 };

	if (VS_UNLIKELY(!vs__mr_range_ok(mr, offset, 0))) {
		vs__mr_bad(mr, offset, 0, "vs_mr_remote");
		return r;
	}
	r.addr = mr->iova + offset;
	r.rkey = mr->mr->rkey;
	return r;
}

/**
 * vs_mr_ptr() - a pointer to offset in the MR
 * @mr: an open MR
 * @offset: byte offset into the MR
 *
 * Pointer to byte offset of an MR's memory; NULL (error recorded) as
 * above, and for a dmabuf MR, whose memory has no CPU address.
 *
 * Return: the pointer; NULL with the error recorded for a bad handle or
 * offset, or -EINVAL's record naming the dmabuf for a dmabuf MR.
 */
VS_INLINE void *vs_mr_ptr(const struct vs_mr *mr, size_t offset)
{
	if (VS_UNLIKELY(!vs__mr_range_ok(mr, offset, 0) || !mr->addr)) {
		vs__mr_bad(mr, offset, 0, "vs_mr_ptr");
		return NULL;
	}
	return (char *)mr->addr + offset;
}

#ifdef VS__TYPE_GUARDS
#define vs_pd_alloc(c, out) vs_pd_alloc(VS__IS(struct vs_context, c), VS__IS(struct vs_pd *, out))
#define vs_pd_close(pd) vs_pd_close(VS__IS(struct vs_pd, pd))
#define vs_pd_raw(pd) vs_pd_raw(VS__IS_C(struct vs_pd, pd))
#define vs_mr_alloc(pd, ...) \
	vs_mr_alloc(VS__OUT(struct vs_mr **, VS__IS(struct vs_pd, pd), __VA_ARGS__), __VA_ARGS__)
#define vs_mr_register(pd, ...) \
	vs_mr_register(VS__OUT(struct vs_mr **, VS__IS(struct vs_pd, pd), __VA_ARGS__), __VA_ARGS__)
#define vs_mr_register_dmabuf(pd, ...) \
	vs_mr_register_dmabuf(VS__OUT(struct vs_mr **, VS__IS(struct vs_pd, pd), __VA_ARGS__), __VA_ARGS__)
#define vs_mr_advise(mr, ...) vs_mr_advise(VS__IS(struct vs_mr, mr), __VA_ARGS__)
#define vs_mr_close(mr) vs_mr_close(VS__IS(struct vs_mr, mr))
#define vs_mr_raw(mr) vs_mr_raw(VS__IS_C(struct vs_mr, mr))
#define vs_mr_sge(mr, ...) vs_mr_sge(VS__IS_C(struct vs_mr, mr), __VA_ARGS__)
#define vs_mr_remote(mr, ...) vs_mr_remote(VS__IS_C(struct vs_mr, mr), __VA_ARGS__)
#define vs_mr_ptr(mr, ...) vs_mr_ptr(VS__IS_C(struct vs_mr, mr), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_MEM_H */
