// SPDX-License-Identifier: MIT
/*
 * Prints the version script of a stub library that emulates the version
 * nodes of one rdma-core release, from the shim's own symbol lists:
 *
 *   gen_map ibverbs|rdmacm|efa RELEASE [PROVIDER_ABI]
 *
 * Every node whose first release is <= RELEASE is defined, with the
 * symbols of that node this build knows; a provider ABI adds
 * IBVERBS_PRIVATE_<ABI>, as real libibverbs does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vs_shim.h"

struct row {
	const char *name;
	int node;
};

#define ROW(node, name, ret, params, args, conv) { #name, VS_NODE_##node },
static const struct row ibverbs_rows[] = { VS_IBVERBS_SYMBOLS(ROW) };
static const struct row rdmacm_rows[] = { VS_RDMACM_SYMBOLS(ROW) };
static const struct row efa_rows[] = { VS_EFA_SYMBOLS(ROW) };

#define NODE(id, str, release) { str, release },
static const struct vs_node nodes[] = {
	VS_IBVERBS_NODES(NODE) VS_RDMACM_NODES(NODE) VS_EFA_NODES(NODE)
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int main(int argc, char **argv)
{
	const struct row *rows;
	size_t nrows, i;
	int first, last, release, abi, n;
	const char *prev = NULL;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ibverbs|rdmacm|efa RELEASE [ABI]\n",
			argv[0]);
		return 2;
	}
	release = atoi(argv[2]);
	abi = argc > 3 ? atoi(argv[3]) : 0;
	if (!strcmp(argv[1], "ibverbs")) {
		rows = ibverbs_rows, nrows = COUNT(ibverbs_rows);
		first = VS_NODE_IBVERBS_1_0, last = VS_NODE_IBVERBS_1_18;
	} else if (!strcmp(argv[1], "rdmacm")) {
		rows = rdmacm_rows, nrows = COUNT(rdmacm_rows);
		first = VS_NODE_RDMACM_1_0, last = VS_NODE_RDMACM_1_5;
	} else if (!strcmp(argv[1], "efa")) {
		rows = efa_rows, nrows = COUNT(efa_rows);
		first = VS_NODE_EFA_1_0, last = VS_NODE_EFA_1_7;
	} else {
		fprintf(stderr, "%s: unknown library %s\n", argv[0], argv[1]);
		return 2;
	}

	for (n = first; n <= last && nodes[n].release <= release; n++) {
		int members = !prev;

		for (i = 0; i < nrows; i++)
			members += rows[i].node == n;
		/* A node of no symbol this build knows is still defined. */
		printf("%s {\n%s", nodes[n].name, members ? "\tglobal:\n" : "");
		if (!prev)
			printf("\t\tvs_stub_*;\n");
		for (i = 0; i < nrows; i++)
			if (rows[i].node == n)
				printf("\t\t%s;\n", rows[i].name);
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
