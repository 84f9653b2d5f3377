/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the index that finds an update's candidates.
 *
 * An update of a decision tree needs the entries whose boxes meet the
 * changed one (nfhp_tree_update()).  Scanning the hook's summaries for
 * them read every entry: at 100,000 rules 160,000 summaries to find about
 * four, a third of an update.  This index holds a hook's committed
 * entries sorted by where their source (or else destination) addresses
 * begin, so that a query reads only the entries that begin within a
 * bounded span before the changed box's addresses.
 */
#ifndef _NFHP_CAND_INDEX_H
#define _NFHP_CAND_INDEX_H

#include <linux/types.h>

#include "mem.h"
#include "pageseq.h"
#include "tree.h"

/**
 * struct nfhp_entry_sum - what an update reads of every entry of its hook
 * @lo: per address dimension (source, destination), the lowest value of
 *	the entry's box there, cut to its top 32 bits
 * @hi: the highest, cut alike
 *
 * Kept in an array beside the entry pointers of a hook (struct nfhp_flat
 * in ruleset_priv.h) and in the index, so that an update's passes read one
 * array in order, instead of an entry and its box each, at random places:
 * two cache and TLB misses per entry.  Cut values keep their order, so
 * entries whose cut hulls miss each other's are disjoint
 * (nfhp_entry_sum_meet()).
 */
struct nfhp_entry_sum {
	u32 lo[2];
	u32 hi[2];
};

/**
 * nfhp_entry_sum_meet() - can the boxes of two summaries meet?
 * @a: one summary
 * @b: the other
 *
 * Return: false only when they cannot.
 */
static inline bool nfhp_entry_sum_meet(const struct nfhp_entry_sum *a,
				       const struct nfhp_entry_sum *b)
{
	return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] &&
	       a->lo[1] <= b->hi[1] && b->lo[1] <= a->hi[1];
}

struct nfhp_cand_index_block;

/**
 * struct nfhp_cand_index_list - items sorted by a key, in blocks
 * @block: the blocks in key order, none empty
 * @nblocks: blocks in use
 * @cap: room in @block
 */
struct nfhp_cand_index_list {
	struct nfhp_cand_index_block **block;
	unsigned int nblocks;
	unsigned int cap;
};

#define NFHP_CAND_LISTS	5

/**
 * struct nfhp_cand_index - the candidate index of one hook
 * @list: per group (tree) of entries: those narrow in both address
 *	dimensions by the start of their source hull and again by the start
 *	of their destination hull; those narrow in the source only by its
 *	start; those narrow in the destination only by its start; those wide
 *	in both (cand_index.c)
 * @valid: the index holds exactly the hook's committed entries
 */
struct nfhp_cand_index {
	struct nfhp_cand_index_list list[NFHP_HOOK_TREES][NFHP_CAND_LISTS];
	bool valid;
};

/* Called for each entry a query finds, with its summary. */
typedef void (*nfhp_cand_index_fn)(void *arg, const struct nfhp_entry *e,
				const struct nfhp_entry_sum *sum);

void nfhp_cand_index_clear(struct nfhp_mem *mem, struct nfhp_cand_index *x);
void nfhp_entry_sum_fill(struct nfhp_entry_sum *sum,
			 const struct nfhp_box *box);
int nfhp_cand_index_build(struct nfhp_mem *mem, struct nfhp_cand_index *x,
			  const struct nfhp_pageseq *e, unsigned int n);
int nfhp_cand_index_add(struct nfhp_mem *mem, struct nfhp_cand_index *x,
			unsigned int g, const struct nfhp_entry *e,
		     const struct nfhp_entry_sum *sum);
bool nfhp_cand_index_del(struct nfhp_mem *mem, struct nfhp_cand_index *x,
			 unsigned int g, const struct nfhp_entry *e,
		      const struct nfhp_entry_sum *sum);
void nfhp_cand_index_query(const struct nfhp_cand_index *x, unsigned int g,
			   const struct nfhp_entry_sum *q,
			   nfhp_cand_index_fn fn,
			void *arg);

#endif /* _NFHP_CAND_INDEX_H */
