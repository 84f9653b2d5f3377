// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets, the "lpm" algorithm: longest prefix match.
 *
 * DOC: Theory of Operation
 *
 * A set of prefixes of one family, each with a value.  A lookup takes a
 * packet's address and returns the value of the longest prefix holding
 * it.  Prefixes cut the address space into elementary intervals, each
 * with one answer: that of the longest prefix covering it, or none.  The
 * lookup finds the interval of the address, in two steps.
 *
 * Addresses are handled left-aligned in 128 bits (an IPv4 one shifted up
 * by 96), so that both families share every line below.
 *
 * The table.  All prefixes of a set share their first c bits (c is the
 * longest such length, at most the shortest prefix length).  The next k
 * bits of an address (k up to 16, growing with the set: about 8 prefixes
 * a slot) index the slots of &struct nfhp_lpm_table: a slot is the
 * region of addresses with those c + k first bits.  A prefix of c + k bits
 * or more ("long") lies in one slot; a shorter one ("short") covers whole
 * slots, and is only the default value of their regions.
 *
 * The slot.  A slot with no long prefix holds its default inline, a
 * tagged word.  Otherwise it points to an immutable &struct nfhp_lpm_bucket:
 * the sorted starts of the region's intervals after the first, and the
 * value of each interval.  The starts are offsets in the region shifted
 * right by the bucket's shift (their common trailing zeros), stored in 2,
 * 4, 8 or 16 bytes, the fewest that hold them.  The bucket also holds its
 * long prefixes, the same way, for find(), walk() and the writers.
 *
 * Example: an IPv4 set of 10.0.0.0/8 => 1, 10.1.0.0/16 => 2 and
 * 10.1.2.0/24 => 3, 10.1.2.128/25 => 4, with k = 16 and c = 0 (the /8 is
 * short).  Slot 10.1 holds the /16, /24 and /25, default 1 (the /8):
 *
 *   interval        start  key (>> 7)  value
 *   10.1.0.0          0       -          2
 *   10.1.2.0        0x200    0x4         3
 *   10.1.2.128      0x280    0x5         4
 *   10.1.3.0        0x300    0x6         2
 *
 * Every offset is a multiple of 2^7, so the three keys take a u16 each.
 * Slot 10.2 holds just the word of value 1, slot 11.0 the word of none.
 * A lookup of 10.1.2.200 reads slot 10.1, searches key 0x191 >> 7 = 0x5
 * among 0x4, 0x5, 0x6: two are at or below it, so it returns value 4.
 *
 * Writers (serialized by the caller) never change what a lookup can
 * read.  An add or delete of a long prefix builds the slot's new bucket
 * beside the old one, publishes it with one release store, and retires
 * the old one (set_gc.c).  A short prefix changes the default of each of
 * its slots: each slot whose default changes gets a new bucket or word.
 * The short prefixes themselves are in a block of their own, replaced
 * on each change.  When c must shrink (a prefix outside the shared
 * first bits) or k should change (the set grew or shrank by a factor of
 * four), the whole table is rebuilt and replaced; this is rare, O(n).
 *
 * A lookup reads the table pointer, one slot word, and searches one
 * bucket: no lock, no retry.  Its cost is the binary search of the
 * bucket, a few steps in sets spread over the slots.  An update costs
 * O(prefixes in its slot), so many prefixes in one slot (a /16 holding
 * thousands of /32s) make updates there slow, not lookups.
 *
 * The files: set_lpm_priv.h is what they share::
 *
 *   set_lpm.c         this overview, the lookup, find() and walk(), the
 *                     writers' entry points, create and destroy
 *   set_lpm_bucket.c  the buckets of slots: the writers' scratch, the
 *                     sweep of a region, build, publish and retire
 *   set_lpm_update.c  a change of one long prefix, of one short prefix,
 *                     and the rebuild of the whole table
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/rcupdate.h>

#include "set_lpm_priv.h"

/* The lookup side: the search of a bucket. */

/*
 * NFHP_LPM_RANK() - how many of @n rising @type keys at @keys are at or
 * below @key, in a loop without a branch on the keys: it halves the range
 * that holds the answer, and the compiler picks the half with a cmov.
 */
#define NFHP_LPM_RANK(type, keys, n, key) ({				\
	const type *_b = (const type *)(keys);				\
	type _v = (type)(key);						\
	u32 _len = (n), _half;						\
									\
	while (_len > 1) {						\
		_half = _len / 2;					\
		_b = _b[_half] <= _v ? _b + _half : _b;			\
		_len -= _half;						\
	}								\
	(u32)(_b - (const type *)(keys)) + (_len && *_b <= _v);	\
})

