#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets.sh - named sets (nf-hipac-set) and set matches (-m set) on real
# packets.
#
# The topology of lib.sh, dual-stack as in ipv6.sh.  Checked: create,
# add, del, test, list, save, restore, swap, lock, limit and destroy with
# ipset's exit codes and messages, errors changing nothing; a rule
# "-m set --match-set bl src -j DROP" in FORWARD drops the client's pings
# only while the client is in the set, with "!", for hash (hash:ip) and
# lpm (hash:net) sets, IPv4 and IPv6 (nf-hipac6); a swap changes the
# verdict at once; a set a rule refers to cannot be destroyed; the rule
# lists, saves and deletes as iptables' xt_set rule does; the output of
# the real ipset save restores into nf-hipac-set.
# nfhp-timeout: 600

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

ping6_ok() { in_ns $ns_client $NFHP_PING -6 -q -c1 -W"$NFHP_WAIT" $SERVER6 >/dev/null 2>&1; }
ping6_fail() { ! ping6_ok; }

# says TEXT CMD... - CMD succeeds and prints a line that is TEXT.
says()
{
	local text=$1 out

	shift
	out=$("$@" 2>&1) || { nfhp_log "  failed: $out"; return 1; }
	grep -qxF -- "$text" <<<"$out" || { nfhp_log "  got: $out"; return 1; }
}

# --- the command line ---------------------------------------------------------

nfhp_check "create bl hash:ip" S create bl hash:ip
nfhp_check "create again: exit 1, ipset's message" \
	fails 1 "Set cannot be created: set with the same name already exists" \
	S create bl hash:ip
nfhp_check "create again with -exist" S create bl hash:ip -exist
nfhp_check "create again as hash:net with -exist: refused" \
	fails 1 "set with the same name already exists" \
	S create bl hash:net -exist
nfhp_check "an unknown type: exit 1" \
	fails 1 "Syntax error: typename 'hash:foo' is unknown" \
	S create x hash:foo
nfhp_check "an ipset type nf-hipac has not: exit 1" \
	fails 1 "typename 'hash:ip,mark' is not supported by nf-hipac" \
	S create x hash:ip,mark
nfhp_check "timeout 5: exit 1" fails 1 "only timeout 0" \
	S create x hash:ip timeout 5
nfhp_check "an unknown option: exit 2" fails 2 "Unknown argument: \`foo'" \
	S create x hash:ip foo
nfhp_check "nothing was created by the refused creates" \
	says bl S list -name
nfhp_check "add to a set that does not exist: exit 1" \
	fails 1 "The set with the given name does not exist" \
	S add nosuch $CLIENT_IP
nfhp_check "a bad address: exit 1" \
	fails 1 "Syntax error: cannot parse 10.0.0.300: resolving to IPv4 address failed" \
	S add bl 10.0.0.300
nfhp_check "an IPv6 address in an IPv4 set: exit 1" \
	fails 1 "resolving to IPv4 address failed" S add bl ::1
nfhp_check "add $CLIENT_IP" S add bl $CLIENT_IP
nfhp_check "add it again: exit 1" \
	fails 1 "Element cannot be added to the set: it's already added" \
	S add bl $CLIENT_IP
nfhp_check "add it again with -exist" S add bl $CLIENT_IP -exist
nfhp_check "test: in the set, exit 0" \
	fails 0 "Warning: $CLIENT_IP is in set bl." S test bl $CLIENT_IP
nfhp_check "test: not in the set, exit 1" \
	fails 1 "10.9.9.9 is NOT in set bl." S test bl 10.9.9.9
nfhp_check "del what is not there: exit 1" \
	fails 1 "Element cannot be deleted from the set: it's not added" \
	S del bl 10.9.9.9
nfhp_check "del what is not there with -exist" S del bl 10.9.9.9 -exist
nfhp_check "add 192.0.2.0/30: its four hosts" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add bl 192.0.2.0/30 &&
		 [ \"\$(ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -terse bl |
			sed -n 's/^Number of entries: //p')\" = 5 ]"
nfhp_check "add with a value" S add bl 198.51.100.7 value 7
nfhp_check "list: ipset's head" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list bl |
		 head -3 | tr '\n' '|' | grep -qx 'Name: bl|Type: hash:ip|Revision: 0|'"
nfhp_check "list: the member with its value" \
	says "198.51.100.7 value 7" S list bl
nfhp_check "save: ipset's create line" \
	says "create bl hash:ip family inet hashsize 1024 maxelem 65536" S save bl
