// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets of numbers below 65536, in a bitmap.
 *
 * DOC: Theory of Operation
 *
 * The "bitmap" algorithm of the number type holds ports, as ipset's
 * bitmap:port does: each number from 0 to 65535 is in the set or not,
 * one bit of a 8 KiB map, and has a value.  A lookup reads the word of
 * its bit and, for a hit, the value: one or two cache lines, whatever
 * the set holds.
 *
 * Values live in chunks of 256, allocated the first time one of their
 * numbers takes a value other than 0; a number whose chunk is absent has
 * the value 0.  Most port sets have no values, and cost the map and the
 * chunks' pointers alone (10 KiB).
 *
 * An entry is one number.  An add or a remove of a range [lo, hi] is one
 * of each of its numbers, all or none: an add without update where any
 * is in the set already changes nothing (%NFHP_SET_EXISTS), as a remove
 * where any is missing (%NFHP_SET_NOT_FOUND).  The chunks an add needs
 * are allocated first, so that running out of memory changes nothing.
 * The limit counts numbers: an add of a range passes it if the numbers
 * it adds would.
 *
 * Nothing is ever moved, so a writer retires nothing: it writes the
 * values of the numbers it adds, then (after a write barrier) their
 * bits, one word at a time with WRITE_ONCE(); a lookup reads the bit,
 * then (after a read barrier) the value.  A value that changes under a
 * lookup is seen old or new, one word.  A remove clears bits and leaves
 * the values, which the next add of the number writes first.
 *
 * Example: "add 80-81 value 7" allocates chunk 0, writes 7 to its
 * values 80 and 81, then sets bits 80 and 81 of word 1.  A lookup of 81
 * reads word 1, sees bit 17, and reads 7; one of 82 reads word 1 only.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>

#include "set_algo.h"

#define NFHP_BITMAP_KEYS	65536u
#define NFHP_BITMAP_WORDS	(NFHP_BITMAP_KEYS / 64)
#define NFHP_BITMAP_CHUNK	256u
#define NFHP_BITMAP_CHUNKS	(NFHP_BITMAP_KEYS / NFHP_BITMAP_CHUNK)

/**
 * struct nfhp_bitmap - one set's numbers
 * @present: bit k of word k / 64 is set when number k is in the set
 * @values: the values of numbers k to k + 255 at index k / 256, or NULL
 *	while all of them are 0
 * @count: the numbers in the set
 */
struct nfhp_bitmap {
	u64 present[NFHP_BITMAP_WORDS];
	u32 __rcu *values[NFHP_BITMAP_CHUNKS];
	u32 count;
};

/**
 * nfhp_bitmap_key_ok() - is @key a range of ports?
 * @key: the key of an add, a delete or a find
 *
 * Return: true when it is a range whose last number is below 65536.
 */
static bool nfhp_bitmap_key_ok(const struct nfhp_set_key *key)
{
	return nfhp_set_num_key_ok(key) && key->hi < NFHP_BITMAP_KEYS;
}

/**
 * nfhp_bitmap_has() - is a number in the set?
 * @b: the set
 * @k: the number, below 65536
 *
 * Return: its bit.
 */
static bool nfhp_bitmap_has(const struct nfhp_bitmap *b, u32 k)
{
	return READ_ONCE(b->present[k / 64]) >> (k % 64) & 1;
}

/**
 * nfhp_bitmap_count_in() - how many numbers of a range are in the set
 * @b: the set
 * @lo: the first number, below 65536
 * @hi: the last, @lo or more, below 65536
 *
 * Return: how many.
 */
static u32 nfhp_bitmap_count_in(const struct nfhp_bitmap *b, u32 lo, u32 hi)
{
	u32 k, n = 0;

	for (k = lo; k <= hi; k++)
		n += nfhp_bitmap_has(b, k);
	return n;
}

/**
 * nfhp_bitmap_mark() - set or clear the bits of a range
 * @b: the set, its writer's
 * @lo: the first number
 * @hi: the last
 * @on: set them, else clear them
 *
 * Each word is written whole, so a lookup sees it before or after.
 */
static void nfhp_bitmap_mark(struct nfhp_bitmap *b, u32 lo, u32 hi, bool on)
{
	u32 k;

	for (k = lo; k <= hi; k++) {
		u64 w = b->present[k / 64], bit = 1ull << (k % 64);

		WRITE_ONCE(b->present[k / 64], on ? w | bit : w & ~bit);
	}
}

/**
 * nfhp_bitmap_value() - the value of a number
 * @b: the set
 * @k: the number, below 65536
 *
 * Return: the value in its chunk, 0 without a chunk.
 */
