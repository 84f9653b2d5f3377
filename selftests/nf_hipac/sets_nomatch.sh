#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_nomatch.sh - nomatch entries (ipset's "nomatch") on real packets.
#
# The topology of lib.sh, dual-stack; the server gets more addresses in
# its subnet.  A blocklist hash:net "bl" of 10.0.0.0/8 with the
# exception 10.0.2.0/28 nomatch, 10.0.2.192/26 nomatch with the host
# 10.0.2.201 back in it, drops what the client sends to its members in
# FORWARD: 10.0.2.2 and 10.0.2.200 pass, 10.0.2.100 and 10.0.2.201 are
# dropped; "!" turns it round; an add -exist without nomatch takes the
# exception away and one with it puts it back.  The same for
# hash:net,port (tcp/8080) and an IPv6 hash:net.  Then the real ipset
# and iptables-legacy, with the same set in the server's INPUT, give the
# same verdicts and counts; ipset and nf-hipac-set say the same for the
# same test,
# add and del commands (exit codes and words), list the same members;
# ipset's save restores into nf-hipac-set with the same members, and
# nf-hipac-save and -restore carry the nomatch entries.
# nfhp-timeout: 400

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

# The server's addresses, and what a blocklist with exceptions does to
# each: passes (p) or dropped (d).
DSTS="10.0.2.2:p 10.0.2.100:d 10.0.2.200:p 10.0.2.201:d"
for d in 10.0.2.100 10.0.2.200 10.0.2.201; do
	ip -n $ns_server addr add $d/24 dev veth0 ||
		{ nfhp_log "FAIL: server address $d"; exit 1; }
done
ip -n $ns_server addr add fd00:2::100/64 dev veth0 nodad ||
	{ nfhp_log "FAIL: server address fd00:2::100"; exit 1; }

# verdicts - each destination of DSTS as it must be, from the client.
verdicts()
{
	local d

	for d in $DSTS; do
		if [ "${d#*:}" = p ]; then
			ping_ok $ns_client "${d%:*}" ||
				{ nfhp_log "  ${d%:*} dropped"; return 1; }
		else
			ping_fail $ns_client "${d%:*}" ||
				{ nfhp_log "  ${d%:*} passed"; return 1; }
		fi
	done
}
# bl_adds TOOL... - the blocklist, by ipset or nf-hipac-set.
bl_adds()
{
	"$@" create bl hash:net &&
	"$@" add bl 10.0.0.0/8 &&
	"$@" add bl 10.0.2.0/28 nomatch &&
	"$@" add bl 10.0.2.192/26 nomatch &&
	"$@" add bl 10.0.2.201
}
ip_ipset() { in_ns $ns_server ipset "$@"; }
members() { grep '^add ' | sort; }
hipac_save()
{
	S save bl | tr '\n' '|' | grep -q 'add bl 10.0.2.0/28 nomatch|'
}
bl_flip() { S add bl 10.0.2.0/28 -exist && ping_fail $ns_client 10.0.2.2; }
bl_unflip() { S add bl 10.0.2.0/28 nomatch -exist && ping_ok $ns_client 10.0.2.2; }
# A packet's second rule on bl takes the first one's lookup: it must
# keep the nomatch miss, not the entry found.
bl_memo()
{
	r4 -F FORWARD &&
	r4 -A FORWARD -i $ROUTER_CLIENT_IF -m set --match-set bl dst --set-value 5 -j DROP &&
	r4 -A FORWARD -i $ROUTER_CLIENT_IF -m set --match-set bl dst -j DROP &&
	ping_ok $ns_client 10.0.2.2 && ping_fail $ns_client 10.0.2.100
}
bl_not()
{
	r4 -F FORWARD &&
	r4 -A FORWARD -i $ROUTER_CLIENT_IF -p icmp -m set ! --match-set bl dst -j DROP &&
	ping_fail $ns_client 10.0.2.2 && ping_ok $ns_client 10.0.2.100
}
bp_adds()
{
	S create bp hash:net,port &&
	S add bp 10.0.0.0/8,tcp:8080 &&
	S add bp 10.0.2.0/28,tcp:8080 nomatch &&
	r4 -A FORWARD -i $ROUTER_CLIENT_IF -m set --match-set bp dst,dst -j DROP
}
b6_adds()
{
	S create b6 hash:net family inet6 &&
	S add b6 fd00::/8 &&
	S add b6 fd00:2::/120 nomatch &&
	S add b6 fd00:2::100 &&
	r6 -A FORWARD -i $ROUTER_CLIENT_IF -m set --match-set b6 dst -j DROP
}
# The rules and sets through nf-hipac-save and -restore, as they were
# (sorted: a flow set's entries come in the order of its hash's seed,
# which a new set draws anew).
hipac_roundtrip()
{
	local a b save

	save=$(in_ns $ns_router "$NFHP_BIN/nf-hipac-save") &&
	a=$(grep -E '^(create|add|-A) ' <<<"$save" | sort) &&
	grep -qxF 'add bl 10.0.2.0/28 nomatch' <<<"$a" &&
	grep -qxF 'add bp 10.0.2.0/28,tcp:8080 nomatch' <<<"$a" &&
	printf '%s\n' "$save" | in_ns $ns_router "$NFHP_BIN/nf-hipac-restore" &&
	b=$(in_ns $ns_router "$NFHP_BIN/nf-hipac-save" |
	    grep -E '^(create|add|-A) ' | sort) &&
	[ "$a" = "$b" ] || { nfhp_log "  before: $a"; nfhp_log "  after: $b"; return 1; }
}

