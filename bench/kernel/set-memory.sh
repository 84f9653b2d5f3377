#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# set-memory.sh - memory, load time and update time of 100k-entry sets in
# the kernel: ipset, nft and nf-hipac-set, and the same keys as nf-hipac
# rules, in one VM boot (issue 44)
#
#	bench/kernel/set-memory.sh [-n ENTRIES] [-b SECONDS]
#
# On the host, bench/kernel/setkeys.py writes with a fixed seed ENTRIES
# (100000) random distinct IPv4 hosts, and ENTRIES IPv4 prefixes like a
# routing table of which none holds another (an nft interval set refuses
# overlapping elements); and 1,000 updates of each: 500 adds of new keys
# alternating with 500 deletes of loaded ones; each contender's load file
# in its own syntax, into build/set-memory/in.  Then boots the test VM
# once and runs itself there with --guest.
#
# In the guest, in the initial namespace, for hosts and then prefixes, each
# contender in turn:
#	ipset		hash:ip / hash:net, maxelem 1000000, via ipset restore
#	nft		table ip, a set of type ipv4_addr (flags interval for
#			the prefixes), via nft -f with 10,000 elements per
#			add element
#	nf-hipac-set	hash:ip / hash:net (algo hash / lpm), maxelem 0, via
#			nf-hipac-set restore
#	nf-hipac	no set: one rule -s KEY -j DROP per key in FORWARD,
#			via nf-hipac-restore (the table calls it "nf-hipac
#			rules")
# it times the load (wall time of the restore command), reads the memory
# the contender reports of itself (ipset's "Size in memory" of ipset list
# -terse, the memory column of /proc/net/nf-hipac/sets; nft reports none)
# and the kernel's memory before and after the load (after sync, drop
# caches and a pause: Slab + VmallocUsed + Percpu of /proc/meminfo, which
# holds kmalloc's large blocks too, as SUnreclaim, and kvmalloc's either
# way; and as a rough cross-check MemTotal - MemFree - Buffers - Cached,
# which also moves with the pages on the per-CPU free lists), then times
# the 1,000 updates as
# single commands (ipset add/del, nft add/delete element, nf-hipac-set
# add/del, nf-hipac -A/-D FORWARD -s KEY -j DROP, one process each; after
# SECONDS (150) the rest are skipped and the time is scaled up from those
# done, marked "~"), then another 1,000 as one batch (ipset restore, nft
# -f, nf-hipac-set restore, nf-hipac-restore --noflush), and destroys the
# set (or flushes the rules).  The modules are loaded, and each
# contender is run once on a tiny set, before anything is measured.
#
# Writes bench/results/sets-kernel.md.  Under TCG absolute times are
# inflated many times over: compare the ratios within the run.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/bench/kernel/lib.sh"
n=100000
budget=150
guest=0
args=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; args+=(-n "$2"); shift 2 ;;
	-b) budget=$2; args+=(-b "$2"); shift 2 ;;
	--guest) guest=1; shift ;;
	*) echo "usage: $0 [-n ENTRIES] [-b SECONDS]" >&2; exit 2 ;;
	esac
done

