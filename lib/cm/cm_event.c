/* SPDX-License-Identifier: MIT */
/*
 * CM events: read one from an id's channel, act on it (state, the peer's
 * private data, a reject's reason, a UD answer, a request's new id),
 * acknowledge it at once, and explain the failures in words.
 */
#include <ctype.h>

#include "cm_internal.h"

bool vs__cm_is_failure(enum rdma_cm_event_type t)
{
	switch (t) {
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return true;
	default:
		return false;
	}
}

/* The event's private data: in its UD or its connection parameters. */
static const void *event_pdata(const struct rdma_cm_event *e, bool ud,
			       uint8_t *len)
{
	*len = ud ? e->param.ud.private_data_len : e->param.conn.private_data_len;
	return ud ? e->param.ud.private_data : e->param.conn.private_data;
}

/*
 * Keeps the event's private data (ud: from its UD parameters); -ENOMEM
 * recorded when there is data and no room can be had for it.
 */
static int keep_pdata(struct vs_cm_id *id, const struct rdma_cm_event *e,
		      bool ud, const char *call)
{
	uint8_t len;
	const void *p = event_pdata(e, ud, &len);

	id->pdata_len = 0;
	if (!p || !len)
		return 0;
	if (!id->pdata)
		id->pdata = malloc(VS_CM_DATA_MAX);
	if (!id->pdata)
		return vs__set_error(call, ENOMEM, "no memory for the %u bytes "
				     "of private data from %s", len,
				     vs__cm_peer(id));
	memcpy(id->pdata, p, len);
	id->pdata_len = len;
	return 0;
}

static void keep_ud(struct vs_cm_id *id, const struct rdma_ud_param *ud)
{
	id->ud_ah = ud->ah_attr;
	id->ud_qpn = ud->qp_num;
	id->ud_qkey = ud->qkey;
	id->have_ud = true;
}

/* What the event does to the id it concerns (before the ack). */
static int apply(struct vs_cm_id *id, struct rdma_cm_event *e,
		 struct vs__cm_ev *ev, const char *call)
{
	int ret = 0;

	switch (e->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST: {
		bool ud = id->kind->datagram; /* the new id's kind is its listener's */
		uint8_t len;
		const void *p = event_pdata(e, ud, &len);
		struct vs_cm_id *conn;
		uint8_t *room = NULL;

		/* room for the request's data before the new id: nothing to undo */
		if (p && len && !(room = malloc(VS_CM_DATA_MAX))) {
			ev->orphan = e->id;
			return vs__set_error(call, ENOMEM, "no memory for the %u "
					     "bytes of private data of a request "
					     "to %s", len, vs__cm_peer(id));
		}
		/* the new id comes with the request: ours from here on */
		ret = vs__cm_wrap(e->id, id, &conn, call);
		if (ret) {
			free(room);
			ev->orphan = e->id;
			return ret;
		}
		conn->state = VS_CM_REQUEST;
		conn->req_at_ms = vs__now_deadline(0); /* vDSO: no system call */
		conn->pdata = room;
		keep_pdata(conn, e, ud, call); /* room made: cannot fail */
		if (!ud) {
			conn->req_responder_resources = e->param.conn.responder_resources;
			conn->req_initiator_depth = e->param.conn.initiator_depth;
		}
		ev->id = conn;
		ev->listener = id;
		return 0;
	}
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		id->state = VS_CM_RESOLVED;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		ret = keep_pdata(id, e, false, call);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (id->kind->datagram && id->state == VS_CM_CONNECTING) {
			ret = keep_pdata(id, e, true, call);
			keep_ud(id, &e->param.ud);
		} else if (id->kind->iwarp && id->qp) {
			/* the accept's data comes with it; iw_cm made the QP RTS */
			if (id->state == VS_CM_CONNECTING) {
				ret = keep_pdata(id, e, false, call);
				ev->pdata = true;
			}
			vs__qp_set_state(id->qp, IBV_QPS_RTS);
		} else if (id->kind->old_cm && !id->kind->datagram && id->qp) {
			/*
			 * librdmacm before 23 answered the connect itself: QP
			 * to RTS, ready-to-use sent, CONNECT_RESPONSE made
			 * ESTABLISHED with the accept's data
			 */
			if (id->state == VS_CM_CONNECTING) {
				ret = keep_pdata(id, e, false, call);
				ev->pdata = true;
			}
			if (id->qp->state != IBV_QPS_RTS)
				ret = vs__first_err(ret, vs__cm_qp_synced(id, call));
		}
		id->state = VS_CM_CONNECTED;
		break;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
		keep_ud(id, &e->param.ud);
		break;
	case RDMA_CM_EVENT_REJECTED:
		id->reject_reason = e->status;
		ret = keep_pdata(id, e, id->kind->datagram, call);
		id->state = VS_CM_REJECTED;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		id->state = VS_CM_DISCONNECTED;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		id->state = VS_CM_FAILED;
		break;
	default:
		break;
	}
	ev->id = id;
	/* a keep_pdata failure: the step fails, the state moved all the same */
	return ret;
}

