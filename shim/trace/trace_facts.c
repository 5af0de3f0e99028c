// SPDX-License-Identifier: MIT
/*
 * A row of shim/loader/syms_*.h as the trace reads it: its parameters' types and
 * names from the prototype's text, and its facts column (which pointer
 * is a handle, an input, an output, within which bound, which handles
 * the call ends; shim/loader/syms_ibverbs.h documents the column).  Pure: the
 * unit tests and the fuzz targets call it on any text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "vs_trace.h"

/* The handles an ends= fact may name.  librdmacm's destroys end what the
 * id holds: rdma_destroy_qp() its QP and the CQs and channels it made for
 * it, rdma_destroy_srq() its SRQ and those, rdma_destroy_ep() all. */
#define VS_TFIELD(type, field) { #type, #field, offsetof(struct type, field) }
const struct vs_tfield vs__tfields[] = {
	VS_TFIELD(rdma_cm_id, qp),
	VS_TFIELD(rdma_cm_id, srq),
	VS_TFIELD(rdma_cm_id, send_cq),
	VS_TFIELD(rdma_cm_id, recv_cq),
	VS_TFIELD(rdma_cm_id, send_cq_channel),
	VS_TFIELD(rdma_cm_id, recv_cq_channel),
};
const unsigned int vs__tnfields = sizeof(vs__tfields) / sizeof(vs__tfields[0]);

static int vs_tident(char ch)
{
	return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9');
}

/* One declaration, "struct ibv_pd *pd", "uint8_t eth_mac[6]",
 * "char (*cas)[N]", into p: 0, or -1. */
static int vs_tparam_one(char *text, struct vs_tparam *p)
{
	char *name, *q, *end;
	size_t l;

	memset(p, 0, sizeof(*p));
	q = strstr(text, "(*");	/* a pointer to an array: "char (*cas)[N]" */
	if (q) {
		end = strchr(q, ')');
		if (!end)
			return -1;
		*q = ' ';
		memmove(end, end + 1, strlen(end + 1) + 1);
	}
	q = strchr(text, '[');	/* uint8_t eth_mac[6]: a pointer */
	if (q) {
		*q = '\0';
		p->ptr++;
		p->is_array = !strchr(text, '*');
	}
	l = strlen(text);
	while (l && text[l - 1] == ' ')
		text[--l] = '\0';
	name = text + l;
	while (name > text && vs_tident(name[-1]))
		name--;
	if (name == text || !*name || strlen(name) >= sizeof(p->name))
		return -1;
	memcpy(p->name, name, strlen(name) + 1);
	*name = '\0';
	for (q = text; *q; q++)
		p->ptr += *q == '*';
	l = strlen(text);
	while (l && (text[l - 1] == ' ' || text[l - 1] == '*'))
		text[--l] = '\0';
	if (!l || strlen(text) >= sizeof(p->type))
		return -1;
	memcpy(p->type, text, strlen(text) + 1);
	q = text;
	if (!strncmp(q, "const ", 6)) {
		p->is_const = 1;
		q += 6;
	}
	if (!strncmp(q, "struct ", 7) || !strncmp(q, "union ", 6)) {
		p->is_struct = 1;
		q = strchr(q, ' ') + 1;
	} else if (!strncmp(q, "enum ", 5)) {
		p->is_enum = 1;
		q += 5;
	}
	memcpy(p->tag, q, strlen(q) + 1);	/* shorter than type */
	p->is_signed = !strcmp(q, "int") || !strcmp(q, "ssize_t") ||
		       !strcmp(q, "off_t") || !strcmp(q, "long");
	return 0;
}