/**
 * nfhp_lpm_rank() - how many stored offsets are at or below a key
 * @keys: the stored offsets, rising, each @kw bytes
 * @kw: 2, 4, 8 or 16
 * @n: how many
 * @key: the key, as stored (shifted)
 *
 * Return: 0 to @n.
 */
static u32 nfhp_lpm_rank(const void *keys, unsigned int kw, u32 n,
			 nfhp_u128 key)
{
	switch (kw) {
	case 2:
		return NFHP_LPM_RANK(u16, keys, n, key);
	case 4:
		return NFHP_LPM_RANK(u32, keys, n, key);
	case 8:
		return NFHP_LPM_RANK(u64, keys, n, key);
	default:
		return NFHP_LPM_RANK(nfhp_u128, keys, n, key);
	}
}

/**
 * nfhp_lpm_bucket_value() - the answer of a bucket for an offset
 * @b: the bucket
 * @off: the offset in its slot's region
 * @value: set to the value when there is an answer
 *
 * Return: whether there is one.
 */
static bool nfhp_lpm_bucket_value(const struct nfhp_lpm_bucket *b,
				  nfhp_u128 off, u32 *value)
{
	size_t vals = ALIGN((size_t)(b->n - 1) * b->kw, 4);
	u32 r = nfhp_lpm_rank(b->data, b->kw, b->n - 1, off >> b->shift);
	const u8 *hits = b->data + vals + (size_t)b->n * 4;

	if (!(hits[r / 8] & (1 << (r % 8))))
		return false;
	*value = ((const u32 *)(b->data + vals))[r];
	return true;
}

/**
 * nfhp_lpm_align() - a key's address, left-aligned
 * @lpm: the set
 * @key: the key
 *
 * Return: the address shifted up to bit 127.
 */
static nfhp_u128 nfhp_lpm_align(const struct nfhp_lpm *lpm,
				const struct nfhp_set_key *key)
{
	return key->addr << (128 - lpm->width);
}

/**
 * nfhp_lpm_lookup() - the value of the longest prefix holding an address
 * @priv: the set
 * @key: the address, its length the family's width
 * @value: set to the value when one is found
 *
 * Runs under rcu_read_lock(), beside a writer.
 *
 * Return: whether a prefix holds the address.
 */
bool nfhp_lpm_lookup(const void *priv, const struct nfhp_set_key *key,
			    u32 *value)
{
	const struct nfhp_lpm *lpm = priv;
	const struct nfhp_lpm_table *t = rcu_dereference(lpm->table);
	nfhp_u128 a = nfhp_lpm_align(lpm, key);
	unsigned long w;

	if (!t || (a & t->base_mask) != t->base)
		return false;
	w = READ_ONCE(t->slot[nfhp_lpm_slot_of(t, a)]);
	if (w & NFHP_LPM_INLINE) {
		*value = w >> 32;
		return w & NFHP_LPM_INLINE_HIT;
	}
	return nfhp_lpm_bucket_value((const void *)w, a & t->off_mask, value);
}

/* Reading a bucket's prefixes back. */

/**
 * nfhp_lpm_bucket_entry() - one prefix of a bucket
 * @b: the bucket
 * @region: the first address of its slot
 * @i: which prefix
 * @e: set to it
 */
void nfhp_lpm_bucket_entry(const struct nfhp_lpm_bucket *b, nfhp_u128 region,
			   u32 i, struct nfhp_lpm_entry *e)
{
	struct nfhp_lpm_layout l;

	nfhp_lpm_layout(b->n, b->m, b->kw, &l);
	e->addr = region | nfhp_lpm_get_off(b->data + l.offs, b->kw, i) <<
			   b->shift;
	e->value = ((const u32 *)(b->data + l.pvals))[i];
	e->plen = b->data[l.plens + i];
}

/**
 * nfhp_lpm_bucket_find() - where a prefix is or goes in a bucket
 * @b: the bucket
 * @region: the first address of its slot
 * @key: the prefix
 * @found: set to whether it is there
 *
 * Return: its index, or that of the first prefix after it.
 */
