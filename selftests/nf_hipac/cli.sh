#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cli.sh - nf-hipac, nf-hipac-save and nf-hipac-restore behave like
# iptables.  Every command runs twice: nf-hipac in one network namespace,
# the real iptables (legacy, whose messages nf-hipac words like) in
# another, and the exit code, the output and the error message must be the
# same once the program name is swapped.  No packet flows in either
# namespace, so every counter stays at what the commands set.
#
#   nf-hipac  in nfhp-cli-PID          iptables-legacy in nfhp-ipt-PID
#
# Then the save and restore tools: iptables-save layout, the round trip
# save -> restore -> save, --test, --noflush, --counters, and failing
# restores (a kernel error, a parse error) that must leave the old rule
# set in place.
#
# nfhp-timeout: 1500

source "$(dirname "$0")/lib.sh"

nfhp_require_hipac
if command -v iptables-legacy >/dev/null 2>&1; then
	IPT=iptables-legacy
else
	nfhp_skip "iptables-legacy not installed (the reference)"
fi
[ "$(id -u)" -eq 0 ] || nfhp_skip "must run as root"

ns_h=nfhp-cli-$$
ns_i=nfhp-ipt-$$
tmp=$(mktemp -d /tmp/nfhp-cli.XXXXXX)

cli_cleanup()
{
	ip netns del $ns_h 2>/dev/null
	ip netns del $ns_i 2>/dev/null
	rm -rf "$tmp"
}
trap cli_cleanup EXIT
ip netns add $ns_h && ip netns add $ns_i || { nfhp_log "FAIL: netns"; exit 1; }
# iptables-legacy needs the x_tables filter table.
modprobe iptable_filter 2>/dev/null

H() { ip netns exec $ns_h "$NFHP_BIN/nf-hipac" "$@"; }
I() { ip netns exec $ns_i $IPT "$@"; }
hsave() { ip netns exec $ns_h "$NFHP_BIN/nf-hipac-save" "$@"; }
isave() { ip netns exec $ns_i $IPT-save "$@"; }
hrestore() { ip netns exec $ns_h "$NFHP_BIN/nf-hipac-restore" "$@"; }
irestore() { ip netns exec $ns_i $IPT-restore "$@"; }

fail()
{
	nfhp_log "FAIL: $*"
	nfhp_rc=1
}

pass()
{
	nfhp_log "ok: $*"
}

# iptables' messages with nf-hipac's name; the second line nf-hipac adds
# (the kernel's own reason) has no iptables counterpart.
norm_err()
{
	sed -e 's/^iptables\( v[0-9.]* ([a-z_]*)\)\{0,1\}: /nf-hipac: /' \
	    -e 's/^nf-hipac\( v[0-9.]*\)\{0,1\}: /nf-hipac: /' \
	    -e "s/\`iptables -h' or 'iptables --help'/\`nf-hipac -h' or 'nf-hipac --help'/" \
	    -e '/^nf-hipac: kernel: /d'
}

# Comments and dates differ by nature.
norm_save()
{
	grep -v '^#'
}

# both DESC ARGS... - run "nf-hipac ARGS" and "iptables ARGS"; exit code,
# standard output and error message must agree.
both()
{
	local desc=$1 hrc irc

	shift
	H "$@" >$tmp/h.out 2>$tmp/h.err
	hrc=$?
	I "$@" >$tmp/i.out 2>$tmp/i.err
	irc=$?
	norm_err <$tmp/h.err >$tmp/h.msg
	norm_err <$tmp/i.err >$tmp/i.msg
	if [ $hrc -ne $irc ]; then
		fail "$desc: exit $hrc, iptables $irc"
		sed 's/^/#   nf-hipac: /' $tmp/h.err
		sed 's/^/#   iptables: /' $tmp/i.err
	elif ! diff -u $tmp/i.out $tmp/h.out >$tmp/diff; then
		fail "$desc: output differs from iptables"
		sed 's/^/#   /' $tmp/diff
	elif ! diff -u $tmp/i.msg $tmp/h.msg >$tmp/diff; then
		fail "$desc: message differs from iptables"
		sed 's/^/#   /' $tmp/diff
	else
		pass "$desc (exit $hrc)"
	fi
}

