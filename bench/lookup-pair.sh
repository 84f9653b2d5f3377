#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two or more nf-hipac-sim binaries compared on lookups, in turn: each
# round runs every binary once on each set (`--bench`, lookup_ns), and the
# medians of the rounds are printed with each binary's change against the
# first.  This host's speed drifts for minutes, so two runs far apart
# compare two machines; binaries taking turns within seconds do not.
# bench/lookup-counts.sh counts instructions and misses, but not which
# loads wait for which, nor prefetches: a layout is judged here.
#
#   bench/lookup-pair.sh [-d CLASSBENCH_DIR] [-m MODE] [-p PACKETS]
#                        [-r ROUNDS] [-s "SET..."] SIM [SIM...]
#
# SIM: a copy of user/build/nf-hipac-sim (copy the old one aside before
# building the new); one SIM alone is timed without a comparison
# (bench/lookup-parts.sh).  SET: names as in bench/classbench-sets.sh (acl1_10k
# ...); default every 10k set.  Default 3 rounds of 100000 packets.
# MODE says which packets, and what is compared:
#   trace  the trace's first PACKETS, in order (the default; what
#          bench/run-core-bench.sh measures)
#   warm   its first 300, 32 times over: all they reach stays in L2
#   floor  eight packets from across the trace, each 8192 times in a row,
#          the mean of the eight: all in L1 and every branch predicted,
#          what is left is the chain of dependent loads and the
#          instructions.  Other tenants' load moves it least.
#   core   the trace, as in trace mode, and besides the lookups all that
#          bench/run-core-bench.sh measures: build_ms, and the single-rule
#          insert_us_p50 and delete_us_p50 at the loaded size; a table
#          per measure, each under its name.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
data=${CLASSBENCH_DIR:-$top/../shared/classbench-data}
npkts=100000
rounds=3
want=
mode=trace
usage="usage: $0 [-d DIR] [-m trace|warm|floor|core] [-p PACKETS] [-r ROUNDS] [-s SETS] SIM [SIM...]"
while getopts "d:m:p:r:s:" opt; do
	case $opt in
	d) data=$OPTARG ;;
	m) mode=$OPTARG ;;
	p) npkts=$OPTARG ;;
	r) rounds=$OPTARG ;;
	s) want=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
keys=lookup_ns
case $mode in
trace|warm|floor) ;;
core) keys="lookup_ns build_ms insert_us_p50 delete_us_p50" ;;
*) echo "$mode: not a mode (trace, warm, floor, core)" >&2; exit 2 ;;
esac
for sim in "$@"; do
	[ -x "$sim" ] || { echo "$sim: not an executable" >&2; exit 2; }
done
[ -d "$data/lyxocs-ruleSet" ] || { echo "no ClassBench data in $data" >&2; exit 1; }
tmp=$(mktemp -d /tmp/nfhp-pair.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# BASE.pkt's packets as MODE wants them: BASE.run0, BASE.run1...
packets_of()
{
	local i n

	case $mode in
	trace|core)
		cp "$1.pkt" "$1.run0" ;;
	warm)
		head -300 "$1.pkt" > "$1.w"
		for i in $(seq 32); do cat "$1.w"; done > "$1.run0" ;;
	floor)
		n=$(wc -l < "$1.pkt")
		for i in 0 1 2 3 4 5 6 7; do
			yes "$(sed -n "$((i * (n / 8) + 1))p" "$1.pkt")" |
				head -n 8192 > "$1.run$i"
		done ;;
	esac
}

. "$top/bench/classbench-sets.sh"
names=()
while read -r name rf tf; do
	if [ -n "$want" ] && [[ " $want " != *" $name "* ]]; then
		continue
	fi
	nfhp_classbench_convert "$tmp" "$name" "$rf" "$tf" "$npkts"
	packets_of "$tmp/$name"
	names+=("$name")
done < <(nfhp_classbench_10k "$data"; nfhp_classbench_100k "$data")
[ ${#names[@]} -gt 0 ] || { echo "no such set: $want" >&2; exit 2; }

# Each round, each binary on each set: per measure, the mean over the
# set's packet files.
for ((r = 1; r <= rounds; r++)); do
	for name in "${names[@]}"; do
		for ((b = 1; b <= $#; b++)); do
			for pkt in "$tmp/$name".run*; do
				"${!b}" --bench "$tmp/$name.ipt" "$pkt" 2>/dev/null
			done > "$tmp/out"
			for k in $keys; do
				awk -F= -v k="$k" -v s="$name" -v b=$b '
					$1 == k { t += $2; n++ }
					END { print k, s, b, n ? t / n : "nan" }' \
					"$tmp/out"
			done
		done
	done
done > "$tmp/runs"

# Per measure, the median of each binary's rounds per set, and its change.
table()
{
	awk -v nb="$nsims" -v key="$1" '
	$1 != key { next }
	{ v[$2, $3, ++k[$2, $3]] = $4; if (!($2 in seen)) { seen[$2]; order[++ns] = $2 } }
	function median(s, b,   n, i, j, t, a) {
		n = k[s, b]
		for (i = 1; i <= n; i++) a[i] = v[s, b, i]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		printf "%-12s", "set"
		for (b = 1; b <= nb; b++)
			printf " %10s", "sim" b (key == "lookup_ns" ? " ns" : "")
		for (b = 2; b <= nb; b++) printf " %8s", "sim" b
		printf "\n"
		for (i = 1; i <= ns; i++) {
			s = order[i]
			printf "%-12s", s
			for (b = 1; b <= nb; b++) printf " %10.1f", median(s, b)
			for (b = 2; b <= nb; b++)
				printf " %+7.1f%%", 100 * (median(s, b) / median(s, 1) - 1)
			printf "\n"
		}
	}' "$tmp/runs"
}

nsims=$#
for k in $keys; do
	[ "$mode" = core ] && echo "$k"
	table "$k"
done
