/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the packet key and the dimensions of the classifier.
 *
 * Every native match of a rule is a set of closed intervals over one
 * dimension.  A packet is a point: one value per dimension.  All values are
 * held as 128-bit unsigned integers so that the same tree code serves 32-bit
 * dimensions (IPv4 addresses, ports, marks) and 128-bit ones (interface
 * names today, IPv6 addresses later) without a rewrite.
 */
#ifndef _NFHP_KEY_H
#define _NFHP_KEY_H

#include <linux/types.h>
#include <linux/nf_hipac.h>

/*
 * kmalloc() only guarantees 8-byte alignment, so the 128-bit value type is
 * declared with that alignment; the compiler then never assumes more.
 */
typedef unsigned __int128 nfhp_u128 __aligned(8);

/* The interface name significant bytes: IFNAMSIZ less the terminating NUL. */
#define NFHP_IFNAME_LEN 16

/**
 * struct nfhp_key - one packet, as the classifier sees it
 * @v: the value of each dimension, indexed by &enum nfhp_dim; that of
 *	%NFHP_DIM_PROTO with the destination port (nfhp_key_fold_port())
 */
struct nfhp_key {
	nfhp_u128 v[NFHP_DIM_MAX];
};

/*
 * A non-first fragment has no transport header.  Its ports, TCP flags and
 * ICMP type take this value, above every value a rule can name, so that no
 * port, flag or ICMP match can match it, negated or not, exactly as in
 * iptables, without a fragment dimension in the tree.
 */
#define NFHP_L4_FRAGMENT	0x10000u

/**
 * nfhp_key_set_fragment() - mark a key as a non-first fragment
 * @key: the key
 *
 * Every producer of keys (the hooks, the simulator) calls this for
 * non-first fragments.
 */
static inline void nfhp_key_set_fragment(struct nfhp_key *key)
{
	key->v[NFHP_DIM_FRAG] = 1;
	key->v[NFHP_DIM_SPORT] = NFHP_L4_FRAGMENT;
	key->v[NFHP_DIM_DPORT] = NFHP_L4_FRAGMENT;
	key->v[NFHP_DIM_TCPFLAGS] = NFHP_L4_FRAGMENT;
	key->v[NFHP_DIM_ICMP] = NFHP_L4_FRAGMENT;
}

/*
 * iptables' tcp, udp and icmp matches drop a packet on the spot
 * ("hotdrop": no verdict of a rule, no counter) when it is too short to
 * hold the header they read, and the tcp match also drops a TCP fragment
 * at offset 8 bytes, which could rewrite the flags of the first fragment.
 * The multiport match does the same when the ports cannot be read.  Such
 * packets carry values above %NFHP_L4_FRAGMENT in their transport
 * dimensions, which no rule of the tcp, udp or icmp match can match:
 *
 *   %NFHP_L4_TRUNCATED    the field is not in the packet
 *   %NFHP_L4_EVIL_FRAG    ports and flags of a TCP fragment at offset 8
 *   %NFHP_L4_SHORT + port the ports are there, but not all of the header
 *                         the protocol's match reads
 *
 * Multiport rules match the %NFHP_L4_SHORT values of their ports too.
 * Flattening puts before each rule with such a match an entry that drops
 * what the match would (nfhp_hotdrop_plan() in match.c).  Where a hook's
 * entries are grouped, these hotdrop entries have trees of their own,
 * which only keys that nfhp_key_hot() finds visit.
 */
#define NFHP_L4_TRUNCATED	0x10001u
#define NFHP_L4_EVIL_FRAG	0x10002u
#define NFHP_L4_SHORT		0x20000u

/* The transport header iptables' match of @proto reads, in bytes, or 0. */
static inline unsigned int nfhp_l4_header_len(u8 proto)
{
	switch (proto) {
	case 6:		/* IPPROTO_TCP: struct tcphdr */
		return 20;
	case 17:	/* IPPROTO_UDP: struct udphdr */
	case 1:		/* IPPROTO_ICMP: struct icmphdr */
	case 58:	/* IPPROTO_ICMPV6: struct icmp6hdr */
		return 8;
	default:
		return 0;
	}
}

