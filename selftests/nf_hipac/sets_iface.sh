#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_iface.sh - hash:iface sets (the iface type, nf-hipac's own) on
# real packets.
#
# The topology of lib.sh, dual-stack: a ping from the client to the
# server goes into the router on veth0 and out on veth1.  Echo requests
# only are matched, so that "src" (the input device) and "dst" (the
# output device) are told apart: a set of veth0 drops them by src, not by
# dst.  Both algorithms, "hash" and "lpm": a name, nested wildcards
# ("veth+", "veth1+", "+") whose longest match gives the value, "!", an
# IPv6 rule on the same set, a device with no input device (OUTPUT), and
# a device created after its entry (names, not indexes, are matched).
# Refused: a name of 16 bytes and a swap with a hash:ip set, with ipset's
# messages and exit codes; neither changes anything.  Save and restore
# carry the names and wildcards.
# nfhp-timeout: 600

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

# echo_drop SET DIR [MORE...] - the only FORWARD rule: drop echo requests
# whose DIR device is in SET (MORE: --set-value N).
echo_drop()
{
	local set=$1 dir=$2

	shift 2
	r4 -F FORWARD &&
	r4 -A FORWARD -p icmp --icmp-type echo-request -m set \
		--match-set "$set" "$dir" "$@" -j DROP
}
echo_drop_not()
{
	r4 -F FORWARD &&
	r4 -A FORWARD -p icmp --icmp-type echo-request -m set ! \
		--match-set "$1" "$2" -j DROP
}

# --- a name: src is the input device, dst the output ------------------------

in_src() { echo_drop a src && ping_fail; }
in_dst() { echo_drop a dst && ping_ok; }
out_dst() { S del a veth0 && S add a veth1 && ping_fail; }
not_src() { echo_drop_not a src && ping_fail; }
not_dst() { echo_drop_not a dst && ping_ok; }
a_proc()
{
	in_ns $ns_router awk '$1 == "a" && $3 == "iface:hash" && $4 == 1 { ok = 1 }
			      END { exit !ok }' /proc/net/nf-hipac/sets
}
a_rule()
{
	r4 -S FORWARD | grep -qxF -- \
		'-A FORWARD -p icmp -m icmp --icmp-type 8 -m set ! --match-set a dst -j DROP' ||
		{ nfhp_log "  got: $(r4 -S FORWARD)"; return 1; }
}

nfhp_check "create a hash:iface" S create a hash:iface
nfhp_check "add a veth0" S add a veth0
nfhp_check "test a veth0: in the set" S test a veth0
nfhp_check "a src: echo requests in on veth0 dropped" in_src
nfhp_check "a dst: they go out on veth1: pass" in_dst
nfhp_check "a = {veth1}: dst drops them" out_dst
nfhp_check "/proc/net/nf-hipac/sets: iface:hash, 1 entry" a_proc
nfhp_check "! a src: in on veth0, not in a: dropped" not_src
nfhp_check "! a dst: out on veth1, in a: pass" not_dst
nfhp_check "-S prints the rule as iptables and xt_set do" a_rule

# --- wildcards, nested, the longest match's value: the lpm algorithm ----------

w_empty() { echo_drop w dst --set-value 2 && ping_ok; }
w_any() { S add w + && ping_ok; }
w_value1() { S del w + && S add w veth+ value 1 && S add w veth1 value 2 && ping_fail; }
w_value_other() { S del w veth1 && ping_ok; }
w_nested() { S add w veth1+ value 2 && ping_fail; }
w_exact_wins() { S add w veth1 value 3 && ping_ok; }
# The save of w, its add lines sorted (an algorithm's own order).
w_lines() { S save w | sort | tr '\n' '|'; }
w_save()
{
	[ "$(w_lines)" = 'add w veth+ value 1|add w veth1 value 3|add w veth1+ value 2|create w hash:iface hashsize 1024 maxelem 65536 algo lpm|' ] ||
		{ nfhp_log "  got: $(w_lines)"; return 1; }
}
# The rule goes first: a set a rule refers to cannot be destroyed.
w_restore()
{
	local save

	save=$(S save w) && r4 -F FORWARD && S destroy w &&
	S restore <<<"$save" && w_save &&
	echo_drop w dst --set-value 2 && ping_ok
}

