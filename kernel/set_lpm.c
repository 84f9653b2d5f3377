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
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "set_algo.h"

#define NFHP_LPM_MAX_BITS	16	/* the most index bits, k */
#define NFHP_LPM_PER_SLOT_LOG	3	/* about 2^3 prefixes a slot */
#define NFHP_LPM_INLINE		1UL	/* a slot word holding a value */
#define NFHP_LPM_INLINE_HIT	2UL	/* ... that is an answer */
#define NFHP_LPM_DEPTH		130	/* nesting: 129 lengths and none */
#define NFHP_LPM_SHORT_CURSOR	(1ULL << 32)	/* walk(): slots from here */

/**
 * struct nfhp_lpm_entry - a prefix, as writers handle it
 * @addr: its first address, left-aligned in 128 bits
 * @value: its value
 * @plen: its length, the same left-aligned or not
 */
struct nfhp_lpm_entry {
	nfhp_u128 addr;
	u32 value;
	u8 plen;
};

/**
 * struct nfhp_lpm_bucket - the intervals and long prefixes of one slot
 * @n: the intervals, one or more
 * @m: the long prefixes, one or more
 * @dflt: the value of the slot's longest short prefix
 * @kw: the bytes of each stored offset: 2, 4, 8 or 16
 * @shift: the bits each stored offset is shifted right by
 * @dflt_hit: whether the slot has a short prefix at all
 * @data: n - 1 interval starts, n values (u32), n answer bits, m prefix
 *	offsets, m values (u32), m lengths (u8): see nfhp_lpm_layout()
 *
 * Immutable once published.  Allocated with nfhp_set_block_alloc().
 */
struct nfhp_lpm_bucket {
	u32 n;
	u32 m;
	u32 dflt;
	u8 kw;
	u8 shift;
	u8 dflt_hit;
	u8 data[] __aligned(8);
};

/**
 * struct nfhp_lpm_layout - where the arrays of a bucket's @data are
 * @vals: the interval values
 * @hits: the interval answer bits
 * @offs: the prefix offsets
 * @pvals: the prefix values
 * @plens: the prefix lengths
 * @size: the bytes of @data
 */
struct nfhp_lpm_layout {
	size_t vals, hits, offs, pvals, plens, size;
};

/**
 * struct nfhp_lpm_shorts - the short prefixes of a table
 * @m: how many
 * @e: the prefixes, sorted by address, then length
 *
 * Immutable once published; replaced as a whole on a change.
 */
struct nfhp_lpm_shorts {
	u32 m;
	struct nfhp_lpm_entry e[];
};

/**
 * struct nfhp_lpm_table - the index of a set, and its geometry
 * @base: the first @c bits every prefix shares, the others zero
 * @base_mask: the first @c bits set
 * @slot_mask: the @k bits after them set
 * @off_mask: the bits after those set: the offset in a slot's region
 * @slot_shift: the bits below the slot bits, capped at 127
 * @c: the bits every prefix shares
 * @k: the bits of the index
 * @shorts: the prefixes shorter than @c + @k bits, or NULL for none
 * @slot: 2^@k words: a bucket, or a value tagged %NFHP_LPM_INLINE
 */
struct nfhp_lpm_table {
	nfhp_u128 base;
	nfhp_u128 base_mask;
	nfhp_u128 slot_mask;
	nfhp_u128 off_mask;
	u8 slot_shift;
	u8 c;
	u8 k;
	struct nfhp_lpm_shorts __rcu *shorts;
	unsigned long slot[];
};

/**
 * struct nfhp_lpm_span - a prefix open during the sweep of a region
 * @last: its last address
 * @value: its value
 * @hit: false for the region's default when it has no short prefix
 */
struct nfhp_lpm_span {
	nfhp_u128 last;
	u32 value;
	bool hit;
};

/**
 * struct nfhp_lpm - one "lpm" set
 * @table: what lookups read; NULL while the set is empty
 * @count: the prefixes
 * @width: the family's address bits: 32 or 128
 * @cap: the room of the scratch arrays, in prefixes
 * @ents: scratch: one slot's prefixes
 * @starts: scratch: the starts of its intervals
 * @vals: scratch: their values
 * @hits: scratch: whether each has an answer
 * @stack: scratch: the prefixes open during a sweep
 */
struct nfhp_lpm {
	struct nfhp_lpm_table __rcu *table;
	u32 count;
	u8 width;
	u32 cap;
	struct nfhp_lpm_entry *ents;
	nfhp_u128 *starts;
	u32 *vals;
	u8 *hits;
	struct nfhp_lpm_span stack[NFHP_LPM_DEPTH];
};

/**
 * nfhp_lpm_high() - a mask of the first bits of 128
 * @bits: how many, 0 to 128
 *
 * Return: the mask.
 */
static nfhp_u128 nfhp_lpm_high(unsigned int bits)
{
	return bits ? ~(nfhp_u128)0 << (128 - bits) : 0;
}

/**
 * nfhp_lpm_last() - the last address of a prefix
 * @addr: its first address, left-aligned
 * @plen: its length, 0 to 128
 *
 * Return: @addr with every bit after the first @plen set.
 */
static nfhp_u128 nfhp_lpm_last(nfhp_u128 addr, unsigned int plen)
{
	return addr | ~nfhp_lpm_high(plen);
}

/**
 * nfhp_lpm_ctz() - the trailing zero bits of a non-zero value
 * @v: the value
 *
 * Return: 0 to 127.
 */
