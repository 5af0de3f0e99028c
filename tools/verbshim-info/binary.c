// SPDX-License-Identifier: MIT
/*
 * verbshim-info --binary FILE: will this program run here?  From the ELF
 * notes the archive wrote into it (shim/tables/vs_notes.h), never running it:
 * which rdma-core libraries it can load (.note.dlopen), which version
 * nodes and functions it was compiled with (.note.verbshim), and, against
 * the libraries this machine has (VERBSHIM_INFO_ROOT prefixes where they
 * are looked for), which are missing and which of its functions will
 * answer "not supported" because the installed rdma-core is older.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "info.h"

#define MAX_ENTRIES 32
#define MAX_NODES 64

struct dlopen_entry {
	char soname[64], priority[16], feature[64];
	bool verbshim;	/* a table note names it */
};

struct notes {
	struct dlopen_entry entries[MAX_ENTRIES];
	unsigned int nentries;
	const char *tables[MAX_ENTRIES];	/* .note.verbshim texts */
	uint32_t tablesz[MAX_ENTRIES];
	unsigned int ntables;
};

/* A JSON string at *p into buf (escapes kept as they are: sonames and
 * priorities have none); *p moves past it.  false when *p is no string. */
static bool json_string(const char **p, const char *end, char *buf, size_t len)
{
	const char *s = *p;
	size_t n = 0;

	if (s >= end || *s != '"')
		return false;
	for (s++; s < end && *s != '"'; s++) {
		if (*s == '\\' && s + 1 < end)
			s++;
		if (n + 1 < len)
			buf[n++] = *s;
	}
	buf[n] = '\0';
	*p = s < end ? s + 1 : end;
	return s < end;
}

static void json_space(const char **p, const char *end)
{
	while (*p < end && strchr(" \t\r\n", **p) && **p)
		(*p)++;
}

/*
 * The spec's JSON: an array of objects whose values are strings or arrays
 * of strings.  Each soname becomes an entry with its object's priority
 * and feature; anything else in the object is stepped over.
 */
static void parse_dlopen(struct notes *n, const char *p, const char *end)
{
	json_space(&p, end);
	if (p >= end || *p++ != '[')
		return;
	while (p < end && *p != ']') {
		char key[32], value[64], sonames[4][64], prio[16] = "", feat[64] = "";
		unsigned int ns = 0;

		json_space(&p, end);
		if (p >= end || *p != '{') {
			p++;
			continue;
		}
		p++;
		while (p < end && *p != '}') {
			json_space(&p, end);
			if (!json_string(&p, end, key, sizeof(key))) {
				p++;
				continue;
			}
			json_space(&p, end);
			if (p < end && *p == ':')
				p++;
			json_space(&p, end);
			if (p < end && *p == '[') {
				for (p++; p < end && *p != ']';) {
					json_space(&p, end);
					if (json_string(&p, end, value, sizeof(value))) {
						if (!strcmp(key, "soname") && ns < 4)
							fmt(sonames[ns++], 64, "%s", value);
					} else {
						p++;
					}
				}
				p++;
			} else if (json_string(&p, end, value, sizeof(value))) {
				if (!strcmp(key, "priority"))
					fmt(prio, sizeof(prio), "%s", value);
				else if (!strcmp(key, "feature"))
					fmt(feat, sizeof(feat), "%s", value);
			}
			json_space(&p, end);
			if (p < end && *p == ',')
				p++;
		}
		p++;
		for (unsigned int i = 0; i < ns && n->nentries < MAX_ENTRIES; i++) {
			struct dlopen_entry *e = &n->entries[n->nentries++];

			fmt(e->soname, sizeof(e->soname), "%s", sonames[i]);
			fmt(e->priority, sizeof(e->priority), "%s", prio);
			fmt(e->feature, sizeof(e->feature), "%s", feat);
		}
		json_space(&p, end);
		if (p < end && *p == ',')
			p++;
	}
}

