/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the subtrees one build made, found again by their relevant
 * entries.  See "Building" in DOC: Theory of Operation (tree.c).
 */
#ifndef _NFHP_MEMO_H
#define _NFHP_MEMO_H

#include <linux/types.h>

#include "scratch.h"

struct nfhp_entry;
struct nfhp_node;

/**
 * struct nfhp_memo_key - what a region's subtree is built from
 * @rel: the relevant entries, in order
 * @n: entries in @rel
 * @cut: a bit per dimension that splits on the path to the region cut
 *	(every relevant entry covers the region there; the region is the
 *	build's own in the others)
 * @hash: nfhp_memo_hash() of the rest
 */
struct nfhp_memo_key {
	const struct nfhp_entry *const *rel;
	u32 n;
	u32 cut;
	u32 hash;
};

/**
 * struct nfhp_memo_slot - one subtree of the build
 * @key: what it was built from; its @rel is the memo's copy
 * @node: its root, NULL for a free slot
 */
struct nfhp_memo_slot {
	struct nfhp_memo_key key;
	struct nfhp_node *node;
};

/**
 * struct nfhp_memo - the subtrees of one build, by relevant entries
 * @slot: open-addressing table, NULL until the first subtree is stored
 * @mask: slots less one
 * @used: slots taken
 * @keys: the copies of the @rel arrays, freed with the memo
 *
 * It holds no references: every node in it is a child of a node the same
 * build made, alive until the build returns.
 */
struct nfhp_memo {
	struct nfhp_memo_slot *slot;
	u32 mask;
	u32 used;
	struct nfhp_scratch keys;
};

void nfhp_memo_init(struct nfhp_memo *m);
void nfhp_memo_destroy(struct nfhp_memo *m);
void nfhp_memo_hash(struct nfhp_memo_key *k);
struct nfhp_node *nfhp_memo_find(const struct nfhp_memo *m,
				 const struct nfhp_memo_key *k);
void nfhp_memo_store(struct nfhp_memo *m, const struct nfhp_memo_key *k,
		     struct nfhp_node *node);

#endif /* _NFHP_MEMO_H */
