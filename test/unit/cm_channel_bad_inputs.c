/* SPDX-License-Identifier: MIT */
/*
 * Shared CM event channels (vs_cm_channel_*, vs_cm_config.channel): bad
 * inputs without a device.  NULL, closed and other-kind handles, a NULL
 * out or event, the channel bit with no channel or a handle of another
 * kind, an unknown comp_mask bit: each -EINVAL with the call named and
 * what was wrong; on a host without /dev/infiniband/rdma_cm the create
 * fails with the reason (ids on a real channel: test/device/cm_shared.c).
 */
#include "../common/vs_typed.h"

/* Fake handles: only the header is ever read before the kind check fails. */
static struct vs_handle closed_ch = { .magic = VS_KIND_CM_CHANNEL | VS__CLOSED };
static struct vs_handle a_pd = { .magic = VS_KIND_PD, .refs = 1 };

int main(void)
{
	struct vs_cm_channel *ch = (struct vs_cm_channel *)&a_pd;
	struct vs_cm_channel *closed = (struct vs_cm_channel *)&closed_ch;
	struct vs_cm_channel *other = (struct vs_cm_channel *)&a_pd;
	struct vs_cm_id *id = (struct vs_cm_id *)&a_pd;
	struct vs_cm_event ev;
	int ret;

	VS_FAILS(vs_cm_channel_create(NULL), EINVAL, "out is NULL");
	VS_FAILS(vs_cm_channel_close(NULL), EINVAL, "ch is NULL");
	VS_FAILS(vs_cm_channel_close(closed), EINVAL,
		 "ch is a CM event channel the caller already closed");
	VS_FAILS(vs_cm_channel_close(other), EINVAL,
		 "another kind (PD, expected CM event channel)");
	VS_FAILS(vs_cm_channel_next(NULL, 0, &ev), EINVAL, "ch is NULL");
	VS_FAILS(vs_cm_channel_next(closed, -1, &ev), EINVAL, "already closed");
	VS_FAILS(vs_cm_channel_next(other, 0, &ev), EINVAL, "another kind");
	VS_ASSERT_EQ(vs_cm_channel_fd(NULL), -1);
	VS_ASSERT_EQ(vs_cm_channel_fd(closed), -1);
	VS_ASSERT_EQ(vs_cm_channel_fd(other), -1);

	/* the config's channel: checked before any lookup or id */
	VS_FAILS(vs_cm_resolve("192.0.2.1", "7471", &(struct vs_cm_config){
		.comp_mask = VS_CM_CONFIG_CHANNEL, .no_wait = true }, &id),
		EINVAL, "cfg->channel (VS_CM_CONFIG_CHANNEL is set) is NULL");
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_FAILS(vs_cm_listen(NULL, "7471", &(struct vs_cm_config){
		.comp_mask = VS_CM_CONFIG_CHANNEL, .channel = closed }, &id),
		EINVAL, "already closed");
	VS_FAILS(vs_cm_listen(NULL, "7471", &(struct vs_cm_config){
		.comp_mask = VS_CM_CONFIG_CHANNEL, .channel = other }, &id),
		EINVAL, "another kind (PD, expected CM event channel)");
	VS_FAILS(vs_cm_resolve("192.0.2.1", "7471", &(struct vs_cm_config){
		.comp_mask = 1u << 7, .no_wait = true }, &id),
		EINVAL, "unknown bits (known: VS_CM_CONFIG_CHANNEL 0x1)");
	/* without the bit the field is not read (a caller of the older struct) */
	VS_FAILS(vs_cm_listen(NULL, "7471", &(struct vs_cm_config){
		.channel = other, .backlog = -1 }, &id), EINVAL, "backlog -1");

	/* a real channel needs the rdma_cm device: explained when missing */
	ch = (struct vs_cm_channel *)&a_pd;
	ret = vs_cm_channel_create(&ch);
	if (ret) {
		VS_ASSERT_PTR_EQ(ch, NULL);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_channel_create");
		printf("no channel on this host: %s\n", vs_t_err());
	} else {
		VS_ASSERT(vs_cm_channel_fd(ch) >= 0);
		VS_FAILS(vs_cm_channel_next(ch, 0, NULL), EINVAL, "ev is NULL");
		VS_ASSERT_EQ(vs_cm_channel_next(ch, 0, &ev), -EAGAIN);
		VS_ASSERT_EQ(vs_cm_channel_next(ch, 20, &ev), -ETIMEDOUT);
		VS_OK(vs_cm_channel_close(ch));
		VS_FAILS(vs_cm_channel_close(ch), EINVAL, "already closed");
		VS_ASSERT_EQ(vs_cm_channel_fd(ch), -1);
		printf("a channel: created, empty, closed\n");
	}
	printf("ok\n");
	return 0;
}
