// SPDX-License-Identifier: MIT
/*
 * The libibverbs drop-ins that are more than a forward: out-parameters a
 * caller reads even on failure, and fallbacks for symbols that older
 * releases lack.
 */
#include <stdlib.h>

#include "dropin.h"

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	VS_RESOLVE(ibverbs, ibv_get_device_list,
		   if (num_devices) *num_devices = 0;
		   errno = vs_err; return NULL)
	return fn(num_devices);
}

int ibv_fork_init(void)
{
	int ret;

	VS_RESOLVE(ibverbs, ibv_fork_init, errno = vs_err; return vs_err)
	ret = fn();
	if (!ret)
		__atomic_store_n(&vs__ibverbs.fork_init_ok, 1, __ATOMIC_RELAXED);
	return ret;
}

#ifdef VS_HAVE_IBVERBS_1_13
/* Before IBVERBS_1.13 (rdma-core 35) the library cannot say; fork
 * protection is on when ibv_fork_init() succeeded here, or when the
 * library was told to do it itself (RDMAV_FORK_SAFE / IBV_FORK_SAFE, read
 * by its initialisation). */
static enum ibv_fork_status vs_fork_status_fallback(void)
{
	if (__atomic_load_n(&vs__ibverbs.fork_init_ok, __ATOMIC_RELAXED))
		return IBV_FORK_ENABLED;
	if (vs__ibverbs.state.handle &&
	    (getenv("RDMAV_FORK_SAFE") || getenv("IBV_FORK_SAFE")))
		return IBV_FORK_ENABLED;
	return IBV_FORK_DISABLED;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	VS_RESOLVE(ibverbs, ibv_is_fork_initialized,
		   (void)vs_err; return vs_fork_status_fallback())
	return fn();
}
#endif

/* Without IBVERBS_1.7/1.8 (rdma-core < 25/28) plain ibv_reg_mr() is the
 * same call when the I/O virtual address is the buffer's own address and
 * no optional access flag is asked for. */
static struct ibv_mr *vs_reg_mr_fallback(struct ibv_pd *pd, void *addr,
					 size_t length, uint64_t iova,
					 unsigned int access)
{
	if (iova != (uintptr_t)addr || (access & IBV_ACCESS_OPTIONAL_RANGE)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return ibv_reg_mr(pd, addr, length, (int)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	VS_RESOLVE(ibverbs, ibv_reg_mr_iova,
		   (void)vs_err; return vs_reg_mr_fallback(pd, addr, length, iova,
					     (unsigned int)access))
	return fn(pd, addr, length, iova, access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	VS_RESOLVE(ibverbs, ibv_reg_mr_iova2,
		   (void)vs_err; return vs_reg_mr_fallback(pd, addr, length, iova, access))
	return fn(pd, addr, length, iova, access);
}

/* Before IBVERBS_1.11 (rdma-core 32): ibv_query_gid() plus sysfs, when
 * libibverbs itself is there. */
static int vs_gid_entry_missing(int err, struct ibv_context *context,
				uint32_t port_num, uint32_t gid_index,
				struct ibv_gid_entry *entry, uint32_t flags,
				size_t entry_size)
{
	if (err != EOPNOTSUPP || !vs__ibverbs.state.handle) {
		errno = err;
		return err;
	}
	if (!context || !entry || flags || entry_size < sizeof(*entry))
		return EINVAL;
	return vs__gid_entry_fallback(context, port_num, gid_index, entry);
}

static ssize_t vs_gid_table_missing(int err, struct ibv_context *context,
				    struct ibv_gid_entry *entries,
				    size_t max_entries, uint32_t flags,
				    size_t entry_size)
{
	if (err != EOPNOTSUPP || !vs__ibverbs.state.handle)
		return -err;
	if (!context || (!entries && max_entries) || flags ||
	    entry_size < sizeof(*entries))
		return -EINVAL;
	return vs__gid_table_fallback(context, entries, max_entries,
				     entry_size);
}


int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	VS_RESOLVE(ibverbs, _ibv_query_gid_ex,
		   return vs_gid_entry_missing(vs_err, context, port_num,
					       gid_index, entry, flags,
					       entry_size))
	return fn(context, port_num, gid_index, entry, flags, entry_size);
}

ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	VS_RESOLVE(ibverbs, _ibv_query_gid_table,
		   return vs_gid_table_missing(vs_err, context, entries,
					       max_entries, flags, entry_size))
	return fn(context, entries, max_entries, flags, entry_size);
}

/* A compatibility entry, not the private ABI: libibverbs keeps its own in
 * IBVERBS_PRIVATE_*, which verbshim never resolves.  Its behaviour is
 * upstream's (verbs.c): the type from ibv_query_gid_ex() (the drop-in
 * above, so releases before 1.11 get the sysfs fallback), an empty GID
 * is IB/RoCE v1 and success, any other failure is -1 with errno. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum vs_gid_type_sysfs *type)
{
	struct ibv_gid_entry entry = { 0 };
	int ret;

	ret = _ibv_query_gid_ex(context, port_num, index, &entry, 0,
				sizeof(entry));
	if (ret == ENODATA) {
		*type = VS_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	*type = entry.gid_type == IBV_GID_TYPE_ROCE_V2 ?
		VS_GID_TYPE_SYSFS_ROCE_V2 : VS_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}
