// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets, the "lpm" algorithm: the buckets of its slots.
 *
 * The writers' scratch arrays; the sweep of a slot's region into its
 * intervals, and the bucket (or inline word) built of them
 * (nfhp_lpm_build()); the publication and retirement of slot words; a
 * slot's default, the answer of the short prefixes holding it; and a
 * bucket's prefixes unpacked for a change.  See DOC: Theory of
 * Operation (set_lpm.c).
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "set_lpm_priv.h"

/* The scratch arrays. */

/**
 * nfhp_lpm_scratch_free() - free the scratch arrays of a set
 * @ctx: the writer's context
 * @lpm: the set
 */
void nfhp_lpm_scratch_free(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm)
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
int nfhp_lpm_reserve(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm, u32 m)
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

/* The sweep of a region, and its bucket. */

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
unsigned long nfhp_lpm_build(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
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

/* Slot words: publication, retirement, defaults, prefixes. */

/**
 * nfhp_lpm_word_free() - free a word's bucket that no lookup saw
 * @ctx: the writer's context
 * @w: the word, inline or not
 */
void nfhp_lpm_word_free(struct nfhp_set_ctx *ctx, unsigned long w)
{
	if (w && !(w & NFHP_LPM_INLINE))
		nfhp_set_block_free(ctx, (void *)w);
}

/**
 * nfhp_lpm_word_retire() - retire a word's bucket once unpublished
 * @ctx: the writer's context
 * @w: the word, inline or not
 */
void nfhp_lpm_word_retire(struct nfhp_set_ctx *ctx, unsigned long w)
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
void nfhp_lpm_publish(struct nfhp_set_ctx *ctx, struct nfhp_lpm_table *t,
		      u32 slot, unsigned long w)
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
void nfhp_lpm_default(unsigned long w, struct nfhp_lpm_span *dflt)
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
void nfhp_lpm_cover(const struct nfhp_lpm_shorts *s,
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
int nfhp_lpm_unpack(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
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
