#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The worst-case sweep of issue 48: SETS random rule sets of bench/worst.py
# at each size (many dimensions, user chains jumped to from many places,
# RETURNs and gotos), each loaded into nf-hipac-sim under a time limit:
#
#   bench/worst-sweep.sh [-n SETS] [-s SIZES] [-t SECONDS] [-o OUT]
#                        [-p PACKETS] [-c CHECKS] [-b SECONDS] [-m MIB]
#                        [-g GENOPTS] [-u UPDATES] [-T CSV]
#
# -n: rule sets per size, seeds 1..SETS (default 50)
# -s: sizes in rules, comma-separated (default 100,1000,10000)
# -t: time limit in wall-clock seconds per 1000 rules (default 3); a set of
#     N rules gets max(2, SECONDS * N / 1000) to load.  A set that does not
#     finish in time is counted as a timeout.
# -o: the table (default bench/results/worst.md); the CSV goes beside it
#     as OUT less .md plus .csv, the raw --stats lines as ...-stats.txt
# -p: packets per set from bench/rules2pkt.py for the lookups (default 10000)
# -c: the first CHECKS of them go through --check (default 1000)
# -b: the time --bench gets beyond the load limit (default 20 s), in which
#     it times 100 single-rule updates (-u)
# -m: address space limit of nf-hipac-sim in MiB (default 4096): a set
#     that needs more fails, as "out of memory"
# -g: more options for bench/worst.py, e.g. "--depth 4 --hot 0.6"
# -T: run nothing; make OUT again from the rows of CSV, an earlier run's
#     (or what a stopped run wrote), for the sizes of -s, with the other
#     options as that run had them
#
# Per set, two runs of nf-hipac-sim (NFHP_SIM overrides the binary):
#  1. --stats --check on the CHECKS packets: the wall time of this run is
#     the load time (parsing, the tree, the linear reference, the check),
#     memory is the tree's allocated bytes, the tree statistics are summed
#     over the hooks, and every packet's verdict must equal the linear
#     reference's.  A mismatch or an error is a failure.
#  2. if 1 finished: --bench on all the packets: build_ms (the core's CPU
#     time), lookup ns of the tree and the linear reference, single-rule
#     insert/delete.
# Writes OUT and the CSV; the exit status is 1 if a set failed.  The
# generated sets and packets stay in a temporary directory.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
nsets=50
sizes=100,1000,10000
per1k=3
out=$top/bench/results/worst.md
npkts=10000
nchecks=1000
bextra=20
nupdates=100
memlimit=4096
genopts=
retable=
while getopts "n:s:t:o:p:c:b:m:g:u:T:" opt; do
	case $opt in
	n) nsets=$OPTARG ;;
	s) sizes=$OPTARG ;;
	t) per1k=$OPTARG ;;
	o) out=$OPTARG ;;
	p) npkts=$OPTARG ;;
	c) nchecks=$OPTARG ;;
	b) bextra=$OPTARG ;;
	m) memlimit=$OPTARG ;;
	g) genopts=$OPTARG ;;
	u) nupdates=$OPTARG ;;
	T) retable=$OPTARG ;;
	*) echo "usage: $0 [-n SETS] [-s SIZES] [-t SECONDS] [-o OUT]" \
		"[-p PACKETS] [-c CHECKS] [-b SECONDS] [-m MIB] [-g GENOPTS] [-u UPDATES] [-T CSV]" >&2
	   exit 2 ;;
	esac
