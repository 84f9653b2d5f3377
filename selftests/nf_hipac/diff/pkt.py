# SPDX-License-Identifier: GPL-2.0
"""Raw IPv4 and IPv6 packets for iptables_diff.sh, built by hand (no scapy).

A Pkt is one IPv4 datagram (or fragment) that the tester sends, on one of
the four router-facing interfaces, through both routers.  Its IP id is the
key under which what arrives behind the routers is filed.  Checksums are
right unless asked otherwise (conntrack checks them in PREROUTING).

A Pkt6 is the IPv6 one: extension headers (hop-by-hop, destination
options, routing type 0 with no segments left, a fragment header) may
come before the upper layer, and the key is the flow label, which
forwarding keeps (IPv6 has no id outside the fragment header).

The real-looking IPv4 rule sets (ClassBench, the university firewall)
are made IPv6 by bench/ipv4to6.py: rules6() and packet6() are its rule
and packet lines, map6() an address or prefix.
"""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "bench"))
import ipv4to6  # noqa: E402

# Router-side interface names, in the order of the tester's c0 c1 c2 s.
IFACES = ("veth0", "veth10", "eth1", "srv0")
TESTER_IFS = ("c0", "c1", "c2", "s")
# Marks the routers set from TOS bits 2-5 (topo.sh diff_marks), index 0 none.
MARKS = (0, 0x1, 0x2, 0x3, 0x4, 0x10, 0x11, 0xff, 0x100, 0x1000, 0xffff,
         0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff)

TCP, UDP, ICMP = 6, 17, 1
ICMP6 = 58
# IPv6 extension headers by the names Pkt6.exts uses.
EXT_HBH, EXT_RT, EXT_FRAG, EXT_DST, NONXT = 0, 43, 44, 60, 59
EXT_CODES = {"hbh": EXT_HBH, "dst": EXT_DST, "rt0": EXT_RT,
             "dst-trunc": EXT_DST}
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


def addr6(s):
    return int.from_bytes(socket.inet_pton(socket.AF_INET6, s), "big")


def fmt6(v):
    return socket.inet_ntop(socket.AF_INET6, v.to_bytes(16, "big"))


def rules6(text):
    """An IPv4 rule set made IPv6 by bench/ipv4to6.py: a.b.c.d/p in bits
    24-55 under fd00::/24 as /(24 + p), -p icmp as ipv6-icmp, -m ttl as
    -m hl."""
    return "".join(ipv4to6.rule_line(line)
                   for line in text.splitlines(True))


def packet6(line):
    """A packet line (src=... dst=... proto=...) made IPv6 the same way."""
    return ipv4to6.packet_line(line)


def map6(s):
    """An IPv4 address or prefix made IPv6 the same way."""
    return ipv4to6.ADDR.sub(ipv4to6.v6, s)


# The client nets of route_out() made IPv6 by map6(), top 40 bits: topo.sh
# routes them as their originals (fd00:a:100::/40 to veth0, ...), so
# that a mapped rule set's packets leave where the IPv4 ones do.
MAPPED_NETS6 = tuple(addr6(map6(n).partition("/")[0]) >> 88
                     for n in ("10.1.0.0", "10.2.0.0", "10.3.0.0"))


def route_out(dst, family=4):
    """The router's output interface index for dst (topo.sh routes)."""
    if family == 6:
        if dst >> 88 in MAPPED_NETS6:
            return MAPPED_NETS6.index(dst >> 88)
        top = dst >> 80
        return {0x20010db80001: 0, 0x20010db80002: 1,
                0x20010db80003: 2}.get(top, 3)
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
    if proto in (ICMP, ICMP6) and len(l4) >= 2:
        s = " icmp=%d/%d" % (l4[0], l4[1])
        if len(l4) < 8:
            s += " l4-truncated(%d bytes)" % len(l4)
        return s
    return " l4=%d bytes" % len(l4)


def pseudo(src, dst, proto, length, v6=False):
    if v6:
        return src.to_bytes(16, "big") + dst.to_bytes(16, "big") + \
            struct.pack("!IxxxB", length, proto)
    return struct.pack("!IIBBH", src, dst, 0, proto, length)


def tcp(src, dst, sport, dport, flags, seq=0, ack=0, data=b"",
        bad_csum=False, v6=False):
    h = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags,
                    65535, 0, 0) + data
    c = csum(pseudo(src, dst, TCP, len(h), v6) + h)
    if bad_csum:
        c ^= 0x5A5A
    return h[:16] + struct.pack("!H", c) + h[18:]


def udp(src, dst, sport, dport, data=b"", bad_csum=False, v6=False):
    h = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    c = csum(pseudo(src, dst, UDP, len(h), v6) + h) or 0xFFFF
    if bad_csum:
        c ^= 0x5A5A
    return h[:6] + struct.pack("!H", c) + h[8:]


def icmp(typ, code, rest=b"\0\0\0\0", data=b""):
    h = struct.pack("!BBH", typ, code, 0) + rest[:4].ljust(4, b"\0") + data
    c = csum(h)
    return h[:2] + struct.pack("!H", c) + h[4:]


def icmp6(src, dst, typ, code, rest=b"\0\0\0\0", data=b""):
    h = struct.pack("!BBH", typ, code, 0) + rest[:4].ljust(4, b"\0") + data
    c = csum(pseudo(src, dst, ICMP6, len(h), True) + h)
    return h[:2] + struct.pack("!H", c) + h[4:]


