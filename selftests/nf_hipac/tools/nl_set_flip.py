#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nl_set_flip.py SET ADDR STOP V1 V2 - give the IPv4 entry ADDR of the
set SET the value V1, then V2, then V1 again, and so on, each an
NFHP_CMD_SET_ADD of its own with NFHP_SET_F_UPDATE (no transaction: each
change is live at once), until the file STOP exists.  Prints "flipping"
once the first adds are made, and at the end how many it made.  The adds go BATCH to a send, each its own message, so the
kernel makes them back to back: far faster than a process per change,
for the tests of rules that read an entry's value while it changes.
Exit status 1, with the errno, when an add fails."""
import ipaddress
import os
import socket
import struct
import sys

from nl_list import NLA_F_NESTED, NLM_F_ACK, NLM_F_REQUEST, NLMSG_ERROR, \
    attr, open_family

# include/uapi/linux/nf_hipac.h
NFHP_CMD_SET_ADD = 20
NFHPA_SET = 10
NFHPA_SET_NAME, NFHPA_SET_FLAGS, NFHPA_SET_ENTRY = 1, 6, 7
NFHPA_SETE_ADDR, NFHPA_SETE_PLEN, NFHPA_SETE_VALUE = 1, 2, 3
NFHP_SET_F_UPDATE = 1 << 1
BATCH = 256


def add_message(name, addr, value):
    """The NFHPA_SET of an add of ADDR/32 with VALUE that updates."""
    key = struct.pack("IIII", 0, 0, 0, int(ipaddress.IPv4Address(addr)))
    entry = attr(NFHPA_SETE_ADDR, key) + \
        attr(NFHPA_SETE_PLEN, struct.pack("B", 32)) + \
        attr(NFHPA_SETE_VALUE, struct.pack("I", value))
    body = attr(NFHPA_SET_NAME, name.encode() + b"\0") + \
        attr(NFHPA_SET_FLAGS, struct.pack("I", NFHP_SET_F_UPDATE)) + \
        attr(NFHPA_SET_ENTRY | NLA_F_NESTED, entry)
    return attr(NFHPA_SET | NLA_F_NESTED, body)


def batch(family, msgs, seq):
    """BATCH add requests from sequence number SEQ on, the messages of
    MSGS in turn, each acked."""
    out = b""
    for i in range(BATCH):
        body = struct.pack("BBH", NFHP_CMD_SET_ADD, 1, 0) + msgs[i % len(msgs)]
        out += struct.pack("IHHII", 16 + len(body), family,
                           NLM_F_REQUEST | NLM_F_ACK, seq + i, 0) + body
    return out


def acks(sock, last):
    """Read the acks up to that of request LAST; the first errno, or 0."""
    err = 0
    while True:
        data = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            mlen, mtype, _, mseq, _ = struct.unpack_from("IHHII", data, off)
            if mlen < 16:
                return err or 1
            if mtype == NLMSG_ERROR:
                e = -struct.unpack_from("i", data, off + 16)[0]
                err = err or e
                if mseq == last:
                    return err
            off += (mlen + 3) & ~3


def main():
    name, addr, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    values = [int(v) for v in sys.argv[4:6]]
    sock, family = open_family()
    if family is None:
        return 1
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    msgs = [add_message(name, addr, v) for v in values]
    n, seq = 0, 2
    while not os.path.exists(stop):
        sock.send(batch(family, msgs, seq))
        err = acks(sock, seq + BATCH - 1)
        seq += BATCH
        if err:
            print("add failed: errno %d" % err, flush=True)
            print(n, flush=True)
            return 1
        if not n:
            print("flipping", flush=True)
        n += BATCH
    print(n, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
