#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Netlink fuzzing of the nf_hipac genetlink family with user/build/nl_fuzz
# (user/fuzz/nl_fuzz.c, nl_fuzz_set.c): valid, mutated and random requests
# of the rule and the named-set commands, rules with set matches and
# with states (NFHPA_RULE_STATE: keep-state, CHECK-STATE, and wrong modes,
# limits, fields and duplicates), with interleaved transactions on several
# sockets, from two processes at once, in a network namespace of its own.
# Then:
#
#   - unmutated keep-state and CHECK-STATE rules went through, and odd
#     state attributes were refused with EINVAL;
#   - with the rules flushed, every set of the fuzzed namespace can be
#     destroyed (no reference of a freed rule is left behind) and a dump
#     finds none (nl_fuzz -F);
#   - root of a user namespace (unshare -U -r) gets EPERM for every
#     changing command, and for a list, in the initial namespace and in
#     the fuzzed one;
#   - the fuzzed namespace can still be listed, flushed and emptied;
#   - a rule set loaded in the router before the fuzzing still classifies
#     real packets as before, and a new one still loads and classifies.
#
# The kernel log (KASAN, lockdep, WARN...) is checked by the harness.
#
#	NFHP_FUZZ_MESSAGES=N	messages in all (default 100000)
#	NFHP_FUZZ_SEED=S	seed of the first process (default: random;
#				the second uses S+1); printed either way
#	NFHP_FUZZ_EPERM=N	messages per EPERM run (default 4000)
#
# nfhp-timeout: 600

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3 unshare
fuzz=$NFHP_BIN/nl_fuzz
[ -x "$fuzz" ] || nfhp_skip "$fuzz not built (make all)"
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

messages=${NFHP_FUZZ_MESSAGES:-100000}
seed=${NFHP_FUZZ_SEED:-$(( (RANDOM << 30 | RANDOM << 15 | RANDOM) + 1 ))}
eperm=${NFHP_FUZZ_EPERM:-4000}
ns_fuzz=nfhp-fuzz-$$
tmp=$(mktemp -d /tmp/nfhp-nlfuzz.XXXXXX)
trap 'ip netns del $ns_fuzz 2>/dev/null; nfhp_cleanup; rm -rf $tmp' EXIT

r() { nfhp_in $ns_router "$@"; }

# classify WHEN - the verdicts of the router's rule set on real packets.
classify()
{
	nfhp_check "$1: tcp/8080 accepted" tcp_ok 8080
	nfhp_check "$1: tcp/8081 dropped" tcp_fail 8081
	nfhp_check "$1: ping dropped" ping_fail
}

# The router's rule set, loaded before the fuzzing and checked after it.
cat >$tmp/router.rules <<EOF
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:allow - [0:0]
-A FORWARD -m state --state ESTABLISHED,RELATED -j ACCEPT
-A FORWARD -p tcp --dport 8080 -j allow
-A FORWARD -p udp --dport 5353 -j allow
-A FORWARD -p tcp --dport 8081 -j DROP
-A allow -j ACCEPT
COMMIT
EOF
nfhp_check "router: restore" nfhp_restore_in $ns_router <$tmp/router.rules ||
	exit 1
r -S >$tmp/router.before

ip netns add $ns_fuzz || { nfhp_log "FAIL: netns add"; exit 1; }
ip -n $ns_fuzz link set lo up

# Unprivileged first: nothing may change, neither in the initial namespace
# nor in the fuzzed one.
init_before=$("$NFHP_BIN/nf-hipac" -S)
nfhp_check "user namespace, initial netns: $eperm changes all get EPERM" \
	unshare -U -r "$fuzz" -e -n "$eperm" -s "$seed"
nfhp_check "user namespace, fuzz netns: $eperm changes all get EPERM" \
	in_ns $ns_fuzz unshare -U -r "$fuzz" -e -n "$eperm" -s "$((seed + 2))"
nfhp_check "initial netns rule set unchanged" \
	[ "$("$NFHP_BIN/nf-hipac" -S)" = "$init_before" ]

# Two fuzzers at once, so that transactions of different processes meet on
# the two CPUs.
half=$((messages / 2))
start=$(date +%s)
in_ns $ns_fuzz "$fuzz" -v -n $half -s "$seed" -k 4 >$tmp/fuzz1 2>&1 &
pid1=$!
in_ns $ns_fuzz "$fuzz" -v -n $((messages - half)) -s "$((seed + 1))" -k 3 \
	>$tmp/fuzz2 2>&1 &
