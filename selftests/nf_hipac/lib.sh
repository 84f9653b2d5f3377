#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib.sh - shared topology and helpers for the nf-hipac selftests.
#
# Source it from a test; nf_hipac_setup builds this topology of three network
# namespaces joined by veth pairs (like tools/testing/selftests/netfilter):
#
#   client                 router                        server
#   veth0 10.0.1.2/24 <-> veth0 10.0.1.1   veth1 10.0.2.1 <-> veth0 10.0.2.2/24
#
# The router forwards (net.ipv4.ip_forward=1); client and server have default
# routes via the router, so client<->server traffic crosses the router's
# FORWARD hook, where nf-hipac classifies it.  Namespace names end in the
# test's PID, so tests can run in parallel; cleanup runs on EXIT.
#
# Tests exit 0 on success, 1 on failure and $ksft_skip (4) when something they
# need is missing.  Every helper returns non-zero on failure and prints
# nothing on success unless it says otherwise.

ksft_skip=4

NFHP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NFHP_BIN=${NFHP_BIN:-$NFHP_TOP/user/build}
# Seconds a connection attempt may take before it counts as blocked.
NFHP_WAIT=${NFHP_WAIT:-2}

# nfhp_scaled N - N times NFHP_TIMEOUT_SCALE (run_tests.sh sets it from the
# host's load; the debug kernel's boots multiply it further), rounded up:
# for waits that are not verdicts, such as a server's start.
nfhp_scaled()
{
	awk -v n="$1" -v s="${NFHP_TIMEOUT_SCALE:-1}" \
		'BEGIN { v = n * s; print v == int(v) ? v : int(v) + 1 }'
}
# How long nfhp_conn's server waits for its request before it gives up.
nfhp_server_life=$(nfhp_scaled 30)

ns_client=nfhp-client-$$
ns_router=nfhp-router-$$
ns_server=nfhp-server-$$

CLIENT_IP=10.0.1.2
ROUTER_CLIENT_IP=10.0.1.1
ROUTER_SERVER_IP=10.0.2.1
SERVER_IP=10.0.2.2
# Router interfaces as nf-hipac sees them (-i/-o matches).
ROUTER_CLIENT_IF=veth0
ROUTER_SERVER_IF=veth1

# iputils ping if installed, else busybox's (same -c/-W/-q options).
if command -v ping >/dev/null 2>&1; then
	NFHP_PING=ping
else
	NFHP_PING="busybox ping"
fi

# Set by nfhp_check on failure; tests finish with "exit $nfhp_rc".
nfhp_rc=0

# nfhp_log MSG... - print a message prefixed with the test name.  A
# message that comes 20 s or more after the one before it says when
# ("[at 312 s]", bash's SECONDS since the test started), so that a slow
# step shows in the log without a timestamp on every line.
nfhp_log_at=0
nfhp_log()
{
	local at=""

	[ $((SECONDS - nfhp_log_at)) -ge 20 ] && at=" [at $SECONDS s]"
	nfhp_log_at=$SECONDS
	echo "$(basename "$0"): $*$at"
}

# nfhp_skip MSG... - report why the test cannot run and exit with ksft_skip.
nfhp_skip()
{
	nfhp_log "SKIP: $*"
	exit $ksft_skip
}

# nfhp_require_cmd CMD... - skip the test unless every CMD is in $PATH.
nfhp_require_cmd()
{
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || nfhp_skip "$c not installed"
	done
}

# nfhp_require_hipac - skip the test unless the nf_hipac module is loaded and
# user/build/nf-hipac is built.
nfhp_require_hipac()
{
	[ -d /sys/module/nf_hipac ] || nfhp_skip "nf_hipac module not loaded"
	[ -x "$NFHP_BIN/nf-hipac" ] || nfhp_skip "$NFHP_BIN/nf-hipac not built"
}

