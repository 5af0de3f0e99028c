/* SPDX-License-Identifier: MIT */
/*
 * Private to the connection manager's files (lib/cm_*.c).
 *
 * Layers (no cycle): cm_names, cm_handle (wrap a raw id, borrow the
 * context) <- cm_env (why the CM cannot work here: no rdma-core, no
 * device, a netdev down) <- cm_addr_errors (what a bind's or resolve's
 * errno means)
 * <- cm_event (read, act on, explain one event) <- cm_qp (the
 * id's QP, bring-up, UD destinations) <- cm_id (resolve, listen, close,
 * accessors; below it cm_mcast, join and leave) <- cm_connect (connect, accept, reject, disconnect) <-
 * cm_loop (vs_cm_next), cm_oneshot (one-call client and server) and
 * cm_ep (rdma_create_ep-style setup from rdma_getaddrinfo hints).
 */
#ifndef VS_CM_INTERNAL_H
#define VS_CM_INTERNAL_H

#include <sys/socket.h>
#include <unistd.h>

#include "../events/events.h"
#include "verbshim/cm.h"
#include "verbshim/cm_connect.h"
#include "verbshim/cm_event.h"
#include "verbshim/cm_ud.h"
#include "verbshim/cm_oneshot.h"
#include "verbshim/cm_ep.h"

/*
 * A channel many ids share.  Each id on it holds a reference and is on
 * its list (linked at create, unlinked when its raw id is destroyed); the
 * last put destroys the rdma_event_channel.  lock guards the list only:
 * reading events is for one thread at a time, as for an id.
 */
/*
 * A connection request's raw id nobody took whose destroy failed: kept on
 * its listener (or the shared channel, when the listener was closed) for
 * their close to destroy, never dropped (lib/cm/cm_event.c ack).
 */
struct vs__cm_orphan {
	struct rdma_cm_id *raw;
	struct vs__cm_orphan *next;
};

struct vs_cm_channel {
	struct vs_handle h;
	struct rdma_event_channel *ech; /* fd non-blocking */
	pthread_mutex_t lock;
	struct vs_cm_id *ids;
	struct vs__cm_orphan *orphans; /* under lock */
};

/*
 * What differs per kind of CM id: one X-macro row each, chosen when the
 * id is made (RC or UD, its transport; librdmacm's age) and once more
 * when it is bound to its device (RC on an iWARP device), so no step
 * asks again: a step reads its id's row (id->kind) or calls through it.
 *
 * Columns of X(KIND, qp, qp_kind, ps, datagram, iwarp, old_cm, rtu, up,
 *              connect_max, connect_what, accept_max, accept_what):
 *   qp        the vs_cm_<qp>_qp_create that makes its QP
 *   qp_kind   that QP's handle kind
 *   ps        its librdmacm port space
 *   datagram  UD: SIDR, no connection (no RTR/RTS attributes of a
 *             connection, no connection parameters, private data in the
 *             UD parameters, an accept that does not wait, a destination
 *             answers)
 *   iwarp     the kernel's iw_cm moves the QP to RTS when the connection
 *             is up and answers a connect with ESTABLISHED; its QP has no
 *             path
 *   old_cm    librdmacm before rdma-core 23 (no RDMACM_1.2: no
 *             rdma_init_qp_attr, no rdma_establish; 17.1, 22.4), or the
 *             legacy verbs forced (vs_force_legacy).  RC: the id owns its
 *             QP (rdma_cm_id.qp, as rdma_create_qp leaves it, which is
 *             what rping does there) and librdmacm brings it up itself:
 *             in rdma_accept, and at the connect's answer, which it
 *             answers ESTABLISHED after sending the ready-to-use; the
 *             library reads back what it set (vs__cm_qp_synced).  UD: the
 *             Q_Key is RDMA_UDP_QKEY, the one the kernel gives every id of
 *             the UDP port space.
 *   rtu       the answer to a connect is CONNECT_RESPONSE: the library
 *             brings the QP up then and sends the ready-to-use
 *             (rdma_establish); else the QP is up before the connect
 *             leaves (UD: ready; iWARP: INIT; old_cm RC: INIT, librdmacm
 *             does the rest) and ESTABLISHED answers
 *   up        how vs__cm_qp_up brings the id's QP up with the CM's
 *             attributes (a function of lib/cm/cm_qp.c, its table made
 *             from these rows there): RC to RTS, RC on iWARP to INIT, UD
 *             to RTS, old_cm RC nothing (librdmacm does)
 *   connect_max, accept_max  private data a connect / an accept carries
 *   connect_what, accept_what  those messages, as errors name them
 */
