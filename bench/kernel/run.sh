#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - the in-kernel benchmark, inside the test VM.  Called by
# bench/kernel/bench.sh as
#
#	selftests/vm/run-vm.sh --out DIR -- bench/kernel/run.sh
#
# with the rulesets prepared in $NFHP_VM_OUT/in (see bench.sh).  Builds the
# client(sender) -- router -- server(receiver) topology of
# selftests/nf_hipac/lib.sh, turns offloads off, and for every ruleset of
# in/list and every contender
#	none, iptables-legacy, iptables-nft, nft (native rules),
#	nft-set (one concatenated interval set, pipapo), nf-hipac
# loads the ruleset into the router's FORWARD (timed), measures iperf3 TCP
# throughput and the rate of 64-byte UDP packets (pktgen in the sender,
# counted by the receiver's rx counter), and unloads it again.  Rounds are
# interleaved: round 1 of every contender, then round 2, ...  Then the
# update-cost tests (insert latency at 100k rules, packets lost while a
# 10k-rule set is replaced under traffic), the SMP test (1 vs 2 pktgen
# flows on 2 vCPUs) and, if perf(1) is there, a profile of nf-hipac at the
# largest seed set.  Every number goes to $NFHP_VM_OUT/raw.csv as
#	contender,ruleset,rules,traffic,round,value,unit
# and bench/kernel/report.py turns it into the tables.
#
# A ruleset whose in/list line ends in "6" (bench.sh's seed6-N) is an
# ip6tables-save ruleset: the topology then also gets IPv6 addresses
# (fd00:a:1::/64 and fd00:a:2::/64, inside the seed set's matching
# fd00:a:1::/48 -> fd00:a:2::/48, which bench/ipv4to6.py makes of
# 10.0.1.0/24 -> 10.0.2.0/24) with static neighbours, the contenders
# become ip6tables-legacy, ip6tables-nft, nft (table ip6) and nf-hipac6
# (raw.csv names them so), iperf3 runs -6 and pktgen sends IPv6 UDP
# (78-byte frames, the smallest pktgen builds for IPv6).  nft-set, the
# insert latency and the SMP, replace and profile phases stay IPv4 only.
#
# A ruleset whose in/list line ends in "set" (bench.sh's bl-hosts and
# bl-prefixes, issue 44) is a blocklist of N keys that the traffic never
# hits, measured with its own contenders (NFHP_BK_SET_CONTENDERS):
#	none
#	ipset		ipset restore of NAME.ipset (hash:ip or hash:net), then
#			iptables-legacy-restore of set-match.ipt: one rule
#			-m set --match-set bl src -j DROP
#	nft-set		nft -f NAME.set.nft: a set of type ipv4_addr (flags
#			interval for prefixes), one rule ip saddr @bl drop
#	nf-hipac	nf-hipac-restore NAME.ipt: N rules -s KEY -j DROP
#	nf-hipac-set	nf-hipac-set restore of NAME.nfhp, then
#			nf-hipac-restore of set-match.ipt
# Each load is timed as a whole (set and rule); round R starts with the
# R-th contender after none; perf profiles nf-hipac-set at each set under
# udp64 when perf(1) is there.
#
# A ruleset whose in/list line ends in "state" (bench.sh's st-N, issue
# 45) is seed-N under FORWARD policy DROP, measured with its own
# contenders (NFHP_BK_STATE_CONTENDERS), each loading a version of it:
#	none
#	nf-hipac	NAME.ipt: stateless, both directions accepted
#	nf-hipac-states	NAME.ks.ipt: one keep-state rule for client ->
#			server after the N rules, the check point at the end
#	nf-hipac-check	NAME.cs.ipt: the same with -j CHECK-STATE first
#	iptables-ct	NAME.ct.ipt, iptables-legacy: -m conntrack --ctstate
#			RELATED,ESTABLISHED -j ACCEPT first, client ->
#			server accepted last
#	nft-ct		NAME.ct.nft: ct state established,related accept
#			first, the same rules natively after it
# The udp64 flow gets one reply from the server at its start, which makes
# it ESTABLISHED for conntrack.  Besides tcp and udp64 each measures
# newflow: pktgen's UDP from 16
# source addresses and source ports 2-65534 taken in turn, so that every
# packet opens a flow (a new destination port for each measurement, so
# that none meets an earlier one's states), counted at the receiver
# (packets/s), with the states nf-hipac made and the entries conntrack
# made in the router per second alongside.  nf-hipac's max_states and
# conntrack's nf_conntrack_max and buckets are set to 1048576 first.
# After the rounds, phase_state_memory fills conntrack's table
# (st-mem.ct.ipt) and then nf-hipac's (st-mem.ks.ipt) with
# NFHP_BK_STATE_FILL (1000000)
# UDP flows, for at most NFHP_BK_STATE_FILL_SECS (300) each, and keeps
# /proc/meminfo, /proc/slabinfo and the table's figures before and after
# as $NFHP_VM_OUT/mem-C-{0,1}.txt for report.py.
#
# Environment: NFHP_BK_ROUNDS (3), NFHP_BK_SECS (3, seconds per point),
# NFHP_BK_LOAD_TMO (150, seconds a load may take before the contender is
# dropped for that ruleset), NFHP_BK_SLOW (60: a contender whose load took
# longer is measured in round 1 only, to bound the run time),
# NFHP_BK_BUDGET (2400: seconds after which the remaining rulesets and
# phases are skipped, with a note), NFHP_BK_CONTENDERS (all six; for the
# IPv6 rulesets iptables-* stand for ip6tables-*), NFHP_BK_SET_CONTENDERS
# (all five of the set rows), NFHP_BK_STATE_CONTENDERS (all six of the
# state rows).