/*
 * Boxes, trees and the keys they are asked about hold the protocol and
 * the destination port as one dimension, %NFHP_DIM_PROTO: the protocol
 * shifted left by this, or'ed with the destination port's value, marks
 * included.  A rule for one protocol and some ports is then one interval
 * per port range there, and a lookup decides both in one node (match.c,
 * "Protocol and port").
 */
#define NFHP_PROTO_SHIFT	18
#define NFHP_PORT_MASK		((1u << NFHP_PROTO_SHIFT) - 1)

/* The protocol-port value of protocol @proto and port value @port. */
static inline u32 nfhp_proto_port(u32 proto, u32 port)
{
	return proto << NFHP_PROTO_SHIFT | port;
}

/**
 * nfhp_key_fold_port() - write the protocol-port value of a key
 * @key: the key, its destination port final (nfhp_key_set_l4_short())
 * @proto: the protocol
 *
 * Every producer of keys calls this last: nfhp_classify() and
 * nfhp_box_contains_key() read %NFHP_DIM_PROTO as it leaves it.
 */
static inline void nfhp_key_fold_port(struct nfhp_key *key, u8 proto)
{
	key->v[NFHP_DIM_PROTO] = nfhp_proto_port(proto,
						 (u32)key->v[NFHP_DIM_DPORT]);
}

/**
 * nfhp_key_plain() - a dimension of a key as the packet has it
 * @key: the key, as nfhp_key_fold_port() left it
 * @dim: the dimension
 *
 * Return: the value; for %NFHP_DIM_PROTO the protocol alone.
 */
static inline nfhp_u128 nfhp_key_plain(const struct nfhp_key *key,
				       unsigned int dim)
{
	if (dim == NFHP_DIM_PROTO)
		return key->v[dim] >> NFHP_PROTO_SHIFT;
	return key->v[dim];
}

/* Does @proto have the ports of the port dimensions (and of multiport)? */
static inline bool nfhp_proto_has_ports(u8 proto)
{
	return proto == 6 || proto == 17 || proto == 33 || proto == 132 ||
	       proto == 136;	/* TCP, UDP, DCCP, SCTP, UDP-Lite */
}

/**
 * nfhp_key_set_l4_short() - mark the transport matches a packet defeats
 * @key: the key, its transport dimensions filled from what the packet holds
 * @proto: the IPv4 protocol, or for IPv6 the upper-layer protocol past
 *	the extension headers
 * @fragoff: the fragment offset, in units of 8 bytes for IPv4, in bytes
 *	for IPv6 (as xtables modules get it: never 1 there)
 * @l4len: the bytes of transport header present, for @fragoff 0
 *
 * Every producer of keys (the hooks, the simulator) calls this.
 */
static inline void nfhp_key_set_l4_short(struct nfhp_key *key, u8 proto,
					 unsigned int fragoff,
					 unsigned int l4len)
{
	unsigned int need = nfhp_l4_header_len(proto);

	if (fragoff) {
		nfhp_key_set_fragment(key);
		if (fragoff == 1 && proto == 6) {
			key->v[NFHP_DIM_SPORT] = NFHP_L4_EVIL_FRAG;
			key->v[NFHP_DIM_DPORT] = NFHP_L4_EVIL_FRAG;
			key->v[NFHP_DIM_TCPFLAGS] = NFHP_L4_EVIL_FRAG;
		}
		return;
	}
	if (nfhp_proto_has_ports(proto) && l4len < 4) {
		key->v[NFHP_DIM_SPORT] = NFHP_L4_TRUNCATED;
		key->v[NFHP_DIM_DPORT] = NFHP_L4_TRUNCATED;
	} else if (nfhp_proto_has_ports(proto) && l4len < need) {
		key->v[NFHP_DIM_SPORT] += NFHP_L4_SHORT;
		key->v[NFHP_DIM_DPORT] += NFHP_L4_SHORT;
	}
	if (l4len < need && proto == 6)
		key->v[NFHP_DIM_TCPFLAGS] = NFHP_L4_TRUNCATED;
	/* ICMPv6 is IPv6's ICMP: its type and code share the dimension. */
	if (l4len < need && (proto == 1 || proto == 58)) {
		key->v[NFHP_DIM_ICMP] = NFHP_L4_TRUNCATED;
		/*
		 * Nor are there ports to read, as for the protocols that
		 * have them; no rule iptables takes reads ICMP's, but
		 * nfhp_key_hot() reads the destination port alone.
		 */
		key->v[NFHP_DIM_SPORT] = NFHP_L4_TRUNCATED;
		key->v[NFHP_DIM_DPORT] = NFHP_L4_TRUNCATED;
	}
}

