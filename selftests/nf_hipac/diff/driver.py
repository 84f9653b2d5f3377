#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Differential test: iptables-legacy versus nf-hipac, packet by packet.

Runs inside the tester namespace of topo.sh (iptables_diff.sh starts it).
For every rule set it loads the text with iptables-legacy-restore into
router A and with nf-hipac-restore into router B, flushes both conntrack
tables, sends the same frames through both (phase by phase, each phase
closed by an ARP barrier), files what comes out behind each router under
the IP id of the packet, and compares: where each packet arrived (or that
it was dropped), every frame byte for byte, the traffic the routers made
themselves, and the counters of every rule and policy
(iptables-legacy-save -c against nf-hipac-save -c).

With --family 6 the same for IPv6: ip6tables-legacy-restore in A,
nf-hipac6-restore in B, rule sets of gen.py's IPv6 forms (corpus from
--corpus, typically corpus6/), packets keyed by their flow label.  The
routers' own ND and MLD traffic (to multicast MACs) is not compared.

With --real-world FILE, the university firewall of real-world/ is
probed too, adapted to the routers by realworld.py (interfaces renamed,
routes for its vlans, -m limit made deterministic), with packets from its
own rules; its chains must then have seen packets, or the comparison
would say nothing.  With --family 6 the firewall and the ClassBench sets
(--classbench) are made IPv6 by bench/ipv4to6.py, their packets and
routes too (pkt.rules6(), realworld.to_ipv6()).

Options: see main(); the shell wrapper maps NFHP_DIFF_* to them.
"""
import argparse
import ctypes
import os
import random
import shlex
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import realworld  # noqa: E402
from pkt import (IFACES, TESTER_IFS, Pkt, addr, addr6, mac,  # noqa: E402
                 mac_bytes, packet6, parse_key, parse_key6, route_out,
                 rules6)

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_STATISTICS = 6
libc = ctypes.CDLL(None, use_errno=True)
ALL_CPUS = os.sched_getaffinity(0)

# iptables accepts these; nf-hipac refuses them today.  They stay out of the
# random rule sets and are listed (not failed) once per run.
REFUSED = [
    ("netmask of more than NFHP_MAX_MASK_RANGES intervals",
     "-A FORWARD -s 10.0.0.0/0.0.0.1 -j DROP"),
]
# The same for IPv6: the tree takes masks that are prefixes only.
REFUSED6 = [
    ("address mask", "-A FORWARD -s 2001:db8::/ffff:ffff:0:ffff:: -j DROP"),
]


def setns_path(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET):
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (path, os.strerror(e)))
    finally:
        os.close(fd)


class Router:
    """One router namespace and the tools that load and read it."""

    def __init__(self, name, ns, topo, restore, save, family=4):
        self.name, self.ns, self.topo = name, ns, topo
        self.family = family
        self.restore, self.save = restore, save
        self.path = "/run/netns/" + ns
        here = os.open("/proc/self/ns/net", os.O_RDONLY)
        setns_path(self.path)
        try:
            self.nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
        finally:
            libc.setns(here, CLONE_NEWNET)
            os.close(here)
        self.nl.bind((0, 0))
        self.seq = 0

    def start(self, argv):
        """Start argv in the router's namespace, on any CPU (the driver
        itself is pinned to one)."""
        def child():
            setns_path(self.path)
            os.sched_setaffinity(0, ALL_CPUS)
        return subprocess.Popen(argv, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                preexec_fn=child)

    def start_load(self, test=False):
        return self.start(self.restore + (["--test"] if test else []))

    def start_save(self):
        return self.start(self.save + ["-c"])

    def ip(self, *argv):
        """ip(8) in the router's namespace; raises on failure."""
        subprocess.run(["ip", "-n", self.ns] + list(argv), check=True)

    def ct_flush(self):
        """Flush the conntrack table (ctnetlink IPCTNL_MSG_CT_DELETE)."""
        self.seq += 1
        msg = struct.pack("=IHHII", 20, 1 << 8 | 2, 1 | 4, self.seq, 0)
        fam = socket.AF_INET6 if self.family == 6 else socket.AF_INET
        self.nl.send(msg + struct.pack("=BBH", fam, 0, 0))
        resp = self.nl.recv(65536)
        err = struct.unpack("=i", resp[16:20])[0]
        if err and err != -2:
            raise OSError(-err, "conntrack flush in %s" % self.ns)


