#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rules2pkt.py RULESET - packet lines for nf-hipac-sim from a rule set.

    bench/rules2pkt.py ruleset.ipt --count 10000 --seed 1 > packets.txt
    user/build/nf-hipac-sim --check ruleset.ipt packets.txt

RULESET is an iptables-save filter table (other tables in the file are
skipped; "-" reads the standard input).  Most packets are drawn inside a
rule chosen uniformly: every match the rule has that nf-hipac-sim models
holds for the packet, negations included:

    -s/-d (prefixes, masks, lists), --src-range/--dst-range, -p,
    -i/-o (a '+' wildcard becomes a name), -f, --sport/--dport (ports,
    ranges), multiport --sports/--dports/--ports, --tcp-flags, --syn,
    --icmp-type, --state/--ctstate, -m mark, -m length, -m ttl.

Other matches and targets (-m mac, -m recent, -m limit, -j LOG, -j REJECT,
...) are skipped.  A rule in a user chain gets the hook its chain is
reached from: a random path of jumps and gotos back to INPUT, FORWARD or
OUTPUT is taken, and the matches of the jump rules on it hold too where
they agree with the rule's own (FORWARD for a chain nothing reaches).
INPUT packets have no output interface and OUTPUT packets no input
interface, as in the kernel, so a rule with -o is reached from FORWARD or
OUTPUT if it can be.  A value is drawn uniformly inside the allowed
ranges, or is one of their ends (a third of the time), where the tree's
boundaries are.  Fields the rule leaves free take values seen elsewhere
in the rule set or random ones.  --random of the packets (default 0.1)
are fully random instead.

