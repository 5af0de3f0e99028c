#!/usr/bin/env bash
# Creates and submits are warn_unused_result (VS_MUST_CHECK): a call whose
# result is dropped warns, with gcc and clang, as C and as C++.  Each call
# is compiled alone with -Werror=unused-result and must fail; the same call
# with its result used must compile.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
calls=(
	'vs_device_open("x", &ctx)'
	'vs_pd_alloc(ctx, &pd)'
	'vs_mr_alloc(pd, 64, 0, &mr)'
	'vs_mr_register(pd, buf, 64, 0, &mr)'
	'vs_mr_register_dmabuf(pd, 3, 0, 64, 0, 0, &mr)'
	'vs_cq_create(ctx, NULL, &cq)'
	'vs_srq_create(pd, NULL, &srq)'
	'vs_rc_qp_create(pd, NULL, &rc)'
	'vs_uc_qp_create(pd, NULL, &uc)'
	'vs_ud_qp_create(pd, NULL, &ud)'
	'vs_ud_handshake(ud, &ep, &dest)'
	'vs_rc_batch_submit(&rb)'
	'vs_uc_batch_submit(&ub)'
	'vs_ud_batch_submit(&db)'
	'vs_recv_submit(&recv)'
	'vs_cm_resolve("h", "1", NULL, &cm)'
	'vs_cm_resolve_addr(NULL, NULL, &cm)'
	'vs_cm_listen(NULL, "1", NULL, &cm)'
	'vs_cm_get_request(cm, 0, &cm)'
	'vs_cm_rc_qp_create(cm, pd, NULL, &rc)'
	'vs_cm_ud_qp_create(cm, pd, NULL, &ud)'
	'vs_cm_rc_client("h", "1", NULL, NULL, NULL, &cm)'
	'vs_cm_rc_serve(cm, NULL, NULL, &cm)'
	'vs_cm_ud_dest(cm, &dest)'
	'vs_srd_qp_create(pd, NULL, &srd)'
	'vs_srd_handshake(srd, &ep, &sdest)'
	'vs_srd_batch_submit(&sb)'
	'vs_channel_create(ctx, &ch)'
	'vs_cm_channel_create(&cmch)'
	'vs_cm_create_ep("h", "1", NULL, NULL, &cm)'
	'vs_cq_wait_wr(cq, 1, 2, VS_WAIT_POLL, 0, &wc)'
	'vs_scope_begin(&sc, VS_WAIT_POLL)'
	'vs_scope_end(&sc, 0, &wc)'
	'vs_scope_rc_batch_start(&sc, rc, &rb)'
	'vs_scope_uc_batch_start(&sc, uc, &ub)'
	'vs_scope_ud_batch_start(&sc, ud, &db)'
	'vs_scope_wait(&sc, 1, 0, &wc)'
)
# Every VS_MUST_CHECK declaration of include/ is in the list above: a new
# one cannot go untested.
missing=$(comm -23 \
	<(grep -h -A2 '^VS_MUST_CHECK' include/verbshim/*.h | grep -o 'vs_[a-z0-9_]*(' | tr -d '(' | sort -u) \
	<(printf '%s\n' "${calls[@]}" | grep -o '^vs_[a-z0-9_]*' | sort -u))
[ -z "$missing" ] || { echo "FAIL: VS_MUST_CHECK calls not in this test's list:" $missing; exit 1; }
compilers=()
for cc in gcc clang; do command -v $cc >/dev/null && compilers+=("$cc"); done
[ ${#compilers[@]} -gt 0 ] || { echo "no compiler"; exit 77; }
# One compiler and language: every call dropped must fail to compile, all
# of them used must compile.  Prints its count of compiles on success.
check_combo() {	# CC LANG DIR
	local cc=$1 lang=$2 dir=$3 checked=0 keep= use stmt std
	mkdir -p "$dir"
	{
		keep=
		for call in "${calls[@]}"; do keep="$keep if ($call) return 1;"; done
		for call in "${calls[@]}" keep; do
			use=drop stmt="$call;"
			[ "$call" = keep ] && use=keep stmt=$keep
				cat >"$dir/t.c" <<-EOT
				#include <verbshim.h>
				int f(void);
				int f(void)
				{
					static char buf[64];
					struct vs_context *ctx = 0; struct vs_pd *pd = 0;
					struct vs_mr *mr = 0; struct vs_cq *cq = 0;
					struct vs_srq *srq = 0; struct vs_rc_qp *rc = 0;
					struct vs_uc_qp *uc = 0; struct vs_ud_qp *ud = 0;
					struct vs_endpoint ep; struct vs_ud_dest dest;
					struct vs_rc_batch rb; struct vs_uc_batch ub;
					struct vs_ud_batch db; struct vs_recv_batch recv;
					struct vs_cm_id *cm = 0; (void)cm;
					(void)buf; (void)ctx; (void)pd; (void)mr; (void)cq;
					(void)srq; (void)rc; (void)uc; (void)ud; (void)ep;
					(void)dest; (void)rb; (void)ub; (void)db; (void)recv;
					struct vs_srd_qp *srd = 0; struct vs_srd_dest sdest;
					struct vs_srd_batch sb;
					(void)srd; (void)sdest; (void)sb;
					struct vs_channel *ch = 0; struct vs_cm_channel *cmch = 0;
					struct vs_wc wc; struct vs_scope sc;
					(void)ch; (void)cmch; (void)wc; (void)sc;
					$stmt
					return 0;
				}
				EOT
				std=-std=c11
				[ $lang = c++ ] && std=-std=c++17
				if $cc -x $lang $std -D_GNU_SOURCE -Iinclude -Wall -Werror=unused-result \
					-Wno-uninitialized -Wno-maybe-uninitialized -Wno-unknown-warning-option \
					-c -o "$dir/t.o" "$dir/t.c" 2>"$dir/err"; then
					[ $use = keep ] || { echo "FAIL ($cc $lang): dropping $call compiles"; exit 1; }
				else
					[ $use = drop ] || { echo "FAIL ($cc $lang): $call with its result used:"; cat "$dir/err"; exit 1; }
					grep -q 'unused-result\|warn_unused_result\|ignoring return value' "$dir/err" ||
						{ echo "FAIL ($cc $lang): $call: not the unused-result diagnostic:"; cat "$dir/err"; exit 1; }
				fi
			checked=$((checked + 1))
		done
	}
	echo "$checked"
}

# The four compiler and language pairs side by side, each in its own dir.
pids=() outs=()
for cc in "${compilers[@]}"; do
	for lang in c c++; do
		out=$tmp/$cc-${lang/++/xx}
		check_combo "$cc" "$lang" "$out.d" >"$out.log" 2>&1 &
		pids+=($!) outs+=("$out.log")
	done
done
checked=0 status=0
for i in "${!pids[@]}"; do
	if wait "${pids[$i]}"; then
		checked=$((checked + $(tail -n 1 "${outs[$i]}")))
	else
		cat "${outs[$i]}"
		status=1
	fi
done
[ $status -eq 0 ] || exit 1
echo "must-check: ${#calls[@]} creates and submits, $checked compiles (${compilers[*]}, C and C++)"
