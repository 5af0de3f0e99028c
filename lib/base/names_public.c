/* SPDX-License-Identifier: MIT */
/*
 * The public decoders of port and GID codes (include/verbshim/names.h).
 */
#include "base.h"

/* IBTA 14.2.5.6: the width is a bit mask of lane counts. */
unsigned int vs_width_lanes(uint8_t width)
{
	switch (width) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	}
	return 0;
}

/* One bit per lane rate, in the order of the IB speed codes. */
static const struct {
	uint32_t mbps;
	const char *name;
} lane_speeds[] = {
	{ 2500, "SDR" },    { 5000, "DDR" },   { 10000, "QDR" },
	{ 10000, "FDR10" }, { 14000, "FDR" },  { 25000, "EDR" },
	{ 50000, "HDR" },   { 100000, "NDR" },
};

/* Index into lane_speeds of a speed code, or -1. */
static int lane_speed_index(uint8_t speed)
{
	for (unsigned int bit = 0; bit < 8; bit++)
		if (speed == 1u << bit)
			return (int)bit;
	return -1;
}

uint32_t vs_speed_lane_mbps(uint8_t speed)
{
	int i = lane_speed_index(speed);

	return i < 0 ? 0 : lane_speeds[i].mbps;
}

const char *vs_speed_name(uint8_t speed)
{
	int i = lane_speed_index(speed);

	return i < 0 ? "unknown" : lane_speeds[i].name;
}

uint32_t vs_rate_mbps(uint8_t speed, uint8_t width)
{
	return vs_speed_lane_mbps(speed) * vs_width_lanes(width);
}

enum vs_gid_type vs_gid_type_of(enum ibv_gid_type type)
{
	switch (type) {
	case IBV_GID_TYPE_ROCE_V2:
		return VS_GID_ROCE_V2;
	case IBV_GID_TYPE_ROCE_V1:
		return VS_GID_ROCE_V1;
	default:
		return VS_GID_IB;
	}
}