A drawn packet need not reach its rule: an earlier rule may decide it
first, and a jump on its path may not be taken.  Output is deterministic
for a given rule set, --count and --seed.
"""

import argparse
import random
import shlex
import socket
import sys

BUILTIN = ("INPUT", "FORWARD", "OUTPUT")
PROTOS = {"all": None, "tcp": 6, "udp": 17, "icmp": 1, "sctp": 132,
          "dccp": 33, "udplite": 136, "gre": 47, "esp": 50, "ah": 51,
          "igmp": 2, "ipip": 4, "ospf": 89, "pim": 103, "vrrp": 112}
PORT_PROTOS = (6, 17, 33, 132, 136)
PNAMES = {6: "tcp", 17: "udp", 1: "icmp"}
STATES = ("invalid", "established", "related", "new", "untracked")
FLAG_BITS = {"FIN": 0x01, "SYN": 0x02, "RST": 0x04, "PSH": 0x08,
             "ACK": 0x10, "URG": 0x20, "ALL": 0x3F, "NONE": 0}
FLAG_LETTERS = "FSRPAUEC"
# iptables' icmp type names: type, lowest and highest code.
ICMP_NAMES = {
    "echo-reply": (0, 0, 255), "pong": (0, 0, 255),
    "destination-unreachable": (3, 0, 255), "network-unreachable": (3, 0, 0),
    "host-unreachable": (3, 1, 1), "protocol-unreachable": (3, 2, 2),
    "port-unreachable": (3, 3, 3), "fragmentation-needed": (3, 4, 4),
    "source-route-failed": (3, 5, 5), "network-unknown": (3, 6, 6),
    "host-unknown": (3, 7, 7), "network-prohibited": (3, 9, 9),
    "host-prohibited": (3, 10, 10), "TOS-network-unreachable": (3, 11, 11),
    "TOS-host-unreachable": (3, 12, 12),
    "communication-prohibited": (3, 13, 13),
    "host-precedence-violation": (3, 14, 14),
    "precedence-cutoff": (3, 15, 15), "source-quench": (4, 0, 255),
    "redirect": (5, 0, 255), "network-redirect": (5, 0, 0),
    "host-redirect": (5, 1, 1), "TOS-network-redirect": (5, 2, 2),
    "TOS-host-redirect": (5, 3, 3), "echo-request": (8, 0, 255),
    "ping": (8, 0, 255), "router-advertisement": (9, 0, 255),
    "router-solicitation": (10, 0, 255), "time-exceeded": (11, 0, 255),
    "ttl-exceeded": (11, 0, 255), "ttl-zero-during-transit": (11, 0, 0),
    "ttl-zero-during-reassembly": (11, 1, 1),
    "parameter-problem": (12, 0, 255), "ip-header-bad": (12, 0, 0),
    "required-option-missing": (12, 1, 1),
    "timestamp-request": (13, 0, 255), "timestamp-reply": (14, 0, 255),
    "address-mask-request": (17, 0, 255), "address-mask-reply": (18, 0, 255),
}
TOP = {"src": 0xFFFFFFFF, "dst": 0xFFFFFFFF, "proto": 255, "sport": 65535,
       "dport": 65535, "state": 4, "frag": 1, "icmp": 0xFFFF, "ttl": 255,
       "len": 65535, "mark": 0xFFFFFFFF}
# Options that take no argument, and those that take two.
NOARG = {"-f", "--fragment", "--syn", "--rsource", "--rdest", "--set",
         "--update", "--rcheck", "--remove", "--log-tcp-sequence",
         "--log-tcp-options", "--log-ip-options", "--log-uid", "--random",
         "--persistent", "--clamp-mss-to-pmtu"}
TWOARG = {"--tcp-flags", "--match-set", "--set-counters", "--set-xmark"}


# Sets of integers as sorted lists of disjoint [lo, hi] intervals.

def union(ivs):
    out = []
    for lo, hi in sorted(ivs):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [tuple(x) for x in out]


def complement(ivs, top):
    out, nxt = [], 0
    for lo, hi in ivs:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= top:
        out.append((nxt, top))
    return out


def intersect(a, b):
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def dq(v):
    return "%d.%d.%d.%d" % (v >> 24, (v >> 16) & 255, (v >> 8) & 255,
                            v & 255)


def ipv4(s):
    parts = s.split(".")
    if len(parts) != 4:
        raise ValueError(s)
    v = 0
    for p in parts:
        b = int(p)
        if not 0 <= b <= 255:
            raise ValueError(s)
        v = v << 8 | b
    return v


def addr_set(arg):
    """-s/-d: one or more a.b.c.d[/len|/mask], comma-separated."""
    ivs = []
    for item in arg.split(","):
        a, _, m = item.partition("/")
        a = ipv4(a)
        if not m:
            plen = 32
        elif "." in m:
            mask = ipv4(m)
            # A non-contiguous mask: its leading ones, an approximation.
            plen = 0
            while plen < 32 and mask & (1 << (31 - plen)):
                plen += 1
        else:
            plen = int(m)
        mask = (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF if plen else 0
        ivs.append((a & mask, (a & mask) | (~mask & 0xFFFFFFFF)))
    return union(ivs)


def range_set(arg):
    a, _, b = arg.partition("-")
    lo, hi = ipv4(a), ipv4(b or a)
    return [(lo, hi)] if lo <= hi else []


def port(s):
    if s.isdigit():
        return int(s)
    return socket.getservbyname(s)


def port_set(arg):
    """A port, a range a:b (either end may be left out) or a list."""
    ivs = []
    for item in arg.split(","):
        lo, sep, hi = item.partition(":")
        lo = port(lo) if lo else 0
        hi = (port(hi) if hi else 65535) if sep else lo
        if lo <= hi:
            ivs.append((lo, hi))
    return union(ivs)


def proto_num(s):
    s = s.lower()
    if s in PROTOS:
        return PROTOS[s]
    if s.isdigit():
        return int(s) or None
    return socket.getprotobyname(s)


def flag_bits(s):
    v = 0
    for f in s.upper().split(","):
        v |= FLAG_BITS[f]
    return v


def icmp_set(arg):
    if arg in ICMP_NAMES:
        t, clo, chi = ICMP_NAMES[arg]
    elif arg == "any":
        return None
    else:
        t, sep, c = arg.partition("/")
        t = int(t)
        clo, chi = (int(c), int(c)) if sep else (0, 255)
    return [(t << 8 | clo, t << 8 | chi)]


class Rule:
    """The modelled matches of one rule."""

    def __init__(self, chain):
        self.chain = chain
        self.sets = {}          # dim -> [interval sets], all must hold
        self.ifs = {"in": [], "out": []}    # [(pattern, inverted)]
        self.flags = []         # [(mask, comp, inverted)]
        self.marks = []         # [(value, mask, inverted)], odd masks
        self.ports_both = []    # multiport --ports: [(set, inverted)]
        self.target = None      # a user chain jumped or gone to

    def add(self, dim, ivs, inv):
        if inv:
            ivs = complement(ivs, TOP[dim])
        self.sets.setdefault(dim, []).append(ivs)


def is_option(w):
    return w.startswith("-") and len(w) > 1 and not w[1].isdigit()


def skip_option(words, i):
    """The index of the last argument of the unmodelled option at i."""
    w = words[i]
    if w in NOARG:
        return i
    n = 2 if w in TWOARG else 1 << 30
    while n and i + 1 < len(words) and not is_option(words[i + 1]):
        if words[i + 1] == "!":
            # "--opt ! arg" (old style), else the "!" is the next one's.
            if i + 2 >= len(words) or is_option(words[i + 2]):
                break
            i += 1
        i += 1
        n -= 1
    return i


def parse_rule(rule, words, chains):
    """Fill rule from the words after "-A CHAIN"; skip what is not modelled."""
    i, inv, module = 0, False, None

    def arg():
        nonlocal i, inv
        i += 1
        if i < len(words) and words[i] == "!":
            inv = not inv
            i += 1
        if i >= len(words):
            raise ValueError("missing argument")
        return words[i]

    while i < len(words):
        w = words[i]
        if w == "!":
            inv = True
            i += 1
            continue
        try:
            if w in ("-s", "--source", "--src"):
                rule.add("src", addr_set(arg()), inv)
            elif w in ("-d", "--destination", "--dst"):
                rule.add("dst", addr_set(arg()), inv)
            elif w in ("-p", "--protocol"):
                p = proto_num(arg())
                if p is not None:
                    rule.add("proto", [(p, p)], inv)
            elif w in ("-i", "--in-interface"):
                rule.ifs["in"].append((arg(), inv))
            elif w in ("-o", "--out-interface"):
                rule.ifs["out"].append((arg(), inv))
            elif w in ("-f", "--fragment"):
                rule.add("frag", [(1, 1)], inv)
            elif w in ("-m", "--match"):
                module = arg()
            elif w in ("-j", "--jump", "-g", "--goto"):
                t = arg()
                if t in chains:
                    rule.target = t
                module = "target"
            elif w in ("--sport", "--source-port"):
                rule.add("sport", port_set(arg()), inv)
            elif w in ("--dport", "--destination-port"):
                rule.add("dport", port_set(arg()), inv)
            elif w in ("--sports", "--source-ports", "--dports",
                       "--destination-ports") and module == "multiport":
                dim = "sport" if w.startswith("--s") else "dport"
                rule.add(dim, port_set(arg()), inv)
            elif w == "--ports" and module == "multiport":
                rule.ports_both.append((port_set(arg()), inv))
            elif w == "--tcp-flags":
                mask = flag_bits(arg())
                rule.flags.append((mask, flag_bits(arg()) & mask, inv))
            elif w == "--syn":
                rule.flags.append((0x17, 0x02, inv))
            elif w == "--icmp-type":
                s = icmp_set(arg())
                if s is not None:
                    rule.add("icmp", s, inv)
            elif w in ("--src-range", "--dst-range") and module == "iprange":
                rule.add(w[2:5], range_set(arg()), inv)
            elif (w == "--state" and module == "state") or \
                    (w == "--ctstate" and module == "conntrack"):
                vals = [STATES.index(s.lower()) for s in arg().split(",")
                        if s.lower() in STATES]
                if vals:
                    rule.add("state", union((v, v) for v in vals), inv)
            elif w in ("--ttl-eq", "--ttl-lt", "--ttl-gt") and \
                    module == "ttl":
                v = int(arg())
                lo, hi = {"--ttl-eq": (v, v), "--ttl-lt": (0, v - 1),
                          "--ttl-gt": (v + 1, 255)}[w]
                rule.add("ttl", [(lo, hi)] if lo <= hi else [], inv)
            elif w == "--length" and module == "length":
                rule.add("len", port_set(arg()), inv)
            elif w == "--mark" and module == "mark":
                v, _, m = arg().partition("/")
                v, m = int(v, 0), int(m, 0) if m else 0xFFFFFFFF
                host = ~m & 0xFFFFFFFF
                if host & (host + 1):
                    rule.marks.append((v & m, m, inv))
                else:
                    rule.add("mark", [(v & m, (v & m) | host)], inv)
            elif w.startswith("-"):
                i = skip_option(words, i)
        except (ValueError, KeyError, OSError, IndexError):
            pass    # an argument we cannot read: the dimension stays free
        inv = False
        i += 1


def parse(text):
    """{chain: [Rule]}, in the order of the file's filter table."""
    chains, lines, table = {c: [] for c in BUILTIN}, [], "filter"
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("*"):
            table = line[1:]
        elif table != "filter":
            continue
        elif line.startswith(":"):
            chains.setdefault(line[1:].split()[0], [])
        elif line.startswith("-A") or line.startswith("[") and "-A" in line:
            lines.append(line[line.index("-A"):])
    parsed = []
    for line in lines:
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        if len(words) >= 2:
            chains.setdefault(words[1], [])
            parsed.append(words)
    for words in parsed:
        rule = Rule(words[1])
        parse_rule(rule, words[2:], chains)
        chains[rule.chain].append(rule)
    return chains


