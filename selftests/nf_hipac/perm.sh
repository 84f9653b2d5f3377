#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Changes need CAP_NET_ADMIN in the user namespace that owns the network
# namespace (GENL_UNS_ADMIN_PERM), and by default so does reading: the
# listings (-L, -S, -C, nf-hipac-save, counters included) and the files
# of /proc/net/nf-hipac, as with iptables and nft, since the rules tell
# what is open.  An unprivileged user, and root of a fresh user namespace
# acting on a network namespace it does not own, get iptables' permission
# error (exit 4) and neither see nor change anything.  Root of the
# namespace may open the reading up by writing 1 to
# /proc/net/nf-hipac/world_readable; nobody else may flip it, it opens
# that namespace only, and changes stay refused.  Root of a user namespace
# may manage a network namespace it created.
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd unshare setpriv
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

hipac=$NFHP_BIN/nf-hipac
save=$NFHP_BIN/nf-hipac-save
proc=/proc/net/nf-hipac
out=$(mktemp /tmp/nfhp-perm.XXXXXX)
err=$(mktemp /tmp/nfhp-perm.XXXXXX)
trap 'rm -f $out $err; nfhp_cleanup' EXIT

# What iptables-legacy and iptables-legacy-save say to a user who may not
# read the table ("iptables v1.8.9 (legacy): can't initialize iptables
# table `filter': ..."), in nf-hipac's words.
list_msg="nf-hipac: can't initialize nf-hipac table \`filter': Permission denied (you must be root)"
save_msg="nf-hipac-save: Cannot initialize: Permission denied (you must be root)"

# denied CMD... - CMD (an nf-hipac call) fails with a permission error.
denied()
{
	if "$@" >"$out" 2>&1; then
		nfhp_log "unexpectedly allowed: $*"
		return 1
	fi
	# From nf-hipac itself, not from exec, setpriv or unshare.
	grep -q '^nf-hipac.*Permission denied' "$out" && return 0
	nfhp_log "no permission error: $(cat "$out")"
	return 1
}

# list_denied MSG CMD... - CMD exits 4 with the line MSG and prints nothing
# on stdout: not one rule, not one counter.
list_denied()
{
	local msg=$1 rc

	shift
	"$@" >"$out" 2>"$err"
	rc=$?
	if [ $rc -eq 4 ] && grep -qxF -- "$msg" "$err" && [ ! -s "$out" ]; then
		return 0
	fi
	nfhp_log "exit $rc, $(wc -l <"$out") lines out, said: $(cat "$err")"
	return 1
}

# fails CMD... - CMD must fail.
fails() { ! "$@" 2>/dev/null; }

# read_denied CMD... - CMD (cat of a /proc file) fails with EACCES.
read_denied()
{
	if "$@" >"$out" 2>"$err"; then
		nfhp_log "unexpectedly read: $*"
		return 1
	fi
	grep -q 'Permission denied' "$err" && [ ! -s "$out" ] && return 0
	nfhp_log "no permission error: $(cat "$err")"
	return 1
}

nobody() { in_ns $ns_router setpriv --reuid=65534 --regid=65534 \
		   --clear-groups "$@"; }
nobody_client() { in_ns $ns_client setpriv --reuid=65534 --regid=65534 \
			  --clear-groups "$@"; }
userns() { in_ns $ns_router unshare --user --map-root-user "$@"; }
# set_wr VALUE - write VALUE to the router's world_readable as root.
set_wr() { in_ns $ns_router sh -c "echo $1 > $proc/world_readable"; }
wr() { in_ns $ns_router cat $proc/world_readable; }

# Without this, "Permission denied" from exec would pass for the kernel's.
nobody "$hipac" -V >/dev/null 2>&1 || nfhp_skip "nobody cannot run $hipac"

nfhp_check "root: -A FORWARD -p udp --dport 1 -j DROP" \
	nfhp_in $ns_router -A FORWARD -p udp --dport 1 -j DROP
nfhp_check "root: -S FORWARD lists it" \
	bash -c "ip netns exec $ns_router '$hipac' -S FORWARD |
		 grep -qx -- '-A FORWARD -p udp -m udp --dport 1 -j DROP'"
nfhp_check "root: info is readable" in_ns $ns_router cat $proc/info >/dev/null

# --- changes: never without CAP_NET_ADMIN -----------------------------------

nfhp_check "nobody: -A refused" denied nobody "$hipac" -A FORWARD -j DROP
nfhp_check "nobody: -F refused" denied nobody "$hipac" -F
nfhp_check "nobody: -P refused" denied nobody "$hipac" -P FORWARD DROP
nfhp_check "nobody: -N refused" denied nobody "$hipac" -N x
nfhp_check "nobody: -Z refused" denied nobody "$hipac" -Z
nfhp_check "nobody: restore refused" \
	denied nobody "$NFHP_BIN/nf-hipac-restore" <<-EOT
	*filter
	:FORWARD DROP [0:0]
	COMMIT
	EOT
# Creating a user namespace fails inside a chroot (as in the test VM).
have_userns=0
unshare --user --map-root-user true 2>/dev/null && have_userns=1
if [ $have_userns = 1 ]; then
	nfhp_check "user namespace root on a foreign netns: -A refused" \
		denied userns "$hipac" -A FORWARD -j DROP
	nfhp_check "user namespace root on a foreign netns: -F refused" \
		denied userns "$hipac" -F
