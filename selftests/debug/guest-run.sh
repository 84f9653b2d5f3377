#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-run.sh [RUN_TESTS_ARGS...] - the command check-debug.sh runs inside
# the debug VM (selftests/vm/run-vm.sh --kernel ...), from the repository top.
#
#  1. kmemleak baseline: scan once and "clear" what the boot left behind, so
#     that only objects leaked while the tests ran are reported (skipped
#     with NFHP_KMEMLEAK=0, check-debug.sh's boot with kmemleak=off);
#  2. selftests/nf_hipac/run_tests.sh (TESTS, else every selftest);
#  3. kmemleak: two scans after the module has been unloaded; any
#     "unreferenced object" is printed, copied to $NFHP_VM_OUT/kmemleak and
#     counted as one failure.
#
# The last line is "N passed, N failed, N skipped" over the selftests plus
# the kmemleak check; the exit code is 1 if anything failed.  Kernel log
# reports (KASAN, lockdep, UBSAN, WARN, BUG...) are judged afterwards by
# selftests/vm/stage2 from dmesg.
set -uo pipefail

kml=/sys/kernel/debug/kmemleak
out=${NFHP_VM_OUT:-/tmp}
log=$(mktemp)

# kml_scan - one kmemleak scan; kmemleak only reports objects older than
# 5 s, so wait that long first.
kml_scan()
{
	sleep 6
	echo scan > "$kml"
}

if [ "${NFHP_KMEMLEAK:-1}" = 0 ]; then
	echo "# guest-run: booted with kmemleak=off (the \"full\" pass)"
	have_kml=0
elif [ ! -w "$kml" ]; then
	echo "# guest-run: $kml missing: not the debug kernel, or kmemleak" \
	     "failed to start; counting one failure"
	have_kml=0
	kml_missing=1
else
	have_kml=1
	# The periodic scan costs tens of seconds under TCG; we scan
	# ourselves, before and after.
	echo scan=off > "$kml"
	kml_scan
	n=$(grep -c '^unreferenced object' "$kml")
	echo "# guest-run: kmemleak: $n object(s) unreferenced after boot," \
	     "cleared (not judged)"
	grep -A 12 '^unreferenced object' "$kml" | head -60 | sed 's/^/#   /'
	echo clear > "$kml"
fi

start=$(date +%s)
selftests/nf_hipac/run_tests.sh "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo "# guest-run: run_tests.sh exit $rc after $(($(date +%s) - start))s"

line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" |
       tail -1)
rm -f "$log"
if [ -n "$line" ]; then
	read -r p _ f _ s _ <<< "${line//,/}"
else
	echo "# guest-run: run_tests.sh printed no summary; counting one failure"
	p=0 f=1 s=0
fi
[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
f=$((f + ${kml_missing:-0}))

if [ $have_kml -eq 1 ]; then
	start=$(date +%s)
	kml_scan
	kml_scan
	cat "$kml" > "$out/kmemleak"
	n=$(grep -c '^unreferenced object' "$out/kmemleak")
	echo "# guest-run: kmemleak scans took $(($(date +%s) - start))s"
	if [ "$n" -eq 0 ]; then
		echo "ok - kmemleak: no unreferenced object"
		p=$((p + 1))
	else
		echo "not ok - kmemleak: $n unreferenced object(s):"
		sed 's/^/# /' "$out/kmemleak"
		f=$((f + 1))
	fi
fi

echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
