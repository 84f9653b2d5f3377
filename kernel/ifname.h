/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: a device's name as the packet path reads it.
 *
 * Rules turn names into values bytewise (nfhp_ifname_value() in key.h);
 * every packet reads two names, so the hooks read each in two words.
 */
#ifndef _NFHP_IFNAME_H
#define _NFHP_IFNAME_H

#include <asm/unaligned.h>

#include "key.h"

/**
 * nfhp_ifname_value16() - nfhp_ifname_value(@name, 0) of a device's name
 * @name: NFHP_IFNAME_LEN bytes that hold a NUL-terminated name
 *
 * The packet path's version, two words where nfhp_ifname_value() takes 16
 * steps a name.  The bytes after the NUL may be left from a longer name
 * the device had before a rename, so they are cleared, not trusted.
 *
 * Return: the 128-bit value.
 */
static inline nfhp_u128 nfhp_ifname_value16(const char *name)
{
	const u64 w7 = 0x7f7f7f7f7f7f7f7full;
	const nfhp_u128 low7 = (nfhp_u128)w7 << 64 | w7;
	nfhp_u128 v, zero;
	u64 hi;

	v = (nfhp_u128)get_unaligned_be64(name) << 64 |
	    get_unaligned_be64(name + 8);
	/* Bit 7 of each zero byte: (b & 0x7f) + 0x7f carries no further. */
	zero = ~(((v & low7) + low7) | v | low7);
	if (!zero)
		return v;
	hi = zero >> 64;
	/* Clear the first zero byte, the most significant, and all after. */
	return v & ~(~(nfhp_u128)0 >> (hi ? __builtin_clzll(hi) :
					 64 + __builtin_clzll((u64)zero)));
}

#endif /* _NFHP_IFNAME_H */