# nfhp_insmod KO - load module file KO after modprobing the modules it
# depends on (insmod does not resolve dependencies such as x_tables).
nfhp_insmod()
{
	local dep

	for dep in $(modinfo -F depends "$1" | tr , ' '); do
		modprobe "$dep" || return 1
	done
	insmod "$1"
}

# nfhp_check DESC CMD... - run CMD, print "ok: DESC" or "FAIL: DESC" and
# remember a failure in $nfhp_rc.  Returns CMD's status.
nfhp_check()
{
	local desc=$1 rc

	shift
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		nfhp_log "ok: $desc"
	else
		nfhp_log "FAIL: $desc"
		nfhp_rc=1
	fi
	return $rc
}

# in_ns NS CMD... - run CMD inside namespace NS.
in_ns()
{
	local ns=$1

	shift
	ip netns exec "$ns" "$@"
}

# nfhp_bg_in NS CMD... - start CMD inside namespace NS in the background,
# for traffic that the test ends with kill -9 (nfhp_netns_destroy and the
# like).  The shell waiting for CMD would print "line N: PID Killed ..."
# then; that death is expected and goes unsaid, any other by a signal is
# printed.  CMD's own standard error passes through.
nfhp_bg_in()
{
	local ns=$1 rc

	shift
	{
		ip netns exec "$ns" "$@" 2>&3
		rc=$?
		[ $rc -le 128 ] || [ $rc -eq 137 ] ||
			nfhp_log "$ns: background '$*' died of signal" \
				 "$((rc - 128))"
	} 3>&2 2>/dev/null &
}

# nfhp_in NS ARGS... - run user/build/nf-hipac ARGS inside namespace NS
# (nf-hipac-save / nf-hipac-restore: nfhp_save_in / nfhp_restore_in).
nfhp_in()
{
	local ns=$1

	shift
	ip netns exec "$ns" "$NFHP_BIN/nf-hipac" "$@"
}

# nfhp_save_in NS ARGS... - run nf-hipac-save inside NS.
nfhp_save_in()
{
	local ns=$1

	shift
	ip netns exec "$ns" "$NFHP_BIN/nf-hipac-save" "$@"
}

# nfhp_restore_in NS ARGS... - run nf-hipac-restore inside NS (stdin passes
# through).
nfhp_restore_in()
{
	local ns=$1

	shift
	ip netns exec "$ns" "$NFHP_BIN/nf-hipac-restore" "$@"
}

