/* SPDX-License-Identifier: MIT */
/*
 * Handles: their memory, their kinds, and the user's close.
 *
 * Handle memory comes from an arena of heap chunks (the one piece of
 * process-wide state the typed API keeps besides the error slot;
 * docs/API.md, "Lifetimes").  A handle the user closed keeps its kind
 * with VS__CLOSED set, so a second close, a use after close or a
 * dependant created on it is refused by reading valid memory, under ASan
 * and valgrind as much as without.  What the handle owned (the ibv_*
 * object, buffers, rings) is freed when the last reference goes; the
 * handle's own slot then joins its size class's quarantine: a FIFO of
 * closed slots, untouched (their bytes stay what they were at the
 * destroy).  A create takes a slot back only from the head of the
 * FIFO, and only while more than VS__QUARANTINE slots of its class are
 * in it: a closed handle is recognised as closed for at least the next
 * VS__QUARANTINE closes of its size class (until a create reuses its
 * slot), and memory stays bounded by the peak of live handles plus
 * VS__QUARANTINE slots per class.
 *
 * The FIFO's links live in the slot's last bytes, after the handle (every
 * slot has room for one: see slot_size), never in the handle's own.
 */
#include <pthread.h>

#include "base.h"

#define ARENA_CHUNK ((size_t)64 * 1024)
#define ARENA_ALIGN ((size_t)64)
/* size classes: slots of 64, 128, ... 1024 bytes (all handles fit) */
#define NCLASS 16

/*
 * Chunks are heap blocks chained from arena_head, so leak checkers
 * (valgrind, LeakSanitizer) see every handle, and what it points to, as
 * reachable for the life of the process.
 */
struct arena_chunk {
	struct arena_chunk *prev;
	void *end; /* where its handles end */
};

/* Closed slots of one size, oldest first (links: slot_link). */
struct size_class {
	void *head, *tail;
	size_t closed;   /* slots on the FIFO */
	void *spare;     /* slots never handed out (a failed create): a stack */
};

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t arena_fork_once = PTHREAD_ONCE_INIT;
static struct arena_chunk *arena_head;
static uint8_t *arena_next, *arena_end;
static struct size_class classes[NCLASS];
static size_t arena_bytes; /* the chunks' total, for the tests */
static size_t quarantine = VS__QUARANTINE; /* the tests may shorten it */

/*
 * fork() while another thread holds the arena's lock would leave the child
 * a lock nobody will release: its first create or close would wait for
 * ever.  The lock is taken across fork(), so both sides start with the
 * arena consistent and unlocked (test/unit/fork_arena.c).
 */
static void arena_lock_fork(void)
{
	pthread_mutex_lock(&arena_lock);
}

static void arena_unlock_fork(void)
{
	pthread_mutex_unlock(&arena_lock);
}

static void arena_fork_register(void)
{
	pthread_atfork(arena_lock_fork, arena_unlock_fork, arena_unlock_fork);
}

static void arena_lock_take(void)
{
	pthread_once(&arena_fork_once, arena_fork_register);
	pthread_mutex_lock(&arena_lock);
}

/*
 * A slot: the handle, then at least 8 bytes for its link, rounded up to
 * the arena's alignment.  The link is the slot's last 8 bytes (the same
 * place for every handle size of the class).
 */
