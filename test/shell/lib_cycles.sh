#!/usr/bin/env bash
# No cycles among the archive's objects, lib/'s and shim/'s, and no layer
# reaching up (docs/ARCHITECTURE.md): from `nm` of each member, an edge
# A -> B when A uses a global B defines (weakly too).  Any cycle fails the test and is
# printed ("a.o -> b.o -> a.o"), and so does any edge from a lib/ object
# of one room to one of a room above it (ROOMS, bottom first), or from a
# trace object of shim/ to one of a layer above it (TRACE_LAYERS).  lib/
# may use shim/, never the other way round (hygiene.sh and the layout
# keep that; a shim/ -> lib/ edge with one back would be a cycle here).
#
#   test/shell/lib_cycles.sh [ARCHIVE]
set -euo pipefail
cd "$(dirname "$0")/../.."
archive=${1:-lib/libverbshim.a}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The rooms of lib/, bottom first: an object may use its own room's and
# those below it, never one above.
ROOMS="base transport core events cm"
# The rooms of shim/, bottom first: the loader, the trace (which every
# table's fill may put in its slots), each library's table object, the
# drop-ins over the tables.
SHIM_ROOMS="loader trace tables dropin"
# The trace's layers in shim/trace/, bottom first (a comma joins one
# layer's objects): every shim/trace/*.c is in one.
TRACE_LAYERS="trace_rows,trace_linked,trace_text,trace_facts trace_hub trace_ids,trace_file,trace_knobs trace_decode trace trace_wrap"
# The sources compiled once per library (the Makefile's PER_LIB_SRCS):
# SRC.c is the members SRC_<lib>.o, each in SRC.c's room and layer.
per_lib=$(sed -n 's/^PER_LIB_SRCS := //p' Makefile)
[ -n "$per_lib" ] || { echo "no PER_LIB_SRCS in the Makefile"; exit 1; }
per_lib_members() { # SRC.c: its members in the archive
	local b=${1##*/}
	ar t "$archive" | grep "^${b%.c}_[a-z0-9]*\.o$"
}
is_per_lib() { [[ " $per_lib " == *" $1 "* ]]; }

# lib/ members: the object names of lib/ROOM/*.c, with their rooms
members=$(for f in lib/*/*.c; do b=${f##*/}; echo "${b%.c}.o"; done | sort)
[ -n "$members" ] || { echo "no lib/ sources"; exit 1; }
nlib=$(echo "$members" | wc -l)
shim_members=$({
	for f in shim/*/*.c; do
		b=${f##*/}
		if is_per_lib "$f"; then per_lib_members "$f"; else echo "${b%.c}.o"; fi
	done
} | sort)
[ -n "$shim_members" ] || { echo "no shim/ sources"; exit 1; }
members=$(printf '%s\n%s\n' "$members" "$shim_members" | sort)
for d in lib/*/; do
	r=${d%/}; r=${r#lib/}
	[[ " $ROOMS " == *" $r "* ]] || { echo "lib/$r/ is not a room of ROOMS ($ROOMS): add it in its place (docs/ARCHITECTURE.md)"; exit 1; }
done
for d in shim/*/; do
	r=${d%/}; r=${r#shim/}
	[[ " $SHIM_ROOMS " == *" $r "* ]] || { echo "shim/$r/ is not a room of SHIM_ROOMS ($SHIM_ROOMS): add it in its place (docs/ARCHITECTURE.md)"; exit 1; }
done
for f in lib/*.c shim/*.c shim/*.h; do
	[ -e "$f" ] && { echo "$f: every lib/ and shim/ source lives in a room (lib/ROOM/, shim/ROOM/)"; exit 1; }
done
rank=0
for r in $ROOMS; do
	for f in lib/"$r"/*.c; do [ -e "$f" ] && b=${f##*/} && echo "${b%.c}.o $rank $r"; done
	rank=$((rank + 1))
done >"$tmp/rooms"
# shim/ is below lib/: its rooms rank below lib/'s (negative), so a shim/
# object that used lib/ would be an up-edge too
rank=-$(echo $SHIM_ROOMS | wc -w)
for r in $SHIM_ROOMS; do
	for f in shim/"$r"/*.c; do
		[ -e "$f" ] || continue
		b=${f##*/}
		if is_per_lib "$f"; then
			per_lib_members "$f" | sed "s/$/ $rank shim\/$r/"
		else
			echo "${b%.c}.o $rank shim/$r"
		fi
	done
	rank=$((rank + 1))
