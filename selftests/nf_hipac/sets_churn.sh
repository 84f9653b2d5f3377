#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_churn.sh - named sets changing fast while packets flow: no packet
# sees a wrong verdict for a key that did not change.
#
# The router drops in FORWARD what "-m set --match-set churn src" finds.
# While nf-hipac-set restore adds and deletes thousands of other keys a
# second in the router (batches of random hosts, or for the lpm set of
# prefixes, /8 to /32, some nested around the client's, none holding the
# client or the server), the client pings the server without a pause:
#   - the client's address is not in the set: every ping is answered;
#   - the client's address (hash) or a prefix that holds it (lpm) went in
#     before the churn and stays: no ping is answered.
# A swap of the churned set with a copy while pinging flips the verdict
# for every ping after it, never back.  The rate of adds and deletes
# reached is logged (it is the VM's, not a target: make bench has those).
#
#   NFHP_CHURN_SECS=N   seconds of churn per phase (default 4)
#   NFHP_CHURN_BATCH=N  adds and deletes per restore (default 4000)
#
# nfhp-timeout: 600

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

secs=${NFHP_CHURN_SECS:-4}
batch=${NFHP_CHURN_BATCH:-4000}
tmp=$(mktemp -d /tmp/nfhp-churn.XXXXXX)

S() { in_ns $ns_router "$NFHP_BIN/nf-hipac-set" "$@"; }
r4() { in_ns $ns_router "$NFHP_BIN/nf-hipac" "$@"; }

# make_batches ALGO - $tmp/b0..b9: adds then deletes of random keys that
# never hold the client's address nor the server's (the source of the
# replies), as restore lines of the set "churn".
make_batches()
{
	python3 - "$1" "$batch" "$tmp" "$CLIENT_IP" "$SERVER_IP" <<'EOF'
import ipaddress, random, sys
algo, n, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c, srv = (int(ipaddress.IPv4Address(a)) for a in sys.argv[4:6])
rnd = random.Random(7)
def key():
    while True:
        if algo == "hash":
            a, plen = rnd.getrandbits(32), 32
        else:
            plen = rnd.choice([8, 16, 20, 24, 24, 24, 28, 32])
            # a third of them near the client: same /16, not holding it
            a = (c & 0xffff0000 | rnd.getrandbits(16)) if rnd.random() < 0.3 \
                else rnd.getrandbits(32)
            a &= (0xffffffff << (32 - plen)) & 0xffffffff
        if (c ^ a) >> (32 - plen) == 0 or (srv ^ a) >> (32 - plen) == 0:
            continue    # it would hold the client or the server
        net = str(ipaddress.IPv4Address(a))
        return net if plen == 32 else "%s/%d" % (net, plen)
for b in range(10):
    keys = list({key() for _ in range(n // 2)})
    with open("%s/b%d" % (tmp, b), "w") as f:
        for k in keys:
            f.write("add churn %s\n" % k)
        for k in keys:
            f.write("del churn %s\n" % k)
EOF
}

# churn SECS - restore the batches in turn for SECS seconds; prints the
# adds and deletes done.
churn()
{
	local end=$((SECONDS + $1)) n=0 b=0 lines

	lines=$(wc -l < "$tmp/b0")
	while [ $SECONDS -lt $end ]; do
		if ! S -exist restore < "$tmp/b$b" 2> "$tmp/restore.err"; then
			nfhp_log "  restore of batch $b failed: $(head -3 "$tmp/restore.err")" >&2
			echo 0
			return 1
		fi
		n=$((n + lines))
		b=$(((b + 1) % 10))
	done
	echo $n
}

# pings_during SECS - ping the server without a pause while the churn
# runs SECS seconds; prints "sent received done-ops".
pings_during()
{
	local ops pid

	# A count, not a deadline: a deadline would count the pings still
	# in flight at its end as lost.
	in_ns $ns_client $NFHP_PING -q -i 0.02 -c $(($1 * 50)) -W 2 $SERVER_IP \
		> "$tmp/ping" 2>&1 &
	pid=$!
	ops=$(churn "$1")
	wait $pid
	sed -n 's/^\([0-9]*\) packets transmitted, \([0-9]*\) received.*/\1 \2/p' \
		"$tmp/ping" | tr '\n' ' '
	echo "$ops"
}

r4 -F FORWARD && r4 -P FORWARD ACCEPT || { nfhp_log "FAIL: rules"; exit 1; }

for algo in hash lpm; do
	# The rule goes first: a set a rule refers to cannot be destroyed.
	r4 -F FORWARD
	S destroy churn 2>/dev/null
	S create churn $([ "$algo" = hash ] && echo hash:ip || echo hash:net) \
		maxelem 0 &&
	r4 -A FORWARD -m set --match-set churn src -j DROP ||
		nfhp_check "$algo: the set and its rule" false
	make_batches "$algo"
	pings_during "$secs" > "$tmp/res"
	read -r sent got ops < "$tmp/res"
	nfhp_log "  $algo: $sent pings sent, $got answered; $ops adds and deletes in $secs s ($((ops / secs))/s)"
	nfhp_check "$algo: the client's address never in the set: every ping answered" \
		test -n "$sent" -a "${sent:-0}" -gt 20 -a "${got:-0}" = "$sent" -a "${ops:-0}" -gt 0

	key=$CLIENT_IP
	[ "$algo" = hash ] || key=${CLIENT_IP%.*}.0/24
	S add churn "$key"
	pings_during "$secs" > "$tmp/res"
	read -r sent got ops < "$tmp/res"
	nfhp_log "  $algo, $key in: $sent pings sent, $got answered; $ops adds and deletes in $secs s"
	nfhp_check "$algo: $key in the set throughout: no ping answered" \
		test -n "$sent" -a "${sent:-0}" -gt 20 -a "${got:-1}" = 0 -a "${ops:-0}" -gt 0
done

# A swap while pinging: the client is in "other", not in "churn"; once
# swapped, every ping is dropped, and none answered after the first loss.
S create other hash:net maxelem 0 && S add other "$CLIENT_IP" &&
S flush churn && ping_ok ||
	nfhp_check "swap setup: the client's pings pass" false
# The ping runs until the swap is done and 20 pings after it went
# unanswered, however slow the host: a fixed -w lost the swap on a
# loaded one.  Started without in_ns: a function run in the background is
# a subshell that ignores SIGINT, and the kill below would then wait for
# -w's 300 s.
ip netns exec $ns_client $NFHP_PING -i 0.02 -w 300 -W 1 -O $SERVER_IP \
	> "$tmp/swap" 2>&1 &
pid=$!
sleep 2
S swap churn other
for i in $(seq 1 300); do
	[ "$(grep -c "no answer yet" "$tmp/swap")" -ge 20 ] && break
	sleep 0.2
done
kill -INT $pid
wait $pid
# -O prints "no answer yet" for each ping lost: after the first, no reply.
first_loss=$(grep -n "no answer yet" "$tmp/swap" | head -1 | cut -d: -f1)
late_reply=$(awk -v l="${first_loss:-0}" 'NR > l && / bytes from /' "$tmp/swap" | wc -l)
nfhp_log "  swap: $(grep -c ' bytes from ' "$tmp/swap") replies, first loss at line ${first_loss:-none}, $late_reply replies after it"
nfhp_check "swap while pinging: answered before, dropped after, never back" \
	test -n "$first_loss" -a "$late_reply" = 0 \
	-a "$(grep -c ' bytes from ' "$tmp/swap")" -gt 20

r4 -F FORWARD
S destroy
rm -rf "$tmp"
exit $nfhp_rc
