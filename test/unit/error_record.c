/* SPDX-License-Identifier: MIT */
/*
 * The error record names its call: every public entry point of the typed
 * API is made to fail (refused arguments, then a provider failure where it
 * calls one) on the fake provider of test/stubs, and its record must say
 * call == the entry point, err == -return, a message, and verb == the
 * provider function exactly when one failed.  test/shell/error_record.sh
 * checks that this table lists every public function of the headers (or
 * names it in EXEMPT with the reason).  Also: the timeouts of the waits
 * (recorded: what, how long; -EAGAIN of a wait of 0 is not), the " [cut]"
 * mark of a cut message, and the loader's reason when libibverbs did not
 * load.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/vs_fake.h"

/*
 * EXEMPT (cannot fail, or have no record to fill):
 *   vs_last_error vs_clear_error vs_format_error vs_kind_name
 *   vs_transport_name vs_qp_state_name vs_gid_type_name vs_gid_to_str
 *   vs_endpoint_to_str: names and formatting, defined for every input;
 *   vs_qp_check_mask: explains into its own buffer, records nothing;
 *   vs_context_raw vs_pd_raw vs_cq_raw vs_cq_raw_ex vs_srq_raw vs_ah_raw
 *   vs_mr_raw vs_rc_qp_raw vs_uc_qp_raw vs_ud_qp_raw vs_srd_qp_raw: NULL for
 *   a bad handle;
 *   vs_cq_is_extended vs_rc_qp_is_extended vs_uc_qp_is_extended
 *   vs_ud_qp_is_extended vs_srd_qp_is_extended: false for a bad handle;
 *   vs_rc_qp_num vs_uc_qp_num vs_ud_qp_num vs_srd_qp_num: 0, and
 *   vs_rc_qp_caps vs_uc_qp_caps vs_ud_qp_caps vs_srd_qp_caps: NULL for a bad
 *   handle;
 *   vs_cq_iter_* accessors, vs_cq_iter_read, vs_cq_iter_end, vs_*_batch_abort,
 *   vs_recv_abort: void, valid only inside a started iteration or batch;
 *   vs_force_legacy vs_set_force_legacy: a knob;
 *   vs_library_load vs_library_query vs_symbol_resolved vs_symbol_node
 *   vs_build_query vs_library_nodes vs_feature_query: the loader's (shim)
 *   calls, -errno without a record;
 *   vs_channel_fd vs_channel_raw vs_cq_context: -1 or NULL for a bad handle
 *   (the first two record fcntl refusing O_NONBLOCK, which a pipe never does);
 *   vs_async_event_name vs_gid_type_of vs_rate_mbps vs_speed_lane_mbps
 *   vs_speed_name vs_width_lanes vs_link_kind_name: decoders, defined for
 *   every code;
 *   vs_cm_channel_fd: -1 for a bad handle;
 *   vs_cm_pd vs_cm_cq vs_cm_rc_qp vs_cm_ud_qp vs_cm_raw vs_cm_fd vs_cm_state
 *   vs_cm_peer vs_cm_port vs_cm_private_data vs_cm_reject_reason: NULL, -1,
 *   VS_CM_FAILED, "(bad id)" or 0 for a bad handle;
 *   vs_cm_state_name vs_cm_event_name vs_cm_reject_reason_name: names,
 *   defined for every code.
 */

static struct {
	char verb[48];
	int err;
} *fail_next;	/* the fake's vs_stub_fail */

static struct vs_context *ctx;
static struct vs_pd *pd;
static struct vs_cq *cq;
static struct vs_mr *mr;
static struct vs_rc_qp *rc;
static struct vs_ud_qp *ud;
static int checked;
static struct vs_stub_efa *efa; /* the fake libefa's control block */

