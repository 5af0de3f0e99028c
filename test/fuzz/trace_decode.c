/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the trace's decoders (shim/trace/trace_decode.c) fed hostile
 * argument structs, the way a traced call feeds them.  The stub libraries
 * of this build (build/fuzz/stubs/v65: the one release that has every
 * library) are loaded with VERBSHIM_TRACE=all, so every row has its
 * wrapper and is traced; each input then picks a row and makes its
 * arguments from the bytes: garbage masks, counts and
 * enums, NULLs, buffers exactly as long as the caller's bound says
 * (short ones included: an addrlen of 1), socket addresses of any family,
 * rdma_addrinfo lists that loop, handles whose fields hold garbage.  The
 * call goes through the wrapper's own begin and end (vs__tcall_begin,
 * vs__tcall_end: facts read before, outputs after a success, ended
 * handles forgotten) without reaching the stub, whose generic body would
 * not look at them.  Every buffer is its own heap block: ASan reports a
 * decoder that reads past what the facts allow.
 */
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/vs_trace.h"
#include "verbshim/loader.h"
#include "../common/vs_rows.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *d;
	size_t n;
};

static uint64_t take(struct input *in, size_t bytes)
{
	uint64_t v = 0;

	if (bytes > in->n)
		bytes = in->n;
	memcpy(&v, in->d, bytes);
	in->d += bytes;
	in->n -= bytes;
	return v;
}

#define MAX_BLOCKS 64
static void *blocks[MAX_BLOCKS];
static unsigned int nblocks;

/* A heap block of exactly size bytes (at least one, so it has an
 * address), filled from the input. */
static void *block(struct input *in, size_t size)
{
	uint8_t *b;
	size_t i;

	if (nblocks == MAX_BLOCKS)
		return NULL;
	b = malloc(size ? size : 1);
	if (!b)
		abort();
	for (i = 0; i < size; i++)
		b[i] = (uint8_t)take(in, 1);
	blocks[nblocks++] = b;
	return b;
}

/* Handles: the library's objects, never read but for the fields an
 * ends= fact names; one block of garbage serves for all. */
static uint8_t handle_block[4096];

static const sa_family_t families[] = { AF_INET6, AF_INET, AF_IB, 0 };

/* A socket address of bytes (any: short ones too) whose family the input
 * picks. */
static void *sockaddr_of(struct input *in, size_t bytes)
{
	sa_family_t family = families[take(in, 1) % 4];
	uint8_t *b = block(in, bytes);

	if (b && bytes >= sizeof(family))
		memcpy(b, &family, sizeof(family));
	return b;
}

/* One as long as its family says (the contract of a length-less rdma_*
 * address). */
static void *sockaddr_block(struct input *in)
{
	sa_family_t family = families[take(in, 1) % 4];
	size_t size = family == AF_INET6 ? sizeof(struct sockaddr_in6) :
		      family == AF_IB ? 48 : sizeof(struct sockaddr_in);
	uint8_t *b = block(in, size);

	if (b)
		memcpy(b, &family, sizeof(family));
	return b;
}

/* An rdma_addrinfo list of 1 to 3 entries, whose last entry may point
 * back to the first: a decoder must stop on its own. */
static void *addrinfo_list(struct input *in)
{
	struct rdma_addrinfo *ai[3];
	unsigned int k, n = 3 - take(in, 1) % 3;	/* dry input: 3, a loop */

	for (k = 0; k < n; k++) {
		ai[k] = block(in, sizeof(*ai[k]));
		if (!ai[k])
			return NULL;
		ai[k]->ai_next = NULL;
		ai[k]->ai_src_len = (socklen_t)(take(in, 1) % 40);
		ai[k]->ai_src_addr = take(in, 1) & 1 ?
			sockaddr_of(in, ai[k]->ai_src_len) : NULL;
		ai[k]->ai_dst_len = (socklen_t)(take(in, 1) % 40);
		ai[k]->ai_dst_addr = take(in, 1) & 1 ?
			sockaddr_of(in, ai[k]->ai_dst_len) : NULL;
		ai[k]->ai_route = NULL;
		ai[k]->ai_connect = NULL;
		if (k)
			ai[k - 1]->ai_next = ai[k];
	}
	if (!(take(in, 1) & 1))
		ai[n - 1]->ai_next = ai[0];	/* a loop */
	return ai[0];
}

/* What a caller gives for an unbounded input or output struct: the
 * struct (sizes from the rdma-core headers, the API's contract). */
