#!/usr/bin/env bash
# A plain verbs program (test/dropin/plain_verbs.c), linked with -lverbshim
# and no -libverbs: it carries no rdma-core dependency, the header macros'
# targets are ours, and it runs (no device here: the no-device answers).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/dropin/plain_verbs
[ -x "$bin" ] || { echo "no $bin: run make tests"; exit 1; }

needed=$(readelf -d "$bin" | awk '/NEEDED/ {print $NF}' | tr -d '[]')
if echo "$needed" | grep -E 'libibverbs|librdmacm|libefa'; then
	echo "$bin depends on rdma-core at link time: $needed"
	exit 1
fi
# ibv_reg_mr() with run-time access expands to ibv_reg_mr_iova2(),
# ibv_query_port() to the compat ibv_query_port symbol, ibv_query_gid_ex()
# to _ibv_query_gid_ex(): all defined inside the binary, none undefined.
symbols=$(nm "$bin")
for sym in ibv_reg_mr_iova2 ibv_query_port _ibv_query_gid_ex _ibv_query_gid_table rsocket rfcntl; do
	grep -qE " [Tt] $sym\$" <<<"$symbols" || { echo "$sym is not defined in $bin"; exit 1; }
done
if nm -u "$bin" | grep -E ' (ibv_|_ibv_|rdma_|efadv_|r[a-z]+$)' | grep -vE ' (read|recv|realloc|rewind|rmdir|raise|rename)'; then
	echo "$bin leaves rdma-core symbols undefined"
	exit 1
fi
echo "NEEDED: $(echo $needed)"
"$bin"
