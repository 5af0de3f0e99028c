/* SPDX-License-Identifier: MIT */
/*
 * The bounce ring of a QP on a provider whose ibv_wr_set_* SGE setters
 * are broken (lib/core/quirks.c, wr_sge_broken): inline payloads and gathers
 * are copied into a registered slot and posted as one SGE.  The ring is
 * made at the QP's first batch start, not at create: a QP that never
 * sends (a CM QP set up and torn down, say) registers nothing.  Until it
 * is made the QP's send gate stays shut (vs__qp_set_state), so the first
 * start takes the slow way here and the data path pays nothing.
 */
#include "core.h"

/*
 * Called from a batch start, on the thread that sends on the QP (a QP's
 * batches are for one thread at a time), so nothing races the fields.
 */
int vs__bounce_ready(struct vs_qp *qp, const char *verb)
{
	size_t size = (size_t)qp->caps.max_send_wr * qp->bounce_slot_size;
	void *buf = NULL;

	if (qp->bounce_mr)
		return 0;
	if (posix_memalign(&buf, 4096, size))
		return vs__set_error(verb, ENOMEM, "out of memory for the %zu-byte "
				     "bounce ring of inline data and gathers",
				     size);
	errno = 0;
	qp->bounce_mr = ibv_reg_mr(qp->pd->pd, buf, size, IBV_ACCESS_LOCAL_WRITE);
	if (!qp->bounce_mr) {
		free(buf);
		return vs__verb_error(verb, "ibv_reg_mr", vs__errno_or(ENOMEM),
				      "cannot register the %zu-byte bounce ring "
				      "that inline data and gathers go through "
				      "on this provider (its ibv_wr_set_* are "
				      "broken); the batch was not started", size);
	}
	qp->bounce = buf;
	qp->bounce_next = 0;
	return 0;
}

/*
 * The ring's MR deregistered, then its memory freed: 0, or the error of
 * ibv_dereg_mr with both kept (the device may still reach the memory
 * of an MR it would not let go: freeing it would hand it to malloc).
 */
int vs__bounce_free(struct vs_qp *qp, const char *verb)
{
	if (qp->bounce_mr) {
		int err = ibv_dereg_mr(qp->bounce_mr);

		if (err)
			return vs__verb_error(verb, "ibv_dereg_mr", err,
					      "the QP is destroyed, but the MR "
					      "of its bounce ring (%u-byte "
					      "slots) would not deregister: "
					      "the MR, its memory and the QP's "
					      "PD and CQs stay; close the QP "
					      "again to finish",
					      qp->bounce_slot_size);
	}
	free(qp->bounce);
	qp->bounce_mr = NULL;
	qp->bounce = NULL;
	return 0;
}
