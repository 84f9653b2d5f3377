#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lookup cost as counts, not times: cachegrind runs nf-hipac-sim --passes 0
# and --passes 2 over each ClassBench 10k set (with -a, also the 100k sets)
# and its trace, and the difference divided by the lookups is what one
# lookup costs: instructions, mispredicted branches, L1 and last-level
# data read misses, with this host's cache sizes.  Wall-clock times on a
# shared virtual host drift by up to 2x for minutes; these counts do not,
# so they tell two commits apart where bench/run-core-bench.sh cannot.
#
#   bench/lookup-counts.sh [-a] [-d CLASSBENCH_DIR] [-p PACKETS]
#
# est. = Ir/4 + 15 x mispredicts + 10 x D1 misses + 40 x LL misses, a rough
# cycle estimate.  Writes bench/results/lookup-counts.md.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
data=${CLASSBENCH_DIR:-$top/../shared/classbench-data}
npkts=100000
all=false
while getopts "ad:p:" opt; do
	case $opt in
	a) all=true ;;
	d) data=$OPTARG ;;
	p) npkts=$OPTARG ;;
	*) echo "usage: $0 [-a] [-d DIR] [-p PACKETS]" >&2; exit 2 ;;
	esac
done
cmdline="bench/lookup-counts.sh$($all && echo " -a") -d $data -p $npkts"
sim=$top/user/build/nf-hipac-sim
res=$top/bench/results
tmp=$(mktemp -d /tmp/nfhp-counts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
make -s -C "$top/user" build/nf-hipac-sim || exit 1
[ -d "$data/lyxocs-ruleSet" ] || { echo "no ClassBench data in $data" >&2; exit 1; }
mkdir -p "$res"

# This machine kind's L1 data cache and L2 (48 KiB, 1 MiB), modelled as
# every table of bench/results/lookup-counts.md was, fixed so that tables
# from different hosts compare; the L3 behind them is shared with other
# tenants.
d1=49152,12,64
ll=1048576,16,64
vg=(valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes
    "--D1=$d1" "--LL=$ll")

. "$top/bench/classbench-sets.sh"
mapfile -t sets < <(nfhp_classbench_10k "$data"
		    if $all; then nfhp_classbench_100k "$data"; fi)

rows=()
for entry in "${sets[@]}"; do
	read -r name rf tf <<<"$entry"
	nfhp_classbench_convert "$tmp" "$name" "$rf" "$tf" "$npkts"
	pk=$(wc -l < "$tmp/$name.pkt")
	for p in 0 2; do
		"${vg[@]}" --cachegrind-out-file="$tmp/cg.$p" \
			"$sim" --passes $p "$tmp/$name.ipt" "$tmp/$name.pkt" > /dev/null 2> "$tmp/vg.$p" ||
			{ echo "$name: cachegrind failed" >&2; tail -5 "$tmp/vg.$p" >&2; exit 1; }
	done
	# summary: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
	row=$(awk -v n="$((2 * pk))" -v name="$name" '
		/^summary:/ { f++; for (i = 2; i <= NF; i++) v[f, i] = $i }
		END {
			ir = (v[2, 2] - v[1, 2]) / n
			d1 = (v[2, 6] - v[1, 6]) / n
			dl = (v[2, 7] - v[1, 7]) / n
			bm = (v[2, 12] - v[1, 12] + v[2, 14] - v[1, 14]) / n
			printf "| %s | %.0f | %.2f | %.2f | %.2f | %.0f |", name, ir,
			       bm, d1, dl, ir / 4 + 15 * bm + 10 * d1 + 40 * dl
		}' "$tmp/cg.0" "$tmp/cg.2")
	echo "$row" >&2
	rows+=("$row")
done

{
	echo "# nf-hipac lookup cost in counts"
	echo
	echo "Command: \`$cmdline\` (from the repository root)  "
	echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')  "
	echo "Commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null)  "
	echo "Caches (cachegrind): D1 $d1, LL $ll (bytes,ways,line)"
	echo
	echo "Per lookup, over 2 passes of the first $npkts packets of each trace in"
	echo "trace order (\`nf-hipac-sim --passes 2\` less \`--passes 0\`): instructions,"
	echo "mispredicted branches, L1 and last-level data read misses, and est. ="
	echo "Ir/4 + 15 x mispredicts + 10 x D1 misses + 40 x LL misses, a rough cycle"
	echo "count.  Unlike the times of bench/results/core.md, these do not move with"
	echo "the load of the host.  Traces as in core.md."
	echo
	echo "| set | instructions | mispredicts | D1 misses | LL misses | est. |"
	echo "|---|---:|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
} > "$res/lookup-counts.md"
cat "$res/lookup-counts.md"
