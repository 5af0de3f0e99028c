# Sourced by shell tests: the rows of VS_LIBRARIES (shim/loader/vs_shim.h) as
# "lib LIB soname probe needs_ibverbs priority", one a line, read from the
# source so that a new row is tested for free.
vs_library_rows() {
	sed -n '/^#define VS_LIBRARIES(L)/,/^$/p' shim/loader/vs_shim.h | tr -d '\\\n\t' |
		grep -oE 'L\([^)]*\)' |
		sed -E 's/L\(([a-z0-9_]+), *([A-Z0-9_]+), *"([^"]+)", *"([^"]+)", *"[^"]*", *([01]), *"[^"]*", *"([a-z]+)"\)/\1 \2 \3 \4 \5 \6/'
}
