/* SPDX-License-Identifier: MIT */
/*
 * Memory regions: owning a page-aligned buffer, over caller memory, over
 * a dmabuf; prefetch advice.
 */
#include <unistd.h>

#include "verbshim/loader.h"
#include "vs_config.h" /* which rdma-core nodes the headers in use declare */
#include "core.h"

static int check_access(unsigned int access, const char *verb)
{
	const unsigned int needs_local_write = IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_REMOTE_ATOMIC;

	if ((access & needs_local_write) && !(access & IBV_ACCESS_LOCAL_WRITE))
		return vs__set_error(verb, EINVAL,
				     "access 0x%x asks for remote write or atomic "
				     "access without IBV_ACCESS_LOCAL_WRITE, which "
				     "the verbs require with them", access);
	return 0;
}

static const char *reg_hint(int err)
{
	switch (err) {
	case ENOMEM:
	case EAGAIN:
		return " (locked-memory limit too low? see ulimit -l)";
	case EFAULT:
		return " (the address range is not mapped)";
	case EOPNOTSUPP:
		return " (the device does not support this access or kind of memory)";
	case EACCES:
	case EPERM:
		return " (memory not writable but write access asked for?)";
	default:
		return "";
	}
}

/* addr NULL: a dmabuf MR, which the device reaches at iova alone */
static int finish(struct vs_pd *pd, struct ibv_mr *raw, void *addr,
		  uint64_t iova, size_t length, bool owns, struct vs_mr **out,
		  const char *verb)
{
	struct vs_mr *mr = vs__handle_alloc(sizeof(*mr));

	if (!mr) {
		ibv_dereg_mr(raw);
		return vs__set_error(verb, ENOMEM, "out of memory");
	}
	vs__handle_init(&mr->h, VS_KIND_MR);
	mr->mr = raw;
	mr->pd = pd;
	mr->addr = addr;
	mr->iova = iova;
	mr->length = length;
	mr->owns_buffer = owns;
	vs__ref_get(&pd->h);
	*out = mr;
	return 0;
}

static int precheck(struct vs_pd *pd, size_t length, unsigned int access,
		    struct vs_mr **out, const char *verb)
{
	int ret;

	ret = vs__out_clear(out, verb);
	if (ret)
		return ret;
	ret = vs__check_handle(pd, VS_KIND_PD, verb, "pd");
	if (ret)
		return ret;
	if (!length)
		return vs__set_error(verb, EINVAL,
				     "length is 0: a memory region must cover at "
				     "least one byte");
	return check_access(access, verb);
}

int vs_mr_alloc(struct vs_pd *pd, size_t length, unsigned int access,
		struct vs_mr **out)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_mr *raw;
	void *buf = NULL;
	int ret;

	if (!access)
		access = VS_ACCESS_DEFAULT;
	ret = precheck(pd, length, access, out, "vs_mr_alloc");
	if (ret)
		return ret;
	if (page <= 0)
		page = 4096;
	if (length > SIZE_MAX - (size_t)page)
		return vs__set_error("vs_mr_alloc", EINVAL,
				     "length %zu is too large", length);
	ret = posix_memalign(&buf, (size_t)page,
			     (length + (size_t)page - 1) / (size_t)page * (size_t)page);
	if (ret)
		return vs__set_error("vs_mr_alloc", ret,
				     "cannot allocate %zu bytes", length);
	memset(buf, 0, length);
	errno = 0;
	raw = ibv_reg_mr(pd->pd, buf, length, (int)access);
	if (!raw) {
		int err = vs__errno_or(ENOMEM);

		ret = vs__verb_error("vs_mr_alloc", "ibv_reg_mr", err,
				    "cannot register %zu bytes with access 0x%x%s",
				    length, access, reg_hint(err));
		free(buf);
		return ret;
	}
	ret = finish(pd, raw, buf, (uintptr_t)buf, length, true, out,
		     "vs_mr_alloc");
	if (ret)
		free(buf);
	return ret;
}

int vs_mr_register(struct vs_pd *pd, void *addr, size_t length,
		   unsigned int access, struct vs_mr **out)
{
	struct ibv_mr *raw;
	int ret;

	if (!access)
		access = VS_ACCESS_DEFAULT;
	ret = precheck(pd, length, access, out, "vs_mr_register");
	if (ret)
		return ret;
	if (!addr)
		return vs__set_error("vs_mr_register", EINVAL, "addr is NULL");
	errno = 0;
	raw = ibv_reg_mr(pd->pd, addr, length, (int)access);
	if (!raw) {
		int err = vs__errno_or(ENOMEM);

		return vs__verb_error("vs_mr_register", "ibv_reg_mr", err,
				     "cannot register %zu bytes at %p with access "
				     "0x%x%s", length, addr, access, reg_hint(err));
	}
	return finish(pd, raw, addr, (uintptr_t)addr, length, false, out,
		      "vs_mr_register");
}

int vs_mr_register_dmabuf(struct vs_pd *pd, int fd, uint64_t offset,
			  size_t length, uint64_t iova, unsigned int access,
			  struct vs_mr **out)
{
	struct ibv_mr *raw;
	int ret;

