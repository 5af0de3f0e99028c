/* SPDX-License-Identifier: MIT */
/*
 * Devices: list, open, attributes, ports and the GID table.
 */
#ifndef VERBSHIM_DEVICE_H
#define VERBSHIM_DEVICE_H

#include "verbshim/common.h"

VS_BEGIN_DECLS

#define VS_NAME_MAX 64

struct vs_device_entry {
	char name[VS_NAME_MAX];
	uint64_t guid; /* host byte order */
	enum ibv_node_type node_type;
	enum ibv_transport_type transport_type;
};

/**
 * vs_device_list() - list the RDMA devices
 * @entries: where the devices go
 * @cap: capacity of @out
 * @count: how many there are
 *
 * Fills up to cap entries; *count receives the number of devices present
 * (may exceed cap). No device is not an error: *count = 0.
 *
 * Return: 0 (count 0 is not an error) or -errno: -EINVAL NULL count or
 * entries with cap > 0; the error of ibv_get_device_list, with the
 * loader's reason when libibverbs did not load.
 */
int vs_device_list(struct vs_device_entry *entries, size_t cap, size_t *count);

/* An open device (reference counted; PDs and CQs keep it alive). */
struct vs_context {
	struct vs_handle h; /* private */
	struct ibv_context *ctx;
	char name[VS_NAME_MAX];
	struct ibv_device_attr_ex attr;
	bool attr_extended; /* attr came from ibv_query_device_ex */
	/* private: librdmacm's context of a CM id (vs_cm_context): never closed */
	bool borrowed;
	/*
	 * private: of ports 1..8, what never changes while the context is
	 * open (lib/core/device.c: link layer, GID table size), once read
	 */
	struct { uint8_t known, link_layer; int gid_tbl_len; } port_fixed[8];
	/*
	 * private: typed QPs post inline data and gathers through a bounce
	 * ring (lib/core/quirks.c wr_sge_broken, unless VERBSHIM_TRUST_WR_SGE is
	 * set), decided once at open rather than by a getenv per QP
	 */
	bool bounce_sge;
};

/**
 * vs_device_open() - open an RDMA device
 * @name: the device ("rxe0"), or NULL for the first one
 * @out: the new context; NULL on failure (cleared before any check)
 *
 * Close it with vs_device_close().  PDs and CQs keep it alive after that.
 *
 * Return: 0 or -errno: -EINVAL out is NULL, -ENODEV no such device (the
 * message lists those found, or the loader's reason when libibverbs did
 * not load), the provider's error when ibv_open_device fails.
 */
VS_MUST_CHECK
int vs_device_open(const char *name, struct vs_context **out);

/**
 * vs_device_close() - the user's close of what vs_device_open() opened
 * @ctx: an open context
 *
 * Drops the caller's reference; the device closes when its last PD and
 * CQ are gone too.  The handle is refused by every call after this.
 *
 * Return: 0 or -errno: -EINVAL NULL, closed or another kind of handle;
 * the provider's error when ibv_close_device fails (the context then
 * stays open: close it again to retry).
 */
int vs_device_close(struct vs_context *ctx);

/**
 * vs_context_close() - deprecated name of vs_device_close()
 * @ctx: an open context
 *
 * Kept for one release (0.2 removes it); errors name vs_context_close.
 *
 * Return: as vs_device_close().
 */
int vs_context_close(struct vs_context *ctx);
/**
 * vs_context_raw() - the ibv_context behind a context
 * @ctx: an open device context
 *
 * Return: it, or NULL for a NULL, closed or other-kind handle.
 */
struct ibv_context *vs_context_raw(const struct vs_context *ctx);

/**
 * vs_device_attr() - the device attributes
 * @ctx: an open device context
 * @out: where the result goes
 *
 * Device attributes (extended where the provider has them).
 *
 * Return: 0 or -errno: -EINVAL bad handle or NULL out.
 */
int vs_device_attr(const struct vs_context *ctx, struct ibv_device_attr_ex *out);

/*
 * What a port is, for the paths that differ by it (docs/API.md, "Link
 * layers"): how a QP is addressed and connected, and what it can do.
 */
enum vs_link_kind {
	VS_LINK_UNKNOWN = 0, /* a transport the typed API does not know */
	VS_LINK_IB = 1,      /* InfiniBand: addressed by LID (a GID with GRH) */
	VS_LINK_ROCE = 2,    /* RoCE: the IB transport over Ethernet, by GID */
	VS_LINK_IWARP = 3,   /* iWARP: RDMA over TCP, connected by the CM only */
	VS_LINK_EFA = 4,     /* unspecified link layer (EFA): SRD and UD by GID */
};

/**
 * vs_link_kind_name() - name of a link kind
 * @kind: a link kind
 *
 * Return: "InfiniBand", "RoCE", "iWARP", "EFA" or "unknown"; a static string.
 */
