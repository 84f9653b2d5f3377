#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nf-hipac-restore replaces the rule set atomically, even with 10000 rules
# and traffic flowing.  The new rule set sets the FORWARD policy to DROP on
# its first line and accepts the marker flow (udp/7000) only on its last, so
# any packet that saw a partly loaded rule set would be dropped.  A second
# flow (udp/7001) passes under the old rule set and is dropped by the new
# one, which shows the switch happened while the flows ran.
#
# Under TCG a rule costs about 20 ms to load, so 10000 take minutes;
# NFHP_RESTORE_RULES=N runs a smaller version.  Then bench/seed.py's N
# rules take single-rule updates, and its NFHP_RESTORE_BIG (default
# 100000; 0 skips) rules must load.
#
# nfhp-timeout: 1500

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

NRULES=${NFHP_RESTORE_RULES:-10000}
NBIG=${NFHP_RESTORE_BIG:-100000}
tmp=$(mktemp -d /tmp/nfhp-restore.XXXXXX)
trap 'touch $tmp/stop-send $tmp/stop; nfhp_cleanup; rm -rf $tmp' EXIT

r() { nfhp_in $ns_router "$@"; }
# The marker rule's packet counter.
marker_packets()
{
	r -L FORWARD -n -v -x | awk '/udp dpt:7000$/ { print $1 }'
}
commit_ms()
{
	ip netns exec $ns_router awk '/^last commit took:/ {
		printf "%.1f", $4 / 1e6 }' /proc/net/nf-hipac/info
}

# The new rule set: filler rules that match nothing of the test's traffic,
# then the marker's ACCEPT as the very last rule.
{
	echo "*filter"
	echo ":INPUT ACCEPT [0:0]"
	echo ":FORWARD DROP [0:0]"
	echo ":OUTPUT ACCEPT [0:0]"
	# Replies for the udp_ok check at the end, not part of the marker.
	echo "-A FORWARD -p udp --sport 7000 -j ACCEPT"
	awk -v n="$NRULES" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "-A FORWARD -s 172.%d.%d.0/24 -p tcp --dport %d -j ACCEPT\n",
				16 + int(i / 65536) % 16, int(i / 256) % 256,
				1 + i % 60000
	}'
	echo "-A FORWARD -p udp --dport 7000 -j ACCEPT"
	echo "COMMIT"
} >$tmp/new.rules

# Receiver: count datagrams per port until the stop file appears.
in_ns $ns_server python3 -c '
import select, socket, sys, os
stop, out = sys.argv[1], sys.argv[2]
socks = {}
for port in (7000, 7001):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind(("0.0.0.0", port))
    socks[s] = port
got = {7000: 0, 7001: 0}
open(out + ".ready", "w").close()
while not os.path.exists(stop):
    r, _, _ = select.select(list(socks), [], [], 0.1)
    for s in r:
        s.recv(64)
        got[socks[s]] += 1
for s in socks:
    s.setblocking(False)
    try:
        while True:
            s.recv(64)
            got[socks[s]] += 1
    except BlockingIOError:
        pass
open(out, "w").write("%d %d\n" % (got[7000], got[7001]))
' $tmp/stop $tmp/recv &
recv_pid=$!

# Sender: one datagram to each port every 10 ms until the stop file
# appears; the counts go to a file.
for i in $(seq 50); do [ -e $tmp/recv.ready ] && break; sleep 0.1; done
in_ns $ns_client python3 -c '
import socket, sys, os, time
dst, stop, out = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sent = 0
while not os.path.exists(stop):
    s.sendto(b"marker", (dst, 7000))
    s.sendto(b"other", (dst, 7001))
    sent += 1
    time.sleep(0.01)
open(out, "w").write("%d\n" % sent)
' $SERVER_IP $tmp/stop-send $tmp/sent &
send_pid=$!

# The old rule set: something non-empty, so the hooks are in place.
nfhp_check "old rule set" r -A FORWARD -p tcp --dport 1 -j DROP
sleep 1
start=$(date +%s.%N)
nfhp_check "nf-hipac-restore of $NRULES rules" \
	nfhp_restore_in $ns_router <$tmp/new.rules
nfhp_log "restore took $(awk -v s="$start" -v e="$(date +%s.%N)" \
	'BEGIN { printf "%.2f", e - s }')s, its commit $(commit_ms) ms"
sleep 1
# Stop the sender first and let its last datagrams arrive.
touch $tmp/stop-send
wait $send_pid
sleep 0.5
touch $tmp/stop
wait $recv_pid