# both_rc DESC ARGS... - as both, but only the exit codes must agree (the
# message is nf-hipac's own).
both_rc()
{
	local desc=$1 hrc irc

	shift
	H "$@" >/dev/null 2>$tmp/h.err
	hrc=$?
	I "$@" >/dev/null 2>$tmp/i.err
	irc=$?
	if [ $hrc -eq $irc ]; then
		pass "$desc (exit $hrc)"
	else
		fail "$desc: exit $hrc, iptables $irc"
		sed 's/^/#   nf-hipac: /' $tmp/h.err
		sed 's/^/#   iptables: /' $tmp/i.err
	fi
}

# same_lists DESC - every listing of the two rule sets is identical.
same_lists()
{
	local desc=$1

	both "$desc: -S" -S
	both "$desc: -L -n -v -x --line-numbers" -L -n -v -x --line-numbers
	both "$desc: -L -n" -L -n
	isave | norm_save >$tmp/i.save
	hsave | norm_save >$tmp/h.save
	if diff -u $tmp/i.save $tmp/h.save >$tmp/diff; then
		pass "$desc: nf-hipac-save equals iptables-save"
	else
		fail "$desc: nf-hipac-save differs from iptables-save"
		sed 's/^/#   /' $tmp/diff
	fi
}

# unchanged DESC BEFORE - nf-hipac's rule set still saves as BEFORE.
unchanged()
{
	norm_save <"$2" >$tmp/u.before
	hsave -c | norm_save >$tmp/u.now
	if diff -u $tmp/u.before $tmp/u.now >$tmp/diff; then
		pass "$1: rule set untouched"
	else
		fail "$1: rule set changed"
		sed 's/^/#   /' $tmp/diff
	fi
}

# expect DESC RC CMD... - CMD (a nf-hipac tool) exits with RC.
expect()
{
	local desc=$1 want=$2 rc

	shift 2
	"$@" >$tmp/x.out 2>$tmp/x.err
	rc=$?
	if [ $rc -eq "$want" ]; then
		pass "$desc (exit $rc)"
	else
		fail "$desc: exit $rc, expected $want"
		sed 's/^/#   /' $tmp/x.err
	fi
}

# --- building a rule set, command by command ---------------------------------

both "-L of the empty rule set" -L -n -v
both "-N foo" -N foo
both "-N bar" -N bar
both "-N of an existing chain" -N foo
both "-N of a built-in chain" -N INPUT
both "-A prefix, tcp port" -A INPUT -s 10.0.0.0/8 -p tcp --dport 22 -j ACCEPT
both "-A wildcard interface, multiport" \
	-A INPUT -i eth+ -p udp -m multiport --dports 53,67:68 -j DROP
both "-A state" -A INPUT -m state --state ESTABLISHED,RELATED -j ACCEPT
both "-A inverted address, icmp type, jump" \
	-A INPUT ! -s 192.168.1.1 -p icmp --icmp-type echo-request -j foo
both "-A syn, comment, RETURN" \
	-A foo -p tcp --syn -m comment --comment "new tcp" -j RETURN
both "-A iprange, jump" -A foo -m iprange --src-range 10.1.1.1-10.1.1.9 -j bar
both "-A ttl, length, goto" \
	-A FORWARD -o veth1 -m ttl --ttl-gt 5 -m length --length 100:200 -g bar
# nf-hipac matches marks by prefix: the mask must be high bits.
both "-A mark, no target" -A OUTPUT -m mark --mark 0x10000/0xffff0000
both "-A tcp flags" -A OUTPUT -p tcp --tcp-flags SYN,ACK SYN -j DROP
both "-A conntrack" -A bar -m conntrack --ctstate NEW,INVALID -j DROP
both "-I at a position" -I INPUT 2 -d 1.2.3.4 -j DROP
both "-I at the head" -I INPUT -p tcp --sport 1024:65535 -j ACCEPT
both "-R" -R INPUT 3 -d 5.6.7.8 -j ACCEPT
both "-A with counters" -A OUTPUT -d 9.9.9.9 -c 7 700 -j ACCEPT
same_lists "after -N/-A/-I/-R"

both "-L of one chain" -L INPUT -n -v --line-numbers
both "-L of one rule" -L INPUT 2 -n -v
both "-S of one chain" -S foo
both "-S of one rule" -S INPUT 3
both "-S -v" -S -v
both "-C of an existing rule" \
	-C INPUT -m state --state ESTABLISHED,RELATED -j ACCEPT
