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
 * @v: the value of each dimension, indexed by &enum nfhp_dim
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

/**
 * nfhp_dim_bits() - width of a dimension in bits
 * @dim: the dimension
 *
 * Return: 128 for the interface dimensions, 32 for the others.
 */
static inline unsigned int nfhp_dim_bits(enum nfhp_dim dim)
{
	return dim == NFHP_DIM_IIF || dim == NFHP_DIM_OIF ? 128 : 32;
}

/**
 * nfhp_dim_max() - the largest value of a dimension
 * @dim: the dimension
 *
 * Return: the inclusive upper end of the dimension's value space.
 */
static inline nfhp_u128 nfhp_dim_max(enum nfhp_dim dim)
{
	if (nfhp_dim_bits(dim) == 128)
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
