/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the VERBSHIM_TRACE and VERBSHIM_FAULT parsers, the
 * row-parameter parser and the facts parser (shim/trace/trace_knobs.c,
 * shim/trace/trace_facts.c) on any bytes.  A refusal must come with its
 * sentence; what is accepted must hold what the run-time code relies on
 * (non-empty patterns, a named errno, N >= 1 or 0 < P <= 1), and matching
 * and firing must not crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/vs_trace.h"
#include "../common/vs_rows.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what, const char *input)
{
	if (!cond) {
		fprintf(stderr, "%s for \"%s\"\n", what, input);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vs_tfilter filter;
	struct vs_tfault fault;
	struct vs_tparam p[8];
	struct vs_tsig sig;
	char *s, why[384];
	unsigned int i, k;

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	why[0] = '\0';
	if (vs__tfilter_parse(s, &filter, why, sizeof(why))) {
		check(why[0] && !strchr(why, '\n'), "refused without a sentence", s);
	} else {
		check(filter.nrules <= VS_TFILTER_MAX, "too many rules", s);
		for (i = 0; i < filter.nrules; i++)
			check(filter.rule[i].pattern[0] != '\0', "empty pattern", s);
		check(vs_rows_trace_linked(), "a library's rows not linked", s);
		for (i = 0; i < VS_TSYM_COUNT; i++) {
			const struct vs_tsym_info *in =
				vs__tsym_info((enum vs_tsym)i);

			vs__tfilter_match(&filter, in->name, in->lib);
		}
	}

	why[0] = '\0';
	if (vs__tfault_parse(s, &fault, why, sizeof(why))) {
		check(why[0] && !strchr(why, '\n'), "refused without a sentence", s);
	} else {
		check(fault.nrules >= 1 && fault.nrules <= VS_TFAULT_MAX,
		      "rule count", s);
		for (i = 0; i < fault.nrules; i++) {
			const struct vs_tfault_rule *r = &fault.rule[i];

			check(r->pattern[0] && r->matched, "pattern", s);
			check(vs__errno_name(r->err) != NULL, "errno", s);
			check(r->mode == VS_TF_PROB ? r->prob > 0 && r->prob <= 1
						    : r->n >= 1, "when", s);
			for (k = 1; k <= 8; k++)
				vs__tfault_fires(r, "ibv_reg_mr", k);
		}
	}

	/* the row-parameter parser never reads past its input */
	vs__tparams_parse(s, p, 8);
	/* the facts column: any bytes as a row's facts, and as its text */
	why[0] = '\0';
	if (vs__tsig_parse("(struct rdma_cm_id *id, struct sockaddr *addr, "
			   "socklen_t *addrlen, int n)", "struct ibv_qp *", s,
			   &sig, why, sizeof(why)))
		check(why[0] && !strchr(why, '\n'), "facts refused without a "
		      "sentence", s);
	vs__tsig_parse(s, s, "", &sig, NULL, 0);
	free(s);
	return 0;
}