nfhp_check "nf-hipac-set: bl 10.0.0.0/8, 10.0.2.0/28 and 10.0.2.192/26 nomatch, 10.0.2.201" \
	bl_adds S
nfhp_check "save: ipset's nomatch after the element" hipac_save
nfhp_check "-A FORWARD -i client -m set --match-set bl dst -j DROP" \
	r4 -A FORWARD -i $ROUTER_CLIENT_IF -m set --match-set bl dst -j DROP
nfhp_check "  verdicts: $DSTS" verdicts
nfhp_check "add 10.0.2.0/28 -exist without nomatch: 10.0.2.2 dropped" bl_flip
nfhp_check "add it nomatch -exist again: 10.0.2.2 passes" bl_unflip
nfhp_check "two rules on bl, one lookup: 10.0.2.2 passes, 10.0.2.100 dropped" bl_memo
nfhp_check "! --match-set bl: 10.0.2.2 dropped, 10.0.2.100 passes" bl_not
nfhp_check "-F FORWARD" r4 -F FORWARD
nfhp_check "hash:net,port bp 10.0.0.0/8,tcp:8080, 10.0.2.0/28 nomatch" bp_adds
nfhp_check "  tcp/8080 to 10.0.2.2 passes" tcp_ok 8080 $ns_client $ns_server 10.0.2.2
nfhp_check "  tcp/8080 to 10.0.2.100 dropped" tcp_fail 8080 $ns_client $ns_server 10.0.2.100
nfhp_check "  tcp/8081 to 10.0.2.100 passes" tcp_ok 8081 $ns_client $ns_server 10.0.2.100
nfhp_check "nf-hipac-save and -restore carry the nomatch entries" hipac_roundtrip
nfhp_check "-F FORWARD" r4 -F FORWARD
nfhp_check "IPv6 b6: fd00::/8, fd00:2::/120 nomatch, fd00:2::100" b6_adds
nfhp_check "  $SERVER6 passes" ping_ok $ns_client $SERVER6
nfhp_check "  fd00:2::100 dropped" ping_fail $ns_client fd00:2::100
nfhp_check "-F FORWARD (IPv6)" r6 -F FORWARD

