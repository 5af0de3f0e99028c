/* SPDX-License-Identifier: MIT */
/*
 * Decoders of the codes ibv_query_port() and ibv_query_gid_ex() return:
 * link width, lane speed, rate, GID type.  Pure functions of their
 * argument, safe for any value (unknown codes decode to 0 or "unknown").
 */
#ifndef VERBSHIM_NAMES_H
#define VERBSHIM_NAMES_H

#include "verbshim/common.h"
#include "verbshim/device.h"

VS_BEGIN_DECLS

/**
 * vs_width_lanes() - number of lanes of an IB link width code
 * @width: ibv_port_attr.active_width, a bit per width (IBTA 14.2.5.6):
 *         1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x
 *
 * Return: 1, 2, 4, 8 or 12; 0 when @width is not one of those codes.
 */
unsigned int vs_width_lanes(uint8_t width);

/**
 * vs_speed_lane_mbps() - signalling rate of one lane of an IB speed code
 * @speed: ibv_port_attr.active_speed, a bit per lane rate: 1 = SDR,
 *         2 = DDR, 4 = QDR, 8 = FDR10, 16 = FDR, 32 = EDR, 64 = HDR,
 *         128 = NDR (the kernel reports faster links as NDR)
 *
 * Return: the lane rate in Mbit/s (2500 for SDR ... 100000 for NDR);
 * 0 when @speed is not one of those codes.
 */
uint32_t vs_speed_lane_mbps(uint8_t speed);

/**
 * vs_speed_name() - name of an IB speed code
 * @speed: ibv_port_attr.active_speed, as for vs_speed_lane_mbps()
 *
 * Return: a static string, "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR",
 * "HDR" or "NDR"; "unknown" for any other value.
 */
const char *vs_speed_name(uint8_t speed);

/**
 * vs_rate_mbps() - link rate of a port: lane rate times lanes
 * @speed: ibv_port_attr.active_speed
 * @width: ibv_port_attr.active_width
 *
 * Return: the rate in Mbit/s (4x EDR: 100000); 0 when either code is
 * unknown.
 */
uint32_t vs_rate_mbps(uint8_t speed, uint8_t width);

/**
 * vs_gid_type_of() - the vs_gid_type of an rdma-core GID type
 * @type: ibv_gid_entry.gid_type from ibv_query_gid_ex() or
 *        ibv_query_gid_table()
 *
 * Name the result with vs_gid_type_name().
 *
 * Return: VS_GID_ROCE_V2, VS_GID_ROCE_V1, or VS_GID_IB for IB and any
 * other value.
 */
enum vs_gid_type vs_gid_type_of(enum ibv_gid_type type);

VS_END_DECLS

#endif /* VERBSHIM_NAMES_H */