/*
 * Acks e; a request's raw id nobody took is rejected and destroyed after
 * the ack (rdma_destroy_id waits until the id's events are acked).  A
 * destroy that fails is returned, recorded, and the raw id kept on *keep
 * (lock held while it is added, if not NULL) for a close to destroy.
 */
static int ack(struct rdma_cm_event *e, struct rdma_cm_id *orphan,
	       struct vs__cm_orphan **keep, pthread_mutex_t *lock,
	       const char *call)
{
	/* acked now: no destroy ever waits for it */
	rdma_ack_cm_event(e);
	if (!orphan)
		return 0;
	rdma_reject(orphan, NULL, 0);
	return vs__cm_orphan_destroy(orphan, keep, lock, call);
}

/*
 * An event applied with ret (a request nobody took fails its read) and
 * acked with aret: the first failure, the ack's said with it.
 */
static int applied(int ret, const struct vs_error *rec, int aret)
{
	const struct vs_error *a = vs_last_error();
	char more[160];

	if (!aret)
		return ret;
	if (!ret)
		return aret;
	snprintf(more, sizeof(more), "; and the request's CM id could not be "
		 "destroyed (%s: %s), kept for the listener's close",
		 a->verb ? a->verb : "?", strerror(a->err));
	vs__error_restore(rec);
	vs__error_append("%s", more);
	return ret;
}

/*
 * The next raw event of ech, waiting within the rules; 0 or -errno.  A
 * *deadline of 0 with a timeout is set at the first wait (and kept for
 * the caller's next call): an event already there costs no clock read
 * (a system call, lib/events/wait.c).
 */
static int get_raw(struct rdma_event_channel *ech, int timeout_ms,
		   int64_t *deadline, struct rdma_cm_event **e, const char *what,
		   const char *call)
{
	for (;;) {
		int ret;

		if (!rdma_get_cm_event(ech, e))
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return vs__verb_error(call, "rdma_get_cm_event",
					      vs__errno_or(EIO),
					      "reading the %s events (fd %d) "
					      "failed", what, ech->fd);
		if (timeout_ms > 0 && !*deadline)
			*deadline = vs__deadline(timeout_ms);
		ret = vs__wait_fd(ech->fd, timeout_ms, *deadline, call);
		if (ret)
			return ret;
	}
}

int vs__cm_read(struct vs_cm_id *id, int timeout_ms, int64_t *deadline,
		struct vs__cm_ev *ev, const char *call)
{
	struct rdma_cm_event *e;
	struct vs_error rec;
	int ret;

	memset(ev, 0, sizeof(*ev));
	/* the shared channel's next event may be another id's */
	ret = id->chan ? vs__cm_shared_refused(call) : 0;
	if (!ret)
		ret = get_raw(id->ech, timeout_ms, deadline, &e, "CM id's", call);
	if (ret)
		return ret;
	ev->type = e->event;
	ev->status = e->status;
	ret = apply(id, e, ev, call);
	if (!ev->orphan) {
		ack(e, NULL, NULL, NULL, call);
		return ret;
	}
	rec = *vs_last_error(); /* the request's failure, kept */
	return applied(ret, &rec, ack(e, ev->orphan, &id->orphans, NULL, call));
}

/*
 * The open id a raw id's context names on ch, else NULL: the user closed
 * it (its handle stays until rdma_destroy_id, which waits for this
 * event's ack, so reading it is safe) or it is on another channel.
 */
static struct vs_cm_id *open_on(struct rdma_cm_id *raw,
				const struct vs_cm_channel *ch)
{
	struct vs_cm_id *id = raw ? raw->context : NULL;

	if (!id || __atomic_load_n(&id->h.magic, __ATOMIC_ACQUIRE) != VS_KIND_CM_ID)
		return NULL;
	return id->chan == ch && id->id == raw ? id : NULL;
}