# The real ipset: the same set in the server, its INPUT dropping with it.
if command -v ipset >/dev/null 2>&1 && command -v iptables-legacy >/dev/null 2>&1 &&
   in_ns $ns_server ipset create probe hash:ip 2>/dev/null; then
	in_ns $ns_server ipset destroy probe
	same_members()
	{
		local a b

		a=$(in_ns $ns_server ipset save "$1" | members) &&
		b=$(S save "$1" | members) && [ -n "$a" ] && [ "$a" = "$b" ] ||
			{ nfhp_log "  ipset: $a"; nfhp_log "  nf-hipac-set: $b"; return 1; }
	}
	# One echo to 10.0.2.2 through one rule of each: its nomatch entry
	# counts it, in both.
	blc_counts()
	{
		local a b

		ipset_both create blc hash:net counters &&
		ipset_both add blc 10.0.0.0/8 &&
		ipset_both add blc 10.0.2.0/28 nomatch &&
		in_ns $ns_server iptables-legacy -I INPUT -i veth0 -p icmp \
			-m set --match-set blc dst -j DROP &&
		r4 -A FORWARD -i $ROUTER_CLIENT_IF -p icmp -m set --match-set blc dst -j DROP &&
		ping_ok $ns_client 10.0.2.2 &&
		a=$(in_ns $ns_server ipset save blc | members) &&
		b=$(S save blc | members) &&
		r4 -F FORWARD && in_ns $ns_server iptables-legacy -D INPUT 1 &&
		grep -qx 'add blc 10.0.2.0/28 nomatch packets 1 bytes 84' <<<"$a" &&
		[ "$a" = "$b" ] ||
			{ nfhp_log "  ipset: $a"; nfhp_log "  nf-hipac-set: $b"; return 1; }
	}
	ipset_restored()
	{
		in_ns $ns_server ipset save bl | sed 's/^\(create\|add\) bl /\1 ib /' |
			S restore &&
		[ "$(in_ns $ns_server ipset save bl | members | sed 's/^add bl /add ib /')" = \
		  "$(S save ib | members)" ]
	}
	nfhp_check "ipset: the same blocklist" bl_adds ip_ipset
	nfhp_check "  the same members as nf-hipac-set's" same_members bl
	nfhp_check "ipset save | nf-hipac-set restore: the same members" \
		ipset_restored
	nfhp_check "iptables-legacy in the server: -m set --match-set bl dst -j DROP" \
		in_ns $ns_server iptables-legacy -A INPUT -i veth0 -p icmp \
			-m set --match-set bl dst -j DROP
	nfhp_check "  the same verdicts: $DSTS" verdicts
	nfhp_check "counters: a nomatch entry counts its packets, as ipset's" \
		blc_counts
	nfhp_check "both: test bl 10.0.2.2: NOT in set, exit 1" \
		ipset_both_say 1 "10.0.2.2 is NOT in set bl" test bl 10.0.2.2
	nfhp_check "both: test bl 10.0.2.201: in set, exit 0" \
		ipset_both_say 0 "10.0.2.201 is in set bl" test bl 10.0.2.201
	nfhp_check "both: test bl 10.0.2.2 nomatch: in set, exit 0" \
		ipset_both_say 0 "10.0.2.2 is in set bl" test bl 10.0.2.2 nomatch
	nfhp_check "both: test bl 10.0.2.0/28: NOT in set, exit 1" \
		ipset_both_say 1 "is NOT in set bl" test bl 10.0.2.0/28
	nfhp_check "both: add bl 10.0.2.0/28 again: exit 1" \
		ipset_both_say 1 "already added" add bl 10.0.2.0/28
	nfhp_check "both refuse del ... nomatch: exit 2" \
		ipset_both_say 2 "Unknown argument: \`nomatch'" del bl 10.0.2.0/28 nomatch
	nfhp_check "both: create h hash:ip" ipset_both create h hash:ip
	nfhp_check "both refuse nomatch in hash:ip: exit 2" \
		ipset_both_say 2 "Unknown argument: \`nomatch'" add h 10.0.2.7 nomatch
	nfhp_check "both: add bl 10.0.2.0/28 -exist, then del 10.0.2.192/26" \
		ipset_both add bl 10.0.2.0/28 -exist
	nfhp_check "  (del)" ipset_both del bl 10.0.2.192/26
	nfhp_check "  the same members" same_members bl
	in_ns $ns_server iptables-legacy -F INPUT
else
	nfhp_log "SKIP: the real ipset and iptables-legacy: not here"
fi

exit $nfhp_rc
