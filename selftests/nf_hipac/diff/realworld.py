# SPDX-License-Identifier: GPL-2.0
"""The university firewall of real-world/ in iptables_diff.sh's routers.

Its rules name the firewall's interfaces (vlan96, vlan108, ..., vlan110
the uplink) and check the MAC of each host of a vlan (chains mac_N, by
-m mac).  adapt() renames four of them to the routers' interfaces, so
that packets reach their chains:

    vlan109 -> veth0     131.159.20.0/24, mac_109 and filter_109
    vlan171 -> veth10    131.159.15.0/26, mac_171 and filter_171
    vlan96  -> eth1      131.159.14.0/25, mac_96 and filter_96
    vlan110 -> srv0      the uplink: everything else, NOTFROMHERE,
                         filter_0, filter_INPUT

and gives the routes that send each vlan's net out of its interface.  The
other vlans keep their names, which no router interface has: their rules
never match, in either router.  plan() makes packets from the rules:
hosts of the three vlans with the MAC their mac chain expects, another
one or the tester's own, to the uplink and to the services of the filter
chains, from the uplink to those services (and spoofed from inside), to
the router itself (INPUT), flows in three phases (conntrack's NEW and
ESTABLISHED), and a burst of SSH connections from one source, which
"-m recent --hitcount 41 --name ratessh" stops at the 41st.  A packet
carries its source MAC (Pkt.smac): both routers see the same frame.

The stateful matches see the same frames in the same order in both
routers, so they decide alike with one exception: -m limit refills its
tokens with time, and the two routers see each frame microseconds apart;
a refill between them would make one REJECT (filter_DEFAULT) or LOG
(LOG_DROP) a packet the other does not.  adapt() makes each
"--limit 100/min" a "--limit 1/hour --limit-burst 3", as the corpus does
(xt-matches.rules): the first three packets that each limit rule sees
match, the rest do not, in both, and nothing refills while the test runs.
That compares how often nf-hipac runs the match, not the rate.
-m recent counts hits over 60 and 360 seconds, longer than the test.  LOG
writes nothing from a network namespace but the initial one
(net.netfilter.nf_log_all_netns is 0): its counters are compared.
"""
import re
import shlex

from pkt import ICMP, TCP, UDP, Pkt, addr, icmp, tcp, udp

# The firewall's interfaces that get a router interface (pkt.IFACES index).
VLANS = {"vlan109": 0, "vlan171": 1, "vlan96": 2, "vlan110": 3}
ROUTER_IFS = ("veth0", "veth10", "eth1", "srv0")
# Where the routers' neighbours on veth0, veth10, eth1 are (topo.sh).
NEXT_HOPS = ("192.168.100.2", "192.168.101.2", "192.168.102.2")
# The router's own address on srv0, for the INPUT chain.
ROUTER_SRV = addr("192.168.103.1")
# Addresses out on the uplink.
INTERNET = [addr(a) for a in ("8.8.8.8", "193.99.144.80", "198.51.100.7",
                              "203.0.113.9", "62.4.5.6", "188.95.232.70")]
LIMIT = "--limit 1/hour --limit-burst 3"


def adapt(text):
    """(rule set text for the routers, [(net, router interface, next
    hop)] to route)."""
    def iface(m):
        return m.group(1) + ROUTER_IFS[VLANS[m.group(2)]]

    out = re.sub(r"(-[io] )(%s)(?= |$)" % "|".join(VLANS), iface, text,
                 flags=re.M)
    out = out.replace("--limit 100/min", LIMIT)
    routes = []
    for line in out.splitlines():
        w = line.split()
        if len(w) == 8 and w[:2] == ["-A", "FORWARD"] and w[2] == "-d" and \
                w[4] == "-o" and w[5] in ROUTER_IFS[:3] and \
                not w[3].startswith("224."):
            i = ROUTER_IFS.index(w[5])
            routes.append((w[3], w[5], NEXT_HOPS[i]))
    return out, routes


