#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The states under load on both CPUs (issue 45), all at once for
# NFHP_STSTRESS_SECONDS (default 20):
#
#   flows     two senders in the client, one pinned to each CPU, send UDP
#             datagrams to NFHP_STSTRESS_PORTS (default 2000) ports each,
#             round and round: new flows through the router's
#             keep-state rule on both CPUs at once, and the same flows
#             again once their states died;
#   expiry    udp_lifetime 1: the tick frees states all along;
#   growth    the table starts at 256 buckets and grows when its states
#             outnumber them;
#   deletion  the keep-state rule of the second sender's flows is
#             deleted and put back every second, each commit flushing
#             its states while packets make more; the first sender's
#             rule stays, so its states live until the tick expires
#             them, however the deletions fall;
#   listing   /proc/net/nf-hipac/states read in a loop.
#
# Then: states were made on both senders' flows, expired and flushed, the
# senders ran to the end, and with the traffic stopped every state
# expires.  The harness fails the test on any kernel warning;
# under the debug kernel that is KASAN, lockdep and kmemleak.
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3 taskset
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

SECONDS_RUN=${NFHP_STSTRESS_SECONDS:-20}
PORTS=${NFHP_STSTRESS_PORTS:-2000}
tmp=$(mktemp -d /tmp/nfhp-ststress.XXXXXX)
trap 'touch $tmp/stop; nfhp_cleanup; rm -rf $tmp' EXIT

r() { nfhp_in $ns_router "$@"; }
file=/proc/net/nf-hipac/states
field() { in_ns $ns_router awk -v n="$1:" '$1 == n { print $2 }' $file; }
# The first sender's flows (source port 40000) meet a rule that stays;
# the second's, from 40001, the rule deleted and put back.
stay_rule="-i $ROUTER_CLIENT_IF -p udp --sport 40000 -m keep-state -j ACCEPT"
keep_rule="-i $ROUTER_CLIENT_IF -p udp -m keep-state -j ACCEPT"

nfhp_check "-P FORWARD DROP, two keep-state rules for the client's udp" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -P FORWARD DROP &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD $stay_rule &&
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD $keep_rule"
nfhp_check "udp_lifetime 1" in_ns $ns_router sh -c "echo 'udp_lifetime 1' > $file"
# The server drops them quietly: no port unreachable back.
nfhp_check "server: -A INPUT -p udp -j DROP" \
	nfhp_in $ns_server -A INPUT -p udp -j DROP
buckets0=$(field buckets)

# Sender: datagrams from source port SPORT to PORTS destination ports
# from 10000 on, in turn, until the stop file; writes how many it sent
# after each round.  A round starts 2 s after the last at the soonest,
# so that each flow stays quiet for longer than udp_lifetime: its state
# dies and the tick may free it before the flow comes back.
sender='
import os, socket, sys, time
dst, sport, n, stop, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", sport))
sent = 0
while not os.path.exists(stop):
    start = time.monotonic()
    for p in range(10000, 10000 + n):
        s.sendto(b"x", (dst, p))
    sent += n
    time.sleep(max(0.0, 2.0 - (time.monotonic() - start)))
    with open(out + ".new", "w") as f:
        f.write("%d\n" % sent)
    os.rename(out + ".new", out)
'
for cpu in 0 1; do
	in_ns $ns_client taskset -c $cpu python3 -c "$sender" $SERVER_IP \
		$((40000 + cpu)) $PORTS $tmp/stop $tmp/sent$cpu \
		2> $tmp/err$cpu &
done

# Delete and put back the second rule every second; read /proc all along.
(
	n=0
	while [ ! -e $tmp/stop ]; do
		r -D FORWARD 2 && r -A FORWARD $keep_rule && n=$((n + 1))
		sleep 1
	done
	echo $n > $tmp/swaps
) &
(
	max=0
	while [ ! -e $tmp/stop ]; do
		s=$(field states)
		[ "${s:-0}" -gt $max ] && max=$s
		sleep 0.2
	done
	echo $max > $tmp/max
) &
sleep "$SECONDS_RUN"
# A slow guest (the debug kernel on a busy host) may not have sent each
# port once yet, and the rule is away while it is put back: wait for two
# rounds of each sender, so that the states made are to be counted on.
for i in $(seq 240); do
	[ "$(cat $tmp/sent0 2>/dev/null)" -ge $((2 * PORTS)) ] 2>/dev/null &&
	[ "$(cat $tmp/sent1 2>/dev/null)" -ge $((2 * PORTS)) ] 2>/dev/null &&
		break
	sleep 1
done
created_run=$(field created)
touch $tmp/stop
wait
sent0=$(cat $tmp/sent0 2>/dev/null)
sent1=$(cat $tmp/sent1 2>/dev/null)
swaps=$(cat $tmp/swaps 2>/dev/null)
max=$(cat $tmp/max 2>/dev/null)
nfhp_log "  sent ${sent0:-?} and ${sent1:-?}; ${swaps:-?} deletions; up to ${max:-?} states; buckets $buckets0 -> $(field buckets); created $(field created), expired $(field expired)"

nfhp_check "both senders ran to the end" \
	[ "${sent0:-0}" -gt 0 -a "${sent1:-0}" -gt 0 ] ||
	tail -n 3 $tmp/err0 $tmp/err1
nfhp_check "the rule was deleted and put back under traffic (${swaps:-0})" \
	[ "${swaps:-0}" -ge 2 ]
nfhp_check "states were made: more than the senders' ports" \
	[ "${created_run:-0}" -gt "$PORTS" ]
nfhp_check "the tick expired states" [ "$(field expired)" -gt 0 ]
if [ "${max:-0}" -gt $((2 * buckets0)) ]; then
	nfhp_check "the table grew past $buckets0 buckets" \
		[ "$(field buckets)" -gt "$buckets0" ]
else
	nfhp_log "  at most $max states at once: no growth to check"
fi
# The tick walks 1,024 buckets a second: a grown table takes a few.
for i in $(seq "$(nfhp_scaled 20)"); do
	[ "$(field states)" = 0 ] && break
	sleep 1
done
nfhp_check "after the traffic, every state expired (${i} s)" \
	[ "$(field states)" = 0 ]
nfhp_check "-F FORWARD" r -F FORWARD
nfhp_check "udp_lifetime 10 again" in_ns $ns_router sh -c "echo 'udp_lifetime 10' > $file"

exit $nfhp_rc
