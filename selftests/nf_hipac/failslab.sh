#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault injection (failslab) into the module's allocations during inserts,
# deletes, replaces, flushes, restores and their commits.  Needs a kernel
# with CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS (make
# check-debug); on Debian's kernel it is skipped.
#
# Sweep: tools/failnth.so (LD_PRELOAD into nf-hipac) writes N to
# /proc/thread-self/fail-nth right before the M-th netlink send of the
# command, so exactly the N-th slab allocation the module (and netlink)
# makes for that request fails.  For every send M of every command, N runs
# 1, 2, 3... (then in growing steps) until the request makes fewer than N
# allocations.  After every injected failure:
#
#   - the command exits non-zero without crashing, and the rule set
#     (nf-hipac -L -n) is exactly the one from before, or
#   - the command succeeded (the failure was absorbed, e.g. kvmalloc fell
#     back to vmalloc) and the rule set is exactly the new one, or
#   - the command failed but the change is in: allowed only when the
#     failed allocation was the netlink ack's, as the call trace failslab
#     logs for it says, or, for the ack's data, whose failure logs
#     nothing, the ENOBUFS the command then receives (counted as "ack
#     lost").  Which allocation that is moves with timing: a request does
#     not always make the same number.
#
# Anything else (a half-applied rule set, a success that did nothing, a
# crash) fails the test.  After each command's sweep nf-hipac-save
# (without counters) must print what it printed before.  A second phase uses failslab's own knobs
# (task-filter, make-it-fail around each send, probability, interval,
# times) for random failures during restores.  At the end real packets
# must still classify as before.  The number of injected failures is
# printed; KASAN, lockdep and kmemleak are the harness's business.  The
# kernel log between "nfhp-failslab: begin" and "nfhp-failslab: end" holds
# the expected allocation-failure reports (vmalloc errors with a call
# trace).
#
#	NFHP_FAILSLAB_RULES=N	rules in the base rule set (default 200)
#	NFHP_FAILSLAB_FULL=N	every N up to this, then growing steps
#				(default 12)
#	NFHP_FAILSLAB_RANDOM=N	restores in the random phase (default 10)
#
# nfhp-timeout: 2400

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
fs=/sys/kernel/debug/failslab
[ -d /sys/kernel/debug/failslab ] ||
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -d $fs ] || nfhp_skip "no $fs: this kernel lacks CONFIG_FAILSLAB or" \
	"CONFIG_FAULT_INJECTION_DEBUG_FS (as Debian's); make check-debug" \
	"runs this test"
[ -e /proc/self/fail-nth ] || nfhp_skip "no /proc/self/fail-nth"
nfhp_require_cmd gcc python3
nf_hipac_setup || { nfhp_log "FAIL: topology setup"; exit 1; }

NRULES=${NFHP_FAILSLAB_RULES:-200}
FULL=${NFHP_FAILSLAB_FULL:-12}
NRANDOM=${NFHP_FAILSLAB_RANDOM:-10}
tmp=$(mktemp -d /tmp/nfhp-failslab.XXXXXX)
so=$tmp/failnth.so
saved_fs=

# Put failslab back as it was, whatever happens.
restore_failslab()
{
	local kv

	for kv in $saved_fs; do
		echo "${kv#*=}" >"${kv%%=*}" 2>/dev/null
	done
	echo "nfhp-failslab: end" >/dev/kmsg
}
trap 'restore_failslab; nfhp_cleanup; rm -rf $tmp' EXIT

gcc -O2 -Wall -shared -fPIC -o $so "$(dirname "$0")/tools/failnth.c" -ldl ||
	{ nfhp_log "FAIL: cannot build failnth.so"; exit 1; }

# fail-nth fails the n-th fault point of any kind: page allocations that
# cannot reclaim count too where the kernel has fail_page_alloc.
traced=$fs
[ -d /sys/kernel/debug/fail_page_alloc ] &&
	traced="$traced /sys/kernel/debug/fail_page_alloc"
for k in probability interval times space task-filter \
	 ignore-gfp-wait; do
	saved_fs="$saved_fs $fs/$k=$(cat $fs/$k)"