else
	nfhp_log "cannot create user namespaces here (chroot?): not tested"
fi

# --- reading: closed by default ------------------------------------------------

nfhp_check "world_readable is 0 by default" [ "$(wr)" = 0 ]
nfhp_check "nobody may read world_readable" \
	[ "$(nobody cat $proc/world_readable)" = 0 ]
nfhp_check "nobody: -L refused" list_denied "$list_msg" nobody "$hipac" -L -n
nfhp_check "nobody: -L FORWARD -v -x refused" \
	list_denied "$list_msg" nobody "$hipac" -L FORWARD -v -x -n
nfhp_check "nobody: -S refused" list_denied "$list_msg" nobody "$hipac" -S
nfhp_check "nobody: -6 -S (the IPv6 rule set) refused" \
	list_denied "$list_msg" nobody "$hipac" -6 -S
nfhp_check "nobody: -S FORWARD -v refused" \
	list_denied "$list_msg" nobody "$hipac" -S FORWARD -v
nfhp_check "nobody: -C refused" list_denied "$list_msg" \
	nobody "$hipac" -C FORWARD -p udp --dport 1 -j DROP
nfhp_check "nobody: nf-hipac-save refused" \
	list_denied "$save_msg" nobody "$save"
nfhp_check "nobody: nf-hipac-save -c refused" \
	list_denied "$save_msg" nobody "$save" -c
for f in info info6 statistics/forward statistics/input statistics/output \
	 statistics/forward6 statistics/input6 statistics/output6 statistics/shadowed; do
	nfhp_check "nobody: $f refused" read_denied nobody cat $proc/$f
done
if [ $have_userns = 1 ]; then
	nfhp_check "user namespace root on a foreign netns: -L refused" \
		list_denied "$list_msg" userns "$hipac" -L -n
	nfhp_check "user namespace root on a foreign netns: info refused" \
		read_denied userns cat $proc/info
fi

# Only root of the namespace may open it up.
nfhp_check "nobody cannot write world_readable" \
	fails nobody sh -c "echo 1 > $proc/world_readable"
if [ $have_userns = 1 ]; then
	nfhp_check "user namespace root on a foreign netns cannot write it" \
		fails userns sh -c "echo 1 > $proc/world_readable"
fi
nfhp_check "world_readable is still 0" [ "$(wr)" = 0 ]
nfhp_check "nobody: -L still refused" list_denied "$list_msg" \
	nobody "$hipac" -L -n
nfhp_check "garbage is refused" fails set_wr yes
nfhp_check "2 is refused" fails set_wr 2
nfhp_check "world_readable is still 0 after garbage" [ "$(wr)" = 0 ]

# --- reading: opened up by root --------------------------------------------------

nfhp_check "root: write 1 to world_readable" set_wr 1
nfhp_check "world_readable is 1" [ "$(wr)" = 1 ]
nfhp_check "opened: nobody: -L -v -x lists the rule and its counters" \
	bash -c "ip netns exec $ns_router setpriv --reuid=65534 --regid=65534 \
		 --clear-groups '$hipac' -L FORWARD -v -x -n |
		 grep -q 'udp dpt:1\$'"
nfhp_check "opened: nobody: -S" \
	bash -c "ip netns exec $ns_router setpriv --reuid=65534 --regid=65534 \
		 --clear-groups '$hipac' -S |
		 grep -qx -- '-A FORWARD -p udp -m udp --dport 1 -j DROP'"
nfhp_check "opened: nobody: -C finds the rule" \
	nobody "$hipac" -C FORWARD -p udp --dport 1 -j DROP
nfhp_check "opened: nobody: nf-hipac-save -c" \
	bash -c "ip netns exec $ns_router setpriv --reuid=65534 --regid=65534 \
		 --clear-groups '$save' -c |
		 grep -q -- '-A FORWARD -p udp -m udp --dport 1 -j DROP'"
for f in info info6 statistics/forward statistics/forward6 statistics/shadowed; do
	nfhp_check "opened: nobody: $f" nobody cat $proc/$f >/dev/null
done
nfhp_check "opened: nobody: -A still refused" \
	denied nobody "$hipac" -A FORWARD -j DROP
nfhp_check "opened: nobody cannot write world_readable back" \
	fails nobody sh -c "echo 0 > $proc/world_readable"
# The setting is the router namespace's: the client's stays closed.
nfhp_check "opened: the client namespace is still closed" \
	list_denied "$list_msg" nobody_client "$hipac" -L -n
nfhp_check "opened: the client's info is still closed" \
	read_denied nobody_client cat $proc/info

nfhp_check "root: write 0 to world_readable" set_wr 0
nfhp_check "closed again: nobody: -L refused" \
	list_denied "$list_msg" nobody "$hipac" -L -n
nfhp_check "closed again: nobody: info refused" \
	read_denied nobody cat $proc/info

nfhp_check "the rule set is unchanged" \
	[ "$(nfhp_in $ns_router -S FORWARD | grep -c '^-A')" = 1 ]
nfhp_check "forwarding unchanged" ping_ok

[ $have_userns = 0 ] ||
	nfhp_check "user namespace root in its own netns may change and list it" \
		unshare --user --map-root-user --net \
		bash -c "'$hipac' -A INPUT -j DROP && '$hipac' -S INPUT |
			 grep -q -- '-A INPUT -j DROP'"

exit $nfhp_rc
