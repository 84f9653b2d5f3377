#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sets_restore.sh - nf-hipac-save carries the named sets with the rules,
# and nf-hipac-restore takes them back in the transaction of the rules.
#
# The topology of lib.sh, dual-stack.  The router drops in FORWARD the
# pings of the hosts in the set bl ("-m set --match-set bl src"), IPv4
# and IPv6.  Checked on real packets and listings:
#   - nf-hipac-save prints its family's sets first, in nf-hipac-set
#     save's lines, before *filter; nf-hipac6-save the IPv6 ones;
#   - after every rule and set is gone, the saved file brings both back:
#     the pings are dropped again;
#   - restored over itself it changes nothing, and a set's entries are
#     replaced by the file's, not merged; with -n they merge; sets the
#     file does not name are left as they are;
#   - a set line of another type fails with its line and exit 1, and
#     changes nothing;
#   - atomicity (a kernel that stages set writes in the transaction): a
#     file whose rule part the kernel refuses leaves the old rules and the
#     old entries of its sets; --test creates no set; nf-hipac-set restore
#     that the kernel refuses halfway changes nothing.
# nfhp-timeout: 300

. "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }
nf_hipac_setup6 || { nfhp_log "FAIL: IPv6 setup"; exit 1; }

tmp=$(mktemp -d /tmp/nfhp-sets-restore.XXXXXX)
trap 'nfhp_cleanup; rm -rf $tmp' EXIT

S() { in_ns $ns_router "$NFHP_BIN/nf-hipac-set" "$@"; }
r4() { in_ns $ns_router "$NFHP_BIN/nf-hipac" "$@"; }
r6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6" "$@"; }
save4() { in_ns $ns_router "$NFHP_BIN/nf-hipac-save" "$@"; }
save6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6-save" "$@"; }
restore4() { in_ns $ns_router "$NFHP_BIN/nf-hipac-restore" "$@"; }
restore6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6-restore" "$@"; }

ping6_ok() { ping_ok "$ns_client" "$SERVER6"; }
ping6_fail() { ping_fail "$ns_client" "$SERVER6"; }

# members SET - the entries of SET as its save prints them, sorted, one line.
members()
{
	S save "$1" | sed -n "s/^add $1 //p" | sort | tr '\n' ' '
}

# is SET ENTRIES - SET holds exactly ENTRIES (as members prints them).
is()
{
	local got

	got=$(members "$1")
	[ "$got" = "$2" ] || { nfhp_log "  $1 holds: $got (want $2)"; return 1; }
}

# before FILE A B - the first line starting with A comes before the first
# starting with B.
before()
{
	local a b

	a=$(grep -n -m1 "^$2" "$1" | cut -d: -f1)
	b=$(grep -n -m1 "^$3" "$1" | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] ||
		{ nfhp_log "  '$2' at line ${a:-none}, '$3' at ${b:-none}"; return 1; }
}

# same_save FILE PROG [OMIT] - what PROG (nf-hipac-save or
# nf-hipac6-save) prints now, but lines with OMIT, is FILE: both without
# their "#" lines (the dates) and the policies' counters (neighbour
# discovery counts in INPUT and OUTPUT), and sorted, since the entries of
# a hash set list in the order of its seed.
same_save()
{
	local counters='s/ \[[0-9]*:[0-9]*\]$//'

	grep -v '^#' "$1" | sed "$counters" | sort > "$tmp/want"
	in_ns $ns_router "$NFHP_BIN/$2" | grep -v '^#' |
		grep -v -- "${3:-^#}" | sed "$counters" | sort > "$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" ||
		{ diff "$tmp/want" "$tmp/got" | sed 's/^/    /'; return 1; }
}

# --- the state to save ---------------------------------------------------------

