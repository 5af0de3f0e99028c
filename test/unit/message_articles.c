/* SPDX-License-Identifier: MIT */
/*
 * "a" or "an" by sound in every message of the library (issue 36):
 *  - vs__article against known answers (an RC, an MR, an SRQ, an AH, an
 *    RDMA, a UD, a UC, a QP, a PD, a CQ, a GID, a CM, a compare-and-swap);
 *  - every string literal of lib/ and shim/ (adjacent literals joined, comments and
 *    character constants skipped) scanned: a fixed article before a
 *    run-time noun ("a %s") is refused (vs__article chooses it), and a
 *    fixed article before a word must be the one vs__article gives.
 * Run from the repository (or with its path in VS_SRCDIR).
 */
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>

#include "../common/vs_typed.h"

const char *vs__article(const char *w);

static int bad;

static void known(const char *w, const char *want)
{
	if (strcmp(vs__article(w), want)) {
		printf("vs__article(\"%s\") = %s, want %s\n", w, vs__article(w), want);
		bad++;
	}
}

/* Checks the articles of one joined literal s (file:line for messages). */
static void check_text(const char *s, const char *file, int line)
{
	for (const char *p = s; *p; p++) {
		size_t n;
		const char *w;

		if (p != s && (isalnum((unsigned char)p[-1]) || p[-1] == '_' ||
			       p[-1] == '%' || p[-1] == '-' || p[-1] == '\\'))
			continue;
		if (!strncmp(p, "a ", 2) || !strncmp(p, "A ", 2))
			n = 1;
		else if (!strncmp(p, "an ", 3) || !strncmp(p, "An ", 3))
			n = 2;
		else
			continue;
		w = p + n + 1;
		if (!strncmp(w, "%s", 2)) {
			printf("%s:%d: \"%.*s %%s\": the article of a run-time noun "
			       "is vs__article's (\"%%s %%s\")\n", file, line,
			       (int)n, p);
			bad++;
			continue;
		}
		if (!isalnum((unsigned char)*w))
			continue; /* "a %u-byte", "a \"x\"": not a word */
		if ((size_t)strlen(vs__article(w)) != n) {
			printf("%s:%d: \"%.*s %.20s\": want \"%s\"\n", file, line,
			       (int)n, p, w, vs__article(w));
			bad++;
		}
	}
}

/* The string literals of a C file, adjacent ones joined. */
static void scan(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	static char src[1 << 20], lit[1 << 14];
	size_t len, k = 0;
	int line = 1, lit_line = 0;
	bool in_lit = false; /* a joined literal is open (only space since) */

	VS_ASSERT(f);
	len = fread(src, 1, sizeof(src) - 1, f);
	fclose(f);
	src[len] = 0;
	for (size_t i = 0; i < len; i++) {
		char c = src[i];

		if (c == '\n') {
			line++;
			continue;
		}
		if (c == '/' && src[i + 1] == '*') {
			for (i += 2; i < len && !(src[i] == '*' && src[i + 1] == '/'); i++)
				line += src[i] == '\n';
			i++;
			continue;
		}
		if (c == '/' && src[i + 1] == '/') {
			while (i < len && src[i] != '\n')
				i++;
			i--;
			continue;
		}
		if (c == '\'') {
			for (i++; i < len && src[i] != '\''; i++)
				i += src[i] == '\\';
			continue;
		}
		if (c == '"') {
			if (!in_lit) {
				k = 0;
				lit_line = line;
				in_lit = true;
			}
			for (i++; i < len && src[i] != '"'; i++) {
				if (src[i] == '\\' && i + 1 < len) {
					i++;
					if (k < sizeof(lit) - 1)
						lit[k++] = src[i] == 'n' ? ' ' : src[i];
					continue;
				}
				if (k < sizeof(lit) - 1)
					lit[k++] = src[i];
			}
			continue;
		}
		if (isspace((unsigned char)c))
			continue;
		if (in_lit) {
			lit[k] = 0;
			check_text(lit, name, lit_line);
			in_lit = false;
		}
	}
}

static void walk(const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	VS_ASSERT(d);
	while ((e = readdir(d))) {
		char path[1024], name[1024];
		size_t n = strlen(e->d_name);
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(name, sizeof(name), "%s/%s", rel, e->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path, name);
		else if (n > 2 && (!strcmp(e->d_name + n - 2, ".c") ||
				   !strcmp(e->d_name + n - 2, ".h")))
			scan(path, name);
	}
	closedir(d);
}

int main(void)
{
	const char *src = getenv("VS_SRCDIR") ? getenv("VS_SRCDIR") : ".";
	char lib[1024];
	struct stat st;

	known("RC", "an"); known("MR", "an"); known("SRQ", "an"); known("AH", "an");
	known("RDMA write", "an"); known("UD", "a"); known("UC", "a");
	known("QP", "a"); known("PD", "a"); known("CQ", "a"); known("GID", "a");
	known("CM id", "a"); known("compare-and-swap", "a");
	known("fetch-and-add", "a"); known("send", "a"); known("SRD", "an");
	known("iWARP", "an"); known("IPv4", "an"); known("RoCE", "a");
	known("NULL", "a"); known("8-byte", "an"); known("one-call", "a");
	known("unique", "a"); known("error", "an"); known("rdma_cm_id", "an");
	known("vs_cm_id", "a"); known("MTU", "an"); known("LID", "a");
	known("RESET", "a"); known("INIT", "an"); known("AH", "an");
	VS_ASSERT_EQ(bad, 0);
	snprintf(lib, sizeof(lib), "%s/lib", src);
	if (stat(lib, &st) || !S_ISDIR(st.st_mode))
		VS_SKIP("no lib/ under %s (run from the repository or set VS_SRCDIR)", src);
	walk(lib, "lib");
	snprintf(lib, sizeof(lib), "%s/shim", src);
	if (!stat(lib, &st) && S_ISDIR(st.st_mode))
		walk(lib, "shim");
	if (bad)
		VS_FAIL("%d wrong article%s in the messages of lib/ and shim/ (above)", bad,
			bad > 1 ? "s" : "");
	printf("ok: every article in the string literals of lib/ and shim/ fits its word\n");
	return 0;
}
