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
#  4. two boots of it, run-vm.sh --kernel ... -- guest-run.sh, which
#     together run every selftest once:
#     "full":  the selftests (selftests/nf_hipac/run_tests.sh) that
#              "leaks" does not run, under KASAN, lockdep, UBSAN and the
#              rest, booted with kmemleak=off: under TCG kmemleak's
#              bookkeeping of every allocation makes boot and tests 2-3
#              times slower (Documentation/testing.md), which the CI
#              time limit does not allow for the whole suite;
#     "leaks": kmemleak on as well, the selftests that drive the module's
#              allocations, error paths and teardown (NFHP_DEBUG_LEAK_TESTS:
#              restore, bounded, failslab, nlfuzz, xt, stress, ipv6,
#              keep_state, states_stress, unload),
#              then a kmemleak scan;
#  5. any KASAN/lockdep/UBSAN/RCU/WARN/BUG line in a kernel log, any
#     kmemleak report, fails the run and is printed.
#
# The last line is "N passed, N failed, N skipped" over both boots (as
# selftests/vm/check.sh prints it); the exit code is non-zero if anything
# failed.  Logs: build/check-debug.log (this output),
# build/vm/check-debug-PASS-console.log (the guest consoles),
# build/debug-vm/PASS/ (dmesg, dmesg-flagged, kmemleak).
#
# Environment: TESTS (selftests for the "full" boot instead of the rest);
# NFHP_DEBUG_PASSES (default "full leaks"); NFHP_DEBUG_LEAK_TESTS;
# NFHP_DEBUG_CPU (QEMU -cpu, default max,la57=off);
# NFHP_TIMEOUT_SCALE (default: measured before each boot by
# selftests/vm/timeout-scale.sh from the host's load) multiplies every
# timeout, and the per-test timeouts get a further NFHP_DEBUG_SLOWDOWN
# (default 4: KASAN and lockdep under TCG); NFHP_VM_MEM (default 2G);
# NFHP_DEBUG_VM_TIMEOUT (seconds for each boot, default 3600 x the scale);
# NFHP_DEBUG_CACHE (see build-kernel.sh); NFHP_STRESS_SECONDS (stress.sh,
# default 60 here), NFHP_FUZZ_MESSAGES (200000 in "full", 50000 in
# "leaks"), NFHP_STRESS_RULES (1000 in "leaks": with 10,000 every restore
# held the lock so long under kmemleak that the other updaters barely
# ran), NFHP_CHURN_NETNS (8), NFHP_CHURN_RELOADS (3), NFHP_RESTORE_BIG
# (20000), NFHP_RESTORE_RULES (2000), NFHP_FAILSLAB_* (failslab.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mkdir -p build/vm build/debug-vm
exec > >(tee build/check-debug.log) 2>&1

own_scale=${NFHP_TIMEOUT_SCALE:-}
# 4-level paging: with the 5-level paging of -cpu max, KASAN under TCG
# now and then reported wild accesses to the direct map at boot.
cpu=${NFHP_DEBUG_CPU:-max,la57=off}
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
# The churn keeps the normal run's namespaces, each costing half a minute
# of process starts under KASAN and TCG, with one more module reload.
export NFHP_CHURN_NETNS=${NFHP_CHURN_NETNS:-8}
export NFHP_CHURN_RELOADS=${NFHP_CHURN_RELOADS:-3}
# restore.sh's big rule set: 100k rules take 20 s on Debian's kernel and
# about 30 times as long under KASAN and kmemleak.
export NFHP_RESTORE_BIG=${NFHP_RESTORE_BIG:-20000}
# Its main set: 10,000 rules took 17 s a restore here (the requests under
# KASAN), and it is restored three times; 2,000 reach the same paths.
export NFHP_RESTORE_RULES=${NFHP_RESTORE_RULES:-2000}
fuzz=${NFHP_FUZZ_MESSAGES:-}
leak_tests=${NFHP_DEBUG_LEAK_TESTS:-"restore.sh bounded.sh failslab.sh nlfuzz.sh xt.sh stress.sh ipv6.sh keep_state.sh states_stress.sh unload.sh"}
full_tests=${TESTS:-$(cd selftests/nf_hipac && for t in *.sh; do
	case " lib.sh run_tests.sh $leak_tests " in *" $t "*) continue;; esac
	[ -x "$t" ] && echo "$t"
done)}
full_tests=$(echo $full_tests)
P=0 F=0 S=0

# silent_watch OUT CONSOLE SECS - stop the guest of OUT (its qemu.pid)
# when CONSOLE is still empty SECS seconds from now, and say so in
# OUT/silent.  A healthy boot of the debug kernel prints its first line
# (init's) in about 2 minutes on a busy host; one boot in CI's
# simulation printed nothing in 20 minutes at a quarter of a CPU, hung
# before the kernel's console came up, where only a new boot helps.
silent_watch()
{
	local out=$1 console=$2 secs=$3 t0

	t0=$(date +%s)
	while sleep 10; do
		[ -s "$console" ] && return
		[ $(($(date +%s) - t0)) -ge "$secs" ] || continue
		[ -s "$out/qemu.pid" ] || continue
		echo "${secs}s" > "$out/silent"
		kill "$(cat "$out/qemu.pid")" 2>/dev/null
		return
	done
}