done
for v in "$nsets" "$npkts" "$nchecks" "$bextra" "$memlimit"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "$0: not a count: $v" >&2; exit 2; }
done
[[ $per1k =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "$0: bad -t $per1k" >&2; exit 2; }
[[ $sizes =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "$0: bad -s $sizes" >&2; exit 2; }
cmdline="bench/worst-sweep.sh -n $nsets -s $sizes -t $per1k -p $npkts -c $nchecks -b $bextra -m $memlimit -u $nupdates${genopts:+ -g \"$genopts\"}"
sim=${NFHP_SIM:-$top/user/build/nf-hipac-sim}
base=${out%.md}
csv=$base.csv
raw=$base-stats.txt
tmp=$(mktemp -d /tmp/nfhp-worst.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [ -z "${NFHP_SIM:-}" ]; then
	make -s -C "$top/user" build/nf-hipac-sim || exit 1
fi
mkdir -p "$(dirname "$out")"

# nf-hipac-sim under a time limit of $1 seconds and the memory limit.
run_sim() {
	local t=$1
	shift
	(ulimit -v $((memlimit * 1024)) && exec timeout -k 5 "$t" "$sim" "$@")
}

# The load limit of a set of $1 rules, in whole seconds.
limit_of() {
	awk -v n="$1" -v t="$per1k" 'BEGIN { l = t * n / 1000; if (l < 2) l = 2
		printf "%d\n", l == int(l) ? l : int(l) + 1 }'
}

start=$(date +%s)
fails=0
IFS=, read -r -a sizelist <<<"$sizes"
if [ -n "$retable" ]; then
	[ -r "$retable" ] || { echo "$0: cannot read $retable" >&2; exit 2; }
	csv=$retable
	raw=${csv%.csv}-stats.txt
	fails=$(awk -F, -v sizes=",$sizes," 'NR > 1 &&
		index(sizes, "," $1 ",") && $5 != "ok" && $5 != "timeout" &&
		$5 != "bench timeout" { n++ } END { print n + 0 }' "$csv")
	sizelist_run=()
else
	sizelist_run=("${sizelist[@]}")
	echo "size,seed,rules,chains,status,limit_s,load_s,memory_bytes,entries,nodes,leaves,lists,depth,shared,checked,mismatches,build_ms,lookup_ns,linear_ns,insert_us_p50,insert_us_p99,delete_us_p50,delete_us_p99" > "$csv"
	: > "$raw"
fi
for size in "${sizelist_run[@]}"; do
	limit=$(limit_of "$size")
	blimit=$((limit + bextra))
	for seed in $(seq 1 "$nsets"); do
		name=w$size-$seed
		r=$tmp/$name.ipt
		# $genopts: generator options, one word each.
		# shellcheck disable=SC2086
		if ! python3 "$top/bench/worst.py" "$size" --seed "$seed" \
				$genopts > "$r" 2> "$tmp/gen.err"; then
			echo "bench/worst.py failed: $(head -c 300 "$tmp/gen.err")" >&2
			exit 1
		fi
		python3 "$top/bench/rules2pkt.py" "$r" --count "$npkts" \
			--seed "$seed" > "$tmp/$name.pkt" || exit 1
		head -n "$nchecks" "$tmp/$name.pkt" > "$tmp/$name.chk"
		rules=$(grep -c '^-A' "$r")
		chains=$(grep -c '^:' "$r")
		chains=$((chains - 3))

		t0=$EPOCHREALTIME
		run_sim "$limit" --stats --check "$r" "$tmp/$name.chk" \
			> "$tmp/$name.out" 2> "$tmp/$name.err"
		rc=$?
		t1=$EPOCHREALTIME
		load=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		checked=$(sed -n 's/^nf-hipac-sim: \([0-9]*\) packets checked.*/\1/p' "$tmp/$name.err")
		mism=$(sed -n 's/.* packets checked, \([0-9]*\) mismatches$/\1/p' "$tmp/$name.err")
		# 137: killed after the grace time of timeout -k.
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			status=timeout
			load=
		elif [ $rc -eq 0 ] && [ "${mism:-x}" = 0 ]; then
			status=ok
		elif [ -n "$mism" ] && [ "$mism" != 0 ]; then
			status=mismatch
		elif [ $rc -eq 4 ] || grep -q "out of memory" "$tmp/$name.err"; then
			status="out of memory"
		else
			status="failed (exit $rc: $(grep -v '^MISMATCH\|^  reference' "$tmp/$name.err" | head -c 80 | tr '\n,' '  '))"
		fi
		# Memory and the tree statistics, summed over the hooks.
		stats=$(awk '
			/^memory used/ { mem = $5; sub(/,$/, "", mem) }
			/^(INPUT|FORWARD|OUTPUT): rules/ {
				for (i = 2; i < NF; i++) {
					k = $i; v = $(i + 1); gsub(/[,()]/, "", v)
					if (k == "rules") e += v
					else if (k == "nodes") n += v
					else if (k == "leaves") l += v
					else if (k == "(lists") li += v
					else if (k == "depth" && v > d) d = v
					else if (k == "shared") s += v
				}
				seen = 1
			}
			END { if (seen) printf "%s,%d,%d,%d,%d,%d,%d", mem, e, n, l, li, d, s
			      else printf ",,,,,," }' "$tmp/$name.out")

		bench=",,,,,,"
		if [ "$status" = ok ] || [ "$status" = mismatch ]; then
			run_sim "$blimit" --bench --updates "$nupdates" "$r" \
				"$tmp/$name.pkt" \
				> "$tmp/$name.bench" 2> "$tmp/$name.berr"
			brc=$?
			get() { sed -n "s/^$1=//p" "$tmp/$name.bench"; }
			if [ $brc -eq 0 ]; then
				bench="$(get build_ms),$(get lookup_ns),$(get linear_lookup_ns),$(get insert_us_p50),$(get insert_us_p99),$(get delete_us_p50),$(get delete_us_p99)"
			elif [ "$status" = ok ] && { [ $brc -eq 124 ] ||
					[ $brc -eq 137 ]; }; then
				status="bench timeout"
			elif [ "$status" = ok ] && { [ $brc -eq 4 ] ||
					grep -q "out of memory" "$tmp/$name.berr"; }; then
				status="bench out of memory"
			elif [ "$status" = ok ]; then
				status="bench failed (exit $brc: $(head -c 80 "$tmp/$name.berr" | tr '\n,' '  '))"
			fi
		fi
		{
			echo "== $name: bench/worst.py $size --seed $seed${genopts:+ $genopts}: $status"
			grep -E '^(memory used|INPUT:|FORWARD:|OUTPUT:|  )' "$tmp/$name.out"
			grep '^MISMATCH\|^  reference' "$tmp/$name.err"
		} >> "$raw"
		case $status in
		ok|timeout|"bench timeout") ;;
		*) fails=$((fails + 1)) ;;
		esac
		echo "$size,$seed,$rules,$chains,$status,$limit,$load,$stats,$checked,$mism,$bench" >> "$csv"
		tail -1 "$csv" >&2
	done
done
elapsed="$(($(date +%s) - start)) s"
[ -z "$retable" ] || elapsed="not known (the table was made again from the CSV)"

# One size's row of the table: p50, p99 and max by nearest rank.  A
# timed-out set's load time counts as above every finished one (">LIMIT").
summary() {
	awk -F, -v size="$1" '
	function sortn(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) {
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--)
				a[j + 1] = a[j]
			a[j + 1] = t
		}
	}
	function at(a, n, p,   k) {
		k = int(p * n + 0.999999)
		return a[k < 1 ? 1 : k]
	}
	function fmt(v, f) { return v >= 1e300 ? ">" lim : sprintf(f, v) }
	# "p50 / p99 / max" (or "p50 / p99" with two = 1) of a[1..n]
	function pcts(a, n, f, two) {
		if (!n)
			return "–"
		sortn(a, n)
		return fmt(at(a, n, .5), f) " / " fmt(at(a, n, .99), f) \
			(two ? "" : " / " fmt(a[n], f))
	}
	NR > 1 && $1 == size {
		sets++
		lim = $6
		if ($5 == "timeout") {
			to++
			load[++nl] = 1e300
			next
		}
		if ($5 == "bench timeout")
			bto++
		else if ($5 != "ok")
			fail++
		if ($7 != "")
			load[++nl] = $7
		if ($8 != "")
			mem[++nm] = $8 / 1048576
		if ($9 != "") {
			ent[++ne] = $9
			nod[ne] = $10
			if ($13 > dep)
				dep = $13
		}
		if ($17 != "") {
			bld[++nb] = $17
			lk[++nk] = $18
			ln[nk] = $19
		}
	}
	END {
		if (!sets)
			exit
		sortn(ent, ne)
		sortn(nod, ne)
		sortn(ln, nk)
		printf "| %s | %d | %d s | %d | %d | %d | %s | %s (%d) | %s | %s (%d) | %s | %s | %s | %s |\n",
			size, sets, lim, to, bto, fail, pcts(load, nl, "%.2f"),
			pcts(bld, nb, "%.1f"), nb, pcts(mem, nm, "%.2f"),
			pcts(lk, nk, "%.1f", 1), nk,
			nk ? sprintf("%.0f", at(ln, nk, .5)) : "–",
			ne ? at(ent, ne, .5) " / " ent[ne] : "–",
			ne ? at(nod, ne, .5) " / " nod[ne] : "–",
			ne ? dep : "–"
	}' "$csv"
}