source "$(dirname "$0")/../../selftests/nf_hipac/lib.sh"

rounds=${NFHP_BK_ROUNDS:-3}
secs=${NFHP_BK_SECS:-3}
load_tmo=${NFHP_BK_LOAD_TMO:-150}
slow=${NFHP_BK_SLOW:-60}
budget=${NFHP_BK_BUDGET:-2400}
t_start=$(date +%s)
contenders=${NFHP_BK_CONTENDERS:-"none iptables-legacy iptables-nft nft nft-set nf-hipac"}
set_contenders=${NFHP_BK_SET_CONTENDERS:-"none ipset nft-set nf-hipac nf-hipac-set"}
state_contenders=${NFHP_BK_STATE_CONTENDERS:-"none nf-hipac nf-hipac-states nf-hipac-check iptables-ct nft-ct"}
st_max=1048576
out=${NFHP_VM_OUT:?run me through selftests/vm/run-vm.sh --out}
in=$out/in
raw=$out/raw.csv
log=$out/run.log
tmp=$(mktemp -d)
module=$NFHP_TOP/nf_hipac.ko
udpseq=$NFHP_TOP/bench/kernel/udpseq.py
empty=$tmp/empty

[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
exec > >(tee -a "$log") 2>&1

nfhp_require_cmd iperf3 ethtool python3 iptables-legacy-restore \
	iptables-nft-restore nft
has6=$(awk '$3 == 6 { print 1; exit }' "$in/list")
[ -z "$has6" ] ||
	nfhp_require_cmd ip6tables-legacy-restore ip6tables-nft-restore
hassets=$(awk '$3 == "set" { print 1; exit }' "$in/list")
if [ -n "$hassets" ]; then
	nfhp_require_cmd ipset
	# loaded before any load is timed
	for m in ip_set_hash_ip ip_set_hash_net xt_set nf_tables; do
		modprobe $m || { nfhp_log "modprobe $m failed"; exit 1; }
	done
fi
hasstates=$(awk '$3 == "state" { print 1; exit }' "$in/list")
if [ -n "$hasstates" ]; then
	# loaded and sized before any load is timed; the hash and the
	# bound are global, set from the initial namespace
	for m in nf_conntrack xt_conntrack nft_ct nf_tables; do
		modprobe $m || { nfhp_log "modprobe $m failed"; exit 1; }
	done
	sysctl -qw net.netfilter.nf_conntrack_buckets=$st_max ||
		echo $st_max > /sys/module/nf_conntrack/parameters/hashsize
	sysctl -qw net.netfilter.nf_conntrack_max=$st_max
	echo "bench: conntrack buckets $(sysctl -n net.netfilter.nf_conntrack_buckets)," \
		"max $(sysctl -n net.netfilter.nf_conntrack_max)"
fi
nf_hipac_setup || { nfhp_log "topology setup failed"; exit 1; }
trap 'pg_stop; nfhp_cleanup; rm -rf "$tmp"' EXIT

for dev in "$ns_client veth0" "$ns_router veth0" "$ns_router veth1" \
	   "$ns_server veth0"; do
	set -- $dev
	in_ns "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1
done
# Trace packets come from addresses the router has no route back to.
for c in all default veth0 veth1; do
	in_ns $ns_router sysctl -qw net.ipv4.conf.$c.rp_filter=0
done
CLIENT6=fd00:a:1::2
ROUTER_CLIENT6=fd00:a:1::1
ROUTER_SERVER6=fd00:a:2::1
SERVER6=fd00:a:2::2
# setup6 - IPv6 on the topology's links.  nodad: DAD would hold the
# addresses back; static neighbours: no solicitation in the flood's path.
setup6()
{
	local cmac rcmac rsmac smac

	cmac=$(in_ns $ns_client cat /sys/class/net/veth0/address)
	rcmac=$(in_ns $ns_router cat /sys/class/net/veth0/address)
	rsmac=$(in_ns $ns_router cat /sys/class/net/veth1/address)
	smac=$(in_ns $ns_server cat /sys/class/net/veth0/address)
	ip -n $ns_client addr add $CLIENT6/64 dev veth0 nodad &&
	ip -n $ns_router addr add $ROUTER_CLIENT6/64 dev veth0 nodad &&
	ip -n $ns_router addr add $ROUTER_SERVER6/64 dev veth1 nodad &&
	ip -n $ns_server addr add $SERVER6/64 dev veth0 nodad &&
	ip -n $ns_client -6 route add default via $ROUTER_CLIENT6 &&
	ip -n $ns_server -6 route add default via $ROUTER_SERVER6 &&
	ip -n $ns_client -6 neigh replace $ROUTER_CLIENT6 lladdr $rcmac \
		dev veth0 nud permanent &&
	ip -n $ns_router -6 neigh replace $CLIENT6 lladdr $cmac \
		dev veth0 nud permanent &&
	ip -n $ns_router -6 neigh replace $SERVER6 lladdr $smac \
		dev veth1 nud permanent &&
	ip -n $ns_server -6 neigh replace $ROUTER_SERVER6 lladdr $rsmac \
		dev veth0 nud permanent &&
	in_ns $ns_router sysctl -qw net.ipv6.conf.all.forwarding=1
}
[ -z "$has6" ] || setup6 || { nfhp_log "IPv6 setup failed"; exit 1; }
modprobe pktgen || { nfhp_log "no pktgen"; exit 1; }
[ -d /sys/module/nf_hipac ] || nfhp_insmod "$module" ||
	{ nfhp_log "insmod $module failed"; exit 1; }
printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n' \
	> "$empty"
stfile=/proc/net/nf-hipac/states
# st_field NAME - the router's nf-hipac states figure NAME ("states",
# "created", ...).
st_field() { in_ns $ns_router awk -v n="$1:" '$1 == n { print $2 }' $stfile; }
# ct_count - the entries of the router's conntrack table.
ct_count() { in_ns $ns_router sysctl -n net.netfilter.nf_conntrack_count 2>/dev/null || echo 0; }
# ct_made - the entries the router's conntrack ever inserted (confirmed):
# the insert column of /proc/net/stat/nf_conntrack, summed over the CPUs,
# or nf_conntrack_count where a kernel does not count inserts (Debian's
# 6.1 did not: its difference then also counts the entries that expired
# meanwhile); "I N" with N the entries now, to tell which by the time the
# difference is taken (ct_diff).
ct_made()
{
	echo "$(ct_inserts) $(ct_count)"
}

# ct_diff A B - entries made between two ct_made readings A and B.
ct_diff()
{
	set -- $1 $2
	if [ "$3" -gt "$1" ]; then
		echo $(( $3 - $1 ))
	else
		echo $(( $4 - $2 ))
	fi
}

ct_inserts()
{
	in_ns $ns_router awk '
		function hex(s, i, v) {
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef",
						   tolower(substr(s, i, 1))) - 1
			return v
		}
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "insert") c = i; next }
		c { n += hex($c) }
		END { printf "%d\n", n }' /proc/net/stat/nf_conntrack 2>/dev/null ||
		echo 0
}
if [ -n "$hasstates" ]; then
	in_ns $ns_router sh -c "echo 'max_states $st_max' > $stfile" ||
		{ nfhp_log "cannot set max_states $st_max"; exit 1; }
	in_ns $ns_router cat $stfile
