# SPDX-License-Identifier: GPL-2.0
"""Random FORWARD rule sets and the packets that probe them.

gen_ruleset() writes an iptables-save filter table using every match
nf-hipac evaluates natively: -s/-d prefixes and netmasks with holes (and
!), -p, -i/-o with '+' and '!', -f / ! -f, tcp/udp ports and ranges,
--tcp-flags/--syn, icmp type/code, multiport --sports/--dports, iprange, state and conntrack
--ctstate, ttl, length, mark and comment, sometimes in a shuffled order
(the save texts must then list them in that order too); targets ACCEPT, DROP, RETURN,
jumps and gotos into up to four user chains, either FORWARD policy.  The
value domains are small so that rules overlap and every boundary matters.
Forms the tree cannot take are generated too: multiport beside a port of
tcp/udp, iprange beside -s/-d, state and conntrack together, two ttl
matches, mark masks of low bits, --ttl-lt 0 and --ttl-gt 255.  nf-hipac
sends those matches (and every match after them) through libxtables.
Forms nf-hipac refuses today (see REFUSED in driver.py) are left out.

pools() reads the interesting values back from any rule set text (random,
hand-written or ClassBench), and plan() makes packets on and around them:
single probes, odd packets (fragments, truncated transport headers, bad
checksums, strange TCP flags) and flows in three phases (originals,
replies, then established traffic) so conntrack sees NEW, ESTABLISHED,
RELATED, INVALID and UNTRACKED packets.

With family 6 (gen_ruleset(rng, 6), pools(text, 6), Planner(..., family=6))
the same for ip6tables: what nf-hipac6 evaluates natively (IPv6 prefixes
/0../128, -p with the protocol past the extension headers, ports,
multiport, tcp flags, icmp6 types and codes, hl, length, mark, state),
and packets with extension headers, first, later and atomic fragments,
and headers that cannot be walked.  XT6 is the hook for the xtables
extensions nf-hipac6 does not run yet.
"""
import shlex
import struct

from pkt import (EXT_FRAG, ICMP, ICMP6, IFACES, MARKS, NONXT, TCP, UDP, Pkt,
                 Pkt6, addr, addr6, ext_hdr, fmt6, icmp, icmp6, route_out,
                 tcp, udp)

NETS = (addr("10.1.0.0"), addr("10.2.0.0"), addr("10.3.0.0"),
        addr("172.16.0.0"))
CLIENT_NETS = NETS[:3]
PORTS = (0, 1, 2, 3, 7, 8, 20, 21, 22, 53, 80, 443, 1023, 1024, 8080,
         65534, 65535)
IF_PATTERNS = ("veth0", "veth10", "veth1", "veth1+", "veth+", "vet+",
               "eth1", "eth+", "eth", "srv0", "srv+", "s+", "+", "lo")
TCP_FLAGS = ("FIN", "SYN", "RST", "PSH", "ACK", "URG")
STATES = ("INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED")
TTLS = (1, 2, 3, 5, 10, 63, 64, 65, 127, 128, 200, 254, 255)
LENGTHS = (20, 21, 28, 40, 41, 52, 60, 64, 84, 100, 128, 200, 576, 1000,
           1400)
MARK_MASKS = ("0xffffffff", "0xffff0000", "0xff000000", "0xfffffff0",
              "0xfffffffe", "0x80000000", "0xfffff000", "0x1", "0xff",
              "0xff00ff00")
# iptables' icmp type names with the type/code they stand for.
ICMP_NAMES = {
    "any": None, "echo-reply": (0, None), "destination-unreachable":
    (3, None), "network-unreachable": (3, 0), "host-unreachable": (3, 1),
    "port-unreachable": (3, 3), "fragmentation-needed": (3, 4),
    "communication-prohibited": (3, 13), "source-quench": (4, None),
    "redirect": (5, None), "host-redirect": (5, 1),
    "echo-request": (8, None), "router-advertisement": (9, None),
    "time-exceeded": (11, None), "ttl-zero-during-reassembly": (11, 1),
    "parameter-problem": (12, None), "timestamp-request": (13, None),
    "timestamp-reply": (14, None), "address-mask-request": (17, None),
}
OTHER_PROTOS = (47, 50, 132, 2, 255)


def dq(v):
    return "%d.%d.%d.%d" % (v >> 24, (v >> 16) & 255, (v >> 8) & 255,
                            v & 255)


def domain_addr(rng, nets=NETS):
    return rng.choice(nets) | rng.randrange(64)


def inv(rng, p=0.15):
    return "! " if rng.random() < p else ""


def port_arg(rng, single_only=False):
    a, b = sorted((rng.choice(PORTS), rng.choice(PORTS)))
    r = rng.random()
    if single_only or r < 0.4:
        return str(a)
    if r < 0.5:
        return ":%d" % b       # iptables-save prints 0:b, both parse it
    if r < 0.6:
        return "%d:" % a
    return "%d:%d" % (a, b)


def multiport_arg(rng):
    items, slots = [], 0
    for _ in range(rng.randint(1, 5)):
        a, b = sorted(rng.sample(PORTS, 2))
        if rng.random() < 0.35 and slots < 14:
            items.append("%d:%d" % (a, b))
            slots += 2
        elif slots < 15:
            items.append(str(a))
            slots += 1
    return ",".join(items)


def flags_arg(rng):
    mask = [f for f in TCP_FLAGS if rng.random() < 0.5] or ["SYN"]
    cmp = [f for f in mask if rng.random() < 0.4]
    if rng.random() < 0.1:
        mask = ["ALL"]
        cmp = [f for f in TCP_FLAGS if rng.random() < 0.3]
    return "%s %s" % (",".join(mask), ",".join(cmp) or "NONE")