# boot_once PASS APPEND OUT VMLOG CONSOLE SCALE BUDGET - run the guest
# once; its exit code.
boot_once()
{
	local out=$3 console=$5 scale=$6 watcher rc

	rm -rf "$out"
	mkdir -p "$out"
	rm -f "$console"
	silent_watch "$out" "$console" "$(awk -v s="$scale" \
		'BEGIN { v = 300 * s; print v == int(v) ? v : int(v) + 1 }')" &
	watcher=$!
	NFHP_TIMEOUT_SCALE=$(awk -v a="$scale" -v b="$slow" \
			     'BEGIN { print a * b }') \
	selftests/vm/run-vm.sh --kernel "$image" \
		--modules "$kdir/modroot/lib/modules/$release" \
		--mem "${NFHP_VM_MEM:-2G}" --cpu "$cpu" --strict \
		--append "$2" --timeout "$7" \
		--out "$out" --log "$console" \
		-- selftests/debug/guest-run.sh 2>&1 | tee "$4"
	rc=${PIPESTATUS[0]}
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	return "$rc"
}

# boot PASS APPEND - one boot of the debug kernel running guest-run.sh
# (two when the first hangs before its console); adds its counts to P,
# F and S.
boot()
{
	local pass=$1 append=$2 out=$top/build/debug-vm/$1 line n rc
	local vmlog=build/check-debug-$1-vm.log t=$(date +%s)
	local console=build/vm/check-debug-$1-console.log
	local p f s scale budget missing

	scale=$(NFHP_TIMEOUT_SCALE=$own_scale selftests/vm/timeout-scale.sh) ||
		scale=1
	budget=${NFHP_DEBUG_VM_TIMEOUT:-$(awk -v s="$scale" \
		'BEGIN { v = 3600 * s; print v == int(v) ? v : int(v) + 1 }')}
	echo "check-debug: boot \"$pass\" ($append): ${TESTS:-every selftest}"
	boot_once "$pass" "$append" "$out" "$vmlog" "$top/$console" \
		"$scale" "$budget"
	rc=$?
	if [ -s "$out/silent" ]; then
		echo "check-debug: $pass: the guest printed nothing in" \
		     "$(cat "$out/silent"): hung before its console; booting" \
		     "again"
		boot_once "$pass" "$append" "$out" "$vmlog" "$top/$console" \
			"$scale" "$budget"
		rc=$?
	fi

	line=$(tr -d '\r' < "$vmlog" |
	       grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' |
	       tail -1)
	if [ -n "$line" ]; then
		read -r p _ f _ s _ <<< "${line//,/}"
	else
		p=$(tr -d '\r' < "$vmlog" | grep -E '^ok( |$)' |
		    grep -cv '# SKIP')
		s=$(tr -d '\r' < "$vmlog" | grep -E '^ok( |$)' |
		    grep -c '# SKIP')
		f=$(tr -d '\r' < "$vmlog" | grep -cE '^not ok( |$)')
	fi
	missing=$(selftests/vm/not-run.sh "$vmlog")
	if [ -n "$missing" ]; then
		echo "check-debug: $pass stopped early (exit $rc):" \
		     "$(grep -c . <<< "$missing") planned result(s) never" \
		     "came, counted as failed:"
		sed 's/^/check-debug:   not run: /' <<< "$missing"
		f=$((f + $(grep -c . <<< "$missing")))
	fi
	if [ -s "$out/dmesg-flagged" ]; then
		echo "check-debug: $pass: the kernel log has reports (full" \
		     "log: $out/dmesg); counting one failure:"
		cat "$out/dmesg-flagged"
		n=$(grep -nxF -f "$out/dmesg-flagged" "$out/dmesg" | head -1 |
		    cut -d: -f1)
		if [ -n "$n" ]; then
			echo "check-debug: $pass: the kernel log from the" \
			     "first report on:"
			sed -n "$n,$((n + 199))p" "$out/dmesg"
		fi
		f=$((f + 1))
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 125 ]; then
		echo "check-debug: $pass: the guest timed out or died" \
		     "(panic?); the end of its console log:"
		tail -n 150 "$console"
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "check-debug: $pass: the VM run exited with $rc without" \
		     "reporting a failure; counting one (see $console)"
		f=1
	fi
	echo "check-debug: $pass: $p passed, $f failed, $s skipped in" \
	     "$(($(date +%s) - t))s"
	P=$((P + p)) F=$((F + f)) S=$((S + s))
}

# acpi=noirq: under kmemleak the ACPI interpreter is so slow that the PCI
# routing method (_PRT) hits its 30 s loop timeout three times, 90 s of a
# 105 s boot (virtio uses MSI-X, so the routing is not needed).
boot_args="kasan_multi_shot acpi=noirq"
for pass in ${NFHP_DEBUG_PASSES:-full leaks}; do
	case $pass in
	full)
		export NFHP_KMEMLEAK=0 NFHP_FUZZ_MESSAGES=${fuzz:-200000}
		TESTS=$full_tests boot full "$boot_args kmemleak=off"
		;;
	leaks)
		export NFHP_KMEMLEAK=1 NFHP_FUZZ_MESSAGES=${fuzz:-50000}
		export NFHP_STRESS_RULES=${NFHP_STRESS_RULES:-1000}
		export NFHP_STRESS_TCP_RATE=${NFHP_STRESS_TCP_RATE:-1M}
		export NFHP_STRESS_UDP_RATE=${NFHP_STRESS_UDP_RATE:-256K}
		export NFHP_STRESS_TICK_MS=${NFHP_STRESS_TICK_MS:-50}
		TESTS=$leak_tests boot leaks "$boot_args"
		;;
	*)
		echo "check-debug: unknown pass \"$pass\"; counting one failure"
		F=$((F + 1))
		;;
	esac
done
finish "$P" $((F + fail)) "$S"