int vs__cm_channel_read(struct vs_cm_channel *ch, int timeout_ms,
			int64_t deadline, struct vs__cm_ev *ev, const char *call)
{
	for (;;) {
		struct rdma_cm_event *e;
		struct vs_cm_id *id;
		struct vs_error rec;
		int ret;

		memset(ev, 0, sizeof(*ev));
		ret = get_raw(ch->ech, timeout_ms, &deadline, &e,
			      "shared CM event channel's", call);
		if (ret)
			return ret;
		/* a request names its listener; its new id is not ours yet */
		id = e->event == RDMA_CM_EVENT_CONNECT_REQUEST ?
		     open_on(e->listen_id, ch) : open_on(e->id, ch);
		if (!id) {
			/*
			 * An id the user closed: acked and dropped.  The limit
			 * holds on: get_raw keeps the deadline it set.
			 */
			ack(e, e->event == RDMA_CM_EVENT_CONNECT_REQUEST ?
			    e->id : NULL, &ch->orphans, &ch->lock, call);
			/*
			 * a destroy that failed is kept on the channel, whose
			 * close destroys it or says so: not this read's failure
			 */
			continue;
		}
		ev->type = e->event;
		ev->status = e->status;
		ret = apply(id, e, ev, call);
		if (!ev->orphan) {
			ack(e, NULL, NULL, NULL, call);
			return ret;
		}
		rec = *vs_last_error(); /* the request's failure, kept */
		return applied(ret, &rec, ack(e, ev->orphan, &id->orphans,
					      &ch->lock, call));
	}
}

/*
 * The peer's private data for a message: as text when it is text (the CM
 * pads it with zeros to its message's room), else its first bytes in hex;
 * nothing when it is all zeros.
 */
static void show_pdata(const struct vs_cm_id *id, char *buf, size_t len)
{
	size_t n = id->pdata_len, used, text = 0, end = n;

	buf[0] = 0;
	while (end && !id->pdata[end - 1])
		end--;
	if (!end)
		return;
	while (text < end && isprint(id->pdata[text]))
		text++;
	if (text == end) {
		snprintf(buf, len, " with private data \"%.*s\"", (int)end,
			 (const char *)id->pdata);
		return;
	}
	used = (size_t)snprintf(buf, len, " with private data 0x");
	for (size_t i = 0; i < end && i < 16 && used + 3 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%02x",
					 id->pdata[i]);
	if (end > 16 && used + 4 < len)
		snprintf(buf + used, len - used, "...");
}

/* enum ib_cm_sidr_status: the answer to a UD connect request */
static const char *sidr_status(int st)
{
	switch (st) {
	case 1: return "unsupported service id: nobody listens on that port there";
	case 2: return "rejected by the peer's program";
	case 3: return "no QP at the peer";
	case 4: return "redirect";
	case 5: return "unsupported version";
	default: return "unknown status";
	}
}

