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
const struct vs_node vs_nodes[VS_NODE_COUNT] = {
	VS_IBVERBS_NODES(VS_NODE_ROW)
	VS_RDMACM_NODES(VS_NODE_ROW)
	VS_EFA_NODES(VS_NODE_ROW)
};

void *vs_lookup(void *handle, int versioned, const char *name,
		enum vs_node_id node)
{
	if (!versioned)
		return dlsym(handle, name);
	return dlvsym(handle, name, vs_nodes[node].name);
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

/*
 * Join a copy the process already has (RTLD_NOLOAD), else load one.  An
 * environment override is the only candidate when set: silently falling
 * back to the system's copy would hide a typo.  secure_getenv(), so that
 * setuid programs ignore it.
 */
static void *vs_open(const struct vs_lib_desc *desc, struct vs_lib_state *st)
{
	const char *override = secure_getenv(desc->env);
	const char *names[2] = { desc->soname, desc->devname };
	unsigned int i, count = 2;
	int not_found = 1;
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
	if (count == 1)
		snprintf(st->error, sizeof(st->error), "%s=%s: ", desc->env,
			 override);
	else
		snprintf(st->error, sizeof(st->error), "%s not found: ",
			 desc->name);
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
		if (!strstr(err, "No such file"))
			not_found = 0;
		vs_append(st->error, sizeof(st->error), "%s%s", i ? "; " : "",
			  err);
	}
	st->load_errno = not_found ? ENOENT : ELIBBAD;
	return NULL;
}

/* glibc relocates some d_ptr entries of a loaded object in place and not
 * others (DT_VERDEF stays an offset); both forms are handled. */
static const void *vs_dyn_ptr(const struct link_map *lm, ElfW(Addr) value)
{
	return (const void *)(value < lm->l_addr ? value + lm->l_addr : value);
}

/* "IBVERBS_1.14" -> 1014, anything else -> -1.  By hand: sscanf() was
 * most of the cost of reading the version nodes. */
static int vs_node_rank(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	unsigned long major, minor;
	char *end;

	if (strncmp(name, prefix, len) || name[len] < '0' || name[len] > '9')
		return -1;
	major = strtoul(name + len, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	minor = strtoul(end + 1, &end, 10);
	if (*end || major > 999 || minor > 999)
		return -1;
	return (int)(major * 1000 + minor);
}

/*
 * Walk the library's own version definitions (DT_VERDEF): the highest
 * public node it defines, and for libibverbs the provider ABI level
 * (IBVERBS_PRIVATE_N), read by name only: no private symbol is touched.
 * Returns 1 when the library defines a node of its family.
 */
static int vs_read_versions(const struct vs_lib_desc *desc,
			    struct vs_lib_state *st, const struct link_map *lm)
{
	const char *strtab = NULL;
	const char *verdef = NULL;
	size_t verdefnum = 0, i, plen;
	const ElfW(Dyn) *d;
	char private_prefix[64];
	int best = -1;

	for (d = lm->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = vs_dyn_ptr(lm, d->d_un.d_ptr);
		else if (d->d_tag == DT_VERDEF)
			verdef = vs_dyn_ptr(lm, d->d_un.d_ptr);
		else if (d->d_tag == DT_VERDEFNUM)
			verdefnum = d->d_un.d_val;
	}
	if (!strtab || !verdef)
		return 0;

	snprintf(private_prefix, sizeof(private_prefix), "%sPRIVATE_",
		 desc->node_prefix);
	plen = strlen(private_prefix);
	for (i = 0; i < verdefnum; i++) {
		const ElfW(Verdef) *vd = (const ElfW(Verdef) *)verdef;
		const ElfW(Verdaux) *aux =
			(const ElfW(Verdaux) *)(verdef + vd->vd_aux);
		const char *name = strtab + aux->vda_name;
		int rank = vs_node_rank(name, desc->node_prefix);

		if (!(vd->vd_flags & VER_FLG_BASE)) {
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
	int rank = vs_node_rank(highest, desc->node_prefix), release = 0;
	unsigned int i;

	for (i = desc->first_node; i < desc->first_node + desc->nnodes; i++)
		if (vs_node_rank(vs_nodes[i].name, desc->node_prefix) <= rank)
			release = vs_nodes[i].release;
	return release;
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

void vs_lib_load(const struct vs_lib_desc *desc)
{
	struct vs_lib_state *st = desc->state;
	struct link_map *lm = NULL;
	int versioned;
	void *h;

	st->provider_abi = -1;
	if (vs_static_refused(desc, st))
		return;
	h = vs_open(desc, st);
	if (!h)
		return;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm) {
		snprintf(st->error, sizeof(st->error), "%s: dlinfo: %s",
			 desc->name, dlerror());
		st->load_errno = ELIBBAD;
		return;
	}
	snprintf(st->path, sizeof(st->path), "%s", lm->l_name);
	versioned = vs_read_versions(desc, st, lm);
	if (!versioned && !vs_defines_probe(h, desc->probe, lm->l_name)) {
		snprintf(st->error, sizeof(st->error),
			 "%s is not %s: it defines no %s1.x version node and "
			 "no %s()", st->path, desc->name, desc->node_prefix,
			 desc->probe);
		st->load_errno = ELIBBAD;
		st->highest_node[0] = '\0';
		st->provider_abi = -1;
		return;
	}
	if (versioned)
		st->min_release = vs_min_release(desc, st->highest_node);
	st->resolved = desc->fill(h, versioned);
	st->handle = h;
}