done
for d in $traced; do
	for k in verbose verbose_ratelimit_interval_ms verbose_ratelimit_burst; do
		saved_fs="$saved_fs $d/$k=$(cat $d/$k)"
	done
done
# fail-nth ignores probability, interval, times and space; but GFP_KERNEL
# allocations are only failed with ignore-gfp-wait off.  verbose=2 logs a
# call trace for every failure, which tells a lost ack (check_after()).
echo N >$fs/ignore-gfp-wait
for d in $traced; do
	echo 2 >$d/verbose
	echo 1 >$d/verbose_ratelimit_interval_ms
	echo 100000 >$d/verbose_ratelimit_burst
done
echo 0 >$fs/probability
echo nfhp-failslab: begin >/dev/kmsg

r() { nfhp_in $ns_router "$@"; }
# state - the router's rule set, numeric (-S and save look every protocol
# number up in /etc/protocols, slow over the VM's 9p); checked after every
# injected failure.  save_state - nf-hipac-save without counters, checked
# after every command's sweep.
state() { r -L -n; }
save_state() { nfhp_save_in $ns_router | sed -e 's/\[[0-9]*:[0-9]*\]//' -e '/^#/d'; }

# rules FILLER_OFFSET - a rule set of $NRULES rules; filler rules match
# nothing of the test traffic.
rules()
{
	echo "*filter"
	echo ":INPUT ACCEPT [0:0]"
	echo ":FORWARD DROP [0:0]"
	echo ":OUTPUT ACCEPT [0:0]"
	echo ":user - [0:0]"
	echo "-A FORWARD -m state --state ESTABLISHED,RELATED -j ACCEPT"
	echo "-A FORWARD -p tcp --dport 8080 -j user"
	echo "-A FORWARD -p udp --dport 5353 -j ACCEPT"
	awk -v n="$NRULES" -v o="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "-A FORWARD -s 172.%d.%d.0/24 -p tcp --dport %d -j %s\n",
				16 + (i + o) % 16, int((i + o) / 16) % 256,
				1 + (i * 7 + o) % 60000, i % 3 ? "ACCEPT" : "DROP"
	}'
	echo "-A FORWARD -p tcp --dport 8081 -j DROP"
	echo "-A user -j ACCEPT"
	echo "COMMIT"
}
rules 0 >$tmp/base.rules
rules 1000 >$tmp/other.rules
nfhp_check "load the base rule set ($NRULES rules)" \
	nfhp_restore_in $ns_router <$tmp/base.rules || exit 1
state >$tmp/base.state
save_state >$tmp/base.save

classify()
{
	nfhp_check "$1: tcp/8080 accepted" tcp_ok 8080
	nfhp_check "$1: tcp/8081 dropped" tcp_fail 8081
	nfhp_check "$1: udp/5353 accepted" udp_ok 5353
	nfhp_check "$1: ping dropped" ping_fail
}
classify "before"

injected=0	# failures injected
clean=0		# ... that left the old rule set and an error
absorbed=0	# ... after which the command still succeeded
acklost=0	# ... that failed the ack of an applied change
acksilent=0	# ... of which the ack's data, told by ENOBUFS
marks=0		# commands run with a failure aimed, each marked in the log
bad=0

# back_to_base - reload the base rule set after a change went in.
back_to_base()
{
	nfhp_restore_in $ns_router <$tmp/base.rules >/dev/null 2>&1
	state | cmp -s - $tmp/base.state && return 0
	nfhp_log "FAIL: cannot get the base rule set back"
	nfhp_rc=1
	exit 1
}

# run_cmd INPUT ARGS... - run nf-hipac ARGS (nf-hipac-restore when ARGS
# is "restore") in the router with stdin from INPUT and the environment
# in the caller's array env.
run_cmd()
{
	local input=$1

	shift
	if [ "$1" = restore ]; then
		ip netns exec $ns_router env "${env[@]}" \
			"$NFHP_BIN/nf-hipac-restore" <"$input"
	else
		ip netns exec $ns_router env "${env[@]}" \
			"$NFHP_BIN/nf-hipac" "$@" <"$input"
	fi
}

# traced MARK - the kernel log from MARK on: the report and call trace of
# the failure injected after it, if it logged one.
traced() { dmesg | sed -n "/$1\$/,\$p" | head -60; }

