#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The keys of issue 44's kernel benchmarks of sets, in every tool's syntax.

    setkeys.py [-n ENTRIES] DIR

With a fixed seed: ENTRIES (100000) random distinct IPv4 hosts, and
ENTRIES IPv4 prefixes like a routing table (60 % /24, 30 % /16 to /22,
10 % /25 to /32, as user/bench/set_bench.c draws them) of which none holds
another, because an nft interval set refuses overlapping elements (ipset
and nf-hipac take nested ones).  No key holds an address of --avoid (the
benchmark topology's client and server, 10.0.1.2 and 10.0.2.2), so that
traffic between them is looked up and never matches: a blocklist that
lets the packets through.  Then 1,000 updates of each kind: 500 adds of
new keys alternating with 500 deletes of loaded ones, and a batch of
another 500 adds and 500 deletes.

For KIND in hosts and prefixes, into DIR, the set is named "bl":

    KIND.ipset          ipset restore: create (hash:ip / hash:net,
                        maxelem 1000000) and an add per key
    KIND.nfhp           nf-hipac-set restore: the same, maxelem 0
    KIND.nft            nft -f: table ip bench with set bl (type
                        ipv4_addr, flags interval for the prefixes), the
                        keys 10,000 per add element
    KIND.ipt            nf-hipac-restore: one rule -s KEY -j DROP per key
                        in FORWARD
    KIND.single         the 1,000 single updates, "add KEY" or "del KEY"
    KIND.batch.TOOL     the batch, for TOOL ipset, nfhp, nft and ipt
                        (nf-hipac-restore --noflush: -A and -D lines)
    KIND.near           how many keys lie near each --avoid address (in
                        its /16 and its /13), one line per address

bench/kernel/set-memory.sh loads them alone; bench/kernel/bench.sh's set
rows (bl-hosts, bl-prefixes) load them with a rule that matches the set.
"""
import argparse
import os
import random


def ip(a):
    return "%d.%d.%d.%d" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255)


def aton(s):
    p = [int(x) for x in s.split(".")]
    return p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]


def mask(k):
    return 0xffffffff << (32 - k) & 0xffffffff


class Keys:
    """Draws distinct keys; none holds an address of avoid."""

    def __init__(self, rnd, avoid):
        self.rnd = rnd
        self.avoid = avoid

    def plen(self):
        r = self.rnd.random()
        if r < 0.6:
            return 24
        if r < 0.9:
            return self.rnd.randint(16, 22)
        return self.rnd.randint(25, 32)

    def hosts(self, count, taken):
        keys = []
        while len(keys) < count:
            a = self.rnd.randrange(1 << 24, 224 << 24)
            if a not in taken and a not in self.avoid:
                taken.add(a)
                keys.append((a, 32))
        return keys

    def prefixes(self, count, taken, inner):
        # taken: the prefixes (addr, len); inner: every prefix that holds
        # one of them.  A new one may neither hold nor be held by another.
        keys = []
        while len(keys) < count:
            k = self.plen()
            a = self.rnd.randrange(1 << 24, 224 << 24) & mask(k)
            if (a, k) in inner or any(
                    (a & mask(j), j) in taken for j in range(k + 1)):
                continue
            if any(v & mask(k) == a for v in self.avoid):
                continue
            taken.add((a, k))
            for j in range(k):
                inner.add((a & mask(j), j))
            keys.append((a, k))
        return keys


def text(key, kind):
    a, k = key
    return ip(a) if kind == "hosts" else "%s/%d" % (ip(a), k)


def write(path, lines):
    with open(path, "w") as f:
        f.writelines(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=100000, help="keys per set")
    ap.add_argument("--avoid", default="10.0.1.2,10.0.2.2",
                    help="addresses no key may hold")
    ap.add_argument("dir")
    args = ap.parse_args()
    n, d = args.n, args.dir
    avoid = [aton(a) for a in args.avoid.split(",")]
    gen = Keys(random.Random(44), set(avoid))
    os.makedirs(d, exist_ok=True)

    for kind in ("hosts", "prefixes"):
        if kind == "hosts":
            taken = set()
            raw = gen.hosts(n, taken)
            rawnew = gen.hosts(1000, taken)
            ipset, nft = "hash:ip", ""
        else:
            taken, inner = set(), set()
            raw = gen.prefixes(n, taken, inner)
            rawnew = gen.prefixes(1000, taken, inner)
            ipset, nft = "hash:net", " flags interval;"
        keys = [text(k, kind) for k in raw]
        new = [text(k, kind) for k in rawnew]
        old = gen.rnd.sample(keys, 1000)
        # updates: add a new key, delete a loaded one, in turn
        upd = [("add", new[i // 2]) if i % 2 == 0 else ("del", old[i // 2])
               for i in range(1000)]
        # the batch: another 500 adds and 500 deletes
        batch = [("add", new[500 + i // 2]) if i % 2 == 0
                 else ("del", old[500 + i // 2]) for i in range(1000)]
        p = os.path.join(d, kind)
        write(p + ".ipset",
              ["create bl %s family inet maxelem 1000000\n" % ipset] +
              ["add bl %s\n" % k for k in keys])
        write(p + ".nfhp", ["create bl %s maxelem 0\n" % ipset] +
              ["add bl %s\n" % k for k in keys])
        write(p + ".nft",
              ["table ip bench {\n\tset bl { type ipv4_addr;%s }\n}\n" % nft] +
              ["add element ip bench bl { %s }\n" % ", ".join(keys[i:i + 10000])
               for i in range(0, n, 10000)])
        write(p + ".ipt",
              ["*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
               ":OUTPUT ACCEPT [0:0]\n"] +
              ["-A FORWARD -s %s -j DROP\n" % k for k in keys] + ["COMMIT\n"])
        write(p + ".single", ["%s %s\n" % u for u in upd])
        for tool in ("ipset", "nfhp"):
            write(p + ".batch." + tool,
                  ["%s bl %s\n" % (o, k) for o, k in batch])
        write(p + ".batch.nft",
              ["%s element ip bench bl { %s }\n"
               % ("add" if o == "add" else "delete", k) for o, k in batch])
        write(p + ".batch.ipt",
              ["*filter\n"] +
              ["-%s FORWARD -s %s -j DROP\n" % ("A" if o == "add" else "D", k)
               for o, k in batch] + ["COMMIT\n"])
        near = []
        for v in avoid:
            c = ["%d in its /%d" % (sum(1 for a, k in raw
                                       if k >= w and a & mask(w) == v & mask(w)),
                                   w) for w in (16, 13)]
            near.append("%s: %s\n" % (ip(v), ", ".join(c)))
        write(p + ".near", near)


if __name__ == "__main__":
    main()
