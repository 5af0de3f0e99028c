/* SPDX-License-Identifier: MIT */
/*
 * The public decoders of port and GID codes (verbshim/names.h) over every
 * possible code: the IBTA table for the known ones, 0 / "unknown" for the
 * rest, and the rate as their product.
 */
#include "../common/vs_test.h"

#include "verbshim/names.h"

static const struct {
	uint8_t code;
	uint32_t mbps;
	const char *name;
} speeds[] = {
	{ 1, 2500, "SDR" }, { 2, 5000, "DDR" }, { 4, 10000, "QDR" },
	{ 8, 10000, "FDR10" }, { 16, 14000, "FDR" }, { 32, 25000, "EDR" },
	{ 64, 50000, "HDR" }, { 128, 100000, "NDR" },
};

static const struct {
	uint8_t code;
	unsigned int lanes;
} widths[] = { { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 } };

static uint32_t want_mbps(unsigned int code)
{
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == code)
			return speeds[i].mbps;
	return 0;
}

static const char *want_name(unsigned int code)
{
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].code == code)
			return speeds[i].name;
	return "unknown";
}

static unsigned int want_lanes(unsigned int code)
{
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].code == code)
			return widths[i].lanes;
	return 0;
}

int main(void)
{
	for (unsigned int s = 0; s <= UINT8_MAX; s++) {
		VS_ASSERT_EQ(vs_speed_lane_mbps((uint8_t)s), want_mbps(s));
		VS_ASSERT_STREQ(vs_speed_name((uint8_t)s), want_name(s));
		VS_ASSERT_EQ(vs_width_lanes((uint8_t)s), want_lanes(s));
		for (unsigned int w = 0; w <= UINT8_MAX; w++)
			if (vs_rate_mbps((uint8_t)s, (uint8_t)w) !=
			    want_mbps(s) * want_lanes(w))
				VS_FAIL("vs_rate_mbps(%u, %u) = %u, expected %u",
					s, w, vs_rate_mbps((uint8_t)s, (uint8_t)w),
					want_mbps(s) * want_lanes(w));
	}
	VS_ASSERT_EQ(vs_rate_mbps(32, 2), 100000);	/* 4x EDR */
	VS_ASSERT_EQ(vs_gid_type_of(IBV_GID_TYPE_IB), VS_GID_IB);
	VS_ASSERT_EQ(vs_gid_type_of(IBV_GID_TYPE_ROCE_V1), VS_GID_ROCE_V1);
	VS_ASSERT_EQ(vs_gid_type_of(IBV_GID_TYPE_ROCE_V2), VS_GID_ROCE_V2);
	VS_ASSERT_EQ(vs_gid_type_of((enum ibv_gid_type)7), VS_GID_IB);
	VS_ASSERT_STREQ(vs_gid_type_name(vs_gid_type_of(IBV_GID_TYPE_ROCE_V2)),
			"RoCE v2");
	printf("names_decode: 256 speed and width codes, 65536 rates, 4 GID types\n");
	return 0;
}