# ack_failed MARK - did the failure injected after MARK hit the netlink
# ack?  Its call trace says so.  A failure of a __GFP_NOWARN allocation
# logs nothing; the ack's data is one (kmalloc_reserve()), and when it
# fails netlink_ack() sets ENOBUFS on the socket instead, which
# failnth.so saw if it wrote "reply lost" to sweep's report.  Either way
# the command must have said that the change may have taken effect.
ack_failed()
{
	if ! grep -q "answer was lost" $tmp/out; then
		nfhp_log "the command did not say its answer was lost:"
		sed 's/^/    /' $tmp/out
		return 1
	fi
	traced "$1" | grep -q 'netlink_ack+' && return 0
	traced "$1" | grep -q 'FAULT_INJECTION' && return 1
	grep -q 'reply lost' $tmp/report || return 1
	acksilent=$((acksilent + 1))
}

# check_after WHAT RC MARK - classify the outcome of one injected failure
# against $tmp/base.state (before) and $tmp/new.state (the command's
# effect); MARK is the kernel log line written before the command.
check_after()
{
	local what=$1 rc=$2 mark=$3

	state >$tmp/now.state
	if [ $rc -ge 128 ]; then
		nfhp_log "FAIL: $what: killed by signal $((rc - 128))"
		bad=$((bad + 1))
		back_to_base
	elif [ $rc -ne 0 ] && cmp -s $tmp/now.state $tmp/base.state; then
		clean=$((clean + 1))
	elif [ $rc -eq 0 ] && cmp -s $tmp/now.state $tmp/new.state; then
		absorbed=$((absorbed + 1))
		back_to_base
	elif [ $rc -ne 0 ] && cmp -s $tmp/now.state $tmp/new.state; then
		if ack_failed "$mark"; then
			acklost=$((acklost + 1))
		else
			nfhp_log "FAIL: $what: the change went in but the command failed"
			traced "$mark" | grep -m 12 -E '^\[.*\] +[a-z_]' |
				sed 's/^/    /'
			bad=$((bad + 1))
		fi
		back_to_base
	else
		nfhp_log "FAIL: $what: exit $rc and a rule set that is neither the old nor the new one"
		sed 's/^/    /' $tmp/out
		echo "    old -> now:"
		diff $tmp/base.state $tmp/now.state | head -20 | sed 's/^/    /'
		echo "    new -> now:"
		diff $tmp/new.state $tmp/now.state | head -20 | sed 's/^/    /'
		bad=$((bad + 1))
		back_to_base
	fi
}

# sweep NAME INPUT ARGS... - inject a failure at every allocation of
# every send of the command.
sweep()
{
	local name=$1 input=$2 m n rc out rep reached mark count=0
	local env

	shift 2
	env=()
	run_cmd "$input" "$@" >/dev/null 2>&1 ||
		{ nfhp_log "FAIL: $name fails without faults"; nfhp_rc=1; return; }
	state >$tmp/new.state
	back_to_base
	cmp -s $tmp/new.state $tmp/base.state &&
		{ nfhp_log "FAIL: $name changes nothing"; nfhp_rc=1; return; }

	rep=$tmp/report
	out=$tmp/out
	for ((m = 1; ; m++)); do
		n=1
		reached=0
		while :; do
			rm -f $rep
			env=(LD_PRELOAD=$so NFHP_FAILNTH_SEND=$m NFHP_FAILNTH_N=$n
			     NFHP_FAILNTH_REPORT=$rep)
			marks=$((marks + 1))
			mark="nfhp-failslab: try $marks, send $m, allocation $n"
			echo "$mark" >/dev/kmsg
			run_cmd "$input" "$@" >$out 2>&1
			rc=$?
			# No report: the command makes fewer than $m sends.  No
			# "injected": send $m makes fewer than $n allocations.
			# Either way it ran without a fault: undo it.
			if [ ! -e $rep ] || ! grep -q injected $rep; then
				[ -e $rep ] && reached=1
				back_to_base
				break
			fi
			reached=1
			injected=$((injected + 1))
			count=$((count + 1))
			check_after "$name: send $m, allocation $n" $rc "$mark"
			if [ $n -lt $FULL ]; then
				n=$((n + 1))
			else
				n=$((n + n / 3))
			fi
		done
		[ $reached = 1 ] || break
	done
	save_state >$tmp/now.save
	cmp -s $tmp/now.save $tmp/base.save ||
		{ nfhp_log "FAIL: $name: nf-hipac-save differs after the sweep"; bad=$((bad + 1)); }
	nfhp_log "$name: $count failures injected over $((m - 1)) sends"
	[ $count -gt 0 ] || { nfhp_log "FAIL: $name: nothing injected"; nfhp_rc=1; }
}