class Pools:
    """Values seen in the rule set, per dimension, for the free fields."""

    def __init__(self, chains):
        self.ivs = {d: [] for d in TOP}
        self.ifnames = set()
        self.flags = set()
        for rules in chains.values():
            for r in rules:
                for dim, sets in r.sets.items():
                    for s in sets:
                        self.ivs[dim] += s
                for s, _ in r.ports_both:
                    self.ivs["sport"] += s
                    self.ivs["dport"] += s
                for side in ("in", "out"):
                    for pat, _ in r.ifs[side]:
                        if pat.rstrip("+"):
                            self.ifnames.add(pat)
                for mask, comp, _ in r.flags:
                    self.flags.update((comp, comp ^ mask))
                for v, m, _ in r.marks:
                    self.ivs["mark"].append((v, v))
        self.ifnames = sorted(self.ifnames) or ["eth0", "eth1"]
        self.flags = sorted(self.flags)
        self.protos = sorted({lo for lo, hi in self.ivs["proto"]
                              if lo == hi} | {1, 6, 17})


class Gen:
    """Draws the packets of one rule set."""

    def __init__(self, chains, rng):
        self.chains, self.rng = chains, rng
        self.rules = [r for c in chains.values() for r in c]
        self.pool = Pools(chains)
        self.callers = {}
        for r in self.rules:
            if r.target and r.target not in BUILTIN:
                self.callers.setdefault(r.target, []).append(r)

    def path(self, chain):
        """(hook, [jump rules]) of a random path from a hook to chain."""
        rng, seen, jumps = self.rng, {chain}, []
        while chain not in BUILTIN:
            callers = [r for r in self.callers.get(chain, [])
                       if r.chain not in seen]
            if not callers:
                return "FORWARD", jumps
            r = rng.choice(callers)
            jumps.append(r)
            chain = r.chain
            seen.add(chain)
        return chain, jumps

    def value(self, dim, ivs):
        """A value in ivs (None: free), often one of its ends."""
        rng = self.rng
        if ivs is None:
            pool = self.pool.ivs[dim]
            if pool and rng.random() < 0.7:
                ivs = [rng.choice(pool)]
            else:
                return self.free(dim)
        lo, hi = rng.choice(ivs)
        r = rng.random()
        if r < 0.2:
            return lo
        if r < 0.33:
            return hi
        return rng.randint(lo, hi)

    def free(self, dim):
        """A value of a field that no rule restricts."""
        rng = self.rng
        if dim == "ttl":
            return rng.choice((64, 63, 128, 255, 1, rng.randrange(256)))
        if dim == "len":
            return rng.choice((40, 52, 64, 576, 1500, rng.randint(20, 1500)))
        if dim == "mark":
            return 0 if rng.random() < 0.8 else rng.getrandbits(32)
        if dim == "state":
            return rng.choice((1, 1, 3, 3, 2, 0, 4))
        if dim == "frag":
            return 1 if rng.random() < 0.02 else 0
        if dim == "icmp":
            return rng.choice((0, 3, 8, 11)) << 8 | rng.choice((0, 1, 3))
        return rng.randint(0, TOP[dim])

    def ifname(self, pat):
        if not pat.endswith("+"):
            return pat
        if pat == "+":
            return self.rng.choice(self.pool.ifnames).rstrip("+") or "eth0"
        base = pat[:-1]
        return (base + str(self.rng.randrange(100)))[:15]

    @staticmethod
    def if_match(name, pat):
        if pat.endswith("+"):
            return name.startswith(pat[:-1])
        return name == pat

    def iface(self, conds):
        """A name that passes conds [(pattern, inverted)]."""
        rng, pos = self.rng, [p for p, inv in conds if not inv]
        for _ in range(20):
            if pos:
                name = self.ifname(rng.choice(pos))
            elif rng.random() < 0.8:
                name = self.ifname(rng.choice(self.pool.ifnames))
            else:
                name = "if%d" % rng.randrange(1000)
            if all(self.if_match(name, p) != inv for p, inv in conds):
                return name
        return None

    def flag_value(self, conds):
        rng = self.rng
        f = rng.choice(self.pool.flags) if self.pool.flags and \
            rng.random() < 0.5 else rng.choice((0x02, 0x12, 0x10, 0x18,
                                                0x11, 0x04, 0x14,
                                                rng.randrange(256)))
        for mask, comp, inv in conds:
            if not inv:
                f = (f & ~mask) | comp
            elif (f & mask) == comp and mask:
                bits = [b for b in range(8) if mask >> b & 1]
                f ^= 1 << rng.choice(bits)
        return f

    def mark_value(self, ivs, conds):
        v = self.value("mark", ivs)
        for val, mask, inv in conds:
            if not inv:
                v = (v & ~mask) | val
            elif (v & mask) == val and mask:
                bits = [b for b in range(32) if mask >> b & 1]
                v ^= 1 << self.rng.choice(bits)
        return v

    def inside(self, rule):
        """A packet that the matches of rule let through."""
        rng = self.rng
        for _ in range(4):
            hook, jumps = self.path(rule.chain)
            if (hook != "INPUT" or not [p for p, i in rule.ifs["out"]
                                        if not i]) and \
               (hook != "OUTPUT" or not [p for p, i in rule.ifs["in"]
                                         if not i]):
                break
        conds = jumps + [rule]
        sets = {}
        for dim in TOP:
            own = rule.sets.get(dim, [])
            s = self.meet([x for r in conds for x in r.sets.get(dim, [])],
                          dim)
            if s == []:
                s = self.meet(own, dim)
            sets[dim] = s if s else None
        proto = self.pick_proto(sets["proto"])
        f = {"hook": hook.lower(), "proto": proto}
        for dim in ("src", "dst", "state", "ttl", "len"):
            f[dim] = self.value(dim, sets[dim])
        frag = self.value("frag", sets["frag"]) if sets["frag"] \
            else self.free("frag")
        # A port, flag or icmp match refuses later fragments.
        if any(sets[d] for d in ("sport", "dport", "icmp")) or \
                any(r.flags or r.ports_both for r in conds):
            frag = 0
        # A later fragment: its offset in 8-byte units.
        f["frag"] = rng.randint(1, 185) if frag else 0
        f["mark"] = self.mark_value(sets["mark"],
                                    [m for r in conds for m in r.marks])
        if proto in PORT_PROTOS and not f["frag"]:
            both = [pb for r in conds for pb in r.ports_both]
            for s, inv in both:
                if inv:
                    for d in ("sport", "dport"):
                        sets[d] = self.meet([sets[d] or [(0, 65535)],
                                             complement(s, 65535)], d) \
                            or sets[d]
                elif rng.random() < 0.5:
                    sets["sport"] = self.meet([sets["sport"] or
                                               [(0, 65535)], s], "sport") \
                        or sets["sport"]
                else:
                    sets["dport"] = self.meet([sets["dport"] or
                                               [(0, 65535)], s], "dport") \
                        or sets["dport"]
            f["sport"] = self.value("sport", sets["sport"])
            f["dport"] = self.value("dport", sets["dport"])
        if proto == 6 and not f["frag"]:
            f["flags"] = self.flag_value([c for r in conds for c in r.flags])
        if proto == 1 and not f["frag"]:
            f["icmp"] = self.value("icmp", sets["icmp"])
        for side in ("in", "out"):
            if (side == "in" and hook == "OUTPUT") or \
               (side == "out" and hook == "INPUT"):
                continue
            name = self.iface([c for r in conds for c in r.ifs[side]])
            if name is None:
                name = self.iface(rule.ifs[side])
            if name:
                f[side] = name
        return f

    def meet(self, sets, dim):
        """The intersection of interval sets; None if there are none."""
        if not sets:
            return None
        out = [(0, TOP[dim])]
        for s in sets:
            out = intersect(out, s)
        return out

    def pick_proto(self, ivs):
        rng = self.rng
        if ivs is None:
            # No -p: a port or flag match cannot be there either.
            return rng.choice(self.pool.protos)
        cand = [p for p in self.pool.protos
                if any(lo <= p <= hi for lo, hi in ivs)]
        if cand and rng.random() < 0.8:
            return rng.choice(cand)
        return self.value("proto", ivs)

    def random_packet(self):
        rng = self.rng
        r = rng.random()
        hook = "FORWARD" if r < 0.7 else "INPUT" if r < 0.85 else "OUTPUT"
        proto = rng.choice((6, 6, 17, 17, 1, rng.randrange(256)))
        f = {"hook": hook.lower(), "proto": proto,
             "src": rng.getrandbits(32), "dst": rng.getrandbits(32),
             "state": rng.randrange(5), "ttl": rng.randrange(256),
             "len": rng.randint(20, 1500),
             "frag": rng.randint(1, 185) if self.free("frag") else 0,
             "mark": self.free("mark")}
        if proto in PORT_PROTOS:
            f["sport"], f["dport"] = rng.randrange(65536), rng.randrange(65536)
        if proto == 6:
            f["flags"] = rng.randrange(256)
        if proto == 1:
            f["icmp"] = rng.randrange(65536)
        if hook != "OUTPUT":
            f["in"] = self.iface([])
        if hook != "INPUT":
            f["out"] = self.iface([])
        return f


