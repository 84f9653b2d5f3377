#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The states' netlink commands through "nf-hipac state" (issue 45): states
# added by hand with restore are listed with their rule by chain and
# position, found with -G either way round, pass real packets, and are
# refused on a rule that keeps no state, on no rule at all and twice for
# one flow; -D deletes a flow's state given either way round and says
# "No such state" for a flow without one; save and restore give the same
# listing; -F empties the family's table, or takes one rule's states.  -E prints [NEW] and [DESTROY] for states made by hand
# and by packets, deleted, flushed and expired.  A namespace lists,
# changes and hears only its own states; IPv6 states are listed apart.
# 100,000 states restored are listed once each.
#
# nfhp-timeout: 600

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3 setpriv
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

st() { in_ns $ns_router "$NFHP_BIN/nf-hipac" state "$@"; }
st6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6" state "$@"; }
file=/proc/net/nf-hipac/states
tmp=$(mktemp -d /tmp/states_nl.XXXXXX)
trap 'nfhp_cleanup; rm -rf "$tmp"' EXIT

# field NAME [NS] - what /proc shows for NAME in NS (default the router).
field() { in_ns "${2:-$ns_router}" awk -v n="$1:" '$1 == n { print $2 }' $file; }

# listed PATTERN [FAMILY] - some line of the router's listing (IPv4, or
# IPv6 with FAMILY 6) matches PATTERN, an extended regular expression;
# else the listing goes to the log.
listed()
{
	if [ "${2:-4}" = 6 ]; then st6 -L; else st -L; fi > "$tmp/list" 2>/dev/null
	grep -qE -- "$1" "$tmp/list" && return 0
	nfhp_log "no line matches; the listing:"
	sed 's/^/    /' "$tmp/list"
	return 1
}

# fails_with CODE TEXT CMD... - CMD exits with CODE and says TEXT on stderr.
fails_with()
{
	local code=$1 text=$2 rc

	shift 2
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc -ne "$code" ] || ! grep -qF -- "$text" "$tmp/err"; then
		nfhp_log "exit $rc, stderr: $(cat "$tmp/err")"
		return 1
	fi
}

# back CPORT SPORT - a datagram from the server's SPORT to the client's
# CPORT and its answer, which only a state lets through.
back() { NFHP_SPORT=$2 nfhp_conn udp "$1" $ns_server $ns_client $CLIENT_IP; }
back_fail() { back "$@"; [ $? -eq 1 ]; }

# A packet's UDP state lives as long as the test needs it.
nfhp_check "udp_lifetime 3600" \
	in_ns $ns_router sh -c "echo 'udp_lifetime 3600' > $file"
cif=$ROUTER_CLIENT_IF
nfhp_check "rules: keep-state udp (1), tcp (2), icmp (3), a plain rule (4)" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore' <<EOF
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -i $cif -p udp -m keep-state -j ACCEPT
-A FORWARD -i $cif -p tcp -m keep-state -j ACCEPT
-A FORWARD -i $cif -p icmp -m keep-state -j ACCEPT
-A FORWARD -p tcp --dport 22 -j ACCEPT
COMMIT
EOF"

nfhp_check "an empty table lists nothing, and says so" \
	bash -c "[ -z \"\$(ip netns exec $ns_router '$NFHP_BIN/nf-hipac' state -L 2>$tmp/err)\" ] &&
		 grep -q ' 0 flow entries have been shown' $tmp/err"

# The monitor, from the start: every event of what follows.
ip netns exec $ns_router "$NFHP_BIN/nf-hipac" state -E > "$tmp/events" 2>&1 &
mon=$!
ip netns exec $ns_client "$NFHP_BIN/nf-hipac" state -E \
	> "$tmp/events_client" 2>&1 &
mon_client=$!
sleep 1

# A packet's state: listed with its rule, as the client sent it.
from() { local NFHP_SPORT=$1; shift; "$@"; }
nfhp_check "udp/5353 from the client's 40123 makes a state" \
	from 40123 udp_ok 5353
