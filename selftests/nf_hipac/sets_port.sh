#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_port.sh - bitmap:port sets (the number type) on real packets.
#
# The topology of lib.sh, dual-stack.  A bitmap:port set of each
# algorithm in FORWARD: "bitmap" (ports, a range each of its ports) drops
# tcp to a port of a range and lets icmp pass (no port, so in no port
# set), from an IPv4 rule and an IPv6 rule on the same set, and goes
# through nf-hipac6-save and -restore; "range" (disjoint ranges) refuses
# an overlap, with "!" lets only its ranges pass, and with --set-value
# follows the entry's value as it changes.  A set's range refuses ports
# outside it, as ipset's does.  The real ipset's bitmap:port save
# restores into nf-hipac-set with the same create line and members; the
# same create, adds, del, test and restore with ports by service name and
# with tcp:/udp: give the same members in ipset and nf-hipac-set, and
# both refuse the same mistakes.
# nfhp-timeout: 300

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

# Each check's steps in one function, so that every step counts.
web_ports() { S add web 8080 && S add web 8090-8092 && [ "$(entries web)" = 4 ]; }
web_save()
{
	S save web | tr '\n' '|' |
		grep -qx 'create web bitmap:port range 1024-9999|add web 8080|add web 8090|add web 8091|add web 8092|'
}
web_proc()
{
	in_ns $ns_router awk '$1 == "web" && $3 == "num:bitmap" && $4 == 4 { ok = 1 }
			      END { exit !ok }' /proc/net/nf-hipac/sets
}
web_ipv6() { r6 -A FORWARD -m set --match-set web dst -j DROP && tcp_fail 8080 $ns_client $ns_server $SERVER6; }
web_del() { S del web 8080 && tcp_ok 8080; }
# nf-hipac6-save prints web (a port set serves both families), and its
# output restores to the same sets and rules (the policy counters may
# move with neighbour discovery).
web_save6()
{
	local a b save

	save=$(in_ns $ns_router "$NFHP_BIN/nf-hipac6-save") &&
	a=$(grep -E '^(create|add|lock|-A) ' <<<"$save") &&
	grep -qxF 'create web bitmap:port range 1024-9999' <<<"$a" &&
	grep -qxF -- '-A FORWARD -m set --match-set web dst -j DROP' <<<"$a" &&
	printf '%s\n' "$save" | in_ns $ns_router "$NFHP_BIN/nf-hipac6-restore" &&
	b=$(in_ns $ns_router "$NFHP_BIN/nf-hipac6-save" |
	    grep -E '^(create|add|lock|-A) ') &&
	[ "$a" = "$b" ] || { nfhp_log "  before: $a"; nfhp_log "  after: $b"; return 1; }
}
hi_range() { S create hi bitmap:port range 0-65535 algo range && S add hi 8000-8099 value 2 && [ "$(entries hi)" = 1 ]; }
hi_not() { r4 -A FORWARD -i $ROUTER_CLIENT_IF -p tcp -m set ! --match-set hi dst -j DROP && tcp_ok 8050; }
hi_value2() { r4 -I FORWARD -p tcp -m set --match-set hi dst --set-value 2 -j DROP && tcp_fail 8050; }
hi_value3() { S add hi 8000-8099 value 3 -exist && tcp_ok 8050; }

nfhp_check "create web bitmap:port range 1024-9999" \
	S create web bitmap:port range 1024-9999
nfhp_check "a port over 65535: exit 1" fails 1 "out of range 0-65535" \
	S add web 70000
nfhp_check "add 80, below the range: exit 1" \
	fails 1 "Element is out of the range of the set" S add web 80
nfhp_check "add 9990-10010, past its end: exit 1" \
	fails 1 "Element is out of the range of the set" S add web 9990-10010
nfhp_check "  nothing added" [ "$(entries web)" = 0 ]
nfhp_check "create web again with another range: exit 1" \
	fails 1 "exists" S create web bitmap:port range 0-9999 -exist
nfhp_check "add 8080 and 8090-8092: four ports" web_ports
nfhp_check "save: ipset's bitmap:port lines, a port a line" web_save
nfhp_check "/proc/net/nf-hipac/sets: num:bitmap, 4 entries" web_proc
nfhp_check "-A FORWARD -m set --match-set web dst -j DROP" \
	r4 -A FORWARD -m set --match-set web dst -j DROP
nfhp_check "tcp/8091 dropped (of a range)" tcp_fail 8091
nfhp_check "tcp/8081 passes" tcp_ok 8081
nfhp_check "ping passes: icmp has no port, so is in no port set" ping_ok
nfhp_check "an IPv6 rule uses the same set: tcp/8080 over IPv6 dropped" web_ipv6
nfhp_check "del 8080: tcp/8080 passes" web_del
nfhp_check "nf-hipac6-save carries web, and restores as it was" web_save6
nfhp_check "-F FORWARD, both families" r4 -F FORWARD
nfhp_check "  (IPv6)" r6 -F FORWARD
nfhp_check "algo range: 8000-8099 one entry, value 2" hi_range
nfhp_check "an overlapping range: exit 1" \
	fails 1 "kernel: the range overlaps an entry" S add hi 8050-8200
nfhp_check "  nothing added" [ "$(entries hi)" = 1 ]
nfhp_check "! --match-set hi dst -j DROP: tcp/8050 passes" hi_not
nfhp_check "  tcp/8100 dropped" tcp_fail 8100
nfhp_check "--set-value 2 -j DROP before it: tcp/8050 dropped" hi_value2
nfhp_check "value 3 (-exist): tcp/8050 passes" hi_value3
nfhp_check "-F FORWARD" r4 -F FORWARD

