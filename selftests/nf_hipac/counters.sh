#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packet and byte counters grow by exactly the packets sent: N echo
# requests of 84 bytes (IP header, ICMP header, 56 data bytes), N UDP
# datagrams, the replies at the policy; -Z zeroes a rule, a chain or all.
# Counters are read with "nf-hipac -L CHAIN -n -v -x".
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

r() { nfhp_in $ns_router "$@"; }

tmp=$(mktemp -d /tmp/nfhp-counters.XXXXXX)
trap 'nfhp_cleanup; rm -rf $tmp' EXIT

# counters CHAIN NUM - print "PACKETS BYTES" of rule NUM of the router's
# CHAIN: the listing has the chain line and the column headers, then one
# line per rule.
counters()
{
	r -L "$1" -n -v -x | awk -v n="$2" 'NR == n + 2 { print $1, $2; exit }'
}

# policy_counters CHAIN - print "PACKETS BYTES" of CHAIN's policy.
policy_counters()
{
	r -L "$1" -n -v -x |
		sed -n 's/^Chain .*(policy [A-Z]* \([0-9]*\) packets, \([0-9]*\) bytes).*/\1 \2/p'
}

# expect WHAT GOT WANT - compare, logging both on a mismatch.
expect()
{
	[ "$2" = "$3" ] && return 0
	nfhp_log "$1: got '$2', want '$3'"
	return 1
}

# udp_send N PORT - send N datagrams of 10 bytes from client to server.
udp_send()
{
	in_ns $ns_client python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    s.sendto(b"0123456789", (sys.argv[2], int(sys.argv[3])))
' "$1" $SERVER_IP "$2"
}

nfhp_check "-A count icmp from client (no target)" \
	r -A FORWARD -s $CLIENT_IP -p icmp
nfhp_check "-A count udp/9000" r -A FORWARD -p udp --dport 9000
nfhp_check "-A drop udp/9001" r -A FORWARD -p udp --dport 9001 -j DROP
nfhp_check "new rules start at 0" expect "rule 1" "$(counters FORWARD 1)" "0 0"
# pings N - N echo requests from client to server, all answered.
pings() { in_ns $ns_client $NFHP_PING -q -c"$1" -i0.2 -W2 $SERVER_IP >/dev/null; }

nfhp_check "ping -c 5" pings 5
nfhp_check "5 requests counted, 420 bytes" \
	expect "rule 1" "$(counters FORWARD 1)" "5 420"
nfhp_check "requests and replies reach the policy: 10 packets, 840 bytes" \
	expect "policy" "$(policy_counters FORWARD)" "10 840"

udp_send 7 9000
udp_send 3 9001
sleep 0.5
nfhp_check "7 datagrams counted, 7 * 38 bytes" \
	expect "rule 2" "$(counters FORWARD 2)" "7 266"
nfhp_check "3 dropped datagrams counted" \
	expect "rule 3" "$(counters FORWARD 3)" "3 114"
nfhp_check "ping does not touch the udp rule" \
	expect "rule 2" "$(counters FORWARD 2)" "7 266"

nfhp_check "-Z FORWARD 2" r -Z FORWARD 2
nfhp_check "rule 2 zeroed" expect "rule 2" "$(counters FORWARD 2)" "0 0"
nfhp_check "rule 1 kept" expect "rule 1" "$(counters FORWARD 1)" "5 420"
nfhp_check "-I 1 shifts positions but keeps counters" \
	r -I FORWARD 1 -p tcp --dport 1
nfhp_check "old rule 1 is now 2, still 5 packets" \
	expect "rule 2" "$(counters FORWARD 2)" "5 420"
nfhp_check "-Z" r -Z
nfhp_check "all zeroed" expect "rule 2" "$(counters FORWARD 2)" "0 0"
nfhp_check "policy zeroed" expect "policy" "$(policy_counters FORWARD)" "0 0"

nfhp_check "ping -c 3 after -Z" pings 3
nfhp_check "3 more requests" expect "rule 2" "$(counters FORWARD 2)" "3 252"

# A restore that renames a chain sends its jumps anew, sharing the old
# jumps' counters; a -Z of them in a restore that fails must not reach
# the jump in force.
nfhp_check "-N counted" r -N counted
nfhp_check "-I FORWARD 1 -p icmp -j counted" r -I FORWARD 1 -p icmp -j counted
nfhp_check "ping -c 2 through the jump" pings 2
jump_before=$(counters FORWARD 1)
nfhp_check "the jump counted 4 packets ($jump_before)" \
	expect "jump" "${jump_before%% *}" 4
printf '*filter\n-E counted renamed\n-Z FORWARD\n-A FORWARD -j nosuchchain\nCOMMIT\n' \
	>$tmp/rename-bad.rules
nfhp_check "a restore with -E and -Z that fails" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore' \
		 --noflush <$tmp/rename-bad.rules 2>/dev/null"
nfhp_check "leaves the jump's counters" \
	expect "jump" "$(counters FORWARD 1)" "$jump_before"
nfhp_check "and its chain's name" r -L counted -n
sed '/nosuchchain/d' $tmp/rename-bad.rules >$tmp/rename.rules
nfhp_check "the same restore without the bad rule" \
	nfhp_restore_in $ns_router --noflush <$tmp/rename.rules
nfhp_check "zeroes the renamed jump" \
	expect "jump" "$(counters FORWARD 1)" "0 0"
nfhp_check "which jumps to the new name" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 grep -q -- '^-A FORWARD -p icmp -j renamed\$'"

exit $nfhp_rc
