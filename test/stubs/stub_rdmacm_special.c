// SPDX-License-Identifier: MIT
/* Stub librdmacm: the definitions that must behave as librdmacm does with
 * the memory they are given, overriding the weak generic ones of
 * stub_rdmacm.c (test/unit/trace_facts.c: what the trace may read). */
#include <stdlib.h>

#include "stub.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* rdma_get_devices() allocates the list and rdma_free_devices() frees it,
 * as librdmacm does; a list this stub did not make is left alone. */
static struct ibv_context stub_context;
static struct ibv_context **stub_devices;

VS_STUB_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	vs_stub_record("rdma_get_devices");
	if (!stub_devices) {
		stub_devices = calloc(2, sizeof(*stub_devices));
		if (stub_devices)
			stub_devices[0] = &stub_context;
	}
	if (num_devices)
		*num_devices = stub_devices ? 1 : 0;
	return stub_devices;
}

VS_STUB_EXPORT void rdma_free_devices(struct ibv_context **list)
{
	vs_stub_record("rdma_free_devices");
	if (list && list == stub_devices) {
		free(stub_devices);
		stub_devices = NULL;
	}
}

/* The peer of every rsocket: 10.0.0.9:7471, written as the kernel writes
 * an address: at most *addrlen bytes, *addrlen then the whole size. */
static int stub_peer(struct sockaddr *addr, socklen_t *addrlen)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_port = htons(7471),
				  .sin_addr.s_addr = htonl(0x0a000009) };

	if (!addr || !addrlen)
		return 0;
	memcpy(addr, &in, *addrlen < sizeof(in) ? *addrlen : sizeof(in));
	*addrlen = sizeof(in);
	return 0;
}

VS_STUB_EXPORT int raccept(int socket, struct sockaddr *addr,
			   socklen_t *addrlen)
{
	vs_stub_record("raccept");
	stub_peer(addr, addrlen);
	return 5;
}

VS_STUB_EXPORT int rgetpeername(int socket, struct sockaddr *addr,
				socklen_t *addrlen)
{
	vs_stub_record("rgetpeername");
	return stub_peer(addr, addrlen);
}

VS_STUB_EXPORT int rgetsockname(int socket, struct sockaddr *addr,
				socklen_t *addrlen)
{
	vs_stub_record("rgetsockname");
	return stub_peer(addr, addrlen);
}

VS_STUB_EXPORT ssize_t rrecvfrom(int socket, void *buf, size_t len,
				 int flags, struct sockaddr *src_addr,
				 socklen_t *addrlen)
{
	vs_stub_record("rrecvfrom");
	stub_peer(src_addr, addrlen);
	return 0;
}
