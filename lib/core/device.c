/* SPDX-License-Identifier: MIT */
/*
 * Devices: list, open, attributes, ports.
 */
#include "core.h"
#include "verbshim/loader.h"

/* ibv_get_device_list with the error that says what to check. */
static int device_list(struct ibv_device ***list, int *n, const char *call)
{
	char why[VS_ERROR_MSG_MAX / 2];
	int err;

	errno = 0;
	*list = ibv_get_device_list(n);
	if (*list)
		return 0;
	if (vs__library_reason(VS_LIB_IBVERBS, why, sizeof(why)))
		return vs__verb_error(call, "ibv_get_device_list", vs__errno_or(ENOSYS),
				      "cannot list RDMA devices: %s", why);
	err = vs__errno_or(ENODEV);
	/* the hint only where it is the cause: rdma-core's ENOSYS is the
	 * kernel saying it has no RDMA support; ENOMEM and the like are not */
	return vs__verb_error(call, "ibv_get_device_list", err,
			      "cannot list RDMA devices%s", err == ENOSYS ||
			      err == ENODEV ? " (is the kernel's RDMA support "
			      "loaded?)" : "");
}

int vs_device_list(struct vs_device_entry *entries, size_t cap, size_t *count)
{
	struct ibv_device **list;
	int n = 0, ret;

	if (!count)
		return vs__set_error("vs_device_list", EINVAL, "count is NULL");
	if (cap && !entries)
		return vs__set_error("vs_device_list", EINVAL,
				     "entries is NULL but cap is %zu", cap);
	*count = 0;
	ret = device_list(&list, &n, "vs_device_list");
	if (ret)
		return ret;
	for (int i = 0; i < n && (size_t)i < cap; i++) {
		struct vs_device_entry *e = &entries[i];

		const char *dn = ibv_get_device_name(list[i]);

		memset(e, 0, sizeof(*e));
		if (!dn) {	/* a drop-in cannot promise rdma-core's never-NULL */
			ret = vs__verb_error("vs_device_list", "ibv_get_device_name",
					     vs__errno_or(ENODEV), "RDMA device %d "
					     "of %d has no name (ibv_get_device_name "
					     "returned NULL)", i + 1, n);
			ibv_free_device_list(list);
			return ret;
		}
		snprintf(e->name, sizeof(e->name), "%s", dn);
		e->guid = be64toh(ibv_get_device_guid(list[i]));
		e->node_type = list[i]->node_type;
		e->transport_type = list[i]->transport_type;
	}
	*count = (size_t)n;
	ibv_free_device_list(list);
	return 0;
}

int vs_device_open(const char *name, struct vs_context **out)
{
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	const char *dev_name = NULL;
	struct vs_context *c;
	char names[256] = "";
	size_t used = 0;
	int n = 0, ret, unnamed = 0, unnamed_err = 0;

	ret = vs__out_clear(out, "vs_device_open");
	if (ret)
		return ret;
	ret = device_list(&list, &n, "vs_device_open");
	if (ret)
		return ret;
	for (int i = 0; i < n; i++) {
		const char *dn;

		errno = 0;
		dn = ibv_get_device_name(list[i]);
		/* rdma-core's never fails, but a drop-in cannot promise it
		 * (a missing symbol is NULL): no NULL goes into libc */
		if (!dn) {
			if (!unnamed++)
				unnamed_err = vs__errno_or(ENODEV);
			continue;
		}
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used,
						 "%s%s", used ? ", " : "", dn);
		if (!dev && (!name || !strcmp(name, dn))) {
			dev = list[i];
			dev_name = dn;
		}
	}
	if (!dev && unnamed) {
		ret = vs__verb_error("vs_device_open", "ibv_get_device_name",
				     unnamed_err, "%d of the %d RDMA devices "
				     "listed %s no name (ibv_get_device_name "
				     "returned NULL)%s%s", unnamed, n,
				     unnamed == 1 ? "has" : "have",
				     name ? "; none of the others is " : "",
				     name ? name : "");
		ibv_free_device_list(list);
		return ret;
	}
	if (!dev) {
		ret = name ? vs__set_error("vs_device_open", ENODEV,
					   "no RDMA device named \"%s\" (found: %s)",
					   name, n ? names : "none")
			   : vs__set_error("vs_device_open", ENODEV,
					   "no RDMA device found");
		ibv_free_device_list(list);
		return ret;
	}
	c = vs__handle_alloc(sizeof(*c));
	if (!c) {
		ibv_free_device_list(list);
		return vs__set_error("vs_device_open", ENOMEM, "out of memory");
	}
	snprintf(c->name, sizeof(c->name), "%s", dev_name);
	errno = 0;
	c->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!c->ctx) {
		ret = vs__verb_error("vs_device_open", "ibv_open_device", vs__errno_or(ENODEV),
				    "cannot open %s (permissions on "
				    "/dev/infiniband/uverbs*?)", c->name);
		vs__handle_unpublish(c, sizeof(*c));
		return ret;
	}
	c->attr_extended = verbs_get_ctx_op(c->ctx, query_device_ex) != NULL;
	ret = ibv_query_device_ex(c->ctx, NULL, &c->attr);
	if (ret) {
		ret = vs__verb_error("vs_device_open", "ibv_query_device_ex", ret,
				    "cannot query the attributes of %s", c->name);
		ibv_close_device(c->ctx);
		vs__handle_unpublish(c, sizeof(*c));
		return ret;
	}
	c->bounce_sge = vs__quirks(c)->wr_sge_broken &&
			!vs__knob(VS_KNOB_TRUST_WR_SGE);
	vs__handle_init(&c->h, VS_KIND_CONTEXT);
	*out = c;
	return 0;
}

