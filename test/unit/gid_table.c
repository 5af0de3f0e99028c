// SPDX-License-Identifier: MIT
/*
 * The GID table read (lib/core/gid.c collect): a table has many slots and few in
 * use (rxe: 1024), so the library asks the kernel for a few entries first
 * and for the whole table only when more are in use.  Against the fake
 * provider, whose _ibv_query_gid_table says EINVAL as the kernel does when
 * more entries are in use than asked for: with 3 slots (one ask, of all
 * three) and with 300 slots, 299 in use (a short ask refused, then one of
 * all 300).  Either way every entry in use comes back with its type, and
 * the pick is the first IPv4-mapped RoCE v2 GID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <verbshim.h>

#include "../common/vs_fake.h"
#include "../common/vs_test.h"

static void check_table(const char *slots, size_t in_use, int asks)
{
	size_t *asked = vs_t_fake_sym("vs_stub_gid_table_asks");
	int *nasks = vs_t_fake_sym("vs_stub_gid_table_nasks");
	struct vs_gid_info *t = calloc(in_use + 1, sizeof(*t));
	struct vs_gid_info g;
	struct vs_context *ctx;
	size_t count;
	char ip[32];

	VS_ASSERT(t != NULL);
	setenv("VS_FAKE_GID_SLOTS", slots, 1);
	VS_OK(vs_device_open("fake0", &ctx));
	*nasks = 0;
	VS_OK(vs_gid_table(ctx, 1, t, in_use + 1, &count));
	VS_ASSERT_EQ(count, in_use);
	VS_ASSERT_EQ(*nasks, asks);
	/* the last ask was for the whole table */
	VS_ASSERT_EQ(asked[asks - 1], (size_t)strtoul(slots, NULL, 0));
	VS_ASSERT_EQ(t[0].index, 0);
	VS_ASSERT_EQ(t[0].type, VS_GID_ROCE_V1);
	for (size_t i = 1; i < count; i++) {
		uint32_t index = i == 1 ? 1 : (uint32_t)i + 1; /* slot 2 empty */

		VS_ASSERT_EQ(t[i].index, index);
		VS_ASSERT_EQ(t[i].type, VS_GID_ROCE_V2);
		VS_ASSERT(t[i].ipv4_mapped);
		snprintf(ip, sizeof(ip), "10.0.%u.%u", index >> 8,
			 index == 1 ? 1 : index & 255);
		VS_ASSERT_STREQ(t[i].ip, ip);
	}
	VS_OK(vs_gid_pick(ctx, 1, &g));
	VS_ASSERT_EQ(g.index, 1);
	VS_ASSERT_STREQ(g.ip, "10.0.0.1");
	VS_OK(vs_device_close(ctx));
	free(t);
}

int main(void)
{
	void *fail;
	int *live;

	vs_t_use_fake(&fail, &live);
	check_table("3", 2, 1);
	check_table("300", 299, 2);
	printf("GID tables read with a short ask first, the whole table when "
	       "more are in use\n");
	return 0;
}
