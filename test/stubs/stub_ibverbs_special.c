// SPDX-License-Identifier: MIT
/* Stub libibverbs: the definitions that must behave, overriding the weak
 * generic ones of stub_ibverbs.c. */
#include <stdio.h>
#include <stdlib.h>

#include "stub.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* What the last ibv_reg_mr() got, for the fallback tests. */
VS_STUB_EXPORT struct {
	struct ibv_pd *pd;
	void *addr;
	size_t length;
	int access;
} vs_stub_reg_mr;

/* One device, stub0, whose sysfs directory is $VS_STUB_SYSFS. */
static struct ibv_device stub_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "stub0",
	.dev_name = "uverbs0",
};
static struct ibv_device *stub_list[] = { &stub_device, NULL };
static struct ibv_context stub_context = { .device = &stub_device };

VS_STUB_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	const char *sysfs = getenv("VS_STUB_SYSFS");

	vs_stub_record("ibv_get_device_list");
	snprintf(stub_device.ibdev_path, sizeof(stub_device.ibdev_path), "%s",
		 sysfs ? sysfs : "/nonexistent");
	if (num_devices)
		*num_devices = 1;
	return stub_list;
}

VS_STUB_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	vs_stub_record("ibv_free_device_list");
}

VS_STUB_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

VS_STUB_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	vs_stub_record("ibv_open_device");
	stub_context.device = device;
	return &stub_context;
}

VS_STUB_EXPORT int ibv_query_device(struct ibv_context *context,
				    struct ibv_device_attr *attr)
{
	vs_stub_record("ibv_query_device");
	memset(attr, 0, sizeof(*attr));
	attr->phys_port_cnt = 1;
	return 0;
}

/* The caller passes a whole struct ibv_port_attr, as the header inline
 * does; the compat struct is its prefix. */
VS_STUB_EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port,
				  struct _compat_ibv_port_attr *compat)
{
	struct ibv_port_attr *attr = (struct ibv_port_attr *)compat;

	vs_stub_record("ibv_query_port");
	if (port != 1)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->state = IBV_PORT_ACTIVE;
	attr->active_mtu = IBV_MTU_1024;
	attr->gid_tbl_len = 3;
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

/* GID 0 link-local, 1 IPv4-mapped 10.0.0.1, 2 empty. */
VS_STUB_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port,
				 int index, union ibv_gid *gid)
{
	vs_stub_record("ibv_query_gid");
	if (port != 1 || index < 0 || index > 2) {
		errno = EINVAL;
		return -1;
	}
	memset(gid, 0, sizeof(*gid));
	if (index == 0) {
		gid->raw[0] = 0xfe;
		gid->raw[1] = 0x80;
		gid->raw[15] = 1;
	} else if (index == 1) {
		gid->raw[10] = gid->raw[11] = 0xff;
		gid->raw[12] = 10;
		gid->raw[15] = 1;
	}
	return 0;
}

VS_STUB_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
					 size_t length, int access)
{
	vs_stub_record("ibv_reg_mr");
	vs_stub_reg_mr.pd = pd;
	vs_stub_reg_mr.addr = addr;
	vs_stub_reg_mr.length = length;
	vs_stub_reg_mr.access = access;
	return (struct ibv_mr *)(uintptr_t)&vs_stub_marker;
}

VS_STUB_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					       size_t length, uint64_t iova,
					       unsigned int access)
{
	vs_stub_record("ibv_reg_mr_iova2");
	return (struct ibv_mr *)(uintptr_t)&vs_stub_marker;
}