done >>"$tmp/rooms"
rank=0
for l in $TRACE_LAYERS; do
	for o in ${l//,/ }; do
		[ -e "shim/trace/$o.c" ] || { echo "TRACE_LAYERS names $o, but there is no shim/trace/$o.c"; exit 1; }
		if is_per_lib "shim/trace/$o.c"; then
			per_lib_members "shim/trace/$o.c" | sed "s/$/ $rank/"
		else
			echo "$o.o $rank"
		fi
	done
	rank=$((rank + 1))
done >"$tmp/layers"
for f in shim/trace/*.c; do
	b=${f##*/}
	o=${b%.c}.o
	is_per_lib "$f" && o=$(per_lib_members "$f" | head -n 1)
	grep -q "^$o " "$tmp/layers" ||
		{ echo "$f is in no layer of TRACE_LAYERS ($TRACE_LAYERS): add it in its place (docs/ARCHITECTURE.md)"; exit 1; }
done
nm -A "$archive" >"$tmp/nm" 2>/dev/null || { echo "nm $archive failed"; exit 1; }

# edges "from to symbol" (the first symbol that makes each, for the report)
awk -v members="$members" -F'[: ]+' '
	BEGIN { split(members, m, "\n"); for (i in m) lib[m[i]] = 1 }
	# archive:member: [value] type name
	!($2 in lib) { next }
	{ seen[$2] = 1 }
	# a weak reference ("w": shim/tables/introspect.c, shim/trace/trace_linked.c)
	# links nothing, but what it reaches is still used: an edge as well
	$(NF-1) == "U" || $(NF-1) == "w" { use[$2, $NF] = 1; uses[$2] = uses[$2] " " $NF; next }
	NF >= 4 && $(NF-1) ~ /^[TDBRVWGS]$/ { def[$NF] = $2 }
	END {
		for (i in m) if (!(m[i] in seen)) { print "missing " m[i]; bad = 1 }
		if (bad) exit 1
		for (a in uses) {
			n = split(uses[a], u, " ")
			for (j = 1; j <= n; j++) {
				b = def[u[j]]
				if (b != "" && b != a && !((a, b) in done)) {
					done[a, b] = 1; print a, b, u[j]
				}
			}
		}
	}' "$tmp/nm" >"$tmp/edges" || { grep missing "$tmp/edges"; echo "(not in $archive)"; exit 1; }

# no room reaching up
awk 'NR == FNR { rank[$1] = $2; room[$1] = $3; next }
     ($1 in rank) && ($2 in rank) && rank[$2] + 0 > rank[$1] + 0 {
	print "up: " $1 " (" room[$1] ") uses " $3 " of " $2 " (" room[$2] ")"; bad = 1 }
     END { exit bad }' "$tmp/rooms" "$tmp/edges" || exit 1
awk 'NR == FNR { layer[$1] = $2; next }
     ($1 in layer) && ($2 in layer) && layer[$2] + 0 > layer[$1] + 0 {
	print "up: " $1 " (trace layer " layer[$1] ") uses " $3 " of " $2 " (trace layer " layer[$2] ")"; bad = 1 }
     END { exit bad }' "$tmp/layers" "$tmp/edges" || exit 1

# depth-first search for a back edge; prints the first cycle found
awk '
	{ n[$1]++; to[$1, n[$1]] = $2; why[$1, $2] = $3; nodes[$1]; nodes[$2] }
	function dfs(v,    i, w, j, s) {
		color[v] = 1; stack[++sp] = v
		for (i = 1; i <= n[v]; i++) {
			w = to[v, i]
			if (color[w] == 1) {
				s = ""
				for (j = 1; j <= sp; j++) if (stack[j] == w) break
				for (; j <= sp; j++)
					s = s stack[j] " -(" why[stack[j], (j < sp ? stack[j+1] : w)] ")-> "
				print "cycle: " s w
				found = 1
				return
			}
			if (!color[w]) { dfs(w); if (found) return }
		}
		color[v] = 2; sp--
	}
	END {
		for (v in nodes) if (!color[v] && !found) dfs(v)
		exit found
	}' "$tmp/edges" || exit 1
echo "0 cycles among $(echo "$members" | wc -l) objects ($nlib of lib/, the rest shim/'s; $(wc -l <"$tmp/edges") edges), none reaching up across the rooms (shim/: $SHIM_ROOMS; lib/: $ROOMS) nor the trace's layers ($TRACE_LAYERS)"
