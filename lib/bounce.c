/* SPDX-License-Identifier: MIT */
/*
 * The bounce ring of a QP on a provider whose ibv_wr_set_* SGE setters
 * are broken (lib/quirks.c, wr_sge_broken): inline payloads and gathers
 * are copied into a registered slot and posted as one SGE.  The ring is
 * made at the first WR that needs it, not at create: a QP that sends
 * neither inline nor a gather (and a CM QP set up and torn down without
 * sending) registers nothing.
 */
#include "vs_internal.h"

/*
 * Called from an add, on the thread that owns the open batch (a batch
 * blocks close and state changes), so nothing races the two fields.
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
				      "broken); the WR was not added", size);
	}
	qp->bounce = buf;
	qp->bounce_next = 0;
	return 0;
}

void vs__bounce_free(struct vs_qp *qp)
{
	if (qp->bounce_mr)
		ibv_dereg_mr(qp->bounce_mr);
	free(qp->bounce);
	qp->bounce_mr = NULL;
	qp->bounce = NULL;
}