static void expect(int ret, const char *call, const char *verb, const char *what)
{
	const struct vs_error *e = vs_last_error();

	if (ret >= 0)
		VS_FAIL("%s (%s) returned %d, expected a failure", call, what, ret);
	if (!e->call || strcmp(e->call, call))
		VS_FAIL("%s (%s): the record names call \"%s\"", call, what,
			e->call ? e->call : "(null)");
	if (e->err != -ret)
		VS_FAIL("%s (%s): record err %d, returned %d", call, what, e->err, ret);
	if (!e->message[0])
		VS_FAIL("%s (%s): empty message", call, what);
	if (verb ? !e->verb || strcmp(e->verb, verb) : e->verb != NULL)
		VS_FAIL("%s (%s): verb \"%s\", expected \"%s\"", call, what,
			e->verb ? e->verb : "(null)", verb ? verb : "(null)");
	checked++;
}

/* a refusal: the call itself says no, no provider function failed */
#define ENTRY(name, ...)                                                      \
	do {                                                                  \
		vs_clear_error();                                             \
		expect((__VA_ARGS__), #name, NULL, #__VA_ARGS__);             \
	} while (0)
/* a provider failure: verb fails with EIO inside name */
#define ENTRY_VERB(name, fn, ...)                                             \
	do {                                                                  \
		vs_clear_error();                                             \
		snprintf(fail_next->verb, sizeof(fail_next->verb), "%s", fn); \
		fail_next->err = EIO;                                         \
		expect((__VA_ARGS__), #name, fn, #__VA_ARGS__);               \
		fail_next->verb[0] = 0;                                       \
	} while (0)
/* an SRD call on fake0, which the fake libefa says is not an EFA device */
#define ENTRY_NOT_EFA(name, ...)                                              \
	do {                                                                  \
		vs_clear_error();                                             \
		efa->efa_device = 0;                                          \
		expect((__VA_ARGS__), #name, "efadv_query_device", #__VA_ARGS__); \
	} while (0)
/* entry points that return a value, not an int: failure is in the record */
#define ENTRY_VALUE(name, ...)                                                \
	do {                                                                  \
		vs_clear_error();                                             \
		(void)(__VA_ARGS__);                                          \
		expect(-vs_last_error()->err, #name, NULL, #__VA_ARGS__);     \
	} while (0)

/*
 * cm.h: the refusals, which need no librdmacm (the host has no rdma_cm
 * device; the provider failures are the rxe test's, test/device/cm_rc.c).
 */
static void cm_rows(void)
{
	struct vs_cm_id *id, *bad = (struct vs_cm_id *)pd;
	struct vs_cm_event cev;
	struct vs_ud_dest cd;
	struct vs_rc_qp *crc;
	struct vs_ud_qp *cud;

	ENTRY(vs_cm_resolve, vs_cm_resolve(NULL, "1", NULL, &id));
	ENTRY(vs_cm_resolve_addr, vs_cm_resolve_addr(NULL, NULL, &id));
	ENTRY(vs_cm_resolve, vs_cm_resolve("h", "1", &(struct vs_cm_config){
		.transport = VS_TRANSPORT_UC }, &id));
	ENTRY(vs_cm_listen, vs_cm_listen(NULL, NULL, NULL, &id));
	ENTRY(vs_cm_listen, vs_cm_listen(NULL, "1", &(struct vs_cm_config){
		.timeout_ms = -5 }, &id));
	ENTRY(vs_cm_close, vs_cm_close(NULL));
	ENTRY(vs_cm_close, vs_cm_close(bad));
	ENTRY_VALUE(vs_cm_context, vs_cm_context(NULL));
	ENTRY(vs_cm_rc_qp_create, vs_cm_rc_qp_create(NULL, pd, NULL, &crc));
	ENTRY(vs_cm_ud_qp_create, vs_cm_ud_qp_create(bad, pd, NULL, &cud));
	ENTRY(vs_cm_connect, vs_cm_connect(NULL, NULL));
	ENTRY(vs_cm_get_request, vs_cm_get_request(NULL, 0, &id));
	ENTRY(vs_cm_accept, vs_cm_accept(bad, NULL));
	ENTRY(vs_cm_reject, vs_cm_reject(NULL, NULL, 0));
	ENTRY(vs_cm_disconnect, vs_cm_disconnect(NULL));
	ENTRY(vs_cm_rc_client, vs_cm_rc_client("h", "1", NULL, NULL,
		&(struct vs_rc_config){ .send_cq = cq }, &id));
	ENTRY(vs_cm_rc_serve, vs_cm_rc_serve(NULL, NULL, NULL, &id));
	ENTRY(vs_cm_next, vs_cm_next(NULL, 0, &cev));
	ENTRY(vs_cm_ud_dest, vs_cm_ud_dest(NULL, &cd));
	ENTRY(vs_cm_join, vs_cm_join(NULL, "239.1.1.1", 0));
	ENTRY(vs_cm_leave, vs_cm_leave(bad));
	ENTRY(vs_cm_create_ep, vs_cm_create_ep("h", NULL, NULL, NULL, &id));
	ENTRY(vs_cm_create_ep, vs_cm_create_ep("h", "1", &(struct rdma_addrinfo){
		.ai_port_space = RDMA_PS_IB }, NULL, &id));
	ENTRY(vs_cm_create_ep, vs_cm_create_ep(NULL, "1", NULL, NULL, &id));
	ENTRY(vs_cm_channel_create, vs_cm_channel_create(NULL));
	/* VERBSHIM_STATS is not set here: nothing counted, ENODATA */
	ENTRY(vs_call_stats, vs_call_stats(NULL, 0, NULL));
	ENTRY(vs_call_stats, vs_call_stats(NULL, 0, &(size_t){ 0 }));
	ENTRY(vs_call_stats_print, vs_call_stats_print(2));
	ENTRY(vs_cm_channel_close, vs_cm_channel_close((struct vs_cm_channel *)pd));
	ENTRY(vs_cm_channel_next, vs_cm_channel_next(NULL, 0, &cev));
	ENTRY(vs_cm_resolve, vs_cm_resolve("h", "1", &(struct vs_cm_config){
		.comp_mask = VS_CM_CONFIG_CHANNEL, .no_wait = true }, &id));
}

static void walk(void)
{
	struct vs_context *c2;
	struct vs_pd *p2;
	struct vs_cq *q2;
	struct vs_mr *m2;
	struct vs_srq *s2;
	struct vs_rc_qp *rc2;
	struct vs_uc_qp *uc2;
	struct vs_ud_qp *ud2;
	struct vs_channel *ch2;
	struct vs_async_event ae;
	struct vs_endpoint ep;
	struct vs_ud_dest dest;
	struct vs_srd_qp *srd2;
	struct vs_srd_dest sdest = { { 0 } };
	struct vs_srd_batch sb = { { 0 } };
	struct vs_rc_batch rb;
	struct vs_uc_batch ub;
	struct vs_ud_batch db;
	struct vs_recv_batch recv;
	struct vs_cq_iter it;
	struct vs_wc wc;
	struct vs_port_info pi;
	struct vs_gid_info gi;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTR };
	struct ibv_sge sge = vs_mr_sge(mr, 0, 8);
	struct vs_remote remote = vs_mr_remote(mr, 64);
	uint8_t wire[VS_ENDPOINT_WIRE_SIZE] = { 0 };
	size_t n;

	/* device.h */
	ENTRY(vs_device_list, vs_device_list(NULL, 0, NULL));
	ENTRY(vs_device_open, vs_device_open("no-such-device", &c2));
	ENTRY_VERB(vs_device_open, "ibv_open_device", vs_device_open("fake0", &c2));
	ENTRY(vs_device_close, vs_device_close(NULL));
	ENTRY(vs_context_close, vs_context_close(NULL)); /* the deprecated alias */
	ENTRY(vs_device_attr, vs_device_attr(ctx, NULL));
	ENTRY(vs_port_info, vs_port_info(ctx, 9, &pi));
	ENTRY(vs_gid_table, vs_gid_table(ctx, 1, NULL, 4, &n));
	ENTRY(vs_gid_pick, vs_gid_pick(ctx, 1, NULL));
	ENTRY(vs_gid_pick, vs_gid_pick(ctx, 9, &gi)); /* not vs_port_info */
	/* mem.h */
	ENTRY(vs_pd_alloc, vs_pd_alloc(NULL, &p2));
	ENTRY_VERB(vs_pd_alloc, "ibv_alloc_pd", vs_pd_alloc(ctx, &p2));
	ENTRY(vs_pd_close, vs_pd_close(NULL));
	ENTRY(vs_mr_alloc, vs_mr_alloc(pd, 0, 0, &m2));
	ENTRY_VERB(vs_mr_alloc, "ibv_reg_mr", vs_mr_alloc(pd, 64, 0, &m2));
	ENTRY(vs_mr_register, vs_mr_register(pd, NULL, 64, 0, &m2));
	ENTRY(vs_mr_register_dmabuf, vs_mr_register_dmabuf(pd, -1, 0, 64, 0, 0, &m2));
	ENTRY(vs_mr_advise, vs_mr_advise(NULL, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, 0, 8));
	ENTRY(vs_mr_close, vs_mr_close(NULL));
	ENTRY_VALUE(vs_mr_sge, vs_mr_sge(mr, 4096, 8));
	ENTRY_VALUE(vs_mr_ptr, vs_mr_ptr(mr, 1 << 20));
	ENTRY_VALUE(vs_mr_remote, vs_mr_remote(mr, 1 << 20));
	/* cq.h */
	ENTRY(vs_cq_create, vs_cq_create(NULL, NULL, &q2));
	ENTRY_VERB(vs_cq_create, "ibv_create_cq", vs_cq_create(ctx, NULL, &q2));
	ENTRY(vs_cq_close, vs_cq_close(NULL));
	ENTRY(vs_cq_poll, vs_cq_poll(NULL, &wc, 1));
	ENTRY(vs_cq_iter_start, vs_cq_iter_start(NULL, &it));
	ENTRY(vs_cq_iter_next, vs_cq_iter_next(NULL));
	/* qp.h */
	ENTRY(vs_srq_create, vs_srq_create(NULL, NULL, &s2));
	ENTRY_VERB(vs_srq_create, "ibv_create_srq", vs_srq_create(pd, NULL, &s2));
	ENTRY(vs_srq_set_limit, vs_srq_set_limit(NULL, 1));
	ENTRY(vs_srq_close, vs_srq_close(NULL));
	ENTRY(vs_rc_qp_create, vs_rc_qp_create(pd, NULL, &rc2));
	ENTRY_VERB(vs_rc_qp_create, "ibv_create_qp",
		   vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &rc2));
	ENTRY(vs_uc_qp_create, vs_uc_qp_create(pd, NULL, &uc2));
	ENTRY(vs_ud_qp_create, vs_ud_qp_create(pd, NULL, &ud2));
	ENTRY(vs_rc_qp_close, vs_rc_qp_close(NULL));
	ENTRY(vs_uc_qp_close, vs_uc_qp_close(NULL));
	ENTRY(vs_ud_qp_close, vs_ud_qp_close(NULL));
	ENTRY(vs_rc_qp_modify, vs_rc_qp_modify(rc, NULL, 0));
	ENTRY_VERB(vs_rc_qp_modify, "ibv_modify_qp",
		   vs_rc_qp_modify(rc, &qa, IBV_QP_STATE));
	ENTRY(vs_uc_qp_modify, vs_uc_qp_modify(NULL, &qa, IBV_QP_STATE));
	ENTRY(vs_ud_qp_modify, vs_ud_qp_modify(NULL, &qa, IBV_QP_STATE));
	ENTRY(vs_ah_close, vs_ah_close(NULL));
	/* endpoint.h */
	ENTRY(vs_rc_endpoint, vs_rc_endpoint(NULL, &ep));
	ENTRY(vs_uc_endpoint, vs_uc_endpoint(NULL, &ep));
	ENTRY(vs_ud_endpoint, vs_ud_endpoint(NULL, &ep));
	ENTRY(vs_endpoint_from_bytes, vs_endpoint_from_bytes(wire, 3, &ep));
	memset(&ep, 0, sizeof(ep));
	ENTRY(vs_endpoint_to_bytes, vs_endpoint_to_bytes(&ep, wire));
	ENTRY(vs_rc_handshake, vs_rc_handshake(NULL, &ep));
	ENTRY(vs_uc_handshake, vs_uc_handshake(NULL, &ep));
	ENTRY(vs_ud_handshake, vs_ud_handshake(NULL, &ep, &dest));
	ENTRY(vs_ud_dest_release, vs_ud_dest_release(NULL));
	/* post.h: sends (rc is in INIT: no batch may start) */
	ENTRY(vs_rc_batch_start, vs_rc_batch_start(rc, &rb));
	ENTRY(vs_uc_batch_start, vs_uc_batch_start(NULL, &ub));
	ENTRY(vs_ud_batch_start, vs_ud_batch_start(ud, NULL));
	memset(&rb, 0, sizeof(rb));
	memset(&ub, 0, sizeof(ub));
	memset(&db, 0, sizeof(db));
	ENTRY(vs_rc_send, vs_rc_send(&rb, 1, 0, &sge, 1));
	ENTRY(vs_rc_send_imm, vs_rc_send_imm(&rb, 1, 0, 7, &sge, 1));
	ENTRY(vs_rc_write, vs_rc_write(&rb, 1, 0, &sge, 1, remote));
	ENTRY(vs_rc_write_imm, vs_rc_write_imm(&rb, 1, 0, 7, &sge, 1, remote));
	ENTRY(vs_rc_read, vs_rc_read(&rb, 1, 0, &sge, 1, remote));
	ENTRY(vs_rc_cas, vs_rc_cas(&rb, 1, 0, &sge, remote, 0, 1));
	ENTRY(vs_rc_faa, vs_rc_faa(&rb, 1, 0, &sge, remote, 1));
	ENTRY(vs_rc_batch_submit, vs_rc_batch_submit(&rb));
	ENTRY(vs_uc_send, vs_uc_send(&ub, 1, 0, &sge, 1));
	ENTRY(vs_uc_send_imm, vs_uc_send_imm(&ub, 1, 0, 7, &sge, 1));
	ENTRY(vs_uc_write, vs_uc_write(&ub, 1, 0, &sge, 1, remote));
	ENTRY(vs_uc_write_imm, vs_uc_write_imm(&ub, 1, 0, 7, &sge, 1, remote));
	ENTRY(vs_uc_batch_submit, vs_uc_batch_submit(&ub));
	ENTRY(vs_ud_send, vs_ud_send(&db, 1, 0, NULL, &sge, 1));
	ENTRY(vs_ud_send_imm, vs_ud_send_imm(&db, 1, 0, NULL, 7, &sge, 1));
	ENTRY(vs_ud_batch_submit, vs_ud_batch_submit(&db));
	/* post.h: receives */
	ENTRY(vs_rc_recv_start, vs_rc_recv_start(NULL, &recv));
	ENTRY(vs_uc_recv_start, vs_uc_recv_start(NULL, &recv));
	ENTRY(vs_ud_recv_start, vs_ud_recv_start(NULL, &recv));
	ENTRY(vs_srq_recv_start, vs_srq_recv_start(NULL, &recv));
	memset(&recv, 0, sizeof(recv));
	ENTRY(vs_recv_add, vs_recv_add(&recv, 1, &sge, 1));
	ENTRY(vs_recv_submit, vs_recv_submit(&recv));
	/* event.h */
	ENTRY(vs_channel_create, vs_channel_create(NULL, &ch2));
	ENTRY_VERB(vs_channel_create, "ibv_create_comp_channel",
		   vs_channel_create(ctx, &ch2));
	ENTRY(vs_channel_close, vs_channel_close(NULL));
	ENTRY(vs_channel_wait, vs_channel_wait(NULL, 0, &q2, &wc, 1));
	ENTRY(vs_cq_wait, vs_cq_wait(NULL, 0, &wc, 1));
	ENTRY(vs_cq_wait, vs_cq_wait(cq, 0, &wc, 1)); /* cq has no channel */
	ENTRY(vs_async_fd, vs_async_fd(NULL));
	ENTRY(vs_async_fd, vs_async_fd(ctx)); /* the fake's async fd is -1 */
	ENTRY(vs_async_next, vs_async_next(NULL, 0, &ae));
	ENTRY(vs_async_next, vs_async_next(ctx, 0, NULL));
	cm_rows();
	/* scope.h */
	{
		struct vs_scope sc = { 0 };

		ENTRY(vs_cq_wait_wr, vs_cq_wait_wr(NULL, 1, 1, VS_WAIT_POLL, 0, &wc));
		ENTRY(vs_cq_wait_wr, vs_cq_wait_wr(cq, 1, 1, VS_WAIT_SLEEP, 0, &wc));
		ENTRY(vs_scope_begin, vs_scope_begin(NULL, VS_WAIT_POLL));
		ENTRY(vs_scope_wait, vs_scope_wait(&sc, 1, 0, &wc));
		ENTRY(vs_scope_end, vs_scope_end(&sc, 0, NULL));
		ENTRY(vs_scope_rc_batch_start, vs_scope_rc_batch_start(&sc, rc, &rb));
		ENTRY(vs_scope_uc_batch_start, vs_scope_uc_batch_start(&sc, NULL, &ub));
		ENTRY(vs_scope_ud_batch_start, vs_scope_ud_batch_start(&sc, ud, &db));
		VS_OK(vs_scope_begin(&sc, VS_WAIT_SLEEP));
		/* the QPs' CQ has no channel to sleep on */
		ENTRY(vs_scope_rc_batch_start, vs_scope_rc_batch_start(&sc, rc, &rb));
		ENTRY(vs_scope_ud_batch_start, vs_scope_ud_batch_start(&sc, ud, &db));
		ENTRY(vs_scope_wait, vs_scope_wait(&sc, 1, 0, &wc)); /* no such WR */
		VS_OK(vs_scope_end(&sc, 0, NULL));
	}
	/* srd.h (the fake libefa) */
	ENTRY(vs_efa_query_caps, vs_efa_query_caps(NULL, &(struct vs_efa_caps){ 0 }));
	ENTRY_NOT_EFA(vs_efa_query_caps, vs_efa_query_caps(ctx, &(struct vs_efa_caps){ 0 }));
	ENTRY(vs_srd_qp_create, vs_srd_qp_create(pd, NULL, &srd2));
	ENTRY_NOT_EFA(vs_srd_qp_create,
		      vs_srd_qp_create(pd, &(struct vs_srd_config){ .send_cq = cq }, &srd2));
	vs_clear_error();
	efa->efa_device = 1;
	efa->create_err = EIO;
	expect(vs_srd_qp_create(pd, &(struct vs_srd_config){ .send_cq = cq }, &srd2),
	       "vs_srd_qp_create", "efadv_create_qp_ex", "efadv_create_qp_ex fails");
	ENTRY(vs_srd_qp_close, vs_srd_qp_close(NULL));
	ENTRY(vs_srd_qp_modify, vs_srd_qp_modify(NULL, &qa, IBV_QP_STATE));
	ENTRY(vs_srd_endpoint, vs_srd_endpoint(NULL, &ep));
	ENTRY(vs_srd_handshake, vs_srd_handshake(NULL, &ep, &sdest));
	ENTRY(vs_srd_dest_release, vs_srd_dest_release(NULL));
	ENTRY(vs_srd_dest_query, vs_srd_dest_query(&sdest, &(struct vs_efa_ah_info){ 0 }));
	ENTRY(vs_srd_qp_query_wqs, vs_srd_qp_query_wqs(NULL, &(struct vs_efa_wqs){ 0 }));
	ENTRY(vs_srd_recv_start, vs_srd_recv_start(NULL, &recv));
	ENTRY(vs_srd_batch_start, vs_srd_batch_start(NULL, &sb));
	memset(&sb, 0, sizeof(sb));
	ENTRY(vs_srd_send, vs_srd_send(&sb, 1, 0, &sdest, &sge, 1));
	ENTRY(vs_srd_send_imm, vs_srd_send_imm(&sb, 1, 0, &sdest, 7, &sge, 1));
	ENTRY(vs_srd_write, vs_srd_write(&sb, 1, 0, &sdest, &sge, 1, remote));
	ENTRY(vs_srd_write_imm, vs_srd_write_imm(&sb, 1, 0, &sdest, 7, &sge, 1, remote));
	ENTRY(vs_srd_read, vs_srd_read(&sb, 1, 0, &sdest, &sge, 1, remote));
	ENTRY(vs_srd_batch_submit, vs_srd_batch_submit(&sb));
}

/*
 * A timeout is a failure like the others: recorded with the call,
 * ETIMEDOUT, what was waited for and how long.  A wait of 0 that finds
 * nothing (-EAGAIN, a poll's answer) records nothing.
 */
static void expect_timeout(int ret, const char *call, const char *what)
{
	const char *m = vs_last_error()->message;

	VS_ASSERT_EQ(ret, -ETIMEDOUT);
	expect(ret, call, NULL, what);
	if (!strstr(m, what) || !strstr(m, "within 20 ms"))
		VS_FAIL("%s: the timeout's record says \"%s\": expected \"%s\" "
			"and \"within 20 ms\"", call, m, what);
}

static void timeouts(void)
{
	struct vs_channel *ch;
	struct vs_cq *ccq, *from;
	struct vs_wc wc;
	char what[64];

	VS_OK(vs_channel_create(ctx, &ch));
	VS_OK(vs_cq_create(ctx, &(struct vs_cq_config){ .channel = ch }, &ccq));
	snprintf(what, sizeof(what), "no completion on the CQs of channel %p",
		 (void *)ch);
	expect_timeout(vs_channel_wait(ch, 20, &from, &wc, 1), "vs_channel_wait",
		       what);
	snprintf(what, sizeof(what), "no completion on CQ %p", (void *)ccq);
	expect_timeout(vs_cq_wait(ccq, 20, &wc, 1), "vs_cq_wait", what);
	expect_timeout(vs_cq_wait_wr(cq, 7, 9, VS_WAIT_POLL, 20, &wc),
		       "vs_cq_wait_wr", "WR 9 of QP 7: no completion on CQ");
	expect_timeout(vs_cq_wait_wr(ccq, 7, 9, VS_WAIT_SLEEP, 20, &wc),
		       "vs_cq_wait_wr", "WR 9 of QP 7: no completion on CQ");
	/* a poll's "nothing there" is an answer, not a failure */
	vs_clear_error();
	VS_ASSERT_EQ(vs_channel_wait(ch, 0, &from, &wc, 1), -EAGAIN);
	VS_ASSERT_EQ(vs_cq_wait(ccq, 0, &wc, 1), -EAGAIN);
	VS_ASSERT_EQ(vs_cq_wait_wr(cq, 7, 9, VS_WAIT_POLL, 0, &wc), -EAGAIN);
	VS_ASSERT_EQ(vs_last_error()->err, 0);
	VS_OK(vs_cq_close(ccq));
	VS_OK(vs_channel_close(ch));
}

/* A message longer than the record ends in the visible cut mark. */
static void cut_mark(void)
{
	char name[VS_ERROR_MSG_MAX + 64];
	struct vs_context *c2;
	size_t len;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	VS_ASSERT_EQ(vs_device_open(name, &c2), -ENODEV);
	len = strlen(vs_last_error()->message);
	VS_ASSERT_EQ(len, VS_ERROR_MSG_MAX - 1);
	VS_ASSERT_STREQ(vs_last_error()->message + len - strlen(VS_ERROR_CUT),
			VS_ERROR_CUT);
	/* a message that fits carries no mark */
	VS_ASSERT_EQ(vs_device_open("short", &c2), -ENODEV);
	VS_ASSERT(!strstr(vs_last_error()->message, VS_ERROR_CUT));
}

/* libibverbs did not load: the record has the path and the loader's words. */
static int missing_library(void)
{
	const char *path = "/nonexistent/verbshim-test/libibverbs.so.1";
	size_t n;
	pid_t pid = fork();
	int st;

	VS_ASSERT(pid >= 0);
	if (pid == 0) {
		setenv("VERBSHIM_LIBIBVERBS", path, 1);
		if (vs_device_list(NULL, 0, &n) >= 0) {
			fprintf(stderr, "vs_device_list succeeded without libibverbs\n");
			_exit(1);
		}
		if (strcmp(vs_last_error()->call, "vs_device_list") ||
		    strcmp(vs_last_error()->verb, "ibv_get_device_list") ||
		    !strstr(vs_last_error()->message, "libibverbs did not load") ||
		    !strstr(vs_last_error()->message, path)) {
			fprintf(stderr, "missing library: %s / %s: %s\n",
				vs_last_error()->call, vs_last_error()->verb,
				vs_last_error()->message);
			_exit(1);
		}
		_exit(0);
	}
	VS_ASSERT(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int main(void)
{
	char exe[PATH_MAX], fake[PATH_MAX + 32];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	void *h;

	VS_ASSERT(len > 0);
	exe[len] = 0;
	VS_ASSERT_EQ(missing_library(), 0);
	snprintf(fake, sizeof(fake), "%s/../../stubs/fake/libibverbs.so.1", dirname(exe));
	if (access(fake, R_OK))
		VS_FAIL("the fake provider %s is missing (make tests builds it)", fake);
	setenv("VERBSHIM_LIBIBVERBS", fake, 1);
	VS_OK(vs_device_open("fake0", &ctx));
	h = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
	VS_ASSERT(h != NULL);
	fail_next = dlsym(h, "vs_stub_fail");
	VS_ASSERT(fail_next != NULL);
	dlclose(h);
	efa = vs_t_use_fake_efa(0);

	VS_OK(vs_pd_alloc(ctx, &pd));
	VS_OK(vs_cq_create(ctx, NULL, &cq));
	VS_OK(vs_mr_alloc(pd, 4096, 0, &mr));
	VS_OK(vs_rc_qp_create(pd, &(struct vs_rc_config){ .send_cq = cq }, &rc));
	VS_OK(vs_ud_qp_create(pd, &(struct vs_ud_config){ .send_cq = cq }, &ud));
	walk();
	timeouts();
	cut_mark();
	VS_OK(vs_ud_qp_close(ud));
	VS_OK(vs_rc_qp_close(rc));
	VS_OK(vs_mr_close(mr));
	VS_OK(vs_cq_close(cq));
	VS_OK(vs_pd_close(pd));
	VS_OK(vs_device_close(ctx));
	printf("%d failures, each naming its call (and its verb when a provider "
	       "function failed); cut mark and loader reason checked\n", checked);
	return 0;
}