nfhp_check "save: ipset's add line" says "add bl $CLIENT_IP" S save bl
nfhp_check "list of a set that does not exist: exit 1" \
	fails 1 "The set with the given name does not exist" S list nosuch
nfhp_check "destroy a set that does not exist: exit 1" \
	fails 1 "The set with the given name does not exist" S destroy nosuch
nfhp_check "flush bl" S flush bl
nfhp_check "bl is empty" [ "$(entries bl)" = 0 ]

nfhp_check "create lim hash:ip maxelem 2" S create lim hash:ip maxelem 2
nfhp_check "two adds" bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add lim 1.1.1.1 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add lim 1.1.1.2"
nfhp_check "a third: exit 1, ipset's message" \
	fails 1 "Hash is full, cannot add more elements" S add lim 1.1.1.3
nfhp_check "limit lim 3, then it fits" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' limit lim 3 &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add lim 1.1.1.3"
nfhp_check "lock lim" S lock lim
nfhp_check "an add to a locked set: exit 1" \
	fails 1 "the set is locked" S add lim 1.1.1.4
nfhp_check "a del from a locked set: exit 1" \
	fails 1 "the set is locked" S del lim 1.1.1.1
nfhp_check "the header says locked" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -t lim | grep -q '^Header: .* locked$'"
nfhp_check "save ends in lock lim" says "lock lim" S save lim
nfhp_check "unlock lim, del" bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' unlock lim &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' del lim 1.1.1.1"
nfhp_check "swap with a set that does not exist: exit 1" \
	fails 1 "Sets cannot be swapped: the second set does not exist" \
	S swap lim nosuch
nfhp_check "create bl6 hash:ip family inet6" S create bl6 hash:ip family inet6
nfhp_check "swap sets of two families: exit 1" \
	fails 1 "The sets cannot be swapped: their type does not match" \
	S swap lim bl6

# --- rules, IPv4, hash ---------------------------------------------------------

nfhp_check "a rule naming a set that does not exist: exit 2" \
	fails 2 "Set nosuch doesn't exist." \
	r4 -A FORWARD -p icmp -m set --match-set nosuch src -j DROP
nfhp_check "-A FORWARD -p icmp -m set --match-set bl src -j DROP" \
	r4 -A FORWARD -p icmp -m set --match-set bl src -j DROP
nfhp_check "ping passes: bl is empty" ping_ok
nfhp_check "add the client to bl" S add bl $CLIENT_IP
nfhp_check "ping dropped while the client is in bl" ping_fail
nfhp_check "del the client from bl" S del bl $CLIENT_IP
nfhp_check "ping passes again" ping_ok
nfhp_check "-S prints it as iptables does" \
	says "-A FORWARD -p icmp -m set --match-set bl src -j DROP" r4 -S FORWARD
nfhp_check "-L prints it as iptables does" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -L FORWARD -n |
		 grep -q '^DROP .* match-set bl src\$'"
nfhp_check "nf-hipac-save carries it" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-save' |
		 grep -qxF -- '-A FORWARD -p icmp -m set --match-set bl src -j DROP'"
nfhp_check "-C finds it" r4 -C FORWARD -p icmp -m set --match-set bl src -j DROP
nfhp_check "-C does not find it with !" \
	fails 1 "" r4 -C FORWARD -p icmp -m set ! --match-set bl src -j DROP
nfhp_check "References: 1" says "References: 1" S list -t bl
nfhp_check "destroy bl while a rule refers to it: exit 1" \
	fails 1 "Set cannot be destroyed: it is in use by a kernel component" \
	S destroy bl
nfhp_check "destroy of every set refused too, none destroyed" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' destroy 2>/dev/null &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -n | grep -qx lim"

# swap: the rule sees the other set's entries at once.
nfhp_check "create full, add the client" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create full hash:ip &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add full $CLIENT_IP"
nfhp_check "swap bl full" S swap bl full
nfhp_check "ping dropped: bl holds the client now" ping_fail
nfhp_check "full is empty" [ "$(entries full)" = 0 ]
nfhp_check "swap back" S swap bl full
nfhp_check "ping passes" ping_ok
nfhp_check "-D by rule" r4 -D FORWARD -p icmp -m set --match-set bl src -j DROP
nfhp_check "destroy bl once no rule refers to it" S destroy bl

