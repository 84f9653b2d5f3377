#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rule updates under traffic, all at once on the router for
# NFHP_STRESS_SECONDS (default 20; make check-debug sets 60):
#
#   traffic   iperf3 TCP and UDP flows client -> server, plus marker
#             datagrams (below), must keep flowing;
#   churn     random inserts, deletes and replaces in chain "churn"
#             (jumped to from FORWARD, its rules match none of the
#             traffic); after each one the chain must list exactly the
#             number of rules expected.  They wait for a restore's
#             transaction with -w (a new program per refused try costs
#             a second under kmemleak); the other two retry themselves;
#   restore   nf-hipac-restore --noflush of two alternating files of
#             NFHP_STRESS_RULES rules (default 10000) into chain "big";
#             after each one "big" must list exactly that many rules;
#   counters  -Z and -L -v -x in a loop: the ESTABLISHED rule's counters
#             never go down except after its own -Z, and bytes >= 20 *
#             packets.
#
# Markers: FORWARD's policy is DROP.  Both files accept udp/7000 with the
# LAST rule of "big", so a datagram classified by a half-applied "big"
# would be dropped: every one of them must arrive.  File A accepts udp/7001
# with its first rule, file B udp/7002 instead.  Each tick the sender sends
# sequence number i to 7001, then 7002, then 7000.  With atomic switches a
# tick sees A (only 7001 arrives) or B (only 7002); the tick during which a
# switch happens may see both (A -> B) or neither (B -> A), but only as a
# single tick between the two, and there cannot be more such switches than
# restores.
#
# NFHP_STRESS_TCP_RATE and NFHP_STRESS_UDP_RATE (iperf3 -b, default 4M and
# 1M) and NFHP_STRESS_TICK_MS (default 10) set the traffic: a debug kernel
# under TCG spends most of its CPU on forwarding, so check-debug.sh lowers
# them for the updaters.
#
# Each updater goes on past the duration until it has done its work at
# least once (at most 300 s more).  The operation counts and the duration
# are printed at the end.
#
# nfhp-timeout: 600

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3 iperf3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

SECONDS_RUN=${NFHP_STRESS_SECONDS:-20}
NRULES=${NFHP_STRESS_RULES:-10000}
TCP_RATE=${NFHP_STRESS_TCP_RATE:-4M}
UDP_RATE=${NFHP_STRESS_UDP_RATE:-1M}
TICK=$(awk -v ms="${NFHP_STRESS_TICK_MS:-10}" 'BEGIN { print ms / 1000 }')
tmp=$(mktemp -d /tmp/nfhp-stress.XXXXXX)
backlog=$(sysctl -n net.core.netdev_max_backlog)
trap 'echo 0 >$tmp/stop; touch $tmp/stop-send $tmp/stop-recv
      sysctl -qw net.core.netdev_max_backlog=$backlog; nfhp_cleanup
      rm -rf $tmp' EXIT
# Under TCG a busy CPU falls behind; do not let the backlog drop markers.
sysctl -qw net.core.netdev_max_backlog=10000

r() { nfhp_in $ns_router "$@"; }
hipac=$NFHP_BIN/nf-hipac

# The two files: only chain "big", restored with --noflush.
mkrules()
{
	echo "*filter"
	echo ":big - [0:0]"
	echo "-A big -p udp --dport $1 -j ACCEPT"
	echo "-A big -p tcp --dport 5201:5202 -j ACCEPT"
	echo "-A big -p udp --dport 5202 -j ACCEPT"
	awk -v n="$((NRULES - 4))" -v o="$2" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "-A big -s 172.%d.%d.0/24 -p %s --dport %d -j %s\n",
				16 + int(i / 256) % 16, (i + o) % 256,
				i % 2 ? "tcp" : "udp", 1 + (i * 13 + o) % 60000,
				i % 3 ? "ACCEPT" : "DROP"
	}'
	echo "-A big -p udp --dport 7000 -j ACCEPT"
	echo "COMMIT"
}
mkrules 7001 0 >$tmp/a.rules
mkrules 7002 1 >$tmp/b.rules