def icmp_arg(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice(list(ICMP_NAMES))
    t = rng.choice((0, 3, 4, 5, 8, 11, 12, 13, 14, 17, 18, 40))
    if r < 0.65:
        return str(t)
    return "%d/%d" % (t, rng.choice((0, 1, 2, 3, 4, 13)))


HOLED_MASKS = ("255.255.240.3", "255.255.255.1", "255.255.0.255",
               "255.0.255.0", "255.255.0.224", "255.255.255.5")


def prefix_arg(rng):
    a = domain_addr(rng)
    if rng.random() < 0.06:
        m = rng.choice(HOLED_MASKS)
        return "%s/%s" % (dq(a & addr(m)), m)
    plen = rng.choice((8, 12, 16, 24, 26, 27, 28, 29, 30, 31, 32, 32))
    a &= (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF
    return "%s/%d" % (dq(a), plen)


def iprange_arg(rng):
    a, b = sorted((domain_addr(rng), domain_addr(rng)))
    if rng.random() < 0.3:
        b = a
    return "%s-%s" % (dq(a), dq(b))


def mark_arg(rng):
    v = rng.choice(MARKS[1:] + (0, 5, 0x12))
    r = rng.random()
    if r < 0.4:
        return "0x%x" % v
    mask = rng.choice(MARK_MASKS)
    if r < 0.85:
        v &= int(mask, 16)
    return "0x%x/%s" % (v, mask)


def xt_match(rng):
    """An xtables match the kernel's own module runs: stateful ones (limit,
    statistic) make the order and the number of their runs visible."""
    r = rng.random()
    if r < 0.25:
        return ["-m", "limit", "--limit", "1/hour", "--limit-burst",
                str(rng.randint(1, 30))]
    if r < 0.45:
        every = rng.randint(2, 5)
        return ["-m", "statistic", "--mode", "nth", "--every", str(every),
                "--packet", str(rng.randrange(every))]
    if r < 0.6:
        return ["-m", "string", "--string",
                rng.choice(("payload!", "load", "nothere")), "--algo",
                rng.choice(("bm", "kmp"))]
    if r < 0.7:
        return ["-m", "pkttype", "--pkt-type",
                rng.choice(("unicast", "broadcast", "multicast"))]
    if r < 0.8:
        return ["-m", "addrtype", "--dst-type",
                rng.choice(("UNICAST", "LOCAL", "BROADCAST"))]
    if r < 0.9:
        return ["-m", "dscp", inv(rng) + "--dscp", str(rng.randrange(8))]
    lo = rng.randrange(0, 60000)
    return ["-m", "u32", "--u32",
            '"0>>22&0x3C@0>>16=%d:%d"' % (lo, lo + rng.randrange(5000))]


def xt_target(rng, proto):
    """An xtables target: REJECT of every kind, or one that goes on."""
    r = rng.random()
    if r < 0.45:
        kinds = ["icmp-net-unreachable", "icmp-host-unreachable",
                 "icmp-port-unreachable", "icmp-proto-unreachable",
                 "icmp-net-prohibited", "icmp-host-prohibited",
                 "icmp-admin-prohibited"]
        if proto == "tcp":
            kinds.append("tcp-reset")
        return ["-j", "REJECT", "--reject-with", rng.choice(kinds)]
    if r < 0.6:
        return ["-j", "LOG", "--log-prefix", '"gen "']
    if r < 0.7:
        return ["-j", "NFLOG", "--nflog-group", "9"]
    # The mark later rules see: the mark matches of gen use 0..0xff.
    return ["-j", "MARK", "--set-mark", "0x%x" % rng.randrange(0x100)]


def gen_rule(rng, chain, targets, may_return):
    """One rule of chain; targets are the user chains it may enter."""
    w = ["-A", chain]
    have_src = have_dst = False
    if rng.random() < 0.3:
        w += [inv(rng, 0.2) + "-s", prefix_arg(rng)]
        have_src = True
    if rng.random() < 0.25:
        w += [inv(rng, 0.2) + "-d", prefix_arg(rng)]
        have_dst = True
    if rng.random() < 0.2:
        w += [inv(rng, 0.2) + "-i", rng.choice(IF_PATTERNS)]
    if rng.random() < 0.15:
        w += [inv(rng, 0.2) + "-o", rng.choice(IF_PATTERNS)]
    proto = None
    r = rng.random()
    if r < 0.25:
        proto = "tcp"
    elif r < 0.4:
        proto = "udp"
    elif r < 0.5:
        proto = "icmp"
    elif r < 0.55:
        proto = str(rng.choice(OTHER_PROTOS))
    elif r < 0.6:
        w += ["!", "-p", rng.choice(("tcp", "udp", "icmp", "47"))]
    if proto:
        w += ["-p", proto]
    r = rng.random()
    if r < 0.05:
        w += ["-f"]
    elif r < 0.08:
        w += ["!", "-f"]
    # Before the transport match: iptables runs matches in this order.
    if rng.random() < 0.08:
        w += xt_match(rng)
    # The native match modules, each a list of words: the transport ones,
    # then the others.
    lead, rest = [], []
    have_sport = have_dport = False
    if proto in ("tcp", "udp") and rng.random() < 0.7:
        m = []
        if rng.random() < 0.35:
            m += [inv(rng) + "--sport", port_arg(rng)]
            have_sport = True
        if rng.random() < 0.6:
            m += [inv(rng) + "--dport", port_arg(rng)]
            have_dport = True
        if proto == "tcp" and rng.random() < 0.35:
            if rng.random() < 0.3:
                m += [inv(rng) + "--syn"]
            else:
                m += [inv(rng) + "--tcp-flags"] + flags_arg(rng).split()
        if m:
            lead.append(["-m", proto] + m)
    if proto == "icmp" and rng.random() < 0.7:
        lead.append(["-m", "icmp", inv(rng) + "--icmp-type", icmp_arg(rng)])
    if proto in ("tcp", "udp") and rng.random() < 0.2:
        # Beside --dport (--sport) of tcp/udp it goes to libxtables.
        lead.append(["-m", "multiport",
              inv(rng) + ("--dports" if rng.random() < 0.6 else "--sports"),
              multiport_arg(rng)])
    m = []
    # Beside -s (-d) it goes to libxtables.
    if rng.random() < 0.1:
        m += [inv(rng) + "--src-range", iprange_arg(rng)]
    if rng.random() < 0.1:
        m += [inv(rng) + "--dst-range", iprange_arg(rng)]
    if m:
        rest.append(["-m", "iprange"] + m)
    r = rng.random()
    if r < 0.25:
        states = [s for s in STATES if rng.random() < 0.35] or ["NEW"]
        state = ["-m", "state", inv(rng) + "--state", ",".join(states)]
        ct = ["-m", "conntrack", inv(rng) + "--ctstate", ",".join(states)]
        r = rng.random()
        rest += [state] if r < 0.45 else [ct] if r < 0.9 else [state, ct]
    # A second ttl match goes to libxtables.
    for _ in range(2 if rng.random() < 0.15 else 1):
        if rng.random() >= 0.12:
            continue
        r = rng.random()
        v = rng.choice(TTLS + (0,))
        if r < 0.4:
            rest.append(["-m", "ttl", inv(rng, 0.25) + "--ttl-eq", str(v)])
        elif r < 0.7:
            rest.append(["-m", "ttl", "--ttl-lt", str(v)])
        else:
            rest.append(["-m", "ttl", "--ttl-gt", str(v)])
    if rng.random() < 0.12:
        a, b = sorted((rng.choice(LENGTHS), rng.choice(LENGTHS)))
        arg = str(a) if rng.random() < 0.3 else "%d:%d" % (a, b)
        rest.append(["-m", "length", inv(rng) + "--length", arg])
    if rng.random() < 0.12:
        rest.append(["-m", "mark", inv(rng) + "--mark", mark_arg(rng)])
    if rng.random() < 0.06:
        rest.append(["-m", "comment", "--comment",
                     '"rule %d of %s"' % (rng.randrange(100), chain)])
    # Sometimes in another order: iptables runs them as written and
    # iptables-save and nf-hipac-save print them so.  A short packet is
    # dropped by the transport match only if the matches written before
    # it let it through; a tcp or udp match after multiport goes to
    # libxtables.
    mods = lead + rest
    if len(mods) > 1 and rng.random() < 0.3:
        rng.shuffle(mods)
    for mod in mods:
        w += mod
    if rng.random() < 0.08:
        w += xt_match(rng)
    r = rng.random()
    if r < 0.1:
        w += xt_target(rng, proto)
    elif targets and r < 0.25:
        w += ["-g" if rng.random() < 0.35 else "-j", rng.choice(targets)]
    elif may_return and r < 0.35:
        w += ["-j", "RETURN"]
    elif r < 0.45:
        pass                    # no target: counts and goes on
    elif r < 0.75:
        w += ["-j", "ACCEPT"]
    else:
        w += ["-j", "DROP"]
    # "! -s" is written as two words by iptables-save.
    out = []
    for t in w:
        out += t.split(" ") if t.startswith("! ") else [t]
    return " ".join(out)


def gen_ruleset(rng, family=4):
    """A random filter table as iptables-save (ip6tables-save) text."""
    nuser = rng.choice((0, 0, 1, 2, 3, 4))
    users = ["U%d" % i for i in range(nuser)]
    lines = ["*filter", ":INPUT ACCEPT [0:0]",
             ":FORWARD %s [0:0]" % rng.choice(("ACCEPT", "DROP")),
             ":OUTPUT ACCEPT [0:0]"]
    lines += [":%s - [0:0]" % u for u in users]
    rule = gen_rule6 if family == 6 else gen_rule
    for _ in range(rng.randint(2, 14)):
        lines.append(rule(rng, "FORWARD", users, rng.random() < 0.1))
    for i, u in enumerate(users):
        for _ in range(rng.randint(0, 7)):
            lines.append(rule(rng, u, users[i + 1:], True))
    lines.append("COMMIT")
    return "\n".join(lines) + "\n"


class Pools:
    """Interesting values of one rule set, per dimension."""

    def __init__(self):
        self.addr, self.port, self.proto = set(), set(), set()
        self.flags, self.icmp, self.ttl, self.len = set(), set(), set(), set()
        self.state = False


def _around(s, lo, hi, top):
    for v in (lo - 1, lo, hi, hi + 1):
        if 0 <= v <= top:
            s.add(v)


def _addr_range(arg):
    if "-" in arg:
        a, b = arg.split("-")
        return addr(a), addr(b)
    a, _, m = arg.partition("/")
    a = addr(a)
    if not m:
        return a, a
    if "." in m:
        plen = bin(addr(m)).count("1")
    else:
        plen = int(m)
    mask = (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF if plen else 0
    return a & mask, (a & mask) | (~mask & 0xFFFFFFFF)


def _mask_ranges(arg):
    """A few of the intervals of a netmask with holes (10.0.0.0/255.0.255.0):
    the first, the last and those with one hole bit set."""
    a, _, m = arg.partition("/")
    if "." not in m:
        return []
    mask = addr(m)
    low = ((mask & -mask) - 1) & 0xFFFFFFFF
    holes = ~mask & ~low & 0xFFFFFFFF
    if not holes:
        return []
    v = addr(a) & mask
    subs = [0, holes] + [1 << b for b in range(32) if holes >> b & 1]
    return [(v | x, v | x | low) for x in subs]


def _port_range(arg):
    lo, sep, hi = arg.partition(":")
    lo = int(lo) if lo.isdigit() else 0
    hi = (int(hi) if hi.isdigit() else 65535) if sep else lo
    return lo, hi


def _flag_bits(s):
    if s == "ALL":
        return 0x3F
    if s == "NONE":
        return 0
    return sum(1 << TCP_FLAGS.index(f) for f in s.split(",")
               if f in TCP_FLAGS)


def pools(text, family=4):
    """The values around which rule set text decides."""
    if family == 6:
        return pools6(text)
    p = Pools()
    for line in text.splitlines():
        if not line.startswith("-A") and not line.startswith("["):
            continue
        try:
            w = shlex.split(line)
        except ValueError:
            continue
        for i, t in enumerate(w[:-1]):
            a = w[i + 1]
            try:
                if t in ("-s", "-d", "--src-range", "--dst-range"):
                    for e in a.replace(" ", "").split(","):
                        _around(p.addr, *_addr_range(e), 0xFFFFFFFF)
                        for lo, hi in _mask_ranges(e):
                            _around(p.addr, lo, hi, 0xFFFFFFFF)
                elif t in ("--sport", "--dport", "--source-port",
                           "--destination-port"):
                    _around(p.port, *_port_range(a), 65535)
                elif t in ("--sports", "--dports"):
                    for item in a.split(","):
                        _around(p.port, *_port_range(item), 65535)
                elif t == "-p" and a.isdigit():
                    p.proto.add(int(a))
                elif t == "--tcp-flags":
                    mask, cmp = _flag_bits(a), _flag_bits(w[i + 2])
                    p.flags.update((cmp, cmp ^ mask, cmp | 0x10,
                                    cmp ^ (mask & -mask)))
                elif t == "--icmp-type":
                    if a in ICMP_NAMES:
                        tc = ICMP_NAMES[a] or (8, 0)
                        t_, c_ = tc[0], tc[1] or 0
                    else:
                        t_, _, c_ = a.partition("/")
                        t_, c_ = int(t_), int(c_ or 0)
                    for c in (c_ - 1, c_, c_ + 1):
                        if 0 <= c <= 255:
                            p.icmp.add((t_, c))
                elif t in ("--ttl-eq", "--ttl-lt", "--ttl-gt"):
                    _around(p.ttl, int(a), int(a), 254)
                elif t == "--length":
                    _around(p.len, *_port_range(a), 1500)
                elif t in ("--state", "--ctstate"):
                    p.state = True
            except (ValueError, IndexError):
                pass
    p.addr = sorted(a for a in p.addr if usable(a))
    for s in ("port", "proto", "flags", "icmp", "ttl", "len"):
        setattr(p, s, sorted(getattr(p, s)))
    return p


def usable(a):
    """Not a martian, not a router's own address: the routers forward it."""
    top = a >> 24
    if top in (0, 127) or top >= 224:
        return False
    return (a >> 8) not in range(addr("192.168.100.0") >> 8,
                                  (addr("192.168.103.0") >> 8) + 1)


class Planner:
    """Makes the packets of one rule set from its pools."""

    def __init__(self, rng, pools, odd=True, hotdrop=True, family=4,
                 unwalkable=False):
        self.rng, self.p, self.odd = rng, pools, odd
        self.hotdrop = hotdrop
        self.family = family
        self.unwalkable = unwalkable
        if family == 6:
            self.probe, self.oddity = self.probe6, self.oddity6
            self.flow, self.a = self.flow6, self.a6

    def pick(self, pool, fallback, p=0.6):
        if pool and self.rng.random() < p:
            return self.rng.choice(pool)
        return fallback()

    def a(self, nets=NETS):
        return self.pick(self.p.addr, lambda: domain_addr(self.rng, nets))

    def port(self):
        return self.pick(self.p.port, lambda: self.rng.choice(PORTS)
                         if self.rng.random() < 0.7
                         else self.rng.randrange(65536))

    def ttl(self):
        return max(1, min(254, self.pick(self.p.ttl, lambda: self.rng.choice(
            TTLS)))) if self.rng.random() < 0.5 else 63

    def tos(self):
        r = self.rng
        idx = r.randrange(16) if r.random() < 0.4 else 0
        return idx << 2 | (1 if r.random() < 0.08 else 0)

    def pad_to(self, fixed):
        """Payload so the datagram reaches a pooled length, or a bit."""
        want = self.pick(self.p.len, lambda: 0, 0.35)
        n = want - fixed if want > fixed else self.rng.randrange(24)
        return bytes(self.rng.randrange(256) for _ in range(min(n, 1400)))

    def flags(self):
        r = self.rng
        return self.pick(self.p.flags, lambda: r.choice(
            (0x02, 0x12, 0x10, 0x04, 0x14, 0x11, 0x18, 0x00, 0x03, 0x29,
             0x3F, 0xC2, r.randrange(256))))

    def icmp_tc(self):
        r = self.rng
        return self.pick(self.p.icmp, lambda: (
            r.choice((0, 3, 4, 5, 8, 11, 12, 13, 14, 17, 18, 40,
                      r.randrange(256))), r.choice((0, 0, 1, 3, 13, 4))))

    def proto(self):
        r = self.rng.random()
        if self.p.proto and r < 0.15:
            return self.rng.choice(self.p.proto)
        if r < 0.45:
            return TCP
        if r < 0.7:
            return UDP
        if r < 0.9:
            return ICMP
        return self.rng.choice(OTHER_PROTOS)

    def probe(self):
        r = self.rng
        src, dst, proto = self.a(), self.a(), self.proto()
        iface = r.randrange(4)
        if proto == TCP:
            l4 = tcp(src, dst, self.port(), self.port(), self.flags(),
                     r.randrange(1 << 32), r.randrange(1 << 32),
                     self.pad_to(40))
        elif proto == UDP:
            l4 = udp(src, dst, self.port(), self.port(), self.pad_to(28))
        elif proto == ICMP:
            t, c = self.icmp_tc()
            l4 = icmp(t, c, bytes(r.randrange(256) for _ in range(4)),
                      self.pad_to(28))
        else:
            l4 = self.pad_to(20)
        return Pkt(iface, src, dst, proto, l4, self.ttl(), self.tos())

    def oddity(self):
        r = self.rng
        pk = self.probe()
        kind = r.randrange(6)
        if kind == 0:           # a later fragment: no transport header
            pk.frag = r.choice((1, 1, 2, 3, 185))
            if pk.frag == 1 and pk.proto == TCP and not self.hotdrop:
                pk.frag = 2
            pk.mf = r.random() < 0.5
            n = r.choice((8, 16, 24, 40))
            pk.l4 = bytes(r.randrange(256) for _ in range(n))
            pk.kind, pk.note = "frag", "later fragment"
        elif kind == 1:         # a first fragment
            pk.mf = True
            n = len(pk.l4) & ~7
            if not self.hotdrop and pk.proto in (TCP, UDP, ICMP):
                n = max(n, 24)
                pk.l4 = pk.l4.ljust(24, b"\0")
            pk.l4 = pk.l4[:max(8, n)]
            pk.kind, pk.note = "frag", "first fragment"
        elif kind == 2 and pk.proto in (TCP, UDP, ICMP) and self.hotdrop:
            pk.l4 = pk.l4[:r.randrange(1, 20 if pk.proto == TCP else 8)]
            pk.kind, pk.note = "trunc", "transport header cut short"
        elif kind == 3 and pk.proto in (TCP, UDP):
            l4 = bytearray(pk.l4)
            l4[6 if pk.proto == UDP else 16] ^= 0x5A
            pk.l4 = bytes(l4)
            pk.kind, pk.note = "odd", "bad checksum"
        elif kind == 4:
            pk.kind, pk.note = "odd", "notrack"
            pk.tos |= 1
        else:
            pk.proto = TCP
            pk.l4 = tcp(pk.src, pk.dst, self.port(), self.port(),
                        r.choice((0x00, 0x03, 0x05, 0x06, 0x07, 0x29, 0x3F,
                                  0xFF, 0x41, 0x80)), r.randrange(1 << 32))
            pk.kind, pk.note = "odd", "strange tcp flags"
        return pk

    def flow(self):
        """[[phase 1], [phase 2], [phase 3]] of one connection."""
        r = self.rng
        c = self.a(CLIENT_NETS)
        s = self.a()
        cif = route_out(c)
        cif = cif if cif < 3 else r.randrange(3)
        sif = 3 if route_out(s) == 3 else r.randrange(4)
        cp, sp, tos = self.port(), self.port(), self.tos() & ~1
        ttl = self.ttl()
        kind = r.random()

        def P(fwd, proto, l4, note):
            return Pkt(cif if fwd else sif, c if fwd else s,
                       s if fwd else c, proto, l4, ttl, tos, kind="flow",
                       note=note)
        if kind < 0.45:
            ci, si = r.randrange(1 << 32), r.randrange(1 << 32)
            m = 0xFFFFFFFF
            d1 = self.pad_to(40)[:200] or b"x"
            ph1 = [P(1, TCP, tcp(c, s, cp, sp, 0x02, ci), "tcp syn")]
            ph2 = [P(0, TCP, tcp(s, c, sp, cp, 0x12, si, (ci + 1) & m),
                     "tcp syn/ack")]
            ph3 = [P(1, TCP, tcp(c, s, cp, sp, 0x10, (ci + 1) & m,
                                 (si + 1) & m), "tcp ack"),
                   P(1, TCP, tcp(c, s, cp, sp, 0x18, (ci + 1) & m,
                                 (si + 1) & m, d1), "tcp data"),
                   P(0, TCP, tcp(s, c, sp, cp, 0x18, (si + 1) & m,
                                 (ci + 1 + len(d1)) & m, b"reply"),
                     "tcp reply data")]
            if r.random() < 0.5:
                ph3.append(P(1, TCP, tcp(c, s, cp, sp, 0x14,
                                         (ci + 1 + len(d1)) & m, 0),
                             "tcp rst"))
            return [ph1, ph2, ph3]
        if kind < 0.8:
            req = udp(c, s, cp, sp, self.pad_to(28)[:300])
            ph1 = [P(1, UDP, req, "udp request")]
            ph2 = [P(0, UDP, udp(s, c, sp, cp, b"answer"), "udp reply")]
            if r.random() < 0.4:
                inner = ph1[0].build(0)[:28]
                ph2 = [P(0, ICMP, icmp(3, 3, b"", inner),
                         "icmp port-unreachable for the udp request")]
            ph3 = [P(1, UDP, udp(c, s, cp, sp, b"again"), "udp again")]
            return [ph1, ph2, ph3]
        ident = r.randrange(65536)
        rest = bytes((ident >> 8, ident & 255, 0, 1))
        rest2 = bytes((ident >> 8, ident & 255, 0, 2))
        data = self.pad_to(28)[:300]
        return [[P(1, ICMP, icmp(8, 0, rest, data), "echo request")],
                [P(0, ICMP, icmp(0, 0, rest, data), "echo reply")],
                [P(1, ICMP, icmp(8, 0, rest2, data), "echo request 2")]]

    # IPv6 (family 6): the same packets, and extension headers.

    def a6(self, nets=None):
        return self.pick(self.p.addr, lambda: domain_addr6(
            self.rng, nets or NETS6))

    def proto6(self):
        r = self.rng.random()
        if self.p.proto and r < 0.15:
            return self.rng.choice(self.p.proto)
        if r < 0.45:
            return TCP
        if r < 0.7:
            return UDP
        if r < 0.9:
            return ICMP6
        return self.rng.choice(OTHER_PROTOS6)

    def icmp6_tc(self):
        r = self.rng
        return self.pick(self.p.icmp, lambda: (
            r.choice(ICMP6_TYPES + (r.randrange(256),)),
            r.choice((0, 0, 1, 3, 4, 6))))

    def exts(self, p=0.2):
        return list(self.rng.choice(EXT_CHAINS)) \
            if self.rng.random() < p else []

    def l4_6(self, src, dst, proto, fixed):
        """A transport part of proto, padded to a pooled length when the
        headers before it take fixed bytes."""
        r = self.rng
        if proto == TCP:
            return tcp(src, dst, self.port(), self.port(), self.flags(),
                       r.randrange(1 << 32), r.randrange(1 << 32),
                       self.pad_to(fixed + 20), v6=True)
        if proto == UDP:
            return udp(src, dst, self.port(), self.port(),
                       self.pad_to(fixed + 8), v6=True)
        if proto == ICMP6:
            t, c = self.icmp6_tc()
            return icmp6(src, dst, t, c,
                         bytes(r.randrange(256) for _ in range(4)),
                         self.pad_to(fixed + 8))
        if proto == NONXT:
            return b""
        if proto == EXT_FRAG:
            # -p 44 and the like: an extension header ip6tables walks past
            # to "no next header", not bytes that may not be walkable.
            return struct.pack("!BBHI", NONXT, 0, 0, r.randrange(1 << 32)) \
                + self.pad_to(fixed + 8)
        if proto in (0, 43, 60):
            return ext_hdr({0: "hbh", 43: "rt0", 60: "dst"}[proto],
                           NONXT) + self.pad_to(fixed + 8)
        return self.pad_to(fixed)

    def probe6(self):
        r = self.rng
        src, dst, proto = self.a6(), self.a6(), self.proto6()
        exts = self.exts()
        l4 = self.l4_6(src, dst, proto, 40 + 8 * len(exts))
        return Pkt6(r.randrange(4), src, dst, proto, l4, self.ttl(),
                    self.tos(), exts=exts)

    def oddity6(self):
        r = self.rng
        pk = self.probe6()
        kind = r.randrange(9)
        if kind == 0:           # a later fragment: no transport header
            pk.frag = r.choice((1, 1, 2, 3, 185))
            pk.mf = r.random() < 0.5
            n = r.choice((8, 16, 24, 40))
            pk.l4 = bytes(r.randrange(256) for _ in range(n))
            pk.kind, pk.note = "frag", "later fragment"
        elif kind == 1:         # a first fragment
            pk.mf = True
            n = len(pk.l4) & ~7
            if not self.hotdrop and pk.proto in (TCP, UDP, ICMP6):
                n = max(n, 24)
                pk.l4 = pk.l4.ljust(24, b"\0")
            pk.l4 = pk.l4[:max(8, n)]
            pk.kind, pk.note = "frag", "first fragment"
        elif kind == 2 and pk.proto in (TCP, UDP, ICMP6) and self.hotdrop:
            pk.l4 = pk.l4[:r.randrange(1, 20 if pk.proto == TCP else 8)]
            pk.kind, pk.note = "trunc", "transport header cut short"
        elif kind == 3 and pk.proto in (TCP, UDP):
            l4 = bytearray(pk.l4)
            l4[6 if pk.proto == UDP else 16] ^= 0x5A
            pk.l4 = bytes(l4)
            pk.kind, pk.note = "odd", "bad checksum"
        elif kind == 4:
            pk.kind, pk.note = "odd", "notrack"
            pk.tos |= 1
        elif kind == 5:
            pk.proto = TCP
            pk.l4 = tcp(pk.src, pk.dst, self.port(), self.port(),
                        r.choice((0x00, 0x03, 0x05, 0x06, 0x07, 0x29, 0x3F,
                                  0xFF, 0x41, 0x80)), r.randrange(1 << 32),
                        v6=True)
            pk.kind, pk.note = "odd", "strange tcp flags"
        elif kind == 6:
            pk.exts = self.exts(1)
            pk.kind, pk.note = "ext", "extension headers"
        elif kind == 7:
            pk.fragh = True
            pk.kind, pk.note = "frag", "atomic fragment"
        elif self.hotdrop and self.unwalkable:
            # Headers that cannot be walked: a destination options header
            # longer than the packet, or a later fragment whose fragment
            # header is followed by another extension header.
            if r.random() < 0.5:
                pk.exts = [e for e in self.exts(0.5) if e == "hbh"] + \
                    ["dst-trunc"]
            else:
                pk.frag, pk.mf = r.choice((1, 2, 185)), r.random() < 0.5
                pk.frag_next = r.choice((60, 43))
                pk.l4 = bytes(r.randrange(256) for _ in range(16))
            pk.kind, pk.note = "unwalkable", "headers cannot be walked"
        return pk

    def flow6(self):
        """flow() in IPv6: TCP, UDP (with an ICMPv6 error), echo."""
        r = self.rng
        c = self.a6(CLIENT_NETS6)
        s = self.a6()
        cif = route_out(c, 6)
        cif = cif if cif < 3 else r.randrange(3)
        sif = 3 if route_out(s, 6) == 3 else r.randrange(4)
        cp, sp, tos = self.port(), self.port(), self.tos() & ~1
        ttl = self.ttl()
        kind = r.random()

        def P(fwd, proto, l4, note):
            return Pkt6(cif if fwd else sif, c if fwd else s,
                        s if fwd else c, proto, l4, ttl, tos, kind="flow",
                        note=note)
        if kind < 0.45:
            ci, si = r.randrange(1 << 32), r.randrange(1 << 32)
            m = 0xFFFFFFFF
            d1 = self.pad_to(60)[:200] or b"x"
            ph1 = [P(1, TCP, tcp(c, s, cp, sp, 0x02, ci, v6=True),
                     "tcp syn")]
            ph2 = [P(0, TCP, tcp(s, c, sp, cp, 0x12, si, (ci + 1) & m,
                                 v6=True), "tcp syn/ack")]
            ph3 = [P(1, TCP, tcp(c, s, cp, sp, 0x10, (ci + 1) & m,
                                 (si + 1) & m, v6=True), "tcp ack"),
                   P(1, TCP, tcp(c, s, cp, sp, 0x18, (ci + 1) & m,
                                 (si + 1) & m, d1, v6=True), "tcp data"),
                   P(0, TCP, tcp(s, c, sp, cp, 0x18, (si + 1) & m,
                                 (ci + 1 + len(d1)) & m, b"reply", v6=True),
                     "tcp reply data")]
            if r.random() < 0.5:
                ph3.append(P(1, TCP, tcp(c, s, cp, sp, 0x14,
                                         (ci + 1 + len(d1)) & m, 0,
                                         v6=True), "tcp rst"))
            return [ph1, ph2, ph3]
        if kind < 0.8:
            req = udp(c, s, cp, sp, self.pad_to(48)[:300], v6=True)
            ph1 = [P(1, UDP, req, "udp request")]
            ph2 = [P(0, UDP, udp(s, c, sp, cp, b"answer", v6=True),
                     "udp reply")]
            if r.random() < 0.4:
                inner = ph1[0].build(0)[:48]
                ph2 = [P(0, ICMP6, icmp6(s, c, 1, 4, b"", inner),
                         "icmpv6 port-unreachable for the udp request")]
            ph3 = [P(1, UDP, udp(c, s, cp, sp, b"again", v6=True),
                     "udp again")]
            return [ph1, ph2, ph3]
        ident = r.randrange(65536)
        rest = bytes((ident >> 8, ident & 255, 0, 1))
        rest2 = bytes((ident >> 8, ident & 255, 0, 2))
        data = self.pad_to(48)[:300]
        return [[P(1, ICMP6, icmp6(c, s, 128, 0, rest, data),
                   "echo request")],
                [P(0, ICMP6, icmp6(s, c, 129, 0, rest, data), "echo reply")],
                [P(1, ICMP6, icmp6(c, s, 128, 0, rest2, data),
                   "echo request 2")]]

    def plan(self, n):
        """About n packets in three phases."""
        phases = [[], [], []]
        nflow = n // (5 if self.p.state else 12)
        while sum(map(len, phases)) < nflow:
            for i, ph in enumerate(self.flow()):
                phases[i] += ph
        while sum(map(len, phases)) < n:
            odd = self.odd and self.rng.random() < 0.15
            phases[0].append(self.oddity() if odd else self.probe())
        self.rng.shuffle(phases[0])
        return phases


def explicit_packets(text, family=4):
    """Packets a corpus file asks for, one per "# packet:" line of
    key=value words: in (router interface), src, dst, proto, sport, dport,
    flags (number), icmp (type/code), l4len (cut the transport part to
    that many bytes), frag (offset in 8-byte units), mf, ttl, tos, phase
    (1-3)."""
    if family == 6:
        return explicit_packets6(text)
    phases = [[], [], []]
    for line in text.splitlines():
        if not line.startswith("# packet:"):
            continue
        f = dict(w.split("=", 1) for w in line[9:].split())
        src, dst = addr(f["src"]), addr(f["dst"])
        proto = int(f.get("proto", TCP))
        sp, dp = int(f.get("sport", 1024)), int(f.get("dport", 80))
        if proto == TCP:
            l4 = tcp(src, dst, sp, dp, int(f.get("flags", "2"), 0))
        elif proto == UDP:
            l4 = udp(src, dst, sp, dp, b"payload!")
        elif proto == ICMP:
            t, _, c = f.get("icmp", "8/0").partition("/")
            l4 = icmp(int(t), int(c or 0), b"\0\1\0\1", b"payload!")
        else:
            l4 = b"\0" * 16
        if "l4len" in f:
            l4 = l4[:int(f["l4len"])]
        pk = Pkt(IFACES.index(f.get("in", "veth0")), src, dst, proto, l4,
                 int(f.get("ttl", 63)), int(f.get("tos", "0"), 0),
                 int(f.get("frag", 0)), f.get("mf", "0") == "1",
                 kind="explicit", note=line[9:].strip())
        phases[int(f.get("phase", 1)) - 1].append(pk)
    return phases


def trace_packets(rng, lines, n, planner, family=4):
    """Packets from ClassBench trace lines (src dst sport dport proto).
    With family 6 the addresses are IPv6 (made so by bench/ipv4to6.py)
    and the protocol numbers the trace's: ICMP stays 1 as the converted
    rules' "-p 1" does (an echo request after an IPv6 header), ICMPv6 is
    58.  Numbers IPv6 gives extension headers (0, 43, 44, 60) make one
    that ends in "no next header" (Planner.l4_6()): eight zero bytes
    after next header 0 are a hop-by-hop header whose next one is cut
    off, which ip6tables lets rules without -p see and nf-hipac6 drops
    (hooks.c; NFHP_DIFF6_UNWALKABLE)."""
    v6 = family == 6
    ok, P = (usable6, Pkt6) if v6 else (usable, Pkt)
    out = []
    picks = [lines[rng.randrange(len(lines))] for _ in range(n)]
    for f in picks:
        src, dst, sp, dp, proto = f
        if not ok(src) or not ok(dst):
            continue
        iface = rng.randrange(4)
        if proto == TCP:
            l4 = tcp(src, dst, sp, dp, planner.flags(), v6=v6)
        elif proto == UDP:
            l4 = udp(src, dst, sp, dp, v6=v6)
        elif proto == ICMP:
            l4 = icmp(8, 0)
        elif proto == ICMP6 and v6:
            l4 = icmp6(src, dst, 128, 0)
        elif proto in (0, EXT_FRAG, 43, 60) and v6:
            l4 = planner.l4_6(src, dst, proto, 40)
        else:
            l4 = b"\0" * 8
        out.append(P(iface, src, dst, proto, l4, 63, 0, kind="trace"))
    return [out, [], []]


# IPv6: the nets behind the routers (topo.sh: 2001:db8:1::/48 on veth0,
# :2:: on veth10, :3:: on eth1, the rest on srv0).
NETS6 = (addr6("2001:db8:1::"), addr6("2001:db8:2::"), addr6("2001:db8:3::"),
         addr6("2a00:1450:4001::"))
CLIENT_NETS6 = NETS6[:3]
PLENS6 = (0, 16, 32, 44, 47, 48, 48, 56, 63, 64, 64, 72, 78, 80, 96, 112,
          120, 124, 126, 127, 128, 128)
LENGTHS6 = (40, 41, 48, 56, 60, 61, 64, 68, 72, 80, 100, 128, 200, 576,
            1000, 1280, 1400)
# Mark masks: of high bits, which the tree takes, and of low bits, which
# go to libxtables' mark match.
MARK_MASKS6 = ("0xffffffff", "0xffff0000", "0xff000000", "0xfffffff0",
               "0xfffffffe", "0x80000000", "0xfffff000", "0xff")
# ip6tables' icmpv6 type names with the type/code they stand for.
ICMP6_NAMES = {
    "destination-unreachable": (1, None), "no-route": (1, 0),
    "communication-prohibited": (1, 1), "beyond-scope": (1, 2),
    "address-unreachable": (1, 3), "port-unreachable": (1, 4),
    "failed-policy": (1, 5), "reject-route": (1, 6),
    "packet-too-big": (2, None), "time-exceeded": (3, None),
    "ttl-exceeded": (3, None), "ttl-zero-during-transit": (3, 0),
    "ttl-zero-during-reassembly": (3, 1), "parameter-problem": (4, None),
    "bad-header": (4, 0), "unknown-header-type": (4, 1),
    "unknown-option": (4, 2), "echo-request": (128, None),
    "ping": (128, None), "echo-reply": (129, None), "pong": (129, None),
    "router-solicitation": (133, None), "router-advertisement": (134, None),
    "neighbour-solicitation": (135, None),
    "neighbor-solicitation": (135, None),
    "neighbour-advertisement": (136, None), "redirect": (137, None),
}
ICMP6_TYPES = (0, 1, 2, 3, 4, 100, 127, 128, 129, 133, 134, 135, 136, 137,
               200, 255)
# Upper-layer protocols; 59 is "no next header".  -p 44 and -p 60 name
# extension headers, which ip6tables' -p never sees (it warns).
OTHER_PROTOS6 = (47, 50, 132, 59, 255)
RULE_PROTOS6 = OTHER_PROTOS6 + (44, 60)
# Extension header chains before the upper layer (or fragment header).
EXT_CHAINS = (("hbh",), ("dst",), ("rt0",), ("hbh", "dst"),
              ("hbh", "rt0", "dst"), ("dst", "rt0"), ("dst", "dst"))

# The xtables extensions of ip6tables (REJECT, LOG, limit, frag, ...),
# which kernel/xt_run.c runs for IPv6 as for IPv4.  driver.py --xt6 sets
# it; off, the random rule sets hold none.
XT6 = False
# Whether the kernel has ip6t_frag (the debug kernel has none).
XT6_FRAG = True


def domain_addr6(rng, nets=NETS6):
    """An address of nets, its host bits low, in the middle or high, so
    that prefixes of every length tell them apart."""
    host = rng.randrange(64) << rng.choice((0, 0, 0, 16, 60, 64, 72))
    return rng.choice(nets) | host


def prefix_arg6(rng):
    a = domain_addr6(rng)
    plen = rng.choice(PLENS6)
    mask = ((1 << 128) - 1) ^ ((1 << (128 - plen)) - 1)
    return "%s/%d" % (fmt6(a & mask), plen)


def addr_opt6(rng, opt):
    """-s or -d with a prefix, "!" of one, or a list of two (one rule
    each, as ip6tables makes them; no "!" of an address beside a list:
    gen_rule6())."""
    neg = inv(rng, 0.2)
    if not neg and rng.random() < 0.1:
        return [opt, prefix_arg6(rng) + "," + prefix_arg6(rng)]
    return [neg + opt, prefix_arg6(rng)]


def icmp6_arg(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice(list(ICMP6_NAMES))
    t = rng.choice(ICMP6_TYPES)
    if r < 0.65:
        return str(t)
    return "%d/%d" % (t, rng.choice((0, 1, 2, 3, 4, 5, 6)))


def mark_arg6(rng):
    v = rng.choice(MARKS[1:] + (0, 5, 0x12))
    r = rng.random()
    if r < 0.4:
        return "0x%x" % v
    mask = rng.choice(MARK_MASKS6)
    if r < 0.85:
        v &= int(mask, 16)
    return "0x%x/%s" % (v, mask)


def xt_match6(rng):
    """XT6: an xtables match for IPv6: IPv4's but those IPv6 refuses
    (addrtype BROADCAST), and IPv6's own frag and ipv6header."""
    r = rng.random()
    if r < 0.15 and XT6_FRAG:
        return ["-m", "frag"] + rng.choice(
            (["--fragmore"], ["--fraglast"], ["--fragfirst"],
             ["--fragid", "%d:%d" % (0, rng.randrange(1 << 16))]))
    if r < 0.3:
        return ["-m", "ipv6header", inv(rng) + "--header",
                rng.choice(("hop-by-hop", "ipv6-frag", "ipv6-opts",
                            "ipv6-route", "hop-by-hop,ipv6-opts",
                            "ipv6-nonxt")),
                *rng.choice(([], ["--soft"]))]
    m = xt_match(rng)
    if "BROADCAST" in m:
        m[m.index("BROADCAST")] = "MULTICAST"
    return m


def xt_target6(rng, proto):
    """XT6: an xtables target for IPv6."""
    r = rng.random()
    if r < 0.45:
        kinds = ["icmp6-no-route", "icmp6-adm-prohibited",
                 "icmp6-addr-unreachable", "icmp6-port-unreachable"]
        if proto == "tcp":
            kinds.append("tcp-reset")
        return ["-j", "REJECT", "--reject-with", rng.choice(kinds)]
    if r < 0.6:
        return ["-j", "LOG", "--log-prefix", '"gen "']
    if r < 0.7:
        return ["-j", "NFLOG", "--nflog-group", "9"]
    return ["-j", "MARK", "--set-mark", "0x%x" % rng.randrange(0x100)]


def gen_rule6(rng, chain, targets, may_return):
    """One ip6tables rule of chain, in the forms nf-hipac6 takes."""
    w = ["-A", chain]
    if rng.random() < 0.3:
        w += addr_opt6(rng, "-s")
    if rng.random() < 0.25:
        w += addr_opt6(rng, "-d")
    if "! -s" in w or "! -d" in w:
        # ip6tables: "! not allowed with multiple ... addresses".
        w = [x.split(",")[0] for x in w]
    if rng.random() < 0.2:
        w += [inv(rng, 0.2) + "-i", rng.choice(IF_PATTERNS)]
    if rng.random() < 0.15:
        w += [inv(rng, 0.2) + "-o", rng.choice(IF_PATTERNS)]
    proto = None
    r = rng.random()
    if r < 0.25:
        proto = "tcp"
    elif r < 0.4:
        proto = "udp"
    elif r < 0.5:
        proto = rng.choice(("ipv6-icmp", "icmpv6"))
    elif r < 0.55:
        proto = str(rng.choice(RULE_PROTOS6))
    elif r < 0.6:
        w += ["!", "-p", rng.choice(("tcp", "udp", "ipv6-icmp", "59"))]
    if proto:
        w += ["-p", proto]
    if XT6 and rng.random() < 0.08:
        w += xt_match6(rng)
    # The transport matches keep their order (a tcp or udp match after
    # multiport would need libxtables); the others may move around them.
    lead, rest = [], []
    used = set()
    if proto in ("tcp", "udp") and rng.random() < 0.7:
        m = []
        if rng.random() < 0.35:
            m += [inv(rng) + "--sport", port_arg(rng)]
            used.add("s")
        if rng.random() < 0.6:
            m += [inv(rng) + "--dport", port_arg(rng)]
            used.add("d")
        if proto == "tcp" and rng.random() < 0.35:
            if rng.random() < 0.3:
                m += [inv(rng) + "--syn"]
            else:
                m += [inv(rng) + "--tcp-flags"] + flags_arg(rng).split()
        if m:
            lead.append(["-m", proto] + m)
    if proto in ("ipv6-icmp", "icmpv6") and rng.random() < 0.7:
        lead.append(["-m", "icmp6", inv(rng) + "--icmpv6-type",
                     icmp6_arg(rng)])
    if proto in ("tcp", "udp") and rng.random() < 0.2:
        # One match a dimension: multiport takes the free port.
        free = [d for d in "ds" if d not in used]
        if free:
            d = rng.choice(free)
            lead.append(["-m", "multiport", inv(rng) +
                         ("--dports" if d == "d" else "--sports"),
                         multiport_arg(rng)])
    if rng.random() < 0.25:
        states = [s for s in STATES if rng.random() < 0.35] or ["NEW"]
        if rng.random() < 0.5:
            rest.append(["-m", "state", inv(rng) + "--state",
                         ",".join(states)])
        else:
            rest.append(["-m", "conntrack", inv(rng) + "--ctstate",
                         ",".join(states)])
    if rng.random() < 0.15:
        r = rng.random()
        v = rng.choice(TTLS + (0,))
        if r < 0.4:
            rest.append(["-m", "hl", inv(rng, 0.25) + "--hl-eq", str(v)])
        elif r < 0.7:
            rest.append(["-m", "hl", "--hl-lt", str(max(v, 1))])
        else:
            rest.append(["-m", "hl", "--hl-gt", str(min(v, 254))])
    if rng.random() < 0.12:
        a, b = sorted((rng.choice(LENGTHS6), rng.choice(LENGTHS6)))
        arg = str(a) if rng.random() < 0.3 else "%d:%d" % (a, b)
        rest.append(["-m", "length", inv(rng) + "--length", arg])
    if rng.random() < 0.12:
        rest.append(["-m", "mark", inv(rng) + "--mark", mark_arg6(rng)])
    if rng.random() < 0.06:
        rest.append(["-m", "comment", "--comment",
                     '"rule %d of %s"' % (rng.randrange(100), chain)])
    mods = lead + rest
    if len(mods) > 1 and rng.random() < 0.3:
        rng.shuffle(mods)
        it = iter(lead)
        mods = [next(it) if m in lead else m for m in mods]
    for mod in mods:
        w += mod
    if XT6 and rng.random() < 0.08:
        w += xt_match6(rng)
    r = rng.random()
    if XT6 and r < 0.1:
        w += xt_target6(rng, proto)
    elif targets and r < 0.25:
        w += ["-g" if rng.random() < 0.35 else "-j", rng.choice(targets)]
    elif may_return and r < 0.35:
        w += ["-j", "RETURN"]
    elif r < 0.45:
        pass
    elif r < 0.75:
        w += ["-j", "ACCEPT"]
    else:
        w += ["-j", "DROP"]
    out = []
    for t in w:
        out += t.split(" ") if t.startswith("! ") else [t]
    return " ".join(out)


def _addr_range6(arg):
    a, _, m = arg.partition("/")
    a = addr6(a)
    plen = int(m) if m else 128
    mask = ((1 << 128) - 1) ^ ((1 << (128 - plen)) - 1)
    return a & mask, (a & mask) | (~mask & ((1 << 128) - 1))


def _icmp6_tc(a):
    if a in ICMP6_NAMES:
        t, c = ICMP6_NAMES[a]
        return t, c or 0
    t, _, c = a.partition("/")
    return int(t), int(c or 0)


def pools6(text):
    """pools() of an ip6tables rule set."""
    p = Pools()
    for line in text.splitlines():
        if not line.startswith("-A") and not line.startswith("["):
            continue
        try:
            w = shlex.split(line)
        except ValueError:
            continue
        for i, t in enumerate(w[:-1]):
            a = w[i + 1]
            try:
                if t in ("-s", "-d"):
                    _around(p.addr, *_addr_range6(a), (1 << 128) - 1)
                elif t in ("--sport", "--dport"):
                    _around(p.port, *_port_range(a), 65535)
                elif t in ("--sports", "--dports"):
                    for item in a.split(","):
                        _around(p.port, *_port_range(item), 65535)
                elif t == "-p" and a.isdigit():
                    p.proto.add(int(a))
                elif t == "--tcp-flags":
                    mask, cmp = _flag_bits(a), _flag_bits(w[i + 2])
                    p.flags.update((cmp, cmp ^ mask, cmp | 0x10,
                                    cmp ^ (mask & -mask)))
                elif t == "--icmpv6-type":
                    t_, c_ = _icmp6_tc(a)
                    for c in (c_ - 1, c_, c_ + 1):
                        if 0 <= c <= 255:
                            p.icmp.add((t_, c))
                elif t in ("--hl-eq", "--hl-lt", "--hl-gt"):
                    _around(p.ttl, int(a), int(a), 254)
                elif t == "--length":
                    _around(p.len, *_port_range(a), 1500)
                elif t in ("--state", "--ctstate"):
                    p.state = True
            except (ValueError, IndexError, OSError):
                pass
    p.addr = sorted(a for a in p.addr if usable6(a))
    for s in ("port", "proto", "flags", "icmp", "ttl", "len"):
        setattr(p, s, sorted(getattr(p, s)))
    return p


def usable6(a):
    """An address both routers forward alike: not ::/8 (unspecified,
    loopback, v4-mapped), not link-local or multicast, not the routers'
    links fd00:100::/64 .. fd00:103::/64 (fd00:100::/30; fd00::/24 holds
    the addresses bench/ipv4to6.py makes, which are usable)."""
    top = a >> 120
    if top in (0, 0xFF) or a >> 118 == 0xFE80 >> 6:
        return False
    return a >> 98 != addr6("fd00:100::") >> 98


def explicit_packets6(text):
    """explicit_packets() of an IPv6 corpus file: the same keys (ttl is
    the hop limit, tos the traffic class, icmp an icmpv6 type/code, proto
    58 icmpv6), and ext (extension headers, comma-separated names of
    pkt.EXT_CODES), fragh=1 (a fragment header even at offset 0 without
    MF) and fragnext (its next header)."""
    phases = [[], [], []]
    for line in text.splitlines():
        if not line.startswith("# packet:"):
            continue
        f = dict(w.split("=", 1) for w in line[9:].split())
        src, dst = addr6(f["src"]), addr6(f["dst"])
        proto = int(f.get("proto", TCP))
        sp, dp = int(f.get("sport", 1024)), int(f.get("dport", 80))
        if proto == TCP:
            l4 = tcp(src, dst, sp, dp, int(f.get("flags", "2"), 0), v6=True)
        elif proto == UDP:
            l4 = udp(src, dst, sp, dp, b"payload!", v6=True)
        elif proto == ICMP6:
            t, _, c = f.get("icmp", "128/0").partition("/")
            l4 = icmp6(src, dst, int(t), int(c or 0), b"\0\1\0\1",
                       b"payload!")
        else:
            l4 = b"\0" * 16
        if "l4len" in f:
            l4 = l4[:int(f["l4len"])]
        fn = f.get("fragnext")
        pk = Pkt6(IFACES.index(f.get("in", "veth0")), src, dst, proto, l4,
                  int(f.get("ttl", 63)), int(f.get("tos", "0"), 0),
                  int(f.get("frag", 0)), f.get("mf", "0") == "1",
                  kind="explicit", note=line[9:].strip(),
                  exts=[e for e in f.get("ext", "").split(",") if e],
                  fragh=f.get("fragh", "0") == "1",
                  frag_next=int(fn) if fn is not None else None)
        phases[int(f.get("phase", 1)) - 1].append(pk)
    return phases


__all__ = ["gen_ruleset", "pools", "Planner", "trace_packets", "IFACES"]
