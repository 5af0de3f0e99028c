#!/usr/bin/env bash
# The reader of the test registry (test/tests.list) and of the VM stage's
# boots (test/boots.list), for scripts/check/check.sh, scripts/vm/stage.sh,
# scripts/vm/guest.sh and the Makefile's slow targets (docs/tests.md).
#
#   scripts/check/tests.sh check                 every test file named, every
#                                          entry's file there, every word known
#   scripts/check/tests.sh list [--build DIR] WHERE...
#                                          what runs, in the registry's order:
#                                          DIR/test/FOLDER/NAME for a C or C++
#                                          test (DIR default build), the
#                                          file for the others
#   scripts/check/tests.sh needs WHERE...        the make targets their entries need
#   scripts/check/tests.sh products WHERE...     the products (@product) they need
#   scripts/check/tests.sh make-product NAME     made again when missing or stale
#   scripts/check/tests.sh boots WORD...         the lines of test/boots.list a
#                                          word selects (label or group)
#   scripts/check/tests.sh variant WHERE         how a boot runs a checked set:
#                                          asan, valgrind or tsan (exit 1:
#                                          WHERE is no checked set)
#
# WHERE words may be given comma-separated too.
set -euo pipefail
me=tests.sh
cd "$(dirname "$0")/../.."
registry=test/tests.list
boots=test/boots.list

HOST_WHERE="host beside asan valgrind tsan"
VM_WHERE="vm vm-host-root vm-rxe-host-root vm-source-release two-vm vm-paths arm64-smoke release-smoke"
# The checked runs a boot may name as its one set, WHERE=VARIANT: the
# entries of WHERE, run in the guest the way scripts/check/check.sh runs its
# stage VARIANT on the host (asan: the ASan+UBSan build; valgrind: under
# valgrind; tsan: the TSan build).  arm64-asan, arm64-valgrind: the
# subsets of the asan and valgrind entries that the arm64 guest runs
# (TCG is tens of times slower: test/tests.list says why each).
CHECKED_WHERE="asan=asan valgrind=valgrind tsan=tsan arm64-asan=asan arm64-valgrind=valgrind"
SLOW_WHERE="soak check-deb check-arm64 check-rpm check-reproducible check-dlopen check-releases"
MAKE_NEEDS="all tests oldest man pc faults-asan"

files=() wheres=() needs=() lines=()
declare -A product_by product_out product_in
support=()
n=0
while read -r a b c rest; do
	n=$((n + 1))
	case $a in '' | '#'*) continue ;; esac
	case $a in
	@product)
		product_by[$b]=$c
		product_out[$b]=${rest%% *}
		product_in[$b]=${rest#* }
		;;
	@support) support+=("$b") ;;
	@*) echo "$me: $registry:$n: unknown directive $a" >&2; exit 1 ;;
	*)
		files+=("$a") wheres+=(",$b,") needs+=("$c") lines+=("$n") ;;
	esac
done <"$registry"

# matches ENTRY-INDEX WHERE...: the entry runs in one of them
matches() {
	local i=$1 w
	shift
	for w in "$@"; do
		[[ ${wheres[$i]} == *",$w,"* ]] && return 0
	done
	return 1
}

split_words() { local s="$*"; echo "${s//,/ }"; }

# variant_of WHERE: the variant a boot runs that checked set in
variant_of() {
	local c
	for c in $CHECKED_WHERE; do
		[ "${c%%=*}" = "$1" ] && { echo "${c#*=}"; return 0; }
	done
	return 1
}

checked_words() { local c out=''; for c in $CHECKED_WHERE; do out+=" ${c%%=*}"; done; echo "${out# }"; }

# checked_only: the checked sets that only a boot runs (no host stage)
checked_only() {
	local c
	for c in $CHECKED_WHERE; do
		[[ " $HOST_WHERE " == *" ${c%%=*} "* ]] || echo "${c%%=*}"
	done
}

