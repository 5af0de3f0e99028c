/* SPDX-License-Identifier: MIT */
/*
 * CM id handles: one rdma_cm_id and its own event channel (non-blocking
 * fd) per handle, or a channel many handles share (struct vs_cm_channel),
 * and the device context borrowed from librdmacm.
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
		int e = vs__errno_or(ENODEV);

		*err = vs__cm_env_error(call, "rdma_create_event_channel", e,
					"no CM event channel can be opened");
		if (!*err)
			*err = vs__verb_error(call, "rdma_create_event_channel", e,
					      "cannot open a CM event channel "
					      "(/dev/infiniband/rdma_cm: is "
					      "rdma_ucm loaded?)");
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

int vs_cm_channel_create(struct vs_cm_channel **out)
{
	const char *call = "vs_cm_channel_create";
	struct vs_cm_channel *ch;
	int ret = 0;

	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	ch = vs__handle_alloc(sizeof(*ch));
	if (!ch)
		return vs__set_error(call, ENOMEM, "out of memory");
	ch->ech = new_channel(call, &ret);
	if (!ch->ech) {
		vs__handle_unpublish(ch, sizeof(*ch));
		return ret;
	}
	pthread_mutex_init(&ch->lock, NULL);
	vs__handle_init(&ch->h, VS_KIND_CM_CHANNEL);
	*out = ch;
	return 0;
}

/* The last reference (the user's or its last id's) destroys the channel. */
static void channel_put(struct vs_cm_channel *ch)
{
	if (!vs__ref_put(&ch->h))
		return;
	/* no id left on it: no event of theirs is unacknowledged */
	rdma_destroy_event_channel(ch->ech);
	ch->ech = NULL;
	pthread_mutex_destroy(&ch->lock);
	vs__handle_free(ch, sizeof(*ch));
}

int vs_cm_channel_close(struct vs_cm_channel *ch)
{
	const char *call = "vs_cm_channel_close";
	char names[320];
	size_t len = 0;
	int open = 0, ret = vs__check_handle(ch, VS_KIND_CM_CHANNEL, call, "ch");

	if (ret)
		return ret;
	pthread_mutex_lock(&ch->lock);
	names[0] = 0;
	for (struct vs_cm_id *id = ch->ids; id; id = id->ch_next) {
		char peer[64];

		/* other threads' ids: their text cache is theirs to write */
		vs__cm_addr_text(peer, sizeof(peer), &id->peer_sa.sa);
		if (open++ < 4 && len < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len,
						"%sCM id %p (%s%s%s)",
						open > 1 ? ", " : "", (void *)id,
						vs_cm_state_name(id->state),
						peer[0] ? ", peer " : "", peer);
	}
	if (open) {
		pthread_mutex_unlock(&ch->lock);
		return vs__set_error(call, EBUSY,
				     "%d CM id%s still on this channel: %s%s; "
				     "close them first (vs_cm_close)", open,
				     open > 1 ? "s are" : " is", names,
				     open > 4 ? ", ..." : "");
	}
	/* requests of closed listeners whose destroy failed: now, or stay */
	ret = vs__cm_orphans_drop(&ch->orphans, call);
	if (ret) {
		pthread_mutex_unlock(&ch->lock);
		return ret;
	}
	/* under the lock: no id can join between the check and the mark */
	ret = vs__user_close(ch, VS_KIND_CM_CHANNEL, call, "ch");
	pthread_mutex_unlock(&ch->lock);
	if (!ret)
		channel_put(ch);
	return ret;
}

int vs_cm_channel_fd(const struct vs_cm_channel *ch)
{
	return ch && ch->h.magic == VS_KIND_CM_CHANNEL ? ch->ech->fd : -1;
}

struct vs_cm_channel *vs__cm_cfg_channel(const struct vs_cm_config *cfg)
{
	return cfg && (cfg->comp_mask & VS_CM_CONFIG_CHANNEL) ? cfg->channel : NULL;
}

