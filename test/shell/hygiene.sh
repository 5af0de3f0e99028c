#!/usr/bin/env bash
# Symbol hygiene of the archive:
# - no reference to rdma-core's private ABI (ibv_cmd_*, verbs_*, ...),
#   nor to the no-op ibv_register_driver, nor to any rdma-core symbol it
#   does not define itself;
# - a shared object that links it does not export ibv_* (an unversioned
#   definition there would capture other libraries' references), unless
#   built with VISIBILITY=default, the documented opt-in.
set -euo pipefail
cd "$(dirname "$0")/../.."
archive=lib/libverbshim.a
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

undefined=$(nm -u "$archive" | awk 'NF == 2 {print $2}' | sort -u)
defined=$(nm -g --defined-only "$archive" | awk 'NF == 3 {print $3}' | sort -u)
private=$(echo "$undefined" | grep -E '^(ibv_cmd_|_?verbs_|ibv_register_driver|__ibv_|ibv_static_providers|execute_ioctl|_execute_ioctl)' || true)
[ -z "$private" ] || { echo "private ABI referenced:"; echo "$private"; exit 1; }
foreign=$(comm -23 <(echo "$undefined" | grep -E '^(_?ibv_|rdma_|efadv_)' || true) <(echo "$defined"))
[ -z "$foreign" ] || { echo "rdma-core symbols used but not defined:"; echo "$foreign"; exit 1; }
if strings -a "$archive" | grep -E 'IBVERBS_PRIVATE_[0-9]'; then
	echo "a private version node is named in the archive"; exit 1
fi

# A shared object linking the whole archive.
echo 'int hygiene_probe(void) { return 0; }' >"$tmp/probe.c"
${CC:-cc} -shared -fPIC -o "$tmp/default.so" "$tmp/probe.c" \
	-Wl,--whole-archive "$archive" -Wl,--no-whole-archive -ldl -lpthread
exported=$(nm -D --defined-only "$tmp/default.so" | awk '{print $3}' | grep -E '^(_?ibv_|rdma_|efadv_|r[a-z]+$|vs_)' || true)
if [ -n "$exported" ]; then
	echo "a shared object linking $archive exports:"; echo "$exported" | head; exit 1
fi

# The opt-in: VISIBILITY=default exports them.
make -s BUILD="$tmp/export" VISIBILITY=default "$tmp/export/libverbshim.a" >/dev/null 2>&1
${CC:-cc} -shared -fPIC -o "$tmp/export.so" "$tmp/probe.c" \
	-Wl,--whole-archive "$tmp/export/libverbshim.a" -Wl,--no-whole-archive -ldl -lpthread
grep -q ' T ibv_get_device_list$' <<<"$(nm -D --defined-only "$tmp/export.so")" ||
	{ echo "VISIBILITY=default does not export ibv_get_device_list"; exit 1; }
echo "no private ABI, nothing undefined from rdma-core, nothing exported by default ($(echo "$defined" | wc -l) definitions)"
