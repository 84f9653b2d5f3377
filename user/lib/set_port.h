/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the "proto:port" part of a flow set's element, as ipset's
 * hash:ip,port and hash:net,port write it ("tcp:80", "udp:53-55",
 * "icmp:echo-request", "gre:0", "80"), and back; and a bitmap:port
 * set's "[tcp|udp:]PORT[-PORT]".
 */
#ifndef _NFHP_SET_PORT_H
#define _NFHP_SET_PORT_H

#include "key.h"
#include <stdbool.h>
#include <stddef.h>

/**
 * struct nfhp_set_port - what a "proto:port" stands for
 * @proto: the protocol, IPPROTO_*
 * @lo: the first port, or ICMP's type << 8 | code
 * @hi: the last port, @lo for one
 */
struct nfhp_set_port {
	u8 proto;
	u16 lo;
	u16 hi;
};

/*
 * "[PROTO:]PORT[-PORT]" of a set of @family into @p: TCP without a
 * protocol, as ipset; ports by number (C's way: "0x50", "010") or service
 * name, one with a '-' in brackets where it begins a range
 * ("[ftp-data]-ftp"); ICMP and ICMPv6 by codename or TYPE/CODE; other
 * protocols with port 0 only.  Return: 0, or -EINVAL with ipset's
 * message in @err.
 */
int nfhp_set_parse_port(const char *s, u8 family, struct nfhp_set_port *p,
			char *err, size_t errlen);

/*
 * "[PROTO:]FROM[-TO]" of a bitmap:port set into @lo and @hi, as written:
 * PROTO tcp (without one) or udp; numbers up to @max or service names of
 * PROTO.  Return: 0, or -EINVAL with ipset's message in @err.
 */
int nfhp_set_parse_tcp_udp_port(const char *s, u32 max, u32 *lo, u32 *hi,
				char *err, size_t errlen);

/* "tcp:80", "icmp:echo-request", "gre:0": as ipset prints them. */
void nfhp_set_port_str(char *buf, size_t len, u8 proto, u16 port);

#endif /* _NFHP_SET_PORT_H */
