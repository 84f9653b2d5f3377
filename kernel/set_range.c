// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets of number ranges, in a sorted array.
 *
 * DOC: Theory of Operation
 *
 * The "range" algorithm of the number type holds ranges [lo, hi] of u32
 * numbers, each with a value: port ranges, marks, uids.  The ranges do
 * not overlap; they sit in one array sorted by lo, and a lookup is a
 * binary search for the last range that begins at or below the number,
 * which holds it or none does: log2(n) + 1 reads of 12 bytes.
 *
 * An add of a range that overlaps an entry, other than the same range,
 * is refused with -EINVAL (%NFHP_SET_INVALID): the set never splits or
 * merges ranges behind the user's back, so what is listed is what was
 * added.  A remove names an entry exactly.
 *
 * Lookups read the array under RCU; the array has room beyond its
 * entries.  A range that goes after the last entry is written to the
 * first free slot, then the count is raised with a release: a lookup
 * reads the count with an acquire and never sees the new slot before it
 * is whole.  Any other add, and every remove, fills a new array, which
 * is published with rcu_assign_pointer(); the old one is retired
 * (set_gc.c).  A value changes in place, one word.  So sorted adds,
 * which a restore and a transaction's copy of the set make, cost one
 * slot each, and the others a copy of the array.
 *
 * Example: [80, 80] and [1000, 1999] are in slots 0 and 1 of 4.  "add
 * 3000-3999" fills slot 2 and raises the count to 3; "add 443" makes a
 * new array [80], [443], [1000, 1999], [3000, 3999]; "add 1500-2500"
 * overlaps [1000, 1999] and is refused.  A lookup of 1234 compares with
 * [1000, 1999] and [443], and finds 1000 <= 1234 <= 1999.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>

#include "set_algo.h"

#define NFHP_RANGE_MIN_SLOTS	8u

/**
 * struct nfhp_range_ent - one range
 * @lo: its first number
 * @hi: its last
 * @value: its value
 */
struct nfhp_range_ent {
	u32 lo;
	u32 hi;
	u32 value;
};

/**
 * struct nfhp_range_array - the ranges lookups read
 * @n: the ranges, in @e[0] to @e[@n - 1]; raised with a release
 * @nslots: the room in @e
 * @e: the ranges, sorted by @lo
 */
struct nfhp_range_array {
	u32 n;
	u32 nslots;
	struct nfhp_range_ent e[];
};

/**
 * struct nfhp_range - one set's ranges
 * @array: the ranges, replaced by a copy at most changes
 */
struct nfhp_range {
	struct nfhp_range_array __rcu *array;
};

/**
 * nfhp_range_array_new() - an empty array of ranges
 * @ctx: the writer's context
 * @slots: the room wanted, at least %NFHP_RANGE_MIN_SLOTS given
 *
 * Return: the array, retirable (set_gc.c), or NULL.
 */
static struct nfhp_range_array *nfhp_range_array_new(struct nfhp_set_ctx *ctx,
						     u32 slots)
{
	struct nfhp_range_array *a;

	slots = max(slots, NFHP_RANGE_MIN_SLOTS);
	a = nfhp_set_block_alloc(ctx, sizeof(*a) +
				 (size_t)slots * sizeof(a->e[0]));
	if (a)
		a->nslots = slots;
	return a;
}

/**
 * nfhp_range_write() - the array of a set, for its writer
 * @ctx: the writer's context
 * @r: the set
 *
 * Return: the array lookups read now.
 */
static struct nfhp_range_array *nfhp_range_write(struct nfhp_set_ctx *ctx,
						 struct nfhp_range *r)
{
	return rcu_dereference_protected(r->array, nfhp_set_writing(ctx));
}

/**
 * nfhp_range_rank() - how many ranges begin at or below a number
 * @a: the array
 * @n: its ranges, as read
 * @k: the number
 *
 * The packet path: the halving has no branch on the keys, so it costs
 * log2(@n) loads and conditional moves, not mispredictions.
 *
 * Return: the index after the last range whose first number is @k or
 * less.
 */
static u32 nfhp_range_rank(const struct nfhp_range_array *a, u32 n, u32 k)
{
	const struct nfhp_range_ent *base = a->e;
	u32 half;

	if (!n)
		return 0;
	while (n > 1) {
		half = n / 2;
		/* The answer stays within [base, base + n]. */
		base = base[half].lo <= k ? base + half : base;
		n -= half;
	}
	return base - a->e + (base->lo <= k);
}