pid2=$!
wait $pid1; rc1=$?
wait $pid2; rc2=$?
sed 's/^/fuzzer 1: /' $tmp/fuzz1
sed 's/^/fuzzer 2: /' $tmp/fuzz2
nfhp_check "fuzzer 1 (seed $seed) finished cleanly" [ $rc1 = 0 ]
nfhp_check "fuzzer 2 (seed $((seed + 1))) finished cleanly" [ $rc2 = 0 ]
sent=$(cat $tmp/fuzz1 $tmp/fuzz2 |
       sed -n 's/^nl_fuzz: \([0-9]*\) messages in.*/\1/p' |
       awk '{ n += $1 } END { print n + 0 }')
nfhp_log "fuzz messages: $sent in $(($(date +%s) - start))s"
nfhp_check "all $messages messages sent" [ "$sent" -ge "$messages" ]

# state_count KIND ANSWER - unmutated rule changes of KIND answered so.
state_count()
{
	cat $tmp/fuzz1 $tmp/fuzz2 |
	sed -n 's/^nl_fuzz: valid rule changes with states: //p' | tr ';' '\n' |
	awk -v kind="$1" -v ans="$2" '
		{ sub(/^ /, "") }
		index($0, kind " ") == 1 || $0 == kind {
			for (i = 1; i <= NF; i++)
				if (split($i, kv, "=") == 2 && kv[1] == ans)
					n += kv[2]
		}
		END { print n + 0 }'
}
keep_ok=$(state_count keep-state acked)
check_ok=$(state_count CHECK-STATE acked)
odd_inval=$(state_count "odd states" EINVAL)
nfhp_log "state rules: keep-state $keep_ok acked, CHECK-STATE $check_ok acked, odd ones $odd_inval EINVAL"
nfhp_check "keep-state and CHECK-STATE rules went through, odd ones refused" \
	[ "$keep_ok" -gt 0 -a "$check_ok" -gt 0 -a "$odd_inval" -gt 0 ]

# No rule is left to refer to a set: every set goes.
nfhp_check "fuzzed netns: every set destroyed" \
	in_ns $ns_fuzz "$fuzz" -F -n 0 -s "$((seed + 3))"

# The fuzzed namespace still works: list, flush, delete chains, empty.
nfhp_check "fuzzed netns: list" \
	bash -c "ip netns exec $ns_fuzz '$NFHP_BIN/nf-hipac' -S >/dev/null"
nfhp_check "fuzzed netns: flush" nfhp_in $ns_fuzz -F
nfhp_check "fuzzed netns: delete chains" nfhp_in $ns_fuzz -X
nfhp_check "fuzzed netns: policies back to ACCEPT" \
	bash -c "for c in INPUT FORWARD OUTPUT; do
		ip netns exec $ns_fuzz '$NFHP_BIN/nf-hipac' -P \$c ACCEPT ||
		exit 1; done"
nfhp_check "fuzzed netns: empty" \
	[ "$(nfhp_in $ns_fuzz -S | grep -c '^-[AN]')" = 0 ]
nfhp_check "fuzzed netns: a rule still loads" \
	nfhp_in $ns_fuzz -A INPUT -p tcp --dport 9 -j DROP
nfhp_check "fuzzed netns: flush again" nfhp_in $ns_fuzz -F
ip netns del $ns_fuzz

# The router's rule set was not touched and classifies as before.
r -S >$tmp/router.after
nfhp_check "router rule set unchanged" cmp -s $tmp/router.before \
	$tmp/router.after
classify "after fuzzing"

# And a fresh rule set still loads atomically and classifies.
sed -e 's/--dport 8080 -j allow/--dport 8081 -j allow/' \
    -e 's/--dport 8081 -j DROP/--dport 8080 -j DROP/' \
    $tmp/router.rules >$tmp/swapped.rules
nfhp_check "router: restore of a new rule set" \
	nfhp_restore_in $ns_router <$tmp/swapped.rules
nfhp_check "new rule set: tcp/8081 accepted" tcp_ok 8081
nfhp_check "new rule set: tcp/8080 dropped" tcp_fail 8080
nfhp_check "router: flush" r -F

exit $nfhp_rc
