/* SPDX-License-Identifier: MIT */
/*
 * vs_last_error(): thread-local, names the verb, the errno and what was
 * wrong; the name helpers.
 */
#include <pthread.h>

#include "../common/vs_typed.h"

static void *other_thread(void *arg)
{
	int *seen = arg;

	/* a fresh thread starts without an error */
	*seen = vs_last_error()->err;
	VS_FAILS(vs_pd_close(NULL), EINVAL, "pd is NULL");
	return NULL;
}

static void thread_local_errors(void)
{
	pthread_t t;
	int seen = -1;

	vs_clear_error();
	VS_FAILS(vs_cq_close(NULL), EINVAL, "cq is NULL");
	VS_ASSERT_EQ(pthread_create(&t, NULL, other_thread, &seen), 0);
	VS_ASSERT_EQ(pthread_join(t, NULL), 0);
	VS_ASSERT_EQ(seen, 0);
	/* the other thread's failure did not touch ours */
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_cq_close");
	VS_ASSERT_STREQ(vs_last_error()->message, "cq is NULL");
}

static void format(void)
{
	char buf[256];

	vs_clear_error();
	VS_ASSERT_EQ(vs_last_error()->err, 0);
	VS_ASSERT_STREQ(vs_last_error()->message, "");
	VS_ASSERT_STREQ(vs_format_error(vs_last_error(), buf, sizeof(buf)), "no error");
	VS_ASSERT(vs_mr_close(NULL) == -EINVAL);
	VS_ASSERT_STREQ(vs_format_error(vs_last_error(), buf, sizeof(buf)),
			"vs_mr_close: Invalid argument: mr is NULL");
	/* truncation keeps a terminated string */
	vs_format_error(vs_last_error(), buf, 10);
	VS_ASSERT_EQ(strlen(buf), 9);
	VS_ASSERT(vs_format_error(NULL, NULL, 0) == NULL);
	/* successful calls do not clear it */
	VS_ASSERT(vs_qp_check_mask(VS_TRANSPORT_RC, IBV_QPS_RTS, IBV_QPS_ERR,
				   IBV_QP_STATE, NULL, 0) == 0);
	VS_ASSERT_EQ(vs_last_error()->err, EINVAL);
}

static void names(void)
{
	char buf[64];
	union ibv_gid g;

	VS_ASSERT_STREQ(vs_kind_name(VS_KIND_RC_QP), "RC QP");
	VS_ASSERT_STREQ(vs_kind_name(1), "unknown handle");
	VS_ASSERT_STREQ(vs_transport_name(VS_TRANSPORT_UD), "UD");
	VS_ASSERT_STREQ(vs_qp_state_name(IBV_QPS_RTR), "RTR");
	VS_ASSERT_STREQ(vs_gid_type_name(VS_GID_ROCE_V2), "RoCE v2");
	memset(&g, 0, sizeof(g));
	g.raw[10] = g.raw[11] = 0xff;
	g.raw[12] = 192;
	g.raw[13] = 168;
	g.raw[14] = 77;
	g.raw[15] = 1;
	VS_ASSERT_STREQ(vs_gid_to_str(&g, buf, sizeof(buf)), "::ffff:192.168.77.1");
	g.raw[0] = 0xfe;
	g.raw[1] = 0x80;
	VS_ASSERT_STREQ(vs_gid_to_str(&g, buf, sizeof(buf)), "fe80::ffff:c0a8:4d01");
}

static void knob(void)
{
	vs_set_force_legacy(true);
	VS_ASSERT(vs_force_legacy());
	vs_set_force_legacy(false);
	VS_ASSERT(!vs_force_legacy());
}

int main(void)
{
	thread_local_errors();
	format();
	names();
	knob();
	printf("errors are thread-local and say what was wrong\n");
	return 0;
}