nfhp_check "router: chains and jumps" bash -c "
	set -e
	h() { ip netns exec $ns_router '$hipac' \"\$@\"; }
	h -N churn
	h -N big
	h -A FORWARD -m state --state ESTABLISHED,RELATED -j ACCEPT
	h -A FORWARD -j churn
	h -A FORWARD -j big
	h -P FORWARD DROP" || exit 1
start=$(date +%s.%N)
nfhp_check "first restore of $NRULES rules" \
	nfhp_restore_in $ns_router --noflush <$tmp/a.rules || exit 1
nfhp_log "first restore took $(awk -v s=$start -v e=$(date +%s.%N) \
	'BEGIN { printf "%.1f", e - s }')s"

# --- traffic ---------------------------------------------------------------
in_ns $ns_server iperf3 -s -p 5201 -D -1 >/dev/null 2>&1
in_ns $ns_server iperf3 -s -p 5202 -D -1 >/dev/null 2>&1

in_ns $ns_server python3 -c '
import select, socket, sys, os
stop, out = sys.argv[1], sys.argv[2]
socks = {}
for port in (7000, 7001, 7002):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind(("0.0.0.0", port))
    socks[s] = port
got = {7000: set(), 7001: set(), 7002: set()}
open(out + ".ready", "w").close()
def take(s):
    got[socks[s]].add(int(s.recv(64)))
while not os.path.exists(stop):
    r, _, _ = select.select(list(socks), [], [], 0.1)
    for s in r:
        take(s)
for s in socks:
    s.setblocking(False)
    try:
        while True:
            take(s)
    except BlockingIOError:
        pass
with open(out, "w") as f:
    for port in (7000, 7001, 7002):
        f.write("%d %s\n" % (port, " ".join(map(str, sorted(got[port])))))
' $tmp/stop-recv $tmp/recv &
recv_pid=$!
for i in $(seq 100); do [ -e $tmp/recv.ready ] && break; sleep 0.1; done

in_ns $ns_client python3 -c '
import socket, sys, os, time
dst, stop, out = sys.argv[1], sys.argv[2], sys.argv[3]
tick = float(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
i = 0
while not os.path.exists(stop):
    b = b"%d" % i
    for port in (7001, 7002, 7000):
        s.sendto(b, (dst, port))
    i += 1
    time.sleep(tick)
open(out, "w").write("%d\n" % i)
' $SERVER_IP $tmp/stop-send $tmp/sent $TICK &
send_pid=$!

in_ns $ns_client iperf3 -c $SERVER_IP -p 5201 -b $TCP_RATE -t $((SECONDS_RUN + 5)) \
	-i 1 --connect-timeout 5000 >$tmp/iperf-tcp 2>&1 &
tcp_pid=$!
in_ns $ns_client iperf3 -c $SERVER_IP -p 5202 -u -b $UDP_RATE \
	-t $((SECONDS_RUN + 5)) -i 1 >$tmp/iperf-udp 2>&1 &
udp_pid=$!

# --- the three updaters -------------------------------------------------------

# timed WHO CMD... - run CMD; say so when it takes 10 s or more (a stall
# shows up here first).
timed()
{
	local who=$1 t=$SECONDS rc

	shift
	"$@"
	rc=$?
	[ $((SECONDS - t)) -lt 10 ] ||
		echo "$who: slow: $((SECONDS - t))s for ${*:2:3}" >>$tmp/slow.log
	return $rc
}

# more DONE - go on?  Until the stop file appears, and beyond it until
# the loop has done its work at least once (DONE > 0): a starved TCG guest
# may need long for the first restore.  Never past the hard stop, the
# time in seconds that the stop file holds.
more()
{
	[ -e $tmp/stop ] || return 0
	[ "$1" = 0 ] && [ "$(date +%s)" -lt "$(cat $tmp/stop)" ]
}

# count CHAIN - the number of rules listed in CHAIN.  -L -n: -S and save
# look every protocol number up in /etc/protocols, which over the VM's 9p
# takes minutes for 10000 rules.  A single-chain listing has no empty
# line.  One program start, not three: under kmemleak each costs about a
# second.
count()
{
	local out lines

	out=$(timed list-$1 "$hipac" -L "$1" -n)
	[ -n "$out" ] || { echo 0; return; }
	mapfile -t lines <<< "$out"
	echo $((${#lines[@]} > 2 ? ${#lines[@]} - 2 : 0))
}

# busy FILE - did the failed command report another program's transaction?
busy() { grep -qiE 'resource busy|temporarily unavailable|transaction' "$1"; }

churn_loop()
{
	local n=0 ins=0 del=0 rep=0 busy_n=0 fail=0 op pos got rule
	local out=$tmp/churn.out wait="-w 60 -W 20000"

	while more $((ins + del + rep)); do
		rule="-s 172.$((16 + RANDOM % 16)).$((RANDOM % 256)).0/24 -p tcp --dport $((1 + RANDOM % 60000)) -j $([ $((RANDOM % 2)) = 0 ] && echo ACCEPT || echo DROP)"
		op=$((RANDOM % 3))
		[ $n = 0 ] && op=0
		[ $n -ge 40 ] && op=1
		pos=$((1 + RANDOM % (n + 1)))
		case $op in
		0) timed churn "$hipac" $wait -I churn $pos $rule;;
		1) timed churn "$hipac" $wait -D churn $(( (pos - 1) % n + 1 ));;
		2) timed churn "$hipac" $wait -R churn $(( (pos - 1) % n + 1 )) \
			$rule;;
		esac >$out 2>&1
		if [ $? != 0 ]; then
			if busy $out; then
				busy_n=$((busy_n + 1))
				sleep 0.05
				continue
			fi
			echo "churn: FAIL: op $op at $pos: $(cat $out)"
			fail=$((fail + 1))
			n=$(count churn)
			continue
		fi
		case $op in
		0) n=$((n + 1)); ins=$((ins + 1));;
		1) n=$((n - 1)); del=$((del + 1));;
		2) rep=$((rep + 1));;
		esac
		got=$(count churn)
		if [ "$got" != $n ]; then
			echo "churn: FAIL: $got rules listed, $n expected"
			fail=$((fail + 1))
			n=$got
		fi
	done
	echo "$ins $del $rep $busy_n $fail" >$tmp/churn.counts
}

