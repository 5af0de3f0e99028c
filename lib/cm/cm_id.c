/* SPDX-License-Identifier: MIT */
/*
 * CM ids: resolve (client), listen (server), close, and what an id says
 * about itself.
 */
#include <netinet/in.h>

#include "cm_internal.h"

#define DEFAULT_RESOLVE_MS 2000
#define DEFAULT_BACKLOG 64

int vs__cm_config_check(const struct vs_cm_config *cfg, const char *call)
{
	if (!cfg)
		return 0;
	if (cfg->comp_mask & ~(uint64_t)VS_CM_CONFIG_CHANNEL)
		return vs__set_error(call, EINVAL, "comp_mask 0x%llx has unknown "
				     "bits (known: VS_CM_CONFIG_CHANNEL 0x%x)",
				     (unsigned long long)cfg->comp_mask,
				     VS_CM_CONFIG_CHANNEL);
	if (cfg->comp_mask & VS_CM_CONFIG_CHANNEL) {
		int ret = vs__check_handle(cfg->channel, VS_KIND_CM_CHANNEL, call,
					   "cfg->channel (VS_CM_CONFIG_CHANNEL is set)");

		if (ret)
			return ret;
	}
	if (cfg->transport && cfg->transport != VS_TRANSPORT_RC &&
	    cfg->transport != VS_TRANSPORT_UD)
		return vs__set_error(call, EINVAL,
				     "transport %d: the connection manager "
				     "connects RC and UD QPs", (int)cfg->transport);
	if (cfg->timeout_ms < 0)
		return vs__set_error(call, EINVAL,
				     "timeout_ms %d: resolving needs a limit "
				     "(0 = the default %d ms)", cfg->timeout_ms,
				     DEFAULT_RESOLVE_MS);
	if (cfg->backlog < 0)
		return vs__set_error(call, EINVAL, "backlog %d is negative",
				     cfg->backlog);
	return 0;
}

static enum vs_transport transport_of(const struct vs_cm_config *cfg)
{
	return cfg && cfg->transport ? cfg->transport : VS_TRANSPORT_RC;
}

/* rdma_getaddrinfo of (host, port) with hints, explained when it fails. */
int vs__cm_lookup(const char *host, const char *port,
		  const struct rdma_addrinfo *hints, struct rdma_addrinfo **res,
		  const char *call)
{
	char what[VS_ERROR_MSG_MAX / 2];
	int err, ret;

	*res = NULL;
	errno = 0;
	if (!rdma_getaddrinfo(host, port, hints, res) && *res)
		return 0;
	err = vs__errno_or(ENOENT);
	/* librdmacm fails every lookup (ENODEV) when it finds no device */
	snprintf(what, sizeof(what), "\"%s\" port \"%s\" cannot be resolved",
		 host ? host : "(any)", port ? port : "(none)");
	ret = vs__cm_env_error(call, "rdma_getaddrinfo", err, what);
	if (ret)
		return ret;
	return vs__verb_error(call, "rdma_getaddrinfo", err,
			      "cannot resolve \"%s\" port \"%s\" (a host "
			      "name, or a numeric IPv4 / IPv6 address; a "
			      "port number or service name)",
			      host ? host : "(any)", port ? port : "(none)");
}

/* The same with the hints of a transport, passive or not. */
static int lookup(const char *host, const char *port, bool passive,
		  enum vs_transport t, struct rdma_addrinfo **res,
		  const char *call)
{
	struct rdma_addrinfo hints = {
		.ai_flags = passive ? RAI_PASSIVE : 0,
		.ai_port_space = t == VS_TRANSPORT_UD ? RDMA_PS_UDP : RDMA_PS_TCP,
	};

	return vs__cm_lookup(host, port, &hints, res, call);
}

