#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ICMP errors for keep_state.sh: real ones, forged ones, and their receipt.

    icmp_error.py refused HOST PORT SPORT
        a datagram from SPORT to a closed HOST:PORT (IPv4 or IPv6); exit 0
        when the port unreachable came back (ECONNREFUSED), 1 when not
    icmp_error.py forge CLIENT SERVER SPORT DPORT
        from the server's side, a port unreachable to CLIENT about a
        datagram CLIENT:SPORT -> SERVER:DPORT (IPv4), whether or not it
        was ever sent
    icmp_error.py listen SPORT DPORT READY DONE
        on the client's side, touch READY once listening, then exit 0 when
        a port unreachable about a datagram from SPORT to DPORT arrives,
        3 when none did 2 s after the file DONE appeared (the error was
        sent), 4 when DONE did not appear within 120 s
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "diff"))
from pkt import csum  # noqa: E402


def refused(host, port, sport):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind(("", sport))
    s.connect((host, port))
    s.settimeout(2)
    for _ in range(3):
        s.send(b"x")
        try:
            s.recv(64)
        except ConnectionRefusedError:
            return 0
        except socket.timeout:
            continue
    return 1


def forge(client, server, sport, dport):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 1, 0, 64, 17, 0,
                     socket.inet_aton(client), socket.inet_aton(server))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    icmp = struct.pack("!BBHI", 3, 3, 0, 0) + ip + \
        struct.pack("!HHHH", sport, dport, 8, 0)
    icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(icmp, (client, 0))
    return 0


def quotes(pkt, sport, dport):
    """Is pkt (an IPv4 packet) a port unreachable about sport -> dport?"""
    icmp = pkt[(pkt[0] & 15) * 4:]
    if len(icmp) < 8 + 20 + 4 or icmp[0] != 3:
        return False
    qihl = (icmp[8] & 15) * 4
    if len(icmp) < 8 + qihl + 4:
        return False
    return struct.unpack("!HH", icmp[8 + qihl:8 + qihl + 4]) == \
        (sport, dport)


def listen(sport, dport, ready, done):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.settimeout(0.2)
    open(ready, "w").close()
    deadline = time.monotonic() + 120
    grace = None
    while True:
        now = time.monotonic()
        if grace is None and os.path.exists(done):
            grace = now + 2
        if grace is not None and now >= grace:
            return 3
        if now >= deadline:
            return 4
        try:
            if quotes(s.recv(2048), sport, dport):
                return 0
        except socket.timeout:
            pass


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "refused":
        return refused(args[0], int(args[1]), int(args[2]))
    if cmd == "forge":
        return forge(args[0], args[1], int(args[2]), int(args[3]))
    if cmd == "listen":
        return listen(int(args[0]), int(args[1]), args[2], args[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