def both(pa, pb, data=None):
    """Feed data to two started processes, wait for both: two
    (returncode, stdout, stderr)."""
    res = []
    for p in (pa, pb):
        try:
            if data is not None:
                p.stdin.write(data)
            p.stdin.close()
        except BrokenPipeError:
            pass                # it gave up early; its stderr says why
    for p in (pa, pb):
        out, err = p.stdout.read(), p.stderr.read()
        res.append((p.wait(), out, err))
    return res


def norm_save(text):
    """(policies, rules) of a save: {chain: (policy, counters)} and
    [(chain, counters, rule text)]."""
    pol, rules = {}, []
    for line in text.splitlines():
        if line.startswith(":"):
            name, policy, cnt = (line[1:].split() + ["", ""])[:3]
            pol[name] = (policy, cnt)
        elif line.startswith("["):
            cnt, _, rest = line.partition(" ")
            w = rest.split()
            rules.append((w[1] if len(w) > 1 else "", cnt, rest))
        elif line.startswith("-A"):
            rules.append((line.split()[1], "[?]", line))
    return pol, rules


class Tester:
    """The sockets of the tester namespace and the bookkeeping of a run."""

    def __init__(self, args):
        self.args = args
        self.family = args.family
        self.ethertype = b"\x86\xdd" if self.family == 6 else b"\x08\x00"
        self.parse_key = parse_key6 if self.family == 6 else parse_key
        self.tool = "ip6tables" if self.family == 6 else "iptables"
        self.tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        self.rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(ETH_P_ALL))
        self.rx.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)  # RCVBUFFORCE
        self.rx.setblocking(False)
        self.ident = 0
        self.rulesets = self.packets = self.mismatches = 0
        self.forwarded = self.dropped = 0
        self.by_kind = {}
        self.errors = 0
        self.reports = 0
        self.save_diffs = 0
        self.refused = []
        self.sent = {}
        self.clock = {}
        self.last_bad = False
        self.last_saves = ("", "")
        self.quiet = False

    def timed(self, what, fn, *a):
        t0 = time.monotonic()
        try:
            return fn(*a)
        finally:
            self.clock[what] = self.clock.get(what, 0) + \
                time.monotonic() - t0

    def next_ident(self):
        self.ident = self.ident % 65535 + 1
        return self.ident

    def send(self, pk):
        l3 = pk.build(self.next_ident())
        for topo, prefix in ((1, "a"), (2, "b")):
            ifn = "%s_%s" % (prefix, TESTER_IFS[pk.iface])
            smac = mac_bytes(pk.smac) if pk.smac else \
                mac(topo, pk.iface, 2)
            eth = mac(topo, pk.iface, 1) + smac + self.ethertype
            self.tx.sendto(eth + l3, (ifn, 0))
        self.sent[(pk.ident, pk.src, pk.dst)] = pk

    def arp(self, topo, prefix):
        sha = mac(topo, 0, 2)
        pkt = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, sha,
                          socket.inet_aton("192.168.100.2"), b"\0" * 6,
                          socket.inet_aton("192.168.100.1"))
        self.tx.sendto(b"\xff" * 6 + sha + b"\x08\x06" + pkt,
                       ("%s_c0" % prefix, 0))

    def drain(self, frames, want_arp=0, timeout=5.0):
        """Read frames into frames until want_arp ARP replies came in (or
        the socket is quiet for a moment when want_arp is 0)."""
        got = 0
        end = time.monotonic() + timeout
        quiet = None
        while True:
            try:
                data, sa = self.rx.recvfrom(65536)
            except BlockingIOError:
                if want_arp and got >= want_arp:
                    return True
                now = time.monotonic()
                if not want_arp:
                    quiet = quiet or now + 0.05
                    if now > quiet:
                        return True
                if now > end:
                    return False
                time.sleep(0.002)
                continue
            quiet = None
            if sa[2] == PACKET_OUTGOING:
                continue
            etype = data[12:14]
            if etype == b"\x08\x06":
                if len(data) >= 22 and data[20:22] == b"\x00\x02":
                    got += 1
                continue
            if data[0] & 1:
                continue        # the routers' ND and MLD
            if etype == self.ethertype:
                frames.append((sa[0], data[14:]))

    def barrier(self, frames):
        self.arp(1, "a")
        self.arp(2, "b")
        if not self.drain(frames, want_arp=2):
            raise RuntimeError("ARP barrier: a router did not answer")
        # Whatever the barrier overtook on another CPU.
        self.drain(frames)

    def capture_drops(self):
        st = self.rx.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
        return struct.unpack("II", st)[1]

    def log(self, msg):
        print(msg, flush=True)

    def run_case(self, ra, rb, name, text, phases):
        """Load text into both routers, send phases, compare.  Returns
        the outcomes {pkt: (a, b)} or None when the load failed."""
        (rca, _, erra), (rcb, _, errb) = self.timed(
            "restore", lambda: both(ra.start_load(), rb.start_load(), text))
        if rca:
            self.log("ERROR %s: %s refused the rule set (generator bug): %s"
                     % (name, os.path.basename(ra.restore[0]), erra.strip()))
            self.show_ruleset(text)
            self.errors += 1
            return None
        if rcb:
            self.log("FAIL %s: %s refused what %s loads: %s" % (
                name, os.path.basename(rb.restore[0]), self.tool,
                errb.strip()))
            self.show_ruleset(text)
            self.errors += 1
            return None
        ra.ct_flush()
        rb.ct_flush()
        frames = []
        self.drain(frames)
        frames = []
        self.sent = {}
        self.capture_drops()
        t0 = time.monotonic()
        for ph in phases:
            for pk in ph:
                self.send(pk)
            self.barrier(frames)
        self.clock["packets"] = self.clock.get("packets", 0) + \
            time.monotonic() - t0
        if self.capture_drops():
            raise RuntimeError("the capture socket dropped frames")
        self.rulesets += 1
        out = {pk: ([], []) for pk in self.sent.values()}
        others = ([], [])
        for ifn, l3 in frames:
            side = 0 if ifn.startswith("a_") else 1
            role = IFACES[TESTER_IFS.index(ifn[2:])]
            key = self.parse_key(l3)
            pk = self.sent.get(key) if key else None
            if pk:
                out[pk][side].append((role, l3))
            else:
                # Made by the router: its IP id and checksum (IPv6: its
                # flow label) are its own.
                n = bytearray(l3)
                if self.family == 6:
                    n[1] &= 0xF0
                    n[2:4] = b"\0\0"
                else:
                    n[4:6] = n[10:12] = b"\0\0"
                others[side].append((role, bytes(n)))
        bad = []
        for pk, (a, b) in out.items():
            self.packets += 1
            if a:
                self.forwarded += 1
            else:
                self.dropped += 1
            if sorted(a) != sorted(b):
                bad.append(pk)
        (rca, sa, erra), (rcb, sb, errb) = self.timed(
            "save", lambda: both(ra.start_save(), rb.start_save()))
        if rca or rcb:
            raise RuntimeError("save failed: %s %s" % (erra, errb))
        self.last_saves = (sa, sb)
        cnt_bad = self.compare_counters(sa, sb)
        if self.args.verbose:
            self.log("%s: iptables-legacy-save -c:" % name)
            for line in sa.splitlines():
                self.log("    " + line)
        oth_bad = sorted(others[0]) != sorted(others[1])
        self.last_bad = bool(bad or cnt_bad or oth_bad)
        if self.quiet:
            return out
        if bad or cnt_bad or oth_bad:
            self.mismatches += len(bad) + (1 if cnt_bad or oth_bad else 0)
            for pk in bad:
                self.by_kind[pk.kind] = self.by_kind.get(pk.kind, 0) + 1
            self.report(name, text, bad, out, cnt_bad, sa, sb, oth_bad,
                        others)
        return out

    def compare_counters(self, sa, sb):
        pa, ra_ = norm_save(sa)
        pb, rb_ = norm_save(sb)
        bad = []
        for ch in ("INPUT", "FORWARD", "OUTPUT"):
            if ch == "OUTPUT" and self.family == 6 and pa.get(ch) and \
                    pb.get(ch):
                # The routers' own MLD reports come when they please.
                pa[ch], pb[ch] = pa[ch][0], pb[ch][0]
            if pa.get(ch) != pb.get(ch):
                bad.append("policy %s: iptables %s, nf-hipac %s" %
                           (ch, pa.get(ch), pb.get(ch)))
        if len(ra_) != len(rb_):
            bad.append("%d rules in iptables-save, %d in nf-hipac-save" %
                       (len(ra_), len(rb_)))
        for i, (x, y) in enumerate(zip(ra_, rb_)):
            if x[1] != y[1]:
                bad.append("rule %d (%s): iptables %s, nf-hipac %s" %
                           (i + 1, x[2], x[1], y[1]))
            elif x[2] != y[2]:
                self.save_diffs += 1
                if self.save_diffs <= self.args.max_reports:
                    self.log("note: save text differs: iptables `%s', "
                             "nf-hipac `%s'" % (x[2], y[2]))
        return bad

    def show_ruleset(self, text):
        lines = text.splitlines()
        if len(lines) > 400:
            self.log("#   (%d lines, not shown; its first: %s)" %
                     (len(lines), lines[0]))
            return
        for i, line in enumerate(lines):
            self.log("#   %3d  %s" % (i + 1, line))

    def report(self, name, text, bad, out, cnt_bad, sa, sb, oth_bad, others):
        self.reports += 1
        if self.reports > self.args.max_reports:
            if self.reports == self.args.max_reports + 1:
                self.log("(more mismatches: details left out, counted)")
            self.log("MISMATCH %s: %d packets%s%s" % (
                name, len(bad), ", counters" if cnt_bad else "",
                ", router traffic" if oth_bad else ""))
            return
        self.log("MISMATCH in %s; the rule set:" % name)
        self.show_ruleset(text)
        for pk in bad:
            a, b = out[pk]
            self.log("  packet %s" % pk.describe())
            if pk.hotdrop():
                self.log("    (a tcp/udp/icmp/multiport match in iptables "
                         "drops it: %s)" % pk.hotdrop())
            self.log("    iptables: %s" % outcome(a))
            self.log("    nf-hipac: %s" % outcome(b))
        for line in cnt_bad:
            self.log("  counters: %s" % line)
        if cnt_bad:
            self.log("  iptables-legacy-save -c:")
            for line in sa.splitlines():
                self.log("    " + line)
            self.log("  nf-hipac-save -c:")
            for line in sb.splitlines():
                self.log("    " + line)
        if oth_bad:
            self.log("  frames the routers made: iptables %d, nf-hipac %d" %
                     (len(others[0]), len(others[1])))


