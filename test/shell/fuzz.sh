#!/usr/bin/env bash
# The libFuzzer targets (test/fuzz/*.c), built with clang, ASan and UBSan,
# each run for a bounded number of executions ($VS_FUZZ_RUNS, default
# 20000; `make fuzz` is the long run).  Skips when clang cannot link
# -fsanitize=fuzzer.
set -u
cd "$(dirname "$0")/../.."
runs=${VS_FUZZ_RUNS:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v clang >/dev/null || { echo "skip: clang is not installed (scripts/deps.sh installs it)"; exit 77; }
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$tmp/probe.c"
clang -fsanitize=fuzzer -o "$tmp/probe" "$tmp/probe.c" >/dev/null 2>&1 ||
	{ echo "skip: clang cannot link -fsanitize=fuzzer (libFuzzer missing)"; exit 77; }
if ! make -s -j"$(nproc)" BUILD=build/fuzz CC=clang SAN=fuzz fuzzers >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log"; echo "fuzz: build failed"; exit 1
fi
fails=0
for f in build/fuzz/fuzz/*; do
	if "$f" -runs="$runs" >"$tmp/run.log" 2>&1; then
		echo "$(basename "$f"): $runs executions, no finding"
	else
		echo "FAIL $(basename "$f"):"; tail -30 "$tmp/run.log"; fails=$((fails + 1))
	fi
done
[ $fails -eq 0 ]