#define VS__CM_KINDS(X)                                                       \
	X(RC, "rc", VS_KIND_RC_QP, RDMA_PS_TCP, false, false, false, true,    \
	  up_rc, VS_CM_CONNECT_DATA_MAX,                                      \
	  "an RC connect request (REQ)", VS_CM_ACCEPT_DATA_MAX,               \
	  "an RC accept (REP)")                                               \
	X(RC_IWARP, "rc", VS_KIND_RC_QP, RDMA_PS_TCP, false, true, false,     \
	  false, up_iwarp, VS_CM_CONNECT_DATA_MAX,                            \
	  "an RC connect request (REQ)", VS_CM_ACCEPT_DATA_MAX,               \
	  "an RC accept (REP)")                                               \
	X(UD, "ud", VS_KIND_UD_QP, RDMA_PS_UDP, true, false, false, false,    \
	  up_ud, VS_CM_UD_CONNECT_DATA_MAX,                                   \
	  "a UD connect request (SIDR REQ)", VS_CM_UD_ACCEPT_DATA_MAX,        \
	  "a UD accept (SIDR REP)")                                           \
	X(RC_OLD, "rc", VS_KIND_RC_QP, RDMA_PS_TCP, false, false, true,       \
	  false, up_by_cm, VS_CM_CONNECT_DATA_MAX,                            \
	  "an RC connect request (REQ)", VS_CM_ACCEPT_DATA_MAX,               \
	  "an RC accept (REP)")                                               \
	X(UD_OLD, "ud", VS_KIND_UD_QP, RDMA_PS_UDP, true, false, true, false, \
	  up_ud, VS_CM_UD_CONNECT_DATA_MAX,                                   \
	  "a UD connect request (SIDR REQ)", VS_CM_UD_ACCEPT_DATA_MAX,        \
	  "a UD accept (SIDR REP)")

/* Each row's index: VS__CM_KIND_RC, ... */
enum vs__cm_kind_index {
#define VS__CM_KIND_INDEX(KIND, ...) VS__CM_KIND_##KIND,
	VS__CM_KINDS(VS__CM_KIND_INDEX)
#undef VS__CM_KIND_INDEX
};

struct vs__cm_kind {
	enum vs__cm_kind_index index;
	const char *qp;
	uint32_t qp_kind;
	enum rdma_port_space ps;
	bool datagram, iwarp, old_cm, rtu;
	uint8_t connect_max, accept_max;
	const char *connect_what, *accept_what;
};

/*
 * lib/cm/cm_kinds.c: the row of an id of transport t, on ctx's device
 * (NULL: not bound yet, so not iWARP as far as anything asks), old: its
 * librdmacm is older than 23 (vs__cm_old_here at the id's create).
 */
const struct vs__cm_kind *vs__cm_kind_of(enum vs_transport t,
					 const struct vs_context *ctx, bool old);
/* librdmacm lacks RDMACM_1.2 (read once), or the legacy verbs are forced */
bool vs__cm_old_here(void);
/* why an id took an old_cm row, in words */
const char *vs__cm_old_why(void);

enum { VS__CM_NONE, VS__CM_LEFT, VS__CM_FINISHING };