static size_t contract_size_of(const char *tag)
{
	static const struct {
		const char *tag;
		size_t size;
	} sizes[] = {
		{ "ibv_qp_init_attr", sizeof(struct ibv_qp_init_attr) },
		{ "ibv_qp_attr", sizeof(struct ibv_qp_attr) },
		{ "rdma_cm_event", sizeof(struct rdma_cm_event) },
		{ "ibv_srq_init_attr", sizeof(struct ibv_srq_init_attr) },
		{ "rdma_conn_param", sizeof(struct rdma_conn_param) },
		/* the exported symbol's struct: ibv_port_attr up to flags */
		{ "_compat_ibv_port_attr",
		  offsetof(struct ibv_port_attr, port_cap_flags2) },
		{ "ibv_async_event", sizeof(struct ibv_async_event) },
		{ "int", sizeof(int) },		{ "unsigned int", sizeof(int) },
		{ "socklen_t", sizeof(socklen_t) }, { "size_t", sizeof(size_t) },
		{ "long", sizeof(long) },	{ "uint8_t", 1 },
		{ "uint16_t", 2 },		{ "uint32_t", 4 },
		{ "uint64_t", 8 },		{ "__be16", 2 },
		{ "__be32", 4 },		{ "__be64", 8 },
	};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(sizes[i].tag, tag))
			return sizes[i].size;
	return 0;	/* nothing of it may be read */
}

static size_t contract_size(const struct vs_tparam *p)
{
	if (p->ptr != 1)
		return sizeof(void *);
	return p->is_enum ? sizeof(int) : contract_size_of(p->tag);
}

/* Argument i of the row: its bound (set in its length parameter) first. */
static uint64_t argument(struct input *in, const struct vs_tsig *s,
			 uint64_t *a, int i, const size_t *bound)
{
	const struct vs_tparam *p = &s->p[i];
	const struct vs_tfact *f = &p->fact;
	size_t n;
	void *b;

	if (!p->ptr)
		return a[i];	/* chosen already: garbage or a bound */
	if (take(in, 1) % 8 == 7)
		return 0;	/* NULL (an input run dry gives none) */
	switch (f->role) {
	case VS_TR_H:
	case VS_TR_END:
		if (p->ptr == 2) {
			n = f->len == VS_TL_COUNT ? bound[i] : 1;
			b = block(in, n * sizeof(void *));
			return (uintptr_t)b;
		}
		return (uintptr_t)handle_block;
	case VS_TR_STR:
		n = take(in, 1) % 80;
		b = block(in, n + 1);
		if (b)
			((char *)b)[n] = '\0';
		return (uintptr_t)b;
	case VS_TR_IN:
	case VS_TR_OUT:
	case VS_TR_INOUT:
	case VS_TR_HOUT:
		if (f->len == VS_TL_BYTES)
			return (uintptr_t)(!strcmp(p->tag, "sockaddr") ?
				sockaddr_of(in, bound[i]) : block(in, bound[i]));
		if (f->len == VS_TL_COUNT)
			return (uintptr_t)block(in, bound[i] * (contract_size(p) ?
								contract_size(p) : 1));
		if (p->ptr == 1 && !strcmp(p->tag, "sockaddr"))
			return (uintptr_t)sockaddr_block(in);
		if (f->role == VS_TR_HOUT) {
			/* what the call wrote: a handle, or an object (an
			 * event) as long as its type */
			void *obj = block(in, contract_size_of(p->tag));

			b = block(in, sizeof(void *));
			if (b)
				memcpy(b, &obj, sizeof(obj));
			return (uintptr_t)b;
		}
		if (!strcmp(p->tag, "rdma_addrinfo")) {
			void *list = addrinfo_list(in);

			if (p->ptr == 1)
				return (uintptr_t)list;
			b = block(in, sizeof(void *));
			if (b)
				memcpy(b, &list, sizeof(list));
			return (uintptr_t)b;
		}
		return (uintptr_t)block(in, contract_size(p));
	default:	/* buf, free: never read */
		return (uintptr_t)block(in, 1);
	}
}

static char trace_file[64];
static const char *trace_dir;

static void trace_file_remove(void)
{
	unlink(trace_file);
	rmdir(trace_dir);
}