nfhp_check "sets bl, nets (locked), other; bl6; rules using bl and bl6" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create bl hash:ip &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add bl $CLIENT_IP &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add bl 192.0.2.1 value 5 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create nets hash:net maxelem 100 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add nets 198.51.100.0/24 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' lock nets &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create bl6 hash:ip family inet6 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add bl6 $CLIENT6 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -N web &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -p icmp -m set --match-set bl src -j DROP &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -A FORWARD -p tcp --dport 80 -j web &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -A FORWARD -p ipv6-icmp -m set --match-set bl6 src -j DROP"
nfhp_check "pings dropped: the client is in bl and bl6" ping_fail
nfhp_check "  (IPv6)" ping6_fail

# --- save ----------------------------------------------------------------------

nfhp_check "nf-hipac-save" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-save' > $tmp/v4 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac6-save' > $tmp/v6"
nfhp_check "  the sets come before *filter" before "$tmp/v4" "create bl " '\*filter'
nfhp_check "  bl as nf-hipac-set save prints it" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' save bl > $tmp/bl &&
	grep -qxFf $tmp/bl $tmp/v4 && [ \$(grep -cxFf $tmp/bl $tmp/v4) -eq \$(wc -l < $tmp/bl) ]"
nfhp_check "  nets with its lock" \
	bash -c "grep -qx 'lock nets' $tmp/v4 && grep -qx 'create nets hash:net family inet hashsize 1024 maxelem 100' $tmp/v4"
nfhp_check "  no IPv6 set in nf-hipac-save" bash -c "! grep -q bl6 $tmp/v4"
nfhp_check "  nf-hipac6-save: bl6 only" bash -c "
	grep -qx 'add bl6 $CLIENT6' $tmp/v6 && ! grep -q '^create bl ' $tmp/v6"
nfhp_check "  before *filter" before "$tmp/v6" "create bl6 " '\*filter'
nfhp_check "  the rules follow" \
	grep -qxF -- "-A FORWARD -p icmp -m set --match-set bl src -j DROP" "$tmp/v4"

# --- everything gone, then restored ------------------------------------------------