struct vs_cm_id {
	struct vs_handle h;
	const struct vs__cm_kind *kind; /* its row: at create, again at bind */
	struct rdma_cm_id *id;
	/* its own channel (fd non-blocking), or chan's when shared */
	struct rdma_event_channel *ech;
	struct vs_cm_channel *chan;      /* shared: one reference; else NULL */
	struct vs_cm_id *ch_prev, *ch_next; /* on chan->ids */
	enum vs_transport transport;
	enum vs_cm_state state;
	struct vs_context *ctx;  /* borrowed, one reference; NULL until bound */
	struct vs_qp *qp;        /* one reference: the id keeps its QP */
	struct vs_pd *own_pd;    /* one-call setups: created and owned */
	struct vs_cq *own_cq;
	bool own_qp;             /* the user's reference of qp is the id's too */
	/*
	 * VS__CM_LEFT: the close destroyed the raw id but stopped at what it
	 * holds (its QP's destroy or bounce ring, a one-call CQ or PD): the
	 * id stays closed, holding them, and its close again resumes
	 * (vs_cm_close).  VS__CM_FINISHING: a close again has taken that
	 * resumption (one of racing closes), until it returns.
	 */
	int teardown;
	/* the process that made the id: a fork()'s child does not close it */
	pid_t pid;
	/* requests' raw ids whose destroy failed (a listener's; vs_cm_close) */
	struct vs__cm_orphan *orphans;
	int reject_reason;
	/* the request's offer (server side), bounding what accept grants */
	uint8_t req_responder_resources, req_initiator_depth;
	/* UD: what the CM answered (connect reply or multicast join) */
	bool have_ud;
	struct ibv_ah_attr ud_ah;
	uint32_t ud_qpn, ud_qkey;
	/* a group member (its leave not yet done: vs_cm_leave, vs_cm_close
	 * retry it); its QP attached to the group */
	bool joined, mc_attached;
	/* a wait for the connect's or accept's answer timed out (vs_cm_close) */
	bool wait_timed_out;
	/* a request (server side): when it was read, for "the client gave up" */
	int64_t req_at_ms;
	/* a resolve under way: the route's limit; a group has no route */
	int resolve_ms;
	bool resolve_group;
	/*
	 * The peer's last private data: VS_CM_DATA_MAX bytes made by the first
	 * (most ids never get any), freed with the raw id (vs__cm_free,
	 * vs_cm_close).  Not in the handle, which stays small: its slot is
	 * quarantined after the close and fresh handle memory costs a page
	 * fault, and CM ids come and go with connections.
	 */
	uint8_t pdata_len;
	uint8_t *pdata;
	/* the peer (or joined group, or bound address): INET / INET6, else 0 */
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} peer_sa;
	char peer[64]; /* its text, made when first asked for (vs__cm_peer) */
};

/* One event, copied out of librdmacm's and acknowledged. */
struct vs__cm_ev {
	enum rdma_cm_event_type type;
	int status;
	struct vs_cm_id *id;       /* the id it concerns (a new id for a request) */
	struct vs_cm_id *listener; /* a request's listener */
	/* a request's raw id nobody wraps: rejected and destroyed after the ack */
	struct rdma_cm_id *orphan;
	/* the peer's private data came with it (id->pdata now holds it) */
	bool pdata;
};

/*
 * lib/cm/cm_handle.c: destroys a request's raw id nobody took; when that
 * fails, keeps it on *keep (lock, if not NULL, held while it is added)
 * and returns the failure, recorded.  vs__cm_orphans_drop destroys the
 * kept ones (lock held by the caller if shared): the first failure, the
 * rest kept.
 */
int vs__cm_orphan_destroy(struct rdma_cm_id *raw, struct vs__cm_orphan **keep,
			  pthread_mutex_t *lock, const char *call);
int vs__cm_orphans_drop(struct vs__cm_orphan **keep, const char *call);

/* lib/cm/cm_handle.c; chan: the shared channel, or NULL for one of its own */
int vs__cm_new(enum vs_transport t, struct vs_cm_channel *chan,
	       struct vs_cm_id **out, const char *call);
int vs__cm_wrap(struct rdma_cm_id *raw, struct vs_cm_id *listener,
		struct vs_cm_id **out, const char *call);
