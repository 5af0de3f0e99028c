/* SPDX-License-Identifier: MIT */
/*
 * The kinds of CM id (rows in lib/cm/cm_internal.h): which row an id is,
 * decided from its transport and librdmacm's age at create and from its
 * device at bind.
 */
#include "cm_internal.h"
#include "verbshim/loader.h"

#define ROW(KIND, qp_, dg_, iwarp_, old_, cmax_, cwhat_, amax_, awhat_)       \
	static const struct vs__cm_kind row_##KIND = {                        \
		.qp = qp_, .datagram = dg_, .iwarp = iwarp_, .old_cm = old_,  \
		.connect_max = cmax_, .connect_what = cwhat_,                 \
		.accept_max = amax_, .accept_what = awhat_,                   \
	};
VS__CM_KINDS(ROW)
#undef ROW

/*
 * librdmacm has RDMACM_1.2's rdma_init_qp_attr and rdma_establish
 * (rdma-core 23 on): asked once, at the first id (librdmacm is loaded by
 * then); 0 unknown, 1 yes, 2 no.
 */
static int new_cm;

bool vs__cm_old_here(void)
{
	int v = __atomic_load_n(&new_cm, __ATOMIC_RELAXED);

	if (!v) {
		v = vs_symbol_resolved("rdma_init_qp_attr") == 1 &&
		    vs_symbol_resolved("rdma_establish") == 1 ? 1 : 2;
		__atomic_store_n(&new_cm, v, __ATOMIC_RELAXED);
	}
	return v == 2 || vs_force_legacy();
}

const char *vs__cm_old_why(void)
{
	return __atomic_load_n(&new_cm, __ATOMIC_RELAXED) == 2 ?
	       "this librdmacm has no rdma_init_qp_attr (RDMACM_1.2, "
	       "rdma-core 23 or later)" :
	       "the legacy verbs are forced (vs_force_legacy)";
}

const struct vs__cm_kind *vs__cm_kind_of(enum vs_transport t,
					 const struct vs_context *ctx, bool old)
{
	if (t == VS_TRANSPORT_UD)
		return old ? &row_UD_OLD : &row_UD;
	/*
	 * iWARP is the device's transport, whatever its ports; iw_cm brings
	 * its QPs up on any librdmacm (the library takes them to INIT only,
	 * at their create)
	 */
	if (ctx && ctx->ctx->device->transport_type == IBV_TRANSPORT_IWARP)
		return &row_RC_IWARP;
	return old ? &row_RC_OLD : &row_RC;
}
