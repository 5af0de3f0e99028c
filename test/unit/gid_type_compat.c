// SPDX-License-Identifier: MIT
/*
 * ibv_query_gid_type, the compatibility entry that rdma-core's own pyverbs
 * (Context.query_gid_type) and ibv_devinfo call: libibverbs exports it
 * only in IBVERBS_PRIVATE_*, verbshim builds it on ibv_query_gid_ex().
 * Against the fake provider (GID 0 RoCE v1, 1 RoCE v2, 2 empty; with
 * VS_FAKE_LINK=ib, IB GIDs): each type as upstream maps it (IB and RoCE
 * v1 are one sysfs type), an empty GID is success and v1 as upstream
 * says, and a failure of the query is -1 with its errno.
 */
#include "../common/vs_fake.h"
#include "loader/vs_shim.h"

static enum vs_gid_type_sysfs type_of(struct ibv_context *ctx, unsigned int i)
{
	enum vs_gid_type_sysfs type = -1;

	VS_ASSERT_EQ(ibv_query_gid_type(ctx, 1, i, &type), 0);
	return type;
}

static void check(const char *link)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n = 0;

	if (link)
		setenv("VS_FAKE_LINK", link, 1);
	else
		unsetenv("VS_FAKE_LINK");
	list = ibv_get_device_list(&n);
	VS_ASSERT(list != NULL && n == 1);
	ctx = ibv_open_device(list[0]);
	VS_ASSERT(ctx != NULL);

	VS_ASSERT_EQ(type_of(ctx, 0), VS_GID_TYPE_SYSFS_IB_ROCE_V1);
	VS_ASSERT_EQ(type_of(ctx, 1), link ? VS_GID_TYPE_SYSFS_IB_ROCE_V1
					   : VS_GID_TYPE_SYSFS_ROCE_V2);
	VS_ASSERT_EQ(type_of(ctx, 2), VS_GID_TYPE_SYSFS_IB_ROCE_V1); /* empty */

	VS_ASSERT_EQ(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
}

int main(void)
{
	enum vs_gid_type_sysfs type = -1;
	struct ibv_device **list;
	struct ibv_context *ctx;
	void *fail;
	int *live;
	int n = 0;

	/* the first query fails as the kernel would: -1, its errno, and
	 * the type untouched (the knob is read at the first load) */
	setenv("VERBSHIM_FAULT", "_ibv_query_gid_ex:EIO:1", 1);
	vs_t_use_fake(&fail, &live);
	list = ibv_get_device_list(&n);
	VS_ASSERT(list != NULL && n == 1);
	ctx = ibv_open_device(list[0]);
	VS_ASSERT(ctx != NULL);
	errno = 0;
	VS_ASSERT_EQ(ibv_query_gid_type(ctx, 1, 1, &type), -1);
	VS_ASSERT_EQ(errno, EIO);
	VS_ASSERT_EQ(type, (enum vs_gid_type_sysfs)-1);
	VS_ASSERT_EQ(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);

	check(NULL);
	check("ib");
	vs_t_fake_all_gone(live);
	puts("ibv_query_gid_type: IB/RoCE v1, RoCE v2, empty and failing GIDs as upstream");
	return 0;
}
