/* SPDX-License-Identifier: MIT */
/*
 * The kinds of CM id (rows in lib/cm/cm_internal.h): which row an id is,
 * decided from its transport at create and from its device at bind.
 */
#include "cm_internal.h"

#define ROW(KIND, qp_, qpk_, ps_, dg_, iwarp_, rtu_, up_, cmax_, cwhat_,      \
	    amax_, awhat_)                                                    \
	static const struct vs__cm_kind row_##KIND = {                        \
		.index = VS__CM_KIND_##KIND, .qp = qp_, .qp_kind = qpk_,      \
		.ps = ps_, .datagram = dg_, .iwarp = iwarp_, .rtu = rtu_,     \
		.connect_max = cmax_, .connect_what = cwhat_,                 \
		.accept_max = amax_, .accept_what = awhat_,                   \
	};
VS__CM_KINDS(ROW)
#undef ROW

const struct vs__cm_kind *vs__cm_kind_of(enum vs_transport t,
					 const struct vs_context *ctx)
{
	if (t == VS_TRANSPORT_UD)
		return &row_UD;
	/* iWARP is the device's transport, whatever its ports */
	if (ctx && ctx->ctx->device->transport_type == IBV_TRANSPORT_IWARP)
		return &row_RC_IWARP;
	return &row_RC;
}
