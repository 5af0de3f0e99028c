// SPDX-License-Identifier: MIT
/*
 * The loader: find a library, join or dlopen it, read which version nodes
 * it defines, and fill its function table through dlvsym() pinned to each
 * symbol's node.  Runs once per library, under that library's once-flag.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vs_shim.h"

#define VS_NODE_ROW(id, str, release) [VS_NODE_##id] = { str, release },
#define VS_LIB_NODE_ROWS(lib, LIB, ...) VS_##LIB##_NODES(VS_NODE_ROW)
const struct vs_node vs__nodes[VS_NODE_COUNT] = {
	VS_LIBRARIES(VS_LIB_NODE_ROWS)
};

void *vs__lookup(void *handle, const struct vs_elf *elf,
		 const struct vs_lib_desc *desc, const char *name,
		 enum vs_node_id node)
{
	unsigned int n = (unsigned int)node - desc->first_node;
	void *p;

	if (!elf)
		return dlsym(handle, name);
	p = n < VS_ELF_MAX_NODES ? vs__elf_symbol(elf, name, elf->node_ndx[n]) :
				   VS_ELF_ASK;
	return p != VS_ELF_ASK ? p : dlvsym(handle, name, vs__nodes[node].name);
}

/* Whether the calling thread is inside this library's once routine. */
static int vs_loading_here(const struct vs_lib_state *st)
{
	return __atomic_load_n(&st->loading, __ATOMIC_ACQUIRE) &&
	       pthread_equal(st->loader, pthread_self());
}

/*
 * A call into the shim from the thread that is loading the library it
 * needs: a constructor of that library (or of a dependency) called back
 * into the drop-ins, directly or through a program built with
 * VISIBILITY=default -rdynamic, whose exported ibv_* capture the library's
 * own calls.  pthread_once() would wait for itself forever.  The call is
 * refused; the load goes on, and vs_library_query() says what happened.
 * Only the loading thread writes here, inside its own once routine.
 */
static int vs_refuse_reentry(struct vs_lib_state *loading, const char *why)
{
	if (!loading->reentries++)
		loading->reentry = why;
	return EDEADLK;
}

int vs__ensure(const struct vs_lib_desc *desc)
{
	if (desc->depends && vs_loading_here(desc->depends->state))
		return vs_refuse_reentry(desc->depends->state,
					 desc->reentry_dep);
	if (vs_loading_here(desc->state))
		return vs_refuse_reentry(desc->state, desc->reentry_self);
	pthread_once(desc->once, desc->load);
	return 0;
}

static void vs_append(char *buf, size_t size, const char *fmt, const char *a,
		      const char *b)
{
	size_t used = strlen(buf);

	if (used < size)
		snprintf(buf + used, size - used, fmt, a, b);
}

struct vs_loaded_match {
	const char *soname;
	const char *path;
};

static int vs_match_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct vs_loaded_match *m = arg;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (!strcmp(base, m->soname)) {
		m->path = info->dlpi_name;
		return 1;
	}
	return 0;
}

/*
 * A copy this process already has.  A bare name is looked up among the
 * loaded objects first: a failing RTLD_NOLOAD dlopen() of a bare name
 * walks the whole library search path (~35 us) to say "not loaded".
 */
static void *vs_join_loaded(const char *name)
{
	struct vs_loaded_match m = { .soname = name };

	if (!strchr(name, '/')) {
		if (!dl_iterate_phdr(vs_match_loaded, &m))
			return NULL;
		name = m.path;
	}
	return dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
}

/* Whether dlopen()'s error says that name itself is nowhere to be found
 * ("NAME: cannot open shared object file: No such file ..."), rather than
 * that it was found and failed: a bad ELF, a missing dependency (whose
 * "No such file" names the dependency, not name), a missing symbol. */
static int vs_dlerror_not_found(const char *err, const char *name)
{
	static const char tail[] = ": cannot open shared object file: No such file";
	size_t n = strlen(name);

	return !strncmp(err, name, n) && !strncmp(err + n, tail, sizeof(tail) - 1);
}