static u32 nfhp_bitmap_value(const struct nfhp_bitmap *b, u32 k)
{
	const u32 *chunk = rcu_dereference(b->values[k / NFHP_BITMAP_CHUNK]);

	return chunk ? READ_ONCE(chunk[k % NFHP_BITMAP_CHUNK]) : 0;
}

/**
 * nfhp_bitmap_lookup() - the packet path: is a port in the set?
 * @priv: the set
 * @key: the port, in the low bits of @key->addr
 * @value: set to its value
 *
 * Under rcu_read_lock().  Numbers from 65536 on are in no bitmap.
 *
 * Return: true if the port is in the set.
 */
static bool nfhp_bitmap_lookup(const void *priv,
			       const struct nfhp_set_key *key, u32 *value)
{
	const struct nfhp_bitmap *b = priv;
	u32 k = nfhp_set_key_num(key);

	if (k >= NFHP_BITMAP_KEYS || !nfhp_bitmap_has(b, k))
		return false;
	/* Pairs with the write barrier of nfhp_bitmap_add(). */
	smp_rmb();
	*value = nfhp_bitmap_value(b, k);
	return true;
}

/**
 * nfhp_bitmap_find() - is every number of a range in the set?
 * @priv: the set
 * @key: the range
 * @value: set to the value of its first number
 *
 * What a test of a range asks, and the limit.
 *
 * Return: true if all of them are.
 */
static bool nfhp_bitmap_find(const void *priv, const struct nfhp_set_key *key,
			     u32 *value)
{
	const struct nfhp_bitmap *b = priv;
	u32 lo = nfhp_set_key_num(key);

	if (!nfhp_bitmap_key_ok(key) ||
	    nfhp_bitmap_count_in(b, lo, key->hi) != key->hi - lo + 1)
		return false;
	/* Pairs with the write barrier of nfhp_bitmap_add(). */
	smp_rmb();
	*value = nfhp_bitmap_value(b, lo);
	return true;
}

/**
 * nfhp_bitmap_create() - an empty set of ports
 * @ctx: the writer's context
 * @family: unused: ports serve both families
 * @hint: unused: the map has a fixed size
 *
 * Return: the set, or NULL when out of memory.
 */
static void *nfhp_bitmap_create(struct nfhp_set_ctx *ctx, u8 family, u32 hint)
{
	return nfhp_alloc(ctx->mem, sizeof(struct nfhp_bitmap));
}

/**
 * nfhp_bitmap_destroy() - free a set no lookup can see any more
 * @ctx: the writer's context
 * @priv: the set
 */
static void nfhp_bitmap_destroy(struct nfhp_set_ctx *ctx, void *priv)
{
	struct nfhp_bitmap *b = priv;
	unsigned int i;

	for (i = 0; i < NFHP_BITMAP_CHUNKS; i++)
		nfhp_free(ctx->mem, rcu_dereference_protected(b->values[i], 1),
			  NFHP_BITMAP_CHUNK * sizeof(u32));
	nfhp_free(ctx->mem, b, sizeof(*b));
}

/**
 * nfhp_bitmap_chunks() - the value chunks of a range, allocated
 * @ctx: the writer's context
 * @b: the set
 * @lo: the first number of the range
 * @hi: the last
 *
 * A chunk allocated here holds 0s and is published at once: a number
 * without a chunk has the value 0 as well.
 *
 * Return: 0, or -ENOMEM with the chunks allocated so far left in place.
 */
static int nfhp_bitmap_chunks(struct nfhp_set_ctx *ctx, struct nfhp_bitmap *b,
			      u32 lo, u32 hi)
{
	u32 i;
	u32 *chunk;

	for (i = lo / NFHP_BITMAP_CHUNK; i <= hi / NFHP_BITMAP_CHUNK; i++) {
		if (rcu_access_pointer(b->values[i]))
			continue;
		chunk = nfhp_alloc(ctx->mem, NFHP_BITMAP_CHUNK * sizeof(u32));
		if (!chunk)
			return -ENOMEM;
		rcu_assign_pointer(b->values[i], chunk);
	}
	return 0;
}

/**
 * nfhp_bitmap_add() - add each number of a range
 * @ctx: the writer's context
 * @priv: the set
 * @key: the range
 * @value: the value of its numbers
 * @update: give numbers already there @value too
 *
 * All or none: without @update a range with a number there already
 * changes nothing.
 *
 * Return: %NFHP_SET_ADDED when a number was new, %NFHP_SET_UPDATED when
 * all were there, %NFHP_SET_EXISTS, -EINVAL for a number from 65536 on,
 * or -ENOMEM with the set unchanged.
 */