int vs__tparams_parse(const char *params, struct vs_tparam *p, int max)
{
	const char *s = params;
	int n = 0;

	if (*s++ != '(')
		return -1;
	while (*s && *s != ')') {
		char text[128];
		size_t l = 0;
		int depth = 0;

		while (*s == ' ')
			s++;
		/* up to the ',' or ')' of this level: "long m[16 / sizeof(long)]" */
		for (; s[l] && (depth || (s[l] != ',' && s[l] != ')')); l++) {
			if (s[l] == '(' || s[l] == '[')
				depth++;
			else if (s[l] == ')' || s[l] == ']')
				depth--;
			if (depth < 0)
				return -1;
		}
		if (!s[l] || l >= sizeof(text))
			return -1;
		memcpy(text, s, l);
		text[l] = '\0';
		s += l + (s[l] == ',');
		if (!strcmp(text, "void") || !strcmp(text, "..."))
			continue;
		if (n >= max || vs_tparam_one(text, &p[n]))
			return -1;
		n++;
	}
	return *s == ')' && !s[1] ? n : -1;
}

static const char *const vs_troles[] = {
	[VS_TR_H] = "h",	[VS_TR_HOUT] = "hout", [VS_TR_END] = "end",
	[VS_TR_IN] = "in",	[VS_TR_OUT] = "out",   [VS_TR_INOUT] = "inout",
	[VS_TR_BUF] = "buf",	[VS_TR_STR] = "str",   [VS_TR_FREE] = "free",
};

static int vs_tparam_index(const struct vs_tsig *s, const char *name,
			   size_t len)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (strlen(s->p[i].name) == len &&
		    !strncmp(s->p[i].name, name, len))
			return i;
	return -1;
}

/* A refusal's sentence, one line of printable ASCII whatever the text
 * it quotes held. */
