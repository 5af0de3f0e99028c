#!/usr/bin/env bash
# Symbol hygiene of the archive:
# - no reference to rdma-core's private ABI (ibv_cmd_*, verbs_*, ...),
#   nor to the no-op ibv_register_driver, nor to any rdma-core symbol it
#   does not define itself;
# - every global symbol it defines is public API (declared by
#   include/verbshim.h), an rdma-core drop-in (a row of shim/loader/syms_*.h), or
#   an internal with the reserved vs__ prefix;
# - each member that defines drop-ins defines one family and nothing else,
#   so that a program links only the families it uses: one defining its
#   own rclose()/rpoll() and using rdma_* links as it does with -lrdmacm,
#   and one defining the names of the shim's internals (vs_lookup) links;
# - a shared object that links it does not export ibv_* (an unversioned
#   definition there would capture other libraries' references), unless
#   built with VISIBILITY=default, the documented opt-in;
# - the environment read only by shim/loader/knob_env.c (secure_getenv), and
#   libibverbs' fork variables by shim/dropin/fallback_ibverbs.c.
set -euo pipefail
cd "$(dirname "$0")/../.."
archive=lib/libverbshim.a
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "$@"; status=1; }

undefined=$(nm -u "$archive" | awk 'NF == 2 {print $2}' | sort -u)
defined=$(nm -g --defined-only "$archive" | awk 'NF == 3 {print $3}' | sort -u)
private=$(echo "$undefined" | grep -E '^(ibv_cmd_|_?verbs_|ibv_register_driver|__ibv_|ibv_static_providers|execute_ioctl|_execute_ioctl)' || true)
[ -z "$private" ] || fail "private ABI referenced:" $private
foreign=$(comm -23 <(echo "$undefined" | grep -E '^_*(ibv_|rdma_|efadv_|mlx[45]dv_|umad_)' || true) <(echo "$defined"))
[ -z "$foreign" ] || fail "rdma-core symbols used but not defined:" $foreign
if strings -a "$archive" | grep -E 'IBVERBS_PRIVATE_[0-9]'; then
	fail "a private version node is named in the archive"
fi

# The drop-ins: every row of every library's list, with its family (the
# library, and rsockets apart from the rest of librdmacm), and the
# compatibility entries for private symbols (shim/loader/vs_rdma_headers.h).
cat >"$tmp/rows.c" <<'ROWS'
#include "loader/vs_shim.h"
#define VS_ROW(node, name, ret, params, args, conv, facts) VS_DROPIN name
#define VS_LIB_ROWS(lib, LIB, ...) VS_##LIB##_SYMBOLS(VS_ROW)
VS_LIBRARIES(VS_LIB_ROWS)
#define VS_RSOCKET(node, name, ret, params, args, conv, facts) VS_RSOCKET_ROW name
VS_RDMACM_RSOCKET_SYMBOLS(VS_RSOCKET)
#define VS_COMPAT(name) VS_DROPIN name
VS_COMPAT_ENTRIES(VS_COMPAT)
ROWS
$cc -E -P -D_GNU_SOURCE -Iinclude -Ishim -Ibuild/gen "$tmp/rows.c" >"$tmp/rows.i"
dropins=$(grep -o 'VS_DROPIN [A-Za-z0-9_]*' "$tmp/rows.i" | awk '{print $2}' | sort -u)
[ "$(echo "$dropins" | wc -l)" -gt 100 ] || fail "could not list the drop-ins from shim/loader/syms_*.h"

# Every global definition: public, drop-in or vs__.
others=$(comm -23 <(echo "$defined") <(echo "$dropins") | grep -v '^vs__' || true)
{
	echo '#include <verbshim.h>'
	for s in $others; do echo "__typeof__($s) *vs_hygiene_$s = &$s;"; done
} >"$tmp/public.c"
if ! $cc -std=c11 -D_GNU_SOURCE -Iinclude -Ibuild/gen -c -o "$tmp/public.o" "$tmp/public.c" 2>"$tmp/public.err"; then
	undeclared=$(grep -o "‘[A-Za-z0-9_]*’ undeclared\|'[A-Za-z0-9_]*' undeclared" "$tmp/public.err" |
		tr -d "‘’'" | awk '{print $1}' | sort -u)
	[ -n "$undeclared" ] || cat "$tmp/public.err"
	fail "global symbols that are neither public API (include/), a drop-in, nor vs__*: " $undeclared
fi

# Families per member (rdma-core's libraries, rsockets apart): a member defining drop-ins defines nothing else,
# and drop-ins of one family only.
family() {	# NAME -> family
	case $1 in
	_ibv_* | ibv_* | *_to_ibv_rate) echo ibverbs ;;
	rdma_*) echo rdmacm ;;
	efadv_*) echo efa ;;
	mlx5dv_* | _mlx5dv_* | __mlx5dv_*) echo mlx5 ;;
	mlx4dv_*) echo mlx4 ;;
	umad_*) echo umad ;;
	hnsdv_*) echo hns ;;
	manadv_*) echo mana ;;
	ionic_dv_*) echo ionic ;;
	*) echo rsocket ;;
	esac
}
while read -r member; do
	syms=$(nm -g --defined-only "$archive" 2>/dev/null | awk -v m="$member:" '$0 == m {on = 1; next} /:$/ {on = 0} on && NF == 3 {print $3}' | sort -u)
	ours=$(comm -12 <(echo "$syms") <(echo "$dropins"))
	[ -n "$ours" ] || continue
	rest=$(comm -23 <(echo "$syms") <(echo "$dropins"))
	[ -z "$rest" ] || fail "$member defines drop-ins and also:" $rest
	fams=$(for s in $ours; do family "$s"; done | sort -u)
	[ "$(echo "$fams" | wc -l)" -eq 1 ] || fail "$member mixes drop-in families:" $fams
	# The rsockets rows are exactly the rsocket family.
	if [ "$fams" = rsocket ] && [ -n "$(comm -23 <(echo "$ours") <(grep -o 'VS_RSOCKET_ROW [a-z_]*' "$tmp/rows.i" | awk '{print $2}' | sort -u))" ]; then
		fail "$member: rsocket family holds non-rsocket rows"
	fi