sent=$(cat $tmp/sent 2>/dev/null)
read -r got_marker got_other <$tmp/recv
nfhp_log "sent $sent per flow; received marker $got_marker, other $got_other"
nfhp_check "every marker datagram got through" [ "$got_marker" = "$sent" ]
nfhp_check "the other flow passed before the switch" [ "$got_other" -gt 0 ]
nfhp_check "the other flow was cut by the switch" [ "$got_other" -lt "$sent" ]
nfhp_check "the other flow stays blocked" udp_fail 7001
nfhp_check "the marker flow still passes" udp_ok 7000
nfhp_check "all rules loaded" \
	[ "$(r -S FORWARD | grep -c '^-A')" = $((NRULES + 2)) ]
nfhp_check "rule count in /proc" \
	bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/info |
		 grep -q 'total number of rules: *$((NRULES + 2))\$'"

# A restore that fails half way changes nothing, counters included.
{
	echo "*filter"
	echo ":FORWARD ACCEPT [0:0]"
	echo "-A FORWARD -p udp --dport 7001 -j ACCEPT"
	echo "-Z FORWARD"
	echo "-A FORWARD -j nosuchchain"
	echo "COMMIT"
} >$tmp/bad.rules
# The FORWARD policy's counters: "packets bytes" of its -L header.
policy_counters()
{
	r -L FORWARD -n -v -x | sed -n '1s/.*policy [A-Z]* \([0-9]*\) packets, \([0-9]*\) bytes.*/\1 \2/p'
}
policy_before=$(policy_counters)
marker_before=$(marker_packets)
nfhp_check "a bad restore fails" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore' \
		 <$tmp/bad.rules 2>/dev/null"
nfhp_check "and leaves the old rule set" \
	[ "$(r -S FORWARD | grep -c '^-A')" = $((NRULES + 2)) ]
nfhp_check "the same with --noflush fails" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore' \
		 --noflush <$tmp/bad.rules 2>/dev/null"
nfhp_check "and leaves the old rule set" \
	[ "$(r -S FORWARD | grep -c '^-A')" = $((NRULES + 2)) ]
nfhp_check "and the policy's counters ($policy_before)" \
	[ "$(policy_counters)" = "$policy_before" ]
nfhp_check "and the rules' counters, though it had -Z ($marker_before)" \
	[ "$(marker_packets)" = "$marker_before" ]
nfhp_check "udp/7001 still blocked" udp_fail 7001

# Rules a restore adds and then deletes or replaces itself: each dies in
# the transaction that made it (a use after free before 4232ee5, which
# KASAN sees on the debug kernel).
{
	echo "*filter"
	echo ":hop - [0:0]"
	echo "-A hop -p udp --dport 7003 -j ACCEPT"
	echo "-A FORWARD -p udp --dport 7003 -j hop"
	echo "-D FORWARD -p udp --dport 7003 -j hop"
	echo "-A FORWARD -p udp --dport 7004 -j hop"
	echo "-R FORWARD $((NRULES + 3)) -p udp --dport 7004 -j ACCEPT"
	echo "COMMIT"
} >$tmp/own.rules
nfhp_check "a restore deletes and replaces rules of its own" \
	nfhp_restore_in $ns_router --noflush $tmp/own.rules
nfhp_check "what is left: the replacing rule, last" \
	[ "$(r -S FORWARD | tail -n 1)" = \
	  "-A FORWARD -p udp -m udp --dport 7004 -j ACCEPT" ]
nfhp_check "and one rule more than before" \
	[ "$(r -S FORWARD | grep -c '^-A')" = $((NRULES + 3)) ]
{
	echo "*filter"
	echo "-D FORWARD -p udp --dport 7004 -j ACCEPT"
	echo "-F hop"
	echo "-X hop"
	echo "COMMIT"
} >$tmp/own-undo.rules
nfhp_check "and it goes again" \
	nfhp_restore_in $ns_router --noflush $tmp/own-undo.rules
nfhp_check "FORWARD as before" \
	[ "$(r -S FORWARD | grep -c '^-A')" = $((NRULES + 2)) ]
nfhp_check "and no chain hop" bash -c "! ip netns exec $ns_router \
	'$NFHP_BIN/nf-hipac' -S hop 2>/dev/null"

# The same rule set sent again, as tools that sync a whole table do, with
# one rule changed: the commit takes the unchanged rules back and updates
# the one (kernel/adopt.c, "Adoption"), where it would flatten and build
# all of them.  Counters restart, as iptables-restore's do.
flattened()
{
	ip netns exec $ns_router awk '/^last commit flattened:/ { print $4 }' \
		/proc/net/nf-hipac/info
}
sed 's/ 172\.16\.0\.0\/24 -p tcp --dport 1 / 172.31.0.0\/24 -p tcp --dport 1 /' \
	$tmp/new.rules >$tmp/again.rules
