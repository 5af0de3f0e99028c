# shellcheck shell=bash
# How the unit tests' checked runs fail, the same for make check
# (scripts/check/check.sh), make check-arm64 (scripts/check/check-arm64.sh) and a
# boot's checked set (scripts/vm/guest.sh): valgrind on any error or leak
# it can name, ASan with its leak check, UBSan at its first report, with
# the stack.  (Under qemu-user ASan runs without the leak check.)
# shellcheck disable=SC2034 # read by the scripts that source this
VALGRIND_FLAGS="-q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible"
# shellcheck disable=SC2034
ASAN_CHECKED=detect_leaks=1:abort_on_error=0
# shellcheck disable=SC2034
UBSAN_CHECKED=print_stacktrace=1:halt_on_error=1

# arm64_sanlib BUILD VARIANT: the sanitizer runtimes an arm64 release root
# lacks (libasan, libubsan, libtsan and the libstdc++ they need), copied
# from the cross toolchain into BUILD/sanlib for LD_LIBRARY_PATH.
arm64_sanlib() {
	local l libs='libasan.so.8 libubsan.so.1 libstdc++.so.6'
	[ "$2" = tsan ] && libs='libtsan.so.2 libstdc++.so.6'
	mkdir -p "$1/sanlib" || return 1
	for l in $libs; do
		cp -L "/usr/aarch64-linux-gnu/lib/$l" "$1/sanlib/" || return 1
	done
}