static void vs_twhy(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void vs_twhy(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	char *c;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	for (c = why; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
}

#define VS_TWHY(...)                                                           \
	do {                                                                   \
		vs_twhy(why, whylen, __VA_ARGS__);                             \
		return -1;                                                     \
	} while (0)

/* One modifier of item p ("bytes=*addrlen", "ends=qp") into f. */
static int vs_tmodifier(struct vs_tsig *s, const struct vs_tparam *p,
			struct vs_tfact *f, const char *m, size_t ml,
			char *why, size_t whylen)
{
	unsigned int k;

	if ((ml > 6 && !strncmp(m, "bytes=", 6)) ||
	    (ml > 6 && !strncmp(m, "count=", 6))) {
		const char *v = m + 6;
		size_t vl = ml - 6;
		int deref = *v == '*', i;

		if (f->len)
			VS_TWHY("%s has two bounds", p->name);
		i = vs_tparam_index(s, v + deref, vl - (size_t)deref);
		if (i < 0)
			VS_TWHY("%s's bound %.*s names no parameter", p->name,
				(int)vl, v);
		if (&s->p[i] == p)
			VS_TWHY("%s is its own bound", p->name);
		f->len = *m == 'b' ? VS_TL_BYTES : VS_TL_COUNT;
		f->len_arg = (signed char)i;
		f->len_deref = (unsigned char)deref;
		return 0;
	}
	if (ml > 5 && !strncmp(m, "ends=", 5)) {
		for (k = 0; k < vs__tnfields; k++)
			if (!strcmp(vs__tfields[k].tag, p->tag) &&
			    strlen(vs__tfields[k].name) == ml - 5 &&
			    !strncmp(vs__tfields[k].name, m + 5, ml - 5))
				break;
		if (k == vs__tnfields)
			VS_TWHY("%s: %.*s is no field of %s that shim/"
				"trace_facts.c knows", p->name, (int)ml, m, p->tag);
		if (f->nends == VS_TENDS_MAX)
			VS_TWHY("%s ends more than %d fields", p->name,
				VS_TENDS_MAX);
		f->ends[f->nends++] = (unsigned char)k;
		return 0;
	}
	VS_TWHY("%s: %.*s is neither bytes=, count= nor ends=", p->name,
		(int)ml, m);
}

/* "never" or "null" (l bytes): VS_TFAILS_*, 0 for anything else. */
static unsigned int vs_tfails_one(const char *v, size_t l)
{
	if (l == 5 && !strncmp(v, "never", 5))
		return VS_TFAILS_NEVER;
	if (l == 4 && !strncmp(v, "null", 4))
		return VS_TFAILS_NULL;
	return 0;
}

unsigned int vs__tfails(const char *facts)
{
	const char *f = facts;

	while (f && *f) {
		size_t l = strcspn(f, " ");

		if (l > 6 && !strncmp(f, "fails=", 6))
			return vs_tfails_one(f + 6, l - 6);
		f += l + (f[l] == ' ');
	}
	return VS_TFAILS_CAN;
}

void vs__tfails_why(unsigned int fails, const char *name, char *why,
		    size_t whylen)
{
	if (fails == VS_TFAILS_NULL)
		vs_twhy(why, whylen, "rdma-core's %s fails only when it is "
			"given NULL (EINVAL), a caller's bug: a rule would make "
			"it fail where the library never does", name);
	else
		vs_twhy(why, whylen, "rdma-core's %s has no failure path (it "
			"returns a field, a constant or a conversion of its "
			"arguments): a rule would make it fail where the library "
			"never does", name);
}

int vs__tsig_parse(const char *params, const char *ret, const char *facts,
		   struct vs_tsig *s, char *why, size_t whylen)
{
	const char *f = facts;
	char text[96];

	memset(s, 0, sizeof(*s));
	s->n = vs__tparams_parse(params, s->p, VS_TARGS_MAX);
	if (s->n < 0)
		VS_TWHY("the parameters %s are not understood", params);
	if ((size_t)snprintf(text, sizeof(text), "(%s r)", ret) >= sizeof(text) ||
	    vs__tparams_parse(text, &s->ret, 1) != 1)
		VS_TWHY("the result type %s is not understood", ret);
	while (*f) {
		size_t l = strcspn(f, " "), nl = strcspn(f, "=");
		const char *r, *m;
		struct vs_tparam *p;
		struct vs_tfact *fact;
		size_t rl;
		unsigned int k;
		int i;

		if (!l) {
			f++;
			continue;
		}
		if (nl >= l)
			VS_TWHY("\"%.*s\" is not NAME=ROLE", (int)l, f);
		if (nl == 5 && !strncmp(f, "fails", 5)) {
			unsigned int k = vs_tfails_one(f + 6, l - 6);

			if (!k)
				VS_TWHY("\"%.*s\": fails= is never or null",
					(int)l, f);
			if (s->fails)
				VS_TWHY("two fails= facts");
			s->fails = (unsigned char)k;
			f += l;
			continue;
		}
		if (nl == 6 && !strncmp(f, "return", 6)) {
			p = &s->ret;
		} else {
			i = vs_tparam_index(s, f, nl);
			if (i < 0)
				VS_TWHY("\"%.*s\" names no parameter", (int)l, f);
			p = &s->p[i];
		}
		fact = &p->fact;
		if (fact->role)
			VS_TWHY("%.*s has two facts", (int)nl, f);
		r = f + nl + 1;
		rl = strcspn(r, ", ");
		for (k = 1; k < sizeof(vs_troles) / sizeof(vs_troles[0]); k++)
			if (strlen(vs_troles[k]) == rl &&
			    !strncmp(vs_troles[k], r, rl))
				break;
		if (k == sizeof(vs_troles) / sizeof(vs_troles[0]))
			VS_TWHY("%.*s: %.*s is no role (h, hout, end, in, out, "
				"inout, buf, str, free)", (int)nl, f, (int)rl, r);
		fact->role = (unsigned char)k;
		fact->len_arg = -1;
		for (m = r + rl; *m == ','; m += rl) {
			m++;
			rl = strcspn(m, ", ");
			if (vs_tmodifier(s, p, fact, m, rl, why, whylen))
				return -1;
		}
		f = m;
	}
	return 0;
}

const char *vs__trole_name(unsigned int role)
{
	return role && role < sizeof(vs_troles) / sizeof(vs_troles[0]) ?
		       vs_troles[role] : "none";
}
