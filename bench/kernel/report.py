#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw rows of bench/kernel/run.sh into the benchmark's results.

    report.py --in DIR --out RESULTS [--cmd "make bench-kernel"]

Reads DIR/raw.csv (contender,ruleset,rules,traffic,round,value,unit; one
row per round) and DIR/in/ (what was prepared), writes RESULTS/kernel.csv
(medians over the rounds, one row per contender, ruleset and traffic, with
the ratio to no firewall on the same ruleset and traffic), kernel.md (the
tables, the targets of issue 5, notes) and kernel.png (gnuplot: ratio
against rule count for the seed set), and prints kernel.md.

The IPv6 seed sets (seed6-N, issue 43) get their own table, "IPv6 seed
set", with the same ratio columns; their contenders are named
ip6tables-legacy and ip6tables-nft in raw.csv and kernel.csv, and their
nft-set cell is n/e (not measured).  Their restore times and the targets
of issue 43 follow that table; kernel.png stays IPv4.

The named-set rows (in/list lines ending in "set": bl-hosts, bl-prefixes,
issue 44) go to RESULTS/sets-throughput.md instead: their ratios to no
firewall, load times, the 1,000 updates of bench/kernel/set-memory.sh's
rows.txt (--updates FILE), per-round ratios, the goals of issue 44 and
perf profiles of nf-hipac-set.  --sets-only writes that file alone.

