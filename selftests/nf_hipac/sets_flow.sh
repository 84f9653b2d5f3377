#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_flow.sh - flow sets (hash:ip,port, hash:net,port) on real packets.
#
# The topology of lib.sh, dual-stack.  A hash:ip,port set in FORWARD
# under "-m set --match-set NAME src,dst" (the client's address, the
# server's port) drops tcp and udp to the ports of its entries, a port
# range a key per port, and pings once an icmp:echo-request entry is in;
# the rule lists and saves as iptables' xt_set rule does; ipset's
# messages and exit codes for bad entries and a type mismatch, nothing
# changed.  A hash:net,port set with "!" and --set-value follows the
# longest prefix, IPv4 and IPv6.  The real ipset's save of both types
# restores into nf-hipac-set with the same members, and the same rules
# give the same verdicts: nf-hipac in the router's FORWARD, iptables with
# ipset in the server's INPUT, one at a time.
# nfhp-timeout: 900

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

# S ARGS... - nf-hipac-set in the router; r4, r6 the rule tools there.
S() { in_ns $ns_router "$NFHP_BIN/nf-hipac-set" "$@"; }
r4() { in_ns $ns_router "$NFHP_BIN/nf-hipac" "$@"; }
r6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6" "$@"; }

# entries SET - the number of entries the listing of SET reports.
entries() { S list -terse "$1" | sed -n 's/^Number of entries: //p'; }

# refused TEXT CMD... - CMD fails and says TEXT.
refused()
{
	local text=$1 out

	shift
	out=$("$@" 2>&1) && { nfhp_log "  succeeded: $out"; return 1; }
	[[ $out == *"$text"* ]] || { nfhp_log "  said: $out"; return 1; }
}

# --- hash:ip,port ----------------------------------------------------------

fl_adds()
{
	S add fl $CLIENT_IP,tcp:8080 && S add fl $CLIENT_IP,udp:5353 value 2 &&
	S add fl $CLIENT_IP,8090-8092 && [ "$(entries fl)" = 5 ]
}
fl_save()
{
	local want

	want="add fl $CLIENT_IP,tcp:8080|add fl $CLIENT_IP,tcp:8090|add fl $CLIENT_IP,tcp:8091|add fl $CLIENT_IP,tcp:8092|add fl $CLIENT_IP,udp:5353 value 2|"
	S save fl | head -1 | grep -qxF 'create fl hash:ip,port family inet hashsize 1024 maxelem 65536' &&
	[ "$(S save fl | grep '^add ' | sort | tr '\n' '|')" = "$want" ]
}
fl_proc()
{
	in_ns $ns_router awk '$1 == "fl" && $3 == "flow:hash" && $4 == 5 { ok = 1 }
			      END { exit !ok }' /proc/net/nf-hipac/sets
}
fl_unchanged() { [ "$(entries fl)" = 5 ]; }
fl_icmp() { S add fl $CLIENT_IP,icmp:echo-request && ping_fail; }
fl_del() { S del fl $CLIENT_IP,tcp:8080 && tcp_ok 8080; }

nfhp_check "create fl hash:ip,port" S create fl hash:ip,port
nfhp_check "add tcp:8080, udp:5353 value 2, 8090-8092: five entries" fl_adds
nfhp_check "save: ipset's lines, a port a line, tcp by default" fl_save
nfhp_check "/proc/net/nf-hipac/sets: flow:hash, 5 entries" fl_proc
nfhp_check "an element without a port: exit 1, ipset's message" \
	fails 1 "Syntax error: Second element is missing from $CLIENT_IP." \
	S add fl $CLIENT_IP
nfhp_check "a port on gre: exit 1, ipset's message" \
	fails 1 "Syntax error: Protocol gre can be used with pseudo port value 0 only." \
	S add fl $CLIENT_IP,gre:5
nfhp_check "an entry there already: exit 1, ipset's message" \
	fails 1 "Element cannot be added to the set: it's already added" \
	S add fl $CLIENT_IP,tcp:8080
nfhp_check "  with -exist: exit 0" S add fl $CLIENT_IP,tcp:8080 -exist
nfhp_check "a del not there: exit 1, ipset's message" \
	fails 1 "Element cannot be deleted from the set: it's not added" \
	S del fl $CLIENT_IP,tcp:9999
