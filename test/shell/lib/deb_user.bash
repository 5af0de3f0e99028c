# shellcheck shell=bash
# deb_user_project DIR: what a user of the installed packages builds
# (test/shell/deb.sh, deb_arm64.sh): in DIR/cmake a CMake project of
# cxx_loopback over find_package(verbshim), and the typed loopback and
# verbs_loopback examples with their common files for pkg-config and the
# compat directory.
deb_user_project() {
	local proj=$1
	mkdir -p "$proj/cmake" "$proj/common"
	cp test/compat/cmake-package/cxx_loopback.cpp "$proj/cmake/"
	# shellcheck disable=SC2016 # (CMake's variables)
	printf '%s\n' 'cmake_minimum_required(VERSION 3.13)' 'project(deb_user CXX)' \
		'find_package(verbshim 1.0 REQUIRED)' 'message(STATUS "verbshim ${verbshim_VERSION} from ${verbshim_DIR}")' \
		'add_executable(cxx_loopback cxx_loopback.cpp)' 'target_compile_features(cxx_loopback PRIVATE cxx_std_17)' \
		'target_link_libraries(cxx_loopback PRIVATE verbshim::verbshim)' >"$proj/cmake/CMakeLists.txt"
	cp examples/loopback.c examples/verbs_loopback.c "$proj/"
	cp examples/common/ex_common.[ch] "$proj/common/"
}
