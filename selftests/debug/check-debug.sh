#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh - "make check-debug": the whole VM selftest suite of "make
# check" on a debug kernel (KASAN, lockdep and RCU-lockdep, might_sleep,
# kmemleak, UBSAN, list debugging, fault injection available).
#
#	selftests/debug/check-debug.sh
#
#  1. user/build tools (make user);
#  2. the debug kernel: selftests/debug/build-kernel.sh (cached outside the
#     clone; the first build takes a while);
#  3. nf_hipac.ko against it: selftests/debug/build-module.sh into
#     build/debug-module/ (the top-level module is left alone);
#  4. run-vm.sh --kernel ... -- selftests/debug/guest-run.sh: kmemleak
#     baseline, selftests/nf_hipac/run_tests.sh, kmemleak scan;
#  5. any KASAN/lockdep/UBSAN/RCU/WARN/BUG line in the kernel log, any
#     kmemleak report, fails the run and is printed.
#
# The last line is "N passed, N failed, N skipped" (as selftests/vm/check.sh
# prints); the exit code is non-zero if anything failed.  Logs:
# build/check-debug.log (this output), build/vm/check-debug-console.log
# (the guest console), build/debug-vm/ (dmesg, dmesg-flagged, kmemleak).
#
# Environment: TESTS (subset of selftests); NFHP_TIMEOUT_SCALE (default 1)
# multiplies every timeout, and the per-test timeouts get a further
# NFHP_DEBUG_SLOWDOWN (default 4: KASAN and lockdep under TCG); NFHP_VM_MEM
# (default 2G); NFHP_DEBUG_VM_TIMEOUT (seconds for the whole VM run, default
# 5400 x NFHP_TIMEOUT_SCALE); NFHP_DEBUG_CACHE (see build-kernel.sh);
# NFHP_STRESS_SECONDS (stress.sh, default 60 here), NFHP_FUZZ_MESSAGES
# (200000), NFHP_CHURN_NETNS (8), NFHP_CHURN_RELOADS (3).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mkdir -p build/vm build/debug-vm
exec > >(tee build/check-debug.log) 2>&1

scale=${NFHP_TIMEOUT_SCALE:-1}
slow=${NFHP_DEBUG_SLOWDOWN:-4}
fail=0
t0=$(date +%s)

# finish P F S - print the summary line and exit.
finish()
{
	echo "check-debug: total $(($(date +%s) - t0))s"
	if [ "$3" -gt 0 ]; then
		echo "$1 passed, $2 failed, $3 skipped"
	else
		echo "$1 passed, $2 failed"
	fi
	[ "$2" -eq 0 ]
	exit
}

if ! make --no-print-directory user; then
	echo "check-debug: make user failed; counting one failure"
	fail=1
fi

t=$(date +%s)
image=$(selftests/debug/build-kernel.sh) || {
	echo "check-debug: the debug kernel did not build"
	finish 0 $((fail + 1)) 0
}
kdir=$(dirname "$image")
release=$(cat "$kdir/kernel.release")
echo "check-debug: kernel $release ready after $(($(date +%s) - t))s" \
     "($(sed -n 's/^built //p' "$kdir/complete"))"

t=$(date +%s)
module=$(selftests/debug/build-module.sh "$kdir/obj") || {
	echo "check-debug: nf_hipac.ko did not build against $kdir/obj"
	finish 0 $((fail + 1)) 0
}
module=${module#"$top"/}
echo "check-debug: $module built in $(($(date +%s) - t))s"

export NFHP_MODULE=$module
export NFHP_STRESS_SECONDS=${NFHP_STRESS_SECONDS:-60}
# The fuzzer sends hundreds of thousands of messages here (issue 6); the
# churn keeps the normal run's namespaces, each costing half a minute of
# process starts under KASAN and TCG, with one more module reload.
export NFHP_FUZZ_MESSAGES=${NFHP_FUZZ_MESSAGES:-200000}
export NFHP_CHURN_NETNS=${NFHP_CHURN_NETNS:-8}
export NFHP_CHURN_RELOADS=${NFHP_CHURN_RELOADS:-3}
export NFHP_TIMEOUT_SCALE=$((scale * slow))
out=$top/build/debug-vm
vmlog=build/check-debug-vm.log
selftests/vm/run-vm.sh --kernel "$image" \
	--modules "$kdir/modroot/lib/modules/$release" \
	--mem "${NFHP_VM_MEM:-2G}" --strict --append kasan_multi_shot \
	--timeout "${NFHP_DEBUG_VM_TIMEOUT:-$((5400 * scale))}" \
	--out "$out" --log "$top/build/vm/check-debug-console.log" \
	-- selftests/debug/guest-run.sh 2>&1 | tee "$vmlog"
rc=${PIPESTATUS[0]}

line=$(tr -d '\r' < "$vmlog" |
       grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -1)
if [ -n "$line" ]; then
	read -r p _ f _ s _ <<< "${line//,/}"
else
	p=0 f=0 s=0
fi
if [ -s "$out/dmesg-flagged" ]; then
	echo "check-debug: the kernel log has reports (full log:" \
	     "$out/dmesg); counting one failure:"
	cat "$out/dmesg-flagged"
	n=$(grep -nxF -f "$out/dmesg-flagged" "$out/dmesg" | head -1 | cut -d: -f1)
	if [ -n "$n" ]; then
		echo "check-debug: the kernel log from the first report on:"
		sed -n "$n,$((n + 199))p" "$out/dmesg"
	fi
	f=$((f + 1))
fi
if [ "$rc" -eq 124 ] || [ "$rc" -eq 125 ]; then
	echo "check-debug: the guest timed out or died (panic?); the end of" \
	     "its console log:"
	tail -n 150 build/vm/check-debug-console.log
fi
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
	echo "check-debug: the VM run exited with $rc without reporting a" \
	     "failure; counting one (see build/vm/check-debug-console.log)"
	f=1
fi
finish "$p" $((f + fail)) "$s"