int vs__cm_explain(struct vs_cm_id *id, const struct vs__cm_ev *ev,
		   const char *step, const char *call)
{
	const char *peer = vs__cm_peer_or(id), *name = vs_cm_event_name(ev->type);
	int st = ev->status, err = st < 0 ? -st : 0;
	char pd[VS_ERROR_MSG_MAX / 2], local[64];

	/* a listener has no peer: it is named by what it listens on */
	if (id->state == VS_CM_LISTENING && id->id) {
		vs__cm_addr_text(local, sizeof(local), rdma_get_local_addr(id->id));
		if (local[0])
			peer = local;
	}

	/* every device down or without an address: that, not the peer */
	if ((ev->type == RDMA_CM_EVENT_ADDR_ERROR ||
	     ev->type == RDMA_CM_EVENT_ROUTE_ERROR) &&
	    vs__cm_env_why(pd, sizeof(pd)))
		return vs__set_error(call, err ? err : EHOSTUNREACH,
				     "%s %s: %s (%s, status %d)", step, peer, pd,
				     name, st);
	/* the id's own device cannot send: that, whatever the event says */
	if (vs__cm_is_failure(ev->type) && ev->type != RDMA_CM_EVENT_DEVICE_REMOVAL &&
	    vs__cm_id_dev_why(id, pd, sizeof(pd)))
		return vs__set_error(call, err ? err : EHOSTUNREACH,
				     "%s %s: %s (%s, status %d)", step, peer, pd,
				     name, st);
	/* a local peer whose netdev is down or has no RDMA device */
	if ((ev->type == RDMA_CM_EVENT_ADDR_ERROR ||
	     ev->type == RDMA_CM_EVENT_ROUTE_ERROR) && id->peer_sa.sa.sa_family &&
	    vs__cm_netdev_why(&id->peer_sa.sa, pd, sizeof(pd)))
		return vs__set_error(call, err ? err : EHOSTUNREACH,
				     "%s %s (this machine's): %s (%s, status %d)",
				     step, peer, pd, name, st);
	switch (ev->type) {
	case RDMA_CM_EVENT_ADDR_ERROR:
		return vs__set_error(call, err ? err : EADDRNOTAVAIL,
				     "%s %s: address error (%s, status %d: %s): %s",
				     step, peer, name, st,
				     strerror(err ? err : EADDRNOTAVAIL),
				     vs__cm_addr_error_why(err));
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return vs__set_error(call, err ? err : EHOSTUNREACH,
				     "%s %s: route error (%s, status %d: %s): no "
				     "path to it from the RDMA device (RoCE: no "
				     "GID for the outgoing netdev's address)",
				     step, peer, name, st,
				     strerror(err ? err : EHOSTUNREACH));
	case RDMA_CM_EVENT_UNREACHABLE:
		if (st > 0) /* a UD request's SIDR reply with a failure status */
			return vs__set_error(call, ECONNREFUSED,
					     "%s %s: refused (%s, SIDR status %d: %s)",
					     step, peer, name, st, sidr_status(st));
		return vs__set_error(call, err == ETIMEDOUT ? ETIMEDOUT : EHOSTUNREACH,
				     "%s %s: unreachable (%s, status %d): the "
				     "peer's connection manager never answered "
				     "(no RDMA device at that address, or the "
				     "packets are lost)", step, peer, name, st);
	case RDMA_CM_EVENT_REJECTED:
		show_pdata(id, pd, sizeof(pd));
		if (st < 0) /* iWARP: iw_cm's status is an errno, no IB CM reason */
			return vs__set_error(call, ECONNREFUSED,
					     "%s %s: rejected (%s, status %d: %s: "
					     "the peer refused the connection, an "
					     "iWARP MPA reject)%s", step, peer, name,
					     st, strerror(-st), pd);
		return vs__set_error(call, ECONNREFUSED,
				     "%s %s: rejected (%s, reason %d: %s)%s",
				     step, peer, name, st,
				     vs_cm_reject_reason_name(st), pd);
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return vs__set_error(call, err ? err : ECONNABORTED,
				     "%s %s: the connection failed while being "
				     "established (%s, status %d)", step, peer,
				     name, st);
	case RDMA_CM_EVENT_DISCONNECTED:
		return vs__set_error(call, ECONNRESET,
				     "%s %s: the peer disconnected (%s)", step,
				     peer, name);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return vs__set_error(call, ENODEV,
				     "%s %s: the RDMA device was removed (%s): "
				     "close the id and everything on its context",
				     step, peer, name);
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return vs__set_error(call, ENETRESET,
				     "%s %s: the local address changed (%s): the "
				     "netdev's address moved or the bonding "
				     "failed over; reconnect", step, peer, name);
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		return vs__set_error(call, err ? err : EADDRNOTAVAIL,
				     "%s: the multicast group failed (%s, status "
				     "%d)", step, name, st);
	default:
		return 0;
	}
}

int vs__cm_timed_out(struct vs_cm_id *id, int timeout_ms, const char *what,
		     const char *call)
{
	char local[64] = "";

	if (id->state == VS_CM_LISTENING && id->id)
		vs__cm_addr_text(local, sizeof(local), rdma_get_local_addr(id->id));
	return vs__set_error(call, ETIMEDOUT, "no %s within %d ms (CM id %p, "
			     "%s, %s %s; timed out: the id is unchanged)",
			     what, timeout_ms, (void *)id,
			     vs_cm_state_name(id->state),
			     local[0] ? "listening on" : "peer",
			     local[0] ? local : vs__cm_peer(id)[0] ?
			     vs__cm_peer(id) : "none yet");
}

int vs__cm_wait_for(struct vs_cm_id *id, enum rdma_cm_event_type want,
		    int timeout_ms, struct vs__cm_ev *ev, const char *step,
		    const char *call)
{
	int64_t deadline = 0; /* set at the first sleep, if one is needed */

	for (;;) {
		int ret = vs__cm_read(id, timeout_ms, &deadline, ev, call);

		if (ret == -ETIMEDOUT || ret == -EAGAIN) {
			id->state = VS_CM_FAILED;
			char why[VS_ERROR_MSG_MAX / 2];

			id->wait_timed_out = true;
			if (vs__cm_id_dev_why(id, why, sizeof(why)))
				return vs__set_error(call, ETIMEDOUT,
						     "%s %s: no answer within %d "
						     "ms: %s (the id is FAILED: "
						     "close it)", step,
						     vs__cm_peer_or(id), timeout_ms,
						     why);
			return vs__set_error(call, ETIMEDOUT,
					     "%s %s: no answer within %d ms "
					     "(timeout; the id is FAILED: close it)",
					     step, vs__cm_peer_or(id), timeout_ms);
		}
		if (ret)
			return ret;
		if (ev->type == want)
			return 0;
		if (vs__cm_is_failure(ev->type))
			return vs__cm_explain(id, ev, step, call);
		/* TIMEWAIT_EXIT and the like: not what the step waits for */
	}
}
