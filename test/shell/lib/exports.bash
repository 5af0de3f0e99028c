# Helpers for test/shell/*.sh (sourced; bash).

# public_functions LIB.so: the public function names a real rdma-core
# library exports, one per line, sorted: every node but *_PRIVATE_*, and
# not the no-op ibv_register_driver.  objdump -T prints
# "addr flags DF .text size NODE name", hidden compat versions with the
# node in parentheses.
public_functions() {
	objdump -T "$1" | awk '$3 == "DF" && $4 == ".text" {print $(NF-1), $NF}' |
		tr -d '()' | grep -v '_PRIVATE_' |
		awk '$2 != "ibv_register_driver" {print $2}' | sort -u
}

# defined_functions ARCHIVE: the functions an archive defines, sorted.
defined_functions() {
	nm -g --defined-only "$1" | awk 'NF == 3 && $2 == "T" {print $3}' | sort -u
}