static unsigned int nfhp_lpm_ctz(nfhp_u128 v)
{
	if ((u64)v)
		return __builtin_ctzll((u64)v);
	return 64 + __builtin_ctzll((u64)(v >> 64));
}

/**
 * nfhp_lpm_common() - the leading bits two addresses share
 * @a: one, left-aligned
 * @b: the other
 *
 * Return: 0 to 128.
 */
static unsigned int nfhp_lpm_common(nfhp_u128 a, nfhp_u128 b)
{
	nfhp_u128 x = a ^ b;

	if (x >> 64)
		return __builtin_clzll((u64)(x >> 64));
	if (x)
		return 64 + __builtin_clzll((u64)x);
	return 128;
}

/**
 * nfhp_lpm_cmp() - the order of prefixes: by address, then length
 * @a: one prefix
 * @b: another
 *
 * A prefix comes before the prefixes it holds.
 *
 * Return: <0, 0 or >0.
 */
static int nfhp_lpm_cmp(const struct nfhp_lpm_entry *a,
			const struct nfhp_lpm_entry *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (int)a->plen - (int)b->plen;
}

/**
 * nfhp_lpm_search() - where a prefix is or goes among sorted prefixes
 * @e: the prefixes
 * @m: how many
 * @key: the prefix sought
 * @found: set to whether it is there
 *
 * Return: its index, or that of the first prefix after it.
 */