def fmt(f):
    w = ["hook=" + f["hook"], "src=" + dq(f["src"]), "dst=" + dq(f["dst"]),
         "proto=" + PNAMES.get(f["proto"], str(f["proto"]))]
    if "sport" in f:
        w += ["sport=%d" % f["sport"], "dport=%d" % f["dport"]]
    if f.get("flags"):
        w.append("flags=" + "".join(c for b, c in enumerate(FLAG_LETTERS)
                                    if f["flags"] >> b & 1))
    if "icmp" in f:
        w.append("icmp=%d/%d" % (f["icmp"] >> 8, f["icmp"] & 255))
    if f["frag"]:
        w.append("frag=%d" % f["frag"])
    w.append("state=" + STATES[f["state"]])
    w += ["ttl=%d" % f["ttl"], "len=%d" % f["len"]]
    if f["mark"]:
        w.append("mark=0x%x" % f["mark"])
    for side in ("in", "out"):
        if side in f:
            w.append("%s=%s" % (side, f[side]))
    return " ".join(w)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ruleset", help="iptables-save file, - for stdin")
    ap.add_argument("-n", "--count", type=int, default=10000,
                    help="packets (default 10000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--random", type=float, default=0.1,
                    help="share of fully random packets (default 0.1)")
    args = ap.parse_args()
    if args.ruleset == "-":
        text = sys.stdin.read()
    else:
        with open(args.ruleset) as f:
            text = f.read()
    rng = random.Random(args.seed)
    gen = Gen(parse(text), rng)
    out = sys.stdout
    for _ in range(args.count):
        if not gen.rules or rng.random() < args.random:
            f = gen.random_packet()
        else:
            f = gen.inside(rng.choice(gen.rules))
        out.write(fmt(f) + "\n")


if __name__ == "__main__":
    main()