{
	echo "# nf-hipac worst-case sweep"
	echo
	echo "Command: \`$cmdline\` (from the repository root)  "
	echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC')  "
	echo "Machine: $(uname -m), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs  "
	echo "Commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null)$(git -C "$top" diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')  "
	echo "Run time: ${elapsed}; limit per set: max(2, $per1k x rules/1000) s to load,"
	echo "$bextra s more for --bench; address space $memlimit MiB"
	echo
	echo "Each set is \`bench/worst.py SIZE --seed N${genopts:+ $genopts}\`, N = 1..$nsets"
	echo "(by default: rules over many dimensions at once, half of them in user"
	echo "chains of two levels jumped to from many places, a hot chain taking 30%"
	echo "of the jumps, with RETURNs and gotos); packets: \`bench/rules2pkt.py\`,"
	echo "$npkts per set, most inside a random rule, 10% random."
	echo
	echo "- *load s*: wall-clock time of \`nf-hipac-sim --stats --check\` on the first"
	echo "  $nchecks packets (parse, tree, linear reference, check).  A set that does"
	echo "  not finish in its limit is a *timeout* and counts as slower than every"
	echo "  set that finished (\">limit\")."
	echo "- *build ms*: the core's CPU time while loading, from \`--bench\`, of the"
	echo "  sets whose --bench finished (their number in brackets); a *bench"
	echo "  timeout* loaded but did not finish --bench (7 rounds of lookups, $nupdates"
	echo "  single-rule updates)."
	echo "- *memory*: the trees' allocated bytes (\`--stats\`); *entries*, *nodes*:"
	echo "  summed over the hooks' trees, p50 / max; *depth*: the deepest tree;"
	echo "  all three of the sets that loaded (not of the timeouts)."
	echo "- *lookup*: the tree's ns per packet (thread CPU time), p50 / p99 over the"
	echo "  sets; *linear*: the naive reference's p50."
	echo "- *failures*: a verdict that differs from the linear reference's, out of"
	echo "  memory, or an error."
	echo
	echo "p99 is the nearest rank: below 100 sets it is the maximum.  Per set:"
	echo "\`$(basename "$csv")\`; the raw \`--stats\` lines: \`$(basename "$raw")\`."
	echo
	echo "| rules | sets | limit | timeouts | bench timeouts | failures | load s p50 / p99 / max | build ms p50 / p99 / max (sets) | memory MiB p50 / p99 / max | lookup ns p50 / p99 (sets) | linear ns p50 | entries p50 / max | nodes p50 / max | depth |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for size in "${sizelist[@]}"; do
		summary "$size"
	done
} > "$out"
cat "$out"
[ "$fails" -eq 0 ]
