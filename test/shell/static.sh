#!/usr/bin/env bash
# Static binaries (docs/shipping.md, "Static binaries"):
# - cc -static with libverbshim.a fails at link time (x86_64/aarch64: the
#   archive's pinned libc references are not in libc.a), and GNU ld prints
#   verbshim's warning saying why and what to do;
# - an archive built without the pins (VS_NO_GLIBC_FLOOR: other
#   architectures) does link -static, and then refuses at first use:
#   test/dropin/static_first_use.c checks the error vs_library_query gives;
#   dynamically linked (also started as "ld.so PROGRAM") it is not refused;
# - -static-libgcc works: NEEDED is libc.so.6 alone, and the program runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
archive=lib/libverbshim.a
[ -f "$archive" ] || { echo "no $archive: run make"; exit 1; }
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -e "$($cc -print-file-name=libc.a)" ] || { echo "skip: no libc.a (libc6-dev) for a static link"; exit 77; }
status=0
inc=(-Iinclude -Itest/common)
prog=test/dropin/static_first_use.c

# 1. -static fails at link time, with the reason.
case $(uname -m) in
x86_64 | aarch64)
	if $cc "${inc[@]}" -static -o "$tmp/static" "$prog" "$archive" -ldl -lpthread >"$tmp/ld.log" 2>&1; then
		echo "FAIL: -static linked; expected a link-time failure"; status=1
	elif ! grep -q "verbshim: a statically linked program (-static) cannot load rdma-core.*drop -static" "$tmp/ld.log"; then
		cat "$tmp/ld.log"; echo "FAIL: -static failed without verbshim's explanation"; status=1
	else
		echo "ok   -static: link fails, ld says: $(grep -o 'warning: verbshim: .*' "$tmp/ld.log" | head -n 1)"
	fi
	;;
*) echo "--   $(uname -m): no pins, -static links (with glibc's own warning)" ;;
esac

# 2. Without the pins it links; first use refuses.
nofloor=build/static-nofloor
if make -s -j"$(nproc)" BUILD="$nofloor" CFLAGS=-DVS_NO_GLIBC_FLOOR "$nofloor/libverbshim.a" >"$tmp/make.log" 2>&1 &&
	$cc "${inc[@]}" -static -o "$tmp/static" "$prog" "$nofloor/libverbshim.a" -ldl -lpthread >"$tmp/ld.log" 2>&1; then
	grep -q "warning: verbshim: a statically linked program" "$tmp/ld.log" ||
		{ cat "$tmp/ld.log"; echo "FAIL: no verbshim warning in the -static link"; status=1; }
	if readelf -l "$tmp/static" | grep -q INTERP; then
		echo "FAIL: the -static program has an interpreter"; status=1
	elif "$tmp/static" static >"$tmp/out" 2>&1; then
		echo "ok   -static (no pins): refused at first use: $(grep -o 'error: .*' "$tmp/out" | cut -c1-110)..."
	else
		cat "$tmp/out"; echo "FAIL: the static program was not refused as expected"; status=1
	fi
else
	cat "$tmp/make.log" "$tmp/ld.log"; echo "FAIL: the archive without pins does not link -static"; status=1
fi

# 3. Dynamic (with -static-libgcc): not refused, NEEDED libc.so.6 alone.
$cc "${inc[@]}" -static-libgcc -o "$tmp/dynamic" "$prog" "$archive" -ldl -lpthread
needed=$(readelf -d "$tmp/dynamic" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
[ "$needed" = "libc.so.6 " ] || { echo "FAIL: -static-libgcc: NEEDED $needed (want libc.so.6 alone)"; status=1; }
ldso=$(readelf -l "$tmp/dynamic" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
if "$tmp/dynamic" dynamic >"$tmp/out" 2>&1 && "$ldso" "$tmp/dynamic" dynamic >>"$tmp/out" 2>&1; then
	echo "ok   -static-libgcc: NEEDED $needed; not refused (also as $ldso PROGRAM)"
else
	cat "$tmp/out"; echo "FAIL: the dynamically linked program was refused"; status=1
fi
exit $status