static int collect_dlopen(void *arg, const char *owner, uint32_t type,
			  const char *desc, uint32_t descsz)
{
	if (!strcmp(owner, "FDO") && type == 0x407c0c0a)
		parse_dlopen(arg, desc, desc + strnlen(desc, descsz));
	return 0;
}

static int collect_table(void *arg, const char *owner, uint32_t type,
			 const char *desc, uint32_t descsz)
{
	struct notes *n = arg;

	if (!strcmp(owner, "verbshim") && type == 1 && n->ntables < MAX_ENTRIES) {
		n->tables[n->ntables] = desc;
		n->tablesz[n->ntables++] = (uint32_t)strnlen(desc, descsz);
	}
	return 0;
}

/* One library's table note, parsed. */
struct table {
	char name[32], soname[64];
	struct {
		char id[32], name[32];
		int release;
		bool compiled, here;
	} nodes[MAX_NODES];
	unsigned int nnodes;
	const char *text, *end;
};

/* The next line of [*p, end) into buf; false at the end. */
static bool next_line(const char **p, const char *end, char *buf, size_t len)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	if (!nl)
		nl = end;
	fmt(buf, len, "%.*s", (int)(nl - *p), *p);
	*p = nl < end ? nl + 1 : end;
	return true;
}

static int node_index(const struct table *t, const char *id)
{
	for (unsigned int i = 0; i < t->nnodes; i++)
		if (!strcmp(t->nodes[i].id, id))
			return (int)i;
	return -1;
}

static void parse_table(struct table *t, const char *text, uint32_t len)
{
	const char *p = text, *end = text + len;
	char line[256], a[64], b[64];
	int rel, i;

	*t = (struct table){ .text = text, .end = end };
	while (next_line(&p, end, line, sizeof(line))) {
		if (sscanf(line, "lib %31s %63s", t->name, t->soname) == 2)
			continue;
		if (sscanf(line, "node %63s %63s %d", a, b, &rel) == 3 &&
		    t->nnodes < MAX_NODES) {
			fmt(t->nodes[t->nnodes].id, 32, "%s", a);
			fmt(t->nodes[t->nnodes].name, 32, "%s", b);
			t->nodes[t->nnodes++].release = rel;
		} else if (sscanf(line, "sym %63s %63s", a, b) == 2 &&
			   (i = node_index(t, b)) >= 0) {
			t->nodes[i].compiled = true;
		}
	}
}

static void mark_here(void *arg, const char *node)
{
	struct table *t = arg;

	for (unsigned int i = 0; i < t->nnodes; i++)
		if (!strcmp(t->nodes[i].name, node))
			t->nodes[i].here = true;
}

/*
 * Where this machine's dynamic loader would find soname for a program of
 * that architecture: VERBSHIM_LIB<LIB> as the shim reads it, else the
 * multiarch and default directories, under VERBSHIM_INFO_ROOT.
 */
static bool find_library(const struct table *t, const char *root,
			 uint16_t machine, char *path, size_t len)
{
	const char *triplet = elf_multiarch(machine);
	const char *dirs[] = { "/usr/lib/%s", "/lib/%s", "/usr/lib64", "/lib64",
			       "/usr/lib", "/lib", "/usr/local/lib" };
	char env[48], dir[PATH_MAX];
	const char *over;
	size_t i;

	fmt(env, sizeof(env), "VERBSHIM_%s", t->name);
	for (i = 0; env[i]; i++)
		env[i] = (char)(env[i] >= 'a' && env[i] <= 'z' ? env[i] - 32 : env[i]);
	over = secure_getenv(env);
	if (over && *over) {
		fmt(path, len, "%s", over);
		return access(path, R_OK) == 0;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (strstr(dirs[i], "%s") && !triplet)
			continue;
		fmt(dir, sizeof(dir), dirs[i], triplet);
		fmt(path, len, "%s%s/%s", root, dir, t->soname);
		if (access(path, R_OK) == 0)
			return true;
	}
	return false;
}