/*
 * Join a copy the process already has (RTLD_NOLOAD), else load one.  An
 * environment override is the only candidate when set: silently falling
 * back to the system's copy would hide a typo.  Read by vs__knob()
 * (secure_getenv), so that setuid programs ignore it.  What failed says
 * whether a candidate was found at all.
 */
static void *vs_open(const struct vs_lib_desc *desc, struct vs_lib_state *st)
{
	const char *override = vs__knob(desc->knob);
	const char *names[2] = { desc->soname, desc->devname };
	unsigned int i, count = 2;
	/* room left in st->error for the sentence around it */
	char why[sizeof(st->error) - 256] = "";
	int found = 0;	/* a candidate is there but did not load */
	void *h;

	if (override && *override) {
		names[0] = override;
		count = 1;
	}
	for (i = 0; i < count; i++) {
		h = vs_join_loaded(names[i]);
		if (h)
			return h;
	}
	for (i = 0; i < count; i++) {
		const char *err;

		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h) {
			st->error[0] = '\0';
			return h;
		}
		err = dlerror();
		if (!err)
			err = "dlopen failed";
		if (!vs_dlerror_not_found(err, names[i]))
			found = 1;
		vs_append(why, sizeof(why), "%s%s", i ? "; " : "", err);
	}
	if (count == 1)
		snprintf(st->error, sizeof(st->error), "%s=%s: %s: %s",
			 vs__knob_name(desc->knob), override,
			 found ? "found but failed to load" : "not found", why);
	else if (found)
		snprintf(st->error, sizeof(st->error),
			 "%s found but failed to load: %s", desc->name, why);
	else
		snprintf(st->error, sizeof(st->error),
			 "%s not found (Debian package %s): %s", desc->name,
			 desc->package, why);
	st->load_errno = found ? ELIBBAD : ENOENT;
	return NULL;
}

/* "IBVERBS_1.14" -> 1014000, "MLX5_1.25.1" -> 1025001, anything else -> -1.
 * By hand: sscanf() was most of the cost of reading the version nodes. */
static int vs_node_rank(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	unsigned long part[3] = { 0, 0, 0 };
	const char *p = name + len;
	unsigned int i;
	char *end;

	if (strncmp(name, prefix, len))
		return -1;
	for (i = 0; i < 3; i++) {
		if (*p < '0' || *p > '9')
			return -1;
		part[i] = strtoul(p, &end, 10);
		if (part[i] > 999)
			return -1;
		if (!*end && i >= 1)
			return (int)(part[0] * 1000000 + part[1] * 1000 +
				     part[2]);
		if (*end != '.')
			return -1;
		p = end + 1;
	}
	return -1;
}

/* Which of the library's known nodes is @name (or -1), looking from @from
 * on: the definitions and the node list both go up, so that a walk that
 * starts each search after the last match compares each name about once
 * (a backported node, MLX5_1.25.1, costs one wrap). */
static int vs_known_node(const struct vs_lib_desc *desc, const char *name,
			 unsigned int from)
{
	unsigned int k, n;

	for (k = 0; k < desc->nnodes; k++) {
		n = (from + k) % desc->nnodes;
		if (!strcmp(name, vs__nodes[desc->first_node + n].name))
			return (int)n;
	}
	return -1;
}

/*
 * Walk the library's own version definitions (DT_VERDEF): the highest
 * public node it defines, and for libibverbs the provider ABI level
 * (IBVERBS_PRIVATE_N), read by name only: no private symbol is touched,
 * and which known nodes it defines (the fill looks up only their slots).
 * Returns 1 when the library defines a node of its family.
 */