# nfhp_netns_destroy NS... - kill everything running in the namespaces
# that exist and delete them.
nfhp_netns_destroy()
{
	local ns pid

	for ns in "$@"; do
		[ -e "/run/netns/$ns" ] || continue
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -9 "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}

# nfhp_cleanup - kill everything running in the test namespaces and delete
# them.  Installed as the EXIT trap by nf_hipac_setup.
nfhp_cleanup()
{
	nfhp_netns_destroy $ns_client $ns_router $ns_server
}
cleanup() { nfhp_cleanup; }

# nf_hipac_setup - build the client/router/server topology described at the
# top of this file and install the cleanup trap.  Skips the test if ip(8) or
# veth are missing; returns non-zero if any step fails.
nf_hipac_setup()
{
	local ns

	nfhp_require_cmd ip
	[ "$(id -u)" -eq 0 ] || nfhp_skip "must run as root"
	trap nfhp_cleanup EXIT

	# Rules match source ports 40000-49999 on purpose (NFHP_SPORT); an
	# ephemeral port drawn from there would meet them by chance.
	for ns in $ns_client $ns_router $ns_server; do
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up || return 1
		in_ns "$ns" sysctl -qw \
			net.ipv4.ip_local_port_range="50000 60999" || return 1
	done
	if ! ip link add veth0 netns $ns_client type veth \
			peer name veth0 netns $ns_router; then
		nfhp_skip "cannot create veth devices"
	fi
	ip link add veth1 netns $ns_router type veth \
		peer name veth0 netns $ns_server || return 1

	ip -n $ns_client addr add $CLIENT_IP/24 dev veth0 &&
	ip -n $ns_router addr add $ROUTER_CLIENT_IP/24 dev veth0 &&
	ip -n $ns_router addr add $ROUTER_SERVER_IP/24 dev veth1 &&
	ip -n $ns_server addr add $SERVER_IP/24 dev veth0 || return 1
	for ns in $ns_client $ns_router $ns_server; do
		ip -n "$ns" link set veth0 up || return 1
	done
	ip -n $ns_router link set veth1 up || return 1
	ip -n $ns_client route add default via $ROUTER_CLIENT_IP || return 1
	ip -n $ns_server route add default via $ROUTER_SERVER_IP || return 1
	in_ns $ns_router sysctl -qw net.ipv4.ip_forward=1 || return 1

	# The first packet waits for neighbour resolution; do it now so
	# later short timeouts measure filtering, not ARP.
	in_ns $ns_client $NFHP_PING -q -c1 -W5 $ROUTER_CLIENT_IP >/dev/null &&
	in_ns $ns_server $NFHP_PING -q -c1 -W5 $ROUTER_SERVER_IP >/dev/null
}

# nf_hipac_setup6 [PLEN] - IPv6 on nf_hipac_setup()'s topology: CLIENT6,
# ROUTER_CLIENT6, ROUTER_SERVER6 and SERVER6 (fd00:1::2, fd00:1::1,
# fd00:2::1 and fd00:2::2 unless set before) with prefix length PLEN (64),
# without duplicate address detection, which would hold them back for a
# second or more; default routes through the router, which forwards.
# Returns once an echo crosses the router, so that the tests' first short
# waits measure filtering, not neighbour discovery.
nf_hipac_setup6()
{
	local plen=${1:-64} i

	: "${CLIENT6:=fd00:1::2}" "${ROUTER_CLIENT6:=fd00:1::1}"
	: "${ROUTER_SERVER6:=fd00:2::1}" "${SERVER6:=fd00:2::2}"
	ip -n $ns_client addr add $CLIENT6/$plen dev veth0 nodad &&
	ip -n $ns_router addr add $ROUTER_CLIENT6/$plen dev veth0 nodad &&
	ip -n $ns_router addr add $ROUTER_SERVER6/$plen dev veth1 nodad &&
	ip -n $ns_server addr add $SERVER6/$plen dev veth0 nodad &&
	ip -n $ns_client -6 route add default via $ROUTER_CLIENT6 &&
	ip -n $ns_server -6 route add default via $ROUTER_SERVER6 &&
	in_ns $ns_router sysctl -qw net.ipv6.conf.all.forwarding=1 || return 1

	# Turning forwarding on makes the router's interfaces routers anew,
	# and the first echo may be lost while both sides resolve each
	# other: retry, as long as a loaded host may need.
	for i in $(seq "$(nfhp_scaled 10)"); do
		in_ns $ns_client $NFHP_PING -6 -q -c1 -W1 $SERVER6 \
			>/dev/null 2>&1 && return 0
	done
	return 1
}

# ping_ok [NS [DST]] - one ICMP echo from NS (default client) to DST (default
# the server) must be answered within $NFHP_WAIT seconds.
ping_ok()
{
	in_ns "${1:-$ns_client}" $NFHP_PING -q -c1 -W"$NFHP_WAIT" "${2:-$SERVER_IP}" \
		>/dev/null 2>&1
}

# ping_fail [NS [DST]] - the same echo must get no answer.
ping_fail()
{
	! in_ns "${1:-$ns_client}" $NFHP_PING -q -c1 -W"$NFHP_WAIT" "${2:-$SERVER_IP}" \
		>/dev/null 2>&1
}

# S ARGS... - nf-hipac-set in the router; r4, r6 the rule tools there.
S() { in_ns $ns_router "$NFHP_BIN/nf-hipac-set" "$@"; }
r4() { in_ns $ns_router "$NFHP_BIN/nf-hipac" "$@"; }
r6() { in_ns $ns_router "$NFHP_BIN/nf-hipac6" "$@"; }

# ipset_both ARGS... - the same command, by ipset in the server and by
# nf-hipac-set in the router.
ipset_both() { in_ns $ns_server ipset "$@" && S "$@"; }
# ipset_both_say CODE TEXT ARGS... - ipset and nf-hipac-set exit CODE and
# say TEXT on stderr for the same command.
ipset_both_say()
{
	local code=$1 text=$2

	shift 2
	fails "$code" "$text" in_ns $ns_server ipset "$@" &&
	fails "$code" "$text" S "$@"
}

# entries SET - the number of entries the router's listing of SET reports.
entries() { S list -terse "$1" | sed -n 's/^Number of entries: //p'; }

# fails CODE TEXT CMD... - CMD exits with CODE and says TEXT on stderr;
# else what it did is logged.
fails()
{
	local code=$1 text=$2 out rc

	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne "$code" ] || [[ $out != *"$text"* ]]; then
		nfhp_log "  exit $rc (want $code): $out"
		return 1
	fi
}

