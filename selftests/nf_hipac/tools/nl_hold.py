#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nl_hold.py SECONDS - open an nf-hipac transaction (NFHP_CMD_BEGIN) on a
socket of its own in the current network namespace, print "held", keep it
open for SECONDS and exit: closing the socket aborts the transaction.  It
stands for another tool in the middle of a restore, for the tests of -w.
Exit status 1 if the transaction could not be opened."""
import sys
import time

from nl_list import NFHP_CMD_LIST, call, open_family

NFHP_CMD_BEGIN = NFHP_CMD_LIST + 1      # include/uapi/linux/nf_hipac.h


def main():
    sock, family = open_family()
    if family is None:
        return 1
    if call(sock, family, 2, NFHP_CMD_BEGIN, b"", "BEGIN"):
        return 1
    print("held", flush=True)
    time.sleep(float(sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
