#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_counters.sh - per-entry counters of named sets (ipset's
# "counters") on real packets.
#
# The topology of lib.sh.  A hash:ip set with counters holds the client;
# the router's FORWARD looks its packets up in it.  The real ipset holds
# the client too, in a set with counters that iptables-legacy looks up in
# the server's INPUT: the same packets pass both, so after pings and a
# tcp connection both count the same packets and bytes, and list them in
# the same words.  Counts given to an add start an entry there; save
# prints them and restore puts them back; ipset's save of a set with
# counters restores into nf-hipac-set with its counts; a flush starts
# them again; a set without counters refuses counts.
# nfhp-timeout: 300

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
tmp=$(mktemp -d /tmp/nfhp-setcnt.XXXXXX)
trap 'nfhp_cleanup; rm -rf $tmp' EXIT

# member SET KEY - KEY's line in the router's listing of SET.
member() { S list "$1" | grep "^$2 "; }
# ipset_member SET KEY - the same in the server's ipset.
ipset_member() { in_ns $ns_server ipset list "$1" | grep "^$2 "; }

have_ipset=
if command -v ipset >/dev/null 2>&1 &&
   command -v iptables-legacy >/dev/null 2>&1 &&
   in_ns $ns_server ipset create ipc hash:ip counters 2>/dev/null; then
	have_ipset=1
fi

# The same counts in both: nf-hipac-set's and ipset's member lines.
same_counts()
{
	local a b

	a=$(member cnt $CLIENT_IP) && b=$(ipset_member ipc $CLIENT_IP) &&
	[ "$a" = "$b" ] && nfhp_log "  both: $a" ||
		{ nfhp_log "  nf-hipac-set: $a"; nfhp_log "  ipset: $b"; return 1; }
}

pings() { in_ns $ns_client $NFHP_PING -q -c 3 -i 0.2 -s 100 -W"$NFHP_WAIT" $SERVER_IP >/dev/null; }

nfhp_check "create cnt hash:ip counters" S create cnt hash:ip counters
nfhp_check "list: counters in the header" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list cnt |
		 grep -q '^Header: .*counters'"
nfhp_check "add the client" S add cnt $CLIENT_IP
nfhp_check "  it starts at 0 and 0" \
	[ "$(member cnt $CLIENT_IP)" = "$CLIENT_IP packets 0 bytes 0" ]
nfhp_check "add 10.9.9.9 packets 5 bytes 500" \
	S add cnt 10.9.9.9 packets 5 bytes 500
nfhp_check "  it starts there" \
	[ "$(member cnt 10.9.9.9)" = "10.9.9.9 packets 5 bytes 500" ]
nfhp_check "create plain hash:ip, without counters" S create plain hash:ip
nfhp_check "  an add with counts: exit 1, nothing added" \
	fails 1 "counters" S add plain 10.9.9.9 packets 1
nfhp_check "  (none)" [ "$(entries plain)" = 0 ]
nfhp_check "-A FORWARD -m set --match-set cnt src -j ACCEPT" \
	r4 -A FORWARD -m set --match-set cnt src -j ACCEPT
if [ -n "$have_ipset" ]; then
	nfhp_check "server: ipset ipc with counters, iptables-legacy INPUT" \
		bash -c "ip netns exec $ns_server ipset add ipc $CLIENT_IP &&
			 ip netns exec $ns_server iptables-legacy -A INPUT \
				-m set --match-set ipc src -j ACCEPT"
fi
nfhp_check "3 pings of 128 bytes" pings
nfhp_check "  counted: packets 3 bytes 384" \
	[ "$(member cnt $CLIENT_IP)" = "$CLIENT_IP packets 3 bytes 384" ]
nfhp_check "  a test counts nothing" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' test cnt $CLIENT_IP 2>/dev/null;
		 [ \"\$(ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list cnt |
			grep '^$CLIENT_IP ')\" = '$CLIENT_IP packets 3 bytes 384' ]"
nfhp_check "a tcp connection passes" tcp_ok 8080
if [ -n "$have_ipset" ]; then
	nfhp_check "  the same counts as ipset's for the same packets" same_counts
else
	nfhp_log "SKIP: the counts against ipset's: no ipset or iptables-legacy here"
fi

# save prints the counts as ipset does; a restore puts them back.
saved_back()
{
	local before after

	S save cnt > $tmp/cnt.save &&
	grep -qx "add cnt 10.9.9.9 packets 5 bytes 500" $tmp/cnt.save &&
	grep -qx "create cnt hash:ip.* counters.*" $tmp/cnt.save &&
	before=$(grep '^add ' $tmp/cnt.save | sort) &&
	S flush cnt && [ "$(entries cnt)" = 0 ] &&
	grep '^add ' $tmp/cnt.save | S restore &&
	after=$(S save cnt | grep '^add ' | sort) &&
	[ "$before" = "$after" ] ||
		{ nfhp_log "  before: $before"; nfhp_log "  after: $after"; return 1; }
}
nfhp_check "save: the counts as ipset prints them; flush, restore: back" \
	saved_back

