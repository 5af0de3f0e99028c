/* SPDX-License-Identifier: MIT */
/*
 * Private to the core objects (lib/core/): devices, PDs, MRs, CQs, SRQs,
 * QPs and their bring-up, AHs, posts.  Over the transport tables; the
 * rooms above (events, the connection manager) include it.
 */
#ifndef VS_CORE_H
#define VS_CORE_H

#include "../transport/transport.h"

/* What a provider needs done differently (lib/quirks.c, keyed by vendor). */
struct vs__quirks {
	uint32_t vendor_id;
	const char *name;
	bool cq_one_per_start; /* one completion per start/end poll pair */
	bool wr_sge_broken;    /* ibv_wr_set_inline_data / _sge_list wrong */
};
/* The quirks of c's device; all false for a provider without any. */
const struct vs__quirks *vs__quirks(const struct vs_context *c);

/* -EOPNOTSUPP when c is iWARP, whose QPs only the CM connects (pointing at vs_cm_*); else 0 */
int vs__iwarp_cm_only(const struct vs_context *c, const char *verb);
/* vs_port_info and vs_gid_pick on behalf of call (errors name it). */
int vs__port_info(const struct vs_context *c, uint8_t port,
		  struct vs_port_info *out, const char *call);
/*
 * The port's fields that never change while c is open (port, link_layer,
 * gid_tbl_len; the rest of out zero), cached by vs__port_info: false
 * when not read yet (or port beyond the cache).
 */
bool vs__port_fixed(const struct vs_context *c, uint8_t port,
		    struct vs_port_info *out);
/* lib/bounce.c: a quirky provider's ring for inline data and gathers */
int vs__bounce_ready(struct vs_qp *qp, const char *verb);
int vs__bounce_free(struct vs_qp *qp, const char *verb);
/*
 * What a CM id's route says of its port (lib/cm_qp.c), so the QP's
 * create reads neither the port nor a GID (lib/qp.c): the route's MTU
 * and source LID are the ones the CM brings the QP up with.
 */
struct vs__port_now {
	enum ibv_mtu mtu;
	uint16_t lid;
	bool gid_at_rtr; /* RC: the source GID is the CM's, read at RTR */
	/*
	 * iWARP: the route has no path, and the QP no path MTU or LID (the
	 * CM, not the library, brings it to RTS): mtu and lid stay 0
	 */
	bool no_path;
};
int vs__qp_create_now(struct vs_pd *pd, enum vs_transport t, const void *cfg,
		      const struct vs__port_now *now, struct vs_qp **out);
int vs__gid_pick(struct vs_context *c, uint8_t port, struct vs_gid_info *out,
		 const char *call);

/*
 * A context handle over librdmacm's ibv_context of a CM id (lib/cm_*.c):
 * borrowed, so its last put never closes the device and the user's close
 * is refused.
 */
int vs__context_borrow(struct ibv_context *raw, struct vs_context **out,
		       const char *call);

/* Internal drops used by dependants (no user-visible reference check). */
int vs__context_put(struct vs_context *ctx, const char *verb);
int vs__pd_put(struct vs_pd *pd, const char *verb);
int vs__cq_put(struct vs_cq *cq, const char *verb);
/* the destroy behind vs__cq_put, once the last reference is gone */
int vs__cq_destroy(struct vs_cq *cq, const char *verb);
int vs__srq_put(struct vs_srq *srq, const char *verb);
int vs__ah_put(struct vs_ah *ah, const char *verb);
int vs__qp_put(struct vs_qp *qp, const char *verb);

/*
 * lib/core/qp_modify.c, the QP's state changes.  ring_missing: rxe's
 * bounce ring still to be made (lib/bounce.c): the send gate stays shut,
 * so the first batch start goes the slow way and makes it.  set_state
 * records a state change and opens or shuts the send gate with it.
 */
bool vs__qp_ring_missing(const struct vs_qp *qp);
void vs__qp_set_state(struct vs_qp *qp, enum ibv_qp_state s);
/*
 * The typed modify of a QP whose caller checked it already (an open
 * handle of its kind, no send batch open: what vs__qp_modify checks
 * first): ibv_modify_qp, the state recorded, a failure explained
 * (vs__modify_failed) for verb.  The connection manager's bring-up.
 */
int vs__qp_modify_held(struct vs_qp *qp, const char *verb,
		       struct ibv_qp_attr *attr, int mask);
/*
 * One step of a bring-up; vs__qp_modify_run makes steps[0..n) in order
 * with vs__qp_modify_held until one fails: 0 or that failure, *done
 * the steps made.
 */
struct vs__qp_step {
	struct ibv_qp_attr attr;
	int mask;
};
int vs__qp_modify_run(struct vs_qp *qp, const char *verb,
		      struct vs__qp_step *steps, int n, int *done);

/* The RESET->INIT attributes of qp (port, pkey 0, qkey or access); the mask. */
int vs__qp_init_attr(const struct vs_qp *qp, struct ibv_qp_attr *a);

static inline bool vs__qp_batch_open(const struct vs_qp *qp)
{
	return qp->h.gate == VS__GATE_BATCH;
}

