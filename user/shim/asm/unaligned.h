/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NFHP_SHIM_ASM_UNALIGNED_H
#define _NFHP_SHIM_ASM_UNALIGNED_H

#include "../shim.h"

static inline u64 get_unaligned_be64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

#endif
