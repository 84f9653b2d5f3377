#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# restore-ab.sh - restore time of two builds, interleaved in one VM boot
#
#	bench/kernel/restore-ab.sh [-r ROUNDS] [-n RULES] [-p] OLD_TREE
#
# OLD_TREE is another checkout with nf_hipac.ko and user/build built (for
# instance `git worktree add build/old REV && make -C build/old module
# user`; it must lie under / as the guest sees it, not in /tmp).  On the
# host: boots the test VM once and runs itself there with --guest.  In the
# guest, for each of ROUNDS (default 3) rounds, each build in turn loads
# its own module, restores bench/seed.py's RULES-rule set (default
# 100000) with its own nf-hipac-restore, and reports the wall time and the
# kernel's "last commit took"; then restores an empty set and unloads.
# Prints each row and the medians.  TCG speed drifts by a factor of two
# from boot to boot on a shared host: only the ratio of one run counts.
#
# -p also records the new build's restore with perf inside the VM and
# folds it with bench/kernel/perf-fold.py into build/restore-ab/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3
rules=100000
prof=0
guest=0
while [ $# -gt 0 ]; do
	case $1 in
	-r) rounds=$2; shift 2 ;;
	-n) rules=$2; shift 2 ;;
	-p) prof=1; shift ;;
	--guest) guest=1; shift ;;
	*) break ;;
	esac
done

if [ "$guest" = 0 ]; then
	old=$(cd "${1:?usage: restore-ab.sh [-r ROUNDS] [-n RULES] [-p] OLD_TREE}" && pwd)
	for f in "$old/nf_hipac.ko" "$old/user/build/nf-hipac-restore" \
		 "$top/nf_hipac.ko" "$top/user/build/nf-hipac-restore"; do
		[ -e "$f" ] || { echo "restore-ab: $f is missing" >&2; exit 1; }
	done
	if [ "$prof" = 1 ] && ! command -v perf >/dev/null; then
		echo "restore-ab: -p needs perf (apt-get install linux-perf)" >&2
		exit 1
	fi
	out=$top/build/restore-ab
	rm -rf "$out"
	mkdir -p "$out"
	"$top/bench/seed.py" "$rules" > "$out/seed.rules"
	"$top/selftests/vm/run-vm.sh" --timeout 3600 --mem 2G --out "$out" \
		-- bench/kernel/restore-ab.sh --guest -r "$rounds" \
		$([ "$prof" = 1 ] && echo -p) "$old"
	cat "$out/rows.txt"
	awk '{ t[$1] = t[$1] " " $4; c[$1] = c[$1] " " $6 }
	     function med(s,  v, n, i, j, x) {
		n = split(s, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				x = v[j]; v[j] = v[j - 1]; v[j - 1] = x
			}
		return v[int((n + 1) / 2)]
	     }
	     END { for (b in t)
		printf "median %s: restore %s s, commit %.2f s\n", b,
		       med(t[b]), med(c[b]) / 1e9 }' "$out/rows.txt" | sort
	if [ -s "$out/perf.script.gz" ]; then
		"$top/bench/kernel/perf-fold.py" "$out/perf.script.gz" \
			> "$out/fold.txt"
		"$top/bench/kernel/perf-fold.py" --inclusive \
			"$out/perf.script.gz" > "$out/inclusive.txt"
		echo "perf: $out/fold.txt, $out/inclusive.txt"
	fi
	exit 0
fi

out=${NFHP_VM_OUT:?run me on the host}
old=$1
. "$top/selftests/nf_hipac/lib.sh"

took()
{
	awk '/^last commit took:/ { print $4 }' /proc/net/nf-hipac/info
}

# one BUILD_NAME TREE ROUND - load, restore, report, empty, unload.
one()
{
	local name=$1 tree=$2 round=$3 s e

	nfhp_insmod "$tree/nf_hipac.ko" || exit 1
	s=$(date +%s.%N)
	"$tree/user/build/nf-hipac-restore" < "$out/seed.rules" ||
		echo "restore-ab: $name restore failed" >&2
	e=$(date +%s.%N)
	echo "$name round $round $(awk -v s="$s" -v e="$e" \
		'BEGIN { printf "%.3f", e - s }') s $(took) ns" >> "$out/rows.txt"
	"$tree/user/build/nf-hipac-restore" <<< $'*filter\nCOMMIT'
	rmmod nf_hipac
}

: > "$out/rows.txt"
for r in $(seq "$rounds"); do
	one old "$old" "$r"
	one new "$top" "$r"
done
if [ "$prof" = 1 ]; then
	nfhp_insmod "$top/nf_hipac.ko" || exit 1
	perf record -F 2000 -a -g -o /tmp/perf.data -- \
		"$top/user/build/nf-hipac-restore" < "$out/seed.rules"
	perf script -i /tmp/perf.data -F comm,ip,sym 2>/dev/null |
		gzip -1 > "$out/perf.script.gz"
fi
