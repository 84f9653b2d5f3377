#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The algorithms of named sets in userspace (issue 44's targets): for each
# case, nf-hipac-set-bench (user/bench/set_bench.c) in turn, ROUNDS rounds
# with a different seed each, and the medians of each figure:
#
#   hash ipv4 hosts    10^6 random /32        lookup <= 30 ns, <= 48 B a key
#   hash ipv6 hosts    10^6 random /128 under 2001:db8::/32
#   lpm  ipv4 routes   10^6 prefixes like a routing table   lookup <= 60 ns
#   lpm  ipv6 routes   the same under 2001:db8::/32
#   lpm  ipv4 hosts    10^6 random /32, for comparison with hash
#   bitmap ports       65536 random ports (bitmap:port), fewer distinct
#   range  ranges      10^4 disjoint u32 ranges (bitmap:port algo range):
#                      each update copies the array, so a set of port
#                      ranges, not of 10^6
#   hash ipv4 hosts and lpm ipv4 routes again through the sets' registry
#                      as the module goes (nfhp_set_lookup()), without
#                      and with counters: what counting costs
#
# and for every case: all keys added in <= 1 s, a single add or delete
# p50 <= 2 us.
#
#   bench/set-bench.sh [-n KEYS] [-l LOOKUPS] [-r ROUNDS]
#
# Writes bench/results/sets.md.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
keys=1000000
lookups=5000000
rounds=3
while getopts "n:l:r:" opt; do
	case $opt in
	n) keys=$OPTARG ;;
	l) lookups=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: $0 [-n KEYS] [-l LOOKUPS] [-r ROUNDS]" >&2; exit 2 ;;
	esac
done
cmdline="bench/set-bench.sh -n $keys -l $lookups -r $rounds"
bin=$top/user/build/nf-hipac-set-bench
make -s -C "$top/user" build/nf-hipac-set-bench || exit 1
# ALGO FAMILY MIX [KEYS|- [r|c]]: the number cases have key counts of
# their own; r goes through the registry, c with counters too.
cases=("hash 4 hosts" "hash 6 hosts" "lpm 4 routes" "lpm 6 routes"
       "lpm 4 hosts" "bitmap 4 ports 65536" "range 4 ranges 10000"
       "hash 4 hosts - r" "hash 4 hosts - c" "lpm 4 routes - r"
       "lpm 4 routes - c")
raw=$(mktemp /tmp/nfhp-setbench.XXXXXX)
trap 'rm -f "$raw"' EXIT

for r in $(seq 1 "$rounds"); do
	for c in "${cases[@]}"; do
		read -r algo fam mix n mode <<<"$c"
		[ "${n:--}" = - ] && n=$keys
		line=$("$bin" -n "$n" -l "$lookups" -s $((r * 7919)) \
			${mode:+-$mode} "$algo" "$fam" "$mix") ||
			{ echo "set-bench: $c failed" >&2; exit 1; }
		echo "$c|$line" >> "$raw"
		echo "round $r: $line"
	done
done

# The median of each figure of each case, in the order of the cases.
table=$(python3 - "$raw" <<'EOF'
import re, statistics, sys
rows = {}
order = []
for line in open(sys.argv[1]):
    case, text = line.rstrip("\n").split("|", 1)
    nums = dict(
        add=float(re.search(r"add-all ([\d.]+) s", text).group(1)),
        bytes=float(re.search(r"bytes/key ([\d.]+)", text).group(1)),
        lookup=float(re.search(r"lookup ([\d.]+) ns", text).group(1)),
        del50=int(re.search(r"del p50 (\d+)", text).group(1)),
        del99=int(re.search(r"del p50 \d+ p99 (\d+)", text).group(1)),
        add50=int(re.search(r"add p50 (\d+)", text).group(1)),
        add99=int(re.search(r"add p50 \d+ p99 (\d+)", text).group(1)),
        keys=int(re.search(r"distinct (\d+)", text).group(1)))
    if case not in rows:
        order.append(case)
        rows[case] = []
    rows[case].append(nums)
for case in order:
    m = {k: statistics.median(r[k] for r in rows[case]) for k in rows[case][0]}
    algo, fam, mix = case.split()[:3]
    mode = case.split()[4:5]
    if mode:
        mix += {"r": ", registry", "c": ", counters"}[mode[0]]
    if algo in ("bitmap", "range"):
        fam = "any"
    else:
        fam = "IPv" + fam
    print("| %s | %s | %s | %d | %.1f | %.3f | %.1f | %d / %d | %d / %d |" % (
        algo, fam, mix, m["keys"], m["lookup"], m["add"], m["bytes"],
        m["add50"], m["add99"], m["del50"], m["del99"]))
EOF
)

{
	echo "# Named sets: the algorithms in userspace"
	echo
	echo "Made by \`$cmdline\` on $(date -u '+%Y-%m-%d %H:%M UTC') at" \
	     "commit $(git -C "$top" rev-parse --short HEAD)," \
	     "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the end."
	echo "Medians of $rounds rounds, each with its own keys (seed)." \
	     "Lookups: random addresses inside random keys of the set, in an" \
	     "order the caches cannot follow.  Memory: bytes allocated for the" \
	     "set (the shim rounds to powers of two as kmalloc does), per" \
	     "distinct key.  Single add and delete: one key deleted and added" \
	     "back, each timed alone, 100,000 times.  \"registry\": through" \
	     "the sets' registry and nfhp_set_lookup(), as the module's" \
	     "commands and packets go; \"counters\": the same with a set" \
	     "made with counters (a packet of 64 bytes a lookup)."
	echo
	echo "| algorithm | family | keys | distinct | lookup ns | add all s | bytes/key | add p50 / p99 ns | delete p50 / p99 ns |"
	echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
	echo "$table"
	echo
	echo "Targets (issue 44): hash of 10^6 /32 lookup <= 30 ns and <= 48" \
	     "bytes a key; lpm of 10^6 routes lookup <= 60 ns; every set added" \
	     "in <= 1 s; single add or delete p50 <= 2 us."
} > "$top/bench/results/sets.md"
echo "wrote bench/results/sets.md"
