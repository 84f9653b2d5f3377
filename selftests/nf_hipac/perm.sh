#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Changes need CAP_NET_ADMIN in the user namespace that owns the network
# namespace (GENL_UNS_ADMIN_PERM).  An unprivileged user, and root of a
# fresh user namespace acting on a network namespace it does not own, get
# a permission error and change nothing; listing stays open to everyone.
# Root of a user namespace may manage a network namespace it created.
#
# nfhp-timeout: 300

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd unshare setpriv
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

hipac=$NFHP_BIN/nf-hipac
out=$(mktemp /tmp/nfhp-perm.XXXXXX)
trap 'rm -f $out; nfhp_cleanup' EXIT

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

nobody() { in_ns $ns_router setpriv --reuid=65534 --regid=65534 \
		   --clear-groups "$@"; }
userns() { in_ns $ns_router unshare --user --map-root-user "$@"; }

# Without this, "Permission denied" from exec would pass for the kernel's.
nobody "$hipac" -L FORWARD -n >/dev/null 2>&1 ||
	nfhp_skip "nobody cannot run $hipac"

nfhp_check "root: -A FORWARD -p udp --dport 1 -j DROP" \
	nfhp_in $ns_router -A FORWARD -p udp --dport 1 -j DROP
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
nfhp_check "nobody may list" nobody "$hipac" -L FORWARD -n >"$out"
nfhp_check "the rule set is unchanged" \
	[ "$(nfhp_in $ns_router -S FORWARD | grep -c '^-A')" = 1 ]
nfhp_check "forwarding unchanged" ping_ok

[ $have_userns = 0 ] ||
	nfhp_check "user namespace root in its own netns may change it" \
		unshare --user --map-root-user --net \
		bash -c "'$hipac' -A INPUT -j DROP && '$hipac' -S INPUT |
			 grep -q -- '-A INPUT -j DROP'"

exit $nfhp_rc