/* id onto ch (a reference); -EINVAL when ch was closed meanwhile */
static int channel_join(struct vs_cm_channel *ch, struct vs_cm_id *id,
			const char *call)
{
	int ret;

	pthread_mutex_lock(&ch->lock);
	ret = vs__check_handle(ch, VS_KIND_CM_CHANNEL, call, "the CM event channel");
	if (!ret) {
		vs__ref_get(&ch->h);
		id->chan = ch;
		id->ech = ch->ech;
		id->ch_prev = NULL;
		id->ch_next = ch->ids;
		if (ch->ids)
			ch->ids->ch_prev = id;
		ch->ids = id;
	}
	pthread_mutex_unlock(&ch->lock);
	return ret;
}

int vs__cm_orphan_destroy(struct rdma_cm_id *raw, struct vs__cm_orphan **keep,
			  pthread_mutex_t *lock, const char *call)
{
	struct vs__cm_orphan *o;
	int err;

	errno = 0;
	if (!rdma_destroy_id(raw))
		return 0;
	err = vs__errno_or(EBUSY);
	o = malloc(sizeof(*o));
	if (o) {
		o->raw = raw;
		if (lock)
			pthread_mutex_lock(lock);
		o->next = *keep;
		*keep = o;
		if (lock)
			pthread_mutex_unlock(lock);
	}
	return vs__verb_error(call, "rdma_destroy_id", err, "cannot destroy the "
			      "CM id of a connection request nobody took (it "
			      "was rejected)%s", o ? "; it is kept: the "
			      "listener's close (or the shared channel's) "
			      "destroys it" : ", and no memory to keep it: "
			      "its id is lost");
}

int vs__cm_orphans_drop(struct vs__cm_orphan **keep, const char *call)
{
	struct vs__first first = { 0 };
	struct vs__cm_orphan **p = keep;

	while (*p) {
		struct vs__cm_orphan *o = *p;

		errno = 0;
		if (rdma_destroy_id(o->raw)) {
			vs__first_keep(&first, vs__verb_error(call, "rdma_destroy_id",
				vs__errno_or(EBUSY), "cannot destroy the CM id of a "
				"connection request nobody took (kept since its "
				"destroy failed); it stays: close again to retry"));
			p = &o->next;
			continue;
		}
		*p = o->next;
		free(o);
	}
	return vs__first_end(&first);
}

void vs__cm_channel_drop(struct vs_cm_id *id)
{
	struct vs_cm_channel *ch = id->chan;

	if (!ch) {
		if (id->ech)
			rdma_destroy_event_channel(id->ech);
		id->ech = NULL;
		return;
	}
	pthread_mutex_lock(&ch->lock);
	if (id->ch_prev)
		id->ch_prev->ch_next = id->ch_next;
	else
		ch->ids = id->ch_next;
	if (id->ch_next)
		id->ch_next->ch_prev = id->ch_prev;
	pthread_mutex_unlock(&ch->lock);
	id->ch_prev = id->ch_next = NULL;
	id->chan = NULL;
	id->ech = NULL;
	channel_put(ch);
}

int vs__cm_shared_refused(const char *call)
{
	return vs__set_error(call, EINVAL,
			     "the CM id shares a CM event channel "
			     "(vs_cm_config.channel): a step that waits for its "
			     "events would take other ids' events; use the "
			     "no_wait steps and vs_cm_channel_next()");
}

int vs__cm_new(enum vs_transport t, struct vs_cm_channel *chan,
	       struct vs_cm_id **out, const char *call)
{
	struct vs_cm_id *id;
	int ret = 0;

