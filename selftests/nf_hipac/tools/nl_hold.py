#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nl_hold.py SECONDS - open an nf-hipac transaction (NFHP_CMD_BEGIN) on a
socket of its own in the current network namespace, print "held", keep it
open for SECONDS and exit: closing the socket aborts the transaction.  It
stands for another tool in the middle of a restore, for the tests of -w.
Exit status 1 if the transaction could not be opened."""
import struct
import sys
import time

from nl_list import NLM_F_ACK, NLM_F_REQUEST, NLMSG_ERROR, NFHP_CMD_LIST
from nl_list import messages, open_family, request

NFHP_CMD_BEGIN = NFHP_CMD_LIST + 1      # include/uapi/linux/nf_hipac.h


def main():
    sock, family = open_family()
    if family is None:
        return 1
    request(sock, family, NLM_F_REQUEST | NLM_F_ACK, NFHP_CMD_BEGIN, 1,
            b"", 2)
    for mtype, payload in messages(sock, 2):
        if mtype == NLMSG_ERROR:
            err = struct.unpack_from("i", payload)[0]
            if err:
                print("BEGIN failed: %d" % err)
                return 1
            break
    print("held", flush=True)
    time.sleep(float(sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