static const struct dlopen_entry *entry_of(const struct notes *n, const char *soname)
{
	for (unsigned int i = 0; i < n->nentries; i++)
		if (!strcmp(n->entries[i].soname, soname))
			return &n->entries[i];
	return NULL;
}

/* "  NODE (rdma-core N): its functions", wrapped under the node; how many. */
static unsigned int print_functions(const struct table *t, unsigned int node)
{
	const char *p = t->text;
	char line[256], name[64], id[64];
	int col = printf("    %s (rdma-core %d):", t->nodes[node].name,
			 t->nodes[node].release);
	unsigned int count = 0;

	while (next_line(&p, t->end, line, sizeof(line)))
		if (sscanf(line, "sym %63s %63s", name, id) == 2 &&
		    !strcmp(id, t->nodes[node].id)) {
			if (col + 1 + (int)strlen(name) > 78)
				col = printf("\n     ") - 1;
			col += printf(" %s", name);
			count++;
		}
	putchar('\n');
	return count;
}

/* What one library means for the program, worst last. */
enum verdict { ALL_THERE, WITH_LESS, CANNOT };

/*
 * A library the program cannot do without: its .note.dlopen priority is
 * "recommended" or "required" (libibverbs, librdmacm, libibumad), not
 * "suggested" (a provider's direct verbs); no entry: taken as needed.
 */
static bool needed(const struct dlopen_entry *e)
{
	return !e || strcmp(e->priority, "suggested");
}

/* How many functions the program's table of this library has. */
static unsigned int count_functions(const struct table *t)
{
	const char *p = t->text;
	char line[256], name[64], id[64];
	unsigned int count = 0;

	while (next_line(&p, t->end, line, sizeof(line)))
		count += sscanf(line, "sym %63s %63s", name, id) == 2;
	return count;
}

/* The release a library's first node came with (its table's lowest). */
static int first_release(const struct table *t)
{
	int r = 0;

	for (unsigned int i = 0; i < t->nnodes; i++)
		if (!r || (t->nodes[i].release && t->nodes[i].release < r))
			r = t->nodes[i].release;
	return r;
}

/*
 * One library: ALL_THERE, WITH_LESS (older than the program: its newer
 * functions answer "not supported"; or absent and only suggested), or
 * CANNOT (a needed library missing or unusable).  *nfuncs counts the
 * functions that will answer "not supported".
 */
static enum verdict report_library(struct table *t, const struct notes *n,
				   const char *root, uint16_t machine,
				   unsigned int *nfuncs)
{
	const struct dlopen_entry *e = entry_of(n, t->soname);
	struct elf_file lib;
	char path[PATH_MAX];
	unsigned int i, newest = 0, lacking = 0;
	int ret;

	printf("%s (%s, %s)\n", t->soname, t->name,
	       e && e->priority[0] ? e->priority : "no dlopen note");
	printf("  compiled with:");
	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].compiled)
			printf(" %s", t->nodes[i].name);
	putchar('\n');
	if (!find_library(t, root, machine, path, sizeof(path))) {
		printf("  here: missing (no %s for %s): every one of its functions "
		       "answers \"not supported\"; absent, not broken (%s came "
		       "with rdma-core %d; %s)\n", t->soname,
		       elf_machine_name(machine), t->name, first_release(t),
		       needed(e) ? "the program needs it" :
		       "suggested: only for its provider's hardware");
		*nfuncs += count_functions(t);
		return needed(e) ? CANNOT : WITH_LESS;
	}
	ret = elf_open(&lib, path);
	if (!ret && lib.machine != machine)
		ret = -ENOEXEC;
	if (!ret)
		ret = elf_version_nodes(&lib, mark_here, t);
	elf_close(&lib);
	if (ret) {
		printf("  here: %s is not a usable %s library (%s)\n", path,
		       elf_machine_name(machine), strerror(-ret));
		return needed(e) ? CANNOT : WITH_LESS;
	}
	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].here && t->nodes[i].release >= t->nodes[newest].release)
			newest = i;
	if (t->nodes[newest].here)
		printf("  here: %s, newest node %s (new in rdma-core %d)\n", path,
		       t->nodes[newest].name, t->nodes[newest].release);
	else
		printf("  here: %s, without any node this program knows\n", path);
	for (i = 0; i < t->nnodes; i++) {
		if (!t->nodes[i].compiled || t->nodes[i].here)
			continue;
		if (!lacking++)
			printf("  not supported here (the installed rdma-core is older):\n");
		*nfuncs += print_functions(t, i);
	}
	return lacking ? WITH_LESS : ALL_THERE;
}