static bool is_multicast(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return IN_MULTICAST(ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
	return false;
}

int vs__cm_resolve_route(struct vs_cm_id *id, const char *call)
{
	/* a multicast group has no route: join it (vs_cm_join) */
	if (id->resolve_group) {
		id->state = VS_CM_RESOLVED;
		return 0;
	}
	errno = 0;
	if (rdma_resolve_route(id->id, id->resolve_ms)) {
		int err = vs__errno_or(EHOSTUNREACH);

		id->state = VS_CM_FAILED;
		return vs__verb_error(call, "rdma_resolve_route", err,
				      "resolving the route to %s: %s", vs__cm_peer(id),
				      strerror(err));
	}
	return 0;
}

int vs__cm_resolve_sa(const struct sockaddr *dst, const struct sockaddr *src,
		      enum vs_transport t, const struct vs_cm_config *cfg,
		      struct vs_cm_id **out, const char *call)
{
	int timeout = cfg && cfg->timeout_ms ? cfg->timeout_ms : DEFAULT_RESOLVE_MS;
	struct vs_cm_channel *chan = vs__cm_cfg_channel(cfg);
	struct vs__cm_ev ev;
	struct vs_cm_id *id;
	int ret;

	if (chan && !cfg->no_wait)
		return vs__set_error(call, EINVAL,
				     "cfg->channel is a shared CM event channel: "
				     "a resolve on it cannot wait for its events "
				     "(they would be taken from the other ids'); "
				     "set cfg->no_wait and take ROUTE_RESOLVED "
				     "from vs_cm_channel_next()");
	ret = vs__cm_new(t, chan, &id, call);
	if (ret)
		return ret;
	vs__cm_set_peer(id, dst);
	id->resolve_ms = timeout;
	id->resolve_group = is_multicast(dst);
	errno = 0;
	if (rdma_resolve_addr(id->id, (struct sockaddr *)src,
			      (struct sockaddr *)dst, timeout)) {
		ret = vs__cm_resolve_error(id, src, vs__errno_or(EADDRNOTAVAIL),
					   call);
		goto fail;
	}
	id->state = VS_CM_RESOLVING;
	/* no_wait: the rest comes through vs_cm_next() (lib/cm/cm_loop.c) */
	if (cfg && cfg->no_wait)
		goto done;
	ret = vs__cm_wait_for(id, RDMA_CM_EVENT_ADDR_RESOLVED, timeout + 1000,
			      &ev, "resolving the address of", call);
	if (!ret)
		ret = vs__cm_resolve_route(id, call);
	if (ret)
		goto fail;
	if (id->state == VS_CM_RESOLVING)
		ret = vs__cm_wait_for(id, RDMA_CM_EVENT_ROUTE_RESOLVED,
				      timeout + 1000, &ev,
				      "resolving the route to", call);
	if (ret)
		goto fail;
done:
	*out = id;
	return 0;
fail:
	vs__cm_free(id);
	/* its raw id named it (events on a shared channel): quarantined */
	vs__handle_free(id, sizeof(*id));
	return ret;
}

int vs_cm_resolve(const char *host, const char *port,
		  const struct vs_cm_config *cfg, struct vs_cm_id **out)
{
	const char *call = "vs_cm_resolve";
	struct rdma_addrinfo *dst = NULL, *src = NULL;
	int ret;

	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	if (!host || !port)
		return vs__set_error(call, EINVAL, "%s is NULL", host ? "port" : "host");
	ret = vs__cm_config_check(cfg, call);
	if (ret)
		return ret;
	ret = lookup(host, port, false, transport_of(cfg), &dst, call);
	if (ret)
		return ret;
	if (cfg && cfg->src)
		ret = lookup(cfg->src, NULL, true, transport_of(cfg), &src, call);
	if (!ret)
		ret = vs__cm_resolve_sa(dst->ai_dst_addr, src ? src->ai_src_addr :
					dst->ai_src_addr, transport_of(cfg), cfg,
					out, call);
	if (src)
		rdma_freeaddrinfo(src);
	rdma_freeaddrinfo(dst);
	return ret;
}

int vs_cm_resolve_addr(const struct sockaddr *dst,
		       const struct vs_cm_config *cfg, struct vs_cm_id **out)
{
	const char *call = "vs_cm_resolve_addr";
	struct rdma_addrinfo *src = NULL;
	int ret;

	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	if (!dst)
		return vs__set_error(call, EINVAL, "dst is NULL");
	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6)
		return vs__set_error(call, EAFNOSUPPORT,
				     "dst's family is %d, not AF_INET (%d) or "
				     "AF_INET6 (%d): pass a struct sockaddr_in or "
				     "sockaddr_in6 (vs_cm_resolve() takes names)",
				     dst->sa_family, AF_INET, AF_INET6);
	ret = vs__cm_config_check(cfg, call);
	if (ret)
		return ret;
	if (cfg && cfg->src)
		ret = lookup(cfg->src, NULL, true, transport_of(cfg), &src, call);
	if (!ret)
		ret = vs__cm_resolve_sa(dst, src ? src->ai_src_addr : NULL,
					transport_of(cfg), cfg, out, call);
	if (src)
		rdma_freeaddrinfo(src);
	return ret;
}

