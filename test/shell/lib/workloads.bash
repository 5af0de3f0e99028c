# shellcheck shell=bash
# The real programs the drop-in is proven on, shared by the tests that
# build them on the shim: rdma-core's own examples (trace_examples.sh,
# dropin_arm64.sh) and perftest's client/server plan (perftest.sh,
# dropin_arm64.sh).

# rdma_core_sources SRC REF DEST FILE...: rdma-core's FILEs (paths in its
# tree) into DEST, from a git checkout or mirror at REF, else from the
# directory SRC as it is; then the config.h rdma-core's build generates
# (ccan/minmax.h asks these two).
rdma_core_sources() {
	local src=$1 ref=$2 dest=$3 f
	shift 3
	mkdir -p "$dest"
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$src" archive --format=tar "$ref" "$@" | tar -x -C "$dest" || return 1
		echo "rdma-core examples $ref from $src"
	else
		for f in "$@"; do
			mkdir -p "$dest/$(dirname "$f")"
			cp "$src/$f" "$dest/$f" || return 1
		done
		echo "rdma-core examples from $src"
	fi
	printf '#define HAVE_STATEMENT_EXPR 1\n#define HAVE_TYPEOF 1\n' >"$dest/config.h"
}

# perftest_plan PAIR STOCK SHIM: perftest's runs against a stock peer,
# PAIR NAME SERVER CLIENT ARGS... each (the caller's runner): the
# shim-built programs in SHIM as client of STOCK's, on RC (and UD for the
# send tests), then as server for ib_write_bw and ib_send_bw.
PERFTEST_TESTS=(ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_send_lat ib_atomic_bw)
perftest_plan() {
	local pair=$1 stock=$2 shim=$3 t
	for t in "${PERFTEST_TESTS[@]}"; do
		# (atomics have their fixed 8-byte size)
		if [ "$t" = ib_atomic_bw ]; then
			"$pair" "$t" "$stock/$t" "$shim/$t" -n 200
		else
			"$pair" "$t" "$stock/$t" "$shim/$t" -n 200 -s 4096
		fi
	done
	"$pair" ib_send_bw-UD "$stock/ib_send_bw" "$shim/ib_send_bw" -c UD -n 200 -s 1024
	"$pair" ib_send_lat-UD "$stock/ib_send_lat" "$shim/ib_send_lat" -c UD -n 200 -s 1024
	"$pair" ib_write_bw-shim-server "$shim/ib_write_bw" "$stock/ib_write_bw" -n 200 -s 65536
	"$pair" ib_send_bw-shim-server "$shim/ib_send_bw" "$stock/ib_send_bw" -n 200 -s 8
}
