#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nl_set_txn.py WAIT commit|abort|close STEP... - open an nf-hipac
transaction (NFHP_CMD_BEGIN) on a socket of its own in the current network
namespace, send the set commands STEP... inside it, print "staged", wait
until the file WAIT exists (at most 20 minutes; "-": not at all), then
commit it, abort it, or just close the socket (which aborts it), and
print "committed", "aborted" or "closed".  Each STEP is one of
    new:NAME:ALGO        NFHP_CMD_SET_NEW, IPv4, type addr ("hash", "lpm")
    flush:NAME           NFHP_CMD_SET_FLUSH
    add:NAME:ADDR[/LEN]  NFHP_CMD_SET_ADD of one IPv4 entry
    del:NAME:ADDR[/LEN]  NFHP_CMD_SET_REMOVE of one
    swap:NAME:OTHER      NFHP_CMD_SET_SWAP
    destroy:NAME         NFHP_CMD_SET_DEL
An independent writer of the ABI (no libmnl), for the tests of sets in
transactions.  Exit status 1, with the errno, when a step or the commit
fails."""
import ipaddress
import os
import struct
import sys
import time

from nl_list import NLA_F_NESTED, attr, call, open_family

# include/uapi/linux/nf_hipac.h
NFHP_CMD_BEGIN, NFHP_CMD_COMMIT, NFHP_CMD_ABORT = 12, 13, 14
NFHP_CMD_SET_NEW, NFHP_CMD_SET_DEL, NFHP_CMD_SET_FLUSH = 15, 16, 17
NFHP_CMD_SET_SWAP, NFHP_CMD_SET_ADD, NFHP_CMD_SET_REMOVE = 18, 20, 21
NFHPA_SET = 10
NFHPA_SET_NAME, NFHPA_SET_OTHER, NFHPA_SET_TYPE = 1, 2, 3
NFHPA_SET_ALGO, NFHPA_SET_ENTRY = 4, 7
NFHPA_SETE_ADDR, NFHPA_SETE_PLEN = 1, 2
NFHP_SET_ADDR = 1


def cstr(s):
    return s.encode() + b"\0"


def entry(text):
    net = ipaddress.ip_network(text, strict=True)
    addr = struct.pack("IIII", 0, 0, 0, int(net.network_address))
    return attr(NFHPA_SET_ENTRY | NLA_F_NESTED,
                attr(NFHPA_SETE_ADDR, addr) +
                attr(NFHPA_SETE_PLEN, struct.pack("B", net.prefixlen)))


def step_message(step):
    """The command and NFHPA_SET payload of STEP."""
    kind, name, *rest = step.split(":")
    body = attr(NFHPA_SET_NAME, cstr(name))
    if kind == "new":
        return NFHP_CMD_SET_NEW, body + \
            attr(NFHPA_SET_TYPE, struct.pack("B", NFHP_SET_ADDR)) + \
            attr(NFHPA_SET_ALGO, cstr(rest[0]))
    if kind in ("add", "del"):
        cmd = NFHP_CMD_SET_ADD if kind == "add" else NFHP_CMD_SET_REMOVE
        return cmd, body + entry(rest[0])
    if kind == "swap":
        return NFHP_CMD_SET_SWAP, body + attr(NFHPA_SET_OTHER, cstr(rest[0]))
    if kind == "flush":
        return NFHP_CMD_SET_FLUSH, body
    if kind == "destroy":
        return NFHP_CMD_SET_DEL, body
    raise ValueError("unknown step " + step)


def send(sock, family, seq, cmd, payload, what):
    """call() with PAYLOAD, if any, nested in NFHPA_SET."""
    attrs = attr(NFHPA_SET | NLA_F_NESTED, payload) if payload else b""
    return call(sock, family, seq, cmd, attrs, what)


def main():
    wait, end, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
    sock, family = open_family()
    if family is None:
        return 1
    seq = 2
    if send(sock, family, seq, NFHP_CMD_BEGIN, b"", "BEGIN"):
        return 1
    for step in steps:
        seq += 1
        cmd, payload = step_message(step)
        if send(sock, family, seq, cmd, payload, step):
            return 1
    print("staged", flush=True)
    deadline = time.monotonic() + 1200
    while wait != "-" and not os.path.exists(wait) and \
            time.monotonic() < deadline:
        time.sleep(0.1)
    if end == "close":
        sock.close()
        print("closed", flush=True)
        return 0
    cmd = NFHP_CMD_COMMIT if end == "commit" else NFHP_CMD_ABORT
    if send(sock, family, seq + 1, cmd, b"", end):
        return 1
    print("committed" if end == "commit" else "aborted", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