int vs__context_borrow(struct ibv_context *raw, struct vs_context **out,
		       const char *call)
{
	struct vs_context *c = vs__handle_alloc(sizeof(*c));
	int ret;

	*out = NULL;
	if (!c)
		return vs__set_error(call, ENOMEM, "out of memory");
	{
		const char *dn = ibv_get_device_name(raw->device);

		snprintf(c->name, sizeof(c->name), "%s", dn ? dn : "(unnamed)");
	}
	c->ctx = raw;
	c->borrowed = true;
	c->attr_extended = verbs_get_ctx_op(raw, query_device_ex) != NULL;
	ret = ibv_query_device_ex(raw, NULL, &c->attr);
	if (ret) {
		vs__handle_unpublish(c, sizeof(*c));
		return vs__verb_error(call, "ibv_query_device_ex", ret,
				      "cannot query the attributes of %s", c->name);
	}
	c->bounce_sge = vs__quirks(c)->wr_sge_broken &&
			!vs__knob(VS_KNOB_TRUST_WR_SGE);
	vs__handle_init(&c->h, VS_KIND_CONTEXT);
	*out = c;
	return 0;
}

int vs__context_put(struct vs_context *c, const char *verb)
{
	if (!vs__ref_put(&c->h))
		return 0;
	if (c->borrowed) {
		/* librdmacm's: it keeps its device open */
		vs__handle_free(c, sizeof(*c));
		return 0;
	}
	if (ibv_close_device(c->ctx)) {
		int err = vs__errno_or(EIO), ret;

		vs__handle_reopen(&c->h, VS_KIND_CONTEXT);
		ret = vs__verb_error(verb, "ibv_close_device", err,
				     "cannot close %s; the device context "
				     "stays open: close it again to retry", c->name);
		if (strcmp(verb, "vs_context_close")) /* its other name */
			vs__deferred_note(verb, "vs_device_close",
					  "device context");
		return ret;
	}
	vs__handle_free(c, sizeof(*c));
	return 0;
}

static int device_close(struct vs_context *c, const char *call)
{
	int ret = vs__check_handle(c, VS_KIND_CONTEXT, call, "ctx");

	if (!ret && c->borrowed)
		return vs__set_error(call, EINVAL,
				     "ctx is the device context of a CM id (from "
				     "vs_cm_context): it is borrowed, never closed "
				     "by the caller; closing the CM id releases it");
	ret = vs__user_close(c, VS_KIND_CONTEXT, call, "ctx");

	return ret ? ret : vs__context_put(c, call);
}

int vs_device_close(struct vs_context *c)
{
	return device_close(c, "vs_device_close");
}

/* the old name, kept for one release (errors name the call that was made) */
int vs_context_close(struct vs_context *c)
{
	return device_close(c, "vs_context_close");
}

struct ibv_context *vs_context_raw(const struct vs_context *c)
{
	return c && c->h.magic == VS_KIND_CONTEXT ? c->ctx : NULL;
}

