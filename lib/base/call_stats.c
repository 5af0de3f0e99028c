// SPDX-License-Identifier: MIT
/*
 * The typed calls over the shim's VERBSHIM_STATS counters
 * (include/verbshim/trace.h): the counting itself is shim/trace/trace.c's.
 */
#include <errno.h>
#include <string.h>

#include "base.h"

int vs_call_stats(struct vs_call_stat *out, size_t max, size_t *count)
{
	int ret;

	if (!count || (max && !out))
		return vs__set_error("vs_call_stats", EINVAL,
				     "count is NULL, or out is NULL with max "
				     "%zu", max);
	ret = vs__tstats_get(out, max, count);
	if (ret == -ENODATA)
		return vs__set_error("vs_call_stats", ENODATA,
				     "VERBSHIM_STATS=1 was not set when the "
				     "first rdma-core library loaded: no call "
				     "is counted");
	return ret;
}

int vs_call_stats_print(int fd)
{
	int ret = vs__tstats_print(fd);

	if (ret == -ENODATA)
		return vs__set_error("vs_call_stats_print", ENODATA,
				     "VERBSHIM_STATS=1 was not set when the "
				     "first rdma-core library loaded: no call "
				     "is counted");
	if (ret)
		return vs__set_error("vs_call_stats_print", -ret,
				     "writing the counters to fd %d: %s", fd,
				     strerror(-ret));
	return 0;
}