restore_loop()
{
	local k=0 busy_n=0 fail=0 got f out=$tmp/restore.out

	while more $k; do
		f=$tmp/b.rules
		[ $((k % 2)) = 1 ] && f=$tmp/a.rules
		if ! timed restore "$NFHP_BIN/nf-hipac-restore" --noflush \
				<$f >$out 2>&1; then
			if busy $out; then
				busy_n=$((busy_n + 1))
				sleep 0.05
				continue
			fi
			echo "restore: FAIL: $(cat $out)"
			fail=$((fail + 1))
			continue
		fi
		k=$((k + 1))
		echo $k >$tmp/restores
		got=$(count big)
		if [ "$got" != $NRULES ]; then
			echo "restore: FAIL: $got rules in big, $NRULES expected"
			fail=$((fail + 1))
		fi
	done
	echo "$k $busy_n $fail" >$tmp/restore.counts
}

# The first rule of FORWARD (ESTABLISHED) as "packets bytes".
est_counters()
{
	local out line f

	out=$(timed list "$hipac" -L FORWARD -v -x -n 2>/dev/null)
	while IFS= read -r line; do
		read -ra f <<< "$line"
		if [ "${f[2]}" = ACCEPT ] && [[ $line == *ESTABLISHED* ]]; then
			echo "${f[0]} ${f[1]}"
			return
		fi
	done <<< "$out"
}

counter_loop()
{
	local zeros=0 lists=0 busy_n=0 fail=0 last=0 p b out=$tmp/counter.out
	local i=0

	while more $zeros; do
		i=$((i + 1))
		# (No process substitution: the VM may lack /dev/fd.)
		set -- $(est_counters)
		p=${1:-} b=${2:-}
		lists=$((lists + 1))
		if [ -z "$p" ]; then
			echo "counters: FAIL: no ESTABLISHED rule listed"
			fail=$((fail + 1))
		elif [ "$p" -lt "$last" ]; then
			echo "counters: FAIL: packets went down from $last to $p"
			fail=$((fail + 1))
		elif [ "$b" -lt $((20 * p)) ]; then
			echo "counters: FAIL: $b bytes for $p packets"
			fail=$((fail + 1))
		fi
		last=${p:-0}
		if [ $((i % 4)) = 0 ]; then
			# The whole rule set, counters and all.
			timed list-all "$hipac" -L -v -x -n >/dev/null 2>$out ||
				{ echo "counters: FAIL: -L: $(cat $out)"; fail=$((fail + 1)); }
			lists=$((lists + 1))
		fi
		if [ $((i % 2)) = 0 ]; then
			if timed zero "$hipac" -Z FORWARD >$out 2>&1; then
				zeros=$((zeros + 1))
				last=0
			elif busy $out; then
				busy_n=$((busy_n + 1))
			else
				echo "counters: FAIL: -Z: $(cat $out)"
				fail=$((fail + 1))
			fi
		fi
		sleep 0.1
	done
	echo "$zeros $lists $busy_n $fail" >$tmp/counter.counts
}

export -f churn_loop restore_loop counter_loop est_counters busy timed count \
	more
export tmp hipac NFHP_BIN NRULES
t0=$(date +%s)
in_ns $ns_router bash -c churn_loop &
churn_pid=$!
in_ns $ns_router bash -c restore_loop &
restore_pid=$!
in_ns $ns_router bash -c counter_loop &
counter_pid=$!