The stateful rows (in/list lines ending in "state": st-N, issue 45) go
to RESULTS/states-throughput.md: tcp and udp64 as ratios to no firewall
for nf-hipac stateless, nf-hipac states (keep-state at the end, and with
CHECK-STATE first), iptables-legacy and nft with conntrack; the new-flow
rate; the memory of 10^6 states against nf_conntrack's (run.sh's
mem-C-{0,1}.txt); the goals of issue 45; per-round ratios and a perf
profile.  --states-only writes that file alone.
--load TEXT is the host's load average, for every file.
"""
import argparse
import collections
import csv
import functools
import glob
import os
import statistics
import subprocess
import sys
import time

CONT = ["none", "iptables-legacy", "iptables-nft", "nft", "nft-set",
        "nf-hipac"]
CONT6 = ["none", "ip6tables-legacy", "ip6tables-nft", "nft", "nft-set",
         "nf-hipac"]
RATE = ("tcp", "udp64", "smp-1flow", "smp-2flow", "newflow")
# the set rows' contenders, and their names in the tables
SETCONT = ["none", "ipset", "nft-set", "nf-hipac", "nf-hipac-set"]
SETNAME = {"none": "none", "ipset": "iptables+ipset", "nft-set": "nft-set",
           "nf-hipac": "nf-hipac rules", "nf-hipac-set": "nf-hipac-set"}
# set-memory.sh's contenders and kinds as the set rows name them
MEMCONT = {"ipset": "ipset", "nft": "nft-set", "nf-hipac": "nf-hipac",
           "nf-hipac-set": "nf-hipac-set"}
# the state rows' contenders, and their names in the tables
STCONT = ["none", "nf-hipac", "nf-hipac-states", "nf-hipac-check",
          "iptables-ct", "nft-ct"]
STNAME = {"none": "none", "nf-hipac": "nf-hipac stateless",
          "nf-hipac-states": "nf-hipac states",
          "nf-hipac-check": "nf-hipac states, CHECK-STATE first",
          "iptables-ct": "iptables-legacy conntrack", "nft-ct": "nft ct"}


def fnum(v, digits=3):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 100:
        return "%.1f" % v
    return ("%%.%dg" % digits) % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--in", dest="indir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cmd", default="make bench-kernel")
    ap.add_argument("--note", action="append", default=[],
                    help="markdown file to append (e.g. a profile)")
    ap.add_argument("--load", help="the host's load average, as text")
    ap.add_argument("--sets-only", action="store_true",
                    help="write sets-throughput.md only")
    ap.add_argument("--updates",
                    help="bench/kernel/set-memory.sh's rows.txt")
    ap.add_argument("--states-only", action="store_true",
                    help="write states-throughput.md only")
    args = ap.parse_args()

    vals = collections.defaultdict(list)
    failed = collections.defaultdict(int)
    units, rules, order, skipped = {}, {}, [], []
    rounds_seen = set()
    with open(os.path.join(args.indir, "raw.csv")) as f:
        for r in csv.DictReader(f):
            if r["contender"] == "skipped":
                skipped.append(r["ruleset"])
                continue
            key = (r["contender"], r["ruleset"], r["traffic"])
            if r["traffic"] == "tcp":
                rounds_seen.add(r["round"])
            units[r["traffic"]] = r["unit"]
            rules[r["ruleset"]] = int(r["rules"])
            if r["ruleset"] not in order:
                order.append(r["ruleset"])
            if r["value"] in ("", None):
                failed[key] += 1
            else:
                vals[key].append(float(r["value"]))
    med = {k: statistics.median(v) for k, v in vals.items() if v}
    # a rate point where some rounds failed counts the failures as 0
    for k in failed:
        if k[2] in RATE and k in vals:
            med[k] = statistics.median(vals[k] + [0.0] * failed[k])
    nrounds = len(rounds_seen)

    ratio = functools.partial(ratio_to_none, med)

    os.makedirs(args.out, exist_ok=True)
    sets = listed(args.indir, rules, "set")
    stsets = listed(args.indir, rules, "state")
    if sets:
        sets_report(args, med, vals, sets, rules, units, nrounds, failed)
    if stsets:
        states_report(args, med, vals, stsets, rules, units, nrounds,
                      failed)
    if args.sets_only or args.states_only:
        return
    order = [r for r in order if r not in stsets and r != "st-mem"]
    keys = sorted({k for k in list(vals) + list(failed) if k[1] in order},
                  key=lambda k: (order.index(k[1]), k[2],
                                 CONT.index(k[0]) if k[0] in CONT else
                                 CONT6.index(k[0]) if k[0] in CONT6
                                 else 9, k[0]))
    with open(os.path.join(args.out, "kernel.csv"), "w") as f:
        f.write("contender,ruleset,rules,traffic,value,unit,"
                "ratio_to_baseline\n")
        for k in keys:
            c, rs, tr = k
            v = med.get(k)
            rt = ratio(c, rs, tr) if tr in RATE else None
            f.write("%s,%s,%d,%s,%s,%s,%s\n" % (
                c, rs, rules[rs], tr, "" if v is None else "%.4g" % v,
                units[tr], "" if rt is None else "%.4f" % rt))

    def why(rs):
        p = os.path.join(args.indir, "in", rs + ".set.why")
        if os.path.exists(p):
            return open(p).read().strip()
        return ""

    md = []
    w = md.append
    w("# In-kernel benchmark (issue 5)")
    w("")
    w("%s  Absolute numbers under TCG mean little; the ratios to *no "
      "firewall* on the same ruleset and traffic are the result." %
      made_by(args, nrounds, " of the matrix"))
    w("")
    w("Contenders: none (no firewall), iptables-legacy, iptables-nft, nft "
      "(the rules written natively in nft), nft-set (one concatenated "
      "interval set or verdict map, pipapo, looked up by one rule), "
      "nf-hipac.  Traffic: `tcp` = iperf3 TCP throughput sender -> "
      "receiver through the forwarding router (Mbit/s); `udp64` = 64-byte "
      "UDP frames injected by pktgen at the router's ingress veth "
      "(xmit_mode netif_receive, as the kernel's nft_concat_range.sh "
      "does; it keeps pktgen from flooding a backlog queue and so "
      "measures the forwarding cost), forwarded to the receiver and "
      "counted at its veth rx counter (packets/s).  The baseline "
      "*none* is measured at the start and at the end of every round "
      "of a ruleset; its column shows the median and (min-max) of "
      "those measurements, which is the noise floor of the run.  A cell is the ratio to none; `x` = "
      "the contender could not load the ruleset in time, `n/e` = not "
      "expressible that way (see notes), `0` = no packet or no iperf3 "
      "result got through in the measurement window.")
    w("")

    def table(sets, title, cont=CONT):
        w("## " + title)
        w("")
        hdr = ["ruleset", "rules", "traffic", "none"] + cont[1:]
        w("| " + " | ".join(hdr) + " |")
        w("|" + "---|" * len(hdr))
        for rs in sets:
            for tr in ("tcp", "udp64"):
                b = med.get(("none", rs, tr))
                nv = vals.get(("none", rs, tr), [])
                spread = (" (%s-%s)" % (fnum(min(nv)), fnum(max(nv)))
                          if len(nv) > 1 else "")
                cells = [rs, str(rules[rs]), tr,
                         "%s %s%s" % (fnum(b), units.get(tr, ""), spread)]
                for c in cont[1:]:
                    rt = ratio(c, rs, tr)
                    if rt is not None:
                        cells.append("%.3f" % rt)
                    elif c == "nft-set" and why(rs):
                        cells.append("n/e")
                    elif failed.get((c, rs, "load")):
                        cells.append("x")
                    else:
                        cells.append("-")
                w("| " + " | ".join(cells) + " |")
        w("")

    def tgt(desc, v, limit):
        if v is None:
            w("- %s: not measured" % desc)
        else:
            w("- %s: %.3f (target >= %.2f) **%s**" %
              (desc, v, limit, "met" if v >= limit else "MISSED"))

    def ipv6(sets):
        table(sets, "IPv6 seed set: N non-matching rules + 1 matching "
              "rule (issue 43)", CONT6)
        w("The seed set of the same N made IPv6 by bench/ipv4to6.py (every "
          "address 72 bits up in fd00::/24, /p becomes /(24+p): the same "
          "rules and intervals), loaded by ip6tables-legacy-restore, "
          "ip6tables-nft-restore, nft -f (table ip6) and "
          "nf-hipac6-restore, and measured over IPv6 in the same VM run "
          "and rounds, against its own *none*: the topology's links "
          "also carry fd00:a:1::/64 and fd00:a:2::/64 (static "
          "neighbours), iperf3 -6, and pktgen sends IPv6 UDP of 78 bytes, "
          "the smallest IPv6 frame pktgen builds (IPv4's are 60).  "
          "nft-set is measured for IPv4 only (`n/e`).")
        w("")
        hdr = ["restore [s]"] + CONT6[1:]
        w("| " + " | ".join(hdr) + " |")
        w("|" + "---|" * len(hdr))
        for rs in sets:
            cells = [rs]
            for c in CONT6[1:]:
                v = med.get((c, rs, "load"))
                cells.append(fnum(v) if v is not None else
                             ("x" if failed.get((c, rs, "load")) else
                              ("n/e" if c == "nft-set" else "-")))
            w("| " + " | ".join(cells) + " |")
        w("")
        w("Targets of issue 43 (reported, not asserted):")
        w("")
        for rs, lim in (("seed6-10000", 0.95), ("seed6-100000", 0.90)):
            if rs not in rules:
                continue
            for tr in ("tcp", "udp64"):
                tgt("nf-hipac %s %s" % (rs, tr), ratio("nf-hipac", rs, tr),
                    lim)
            v4 = "seed-" + rs[len("seed6-"):]
            for tr in ("tcp", "udp64"):
                a = ratio("ip6tables-legacy", rs, tr)
                b = ratio("iptables-legacy", v4, tr)
                w("- ip6tables-legacy %s %s: %s (iptables-legacy %s: %s)" %
                  (rs, tr, "-" if a is None else "%.3f" % a, v4,
                   "-" if b is None else "%.3f" % b))
        w("")

    seeds = [r for r in order if r.startswith("seed-")]
    seeds6 = [r for r in order if r.startswith("seed6-")]
    cbs = [r for r in order if not r.startswith(("seed-", "seed6-"))
           and r not in sets]
    if seeds:
        table(seeds, "Seed set: N non-matching rules + 1 matching rule")
    if cbs:
        table(cbs, "ClassBench sets (trace 5-tuples, see notes)")
    if seeds6:
        ipv6(seeds6)
    if sets:
        w("The named-set rows of this run (%s) are in sets-throughput.md."
          % ", ".join(sets))
        w("")
    if stsets:
        w("The stateful rows of this run (%s) are in "
          "states-throughput.md." % ", ".join(stsets))
        w("")

    if seeds:
        # update cost
        w("## Update cost")
        w("")
        w("Restore = wall time of the restore command loading the whole "
          "ruleset into an empty FORWARD (median over the rounds).  Insert = "
          "wall time of one command inserting one rule at position 1 with "
          "100k rules loaded (process start included; median of 3).  "
          "Replace = a 10k seed set replaced by another 10k seed set with "
          "the same matching rules while a sequence-numbered UDP stream "
          "(500 packets/s) crosses the router; lost in the router = packets "
          "the sender's veth sent minus packets the receiver's veth got (ARP packets on "
          "the sender's veth count here too, so 1-2 is noise); the "
          "sequence numbers missing at the receiving socket also count drops "
          "in the receiving process, which the loaded host starves.")
        w("")
        hdr = ["what"] + CONT[1:]
        w("| " + " | ".join(hdr) + " |")
        w("|" + "---|" * len(hdr))
        big = [r for r in seeds if rules[r] >= 10000]
        for rs in big:
            cells = ["restore %s [s]" % rs]
            for c in CONT[1:]:
                v = med.get((c, rs, "load"))
                cells.append(fnum(v) if v is not None else
                             ("x" if failed.get((c, rs, "load")) else
                              ("n/e" if c == "nft-set" and why(rs) else "-")))
            w("| " + " | ".join(cells) + " |")
        for rs in seeds:
            if not any((c, rs, "insert") in med for c in CONT):
                continue
            cells = ["insert at %s [ms]" % rs]
            for c in CONT[1:]:
                cells.append(fnum(med.get((c, rs, "insert"))))
            w("| " + " | ".join(cells) + " |")
        for tr, label in (("replace-time", "replace 10k [s]"),
                          ("replace-lost", "replace 10k: packets lost in "
                           "the router"),
                          ("replace-seq-missing", "replace 10k: sequence "
                           "numbers missing at the receiving socket"),
                          ("replace-sent", "replace 10k: packets sent")):
            if any((c, "seed-10000", tr) in med for c in CONT):
                cells = [label]
                for c in CONT[1:]:
                    v = med.get((c, "seed-10000", tr))
                    cells.append("-" if v is None else
                                 ("%d" % v if tr != "replace-time"
                                  else fnum(v)))
                w("| " + " | ".join(cells) + " |")
        w("")

    smp = [k for k in med if k[2] == "smp-1flow"]
    if smp:
        rs = smp[0][1]
        w("## SMP: 1 vs 2 pktgen flows on 2 vCPUs (%s)" % rs)
        w("")
        w("| contender | 1 flow [pps] | 2 flows [pps] | scaling 2/1 |")
        w("|---|---|---|---|")
        for c in ("none", "nf-hipac"):
            a = med.get((c, rs, "smp-1flow"))
            b = med.get((c, rs, "smp-2flow"))
            sc = "%.2f" % (b / a) if a and b else "-"
            w("| %s | %s | %s | %s |" % (c, fnum(a), fnum(b), sc))
        w("")

    if seeds or cbs:
        # targets
        w("## Targets of issue 5 (reported, not asserted)")
        w("")

        for rs, lt, lu in (("seed-10000", 0.95, 0.90),
                           ("seed-100000", 0.90, 0.85)):
            if rs in rules:
                tgt("nf-hipac %s tcp" % rs, ratio("nf-hipac", rs, "tcp"), lt)
                tgt("nf-hipac %s udp64" % rs, ratio("nf-hipac", rs, "udp64"),
                    lu)
        for rs in cbs:
            if rules[rs] >= 5000:
                for tr in ("tcp", "udp64"):
                    tgt("nf-hipac %s %s" % (rs, tr), ratio("nf-hipac", rs, tr),
                        0.85)
                if why(rs):
                    w("  (nft-set: not expressible, so no comparison)")
        for rs in seeds:
            hv = med.get(("nf-hipac", rs, "load"))
            if rules[rs] < 100000 or hv is None:
                continue
            others = [(c, med.get((c, rs, "load"))) for c in
                      ("iptables-legacy", "iptables-nft", "nft")]
            w("- restore %s with nf-hipac-restore: %.2f s (target <= 5 s: "
              "**%s**); %s" % (rs, hv, "met" if hv <= 5 else "MISSED",
                               ", ".join("%s %s" % (c, fnum(v) + " s" if v
                                                    else "timed out")
                                         for c, v in others)))
        w("")

    w("## Notes")
    w("")
    w("- ClassBench traffic: the rules are the classbench2ipt.py "
      "conversion (every rule ACCEPT, policy DROP) preceded by `-i veth1 "
      "-j ACCEPT` so replies from the receiver are accepted at once and "
      "only the forward direction is classified (the same head rule for "
      "every contender).  The packets are real trace 5-tuples "
      "(bench/kernel/prepare.py): pktgen sends up to 8 random UDP trace "
      "packets round robin (one pktgen device per tuple, delay 1 ns so the "
      "devices alternate, source and "
      "destination addresses and ports of the trace), the router has "
      "/32 routes for the trace destinations towards the receiver (and "
      "rp_filter off), and the receiver counts them at its veth.  The "
      "TCP flow is one trace TCP 5-tuple whose first matching rule is "
      "as deep as the median of a random trace sample; its addresses "
      "are added to sender and receiver and iperf3 binds them (-B, "
      "--cport).  So every contender classifies the very headers of the "
      "trace and must walk to the same first-matching rule.")
    for rs in cbs:
        p = os.path.join(args.indir, "in", rs + ".flows")
        if os.path.exists(p):
            fl = [l.split() for l in open(p)]
            u = [int(x[5]) for x in fl if x[0] == "udp"]
            t = [x for x in fl if x[0] == "tcp"]
            d = [x[1] for x in fl if x[0] == "depth"]
            w("  - %s: %d UDP tuples, first-match rules %s; TCP %s; median "
              "trace depth %s" % (rs, len(u), ",".join(map(str, u)),
                                 "%s:%s -> %s:%s rule %s" % (
                                     t[0][1], t[0][3], t[0][2], t[0][4],
                                     t[0][5]) if t else "none",
                                 d[0] if d else "?"))
    w("- nft-set expressibility: pipapo refuses overlapping elements, so a "
      "ruleset folds into one set only if no two rules overlap (then "
      "first match and any match agree; mixed ACCEPT/DROP becomes a "
      "verdict map).")
    for rs in order:
        if why(rs):
            w("  - %s: %s" % (rs, why(rs).replace("\n", "; ")))
    w("- Every load is a fresh restore into an empty router (the legacy "
      "filter module is removed after each legacy round, `nft flush "
      "ruleset` after nft contenders, an empty nf-hipac-restore after "
      "nf-hipac), so no contender's hooks stay on the path of another.")
    w("- Offloads (TSO/GSO/GRO) are off on all veths so the router sees "
      "MTU-sized packets.")
    md.extend("- " + l for l in provenance(args.indir, skipped))
    w("")

    profiles(md, args.indir, "nf-hipac", "seed-*")

    for p in args.note:
        w(open(p).read().rstrip())
        w("")

    text = "\n".join(md) + "\n"
    with open(os.path.join(args.out, "kernel.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    plot(args.out, med, rules, seeds)


def ratio_to_none(med, c, rs, tr):
    """c's median over none's, on the same ruleset and traffic; None
    where either is missing."""
    b = med.get(("none", rs, tr))
    v = med.get((c, rs, tr))
    return v / b if b and v is not None else None


def cell_or_mark(failed, v, c, rs):
    """A table's cell: v, or "x" where c could not load rs, "-" where it
    was not measured."""
    if v is not None:
        return v
    return "x" if failed.get((c, rs, "load")) else "-"


def listed(indir, rules, kind):
    """The rulesets of in/list whose third word is kind ("set",
    "state") and that have rows."""
    out = []
    with open(os.path.join(indir, "in", "list")) as f:
        for line in f:
            x = line.split()
            if len(x) > 2 and x[2] == kind and x[0] in rules:
                out.append(x[0])
    return out


def rate_table(w, lead_hdr, lead, rsets, names, cont, med, vals, units,
               failed):
    """The table of tcp and udp64 as ratios to none: lead_hdr and
    lead(rs) are a row's first columns, then the traffic, none's median
    and spread, and a column per contender of cont, headed by names."""
    hdr = lead_hdr + ["traffic", "none"] + names
    w("| " + " | ".join(hdr) + " |")
    w("|" + "---|" * len(hdr))
    for rs in rsets:
        for tr in ("tcp", "udp64"):
            nv = vals.get(("none", rs, tr), [])
            spread = (" (%s-%s)" % (fnum(min(nv)), fnum(max(nv)))
                      if len(nv) > 1 else "")
            cells = lead(rs) + [tr, "%s %s%s" % (
                fnum(med.get(("none", rs, tr))), units.get(tr, ""), spread)]
            for c in cont:
                rt = ratio_to_none(med, c, rs, tr)
                cells.append(cell_or_mark(
                    failed, None if rt is None else "%.3f" % rt, c, rs))
            w("| " + " | ".join(cells) + " |")
    w("")


def per_round(indir, rsets):
    """raw.csv's values of rsets by (contender, ruleset, traffic,
    round), and the rounds of rsets the time budget skipped."""
    rnd = collections.defaultdict(list)
    skipped = []
    with open(os.path.join(indir, "raw.csv")) as f:
        for r in csv.DictReader(f):
            if r["contender"] == "skipped" and r["ruleset"].startswith(
                    tuple(s + "-round-" for s in rsets)):
                skipped.append(r["ruleset"])
            elif r["ruleset"] in rsets and r["value"] not in ("", None):
                rnd[(r["contender"], r["ruleset"], r["traffic"],
                     int(r["round"]))].append(float(r["value"]))
    return rnd, skipped


def made_by(args, nrounds, of):
    """The sentence naming the command, date, commit, rounds and host."""
    commit = subprocess.run(
        ["git", "-C", os.path.dirname(os.path.abspath(__file__)),
         "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True).stdout.strip() or "?"
    return ("Made by `%s` on %s at commit %s (%d interleaved round%s%s, "
            "medians; QEMU TCG, 2 vCPUs, Debian kernel 6.1%s)." % (
                args.cmd, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                commit, nrounds, "" if nrounds == 1 else "s", of,
                "; host load average %s" % args.load if args.load else ""))


def provenance(indir, skipped):
    """What the time budget skipped, and where the raw rows are."""
    rel = os.path.relpath(os.path.abspath(indir),
                          os.path.join(os.path.dirname(
                              os.path.abspath(__file__)), "..", ".."))
    skip = (["**Skipped** because the run's time budget (NFHP_BK_BUDGET) "
             "was spent: %s." % ", ".join(skipped)] if skipped else [])
    return skip + ["Raw per-round rows: %s/raw.csv; VM log: %s/run.log." %
                   (rel, rel)]


def profiles(md, indir, c, pattern):
    """Append the flat perf profiles of contender c at the rulesets of
    pattern (run.sh's perf-C-NAME-flat.txt) to md: the top 25 symbols
    and nf-hipac's own (nfhp_*) below them."""
    pre = "perf-%s-" % c
    for p in sorted(glob.glob(os.path.join(indir, pre + pattern +
                                           "-flat.txt"))):
        lines = [l.rstrip() for l in open(p) if l.strip()]
        if lines:
            md.append("## Profile: perf inside the VM, %s at %s, udp64" %
                      (c, os.path.basename(p)[len(pre):-len("-flat.txt")]))
            own = [l for l in lines[25:] if "nfhp_" in l][:15]
            md += ["", "```"] + lines[:25] + (["..."] + own if own else
                                              []) + ["```", ""]


def set_updates(path):
    """set-memory.sh's rows.txt: {(contender, set): (entries, single s,
    single done, batched s)}, and the file's date."""
    up = {}
    for line in open(path):
        x = line.split()
        if len(x) >= 10 and x[0] in MEMCONT:
            up[(MEMCONT[x[0]], "bl-" + x[1])] = (
                int(x[2]), float(x[7]), int(x[8]), float(x[9]))
    return up, time.strftime("%Y-%m-%d %H:%M UTC",
                             time.gmtime(os.path.getmtime(path)))


def sets_report(args, med, vals, sets, rules, units, nrounds, failed):
    """sets-throughput.md: the named-set rows of issue 44."""
    md = []
    w = md.append
    cont = SETCONT[1:]

    ratio = functools.partial(ratio_to_none, med)
    cell = functools.partial(cell_or_mark, failed)

    w("# Named sets in the kernel: throughput, load and updates (issue 44)")
    w("")
    w("%s  Absolute numbers under TCG mean little; the ratios to *none* "
      "in the same run are the result." % made_by(args, nrounds, ""))
    w("")
    w("A blocklist in the router's FORWARD: bl-hosts, random IPv4 hosts, "
      "and bl-prefixes, IPv4 prefixes like a routing table (60 %% /24, "
      "30 %% /16-/22, 10 %% /25-/32, none holding another), %s keys, "
      "from bench/kernel/setkeys.py with a fixed seed, the keys "
      "of bench/kernel/set-memory.sh.  No key holds the client (10.0.1.2) "
      "or the server (10.0.2.2), so every packet is looked up, misses and "
      "is forwarded.  Contenders: *iptables+ipset* (ipset hash:ip or "
      "hash:net, maxelem 1000000, and one iptables-legacy rule `-m set "
      "--match-set bl src -j DROP`), *nft-set* (a set of type ipv4_addr, "
      "with `flags interval` for the prefixes, and one rule `ip saddr @bl "
      "drop`), *nf-hipac rules* (one rule `-s KEY -j DROP` per key, no "
      "set), *nf-hipac-set* (nf-hipac-set hash:ip or hash:net, algo hash "
      "or lpm, and one nf-hipac rule `-m set --match-set bl src -j "
      "DROP`).  No rule has another match, so the set lookup runs for "
      "every packet.  Traffic as in kernel.md: `tcp` = iperf3 through the "
      "router (Mbit/s), `udp64` = 64-byte UDP frames from pktgen at the "
      "router's ingress (packets/s), offloads off." %
      " and ".join(sorted({str(rules[rs]) for rs in sets})))
    w("")
    near = []
    for rs in sets:
        p = os.path.join(args.indir, "in", rs + ".near")
        if os.path.exists(p):
            near.append("%s: %s" % (rs, "; ".join(
                l.strip() for l in open(p) if l.strip())))
    if near:
        w("Keys near the traffic's addresses (so that a lookup does not "
          "end at an empty region): %s." % "; ".join(near))
        w("")

    w("## Throughput: ratio to none")
    w("")
    rate_table(w, ["set", "entries"], lambda rs: [rs, str(rules[rs])],
               sets, [SETNAME[c] for c in cont], cont, med, vals, units,
               failed)

    up, updated = {}, None
    if args.updates and os.path.exists(args.updates):
        up, updated = set_updates(args.updates)
    w("## Load and updates")
    w("")
    w("Load: wall time of loading the contender into the empty router, "
      "set and rule (ipset restore then iptables-legacy-restore, nft -f, "
      "nf-hipac-restore, nf-hipac-set restore then nf-hipac-restore), "
      "median over the rounds.")
    if up:
        w("1,000 single updates (500 adds of new keys alternating with 500 "
          "deletes of loaded ones, each its own command: ipset add/del, nft "
          "add/delete element, nf-hipac -A/-D FORWARD -s KEY -j DROP, "
          "nf-hipac-set add/del) and the same as one batch: from "
          "bench/kernel/set-memory.sh's run of %s (bench/results/"
          "sets-kernel.md, another VM boot, the same keys, in the initial "
          "namespace without traffic); \"~\" marks a time scaled up from "
          "the updates done within its budget." % updated)
    w("")
    hdr = ["set", "what"] + [SETNAME[c] for c in cont]
    w("| " + " | ".join(hdr) + " |")
    w("|" + "---|" * len(hdr))
    for rs in sets:
        w("| %s | load [s] | %s |" % (rs, " | ".join(
            cell(None if med.get((c, rs, "load")) is None else
                 fnum(med[(c, rs, "load")]), c, rs) for c in cont)))
        if not up:
            continue
        single, batch = [], []
        for c in cont:
            u = up.get((c, rs))
            if u is None:
                single.append("-")
                batch.append("-")
                continue
            n, t, done, b = u
            single.append("%.1f" % t if done == 1000 else
                          "~%.0f (%d done)" % (t * 1000 / done, done)
                          if done else "-")
            batch.append("%.2f" % b)
            if n != rules[rs]:
                single[-1] += " (at %d)" % n
        w("| %s | 1,000 single updates [s] | %s |" % (rs, " | ".join(single)))
        w("| %s | 1,000 batched [s] | %s |" % (rs, " | ".join(batch)))
    w("")

    w("## Goals of issue 44 (reported, not asserted)")
    w("")
    for rs in sets:
        for tr in ("tcp", "udp64"):
            h = ratio("nf-hipac-set", rs, tr)
            i = ratio("ipset", rs, tr)
            if h is None:
                w("- nf-hipac-set %s %s: not measured" % (rs, tr))
                continue
            w("- nf-hipac-set %s %s: %.3f of none (target >= 0.95: **%s**); "
              "iptables+ipset %s (no worse than ipset: **%s**)" % (
                  rs, tr, h, "met" if h >= 0.95 else "MISSED",
                  "-" if i is None else "%.3f" % i,
                  "-" if i is None else "met" if h >= i else "MISSED"))
    w("")

    rnd, skipped = per_round(args.indir, sets)
    rounds = sorted({k[3] for k in rnd})
    if len(rounds) > 1:
        w("## Per round")
        w("")
        w("Each round's value over the mean of that round's two *none* "
          "measurements (before and after the contenders): the spread "
          "behind the medians above.")
        w("")
        hdr = ["set", "traffic", "contender"] + ["round %d" % r
                                                 for r in rounds]
        w("| " + " | ".join(hdr) + " |")
        w("|" + "---|" * len(hdr))
        for rs in sets:
            for tr in ("tcp", "udp64"):
                for c in cont:
                    cells = []
                    for r in rounds:
                        b = rnd.get(("none", rs, tr, r))
                        v = rnd.get((c, rs, tr, r))
                        cells.append("%.3f" % (v[0] / statistics.mean(b))
                                     if b and v and statistics.mean(b)
                                     else "-")
                    w("| %s | %s | %s | %s |" % (rs, tr, SETNAME[c],
                                                 " | ".join(cells)))
        w("")

    for line in provenance(args.indir, skipped):
        w(line)
        w("")
    profiles(md, args.indir, "nf-hipac-set", "bl-*")
    text = "\n".join(md) + "\n"
    with open(os.path.join(args.out, "sets-throughput.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


def mem_file(path):
    """run.sh's mem-C-N.txt: ({meminfo key: kB}, {slab cache: bytes of its
    slabs}, {slab cache: objsize}, {states or conntrack figure: text})."""
    sec, mi, slab, objsz, fig = None, {}, {}, {}, {}
    for line in open(path):
        if line.startswith("== "):
            sec = line[3:].strip()
            continue
        x = line.split()
        if not x:
            continue
        if sec == "meminfo" and len(x) >= 2:
            mi[x[0].rstrip(":")] = int(x[1])
        elif sec == "slabinfo" and not line.startswith(("#", "slabinfo")):
            # name active num objsize objperslab pagesperslab : tunables
            # ... : slabdata active_slabs num_slabs sharedavail
            try:
                d = x.index("slabdata")
                slab[x[0]] = int(x[d + 2]) * int(x[5]) * 4096
                objsz[x[0]] = int(x[3])
            except (ValueError, IndexError):
                pass
        elif sec in ("states", "conntrack") and ":" in line:
            k, v = line.split(":", 1)
            fig["%s %s" % (sec, k.strip())] = v.strip()
    return mi, slab, objsz, fig


def mem_figures(indir, c):
    """What filling contender c's table took: None, or a dict of entries,
    bytes of slab growth per entry with the caches that grew, MemFree's
    drop per entry and the figures of the table."""
    a = os.path.join(indir, "mem-%s-0.txt" % c)
    b = os.path.join(indir, "mem-%s-1.txt" % c)
    if not (os.path.exists(a) and os.path.exists(b)):
        return None
    mi0, sl0, _, f0 = mem_file(a)
    mi1, sl1, osz, f1 = mem_file(b)
    if c == "iptables-ct":
        n = int(f1.get("conntrack entries", 0)) - int(
            f0.get("conntrack entries", 0))
    else:
        n = int(f1.get("states states", 0)) - int(f0.get("states states", 0))
    if n <= 0:
        return {"entries": n}
    grew = sorted(((sl1.get(k, 0) - sl0.get(k, 0), k) for k in sl1),
                  reverse=True)
    slab = sum(d for d, _ in grew if d > 0)
    top = [(k, d / n, osz.get(k)) for d, k in grew if d > 0.02 * slab]
    return {"entries": n, "slab": slab / n, "top": top,
            "memtotal": mi1["MemTotal"] * 1024.0,
            "free": (mi0["MemFree"] - mi1["MemFree"]) * 1024.0 / n,
            "vmalloc": (mi1.get("VmallocUsed", 0) -
                        mi0.get("VmallocUsed", 0)) * 1024.0 / n,
            "fig0": f0, "fig1": f1}


def states_report(args, med, vals, stsets, rules, units, nrounds, failed):
    """states-throughput.md: the stateful rows of issue 45."""
    md = []
    w = md.append
    cont = STCONT[1:]

    ratio = functools.partial(ratio_to_none, med)
    cell = functools.partial(cell_or_mark, failed)

    w("# Dynamic states in the kernel: throughput, new flows and memory "
      "(issue 45)")
    w("")
    w("%s  Absolute numbers under TCG mean little; the ratios to *none* "
      "in the same run are the result." % made_by(args, nrounds, ""))
    w("")
    w("The router's FORWARD has policy DROP and bench/seed.py's %s rules, "
      "which the traffic never hits, and the flow client (10.0.1.0/24) -> "
      "server (10.0.2.0/24) is let through in five ways: *nf-hipac "
      "stateless* (the seed set as is: `-s 10.0.1.0/24 -d 10.0.2.0/24 -j "
      "ACCEPT` and the same for the other direction, last), *nf-hipac "
      "states* (the two accepts replaced by one `-s 10.0.1.0/24 -d "
      "10.0.2.0/24 -m keep-state -j ACCEPT`, last: the check point, and "
      "so the state lookup, after the whole tree walk, the realistic worst "
      "case; the replies pass by the state), *nf-hipac states, "
      "CHECK-STATE first* (the same with `-j CHECK-STATE` as rule 1), "
      "*iptables-legacy conntrack* (`-m conntrack --ctstate "
      "RELATED,ESTABLISHED -j ACCEPT` as rule 1, the seed rules, then the "
      "client -> server accept), *nft ct* (`ct state established,related "
      "accept` first, the seed rules natively by bench/kernel/ipt2nft.py, "
      "then the accept).  nf_conntrack is loaded throughout, but only the "
      "conntrack contenders' rules make it track the router's namespace "
      "(the rows of states and entries made below check it).  Traffic as in kernel.md: `tcp` "
      "= iperf3 through the router (Mbit/s), `udp64` = 64-byte UDP frames "
      "of one flow from pktgen at the router's ingress (packets/s), "
      "offloads off; 0.3 s into it the server sends one datagram back "
      "on the flow (its port 9 to the client's), since conntrack holds "
      "a UDP flow for ESTABLISHED only once it has seen a reply: so "
      "every contender's udp64 measures the packets of an established "
      "flow.  *none* is measured first and last in each round, "
      "the others take turns at going first." %
      " and ".join(sorted({str(rules[rs]) for rs in stsets})))
    w("")

    w("## Throughput: ratio to none")
    w("")
    rate_table(w, ["rules"], lambda rs: [str(rules[rs])], stsets,
               [STNAME[c] for c in cont], cont, med, vals, units, failed)
    w("Load: wall time of the restore into the empty router, median over "
      "the rounds.  Made: what kept the flows of the tcp and udp64 points "
      "(iperf3's control and data connections, pktgen's one flow), median "
      "over the rounds: nf-hipac's states (`created` in "
      "/proc/net/nf-hipac/states) made in the router's namespace "
      "meanwhile, and the change of its nf_conntrack_count (the insert "
      "column of /proc/net/stat/nf_conntrack, read first, did not grow "
      "on Debian's 6.1: the count is what is left, and it falls where "
      "entries of earlier measurements expire meanwhile).")
    w("")
    hdr = ["rules", "what"] + [STNAME[c] for c in cont]
    w("| " + " | ".join(hdr) + " |")
    w("|" + "---|" * len(hdr))
    for rs in stsets:
        for tr, label in (("load", "load [s]"),
                          ("made-states", "nf-hipac states made"),
                          ("made-ct", "change of nf_conntrack_count")):
            cells = []
            for c in cont:
                v = med.get((c, rs, tr))
                cells.append(cell(None if v is None else fnum(v), c, rs))
            w("| %d | %s | %s |" % (rules[rs], label, " | ".join(cells)))
    w("")

    w("## New flows: UDP, every packet a flow of its own")
    w("")
    w("pktgen at the router's ingress sends 64-byte UDP frames from 16 "
      "source addresses (10.0.1.100-115) and source ports 2-65534, both "
      "taken in turn (1,048,528 flows before one comes again), to a "
      "destination port of each measurement's own, so that every packet "
      "opens a flow and none meets a state of an earlier measurement; the "
      "same %s-rule sets.  Accepted = packets/s at the receiver; made = "
      "states (nf-hipac, `created` in /proc/net/nf-hipac/states) or "
      "entries (the growth of nf_conntrack_count, less the entries that "
      "expired meanwhile) per second in the router over the same window.  max_states and nf_conntrack_max are 1,048,576, "
      "conntrack's hash 1,048,576 buckets, the lifetimes the defaults "
      "(nf-hipac's states go with their rule at each unload; conntrack's "
      "entries stay for their 30 s)." %
      " and ".join(sorted({str(rules[rs]) for rs in stsets})))
    w("")
    hdr = ["rules", "what"] + [STNAME[c] for c in STCONT]
    w("| " + " | ".join(hdr) + " |")
    w("|" + "---|" * len(hdr))
    for rs in stsets:
        cells = []
        for c in STCONT:
            v = med.get((c, rs, "newflow"))
            cells.append(cell(None if v is None else fnum(v), c, rs))
        w("| %d | accepted [packets/s] | %s |" % (rules[rs],
                                                  " | ".join(cells)))
        cells = []
        for c in STCONT:
            rt = ratio(c, rs, "newflow")
            cells.append(cell(None if rt is None else "%.3f" % rt, c, rs))
        w("| %d | accepted, ratio to none | %s |" % (rules[rs],
                                                     " | ".join(cells)))
        for tr, label in (("newflow-states", "nf-hipac states made [1/s]"),
                          ("newflow-ct", "conntrack entries' growth [1/s]")):
            cells = []
            for c in STCONT:
                v = med.get((c, rs, tr))
                cells.append(cell(None if v is None else fnum(v), c, rs))
            w("| %d | %s | %s |" % (rules[rs], label, " | ".join(cells)))
    w("")

    mem = {c: mem_figures(args.indir, c)
           for c in ("nf-hipac-states", "iptables-ct")}
    if any(mem.values()):
        mem_section(w, med, mem)

    w("## Goals of issue 45 (reported, not asserted)")
    w("")
    for rs in stsets:
        for tr in ("tcp", "udp64"):
            st = ratio("nf-hipac", rs, tr)
            for c in ("nf-hipac-states", "nf-hipac-check"):
                h = ratio(c, rs, tr)
                if h is None or not st:
                    w("- %s %s %s: not measured" % (STNAME[c], rs, tr))
                    continue
                ct = [(STNAME[k], ratio(k, rs, tr))
                      for k in ("iptables-ct", "nft-ct")]
                above = all(v is not None and h > v for _, v in ct)
                w("- %s %s %s: %.3f of none, %.3f of nf-hipac stateless "
                  "(%.3f) (target >= 0.95: **%s**); %s (above both: "
                  "**%s**)" % (
                      STNAME[c], rs, tr, h, h / st, st,
                      "met" if h / st >= 0.95 else "MISSED",
                      ", ".join("%s %s" % (n, "-" if v is None else
                                           "%.3f" % v) for n, v in ct),
                      "met" if above else "MISSED"))
        h = med.get(("nf-hipac-states", rs, "newflow"))
        ct = [(STNAME[k], med.get((k, rs, "newflow")))
              for k in ("iptables-ct", "nft-ct")]
        if h is None:
            w("- new flows at %s: not measured" % rs)
        else:
            w("- new flows at %s: nf-hipac states accept %s packets/s; %s "
              "(at least conntrack's: **%s**)" % (
                  rs, fnum(h), ", ".join(
                      "%s %s" % (n, "-" if v is None else fnum(v))
                      for n, v in ct),
                  "met" if all(v is not None and h >= v for _, v in ct)
                  else "MISSED"))
    m = mem.get("nf-hipac-states")
    if m and m["entries"] > 0:
        f1 = m["fig1"]
        refused = sum(int(f1.get("states refused (%s)" % k, 0))
                      for k in ("max", "memory"))
        held = int(f1.get("states states", 0))
        w("- 10^6 states held within the memory bound: %d held at "
          "max_states %s, %d refused at max_states or for memory "
          "(**%s**); the states' account is bounded by half the guest's "
          "RAM (pernet.c), %.0f MB, of which max_states reserved %.0f MB "
          "(1048576 x 192 bytes: struct nfhp_state is 152, kmalloc-192); at %.0f bytes per state (MemFree's "
          "drop) 10^6 states take %.0f MB" % (
              held, f1.get("states max_states", "?"), refused,
              "met" if held >= 1000000 and not refused else
              "MISSED" if refused else
              "not reached in the time allowed",
              m["memtotal"] / 2 / 1e6, 1048576 * 192 / 1e6, m["free"],
              m["free"]))
    else:
        w("- 10^6 states held within the memory bound: not measured")
    w("")

    rnd, skipped = per_round(args.indir, stsets)
    rounds = sorted({k[3] for k in rnd})
    if len(rounds) > 1:
        w("## Per round")
        w("")
        w("Each round's value over the mean of that round's two *none* "
          "measurements (before and after the contenders), and the states "
          "contenders over nf-hipac stateless in the same round: the "
          "spread behind the medians above.")
        w("")
        hdr = ["rules", "traffic", "contender"] + ["round %d" % r
                                                   for r in rounds]
        w("| " + " | ".join(hdr) + " |")
        w("|" + "---|" * len(hdr))
        for rs in stsets:
            for tr in ("tcp", "udp64", "newflow"):
                for c in cont:
                    cells = []
                    for r in rounds:
                        b = rnd.get(("none", rs, tr, r))
                        v = rnd.get((c, rs, tr, r))
                        cells.append("%.3f" % (v[0] / statistics.mean(b))
                                     if b and v and statistics.mean(b)
                                     else "-")
                    w("| %d | %s | %s | %s |" % (rules[rs], tr, STNAME[c],
                                                 " | ".join(cells)))
                for c in ("nf-hipac-states", "nf-hipac-check"):
                    cells = []
                    for r in rounds:
                        b = rnd.get(("nf-hipac", rs, tr, r))
                        v = rnd.get((c, rs, tr, r))
                        cells.append("%.3f" % (v[0] / b[0])
                                     if b and v and b[0] else "-")
                    w("| %d | %s | %s / stateless | %s |" % (
                        rules[rs], tr, STNAME[c], " | ".join(cells)))
        w("")

    for line in provenance(args.indir, skipped):
        w(line)
        w("")
    profiles(md, args.indir, "nf-hipac-states", "st-*")
    text = "\n".join(md) + "\n"
    with open(os.path.join(args.out, "states-throughput.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


def mem_section(w, med, mem):
    """The memory table of states-throughput.md."""
    w("## Memory: 10^6 flows held")
    w("")
    w("Last in the run, with the st-mem rule sets (no seed rules: "
      "st-mem.ct.ipt, iptables-legacy `-m conntrack --ctstate "
      "RELATED,ESTABLISHED -j ACCEPT` then the client -> server accept; "
      "st-mem.ks.ipt, the keep-state rule alone), UDP lifetimes of an "
      "hour (nf-hipac's udp_lifetime, nf_conntrack_udp_timeout), "
      "conntrack first, then nf-hipac: pktgen sends new-flow's frames "
      "until the table holds the flows wanted or the time is up.  The "
      "guest's caches are dropped before each reading.  Slab growth = "
      "the growth of every slab cache's pages (/proc/slabinfo) over the "
      "entries made, with the caches that took more than 2 % of it "
      "(object size in brackets); MemFree = the drop of MemFree over "
      "the entries made, everything the kernel took meanwhile, hash "
      "arrays included (conntrack's hash of 1,048,576 buckets was made "
      "before, when nf_conntrack_buckets was set, so its 8 MB are not "
      "in its drop: the hash row gives both tables' arrays per flow).")
    w("")
    ct, hp = mem.get("iptables-ct"), mem.get("nf-hipac-states")
    cols = [("nf-hipac states", hp, "nf-hipac-states"),
            ("nf_conntrack", ct, "iptables-ct")]
    w("| what | " + " | ".join(n for n, _, _ in cols) + " |")
    w("|---|" + "---|" * len(cols))

    def line(label, f):
        w("| %s | %s |" % (label, " | ".join(
            f(m, c) if m and m.get("entries", 0) > 0 else "-"
            for _, m, c in cols)))

    line("flows made", lambda m, c: "%d" % m["entries"])
    line("time to make them [s]", lambda m, c: fnum(
        med.get((c, "st-mem", "fill-time"))))
    line("flows made per second", lambda m, c: fnum(
        m["entries"] / med[(c, "st-mem", "fill-time")])
        if med.get((c, "st-mem", "fill-time")) else "-")
    line("slab growth per flow [bytes]", lambda m, c: "%.0f" % m["slab"])
    line("caches that grew [bytes per flow]", lambda m, c: "; ".join(
        "%s (%s) %.0f" % (k, o, b) for k, b, o in m["top"]))
    line("MemFree drop per flow [bytes]", lambda m, c: "%.0f" % m["free"])
    line("VmallocUsed growth per flow [bytes]",
         lambda m, c: "%.1f" % m["vmalloc"])
    def buckets(m, c):
        return int(m["fig1"].get("states buckets" if c == "nf-hipac-states"
                                 else "conntrack buckets", 0) or 0)

    line("hash buckets (after)", lambda m, c: "%d" % buckets(m, c))
    line("hash array per flow held [bytes] (8 per bucket)",
         lambda m, c: "%.1f" % (8.0 * buckets(m, c) / max(1, int(
             m["fig1"].get("states states" if c == "nf-hipac-states"
                           else "conntrack entries", 1) or 1))))
    line("object", lambda m, c: (
        "struct nfhp_state, 152 bytes, kmalloc-192" if
        c == "nf-hipac-states" else
        "%s, object_size %s, slab_size %s" % (
            m["fig1"].get("conntrack cache", "?"),
            m["fig1"].get("conntrack object_size", "?"),
            m["fig1"].get("conntrack slab_size", "?"))))
    line("refused", lambda m, c: (", ".join(
        "%s %s" % (k, m["fig1"].get("states refused (%s)" % k, "?"))
        for k in ("max", "memory")) if c == "nf-hipac-states" else
        "(table full drops are not counted here)"))
    if hp and hp.get("entries", 0) > 0:
        fl = med.get(("nf-hipac-states", "st-mem", "fill-flush"))
        w("")
        w("nf-hipac's states were freed with their rule (an empty "
          "nf-hipac-restore) in %s s." % fnum(fl))
    w("")


def plot(outdir, med, rules, seeds):
    """kernel.png: ratio to none against N for the seed set (N >= 100)."""
    dat = os.path.join(outdir, ".kernel-plot.dat")
    xs = [rs for rs in seeds if rules[rs] > 0]
    if not xs:
        return
    cols = []
    with open(dat, "w") as f:
        for rs in xs:
            row = [str(rules[rs])]
            for tr in ("tcp", "udp64"):
                for c in CONT[1:]:
                    b = med.get(("none", rs, tr))
                    v = med.get((c, rs, tr))
                    row.append("%.5f" % (v / b) if b and v is not None
                               else "NaN")
            f.write(" ".join(row) + "\n")
    n = len(CONT) - 1
    gp = ["set terminal pngcairo size 1200,500 font ',10'",
          "set output '%s'" % os.path.join(outdir, "kernel.png"),
          "set multiplot layout 1,2 title 'Seed set: N non-matching + 1 "
          "matching rule (ratio to no firewall, QEMU TCG)'",
          "set logscale x", "set xrange [50:200000]",
          "set yrange [0:*]", "set grid",
          "set xlabel 'rules N'", "set ylabel 'ratio to no firewall'",
          "set key bottom left"]
    for i, tr in enumerate(("TCP throughput (iperf3)",
                            "64-byte UDP packet rate (pktgen)")):
        gp.append("set title '%s'" % tr)
        parts = []
        for j, c in enumerate(CONT[1:]):
            parts.append("'%s' using 1:%d with linespoints lw 2 title '%s'"
                         % (dat, 2 + i * n + j, c))
        gp.append("plot " + ", ".join(parts))
    gp.append("unset multiplot")
    try:
        subprocess.run(["gnuplot"], input="\n".join(gp), text=True,
                       check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("report.py: gnuplot failed: %s" % e, file=sys.stderr)
    os.unlink(dat)


if __name__ == "__main__":
    main()