def outcome(frames):
    if not frames:
        return "dropped"
    return "arrived via " + ", ".join(sorted("%s (%d bytes)" % (r, len(b))
                                             for r, b in frames))


def read_corpus(path):
    with open(path) as f:
        return f.read()


def classbench_cases(args, rng):
    """(name, ruleset text, trace tuples) of the ClassBench 1k sets; with
    --family 6 both made IPv6 by bench/ipv4to6.py (pkt.rules6(),
    pkt.packet6())."""
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../..")
    conv = os.path.join(top, "bench/classbench2ipt.py")
    tconv = os.path.join(top, "bench/classbench2pkt.py")
    names = args.classbench_sets.split(",") if args.classbench_sets else \
        sorted(f for f in os.listdir(args.classbench)
               if f.endswith("_1k"))
    for n in names:
        rules = os.path.join(args.classbench, n)
        trace = rules + "_trace"
        if not os.path.exists(rules):
            continue
        text = subprocess.run([sys.executable, conv, rules], check=True,
                              capture_output=True, text=True).stdout
        tuples = []
        if os.path.exists(trace):
            out = subprocess.run([sys.executable, tconv, trace],
                                 check=True, capture_output=True,
                                 text=True).stdout
        else:
            out = subprocess.run([sys.executable, tconv, "--synth", rules,
                                  "--count", "2000"], check=True,
                                 capture_output=True, text=True).stdout
        a = addr
        if args.family == 6:
            text, a = rules6(text), addr6
            out = "".join(packet6(line) for line in out.splitlines(True))
        for line in out.splitlines():
            f = dict(kv.split("=") for kv in line.split())
            tuples.append((a(f["src"]), a(f["dst"]), int(f["sport"]),
                           int(f["dport"]), int(f["proto"])))
        yield "classbench " + n, text, tuples