/* lib/legacy_sq.c: the ibv_wr_* ops over a chained ibv_post_send */
struct vs__legacy_sq *vs__legacy_sq_create(struct ibv_qp *qp, uint32_t cap,
					   uint32_t max_sge);
struct ibv_qp_ex *vs__legacy_sq_ops(struct vs__legacy_sq *l);
long vs__legacy_sq_bad_index(const struct vs__legacy_sq *l);
void vs__legacy_sq_free(struct vs__legacy_sq *l);

/* lib/legacy_cq.c: the ibv_start_poll family over ibv_poll_cq */
struct vs__legacy_cq *vs__legacy_cq_create(struct ibv_cq *cq);
struct ibv_cq_ex *vs__legacy_cq_ops(struct vs__legacy_cq *l);
bool vs__legacy_cq_is(const struct ibv_cq_ex *ops);
void vs__legacy_cq_free(struct vs__legacy_cq *l);

/*
 * lib/channel_cqs.c: the CQs of a channel.  A CQ joins its channel at
 * creation (arming it; the channel gains a reference) and leaves it at its
 * destroy: unlinked and its outstanding events acked under the channel's
 * lock, then ibv_destroy_cq outside it, so the destroy never waits for an
 * acknowledgement that only a lock holder could give.
 */
struct vs__channel_cqs {
	pthread_mutex_t lock;
	struct vs_cq *head, *tail;
	int n;
	bool slept; /* the last successful wait slept (lib/channel.c) */
	/*
	 * lib/channel.c: reader (atomic) is the right to read the fd: taken
	 * by compare-and-swap, under the lock for a read that cannot block,
	 * or for a sleep on the fd (the sleeper; a vs_cq_wait for ever takes
	 * it without the lock).  Waits that find it taken sleep on turn,
	 * counted in turn_waiters (atomic), until it is given back.  The fd is
	 * blocking until it is handed out (nonblocking, atomic: once set it
	 * stays).
	 */
	pthread_cond_t turn;
	bool reader;
	int turn_waiters;
	bool nonblocking;
};

void vs__channel_cqs_append(struct vs__channel_cqs *l, struct vs_cq *cq);
void vs__channel_cqs_remove(struct vs__channel_cqs *l, struct vs_cq *cq);
int vs__channel_attach(struct vs_channel *ch, struct vs_cq *cq, const char *call);
int vs__channel_cq_destroy(struct vs_cq *cq);
int vs__channel_put(struct vs_channel *ch, const char *call);
/* lib/legacy_cq.c: completions polled from the provider, not yet consumed */
bool vs__legacy_cq_buffered(struct vs__legacy_cq *l);
/*
 * lib/cq_stash.c: a CQ's stash.  vs__cq_take gives match every completion
 * of cq, the stashed ones first, then the CQ's until it is empty; those
 * match refuses (returns false) are stashed, in order, for the CQ's next
 * polls and waits.  Returns how many match took, or a negative errno
 * (recorded for call).  match may rewrite the completion it takes.
 */
typedef bool (*vs__wc_match)(void *arg, struct vs_wc *wc);
int vs__cq_take(struct vs_cq *cq, vs__wc_match match, void *arg,
		const char *call);
bool vs__cq_stash_waiting(const struct vs_cq *cq);
void vs__cq_stash_free(struct vs__cq_stash *st);

/* Receive storage shared by QPs and SRQs. */
int vs__recv_store_init(struct vs__recv_store *st, uint32_t cap, uint32_t max_sge);
void vs__recv_store_free(struct vs__recv_store *st);

/*
 * 0 when ep is a well-formed endpoint (the rules of vs_endpoint_from_bytes);
 * else -EINVAL with "what endpoint: the field and what is wrong with it".
 */
int vs__endpoint_check(const struct vs_endpoint *ep, const char *verb,
		       const char *what);

/* Creates an AH toward remote from (pd, port, gid index, link layer). */
int vs__ah_create_for(struct vs_pd *pd, const struct vs_qp *qp,
		      const struct vs_endpoint *remote, struct vs_ah **out,
		      const char *verb);
/* Fills ah_attr toward remote the way the QP's link layer needs. */
void vs__fill_ah_attr(const struct vs_qp *qp, const struct vs_endpoint *remote,
		      struct ibv_ah_attr *ah);

/*
 * Explains a failed RoCE RTR or address handle by its route (sgid index,
 * dgid, netdev, type, link-local) into buf, when err may be the route's or
 * address's fault (EINVAL, ENETUNREACH, ETIMEDOUT, ...) and the QP's link
 * is Ethernet; else buf is "" (ENOMEM, EIO, ... are not the route).
 */
void vs__describe_route(const struct vs_qp *qp, int err,
			const union ibv_gid *dgid, char *buf, size_t len);

/*
 * Records the error of a failed ibv_modify_qp(from -> to, mask) that call
 * made (err: its positive errno): a wrong mask names the missing and the
 * extra bits, a complete one says a value is out of range, a RoCE RTR
 * toward dgid (NULL: none known) names the route.  Returns -err.
 */
int vs__modify_failed(const struct vs_qp *qp, const char *call, int err,
		      enum ibv_qp_state from, enum ibv_qp_state to, int mask,
		      const union ibv_gid *dgid, uint32_t dest_qpn);

#endif /* VS_CORE_H */