/* Frees what a never-published or final id owns (raw id, channel). */
void vs__cm_free(struct vs_cm_id *id);
/* After the raw id's destroy: its own channel destroyed, or off the shared one. */
void vs__cm_channel_drop(struct vs_cm_id *id);
/* cfg's channel (VS_CM_CONFIG_CHANNEL), or NULL */
struct vs_cm_channel *vs__cm_cfg_channel(const struct vs_cm_config *cfg);
void vs__cm_addr_text(char *buf, size_t len, const struct sockaddr *sa);
/* Keeps sa as the id's peer; its text is made only if asked for. */
void vs__cm_set_peer(struct vs_cm_id *id, const struct sockaddr *sa);
/* The peer as text ("192.0.2.1:7471", "[fe80::1]:7471"), "" if none. */
const char *vs__cm_peer(const struct vs_cm_id *id);
int vs__cm_bind_ctx(struct vs_cm_id *id, const char *call);
/*
 * The id is bound to ctx's device (a reference the caller took): its
 * row for good.  Every place that gives an id its context goes through here.
 */
static inline void vs__cm_bound(struct vs_cm_id *id, struct vs_context *ctx)
{
	id->ctx = ctx;
	id->kind = vs__cm_kind_of(id->transport, ctx, id->kind->old_cm);
}

/*
 * -EINVAL recorded: a step of call that waits for an id's events, on a
 * shared channel (id->chan: each such step tests the field itself)
 */
int vs__cm_shared_refused(const char *call) VS_COLD;

/* "peer X" for messages */
const char *vs__cm_peer_or(const struct vs_cm_id *id);

/*
 * lib/cm/cm_event.c: reads one event of id (a listener: its requests too)
 * within the wait rules (0 never sleeps, -1 for ever; *deadline 0 with a
 * timeout: set at the first wait, and kept for the caller's next read,
 * so an event already there costs no clock read); acts on it (state,
 * private data, reject reason, UD answer, a request's new id) and acks
 * it.  0, -EAGAIN / -ETIMEDOUT (not recorded: the caller says what it
 * waited for, vs__cm_timed_out), or -errno recorded.
 */
int vs__cm_read(struct vs_cm_id *id, int timeout_ms, int64_t *deadline,
		struct vs__cm_ev *ev, const char *call);
/*
 * lib/cm/cm_addr_errors.c: records the failure err of verb binding sa (what:
 * "the listener"), in words that tell its causes apart (a port in use,
 * not this machine's address, no RDMA device on its netdev, ...);
 * returns -err.
 */
int vs__cm_bind_error(const struct sockaddr *sa, const char *what,
		      const char *verb, int err, const char *call);
/* The same for rdma_resolve_addr of id's peer from src (NULL: any). */
int vs__cm_resolve_error(struct vs_cm_id *id, const struct sockaddr *src,
			 int err, const char *call);
/*
 * lib/cm/cm_env.c: why the CM cannot work on this machine at all (rdma-core
 * missing, no RDMA device, no rdma_cm device node, no device with a port
 * up, no device netdev with an address) in words, else NULL.
 */
const char *vs__cm_env_why(char *buf, size_t len);
/*
 * When vs__cm_env_why has a cause: records "<cause>, so <what>" for verb's
 * failure err and returns -err; else 0 (nothing recorded).
 */
int vs__cm_env_error(const char *call, const char *verb, int err,
		     const char *what);
/*
 * For a local address sa: why its netdev cannot carry the CM (no RDMA
 * device on it, the device's port down), naming both; NULL when no netdev
 * has sa.
 */
const char *vs__cm_netdev_why(const struct sockaddr *sa, char *buf, size_t len);
/*
 * An ENODEV from librdmacm older than rdma-core 32 for sa whose netdev has
 * an RDMA device with its port up: its device list, read once per process
 * (sync_devices_list came in 32), predates the device.  In words; else NULL.
 */
const char *vs__cm_stale_list_why(const struct sockaddr *sa, char *buf,
				  size_t len);