sleep "$SECONDS_RUN"
# The stop file holds the hard stop.
echo $(($(date +%s) + 300)) >$tmp/stop
wait $churn_pid $restore_pid $counter_pid
duration=$(($(date +%s) - t0))
touch $tmp/stop-send
wait $send_pid
sleep 1
touch $tmp/stop-recv
wait $recv_pid
wait $tcp_pid; tcp_rc=$?
wait $udp_pid; udp_rc=$?

[ ! -e $tmp/slow.log ] || cat $tmp/slow.log
read -r ins del rep churn_busy churn_fail <$tmp/churn.counts
read -r restores restore_busy restore_fail <$tmp/restore.counts
read -r zeros lists counter_busy counter_fail <$tmp/counter.counts
nfhp_log "stress: ${duration}s; churn: $ins inserts, $del deletes," \
	"$rep replaces ($churn_busy busy); $restores restores of $NRULES" \
	"rules ($restore_busy busy); $zeros zeroes, $lists lists" \
	"($counter_busy busy)"
nfhp_check "churn: every change listed as expected" [ "$churn_fail" = 0 ]
nfhp_check "restore: every restore complete" [ "$restore_fail" = 0 ]
nfhp_check "counters: consistent" [ "$counter_fail" = 0 ]
nfhp_check "churn did something" [ $((ins + del + rep)) -gt 0 ]
nfhp_check "at least one restore under traffic" [ "$restores" -gt 0 ]

# Traffic kept flowing: iperf3 finished and every second moved data.
grep -E 'sec +0(\.00)? Bytes' $tmp/iperf-tcp $tmp/iperf-udp
tail -4 $tmp/iperf-tcp
nfhp_check "iperf3 tcp ran to the end" [ $tcp_rc = 0 ]
nfhp_check "iperf3 udp ran to the end" [ $udp_rc = 0 ]
# A starved TCG guest can stall a TCP flow for a retransmission timeout,
# so "keeps flowing" is: data moved in at least 2/3 of the seconds.
nfhp_check "tcp moved data in most seconds" awk '
	/sec/ && !/sender|receiver/ { n++; if ($5 + 0 > 0) moved++ }
	END { print "tcp: data in " moved + 0 " of " n + 0 " intervals";
	      exit !(n > 0 && moved * 3 >= n * 2) }' $tmp/iperf-tcp

# The markers.
sent=$(cat $tmp/sent)
python3 - "$sent" "$restores" $tmp/recv >$tmp/verdict <<'EOF'
import sys
sent, restores = int(sys.argv[1]), int(sys.argv[2])
got = {}
for line in open(sys.argv[3]):
    f = line.split()
    got[int(f[0])] = set(map(int, f[1:]))
ok = True
missing = sorted(set(range(sent)) - got[7000])
print("markers: %d ticks, %d of udp/7000 lost" % (sent, len(missing)))
if missing:
    ok = False
    print("FAIL: udp/7000 lost at ticks %s" % missing[:20])
labels = []
for i in range(sent):
    a, b = i in got[7001], i in got[7002]
    labels.append("X" if a and b else "A" if a else "B" if b else "N")
# Runs of labels: A and B runs alternate; X only between A and B, N only
# between B and A, each a single tick.
runs = []
for l in labels:
    if runs and runs[-1][0] == l:
        runs[-1][1] += 1
    else:
        runs.append([l, 1])
switches = 0
for j, (l, n) in enumerate(runs):
    prev = runs[j - 1][0] if j else None
    nxt = runs[j + 1][0] if j + 1 < len(runs) else None
    if l in "AB":
        if prev in ("A", "B") and prev != l:
            switches += 1
        continue
    switches += 1
    want = ("A", "B") if l == "X" else ("B", "A")
    if n != 1 or (prev, nxt) != want and not (prev is None or nxt is None):
        ok = False
        print("FAIL: %d tick(s) of %s between %s and %s" % (n, l, prev, nxt))
print("markers: %d switches seen, %d restores, %d ticks both, %d neither" %
      (switches, restores, labels.count("X"), labels.count("N")))
if switches > restores:
    ok = False
    print("FAIL: more switches than restores")
if switches == 0:
    ok = False
    print("FAIL: no switch seen")
sys.exit(0 if ok else 1)
EOF
verdict=$?
cat $tmp/verdict
nfhp_check "markers: no packet saw a half-applied rule set" [ $verdict = 0 ]
nfhp_check "router: flush" r -F

exit $nfhp_rc