if [ "$guest" = 0 ]; then
	for f in "$top/nf_hipac.ko" "$top/user/build/nf-hipac-set"; do
		[ -e "$f" ] || { echo "set-memory: $f is missing" >&2; exit 1; }
	done
	out=$top/build/set-memory
	rm -rf "$out"
	mkdir -p "$out/in"
	"$top/bench/kernel/setkeys.py" -n "$n" "$out/in"
	rc=0
	"$top/selftests/vm/run-vm.sh" --timeout 5400 --mem 2G --smp 2 \
		--out "$out" -- bench/kernel/set-memory.sh --guest \
		${args[@]+"${args[@]}"} || rc=$?
	[ -s "$out/rows.txt" ] || { echo "set-memory: no results" >&2; exit 1; }
	cat "$out/rows.txt"
	res=$top/bench/results/sets-kernel.md
	{
		echo "# Sets in the kernel: memory, load and update time"
		echo
		echo "Command: \`bench/kernel/set-memory.sh${args[*]:+ ${args[*]}}\`" \
		     "(make bench-sets-kernel)  "
		load=$(cut -d' ' -f1-3 /proc/loadavg)
		nfhp_bench_stamp "QEMU TCG, 2 vCPUs, 2 GB, Debian's 6.1" \
				 "kernel; host load average $load at the end;" \
				 "$(cat "$out/versions.txt")"
		echo
		echo "$n random IPv4 hosts, and $n IPv4 prefixes like a" \
		     "routing table (60 % /24, 30 % /16-/22, 10 % /25-/32, none" \
		     "holding another), generated with a fixed seed" \
		     "(bench/kernel/setkeys.py).  nf-hipac rules: the same keys" \
		     "as one rule \`-s KEY -j DROP\` each, no set.  Load:" \
		     "wall time of the restore command.  B/entry (own): the" \
		     "memory the contender reports, over the entries.  B/entry" \
		     "(kernel): the growth of the kernel's memory over the load," \
		     "over the entries.  1,000 updates, 500 adds of new keys" \
		     "alternating with 500 deletes of loaded ones: each its own" \
		     "command (single), or all in one restore (batched), wall" \
		     "time in seconds; \"~\" marks a time scaled up from the part" \
		     "done within the budget of $budget s."
		echo
		echo "| contender | set | entries | load [s] | B/entry (own) |" \
		     "B/entry (kernel) | 1,000 single [s] | 1,000 batched [s] |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|"
		awk '{
			own = $5 == "-" ? "-" : sprintf("%.1f", $5 / $3)
			single = $9 == 1000 ? sprintf("%.1f", $8) : \
				 sprintf("~%.0f (%d done)", $8 * 1000 / $9, $9)
			name = $1 == "nf-hipac" ? "nf-hipac rules" : $1
			printf "| %s | %s | %d | %.2f | %s | %.1f | %s | %.2f |\n",
			       name, $2, $3, $4, own, $6 / $3, single, $10
		}' "$out/rows.txt"
		echo
		cat <<-EOF
		How each figure was measured, and its caveats:

		- **Memory, own figures.** ipset: "Size in memory" of
		  \`ipset list -terse\`, which counts its hash buckets and
		  elements.  nf-hipac: the memory column of
		  /proc/net/nf-hipac/sets, every block the set allocated
		  (nfhp_alloc); for nf-hipac rules, "total memory
		  (allocated)" plus "memory of counters" of
		  /proc/net/nf-hipac/info, the whole IPv4 rule set.  nft
		  reports no memory of a set: "-".
		- **Memory, kernel.** For every contender, the kernel's memory
		  after the load less before it, each after sync, drop_caches
		  and a pause of 3 s (for the RCU frees and nft's rhashtable
		  resize worker): Slab + VmallocUsed + Percpu of /proc/meminfo
		  (kmalloc's large blocks, which come from the page allocator,
		  are counted in Slab as SUnreclaim; kvmalloc's either way).
		  This is an approximation: it takes in anything else the
		  kernel allocated or freed meanwhile, and the slab pages left
		  partly empty (a real cost, but not the set's alone); pages
		  taken straight from the page allocator are not in it.  It is
		  the only figure for nft, and a cross-check for the others.
		  The raw rows also give the growth of MemTotal - MemFree -
		  Buffers - Cached, which counts every page but moves by
		  megabytes with the pages left on the per-CPU free lists (not
		  in MemFree) after a process as large as nft: too rough for
		  the table.
		- **Load.** Wall time of \`ipset restore\`, \`nft -f\` (one
		  transaction, 10,000 elements per add element),
		  \`nf-hipac-set restore\` and \`nf-hipac-restore\` (one
		  commit of the rules), the file on tmpfs, the modules
		  loaded before: the parsing in userspace is in it.
		- **Single updates.** Each update its own process (\`ipset
		  add|del\`, \`nft add|delete element\`, \`nf-hipac-set
		  add|del\`, \`nf-hipac -A|-D FORWARD -s KEY -j DROP\`, a
		  commit of the rule set each): a process start alone costs
		  about 0.1 s under TCG, so these times are mostly process
		  start and netlink setup; nft also fetches the table's state
		  first.
		- **Batched updates.** Another 500 adds and 500 deletes as one
		  restore of 1,000 lines (for nft a file of 1,000 add and
		  delete element commands, one transaction; for nf-hipac rules
		  \`nf-hipac-restore --noflush\` of 1,000 -A and -D lines, one
		  commit).
		- **TCG.** The VM emulates the CPU (no KVM here): absolute times
		  are inflated many times over and vary with the host's load;
		  compare the ratios within one run.  Memory figures do not
		  depend on it.

		Raw rows (contender, set, entries, load s, own bytes, kernel
		bytes (Slab + VmallocUsed + Percpu), MemTotal - MemFree -
		Buffers - Cached bytes, single updates s, single updates done,
		batched s):

		EOF
		sed 's/^/    /' "$out/rows.txt"
	} > "$res"
	cat "$res"
	exit "$rc"
fi

nfhp_bench_guest
in=$out/in
hipac=$top/user/build/nf-hipac-set
rules=$top/user/build/nf-hipac
modprobe ip_set_hash_ip
modprobe ip_set_hash_net
modprobe nf_tables
# The files on tmpfs: reading them over 9p is not what is measured.
tmp=$(mktemp -d)
cp "$in"/* "$tmp"/
{
	echo "$(ipset --version | head -1 | cut -d, -f1)," \
	     "$(nft --version | cut -d' ' -f1-2)"
} > "$out/versions.txt"

now() { echo "$EPOCHREALTIME"; }
secs() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.3f", e - s }'; }

# kmem - the kernel's memory in bytes: Slab + VmallocUsed + Percpu, and
# MemTotal - MemFree - Buffers - Cached, after the caches are dropped.
kmem()
{
	sync
	sleep 3
	echo 3 > /proc/sys/vm/drop_caches
	awk '{ v[$1] = $2 * 1024 } END {
		printf "%d %d\n",
		       v["Slab:"] + v["VmallocUsed:"] + v["Percpu:"],
		       v["MemTotal:"] - v["MemFree:"] - v["Buffers:"] - \
		       v["Cached:"]
	}' /proc/meminfo
}

# load TOOL KIND - load KIND's file with TOOL.
load()
{
	case $1 in
	ipset) ipset restore < "$tmp/$2.ipset" ;;
	nft) nft -f "$tmp/$2.nft" ;;
	nf-hipac-set) "$hipac" restore < "$tmp/$2.nfhp" ;;
	nf-hipac) "$rules-restore" < "$tmp/$2.ipt" ;;
	esac
}

# batch TOOL KIND - KIND's batch of updates with TOOL.
batch()
{
	case $1 in
	ipset) ipset restore < "$tmp/$2.batch.ipset" ;;
	nft) nft -f "$tmp/$2.batch.nft" ;;
	nf-hipac-set) "$hipac" restore < "$tmp/$2.batch.nfhp" ;;
	nf-hipac) "$rules-restore" --noflush < "$tmp/$2.batch.ipt" ;;
	esac
}

# update TOOL SET OP KEY - one update as its own command (for nf-hipac
# rules, a rule -s KEY -j DROP appended to or deleted from FORWARD).
update()
{
	case $1$3 in
	ipset*) ipset "$3" "$2" "$4" ;;
	nftadd) nft add element ip bench "$2" "{ $4 }" ;;
	nftdel) nft delete element ip bench "$2" "{ $4 }" ;;
	nf-hipac-set*) "$hipac" "$3" "$2" "$4" ;;
	nf-hipacadd) "$rules" -A FORWARD -s "$4" -j DROP ;;
	nf-hipacdel) "$rules" -D FORWARD -s "$4" -j DROP ;;
	esac
}

# own TOOL SET - the memory TOOL reports for SET, in bytes, or "-".
own()
{
	case $1 in
	ipset) ipset list -terse "$2" | sed -n 's/^Size in memory: //p' ;;
	nft) echo - ;;
	nf-hipac-set) awk -v s="$2" '$1 == s { print $6 }' \
			  /proc/net/nf-hipac/sets ;;
	nf-hipac) awk -F: '/^total memory \(allocated\)|^memory of counters/ {
			s += $2 } END { print s }' /proc/net/nf-hipac/info ;;
	esac
}

# entries TOOL SET - the entries TOOL reports for SET.
entries()
{
	case $1 in
	ipset) ipset list -terse "$2" |
			sed -n 's/^Number of entries: //p' ;;
	nf-hipac-set) "$hipac" list -terse "$2" |
			sed -n 's/^Number of entries: //p' ;;
	nft)
		# an interval set lists each prefix as a/len
		nft list set ip bench "$2" | tr ',{}' '\n' |
			grep -c '[0-9]\.[0-9]' || true ;;
	nf-hipac) "$rules" -S FORWARD | grep -c '^-A' || true ;;
	esac
}

# destroy TOOL - remove what TOOL loaded.
destroy()
{
	case $1 in
	ipset) ipset destroy ;;
	nft) nft delete table ip bench ;;
	nf-hipac-set) "$hipac" destroy ;;
	nf-hipac) printf '*filter\nCOMMIT\n' | "$rules-restore" ;;
	esac
}

tools="ipset nft nf-hipac-set nf-hipac"
# Warm up: each contender once on a tiny set, so that nothing allocated
# on first use is counted.
for kind in hosts prefixes; do
	for tool in $tools; do
		case $tool in
		ipset) head -3 "$tmp/$kind.ipset" | ipset restore ;;
		nft) { head -3 "$tmp/$kind.nft"
		       echo "add element ip bench bl { 10.0.0.0 }"; } |
			nft -f - ;;
		nf-hipac-set) head -3 "$tmp/$kind.nfhp" | "$hipac" restore ;;
		nf-hipac) { head -6 "$tmp/$kind.ipt"; echo COMMIT; } |
			"$rules-restore" ;;
		esac
		destroy "$tool"
	done
done

: > "$out/rows.txt"
for kind in hosts prefixes; do
	name=bl
	for tool in $tools; do
		echo "set-memory: $tool $kind" >&2
		m=$(kmem)
		u0=${m% *} s0=${m#* }
		t0=$(now)
		load "$tool" "$kind" ||
			echo "set-memory: $tool $kind load failed" >&2
		t1=$(now)
		m=$(kmem)
		u1=${m% *} s1=${m#* }
		ld=$(secs "$t0" "$t1")
		o=$(own "$tool" "$name" || true)
		e=$(entries "$tool" "$name" || true)
		# single updates, within the budget
		done=0
		t0=$(now)
		end=$((SECONDS + budget))
		while read -r op key; do
			update "$tool" "$name" "$op" "$key" </dev/null ||
				echo "set-memory: $tool $op $key failed" >&2
			done=$((done + 1))
			[ "$SECONDS" -lt "$end" ] || break
		done < "$tmp/$kind.single"
		t1=$(now)
		sg=$(secs "$t0" "$t1")
		t0=$(now)
		batch "$tool" "$kind" ||
			echo "set-memory: $tool $kind batch failed" >&2
		t1=$(now)
		bt=$(secs "$t0" "$t1")
		destroy "$tool"
		echo "$tool $kind $e $ld ${o:--} $((u1 - u0)) $((s1 - s0))" \
		     "$sg $done $bt" | tee -a "$out/rows.txt" >&2
	done
done
rm -rf "$tmp"
