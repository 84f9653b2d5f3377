#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kube.py N - print a filter rule set shaped like a Kubernetes node's.

FORWARD jumps to N service chains, one rule each:
    -A FORWARD -d 10.96.X.Y/32 -p tcp -m tcp --dport P -j KUBE-SVC-<hex>
and each chain accepts its one endpoint and drops the rest:
    -A KUBE-SVC-<hex> -s 10.244.X.Y/32 -j ACCEPT
    -A KUBE-SVC-<hex> -j DROP
The chain names share a long prefix, as kube-proxy's do, so a lookup of a
chain by name costs what it costs there.  With --returns each chain
begins with a RETURN for marked packets, as kube-proxy's and Calico's
chains return early:
    -A KUBE-SVC-<hex> -m mark --mark 0x4000 -j RETURN
so the hook keeps one tree and an update sets the RETURNs' scopes too.
It measures what many user chains cost a commit:

    bench/kube.py 5000 > /tmp/kube.ipt
    user/build/nf-hipac-sim --bench /tmp/kube.ipt /dev/null

Output is deterministic for a given N and --seed.
"""

import argparse
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int, help="service chains")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--returns", action="store_true",
                    help="a RETURN for marked packets atop each chain")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    names = ["KUBE-SVC-%016X" % rng.getrandbits(64) for _ in range(args.n)]
    print("*filter")
    for hook in ("INPUT", "FORWARD", "OUTPUT"):
        print(":%s ACCEPT [0:0]" % hook)
    for name in names:
        print(":%s - [0:0]" % name)
    for i, name in enumerate(names):
        print("-A FORWARD -d 10.%d.%d.%d/32 -p tcp -m tcp --dport %d -j %s"
              % (96 + i // 65536, (i // 256) % 256, i % 256, 80 + i % 1000,
                 name))
    for i, name in enumerate(names):
        if args.returns:
            print("-A %s -m mark --mark 0x4000 -j RETURN" % name)
        print("-A %s -s 10.244.%d.%d/32 -j ACCEPT"
              % (name, (i // 256) % 256, i % 256))
        print("-A %s -j DROP" % name)
    print("COMMIT")


if __name__ == "__main__":
    main()
