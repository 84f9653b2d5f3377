# SPDX-License-Identifier: GPL-2.0
"""Raw IPv4 packets for iptables_diff.sh, built by hand (no scapy).

A Pkt is one IPv4 datagram (or fragment) that the tester sends, on one of
the four router-facing interfaces, through both routers.  Its IP id is the
key under which what arrives behind the routers is filed.  Checksums are
right unless asked otherwise (conntrack checks them in PREROUTING).
"""
import socket
import struct

# Router-side interface names, in the order of the tester's c0 c1 c2 s.
IFACES = ("veth0", "veth10", "eth1", "srv0")
TESTER_IFS = ("c0", "c1", "c2", "s")
# Marks the routers set from TOS bits 2-5 (topo.sh diff_marks), index 0 none.
MARKS = (0, 0x1, 0x2, 0x3, 0x4, 0x10, 0x11, 0xff, 0x100, 0x1000, 0xffff,
         0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff)

TCP, UDP, ICMP = 6, 17, 1
FLAG_NAMES = ("FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR")


def mac(topo, idx, side):
    """The MAC of interface idx of topology topo (1 A, 2 B), side 1 router."""
    return bytes((2, 0, 0, topo, idx, side))


def mac_bytes(s):
    """The six bytes of a MAC written 02:00:5e:..."""
    return bytes(int(x, 16) for x in s.split(":"))


def dotted(v):
    return socket.inet_ntoa(struct.pack("!I", v))


def addr(s):
    return struct.unpack("!I", socket.inet_aton(s))[0]


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def route_out(dst):
    """The router's output interface index for dst (topo.sh routes)."""
    top = dst >> 16
    if top == 0x0A01:
        return 0
    if top == 0x0A02:
        return 1
    if top == 0x0A03:
        return 2
    return 3


def flag_str(f):
    return ",".join(n for i, n in enumerate(FLAG_NAMES) if f & (1 << i)) \
        or "none"


class Pkt:
    """One datagram: header fields for the report, and its bytes."""

    def __init__(self, iface, src, dst, proto, l4=b"", ttl=64, tos=0,
                 frag=0, mf=False, kind="probe", note="", smac=None):
        self.iface = iface
        self.smac = smac        # "02:..." for -m mac, else the tester's
        self.src, self.dst, self.proto = src, dst, proto
        self.l4 = l4
        self.ttl = ttl          # as FORWARD sees it; one more is sent
        self.tos = tos
        self.frag, self.mf = frag, mf
        self.kind = kind
        self.note = note
        self.ident = 0
        self.phase = 0

    @property
    def length(self):
        return 20 + len(self.l4)

    def build(self, ident):
        self.ident = ident
        fo = (self.frag & 0x1FFF) | (0x2000 if self.mf else 0)
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, self.tos, self.length,
                          ident, fo, self.ttl + 1, self.proto, 0,
                          struct.pack("!I", self.src),
                          struct.pack("!I", self.dst))
        c = csum(hdr)
        return hdr[:10] + struct.pack("!H", c) + hdr[12:] + self.l4

    def hotdrop(self):
        """Why iptables' tcp/udp/icmp/multiport matches would drop this
        packet outright (xt_tcpudp.c, ip_tables.c icmp_match), or None."""
        if self.frag == 1 and self.proto == TCP:
            return "TCP fragment at offset 8 (xt_tcpudp: evil offset=1 frag)"
        if self.frag:
            return None
        need = {TCP: 20, UDP: 8, ICMP: 8}.get(self.proto)
        if need and len(self.l4) < need:
            return "transport header shorter than %d bytes (hotdrop)" % need
        return None

    def describe(self):
        mark = MARKS[(self.tos >> 2) & 15]
        s = "id=%d in=%s %s -> %s proto=%d ttl=%d len=%d mark=0x%x" % (
            self.ident, IFACES[self.iface], dotted(self.src),
            dotted(self.dst), self.proto, self.ttl, self.length, mark)
        if self.smac:
            s += " smac=%s" % self.smac
        if self.tos & 3 == 1:
            s += " notrack"
        if self.frag or self.mf:
            s += " frag=%d%s" % (self.frag, "+MF" if self.mf else "")
        if not self.frag:
            s += l4_describe(self.proto, self.l4)
        s += " [%s%s]" % (self.kind, " " + self.note if self.note else "")
        return s


def l4_describe(proto, l4):
    if proto in (TCP, UDP) and len(l4) >= 4:
        sp, dp = struct.unpack("!HH", l4[:4])
        s = " sport=%d dport=%d" % (sp, dp)
        if proto == TCP and len(l4) >= 14:
            s += " flags=%s" % flag_str(l4[13])
        if proto == TCP and len(l4) < 20 or proto == UDP and len(l4) < 8:
            s += " l4-truncated(%d bytes)" % len(l4)
        return s
    if proto == ICMP and len(l4) >= 2:
        s = " icmp=%d/%d" % (l4[0], l4[1])
        if len(l4) < 8:
            s += " l4-truncated(%d bytes)" % len(l4)
        return s
    return " l4=%d bytes" % len(l4)


def pseudo(src, dst, proto, length):
    return struct.pack("!IIBBH", src, dst, 0, proto, length)


def tcp(src, dst, sport, dport, flags, seq=0, ack=0, data=b"",
        bad_csum=False):
    h = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags,
                    65535, 0, 0) + data
    c = csum(pseudo(src, dst, TCP, len(h)) + h)
    if bad_csum:
        c ^= 0x5A5A
    return h[:16] + struct.pack("!H", c) + h[18:]


def udp(src, dst, sport, dport, data=b"", bad_csum=False):
    h = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    c = csum(pseudo(src, dst, UDP, len(h)) + h) or 0xFFFF
    if bad_csum:
        c ^= 0x5A5A
    return h[:6] + struct.pack("!H", c) + h[8:]


def icmp(typ, code, rest=b"\0\0\0\0", data=b""):
    h = struct.pack("!BBH", typ, code, 0) + rest[:4].ljust(4, b"\0") + data
    c = csum(h)
    return h[:2] + struct.pack("!H", c) + h[4:]


def parse_key(l3):
    """(ident, src, dst) of an IPv4 datagram, or None."""
    if len(l3) < 20 or l3[0] >> 4 != 4:
        return None
    ident = struct.unpack("!H", l3[4:6])[0]
    src, dst = struct.unpack("!II", l3[12:20])
    return ident, src, dst