/**
 * nfhp_range_lookup() - the packet path: the range that holds a number
 * @priv: the set
 * @key: the number, in the low bits of @key->addr
 * @value: set to the value of the range
 *
 * Under rcu_read_lock().
 *
 * Return: true if a range holds it.
 */
static bool nfhp_range_lookup(const void *priv, const struct nfhp_set_key *key,
			      u32 *value)
{
	const struct nfhp_range *r = priv;
	const struct nfhp_range_array *a = rcu_dereference(r->array);
	u32 k = nfhp_set_key_num(key);
	/* Pairs with the release of nfhp_range_add(). */
	u32 i = nfhp_range_rank(a, smp_load_acquire(&a->n), k);

	if (!i || k > a->e[i - 1].hi)
		return false;
	*value = READ_ONCE(a->e[i - 1].value);
	return true;
}

/**
 * nfhp_range_index() - the entry that is a range itself
 * @a: the array
 * @n: its ranges, as read
 * @key: the range
 * @rank: set to how many entries begin at or below its first number
 *
 * Return: the entry's index, or -1.
 */
static int nfhp_range_index(const struct nfhp_range_array *a, u32 n,
			    const struct nfhp_set_key *key, u32 *rank)
{
	u32 lo = nfhp_set_key_num(key);

	*rank = nfhp_range_rank(a, n, lo);
	if (*rank && a->e[*rank - 1].lo == lo && a->e[*rank - 1].hi == key->hi)
		return *rank - 1;
	return -1;
}

/**
 * nfhp_range_find() - is a range an entry, and with what value?
 * @priv: the set
 * @key: the range
 * @value: set to its value
 *
 * Return: true if it is.
 */
static bool nfhp_range_find(const void *priv, const struct nfhp_set_key *key,
			    u32 *value)
{
	const struct nfhp_range *r = priv;
	const struct nfhp_range_array *a = rcu_dereference(r->array);
	u32 rank;
	int i;

	if (!nfhp_set_num_key_ok(key))
		return false;
	/* Pairs with the release of nfhp_range_add(). */
	i = nfhp_range_index(a, smp_load_acquire(&a->n), key, &rank);
	if (i < 0)
		return false;
	*value = READ_ONCE(a->e[i].value);
	return true;
}

/**
 * nfhp_range_create() - an empty set of ranges
 * @ctx: the writer's context
 * @family: unused: numbers serve both families
 * @hint: the ranges it will likely hold: its array's room
 *
 * Return: the set, or NULL when out of memory.
 */
static void *nfhp_range_create(struct nfhp_set_ctx *ctx, u8 family, u32 hint)
{
	struct nfhp_range *r = nfhp_alloc(ctx->mem, sizeof(*r));
	struct nfhp_range_array *a;

	if (!r)
		return NULL;
	a = nfhp_range_array_new(ctx, hint);
	if (!a) {
		nfhp_free(ctx->mem, r, sizeof(*r));
		return NULL;
	}
	RCU_INIT_POINTER(r->array, a);
	return r;
}

/**
 * nfhp_range_destroy() - free a set no lookup can see any more
 * @ctx: the writer's context
 * @priv: the set
 */
static void nfhp_range_destroy(struct nfhp_set_ctx *ctx, void *priv)
{
	struct nfhp_range *r = priv;

	nfhp_set_block_free(ctx, nfhp_range_write(ctx, r));
	nfhp_free(ctx->mem, r, sizeof(*r));
}

/**
 * nfhp_range_replace() - publish a copy of the array, one entry changed
 * @ctx: the writer's context
 * @r: the set
 * @e: the entry to put at @at, for an add
 * @at: where it goes, or the index of the entry to leave out
 * @del: leave the entry at @at out, else put @e there
 *
 * The old array is retired: lookups under way finish on it.
 *
 * Return: 0, or -ENOMEM with the set unchanged.
 */
static int nfhp_range_replace(struct nfhp_set_ctx *ctx, struct nfhp_range *r,
			      const struct nfhp_range_ent *e, u32 at, bool del)
{
	struct nfhp_range_array *old = nfhp_range_write(ctx, r), *a;
	u32 n = del ? old->n - 1 : old->n + 1;

	a = nfhp_range_array_new(ctx, n + n / 4);
	if (!a)
		return -ENOMEM;
	memcpy(a->e, old->e, at * sizeof(old->e[0]));
	if (del) {
		memcpy(a->e + at, old->e + at + 1, (n - at) * sizeof(old->e[0]));
	} else {
		a->e[at] = *e;
		memcpy(a->e + at + 1, old->e + at, (old->n - at) * sizeof(old->e[0]));
	}
	a->n = n;
	rcu_assign_pointer(r->array, a);
	nfhp_set_retire(ctx, old);
	return 0;
}