const char *vs_link_kind_name(enum vs_link_kind kind);

struct vs_port_info {
	uint8_t port;
	enum vs_link_kind kind; /* from the device's transport and link layer */
	enum ibv_port_state state;
	enum ibv_mtu active_mtu;
	enum ibv_mtu max_mtu;
	uint8_t active_speed; /* IB speed code, see ibv_port_attr */
	uint8_t active_width; /* IB width code */
	uint8_t link_layer;   /* IBV_LINK_LAYER_* */
	uint16_t lid;
	int gid_tbl_len;
	uint32_t rate_mbps;   /* width x speed, 0 when the codes are unknown */
	struct ibv_port_attr raw;
};

/**
 * vs_port_info() - one port's kind, state, MTU, speed, width, link layer and LID
 * @ctx: an open device context
 * @port: the port number (1..)
 * @out: where the result goes
 *
 * Return: 0 or -errno: -EINVAL bad handle, NULL out or no such port; the
 * error of ibv_query_port. @out untouched on failure.
 */
int vs_port_info(const struct vs_context *ctx, uint8_t port, struct vs_port_info *out);

enum vs_gid_type {
	VS_GID_IB = 0,
	VS_GID_ROCE_V1 = 1,
	VS_GID_ROCE_V2 = 2,
};

struct vs_gid_info {
	union ibv_gid gid;
	uint32_t index;
	uint8_t port;
	enum vs_gid_type type;
	char netdev[VS_NAME_MAX]; /* empty on IB */
	bool netdev_up;
	bool ipv4_mapped;         /* ::ffff:a.b.c.d */
	bool link_local;          /* fe80::/10 */
	char ip[48];              /* a.b.c.d for IPv4-mapped, IPv6 text otherwise */
};

/**
 * vs_gid_type_name() - name of a GID type
 * @type: an ibv_gid_type
 *
 * Short name of a GID type: "IB", "RoCE v1", "RoCE v2".
 *
 * Return: "IB", "RoCE v1", "RoCE v2" or "unknown"; a static string.
 */
const char *vs_gid_type_name(enum vs_gid_type type);

/**
 * vs_gid_table() - the valid GIDs of a port, with type, netdev and address
 * @ctx: an open device context
 * @port: the port number (1..)
 * @out: where the result goes
 * @cap: capacity of @out
 * @count: how many there are
 *
 * The valid (non-zero) GIDs of one port, in index order. *count receives
 * how many there are (may exceed cap).
 *
 * Return: 0 or -errno: -EINVAL bad handle or NULL out/count; -ENOMEM.
 */
int vs_gid_table(struct vs_context *ctx, uint8_t port, struct vs_gid_info *out,
		 size_t cap, size_t *count);

/**
 * vs_gid_pick() - the GID a QP on this port should use
 * @ctx: an open device context
 * @port: the port number (1..)
 * @out: where the result goes
 *
 * The GID a QP on this port should use: on RoCE the first RoCE v2 GID with
 * an IPv4-mapped (preferred) or global IPv6 address whose netdev is up; on
 * IB index 0. -ENOENT, with the table in the message, when none.
 *
 * Return: 0 or -errno: -ENOENT no routable RoCE GID (the message lists the
 * table); -EINVAL bad handle or NULL out.
 */
int vs_gid_pick(struct vs_context *ctx, uint8_t port, struct vs_gid_info *out);

/**
 * vs_gid_to_str() - a GID as text (IPv4 when mapped, else IPv6)
 * @gid: the GID
 * @buf: the output buffer
 * @len: size of @buf
 *
 * Text form of a GID ("fe80::1", "::ffff:10.0.0.1"); returns buf.
 *
 * Return: @buf.
 */
char *vs_gid_to_str(const union ibv_gid *gid, char *buf, size_t len);

#ifdef VS__TYPE_GUARDS
#define vs_device_open(name, out) vs_device_open(name, VS__IS(struct vs_context *, out))
#define vs_context_close(c) vs_context_close(VS__IS(struct vs_context, c))
#define vs_device_close(c) vs_device_close(VS__IS(struct vs_context, c))
#define vs_context_raw(c) vs_context_raw(VS__IS_C(struct vs_context, c))
#define vs_device_attr(c, ...) vs_device_attr(VS__IS_C(struct vs_context, c), __VA_ARGS__)
#define vs_port_info(c, ...) vs_port_info(VS__IS_C(struct vs_context, c), __VA_ARGS__)
#define vs_gid_table(c, ...) vs_gid_table(VS__IS(struct vs_context, c), __VA_ARGS__)
#define vs_gid_pick(c, ...) vs_gid_pick(VS__IS(struct vs_context, c), __VA_ARGS__)
#endif

VS_END_DECLS

#endif /* VERBSHIM_DEVICE_H */