fi
router_mac=$(in_ns $ns_router cat /sys/class/net/veth0/address)
echo "contender,ruleset,rules,traffic,round,value,unit" > "$raw"

# row CONTENDER RULESET RULES TRAFFIC ROUND VALUE UNIT
row()
{
	local IFS=,

	echo "$*" >> "$raw"
	echo "bench: $*"
}

now() { date +%s.%N; }

# over_budget WHAT - true (and a note in raw.csv) once the budget is spent.
over_budget()
{
	[ $(( $(date +%s) - t_start )) -ge "$budget" ] || return 1
	echo "bench: time budget ${budget}s spent, skipping $1"
	row skipped "$1" 0 budget 0 "" s
	return 0
}
elapsed() { awk "BEGIN { printf \"%.3f\", $(now) - $1 }"; }

# The family of the ruleset at hand: x6 is "" for IPv4 and "6" for IPv6,
# so that ip${x6}tables-legacy-restore and nf-hipac${x6}-restore are the
# family's tools.
x6=

# cname C - contender C's name in raw.csv for the family at hand.
cname()
{
	case $x6$1 in
	6iptables-*) echo "ip6${1#ip}";;
	*) echo "$1";;
	esac
}

# load C NAME - install ruleset NAME with contender C in the router.
load()
{
	local f=$in/$2

	case $1 in
	none) true;;
	iptables-legacy) in_ns $ns_router timeout "$load_tmo" \
				ip${x6}tables-legacy-restore < "$f.ipt";;
	iptables-nft) in_ns $ns_router timeout "$load_tmo" \
				ip${x6}tables-nft-restore < "$f.ipt";;
	nft) in_ns $ns_router timeout "$load_tmo" nft -f "$f.nft";;
	nft-set) [ -f "$f.set.nft" ] &&
		in_ns $ns_router timeout "$load_tmo" nft -f "$f.set.nft";;
	nf-hipac) in_ns $ns_router timeout "$load_tmo" \
				"$NFHP_BIN/nf-hipac${x6}-restore" < "$f.ipt";;
	ipset) in_ns $ns_router timeout "$load_tmo" \
			ipset restore < "$f.ipset" &&
		in_ns $ns_router iptables-legacy-restore < "$in/set-match.ipt";;
	nf-hipac-set) in_ns $ns_router timeout "$load_tmo" \
			"$NFHP_BIN/nf-hipac-set" restore < "$f.nfhp" &&
		in_ns $ns_router "$NFHP_BIN/nf-hipac-restore" \
			< "$in/set-match.ipt";;
	nf-hipac-states) in_ns $ns_router timeout "$load_tmo" \
				"$NFHP_BIN/nf-hipac-restore" < "$f.ks.ipt";;
	nf-hipac-check) in_ns $ns_router timeout "$load_tmo" \
				"$NFHP_BIN/nf-hipac-restore" < "$f.cs.ipt";;
	iptables-ct) in_ns $ns_router timeout "$load_tmo" \
				iptables-legacy-restore < "$f.ct.ipt";;
	nft-ct) in_ns $ns_router timeout "$load_tmo" nft -f "$f.ct.nft";;
	esac
}