: >$tmp/empty
sweep "-A" $tmp/empty -A FORWARD -p tcp --dport 7777 -j DROP
sweep "-I" $tmp/empty -I FORWARD 5 -p udp -s 10.9.0.0/16 --dport 7778 -j ACCEPT
sweep "-D by position" $tmp/empty -D FORWARD 10
sweep "-D by rule" $tmp/empty -D FORWARD -p tcp --dport 8081 -j DROP
sweep "-R" $tmp/empty -R FORWARD 4 -p tcp --dport 7779 -j ACCEPT
sweep "-N" $tmp/empty -N newchain
sweep "-P" $tmp/empty -P FORWARD ACCEPT
sweep "-F user" $tmp/empty -F user
sweep "restore of $NRULES rules" $tmp/other.rules restore

# Random failures with failslab's own filter: make-it-fail is set around
# each send only, and 1 in 100 of the allocations fails, at most $times.
# One line a failure: their call traces would flood the console.
times=100000
echo 1 >$fs/verbose
echo Y >$fs/task-filter
echo 1 >$fs/interval
echo 0 >$fs/space
echo $times >$fs/times
echo 1 >$fs/probability
nfhp_restore_in $ns_router <$tmp/other.rules && state >$tmp/other.state
back_to_base
random_ok=0
for ((i = 0; i < NRANDOM; i++)); do
	ip netns exec $ns_router env LD_PRELOAD=$so NFHP_FAILNTH_TASK=1 \
		"$NFHP_BIN/nf-hipac-restore" <$tmp/other.rules >$tmp/out 2>&1
	rc=$?
	state >$tmp/now.state
	if [ $rc -ge 128 ]; then
		nfhp_log "FAIL: random restore $i: killed by signal $((rc - 128))"
		bad=$((bad + 1))
	elif cmp -s $tmp/now.state $tmp/base.state; then
		[ $rc -ne 0 ] || { nfhp_log "FAIL: random restore $i: exit 0 but no change"; bad=$((bad + 1)); }
	elif cmp -s $tmp/now.state $tmp/other.state; then
		random_ok=$((random_ok + 1))
	else
		nfhp_log "FAIL: random restore $i: a half-applied rule set"
		bad=$((bad + 1))
	fi
	back_to_base
done
echo 0 >$fs/probability
random=$((times - $(cat $fs/times)))
injected=$((injected + random))
nfhp_log "random phase: $random failures in $NRANDOM restores ($random_ok went through)"

nfhp_log "injected failures: $injected (swept $((injected - random)):" \
	"$clean clean errors, $absorbed absorbed, $acklost lost acks ($acksilent by ENOBUFS);" \
	"random $random)"
nfhp_check "every injected failure handled cleanly" [ $bad -eq 0 ]
nfhp_check "failures were injected" [ $injected -gt 0 ]
save_state >$tmp/final.save
nfhp_check "nf-hipac-save output is the one from before" \
	cmp -s $tmp/final.save $tmp/base.save
classify "after"
# The injected failures' own reports carry call traces, whose frames on a
# lockdep kernel name lockdep functions: frames are no finding (as in
# selftests/vm/stage2); a real report still has its BUG:/WARNING: line.
if dmesg | sed -n '/nfhp-failslab: begin/,$p' |
	grep -vE 'Call Trace|\+0x[0-9a-f]+/0x[0-9a-f]+' |
	grep -E 'BUG:|WARNING:|KASAN|UBSAN|lockdep|general protection|refcount' \
	>$tmp/splat; then
	nfhp_log "FAIL: kernel reports during fault injection:"
	cat $tmp/splat
	nfhp_rc=1
fi
nfhp_check "router: flush" r -F

exit $nfhp_rc