both "-C of a missing rule" -C INPUT -m state --state NEW -j ACCEPT
both "-C with a missing chain" -C nope -j ACCEPT

# --- errors leave everything as it was ---------------------------------------

hsave -c >$tmp/before
both "-A to a missing chain" -A nope -j ACCEPT
both "-A jumping to a missing chain" -A INPUT -j nosuch
both "-I past the end" -I INPUT 99 -j ACCEPT
both "-R past the end" -R INPUT 99 -j ACCEPT
both "-D past the end" -D INPUT 99
both "-D of a missing rule" -D INPUT -s 9.9.9.9 -j ACCEPT
both "-D from a missing chain" -D nope 1
both "-X of a referenced chain" -X bar
both "-X of a chain with rules" -X foo
both "-X of a missing chain" -X nope
# iptables says "Invalid argument. Run `dmesg'...", nf-hipac the reason.
both_rc "-X of a built-in chain" -X INPUT
both "-E of a built-in chain" -E INPUT other
both "-E onto an existing chain" -E foo bar
both "-E of a missing chain" -E nope other
both "-P of a user chain" -P foo DROP
both "-F of a missing chain" -F nope
both "-L of a missing chain" -L nope
both "-Z past the end" -Z INPUT 99
both "unknown option" -A INPUT --bogus
both "unknown match" -A INPUT -m nosuchmatch -j ACCEPT
both "rule number 0" -D INPUT 0
# No nat table here: iptables' exit code for a table it lacks, and the
# reason instead of its "Perhaps iptables or your kernel needs to be
# upgraded."
expect "-t nat -L" 3 H -t nat -L
if grep -qx "nf-hipac: table \`nat' is not available: nf-hipac holds the filter table only" \
	$tmp/x.err && [ "$(wc -l <$tmp/x.err)" -eq 1 ]; then
	pass "-t nat -L says nf-hipac holds the filter table only"
else
	fail "-t nat -L does not say why"
	sed 's/^/#   /' $tmp/x.err
fi
unchanged "after the failed commands" $tmp/before
same_lists "after the failed commands"

# --- deleting, renaming, policies, counters ----------------------------------

both "-D by number" -D INPUT 1
both "-D by rule" -D INPUT -d 5.6.7.8 -j ACCEPT
both "-E of a referenced chain" -E bar baz
both "-P DROP" -P FORWARD DROP
both "-P with counters" -P OUTPUT ACCEPT -c 3 300
both "-Z of one rule" -Z OUTPUT 3
both "-Z of a chain" -Z INPUT
same_lists "after -D/-E/-P/-Z"
both "-Z of everything" -Z
both "-F of a chain" -F foo
both "-X of an emptied chain" -X foo
both "-S after -F/-X" -S

# --- save and restore ---------------------------------------------------------

hsave -c >$tmp/s1
expect "restore of its own save" 0 hrestore -c $tmp/s1
hsave -c >$tmp/s2
norm_save <$tmp/s1 >$tmp/s1.n
norm_save <$tmp/s2 >$tmp/s2.n
if diff -u $tmp/s1.n $tmp/s2.n >$tmp/diff; then
	pass "save -> restore -> save is the identity"
else
	fail "save -> restore -> save changed the rule set"
	sed 's/^/#   /' $tmp/diff
fi
grep -q '^# Generated by nf-hipac-save v' $tmp/s1 &&
grep -q '^# Completed on ' $tmp/s1 &&
	pass "save header and trailer" || fail "save header and trailer"

cat >$tmp/new <<'EOF'
# a comment
*filter
:INPUT DROP [11:1100]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:web - [0:0]
:mail - [0:0]
[5:500] -A INPUT -p tcp -m multiport --dports 80,443 -j web
[6:600] -A INPUT -s 172.16.0.0/12 -p tcp --dport 25 -j mail
-A INPUT -i lo -j ACCEPT
[1:100] -A web -m comment --comment "web servers" -d 10.9.0.0/16 -j ACCEPT
-A mail -j RETURN
COMMIT
EOF
hsave -c >$tmp/before
expect "restore --test" 0 hrestore --test $tmp/new
unchanged "restore --test" $tmp/before

expect "restore --counters" 0 hrestore --counters $tmp/new
irestore --counters $tmp/new || fail "iptables-restore --counters"
isave -c | norm_save >$tmp/i.save
hsave -c | norm_save >$tmp/h.save
if diff -u $tmp/i.save $tmp/h.save >$tmp/diff; then
	pass "restore --counters: save -c equals iptables-save -c"