nfhp_check "-L: udp 5353 listed with rule=FORWARD:1 ACCEPT" \
	listed "^udp +17 [0-9]+ src=$CLIENT_IP dst=$SERVER_IP sport=40123 dport=5353 packets=1 bytes=[0-9]+ \[reply\] packets=1 bytes=[0-9]+ rule=FORWARD:1 ACCEPT$"

# States by hand, as a standby restores them.
cat > "$tmp/hand" <<EOF
# three states, one per keep-state rule
-A -p tcp -s 10.9.0.1 -d 10.9.0.2 --sport 1000 --dport 80 --rule FORWARD:2 --timeout 3000 --tcp-flags SYN,ACK SYN,ACK --counters 3 180 2 120

-A -p udp -s 10.9.0.1 -d 10.9.0.3 --sport 53 --dport 53 --rule FORWARD:1 --timeout 1000
-A -p icmp -s 10.9.0.1 -d 10.9.0.4 --id 7 --rule FORWARD:3 --timeout 600
EOF
nfhp_check "restore: three states by hand" st restore "$tmp/hand"
nfhp_check "-L: the tcp state, established, its counters and rule" \
	listed "^tcp +6 (29[0-9][0-9]|3000) ESTABLISHED src=10.9.0.1 dst=10.9.0.2 sport=1000 dport=80 packets=3 bytes=180 \[reply\] packets=2 bytes=120 rule=FORWARD:2 ACCEPT$"
nfhp_check "-L: the udp state" \
	listed "^udp +17 (9[0-9][0-9]|1000) src=10.9.0.1 dst=10.9.0.3 sport=53 dport=53 packets=0 bytes=0 \[reply\] packets=0 bytes=0 rule=FORWARD:1 ACCEPT$"
nfhp_check "-L: the icmp state, its identifier" \
	listed "^icmp +1 (5[0-9][0-9]|600) src=10.9.0.1 dst=10.9.0.4 id=7 .* rule=FORWARD:3 ACCEPT$"
nfhp_check "/proc counts 4 states" [ "$(field states)" = 4 ]
nfhp_check "-G: the tcp state, asked for the other way round" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' state -G -p tcp \
		-s 10.9.0.2 -d 10.9.0.1 --sport 80 --dport 1000 |
		grep -qE '^tcp +6 [0-9]+ ESTABLISHED src=10.9.0.1 dst=10.9.0.2 .* rule=FORWARD:2 ACCEPT$'"
nfhp_check "-G: a flow without a state: No such state (exit 1)" \
	fails_with 1 "No such state: tcp src=10.9.0.2 dst=10.9.0.1 sport=81 dport=1000" \
	st -G -p tcp -s 10.9.0.2 -d 10.9.0.1 --sport 81 --dport 1000

nfhp_check "refused: rule 4 keeps no state (exit 1)" \
	fails_with 1 "the rule is no keep-state rule" \
	st -A -p udp -s 10.9.0.9 -d 10.9.0.8 --rule FORWARD:4 --timeout 5
nfhp_check "refused: no rule 9 (exit 1)" \
	fails_with 1 "no rule at that chain and position" \
	st -A -p udp -s 10.9.0.9 -d 10.9.0.8 --rule FORWARD:9 --timeout 5
nfhp_check "refused: a flow with a state, given the other way (exit 1)" \
	fails_with 1 "the flow has a state already" \
	st -A -p tcp -s 10.9.0.2 -d 10.9.0.1 --sport 80 --dport 1000 \
		--rule FORWARD:2 --timeout 5
nfhp_check "refused: restore names its failing line (exit 1)" \
	fails_with 1 "line 2 failed" bash -c "printf '%s\n' '# x' \
		'-A -p udp -s 10.9.0.1 -d 10.9.0.3 --sport 53 --dport 53 --rule FORWARD:1 --timeout 9' |
		ip netns exec $ns_router '$NFHP_BIN/nf-hipac' state restore"