static u32 nfhp_lpm_search(const struct nfhp_lpm_entry *e, u32 m,
			   const struct nfhp_lpm_entry *key, bool *found)
{
	u32 lo = 0, hi = m, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (nfhp_lpm_cmp(&e[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < m && !nfhp_lpm_cmp(&e[lo], key);
	return lo;
}

/* The lookup side: slot words and the search of a bucket. */

/**
 * nfhp_lpm_word() - the slot word of an inline value
 * @value: the value
 * @hit: whether it is an answer
 *
 * Return: the word.
 */
static unsigned long nfhp_lpm_word(u32 value, bool hit)
{
	return (unsigned long)(hit ? value : 0) << 32 |
	       (hit ? NFHP_LPM_INLINE_HIT : 0) | NFHP_LPM_INLINE;
}

/**
 * nfhp_lpm_layout() - where a bucket's arrays are
 * @n: its intervals
 * @m: its prefixes
 * @kw: the bytes of its offsets
 * @l: the layout, filled in
 */
static void nfhp_lpm_layout(u32 n, u32 m, unsigned int kw,
			    struct nfhp_lpm_layout *l)
{
	l->vals = ALIGN((size_t)(n - 1) * kw, 4);
	l->hits = l->vals + (size_t)n * 4;
	l->offs = ALIGN(l->hits + DIV_ROUND_UP(n, 8), kw);
	l->pvals = ALIGN(l->offs + (size_t)m * kw, 4);
	l->plens = l->pvals + (size_t)m * 4;
	l->size = l->plens + m;
}

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
 * nfhp_lpm_slot_of() - the slot of an address in a table
 * @t: the table
 * @a: the address, left-aligned, with the table's first @c bits
 *
 * Return: the slot's index.
 */
static u32 nfhp_lpm_slot_of(const struct nfhp_lpm_table *t, nfhp_u128 a)
{
	return (u32)((a & t->slot_mask) >> t->slot_shift);
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
static bool nfhp_lpm_lookup(const void *priv, const struct nfhp_set_key *key,
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
 * nfhp_lpm_get_off() - one stored offset
 * @p: the array
 * @kw: the bytes of each
 * @i: which
 *
 * Return: the offset, as stored.
 */
static nfhp_u128 nfhp_lpm_get_off(const u8 *p, unsigned int kw, u32 i)
{
	switch (kw) {
	case 2:
		return ((const u16 *)p)[i];
	case 4:
		return ((const u32 *)p)[i];
	case 8:
		return ((const u64 *)p)[i];
	default:
		return ((const nfhp_u128 *)p)[i];
	}
}

/**
 * nfhp_lpm_put_off() - store one offset
 * @p: the array
 * @kw: the bytes of each
 * @i: which
 * @v: the offset, shifted, fitting @kw bytes
 */
static void nfhp_lpm_put_off(u8 *p, unsigned int kw, u32 i, nfhp_u128 v)
{
	switch (kw) {
	case 2:
		((u16 *)p)[i] = v;
		break;
	case 4:
		((u32 *)p)[i] = v;
		break;
	case 8:
		((u64 *)p)[i] = v;
		break;
	default:
		((nfhp_u128 *)p)[i] = v;
		break;
	}
}

/**
 * nfhp_lpm_bucket_entry() - one prefix of a bucket
 * @b: the bucket
 * @region: the first address of its slot
 * @i: which prefix
 * @e: set to it
 */
static void nfhp_lpm_bucket_entry(const struct nfhp_lpm_bucket *b,
				  nfhp_u128 region, u32 i,
				  struct nfhp_lpm_entry *e)
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
 * nfhp_lpm_region() - the first address of a slot
 * @t: the table
 * @slot: the slot's index
 *
 * Return: the address, left-aligned.
 */
static nfhp_u128 nfhp_lpm_region(const struct nfhp_lpm_table *t, u32 slot)
{
	if (!t->k)
		return t->base;
	return t->base | (nfhp_u128)slot << t->slot_shift;
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
static bool nfhp_lpm_find(const void *priv, const struct nfhp_set_key *key,
			  u32 *value)
{
	const struct nfhp_lpm *lpm = priv;
	struct nfhp_lpm_entry e;

	if (nfhp_lpm_key_entry(lpm, key, &e))
		return false;
	return nfhp_lpm_find_entry(lpm, &e, value);
}

/* The writers' side: building buckets. */

/**
 * nfhp_lpm_scratch_free() - free the scratch arrays of a set
 * @ctx: the writer's context
 * @lpm: the set
 */
static void nfhp_lpm_scratch_free(struct nfhp_set_ctx *ctx,
				  struct nfhp_lpm *lpm)
{
	u32 iv = 2 * lpm->cap + 1;

	if (!lpm->cap)
		return;
	nfhp_free(ctx->mem, lpm->ents, lpm->cap * sizeof(*lpm->ents));
	nfhp_free(ctx->mem, lpm->starts, iv * sizeof(*lpm->starts));
	nfhp_free(ctx->mem, lpm->vals, iv * sizeof(*lpm->vals));
	nfhp_free(ctx->mem, lpm->hits, iv);
	lpm->cap = 0;
}

/**
 * nfhp_lpm_reserve() - room in the scratch arrays for a slot's prefixes
 * @ctx: the writer's context
 * @lpm: the set
 * @m: the prefixes, one more than a slot holds when adding
 *
 * Return: 0, or -ENOMEM with the arrays as they were.
 */
static int nfhp_lpm_reserve(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			    u32 m)
{
	u32 cap = max_t(u32, 16, m + m / 2), iv = 2 * cap + 1;
	struct nfhp_lpm_entry *ents;
	nfhp_u128 *starts;
	u32 *vals;
	u8 *hits;

	if (m <= lpm->cap)
		return 0;
	ents = nfhp_alloc(ctx->mem, cap * sizeof(*ents));
	starts = nfhp_alloc(ctx->mem, iv * sizeof(*starts));
	vals = nfhp_alloc(ctx->mem, iv * sizeof(*vals));
	hits = nfhp_alloc(ctx->mem, iv);
	if (!ents || !starts || !vals || !hits) {
		nfhp_free(ctx->mem, ents, cap * sizeof(*ents));
		nfhp_free(ctx->mem, starts, iv * sizeof(*starts));
		nfhp_free(ctx->mem, vals, iv * sizeof(*vals));
		nfhp_free(ctx->mem, hits, iv);
		return -ENOMEM;
	}
	nfhp_lpm_scratch_free(ctx, lpm);
	lpm->ents = ents;
	lpm->starts = starts;
	lpm->vals = vals;
	lpm->hits = hits;
	lpm->cap = cap;
	return 0;
}

/**
 * struct nfhp_lpm_sweep - the state of the sweep of one region
 * @pos: the first address not yet in an interval
 * @last: the region's last address
 * @n: the intervals so far
 * @depth: the prefixes open, the region's default at the bottom
 * @done: the region's last address is in an interval
 */
struct nfhp_lpm_sweep {
	nfhp_u128 pos;
	nfhp_u128 last;
	u32 n;
	u32 depth;
	bool done;
};

/**
 * nfhp_lpm_emit() - add an interval, or extend the previous one
 * @lpm: the set, whose scratch arrays take it
 * @s: the sweep
 * @start: its first address
 * @v: the prefix (or default) that answers it
 */
static void nfhp_lpm_emit(struct nfhp_lpm *lpm, struct nfhp_lpm_sweep *s,
			  nfhp_u128 start, const struct nfhp_lpm_span *v)
{
	u32 value = v->hit ? v->value : 0;

	if (s->n && lpm->hits[s->n - 1] == v->hit &&
	    lpm->vals[s->n - 1] == value)
		return;
	lpm->starts[s->n] = start;
	lpm->vals[s->n] = value;
	lpm->hits[s->n] = v->hit;
	s->n++;
}

/**
 * nfhp_lpm_pop() - close the innermost open prefix
 * @lpm: the set
 * @s: the sweep
 *
 * What of it no inner prefix took is one interval.
 */
static void nfhp_lpm_pop(struct nfhp_lpm *lpm, struct nfhp_lpm_sweep *s)
{
	const struct nfhp_lpm_span *top = &lpm->stack[--s->depth];

	if (!s->done && s->pos <= top->last)
		nfhp_lpm_emit(lpm, s, s->pos, top);
	if (top->last == s->last)
		s->done = true;
	else
		s->pos = top->last + 1;
}

/**
 * nfhp_lpm_sweep() - the intervals of a region
 * @lpm: the set, whose scratch arrays take them
 * @first: the region's first address
 * @last: its last
 * @e: its prefixes, sorted
 * @m: how many
 * @dflt: the answer where none of them is
 *
 * Return: the intervals, in @lpm's starts, vals and hits.
 */
static u32 nfhp_lpm_sweep(struct nfhp_lpm *lpm, nfhp_u128 first,
			  nfhp_u128 last, const struct nfhp_lpm_entry *e,
			  u32 m, const struct nfhp_lpm_span *dflt)
{
	struct nfhp_lpm_sweep s = { .pos = first, .last = last, .depth = 1 };
	struct nfhp_lpm_span *span;
	u32 i;

	lpm->stack[0] = *dflt;
	lpm->stack[0].last = last;
	for (i = 0; i < m; i++) {
		while (e[i].addr > lpm->stack[s.depth - 1].last)
			nfhp_lpm_pop(lpm, &s);
		if (e[i].addr > s.pos)
			nfhp_lpm_emit(lpm, &s, s.pos, &lpm->stack[s.depth - 1]);
		s.pos = e[i].addr;
		span = &lpm->stack[s.depth++];
		span->last = nfhp_lpm_last(e[i].addr, e[i].plen);
		span->value = e[i].value;
		span->hit = true;
	}
	while (s.depth)
		nfhp_lpm_pop(lpm, &s);
	return s.n;
}

/**
 * nfhp_lpm_shift() - the trailing zeros all offsets of a bucket share
 * @lpm: the set, its scratch arrays holding the intervals
 * @t: the table
 * @e: the bucket's prefixes
 * @m: how many
 * @n: the intervals
 *
 * Return: the shift, below the bits of a region's offsets.
 */
static unsigned int nfhp_lpm_shift(const struct nfhp_lpm *lpm,
				   const struct nfhp_lpm_table *t,
				   const struct nfhp_lpm_entry *e, u32 m, u32 n)
{
	unsigned int bits = 128 - t->c - t->k, shift = 128;
	nfhp_u128 off;
	u32 i;

	for (i = 1; i < n; i++)
		shift = min(shift, nfhp_lpm_ctz(lpm->starts[i] & t->off_mask));
	for (i = 0; i < m; i++) {
		off = e[i].addr & t->off_mask;
		if (off)
			shift = min(shift, nfhp_lpm_ctz(off));
	}
	if (shift == 128)
		shift = bits ? bits - 1 : 0;
	return shift;
}

/**
 * nfhp_lpm_fill() - write a bucket's arrays
 * @lpm: the set, its scratch arrays holding the intervals
 * @t: the table
 * @b: the bucket, its header written
 * @e: its prefixes
 */
static void nfhp_lpm_fill(const struct nfhp_lpm *lpm,
			  const struct nfhp_lpm_table *t,
			  struct nfhp_lpm_bucket *b,
			  const struct nfhp_lpm_entry *e)
{
	struct nfhp_lpm_layout l;
	u32 i;

	nfhp_lpm_layout(b->n, b->m, b->kw, &l);
	for (i = 1; i < b->n; i++)
		nfhp_lpm_put_off(b->data, b->kw, i - 1,
				 (lpm->starts[i] & t->off_mask) >> b->shift);
	memcpy(b->data + l.vals, lpm->vals, b->n * sizeof(u32));
	for (i = 0; i < b->n; i++)
		if (lpm->hits[i])
			b->data[l.hits + i / 8] |= 1 << (i % 8);
	for (i = 0; i < b->m; i++) {
		nfhp_lpm_put_off(b->data + l.offs, b->kw, i,
				 (e[i].addr & t->off_mask) >> b->shift);
		((u32 *)(b->data + l.pvals))[i] = e[i].value;
		b->data[l.plens + i] = e[i].plen;
	}
}

/**
 * nfhp_lpm_build() - the word of a slot
 * @ctx: the writer's context
 * @lpm: the set, its scratch arrays big enough for @m prefixes
 * @t: the table
 * @slot: the slot
 * @e: its long prefixes, sorted
 * @m: how many
 * @dflt: the answer of its short prefixes
 *
 * Return: an inline word when @m is 0, else a new bucket; 0 when out of
 * memory.
 */
static unsigned long nfhp_lpm_build(struct nfhp_set_ctx *ctx,
				    struct nfhp_lpm *lpm,
				    const struct nfhp_lpm_table *t, u32 slot,
				    const struct nfhp_lpm_entry *e, u32 m,
				    const struct nfhp_lpm_span *dflt)
{
	nfhp_u128 first = nfhp_lpm_region(t, slot);
	struct nfhp_lpm_bucket *b;
	struct nfhp_lpm_layout l;
	unsigned int shift, bits;
	u32 n;

	if (!m)
		return nfhp_lpm_word(dflt->value, dflt->hit);
	n = nfhp_lpm_sweep(lpm, first, first | t->off_mask, e, m, dflt);
	shift = nfhp_lpm_shift(lpm, t, e, m, n);
	bits = 128 - t->c - t->k - shift;
	b = NULL;
	nfhp_lpm_layout(n, m, bits <= 16 ? 2 : bits <= 32 ? 4 :
			bits <= 64 ? 8 : 16, &l);
	b = nfhp_set_block_alloc(ctx, sizeof(*b) + l.size);
	if (!b)
		return 0;
	b->n = n;
	b->m = m;
	b->kw = bits <= 16 ? 2 : bits <= 32 ? 4 : bits <= 64 ? 8 : 16;
	b->shift = shift;
	b->dflt = dflt->hit ? dflt->value : 0;
	b->dflt_hit = dflt->hit;
	nfhp_lpm_fill(lpm, t, b, e);
	return (unsigned long)b;
}

/**
 * nfhp_lpm_word_free() - free a word's bucket that no lookup saw
 * @ctx: the writer's context
 * @w: the word, inline or not
 */
static void nfhp_lpm_word_free(struct nfhp_set_ctx *ctx, unsigned long w)
{
	if (w && !(w & NFHP_LPM_INLINE))
		nfhp_set_block_free(ctx, (void *)w);
}

/**
 * nfhp_lpm_word_retire() - retire a word's bucket once unpublished
 * @ctx: the writer's context
 * @w: the word, inline or not
 */
static void nfhp_lpm_word_retire(struct nfhp_set_ctx *ctx, unsigned long w)
{
	if (!(w & NFHP_LPM_INLINE))
		nfhp_set_retire(ctx, (void *)w);
}

/**
 * nfhp_lpm_publish() - put a new word in a slot, and retire the old one
 * @ctx: the writer's context
 * @t: the table
 * @slot: the slot
 * @w: the new word
 */
static void nfhp_lpm_publish(struct nfhp_set_ctx *ctx,
			     struct nfhp_lpm_table *t, u32 slot,
			     unsigned long w)
{
	unsigned long old = t->slot[slot];

	/* Pairs with the READ_ONCE() of lookups: the bucket is written. */
	smp_store_release(&t->slot[slot], w);
	nfhp_lpm_word_retire(ctx, old);
}

/**
 * nfhp_lpm_default() - the answer of a slot's short prefixes, as built
 * @w: the slot's word
 * @dflt: set to it
 */
static void nfhp_lpm_default(unsigned long w, struct nfhp_lpm_span *dflt)
{
	const struct nfhp_lpm_bucket *b = (const void *)w;

	if (w & NFHP_LPM_INLINE) {
		dflt->value = w >> 32;
		dflt->hit = w & NFHP_LPM_INLINE_HIT;
	} else {
		dflt->value = b->dflt;
		dflt->hit = b->dflt_hit;
	}
}

/**
 * nfhp_lpm_cover() - the answer of the short prefixes for a slot
 * @s: the short prefixes, or NULL
 * @t: the table
 * @slot: the slot
 * @dflt: set to the value of the longest short prefix holding the slot
 */
static void nfhp_lpm_cover(const struct nfhp_lpm_shorts *s,
			   const struct nfhp_lpm_table *t, u32 slot,
			   struct nfhp_lpm_span *dflt)
{
	nfhp_u128 first = nfhp_lpm_region(t, slot);
	struct nfhp_lpm_entry key;
	unsigned int len;
	bool found;
	u32 i;

	dflt->hit = false;
	dflt->value = 0;
	for (len = t->c + t->k; s && len-- > t->c;) {
		key.addr = first & nfhp_lpm_high(len);
		key.plen = len;
		i = nfhp_lpm_search(s->e, s->m, &key, &found);
		if (found) {
			dflt->hit = true;
			dflt->value = s->e[i].value;
			return;
		}
	}
}

/**
 * nfhp_lpm_unpack() - a slot's long prefixes, into the scratch array
 * @ctx: the writer's context
 * @lpm: the set
 * @t: the table
 * @slot: the slot
 * @extra: the room wanted beyond them
 *
 * Return: how many, or -ENOMEM.
 */
static int nfhp_lpm_unpack(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			   const struct nfhp_lpm_table *t, u32 slot, u32 extra)
{
	unsigned long w = t->slot[slot];
	const struct nfhp_lpm_bucket *b = (const void *)w;
	nfhp_u128 first = nfhp_lpm_region(t, slot);
	u32 m = w & NFHP_LPM_INLINE ? 0 : b->m, i;
	struct nfhp_lpm_layout l;

	if (nfhp_lpm_reserve(ctx, lpm, m + extra))
		return -ENOMEM;
	if (!m)
		return 0;
	nfhp_lpm_layout(b->n, m, b->kw, &l);
	for (i = 0; i < m; i++) {
		lpm->ents[i].addr = first | nfhp_lpm_get_off(b->data + l.offs,
							     b->kw, i) <<
					    b->shift;
		lpm->ents[i].value = ((const u32 *)(b->data + l.pvals))[i];
		lpm->ents[i].plen = b->data[l.plens + i];
	}
	return m;
}

/* The writers' side: one long prefix. */

/**
 * nfhp_lpm_table_of() - the table, for a writer
 * @ctx: the writer's context
 * @lpm: the set
 *
 * Return: the table, or NULL.
 */
static struct nfhp_lpm_table *nfhp_lpm_table_of(struct nfhp_set_ctx *ctx,
						struct nfhp_lpm *lpm)
{
	return rcu_dereference_protected(lpm->table, nfhp_set_writing(ctx));
}

/**
 * nfhp_lpm_shorts_of() - the short prefixes of a table, for a writer
 * @ctx: the writer's context
 * @t: the table
 *
 * Return: the block, or NULL.
 */
static struct nfhp_lpm_shorts *nfhp_lpm_shorts_of(struct nfhp_set_ctx *ctx,
						  struct nfhp_lpm_table *t)
{
	return rcu_dereference_protected(t->shorts, nfhp_set_writing(ctx));
}

/**
 * nfhp_lpm_change_long() - add, update or delete a long prefix
 * @ctx: the writer's context
 * @lpm: the set
 * @t: its table
 * @e: the prefix, with its value
 * @op: %NFHP_SET_ADDED to add, %NFHP_SET_UPDATED to add or update,
 *	%NFHP_SET_DELETED to delete
 *
 * Return: the &enum nfhp_set_result, or -ENOMEM.
 */
static int nfhp_lpm_change_long(struct nfhp_set_ctx *ctx,
				struct nfhp_lpm *lpm, struct nfhp_lpm_table *t,
				const struct nfhp_lpm_entry *e, int op)
{
	u32 slot = nfhp_lpm_slot_of(t, e->addr), i;
	struct nfhp_lpm_span dflt;
	unsigned long w;
	int m, ret;
	bool found;

	m = nfhp_lpm_unpack(ctx, lpm, t, slot, 1);
	if (m < 0)
		return m;
	i = nfhp_lpm_search(lpm->ents, m, e, &found);
	if (op == NFHP_SET_DELETED) {
		if (!found)
			return NFHP_SET_NOT_FOUND;
		memmove(&lpm->ents[i], &lpm->ents[i + 1],
			(m - i - 1) * sizeof(*e));
		m--;
		ret = NFHP_SET_DELETED;
	} else if (found) {
		if (op != NFHP_SET_UPDATED)
			return NFHP_SET_EXISTS;
		if (lpm->ents[i].value == e->value)
			return NFHP_SET_UPDATED;
		lpm->ents[i].value = e->value;
		ret = NFHP_SET_UPDATED;
	} else {
		memmove(&lpm->ents[i + 1], &lpm->ents[i], (m - i) * sizeof(*e));
		lpm->ents[i] = *e;
		m++;
		ret = NFHP_SET_ADDED;
	}
	nfhp_lpm_default(t->slot[slot], &dflt);
	w = nfhp_lpm_build(ctx, lpm, t, slot, lpm->ents, m, &dflt);
	if (!w)
		return -ENOMEM;
	nfhp_lpm_publish(ctx, t, slot, w);
	return ret;
}

/* The writers' side: one short prefix. */

/**
 * nfhp_lpm_shorts_with() - a new block of short prefixes, one changed
 * @ctx: the writer's context
 * @s: the old block, or NULL
 * @e: the prefix, with its value
 * @i: where it is or goes in @s
 * @found: whether @s holds it
 * @del: delete it, rather than add or update it
 *
 * Return: the block, ERR_PTR(-ENOMEM), or NULL when it would be empty.
 */
static struct nfhp_lpm_shorts *
nfhp_lpm_shorts_with(struct nfhp_set_ctx *ctx,
		     const struct nfhp_lpm_shorts *s,
		     const struct nfhp_lpm_entry *e, u32 i, bool found,
		     bool del)
{
	u32 m = s ? s->m : 0, keep = found ? 1 : 0;
	u32 nm = del ? m - 1 : m + 1 - keep;
	struct nfhp_lpm_shorts *ns;

	if (!nm)
		return NULL;
	ns = nfhp_set_block_alloc(ctx, struct_size(ns, e, nm));
	if (!ns)
		return ERR_PTR(-ENOMEM);
	ns->m = nm;
	if (i)
		memcpy(ns->e, s->e, i * sizeof(*e));
	if (!del)
		ns->e[i] = *e;
	if (m > i + keep)
		memcpy(&ns->e[del ? i : i + 1], &s->e[i + keep],
		       (m - i - keep) * sizeof(*e));
	return ns;
}

/**
 * nfhp_lpm_redefault() - the new words of the slots of a short prefix
 * @ctx: the writer's context
 * @lpm: the set
 * @t: the table
 * @ns: the short prefixes as they will be
 * @first: the prefix's first slot
 * @words: set to each slot's new word, 0 where it does not change
 * @nr: the prefix's slots
 *
 * Return: 0, or -ENOMEM with every new bucket freed.
 */
static int nfhp_lpm_redefault(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			      struct nfhp_lpm_table *t,
			      const struct nfhp_lpm_shorts *ns, u32 first,
			      unsigned long *words, u32 nr)
{
	struct nfhp_lpm_span now, was;
	u32 j;
	int m;

	for (j = 0; j < nr; j++) {
		nfhp_lpm_cover(ns, t, first + j, &now);
		nfhp_lpm_default(t->slot[first + j], &was);
		if (now.hit == was.hit && (!now.hit || now.value == was.value))
			continue;
		m = nfhp_lpm_unpack(ctx, lpm, t, first + j, 0);
		if (m >= 0)
			words[j] = nfhp_lpm_build(ctx, lpm, t, first + j,
						  lpm->ents, m, &now);
		if (m < 0 || !words[j])
			goto fail;
	}
	return 0;
fail:
	while (j--)
		nfhp_lpm_word_free(ctx, words[j]);
	return -ENOMEM;
}

/**
 * nfhp_lpm_change_short() - add, update or delete a short prefix
 * @ctx: the writer's context
 * @lpm: the set
 * @t: its table
 * @e: the prefix, with its value
 * @op: as for nfhp_lpm_change_long()
 *
 * The prefix's block of shorts is replaced, and so is each of its slots
 * whose default changes.
 *
 * Return: the &enum nfhp_set_result, or -ENOMEM.
 */
static int nfhp_lpm_change_short(struct nfhp_set_ctx *ctx,
				 struct nfhp_lpm *lpm,
				 struct nfhp_lpm_table *t,
				 const struct nfhp_lpm_entry *e, int op)
{
	struct nfhp_lpm_shorts *s = nfhp_lpm_shorts_of(ctx, t), *ns;
	u32 nr = 1U << (t->c + t->k - e->plen), first, i, j;
	bool del = op == NFHP_SET_DELETED, found = false;
	unsigned long *words;
	int ret;

	if (s)
		i = nfhp_lpm_search(s->e, s->m, e, &found);
	else
		i = 0;
	if (del && !found)
		return NFHP_SET_NOT_FOUND;
	if (!del && found && op != NFHP_SET_UPDATED)
		return NFHP_SET_EXISTS;
	if (!del && found && s->e[i].value == e->value)
		return NFHP_SET_UPDATED;
	ret = del ? NFHP_SET_DELETED :
	      found ? NFHP_SET_UPDATED : NFHP_SET_ADDED;
	ns = nfhp_lpm_shorts_with(ctx, s, e, i, found, del);
	if (IS_ERR(ns))
		return -ENOMEM;
	words = nfhp_alloc(ctx->mem, nr * sizeof(*words));
	first = nfhp_lpm_slot_of(t, e->addr);
	if (!words || nfhp_lpm_redefault(ctx, lpm, t, ns, first, words, nr)) {
		nfhp_free(ctx->mem, words, nr * sizeof(*words));
		nfhp_set_block_free(ctx, ns);
		return -ENOMEM;
	}
	rcu_assign_pointer(t->shorts, ns);
	nfhp_set_retire(ctx, s);
	for (j = 0; j < nr; j++)
		if (words[j])
			nfhp_lpm_publish(ctx, t, first + j, words[j]);
	nfhp_free(ctx->mem, words, nr * sizeof(*words));
	return ret;
}

/* The writers' side: the whole table. */

/**
 * nfhp_lpm_index_bits() - the index bits a set of some size wants
 * @count: its prefixes
 *
 * Return: about log2(@count / 8), 0 to %NFHP_LPM_MAX_BITS.
 */
static unsigned int nfhp_lpm_index_bits(u32 count)
{
	int bits = fls(count) - 1 - NFHP_LPM_PER_SLOT_LOG;

	return clamp_t(int, bits, 0, NFHP_LPM_MAX_BITS);
}

/**
 * nfhp_lpm_table_alloc() - an empty table for some sorted prefixes
 * @ctx: the writer's context
 * @lpm: the set
 * @e: the prefixes, sorted, at least one
 * @n: how many
 *
 * Its c is the length of the prefix they share, and its k what
 * nfhp_lpm_index_bits() asks for, within the family's width.
 *
 * Return: the table, its slots unset, or NULL.
 */
static struct nfhp_lpm_table *
nfhp_lpm_table_alloc(struct nfhp_set_ctx *ctx, const struct nfhp_lpm *lpm,
		     const struct nfhp_lpm_entry *e, u32 n)
{
	unsigned int c = nfhp_lpm_common(e[0].addr, e[n - 1].addr), k;
	struct nfhp_lpm_table *t;
	u32 i;

	for (i = 0; i < n; i++)
		c = min_t(unsigned int, c, e[i].plen);
	k = min_t(unsigned int, nfhp_lpm_index_bits(n), lpm->width - c);
	t = nfhp_set_block_alloc(ctx, struct_size(t, slot, 1UL << k));
	if (!t)
		return NULL;
	t->c = c;
	t->k = k;
	t->base_mask = nfhp_lpm_high(c);
	t->base = e[0].addr & t->base_mask;
	t->slot_mask = nfhp_lpm_high(c + k) & ~t->base_mask;
	t->off_mask = ~nfhp_lpm_high(c + k);
	t->slot_shift = min(128 - c - k, 127U);
	return t;
}

/**
 * nfhp_lpm_table_free() - free a table and all it points to
 * @ctx: the writer's context
 * @t: the table
 * @retire: lookups may have seen it: retire rather than free
 */
static void nfhp_lpm_table_free(struct nfhp_set_ctx *ctx,
				struct nfhp_lpm_table *t, bool retire)
{
	struct nfhp_lpm_shorts *s = nfhp_lpm_shorts_of(ctx, t);
	u32 slot;

	for (slot = 0; slot < 1U << t->k; slot++) {
		if (retire)
			nfhp_lpm_word_retire(ctx, t->slot[slot]);
		else
			nfhp_lpm_word_free(ctx, t->slot[slot]);
	}
	if (retire) {
		nfhp_set_retire(ctx, s);
		nfhp_set_retire(ctx, t);
	} else {
		nfhp_set_block_free(ctx, s);
		nfhp_set_block_free(ctx, t);
	}
}

/**
 * nfhp_lpm_fill_shorts() - give a new table its short prefixes
 * @ctx: the writer's context
 * @t: the table
 * @e: all prefixes, sorted
 * @n: how many
 *
 * Return: 0 or -ENOMEM.
 */
static int nfhp_lpm_fill_shorts(struct nfhp_set_ctx *ctx,
				struct nfhp_lpm_table *t,
				const struct nfhp_lpm_entry *e, u32 n)
{
	struct nfhp_lpm_shorts *s;
	u32 i, m = 0;

	for (i = 0; i < n; i++)
		m += e[i].plen < t->c + t->k;
	if (!m)
		return 0;
	s = nfhp_set_block_alloc(ctx, struct_size(s, e, m));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (e[i].plen < t->c + t->k)
			s->e[s->m++] = e[i];
	RCU_INIT_POINTER(t->shorts, s);
	return 0;
}

/**
 * nfhp_lpm_fill_slots() - build every slot of a new table
 * @ctx: the writer's context
 * @lpm: the set
 * @t: the table, its short prefixes in place
 * @e: all prefixes, sorted
 * @n: how many
 *
 * Return: 0 or -ENOMEM, with the slots built so far set.
 */
static int nfhp_lpm_fill_slots(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			       struct nfhp_lpm_table *t,
			       const struct nfhp_lpm_entry *e, u32 n)
{
	const struct nfhp_lpm_shorts *s = nfhp_lpm_shorts_of(ctx, t);
	nfhp_u128 top = ~t->off_mask;
	struct nfhp_lpm_span dflt;
	u32 slot, i = 0, j, m;

	for (slot = 0; slot < 1U << t->k; slot++) {
		for (j = i; j < n && (e[j].addr & top) ==
		     nfhp_lpm_region(t, slot); j++)
			;
		if (nfhp_lpm_reserve(ctx, lpm, j - i))
			return -ENOMEM;
		for (m = 0; i < j; i++)
			if (e[i].plen >= t->c + t->k)
				lpm->ents[m++] = e[i];
		nfhp_lpm_cover(s, t, slot, &dflt);
		t->slot[slot] = nfhp_lpm_build(ctx, lpm, t, slot, lpm->ents, m,
					       &dflt);
		if (!t->slot[slot])
			return -ENOMEM;
	}
	return 0;
}

/**
 * nfhp_lpm_rebuild() - replace the table with one built anew
 * @ctx: the writer's context
 * @lpm: the set
 * @e: all its prefixes as they will be, sorted
 * @n: how many
 *
 * Return: 0, or -ENOMEM with the set as it was.
 */
static int nfhp_lpm_rebuild(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			    const struct nfhp_lpm_entry *e, u32 n)
{
	struct nfhp_lpm_table *old = nfhp_lpm_table_of(ctx, lpm), *t = NULL;

	if (n) {
		t = nfhp_lpm_table_alloc(ctx, lpm, e, n);
		if (!t)
			return -ENOMEM;
		if (nfhp_lpm_fill_shorts(ctx, t, e, n) ||
		    nfhp_lpm_fill_slots(ctx, lpm, t, e, n)) {
			nfhp_lpm_table_free(ctx, t, false);
			return -ENOMEM;
		}
	}
	rcu_assign_pointer(lpm->table, t);
	if (old)
		nfhp_lpm_table_free(ctx, old, true);
	lpm->count = n;
	return 0;
}

/**
 * nfhp_lpm_gather() - all prefixes of a set, sorted, with room for one
 * @ctx: the writer's context
 * @lpm: the set
 * @n: set to how many
 *
 * Merges the short prefixes into the long ones, which the slots hold in
 * order.  Free the array with nfhp_free(), of (count + 1) entries.
 *
 * Return: the array, or NULL.
 */
static struct nfhp_lpm_entry *nfhp_lpm_gather(struct nfhp_set_ctx *ctx,
					      struct nfhp_lpm *lpm, u32 *n)
{
	struct nfhp_lpm_table *t = nfhp_lpm_table_of(ctx, lpm);
	const struct nfhp_lpm_shorts *s = t ? nfhp_lpm_shorts_of(ctx, t) : NULL;
	u32 ns = s ? s->m : 0, si = 0, slot, i;
	const struct nfhp_lpm_bucket *b;
	struct nfhp_lpm_entry *e, l;

	e = nfhp_alloc_uninit(ctx->mem, (lpm->count + 1) * sizeof(*e));
	if (!e)
		return NULL;
	*n = 0;
	for (slot = 0; t && slot < 1U << t->k; slot++) {
		b = (const void *)t->slot[slot];
		if ((unsigned long)b & NFHP_LPM_INLINE)
			continue;
		for (i = 0; i < b->m; i++) {
			nfhp_lpm_bucket_entry(b, nfhp_lpm_region(t, slot), i,
					      &l);
			while (si < ns && nfhp_lpm_cmp(&s->e[si], &l) < 0)
				e[(*n)++] = s->e[si++];
			e[(*n)++] = l;
		}
	}
	while (si < ns)
		e[(*n)++] = s->e[si++];
	return e;
}

/**
 * nfhp_lpm_rebuild_with() - rebuild the table with a prefix more or less
 * @ctx: the writer's context
 * @lpm: the set
 * @e: the prefix, with its value; the set holds it when @del is
 * @del: delete it, rather than add it
 *
 * Return: %NFHP_SET_ADDED or %NFHP_SET_DELETED, or -ENOMEM.
 */
static int nfhp_lpm_rebuild_with(struct nfhp_set_ctx *ctx,
				 struct nfhp_lpm *lpm,
				 const struct nfhp_lpm_entry *e, bool del)
{
	size_t size = (lpm->count + 1) * sizeof(*e);
	struct nfhp_lpm_entry *all;
	u32 n, i;
	bool found;
	int ret;

	all = nfhp_lpm_gather(ctx, lpm, &n);
	if (!all)
		return -ENOMEM;
	i = nfhp_lpm_search(all, n, e, &found);
	if (del) {
		memmove(&all[i], &all[i + 1], (n - i - 1) * sizeof(*e));
		n--;
	} else {
		memmove(&all[i + 1], &all[i], (n - i) * sizeof(*e));
		all[i] = *e;
		n++;
	}
	ret = nfhp_lpm_rebuild(ctx, lpm, all, n);
	nfhp_free(ctx->mem, all, size);
	if (ret)
		return ret;
	return del ? NFHP_SET_DELETED : NFHP_SET_ADDED;
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
static int nfhp_lpm_add(struct nfhp_set_ctx *ctx, void *priv,
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
static int nfhp_lpm_del(struct nfhp_set_ctx *ctx, void *priv,
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
static int nfhp_lpm_walk(const void *priv, u64 *cursor,
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
static u32 nfhp_lpm_count(const void *priv)
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
static void *nfhp_lpm_create(struct nfhp_set_ctx *ctx, u8 family, u32 hint)
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
static void nfhp_lpm_destroy(struct nfhp_set_ctx *ctx, void *priv)
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
	.create = nfhp_lpm_create,
	.destroy = nfhp_lpm_destroy,
	.add = nfhp_lpm_add,
	.del = nfhp_lpm_del,
	.lookup = nfhp_lpm_lookup,
	.find = nfhp_lpm_find,
	.walk = nfhp_lpm_walk,
	.count = nfhp_lpm_count,
};