# unload C - remove everything C put on the packet path.  The legacy
# filter table keeps its hooks until its module goes, so it goes.
unload()
{
	case $1 in
	none) true;;
	iptables-legacy)
		in_ns $ns_router ip${x6}tables-legacy-restore < "$empty"
		rmmod ip${x6}table_filter 2>/dev/null;;
	iptables-nft|nft|nft-set|nft-ct) in_ns $ns_router nft flush ruleset;;
	nf-hipac|nf-hipac-states|nf-hipac-check)
		in_ns $ns_router "$NFHP_BIN/nf-hipac${x6}-restore" < "$empty";;
	iptables-ct) unload iptables-legacy;;
	ipset)
		unload iptables-legacy
		in_ns $ns_router ipset destroy;;
	nf-hipac-set)
		unload nf-hipac
		in_ns $ns_router "$NFHP_BIN/nf-hipac-set" destroy;;
	esac
}

# pg_write SCRIPT - run pktgen control lines "FILE COMMAND" in the router.
pg_write()
{
	awk '$1 == "sleep" { print; next }
	     {f=$1; $1=""; sub(/^ /, ""); printf "echo \"%s\" > /proc/net/pktgen/%s\n", $0, f}' \
		"$1" > "$1.sh"
	in_ns $ns_router sh -e "$1.sh"
}

# pg_config THREAD:DEV SRC DST SPORT DPORT DELAY... - one pktgen device per
# flow, flows "THREAD DEV SRC DST SPORT DPORT DELAY" read from stdin.  IPv6
# addresses make IPv6 packets, 78 bytes: pktgen's IPv6 minimum (a smaller
# pkt_size is raised to it with a log line), with the UDP checksum that
# IPv6 requires (a zero one is invalid to conntrack and the receiver).
pg_config()
{
	local t d s a sp dp dl f=$tmp/pg

	{
		echo "kpktgend_0 rem_device_all"
		echo "kpktgend_1 rem_device_all"
		echo "sleep 0.3"
		while read -r t d s a sp dp dl; do
			echo "kpktgend_$t add_device $d"
			echo "$d xmit_mode netif_receive"
			echo "$d count 0"
			echo "$d clone_skb 0"
			echo "$d delay $dl"
			echo "$d dst_mac $router_mac"
			case $s in
			*:*)
				echo "$d pkt_size 78"
				echo "$d flag UDPCSUM"
				echo "$d src6 $s"
				echo "$d dst6 $a";;
			*)
				echo "$d pkt_size 60"
				echo "$d src_min $s"
				echo "$d src_max $s"
				echo "$d dst_min $a"
				echo "$d dst_max $a";;
			esac
			echo "$d udp_src_min $sp"
			echo "$d udp_src_max $sp"
			echo "$d udp_dst_min $dp"
			echo "$d udp_dst_max $dp"
		done
	} > "$f"
	pg_write "$f"
}

pg_pid=
pg_start()
{
	in_ns $ns_router sh -c 'echo start > /proc/net/pktgen/pgctrl' \
		2>/dev/null &
	pg_pid=$!
}

pg_stop()
{
	[ -n "$pg_pid" ] || return 0
	in_ns $ns_router sh -c 'echo stop > /proc/net/pktgen/pgctrl' \
		2>/dev/null
	wait "$pg_pid" 2>/dev/null
	pg_pid=
}

# rx_rate - packets per second the receiver's veth0 takes in over $secs.
rx_rate()
{
	in_ns $ns_server sh -c '
		f=/sys/class/net/veth0/statistics/rx_packets
		a=$(cat $f); t0=$(date +%s%N); sleep '"$secs"'
		b=$(cat $f); t1=$(date +%s%N)
		echo $(( (b - a) * 1000000000 / (t1 - t0) ))'
}

# measure_udp - pktgen (configured) for 1 s warm-up plus $secs; prints pps.
measure_udp()
{
	local v

	pg_start
	sleep 0.5
	v=$(rx_rate)
	pg_stop
	echo "$v"
}

# measure_udp_replied - measure_udp, but the server answers the flow once
# at the start, from its port 9 to the client's: conntrack holds a UDP
# flow for ESTABLISHED only once it has seen a reply, and pktgen's flow
# has none of its own.
measure_udp_replied()
{
	local v

	pg_start
	sleep 0.3
	ip netns exec $ns_server python3 -c "import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('$SERVER_IP', 9))
s.sendto(b'x' * 18, ('$CLIENT_IP', 9))"
	sleep 0.2
	v=$(rx_rate)
	pg_stop
	echo "$v"
}