static int vs_read_versions(const struct vs_lib_desc *desc,
			    struct vs_lib_state *st, struct vs_elf *e,
			    const struct link_map *lm)
{
	uintptr_t verdef;
	size_t i, plen;
	char private_prefix[64];
	unsigned int next = 0;
	int best = -1;

	if (vs__elf_open(e, lm) || !e->verdef)
		return 0;
	verdef = e->verdef;
	snprintf(private_prefix, sizeof(private_prefix), "%sPRIVATE_",
		 desc->node_prefix);
	plen = strlen(private_prefix);
	for (i = 0; i < e->verdefnum; i++) {
		const ElfW(Verdef) *vd = vs__elf_ptr(e, verdef, sizeof(*vd));
		const ElfW(Verdaux) *aux;
		const char *name;
		int rank;

		if (!vd)
			break;
		aux = vs__elf_ptr(e, verdef + vd->vd_aux, sizeof(*aux));
		name = aux ? vs__elf_str(e, e->strtab + aux->vda_name) : NULL;
		if (!name)
			break;
		rank = vs_node_rank(name, desc->node_prefix);
		if (!(vd->vd_flags & VER_FLG_BASE)) {
			int n = rank < 0 ? -1 : vs_known_node(desc, name, next);

			if (n >= 0) {
				if (n < VS_ELF_MAX_NODES) {
					st->nodes_found |= 1ull << n;
					e->node_ndx[n] = vd->vd_ndx;
				}
				next = (unsigned int)n + 1;
			}
			if (rank > best) {
				best = rank;
				snprintf(st->highest_node,
					 sizeof(st->highest_node), "%s", name);
			}
			if (!strncmp(name, private_prefix, plen))
				st->provider_abi = atoi(name + plen);
		}
		if (!vd->vd_next)
			break;
		verdef += vd->vd_next;
	}
	return best >= 0;
}

/* rdma-core >= the first release that has the highest node; a node newer
 * than this build knows still means at least the newest one it knows. */
static int vs_min_release(const struct vs_lib_desc *desc, const char *highest)
{
	/* A known node is its own answer (the list goes up by rank), found
	 * by name from the newest end, without parsing every node. */
	int known = vs_known_node(desc, highest, desc->nnodes - 1);
	int rank, release = 0;
	unsigned int i;

	if (known >= 0)
		return vs__nodes[desc->first_node + (unsigned int)known].release;
	rank = vs_node_rank(highest, desc->node_prefix);

	for (i = desc->first_node; i < desc->first_node + desc->nnodes; i++)
		if (vs_node_rank(vs__nodes[i].name, desc->node_prefix) <= rank)
			release = vs__nodes[i].release;
	return release;
}

/* The first release after `release` that brings a node of desc's, or 0. */
static int vs_release_after(const struct vs_lib_desc *desc, int release)
{
	int next = 0;
	unsigned int i;

	for (i = 0; i < desc->nnodes; i++) {
		int r = vs__nodes[desc->first_node + i].release;

		if (r > release && (!next || r < next))
			next = r;
	}
	return next;
}

/*
 * A library not found on a machine whose libibverbs (desc's dependency)
 * is older than the library's first release is absent, not broken: said
 * so after the error (libefa before rdma-core 24, mana before 44, ...).
 */
static void vs_absent_why(const struct vs_lib_desc *desc,
			  struct vs_lib_state *st)
{
	const struct vs_lib_state *dep;
	int first = vs__nodes[desc->first_node].release, upto;
	char why[160];
	size_t used;

	if (!desc->depends || st->load_errno != ENOENT)
		return;
	dep = desc->depends->state;
	if (!dep->handle || dep->min_release <= 0 || dep->min_release >= first)
		return;
	upto = vs_release_after(desc->depends, dep->min_release);
	if (!upto || upto > first)
		return;
	/* first: the cause, before the paths (callers may cut the text) */
	snprintf(why, sizeof(why), "absent, not broken: %s came with "
		 "rdma-core %d and this %s is of rdma-core %d-%d; ", desc->name,
		 first, desc->depends->name, dep->min_release, upto - 1);
	used = strlen(why);
	memmove(st->error + used, st->error,
		strnlen(st->error, sizeof(st->error) - used - 1) + 1);
	st->error[sizeof(st->error) - 1] = '\0';
	memcpy(st->error, why, used);
}