def _net(s):
    a, _, p = s.partition("/")
    plen = int(p or 32)
    mask = (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF
    return addr(a) & mask, plen


def _in(a, net):
    base, plen = net
    return (a >> (32 - plen)) == (base >> (32 - plen)) if plen else True


def _ports(spec):
    out = []
    for item in spec.split(","):
        lo, _, hi = item.partition(":")
        lo = int(lo or 0)
        hi = int(hi) if hi else lo
        out.append(lo if lo == hi else (lo + hi) // 2)
        if lo != hi:
            out.append(hi)
    return out


class Rules:
    """What plan() needs of the adapted rule set."""

    def __init__(self, text):
        self.nets = {}          # iface -> (base, plen) of its vlan
        self.hosts = {}         # iface -> [(addr, mac or None)]
        self.services = []      # (src net or None, dst, proto, [ports])
        chains = {}             # mac chain -> iface
        rules = []
        for line in text.splitlines():
            if not line.startswith("-A "):
                continue
            w = shlex.split(line)
            rules.append(w)
            if w[1] == "FORWARD" and len(w) == 8 and w[2] == "-s" and \
                    w[4] == "-i" and w[5] in ROUTER_IFS[:3]:
                i = ROUTER_IFS.index(w[5])
                self.nets[i] = _net(w[3])
                chains[w[7]] = i
        for w in rules:
            opt = dict(zip(w, w[1:]))
            if w[1] in chains and "-s" in opt:
                host = _net(opt["-s"])[0]
                self.hosts.setdefault(chains[w[1]], []).append(
                    (host, opt.get("--mac-source")))
            elif w[1].startswith("filter_") and opt.get("-j") == "ACCEPT" \
                    and "-d" in opt and "-p" in opt:
                spec = opt.get("--dport") or opt.get("--dports") or ""
                proto = {"tcp": TCP, "udp": UDP, "icmp": ICMP}.get(
                    opt["-p"], None)
                if proto is None:
                    continue
                self.services.append((_net(opt["-s"]) if "-s" in opt
                                      else None, _net(opt["-d"])[0], proto,
                                      _ports(spec) if spec else [0]))
        self.macs = sorted({m for h in self.hosts.values() for _, m in h
                            if m})

    def vlan_of(self, a):
        for i, net in self.nets.items():
            if _in(a, net):
                return i
        return None


class Planner:
    """The packets of the adapted firewall (see the top)."""

    def __init__(self, rng, rules):
        self.rng, self.r = rng, rules

    def sport(self):
        return self.rng.randrange(40000, 60000)

    def inside(self, i=None):
        """(iface, source, source MAC or None) of a host on a vlan."""
        r = self.rng
        if i is None:
            i = r.choice(sorted(self.r.hosts))
        host, want = r.choice(self.r.hosts[i])
        x = r.random()
        if want and x < 0.7:
            return i, host, want
        if x < 0.8:
            return i, host, r.choice(self.r.macs)
        if x < 0.9:
            base, plen = self.r.nets[i]
            return i, base | r.randrange(1 << (32 - plen)), None
        if x < 0.95:
            return i, r.choice(INTERNET), None      # spoofed
        return i, host, None

    def l4(self, src, dst, proto, port, flags=0x02, data=b""):
        if proto == TCP:
            return tcp(src, dst, self.sport(), port, flags,
                       self.rng.randrange(1 << 32), 0, data)
        if proto == UDP:
            return udp(src, dst, self.sport(), port, data or b"query")
        return icmp(8, 0, bytes((1, 2, 0, 1)), b"ping")

    def service(self):
        """(src net or None, dst, proto, port) of a filter chain's rule."""
        net, dst, proto, ports = self.rng.choice(self.r.services)
        return net, dst, proto, self.rng.choice(ports)

    def probe(self):
        r = self.rng
        x = r.random()
        if x < 0.4:                     # from a vlan
            i, src, smac = self.inside()
            y = r.random()
            if y < 0.4:
                dst, proto, port = r.choice(INTERNET), \
                    r.choice((TCP, TCP, UDP, ICMP, 47, 50)), \
                    r.choice((22, 25, 53, 80, 443, 3389, 6000))
            else:
                _, dst, proto, port = self.service()
        elif x < 0.8:                   # from the uplink
            i, smac = 3, None
            net, dst, proto, port = self.service()
            if net and r.random() < 0.5:
                base, plen = net
                src = base | r.randrange(1 << (32 - plen))
                j = self.r.vlan_of(src)
                if j is not None:
                    # From its own vlan, with its MAC if listed.
                    i, src, smac = self.inside(j) if r.random() < 0.5 \
                        else (j, src, None)
            else:
                src = r.choice(INTERNET)
            if r.random() < 0.2:
                port = r.randrange(1, 65536)
        elif x < 0.9:                   # spoofed from the uplink
            i, smac = 3, None
            src = r.choice([h for hs in self.r.hosts.values() for h, _ in hs])
            _, dst, proto, port = self.service()
        else:                           # to the router (INPUT)
            i, smac, dst = 3, None, ROUTER_SRV
            src = r.choice(INTERNET)
            proto, port = r.choice(((ICMP, 0), (UDP, 53), (TCP, 53),
                                    (TCP, 22), (TCP, 389), (UDP, 123)))
        if proto in (47, 50):
            l4 = bytes(r.randrange(256) for _ in range(16))
        else:
            flags = 0x02 if r.random() < 0.8 else r.choice((0x12, 0x10,
                                                            0x04, 0x03))
            l4 = self.l4(src, dst, proto, port, flags)
        return Pkt(i, src, dst, proto, l4, 63, 0, kind="real-world",
                   smac=smac)

    def flow(self):
        """[[phase 1], [phase 2], [phase 3]] of one connection, from a
        vlan to the uplink or from the uplink to a service."""
        r = self.rng
        if r.random() < 0.5:
            ci, c, cmac = self.inside()
            s, proto, sp = r.choice(INTERNET), r.choice((TCP, UDP)), \
                r.choice((22, 53, 80, 443))
            si, smac = 3, None
        else:
            ci, cmac, c = 3, None, r.choice(INTERNET)
            _, s, proto, sp = self.service()
            si = self.r.vlan_of(s)
            si = 3 if si is None else si
            smac = None
        cp = self.sport()
        m = 0xFFFFFFFF

        def P(fwd, l4, note):
            return Pkt(ci if fwd else si, c if fwd else s, s if fwd else c,
                       proto, l4, 63, 0, kind="real-world flow", note=note,
                       smac=cmac if fwd else smac)
        if proto == TCP:
            ci_, si_ = r.randrange(1 << 32), r.randrange(1 << 32)
            return [[P(1, tcp(c, s, cp, sp, 0x02, ci_), "tcp syn")],
                    [P(0, tcp(s, c, sp, cp, 0x12, si_, (ci_ + 1) & m),
                       "tcp syn/ack")],
                    [P(1, tcp(c, s, cp, sp, 0x10, (ci_ + 1) & m,
                              (si_ + 1) & m), "tcp ack"),
                     P(1, tcp(c, s, cp, sp, 0x18, (ci_ + 1) & m,
                              (si_ + 1) & m, b"request"), "tcp data"),
                     P(0, tcp(s, c, sp, cp, 0x18, (si_ + 1) & m,
                              (ci_ + 8) & m, b"reply"), "tcp reply")]]
        return [[P(1, udp(c, s, cp, sp, b"request"), "udp request")],
                [P(0, udp(s, c, sp, cp, b"answer"), "udp reply")],
                [P(1, udp(c, s, cp, sp, b"again"), "udp again")]]

    def ssh_burst(self, n=45):
        """n SSH SYNs from one source on the uplink to an SSH server of
        131.159.14.0/23 on a vlan: ratessh's hitcount stops the 41st."""
        r = self.rng
        ssh = [s for s in self.r.services if s[2] == TCP and 22 in s[3] and
               s[0] is None and _in(s[1], _net("131.159.14.0/23")) and
               self.r.vlan_of(s[1]) is not None]
        dst = r.choice(ssh)[1] if ssh else \
            self.r.nets[min(self.r.nets)][0] | 9
        src = r.choice(INTERNET)
        return [Pkt(3, src, dst, TCP, tcp(src, dst, 41000 + k, 22, 0x02,
                                          r.randrange(1 << 32)),
                    63, 0, kind="real-world ssh", note="syn %d" % (k + 1))
                for k in range(n)]

    def plan(self, n):
        """About n packets in three phases."""
        phases = [[], [], []]
        while sum(map(len, phases)) < n // 3:
            for i, ph in enumerate(self.flow()):
                phases[i] += ph
        while sum(map(len, phases)) < n:
            phases[0].append(self.probe())
        self.rng.shuffle(phases[0])
        phases[0] += self.ssh_burst()
        return phases


def plan(text, rng, n):
    """The phases of packets for the adapted rule set text; none when it
    has no vlan on the routers' interfaces (the driver then finds its
    chains unreached and fails)."""
    rules = Rules(text)
    if not rules.hosts or not rules.services:
        return [[], [], []]
    return Planner(rng, rules).plan(n)
