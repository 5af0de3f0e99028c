// SPDX-License-Identifier: MIT
/*
 * The trace's process-wide state, one per process however many copies of
 * the shim it holds (docs/trace.md, "Several copies of the shim"): every
 * plugin that links libverbshim.a statically carries its own copy of this
 * code, with its own static variables, and each must write to the same
 * file and give the same object the same id.
 *
 * The copies meet through a named mapping: the first copy maps a memfd
 * called VS_THUB_NAME (the descriptor is closed at once, so a program that
 * closes every descriptor loses nothing) and the others find it by that
 * name in /proc/self/maps.  The find-or-create runs inside a
 * dl_iterate_phdr() callback, which glibc runs under the loader's lock:
 * two copies starting at the same moment in two threads cannot both
 * create one.  The mapping is private: a forked child gets its own copy,
 * and an exec'ed image none.  Without /proc or memfd_create the copy keeps
 * a hub of its own (and its own file: shim/trace/trace_file.c).
 *
 * The hub is plain data that each copy reads with its own code: a copy
 * unloaded with dlclose() leaves nothing behind that another copy calls.
 * Its layout is fixed by VS_THUB_MAGIC and its size: a copy of another
 * layout keeps its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vs_trace.h"

#define VS_THUB_NAME "verbshim-trace-hub"
/* the name as /proc/self/maps shows a mapping of the closed memfd */
#define VS_THUB_MAPS_NAME "/memfd:" VS_THUB_NAME " (deleted)"

static struct vs_thub *vs_hub;
static unsigned int vs_hub_copy;	/* this copy's number in the hub */
static struct vs_thub vs_hub_own;	/* when none can be shared */
static pthread_once_t vs_hub_once = PTHREAD_ONCE_INIT;

static void vs_hub_init(struct vs_thub *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	h->fd = -1;
	h->layout_size = sizeof(*h);
	__atomic_store_n(&h->magic, VS_THUB_MAGIC, __ATOMIC_RELEASE);
}

/* A hub another copy made: the start of the mapping named VS_THUB_NAME
 * in /proc/self/maps, or NULL. */
static struct vs_thub *vs_hub_scan(void)
{
	char buf[8192];
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t got = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (got <= 0)
			break;
		have += (size_t)got;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (nl - line > (ptrdiff_t)sizeof(VS_THUB_MAPS_NAME) &&
			    !strcmp(nl - (sizeof(VS_THUB_MAPS_NAME) - 1),
				    VS_THUB_MAPS_NAME)) {
				struct vs_thub *h = (struct vs_thub *)(uintptr_t)
					strtoull(line, NULL, 16);

				if (h && h->magic == VS_THUB_MAGIC &&
				    h->layout_size == sizeof(*h)) {
					close(fd);
					return h;
				}
			}
			line = nl + 1;
		}
		/* keep the unfinished line; a line longer than buf is
		 * a path, not ours */
		have = (size_t)(buf + have - line);
		if (have == sizeof(buf) - 1)
			have = 0;
		memmove(buf, line, have);
	}
	close(fd);
	return NULL;
}

static struct vs_thub *vs_hub_create(void)
{
#ifdef SYS_memfd_create
	size_t len = (sizeof(struct vs_thub) + 4095) & ~(size_t)4095;
	int fd = (int)syscall(SYS_memfd_create, VS_THUB_NAME, 1 /* CLOEXEC */);
	void *p;

	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)len)) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	vs_hub_init(p);
	return p;
#else
	return NULL;
#endif
}

/* Under the loader's lock (the comment on top): find, else create. */
static int vs_hub_meet(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct vs_thub **out = arg;

	(void)info;
	(void)size;
	*out = vs_hub_scan();
	if (!*out)
		*out = vs_hub_create();
	return 1;
}

/*
 * fork(): the hub's lock is held across it by the forking thread, so a
 * child never starts with it held by a thread it does not have.  Every
 * copy registers these; the first prepare to run takes the lock and the
 * others see that their own thread holds it (fork_owner).
 */
static void vs_hub_prepare(void)
{
	uintptr_t self = (uintptr_t)pthread_self();

	if (__atomic_load_n(&vs_hub->fork_owner, __ATOMIC_RELAXED) == self)
		return;
	pthread_mutex_lock(&vs_hub->lock);
	__atomic_store_n(&vs_hub->fork_owner, self, __ATOMIC_RELAXED);
}

/* In the parent and in the child (whose thread is the same pthread_t). */
static void vs_hub_after_fork(void)
{
	uintptr_t self = (uintptr_t)pthread_self();

	if (__atomic_load_n(&vs_hub->fork_owner, __ATOMIC_RELAXED) != self)
		return;
	__atomic_store_n(&vs_hub->fork_owner, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&vs_hub->lock);
}

static void vs_hub_join(void)
{
	struct vs_thub *h = NULL;
	int saved = errno;

	dl_iterate_phdr(vs_hub_meet, &h);
	if (!h) {
		vs_hub_init(&vs_hub_own);
		h = &vs_hub_own;
	}
	vs_hub = h;
	vs_hub_copy = __atomic_add_fetch(&h->copies, 1, __ATOMIC_RELAXED);
	pthread_atfork(vs_hub_prepare, vs_hub_after_fork, vs_hub_after_fork);
	errno = saved;
}

struct vs_thub *vs__thub(void)
{
	pthread_once(&vs_hub_once, vs_hub_join);
	return vs_hub;
}

void vs__thub_copies(unsigned int *mine, unsigned int *all)
{
	struct vs_thub *h = vs__thub();

	*mine = vs_hub_copy;
	*all = __atomic_load_n(&h->copies, __ATOMIC_RELAXED);
}

/* The hub's lock, but not when this thread holds it across fork() already
 * (another fork handler, run after ours, calling a traced function):
 * whether it was taken, for vs__thub_unlock(). */
int vs__thub_lock(struct vs_thub *h)
{
	if (__atomic_load_n(&h->fork_owner, __ATOMIC_RELAXED) ==
	    (uintptr_t)pthread_self())
		return 0;
	pthread_mutex_lock(&h->lock);
	return 1;
}

void vs__thub_unlock(struct vs_thub *h, int taken)
{
	if (taken)
		pthread_mutex_unlock(&h->lock);
}
