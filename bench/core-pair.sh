#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two or more nf-hipac-sim binaries compared on what bench/run-core-bench.sh
# measures, in turn: each round runs every binary once on each set
# (`--bench`), and the medians of the rounds are printed, per measure, with
# each binary's change against the first: lookup_ns, build_ms, and the
# single-rule insert_us_p50 and delete_us_p50 at the loaded size.  Like
# bench/lookup-pair.sh, for which this host drifts too much between runs
# far apart.
#
#   bench/core-pair.sh [-d CLASSBENCH_DIR] [-p PACKETS] [-r ROUNDS]
#                      [-s "SET..."] SIM [SIM...]
#
# SIM: a copy of user/build/nf-hipac-sim (copy the old one aside before
# building the new).  SET: names as in bench/classbench-sets.sh; default
# acl1_10k fw1_10k ipc1_10k.  Default 5 rounds of 100000 packets.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
data=${CLASSBENCH_DIR:-$top/../shared/classbench-data}
npkts=100000
rounds=5
want="acl1_10k fw1_10k ipc1_10k"
usage="usage: $0 [-d DIR] [-p PACKETS] [-r ROUNDS] [-s SETS] SIM [SIM...]"
while getopts "d:p:r:s:" opt; do
	case $opt in
	d) data=$OPTARG ;;
	p) npkts=$OPTARG ;;
	r) rounds=$OPTARG ;;
	s) want=$OPTARG ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
for sim in "$@"; do
	[ -x "$sim" ] || { echo "$sim: not an executable" >&2; exit 2; }
done
[ -d "$data/lyxocs-ruleSet" ] || { echo "no ClassBench data in $data" >&2; exit 1; }
tmp=$(mktemp -d /tmp/nfhp-cpair.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

. "$top/bench/classbench-sets.sh"
names=()
while read -r name rf tf; do
	[[ " $want " == *" $name "* ]] || continue
	nfhp_classbench_convert "$tmp" "$name" "$rf" "$tf" "$npkts"
	names+=("$name")
done < <(nfhp_classbench_10k "$data"; nfhp_classbench_100k "$data")
[ ${#names[@]} -gt 0 ] || { echo "no such set: $want" >&2; exit 2; }

keys="lookup_ns build_ms insert_us_p50 delete_us_p50"
for ((r = 1; r <= rounds; r++)); do
	for name in "${names[@]}"; do
		for ((b = 1; b <= $#; b++)); do
			"${!b}" --bench "$tmp/$name.ipt" "$tmp/$name.pkt" \
				2>/dev/null > "$tmp/out"
			for k in $keys; do
				v=$(sed -n "s/^$k=//p" "$tmp/out")
				echo "$k $name $b ${v:-nan}"
			done
		done
	done
done > "$tmp/runs"

# Per measure, the median of each binary's rounds per set, and its change.
for k in $keys; do
	echo "$k"
	awk -v nb=$# -v key="$k" '
		$1 != key { next }
		{ v[$2, $3, ++n[$2, $3]] = $4
		  if (!($2 in seen)) { seen[$2]; order[++ns] = $2 } }
		function median(s, b,   m, i, j, t, a) {
			m = n[s, b]
			for (i = 1; i <= m; i++) a[i] = v[s, b, i]
			for (i = 2; i <= m; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		END {
			printf "  %-12s", "set"
			for (b = 1; b <= nb; b++) printf " %10s", "sim" b
			for (b = 2; b <= nb; b++) printf " %8s", "sim" b
			printf "\n"
			for (i = 1; i <= ns; i++) {
				s = order[i]
				printf "  %-12s", s
				for (b = 1; b <= nb; b++) printf " %10.2f", median(s, b)
				for (b = 2; b <= nb; b++)
					printf " %+7.1f%%", 100 * (median(s, b) / median(s, 1) - 1)
				printf "\n"
			}
		}' "$tmp/runs"
done