def ext_hdr(name, nxt):
    """One 8-byte extension header: PadN options, or a routing header of
    type 0 with no segments left (a router passes it on unread).
    "dst-trunc" claims 16 bytes and is the last thing in the packet, so
    that the headers cannot be walked."""
    if name == "rt0":
        return struct.pack("!BBBB4x", nxt, 0, 0, 0)
    return struct.pack("!BBBB4x", nxt, 1 if name == "dst-trunc" else 0,
                       1, 4)


class Pkt6(Pkt):
    """One IPv6 packet: the fixed header, extension headers (names of
    EXT_CODES, in order), a fragment header when fragh or frag or mf
    (frag_next overrides its next header), then l4 of protocol proto."""

    family = 6

    def __init__(self, iface, src, dst, proto, l4=b"", ttl=64, tos=0,
                 frag=0, mf=False, kind="probe", note="", smac=None,
                 exts=(), fragh=False, frag_next=None):
        super().__init__(iface, src, dst, proto, l4, ttl, tos, frag, mf,
                         kind, note, smac)
        self.exts = list(exts)
        self.fragh = fragh
        self.frag_next = frag_next

    def has_fragh(self):
        return self.fragh or self.frag or self.mf

    def headers(self):
        """The bytes between the fixed header and l4, and the first
        next-header value."""
        chain = [EXT_CODES[e] for e in self.exts]
        if self.has_fragh():
            chain.append(EXT_FRAG)
        nexts = chain[1:] + [self.proto]
        out = b""
        for i, e in enumerate(self.exts):
            if e == "dst-trunc":
                return out + ext_hdr(e, nexts[i]), chain[0]
            out += ext_hdr(e, nexts[i])
        if self.has_fragh():
            nxt = self.proto if self.frag_next is None else self.frag_next
            out += struct.pack("!BBHI", nxt, 0, (self.frag & 0x1FFF) << 3 |
                               (1 if self.mf else 0), self.ident)
        return out, chain[0] if chain else self.proto

    @property
    def length(self):
        l4 = b"" if "dst-trunc" in self.exts else self.l4
        return 40 + len(self.headers()[0]) + len(l4)

    def build(self, ident):
        self.ident = ident
        ext, nxt = self.headers()
        l4 = b"" if "dst-trunc" in self.exts else self.l4
        hdr = struct.pack("!IHBB", 6 << 28 | self.tos << 20 |
                          (ident & 0xFFFFF), len(ext) + len(l4), nxt,
                          self.ttl + 1)
        return hdr + self.src.to_bytes(16, "big") + \
            self.dst.to_bytes(16, "big") + ext + l4

    def walkable(self):
        """Whether ipv6_find_hdr() finds the upper layer (or a later
        fragment's protocol): ip6tables hotdrops in any rule with -p if
        not, nf-hipac drops in any case (kernel/hooks.c)."""
        if "dst-trunc" in self.exts:
            return False
        return not (self.frag and self.frag_next is not None and
                    self.frag_next in EXT_CODES.values())

    def hotdrop(self):
        """Why ip6tables would drop this packet outright (ip6_tables.c
        ip6_packet_match, xt_tcpudp.c, icmp6_match), or None."""
        if not self.walkable():
            return "headers cannot be walked (ip6_packet_match hotdrops " \
                "in a rule with -p)"
        if self.frag:
            return None
        need = {TCP: 20, UDP: 8, ICMP6: 8}.get(self.proto)
        if need and len(self.l4) < need:
            return "transport header shorter than %d bytes (hotdrop)" % need
        return None

    def describe(self):
        mark = MARKS[(self.tos >> 2) & 15]
        s = "flow=%d in=%s %s -> %s proto=%d hl=%d len=%d mark=0x%x" % (
            self.ident, IFACES[self.iface], fmt6(self.src), fmt6(self.dst),
            self.proto, self.ttl, self.length, mark)
        if self.smac:
            s += " smac=%s" % self.smac
        if self.tos & 3 == 1:
            s += " notrack"
        if self.exts:
            s += " ext=%s" % ",".join(self.exts)
        if self.has_fragh():
            s += " frag=%d%s" % (self.frag, "+MF" if self.mf else "")
            if self.frag_next is not None:
                s += " frag-next=%d" % self.frag_next
        if not self.frag and self.walkable():
            s += l4_describe(self.proto, self.l4)
        s += " [%s%s]" % (self.kind, " " + self.note if self.note else "")
        return s


def parse_key6(l3):
    """(flow label, src, dst) of an IPv6 packet, or None."""
    if len(l3) < 40 or l3[0] >> 4 != 6:
        return None
    flow = struct.unpack("!I", l3[0:4])[0] & 0xFFFFF
    return (flow, int.from_bytes(l3[8:24], "big"),
            int.from_bytes(l3[24:40], "big"))


def parse_key(l3):
    """(ident, src, dst) of an IPv4 datagram, or None."""
    if len(l3) < 20 or l3[0] >> 4 != 4:
        return None
    ident = struct.unpack("!H", l3[4:6])[0]
    src, dst = struct.unpack("!II", l3[12:20])
    return ident, src, dst