	if (!access)
		access = VS_ACCESS_DEFAULT;
	ret = precheck(pd, length, access, out, "vs_mr_register_dmabuf");
	if (ret)
		return ret;
	if (fd < 0)
		return vs__set_error("vs_mr_register_dmabuf", EBADF,
				     "fd %d is not a dmabuf file descriptor", fd);
	errno = 0;
#ifdef VS_HAVE_IBVERBS_1_12
	raw = ibv_reg_dmabuf_mr(pd->pd, offset, length, iova, fd, (int)access);
#else
	/* built against rdma-core headers older than 34: no such verb */
	raw = NULL;
	errno = EOPNOTSUPP;
#endif
	if (!raw) {
		int err = vs__errno_or(EOPNOTSUPP);
		struct vs_feature_info fi;

		/* The machine's libibverbs predates the verb (or this build's
		 * headers did): say which release added it and what is here. */
		if (err == EOPNOTSUPP &&
		    !vs__feature_query_linked(VS_FEATURE_DMABUF_MR, &fi) && !fi.available) {
			if (!fi.compiled_in)
				return vs__verb_error("vs_mr_register_dmabuf", fi.verb, EOPNOTSUPP,
						     "%s needs rdma-core %d or later headers: "
						     "this copy of verbshim was built without "
						     "it (compiled in %s)", fi.verb,
						     fi.release, VS_CONFIG_NODES_IN);
			return vs__verb_error("vs_mr_register_dmabuf", fi.verb, EOPNOTSUPP,
					     "%s needs rdma-core %d or later; this "
					     "machine has %s", fi.verb, fi.release,
					     fi.found);
		}
		if (err == EOPNOTSUPP || err == ENOSYS || err == EPROTONOSUPPORT)
			return vs__verb_error("vs_mr_register_dmabuf", "ibv_reg_dmabuf_mr", EOPNOTSUPP,
					     "dmabuf memory regions are not "
					     "supported here: they need rdma-core "
					     ">= 34, kernel >= 5.12 and a provider "
					     "that implements them (%s does not)",
					     pd->ctx->name);
		return vs__verb_error("vs_mr_register_dmabuf", "ibv_reg_dmabuf_mr", err,
				     "cannot register %zu bytes of dmabuf fd %d at "
				     "offset %llu%s", length, fd,
				     (unsigned long long)offset, reg_hint(err));
	}
	return finish(pd, raw, NULL, iova, length, false, out,
		      "vs_mr_register_dmabuf");
}

int vs_mr_advise(struct vs_mr *mr, enum ibv_advise_mr_advice advice,
		 uint32_t flags, size_t offset, size_t length)
{
	struct ibv_sge sge;
	int ret = vs__check_handle(mr, VS_KIND_MR, "vs_mr_advise", "mr");

	if (ret)
		return ret;
	if (!length || offset > mr->length || length > mr->length - offset)
		return vs__set_error("vs_mr_advise", EINVAL,
				     "range [%zu, +%zu) is empty or outside the "
				    "MR's %zu bytes", offset, length, mr->length);
	if (length > UINT32_MAX)
		return vs__set_error("vs_mr_advise", EINVAL,
				     "length %zu exceeds one SGE (4 GiB)", length);
	sge.addr = mr->iova + offset;
	sge.length = (uint32_t)length;
	sge.lkey = mr->mr->lkey;
	ret = ibv_advise_mr(mr->pd->pd, advice, flags, &sge, 1);
	if (ret == EOPNOTSUPP || ret == ENOSYS)
		return vs__verb_error("vs_mr_advise", "ibv_advise_mr", EOPNOTSUPP,
				     "%s cannot take memory advice: the provider "
				     "has no advise_mr or the MR is not an "
				     "on-demand-paging MR (IBV_ACCESS_ON_DEMAND)",
				     mr->pd->ctx->name);
	if (ret)
		return vs__verb_error("vs_mr_advise", "ibv_advise_mr", ret,
				     "advice %d on [%zu, +%zu) failed",
				    (int)advice, offset, length);
	return 0;
}

int vs_mr_close(struct vs_mr *mr)
{
	int ret = vs__user_close(mr, VS_KIND_MR, "vs_mr_close", "mr"), err;
	struct vs_pd *pd;

	if (ret)
		return ret;
	if (!vs__ref_put(&mr->h))
		return 0;
	err = ibv_dereg_mr(mr->mr);
	if (err) {
		vs__handle_reopen(&mr->h, VS_KIND_MR);
		return vs__verb_error("vs_mr_close", "ibv_dereg_mr", err,
				     "cannot deregister the MR (bound "
				     "to a memory window?); it stays open: close "
				     "it again to retry");
	}
	if (mr->owns_buffer)
		free(mr->addr);
	pd = mr->pd;
	vs__handle_free(mr, sizeof(*mr));
	return vs__pd_put(pd, "vs_mr_close");
}

int vs__mr_bad(const struct vs_mr *mr, size_t offset, size_t length,
	       const char *verb)
{
	int ret = vs__check_handle(mr, VS_KIND_MR, verb, "mr");

	if (ret)
		return ret;
	if (offset <= mr->length && length <= mr->length - offset)
		/* in range: only vs_mr_ptr() gets here, on a dmabuf MR */
		return vs__set_error(verb, EINVAL,
				     "the MR is a dmabuf (device memory at iova "
				     "0x%llx): it has no CPU address; post with "
				     "vs_mr_sge() and reach it with vs_mr_remote()",
				     (unsigned long long)mr->iova);
	return vs__set_error(verb, EINVAL,
			     "[%zu, +%zu) is outside the MR's %zu bytes "
			     "(lkey 0x%x)", offset, length, mr->length,
			     mr->mr->lkey);
}

struct ibv_sge vs__mr_sge_bad(const struct vs_mr *mr, size_t offset,
			      uint32_t length)
{
	struct ibv_sge none = { 0, 0, 0 };

	vs__mr_bad(mr, offset, length, "vs_mr_sge");
	return none;
}

struct ibv_mr *vs_mr_raw(const struct vs_mr *mr)
{
	return mr && mr->h.magic == VS_KIND_MR ? mr->mr : NULL;
}