static int nfhp_bitmap_add(struct nfhp_set_ctx *ctx, void *priv,
			   const struct nfhp_set_key *key, u32 value,
			   bool update)
{
	struct nfhp_bitmap *b = priv;
	u32 lo = nfhp_set_key_num(key), k, had;
	u32 *chunk;

	if (!nfhp_bitmap_key_ok(key))
		return -EINVAL;
	had = nfhp_bitmap_count_in(b, lo, key->hi);
	if (had && !update)
		return NFHP_SET_EXISTS;
	if (value && nfhp_bitmap_chunks(ctx, b, lo, key->hi))
		return -ENOMEM;
	for (k = lo; k <= key->hi; k++) {
		chunk = rcu_dereference_protected(b->values[k / NFHP_BITMAP_CHUNK],
						  nfhp_set_writing(ctx));
		if (chunk)
			WRITE_ONCE(chunk[k % NFHP_BITMAP_CHUNK], value);
	}
	/* The values before the bits: see nfhp_bitmap_lookup(). */
	smp_wmb();
	nfhp_bitmap_mark(b, lo, key->hi, true);
	b->count += key->hi - lo + 1 - had;
	return had == key->hi - lo + 1 ? NFHP_SET_UPDATED : NFHP_SET_ADDED;
}

/**
 * nfhp_bitmap_del() - delete each number of a range
 * @ctx: the writer's context
 * @priv: the set
 * @key: the range
 *
 * Return: %NFHP_SET_DELETED, %NFHP_SET_NOT_FOUND (and nothing deleted)
 * when a number of it is not there, or -EINVAL.
 */
static int nfhp_bitmap_del(struct nfhp_set_ctx *ctx, void *priv,
			   const struct nfhp_set_key *key)
{
	struct nfhp_bitmap *b = priv;
	u32 lo = nfhp_set_key_num(key);

	if (!nfhp_bitmap_key_ok(key))
		return -EINVAL;
	if (nfhp_bitmap_count_in(b, lo, key->hi) != key->hi - lo + 1)
		return NFHP_SET_NOT_FOUND;
	nfhp_bitmap_mark(b, lo, key->hi, false);
	b->count -= key->hi - lo + 1;
	return NFHP_SET_DELETED;
}

/**
 * nfhp_bitmap_walk() - call @fn for each number from *@cursor on
 * @priv: the set
 * @cursor: the next number to look at
 * @fn: as &struct nfhp_set_algo.walk's
 * @arg: its first argument
 *
 * Return: what @fn returned to stop the walk, or 0 at the end.
 */
static int nfhp_bitmap_walk(const void *priv, u64 *cursor,
			    int (*fn)(void *arg, const struct nfhp_set_key *key,
				      u32 value),
			    void *arg)
{
	const struct nfhp_bitmap *b = priv;
	struct nfhp_set_key key = {};
	u32 value;
	int err;

	for (; *cursor < NFHP_BITMAP_KEYS; ++*cursor) {
		/* A word with no bit: on to the next one. */
		if (!(*cursor % 64) && !READ_ONCE(b->present[*cursor / 64])) {
			*cursor += 63;
			continue;
		}
		key.addr = *cursor;
		key.hi = *cursor;
		if (!nfhp_bitmap_lookup(b, &key, &value))
			continue;
		err = fn(arg, &key, value);
		if (err) {
			*cursor += err > 0;
			return err;
		}
	}
	return 0;
}

/**
 * nfhp_bitmap_count() - the numbers in the set
 * @priv: the set
 *
 * Return: how many.
 */
static u32 nfhp_bitmap_count(const void *priv)
{
	const struct nfhp_bitmap *b = priv;

	return b->count;
}

/**
 * nfhp_bitmap_fresh() - what an add of a range would add
 * @priv: the set
 * @key: the range
 *
 * Return: the numbers of @key not in the set, 0 for a bad range.
 */
static u32 nfhp_bitmap_fresh(const void *priv, const struct nfhp_set_key *key)
{
	u32 lo = nfhp_set_key_num(key);

	if (!nfhp_bitmap_key_ok(key))
		return 0;
	return key->hi - lo + 1 - nfhp_bitmap_count_in(priv, lo, key->hi);
}

const struct nfhp_set_algo nfhp_set_num_bitmap = {
	.name = "bitmap",
	.type = NFHP_SET_NUMBER,
	.create = nfhp_bitmap_create,
	.destroy = nfhp_bitmap_destroy,
	.add = nfhp_bitmap_add,
	.del = nfhp_bitmap_del,
	.lookup = nfhp_bitmap_lookup,
	.find = nfhp_bitmap_find,
	.walk = nfhp_bitmap_walk,
	.count = nfhp_bitmap_count,
	.fresh = nfhp_bitmap_fresh,
};