/**
 * nfhp_range_add() - add a range, or give an entry a new value
 * @ctx: the writer's context
 * @priv: the set
 * @key: the range
 * @value: its value
 * @update: give the entry that is @key a new value
 *
 * Return: %NFHP_SET_ADDED, %NFHP_SET_UPDATED, %NFHP_SET_EXISTS, -EINVAL
 * for a range that overlaps another entry, or -ENOMEM.
 */
static int nfhp_range_add(struct nfhp_set_ctx *ctx, void *priv,
			  const struct nfhp_set_key *key, u32 value,
			  bool update)
{
	struct nfhp_range *r = priv;
	struct nfhp_range_array *a = nfhp_range_write(ctx, r);
	struct nfhp_range_ent e = { .lo = nfhp_set_key_num(key),
				    .hi = key->hi, .value = value };
	u32 rank;
	int i, err;

	if (!nfhp_set_num_key_ok(key))
		return -EINVAL;
	i = nfhp_range_index(a, a->n, key, &rank);
	if (i >= 0) {
		if (!update)
			return NFHP_SET_EXISTS;
		WRITE_ONCE(a->e[i].value, value);
		return NFHP_SET_UPDATED;
	}
	if ((rank && a->e[rank - 1].hi >= e.lo) ||
	    (rank < a->n && a->e[rank].lo <= e.hi))
		return -EINVAL;
	if (rank == a->n && a->n < a->nslots) {
		a->e[rank] = e;
		/* The slot before the count: see nfhp_range_lookup(). */
		smp_store_release(&a->n, a->n + 1);
		return NFHP_SET_ADDED;
	}
	err = nfhp_range_replace(ctx, r, &e, rank, false);
	return err ? err : NFHP_SET_ADDED;
}

/**
 * nfhp_range_del() - delete the entry that is a range
 * @ctx: the writer's context
 * @priv: the set
 * @key: the range
 *
 * Return: %NFHP_SET_DELETED, %NFHP_SET_NOT_FOUND, -EINVAL or -ENOMEM
 * (the set unchanged).
 */
static int nfhp_range_del(struct nfhp_set_ctx *ctx, void *priv,
			  const struct nfhp_set_key *key)
{
	struct nfhp_range *r = priv;
	struct nfhp_range_array *a = nfhp_range_write(ctx, r);
	u32 rank;
	int i, err;

	if (!nfhp_set_num_key_ok(key))
		return -EINVAL;
	i = nfhp_range_index(a, a->n, key, &rank);
	if (i < 0)
		return NFHP_SET_NOT_FOUND;
	err = nfhp_range_replace(ctx, r, NULL, i, true);
	return err ? err : NFHP_SET_DELETED;
}

/**
 * nfhp_range_walk() - call @fn for each range from *@cursor on
 * @priv: the set
 * @cursor: the index of the next range
 * @fn: as &struct nfhp_set_algo.walk's
 * @arg: its first argument
 *
 * Return: what @fn returned to stop the walk, or 0 at the end.
 */
static int nfhp_range_walk(const void *priv, u64 *cursor,
			   int (*fn)(void *arg, const struct nfhp_set_key *key,
				     u32 value),
			   void *arg)
{
	const struct nfhp_range *r = priv;
	const struct nfhp_range_array *a = rcu_dereference(r->array);
	struct nfhp_set_key key = {};
	u32 n;
	int err;

	/* Pairs with the release of nfhp_range_add(). */
	n = smp_load_acquire(&a->n);
	for (; *cursor < n; ++*cursor) {
		key.addr = a->e[*cursor].lo;
		key.hi = a->e[*cursor].hi;
		err = fn(arg, &key, READ_ONCE(a->e[*cursor].value));
		if (err) {
			*cursor += err > 0;
			return err;
		}
	}
	return 0;
}

/**
 * nfhp_range_count() - the ranges in the set
 * @priv: the set
 *
 * Return: how many.
 */
static u32 nfhp_range_count(const void *priv)
{
	const struct nfhp_range *r = priv;

	/* Pairs with the release of nfhp_range_add(). */
	return smp_load_acquire(&rcu_dereference(r->array)->n);
}

const struct nfhp_set_algo nfhp_set_num_range = {
	.name = "range",
	.type = NFHP_SET_NUMBER,
	.create = nfhp_range_create,
	.destroy = nfhp_range_destroy,
	.add = nfhp_range_add,
	.del = nfhp_range_del,
	.lookup = nfhp_range_lookup,
	.find = nfhp_range_find,
	.walk = nfhp_range_walk,
	.count = nfhp_range_count,
};