# measure_newflow C NAME R - pktgen's UDP from 16 source addresses and
# 65,533 source ports taken in turn (1,048,528 flows before one comes
# again), to a destination port of its own, for 0.5 s plus $secs; rows
# of the packets/s at the receiver and of the nf-hipac states and the
# conntrack entries the router made per second.  Leaves pktgen set for
# the single udp64 flow again.
nf_port=10000
measure_newflow()
{
	local v s0 s1 c0 c1 t

	nf_port=$((nf_port + 1))
	pg_flood "$nf_port"
	pg_start
	sleep 0.5
	s0=$(st_field created) c0=$(ct_made) t=$(now)
	v=$(rx_rate)
	s1=$(st_field created) c1=$(ct_made)
	t=$(elapsed "$t")
	pg_stop
	row $1 "$2" "$nrules" newflow "$3" "$v" pps
	row $1 "$2" "$nrules" newflow-states "$3" \
		"$(awk "BEGIN { printf \"%.0f\", (${s1:-0} - ${s0:-0}) / $t }")" 1/s
	row $1 "$2" "$nrules" newflow-ct "$3" \
		"$(awk "BEGIN { printf \"%.0f\", $(ct_diff "$c0" "$c1") / $t }")" 1/s
	echo "0 veth0 $CLIENT_IP $SERVER_IP 9 9 0" | pg_config
}

# pg_flood DPORT [COUNT] - pktgen set for measure_newflow's flows to
# DPORT, COUNT packets (0: until stopped).
pg_flood()
{
	local d=veth0 f=$tmp/pgf

	{
		echo "kpktgend_0 rem_device_all"
		echo "kpktgend_1 rem_device_all"
		echo "sleep 0.3"
		echo "kpktgend_0 add_device $d"
		echo "$d xmit_mode netif_receive"
		echo "$d count ${2:-0}"
		echo "$d clone_skb 0"
		echo "$d delay 0"
		echo "$d dst_mac $router_mac"
		echo "$d pkt_size 60"
		echo "$d src_min 10.0.1.100"
		echo "$d src_max 10.0.1.115"
		echo "$d dst_min $SERVER_IP"
		echo "$d dst_max $SERVER_IP"
		echo "$d udp_src_min 2"
		echo "$d udp_src_max 65535"
		echo "$d udp_dst_min $1"
		echo "$d udp_dst_max $1"
	} > "$f"
	pg_write "$f"
}

# measure_tcp - one iperf3 run with $tcp_args; prints Mbit/s or nothing.
measure_tcp()
{
	timeout $((secs + 10)) ip netns exec $ns_client \
		iperf3 $tcp_args -t "$secs" -f m 2>/dev/null |
	awk '/receiver$/ && $(NF-1) == "Mbits/sec" { print $(NF-2) }'
}

iperf_pid=
# iperf_server PORT - (re)start the receiver's iperf3 server on PORT.
iperf_server()
{
	[ -z "$iperf_pid" ] || { kill "$iperf_pid"; wait "$iperf_pid"; } \
		2>/dev/null
	ip netns exec $ns_server iperf3 -s -p "$1" >/dev/null 2>&1 &
	iperf_pid=$!
	for i in $(seq 50); do
		in_ns $ns_server ss -Hltn "sport = :$1" | grep -q . && return 0
		sleep 0.2
	done
	return 1
}

# flows_up NAME - set up the traffic of ruleset NAME: the seed sets use the
# topology's own addresses (the IPv6 ones for an IPv6 set); ClassBench
# sets send trace 5-tuples, so the router gets host routes for them and the
# TCP flow's addresses are added to the sender and the receiver.
flows_up()
{
	local f=$in/$1.flows kind s d sp dp depth

	if [ ! -f "$f" ] && [ -n "$x6" ]; then
		echo "0 veth0 $CLIENT6 $SERVER6 9 9 0" | pg_config
		tcp_args="-6 -c $SERVER6"
		iperf_server 5201
		return
	fi
	if [ ! -f "$f" ]; then
		echo "0 veth0 $CLIENT_IP $SERVER_IP 9 9 0" | pg_config
		tcp_args="-c $SERVER_IP"
		iperf_server 5201
		return
	fi
	flow_cleanup=$tmp/flows-down
	: > "$flow_cleanup"
	local n=0
	while read -r kind s d sp dp depth; do
		case $kind in
		udp)
			in_ns $ns_router ip route replace $d/32 via $SERVER_IP
			echo "0 veth0@$n $s $d $sp $dp 1" >> "$tmp/flows"
			n=$((n + 1));;
		tcp)
			in_ns $ns_router ip route replace $d/32 via $SERVER_IP
			in_ns $ns_router ip route replace $s/32 via $CLIENT_IP
			in_ns $ns_client ip addr add $s/32 dev veth0
			in_ns $ns_server ip addr add $d/32 dev lo
			echo "in_ns $ns_client ip addr del $s/32 dev veth0" \
				>> "$flow_cleanup"
			echo "in_ns $ns_server ip addr del $d/32 dev lo" \
				>> "$flow_cleanup"
			tcp_args="-c $d -B $s --cport $sp -p $dp"
			iperf_server "$dp";;
		esac
	done < "$f"
	pg_config < "$tmp/flows"
	rm -f "$tmp/flows"
}

