/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The random numbers of the set tests: xorshift64, seeded by the test
 * through rng_state (never 0), so that a seed replays a run.
 */
#ifndef _NFHP_XORSHIFT_H
#define _NFHP_XORSHIFT_H

#include <stdint.h>

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

#endif /* _NFHP_XORSHIFT_H */