/* An unversioned library is taken when it defines the probe symbol itself
 * (not through one of its dependencies). */
static int vs_defines_probe(void *h, const char *probe, const char *path)
{
	void *sym = dlsym(h, probe);
	Dl_info info;

	return sym && dladdr(sym, &info) && info.dli_fname &&
	       !strcmp(info.dli_fname, path);
}

/* A library that needs libibverbs is loaded after it, so that its own
 * dependency is the copy this process already uses (joined by soname).
 * When libibverbs did not load, it is not loaded either: its dependency
 * would pull in some other libibverbs behind the table's back. */
static int vs_load_dependency(const struct vs_lib_desc *desc)
{
	const struct vs_lib_state *dep;

	if (!desc->depends)
		return 0;
	vs__ensure(desc->depends);
	dep = desc->depends->state;
	if (dep->handle)
		return 0;
	desc->state->load_errno = dep->load_errno;
	snprintf(desc->state->error, sizeof(desc->state->error),
		 "%s not loaded: it needs %s, which did not load", desc->name,
		 desc->depends->name);
	return -1;
}

static void vs_lib_load_locked(const struct vs_lib_desc *desc)
{
	struct vs_lib_state *st = desc->state;
	struct link_map *lm = NULL;
	struct vs_elf elf;
	int versioned;
	void *h;

	st->provider_abi = -1;
	if (vs__static_refused(desc, st) || vs_load_dependency(desc))
		return;
	h = vs_open(desc, st);
	if (!h) {
		vs_absent_why(desc, st);
		return;
	}
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm) {
		snprintf(st->error, sizeof(st->error), "%s: dlinfo: %s",
			 desc->name, dlerror());
		st->load_errno = ELIBBAD;
		return;
	}
	snprintf(st->path, sizeof(st->path), "%s", lm->l_name);
	versioned = vs_read_versions(desc, st, &elf, lm);
	if (!versioned && !vs_defines_probe(h, desc->probe, lm->l_name)) {
		snprintf(st->error, sizeof(st->error),
			 "%s is not %s: it defines no %s1.x version node and "
			 "no %s()", st->path, desc->name, desc->node_prefix,
			 desc->probe);
		st->load_errno = ELIBBAD;
		st->highest_node[0] = '\0';
		st->nodes_found = 0;
		st->provider_abi = -1;
		return;
	}
	if (versioned)
		st->min_release = vs_min_release(desc, st->highest_node);
	/*
	 * IBVERBS_PRIVATE_<n> is named for the release that last changed the
	 * provider ABI: a tighter floor when the public node is older (17.1
	 * and 22.4 end at IBVERBS_1.1 and 1.5, of rdma-core 13 and 20)
	 */
	if (st->provider_abi > st->min_release &&
	    (!vs_release_after(desc, st->min_release) ||
	     st->provider_abi < vs_release_after(desc, st->min_release)))
		st->min_release = st->provider_abi;
	st->resolved = desc->fill(h, versioned ? &elf : NULL);
	st->handle = h;
}

void vs__lib_load(const struct vs_lib_desc *desc)
{
	struct vs_lib_state *st = desc->state;
	/* the load happens on the caller's behalf, inside its first call: what
	 * dlopen() and the knobs' reading leave in errno is not the caller's */
	int caller_errno = errno;

	st->loader = pthread_self();
	__atomic_store_n(&st->loading, 1, __ATOMIC_RELEASE);
	vs_lib_load_locked(desc);
	__atomic_store_n(&st->loading, 0, __ATOMIC_RELEASE);
	if (st->reentries && !st->error[0])
		snprintf(st->error, sizeof(st->error), "%s (%u call%s refused "
			 "with EDEADLK)", st->reentry, st->reentries,
			 st->reentries == 1 ? "" : "s");
	errno = caller_errno;
}