else
	fail "restore --counters: save -c differs from iptables-save -c"
	sed 's/^/#   /' $tmp/diff
fi

expect "restore without --counters" 0 hrestore $tmp/new
irestore $tmp/new
same_lists "after restore"

printf '*filter\n-A INPUT -s 7.7.7.7 -j DROP\n:mail - [0:0]\n-A mail -j ACCEPT\n:extra - [0:0]\nCOMMIT\n' \
	>$tmp/more
expect "restore --noflush" 0 hrestore --noflush $tmp/more
irestore --noflush $tmp/more || fail "iptables-restore --noflush"
same_lists "after restore --noflush"

# A kernel error on line 7 of 9: nothing of the file may stick.
hsave -c >$tmp/before
cat >$tmp/bad <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:late - [0:0]
-A INPUT -s 1.1.1.1 -j ACCEPT
-A missing -s 2.2.2.2 -j ACCEPT
-A INPUT -s 3.3.3.3 -j ACCEPT
COMMIT
EOF
expect "restore with a bad chain on line 7" 1 hrestore $tmp/bad
grep -q '^nf-hipac-restore: line 7 failed' $tmp/x.err &&
	pass "restore names line 7" ||
	{ fail "restore does not name line 7"; sed 's/^/#   /' $tmp/x.err; }
unchanged "failed restore" $tmp/before

# Batches are sent by a thread while the next is parsed (user/lib/nl.c):
# a failure in the first of several batches, and one in the last, must
# still be named by line, and nothing may stick.
{
	printf '*filter\n'
	for i in $(seq 1 3000); do
		if [ $i -eq 50 ]; then
			echo "-A missing -s 10.9.0.1 -j ACCEPT"
		else
			echo "-A FORWARD -s 10.$((i / 250)).$((i % 250)).0/24 -p tcp -m tcp --dport $i -j ACCEPT"
		fi
	done
	printf 'COMMIT\n'
} >$tmp/bigbad
expect "restore of 3000 rules failing on line 51" 1 hrestore $tmp/bigbad
grep -q '^nf-hipac-restore: line 51 failed' $tmp/x.err &&
	pass "restore names line 51 of 3002" ||
	{ fail "restore does not name line 51"; sed 's/^/#   /' $tmp/x.err; }
unchanged "failed restore of 3000 rules" $tmp/before
sed -e 's/^-A missing -s 10.9.0.1/-A FORWARD -s 10.9.0.1/' \
	-e 's/^-A FORWARD -s 10.11.249.0\/24/-A missing -s 10.11.249.0\/24/' \
	$tmp/bigbad >$tmp/bigbad2
expect "restore of 3000 rules failing on line 3000" 1 hrestore $tmp/bigbad2
grep -q '^nf-hipac-restore: line 3000 failed' $tmp/x.err &&
	pass "restore names line 3000 of 3002" ||
	{ fail "restore does not name line 3000"; sed 's/^/#   /' $tmp/x.err; }
unchanged "failed restore of 3000 rules, late failure" $tmp/before

sed 's/^-A INPUT -s 3.3.3.3 -j ACCEPT$/-A INPUT --no-such-option -j ACCEPT/' \
	$tmp/bad | sed 's/^-A missing/-A late/' >$tmp/bad2
expect "restore with a parse error on line 8" 2 hrestore $tmp/bad2
unchanged "restore with a parse error" $tmp/before

printf '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n' >$tmp/nat
expect "restore of another table" 1 hrestore $tmp/nat
unchanged "restore of another table" $tmp/before

printf '*filter\n-A INPUT -s 4.4.4.4 -j ACCEPT\n' >$tmp/nocommit
expect "restore without COMMIT" 1 hrestore $tmp/nocommit
unchanged "restore without COMMIT" $tmp/before

# --- a large restore goes through the batches --------------------------------

awk 'BEGIN {
	print "*filter"
	print ":INPUT ACCEPT [0:0]"
	print ":FORWARD ACCEPT [0:0]"
	print ":OUTPUT ACCEPT [0:0]"
	for (i = 0; i < 2000; i++)
		printf "-A FORWARD -s 10.%d.%d.0/24 -p tcp -m tcp --dport %d -j DROP\n",
			int(i / 256) % 256, i % 256, 1 + i % 60000
	print "COMMIT"
}' >$tmp/big
irestore $tmp/big || fail "iptables-restore of 2000 rules"
start=$(date +%s.%N)
expect "restore of 2000 rules" 0 hrestore $tmp/big
end=$(date +%s.%N)
nfhp_log "restore of 2000 rules took $(echo "$end - $start" | bc 2>/dev/null ||
	awk -v a=$start -v b=$end 'BEGIN { print b - a }') s"
