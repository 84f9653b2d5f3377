#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A sequence-numbered UDP stream, to count packets lost during an update.

    udpseq.py send DST PORT RATE     send until SIGTERM, then print "sent N"
    udpseq.py recv PORT              on SIGTERM print
                                     "received N missing M max S"

Both print "ready" once their SIGTERM handler is installed.  Each datagram
carries a 4-byte big-endian sequence number from 0.  The
receiver counts distinct sequence numbers; "missing" is how many numbers
below the highest one received never arrived.
"""
import signal
import socket
import struct
import sys
import time


def send(dst, port, rate):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    print("ready", flush=True)
    gap = 1.0 / rate
    seq = 0
    nxt = time.monotonic()
    while not stop:
        s.sendto(struct.pack("!I", seq) + b"\0" * 14, (dst, port))
        seq += 1
        nxt += gap
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
    print("sent %d" % seq, flush=True)


def recv(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind(("0.0.0.0", port))
    s.settimeout(0.2)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    print("ready", flush=True)
    seen = set()
    while not stop:
        try:
            data = s.recv(64)
        except (socket.timeout, InterruptedError):
            continue
        seen.add(struct.unpack("!I", data[:4])[0])
    top = max(seen) if seen else -1
    print("received %d missing %d max %d" % (len(seen), top + 1 - len(seen),
                                              top), flush=True)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif len(sys.argv) == 3 and sys.argv[1] == "recv":
        recv(int(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