# nfhp_conn PROTO PORT [SRC_NS [DST_NS [DST_IP]]] - start a one-shot tcp or
# udp echo server on PORT in DST_NS (default server), send one request from
# SRC_NS (default client) to DST_IP (default $SERVER_IP; an IPv6 address
# makes both ends IPv6) and succeed iff the reply arrives within $NFHP_WAIT
# seconds.  Set NFHP_SPORT (40000-49999,
# never ephemeral) to fix the client's source port.  Both ends are
# tools/conn.c ($NFHP_BIN/nfhp-conn): two python3 starts took seconds of
# every check under TCG.
nfhp_conn()
{
	local proto=$1 port=$2 src=${3:-$ns_client} dst=${4:-$ns_server}
	local ip=${5:-$SERVER_IP} spid rc

	# The server returns once it listens, and prints its PID.
	spid=$("$NFHP_BIN/nfhp-conn" -n "$dst" server "$proto" "$port" \
		$nfhp_server_life "$([[ $ip == *:* ]] && echo 6)")
	if [ -z "$spid" ]; then
		nfhp_log "server on $proto/$port in $dst did not start"
		return 2
	fi
	"$NFHP_BIN/nfhp-conn" -n "$src" client \
		"$proto" "$ip" "$port" "${NFHP_SPORT:-0}" "$NFHP_WAIT"
	rc=$?
	kill "$spid" 2>/dev/null
	return $rc
}

# nfhp_refused PROTO PORT [SRC_NS [DST_NS [DST_IP]]] - as nfhp_conn, with
# the echo server listening, but succeed iff the request is refused at
# once (a TCP reset, an ICMP port unreachable): a REJECT on the way.
nfhp_refused() { NFHP_CONN_REFUSED=1 nfhp_conn "$@"; }

# tcp_ok PORT [SRC_NS [DST_NS [DST_IP]]] - a TCP connection client->server
# (by default) on PORT must be answered.
tcp_ok() { nfhp_conn tcp "$@"; }

# tcp_fail PORT [...] - the TCP connection must not get through.  Returns 2
# (not success) if the server could not even be started.
tcp_fail()
{
	nfhp_conn tcp "$@"
	[ $? -eq 1 ]
}

# udp_ok PORT [SRC_NS [DST_NS [DST_IP]]] - a UDP request/reply client->server
# (by default) on PORT must get through.
udp_ok() { nfhp_conn udp "$@"; }

# udp_fail PORT [...] - the UDP request or its reply must be blocked.
udp_fail()
{
	nfhp_conn udp "$@"
	[ $? -eq 1 ]
}