norm_save <$tmp/big >$tmp/big.n
hsave | norm_save >$tmp/h.save
if diff -u $tmp/big.n $tmp/h.save >$tmp/diff; then
	pass "2000 rules saved back as restored"
else
	fail "2000 rules do not save back as restored"
	head -20 $tmp/diff | sed 's/^/#   /'
fi

# restore --noflush and jumps learn the chains without their rules.
nl_list() { ip netns exec $ns_h python3 "$(dirname "$0")/tools/nl_list.py" "$@"; }
got=$(nl_list)
[ "$got" = "chains=3 rules=2000" ] && pass "LIST: $got" ||
	fail "LIST: '$got', not chains=3 rules=2000"
got=$(nl_list --chains-only)
[ "$got" = "chains=3 rules=0" ] && pass "LIST chains only: $got" ||
	fail "LIST chains only: '$got', not chains=3 rules=0"
# -C asks for the rules equal to its rule only: none of the 2000, then the
# two "-j ACCEPT" among three more.
expect "-C of the last of 2000 rules" 0 \
	H -C FORWARD -s 10.7.207.0/24 -p tcp -m tcp --dport 2000 -j DROP
expect "-C of a rule like it" 1 \
	H -C FORWARD -s 10.7.207.0/24 -p tcp -m tcp --dport 2001 -j DROP
got=$(nl_list --accept-in FORWARD)
[ "$got" = "chains=1 rules=0 at=" ] && pass "LIST equal to a rule: $got" ||
	fail "LIST equal to a rule: '$got', not chains=1 rules=0 at="
H -I FORWARD 5 -j ACCEPT && H -A FORWARD -p tcp -j ACCEPT &&
	H -A FORWARD -j ACCEPT || fail "three rules more"
got=$(nl_list --accept-in FORWARD)
[ "$got" = "chains=1 rules=2 at=5,2003" ] &&
	pass "LIST equal to a rule: $got" ||
	fail "LIST equal to a rule: '$got', not chains=1 rules=2 at=5,2003"
expect "-C of the last of 2003 rules" 0 H -C FORWARD -j ACCEPT
H -D FORWARD 2003 && H -D FORWARD 2002 && H -D FORWARD 5 ||
	fail "three rules less"

# Breaking the last rule must abort all 2000.
hsave -c >$tmp/before
sed '$d' $tmp/big >$tmp/big-bad
printf -- '-A nowhere -j ACCEPT\nCOMMIT\n' >>$tmp/big-bad
expect "restore of 2000 rules, the last one bad" 1 hrestore --noflush $tmp/big-bad
grep -q "^nf-hipac-restore: line $(wc -l <$tmp/big-bad | awk '{ print $1 - 1 }') failed" \
	$tmp/x.err && pass "the bad line is named" ||
	{ fail "the bad line is not named"; sed 's/^/#   /' $tmp/x.err; }
unchanged "failed large restore" $tmp/before

