/* SPDX-License-Identifier: MIT */
/*
 * CM id handles: one rdma_cm_id and its own event channel (non-blocking
 * fd) per handle, and the device context borrowed from librdmacm.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>

#include "cm_internal.h"

static struct rdma_event_channel *new_channel(const char *call, int *err)
{
	struct rdma_event_channel *ch;
	int flags;

	errno = 0;
	ch = rdma_create_event_channel();
	if (!ch) {
		*err = vs__verb_error(call, "rdma_create_event_channel",
				      vs__errno_or(ENODEV),
				      "cannot open a CM event channel "
				      "(/dev/infiniband/rdma_cm: is rdma_ucm loaded?)");
		return NULL;
	}
	flags = fcntl(ch->fd, F_GETFL);
	if (flags < 0 || fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		*err = vs__set_error(call, errno, "fcntl cannot make the CM "
				     "event channel's fd %d non-blocking", ch->fd);
		rdma_destroy_event_channel(ch);
		return NULL;
	}
	return ch;
}

bool vs__cm_is_ud(const struct vs_cm_id *id)
{
	return id->transport == VS_TRANSPORT_UD;
}

int vs__cm_new(enum vs_transport t, struct vs_cm_id **out, const char *call)
{
	struct vs_cm_id *id;
	int ret = 0;

	*out = NULL;
	id = vs__handle_alloc(sizeof(*id));
	if (!id)
		return vs__set_error(call, ENOMEM, "out of memory");
	id->transport = t;
	id->ech = new_channel(call, &ret);
	if (!id->ech)
		goto fail;
	errno = 0;
	if (rdma_create_id(id->ech, &id->id, id,
			   t == VS_TRANSPORT_UD ? RDMA_PS_UDP : RDMA_PS_TCP)) {
		ret = vs__verb_error(call, "rdma_create_id", vs__errno_or(ENODEV),
				     "cannot create a CM id");
		rdma_destroy_event_channel(id->ech);
		goto fail;
	}
	vs__handle_init(&id->h, VS_KIND_CM_ID);
	*out = id;
	return 0;
fail:
	vs__handle_unpublish(id, sizeof(*id));
	return ret;
}

int vs__cm_wrap(struct rdma_cm_id *raw, struct vs_cm_id *listener,
		struct vs_cm_id **out, const char *call)
{
	struct vs_cm_id *id;
	int ret = 0;

	*out = NULL;
	id = vs__handle_alloc(sizeof(*id));
	if (!id)
		return vs__set_error(call, ENOMEM, "out of memory");
	id->transport = listener->transport;
	id->ech = new_channel(call, &ret);
	if (!id->ech) {
		vs__handle_unpublish(id, sizeof(*id));
		return ret;
	}
	/* its own channel from now on: its events never reach the listener's */
	errno = 0;
	if (rdma_migrate_id(raw, id->ech)) {
		ret = vs__verb_error(call, "rdma_migrate_id", vs__errno_or(EINVAL),
				     "cannot move the new connection's CM id to "
				     "its own event channel");
		rdma_destroy_event_channel(id->ech);
		vs__handle_unpublish(id, sizeof(*id));
		return ret;
	}
	id->id = raw;
	raw->context = id;
	/*
	 * Requests on one device share the listener's context handle, so a
	 * server's PD and CQs serve all its connections (a wildcard
	 * listener takes the device of its first request).
	 */
	if (!listener->ctx && raw->verbs &&
	    vs__context_borrow(raw->verbs, &listener->ctx, call)) {
		/* not fatal: the new id borrows its own when asked */
	}
	if (listener->ctx && listener->ctx->ctx == raw->verbs) {
		id->ctx = listener->ctx;
		vs__ref_get(&id->ctx->h);
	}
	vs__cm_peer_text(id, rdma_get_peer_addr(raw));
	vs__handle_init(&id->h, VS_KIND_CM_ID);
	*out = id;
	return 0;
}

void vs__cm_free(struct vs_cm_id *id)
{
	if (id->id)
		rdma_destroy_id(id->id);
	if (id->ech)
		rdma_destroy_event_channel(id->ech);
	id->id = NULL;
	id->ech = NULL;
}

void vs__cm_peer_text(struct vs_cm_id *id, const struct sockaddr *sa)
{
	char a[INET6_ADDRSTRLEN] = "";

	id->peer[0] = 0;
	if (!sa)
		return;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		snprintf(id->peer, sizeof(id->peer), "%s:%u", a,
			 ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		snprintf(id->peer, sizeof(id->peer), "[%s]:%u", a,
			 ntohs(in6->sin6_port));
	}
}

const char *vs__cm_peer_or(const struct vs_cm_id *id)
{
	return id->peer[0] ? id->peer : "the peer";
}

int vs__cm_bind_ctx(struct vs_cm_id *id, const char *call)
{
	if (id->ctx)
		return 0;
	if (!id->id->verbs)
		return vs__set_error(call, EINVAL,
				     "the CM id is not bound to a device yet "
				     "(resolve an address first, or listen on a "
				     "local address rather than the wildcard)");
	return vs__context_borrow(id->id->verbs, &id->ctx, call);
}