int vs__cm_listen_ai(const struct rdma_addrinfo *res, enum vs_transport t,
		     const struct vs_cm_config *cfg, struct vs_cm_id **out,
		     const char *call)
{
	struct vs_cm_id *id;
	int ret = vs__cm_new(t, vs__cm_cfg_channel(cfg), &id, call);

	if (ret)
		return ret;
	vs__cm_set_peer(id, res->ai_src_addr);
	errno = 0;
	if (rdma_bind_addr(id->id, res->ai_src_addr)) {
		ret = vs__cm_bind_error(res->ai_src_addr, "the listener",
					"rdma_bind_addr",
					vs__errno_or(EADDRNOTAVAIL), call);
		goto fail;
	}
	errno = 0;
	if (rdma_listen(id->id, cfg && cfg->backlog ? cfg->backlog :
			DEFAULT_BACKLOG)) {
		ret = vs__verb_error(call, "rdma_listen", vs__errno_or(EINVAL),
				     "cannot listen on %s", vs__cm_peer(id));
		goto fail;
	}
	vs__cm_set_peer(id, NULL); /* a listener has no peer */
	id->state = VS_CM_LISTENING;
	if (id->id->verbs)
		vs__cm_bind_ctx(id, call); /* bound to a device's address */
	*out = id;
	return 0;
fail:
	vs__cm_free(id);
	vs__handle_free(id, sizeof(*id));
	return ret;
}

int vs_cm_listen(const char *host, const char *port,
		 const struct vs_cm_config *cfg, struct vs_cm_id **out)
{
	const char *call = "vs_cm_listen";
	struct rdma_addrinfo *res = NULL;
	int ret;

	ret = vs__out_clear(out, call);
	if (ret)
		return ret;
	if (!port)
		return vs__set_error(call, EINVAL, "port is NULL");
	ret = vs__cm_config_check(cfg, call);
	if (ret)
		return ret;
	ret = lookup(host, port, true, transport_of(cfg), &res, call);
	if (ret)
		return ret;
	ret = vs__cm_listen_ai(res, transport_of(cfg), cfg, out, call);
	rdma_freeaddrinfo(res);
	return ret;
}

struct later {
	struct rdma_cm_id *raw;
	struct rdma_event_channel *ech;
};

static void *destroy_thread(void *arg)
{
	struct later *l = arg;

	rdma_destroy_id(l->raw);
	rdma_destroy_event_channel(l->ech);
	free(l);
	return NULL;
}

