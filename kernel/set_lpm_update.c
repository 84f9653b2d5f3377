// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets, the "lpm" algorithm: the changes of its table.
 *
 * A long prefix changes the bucket of its slot
 * (nfhp_lpm_change_long()); a short one the block of short prefixes
 * and the default of each of its slots (nfhp_lpm_change_short()); a
 * prefix outside the geometry of the table, or a set that grew or
 * shrank past it, rebuilds the whole table (nfhp_lpm_rebuild_with()).
 * See DOC: Theory of Operation (set_lpm.c).
 */
#include <linux/kernel.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "set_lpm_priv.h"

/* The writers' side: one long prefix. */

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
int nfhp_lpm_change_long(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
			 struct nfhp_lpm_table *t,
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
int nfhp_lpm_change_short(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
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
void nfhp_lpm_table_free(struct nfhp_set_ctx *ctx,
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
int nfhp_lpm_rebuild_with(struct nfhp_set_ctx *ctx, struct nfhp_lpm *lpm,
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
