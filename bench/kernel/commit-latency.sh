#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# commit-latency.sh - how long the kernel takes to commit one rule
#
#	bench/kernel/commit-latency.sh [-k INSERTS] [SIZES...]
#
# On the host (the default): boots the test VM once and runs itself there
# with --guest.  In the guest, for each size N (default 1000 10000 100000
# kube:5000 kuberet:5000) it loads bench/seed.py's N-rule set with
# nf-hipac-restore, then inserts INSERTS (default 20) single rules at
# FORWARD 1, each its own commit, and reads after each how long the
# kernel took for it: "last commit took" in /proc/net/nf-hipac/info,
# nfhp_txn_commit() alone, without the program start and the netlink
# round trip around it.  Then it restores the same set again AGAIN times
# (default 5), each time with one rule of it changed (ACCEPT and DROP
# swapped, at a different place each time), and once unchanged, as tools
# that sync a whole table do: those commits take the unchanged rules back
# (kernel/adopt.c, "Adoption").  A size
# kube:N loads bench/kube.py N instead (FORWARD jumping to N service
# chains) and inserts into the first service chain; kuberet:N the same
# with a RETURN atop each chain (kube.py --returns).  Writes a table of
# median, min and max per size to bench/results/kernel-commit.md.  Under
# TCG absolute times are inflated by the emulation (the classifier core's
# own update times are in bench/results/core.md).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/bench/kernel/lib.sh"
inserts=20
again=5
guest=0
while [ $# -gt 0 ]; do
	case $1 in
	-k) inserts=$2; shift 2 ;;
	-a) again=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	*) break ;;
	esac
done
sizes=${*:-"1000 10000 100000 kube:5000 kuberet:5000"}

if [ "$guest" = 0 ]; then
	out=$top/build/commit-latency
	rm -rf "$out"
	mkdir -p "$out"
	for n in $sizes; do
		case $n in
		kube:*) "$top/bench/kube.py" "${n#kube:}" ;;
		kuberet:*) "$top/bench/kube.py" --returns "${n#kuberet:}" ;;
		*) "$top/bench/seed.py" "$n" ;;
		esac > "$out/seed-$n.rules"
	done
	"$top/selftests/vm/run-vm.sh" --timeout 1800 --mem 2G --out "$out" \
		-- bench/kernel/commit-latency.sh --guest -k "$inserts" \
		-a "$again" $sizes
	res=$top/bench/results/kernel-commit.md
	{
		echo "# Single-rule commit time in the kernel"
		echo
		echo "Command: \`bench/kernel/commit-latency.sh -k $inserts" \
		     "-a $again $sizes\` (make bench-commit)  "
		nfhp_bench_stamp
		echo
		echo "bench/seed.py's N rules loaded, then single-rule inserts" \
		     "at FORWARD 1, each its own commit; kube:N is" \
		     "bench/kube.py N (FORWARD jumping to N service chains of" \
		     "two rules), with the inserts into the first service" \
		     "chain; kuberet:N the same with a RETURN atop each" \
		     "chain (kube.py --returns).  The time is nfhp_txn_commit() alone (\"last" \
		     "commit took\" in /proc/net/nf-hipac/info); entries is" \
		     "the median of \"last commit flattened\".  TCG inflates" \
		     "the compute several times over."
		echo
		cat "$out/table.md"
		echo
		echo "The same N rules restored again with nf-hipac-restore," \
		     "$again times with one rule changed (ACCEPT and DROP" \
		     "swapped, a different rule each time), then once" \
		     "unchanged: \"build\" is the commit of the first" \
		     "restore, which builds the trees; \"entries\" the" \
		     "median flattened by the restores with a change."
		echo
		cat "$out/again.md"
	} > "$res"
	cat "$res"
	exit 0
fi

nfhp_bench_guest

# took - "last commit took" in ns, and "last commit flattened".
took()
{
	awk '/^last commit took:/ { t = $4 }
	     /^last commit flattened:/ { f = $4 }
	     END { print t, f }' /proc/net/nf-hipac/info
}

{
	echo "| rules | commits | median [ms] | min [ms] | max [ms] | entries |"
	echo "|---|---:|---:|---:|---:|---:|"
} > "$out/table.md"
# swap K - the rule set on standard input with the first ACCEPT or DROP
# rule from its K-th rule on turned into the other.
swap()
{
	awk -v k="$1" '/^-A / && ++n >= k && !done &&
			/ -j (ACCEPT|DROP)$/ {
		if (!sub(/ -j ACCEPT$/, " -j DROP"))
			sub(/ -j DROP$/, " -j ACCEPT")
		done = 1
	} { print }'
}

{
	echo "| rules | build [ms] | again, one changed: median [ms] | min [ms] | max [ms] | entries | again, unchanged [ms] |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
} > "$out/again.md"
for n in $sizes; do
	"$top/user/build/nf-hipac-restore" < "$out/seed-$n.rules"
	build=$(took | awk '{ printf "%.2f", $1 / 1e6 }')
	: > "$out/commit-$n.txt"
	chain=FORWARD
	case $n in
	kube*:*) chain=$(awk -F'[: ]' '/^:KUBE-SVC-/ { print $2; exit }' \
		"$out/seed-$n.rules") ;;
	esac
	for i in $(seq "$inserts"); do
		"$top/user/build/nf-hipac" -I "$chain" 1 \
			-s "10.250.$((i / 250)).$((i % 250))" -j ACCEPT
		took >> "$out/commit-$n.txt"
	done
	flat=$(awk '{ print $2 }' "$out/commit-$n.txt" | sort -n |
	       awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	sort -n "$out/commit-$n.txt" | awk -v n="$n" -v f="$flat" '
		{ v[NR] = $1 / 1e6 }
		END { printf "| %s | %d | %.2f | %.2f | %.2f | %s |\n", n, NR,
		      v[int((NR + 1) / 2)], v[1], v[NR], f }' >> "$out/table.md"

	: > "$out/again-$n.txt"
	rules=$(grep -c '^-A ' "$out/seed-$n.rules")
	for i in $(seq "$again"); do
		swap $((i * rules / (again + 1) + 1)) < "$out/seed-$n.rules" |
			"$top/user/build/nf-hipac-restore"
		took >> "$out/again-$n.txt"
	done
	"$top/user/build/nf-hipac-restore" < "$out/seed-$n.rules"
	"$top/user/build/nf-hipac-restore" < "$out/seed-$n.rules"
	same=$(took | awk '{ printf "%.2f", $1 / 1e6 }')
	flat=$(awk '{ print $2 }' "$out/again-$n.txt" | sort -n |
	       awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	sort -n "$out/again-$n.txt" | awk -v n="$n" -v f="$flat" \
		-v b="$build" -v s="$same" '
		{ v[NR] = $1 / 1e6 }
		END { printf "| %s | %s | %.2f | %.2f | %.2f | %s | %s |\n", n,
		      b, v[int((NR + 1) / 2)], v[1], v[NR], f, s }' \
		>> "$out/again.md"
done