nfhp_check "flush every rule and destroy every set" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -X &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -F &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' destroy &&
	[ -z \"\$(ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -n)\" ]"
nfhp_check "pings pass" ping_ok
nfhp_check "nf-hipac-restore of the save" restore4 "$tmp/v4"
nfhp_check "nf-hipac6-restore of the save" restore6 "$tmp/v6"
nfhp_check "pings dropped again" ping_fail
nfhp_check "  (IPv6)" ping6_fail
nfhp_check "bl restored" is bl "$CLIENT_IP 192.0.2.1 value 5 "
nfhp_check "nets restored, locked" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -t nets | grep -q '^Header: .*maxelem 100 .* locked\$'"
nfhp_check "the same save again" same_save "$tmp/v4" nf-hipac-save
nfhp_check "  (IPv6)" same_save "$tmp/v6" nf-hipac6-save

# --- over itself ------------------------------------------------------------------

nfhp_check "an entry more in bl, a set other not in the file" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add bl 10.9.9.9 &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' create other hash:ip &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add other 10.8.8.8"
nfhp_check "restore the save over itself" restore4 "$tmp/v4"
nfhp_check "  bl holds the file's entries, not 10.9.9.9" \
	is bl "$CLIENT_IP 192.0.2.1 value 5 "
nfhp_check "  other is untouched" is other "10.8.8.8 "
nfhp_check "  the same save as before, but other" \
	same_save "$tmp/v4" nf-hipac-save " other "

nfhp_check "  pings still dropped" ping_fail

nfhp_check "-n: the file's adds merge with 10.9.9.9" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' add bl 10.9.9.9 &&
	grep -v nets $tmp/v4 > $tmp/v4n &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore' -n $tmp/v4n"
nfhp_check "  bl holds both" is bl "10.0.1.2 10.9.9.9 192.0.2.1 value 5 "
nfhp_check "-n: a locked set refuses the file's adds, exit 1" \
	fails 1 "Element cannot be added to the set: the set is locked" \
	restore4 -n "$tmp/v4"

# --- errors --------------------------------------------------------------------------

printf 'create x hash:ip\nadd x 10.7.7.7\ncreate bl hash:net\n*filter\n:FORWARD ACCEPT [0:0]\nCOMMIT\n' > "$tmp/badtype"
nfhp_check "a set of another type: exit 1, its line" \
	fails 1 "nf-hipac-restore: Error in line 3: Set cannot be created: set with the same name already exists (hash:ip family inet)" \
	restore4 "$tmp/badtype"
nfhp_check "  the rules are as they were" ping_fail
nfhp_check "  bl is as it was" is bl "10.0.1.2 10.9.9.9 192.0.2.1 value 5 "
printf 'create bl6 hash:ip family inet\n' > "$tmp/badfam"
nfhp_check "a set of another family: exit 1" \
	fails 1 "Error in line 1: Set cannot be created: set with the same name already exists (hash:ip family inet6)" \
	restore4 "$tmp/badfam"
printf 'create y hash:ip\nadd y 10.0.0.300\n' > "$tmp/badaddr"
nfhp_check "a bad address: exit 1, its line" \
	fails 1 "Error in line 2: Syntax error: cannot parse 10.0.0.300" \
	restore4 "$tmp/badaddr"
nfhp_check "a rule line before any table: as before" \
	fails 1 "line 1: no table specified" \
	bash -c "printf -- '-A FORWARD -j DROP\n' |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore'"

# --- atomicity: the kernel stages set writes in the transaction -------------------

# The file replaces bl's entries and adds a set, then its rules jump to a
# chain that does not exist: the kernel refuses the rule, and nothing of
# the file may stay.
sed -e "s/^add bl $CLIENT_IP\$/add bl 10.6.6.6/" \
    -e 's/^COMMIT$/-A FORWARD -j nosuchchain\nCOMMIT/' "$tmp/v4" > "$tmp/badrule"
printf 'create z hash:ip\nadd z 10.5.5.5\n' | cat - "$tmp/badrule" > "$tmp/badrule2"
nfhp_check "a rule the kernel refuses after set lines: exit 1, its line" \
	fails 1 "failed" restore4 "$tmp/badrule2"
nfhp_check "  the old rules: pings still dropped" ping_fail
nfhp_check "  the old entries of bl" is bl "10.0.1.2 10.9.9.9 192.0.2.1 value 5 "
nfhp_check "  no set z" bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -n | grep -qx z"
nfhp_check "  the web chain and its jump are still there" \
	bash -c "ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S | grep -qxF -- '-A FORWARD -p tcp -m tcp --dport 80 -j web'"

printf 'create t hash:ip\nadd t %s\nflush bl\n*filter\n-A FORWARD -p icmp -m set --match-set t src -j DROP\nCOMMIT\n' \
	"$SERVER_IP" > "$tmp/test"
nfhp_check "--test: a new set and a rule using it would load" \
	restore4 --test "$tmp/test"
nfhp_check "  no set t" bash -c "
	! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -n | grep -qx t"
nfhp_check "  bl unflushed" is bl "10.0.1.2 10.9.9.9 192.0.2.1 value 5 "
nfhp_check "  no rule more" bash -c "
	! ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -S | grep -q 'match-set t '"

nfhp_check "nf-hipac-set restore refused halfway changes nothing" \
	fails 1 "Error in line 4: Element cannot be added to the set: it's already added" \
	bash -c "printf 'create u hash:ip\nadd u 10.4.4.4\nflush bl\nadd other 10.8.8.8\n' |
		 ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' restore"
nfhp_check "  no set u" bash -c "
	! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' list -n | grep -qx u"
nfhp_check "  bl unflushed" is bl "10.0.1.2 10.9.9.9 192.0.2.1 value 5 "

nfhp_check "flush, destroy every set" bash -c "
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -F &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac' -X &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac6' -F &&
	ip netns exec $ns_router '$NFHP_BIN/nf-hipac-set' destroy"

exit $nfhp_rc
