#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a lookup's time goes, per ClassBench set: user/build/nf-hipac-sim
# timed by bench/lookup-pair.sh in its three modes, each the median of
# ROUNDS rounds:
#
#   floor  eight packets, each thousands of times in a row: every load
#          hits L1 and every branch is predicted, so what is left is the
#          chain of dependent loads and the instructions;
#   warm   the trace's first 300 packets, 32 times over: what they reach
#          stays in L2, so this adds mispredicts and L1 misses;
#   trace  the trace in order, what bench/run-core-bench.sh measures: this
#          adds the misses past L2.
#
# The differences are what each step adds.  A layout that only shortens
# the floor cannot bring a set below its floor; one that shrinks the
# working set works on the last column.
#
#   bench/lookup-parts.sh [-d CLASSBENCH_DIR] [-p PACKETS] [-r ROUNDS]
#                         [-s "SET..."]
#
# SET: names as in bench/classbench-sets.sh; default every 10k set.
# Writes bench/results/lookup-parts.md.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
data=${CLASSBENCH_DIR:-$top/../shared/classbench-data}
npkts=100000
rounds=3
want=
while getopts "d:p:r:s:" opt; do
	case $opt in
	d) data=$OPTARG ;;
	p) npkts=$OPTARG ;;
	r) rounds=$OPTARG ;;
	s) want=$OPTARG ;;
	*) echo "usage: $0 [-d DIR] [-p PACKETS] [-r ROUNDS] [-s SETS]" >&2
	   exit 2 ;;
	esac
done
. "$top/bench/classbench-sets.sh"
# Default: the 10k sets, which the lookup target is for.
sets=${want:-$(nfhp_classbench_10k "$data" | awk '{ print $1 }' | xargs)}
cmdline="bench/lookup-parts.sh -d $data -p $npkts -r $rounds${want:+ -s \"$want\"}"
res=$top/bench/results
tmp=$(mktemp -d /tmp/nfhp-parts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

make -s -C "$top/user" build/nf-hipac-sim || exit 1
# A copy, so that a build during the run does not change what is timed.
cp "$top/user/build/nf-hipac-sim" "$tmp/sim"
start=$(date +%s)
for mode in floor warm trace; do
	"$top/bench/lookup-pair.sh" -d "$data" -m "$mode" -p "$npkts" \
		-r "$rounds" -s "$sets" "$tmp/sim" > "$tmp/$mode" ||
		exit 1
done
secs=$(($(date +%s) - start))

mkdir -p "$res"
{
	echo "# nf-hipac lookup time by part"
	echo
	echo "Command: \`$cmdline\` (from the repository root)  "
	echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')  "
	echo "Machine: $(uname -m), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs  "
	echo "Commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)  "
	echo "Run time: $secs s"
	echo
	echo "Nanoseconds a lookup, \`nf-hipac-sim --bench\` (lookup_ns), medians of"
	echo "$rounds rounds of bench/lookup-pair.sh in each mode: floor (eight packets"
	echo "from across the trace, each 8192 times in a row: all in L1, every branch"
	echo "predicted), warm (the first 300 packets 32 times over: all in L2) and"
	echo "trace (the first $npkts packets in order, as bench/results/core.md)."
	echo "warm - floor is what mispredicts and L1 misses add, trace - warm what"
	echo "the misses past L2 add."
	echo
	echo "| set | floor | warm | trace | warm - floor | trace - warm |"
	echo "|---|---:|---:|---:|---:|---:|"
	awk 'FNR == 1 { mode++ } FNR > 1 { ns[$1, mode] = $2; if (mode == 1) order[++n] = $1 }
	     END {
		for (i = 1; i <= n; i++) {
			s = order[i]
			printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", s,
			       ns[s, 1], ns[s, 2], ns[s, 3],
			       ns[s, 2] - ns[s, 1], ns[s, 3] - ns[s, 2]
		}
	     }' "$tmp/floor" "$tmp/warm" "$tmp/trace"
} > "$res/lookup-parts.md"
cat "$res/lookup-parts.md"