	*out = NULL;
	id = vs__handle_alloc(sizeof(*id));
	if (!id)
		return vs__set_error(call, ENOMEM, "out of memory");
	id->transport = t;
	id->pid = getpid();
	id->kind = vs__cm_kind_of(t, NULL, vs__cm_old_here());
	if (chan)
		ret = channel_join(chan, id, call);
	else
		id->ech = new_channel(call, &ret);
	if (ret)
		goto fail;
	errno = 0;
	if (rdma_create_id(id->ech, &id->id, id, id->kind->ps)) {
		int err = vs__errno_or(ENODEV);

		ret = vs__cm_env_error(call, "rdma_create_id", err,
				       "no CM id can be created");
		if (!ret)
			ret = vs__verb_error(call, "rdma_create_id", err,
					     "cannot create a CM id");
		vs__cm_channel_drop(id);
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
	id->pid = getpid();
	id->kind = vs__cm_kind_of(id->transport, NULL, listener->kind->old_cm);
	if (listener->chan) {
		/* librdmacm put it on the listener's channel: it stays there */
		ret = channel_join(listener->chan, id, call);
		if (ret) {
			vs__handle_unpublish(id, sizeof(*id));
			return ret;
		}
		goto wrapped;
	}
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
wrapped:
	id->id = raw;
	raw->context = id;
	/*
	 * Requests on one device share the listener's context handle, so a
	 * server's PD and CQs serve all its connections (a wildcard
	 * listener takes the device of its first request).
	 */
	if (!listener->ctx && raw->verbs) {
		struct vs_context *ctx;

		/* a failure is not fatal: the new id borrows its own when asked */
		if (!vs__context_borrow(raw->verbs, &ctx, call))
			vs__cm_bound(listener, ctx);
	}
	if (listener->ctx && listener->ctx->ctx == raw->verbs) {
		vs__ref_get(&listener->ctx->h);
		vs__cm_bound(id, listener->ctx);
	}
	vs__cm_set_peer(id, rdma_get_peer_addr(raw));
	vs__handle_init(&id->h, VS_KIND_CM_ID);
	*out = id;
	return 0;
}

void vs__cm_free(struct vs_cm_id *id)
{
	if (id->id)
		rdma_destroy_id(id->id);
	id->id = NULL;
	vs__cm_channel_drop(id);
	free(id->pdata);
	id->pdata = NULL;
	id->pdata_len = 0;
}

/* "a.b.c.d:port" or "[v6]:port"; "" for none or another family. */
void vs__cm_addr_text(char *buf, size_t len, const struct sockaddr *sa)
{
	char a[INET6_ADDRSTRLEN] = "";

	buf[0] = 0;
	if (!sa)
		return;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(in6->sin6_port));
	}
}

void vs__cm_set_peer(struct vs_cm_id *id, const struct sockaddr *sa)
{
	size_t len = !sa ? 0 : sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
		     sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : 0;

	memset(&id->peer_sa, 0, sizeof(id->peer_sa));
	if (len)
		memcpy(&id->peer_sa, sa, len);
	id->peer[0] = 0;
}

/*
 * Formatting costs an inet_ntop and a snprintf: most ids never need it
 * (it names the peer in errors and vs_cm_peer()), so it is done once, on
 * demand.  The text is a cache of peer_sa: writing it through a const id
 * is sound (no id is defined const) and the id's owner thread is the only
 * caller (a CM id is for one thread at a time).
 */
const char *vs__cm_peer(const struct vs_cm_id *id)
{
	struct vs_cm_id *cache = (struct vs_cm_id *)id;

	if (!id->peer[0] && id->peer_sa.sa.sa_family)
		vs__cm_addr_text(cache->peer, sizeof(cache->peer), &id->peer_sa.sa);
	return id->peer;
}

const char *vs__cm_peer_or(const struct vs_cm_id *id)
{
	const char *peer = vs__cm_peer(id);

	return peer[0] ? peer : "the peer";
}

int vs__cm_bind_ctx(struct vs_cm_id *id, const char *call)
{
	struct vs_context *ctx;
	int ret;

	if (id->ctx)
		return 0;
	if (!id->id->verbs)
		return vs__set_error(call, EINVAL,
				     "the CM id is not bound to a device yet "
				     "(resolve an address first, or listen on a "
				     "local address rather than the wildcard)");
	ret = vs__context_borrow(id->id->verbs, &ctx, call);
	if (!ret)
		vs__cm_bound(id, ctx);
	return ret;
}
