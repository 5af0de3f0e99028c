// SPDX-License-Identifier: MIT
/*
 * Handles' short ids in the trace ("pd#3"): numbered per kind in order of
 * first sight, kept in the process's hub (shim/trace/trace_hub.c), so that every
 * copy of the shim in the process gives the same object the same id and
 * two objects never the same one.  The table is an open-addressing hash
 * under the hub's lock, which fork() never copies held.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "vs_trace.h"

/* A deleted slot (a probe goes on past it): an address no handle has,
 * the same in every copy of the shim. */
#define vs_gone ((const void *)(uintptr_t)1)

static int vs_slot_free(const void *key)
{
	return !key || key == vs_gone;
}

static size_t vs_hash(const void *p, size_t size)
{
	uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(x >> 17) & (size - 1);
}

static struct vs_thandle *vs_handle_find(struct vs_thub *h, const void *p)
{
	size_t i, n;

	if (!h->size)
		return NULL;
	for (i = vs_hash(p, h->size), n = 0; n < h->size;
	     i = (i + 1) & (h->size - 1), n++) {
		if (h->slot[i].key == p)
			return &h->slot[i];
		if (!h->slot[i].key)
			return NULL;
	}
	return NULL;
}

/* The table is mapped, not allocated: like the hub it belongs to no copy
 * of the shim (and no heap checker sees it as anyone's leak). */
static int vs_handle_grow(struct vs_thub *h)
{
	struct vs_thandle *old = h->slot;
	size_t osize = h->size, i, size = osize ? osize * 2 : 256;
	int saved = errno;
	void *p = mmap(NULL, size * sizeof(*h->slot), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		errno = saved;	/* the id is shown as an address instead */
		return -1;
	}
	h->slot = p;
	h->size = size;
	h->used = 0;
	for (i = 0; i < osize; i++) {
		size_t j;

		if (vs_slot_free(old[i].key))
			continue;
		for (j = vs_hash(old[i].key, size); h->slot[j].key;
		     j = (j + 1) & (size - 1))
			;
		h->slot[j] = old[i];
		h->used++;
	}
	if (old)
		munmap(old, osize * sizeof(*old));
	return 0;
}

static unsigned int vs_kind(struct vs_thub *h, const char *tag)
{
	unsigned int i;

	for (i = 0; i < h->nkinds; i++)
		if (!strcmp(h->kind[i].name, tag))
			return i;
	if (h->nkinds == VS_TKINDS)
		return VS_TKINDS - 1;	/* shares the last kind's numbers */
	snprintf(h->kind[i].name, sizeof(h->kind[i].name), "%s", tag);
	return h->nkinds++;
}

void vs__thandle(char *buf, size_t size, size_t *len, const char *tag,
		 const void *p)
{
	static const char *const prefixes[] = {
		"ibv_", "rdma_", "mlx5dv_", "mlx4dv_", "efadv_", "umad_"
	};
	struct vs_thub *h = vs__thub();
	struct vs_thandle *e;
	char name[sizeof(h->kind[0].name)];
	const char *shown = name;
	unsigned int id;
	size_t i, l;
	int taken;

	if (!p) {
		vs__tputs(buf, size, len, "NULL");
		return;
	}
	taken = vs__thub_lock(h);
	e = vs_handle_find(h, p);
	if (!e && (h->used + 1) * 2 > h->size && vs_handle_grow(h)) {
		vs__thub_unlock(h, taken);
		vs__tprintf(buf, size, len, "%p", p);
		return;
	}
	if (!e) {
		unsigned int k = vs_kind(h, tag);

		for (i = vs_hash(p, h->size); !vs_slot_free(h->slot[i].key);
		     i = (i + 1) & (h->size - 1))
			;
		e = &h->slot[i];
		if (!e->key)
			h->used++;
		e->key = p;
		e->kind = (unsigned short)k;
		e->id = ++h->kind[k].next;
	}
	memcpy(name, h->kind[e->kind].name, sizeof(name));
	id = e->id;
	vs__thub_unlock(h, taken);
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		l = strlen(prefixes[i]);
		if (!strncmp(name, prefixes[i], l) && name[l]) {
			shown = name + l;
			break;
		}
	}
	vs__tprintf(buf, size, len, "%s#%u", shown, id);
}

void vs__thandle_forget(const void *p)
{
	struct vs_thub *h = vs__thub();
	int taken = vs__thub_lock(h);
	struct vs_thandle *e;

	e = vs_handle_find(h, p);
	if (e)
		e->key = vs_gone;
	vs__thub_unlock(h, taken);
}
