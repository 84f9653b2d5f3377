#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# set-memory.sh - memory, load time and update time of 100k-entry sets in
# the kernel: ipset, nft and nf-hipac-set, in one VM boot (issue 44)
#
#	bench/kernel/set-memory.sh [-n ENTRIES] [-b SECONDS]
#
# On the host, with a fixed seed (python3, below): ENTRIES (100000) random
# distinct IPv4 hosts, and ENTRIES IPv4 prefixes like a routing table
# (60 % /24, 30 % /16 to /22, 10 % /25 to /32, as user/bench/set_bench.c
# draws them) of which none holds another, because an nft interval set
# refuses overlapping elements (ipset and nf-hipac take nested ones); and
# 1,000 updates of each: 500 adds of new keys alternating with 500 deletes
# of loaded ones.  Each contender's load file is written in its own syntax
# into build/set-memory/in.  Then boots the test VM once and runs itself
# there with --guest.
#
# In the guest, in the initial namespace, for hosts and then prefixes, each
# contender in turn:
#	ipset		hash:ip / hash:net, maxelem 1000000, via ipset restore
#	nft		table ip, a set of type ipv4_addr (flags interval for
#			the prefixes), via nft -f with 10,000 elements per
#			add element
#	nf-hipac-set	hash:ip / hash:net (algo hash / lpm), maxelem 0, via
#			nf-hipac-set restore
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
# add/del, one process each; after SECONDS (150) the rest are skipped and
# the time is scaled up from those done, marked "~"), then another 1,000
# as one batch (ipset restore, nft -f, nf-hipac-set restore), and
# destroys the set.  The modules are loaded, and each contender is run
# once on a tiny set, before anything is measured.
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
	python3 - "$n" "$out/in" <<-'EOF'
	import random
	import sys

	n, d = int(sys.argv[1]), sys.argv[2]
	rnd = random.Random(44)

	def ip(a):
	    return "%d.%d.%d.%d" % (a >> 24, a >> 16 & 255, a >> 8 & 255,
	                            a & 255)

	def plen():
	    r = rnd.random()
	    if r < 0.6:
	        return 24
	    if r < 0.9:
	        return rnd.randint(16, 22)
	    return rnd.randint(25, 32)

	def hosts(count, taken):
	    keys = []
	    while len(keys) < count:
	        a = rnd.randrange(1 << 24, 224 << 24)
	        if a not in taken:
	            taken.add(a)
	            keys.append(ip(a))
	    return keys

	def prefixes(count, taken, inner):
	    # taken: the prefixes (addr, len); inner: every prefix that holds
	    # one of them.  A new one may neither hold nor be held by another.
	    keys = []
	    while len(keys) < count:
	        l = plen()
	        a = rnd.randrange(1 << 24, 224 << 24) & (0xffffffff << (32 - l))
	        if (a, l) in inner or any(
	                (a & (0xffffffff << (32 - k)) & 0xffffffff, k) in taken
	                for k in range(l + 1)):
	            continue
	        taken.add((a, l))
	        for k in range(l):
	            inner.add((a & (0xffffffff << (32 - k)) & 0xffffffff, k))
	        keys.append("%s/%d" % (ip(a), l))
	    return keys

	for kind, name in (("hosts", "h"), ("prefixes", "p")):
	    if kind == "hosts":
	        taken = set()
	        keys = hosts(n, taken)
	        new = hosts(1000, taken)
	        ipset, nft = "hash:ip", ""
	    else:
	        taken, inner = set(), set()
	        keys = prefixes(n, taken, inner)
	        new = prefixes(1000, taken, inner)
	        ipset, nft = "hash:net", " flags interval;"
	    old = rnd.sample(keys, 1000)
	    # updates: add a new key, delete a loaded one, in turn
	    upd = []
	    for i in range(1000):
	        upd.append(("add" if i % 2 == 0 else "del",
	                    new[i // 2] if i % 2 == 0 else old[i // 2]))
	    # the batch: another 500 adds and 500 deletes
	    batch = [("add", new[500 + i // 2]) if i % 2 == 0
	             else ("del", old[500 + i // 2]) for i in range(1000)]
	    with open("%s/%s.ipset" % (d, kind), "w") as f:
	        f.write("create %s %s family inet maxelem 1000000\n"
	                % (name, ipset))
	        f.writelines("add %s %s\n" % (name, k) for k in keys)
	    with open("%s/%s.nfhp" % (d, kind), "w") as f:
	        f.write("create %s %s maxelem 0\n" % (name, ipset))
	        f.writelines("add %s %s\n" % (name, k) for k in keys)
	    with open("%s/%s.nft" % (d, kind), "w") as f:
	        f.write("table ip bench {\n\tset %s { type ipv4_addr;%s }\n}\n"
	                % (name, nft))
	        for i in range(0, n, 10000):
	            f.write("add element ip bench %s { %s }\n"
	                    % (name, ", ".join(keys[i:i + 10000])))
	    with open("%s/%s.single" % (d, kind), "w") as f:
	        f.writelines("%s %s\n" % u for u in upd)
	    for tool in ("ipset", "nfhp"):
	        with open("%s/%s.batch.%s" % (d, kind, tool), "w") as f:
	            f.writelines("%s %s %s\n" % (o, name, k) for o, k in batch)
	    with open("%s/%s.batch.nft" % (d, kind), "w") as f:
	        f.writelines("%s element ip bench %s { %s }\n"
	                     % ("add" if o == "add" else "delete", name, k)
	                     for o, k in batch)
	EOF
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
		     "holding another), generated with a fixed seed.  Load:" \
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
			printf "| %s | %s | %d | %.2f | %s | %.1f | %s | %.2f |\n",
			       $1, $2, $3, $4, own, $6 / $3, single, $10
		}' "$out/rows.txt"
		echo
		cat <<-EOF
		How each figure was measured, and its caveats:

		- **Memory, own figures.** ipset: "Size in memory" of
		  \`ipset list -terse\`, which counts its hash buckets and
		  elements.  nf-hipac: the memory column of
		  /proc/net/nf-hipac/sets, every block the set allocated
		  (nfhp_alloc).  nft reports no memory of a set: "-".
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
		  the only figure for nft, and a cross-check for the other two.
		  The raw rows also give the growth of MemTotal - MemFree -
		  Buffers - Cached, which counts every page but moves by
		  megabytes with the pages left on the per-CPU free lists (not
		  in MemFree) after a process as large as nft: too rough for
		  the table.
		- **Load.** Wall time of \`ipset restore\`, \`nft -f\` (one
		  transaction, 10,000 elements per add element) and
		  \`nf-hipac-set restore\`, the file on tmpfs, the modules
		  loaded before: the parsing in userspace is in it.
		- **Single updates.** Each update its own process (\`ipset
		  add|del\`, \`nft add|delete element\`, \`nf-hipac-set
		  add|del\`): a process start alone costs about 0.1 s under
		  TCG, so these times are mostly process start and netlink
		  setup; nft also fetches the table's state first.
		- **Batched updates.** Another 500 adds and 500 deletes as one
		  restore of 1,000 lines (for nft a file of 1,000 add and
		  delete element commands, one transaction).
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
	esac
}

# batch TOOL KIND - KIND's batch of updates with TOOL.
batch()
{
	case $1 in
	ipset) ipset restore < "$tmp/$2.batch.ipset" ;;
	nft) nft -f "$tmp/$2.batch.nft" ;;
	nf-hipac-set) "$hipac" restore < "$tmp/$2.batch.nfhp" ;;
	esac
}

# update TOOL SET OP KEY - one update as its own command.
update()
{
	case $1 in
	ipset) ipset "$3" "$2" "$4" ;;
	nft)
		if [ "$3" = add ]; then
			nft add element ip bench "$2" "{ $4 }"
		else
			nft delete element ip bench "$2" "{ $4 }"
		fi ;;
	nf-hipac-set) "$hipac" "$3" "$2" "$4" ;;
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
	esac
}

# destroy TOOL - remove what TOOL loaded.
destroy()
{
	case $1 in
	ipset) ipset destroy ;;
	nft) nft delete table ip bench ;;
	nf-hipac-set) "$hipac" destroy ;;
	esac
}

# Warm up: each contender once on a tiny set, so that nothing allocated
# on first use is counted.
for kind in hosts prefixes; do
	for tool in ipset nft nf-hipac-set; do
		case $tool in
		ipset) head -3 "$tmp/$kind.ipset" | ipset restore ;;
		nft) { head -3 "$tmp/$kind.nft"
		       echo "add element ip bench ${kind:0:1} { 10.0.0.0 }"; } |
			nft -f - ;;
		nf-hipac-set) head -3 "$tmp/$kind.nfhp" | "$hipac" restore ;;
		esac
		destroy "$tool"
	done
done

: > "$out/rows.txt"
for kind in hosts prefixes; do
	name=${kind:0:1}
	for tool in ipset nft nf-hipac-set; do
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