/**
 * nfhp_key_hot() - might a transport match drop the packet on the spot?
 * @key: the key, as nfhp_key_fold_port() left it
 *
 * The entries that drop what a transport match would (hotdrop entries,
 * see above) need a value at or above %NFHP_L4_TRUNCATED in a port, the
 * TCP flags or the ICMP type, and they live in trees that only such keys
 * visit (group.c, "Short headers").  nfhp_key_set_l4_short() marks the
 * destination port whenever it marks another of them, so its value within
 * %NFHP_DIM_PROTO tells, and a lookup reads no more of the key than the
 * trees do.
 *
 * Return: true when some hotdrop entry could hold @key.
 */
static inline bool nfhp_key_hot(const struct nfhp_key *key)
{
	return ((u32)key->v[NFHP_DIM_PROTO] & NFHP_PORT_MASK) >=
	       NFHP_L4_TRUNCATED;
}

/**
 * nfhp_dim_bits() - width of a dimension in bits
 * @family: the rule set's &enum nfhp_family
 * @dim: the dimension
 *
 * Return: 128 for the interface dimensions and for IPv6 addresses, 32 for
 * the others.
 */
static inline unsigned int nfhp_dim_bits(u8 family, enum nfhp_dim dim)
{
	switch (dim) {
	case NFHP_DIM_IIF:
	case NFHP_DIM_OIF:
		return 128;
	case NFHP_DIM_SRC:
	case NFHP_DIM_DST:
		return family == NFHP_FAMILY_IPV6 ? 128 : 32;
	default:
		return 32;
	}
}

/**
 * nfhp_dim_max() - the largest value of a dimension
 * @family: the rule set's &enum nfhp_family
 * @dim: the dimension
 *
 * Return: the inclusive upper end of the dimension's value space.
 */
static inline nfhp_u128 nfhp_dim_max(u8 family, enum nfhp_dim dim)
{
	if (nfhp_dim_bits(family, dim) == 128)
		return ~(nfhp_u128)0;
	return 0xffffffffu;
}

/**
 * nfhp_ifname_value() - the value of an interface name
 * @name: the name, NUL-terminated or NFHP_IFNAME_LEN bytes long
 * @fill: the byte used after the end of the name
 *
 * Names are compared as big-endian numbers of NFHP_IFNAME_LEN bytes, so the
 * names that start with a prefix form one interval: the prefix padded with
 * 0x00 up to the prefix padded with 0xff.  That is how the iptables
 * wildcard "eth+" becomes a native interval, and a packet's interface is
 * found without any table.  A packet without an interface has value 0.
 *
 * Return: the 128-bit value.
 */
static inline nfhp_u128 nfhp_ifname_value(const char *name, u8 fill)
{
	nfhp_u128 v = 0;
	unsigned int i;
	bool end = false;

	for (i = 0; i < NFHP_IFNAME_LEN; i++) {
		if (!end && !name[i])
			end = true;
		v = (v << 8) | (end ? fill : (u8)name[i]);
	}
	return v;
}

#endif /* _NFHP_KEY_H */
