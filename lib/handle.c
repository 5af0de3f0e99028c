/* SPDX-License-Identifier: MIT */
/*
 * Handles: their memory, their kinds, and the user's close.
 *
 * Handle memory comes from an arena that is never freed and never reused
 * (the one piece of process-wide state the typed API keeps besides the
 * error slot; docs/API.md, "Lifetimes").  A handle the user closed keeps
 * its kind with VS__CLOSED set for the life of the process, so a second
 * close, a use after close or a dependant created on it is refused by
 * reading valid memory, under ASan and valgrind as much as without.  What
 * the handle owned (the ibv_* object, buffers, rings) is freed when the
 * last reference goes; only the handle's own bytes stay.
 */
#include <pthread.h>

#include "vs_internal.h"

#define ARENA_CHUNK ((size_t)64 * 1024)
#define ARENA_ALIGN ((size_t)64)

/*
 * Chunks are heap blocks chained from arena_head, so leak checkers
 * (valgrind, LeakSanitizer) see every handle, and what it points to, as
 * reachable for the life of the process.
 */
struct arena_chunk {
	struct arena_chunk *prev;
	void *end; /* where its handles end */
};

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static struct arena_chunk *arena_head;
static uint8_t *arena_next, *arena_end;

void *vs__handle_alloc(size_t size)
{
	uint8_t *p = NULL;

	size = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	pthread_mutex_lock(&arena_lock);
	if ((size_t)(arena_end - arena_next) < size) {
		size_t chunk = ARENA_ALIGN + (size > ARENA_CHUNK ? size : ARENA_CHUNK);
		struct arena_chunk *c = malloc(chunk);

		if (!c)
			goto out;
		if (arena_head)
			arena_head->end = arena_next;
		c->prev = arena_head;
		arena_head = c;
		arena_next = (uint8_t *)c + ARENA_ALIGN;
		arena_end = (uint8_t *)c + chunk;
	}
	p = arena_next;
	arena_next += size;
	memset(p, 0, size);
out:
	pthread_mutex_unlock(&arena_lock);
	return p;
}

void vs__handle_unpublish(void *h, size_t size)
{
	size = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	pthread_mutex_lock(&arena_lock);
	/* never handed out: the last allocation may be taken back */
	if ((uint8_t *)h + size == arena_next)
		arena_next = h;
	pthread_mutex_unlock(&arena_lock);
}

bool vs__handle_in_arena(const void *p, size_t size)
{
	const uint8_t *b = p;
	bool found = false;

	pthread_mutex_lock(&arena_lock);
	for (struct arena_chunk *c = arena_head; c && !found; c = c->prev) {
		const uint8_t *lo = (const uint8_t *)c + ARENA_ALIGN;
		/* the current chunk's handles end at arena_next */
		const uint8_t *hi = c == arena_head ? arena_next : c->end;

		found = b >= lo && b + size <= hi &&
			(size_t)(b - lo) % ARENA_ALIGN == 0;
	}
	pthread_mutex_unlock(&arena_lock);
	return found;
}

/* the out-of-line half of vs__check_handle: says what is wrong */
int vs__check_handle_failed(const void *h, uint32_t kind, const char *verb,
			    const char *what)
{
	const struct vs_handle *hd = (const struct vs_handle *)h;
	uint32_t magic;

	if (!h)
		return vs__set_error(verb, EINVAL, "%s is NULL", what);
	magic = __atomic_load_n(&hd->magic, __ATOMIC_ACQUIRE);
	if (magic == (kind | VS__CLOSED))
		return vs__set_error(verb, EINVAL,
				     "%s is a %s the caller already closed (a "
				     "handle is invalid after its close, even "
				     "while others keep the object alive)",
				     what, vs_kind_name(kind));
	if (magic != kind)
		return vs__set_error(verb, EINVAL,
				     "%s is a handle of another kind (%s, expected %s)",
				     what, vs_kind_name(magic), vs_kind_name(kind));
	return 0; /* opened again meanwhile (a failed destroy's reopen) */
}

int vs__user_close(void *handle, uint32_t kind, const char *verb,
		   const char *what)
{
	struct vs_handle *h = handle;
	uint32_t want = kind;
	int ret = vs__check_handle(h, kind, verb, what);

	if (ret)
		return ret;
	/* once: of two racing closes one wins, the other sees "closed" */
	if (!__atomic_compare_exchange_n(&h->magic, &want, kind | VS__CLOSED,
					 false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return vs__check_handle(h, kind, verb, what);
	__atomic_store_n(&h->gate, 0, __ATOMIC_RELEASE);
	return 0;
}

void vs__handle_reopen(struct vs_handle *h, uint32_t kind)
{
	__atomic_store_n(&h->refs, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->magic, kind, __ATOMIC_RELEASE);
}

int vs__not_started(const char *verb)
{
	return vs__set_error(verb, EINVAL,
			     "the batch is NULL or not started (call the "
			     "*_start function first; a submitted or aborted "
			     "batch must be started again)");
}
