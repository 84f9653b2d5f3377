#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nl_list.py [--chains-only] [--accept-in CHAIN] - send one NFHP_CMD_LIST
dump request to the nf_hipac generic netlink family of the current network
namespace, over a raw socket (no libmnl: an independent reader of the ABI),
and print "chains=N rules=M": the chain and rule messages of the answer.
With --chains-only the request carries NFHPA_LIST_FLAGS =
NFHP_LIST_CHAINS_ONLY.  With --accept-in CHAIN it carries NFHPA_CHAIN and
NFHPA_RULE "-j ACCEPT" (no match), which lists the rules of CHAIN equal to
it; " at=P,Q" then adds their NFHPA_POS.  Exit status 1 on a netlink
error."""
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
# include/uapi/linux/nf_hipac.h
NFHP_CMD_LIST = 11
NFHPA_CHAIN = 1
NFHPA_POS = 3
NFHPA_RULE = 7
NFHPA_LIST_FLAGS = 8
NFHP_LIST_CHAINS_ONLY = 1
NFHPA_RULE_ACTION = 2
NFHP_ACT_ACCEPT = 1
NLA_F_NESTED = 0x8000


def attr(atype, payload):
    a = struct.pack("HH", 4 + len(payload), atype) + payload
    return a + b"\0" * (-len(a) % 4)


def request(sock, mtype, flags, cmd, version, attrs, seq):
    body = struct.pack("BBH", cmd, version, 0) + attrs
    sock.send(struct.pack("IHHII", 16 + len(body), mtype, flags, seq, 0) +
              body)


def attrs_of(payload):
    out, off = {}, 4                      # past the genl header
    while off + 4 <= len(payload):
        alen, atype = struct.unpack_from("HH", payload, off)
        if alen < 4:
            break
        out[atype & 0x3fff] = payload[off + 4:off + alen]
        off += (alen + 3) & ~3
    return out


def messages(sock, seq):
    while True:
        data = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            mlen, mtype, _, mseq, _ = struct.unpack_from("IHHII", data, off)
            if mlen < 16:
                return
            if mseq == seq:
                yield mtype, data[off + 16:off + mlen]
            off += (mlen + 3) & ~3


def ack(sock, seq):
    """The errno of the ack of request SEQ (0 for success)."""
    for mtype, payload in messages(sock, seq):
        if mtype == NLMSG_ERROR:
            return -struct.unpack_from("i", payload)[0]
    return 0


def call(sock, family, seq, cmd, attrs, what):
    """Send CMD with ATTRS as request SEQ and wait for its ack; the errno
    (0 for success), printed with WHAT when it is not."""
    request(sock, family, NLM_F_REQUEST | NLM_F_ACK, cmd, 1, attrs, seq)
    err = ack(sock, seq)
    if err:
        print("%s failed: errno %d" % (what, err), flush=True)
    return err


def open_family():
    """A socket and the nf_hipac family id, or (None, None) after a message."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    request(sock, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK,
            CTRL_CMD_GETFAMILY, 1,
            attr(CTRL_ATTR_FAMILY_NAME, b"nf_hipac\0"), 1)
    family = None
    for mtype, payload in messages(sock, 1):
        if mtype == NLMSG_ERROR:
            err = struct.unpack_from("i", payload)[0]
            if err:
                print("family lookup failed: %d" % err)
                return None, None
            break
        family = struct.unpack("H", attrs_of(payload)[CTRL_ATTR_FAMILY_ID][:2])[0]
    if family is None:
        print("no nf_hipac family")
    return sock, family


def main():
    sock, family = open_family()
    if family is None:
        return 1
    args = sys.argv[1:]
    extra = b""
    if "--chains-only" in args:
        extra = attr(NFHPA_LIST_FLAGS, struct.pack("I", NFHP_LIST_CHAINS_ONLY))
    equal = "--accept-in" in args
    if equal:
        chain = args[args.index("--accept-in") + 1].encode() + b"\0"
        extra += attr(NFHPA_CHAIN, chain)
        extra += attr(NFHPA_RULE | NLA_F_NESTED,
                      attr(NFHPA_RULE_ACTION, struct.pack("B",
                                                          NFHP_ACT_ACCEPT)))
    request(sock, family, NLM_F_REQUEST | NLM_F_DUMP, NFHP_CMD_LIST, 1,
            extra, 2)
    chains = rules = 0
    at = []
    for mtype, payload in messages(sock, 2):
        if mtype == NLMSG_DONE:
            break
        if mtype == NLMSG_ERROR:
            print("LIST failed: %d" % struct.unpack_from("i", payload)[0])
            return 1
        attrs = attrs_of(payload)
        if NFHPA_RULE in attrs:
            rules += 1
            at.append(str(struct.unpack("I", attrs[NFHPA_POS][:4])[0]))
        else:
            chains += 1
    print("chains=%d rules=%d%s" % (chains, rules,
                                    " at=" + ",".join(at) if equal else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
