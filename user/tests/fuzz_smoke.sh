#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz_smoke.sh [FUZZER...]: run each libFuzzer target (default: every
# user/build-fuzz/fuzz_*) for FUZZ_SECONDS (default 15, what make check
# spends; make fuzz passes more), seeded with user/fuzz/*.save, and print
# one TAP line per target.  A crash, a leak or a sanitizer report fails.
here=$(cd "$(dirname "$0")/.." && pwd)
secs=${FUZZ_SECONDS:-15}
[ $# -gt 0 ] || set -- "$here"/build-fuzz/fuzz_*
n=0
rc=0
for f in "$@"; do
	n=$((n + 1))
	name=$(basename "$f")
	corpus=$(mktemp -d)
	cp "$here"/fuzz/*.save "$corpus"/
	log=$(mktemp)
	if "$f" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 \
		-artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log")
		echo "ok $n - $name: ${runs:-?} inputs in ${secs}s, no finding"
	else
		echo "not ok $n - $name: finding (log and artifacts below)"
		tail -40 "$log" | sed 's/^/# /'
		ls "$corpus" | grep -E '^(crash|leak|timeout|oom)-' | sed 's/^/# /'
		rc=1
	fi
	rm -rf "$corpus" "$log"
done
exit $rc