/*
 * iWARP: the kernel's destroy of an id whose connect is still out waits
 * until the connect ends (iw_cm's connect wait: the peer's MPA answer, or
 * the provider's own timeout; siw: 3 s measured after a 5 s limit, when
 * the peer answered at 8 s), so after a timed-out wait that destroy runs
 * in a thread of its own and the close returns now.  0 when handed over
 * (the raw id and its channel are the thread's), else -1: destroy here.
 */
static int destroy_later(struct vs_cm_id *id)
{
	struct later *l = malloc(sizeof(*l));
	pthread_attr_t attr;
	pthread_t t;
	int ret;

	if (!l)
		return -1;
	l->raw = id->id;
	l->ech = id->ech;
	if (pthread_attr_init(&attr)) {
		free(l);
		return -1;
	}
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&t, &attr, destroy_thread, l);
	pthread_attr_destroy(&attr);
	if (ret) {
		free(l);
		return -1;
	}
	id->id = NULL;
	id->ech = NULL;
	return 0;
}

/* A QP whose destroy failed (open again) or stopped after it (its bounce
 * ring): still there, its close again finishes it. */
static bool qp_stays(struct vs_qp *qp, uint32_t kind)
{
	uint32_t m = __atomic_load_n(&qp->h.magic, __ATOMIC_ACQUIRE);

	return m == kind || (m == (kind | VS__CLOSED) &&
			     __atomic_load_n(&qp->teardown_left, __ATOMIC_ACQUIRE));
}

/*
 * A CM id whose close stopped at what it holds: 1 when this call takes
 * the resumption (of racing closes, one does), -1 when another call has
 * taken it and is finishing it now, 0 when neither.  id is in the arena.
 */