nfhp_check "  nothing changed: five entries" fl_unchanged
nfhp_check "test tcp:8091: in the set" S test fl $CLIENT_IP,tcp:8091
nfhp_check "test udp:8091: exit 1, not in the set" \
	fails 1 "$CLIENT_IP,udp:8091 is NOT in set fl." S test fl $CLIENT_IP,udp:8091
nfhp_check "create h hash:ip" S create h hash:ip
nfhp_check "swap hash:ip,port with hash:ip: exit 1" \
	fails 1 "The sets cannot be swapped: their type does not match" \
	S swap fl h
nfhp_check "  nothing changed: five entries" fl_unchanged
nfhp_check "a flow set with one direction: refused" \
	refused "a flow set takes two directions" \
	r4 -A FORWARD -m set --match-set fl src -j DROP
nfhp_check "an address set with two: refused" \
	refused "the set has one field" \
	r4 -A FORWARD -m set --match-set h src,dst -j DROP
nfhp_check "  no rule added" [ -z "$(r4 -S FORWARD | grep -- '^-A')" ]
nfhp_check "-A FORWARD -m set --match-set fl src,dst -j DROP" \
	r4 -A FORWARD -m set --match-set fl src,dst -j DROP
nfhp_check "tcp/8080 dropped" tcp_fail 8080
nfhp_check "tcp/8081 passes" tcp_ok 8081
nfhp_check "tcp/8091 dropped (of a range)" tcp_fail 8091
nfhp_check "udp/5353 dropped" udp_fail 5353
nfhp_check "tcp/5353 passes: another protocol" tcp_ok 5353
nfhp_check "ping passes: no icmp entry" ping_ok
nfhp_check "add icmp:echo-request: ping dropped" fl_icmp
nfhp_check "-S prints it as iptables does" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 grep -qxF -- '-A FORWARD -m set --match-set fl src,dst -j DROP'"
nfhp_check "-L prints it as iptables does" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -L FORWARD -n |
		 grep -q '^DROP .* match-set fl src,dst\$'"
nfhp_check "-C finds it" r4 -C FORWARD -m set --match-set fl src,dst -j DROP
nfhp_check "-C does not find dst,dst" \
	fails 1 "" r4 -C FORWARD -m set --match-set fl dst,dst -j DROP
nfhp_check "del tcp:8080: tcp/8080 passes" fl_del
nfhp_check "-F FORWARD" r4 -F FORWARD

# --- hash:net,port: "!", --set-value, longest prefix -----------------------

nets_v1()
{
	r4 -I FORWARD -m set --match-set nets src,dst --set-value 2 -j DROP &&
	tcp_ok 8080
}
nets_v2() { S add nets 10.0.1.0/28,tcp:8080 value 2 && tcp_fail 8080; }
nets_del() { S del nets 10.0.1.0/28,tcp:8080 && tcp_ok 8080; }
n6_rule()
{
	S create n6 hash:net,port family inet6 &&
	S add n6 fd00:1::/64,tcp:8080 &&
	r6 -A FORWARD -m set --match-set n6 src,dst -j DROP &&
	tcp_fail 8080 $ns_client $ns_server $SERVER6
}

nfhp_check "create nets hash:net,port, 10.0.1.0/24,tcp:8080 value 1" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create nets hash:net,port &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add nets 10.0.1.0/24,tcp:8080 value 1"
nfhp_check "a /0: exit 1, ipset's message" \
	fails 1 "The value of the CIDR parameter of the IP address is invalid" \
	S add nets 0.0.0.0/0,tcp:1
nfhp_check "! --match-set nets src,dst -j DROP (from the client)" \
	r4 -A FORWARD -i $ROUTER_CLIENT_IF -p tcp -m set ! --match-set nets src,dst -j DROP
nfhp_check "tcp/8080 passes: in the /24" tcp_ok 8080
nfhp_check "tcp/8081 dropped: not in the set" tcp_fail 8081
nfhp_check "--set-value 2 -j DROP first: tcp/8080 passes (value 1)" nets_v1
nfhp_check "add a /28 value 2: the longest prefix, tcp/8080 dropped" nets_v2
nfhp_check "del the /28: tcp/8080 passes" nets_del
nfhp_check "-S prints --set-value as iptables does" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 grep -qxF -- '-A FORWARD -m set --match-set nets src,dst --set-value 2 -j DROP'"
nfhp_check "IPv6: fd00:1::/64,tcp:8080, tcp/8080 over IPv6 dropped" n6_rule
nfhp_check "  tcp/8081 over IPv6 passes" \
	tcp_ok 8081 $ns_client $ns_server $SERVER6
