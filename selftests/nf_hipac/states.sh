#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The dynamic states' table of each namespace (issue 45; the rule options
# keep-state and check-state are not there yet): /proc/net/nf-hipac/states
# shows an empty table with ipfw's lifetimes, takes "NAME VALUE" for a
# lifetime or max_states and refuses the rest, and each namespace has its
# own settings.  The buckets follow max_states past the 8,192 they once
# stopped at: 20,000 states restored by hand under a max_states of 40,000
# grow the table to 32,768.  Deleting a namespace ends its table and tick;
# unload.sh unloads the module with the tables of several namespaces
# present.
#
# nfhp-timeout: 180

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac

ns_a=nfhp-states-a-$$
ns_b=nfhp-states-b-$$
trap 'nfhp_netns_destroy $ns_a $ns_b' EXIT
ip netns add $ns_a && ip netns add $ns_b ||
	{ nfhp_log "FAIL: namespaces"; exit 1; }

file=/proc/net/nf-hipac/states

# field NS NAME - the value /proc shows for NAME in namespace NS.
field() { in_ns "$1" awk -v n="$2:" '$1 == n { print $2 }' $file; }

# is NS NAME VALUE - NAME shows VALUE in NS.
is() { [ "$(field "$1" "$2")" = "$3" ]; }

# set NS "NAME VALUE" - write a setting in NS.
set_() { in_ns "$1" sh -c "echo '$2' > $file" 2>/dev/null; }

# refused NS "NAME VALUE" - the write fails.
refused() { ! set_ "$@"; }

# kept NS - a refused write changed nothing there.
kept() { is "$1" syn_lifetime 20 && is "$1" max_states 100; }

nfhp_check "the file is there" in_ns $ns_a test -r $file
nfhp_check "no states" is $ns_a states 0
nfhp_check "256 buckets" is $ns_a buckets 256
nfhp_check "max_states 16384" is $ns_a max_states 16384
nfhp_check "max_parents 4096, none used" \
	bash -c "[ '$(field $ns_a max_parents)' = 4096 ] &&
		 [ '$(field $ns_a parents)' = 0 ]"
lifetimes=$(for n in syn ack fin rst udp short; do
	field $ns_a ${n}_lifetime; done | tr '\n' ' ')
nfhp_check "ipfw's lifetimes" [ "$lifetimes" = "20 300 1 1 10 5 " ]
nfhp_check "udp_lifetime 2 taken" set_ $ns_a "udp_lifetime 2"
nfhp_check "udp_lifetime shows 2" is $ns_a udp_lifetime 2
nfhp_check "max_states 100 taken" set_ $ns_a "max_states 100"
nfhp_check "max_states shows 100" is $ns_a max_states 100
nfhp_check "max_parents 50 taken" set_ $ns_a "max_parents 50"
nfhp_check "max_parents shows 50" is $ns_a max_parents 50
nfhp_check "max_parents 0 refused" refused $ns_a "max_parents 0"
nfhp_check "a lifetime of 0 refused" refused $ns_a "syn_lifetime 0"
nfhp_check "a lifetime over a month refused" \
	refused $ns_a "syn_lifetime 2592001"
nfhp_check "an unknown name refused" refused $ns_a "nosuch 1"
nfhp_check "a name alone refused" refused $ns_a "udp_lifetime"
nfhp_check "max_states 0 refused" refused $ns_a "max_states 0"
nfhp_check "max_states 4294967295 refused" \
	refused $ns_a "max_states 4294967295"
nfhp_check "the refusals changed nothing" kept $ns_a
nfhp_check "the other namespace keeps its own" is $ns_b udp_lifetime 10
nfhp_check "and its own max_states" is $ns_b max_states 16384

# grown NS - within 30 s (scaled), NS's table has a bucket for each of
# its states and no growth under way: a growth started while states were
# still coming may be followed by another one.
grown() {
	for _ in $(seq "$(nfhp_scaled 30)"); do
		in_ns "$1" awk '$1 == "buckets:" { b = $2 }
				$1 == "states:" { s = $2 }
				$1 == "growing:" { g = $2 }
				END { exit !(b >= s && g == 0) }' $file && return 0
		sleep 1
	done
	nfhp_log "buckets: $(field "$1" buckets), states: $(field "$1" states), growing: $(field "$1" growing)"
	return 1
}

nfhp_check "max_states 40000 taken" set_ $ns_b "max_states 40000"
nfhp_check "a keep-state rule to own the states" \
	nfhp_in $ns_b -A FORWARD -p udp -m keep-state -j ACCEPT
nfhp_check "20000 states restored" bash -c "awk 'BEGIN {
	for (i = 0; i < 20000; i++)
		printf \"-A -p udp -s 10.8.%d.%d -d 10.9.0.1 --sport 1000 --dport 53 --rule FORWARD:1 --timeout 600\\n\", i / 250, i % 250 + 1
}' | ip netns exec $ns_b '$NFHP_BIN/nf-hipac' state restore"
nfhp_check "20000 states counted" is $ns_b states 20000
nfhp_check "the table grows past 8192 buckets, to hold them" grown $ns_b
nfhp_check "to 32768: the states rounded up, under max_states' 65536" \
	is $ns_b buckets 32768
nfhp_check "none lost by the growth" is $ns_b states 20000
nfhp_check "max_states 100 taken, the states above it stay" \
	set_ $ns_b "max_states 100"
sleep 2
nfhp_check "a lowered max_states shrinks no table" is $ns_b buckets 32768
nfhp_check "a namespace with a ticking table goes" ip netns del $ns_a
nfhp_check "the other one still reads" is $ns_b states 20000
nfhp_check "the module is still there" [ -d /sys/module/nf_hipac ]

exit $nfhp_rc