/* The device id is bound to has no port up (its netdev down), in words; else NULL. */
const char *vs__cm_id_dev_why(const struct vs_cm_id *id, char *buf, size_t len);
/* Why an RDMA_CM_EVENT_ADDR_ERROR of status -err happened, in words. */
const char *vs__cm_addr_error_why(int err);
/*
 * Records the timeout of a wait of timeout_ms for what ("connection
 * request") on id: ETIMEDOUT naming the id, its state and its peer or
 * listening address.  Returns -ETIMEDOUT.
 */
int vs__cm_timed_out(struct vs_cm_id *id, int timeout_ms, const char *what,
		     const char *call);
/*
 * Waits for an event of type want on id, while step ("connecting to");
 * a failure event is explained and returned as -errno, the timeout as
 * -ETIMEDOUT recorded ("no answer within N ms").
 */
int vs__cm_wait_for(struct vs_cm_id *id, enum rdma_cm_event_type want,
		    int timeout_ms, struct vs__cm_ev *ev, const char *step,
		    const char *call);
/* Records the explanation of a failure event; returns -errno, or 0 when
 * the event is not a failure. */
int vs__cm_explain(struct vs_cm_id *id, const struct vs__cm_ev *ev,
		   const char *step, const char *call);
bool vs__cm_is_failure(enum rdma_cm_event_type t);
/*
 * One event of any id on the shared channel ch, as vs__cm_read; an
 * event of an id already closed is acked and dropped (a request to a
 * closed listener rejected), never returned.
 */
int vs__cm_channel_read(struct vs_cm_channel *ch, int timeout_ms,
			int64_t deadline, struct vs__cm_ev *ev, const char *call);

/* lib/cm/cm_id.c: the route step of a resolve, after ADDR_RESOLVED (-errno recorded) */
int vs__cm_resolve_route(struct vs_cm_id *id, const char *call);
/* lib/cm/cm_id.c: what vs_cm_resolve / vs_cm_listen do once rdma_getaddrinfo answered */
int vs__cm_config_check(const struct vs_cm_config *cfg, const char *call);
int vs__cm_lookup(const char *host, const char *port,
		  const struct rdma_addrinfo *hints, struct rdma_addrinfo **res,
		  const char *call);
int vs__cm_resolve_sa(const struct sockaddr *dst, const struct sockaddr *src,
		      enum vs_transport t,
		      const struct vs_cm_config *cfg, struct vs_cm_id **out,
		      const char *call);
int vs__cm_listen_ai(const struct rdma_addrinfo *res, enum vs_transport t,
		     const struct vs_cm_config *cfg, struct vs_cm_id **out,
		     const char *call);

/*
 * lib/cm/cm_qp.c: brings the id's QP up, its row's way (up); -errno
 * recorded.  An RC QP the caller checked (cm_connect.c, need_qp: its
 * handle open, no send batch); UD's up checks its QP itself when it has
 * a step to make (a join may come on a QP in use).
 */
int vs__cm_qp_up(struct vs_cm_id *id, const char *call);
/*
 * After librdmacm brought the id's QP up itself (old_cm): its state, send
 * PSN, source GID and RDMA read depths read back (ibv_query_qp), so the
 * typed QP knows what librdmacm set.  -errno recorded.
 */
int vs__cm_qp_synced(struct vs_cm_id *id, const char *call);
void vs__cm_qp_to_error(struct vs_cm_id *id);

/* lib/cm/cm_mcast.c: detach the QP and leave the group; rdma_leave_multicast's result */
int vs__cm_mcast_drop(struct vs_cm_id *id);

/*
 * lib/cm/cm_connect.c: what connect / accept check of cfg (comp_mask,
 * private data against max bytes of what), -EINVAL recorded
 */
int vs__cm_conn_check(const struct vs_cm_conn_config *cfg, unsigned int max,
		      const char *what, const char *call);
/* lib/cm/cm_connect.c: CONNECT_RESPONSE: RTR, RTS, rdma_establish */
int vs__cm_complete(struct vs_cm_id *id, const char *call);

#endif /* VS_CM_INTERNAL_H */