int vs_device_attr(const struct vs_context *c, struct ibv_device_attr_ex *out)
{
	int ret = vs__check_handle(c, VS_KIND_CONTEXT, "vs_device_attr", "ctx");

	if (ret)
		return ret;
	if (!out)
		return vs__out_null("vs_device_attr");
	*out = c->attr;
	return 0;
}

const char *vs_link_kind_name(enum vs_link_kind kind)
{
	switch (kind) {
	case VS_LINK_IB: return "InfiniBand";
	case VS_LINK_ROCE: return "RoCE";
	case VS_LINK_IWARP: return "iWARP";
	case VS_LINK_EFA: return "EFA";
	case VS_LINK_UNKNOWN: break;
	}
	return "unknown";
}

int vs__iwarp_cm_only(const struct vs_context *c, const char *verb)
{
	if (c->ctx->device->transport_type != IBV_TRANSPORT_IWARP)
		return 0;
	return vs__set_error(verb, EOPNOTSUPP,
			     "%s is an iWARP device: its QPs connect only "
			     "through the connection manager, not by endpoint "
			     "bytes and a handshake: create the QP on a CM id "
			     "(vs_cm_rc_qp_create after vs_cm_resolve or "
			     "vs_cm_get_request)", c->name);
}

int vs__port_info(const struct vs_context *c, uint8_t port,
		   struct vs_port_info *out, const char *call)
{
	struct ibv_port_attr pa;
	int ret = vs__check_handle(c, VS_KIND_CONTEXT, call, "ctx");

	if (ret)
		return ret;
	if (!out)
		return vs__out_null(call);
	if (port < 1 || port > c->attr.orig_attr.phys_port_cnt)
		return vs__set_error(call, EINVAL,
				     "port %u does not exist on %s (ports 1..%u)",
				     port, c->name, c->attr.orig_attr.phys_port_cnt);
	memset(&pa, 0, sizeof(pa));
	ret = ibv_query_port(c->ctx, port, &pa);
	if (ret)
		return vs__verb_error(call, "ibv_query_port", ret,
				     "cannot query port %u of %s", port, c->name);
	memset(out, 0, sizeof(*out));
	out->port = port;
	out->kind = vs__link(vs__link_of(c, pa.link_layer))->kind;
	out->state = pa.state;
	out->active_mtu = pa.active_mtu;
	out->max_mtu = pa.max_mtu;
	out->active_speed = pa.active_speed;
	out->active_width = pa.active_width;
	out->link_layer = pa.link_layer;
	out->lid = pa.lid;
	out->gid_tbl_len = pa.gid_tbl_len;
	out->rate_mbps = vs_rate_mbps(pa.active_speed, pa.active_width);
	out->raw = pa;
	if (port <= sizeof(c->port_fixed) / sizeof(c->port_fixed[0])) {
		/*
		 * Only what cannot change: the link layer is the port's kind
		 * (IB or Ethernet: a device that switches is re-registered, a
		 * new context) and the GID table's size is the driver's; the
		 * state, LID and MTU move and are read each time.  The cache
		 * is the context's, written the same by any thread (benign).
		 */
		struct vs_context *w = (struct vs_context *)c;

		w->port_fixed[port - 1].link_layer = pa.link_layer;
		w->port_fixed[port - 1].gid_tbl_len = pa.gid_tbl_len;
		__atomic_store_n(&w->port_fixed[port - 1].known, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

bool vs__port_fixed(const struct vs_context *c, uint8_t port,
		    struct vs_port_info *out)
{
	if (port < 1 || port > c->attr.orig_attr.phys_port_cnt ||
	    port > sizeof(c->port_fixed) / sizeof(c->port_fixed[0]) ||
	    !__atomic_load_n(&c->port_fixed[port - 1].known, __ATOMIC_ACQUIRE))
		return false;
	memset(out, 0, sizeof(*out));
	out->port = port;
	out->link_layer = c->port_fixed[port - 1].link_layer;
	out->kind = vs__link(vs__link_of(c, out->link_layer))->kind;
	out->gid_tbl_len = c->port_fixed[port - 1].gid_tbl_len;
	return true;
}

int vs_port_info(const struct vs_context *c, uint8_t port, struct vs_port_info *out)
{
	return vs__port_info(c, port, out, "vs_port_info");
}