static size_t slot_size(size_t size)
{
	size = (size + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
	return (size + sizeof(void *) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
}

static void **slot_link(void *slot, size_t size)
{
	return (void **)((uint8_t *)slot + slot_size(size) - sizeof(void *));
}

/* The class of a slot size; NULL beyond the largest (never reused). */
static struct size_class *class_of(size_t slot)
{
	size_t i = slot / ARENA_ALIGN - 1;

	return i < NCLASS ? &classes[i] : NULL;
}

/* A slot from fresh arena memory, lock held; NULL when out of memory. */
static void *bump(size_t slot)
{
	uint8_t *p;

	if ((size_t)(arena_end - arena_next) < slot) {
		size_t chunk = ARENA_ALIGN + (slot > ARENA_CHUNK ? slot : ARENA_CHUNK);
		struct arena_chunk *c = malloc(chunk);

		if (!c)
			return NULL;
		if (arena_head)
			arena_head->end = arena_next;
		c->prev = arena_head;
		arena_head = c;
		arena_next = (uint8_t *)c + ARENA_ALIGN;
		arena_end = (uint8_t *)c + chunk;
		arena_bytes += chunk;
	}
	p = arena_next;
	arena_next += slot;
	return p;
}

void *vs__handle_alloc(size_t size)
{
	size_t slot = slot_size(size);
	struct size_class *k = class_of(slot);
	void *p = NULL;

	arena_lock_take();
	if (k && k->spare) {
		p = k->spare;
		k->spare = *slot_link(p, size);
	} else if (k && k->closed > quarantine) {
		/* the oldest closed slot, VS__QUARANTINE closes of its class ago */
		p = k->head;
		k->head = *slot_link(p, size);
		if (!k->head)
			k->tail = NULL;
		k->closed--;
	} else {
		p = bump(slot);
	}
	if (p)
		memset(p, 0, slot);
	pthread_mutex_unlock(&arena_lock);
	return p;
}

void vs__handle_unpublish(void *h, size_t size)
{
	struct size_class *k = class_of(slot_size(size));

	if (!k)
		return;
	/* never handed out: no stale pointer to it exists, reuse it first */
	arena_lock_take();
	*slot_link(h, size) = k->spare;
	k->spare = h;
	pthread_mutex_unlock(&arena_lock);
}

void vs__handle_free(void *handle, size_t size)
{
	struct vs_handle *h = handle;
	struct size_class *k = class_of(slot_size(size));
	uint32_t magic = __atomic_load_n(&h->magic, __ATOMIC_RELAXED);

	/* closed for good (a borrowed context was never closed by the user) */
	__atomic_store_n(&h->gate, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->magic, magic | VS__CLOSED, __ATOMIC_RELEASE);
	if (!k)
		return;
	arena_lock_take();
	*slot_link(h, size) = NULL;
	if (k->tail)
		*slot_link(k->tail, size) = h;
	else
		k->head = h;
	k->tail = h;
	k->closed++;
	pthread_mutex_unlock(&arena_lock);
}

size_t vs__handle_arena_bytes(void)
{
	size_t n;

	arena_lock_take();
	n = arena_bytes;
	pthread_mutex_unlock(&arena_lock);
	return n;
}

void vs__handle_quarantine_set(size_t closes)
{
	arena_lock_take();
	quarantine = closes;
	pthread_mutex_unlock(&arena_lock);
}

void vs__handle_arena_seal(void)
{
	arena_lock_take();
	arena_end = arena_next;
	for (int i = 0; i < NCLASS; i++)
		classes[i].spare = NULL; /* left too */
	pthread_mutex_unlock(&arena_lock);
}

bool vs__handle_in_arena(const void *p, size_t size)
{
	const uint8_t *b = p;
	bool found = false;

	arena_lock_take();
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
				     "%s is %s %s the caller already closed (a "
				     "handle is invalid after its close, even "
				     "while others keep the object alive)",
				     what, vs__article(vs_kind_name(kind)),
				     vs_kind_name(kind));
	if (magic != kind)
		return vs__set_error(verb, EINVAL,
				     "%s is a handle of another kind (%s, expected %s)",
				     what, vs_kind_name(magic), vs_kind_name(kind));
	return 0; /* opened again meanwhile (a failed destroy's reopen) */
}

static _Thread_local struct {
	const void *const *handles;
	size_t n;
	const char *why;
} guard;

void vs__close_guard(const void *const *handles, size_t n, const char *why)
{
	guard.handles = n ? handles : NULL;
	guard.n = n;
	guard.why = why;
}

int vs__user_close(void *handle, uint32_t kind, const char *verb,
		   const char *what)
{
	struct vs_handle *h = handle;
	uint32_t want = kind;
	int ret = vs__check_handle(h, kind, verb, what);

	if (ret)
		return ret;
	for (size_t i = 0; i < guard.n; i++)
		if (guard.handles[i] == handle)
			return vs__set_error(verb, EBUSY, "%s is %s", what,
					     guard.why);
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