# "!": only what is in the set passes (the client's side: the answers
# come from the server).
nfhp_check "create allow, -m set ! --match-set allow src -j DROP" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create allow hash:ip &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -i $ROUTER_CLIENT_IF -p icmp -m set ! --match-set allow src -j DROP"
nfhp_check "ping dropped: the client is not in allow" ping_fail
nfhp_check "add the client to allow" S add allow $CLIENT_IP
nfhp_check "ping passes" ping_ok
nfhp_check "-S prints the ! as iptables does" \
	says "-A FORWARD -i $ROUTER_CLIENT_IF -p icmp -m set ! --match-set allow src -j DROP" \
	r4 -S FORWARD
nfhp_check "the old placement --match-set ! NAME is the same rule" \
	r4 -C FORWARD -i $ROUTER_CLIENT_IF -p icmp -m set --match-set ! allow src -j DROP
nfhp_check "-F FORWARD" r4 -F FORWARD

# dst: the server's address.
nfhp_check "-m set --match-set dsts dst -j DROP, the server in it" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create dsts hash:ip &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add dsts $SERVER_IP &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -p icmp -m set --match-set dsts dst -j DROP"
nfhp_check "ping dropped" ping_fail
nfhp_check "flush dsts: ping passes" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' flush dsts" &&
	nfhp_check "  then: ping passes" ping_ok
nfhp_check "-F FORWARD" r4 -F FORWARD

# --set-value: the entry's value decides, and changes with no commit.
nfhp_check "vals hash:net, 10.0.1.0/24 value 5; --set-value 1:4 -j DROP" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create vals hash:net &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add vals 10.0.1.0/24 value 5 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -p icmp -m set --match-set vals src --set-value 1:4 -j DROP"
nfhp_check "ping passes: value 5 is not in 1:4" ping_ok
nfhp_check "add the entry again with value 3 (-exist)" \
	S add vals 10.0.1.0/24 value 3 -exist
nfhp_check "ping dropped: value 3 is" ping_fail
nfhp_check "-S prints --set-value 1:4" \
	says "-A FORWARD -p icmp -m set --match-set vals src --set-value 1:4 -j DROP" r4 -S FORWARD
nfhp_check "-L prints set-value 1:4" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -L FORWARD -n |
		 grep -q '^DROP .* match-set vals src set-value 1:4\$'"
nfhp_check "-D with another value range: not found" \
	fails 1 "" r4 -D FORWARD -p icmp -m set --match-set vals src --set-value 1:5 -j DROP
nfhp_check "-D with the same range" \
	r4 -D FORWARD -p icmp -m set --match-set vals src --set-value 1:4 -j DROP
nfhp_check "! --match-set vals src --set-value 3: ping passes (value 3)" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -i $ROUTER_CLIENT_IF -p icmp -m set ! --match-set vals src --set-value 3 -j DROP" &&
	nfhp_check "  then: ping passes" ping_ok
nfhp_check "value 9: ping dropped" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add vals 10.0.1.0/24 value 9 -exist" &&
	nfhp_check "  then: ping dropped" ping_fail
nfhp_check "--set-value 2:1: exit 2, nothing added" \
	fails 2 "bad --set-value" r4 -A FORWARD -m set --match-set vals src --set-value 2:1 -j DROP
nfhp_check "-F FORWARD, destroy vals" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F FORWARD &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' destroy vals"

# --- lpm (hash:net) -----------------------------------------------------------

if out=$(S create nets hash:net 2>&1); then
	nfhp_check "-A FORWARD -m set --match-set nets src -j DROP" \
		r4 -A FORWARD -p icmp -m set --match-set nets src -j DROP
	nfhp_check "ping passes: nets is empty" ping_ok
	nfhp_check "add 10.0.0.0/16" S add nets 10.0.0.0/16
	nfhp_check "ping dropped: 10.0.0.0/16 holds the client" ping_fail
	nfhp_check "test: the client is in nets (longest prefix)" \
		fails 0 "is in set nets" S test nets $CLIENT_IP
	nfhp_check "test: 10.0.0.0/24 is not an entry" \
		fails 1 "10.0.0.0/24 is NOT in set nets." S test nets 10.0.0.0/24
	nfhp_check "a range becomes ipset's prefixes" bash -c "
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add nets 1.1.1.1-1.1.1.6 &&
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' save nets | grep -c '^add nets 1\.1\.1\.' | grep -qx 4"
	nfhp_check "del 10.0.0.0/16: ping passes" \
		bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' del nets 10.0.0.0/16" &&
		nfhp_check "  then: ping passes" ping_ok
	nfhp_check "/33: exit 1" fails 1 "Syntax error: '33' is out of range 0-32" \
		S add nets 10.0.0.0/33
	nfhp_check "-F FORWARD" r4 -F FORWARD
	lpm=1