# -w and -W: another tool's transaction (tools/nl_hold.py) holds the rule
# set.  Without -w a change fails at once, as iptables without the xtables
# lock; -w N gives up after N seconds; -w waits until it is released.
hold()
{
	ip netns exec $ns_h python3 "$(dirname "$0")/tools/nl_hold.py" "$1" \
		>$tmp/hold.out 2>&1 &
	hold_pid=$!
	for _ in $(seq 300); do
		grep -q held $tmp/hold.out && return 0
		sleep 0.1
	done
	return 1
}
hsave -c >$tmp/before
# Long enough for the three commands before the waiting one to find it
# held on a slow (debug) kernel.
if hold 15; then
	expect "-A while another transaction is open" 4 H -A FORWARD -j ACCEPT
	grep -q "Perhaps you want to use the -w option" $tmp/x.err &&
		pass "it says to use -w" ||
		{ fail "no hint at -w"; sed 's/^/#   /' $tmp/x.err; }
	expect "-w 1 -A while another transaction is open" 4 \
		H -w 1 -W 100000 -A FORWARD -j ACCEPT
	grep -q "Stopped waiting after 1s" $tmp/x.err &&
		pass "it stopped waiting after 1 s" ||
		{ fail "no 'Stopped waiting'"; sed 's/^/#   /' $tmp/x.err; }
	unchanged "refused while held" $tmp/before
	expect "-w -A waits for the transaction" 0 \
		H -w -W 100000 -A FORWARD -s 192.0.2.99 -j ACCEPT
	H -S FORWARD | grep -q -- "-s 192.0.2.99/32 -j ACCEPT" &&
		pass "the rule is in after the wait" ||
		fail "the rule is missing after the wait"
	wait $hold_pid
	hold 3
	printf '*filter\n-A FORWARD -s 192.0.2.98 -j ACCEPT\nCOMMIT\n' \
		>$tmp/w.rules
	expect "restore --noflush -w waits" 0 hrestore --noflush -w $tmp/w.rules
	H -S FORWARD | grep -q -- "-s 192.0.2.98/32 -j ACCEPT" &&
		pass "the restored rule is in after the wait" ||
		fail "the restored rule is missing after the wait"
	wait $hold_pid
	H -D FORWARD -s 192.0.2.99 -j ACCEPT
	H -D FORWARD -s 192.0.2.98 -j ACCEPT
else
	fail "nl_hold.py could not open a transaction"
	sed 's/^/#   /' $tmp/hold.out
fi

both "-F of everything" -F
both "-X of everything" -X
same_lists "at the end"

# --- the EXAMPLES of nf-hipac(8), run as written ---------------------------

sed -n '/^\.SH EXAMPLES/,/^\.SH DIFF/p' \
	"$(dirname "$0")/../../user/man/nf-hipac.8" |
	sed -n 's/^nf-hipac //p' >$tmp/examples
[ "$(wc -l <$tmp/examples)" -ge 8 ] || fail "nf-hipac(8) has no examples"
while read -r line <&3; do
	eval "set -- $line"
	both "nf-hipac(8): nf-hipac $line" "$@"
done 3<$tmp/examples
same_lists "after the examples of nf-hipac(8)"
both "-P INPUT ACCEPT after the examples" -P INPUT ACCEPT
both "-F after the examples" -F
both "-X after the examples" -X

# --- what iptables-legacy 1.8.9 takes that nf-hipac once refused -----------

# libxt_udp takes a reversed range (it matches no port), libxt_tcp not.
both "-A udp reversed port range" -A FORWARD -p udp --dport 60000:29 -j DROP
both "-A udp reversed source range, !" \
	-A FORWARD -p udp ! --sport 60000:29 --dport 53 -j ACCEPT
both "-A tcp reversed port range" -A FORWARD -p tcp --dport 60000:29 -j DROP
both "-A multiport range of one port" \
	-A FORWARD -p udp -m multiport --dports 5:5 -j DROP
# Netmasks with holes keep their mask, the address masked, as iptables.
both "-A netmasks with holes" \
	-A FORWARD -s 10.1.2.3/255.0.255.0 -d 1.2.3.4/255.255.0.255 -j ACCEPT
both "-A ! netmask with holes" -A FORWARD ! -s 10.0.0.0/255.0.255.0 -j DROP
both "-A octal and hex address parts" -A FORWARD -s 010.0.0.1 -d 0x0a.0.0.2
both "-A mask of two parts" -A FORWARD -s 10.0.0.0/255.0 -j DROP
expect "-A netmask of 2^31 ranges" 2 H -A FORWARD -s 10.0.0.0/0.0.0.1 -j DROP
grep -q "nf-hipac: mask \`0.0.0.1' stands for 2147483648 address ranges" \
	$tmp/x.err && pass "it says how many ranges" ||
	{ fail "no word on the ranges"; sed 's/^/#   /' $tmp/x.err; }
# QUEUE is iptables' standard verdict, not NFQUEUE.
both "-A QUEUE" -A FORWARD -p tcp -j QUEUE
both "-A QUEUE with no match" -A FORWARD -j QUEUE
both "-g QUEUE" -A FORWARD -g QUEUE
# Names and lists: one rule per address pair, -I puts them in reverse.
both "-A -s localhost" -A OUTPUT -s localhost -j ACCEPT
both "-A -s link-local (/etc/networks)" -A OUTPUT -s link-local/16 -j DROP
both "-A two sources, two destinations" \
	-A OUTPUT -s 1.1.1.1,2.2.2.2 -d '3.3.3.3, localhost' -j ACCEPT
