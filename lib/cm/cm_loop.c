/* SPDX-License-Identifier: MIT */
/*
 * Non-blocking mode: each CM event of an id (or of any id on a shared
 * channel), typed, acted on and acknowledged, for an event loop watching
 * vs_cm_fd() (vs_cm_channel_fd()).
 */
#include "cm_internal.h"

/* What both loops do with an event read and acked: the next step, typed. */
static void deliver(const struct vs__cm_ev *e, struct vs_cm_event *ev,
		    const char *call)
{
	struct vs_cm_id *about = e->id;

	ev->type = e->type;
	ev->status = e->status;
	ev->id = about;
	ev->listener = e->listener;
	if (e->type == RDMA_CM_EVENT_ADDR_RESOLVED &&
	    about->state == VS_CM_RESOLVING) {
		/* a no_wait resolve: its route next (a group's: none) */
		ev->err = -vs__cm_resolve_route(about, call);
	} else if (e->type == RDMA_CM_EVENT_CONNECT_RESPONSE &&
		   about->state == VS_CM_CONNECTING) {
		/* the answer to a connect: bring the QP up, complete it */
		ev->err = -vs__cm_complete(about, call);
		if (!ev->err)
			ev->type = RDMA_CM_EVENT_ESTABLISHED;
	} else if (vs__cm_is_failure(e->type)) {
		const char *step = e->type == RDMA_CM_EVENT_ADDR_ERROR ?
				   "resolving the address of" :
				   e->type == RDMA_CM_EVENT_ROUTE_ERROR ?
				   "resolving the route to" :
				   about->state == VS_CM_LISTENING ?
				   "listening on" :
				   about->state == VS_CM_REJECTED ||
				   e->type == RDMA_CM_EVENT_UNREACHABLE ||
				   e->type == RDMA_CM_EVENT_CONNECT_ERROR ?
				   "connecting to" : "connection with";

		ev->err = -vs__cm_explain(about, e, step, call);
	}
	ev->name = vs_cm_event_name(ev->type);
	ev->state = about->state;
	if (e->type == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    e->type == RDMA_CM_EVENT_CONNECT_RESPONSE ||
	    e->type == RDMA_CM_EVENT_REJECTED ||
	    (e->type == RDMA_CM_EVENT_ESTABLISHED &&
	     (about->kind->datagram || e->pdata))) {
		ev->private_data_len = about->pdata_len;
		memcpy(ev->private_data, about->pdata, about->pdata_len);
	}
}

int vs_cm_next(struct vs_cm_id *id, int timeout_ms, struct vs_cm_event *ev)
{
	const char *call = "vs_cm_next";
	struct vs__cm_ev e;
	int64_t deadline = 0;
	int ret = vs__check_handle(id, VS_KIND_CM_ID, call, "id");

	if (ret)
		return ret;
	if (!ev)
		return vs__set_error(call, EINVAL, "ev is NULL");
	memset(ev, 0, sizeof(*ev));
	ret = vs__cm_read(id, timeout_ms, &deadline, &e, call);
	if (ret == -ETIMEDOUT)
		return vs__cm_timed_out(id, timeout_ms, "CM event", call);
	if (ret)
		return ret;
	deliver(&e, ev, call);
	return 0;
}

int vs_cm_channel_next(struct vs_cm_channel *ch, int timeout_ms,
		       struct vs_cm_event *ev)
{
	const char *call = "vs_cm_channel_next";
	struct vs__cm_ev e;
	int ret = vs__check_handle(ch, VS_KIND_CM_CHANNEL, call, "ch");

	if (ret)
		return ret;
	if (!ev)
		return vs__set_error(call, EINVAL, "ev is NULL");
	memset(ev, 0, sizeof(*ev));
	ret = vs__cm_channel_read(ch, timeout_ms, 0, &e, call);
	if (ret == -ETIMEDOUT)
		return vs__set_error(call, ETIMEDOUT, "no CM event on the shared "
				     "channel (fd %d) within %d ms (timed out)",
				     ch->ech->fd, timeout_ms);
	if (ret)
		return ret;
	deliver(&e, ev, call);
	return 0;
}
