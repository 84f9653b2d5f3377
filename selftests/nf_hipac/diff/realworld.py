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

With family 6 (iptables_diff6.sh) the firewall is made IPv6 after that:
bench/ipv4to6.py moves every address and prefix into fd00::/24
(131.159.20.0/24 becomes fd00:83:9f14::/48), "-p icmp" becomes
ipv6-icmp, and to_ipv6() rewrites or drops what ip6tables has no word
for (see IPV4_ONLY).  The routes, the hosts out on the uplink and the
packets are mapped the same way; the router's own address on srv0 and
the next hops are topo.sh's IPv6 ones, pings are ICMPv6 echo requests.
"""
import re
import shlex

from gen import ICMP6_NAMES
from pkt import (ICMP, ICMP6, TCP, UDP, Pkt, Pkt6, addr, addr6, icmp, icmp6,
                 map6, rules6, tcp, udp)

# The firewall's interfaces that get a router interface (pkt.IFACES index).
VLANS = {"vlan109": 0, "vlan171": 1, "vlan96": 2, "vlan110": 3}
ROUTER_IFS = ("veth0", "veth10", "eth1", "srv0")
# Where the routers' neighbours on veth0, veth10, eth1 are (topo.sh).
NEXT_HOPS = ("192.168.100.2", "192.168.101.2", "192.168.102.2")
NEXT_HOPS6 = ("fd00:100::2", "fd00:101::2", "fd00:102::2")
# The router's own address on srv0, for the INPUT chain.
ROUTER_SRV = addr("192.168.103.1")
ROUTER_SRV6 = addr6("fd00:103::1")
# Addresses out on the uplink.
INTERNET_V4 = ("8.8.8.8", "193.99.144.80", "198.51.100.7", "203.0.113.9",
               "62.4.5.6", "188.95.232.70")
INTERNET = [addr(a) for a in INTERNET_V4]
INTERNET6 = [addr6(map6(a)) for a in INTERNET_V4]
# The SSH servers' nets that ratessh counts (ssh_burst()).
SSH_NET = "131.159.14.0/23"
LIMIT = "--limit 1/hour --limit-burst 3"

# What ip6tables cannot take of the firewall made IPv6 by rules6() (which
# turns -m ttl into -m hl and -p icmp into ipv6-icmp).  REJECT's ICMP messages have
# ICMPv6 ones (ip6t_REJECT), but for a protocol unreachable: REJECT6
# gives each its ICMPv6 form, None drops the rule.  The firewall's 17
# REJECT rules say icmp-port-unreachable, which ip6tables refuses: they
# become icmp6-port-unreachable.  Rules of IPv4's own options and matches
# are dropped: -f (a later IPv4 fragment; IPv6 has -m frag), -m
# ipv4options and -m realm (IPv4 only in the kernel), and icmp type names
# that ICMPv6 lacks (source-quench...; rules6() keeps type numbers).
# The firewall has none of those.
REJECT6 = {"icmp-net-unreachable": "icmp6-no-route",
           "net-unreach": "icmp6-no-route",
           "icmp-host-unreachable": "icmp6-addr-unreachable",
           "host-unreach": "icmp6-addr-unreachable",
           "icmp-port-unreachable": "icmp6-port-unreachable",
           "port-unreach": "icmp6-port-unreachable",
           "icmp-net-prohibited": "icmp6-adm-prohibited",
           "net-prohib": "icmp6-adm-prohibited",
           "icmp-host-prohibited": "icmp6-adm-prohibited",
           "host-prohib": "icmp6-adm-prohibited",
           "icmp-admin-prohibited": "icmp6-adm-prohibited",
           "admin-prohib": "icmp6-adm-prohibited",
           "icmp-proto-unreachable": None, "proto-unreach": None,
           "tcp-reset": "tcp-reset"}
IPV4_ONLY = ("-f", "--fragment")
IPV4_ONLY_MATCHES = ("ipv4options", "realm")


def to_ipv6(text):
    """The rule set text (IPv4, adapted) as ip6tables takes it, and what
    was changed: (text, {what: rules})."""
    out, notes = [], {}

    def note(what):
        notes[what] = notes.get(what, 0) + 1
    for line in rules6(text).splitlines(True):
        if not line.startswith("-A "):
            out.append(line)
            continue
        w = line.split()
        bad = [o for o in IPV4_ONLY if o in w] + \
            ["-m " + o for o in IPV4_ONLY_MATCHES
             if o in w and w[w.index(o) - 1] == "-m"]
        if "--icmpv6-type" in w:
            t = w[w.index("--icmpv6-type") + 1]
            if not t.split("/")[0].isdigit() and t not in ICMP6_NAMES:
                bad.append("--icmp-type " + t)
        m = re.search(r"--reject-with (\S+)", line)
        if m and REJECT6.get(m.group(1)) is None:
            bad.append("--reject-with " + m.group(1))
        if bad:
            note("dropped for " + ", ".join(bad))
            continue
        if m and REJECT6[m.group(1)] != m.group(1):
            line = line.replace(m.group(0), "--reject-with " +
                                REJECT6[m.group(1)])
            note("%s made %s" % (m.group(0), REJECT6[m.group(1)]))
        if "-p ipv6-icmp" in line:
            note("-p icmp made ipv6-icmp")
        if "-m hl" in line:
            note("-m ttl made -m hl")
        out.append(line)
    return "".join(out), notes


def adapt(text, family=4):
    """(rule set text for the routers, [(net, router interface, next
    hop)] to route, {what was changed for IPv6: rules})."""
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
    if family != 6:
        return out, routes, {}
    out, notes = to_ipv6(out)
    routes = [(map6(net), dev, NEXT_HOPS6[ROUTER_IFS.index(dev)])
              for net, dev, _ in routes]
    return out, routes, notes


def _net(s, family=4):
    """(base, host bits) of the prefix s."""
    a, _, p = s.partition("/")
    bits = 128 if family == 6 else 32
    host = bits - int(p or bits)
    return (addr6(a) if family == 6 else addr(a)) >> host << host, host


def _in(a, net):
    base, host = net
    return a >> host == base >> host


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

    def __init__(self, text, family=4):
        self.family = family
        self.nets = {}          # iface -> (base, host bits) of its vlan
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
                self.nets[i] = _net(w[3], family)
                chains[w[7]] = i
        for w in rules:
            opt = dict(zip(w, w[1:]))
            if w[1] in chains and "-s" in opt:
                host = _net(opt["-s"], family)[0]
                self.hosts.setdefault(chains[w[1]], []).append(
                    (host, opt.get("--mac-source")))
            elif w[1].startswith("filter_") and opt.get("-j") == "ACCEPT" \
                    and "-d" in opt and "-p" in opt:
                spec = opt.get("--dport") or opt.get("--dports") or ""
                proto = {"tcp": TCP, "udp": UDP, "icmp": ICMP,
                         "ipv6-icmp": ICMP6}.get(opt["-p"], None)
                if proto is None:
                    continue
                self.services.append((_net(opt["-s"], family) if "-s" in opt
                                      else None,
                                      _net(opt["-d"], family)[0], proto,
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
        self.v6 = rules.family == 6
        self.Pkt = Pkt6 if self.v6 else Pkt
        self.icmp = ICMP6 if self.v6 else ICMP
        self.internet = INTERNET6 if self.v6 else INTERNET

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
            base, host = self.r.nets[i]
            return i, base | r.randrange(1 << host), None
        if x < 0.95:
            return i, r.choice(self.internet), None     # spoofed
        return i, host, None

    def l4(self, src, dst, proto, port, flags=0x02, data=b""):
        v6 = self.v6
        if proto == TCP:
            return tcp(src, dst, self.sport(), port, flags,
                       self.rng.randrange(1 << 32), 0, data, v6=v6)
        if proto == UDP:
            return udp(src, dst, self.sport(), port, data or b"query",
                       v6=v6)
        if v6:
            return icmp6(src, dst, 128, 0, bytes((1, 2, 0, 1)), b"ping")
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
                dst, proto, port = r.choice(self.internet), \
                    r.choice((TCP, TCP, UDP, self.icmp, 47, 50)), \
                    r.choice((22, 25, 53, 80, 443, 3389, 6000))
            else:
                _, dst, proto, port = self.service()
        elif x < 0.8:                   # from the uplink
            i, smac = 3, None
            net, dst, proto, port = self.service()
            if net and r.random() < 0.5:
                base, host = net
                src = base | r.randrange(1 << host)
                j = self.r.vlan_of(src)
                if j is not None:
                    # From its own vlan, with its MAC if listed.
                    i, src, smac = self.inside(j) if r.random() < 0.5 \
                        else (j, src, None)
            else:
                src = r.choice(self.internet)
            if r.random() < 0.2:
                port = r.randrange(1, 65536)
        elif x < 0.9:                   # spoofed from the uplink
            i, smac = 3, None
            src = r.choice([h for hs in self.r.hosts.values() for h, _ in hs])
            _, dst, proto, port = self.service()
        else:                           # to the router (INPUT)
            i, smac = 3, None
            dst = ROUTER_SRV6 if self.v6 else ROUTER_SRV
            src = r.choice(self.internet)
            proto, port = r.choice(((self.icmp, 0), (UDP, 53), (TCP, 53),
                                    (TCP, 22), (TCP, 389), (UDP, 123)))
        if proto in (47, 50):
            l4 = bytes(r.randrange(256) for _ in range(16))
        else:
            flags = 0x02 if r.random() < 0.8 else r.choice((0x12, 0x10,
                                                            0x04, 0x03))
            l4 = self.l4(src, dst, proto, port, flags)
        return self.Pkt(i, src, dst, proto, l4, 63, 0, kind="real-world",
                        smac=smac)

    def flow(self):
        """[[phase 1], [phase 2], [phase 3]] of one connection, from a
        vlan to the uplink or from the uplink to a service."""
        r = self.rng
        if r.random() < 0.5:
            ci, c, cmac = self.inside()
            s, proto, sp = r.choice(self.internet), r.choice((TCP, UDP)), \
                r.choice((22, 53, 80, 443))
            si, smac = 3, None
        else:
            ci, cmac, c = 3, None, r.choice(self.internet)
            _, s, proto, sp = self.service()
            si = self.r.vlan_of(s)
            si = 3 if si is None else si
            smac = None
        cp = self.sport()
        m = 0xFFFFFFFF
        v6 = self.v6

        def P(fwd, l4, note):
            return self.Pkt(ci if fwd else si, c if fwd else s,
                            s if fwd else c, proto, l4, 63, 0,
                            kind="real-world flow", note=note,
                            smac=cmac if fwd else smac)
        if proto == TCP:
            ci_, si_ = r.randrange(1 << 32), r.randrange(1 << 32)
            return [[P(1, tcp(c, s, cp, sp, 0x02, ci_, v6=v6), "tcp syn")],
                    [P(0, tcp(s, c, sp, cp, 0x12, si_, (ci_ + 1) & m,
                              v6=v6), "tcp syn/ack")],
                    [P(1, tcp(c, s, cp, sp, 0x10, (ci_ + 1) & m,
                              (si_ + 1) & m, v6=v6), "tcp ack"),
                     P(1, tcp(c, s, cp, sp, 0x18, (ci_ + 1) & m,
                              (si_ + 1) & m, b"request", v6=v6),
                       "tcp data"),
                     P(0, tcp(s, c, sp, cp, 0x18, (si_ + 1) & m,
                              (ci_ + 8) & m, b"reply", v6=v6),
                       "tcp reply")]]
        return [[P(1, udp(c, s, cp, sp, b"request", v6=v6),
                   "udp request")],
                [P(0, udp(s, c, sp, cp, b"answer", v6=v6), "udp reply")],
                [P(1, udp(c, s, cp, sp, b"again", v6=v6), "udp again")]]

    def ssh_burst(self, n=45):
        """n SSH SYNs from one source on the uplink to an SSH server of
        131.159.14.0/23 on a vlan: ratessh's hitcount stops the 41st."""
        r = self.rng
        net = _net(map6(SSH_NET), 6) if self.v6 else _net(SSH_NET)
        ssh = [s for s in self.r.services if s[2] == TCP and 22 in s[3] and
               s[0] is None and _in(s[1], net) and
               self.r.vlan_of(s[1]) is not None]
        dst = r.choice(ssh)[1] if ssh else \
            self.r.nets[min(self.r.nets)][0] | 9
        src = r.choice(self.internet)
        return [self.Pkt(3, src, dst, TCP,
                         tcp(src, dst, 41000 + k, 22, 0x02,
                             r.randrange(1 << 32), v6=self.v6),
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


def plan(text, rng, n, family=4):
    """The phases of packets for the adapted rule set text; none when it
    has no vlan on the routers' interfaces (the driver then finds its
    chains unreached and fails)."""
    rules = Rules(text, family)
    if not rules.hosts or not rules.services:
        return [[], [], []]
    return Planner(rng, rules).plan(n)
