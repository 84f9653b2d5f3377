/* SPDX-License-Identifier: GPL-2.0 */
#include "../shim.h"

/* Seeded the same in every run: a test's failures reproduce. */
extern u64 nfhp_shim_random_state;

static inline u32 get_random_u32(void)
{
	u64 x = nfhp_shim_random_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	nfhp_shim_random_state = x;
	return (u32)(x >> 16);
}