flows_down()
{
	[ -f "${flow_cleanup:-/nonexistent}" ] && source "$flow_cleanup"
	rm -f "${flow_cleanup:-}"
	flow_cleanup=
}

# insert_latency C - time three single-rule inserts at position 1 of the
# loaded FORWARD chain; prints the times in ms.
insert_latency()
{
	local i t rule

	for i in 1 2 3; do
		rule="-s 192.0.2.$i/32 -d 198.51.100.1/32 -p tcp --dport 80 -j DROP"
		t=$(now)
		case $1 in
		iptables-legacy) in_ns $ns_router iptables-legacy -I FORWARD 1 $rule;;
		iptables-nft) in_ns $ns_router iptables-nft -I FORWARD 1 $rule;;
		nft) in_ns $ns_router nft insert rule ip nfhp forward \
			ip saddr 192.0.2.$i ip daddr 198.51.100.1 tcp dport 80 drop;;
		nft-set) in_ns $ns_router nft add element ip nfhp s \
			"{ 192.0.2.$i . 198.51.100.1 . 6 . 0-65535 . 80 : drop }";;
		nf-hipac) in_ns $ns_router "$NFHP_BIN/nf-hipac" -I FORWARD 1 $rule;;
		*) return;;
		esac >/dev/null || continue
		awk "BEGIN { printf \"%.1f\\n\", ($(now) - $t) * 1000 }"
	done
}

# ---- throughput / packet rate matrix --------------------------------------
declare -A dead

