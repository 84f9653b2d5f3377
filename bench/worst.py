#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""worst.py N - print a random worst-case filter rule set of N rules.

Rules use many dimensions at once, overlap on every one of them, and sit
in user chains that are jumped to from many places, so that a tree that
inlines its chains has many entries to build from:

    bench/worst.py 1000 --seed 3 > /tmp/worst.ipt
    user/build/nf-hipac-sim --stats /tmp/worst.ipt

The rules are spread over the built-in chains (--hook-share of them,
mostly FORWARD, some INPUT and OUTPUT) and --chains user chains C0, C1,
... in --depth levels: a chain jumps or goes only to chains of a deeper
level, so there is no loop.  The last chain is the "hot" one: --hot of
all jumps go to it, from every level.  Every user chain is reached from
at least one rule (a jump is added to FORWARD when no rule is left to
become one: with --chains close to N there are more than N rules).  A
rule is a jump (-j) or goto (-g, --gotos of them) with probability
--jumps, a RETURN in a user chain with probability --returns, else
ACCEPT, DROP or no target.

Each dimension of --dims appears in a rule with its own probability times
--density, and each match is negated with probability --neg where iptables
allows it:

    src, dst    -s / -d prefixes of nested networks
    proto       -p tcp, udp, icmp, 47, 50, sctp (also forced by the ports)
    sport       --sport of tcp or udp, a port or a range
    dport       --dport of tcp or udp, a port or a range
    multiport   -m multiport --sports/--dports/--ports lists (only in a
                rule without --sport/--dport: nf-hipac would hand that one
                to libxtables)
    state       -m state --state or -m conntrack --ctstate (never both)
    flags       --tcp-flags MASK COMP or --syn
    icmp        --icmp-type by number, type/code or name
    frag        -f (only "! -f" beside a port, flag or icmp match, which
                a later fragment never passes)
    iface       -i / -o names and '+' wildcards (no -o in INPUT, no -i in
                OUTPUT)
    mark        -m mark --mark with a mask of contiguous high bits
    length      -m length --length
    ttl         -m ttl --ttl-eq/--ttl-lt/--ttl-gt (one of them)
    iprange     -m iprange --src-range/--dst-range (only beside no -s/-d
                on that side)

