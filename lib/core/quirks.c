/* SPDX-License-Identifier: MIT */
/*
 * Provider quirks, keyed by the device's vendor_id: the one place that
 * knows a provider by its number.  Objects ask for a behaviour
 * (vs__quirks()->...), never for a vendor.
 */
#include "core.h"

static const struct vs__quirks none;

static const struct vs__quirks table[] = {
	{
		/*
		 * rxe (SoftRoCE).  Its ibv_next_poll stores the consumer index
		 * and unlocks when it returns ENOENT, so the ibv_end_poll other
		 * providers need after it would skip a CQE: poll one
		 * completion per ibv_start_poll/ibv_end_poll pair.  Its
		 * ibv_wr_set_inline_data leaves the WQE's residual length at 0
		 * and its ibv_wr_set_sge_list sums the first SGE's length
		 * num_sge times (fixed upstream only in 2025): inline and
		 * gathers go through the QP's bounce ring
		 * (VERBSHIM_TRUST_WR_SGE=1 turns that off).
		 */
		.vendor_id = 0xffffff,
		.name = "rxe",
		.cq_one_per_start = true,
		.wr_sge_broken = true,
	},
};

const struct vs__quirks *vs__quirks(const struct vs_context *c)
{
	uint32_t vendor = c->attr.orig_attr.vendor_id;

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].vendor_id == vendor)
			return &table[i];
	return &none;
}