else
	nfhp_log "SKIP: hash:net (lpm) sets: $out"
	lpm=
fi

# --- IPv6 -------------------------------------------------------------------------

nfhp_check "an IPv4 set in an IPv6 rule is refused" \
	fails 1 "" r6 -A FORWARD -p ipv6-icmp -m set --match-set allow src -j DROP
nfhp_check "nf-hipac6 -A FORWARD -m set --match-set bl6 src -j DROP" \
	r6 -A FORWARD -p ipv6-icmp -m set --match-set bl6 src -j DROP
nfhp_check "ping6 passes: bl6 is empty" ping6_ok
nfhp_check "add $CLIENT6 to bl6" S add bl6 $CLIENT6
nfhp_check "ping6 dropped" ping6_fail
nfhp_check "ping (IPv4) passes" ping_ok
nfhp_check "test bl6" fails 0 "Warning: $CLIENT6 is in set bl6." \
	S test bl6 $CLIENT6
nfhp_check "save bl6" says "create bl6 hash:ip family inet6 hashsize 1024 maxelem 65536" \
	S save bl6
nfhp_check "del: ping6 passes" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' del bl6 $CLIENT6" &&
	nfhp_check "  then: ping6 passes" ping6_ok
nfhp_check "nf-hipac6 -S" \
	says "-A FORWARD -p ipv6-icmp -m set --match-set bl6 src -j DROP" r6 -S FORWARD
nfhp_check "nf-hipac6 -F FORWARD" r6 -F FORWARD
if [ -n "$lpm" ]; then
	nfhp_check "IPv6 lpm: fd00:1::/64 in nets6, ! rule" bash -c "
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create nets6 hash:net family inet6 &&
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A FORWARD -i $ROUTER_CLIENT_IF -p ipv6-icmp -m set ! --match-set nets6 src -j DROP"
	nfhp_check "ping6 dropped: the client is not in nets6" ping6_fail
	nfhp_check "add fd00:1::/64" S add nets6 fd00:1::/64
	nfhp_check "ping6 passes" ping6_ok
	nfhp_check "nf-hipac6 -F FORWARD" r6 -F FORWARD
fi

# --- restore --------------------------------------------------------------------

nfhp_check "restore: a bad line anywhere changes nothing" \
	fails 1 "Error in line 3: Syntax error: cannot parse 1.1.1.300" \
	bash -c "printf 'create r1 hash:ip\nadd r1 1.1.1.1\nadd r1 1.1.1.300\n' |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore"
nfhp_check "  r1 was not created" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -n | grep -qx r1"
nfhp_check "restore: an unknown set in line 1 changes nothing" \
	fails 1 "Error in line 2: The set with the given name does not exist" \
	bash -c "printf 'create r1 hash:ip\nadd nosuch 1.1.1.1\n' |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore"
nfhp_check "restore: 10000 entries" bash -c "
	awk 'BEGIN { print \"create big hash:ip maxelem 20000\"
		     for (i = 0; i < 10000; i++)
			printf \"add big 10.%d.%d.1\\n\", i / 256 + 100, i % 256 }' |
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore"
nfhp_check "  big holds 10000" [ "$(entries big)" = 10000 ]
# A larger one, timed for the log (a TCG guest: no bound is checked).
if [ -n "$lpm" ]; then
	t0=$(date +%s.%N)
	nfhp_check "restore: 100000 prefixes into an lpm set" bash -c "
		awk 'BEGIN { print \"create huge hash:net maxelem 0\"
			     for (i = 0; i < 100000; i++)
				printf \"add huge %d.%d.%d.0/24\\n\", 20 + i / 65536, i / 256 % 256, i % 256 }' |
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore"
	t1=$(date +%s.%N)
	nfhp_log "  (100000 entries restored in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s)"
	nfhp_check "  huge holds 100000" [ "$(entries huge)" = 100000 ]
	# What the adds replaced goes a grace period after the last one: the
	# set keeps its own buckets, tens of bytes a prefix, not hundreds.
	sleep 2
	mem=$(in_ns $ns_router awk '$1 == "huge" { print $6 }' /proc/net/nf-hipac/sets)
	nfhp_log "  (huge takes $mem bytes, $((${mem:-0} / 100000)) a prefix)"
	nfhp_check "  the blocks the restore replaced are freed after it" \
		[ "${mem:-999999999}" -lt $((100000 * 100)) ]
	nfhp_check "  a packet's address finds its /24" \
		fails 0 "is in set huge" S test huge 20.1.2.3
	nfhp_check "destroy huge" S destroy huge
