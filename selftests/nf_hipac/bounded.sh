#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bounded.sh - issue 48's bounds, on the module with real packets.
#
# Interrupted commits: a known rule set is in force (udp/7001 and udp/7002
# dropped, udp/7000 and pings pass), then nf-hipac-restore -v loads the
# university firewall of diff/real-world/ (its tree takes seconds to build
# under TCG) and gets SIGINT, in a second round SIGKILL, once it says
# "committing".  The restore must die of the signal (SIGINT: after saying
# that the commit was interrupted), /proc/net/nf-hipac/info's "commits
# stopped by signal" must count it (the signal landed in the build, not
# before or after it), and the old rules must hold: the same verdicts, the
# same nf-hipac-save.  A commit that ends before the signal lands is tried
# again with a bigger rule set (the firewall's chains copied 2, then 3
# times) and a shorter wait, then the test fails.
#
# The flatten bound (kernel/ruleset.h, NFHP_FLAT_PER_RULE): a chain of 20
# rules jumped to from 3,400 places flattens into 71,400 entries, past both
# 16 a rule and the floor of 65,536; the restore is refused with the
# kernel's reason and the old rules stay.  A chain of 14 rules jumped to
# from 4,500 places, 67,500 entries but fewer than 16 a rule, loads.
#
# Bounded builds (kernel/tree.c): the firewall loads whole, "tree builds
# cut short" counts it, statistics/forward shows tested leaves, traffic
# meets its verdicts (everything from the client ends in LOG_DROP) and
# nf-hipac-save writes what iptables-legacy-save writes of the same file.
#
# The kernel log must stay clean throughout.
#
# nfhp-timeout: 900

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
nfhp_require_cmd python3 iptables-legacy-restore iptables-legacy-save
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

real=$NFHP_TOP/selftests/nf_hipac/diff/real-world/real-world-2784.rules
[ -r "$real" ] || { nfhp_log "FAIL: $real missing"; exit 1; }
tmp=$(mktemp -d /tmp/nfhp-bounded.XXXXXX)
ns_ipt=nfhp-bipt-$$
trap 'nfhp_cleanup; nfhp_netns_destroy $ns_ipt; rm -rf $tmp' EXIT
# The matches and targets of the firewall, for both nf-hipac's xt
# fallback and iptables-legacy.
for m in iptable_filter xt_mac xt_recent xt_limit xt_LOG ipt_REJECT \
	 xt_sctp xt_multiport xt_state xt_conntrack; do
	modprobe "$m" 2>/dev/null
done
# The debug kernel of make check-debug is built without the sctp match
# (selftests/debug/debug.config): there the firewall goes without its
# three sctp rules, for both tools alike.
if ! grep -qx sctp /proc/net/ip_tables_matches 2>/dev/null; then
	grep -v -e '-m sctp' "$real" > "$tmp/real-nosctp.rules"
	real=$tmp/real-nosctp.rules
	nfhp_log "no sctp match in this kernel: the firewall without its sctp rules"
fi
dmesg_before=$(dmesg | wc -l)

r() { nfhp_in $ns_router "$@"; }
info() { in_ns $ns_router cat /proc/net/nf-hipac/info; }
stats() { in_ns $ns_router cat /proc/net/nf-hipac/statistics/forward; }

# field NAME - the number after "NAME:" in info.
field()
{
	info | awk -v k="$1:" 'index($0, k) == 1 {
		$0 = substr($0, length(k) + 1); print $1; exit }'
}

# stat NAME - the number after "NAME:" in statistics/forward (leading
# blanks of the name ignored).
stat()
{
	stats | awk -v k="$1:" '{ sub(/^ +/, "") } index($0, k) == 1 {
		$0 = substr($0, length(k) + 1); print $1; exit }'
}

# saved - the router's rule set as nf-hipac-save writes it, no comments,
# no counters.
saved()
{
	nfhp_save_in $ns_router | grep -v '^#' |
		sed 's/\[[0-9]*:[0-9]*\]$/[0:0]/'
}

# same_save FILE - the router's saved() is FILE (no /dev/fd in the VM for
# a process substitution).
same_save()
{
	saved >$tmp/now.save && diff -u "$1" $tmp/now.save
}

# The rule set in force before each attempt.
cat >$tmp/old.rules <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:old - [0:0]
-A FORWARD -p udp -m udp --dport 7001 -j DROP
-A FORWARD -p udp -j old
-A old -p udp -m udp --dport 7002 -j DROP
-A old -j RETURN
COMMIT
EOF

# old_rules_hold WHEN - the verdicts and the save of old.rules.
old_rules_hold()
{
	nfhp_check "$1: udp/7000 passes" udp_ok 7000
	nfhp_check "$1: udp/7001 is dropped" udp_fail 7001
	nfhp_check "$1: udp/7002 is dropped (chain old)" udp_fail 7002
	nfhp_check "$1: the ping passes" ping_ok
	nfhp_check "$1: nf-hipac-save unchanged" same_save $tmp/old.save
}

