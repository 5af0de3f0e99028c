# Counted checks for a shell test (sourced; bash), in a temporary
# directory $tmp the caller made:
#   ok WHAT, fail WHAT      say it (fail counts it in $fails)
#   run NAME RC ARGS...     run ARGS, output in $tmp/NAME.out and .err;
#                           fails (showing both) unless it exits RC
#                           (status 1 then, so `run ... && more checks`)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

run() {
	local name=$1 want=$2 rc=0
	shift 2
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name: exit $rc, expected $want"
		sed 's/^/    | /' "$tmp/$name.out" "$tmp/$name.err" | head -n 20
		return 1
	fi
	ok "$name: exit $rc"
}
