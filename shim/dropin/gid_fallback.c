// SPDX-License-Identifier: MIT
/*
 * GID entries for libibverbs older than IBVERBS_1.11: the GID from
 * ibv_query_gid(), its type and netdev from the device's sysfs gid_attrs,
 * as rdma-core itself did before the kernel had a query-GID ioctl.
 */
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dropin.h"

/* One gid_attrs file (types/N or ndevs/N), trailing newline removed. */
static int vs_read_gid_attr(const struct ibv_context *context,
			    uint32_t port_num, const char *attr,
			    uint32_t gid_index, char *buf, size_t size)
{
	char path[IBV_SYSFS_PATH_MAX + 64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/ports/%u/gid_attrs/%s/%u",
		 context->device->ibdev_path, port_num, attr, gid_index);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The header's inline behind the ibv_query_port() macro: the provider's
 * extended query when it has one, the exported compat symbol otherwise. */
static int vs_query_port(struct ibv_context *context, uint32_t port_num,
			 struct ibv_port_attr *attr)
{
	return ___ibv_query_port(context, (uint8_t)port_num, attr);
}

static int vs_gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

int vs__gid_entry_fallback(struct ibv_context *context, uint32_t port_num,
			  uint32_t gid_index, struct ibv_gid_entry *entry)
{
	struct ibv_port_attr port;
	union ibv_gid gid;
	char buf[64];

	if (port_num > UINT8_MAX || gid_index > INT32_MAX)
		return EINVAL;
	if (ibv_query_gid(context, (uint8_t)port_num, (int)gid_index, &gid))
		return errno ? errno : EINVAL;
	if (vs_gid_is_zero(&gid))
		return ENODATA;
	if (vs_query_port(context, port_num, &port))
		port.link_layer = IBV_LINK_LAYER_UNSPECIFIED;

	memset(entry, 0, sizeof(*entry));
	entry->gid = gid;
	entry->gid_index = gid_index;
	entry->port_num = port_num;
	/* Kernels without gid_attrs only had IB and RoCE v1. */
	if (!vs_read_gid_attr(context, port_num, "types", gid_index, buf,
			      sizeof(buf)) && strstr(buf, "RoCE v2"))
		entry->gid_type = IBV_GID_TYPE_ROCE_V2;
	else if (port.link_layer == IBV_LINK_LAYER_ETHERNET)
		entry->gid_type = IBV_GID_TYPE_ROCE_V1;
	else
		entry->gid_type = IBV_GID_TYPE_IB;
	if (port.link_layer == IBV_LINK_LAYER_ETHERNET &&
	    !vs_read_gid_attr(context, port_num, "ndevs", gid_index, buf,
			      sizeof(buf)))
		entry->ndev_ifindex = if_nametoindex(buf);
	return 0;
}

ssize_t vs__gid_table_fallback(struct ibv_context *context,
			      struct ibv_gid_entry *entries, size_t max_entries,
			      size_t entry_size)
{
	struct ibv_device_attr device;
	size_t count = 0;
	uint32_t port;
	int ret;

	ret = ibv_query_device(context, &device);
	if (ret)
		return -ret;
	for (port = 1; port <= device.phys_port_cnt; port++) {
		struct ibv_port_attr attr;
		uint32_t index;

		ret = vs_query_port(context, port, &attr);
		if (ret)
			return -ret;
		for (index = 0; index < (uint32_t)attr.gid_tbl_len; index++) {
			struct ibv_gid_entry entry;

			ret = vs__gid_entry_fallback(context, port, index,
						    &entry);
			if (ret == ENODATA)
				continue;
			if (ret)
				return -ret;
			if (count == max_entries)
				return -EINVAL;
			memcpy((char *)entries + count * entry_size, &entry,
			       sizeof(entry));
			count++;
		}
	}
	return (ssize_t)count;
}