nfhp_check "refused: a state without --timeout (exit 2)" \
	fails_with 2 "a state needs" \
	st -A -p udp -s 10.9.0.9 -d 10.9.0.8 --rule FORWARD:1

# A state by hand lets real packets through: the server's flow to the
# client, which no rule allows.
nfhp_check "before: server 7000 -> client 7001 dropped" back_fail 7001 7000
nfhp_check "-A the server's flow on rule 1" \
	st -A -p udp -s $SERVER_IP -d $CLIENT_IP --sport 7000 --dport 7001 \
		--rule FORWARD:1 --timeout 60
nfhp_check "after: server 7000 -> client 7001 and back pass" back 7001 7000
nfhp_check "-L: it counted the datagram and its answer" \
	listed "src=$SERVER_IP dst=$CLIENT_IP sport=7000 dport=7001 packets=1 bytes=[0-9]+ \[reply\] packets=1 "
nfhp_check "-D it, given the client's way round" \
	st -D -p udp -s $CLIENT_IP -d $SERVER_IP --sport 7001 --dport 7000
nfhp_check "deleted: server 7000 -> client 7001 dropped again" \
	back_fail 7001 7000
nfhp_check "-D again: No such state (exit 1)" \
	fails_with 1 "No such state: udp src=$CLIENT_IP dst=$SERVER_IP sport=7001 dport=7000" \
	st -D -p udp -s $CLIENT_IP -d $SERVER_IP --sport 7001 --dport 7000

# A rule's states flushed, the others kept.
nfhp_check "-A a second state on rule 3" \
	st -A -p icmp -s 10.9.0.1 -d 10.9.0.6 --id 8 --rule FORWARD:3 \
		--timeout 600
