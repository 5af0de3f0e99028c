/* SPDX-License-Identifier: MIT */
/*
 * The connection manager's common case in one call: a connected RC id
 * with its own PD, CQ and QP, client or server side.  docs/API.md,
 * "Connection manager".
 */
#ifndef VERBSHIM_CM_ONESHOT_H
#define VERBSHIM_CM_ONESHOT_H

#include "verbshim/cm_connect.h"

VS_BEGIN_DECLS

/**
 * vs_cm_rc_client() - connect by address in one call
 * @host: the server's name or address
 * @port: its port
 * @cfg: resolve settings (NULL: defaults)
 * @conn: private data and timeout of the connect (NULL: defaults)
 * @qp_cfg: the QP's configuration without CQs (NULL: defaults)
 * @out: the connected id (cleared first)
 *
 * vs_cm_resolve(), a PD, one CQ as deep as the QP's two queues,
 * vs_cm_rc_qp_create() and vs_cm_connect().  The id owns what it
 * created: vs_cm_pd() (register memory on it), vs_cm_cq(), vs_cm_rc_qp().
 * To bring your own CQs, SRQ or PD, use the steps.
 *
 * Return: 0, or the error of the step that failed (named in the
 * message); -EINVAL when @qp_cfg names CQs or an SRQ.
 */
VS_MUST_CHECK
int vs_cm_rc_client(const char *host, const char *port,
		    const struct vs_cm_config *cfg,
		    const struct vs_cm_conn_config *conn,
		    const struct vs_rc_config *qp_cfg, struct vs_cm_id **out);

/**
 * vs_cm_rc_serve() - accept the next client in one call
 * @listener: a listening id
 * @conn: private data for the client and the timeout, which bounds the
 *	wait for the request and then the accept (NULL: none, 5000 ms)
 * @qp_cfg: as vs_cm_rc_client()
 * @out: the connected id (cleared first)
 *
 * vs_cm_get_request(), a PD and a CQ owned by the id,
 * vs_cm_rc_qp_create() and vs_cm_accept().
 *
 * Return: 0, -ETIMEDOUT when no client came (recorded), or -errno.
 */
VS_MUST_CHECK
int vs_cm_rc_serve(struct vs_cm_id *listener,
		   const struct vs_cm_conn_config *conn,
		   const struct vs_rc_config *qp_cfg, struct vs_cm_id **out);

/**
 * vs_cm_pd() - the PD a one-call setup created for the id
 * @id: the id
 *
 * Return: the PD, or NULL (none, or a bad handle).
 */
struct vs_pd *vs_cm_pd(const struct vs_cm_id *id);
/**
 * vs_cm_cq() - the CQ a one-call setup created for the id
 * @id: the id
 *
 * Return: the CQ, or NULL (none, or a bad handle).
 */
struct vs_cq *vs_cm_cq(const struct vs_cm_id *id);
#ifdef VS__TYPE_GUARDS
#define vs_cm_rc_serve(l, ...) vs_cm_rc_serve(VS__IS(struct vs_cm_id, l), __VA_ARGS__)
#define vs_cm_pd(id) vs_cm_pd(VS__IS_C(struct vs_cm_id, id))
#define vs_cm_cq(id) vs_cm_cq(VS__IS_C(struct vs_cm_id, id))
#endif

VS_END_DECLS

#endif /* VERBSHIM_CM_ONESHOT_H */
