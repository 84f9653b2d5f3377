#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_txn.sh - named sets inside transactions, on real packets.
#
# The topology of lib.sh.  FORWARD drops the client's pings while the
# client is in the set bl.  tools/nl_set_txn.py opens a transaction on a
# socket of its own and stages set commands in it (flush, create, add,
# swap, destroy).  Checked: while it is open, packets, nf-hipac-set list
# and test see the committed sets, and writers of another socket get
# EBUSY; a commit publishes every staged change at once; an abort, or
# the socket closed, changes nothing; a set a rule refers to cannot be
# destroyed in a transaction either; a name destroyed and created again
# in one transaction takes its new algorithm at the commit.
# nfhp-timeout: 600

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

S() { in_ns $ns_router "$NFHP_BIN/nf-hipac-set" "$@"; }
r4() { in_ns $ns_router "$NFHP_BIN/nf-hipac" "$@"; }

tool=$(dirname "$0")/tools/nl_set_txn.py
go=$(mktemp -u /tmp/sets_txn.go.XXXXXX)
log=$(mktemp /tmp/sets_txn.log.XXXXXX)
held=

cleanup_txn()
{
	touch "$go"
	[ -n "$held" ] && wait "$held" 2>/dev/null
	rm -f "$go" "$log"
	nfhp_cleanup
}
trap cleanup_txn EXIT

# txn END STEP... - run nl_set_txn.py to the end, END commit, abort or close.
txn() { in_ns $ns_router python3 "$tool" - "$@"; }

# hold END STEP... - stage STEP... in the background until release.
hold()
{
	local i

	rm -f "$go"
	in_ns $ns_router python3 "$tool" "$go" "$@" >"$log" 2>&1 &
	held=$!
	for i in $(seq 1 600); do
		grep -q staged "$log" && return 0
		kill -0 $held 2>/dev/null || break
		sleep 0.2
	done
	nfhp_log "  nl_set_txn.py: $(cat "$log")"
	return 1
}

# release WORD - let the held transaction end; it must say WORD.
release()
{
	touch "$go"
	wait $held
	held=
	grep -qx "$1" "$log" || { nfhp_log "  nl_set_txn.py: $(cat "$log")"; return 1; }
}

unlisted() { ! S list -n | grep -qx "$1"; }
entries() { S list -terse "$1" | sed -n 's/^Number of entries: //p'; }
# has SET N - the listing of SET reports N entries.
has() { [ "$(entries "$1")" = "$2" ]; }
# refused STEP... - a transaction of STEP... fails and changes nothing.
refused() { ! txn commit "$@" >/dev/null; }
# busy - an add from another socket fails, and the kernel says why.
busy() { S add bl 10.9.9.9 2>&1 | grep -q 'another socket has a transaction open'; }
# typed SET TYPE - the listing of SET says Type: TYPE.
typed() { S list -terse "$1" | grep -qx "Type: $2"; }

nfhp_check "create bl, add the client, a rule drops it" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create bl hash:ip &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add bl $CLIENT_IP &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -p icmp \
		-m set --match-set bl src -j DROP"
nfhp_check "ping dropped" ping_fail

# --- a commit ---------------------------------------------------------------

nfhp_check "stage: flush bl, create fresh and add the client to it" \
	hold commit flush:bl new:fresh:hash add:fresh:$CLIENT_IP
nfhp_check "staged: ping still dropped (bl as committed)" ping_fail
nfhp_check "staged: test sees the client in bl" S test bl $CLIENT_IP
nfhp_check "staged: list has no set fresh" unlisted fresh
nfhp_check "staged: an add from another socket gets EBUSY" busy
nfhp_check "staged: bl still has 1 entry" has bl 1
nfhp_check "commit" release committed
nfhp_check "committed: ping passes (bl flushed)" ping_ok
nfhp_check "committed: fresh holds the client" S test fresh $CLIENT_IP
nfhp_check "committed: bl is empty, 10.9.9.9 never went in" has bl 0

# --- abort and close ----------------------------------------------------------

nfhp_check "abort: add the client to bl, create gone" \
	txn abort add:bl:$CLIENT_IP new:gone:lpm
nfhp_check "aborted: ping passes" ping_ok
nfhp_check "aborted: no set gone" unlisted gone
nfhp_check "aborted: bl is empty" has bl 0
nfhp_check "close: the same, the socket closed instead" \
	txn close add:bl:$CLIENT_IP new:gone:lpm
nfhp_check "closed: ping passes" ping_ok
nfhp_check "closed: no set gone" unlisted gone
nfhp_check "closed: bl is empty" has bl 0

# --- swap, destroy ------------------------------------------------------------

nfhp_check "commit: swap bl fresh" txn commit swap:bl:fresh
nfhp_check "swapped: ping dropped (bl holds the client)" ping_fail
nfhp_check "swapped: fresh is empty" has fresh 0
nfhp_check "destroy bl in a transaction: refused, a rule refers to it" \
	refused destroy:bl
nfhp_check "refused: bl still drops" ping_fail
nfhp_check "commit: destroy fresh, create fresh as lpm, add 10.0.0.0/8" \
	txn commit destroy:fresh new:fresh:lpm add:fresh:10.0.0.0/8
nfhp_check "fresh is hash:net now" typed fresh hash:net
nfhp_check "fresh holds 10.1.2.3" S test fresh 10.1.2.3
nfhp_check "commit: swap the lpm set into bl: refused, other algorithm" \
	refused swap:bl:fresh
nfhp_check "refused: bl still drops" ping_fail

# --- clean up -----------------------------------------------------------------

nfhp_check "delete the rule, destroy every set" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F FORWARD &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' destroy"
nfhp_check "no set left" [ -z "$(S list -n)" ]
nfhp_check "/proc/net/nf-hipac/sets lists none" \
	[ "$(in_ns $ns_router cat /proc/net/nf-hipac/sets | wc -l)" = 1 ]

exit $nfhp_rc