nfhp_check "the old rule set loads" \
	nfhp_restore_in $ns_router $tmp/old.rules
saved >$tmp/old.save
old_rules_hold "before"

# copies K - the firewall with its user chains copied K times, each copy
# jumped to by a copy of the built-in chains' rules; the last rule of
# FORWARD (-j LOG_DROP, which decides every packet) comes once, at the end.
copies()
{
	python3 - "$real" "$1" <<'EOF'
import re, sys
path, k = sys.argv[1], int(sys.argv[2])
lines = [l.rstrip("\n") for l in open(path) if not l.startswith("#")]
builtin = ("INPUT", "FORWARD", "OUTPUT")
user = [l[1:].split()[0] for l in lines
        if l.startswith(":") and l[1:].split()[0] not in builtin]
last = max(i for i, l in enumerate(lines) if l.startswith("-A FORWARD "))
chain = re.compile(r"(^:|^-A |-[jg] )(%s)(?= |$)" %
                   "|".join(map(re.escape, user)))
head = [l for l in lines if l.startswith(":") and l[1:].split()[0] in builtin]
decl, rules, hooks = [], [], []
for n in range(k):
    suf = "_%d" % n if n else ""
    for i, l in enumerate(lines):
        c = chain.sub(lambda m: m.group(1) + m.group(2) + suf, l)
        if l.startswith(":") and l[1:].split()[0] in user:
            decl.append(c)
        elif l.startswith("-A ") and i != last:
            (hooks if l.split()[1] in builtin else rules).append(c)
hooks.sort(key=lambda l: builtin.index(l.split()[1]))
print("\n".join(["*filter"] + head + decl + hooks + [lines[last]] + rules +
                ["COMMIT"]))
EOF
}

# interrupt SIG K WAIT - restore copies K of the firewall with -v and send
# SIG WAIT seconds after it says "committing".  Sets irc (the restore's
# exit status), ierr (its standard error) and ended (the seconds from the
# signal to its end).
interrupt()
{
	local sig=$1 k=$2 wait=$3 pid i

	ierr=$tmp/restore-$sig-$k.err
	copies "$k" >$tmp/big-$k.rules
	# A background job of a script ignores SIGINT; a restore started
	# from a terminal does not.
	env --default-signal=INT ip netns exec $ns_router \
		"$NFHP_BIN/nf-hipac-restore" -v $tmp/big-$k.rules 2>$ierr &
	pid=$!
	for i in $(seq 600); do
		grep -q 'committing' $ierr && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	sleep "$wait"
	sent=$(date +%s.%N)
	kill -s "$sig" $pid 2>/dev/null
	# (bash's word on a job it finds killed goes unsaid)
	wait $pid 2>/dev/null
	irc=$?
	ended=$(awk -v s="$sent" -v e="$(date +%s.%N)" \
		'BEGIN { printf "%.2f", e - s }')
}

# round SIG WANT - interrupt the restore with SIG until the signal lands
# in the commit (at most three times, with bigger rule sets); the restore
# must end with status WANT.
round()
{
	local sig=$1 want=$2 k=1 wait=0.5 stopped landed=0 try

	for try in 1 2 3; do
		stopped=$(field "commits stopped by signal")
		interrupt "$sig" $k $wait
		nfhp_log "SIG$sig, $(grep -c '^-A' $tmp/big-$k.rules) rules," \
			 "${wait}s after 'committing': exit $irc" \
			 "${ended}s after the signal"
		sed 's/^/    /' $ierr
		if [ "$(field "commits stopped by signal")" -gt "$stopped" ]; then
			landed=1
			break
		fi
		# The commit ended first, or the signal came before it: put
		# the old rules back if they went, and try with more work.
		same_save $tmp/old.save >/dev/null ||
			nfhp_restore_in $ns_router $tmp/old.rules
		k=$((k + 1))
		wait=$(awk -v w=$wait 'BEGIN { print w / 2 }')
	done
	nfhp_check "SIG$sig landed in the commit (try $try): commits stopped by signal counts it" \
		[ $landed = 1 ]
	nfhp_check "SIG$sig: the restore died of it (exit $irc)" \
		[ "$irc" = "$want" ]
}

# --- interrupted commits ----------------------------------------------------
round INT 130
nfhp_check "SIGINT: the restore said it was committing" \
	grep -q '^nf-hipac-restore: committing [0-9]* rules$' $ierr
nfhp_check "SIGINT: it said which line failed" \
	grep -q '^nf-hipac-restore: line [0-9]* failed$' $ierr
nfhp_check "SIGINT: and why (Operation canceled)" \
	grep -q '^nf-hipac-restore: .*Operation canceled' $ierr
nfhp_check "SIGINT: in the kernel's words" \
	grep -q '^nf-hipac-restore: kernel: interrupted by a signal: the old rules stay in force$' \
	$ierr
nfhp_check "SIGINT: and nothing committed" \
	bash -c "! grep -q 'rules committed' $ierr"