both "-I two sources" -I OUTPUT 2 -s 5.5.5.1,5.5.5.2 -j DROP
both "-A x/0 in a list" -A OUTPUT -s 7.7.7.7/0,8.8.8.8 -p udp -j DROP
both "-C of every pair" -C OUTPUT -s 1.1.1.1,2.2.2.2 -d 3.3.3.3,127.0.0.1 -j ACCEPT
both "-C of a missing pair" -C OUTPUT -s 1.1.1.1,9.9.9.9 -d 3.3.3.3 -j ACCEPT
both "-D of every pair" -D OUTPUT -s 5.5.5.1,5.5.5.2 -j DROP
both "-D with a missing pair" -D OUTPUT -s 8.8.8.8,9.9.9.9 -p udp -j DROP
both "! with two addresses" -A OUTPUT ! -s 1.1.1.1,2.2.2.2 -j ACCEPT
both "-R with two addresses" -R OUTPUT 1 -d 1.1.1.1,2.2.2.2 -j ACCEPT
both "-A an empty name in a list" -A OUTPUT -s 1.1.1.1, -j ACCEPT
both "-A a name that does not resolve" -A OUTPUT -s nosuchhost.invalid -j ACCEPT
# A loop of jumps is refused once a hook reaches it, as ip_tables'
# mark_source_chains() refuses it when the table is replaced.
both "-N web2" -N web2
both "-A a chain jumping to itself" -A web2 -j web2
both "-A a jump from a hook to the loop" -A INPUT -j web2
both "-N a" -N a
both "-N b" -N b
both "-A a -j b" -A a -j b
both "-A b -g a, a loop of two" -A b -g a
# iptables takes this one (its check does not follow the goto back) and
# drops what reaches the loop when its jump stack overflows; nf-hipac,
# which flattens the jumps, refuses it (nf-hipac(8), BUGS), so iptables
# does not get the rule either.
expect "-A a jump from a hook to a loop closed by a goto" 1 \
	H -A FORWARD -i lo -j b
both "-E of a chain jumping to itself" -E web2 web3
both "-A a goto from a hook to the renamed loop" -A OUTPUT -g web3
both "-D of the jump to itself" -D web3 1
both "-A a jump to the chain without its loop" -A INPUT -j web3
same_lists "the drop-in forms"

printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' \
	':OUTPUT ACCEPT [0:0]' \
	'-A INPUT -p udp -m udp --sport 60000:29 -j DROP' \
	'-A INPUT -s 10.0.0.1,localhost -d 10.0.0.0/255.0.255.0 -j QUEUE' \
	'COMMIT' >$tmp/dropin
irestore $tmp/dropin || fail "iptables-restore of the drop-in forms"
expect "restore of the drop-in forms" 0 hrestore $tmp/dropin
same_lists "after restoring the drop-in forms"

# The loop is found when the table is replaced: at COMMIT.
printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':FORWARD ACCEPT [0:0]' \
	':OUTPUT ACCEPT [0:0]' ':web2 - [0:0]' '-A INPUT -s 1.1.1.1 -j ACCEPT' \
	'-A INPUT -j web2' '-A web2 -j web2' 'COMMIT' >$tmp/loop
irestore $tmp/loop 2>$tmp/i.err && fail "iptables-restore took the loop"
grep -q '^iptables-restore: line 9 failed' $tmp/i.err ||
	fail "iptables-restore does not fail at line 9"
hsave -c >$tmp/before
expect "restore of a loop a hook reaches" 1 hrestore $tmp/loop
grep -q '^nf-hipac-restore: line 9 failed' $tmp/x.err &&
	pass "restore names the COMMIT line, as iptables-restore" ||
	{ fail "restore does not name line 9"; sed 's/^/#   /' $tmp/x.err; }
unchanged "restore of a loop" $tmp/before
sed '/-A INPUT -j web2/d' $tmp/loop >$tmp/loop2
irestore $tmp/loop2 || fail "iptables-restore of a loop no hook reaches"
expect "restore of a loop no hook reaches" 0 hrestore $tmp/loop2
same_lists "after restoring a loop no hook reaches"

both "-F at the end" -F
both "-X at the end" -X

exit $nfhp_rc
