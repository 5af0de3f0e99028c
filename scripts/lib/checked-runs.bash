# shellcheck shell=bash
# How the unit tests' checked runs fail, the same for make check
# (scripts/check.sh) and make check-arm64 (scripts/check-arm64.sh):
# valgrind on any error or leak it can name, UBSan at its first report,
# with the stack.  (ASAN_OPTIONS differ: no leak check under qemu-user.)
# shellcheck disable=SC2034 # read by the scripts that source this
VALGRIND_FLAGS="-q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible"
# shellcheck disable=SC2034
UBSAN_CHECKED=print_stacktrace=1:halt_on_error=1