int binary_report(const char *path, const char *root)
{
	struct notes *n = calloc(1, sizeof(*n));
	struct table *t = calloc(1, sizeof(*t));
	struct elf_file e;
	unsigned int i, other = 0, nfuncs = 0, nless = 0, ncannot = 0;
	enum verdict worst = ALL_THERE;
	int ret, status = EXIT_USABLE;

	if (!n || !t) {
		free(n);
		free(t);
		fprintf(stderr, "verbshim-info: --binary: out of memory\n");
		return EXIT_USAGE;
	}
	ret = elf_open(&e, path);
	if (!ret)
		ret = elf_notes(&e, ".note.dlopen", collect_dlopen, n);
	if (!ret)
		ret = elf_notes(&e, ".note.verbshim", collect_table, n);
	if (ret) {
		fprintf(stderr, "verbshim-info: --binary %s: %s\n", path,
			ret == -ENOEXEC ? "not a 64-bit little-endian ELF file (or a damaged one)"
					: strerror(-ret));
		status = EXIT_USAGE;
		goto out;
	}
	if (!n->ntables) {
		fprintf(stderr, "verbshim-info: --binary %s: no verbshim notes: not "
			"linked with libverbshim.a (1.0.0 or later)\n", path);
		status = EXIT_USAGE;
		goto out;
	}
	printf("%s: %s program; it can load %u rdma-core librar%s%s%s\n\n", path,
	       elf_machine_name(e.machine), n->ntables, n->ntables == 1 ? "y" : "ies",
	       root[0] ? ", looked for under " : "", root);
	for (i = 0; i < n->ntables; i++) {
		struct dlopen_entry *de;

		parse_table(t, n->tables[i], n->tablesz[i]);
		de = (struct dlopen_entry *)entry_of(n, t->soname);
		if (de)
			de->verbshim = true;
		enum verdict v = report_library(t, n, root, e.machine, &nfuncs);

		nless += v == WITH_LESS;
		ncannot += v == CANNOT;
		if (v > worst)
			worst = v;
	}
	for (i = 0; i < n->nentries; i++)
		if (!n->entries[i].verbshim)
			printf("%s%s (%s, %s): another part of the program dlopens it\n",
			       other++ ? "" : "\n", n->entries[i].soname,
			       n->entries[i].feature, n->entries[i].priority);
	/* the answer to the question the option asks, with its exit status */
	if (worst == CANNOT) {
		status = EXIT_NODEV;
		printf("\nverdict: it cannot do its work here (exit %d): %u "
		       "librar%s it needs missing or unusable (above)\n", status,
		       ncannot, ncannot == 1 ? "y" : "ies");
	} else if (worst == WITH_LESS) {
		status = EXIT_RUNS_OLDER;
		printf("\nverdict: it runs here, with less (exit %d): %u "
		       "function%s answer%s \"not supported\" in %u librar%s "
		       "older than the program or absent (above)\n", status,
		       nfuncs, nfuncs == 1 ? "" : "s", nfuncs == 1 ? "s" : "",
		       nless, nless == 1 ? "y" : "ies");
	} else {
		printf("\nverdict: it runs here with every function it was "
		       "compiled with (exit 0)\n");
	}
out:
	elf_close(&e);
	free(n);
	free(t);
	return status;
}
