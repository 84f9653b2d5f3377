#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh - kselftest-style runner for the nf-hipac selftests.  Runs
# inside the test VM (selftests/vm/run-vm.sh) as root:
#
#	insmod ./nf_hipac.ko          (NFHP_MODULE= overrides the path)
#	every executable selftests/nf_hipac/*.sh except lib.sh and this file,
#	    or only those named in TESTS="a.sh b.sh", each under timeout(1)
#	rmmod nf_hipac                (failing to unload is a failure)
#
# Output is TAP 13; a test's own output is prefixed with "# ".  After the
# plan, a line "# planned: N NAME" for each result to come names it, so
# that a run cut short can say which never came (selftests/vm/not-run.sh).
# Exit code 4 from a test means SKIP.  The timeout comes from ./settings
# ("timeout=N") unless the test has a line "# nfhp-timeout: N".  Tests
# with a line "# nfhp: no-module" run even when nf_hipac.ko is not built;
# all others are skipped then.  NFHP_TIMEOUT_SCALE=F (a decimal, e.g. 1.5)
# multiplies every timeout (a loaded host slows TCG down a lot;
# selftests/vm/timeout-scale.sh measures it).  The last line is
# "N passed, N failed, N skipped"; the exit code is 1 if anything failed.
#
# In the VM ($NFHP_VM_OUT set), the time allowed for each step is written
# to $NFHP_VM_OUT/deadline ("SECONDS WHAT"): run-vm.sh --watchdog stops a
# guest that overruns it, hung beyond what timeout(1) can end.
#
#	run_tests.sh --timeouts
#
# prints "TEST SECONDS" for each test that would run (scaled), and exits:
# selftests/vm/check.sh derives the VM's time budget from them.

top=$(cd "$(dirname "$0")/../.." && pwd)
dir=selftests/nf_hipac
cd "$top" || exit 1

scale=${NFHP_TIMEOUT_SCALE:-1}
scale_note=
if ! [[ $scale =~ ^[0-9]+(\.[0-9]+)?$ ]] || [[ $scale =~ ^[0.]+$ ]]; then
	scale_note="NFHP_TIMEOUT_SCALE=$scale is no positive number: using 1"
	scale=1
fi
timeout=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$dir/settings" 2>/dev/null)
timeout=${timeout:-120}

# scaled SECONDS - SECONDS times the scale, rounded up.
scaled()
{
	awk -v t="$1" -v s="$scale" 'BEGIN {
		v = t * s
		printf "%d\n", v == int(v) ? v : int(v) + 1
	}'
}

# test_timeout TEST - the test's own timeout, scaled.
test_timeout()
{
	local t

	t=$(sed -n 's/^# nfhp-timeout: *\([0-9]\+\).*/\1/p' "$dir/$1" \
	    2>/dev/null | head -1)
	scaled "${t:-$timeout}"
}

if [ -n "${TESTS:-}" ]; then
	tests=$TESTS
else
	tests=
	for t in "$dir"/*.sh; do
		case ${t##*/} in
		lib.sh|run_tests.sh) continue;;
		esac
		[ -x "$t" ] && tests="$tests ${t##*/}"
	done
fi

if [ "${1:-}" = --timeouts ]; then
	for t in $tests; do
		echo "$t $(test_timeout "$t")"
	done
	exit 0
fi

source "$dir/lib.sh"
module=${NFHP_MODULE:-./nf_hipac.ko}
# Time for a step besides the tests' own (insmod, rmmod, the end).
grace=$(scaled 60)

# deadline SECONDS WHAT - allow SECONDS for WHAT (see the top).
deadline()
{
	[ -n "${NFHP_VM_OUT:-}" ] || return 0
	echo "$1 $2" > "$NFHP_VM_OUT/deadline" 2>/dev/null
	return 0
}

have_module=0
[ -f "$module" ] && have_module=1
ntests=$(echo $tests | wc -w)
plan=$ntests
[ $have_module -eq 0 ] || plan=$((plan + 2))	# insmod and rmmod

num=0
pass=0
fail=0
skip=0

# result STATUS NAME [DIRECTIVE] - print one TAP line and count it.
result()
{
	num=$((num + 1))
	case $1 in
	pass) pass=$((pass + 1)); echo "ok $num $2";;
	fail) fail=$((fail + 1)); echo "not ok $num $2${3:+ # $3}";;
	skip) skip=$((skip + 1)); echo "ok $num $2 # SKIP${3:+ $3}";;
	esac
}

echo "TAP version 13"
echo "1..$plan"
n=0
[ $have_module -eq 0 ] || echo "# planned: $((n += 1)) insmod $module"
for t in $tests; do
	echo "# planned: $((n += 1)) selftests: nf_hipac: $t"
done
[ $have_module -eq 0 ] || echo "# planned: $((n += 1)) rmmod nf_hipac"
[ -z "$scale_note" ] || echo "# $scale_note"

loaded=0
deadline "$(scaled "$timeout")" "insmod"
if [ $have_module -eq 0 ]; then
	echo "# $module is not built: skipping every test that needs nf_hipac"
	echo "# (build it with 'make module' on the host)"
elif nfhp_insmod "$module" 2>&1 | sed 's/^/# /'; [ "${PIPESTATUS[0]}" -eq 0 ]; then
	loaded=1
	result pass "insmod $module"
else
	result fail "insmod $module"
fi

for t in $tests; do
	name=selftests:\ nf_hipac:\ $t
	if [ ! -x "$dir/$t" ]; then
		echo "# $dir/$t: not found or not executable"
		result fail "$name"
		continue
	fi
	if [ $loaded -eq 0 ] && ! grep -q '^# nfhp: no-module' "$dir/$t"; then
		result skip "$name" "nf_hipac not loaded"
		continue
	fi
	t_timeout=$(test_timeout "$t")
	deadline $((t_timeout + grace)) "$t"
	echo "# $t (timeout ${t_timeout}s)"
	start=$(date +%s)
	timeout -k 5 "$t_timeout" "$dir/$t" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	echo "# $t: exit $rc after $(($(date +%s) - start))s"
	case $rc in
	0) result pass "$name";;
	$ksft_skip) result skip "$name";;
	124|137) result fail "$name" "TIMEOUT ${t_timeout}s";;
	*) result fail "$name" "exit=$rc";;
	esac
done

deadline "$(scaled "$timeout")" "rmmod"
if [ $loaded -eq 1 ]; then
	if rmmod nf_hipac 2>&1 | sed 's/^/# /'; [ "${PIPESTATUS[0]}" -eq 0 ]; then
		result pass "rmmod nf_hipac"
	else
		result fail "rmmod nf_hipac"
	fi
elif [ $have_module -eq 1 ]; then
	result skip "rmmod nf_hipac" "not loaded"
fi

deadline "$grace" "the end of the run"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
