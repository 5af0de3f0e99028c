/* SPDX-License-Identifier: MIT */
/*
 * The kinds of CM id (rows in lib/cm/cm_internal.h): which row an id is,
 * decided from its transport at create and from its device at bind.
 */
#include "cm_internal.h"

#define ROW(KIND, qp_, dg_, iwarp_, cmax_, cwhat_, amax_, awhat_)             \
	static const struct vs__cm_kind row_##KIND = {                        \
		.qp = qp_, .datagram = dg_, .iwarp = iwarp_,                  \
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