nfhp_check "create w hash:iface algo lpm" S create w hash:iface algo lpm
nfhp_check "w dst --set-value 2: an empty set drops nothing" w_empty
nfhp_check "add w +: every device, value 0, not 2: passes" w_any
nfhp_check "veth+ 1, veth1 2: out on veth1 is 2: dropped" w_value1
nfhp_check "del veth1: veth+ gives 1: passes" w_value_other
nfhp_check "veth1+ 2 (longer than veth+): dropped" w_nested
nfhp_check "veth1 3: the name beats every wildcard: passes" w_exact_wins
nfhp_check "test w veth12: veth1+ holds it" S test w veth12
nfhp_check "test w eth0: not in the set: exit 1" \
	fails 1 "eth0 is NOT in set w." S test w eth0
nfhp_check "save: the names and wildcards, algo lpm" w_save
nfhp_check "destroy, restore the save: the same set, the same verdict" w_restore

# --- both families, no input device, a device created later -------------------

v6_rule() { r6 -A FORWARD -p ipv6-icmp --icmpv6-type echo-request -m set --match-set a dst -j DROP && ping_fail $ns_client $SERVER6; }
v6_del() { S del a veth1 && ping_ok $ns_client $SERVER6; }
out_none() { S add a + && r4 -A OUTPUT -m set --match-set a src -j DROP && ping_ok $ns_router; }
out_not() { r4 -F OUTPUT && r4 -A OUTPUT -m set ! --match-set a src -j DROP && ping_fail $ns_router; }
late_up()
{
	ip link add late0 netns $ns_router type veth peer name late0 \
		netns $ns_client &&
	ip -n $ns_router addr add 10.0.3.1/24 dev late0 &&
	ip -n $ns_client addr add 10.0.3.2/24 dev late0 &&
	ip -n $ns_router link set late0 up &&
	ip -n $ns_client link set late0 up
}

nfhp_check "an IPv6 rule on a: out on veth1 over IPv6 dropped" v6_rule
nfhp_check "del a veth1: IPv6 passes" v6_del
nfhp_check "-F FORWARD, both families" r4 -F FORWARD
nfhp_check "  (IPv6)" r6 -F FORWARD
nfhp_check "OUTPUT a src, a = {+}: no input device, in no set: passes" out_none
nfhp_check "OUTPUT ! a src: dropped" out_not
nfhp_check "-F OUTPUT" r4 -F OUTPUT
nfhp_check "create l hash:iface" S create l hash:iface
nfhp_check "add l late0, before there is such a device" S add l late0
nfhp_check "-A INPUT -m set --match-set l src -j DROP" \
	r4 -A INPUT -m set --match-set l src -j DROP
nfhp_check "create late0 between client and router" late_up
nfhp_check "a ping to the router in on late0 dropped" \
	ping_fail $ns_client 10.0.3.1
nfhp_check "  one in on veth0 passes" ping_ok $ns_client $ROUTER_CLIENT_IP
nfhp_check "del l late0" S del l late0
nfhp_check "  a ping in on late0 passes" ping_ok $ns_client 10.0.3.1
nfhp_check "-F INPUT" r4 -F INPUT

# --- refused, and nothing changed --------------------------------------------

nfhp_check "a name of 16 bytes: exit 1, ipset's message" \
	fails 1 "Syntax error: interface name 'abcdefghijklmnop' is longer than 15 characters" \
	S add w abcdefghijklmnop
nfhp_check "  nothing added" [ "$(entries w)" = 3 ]
nfhp_check "create h hash:ip" S create h hash:ip
nfhp_check "swap w h: exit 1, ipset's message" \
	fails 1 "The sets cannot be swapped: their type does not match" \
	S swap w h
nfhp_check "  w as it was" w_save

nfhp_check "destroy every set" S destroy
nfhp_check "no set left" [ -z "$(S list -n)" ]

exit $nfhp_rc