static int cm_teardown_take(struct vs_cm_id *id)
{
	int left = VS__CM_LEFT;

	if (__atomic_load_n(&id->h.magic, __ATOMIC_ACQUIRE) !=
	    (VS_KIND_CM_ID | VS__CLOSED))
		return 0;
	if (__atomic_compare_exchange_n(&id->teardown, &left, VS__CM_FINISHING,
					false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return 1;
	return left == VS__CM_FINISHING ? -1 : 0;
}

/*
 * A CM id made by another process: this is a fork()'s child, which shares
 * its parent's /dev/infiniband files, so a destroy here would be the
 * parent's.  Refused when the close would do anything (the id open, or
 * its close stopped and not finished); id is in the arena.
 */
static int cm_not_ours(struct vs_cm_id *id, const char *call)
{
	uint32_t m = __atomic_load_n(&id->h.magic, __ATOMIC_ACQUIRE);
	pid_t me;

	if (m != VS_KIND_CM_ID && (m != (VS_KIND_CM_ID | VS__CLOSED) ||
	    __atomic_load_n(&id->teardown, __ATOMIC_ACQUIRE) == VS__CM_NONE))
		return 0;
	me = getpid();
	if (id->pid == me)
		return 0;
	return vs__set_error(call, EPERM, "the CM id was made by process %d, "
			     "not by this one (%d), a child made by fork(): "
			     "the child shares its parent's /dev/infiniband "
			     "files, so a close here would destroy the "
			     "parent's objects; nothing was done, the process "
			     "that made the id closes it", (int)id->pid, (int)me);
}

/*
 * What the id holds once its raw id is gone: its QP (a one-call setup's
 * also with the user's reference, and its CQ and PD) and its device.
 * Each step goes on past a failure and the first failure is the one
 * returned.  Something that stays (the QP's destroy or its bounce ring's
 * deregistration failed, the CQ's or PD's destroy) keeps the id closed
 * but not freed, holding it, and says so: the id's close again resumes
 * here, so a program that retries the close once leaks nothing (issue
 * 50, 3).
 */
static int cm_release(struct vs_cm_id *id, bool retry, const char *call)
{
	struct vs__first first = { 0 };
	struct vs_qp *qp = id->qp;
	const char *left = NULL;

	if (qp) {
		uint32_t kind = vs__transport(qp->transport)->kind;

		if (retry) {
			/* the id's reference went at the first close: the
			 * QP's own close again finishes it */
			if (qp_stays(qp, kind))
				vs__first_keep(&first, vs__qp_close(qp, kind, call));
		} else {
			/* a one-call setup's: closed for the user unless it did */
			if (id->own_qp && __atomic_load_n(&qp->h.magic, __ATOMIC_ACQUIRE) == kind)
				vs__first_keep(&first, vs__qp_close(qp, kind, call));
			vs__first_keep(&first, vs__qp_put(qp, call));
		}
		if (first.err && qp_stays(qp, kind))
			left = "its QP";
		else
			id->qp = NULL;
	}
	/* a QP that stays holds them: their closes only drop the id's */
	if (id->own_cq && id->own_cq->h.magic == VS_KIND_CQ)
		vs__first_keep(&first, (vs_cq_close)(id->own_cq));
	if (id->own_cq && id->own_cq->h.magic == VS_KIND_CQ)
		left = left ? left : "its CQ"; /* its destroy failed: open again */
	else
		id->own_cq = NULL;
	if (id->own_pd && id->own_pd->h.magic == VS_KIND_PD)
		vs__first_keep(&first, (vs_pd_close)(id->own_pd));
	if (id->own_pd && id->own_pd->h.magic == VS_KIND_PD)
		left = left ? left : "its PD";
	else
		id->own_pd = NULL;
	if (id->ctx)
		vs__first_keep(&first, vs__context_put(id->ctx, call));
	id->ctx = NULL;
	if (left && first.err) {
		int ret = vs__first_end(&first);

		__atomic_store_n(&id->teardown, VS__CM_LEFT, __ATOMIC_RELEASE);
		vs__error_append("; the CM id is closed but holds %s%s: close the "
				 "id again (vs_cm_close) to finish", left,
				 id->own_qp ? " (a one-call setup's)" : "");
		return ret;
	}
	id->own_qp = false;
	__atomic_store_n(&id->teardown, VS__CM_NONE, __ATOMIC_RELEASE);
	vs__handle_free(id, sizeof(*id));
	return vs__first_end(&first);
}

int vs_cm_close(struct vs_cm_id *id)
{
	const char *call = "vs_cm_close";
	int ret;

	if (id && vs__handle_in_arena(id, sizeof(*id))) {
		ret = cm_not_ours(id, call);
		if (ret)
			return ret;
		switch (cm_teardown_take(id)) {
		case 1:
			return cm_release(id, true, call);
		case -1:
			return vs__set_error(call, EBUSY, "another vs_cm_close "
					     "of this CM id is finishing its "
					     "close now (the first close "
					     "stopped, holding what it held): "
					     "that call's return says how it "
					     "went");
		}
	}
	ret = vs__user_close(id, VS_KIND_CM_ID, call, "id");
	if (ret)
		return ret;
	if (id->state == VS_CM_CONNECTED || id->state == VS_CM_ACCEPTING ||
	    id->state == VS_CM_CONNECTING) {
		vs__cm_qp_to_error(id);
		/*
		 * A connection's peer learns it now, not at its timeout; its
		 * failure is no failure of the close: the destroy below ends
		 * the connection all the same (the kernel's destroy of a
		 * connected id sends the disconnect itself).  A UD id (SIDR)
		 * has no connection to end: no call that could only fail.
		 */
		if (!id->kind->datagram)
			rdma_disconnect(id->id);
	}
	if (id->joined && vs__cm_mcast_drop(id)) {
		int err = vs__errno_or(EINVAL);

		vs__handle_reopen(&id->h, VS_KIND_CM_ID);
		return vs__verb_error(call, "rdma_leave_multicast", err,
				      "cannot leave the group %s; the CM id "
				      "stays open, a member: close it again to "
				      "retry", vs__cm_peer(id));
	}
	if (id->wait_timed_out && !id->chan && id->kind->iwarp &&
	    !destroy_later(id))
		goto destroyed;
	/* a listener's requests whose destroy failed: now, before the id */
	if (id->chan)
		pthread_mutex_lock(&id->chan->lock);
	ret = vs__cm_orphans_drop(&id->orphans, call);
	if (id->chan)
		pthread_mutex_unlock(&id->chan->lock);
	if (ret) {
		vs__handle_reopen(&id->h, VS_KIND_CM_ID);
		vs__error_append(" (the listener stays open: close it again to "
				 "retry)");
		return ret;
	}
	errno = 0;
	if (rdma_destroy_id(id->id)) {
		int err = vs__errno_or(EBUSY);

		vs__handle_reopen(&id->h, VS_KIND_CM_ID);
		return vs__verb_error(call, "rdma_destroy_id", err,
				      "cannot destroy the CM id; it stays open: "
				      "close it again to retry");
	}
	id->id = NULL;
	/* the raw id's events were acked as read: nothing of it is left */
	vs__cm_channel_drop(id);
destroyed:
	/* the peer's private data goes with it (vs__cm_free's rule) */
	free(id->pdata);
	id->pdata = NULL;
	id->pdata_len = 0;
	id->joined = false;
	return cm_release(id, false, call);
}

static const struct vs_cm_id *open_id(const struct vs_cm_id *id)
{
	return id && id->h.magic == VS_KIND_CM_ID ? id : NULL;
}

struct vs_context *vs_cm_context(struct vs_cm_id *id)
{
	if (vs__check_handle(id, VS_KIND_CM_ID, "vs_cm_context", "id") ||
	    vs__cm_bind_ctx(id, "vs_cm_context"))
		return NULL;
	return id->ctx;
}

struct vs_pd *vs_cm_pd(const struct vs_cm_id *id)
{
	return open_id(id) ? id->own_pd : NULL;
}

struct vs_cq *vs_cm_cq(const struct vs_cm_id *id)
{
	return open_id(id) ? id->own_cq : NULL;
}

struct vs_rc_qp *vs_cm_rc_qp(const struct vs_cm_id *id)
{
	return open_id(id) && id->qp && id->transport == VS_TRANSPORT_RC ?
	       (struct vs_rc_qp *)id->qp : NULL;
}

struct vs_ud_qp *vs_cm_ud_qp(const struct vs_cm_id *id)
{
	return open_id(id) && id->qp && id->transport == VS_TRANSPORT_UD ?
	       (struct vs_ud_qp *)id->qp : NULL;
}

enum vs_cm_state vs_cm_state(const struct vs_cm_id *id)
{
	return open_id(id) ? id->state : VS_CM_FAILED;
}

const void *vs_cm_private_data(const struct vs_cm_id *id, uint8_t *len)
{
	if (len)
		*len = open_id(id) ? id->pdata_len : 0;
	return open_id(id) && id->pdata_len ? id->pdata : NULL;
}

int vs_cm_reject_reason(const struct vs_cm_id *id)
{
	return open_id(id) && id->state == VS_CM_REJECTED ? id->reject_reason : 0;
}

const char *vs_cm_peer(const struct vs_cm_id *id)
{
	return open_id(id) ? vs__cm_peer(id) : "(bad id)";
}

uint16_t vs_cm_port(const struct vs_cm_id *id)
{
	return open_id(id) ? ntohs(rdma_get_src_port(id->id)) : 0;
}

struct rdma_cm_id *vs_cm_raw(const struct vs_cm_id *id)
{
	return open_id(id) ? id->id : NULL;
}

int vs_cm_fd(const struct vs_cm_id *id)
{
	if (!open_id(id))
		return -1;
	if (id->chan) {
		vs__set_error("vs_cm_fd", EINVAL, "the CM id is on a shared CM "
			      "event channel: its events come on that "
			      "channel's fd (vs_cm_channel_fd)");
		return -1;
	}
	return id->ech->fd;
}
