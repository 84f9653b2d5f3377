/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the keys of interface sets, shared by the module and its
 * tools.
 *
 * DOC: Interface sets
 *
 * An interface set (%NFHP_SET_IFACE, "hash:iface" to nf-hipac-set) holds
 * interface names, each exact ("eth0") or a wildcard ("eth+": every name
 * that starts with "eth", "eth" itself included, as iptables' -i takes
 * it; "+" alone: every interface).  A rule's "src" looks up the packet's
 * input device, "dst" its output device, by name: an entry holds for a
 * device created, or renamed, after it was added.
 *
 * A name is a &struct nfhp_set_key the way the tree's interface
 * dimension reads names (nfhp_ifname_value() in key.h): its 16 bytes as
 * a big-endian number, NUL-padded.  An exact name has plen 128; a
 * wildcard of L characters is the prefix of its first L bytes, plen 8L.
 * The names a wildcard holds are then exactly the numbers of its prefix,
 * so a lookup is a longest prefix match over 128 bits whose prefix
 * lengths are multiples of 8, and both algorithms reuse an address set's:
 *
 *   "hash" (set_iface_hash.c): one hash of hosts (set_hash.c) per length
 *          present; a lookup probes the exact name, then the name cut to
 *          each wildcard length present, longest first.
 *   "lpm"  (set_iface_lpm.c): the names in an IPv6-wide "lpm" set
 *          (set_lpm.c), one binary search of a slot's intervals.
 *
 * Example: a set of "eth+" => 1, "eth1+" => 2 and "eth10" => 3.  Its keys
 * are 0x657468 << 104 /24, 0x65746831 << 96 /32 and
 * 0x6574683130 << 88 /128.  A packet in on eth10 gets 3, one in on eth12
 * gets 2 (eth1+), one in on eth2 or eth gets 1, and one in on ppp0 is
 * not in the set.  "hash" finds eth12 with three probes: /128 misses,
 * /32 hits; "lpm" with one search.
 */
#ifndef _NFHP_SET_IFACE_H
#define _NFHP_SET_IFACE_H

#include "key.h"

/* The longest name, its NUL excluded (IFNAMSIZ - 1). */
#define NFHP_IFACE_MAXLEN	(NFHP_IFNAME_LEN - 1)

/**
 * nfhp_iface_mask() - the bits of a name's first bytes
 * @len: how many bytes, 0 to %NFHP_IFNAME_LEN
 *
 * Return: a 128-bit mask of the @len most significant bytes.
 */
static inline nfhp_u128 nfhp_iface_mask(unsigned int len)
{
	if (!len)
		return 0;
	return ~(nfhp_u128)0 << (128 - 8 * len);
}

/**
 * nfhp_iface_len() - how many bytes of a name's key are not NUL
 * @v: the key's number
 *
 * Return: the bytes before the first NUL, 0 to %NFHP_IFNAME_LEN.
 */
static inline unsigned int nfhp_iface_len(nfhp_u128 v)
{
	unsigned int n = 0;

	while (n < NFHP_IFNAME_LEN && (u8)(v >> (120 - 8 * n)))
		n++;
	return n;
}

/**
 * nfhp_iface_key_ok() - is a key a name or a wildcard?
 * @v: the key's number
 * @plen: its prefix length: 128 for a name
 *
 * A name has 1 to %NFHP_IFACE_MAXLEN bytes, none NUL, then NULs; a
 * wildcard 0 to %NFHP_IFACE_MAXLEN - 1 bytes (room for its "+"), none
 * NUL, and nothing below its prefix.
 *
 * Return: true when it is one.
 */
static inline bool nfhp_iface_key_ok(nfhp_u128 v, unsigned int plen)
{
	unsigned int len = nfhp_iface_len(v);

	if (v & ~nfhp_iface_mask(len))
		return false;
	if (plen == 128)
		return len && len <= NFHP_IFACE_MAXLEN;
	return plen % 8 == 0 && len == plen / 8 && len < NFHP_IFACE_MAXLEN;
}

/**
 * nfhp_iface_key_parse() - the key of a name as iptables writes it
 * @s: "eth0", "eth+" or "+", NUL-terminated
 * @v: set to the key's number
 * @plen: set to its prefix length
 *
 * Return: false when @s is empty or longer than %NFHP_IFACE_MAXLEN.
 */
static inline bool nfhp_iface_key_parse(const char *s, nfhp_u128 *v,
					u8 *plen)
{
	unsigned int len = 0;

	while (len <= NFHP_IFACE_MAXLEN && s[len])
		len++;
	if (!len || len > NFHP_IFACE_MAXLEN)
		return false;
	*v = nfhp_ifname_value(s, 0);
	*plen = 128;
	if (s[len - 1] == '+') {
		*v &= nfhp_iface_mask(len - 1);
		*plen = 8 * (len - 1);
	}
	return true;
}

/**
 * nfhp_iface_key_str() - a name's key as iptables writes it
 * @v: the number of a key nfhp_iface_key_ok() takes
 * @plen: its prefix length
 * @buf: the text, %NFHP_IFNAME_LEN bytes or more: "eth0", "eth+"
 */
static inline void nfhp_iface_key_str(nfhp_u128 v, unsigned int plen,
				      char *buf)
{
	unsigned int i, len = nfhp_iface_len(v);

	for (i = 0; i < len; i++)
		buf[i] = (char)(v >> (120 - 8 * i));
	if (plen < 128)
		buf[len++] = '+';
	buf[len] = '\0';
}

#endif /* _NFHP_SET_IFACE_H */