static u32 nfhp_lpm_bucket_find(const struct nfhp_lpm_bucket *b,
				nfhp_u128 region,
				const struct nfhp_lpm_entry *key, bool *found)
{
	struct nfhp_lpm_entry e;
	u32 lo = 0, hi = b->m, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		nfhp_lpm_bucket_entry(b, region, mid, &e);
		if (nfhp_lpm_cmp(&e, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	if (lo < b->m) {
		nfhp_lpm_bucket_entry(b, region, lo, &e);
		*found = !nfhp_lpm_cmp(&e, key);
	}
	return lo;
}

/**
 * nfhp_lpm_find_entry() - a prefix's entry, where readers see it
 * @lpm: the set
 * @key: the prefix, left-aligned
 * @value: set to its value when found
 *
 * Return: whether the set holds the prefix.
 */
static bool nfhp_lpm_find_entry(const struct nfhp_lpm *lpm,
				const struct nfhp_lpm_entry *key, u32 *value)
{
	const struct nfhp_lpm_table *t = rcu_dereference(lpm->table);
	const struct nfhp_lpm_shorts *s;
	const struct nfhp_lpm_bucket *b;
	struct nfhp_lpm_entry e;
	bool found = false;
	u32 slot, i;

	if (!t || key->plen < t->c || (key->addr & t->base_mask) != t->base)
		return false;
	if (key->plen < t->c + t->k) {
		s = rcu_dereference(t->shorts);
		if (!s)
			return false;
		i = nfhp_lpm_search(s->e, s->m, key, &found);
		if (found)
			*value = s->e[i].value;
		return found;
	}
	slot = nfhp_lpm_slot_of(t, key->addr);
	b = (const void *)READ_ONCE(t->slot[slot]);
	if ((unsigned long)b & NFHP_LPM_INLINE)
		return false;
	i = nfhp_lpm_bucket_find(b, nfhp_lpm_region(t, slot), key, &found);
	if (found) {
		nfhp_lpm_bucket_entry(b, nfhp_lpm_region(t, slot), i, &e);
		*value = e.value;
	}
	return found;
}

/**
 * nfhp_lpm_key_entry() - a set's key as an entry, checked
 * @lpm: the set
 * @key: the key
 * @e: set to the entry
 *
 * Return: 0, or -EINVAL for a length past the family's width or an
 * address with bits set after its length.
 */
static int nfhp_lpm_key_entry(const struct nfhp_lpm *lpm,
			      const struct nfhp_set_key *key,
			      struct nfhp_lpm_entry *e)
{
	if (key->plen > lpm->width)
		return -EINVAL;
	if (lpm->width < 128 && key->addr >> lpm->width)
		return -EINVAL;
	e->addr = nfhp_lpm_align(lpm, key);
	e->plen = key->plen;
	e->value = 0;
	if (e->addr & ~nfhp_lpm_high(e->plen))
		return -EINVAL;
	return 0;
}

/**
 * nfhp_lpm_find() - the value of a prefix itself
 * @priv: the set
 * @key: the prefix
 * @value: set to its value when found
 *
 * Return: whether the set holds the prefix.
 */
bool nfhp_lpm_find(const void *priv, const struct nfhp_set_key *key,
			  u32 *value)
{
	const struct nfhp_lpm *lpm = priv;
	struct nfhp_lpm_entry e;

	if (nfhp_lpm_key_entry(lpm, key, &e))
		return false;
	return nfhp_lpm_find_entry(lpm, &e, value);
}

/* The writers' entry points. */

/**
 * nfhp_lpm_outside() - is a prefix outside a table's geometry?
 * @t: the table
 * @e: the prefix
 *
 * Return: true when it is shorter than the bits all prefixes share, or
 * does not share them.
 */
static bool nfhp_lpm_outside(const struct nfhp_lpm_table *t,
			     const struct nfhp_lpm_entry *e)
{
	return e->plen < t->c || (e->addr & t->base_mask) != t->base;
}

/**
 * nfhp_lpm_held() - does a set hold a prefix, for a writer
 * @lpm: the set
 * @e: the prefix
 *
 * Return: whether it does.
 */
static bool nfhp_lpm_held(const struct nfhp_lpm *lpm,
			  const struct nfhp_lpm_entry *e)
{
	bool held;
	u32 value;

	rcu_read_lock();
	held = nfhp_lpm_find_entry(lpm, e, &value);
	rcu_read_unlock();
	return held;
}

/**
 * nfhp_lpm_change() - add, update or delete a prefix in place
 * @ctx: the writer's context
 * @lpm: the set
 * @t: its table, whose geometry holds the prefix
 * @e: the prefix, with its value
 * @op: as for nfhp_lpm_change_long()
 *
 * Return: the &enum nfhp_set_result, or -ENOMEM.
 */
static int nfhp_lpm_change(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			   struct nfhp_lpm_table *t,
			   const struct nfhp_lpm_entry *e, int op)
{
	int ret;

	if (e->plen >= t->c + t->k)
		ret = nfhp_lpm_change_long(ctx, lpm, t, e, op);
	else
		ret = nfhp_lpm_change_short(ctx, lpm, t, e, op);
	if (ret == NFHP_SET_ADDED)
		lpm->count++;
	else if (ret == NFHP_SET_DELETED)
		lpm->count--;
	return ret;
}

/**
 * nfhp_lpm_add() - add a prefix, or update its value
 * @ctx: the writer's context
 * @priv: the set
 * @key: the prefix
 * @value: its value
 * @update: give an existing prefix @value
 *
 * Return: the &enum nfhp_set_result, -EINVAL for a bad key, or -ENOMEM.
 */
int nfhp_lpm_add(struct nfhp_set_ctx *ctx, void *priv,
			const struct nfhp_set_key *key, u32 value, bool update)
{
	struct nfhp_lpm *lpm = priv;
	struct nfhp_lpm_table *t = nfhp_lpm_table_of(ctx, lpm);
	int op = update ? NFHP_SET_UPDATED : NFHP_SET_ADDED;
	struct nfhp_lpm_entry e;
	unsigned int k;

	if (nfhp_lpm_key_entry(lpm, key, &e))
		return -EINVAL;
	e.value = value;
	if (t && !nfhp_lpm_outside(t, &e)) {
		k = min_t(unsigned int, nfhp_lpm_index_bits(lpm->count + 1),
			  lpm->width - t->c);
		if (k <= t->k || nfhp_lpm_held(lpm, &e))
			return nfhp_lpm_change(ctx, lpm, t, &e, op);
	}
	return nfhp_lpm_rebuild_with(ctx, lpm, &e, false);
}

/**
 * nfhp_lpm_del() - delete a prefix
 * @ctx: the writer's context
 * @priv: the set
 * @key: the prefix
 *
 * A set that shrank to a quarter of what its index is for is rebuilt
 * with a smaller one, and an empty set frees its table.
 *
 * Return: %NFHP_SET_DELETED, %NFHP_SET_NOT_FOUND, -EINVAL or -ENOMEM.
 */
int nfhp_lpm_del(struct nfhp_set_ctx *ctx, void *priv,
			const struct nfhp_set_key *key)
{
	struct nfhp_lpm *lpm = priv;
	struct nfhp_lpm_table *t = nfhp_lpm_table_of(ctx, lpm);
	struct nfhp_lpm_entry e;

	if (nfhp_lpm_key_entry(lpm, key, &e))
		return -EINVAL;
	if (!t || nfhp_lpm_outside(t, &e) || !nfhp_lpm_held(lpm, &e))
		return NFHP_SET_NOT_FOUND;
	if (lpm->count == 1 || nfhp_lpm_index_bits(lpm->count - 1) + 2 < t->k)
		return nfhp_lpm_rebuild_with(ctx, lpm, &e, true);
	return nfhp_lpm_change(ctx, lpm, t, &e, NFHP_SET_DELETED);
}

/* The readers' other entry points, and the set's life. */

/**
 * nfhp_lpm_visit() - call a walk's function for one prefix
 * @lpm: the set
 * @e: the prefix
 * @fn: the function
 * @arg: its argument
 *
 * Return: what @fn returns.
 */
static int nfhp_lpm_visit(const struct nfhp_lpm *lpm,
			  const struct nfhp_lpm_entry *e,
			  int (*fn)(void *arg, const struct nfhp_set_key *key,
				    u32 value),
			  void *arg)
{
	struct nfhp_set_key key = {
		.addr = e->addr >> (128 - lpm->width),
		.plen = e->plen,
	};

	return fn(arg, &key, e->value);
}

/**
 * nfhp_lpm_walk_slots() - the walk over the long prefixes
 * @lpm: the set
 * @t: its table
 * @cursor: (slot + 1) << 32 | the prefix in the slot
 * @fn: the function
 * @arg: its argument
 *
 * Return: what @fn returned, with *@cursor past its prefix when that was
 * more than 0, at it when less; or 0.
 */
static int nfhp_lpm_walk_slots(const struct nfhp_lpm *lpm,
			       const struct nfhp_lpm_table *t, u64 *cursor,
			       int (*fn)(void *arg,
					 const struct nfhp_set_key *key,
					 u32 value),
			       void *arg)
{
	const struct nfhp_lpm_bucket *b;
	struct nfhp_lpm_entry e;
	u32 slot = (*cursor >> 32) - 1, i = (u32)*cursor;
	int ret;

	for (; slot < 1U << t->k; slot++, i = 0) {
		b = (const void *)READ_ONCE(t->slot[slot]);
		if ((unsigned long)b & NFHP_LPM_INLINE)
			continue;
		for (; i < b->m; i++) {
			nfhp_lpm_bucket_entry(b, nfhp_lpm_region(t, slot), i,
					      &e);
			ret = nfhp_lpm_visit(lpm, &e, fn, arg);
			if (ret) {
				*cursor = (u64)(slot + 1) << 32 |
					  (i + (ret > 0));
				return ret;
			}
		}
	}
	*cursor = (u64)(slot + 1) << 32;
	return 0;
}

/**
 * nfhp_lpm_walk() - call a function for each prefix
 * @priv: the set
 * @cursor: where to start, 0 for the first prefix
 * @fn: the function; a non-zero return stops the walk
 * @arg: its argument
 *
 * The short prefixes come first (*@cursor below 2^32 is an index among
 * them), then those of each slot in turn.
 *
 * Return: what @fn returned, with *@cursor past its prefix when that was
 * more than 0, at it when less; or 0.
 */
int nfhp_lpm_walk(const void *priv, u64 *cursor,
			 int (*fn)(void *arg, const struct nfhp_set_key *key,
				   u32 value),
			 void *arg)
{
	const struct nfhp_lpm *lpm = priv;
	const struct nfhp_lpm_table *t = rcu_dereference(lpm->table);
	const struct nfhp_lpm_shorts *s;
	int ret;

	if (!t)
		return 0;
	s = rcu_dereference(t->shorts);
	for (; *cursor < NFHP_LPM_SHORT_CURSOR; ++*cursor) {
		if (!s || *cursor >= s->m) {
			*cursor = NFHP_LPM_SHORT_CURSOR;
			break;
		}
		ret = nfhp_lpm_visit(lpm, &s->e[*cursor], fn, arg);
		if (ret) {
			*cursor += ret > 0;
			return ret;
		}
	}
	return nfhp_lpm_walk_slots(lpm, t, cursor, fn, arg);
}

/**
 * nfhp_lpm_count() - the prefixes of a set
 * @priv: the set
 *
 * Return: how many.
 */
u32 nfhp_lpm_count(const void *priv)
{
	const struct nfhp_lpm *lpm = priv;

	return READ_ONCE(lpm->count);
}

/**
 * nfhp_lpm_create() - an empty set
 * @ctx: the writer's context
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @hint: unused: the table grows with the set
 *
 * An empty set has no table: it takes only its &struct nfhp_lpm.
 *
 * Return: the set, or NULL for another family or out of memory.
 */
void *nfhp_lpm_create(struct nfhp_set_ctx *ctx, u8 family, u32 hint)
{
	struct nfhp_lpm *lpm;

	if (family != NFHP_FAMILY_IPV4 && family != NFHP_FAMILY_IPV6)
		return NULL;
	lpm = nfhp_alloc(ctx->mem, sizeof(*lpm));
	if (!lpm)
		return NULL;
	lpm->width = family == NFHP_FAMILY_IPV6 ? 128 : 32;
	return lpm;
}

/**
 * nfhp_lpm_destroy() - free a set no lookup can see
 * @ctx: the writer's context
 * @priv: the set
 */
void nfhp_lpm_destroy(struct nfhp_set_ctx *ctx, void *priv)
{
	struct nfhp_lpm *lpm = priv;
	struct nfhp_lpm_table *t = nfhp_lpm_table_of(ctx, lpm);

	if (t)
		nfhp_lpm_table_free(ctx, t, false);
	nfhp_lpm_scratch_free(ctx, lpm);
	nfhp_free(ctx->mem, lpm, sizeof(*lpm));
}

const struct nfhp_set_algo nfhp_set_addr_lpm = {
	.name = "lpm",
	.type = NFHP_SET_ADDR,
	.nomatch = true,
	.create = nfhp_lpm_create,
	.destroy = nfhp_lpm_destroy,
	.add = nfhp_lpm_add,
	.del = nfhp_lpm_del,
	.lookup = nfhp_lpm_lookup,
	.find = nfhp_lpm_find,
	.walk = nfhp_lpm_walk,
	.count = nfhp_lpm_count,
};