# turns K WORD... - the words from the K-th on, then the first K (K modulo
# their number).
turns()
{
	local k=$1 i

	shift
	for ((i = 0; i < $#; i++)); do
		echo "${@:$(( (i + k) % $# + 1 )):1}"
	done
}

# matrix_round R - round R of every ruleset and contender.  From round 2 on
# a ruleset is skipped once the time budget is spent.
matrix_round()
{
	local r=$1 name nrules fam c t lt last v cs s0 c0

	while read -r name nrules fam; do
		if [ "$r" -gt 1 ] && over_budget "$name-round-$r"; then
			continue
		fi
		x6=
		[ "${fam:-4}" != 6 ] || x6=6
		cs=$contenders
		if [ "${fam:-4}" = set ]; then
			# the set rows' contenders take turns at going first, so
			# that a drift of the host's speed within a round
			# favours none of them
			cs=$(turns $((r - 1)) ${set_contenders//none/})
			[[ " $set_contenders " != *" none "* ]] || cs="none $cs"
		elif [ "${fam:-4}" = state ]; then
			cs=$(turns $((r - 1)) $(printf '%s\n' $state_contenders |
						grep -vx none))
			[[ " $state_contenders " != *" none "* ]] ||
				cs="none $cs"
		fi
		flows_up "$name"
		# no firewall once more at the end: the host is shared and noisy,
		# so the baseline is the median of measurements around the others
		[[ " $cs " != *" none "* ]] || cs="$cs none"
		for c in $cs; do
			[ -z "${dead[$c.$name]:-}" ] || continue
			if [ $c = nft-set ] && [ ! -f "$in/$name.set.nft" ]; then
				continue
			fi
			t=$(now)
			if ! load $c "$name"; then
				echo "bench: $(cname $c) cannot load $name (timeout ${load_tmo}s or error)"
				row $(cname $c) "$name" "$nrules" load "$r" "" s
				dead[$c.$name]=1
				unload $c
				continue
			fi
			lt=$(elapsed "$t")
			last=0
			[ "$r" -gt 1 ] || last=1
			[ $c = none ] || row $(cname $c) "$name" "$nrules" load "$r" "$lt" s
			if awk "BEGIN { exit !($lt > $slow) }"; then
				echo "bench: $(cname $c): loading $name took ${lt}s, measured in this round only"
				dead[$c.$name]=1
			fi
			if [ "${fam:-4}" = state ]; then
				s0=$(st_field created) c0=$(ct_made)
			fi
			row $(cname $c) "$name" "$nrules" tcp "$r" "$(measure_tcp)" Mbit/s
			if [ "${fam:-4}" = state ]; then
				v=$(measure_udp_replied)
			else
				v=$(measure_udp)
			fi
			row $(cname $c) "$name" "$nrules" udp64 "$r" "$v" pps
			if [ "${fam:-4}" = state ]; then
				# what kept the flows: nf-hipac's states or
				# conntrack's entries, never both
				row $c "$name" "$nrules" made-states "$r" \
					$(( $(st_field created) - s0 )) states
				row $c "$name" "$nrules" made-ct "$r" \
					"$(ct_diff "$c0" "$(ct_made)")" entries
				measure_newflow $c "$name" "$r"
			fi
			if [ $last = 1 ] && [ "$nrules" -ge 100000 ] &&
			   [ "${fam:-4}" = 4 ]; then
				for v in $(insert_latency $c); do
					row $c "$name" "$nrules" insert "$r" "$v" ms
				done
			fi
			unload $c
		done
		flows_down
	done < "$in/list"
	x6=
}

# ---- packets lost while a 10k-rule set is replaced under traffic ----------
# wait_ready FILE - until an udpseq.py process has written "ready" to FILE.
wait_ready()
{
	local i

	for i in $(seq 100); do
		grep -q ready "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

phase_replace()
{
	local c t rpid spid sent got tx0 tx1 rx0 rx1

	[ -f "$in/seed-10000.ipt" ] && [ -f "$in/seed-10000b.ipt" ] || return 0
	# nf-hipac first; the set version is left out (its 10k load alone
	# takes minutes under TCG)
	for c in nf-hipac iptables-legacy iptables-nft nft; do
		[[ " $contenders " == *" $c "* ]] || continue
		over_budget "replace-$c" && continue
		load $c seed-10000 || { unload $c; continue; }
		ip netns exec $ns_server python3 "$udpseq" recv 9999 \
			> "$tmp/recv" &
		rpid=$!
		wait_ready "$tmp/recv"
		tx0=$(in_ns $ns_client cat /sys/class/net/veth0/statistics/tx_packets)
		rx0=$(in_ns $ns_server cat /sys/class/net/veth0/statistics/rx_packets)
		ip netns exec $ns_client python3 "$udpseq" send $SERVER_IP \
			9999 500 > "$tmp/send" &
		spid=$!
		wait_ready "$tmp/send"
		sleep 2
		t=$(now)
		if load $c seed-10000b; then
			row $c seed-10000 10000 replace-time 1 "$(elapsed "$t")" s
		else
			row $c seed-10000 10000 replace-time 1 "" s
		fi
		sleep 2
		kill -TERM $spid
		wait $spid
		sleep 1
		kill -TERM $rpid
		wait $rpid
		tx1=$(in_ns $ns_client cat /sys/class/net/veth0/statistics/tx_packets)
		rx1=$(in_ns $ns_server cat /sys/class/net/veth0/statistics/rx_packets)
		sent=$(awk '$1 == "sent" {print $2}' "$tmp/send")
		got=$(awk '$1 == "received" {print $2}' "$tmp/recv")
		echo "bench: $c replace: $(tail -1 "$tmp/send") /" \
			"$(tail -1 "$tmp/recv") /" \
			"veth: sender tx $((tx1 - tx0)) receiver rx $((rx1 - rx0))"
		# lost in the router: left the sender's veth, never reached
		# the receiver's; the socket count also includes drops in the
		# (CPU-starved) receiving process
		row $c seed-10000 10000 replace-lost 1 \
			"$(( (tx1 - tx0) - (rx1 - rx0) ))" packets
		row $c seed-10000 10000 replace-seq-missing 1 \
			"$(( ${sent:-0} - ${got:-0} ))" packets
		row $c seed-10000 10000 replace-sent 1 "$sent" packets
		unload $c
	done
}

# ---- SMP: 1 vs 2 pktgen flows on 2 vCPUs ---------------------------------
# phase_smp - nf-hipac and no firewall, one pktgen thread vs two (one per
# vCPU, each injecting its own flow at the router's veth0).
phase_smp()
{
	local set=seed-10000 n r c

	[ -f "$in/$set.ipt" ] ||
		set=$(awk '$3 == "" { print $1; exit }' "$in/list")
	[ -n "$set" ] || return 0
	n=$(awk -v s=$set '$1 == s { print $2 }' "$in/list")
	for r in $(seq "$rounds"); do
		for c in none nf-hipac; do
			load $c $set || continue
			echo "0 veth0@0 $CLIENT_IP $SERVER_IP 9 9 0" | pg_config
			row $c $set "$n" smp-1flow "$r" "$(measure_udp)" pps
			printf '0 veth0@0 %s %s 9 9 0\n1 veth0@1 %s %s 10 9 0\n' \
				$CLIENT_IP $SERVER_IP $CLIENT_IP $SERVER_IP |
				pg_config
			row $c $set "$n" smp-2flow "$r" "$(measure_udp)" pps
			unload $c
		done
	done
}

# ---- where the time goes: nf-hipac at the largest seed set, nf-hipac-set -
# perf_profile C NAME - a perf profile of contender C with ruleset NAME
# under udp64, into perf-C-NAME.txt and perf-C-NAME-flat.txt.
perf_profile()
{
	echo "0 veth0 $CLIENT_IP $SERVER_IP 9 9 0" | pg_config
	load $1 "$2" || { unload $1; return 0; }
	pg_start
	sleep 1
	perf record -a -g -o "$tmp/perf.data" -- sleep "$secs" >/dev/null 2>&1
	pg_stop
	perf report -i "$tmp/perf.data" --stdio --no-children --sort sym \
		2>/dev/null | grep -v '^$' | head -60 \
		> "$out/perf-$1-$2.txt"
	perf report -i "$tmp/perf.data" --stdio --no-children -g none \
		--sort dso,sym 2>/dev/null | grep '%' \
		> "$out/perf-$1-$2-flat.txt"
	unload $1
}

phase_perf()
{
	local big name

	command -v perf >/dev/null || return 0
	big=$(awk '$1 ~ /^seed-/ { n = $1 } END { print n }' "$in/list")
	[ -z "$big" ] || perf_profile nf-hipac "$big"
	if [[ " $state_contenders " == *" nf-hipac-states "* ]]; then
		for name in $(awk '$3 == "state" { print $1 }' "$in/list"); do
			perf_profile nf-hipac-states "$name"
		done
	fi
	[[ " $set_contenders " == *" nf-hipac-set "* ]] || return 0
	for name in $(awk '$3 == "set" { print $1 }' "$in/list"); do
		perf_profile nf-hipac-set "$name"
	done
}

# ---- 10^6 states: the memory each kind of state takes ---------------------
# mem_snapshot - the memory figures of the guest and the router's tables,
# the caches dropped first.
mem_snapshot()
{
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo "== meminfo"
	cat /proc/meminfo
	echo "== slabinfo"
	cat /proc/slabinfo
	echo "== states"
	in_ns $ns_router cat $stfile
	echo "== conntrack"
	echo "entries: $(ct_count)"
	echo "buckets: $(sysctl -n net.netfilter.nf_conntrack_buckets)"
	echo "object_size: $(cat /sys/kernel/slab/nf_conntrack/object_size 2>/dev/null)"
	echo "slab_size: $(cat /sys/kernel/slab/nf_conntrack/slab_size 2>/dev/null)"
	echo "aliases: $(cat /sys/kernel/slab/nf_conntrack/aliases 2>/dev/null)"
	echo "cache: $(basename "$(readlink -f /sys/kernel/slab/nf_conntrack)")"
}

# held C - the flows contender C's router holds.
held()
{
	case $1 in
	nf-hipac-states) st_field states;;
	*) ct_count;;
	esac
}

# phase_state_memory - NFHP_BK_STATE_FILL UDP flows through st-mem's
# keep-state rule, then through its conntrack rules, each within
# NFHP_BK_STATE_FILL_SECS, with the lifetimes an hour meanwhile; the
# memory before and after into mem-C-{0,1}.txt.
phase_state_memory()
{
	local n=${NFHP_BK_STATE_FILL:-1000000} tmo=${NFHP_BK_STATE_FILL_SECS:-300}
	local c f t got lt life ctlife i

	[ -n "$hasstates" ] && [ -f "$in/st-mem.ks.ipt" ] || return 0
	life=$(st_field udp_lifetime)
	ctlife=$(in_ns $ns_router sysctl -n net.netfilter.nf_conntrack_udp_timeout)
	# conntrack first: its entries stay (an hour), and nf-hipac's states,
	# freed at the end of theirs, would leave free slab objects that
	# conntrack's extensions took without growing a cache
	for c in iptables-ct nf-hipac-states; do
		[[ " $state_contenders " == *" $c "* ]] || continue
		f=$out/mem-$c
		in_ns $ns_router sh -c "echo 'udp_lifetime 3600' > $stfile"
		in_ns $ns_router sysctl -qw net.netfilter.nf_conntrack_udp_timeout=3600
		if [ $c = iptables-ct ]; then
			# the rounds' entries die within their 30 s
			for i in $(seq 30); do
				[ "$(ct_count)" -gt 1000 ] || break
				sleep 2
			done
			echo "bench: conntrack holds $(ct_count) entries before the fill"
		fi
		load $c st-mem || { unload $c; continue; }
		mem_snapshot > "$f-0.txt"
		pg_flood 7
		t=$(now)
		pg_start
		while :; do
			sleep 2
			got=$(held $c)
			[ "${got:-0}" -lt "$n" ] || break
			awk "BEGIN { exit !($(now) - $t > $tmo) }" && break
		done
		pg_stop
		lt=$(elapsed "$t")
		got=$(held $c)
		echo "bench: $c holds $got flows after ${lt}s"
		mem_snapshot > "$f-1.txt"
		row $c st-mem 0 fill-entries 1 "$got" entries
		row $c st-mem 0 fill-time 1 "$lt" s
		t=$(now)
		unload $c
		[ $c != nf-hipac-states ] ||
			row $c st-mem 0 fill-flush 1 "$(elapsed "$t")" s
		in_ns $ns_router sh -c "echo 'udp_lifetime $life' > $stfile"
		in_ns $ns_router sysctl -qw \
			net.netfilter.nf_conntrack_udp_timeout="$ctlife"
	done
	echo "0 veth0 $CLIENT_IP $SERVER_IP 9 9 0" | pg_config
}

# Round 1 of everything first, then the update, SMP and profile phases,
# then further rounds as long as the time budget lasts.
matrix_round 1
over_budget smp || phase_smp
phase_replace
over_budget perf || phase_perf
for r in $(seq 2 "$rounds"); do
	matrix_round "$r"
done
phase_state_memory
in_ns $ns_router cat /proc/net/nf-hipac/info > "$out/nf-hipac-info.txt" 2>&1
exit 0
