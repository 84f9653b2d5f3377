/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: what the open-addressing hashes of sets share (set_hash.c,
 * set_flow_hash.c): the hash, the probe step and the sizing.
 *
 * A table's index is a hash scaled to its slots, which need not be a
 * power of two: a table fills the power of two bytes that kmalloc
 * would hand out for it anyway.  Probing is linear.
 */
#ifndef _NFHP_SET_HASH_PRIV_H
#define _NFHP_SET_HASH_PRIV_H

#include <linux/log2.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/types.h>

#include "set_algo.h"

/* The fewest slots of a table, whatever it holds. */
#define NFHP_HASH_MIN_SLOTS	16u

/**
 * nfhp_hash_scale() - the slot of a hash
 * @x: the hash, 64 bits
 * @nslots: the slots of the table
 *
 * Return: the top 32 bits of @x, scaled to [0, @nslots).
 */
static inline u32 nfhp_hash_scale(u64 x, u32 nslots)
{
	return (u32)(((x >> 32) * nslots) >> 32);
}

/**
 * nfhp_hash_mix128() - hash 128 bits of key with a table's seed
 * @seed: the seed
 * @hi: the top 64 bits
 * @lo: the bottom 64 bits
 *
 * Return: the hash, for nfhp_hash_scale().
 */
static inline u64 nfhp_hash_mix128(u64 seed, u64 hi, u64 lo)
{
	u64 x = ((hi ^ seed) * 0x9e3779b97f4a7c15ull) ^ lo;

	x *= 0xc2b2ae3d27d4eb4full;
	x ^= x >> 29;
	return x;
}

/**
 * nfhp_hash_step() - the slot a probe reads after @i
 * @nslots: the slots of the table
 * @i: a slot
 *
 * Return: @i + 1, or the first slot after the last.
 */
static inline u32 nfhp_hash_step(u32 nslots, u32 i)
{
	return i + 1 < nslots ? i + 1 : 0;
}

/**
 * nfhp_hash_seed() - a new table's seed
 *
 * Return: 64 random bits.
 */
static inline u64 nfhp_hash_seed(void)
{
	return (u64)get_random_u32() << 32 | get_random_u32();
}

/**
 * nfhp_hash_slots() - the slots of a table for @keys keys
 * @head: the bytes of the table's header
 * @slot: the bytes of a slot
 * @keys: the keys it is to hold
 *
 * At a quarter to a half full, as many slots as fill the power of two
 * bytes the table takes with its header and nfhp_set_block_alloc()'s.
 *
 * Return: the number of slots.
 */
static inline u32 nfhp_hash_slots(size_t head, size_t slot, u32 keys)
{
	u64 want = max_t(u64, NFHP_HASH_MIN_SLOTS, 2 * (u64)keys + 2);

	head += sizeof(struct nfhp_set_retired);
	return (roundup_pow_of_two(head + want * slot) - head) / slot;
}

/**
 * nfhp_hash_full() - must a table grow before it takes one more key?
 * @used: its slots that are not empty, keys and tombstones
 * @nslots: its slots
 *
 * Return: true when one more would fill more than three quarters.
 */
static inline bool nfhp_hash_full(u32 used, u32 nslots)
{
	return (u64)used + 1 > (u64)nslots * 3 / 4;
}

/**
 * nfhp_hash_sparse() - should a table shrink?
 * @count: its keys
 * @nslots: its slots
 *
 * Return: true when the keys fill less than a sixteenth of a table
 * larger than the least.
 */
static inline bool nfhp_hash_sparse(u32 count, u32 nslots)
{
	return nslots > NFHP_HASH_MIN_SLOTS && count < nslots / 16;
}

#endif /* _NFHP_SET_HASH_PRIV_H */
