#!/usr/bin/env bash
# No rdma-core on the machine at all: the loader test's "none" scenario,
# run in a root that holds only the dynamic loader and libc (so the default
# library search finds no libibverbs anywhere).  Needs root for chroot.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/test/unit/loader_stubs
[ -x "$bin" ] || { echo "no $bin: run make tests"; exit 1; }
if [ "$(id -u)" != 0 ]; then
	echo "skip: needs root to chroot into an rdma-core-free root"
	exit 77
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

# The binary and exactly the libraries it needs (libc, ld.so).
mkdir -p "$root/bin" "$root/tmp"
cp "$bin" "$root/bin/"
for lib in $(ldd "$bin" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
if find "$root" -name 'libibverbs*' | grep -q .; then
	echo "the test root unexpectedly holds libibverbs"; exit 1
fi
chroot "$root" /bin/loader_stubs none
