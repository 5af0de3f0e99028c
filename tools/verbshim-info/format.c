// SPDX-License-Identifier: MIT
/*
 * Port attributes, GIDs and GUIDs in words: shared by the text and JSON
 * outputs and the diagnosis.  Rates, widths and GID types are lib/'s
 * decoders (verbshim/names.h).
 */
#include <arpa/inet.h>
#include <stdarg.h>

#include "info.h"

/* snprintf() through a va_list: names from sysfs and the loader are
 * bounded by their buffers, and a cut path just fails to open. */
void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

const char *port_state_name(enum ibv_port_state s)
{
	static const char *const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};

	return (unsigned int)s < 6 ? names[s] : "UNKNOWN";
}

int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

/* Lane rate times lanes, in Gb/s (0 when a code is unknown). */
double port_gbps(const struct ibv_port_attr *a)
{
	return vs_rate_mbps(a->active_speed, a->active_width) / 1000.0;
}

const char *link_layer_name(uint8_t ll)
{
	/* Old kernels report UNSPECIFIED for InfiniBand. */
	return ll == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
}

void gid_str(const union ibv_gid *gid, char *buf, size_t size)
{
	if (!inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)size))
		fmt(buf, size, "?");
}

void guid_str(uint64_t guid, char *buf, size_t size)
{
	fmt(buf, size, "%04x:%04x:%04x:%04x", (unsigned int)(guid >> 48),
	    (unsigned int)(guid >> 32) & 0xffff,
	    (unsigned int)(guid >> 16) & 0xffff, (unsigned int)guid & 0xffff);
}