static void load_stubs(void)
{
#define LIB_ROW(lib, LIB, soname, ...) { "VERBSHIM_LIB" #LIB, soname },
	static const char *const libs[][2] = { VS_LIBRARIES(LIB_ROW) };
	static char dir[] = "/tmp/vs_fuzz_trace_decode.XXXXXX";
	char exe[PATH_MAX], path[PATH_MAX + 64], file[sizeof(dir) + 8];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	unsigned int k;

	if (n <= 0)
		abort();
	exe[n] = '\0';
	dirname(exe);
	for (k = 0; k < VS_LIB_COUNT; k++) {
		snprintf(path, sizeof(path), "%s/../stubs/v65/%s", exe,
			 libs[k][1]);
		setenv(libs[k][0], path, 1);
	}
	/* the lines go to a file emptied now and then (trace_file_trim) */
	if (!mkdtemp(dir))
		abort();
	snprintf(file, sizeof(file), "%s/t", dir);
	snprintf(trace_file, sizeof(trace_file), "%s.%ld", file,
		 (long)getpid());
	trace_dir = dir;
	atexit(trace_file_remove);
	setenv("VERBSHIM_TRACE", "all", 1);
	setenv("VERBSHIM_TRACE_FILE", file, 1);
	for (k = 0; k < VS_LIB_COUNT; k++)
		if (vs_library_load((enum vs_library)k)) {
			fprintf(stderr, "cannot load the stub %s (%s)\n",
				libs[k][1], getenv(libs[k][0]));
			abort();
		}
}

static void trace_file_trim(void)
{
	static unsigned int runs;

	if (!(++runs % 1024) && truncate(trace_file, 0)) {
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int loaded;
	struct input in = { data, size };
	const struct vs_tsym_info *info;
	struct vs_tsig s;
	struct vs_tcall c;
	uint64_t a[VS_TARGS_MAX] = { 0 }, ret;
	size_t bound[VS_TARGS_MAX] = { 0 };
	enum vs_tsym sym;
	unsigned int fixed = 0;
	int i, fail;

	if (!loaded) {
		load_stubs();
		loaded = 1;
	}
	sym = (enum vs_tsym)(take(&in, 2) % VS_TSYM_COUNT);
	info = vs__tsym_info(sym);
	if (!vs_rows_wrapper(sym) ||
	    vs__tsig_parse(vs__tsym_params(info), vs__tsym_ret(info),
			   vs__tsym_facts(info), &s, NULL, 0))
		return 0;
	memcpy(handle_block, in.d, in.n < sizeof(handle_block) ?
					   in.n : sizeof(handle_block));
	/* the bounds first (the input's first bytes are the ones libFuzzer
	 * varies most): small, and written where the row keeps them */
	for (i = 0; i < s.n; i++) {
		const struct vs_tfact *f = &s.p[i].fact;

		if (!f->len)
			continue;
		bound[i] = take(&in, 1) % 40;
		if (!f->len_deref) {
			a[f->len_arg] = bound[i];
			fixed |= 1u << f->len_arg;
		}
	}
	nblocks = 0;
	for (i = 0; i < s.n; i++)
		if (!s.p[i].fact.len || !s.p[i].fact.len_deref)
			a[i] = argument(&in, &s, a, i, bound);
	/* a *PARAM bound: its integer holds the bound */
	for (i = 0; i < s.n; i++) {
		const struct vs_tfact *f = &s.p[i].fact;

		if (f->len && f->len_deref) {
			const struct vs_tparam *lp = &s.p[f->len_arg];
			size_t w = contract_size(lp);
			uint64_t v = bound[i];
			void *b = block(&in, w);

			if (b && w <= sizeof(v))
				memcpy(b, &v, w);	/* little-endian */
			a[f->len_arg] = take(&in, 1) % 8 ? (uintptr_t)b : 0;
			a[i] = argument(&in, &s, a, i, bound);
		}
	}
	/* the plain values, last: garbage masks, enums, numbers */
	for (i = 0; i < s.n; i++)
		if (!s.p[i].ptr && !(fixed & 1u << i))
			a[i] = take(&in, 8);
	fail = (int)(take(&in, 1) & 1);
	ret = fail ? (info->conv == VS_TC_ERRNO ? EINVAL :
		      info->conv == VS_TC_NEGERR ? (uint64_t)-EINVAL :
		      info->conv == VS_TC_NEG1 ? (uint64_t)-1 : 0)
		   : (info->conv == VS_TC_STR || info->conv == VS_TC_PTR ?
			      (uintptr_t) "result" : 0);
	vs__tcall_begin(&c, sym, a);
	vs__tcall_end(&c, ret, fail ? EINVAL : 0);
	while (nblocks)
		free(blocks[--nblocks]);
	trace_file_trim();
	return 0;
}