nfhp_check "-F FORWARD, both families" r4 -F FORWARD
nfhp_check "  (IPv6)" r6 -F FORWARD

# --- the real ipset: save restored, the same verdicts ----------------------

# ipset_members SET, hipac_members SET - the add lines of SET in a save,
# sorted: ipset's in the server, nf-hipac-set's in the router.
ipset_members() { in_ns $ns_server ipset save "$1" | grep '^add ' | sort; }
hipac_members() { S save "$1" | grep '^add ' | sort; }
ipset_restored()
{
	local s

	in_ns $ns_server ipset save | S restore || return 1
	for s in ipp ipn; do
		[ -n "$(ipset_members $s)" ] &&
		[ "$(ipset_members $s)" = "$(hipac_members $s)" ] ||
			{ nfhp_log "  ipset: $(ipset_members $s)"; nfhp_log "  nf-hipac-set: $(hipac_members $s)"; return 1; }
	done
}

# The probes, client to server, and what got through: one letter each.
verdicts()
{
	local v=

	tcp_ok 8080 && v+=p || v+=d
	tcp_ok 8081 && v+=p || v+=d
	tcp_ok 8082 && v+=p || v+=d
	udp_ok 5353 && v+=p || v+=d
	udp_ok 5354 && v+=p || v+=d
	ping_ok && v+=p || v+=d
	echo "$v"
}
# The client's side is veth0 in the router and in the server alike.
RULES="-i veth0 -m set --match-set ipp src,dst -j DROP
-i veth0 -p tcp -m set ! --match-set ipn src,dst -j DROP"
same_verdicts()
{
	local a b rule

	while read -r rule; do
		r4 -A FORWARD $rule || return 1
	done <<<"$RULES"
	a=$(verdicts)
	r4 -F FORWARD || return 1
	while read -r rule; do
		in_ns $ns_server iptables-legacy -A INPUT $rule || return 1
	done <<<"$RULES"
	b=$(verdicts)
	in_ns $ns_server iptables-legacy -F INPUT
	nfhp_log "  nf-hipac: $a, iptables+ipset: $b"
	[ "$a" = "$b" ] && [[ $a == *p* ]] && [[ $a == *d* ]]
}

if command -v ipset >/dev/null 2>&1 && command -v iptables-legacy >/dev/null 2>&1 &&
   in_ns $ns_server ipset create ipp hash:ip,port 2>/dev/null; then
	nfhp_check "ipset: hash:ip,port and hash:net,port entries" bash -c "
		ip netns exec $ns_server ipset add ipp $CLIENT_IP,tcp:8080 &&
		ip netns exec $ns_server ipset add ipp $CLIENT_IP,udp:5353 &&
		ip netns exec $ns_server ipset add ipp $CLIENT_IP,icmp:echo-request &&
		ip netns exec $ns_server ipset add ipp 10.9.9.9,gre:0 &&
		ip netns exec $ns_server ipset create ipn hash:net,port &&
		ip netns exec $ns_server ipset add ipn 10.0.1.0/24,tcp:8080-8081 &&
		ip netns exec $ns_server ipset add ipn 10.0.0.0/8,tcp:8082 &&
		ip netns exec $ns_server ipset add ipn 10.0.1.0-10.0.1.5,udp:5354"
	nfhp_check "ipset save | nf-hipac-set restore: the same members" ipset_restored
	nfhp_check "list: ipset's lines" bash -c "
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list ipp |
			grep -qxF 'Type: hash:ip,port' &&
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list ipp |
			grep -qxF '$CLIENT_IP,icmp:echo-request'"
	nfhp_check "the same rules, the same verdicts as iptables with ipset" \
		same_verdicts
else
	nfhp_log "SKIP: ipset and iptables-legacy: not here"
fi

nfhp_check "destroy every set" S destroy
nfhp_check "no set left" [ -z "$(S list -n)" ]

exit $nfhp_rc