fi
nfhp_check "restore: an entry there already stops it, ipset's message" \
	fails 1 "Error in line 2: Element cannot be added to the set: it's already added" \
	bash -c "printf 'add big 10.99.0.1\nadd big 10.99.0.1\n' |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore"
nfhp_check "restore -exist takes it" \
	bash -c "printf 'create big hash:ip maxelem 20000\nadd big 10.100.0.1\n' |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore -exist"
nfhp_check "save | destroy | restore gives the same save" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' lock lim &&
	a=\$(ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' save) &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' destroy &&
	printf '%s\n' \"\$a\" | ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore &&
	b=\$(ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' save) &&
	[ \"\$(sort <<<\"\$a\")\" = \"\$(sort <<<\"\$b\")\" ] &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -t lim | grep -q '^Header: .* locked\$'"

# members SETS - "SET ENTRY" of each add line of the sets SETS (an
# alternation) in a save on stdin, sorted.
members()
{
	sed -nE "s/^add ($1) ([^ ]*).*/\1 \2/p" | sort
}

# same_members SETS - ipset's sets SETS in the server and nf-hipac-set's
# in the router have the same entries.
same_members()
{
	local a b

	a=$(in_ns $ns_server ipset save | members "$1") &&
	b=$(S save | members "$1") &&
	[ -n "$a" ] && [ "$a" = "$b" ] ||
		{ nfhp_log "  ipset: $a"; nfhp_log "  nf-hipac-set: $b"; return 1; }
}

# The real ipset's save output, from a namespace of its own.
if command -v ipset >/dev/null 2>&1 && in_ns $ns_server ipset create probe hash:ip 2>/dev/null; then
	in_ns $ns_server ipset destroy probe
	nfhp_check "ipset: sets with maxelem, timeout 0, counters, comment" bash -c "
		ip netns exec $ns_server ipset create ih hash:ip maxelem 1000 timeout 0 counters comment &&
		ip netns exec $ns_server ipset add ih 192.0.2.1 comment 'a b' &&
		ip netns exec $ns_server ipset add ih 192.0.2.2 packets 5 bytes 50 &&
		ip netns exec $ns_server ipset add ih 192.0.2.8/30 &&
		ip netns exec $ns_server ipset create in hash:net &&
		ip netns exec $ns_server ipset add in 198.51.100.0/24 &&
		ip netns exec $ns_server ipset add in 203.0.113.7 &&
		ip netns exec $ns_server ipset create i6 hash:ip family inet6 &&
		ip netns exec $ns_server ipset add i6 2001:db8::1"
	in_ns $ns_server ipset save > "/tmp/ipset-save-$$"
	if [ -n "$lpm" ]; then
		nfhp_check "ipset save | nf-hipac-set restore" \
			bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore < /tmp/ipset-save-$$"
		nfhp_check "  the same members" same_members "ih|in|i6"
		nfhp_check "  the same limit, and counters" \
			says "create ih hash:ip family inet hashsize 1024 maxelem 1000 counters" S save ih
		nfhp_check "  the counts ipset's add gave" \
			says "add ih 192.0.2.2 packets 5 bytes 50" S save ih
	else
		nfhp_check "ipset save | nf-hipac-set restore (hash:ip only)" \
			bash -c "grep -Ev '^(create|add) in ' /tmp/ipset-save-$$ |
				 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore"
		nfhp_check "  the same members" same_members "ih|i6"
	fi
	rm -f "/tmp/ipset-save-$$"
	nfhp_check "the client in ih: the rule drops its pings" bash -c "
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add ih $CLIENT_IP &&
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -p icmp -m set --match-set ih src -j DROP" &&
		nfhp_check "  then: ping dropped" ping_fail
	nfhp_check "-F FORWARD" r4 -F FORWARD
else
	nfhp_log "SKIP: ipset save | nf-hipac-set restore: no ipset here"
fi

nfhp_check "destroy every set" S destroy
nfhp_check "no set left" [ -z "$(S list -n)" ]

exit $nfhp_rc
