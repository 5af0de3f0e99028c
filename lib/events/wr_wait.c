/* SPDX-License-Identifier: MIT */
/*
 * Waiting for one's own completions (verbshim/scope.h): the pause between
 * two passes over a CQ (busy-poll or sleep on its channel), the report of
 * a WR that completed in error, and vs_cq_wait_wr.  The passes themselves
 * are vs__cq_take (lib/core/cq_stash.c), which keeps what is not wanted.
 */
#include "events.h"

/* Empty passes of a busy-poll between two readings of the clock. */
#define SPINS_PER_CLOCK 256

int vs__wait_mode_check(struct vs_cq *cq, enum vs_wait_mode mode,
			const char *call)
{
	if (mode != VS_WAIT_POLL && mode != VS_WAIT_SLEEP)
		return vs__set_error(call, EINVAL, "mode is %d: VS_WAIT_POLL or "
				     "VS_WAIT_SLEEP", (int)mode);
	if (mode == VS_WAIT_SLEEP && !cq->channel)
		return vs__set_error(call, EINVAL, "VS_WAIT_SLEEP sleeps on the "
				     "CQ's completion channel and CQ %p has none "
				     "(create it with .channel, or use "
				     "VS_WAIT_POLL)", (void *)cq);
	return 0;
}

int vs__wait_pause(struct vs_cq *cq, enum vs_wait_mode mode, int timeout_ms,
		   int64_t deadline, unsigned int *spins, const char *call)
{
	if (mode == VS_WAIT_SLEEP)
		return vs__channel_sleep(cq, timeout_ms, deadline, call);
	if (timeout_ms == 0)
		return -EAGAIN;
	if (++*spins % SPINS_PER_CLOCK == 0)
		return vs__wait_over(timeout_ms, deadline);
	return 0;
}

int vs__wc_failed(const struct vs_wc *wc, const char *call)
{
	return vs__set_error(call, EIO, "WR %llu on QP %u completed with %s "
			     "(status %d, vendor error 0x%x)",
			     (unsigned long long)wc->wr_id, wc->qp_num,
			     ibv_wc_status_str(wc->status), (int)wc->status,
			     wc->vendor_err);
}

struct wanted {
	uint32_t qp_num;
	uint64_t wr_id;
	bool found;
	struct vs_wc *wc;
};

static bool take_wanted(void *arg, struct vs_wc *wc)
{
	struct wanted *w = arg;

	if (w->found || wc->qp_num != w->qp_num || wc->wr_id != w->wr_id)
		return false;
	*w->wc = *wc;
	w->found = true;
	return true;
}

int vs_cq_wait_wr(struct vs_cq *cq, uint32_t qp_num, uint64_t wr_id,
		  enum vs_wait_mode mode, int timeout_ms, struct vs_wc *wc)
{
	static const char call[] = "vs_cq_wait_wr";
	struct wanted w = { .qp_num = qp_num, .wr_id = wr_id, .wc = wc };
	unsigned int spins = 0;
	int64_t deadline;
	int ret = vs__check_handle(cq, VS_KIND_CQ, call, "cq");

	if (ret)
		return ret;
	if (!wc)
		return vs__set_error(call, EINVAL, "wc is NULL");
	ret = vs__wait_mode_check(cq, mode, call);
	if (ret)
		return ret;
	deadline = vs__deadline(timeout_ms);
	for (;;) {
		ret = vs__cq_take(cq, take_wanted, &w, call);
		if (ret < 0)
			return ret;
		if (w.found)
			return wc->status == IBV_WC_SUCCESS ? 0 :
							      vs__wc_failed(wc, call);
		ret = vs__wait_pause(cq, mode, timeout_ms, deadline, &spins, call);
		if (ret == -ETIMEDOUT)
			return vs__set_error(call, ETIMEDOUT, "WR %llu of QP %u: "
					     "no completion on CQ %p within %d ms "
					     "(timed out)", (unsigned long long)wr_id,
					     qp_num, (void *)cq, timeout_ms);
		if (ret)
			return ret;
	}
}