old_rules_hold "after SIGINT"

round KILL 137
old_rules_hold "after SIGKILL"
nfhp_check "after SIGKILL the transaction is free: a rule can be added" \
	r -A FORWARD -p udp -m udp --dport 7003 -j DROP
nfhp_check "and it drops udp/7003" udp_fail 7003
nfhp_check "and goes again" r -D FORWARD -p udp -m udp --dport 7003 -j DROP

# --- the flatten bound -------------------------------------------------------
# jumps M N - chain svc of M rules, jumped to from N places of FORWARD.
jumps()
{
	python3 - "$1" "$2" <<'EOF'
import sys
m, n = int(sys.argv[1]), int(sys.argv[2])
print("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
      ":OUTPUT ACCEPT [0:0]\n:svc - [0:0]")
for i in range(n):
    print("-A FORWARD -s 10.%d.%d.%d/32 -j svc" %
          (100 + i // 65536, i // 256 % 256, i % 256))
for j in range(m):
    print("-A svc -d 10.200.0.%d/32 -j ACCEPT" % (1 + j))
print("COMMIT")
EOF
}
jumps 20 3400 >$tmp/flat-big.rules
commits=$(field "commits")
nfhp_check "71,400 entries from 3,420 rules: the restore is refused" \
	bash -c "! ip netns exec $ns_router '$NFHP_BIN/nf-hipac-restore' \
		 $tmp/flat-big.rules 2>$tmp/flat.err"
sed 's/^/    /' $tmp/flat.err
nfhp_check "with the kernel's reason" \
	grep -q '^nf-hipac-restore: kernel: user chains reached from too many places: a hook would flatten into more than 16 entries a rule$' \
	$tmp/flat.err
nfhp_check "and nothing was committed" [ "$(field "commits")" = "$commits" ]
old_rules_hold "after the refused flatten"
jumps 14 4500 >$tmp/flat-ok.rules
nfhp_check "67,500 entries from 4,514 rules load" \
	nfhp_restore_in $ns_router $tmp/flat-ok.rules
nfhp_check "FORWARD has them: 67,501 entries with the policy's" \
	[ "$(stat "number of rules")" = 67501 ]
nfhp_check "the old rules are gone: udp/7001 passes" udp_ok 7001

# --- a bounded build: the firewall whole --------------------------------------
cut=$(field "tree builds cut short")
start=$(date +%s.%N)
nfhp_check "the firewall restores" \
	nfhp_restore_in $ns_router -v "$real"
nfhp_log "it took $(awk -v s="$start" -v e="$(date +%s.%N)" \
	'BEGIN { printf "%.1f", e - s }') s, its commit" \
	"$(awk 'BEGIN { printf "%.1f", ARGV[1] / 1e9 }' \
	   "$(field "last commit took")") s"
want="$(grep -c '^-A' "$real")/$(grep -c '^:' "$real")"
nfhp_check "its rules and chains, $want" \
	[ "$(field "total number of rules")/$(field "total number of chains")" = "$want" ]
nfhp_check "its build was cut short ($cut before)" \
	[ "$(field "tree builds cut short")" -gt "$cut" ]
stats | grep -E 'number of (rules|leaves)|tested' | sed 's/^/    /'
nfhp_check "statistics/forward: tested leaves" [ "$(stat "of which tested")" -gt 0 ]
nfhp_check "statistics/forward: tested entries" [ "$(stat "tested entries")" -gt 0 ]
nfhp_check "statistics/forward: largest tested leaf" \
	[ "$(stat "largest tested leaf")" -gt 0 ]

# Every packet from the client's veth0 (no vlan of the firewall) ends in
# "-A FORWARD -j LOG_DROP", and LOG_DROP's last rule drops it.
log_drops()
{
	r -L LOG_DROP -n -v -x | awk '$3 == "DROP" { print $1; exit }'
}
drops=$(log_drops)
nfhp_check "udp/7000 is dropped now" udp_fail 7000
nfhp_check "the ping is dropped" ping_fail
nfhp_check "by LOG_DROP's DROP ($drops before)" [ "$(log_drops)" -ge $((drops + 2)) ]

ip netns add $ns_ipt || nfhp_log "FAIL: netns $ns_ipt"
nfhp_check "iptables-legacy-restore takes the same file" \
	ip netns exec $ns_ipt iptables-legacy-restore "$real"
ip netns exec $ns_ipt iptables-legacy-save | grep -v '^#' |
	sed 's/\[[0-9]*:[0-9]*\]$/[0:0]/' >$tmp/ipt.save
nfhp_check "nf-hipac-save writes what iptables-legacy-save writes" \
	same_save $tmp/ipt.save

nfhp_check "the kernel log is clean" \
	bash -c "! dmesg | tail -n +$((dmesg_before + 1)) |
		 grep -E 'WARNING|BUG|Oops|refcount|KASAN|UBSAN|kmemleak|hung_task|blocked for more than|circular locking|suspicious RCU'"
exit $nfhp_rc
