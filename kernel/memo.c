// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the subtrees one build made, by their relevant entries.
 *
 * Below a split every relevant entry covers the child's interval of the
 * split dimension or misses it, and a dimension no split on the path cut
 * is whole, as the build's region has it.  So within one build a region's
 * subtree depends on its relevant entries and on which dimensions the
 * path cut, nothing else (tree.c, "Building"), and every region reached
 * with the same of both, however many paths lead there, gets the subtree
 * built the first time.  The dimensions count: a child whose interval an
 * entry covers may have the same entries as its parent, which that entry
 * does not cover.  Deduplication would
 * store the copies once anyway; the memo saves building them: a random
 * rule set of 170 rules over 12 dimensions reached 964,000 distinct
 * regions by 56 million paths.
 *
 * The table grows by doubling; when memory runs short a subtree is not
 * stored and its twins are built again, which costs time, never a wrong
 * tree.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "memo.h"

#define NFHP_MEMO_MIN_SLOTS	64

/**
 * nfhp_memo_init() - start an empty memo
 * @m: the memo
 */
void nfhp_memo_init(struct nfhp_memo *m)
{
	m->slot = NULL;
	m->mask = 0;
	m->used = 0;
	nfhp_scratch_init(&m->keys);
}

/**
 * nfhp_memo_destroy() - forget every subtree
 * @m: the memo
 */
void nfhp_memo_destroy(struct nfhp_memo *m)
{
	kvfree(m->slot);
	m->slot = NULL;
	nfhp_scratch_destroy(&m->keys);
}

/**
 * nfhp_memo_hash() - set the hash of a key
 * @k: the key, its other fields set
 */
void nfhp_memo_hash(struct nfhp_memo_key *k)
{
	u64 h = (k->n ^ (u64)k->cut << 32) * 0x9e3779b97f4a7c15ull;
	u32 i;

	for (i = 0; i < k->n; i++) {
		h ^= (unsigned long)k->rel[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	k->hash = (u32)(h ^ h >> 32);
}

static bool nfhp_memo_same(const struct nfhp_memo_key *a,
			   const struct nfhp_memo_key *b)
{
	return a->hash == b->hash && a->n == b->n && a->cut == b->cut &&
	       !memcmp(a->rel, b->rel, a->n * sizeof(*a->rel));
}

/**
 * nfhp_memo_find() - the subtree built from the same key
 * @m: the memo
 * @k: the key, hashed
 *
 * Return: its root, NULL when none was stored.
 */
struct nfhp_node *nfhp_memo_find(const struct nfhp_memo *m,
				 const struct nfhp_memo_key *k)
{
	u32 i;

	if (!m->slot)
		return NULL;
	for (i = k->hash & m->mask; m->slot[i].node; i = (i + 1) & m->mask)
		if (nfhp_memo_same(&m->slot[i].key, k))
			return m->slot[i].node;
	return NULL;
}

/* Put @from into the table @slot of @mask + 1 slots, all free. */
static void nfhp_memo_place(struct nfhp_memo_slot *slot, u32 mask,
			    const struct nfhp_memo_slot *from)
{
	u32 i;

	for (i = from->key.hash & mask; slot[i].node; i = (i + 1) & mask)
		;
	slot[i] = *from;
}

/* Make room for one more slot; false when there is no memory for it. */
static bool nfhp_memo_room(struct nfhp_memo *m)
{
	u32 size = m->slot ? 2 * (m->mask + 1) : NFHP_MEMO_MIN_SLOTS, i;
	struct nfhp_memo_slot *slot;

	/* At most three quarters full, so that a probe ends soon. */
	if (m->slot && 4 * (m->used + 1) <= 3 * (m->mask + 1))
		return true;
	slot = kvcalloc(size, sizeof(*slot), GFP_KERNEL | __GFP_NOWARN);
	if (!slot)
		return false;
	for (i = 0; m->slot && i <= m->mask; i++)
		if (m->slot[i].node)
			nfhp_memo_place(slot, size - 1, &m->slot[i]);
	kvfree(m->slot);
	m->slot = slot;
	m->mask = size - 1;
	return true;
}

/**
 * nfhp_memo_store() - remember the subtree built from a key
 * @m: the memo
 * @k: the key, hashed; its entries are copied
 * @node: the subtree's root, which the build holds until it returns
 *
 * Call only when nfhp_memo_find() found none.  A region's key differs
 * from every region's below it, whose paths cut one dimension more.
 */
void nfhp_memo_store(struct nfhp_memo *m, const struct nfhp_memo_key *k,
		     struct nfhp_node *node)
{
	struct nfhp_memo_slot slot = { .key = *k, .node = node };
	const struct nfhp_entry **rel;

	if (!nfhp_memo_room(m))
		return;
	rel = nfhp_scratch_alloc(&m->keys, k->n, sizeof(*rel));
	if (!rel)
		return;
	memcpy(rel, k->rel, k->n * sizeof(*rel));
	slot.key.rel = rel;
	nfhp_memo_place(m->slot, m->mask, &slot);
	m->used++;
}