check() {
	local i w f bad=0 known=" $HOST_WHERE $VM_WHERE $SLOW_WHERE " p s c
	for c in $CHECKED_WHERE; do
		[[ $known == *" ${c%%=*} "* ]] || known+="${c%%=*} "
	done
	declare -A named
	for i in "${!files[@]}"; do
		f=test/${files[$i]}
		[ -z "${named[$f]:-}" ] || { echo "$registry:${lines[$i]}: $f named twice"; bad=1; }
		named[$f]=1
		[ -f "$f" ] || { echo "$registry:${lines[$i]}: $f: no such file (remove the line, or restore the file)"; bad=1; }
		for w in ${wheres[$i]//,/ }; do
			[[ $known == *" $w "* ]] || { echo "$registry:${lines[$i]}: $f: unknown WHERE '$w' (one of:$known)"; bad=1; }
		done
		for w in ${needs[$i]//,/ }; do
			[ "$w" = - ] && continue
			[[ " $MAKE_NEEDS " == *" $w "* ]] || [ -n "${product_by[$w]:-}" ] ||
				{ echo "$registry:${lines[$i]}: $f: unknown NEEDS '$w' (make targets $MAKE_NEEDS, or an @product)"; bad=1; }
		done
	done
	for p in "${!product_by[@]}"; do
		[ -n "${named[test/${product_by[$p]}]:-}" ] || { echo "$registry: @product $p: made by ${product_by[$p]}, which is no entry"; bad=1; }
	done
	for s in "${support[@]}"; do
		[ -e "test/$s" ] || { echo "$registry: @support $s: no test/$s"; bad=1; }
	done
	# Every file under test/: an entry's, or under a @support path.
	while IFS= read -r -d '' f; do
		[ -n "${named[$f]:-}" ] && continue
		for s in "${support[@]}"; do
			case $f in "test/$s" | "test/$s"/*) continue 2 ;; esac
		done
		echo "$f: a test no entry of $registry names (add a line: FILE WHERE NEEDS, docs/tests.md)"
		bad=1
	done < <(find test -type f -print0 | sort -z)
	# The boots: known words, and every VM WHERE run by some boot.
	local label arch kernel prov root guests sets ran=" "
	while read -r label _ arch kernel prov root guests sets; do
		case $label in '' | '#'*) continue ;; esac
		[ -n "$sets" ] || { echo "$boots: $label: fewer than 8 columns"; bad=1; continue; }
		case $arch/$guests in
		x86_64/* | arm64/*) ;;
		arm64+x86_64/2 | x86_64+arm64/2) ;;
		*) echo "$boots: $label: ARCH is x86_64 or arm64 (SERVER+CLIENT, as arm64+x86_64, for GUESTS 2), not $arch"; bad=1 ;;
		esac
		case $prov in rxe | siw | -) ;; *) echo "$boots: $label: unknown provider $prov"; bad=1 ;; esac
		case $guests in 0 | 1 | 2) ;; *) echo "$boots: $label: GUESTS is 0, 1 or 2, not $guests"; bad=1 ;; esac
		for w in ${sets//,/ }; do
			if [ "$w" = trace ]; then
				# a mode, not a set: its boot's tests under the trace
				# (scripts/vm/trace-wrap.sh), one guest, besides a set
				if [ "$sets" = trace ] || [ "$guests" != 1 ] || variant_of "${sets%%,*}" >/dev/null; then
					echo "$boots: $label: trace traces a one-guest boot's sets: it is no set of its own, nor with a checked set"
					bad=1
				fi
				continue
			fi
			if [ "$w" = ud-self-lost ]; then
				# a permission, not a set: its one-guest rxe boot may
				# skip naming datagrams to this machine lost
				# (scripts/vm/guest.sh)
				if [ "$sets" = ud-self-lost ] || [ "$guests" != 1 ] || [ "$prov" != rxe ]; then
					echo "$boots: $label: ud-self-lost allows a skip in a one-guest rxe boot's sets: it is no set of its own"
					bad=1
				fi
				continue
			fi
			if [ "$w" = rxe-5.10-bugs ]; then
				# a permission, not a set: a skip naming kernel
				# 5.10's rxe (test/common/vs_typed.h's vs_t_rxe510),
				# in a one-guest rxe boot of that kernel only
				if [ "$sets" = rxe-5.10-bugs ] || [ "$guests" != 1 ] || [ "$prov" != rxe ] || [ "$kernel" != bullseye ]; then
					echo "$boots: $label: rxe-5.10-bugs allows a skip in a one-guest rxe boot of kernel 5.10 (bullseye)'s sets: it is no set of its own"
					bad=1
				fi
				continue
			fi
			if variant_of "$w" >/dev/null; then
				# its own build (build/asan, build/arm64/asan, ...), its
				# own runner options: a boot of its own, on today's build
				if [ "$w" != "$sets" ] || [ "$guests" != 1 ] || [ "$root" != host ]; then
					echo "$boots: $label: the checked set '$w' is a boot's one set, GUESTS 1, ROOT host"
					bad=1
				fi
			else
				[[ " $VM_WHERE " == *" $w "* ]] || { echo "$boots: $label: unknown set '$w' (one of: $VM_WHERE; checked: $(checked_words))"; bad=1; }
			fi
			ran+="$w "
		done
	done <"$boots"
	for w in $VM_WHERE $(checked_only); do
		[[ $ran == *" $w "* ]] || { echo "$boots: no boot runs '$w'"; bad=1; }
	done
	[ $bad -eq 0 ] && echo "ok: ${#files[@]} entries, every file under test/ named or support"
	return $bad
}

# path ENTRY-INDEX BUILD: what runs
path() {
	local f=${files[$1]}
	case $f in
	*.c) echo "$2/test/${f%.c}" ;;
	*.cpp) echo "$2/test/${f%.cpp}" ;;
	*) echo "test/$f" ;;
	esac
}

list() {
	local build=build i p
	[ "${1:-}" = --build ] && { build=$2; shift 2; }
	# shellcheck disable=SC2046
	set -- $(split_words "$@")
	for i in "${!files[@]}"; do
		matches "$i" "$@" || continue
		p=$(path "$i" "$build")
		# C++ tests are built only where the Makefile found $(CXX)
		if [[ ${files[$i]} == *.cpp ]] && [ ! -x "$p" ] && ! command -v "${CXX:-g++}" >/dev/null; then
			echo "note: $p (C++) not built: no C++ compiler" >&2
			continue
		fi
		echo "$p"
	done
}

# needs make|product WHERE...
needs_of() {
	local kind=$1 i w out=" "
	shift
	# shellcheck disable=SC2046
	set -- $(split_words "$@")
	for i in "${!files[@]}"; do
		matches "$i" "$@" || continue
		for w in ${needs[$i]//,/ }; do
			[ "$w" = - ] && continue
			if [[ " $MAKE_NEEDS " == *" $w "* ]]; then
				[ "$kind" = make ] || continue
				[ "$w" = pc ] && w=build/verbshim.pc
			else
				[ "$kind" = product ] || continue
			fi
			[[ $out == *" $w "* ]] || out+="$w "
		done
	done
	# shellcheck disable=SC2086
	echo $out
}

# A product is made again when an output is missing, or older than the
# archive, the script that makes it or any of its inputs.
make_product() {
	local p=$1 by out in o src n=0
	by=test/${product_by[$p]:?$me: no @product $p}
	out=${product_out[$p]}
	in=${product_in[$p]}
	for o in "$out"/*; do
		[ -f "$o" ] || { n=0; break; }
		# shellcheck disable=SC2086
		for src in lib/libverbshim.a "$by" $(find $in -type f); do
			[ "$o" -nt "$src" ] || { n=0; break 2; }
		done
		n=$((n + 1))
	done
	[ $n -gt 0 ] && return 0
	echo "== making $p ($out, by $by: missing or older than its sources)"
	mkdir -p build
	"$by" >"build/product-$p.log" 2>&1 ||
		{ cat "build/product-$p.log"; echo "$me: error: $by failed: $p not made" >&2; return 1; }
}

boots_of() {
	local label groups rest w used=" "
	[ $# -gt 0 ] || set -- check
	# shellcheck disable=SC2046
	set -- $(split_words "$@")
	while read -r label groups rest; do
		case $label in '' | '#'*) continue ;; esac
		for w in "$@"; do
			if [ "$w" = "$label" ] || [[ ",$groups," == *",$w,"* ]]; then
				echo "$label $groups $rest"
				used+="$w "
			fi
		done
	done <"$boots"
	for w in "$@"; do
		[[ $used == *" $w "* ]] || { echo "$me: '$w' selects no boot of $boots (a label or a group)" >&2; return 1; }
	done
}

case ${1:-} in
check) check ;;
list) shift; list "$@" ;;
needs) shift; needs_of make "$@" ;;
products) shift; needs_of product "$@" ;;
make-product) make_product "$2" ;;
boots) shift; boots_of "$@" ;;
variant) variant_of "${2:?usage: $me variant WHERE}" ;;
*) sed -n '2,20s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