def reduce_case(t, ra, rb, name, text, phases):
    """Shrink the packets of a mismatching case to a minimal list that
    still mismatches, and show that run in full."""
    flat = [(i, pk) for i, ph in enumerate(phases) for pk in ph]

    def bad(items):
        ph = [[], [], []]
        for i, pk in items:
            ph[i].append(pk)
        t.quiet = True
        try:
            t.run_case(ra, rb, name, text, ph)
        finally:
            t.quiet = False
        return t.last_bad, ph

    if not bad(flat)[0]:
        t.log("reduce %s: the mismatch does not repeat" % name)
        return
    n = 2
    while len(flat) >= 2:
        chunk = max(1, len(flat) // n)
        for k in range(0, len(flat), chunk):
            rest = flat[:k] + flat[k + chunk:]
            if rest and bad(rest)[0]:
                flat = rest
                n = max(n - 1, 2)
                break
        else:
            if chunk == 1:
                break
            n = min(len(flat), n * 2)
    ph = bad(flat)[1]
    t.args.max_reports += 1
    t.run_case(ra, rb, name + " (reduced)", text, ph)
    t.log("reduced %s to %d packets:" % (name, len(flat)))
    for i, pk in flat:
        t.log("  phase %d: %s" % (i + 1, pk.describe()))
        t.log("    bytes: %s" % pk.build(pk.ident).hex())


def control_checks(t, ra, rb):
    """The harness must see traffic pass and traffic die, or every
    comparison would agree vacuously."""
    rng = random.Random(7)
    pl = gen.Planner(rng, gen.pools("", t.family), odd=False,
                     family=t.family)
    ok = True
    text = ("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
            ":OUTPUT ACCEPT [0:0]\n-A FORWARD -s %s -j DROP\n"
            "COMMIT\n" % ("2001:db8:99::/48" if t.family == 6 else
                          "10.99.0.0/16"))
    pk = [pl.probe() for _ in range(40)]
    res = t.run_case(ra, rb, "control: accept all", text, [pk, [], []])
    for p in pk:
        want = IFACES[route_out(p.dst, t.family)]
        for side, name in ((0, "iptables"), (1, "nf-hipac")):
            roles = [r for r, _ in res[p][side]] if res else []
            if roles != [want]:
                t.log("FAIL control: %s: %s forwarded it to %s, want %s" %
                      (p.describe(), name, roles, want))
                ok = False
    text = text.replace(":FORWARD ACCEPT", ":FORWARD DROP")
    pk = [pl.probe() for _ in range(20)]
    res = t.run_case(ra, rb, "control: drop all", text, [pk, [], []])
    for p in pk:
        if not res or res[p][0] or res[p][1]:
            t.log("FAIL control: %s passed a DROP policy" % p.describe())
            ok = False
    return ok


# Chains of the firewall that packets must reach (its counters in
# iptables, which nf-hipac's must equal) for the comparison to mean
# something, and rules by what they hold.
REAL_WORLD_CHAINS = ("mac_109", "mac_171", "mac_96", "filter_109",
                     "filter_171", "filter_96", "filter_0", "filter_DEFAULT",
                     "NOTFROMHERE", "LOG_DROP", "LOG_RECENT_DROP",
                     "filter_INPUT")
REAL_WORLD_RULES = (("-m mac --mac-source", "-j RETURN"),
                    ("--name ratessh", "-j LOG_RECENT_DROP"),
                    ("-m limit", "-j REJECT"), ("-m multiport", "-j ACCEPT"))


def real_world_case(t, ra, rb, args):
    """The firewall of --real-world, adapted (realworld.py); False when
    its packets missed the chains that make it worth comparing."""
    name = "real-world " + os.path.basename(args.real_world)
    fam = args.family
    text, routes, notes = realworld.adapt(read_corpus(args.real_world), fam)
    if fam == 6:
        dropped = sum(v for k, v in notes.items()
                      if k.startswith("dropped"))
        t.log("%s made IPv6: %d rules dropped%s" % (
            name, dropped, "".join("; %s: %d" % kv
                                   for kv in sorted(notes.items()))))
    rng = random.Random("%d:real-world" % args.seed)
    n = args.real_world_packets
    phases = realworld.plan(text, rng, n, fam)
    pl = gen.Planner(rng, gen.pools(text, fam), odd=not args.no_odd,
                     hotdrop=not args.no_hotdrop, family=fam,
                     unwalkable=args.unwalkable)
    phases[0] += [pl.oddity() if pl.odd and rng.random() < 0.3 else
                  pl.probe() for _ in range(n // 4)]
    for r in (ra, rb):
        for net, dev, via in routes:
            r.ip("route", "add", net, "via", via, "dev", dev)
    t0 = time.monotonic()
    seen = (t.packets, t.forwarded, t.mismatches)
    try:
        res = t.run_case(ra, rb, name, text, phases)
    finally:
        for r in (ra, rb):
            for net, dev, via in routes:
                r.ip("route", "del", net, "via", via, "dev", dev)
    if res is None:
        return False
    hit = {}
    for chain, cnt, rule in gen_counted(t.last_saves[0]):
        hit.setdefault(chain, 0)
        hit[chain] += cnt > 0
        for what in REAL_WORLD_RULES:
            if cnt and all(w in rule for w in what):
                hit[what] = hit.get(what, 0) + 1
    t.log("%s: %d rules, %d packets (%d forwarded), %d mismatches, %.1fs;"
          " rules that matched: %s" % (
              name, text.count("\n-A"), t.packets - seen[0],
              t.forwarded - seen[1], t.mismatches - seen[2],
              time.monotonic() - t0,
              ", ".join(["%s %d" % (c, hit.get(c, 0))
                         for c in REAL_WORLD_CHAINS] +
                        ["`%s' %d" % (" ... ".join(w), hit.get(w, 0))
                         for w in REAL_WORLD_RULES])))
    ok = True
    for what in REAL_WORLD_CHAINS + REAL_WORLD_RULES:
        if not hit.get(what):
            t.log("FAIL %s: no packet matched a rule %s" % (
                name, "of " + what if isinstance(what, str) else
                "with `%s'" % "' and `".join(what)))
            ok = False
    return ok


def gen_counted(save):
    """(chain, packets, rule) of each rule of a save -c."""
    for chain, cnt, rule in norm_save(save)[1]:
        yield chain, int(cnt.strip("[]").split(":")[0] or 0), rule


def refusal_probes(t, ra, rb):
    for desc, rule in REFUSED6 if t.family == 6 else REFUSED:
        text = ("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
                ":OUTPUT ACCEPT [0:0]\n%s\nCOMMIT\n" % rule)
        (rca, _, _), (rcb, _, errb) = both(ra.start_load(True),
                                            rb.start_load(True), text)
        if rca == 0 and rcb != 0:
            t.refused.append("%s: `%s': %s" % (desc, rule,
                                               errb.strip().splitlines()[-1]
                                               if errb.strip() else rcb))
        elif rca == 0 and rcb == 0:
            t.log("note: now accepted by nf-hipac: %s (`%s'): add it to "
                  "the generator" % (desc, rule))
        elif rca:
            t.log("note: %s refuses `%s' (%s): drop it from the list" % (
                t.tool, rule, desc))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ns-a", required=True)
    ap.add_argument("--ns-b", required=True)
    ap.add_argument("--bin", required=True, help="nf-hipac tools dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--random", type=int, default=100,
                    help="random rule sets")
    ap.add_argument("--packets", type=int, default=100,
                    help="packets per rule set")
    ap.add_argument("--corpus", default="")
    ap.add_argument("--classbench", default="")
    ap.add_argument("--classbench-sets", default="",
                    help="comma-separated names (default: every *_1k)")
    ap.add_argument("--trace-packets", type=int, default=300)
    ap.add_argument("--real-world", default="",
                    help="the firewall of real-world/ (realworld.py)")
    ap.add_argument("--real-world-packets", type=int, default=600)
    ap.add_argument("--only", type=int, default=-1,
                    help="run only random rule set number N")
    ap.add_argument("--no-odd", action="store_true",
                    help="no fragments, truncated headers, ...")
    ap.add_argument("--no-hotdrop", action="store_true",
                    help="no packets iptables' matches hotdrop")
    ap.add_argument("--max-reports", type=int, default=8)
    ap.add_argument("--dump", default="", help="write rule sets here")
    ap.add_argument("--reduce", action="store_true",
                    help="shrink the packets of a mismatching random set")
    ap.add_argument("--verbose", action="store_true",
                    help="print the counters of every rule set")
    ap.add_argument("--family", type=int, choices=(4, 6), default=4,
                    help="6: ip6tables-legacy against nf-hipac6")
    ap.add_argument("--unwalkable", action="store_true",
                    help="IPv6 packets whose extension headers cannot be "
                    "walked (nf-hipac6 drops them all, ip6tables only in "
                    "rules with -p)")
    ap.add_argument("--xt6-no-frag", action="store_true",
                    help="no -m frag: the kernel has no ip6t_frag")
    ap.add_argument("--xt6", action="store_true",
                    help="IPv6 rule sets with xtables extensions (gen.XT6)")
    args = ap.parse_args()
    gen.XT6 = args.xt6
    gen.XT6_FRAG = not args.xt6_no_frag
    fam = args.family
    v6 = "6" if fam == 6 else ""

    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    ra = Router("iptables", args.ns_a, 1, ["ip%stables-legacy-restore" % v6],
                ["ip%stables-legacy-save" % v6, "-t", "filter"], fam)
    rb = Router("nf-hipac", args.ns_b, 2,
                [os.path.join(args.bin, "nf-hipac%s-restore" % v6)],
                [os.path.join(args.bin, "nf-hipac%s-save" % v6)], fam)
    t = Tester(args)
    start = time.monotonic()

    if args.only < 0 and not control_checks(t, ra, rb):
        t.log("FAIL: the control rule sets did not behave; giving up")
        return 1
    refusal_probes(t, ra, rb)

    if args.corpus and args.only < 0:
        for f in sorted(os.listdir(args.corpus)):
            if not f.endswith(".rules"):
                continue
            text = read_corpus(os.path.join(args.corpus, f))
            rng = random.Random("%d:%s" % (args.seed, f))
            pl = gen.Planner(rng, gen.pools(text, fam), odd=not args.no_odd,
                             hotdrop=not args.no_hotdrop, family=fam,
                             unwalkable=args.unwalkable)
            phases = pl.plan(args.packets * 2)
            for ph, extra in zip(phases, gen.explicit_packets(text, fam)):
                ph += [p for p in extra if (not args.no_hotdrop or
                                            not p.hotdrop()) and
                       (args.unwalkable or fam == 4 or p.walkable())]
            t.run_case(ra, rb, "corpus " + f, text, phases)
        t.log("corpus done: %d rule sets, %d packets, %d mismatches (%.0fs)"
              % (t.rulesets, t.packets, t.mismatches,
                 time.monotonic() - start))

    real_ok = True
    if args.real_world and args.only < 0:
        real_ok = real_world_case(t, ra, rb, args)

    for i in range(args.random):
        if args.only >= 0 and i != args.only:
            continue
        rng = random.Random("%d:%d" % (args.seed, i))
        text = gen.gen_ruleset(rng, fam)
        if args.dump:
            with open(os.path.join(args.dump, "random-%d.rules" % i),
                      "w") as f:
                f.write(text)
        pl = gen.Planner(rng, gen.pools(text, fam), odd=not args.no_odd,
                         hotdrop=not args.no_hotdrop, family=fam,
                         unwalkable=args.unwalkable)
        phases = pl.plan(args.packets)
        name = "random rule set %d (seed %d)" % (i, args.seed)
        t.run_case(ra, rb, name, text, phases)
        if args.reduce and t.last_bad:
            reduce_case(t, ra, rb, name, text, phases)
        if (i + 1) % 50 == 0:
            t.log("... %d random rule sets (%.0fs)" %
                  (i + 1, time.monotonic() - start))
    t.log("random done: %d rule sets, %d packets, %d mismatches (%.0fs)" %
          (t.rulesets, t.packets, t.mismatches, time.monotonic() - start))

    if args.classbench and os.path.isdir(args.classbench) and args.only < 0:
        rng = random.Random(args.seed)
        for name, text, tuples in classbench_cases(args, rng):
            pl = gen.Planner(rng, gen.pools(text, fam), odd=False,
                             family=fam)
            phases = gen.trace_packets(rng, tuples, args.trace_packets, pl,
                                       fam)
            phases[0] += [pl.probe() for _ in range(args.trace_packets // 3)]
            t0 = time.monotonic()
            t.run_case(ra, rb, name, text, phases)
            t.log("%s: %d rules, %.1fs" % (name, text.count("\n-A"),
                                          time.monotonic() - t0))
    elif args.classbench and args.only < 0:
        t.log("note: %s absent, ClassBench part skipped" % args.classbench)

    for r in t.refused:
        t.log("refused by nf-hipac, accepted by %s: %s" % (t.tool, r))
    if t.save_diffs:
        t.log("note: %d rules save differently (counters compared "
              "anyway)" % t.save_diffs)
    kinds = ", ".join("%s %d" % kv for kv in sorted(t.by_kind.items()))
    t.log("%d rulesets, %d packets, %d mismatches%s; %d forwarded, %d "
          "dropped; %d load errors; %.0fs" % (
              t.rulesets, t.packets, t.mismatches,
              " (" + kinds + ")" if kinds else "", t.forwarded, t.dropped,
              t.errors, time.monotonic() - start))
    t.log("time spent: " + ", ".join("%s %.0fs" % kv
                                     for kv in sorted(t.clock.items())))
    if not t.forwarded or not t.dropped:
        t.log("FAIL: every packet had the same fate: the test saw nothing")
        return 1
    return 1 if t.mismatches or t.errors or not real_ok else 0


if __name__ == "__main__":
    sys.exit(main())
