/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous device events, typed: the element of each event maps back
 * to its vs_ handle through the context back-pointer set at creation
 * (qp_context, cq_context, srq_context), checked to be a handle of the
 * arena for that very object before it is believed, since a QP created
 * through a raw handle carries whatever context its creator gave.
 */
#include <fcntl.h>

#include "events.h"

#define EVENTS(X)                                                             \
	X(IBV_EVENT_CQ_ERR, VS_ASYNC_CQ)                                      \
	X(IBV_EVENT_QP_FATAL, VS_ASYNC_QP)                                    \
	X(IBV_EVENT_QP_REQ_ERR, VS_ASYNC_QP)                                  \
	X(IBV_EVENT_QP_ACCESS_ERR, VS_ASYNC_QP)                               \
	X(IBV_EVENT_COMM_EST, VS_ASYNC_QP)                                    \
	X(IBV_EVENT_SQ_DRAINED, VS_ASYNC_QP)                                  \
	X(IBV_EVENT_PATH_MIG, VS_ASYNC_QP)                                    \
	X(IBV_EVENT_PATH_MIG_ERR, VS_ASYNC_QP)                                \
	X(IBV_EVENT_DEVICE_FATAL, VS_ASYNC_DEVICE)                            \
	X(IBV_EVENT_PORT_ACTIVE, VS_ASYNC_PORT)                               \
	X(IBV_EVENT_PORT_ERR, VS_ASYNC_PORT)                                  \
	X(IBV_EVENT_LID_CHANGE, VS_ASYNC_PORT)                                \
	X(IBV_EVENT_PKEY_CHANGE, VS_ASYNC_PORT)                               \
	X(IBV_EVENT_SM_CHANGE, VS_ASYNC_PORT)                                 \
	X(IBV_EVENT_SRQ_ERR, VS_ASYNC_SRQ)                                    \
	X(IBV_EVENT_SRQ_LIMIT_REACHED, VS_ASYNC_SRQ)                          \
	X(IBV_EVENT_QP_LAST_WQE_REACHED, VS_ASYNC_QP)                         \
	X(IBV_EVENT_CLIENT_REREGISTER, VS_ASYNC_PORT)                         \
	X(IBV_EVENT_GID_CHANGE, VS_ASYNC_PORT)                                \
	X(IBV_EVENT_WQ_FATAL, VS_ASYNC_DEVICE)

static const struct {
	enum ibv_event_type type;
	const char *name;
	enum vs_async_about about;
} events[] = {
#define ROW(t, a) { t, #t, a },
	EVENTS(ROW)
#undef ROW
};

static int find(enum ibv_event_type t)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (events[i].type == t)
			return (int)i;
	return -1;
}

const char *vs_async_event_name(enum ibv_event_type type)
{
	int i = find(type);

	return i < 0 ? "unknown event" : events[i].name;
}

static int async_fd(struct vs_context *ctx, const char *call)
{
	int flags, fd, ret = vs__check_handle(ctx, VS_KIND_CONTEXT, call, "ctx");

	if (ret)
		return ret;
	fd = ctx->ctx->async_fd;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return vs__set_error(call, errno, "fcntl: the device's async "
				     "fd %d is not usable", fd);
	if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return vs__set_error(call, errno, "fcntl cannot make the "
				     "device's async fd %d non-blocking", fd);
	return fd;
}

int vs_async_fd(struct vs_context *ctx)
{
	return async_fd(ctx, "vs_async_fd");
}

/* The handle of kind (one of kinds[]) at p whose raw object is obj, else NULL. */
static void *typed(void *p, size_t size, const void *obj)
{
	const struct vs_handle *h = p;
	uint32_t m;

	if (!p || !vs__handle_in_arena(p, size))
		return NULL;
	m = __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) & ~VS__CLOSED;
	if (m == VS_KIND_RC_QP || m == VS_KIND_UC_QP || m == VS_KIND_UD_QP ||
	    m == VS_KIND_SRD_QP)
		return ((struct vs_qp *)p)->qp == obj ? p : NULL;
	if (m == VS_KIND_CQ)
		return ((struct vs_cq *)p)->cq == obj ? p : NULL;
	if (m == VS_KIND_SRQ)
		return ((struct vs_srq *)p)->srq == obj ? p : NULL;
	return NULL;
}

static void map_event(struct vs_async_event *ev)
{
	struct ibv_async_event *r = &ev->raw;
	int i = find(r->event_type);

	ev->type = r->event_type;
	ev->name = vs_async_event_name(r->event_type);
	ev->about = i < 0 ? VS_ASYNC_DEVICE : events[i].about;
	switch (ev->about) {
	case VS_ASYNC_QP: {
		struct vs_qp *qp = typed(r->element.qp->qp_context,
					 sizeof(struct vs_qp), r->element.qp);

		if (!qp)
			break;
		ev->qp_transport = qp->transport;
		if (qp->transport == VS_TRANSPORT_RC)
			ev->rc_qp = (struct vs_rc_qp *)qp;
		else if (qp->transport == VS_TRANSPORT_UC)
			ev->uc_qp = (struct vs_uc_qp *)qp;
		else
			ev->ud_qp = (struct vs_ud_qp *)qp;
		break;
	}
	case VS_ASYNC_CQ:
		ev->cq = typed(r->element.cq->cq_context, sizeof(struct vs_cq),
			       r->element.cq);
		break;
	case VS_ASYNC_SRQ:
		ev->srq = typed(r->element.srq->srq_context,
				sizeof(struct vs_srq), r->element.srq);
		break;
	case VS_ASYNC_PORT:
		ev->port = (uint8_t)r->element.port_num;
		break;
	case VS_ASYNC_DEVICE:
		break;
	}
}

int vs_async_next(struct vs_context *ctx, int timeout_ms,
		  struct vs_async_event *ev)
{
	int64_t deadline = vs__deadline(timeout_ms);
	int fd = async_fd(ctx, "vs_async_next"), ret;

	if (fd < 0)
		return fd;
	if (!ev)
		return vs__set_error("vs_async_next", EINVAL, "ev is NULL");
	memset(ev, 0, sizeof(*ev));
	for (;;) {
		if (!ibv_get_async_event(ctx->ctx, &ev->raw)) {
			map_event(ev);
			/* acked now: no close ever waits for this event */
			ibv_ack_async_event(&ev->raw);
			return 0;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return vs__verb_error("vs_async_next",
					      "ibv_get_async_event",
					      vs__errno_or(EIO),
					      "reading the async events of %s failed",
					      ctx->name);
		ret = vs__wait_fd(fd, timeout_ms, deadline, "vs_async_next");
		if (ret == -ETIMEDOUT)
			return vs__set_error("vs_async_next", ETIMEDOUT,
					     "no async event of %s within %d ms "
					     "(timed out)", ctx->name, timeout_ms);
		if (ret)
			return ret;
	}
}
