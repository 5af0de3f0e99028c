// SPDX-License-Identifier: MIT
/*
 * Prints the version script of a stub library that emulates the version
 * nodes of one rdma-core release, from the shim's own symbol lists:
 *
 *   gen_map ibverbs|rdmacm|efa|mlx5|mlx4|ibumad|hns|mana|ionic RELEASE [ABI]
 *
 * Every node whose first release is <= RELEASE is defined, with the
 * symbols of that node this build knows; a provider ABI adds
 * IBVERBS_PRIVATE_<ABI>, as real libibverbs does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/vs_shim.h"

struct row {
	const char *name;
	int node;
};

#define ROW(node, name, ret, params, args, conv, facts) { #name, VS_NODE_##node },
#define LIB_ROWS(lib, LIB, ...)                                                \
	static const struct row lib##_rows[] = { VS_##LIB##_SYMBOLS(ROW) };
VS_LIBRARIES(LIB_ROWS)

#define NODE(id, str, release) { str, release },
#define LIB_NODES(lib, LIB, ...) VS_##LIB##_NODES(NODE)
static const struct vs_node nodes[] = { VS_LIBRARIES(LIB_NODES) };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define COUNT_NODE(id, str, release) +1

struct lib {
	const char *name;
	const struct row *rows;
	size_t nrows;
	int first, last;
};
#define LIB_ENTRY(lib, LIB, ...)                                               \
	{ #lib, lib##_rows, COUNT(lib##_rows),                                 \
	  VS_NODE_END_##LIB - (0 VS_##LIB##_NODES(COUNT_NODE)),                \
	  VS_NODE_END_##LIB - 1 },
static const struct lib libs[] = { VS_LIBRARIES(LIB_ENTRY) };

int main(int argc, char **argv)
{
	const struct lib *lib = NULL;
	size_t i;
	int release, abi, n;
	const char *prev = NULL;

	if (argc < 3) {
		fprintf(stderr, "usage: %s LIBRARY RELEASE [ABI]\n", argv[0]);
		return 2;
	}
	release = atoi(argv[2]);
	abi = argc > 3 ? atoi(argv[3]) : 0;
	for (i = 0; i < COUNT(libs); i++)
		if (!strcmp(argv[1], libs[i].name))
			lib = &libs[i];
	if (!lib) {
		fprintf(stderr, "%s: unknown library %s\n", argv[0], argv[1]);
		return 2;
	}

	for (n = lib->first; n <= lib->last; n++) {
		int members = !prev;

		/* A node backported to an older stable line (MLX5_1.25.1) may
		 * be newer than the next one: each node on its own. */
		if (nodes[n].release > release)
			continue;
		for (i = 0; i < lib->nrows; i++)
			members += lib->rows[i].node == n;
		/* A node of no symbol this build knows is still defined. */
		printf("%s {\n%s", nodes[n].name, members ? "\tglobal:\n" : "");
		if (!prev)
			printf("\t\tvs_stub_*;\n");
		for (i = 0; i < lib->nrows; i++)
			if (lib->rows[i].node == n)
				printf("\t\t%s;\n", lib->rows[i].name);
		if (!prev)
			printf("\tlocal: *;\n");
		printf("}%s%s;\n", prev ? " " : "", prev ? prev : "");
		prev = nodes[n].name;
	}
	if (abi)
		printf("IBVERBS_PRIVATE_%d {\n\tglobal: vs_stub_private_marker;\n};\n",
		       abi);
	return 0;
}