nfhp_check "the marker rule counted the datagrams" \
	[ "$(marker_packets)" -gt 0 ]
start=$(date +%s.%N)
nfhp_check "nf-hipac-restore of the rule set with one rule changed" \
	nfhp_restore_in $ns_router <$tmp/again.rules
nfhp_log "restore again took $(awk -v s="$start" -v e="$(date +%s.%N)" \
	'BEGIN { printf "%.2f", e - s }')s, its commit $(commit_ms) ms," \
	"flattened $(flattened) entries"
nfhp_check "its commit flattened the changed rule's entries only" \
	[ "$(flattened)" -le 2 ]
nfhp_check "the changed rule is in place" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S FORWARD |
		 sed -n 3p | grep -q '^-A FORWARD -s 172.31.0.0/24 '"
nfhp_check "the marker rule counts from zero again" \
	[ "$(marker_packets)" = 0 ]
nfhp_check "the marker flow passes" udp_ok 7000
nfhp_check "and is counted" [ "$(marker_packets)" -gt 0 ]
nfhp_check "nf-hipac-restore of the same rule set again" \
	nfhp_restore_in $ns_router <$tmp/again.rules
nfhp_check "its commit flattened nothing" [ "$(flattened)" = 0 ]
nfhp_check "all rules still there" \
	[ "$(r -S FORWARD | grep -c '^-A')" = $((NRULES + 2)) ]

# Single rules into a tree whose root is one wide node: bench/seed.py's
# NRULES rules have a source root of thousands of intervals, one node up
# to 16,383 (past that it is cut into pieces), which an update copies
# with the children it keeps borrowed from the old root (tree.c, struct
# nfhp_lend).  A narrow source's rule goes into that tree; the rules
# around it, and the old root's release a grace period later, must hold.
"$NFHP_TOP/bench/seed.py" "$NRULES" >$tmp/seed.rules
nfhp_check "nf-hipac-restore of bench/seed.py's $NRULES rules" \
	nfhp_restore_in $ns_router <$tmp/seed.rules
nfhp_check "a wide root's copy: -I FORWARD 1 -s client udp/7001 DROP" \
	r -I FORWARD 1 -s $CLIENT_IP/32 -p udp --dport 7001 -j DROP
nfhp_check "udp/7001 from the client is dropped" udp_fail 7001
nfhp_check "udp/7000 passes, the seed's last rules" udp_ok 7000
for pos in 2 $((NRULES / 2)) $((NRULES - 1)); do
	rule=$(sed -n "$((pos + 5))p" $tmp/seed.rules | sed 's/^-A FORWARD //')
	nfhp_check "a copy of seed rule $pos inserted at $pos" \
		eval "r -I FORWARD $pos $rule"
	nfhp_check "and deleted again" r -D FORWARD $pos
done
nfhp_check "-D FORWARD 1: the DROP goes" r -D FORWARD 1
nfhp_check "udp/7001 passes again" udp_ok 7001
nfhp_check "the seed's rules are all there" \
	[ "$(r -S FORWARD | grep -c '^-A')" = $((NRULES + 2)) ]

# A big rule set: the tree build's scratch arrays grow with the rules
# (200,000 entries here) and once needed more than kmalloc gives.
# Its FORWARD tree is built by two builders (tree.c, "Two builders").
shared_splits()
{
	ip netns exec $ns_router awk '/^splits built by two CPUs:/ { print $NF }' \
		/proc/net/nf-hipac/info
}
if [ "$NBIG" -gt 0 ]; then
	"$NFHP_TOP/bench/seed.py" "$NBIG" >$tmp/big.rules
	shared=$(shared_splits)
	nfhp_check "nf-hipac-restore of $NBIG rules" \
		bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore' \
			 <$tmp/big.rules"
	nfhp_check "rule count in /proc after it" \
		bash -c "ip netns exec $ns_router cat /proc/net/nf-hipac/info |
			 grep -q 'total number of rules: *$((NBIG + 2))\$'"
	if [ "$NBIG" -ge 10000 ]; then
		nfhp_check "its tree was built by two builders" \
			[ "$(shared_splits)" -gt "$shared" ]
	fi
	nfhp_check "the seed rules pass the topology's traffic" udp_ok 7000
fi

exit $nfhp_rc