done < <(ar t "$archive")

# A program that uses rdma_* and ibv_* and defines its own rclose() and
# rpoll() links, with -lrdmacm and with the archive alike, and its own
# definitions are the ones called.
cat >"$tmp/own_rclose.c" <<'PROG'
#include <poll.h>
#include <rdma/rdma_cma.h>
int rclose(int socket) { return socket + 1; }
int rpoll(struct pollfd *fds, nfds_t nfds, int timeout) { (void)fds; return (int)nfds + timeout; }
int main(int argc, char **argv)
{
	if (argc > 1) {	/* never run: only makes the references */
		rdma_destroy_event_channel(rdma_create_event_channel());
		ibv_free_device_list(ibv_get_device_list(0));
	}
	(void)argv;
	return rclose(41) == 42 && rpoll(0, 1, 1) == 2 ? 0 : 1;
}
PROG
if ! $cc -o "$tmp/own_rclose.rdmacm" "$tmp/own_rclose.c" -lrdmacm -libverbs 2>"$tmp/ref.err"; then
	cat "$tmp/ref.err"; fail "reference link with -lrdmacm -libverbs failed (rdma-core dev packages?)"
fi
if $cc -o "$tmp/own_rclose" "$tmp/own_rclose.c" "$archive" -ldl -lpthread 2>"$tmp/link.err"; then
	"$tmp/own_rclose" || fail "a program's own rclose()/rpoll() are not the ones it calls"
else
	cat "$tmp/link.err"; fail "a program defining its own rclose() and rpoll() does not link with $archive"
fi

# A program that happens to define names like the shim's internals.
cat >"$tmp/own_names.c" <<'PROG'
#include <verbshim.h>
void *vs_lookup(void *handle, int versioned, const char *name, int node);
void *vs_lookup(void *handle, int versioned, const char *name, int node)
{ (void)handle; (void)versioned; (void)name; return (void *)(long)node; }
int vs_nodes, vs_ibverbs, vs_rdmacm, vs_efa, vs_ibverbs_once;
void vs_lib_load(void);
void vs_lib_load(void) {}
void vs_ensure_ibverbs(void);
void vs_ensure_ibverbs(void) {}
int main(void)
{
	struct vs_library_info info;
	struct ibv_device **list;

	vs_library_query(VS_LIB_IBVERBS, &info);
	list = ibv_get_device_list(0);
	if (list)
		ibv_free_device_list(list);
	return vs_lookup(0, 0, 0, 3) != (void *)3;
}
PROG
if $cc -Iinclude -o "$tmp/own_names" "$tmp/own_names.c" "$archive" -ldl -lpthread 2>"$tmp/names.err"; then
	"$tmp/own_names" || fail "a program's own vs_lookup() is not the one it calls"
else
	grep -E 'multiple definition' "$tmp/names.err" | head -5
	fail "a program defining vs_lookup and friends does not link with $archive"
fi

# The environment is read in one place: every VERBSHIM_ knob through
# shim/loader/knob_env.c's secure_getenv (setuid programs ignore them:
# test/shell/setuid_knobs.sh); besides, libibverbs' own RDMAV_FORK_SAFE
# and IBV_FORK_SAFE, read as libibverbs reads them (shim/dropin/fallback_ibverbs.c).
readers=$(nm -A "$archive" 2>/dev/null | awk '$(NF-1) == "U" && $NF ~ /^(secure_)?getenv(@.*)?$/ {split($1, m, ":"); print m[2] ":" $NF}' | sort -u | tr '\n' ' ')
[ "$readers" = "fallback_ibverbs.o:getenv knob_env.o:secure_getenv " ] ||
	fail "the environment is read outside shim/loader/knob_env.c's vs__knob() (and fallback_ibverbs.c's fork variables): $readers"

# A shared object linking the whole archive.
echo 'int hygiene_probe(void) { return 0; }' >"$tmp/probe.c"
$cc -shared -fPIC -o "$tmp/default.so" "$tmp/probe.c" \
	-Wl,--whole-archive "$archive" -Wl,--no-whole-archive -ldl -lpthread
exported=$(nm -D --defined-only "$tmp/default.so" | awk '{print $3}' | grep -E '^(_*(ibv_|rdma_|efadv_|mlx[45]dv_|umad_)|r[a-z]+$|vs_)' || true)
[ -z "$exported" ] || fail "a shared object linking $archive exports:" $(echo "$exported" | head)

# The opt-in: VISIBILITY=default exports them.
make -s -j"$(nproc)" BUILD="$tmp/export" VISIBILITY=default "$tmp/export/libverbshim.a" >/dev/null 2>&1
$cc -shared -fPIC -o "$tmp/export.so" "$tmp/probe.c" \
	-Wl,--whole-archive "$tmp/export/libverbshim.a" -Wl,--no-whole-archive -ldl -lpthread
grep -q ' T ibv_get_device_list$' <<<"$(nm -D --defined-only "$tmp/export.so")" ||
	fail "VISIBILITY=default does not export ibv_get_device_list"
[ $status -eq 0 ] &&
	echo "no private ABI, nothing undefined from rdma-core, every global public, a drop-in or vs__, families apart, nothing exported by default ($(echo "$defined" | wc -l) definitions)"
exit $status
