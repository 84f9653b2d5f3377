#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh [user|vm|all] - run the userspace tests (make -C user check), the
# VM selftests (run_tests.sh inside run-vm.sh) or both, and finish with one
# line "N passed, N failed, N skipped" over everything that ran.  Exits
# non-zero if anything failed, including a suite that crashed or timed out
# without reporting a count.  A VM run that stops early (time budget,
# watchdog, guest crash) names the tests it did not run and counts each
# as failed.  Logs go to build/check-{user,vm}.log.
#
# The VM's time limits scale with the host's load: timeout-scale.sh
# measures the factor before the boot (NFHP_TIMEOUT_SCALE=F sets it, a
# decimal such as 1.5), and it multiplies each test's own timeout in the
# guest.  The VM's budget is the sum of those timeouts of the tests to
# run, plus 60 s a test and 600 s for boot, insmod, rmmod and shutdown,
# all times the factor: a slow host makes a slow run, not a timeout.  A
# hung guest is stopped by run-vm.sh --watchdog when it overruns the
# current step's deadline (run_tests.sh; 300 s times the factor for the
# boot), not at the end of the budget.
#
# Environment: NFHP_TIMEOUT_SCALE; NFHP_VM_TIMEOUT (seconds for the whole
# VM run instead of the budget above); TESTS (subset of VM tests);
# NFHP_BUILD_FAILED=1 (set by "make check" when the build failed) adds one
# failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
what=${1:-all}
mkdir -p "$top/build"

tp=0
tf=0
ts=0

# count LOG RC NAME - add LOG's results to the totals.  Uses the suite's own
# "N passed, N failed[, N skipped]" line when present, else counts TAP
# "ok"/"not ok" lines; each planned TAP result that never came
# (not-run.sh) is named and counted as a failure; a non-zero RC with no
# failure counted adds one.
count()
{
	local log=$1 rc=$2 name=$3 line p f s missing m why

	line=$(tr -d '\r' < "$log" |
	       grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' |
	       tail -1)
	if [ -n "$line" ]; then
		p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<< "$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<< "$line")
		s=0
		case $line in
		*skipped) s=$(sed -E 's/.* ([0-9]+) skipped$/\1/' <<< "$line");;
		esac
	else
		p=$(tr -d '\r' < "$log" | grep -E '^ok( |$)' |
		    grep -cv '# SKIP')
		s=$(tr -d '\r' < "$log" | grep -E '^ok( |$)' | grep -c '# SKIP')
		f=$(tr -d '\r' < "$log" | grep -cE '^not ok( |$)')
	fi
	missing=$("$top/selftests/vm/not-run.sh" "$log")
	if [ -n "$missing" ]; then
		m=$(grep -c . <<< "$missing")
		case $rc in
		124) why="its time budget or watchdog ran out";;
		125) why="the guest died without a result";;
		*) why="exit $rc";;
		esac
		echo "check: $name stopped early ($why): $m planned" \
		     "result(s) never came, counted as failed:"
		sed 's/^/check:   not run: /' <<< "$missing"
		f=$((f + m))
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "check: $name exited with $rc without reporting a failure;" \
		     "counting one (see $log)"
		f=1
	fi
	echo "check: $name: $p passed, $f failed, $s skipped"
	[ "$f" -gt 0 ] && recap "$log" "$missing"
	tp=$((tp + p))
	tf=$((tf + f))
	ts=$((ts + s))
}

# recap LOG [NOT_RUN] - repeat LOG's failed checks and tests, and the
# tests not run, so that the end of a long run (all that CI keeps) still
# says what failed.
recap()
{
	echo "check: what failed in $1:"
	tr -d '\r' < "$1" | grep -E '(^|: )FAIL|^not ok( |$)' | head -n 40 |
		sed 's/^/check:   /'
	[ -z "${2:-}" ] || sed 's/^/check:   not run: /' <<< "$2"
}

if [ "${NFHP_BUILD_FAILED:-0}" = 1 ]; then
	echo "check: the build failed; counting one failure"
	tf=1
fi

if [ "$what" = user ] || [ "$what" = all ]; then
	log=$top/build/check-user.log
	make -C "$top/user" check 2>&1 | tee "$log"
	count "$log" "${PIPESTATUS[0]}" "userspace tests"
fi

if [ "$what" = vm ] || [ "$what" = all ]; then
	log=$top/build/check-vm.log
	NFHP_TIMEOUT_SCALE=$("$top/selftests/vm/timeout-scale.sh") ||
		NFHP_TIMEOUT_SCALE=1
	export NFHP_TIMEOUT_SCALE
	read -r budget boot < <("$top/selftests/nf_hipac/run_tests.sh" \
		--timeouts | awk -v s="$NFHP_TIMEOUT_SCALE" '
		function up(v) { return v == int(v) ? v : int(v) + 1 }
		{ sum += $2; n++ }
		END { print sum + up((600 + 60 * n) * s), up(300 * s) }')
	if [ -n "${NFHP_VM_TIMEOUT:-}" ]; then
		budget=$NFHP_VM_TIMEOUT
		echo "check: VM time budget ${budget}s (NFHP_VM_TIMEOUT)"
	else
		echo "check: VM time budget ${budget}s: the tests' own" \
		     "timeouts, 60 s a test and 600 s, times the scale"
	fi
	"$top/selftests/vm/run-vm.sh" --timeout "$budget" --watchdog "$boot" \
		--log "$top/build/vm/check-vm-console.log" \
		-- selftests/nf_hipac/run_tests.sh 2>&1 | tee "$log"
	count "$log" "${PIPESTATUS[0]}" "VM selftests"
fi

if [ "$ts" -gt 0 ]; then
	echo "$tp passed, $tf failed, $ts skipped"
else
	echo "$tp passed, $tf failed"
fi
[ "$tf" -eq 0 ]