Only matches that nf-hipac evaluates natively are used, in forms it takes
(no second ttl match, no state beside conntrack, no --ttl-lt 0, mark masks
of high bits only), so the output loads into nf-hipac-sim as well as into
iptables-legacy-restore.  Output is deterministic for a given set of
options and --seed.
"""

import argparse
import random
import sys

DIMS = ("src", "dst", "proto", "sport", "dport", "multiport", "state",
        "flags", "icmp", "frag", "iface", "mark", "length", "ttl", "iprange")
# How often each dimension appears in a rule, before --density.
BASE_P = {"src": 0.5, "dst": 0.45, "proto": 0.6, "sport": 0.25,
          "dport": 0.5, "multiport": 0.15, "state": 0.25, "flags": 0.3,
          "icmp": 0.6, "frag": 0.05, "iface": 0.3, "mark": 0.1,
          "length": 0.12, "ttl": 0.1, "iprange": 0.05}
TCP_FLAGS = ("FIN", "SYN", "RST", "PSH", "ACK", "URG")
STATES = ("INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED")
ICMP_NAMES = ("echo-request", "echo-reply", "destination-unreachable",
              "port-unreachable", "host-unreachable", "time-exceeded",
              "parameter-problem", "redirect", "source-quench", "any")
ICMP_TYPES = (0, 3, 4, 5, 8, 11, 12, 13, 14)
WELL_KNOWN = (0, 1, 20, 21, 22, 23, 25, 53, 67, 68, 80, 110, 123, 143,
              161, 389, 443, 636, 993, 1023, 1024, 3306, 5432, 8080, 65535)
IFACES = ("eth", "veth", "wlan", "vlan", "br", "tun")


def dq(v):
    return "%d.%d.%d.%d" % (v >> 24, (v >> 16) & 255, (v >> 8) & 255,
                            v & 255)


class Gen:
    """The value pools of one rule set and the rules drawn from them."""

    def __init__(self, args, rng):
        self.a, self.rng = args, rng
        n = args.n
        k = max(4, n // 100)
        # Networks /8../16 that the rules' prefixes nest in, a few shared.
        self.nets = []
        for _ in range(k):
            plen = rng.choice((8, 12, 16, 16))
            top = rng.choice((10, 23, 100, 131, 169, 172, 179, 192, 197,
                              rng.randrange(1, 224)))
            v = (top << 24 | rng.getrandbits(24)) & self.mask(plen)
            self.nets.append((v, plen))
        self.ports = sorted(set(WELL_KNOWN) |
                            {rng.randrange(65536) for _ in range(k)})
        self.lengths = sorted({rng.choice((0, 20, 28, 40, 52, 64, 100, 128,
                                           576, 1000, 1280, 1500, 9000))
                               for _ in range(k)} | {0, 40, 1500})
        self.marks = [rng.getrandbits(rng.choice((4, 8, 16, 32)))
                      for _ in range(max(4, k // 4))]
        self.ifnames = []
        for _ in range(max(4, k // 4)):
            self.ifnames.append("%s%d" % (rng.choice(IFACES),
                                          rng.randrange(max(4, k // 4))))

    @staticmethod
    def mask(plen):
        return (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF if plen else 0

    def use(self, dim):
        return dim in self.a.dims and \
            self.rng.random() < min(1.0, BASE_P[dim] * self.a.density)

    def neg(self):
        return "! " if self.rng.random() < self.a.neg else ""

    def addr(self):
        v, plen = self.rng.choice(self.nets)
        return v | self.rng.getrandbits(32 - plen)

    def prefix(self):
        """A prefix inside one of the networks, or the network itself."""
        v, net = self.rng.choice(self.nets)
        plen = self.rng.choice([p for p in (8, 12, 16, 20, 24, 26, 28, 30,
                                             32, 32) if p >= net])
        a = (v | self.rng.getrandbits(32 - net)) & self.mask(plen)
        return "%s/%d" % (dq(a), plen)

    def iprange(self):
        a, b = sorted((self.addr(), self.addr()))
        if self.rng.random() < 0.3:
            b = a + self.rng.randrange(256)
            b = min(b, 0xFFFFFFFF)
        return "%s-%s" % (dq(a), dq(b))

    def port(self):
        if self.rng.random() < 0.8:
            return self.rng.choice(self.ports)
        return self.rng.randrange(65536)

    def port_arg(self):
        a, b = sorted((self.port(), self.port()))
        if self.rng.random() < 0.5 or a == b:
            return str(a)
        return "%d:%d" % (a, b)

    def multiport_arg(self):
        items, slots = [], 0
        for _ in range(self.rng.randint(1, 6)):
            a, b = sorted((self.port(), self.port()))
            if a < b and self.rng.random() < 0.3 and slots < 14:
                items.append("%d:%d" % (a, b))
                slots += 2
            elif slots < 15:
                items.append(str(a))
                slots += 1
        return ",".join(items)

    def flags_arg(self):
        rng = self.rng
        mask = [f for f in TCP_FLAGS if rng.random() < 0.4] or ["SYN"]
        comp = [f for f in mask if rng.random() < 0.4]
        if rng.random() < 0.1:
            mask = ["ALL"]
            comp = [f for f in TCP_FLAGS if rng.random() < 0.3]
        return ",".join(mask), ",".join(comp) or "NONE"

    def icmp_arg(self):
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(ICMP_NAMES)
        t = self.rng.choice(ICMP_TYPES)
        if r < 0.7:
            return str(t)
        return "%d/%d" % (t, self.rng.choice((0, 1, 3, 4, 13)))

    def iface(self):
        name = self.rng.choice(self.ifnames)
        r = self.rng.random()
        if r < 0.55:
            return name
        if r < 0.85:
            return name.rstrip("0123456789") + "+"
        if r < 0.95:
            return name[:1] + "+"
        return "+"

    def iface_match(self, opt):
        name = self.iface()
        # "! -i +" would never match.
        return [(self.neg() if name != "+" else "") + opt, name]

    def mark_arg(self):
        v = self.rng.choice(self.marks)
        if self.rng.random() < 0.5:
            return "0x%x" % v
        host = self.rng.choice((4, 8, 12, 16, 24))
        mask = (0xFFFFFFFF << host) & 0xFFFFFFFF
        return "0x%x/0x%x" % (v & mask, mask)

    def length_arg(self):
        a, b = sorted((self.rng.choice(self.lengths),
                       self.rng.choice(self.lengths)))
        if self.rng.random() < 0.3:
            return str(a)
        return "%d:%d" % (a, b)

    def rule(self, chain, target):
        """The words of one rule of chain with target (a list)."""
        rng, w = self.rng, ["-A", chain]
        have_src = self.use("src")
        have_dst = self.use("dst")
        if have_src:
            w += [self.neg() + "-s", self.prefix()]
        if have_dst:
            w += [self.neg() + "-d", self.prefix()]
        if self.use("iface"):
            if chain != "OUTPUT" and (chain == "INPUT" or
                                      rng.random() < 0.6):
                w += self.iface_match("-i")
            if chain != "INPUT" and (chain == "OUTPUT" or
                                     rng.random() < 0.6):
                w += self.iface_match("-o")
        sport = self.use("sport")
        dport = self.use("dport")
        multi = not (sport or dport) and self.use("multiport")
        proto = None
        if sport or dport or multi:
            proto = rng.choice(("tcp", "tcp", "udp"))
        elif self.use("proto"):
            proto = rng.choice(("tcp", "tcp", "udp", "udp", "icmp", "icmp",
                                "47", "50", "sctp"))
        flags = proto == "tcp" and self.use("flags")
        icmp = proto == "icmp" and self.use("icmp")
        if proto:
            bare = not (sport or dport or multi or flags or icmp)
            w += [(self.neg() if bare else "") + "-p", proto]
        # -f beside a port, flag or icmp match would never match.
        if self.use("frag"):
            transport = sport or dport or multi or flags or icmp
            w += ["! -f" if transport else self.neg() + "-f"]
        if sport or dport or flags:
            w += ["-m", proto]
            if sport:
                w += [self.neg() + "--sport", self.port_arg()]
            if dport:
                w += [self.neg() + "--dport", self.port_arg()]
            if flags:
                if rng.random() < 0.2:
                    w += [self.neg() + "--syn"]
                else:
                    w += [self.neg() + "--tcp-flags", *self.flags_arg()]
        if icmp:
            arg = self.icmp_arg()
            w += ["-m", "icmp", (self.neg() if arg != "any" else "") +
                  "--icmp-type", arg]
        if multi:
            r = rng.random()
            opt = "--dports" if r < 0.5 else "--sports" if r < 0.8 \
                else "--ports"
            w += ["-m", "multiport", self.neg() + opt, self.multiport_arg()]
        if self.use("iprange"):
            m = []
            if not have_src and rng.random() < 0.6:
                m += [self.neg() + "--src-range", self.iprange()]
            if not have_dst and (not m or rng.random() < 0.4):
                m += [self.neg() + "--dst-range", self.iprange()]
            if m:
                w += ["-m", "iprange"] + m
        if self.use("state"):
            states = [s for s in STATES if rng.random() < 0.4] or \
                [rng.choice(STATES)]
            # Not all five negated: that would never match.
            neg = self.neg() if len(states) < len(STATES) else ""
            if rng.random() < 0.5:
                w += ["-m", "state", neg + "--state"]
            else:
                w += ["-m", "conntrack", neg + "--ctstate"]
            w.append(",".join(states))
        if self.use("ttl"):
            r = rng.random()
            if r < 0.4:
                w += ["-m", "ttl", self.neg() + "--ttl-eq",
                      str(rng.choice((1, 2, 32, 63, 64, 128, 254, 255)))]
            elif r < 0.7:
                w += ["-m", "ttl", "--ttl-lt", str(rng.randint(1, 255))]
            else:
                w += ["-m", "ttl", "--ttl-gt", str(rng.randint(0, 254))]
        if self.use("length"):
            w += ["-m", "length", self.neg() + "--length", self.length_arg()]
        if self.use("mark"):
            w += ["-m", "mark", self.neg() + "--mark", self.mark_arg()]
        w += target
        out = []
        for t in w:
            out += t.split(" ") if t.startswith("! ") else [t]
        return " ".join(out)


def layout(args, rng):
    """[(chain, target words)] for every rule, in chain order."""
    n, nch = args.n, args.chains
    users = ["C%d" % i for i in range(nch)]
    depth = max(1, min(args.depth, nch)) if nch else 0
    # Chain i is at level 1 + i * depth // nch: the hot chain, the last,
    # is at the deepest level.
    level = {c: 1 + i * depth // nch for i, c in enumerate(users)}
    level.update(INPUT=0, FORWARD=0, OUTPUT=0)
    # Without user chains every rule is in a built-in chain.
    nhook = max(1, min(n - nch, round(n * args.hook_share))) if nch else n
    chains = []
    for _ in range(nhook):
        r = rng.random()
        chains.append("FORWARD" if r < 0.7 else "INPUT" if r < 0.85
                      else "OUTPUT")
    # The user chains' rules, at least one each.
    per = [1] * nch
    for _ in range(n - nhook - nch):
        per[rng.randrange(nch)] += 1
    for c, k in zip(users, per):
        chains += [c] * k
    hot = users[-1] if users else None

    def deeper(c):
        return [u for u in users if level[u] > level[c]]

    targets = []
    for c in chains:
        cand = deeper(c)
        if cand and rng.random() < args.jumps:
            u = hot if rng.random() < args.hot else rng.choice(cand)
            kind = "-g" if rng.random() < args.gotos else "-j"
            targets.append([kind, u])
        elif c in users and rng.random() < args.returns:
            targets.append(["-j", "RETURN"])
        else:
            r = rng.random()
            targets.append([] if r < 0.1 else
                           ["-j", "ACCEPT" if r < 0.55 else "DROP"])
    # Every user chain is reached: a rule of a shallower chain that does
    # not jump yet jumps to one that nothing reaches.
    reached = {t[1] for t in targets if t and t[0] in ("-j", "-g")
               and t[1] in level}
    for u in users:
        if u in reached:
            continue
        cand = [i for i, c in enumerate(chains)
                if level[c] < level[u] and
                not (targets[i] and targets[i][1] in level)]
        if not cand:
            chains.insert(0, "FORWARD")
            targets.insert(0, ["-j", u])
            continue
        i = rng.choice(cand)
        targets[i] = ["-g" if rng.random() < args.gotos else "-j", u]
    return users, list(zip(chains, targets))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int, help="rules")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chains", type=int, default=None,
                    help="user chains (default N/100, at least 1)")
    ap.add_argument("--depth", type=int, default=2,
                    help="levels of user chains (default 2)")
    ap.add_argument("--hook-share", type=float, default=0.5,
                    help="share of the rules in the built-in chains "
                    "(default 0.5)")
    ap.add_argument("--jumps", type=float, default=0.1,
                    help="probability that a rule jumps (default 0.1)")
    ap.add_argument("--hot", type=float, default=0.3,
                    help="share of the jumps to the hot chain (default 0.3)")
    ap.add_argument("--gotos", type=float, default=0.25,
                    help="share of the jumps that are gotos (default 0.25)")
    ap.add_argument("--returns", type=float, default=0.1,
                    help="probability that a user chain's rule is a "
                    "RETURN (default 0.1)")
    ap.add_argument("--dims", default=",".join(DIMS),
                    help="dimensions to use, comma-separated (default "
                    "all: %s)" % ",".join(DIMS))
    ap.add_argument("--density", type=float, default=1.0,
                    help="factor on each dimension's probability "
                    "(default 1)")
    ap.add_argument("--neg", type=float, default=0.15,
                    help="probability that a match is negated "
                    "(default 0.15)")
    ap.add_argument("--policy", choices=("ACCEPT", "DROP", "random"),
                    default="random", help="FORWARD's policy")
    args = ap.parse_args()
    args.dims = set(d for d in args.dims.split(",") if d)
    bad = args.dims - set(DIMS)
    if bad:
        ap.error("unknown dimension(s) %s; known: %s" %
                 (",".join(sorted(bad)), ",".join(DIMS)))
    if args.n < 1:
        ap.error("N must be at least 1")
    if args.chains is None:
        args.chains = max(1, args.n // 100)
    # At least one rule in a built-in chain and one in each user chain.
    args.chains = max(0, min(args.chains, args.n - 1))
    rng = random.Random(args.seed)
    gen = Gen(args, rng)
    users, rules = layout(args, rng)
    policy = args.policy if args.policy != "random" else \
        rng.choice(("ACCEPT", "DROP"))
    out = sys.stdout
    out.write("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD %s [0:0]\n"
              ":OUTPUT ACCEPT [0:0]\n" % policy)
    for u in users:
        out.write(":%s - [0:0]\n" % u)
    # iptables-save prints the built-in chains first, then the others.
    order = {"INPUT": 0, "FORWARD": 1, "OUTPUT": 2}
    order.update((u, 3 + i) for i, u in enumerate(users))
    for chain, target in sorted(rules, key=lambda r: order[r[0]]):
        out.write(gen.rule(chain, target) + "\n")
    out.write("COMMIT\n")


if __name__ == "__main__":
    main()