# ipset_members SET, hipac_members SET - the add lines of SET in a save,
# sorted: ipset's in the server, nf-hipac-set's in the router.
ipset_members() { in_ns $ns_server ipset save "$1" | grep '^add ' | sort; }
hipac_members() { S save "$1" | grep '^add ' | sort; }
# same_members SET - SET has members, the same in ipset and nf-hipac-set.
same_members()
{
	[ -n "$(ipset_members "$1")" ] &&
	[ "$(ipset_members "$1")" = "$(hipac_members "$1")" ] ||
		{ nfhp_log "  ipset: $(ipset_members "$1")"; nfhp_log "  nf-hipac-set: $(hipac_members "$1")"; return 1; }
}
# same_create SET - the create lines of SET's saves are the same.
same_create()
{
	local a b

	a=$(in_ns $ns_server ipset save "$1" | grep '^create ') &&
	b=$(S save "$1" | grep '^create ') &&
	[ "$a" = "$b" ] ||
		{ nfhp_log "  ipset: $a"; nfhp_log "  nf-hipac-set: $b"; return 1; }
}
ipset_restored()
{
	in_ns $ns_server ipset save ipp | S restore && same_members ipp
}
# Ports by name and with a protocol: tcp's and udp's names, a protocol by
# number, a name with a '-' in brackets to begin a range, one to end it.
ipn_adds()
{
	local e

	for e in http tcp:ssh udp:domain '[ftp-data]-ftp' udp:bootps 6:smtp \
		 'pop3-[imap2]'; do
		ipset_both add ipn "$e" || { nfhp_log "  add ipn $e"; return 1; }
	done
	hipac_members ipn | grep -qx 'add ipn 80' &&
	hipac_members ipn | grep -qx 'add ipn 53' &&
	hipac_members ipn | grep -qx 'add ipn 143'
}
ipn_del()
{
	ipset_both del ipn tcp:ssh && ! hipac_members ipn | grep -qx 'add ipn 22'
}
# The same restore input, names in its create and adds, to both tools.
ipr_lines='create ipr bitmap:port range tcp:[ftp-data]-https
add ipr http
add ipr udp:domain
add ipr [ftp-data]-ftp'
ipr_restored()
{
	printf '%s\n' "$ipr_lines" | in_ns $ns_server ipset restore &&
	printf '%s\n' "$ipr_lines" | S restore && same_members ipr
}

if command -v ipset >/dev/null 2>&1 &&
   in_ns $ns_server ipset create ipp bitmap:port range 1000-2000 2>/dev/null; then
	nfhp_check "ipset: bitmap:port range 1000-2000, 1500, 1600-1602" bash -c "
		ip netns exec $ns_server ipset add ipp 1500 &&
		ip netns exec $ns_server ipset add ipp 1600-1602"
	nfhp_check "ipset save | nf-hipac-set restore: the same members" ipset_restored
	nfhp_check "  and the same create line" same_create ipp
	nfhp_check "ipset refuses add 3000, out of its range: exit 1" \
		fails 1 "out of the range" in_ns $ns_server ipset add ipp 3000
	nfhp_check "  so does nf-hipac-set, in ipset's words" \
		fails 1 "Element is out of the range of the set" S add ipp 3000
	nfhp_check "both: create ipn bitmap:port range [ftp-data]-https" \
		ipset_both create ipn bitmap:port range '[ftp-data]-https'
	nfhp_check "  the same create line (range 20-443)" same_create ipn
	nfhp_check "both: add by name, tcp:, udp:, 6:, [ftp-data]-ftp" ipn_adds
	nfhp_check "  the same members" same_members ipn
	nfhp_check "both: test ipn udp:domain: in the set, exit 0" \
		ipset_both_say 0 "is in set ipn" test ipn udp:domain
	nfhp_check "both: del ipn tcp:ssh" ipn_del
	nfhp_check "  the same members" same_members ipn
	nfhp_check "both: test ipn ssh: not in the set, exit 1" \
		ipset_both_say 1 "NOT in set ipn" test ipn ssh
	nfhp_check "both refuse sctp:80: exit 1, ipset's words" \
		ipset_both_say 1 "Only protocols TCP and UDP are valid" \
		add ipn sctp:80
	nfhp_check "both refuse ftp-data-ftp: a bare name's '-' ends FROM" \
		ipset_both_say 1 "cannot parse 'data-ftp' as a tcp port" \
		add ipn ftp-data-ftp
	nfhp_check "both refuse an unknown name" \
		ipset_both_say 1 "cannot parse 'nosuchport' as a tcp port" \
		add ipn nosuchport
	nfhp_check "nf-hipac-set refuses icmp:1 in ipset's words" \
		fails 1 "Only protocols TCP and UDP are valid" S add ipn icmp:1
	nfhp_check "  the same members still" same_members ipn
	nfhp_check "both: the same restore with names: the same members" \
		ipr_restored
	nfhp_check "  and the same create line (range 20-443)" same_create ipr
else
	nfhp_log "SKIP: ipset save | nf-hipac-set restore: no ipset here"
fi

nfhp_check "destroy every set" S destroy
nfhp_check "no set left" [ -z "$(S list -n)" ]

exit $nfhp_rc