# ipset's save of a set with counters, renamed, into nf-hipac-set.
ipset_restored()
{
	local a b

	in_ns $ns_server ipset save ipc | sed 's/ ipc / ipr /' | S restore &&
	a=$(in_ns $ns_server ipset save ipc | sed -n 's/^add ipc //p' | sort) &&
	b=$(S save ipr | sed -n 's/^add ipr //p' | sort) &&
	[ -n "$a" ] && [ "$a" = "$b" ] ||
		{ nfhp_log "  ipset: $a"; nfhp_log "  nf-hipac-set: $b"; return 1; }
}
if [ -n "$have_ipset" ]; then
	nfhp_check "ipset save | nf-hipac-set restore: the same members and counts" \
		ipset_restored
	in_ns $ns_server iptables-legacy -F INPUT
	in_ns $ns_server ipset destroy ipc
fi

nfhp_check "flush, add the client again: 0 and 0" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' flush cnt &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add cnt $CLIENT_IP"
nfhp_check "  (listed)" \
	[ "$(member cnt $CLIENT_IP)" = "$CLIENT_IP packets 0 bytes 0" ]
nfhp_check "swap with a set without counters: exit 1" \
	fails 1 "" S swap cnt plain
nfhp_check "-F FORWARD" r4 -F FORWARD

# xt_set's matches on the counts, the same three rules in the router's
# FORWARD and, with ipset, in the server's INPUT; no target, so both see
# the same pings, and the rules' counters say which matched:
#   A  counts, and matches from the 3rd packet on (--packets-gt 2);
#   B  does not count, and matches the first two (--packets-lt 3);
#   C  does not count, and matches once 300 bytes are counted ("!"
#      before --match-set inverts the whole: not under 300).
# Pings of 84 bytes: A 3, B 2, C 2; the entry counts 5 and 420.
cmp_rules=(
	"-i veth0 -p icmp -m set --match-set CS src --packets-gt 2"
	"-i veth0 -p icmp -m set --match-set CS src ! --update-counters --packets-lt 3"
	"-i veth0 -p icmp -m set ! --match-set CS src ! --update-counters --bytes-lt 300"
)
# rule_pkts TOOL... - the packet counters of the rules a listing prints.
rule_pkts() { "$@" -n -v -x | awk 'NR > 2 { printf "%s ", $1 }'; }
counts_match()
{
	local rule want="3 2 2 " got

	S create cs hash:ip counters && S add cs $CLIENT_IP || return 1
	for rule in "${cmp_rules[@]}"; do
		r4 -A FORWARD ${rule/CS/cs} || return 1
	done
	in_ns $ns_client $NFHP_PING -q -c 5 -i 0.2 -W"$NFHP_WAIT" $SERVER_IP \
		>/dev/null || return 1
	got=$(rule_pkts r4 -L FORWARD)
	nfhp_log "  nf-hipac: rules $got; $(member cs $CLIENT_IP)"
	[ "$got" = "$want" ] &&
	[ "$(member cs $CLIENT_IP)" = "$CLIENT_IP packets 5 bytes 420" ]
}
nfhp_check "--packets-gt, ! --update-counters --packets-lt, ! --match-set ... --bytes-lt" \
	counts_match
nfhp_check "  -S prints them back" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 grep -qxF -- '-A FORWARD -i veth0 -p icmp -m set ! --match-set cs src ! --update-counters --bytes-lt 300'"
ipset_counts_match()
{
	local rule got hip

	in_ns $ns_server ipset create ics hash:ip counters &&
	in_ns $ns_server ipset add ics $CLIENT_IP || return 1
	for rule in "${cmp_rules[@]}"; do
		in_ns $ns_server iptables-legacy -A INPUT ${rule/CS/ics} ||
			return 1
	done
	in_ns $ns_client $NFHP_PING -q -c 5 -i 0.2 -W"$NFHP_WAIT" $SERVER_IP \
		>/dev/null || return 1
	got=$(rule_pkts in_ns $ns_server iptables-legacy -L INPUT)
	nfhp_log "  ipset: rules $got; $(ipset_member ics $CLIENT_IP)"
	# The router's rules saw these 5 pings too: its entry at 10 and
	# 840, A matched them all, B none, C all.
	hip=$(rule_pkts r4 -L FORWARD)
	[ "$got" = "3 2 2 " ] && [ "$hip" = "8 2 7 " ] &&
	[ "$(ipset_member ics $CLIENT_IP)" = "$CLIENT_IP packets 5 bytes 420" ] &&
	[ "$(member cs $CLIENT_IP)" = "$CLIENT_IP packets 10 bytes 840" ] &&
	[ "$(in_ns $ns_server iptables-legacy -S INPUT | grep -c -- --match-set)" = 3 ] &&
	[ "$(in_ns $ns_server iptables-legacy -S INPUT | sed -n 's/^-A INPUT //p' | sed 's/ ics / cs /')" = \
	  "$(r4 -S FORWARD | sed -n 's/^-A FORWARD //p')" ]
}
if [ -n "$have_ipset" ]; then
	nfhp_check "  ipset with iptables-legacy: the same matches, counts, -S" \
		ipset_counts_match
	in_ns $ns_server iptables-legacy -F INPUT
	in_ns $ns_server ipset destroy ics
fi
nfhp_check "-F FORWARD" r4 -F FORWARD
nfhp_check "destroy every set" S destroy
nfhp_check "no set left" [ -z "$(S list -n)" ]

exit $nfhp_rc
