/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: what the files of the "lpm" set algorithm share.
 *
 * Its geometry, the layout of its tables and buckets, the small helpers
 * on addresses, prefixes and slot words, and the functions set_lpm*.c
 * call across files.  Not an API: that is set_algo.h.  DOC: Theory of
 * Operation (set_lpm.c) says which file does what.
 */
#ifndef _NFHP_SET_LPM_PRIV_H
#define _NFHP_SET_LPM_PRIV_H

#include <linux/kernel.h>
#include <linux/rcupdate.h>

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

/* Addresses and prefixes, left-aligned in 128 bits. */

/**
 * nfhp_lpm_high() - a mask of the first bits of 128
 * @bits: how many, 0 to 128
 *
 * Return: the mask.
 */
static inline nfhp_u128 nfhp_lpm_high(unsigned int bits)
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
static inline nfhp_u128 nfhp_lpm_last(nfhp_u128 addr, unsigned int plen)
{
	return addr | ~nfhp_lpm_high(plen);
}

/**
 * nfhp_lpm_ctz() - the trailing zero bits of a non-zero value
 * @v: the value
 *
 * Return: 0 to 127.
 */
static inline unsigned int nfhp_lpm_ctz(nfhp_u128 v)
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
static inline unsigned int nfhp_lpm_common(nfhp_u128 a, nfhp_u128 b)
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
static inline int nfhp_lpm_cmp(const struct nfhp_lpm_entry *a,
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
static inline u32 nfhp_lpm_search(const struct nfhp_lpm_entry *e, u32 m,
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

/* Tables, slot words and buckets. */

/**
 * nfhp_lpm_word() - the slot word of an inline value
 * @value: the value
 * @hit: whether it is an answer
 *
 * Return: the word.
 */
static inline unsigned long nfhp_lpm_word(u32 value, bool hit)
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
static inline void nfhp_lpm_layout(u32 n, u32 m, unsigned int kw,
				   struct nfhp_lpm_layout *l)
{
	l->vals = ALIGN((size_t)(n - 1) * kw, 4);
	l->hits = l->vals + (size_t)n * 4;
	l->offs = ALIGN(l->hits + DIV_ROUND_UP(n, 8), kw);
	l->pvals = ALIGN(l->offs + (size_t)m * kw, 4);
	l->plens = l->pvals + (size_t)m * 4;
	l->size = l->plens + m;
}

/**
 * nfhp_lpm_get_off() - one stored offset
 * @p: the array
 * @kw: the bytes of each
 * @i: which
 *
 * Return: the offset, as stored.
 */
static inline nfhp_u128 nfhp_lpm_get_off(const u8 *p, unsigned int kw,
					 u32 i)
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
 * nfhp_lpm_region() - the first address of a slot
 * @t: the table
 * @slot: the slot's index
 *
 * Return: the address, left-aligned.
 */
static inline nfhp_u128 nfhp_lpm_region(const struct nfhp_lpm_table *t,
					u32 slot)
{
	if (!t->k)
		return t->base;
	return t->base | (nfhp_u128)slot << t->slot_shift;
}

/**
 * nfhp_lpm_slot_of() - the slot of an address in a table
 * @t: the table
 * @a: the address, left-aligned, with the table's first @c bits
 *
 * Return: the slot's index.
 */
static inline u32 nfhp_lpm_slot_of(const struct nfhp_lpm_table *t,
				   nfhp_u128 a)
{
	return (u32)((a & t->slot_mask) >> t->slot_shift);
}

/**
 * nfhp_lpm_table_of() - the table, for a writer
 * @ctx: the writer's context
 * @lpm: the set
 *
 * Return: the table, or NULL.
 */
static inline struct nfhp_lpm_table *
nfhp_lpm_table_of(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm)
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
static inline struct nfhp_lpm_shorts *
nfhp_lpm_shorts_of(struct nfhp_set_ctx *ctx, struct nfhp_lpm_table *t)
{
	return rcu_dereference_protected(t->shorts, nfhp_set_writing(ctx));
}

/**
 * nfhp_lpm_index_bits() - the index bits a set of some size wants
 * @count: its prefixes
 *
 * Return: about log2(@count / 8), 0 to %NFHP_LPM_MAX_BITS.
 */
static inline unsigned int nfhp_lpm_index_bits(u32 count)
{
	int bits = fls(count) - 1 - NFHP_LPM_PER_SLOT_LOG;

	return clamp_t(int, bits, 0, NFHP_LPM_MAX_BITS);
}

/* set_lpm.c */
void nfhp_lpm_bucket_entry(const struct nfhp_lpm_bucket *b, nfhp_u128 region,
			   u32 i, struct nfhp_lpm_entry *e);

/* set_lpm_bucket.c */
void nfhp_lpm_scratch_free(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm);
int nfhp_lpm_reserve(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm, u32 m);
unsigned long nfhp_lpm_build(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			     const struct nfhp_lpm_table *t, u32 slot,
			     const struct nfhp_lpm_entry *e, u32 m,
			     const struct nfhp_lpm_span *dflt);
void nfhp_lpm_word_free(struct nfhp_set_ctx *ctx, unsigned long w);
void nfhp_lpm_word_retire(struct nfhp_set_ctx *ctx, unsigned long w);
void nfhp_lpm_publish(struct nfhp_set_ctx *ctx, struct nfhp_lpm_table *t,
		      u32 slot, unsigned long w);
void nfhp_lpm_default(unsigned long w, struct nfhp_lpm_span *dflt);
void nfhp_lpm_cover(const struct nfhp_lpm_shorts *s,
		    const struct nfhp_lpm_table *t, u32 slot,
		    struct nfhp_lpm_span *dflt);
int nfhp_lpm_unpack(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
		    const struct nfhp_lpm_table *t, u32 slot, u32 extra);

/* set_lpm_update.c */
int nfhp_lpm_change_long(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			 struct nfhp_lpm_table *t,
			 const struct nfhp_lpm_entry *e, int op);
int nfhp_lpm_change_short(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			  struct nfhp_lpm_table *t,
			  const struct nfhp_lpm_entry *e, int op);
void nfhp_lpm_table_free(struct nfhp_set_ctx *ctx,
			 struct nfhp_lpm_table *t, bool retire);
int nfhp_lpm_rebuild_with(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			  const struct nfhp_lpm_entry *e, bool del);

#endif /* _NFHP_SET_LPM_PRIV_H */