nfhp_check "-F --rule FORWARD:3: its two states go" \
	bash -c "n=\$(ip netns exec $ns_router awk '\$1 == \"states:\" { print \$2 }' $file) &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' state -F --rule FORWARD:3 &&
		 [ \"\$(ip netns exec $ns_router awk '\$1 == \"states:\" { print \$2 }' $file)\" = \$((n - 2)) ]"
nfhp_check "-L: no icmp state left, the tcp one still there" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac' state -L 2>/dev/null | grep -q '^icmp' &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' state -L 2>/dev/null | grep -q '^tcp'"
nfhp_check "-F --rule FORWARD:4: no keep-state rule (exit 1)" \
	fails_with 1 "the rule is no keep-state rule" st -F --rule FORWARD:4

# save and restore: the same states, the same listing but the seconds.
strip() { sed -E 's/^([a-z]+ +[0-9]+) [0-9]+ /\1 T /' | sort; }
st -L 2>/dev/null | strip > "$tmp/before"
nfhp_check "save" bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' state save > $tmp/saved"
nfhp_check "save: a line per state" \
	[ "$(grep -c '^-A ' "$tmp/saved")" = "$(wc -l < "$tmp/before")" ]
nfhp_check "-F" st -F
nfhp_check "-F: none left" [ "$(field states)" = 0 ]
nfhp_check "restore the save" st restore "$tmp/saved"
st -L 2>/dev/null | strip > "$tmp/after"
nfhp_check "the same listing after save, flush and restore" \
	cmp -s "$tmp/before" "$tmp/after"

# Events name the rule where it stands after the last commit.
nfhp_check "-I a plain rule first: the udp rule is FORWARD:2 now" \
	in_ns $ns_router "$NFHP_BIN/nf-hipac" -I FORWARD 1 -p tcp --dport 23 -j ACCEPT
nfhp_check "-A a state on FORWARD:2" \
	st -A -p udp -s 10.9.0.1 -d 10.9.0.7 --sport 6 --dport 6 \
		--rule FORWARD:2 --timeout 600
nfhp_check "-D FORWARD 1: the udp rule is FORWARD:1 again" \
	in_ns $ns_router "$NFHP_BIN/nf-hipac" -D FORWARD 1

# Expiry is an event too: a state of one second.
nfhp_check "-A a state of 1 s" \
	st -A -p udp -s 10.9.0.1 -d 10.9.0.5 --sport 5 --dport 5 \
		--rule FORWARD:1 --timeout 1
sleep 4
nfhp_check "expired: not listed" bash -c "! ip netns exec $ns_router \
	'$NFHP_BIN/nf-hipac' state -L 2>/dev/null | grep -q 'dst=10.9.0.5 '"
sleep 1
kill $mon $mon_client
wait $mon $mon_client 2>/dev/null
nfhp_check "-E: [NEW] of the packet's state, with its rule" \
	grep -qE "^ +\[NEW\] udp +17 [0-9]+ src=$CLIENT_IP dst=$SERVER_IP sport=40123 dport=5353 .* rule=FORWARD:1 ACCEPT$" "$tmp/events"
nfhp_check "-E: [NEW] of a state by hand, with its rule" \
	grep -qE "^ +\[NEW\] tcp +6 (29[0-9][0-9]|3000) ESTABLISHED src=10.9.0.1 dst=10.9.0.2 sport=1000 dport=80 packets=3 bytes=180 \[reply\] packets=2 bytes=120 rule=FORWARD:2 ACCEPT$" "$tmp/events"
nfhp_check "-E: [NEW] names the rule where the last commit put it" \
	grep -qE "^ +\[NEW\] udp +17 [0-9]+ src=10.9.0.1 dst=10.9.0.7 sport=6 dport=6 .* rule=FORWARD:2 ACCEPT$" "$tmp/events"
nfhp_check "-E: [DESTROY] of the deleted state" \
	grep -qE "^\[DESTROY\] udp +17 [0-9]+ src=$SERVER_IP dst=$CLIENT_IP sport=7000 dport=7001 packets=1 " "$tmp/events"
nfhp_check "-E: [DESTROY] of each state deleted and flushed (7 at least)" \
	[ "$(grep -c '^\[DESTROY\]' "$tmp/events")" -ge 7 ]
nfhp_check "-E: [DESTROY] of the expired state, 0 s left" \
	grep -qE "^\[DESTROY\] udp +17 0 src=10.9.0.1 dst=10.9.0.5 " "$tmp/events"
nfhp_check "-E: no event of the refused states" \
	bash -c "! grep -q '10.9.0.9' $tmp/events"
nfhp_check "-E in the client's namespace heard nothing of the router's" \
	[ ! -s "$tmp/events_client" ]

# Namespaces: the client's has no states, no rules to add them to.
nfhp_check "the client's namespace lists no state" \
	bash -c "[ -z \"\$(ip netns exec $ns_client '$NFHP_BIN/nf-hipac' state -L 2>/dev/null)\" ]"
nfhp_check "nor can it add one: no rule FORWARD:1 there (exit 1)" \
	fails_with 1 "no rule at that chain and position" \
	in_ns $ns_client "$NFHP_BIN/nf-hipac" state -A -p udp -s 10.9.0.1 \
		-d 10.9.0.3 --sport 53 --dport 53 --rule FORWARD:1 --timeout 9
nfhp_check "nor delete the router's (exit 1)" \
	fails_with 1 "No such state" \
	in_ns $ns_client "$NFHP_BIN/nf-hipac" state -D -p udp -s 10.9.0.1 \
		-d 10.9.0.3 --sport 53 --dport 53
nfhp_check "-F in the client's namespace leaves the router's" \
	bash -c "ip netns exec $ns_client '$NFHP_BIN/nf-hipac' state -F &&
		 [ \"\$(ip netns exec $ns_router awk '\$1 == \"states:\" { print \$2 }' $file)\" -gt 0 ]"

# Permissions: listing as iptables -L, changes and events CAP_NET_ADMIN.
nobody() { in_ns $ns_router setpriv --reuid=65534 --regid=65534 \
		   --clear-groups "$@"; }
nfhp_check "nobody: -L refused (exit 4)" \
	fails_with 4 "Permission denied" nobody "$NFHP_BIN/nf-hipac" state -L
nfhp_check "nobody: -F refused (exit 4)" \
	fails_with 4 "Permission denied" nobody "$NFHP_BIN/nf-hipac" state -F
nfhp_check "nobody: -E refused (exit 4)" \
	fails_with 4 "Permission denied" nobody "$NFHP_BIN/nf-hipac" state -E

# IPv6: a table for both families, listed and flushed apart.
nfhp_check "IPv6: a keep-state rule" \
	in_ns $ns_router "$NFHP_BIN/nf-hipac6" -A FORWARD -i $cif -m keep-state -j ACCEPT
nfhp_check "IPv6: -A a state by hand" \
	st6 -A -p tcp -s 2001:db8:9::1 -d 2001:db8:9::2 --sport 1 --dport 2 \
		--rule FORWARD:1 --timeout 100 --tcp-flags SYN NONE
nfhp_check "IPv6: -L lists it, SYN_SENT" \
	listed "^tcp +6 (9[0-9]|100) SYN_SENT src=2001:db8:9::1 dst=2001:db8:9::2 sport=1 dport=2 .* rule=FORWARD:1 ACCEPT$" 6
nfhp_check "IPv4's -L does not" bash -c "! ip netns exec $ns_router \
	'$NFHP_BIN/nf-hipac' state -L 2>/dev/null | grep -q 2001:db8"
v4=$(field states)
nfhp_check "IPv6: -F takes the IPv6 state only" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' state -F &&
		 [ \"\$(ip netns exec $ns_router awk '\$1 == \"states:\" { print \$2 }' $file)\" = $((v4 - 1)) ]"

# Many states: 100,000 restored, listed once each.
nfhp_check "max_states 120000" \
	in_ns $ns_router sh -c "echo 'max_states 120000' > $file"
nfhp_check "-F" st -F
awk 'BEGIN {
	for (i = 0; i < 100000; i++)
		printf "-A -p udp -s 10.%d.%d.%d -d 10.200.0.1 --sport %d --dport 53 --rule FORWARD:1 --timeout 600\n",
			int(i / 65536), int(i / 256) % 256, i % 256, 1024 + i % 1000
}' > "$tmp/many"
start=$SECONDS
nfhp_check "restore 100000 states" st restore "$tmp/many"
nfhp_log "  restored in $((SECONDS - start)) s"
nfhp_check "/proc: 100000 states" [ "$(field states)" = 100000 ]
# A growth under the listing may list states twice: wait until the
# table has outgrown its states and moved the last of its old buckets.
grown() {
	in_ns $ns_router awk '$1 == "buckets:" { b = $2 }
		$1 == "growing:" { g = $2 }
		END { exit !(b >= 100000 && g == 0) }' $file
}
for _ in $(seq "$(nfhp_scaled 60)"); do
	grown && break
	sleep 1
done
nfhp_check "the table grew to hold them, its growth over" grown
start=$SECONDS
st -L > "$tmp/listed" 2>/dev/null
nfhp_log "  listed in $((SECONDS - start)) s, table of $(field buckets) buckets"
nfhp_check "-L: 100000 lines" [ "$(wc -l < "$tmp/listed")" = 100000 ]
nfhp_check "-L: each state once" \
	[ -z "$(strip < "$tmp/listed" | uniq -d | head -1)" ]
nfhp_check "-F: all gone" bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' state -F &&
	[ \"\$(ip netns exec $ns_router awk '\$1 == \"states:\" { print \$2 }' $file)\" = 0 ]"

exit $nfhp_rc
