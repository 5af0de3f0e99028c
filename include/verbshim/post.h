/* SPDX-License-Identifier: MIT */
/*
 * Posting: doorbell batches of send work requests, typed by transport,
 * one header each (post_rc.h, post_uc.h, post_ud.h; receives: recv.h).
 *
 *	struct vs_rc_batch b;
 *	vs_rc_batch_start(qp, &b);
 *	vs_rc_write(&b, 1, 0, &sge, 1, remote);
 *	vs_rc_send(&b, 2, VS_WR_SIGNALED, &sge, 1);
 *	vs_rc_batch_submit(&b);            // one doorbell
 *
 * Extended QPs post through ibv_wr_start/ibv_wr_* /ibv_wr_complete, legacy
 * QPs as one chained ibv_post_send: the same calls and results both ways.
 * A batch holds at most the QP's max_batch WRs; while one is open no
 * other batch may start on the QP (the provider holds the SQ).  An add
 * that fails leaves the batch as it was.  SGE arrays are copied at add
 * time; the bytes they point at (inline data included) must stay valid
 * until submit, and until the completion unless sent inline.
 */
#ifndef VERBSHIM_POST_H
#define VERBSHIM_POST_H

#include "verbshim/post_rc.h"
#include "verbshim/post_uc.h"
#include "verbshim/post_ud.h"


#endif /* VERBSHIM_POST_H */
