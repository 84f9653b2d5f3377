/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the core's tunables, one struct for all.
 *
 * Each is a bound or a threshold of the core with a default chosen by
 * measurement, named beside the code it bounds.  The kernel never changes
 * them: there the struct is const.  The userspace tests set them to reach
 * code that the defaults reach only with large rule sets, or to check a
 * short cut against the long way.
 */
#ifndef _NFHP_TUNABLES_H
#define _NFHP_TUNABLES_H

#include <linux/types.h>

/**
 * struct nfhp_tunables - the core's tunables
 * @fold_recheck: commits between two checks of a hook's fold, at least
 *	(%NFHP_FOLD_RECHECK, ruleset.h)
 * @update_visits_per_entry: nodes the updates of a tree in one commit may
 *	visit per entry of its hook (%NFHP_UPDATE_VISITS_PER_ENTRY,
 *	ruleset.h)
 * @update_visits_min: and this many more (%NFHP_UPDATE_VISITS_MIN)
 * @flat_per_rule: entries a hook may flatten into per rule of the rule
 *	set (%NFHP_FLAT_PER_RULE, ruleset.h)
 * @flat_min: and this many whatever the rules (%NFHP_FLAT_MIN)
 * @hash_min_chains: models of fewer chains are searched by name, larger
 *	ones hashed (%NFHP_HASH_MIN_CHAINS, ruleset.h)
 * @update_verify: check the short cuts of an update against the long
 *	way; false in the kernel.  Scope ends set near the changes are
 *	checked by a pass over all entries (nfhp_flat_scopes()); the rules
 *	a walk carries over as untouched by the transaction are compared
 *	all the same (nfhp_reflat_run()); a jump's chain is found by its
 *	name, not its hash alone, and its slot checked against it
 *	(nfhp_target_stable()).
 * @one_tree: build each hook as one tree, no groups: the exact answer of
 *	shadow analysis, which test_diff holds the grouped trees' to
 *	(stats.c); false in the kernel
 * @fold_copies: the estimate of copies per entry below which a dimension
 *	is folded (%NFHP_FOLD_COPIES, group.h)
 * @shadow_budget: nodes and list tests the shadow search of one entry may
 *	visit (%NFHP_SHADOW_ENTRY_BUDGET, stats.h)
 * @page_fill: pointers a page of a sequence is filled up to
 *	(%NFHP_PAGESEQ_PAGE, pageseq.h)
 * @node_fanout: intervals a node may hold, half of them, before it is cut
 *	into pieces (%NFHP_NODE_FANOUT, tree.h)
 * @node_piece: intervals of such a piece (%NFHP_NODE_PIECE)
 * @splice_verify: check a spliced copy's index and hash against ones made
 *	afresh; false in the kernel
 * @list_max: relevant entries a list node may hold (%NFHP_LIST_MAX,
 *	tree.h), 0 for none
 * @events_insertion_max: interval ends a split sorts by insertion, not by
 *	radix (%NFHP_EVENTS_INSERTION_MAX, tree.h)
 * @share_min: relevant entries in each half of a tree's first split for
 *	a helper to build one (%NFHP_SHARE_MIN, tree.h)
 * @build_budget: work units a build may do per relevant entry of its root
 *	(%NFHP_BUILD_BUDGET, tree.h, "Bounded builds" in tree.c)
 * @build_first: and on its first attempt (%NFHP_BUILD_FIRST)
 * @build_budget_min: a build's budget, at least (%NFHP_BUILD_BUDGET_MIN)
 * @build_budget_max: and at most (%NFHP_BUILD_BUDGET_MAX)
 * @cover_pieces: pieces a rule's matches may make before the shadow search
 *	asks about their hull (%NFHP_COVER_PIECES, tree.h)
 */
struct nfhp_tunables {
	u32 fold_recheck;
	u32 update_visits_per_entry;
	u32 update_visits_min;
	u32 flat_per_rule;
	u32 flat_min;
	u32 hash_min_chains;
	bool update_verify;
	bool one_tree;
	u32 fold_copies;
	u32 shadow_budget;
	u32 page_fill;
	u32 node_fanout;
	u32 node_piece;
	bool splice_verify;
	u32 list_max;
	u32 events_insertion_max;
	u32 share_min;
	u32 build_budget;
	u32 build_first;
	u32 build_budget_min;
	u32 build_budget_max;
	u32 cover_pieces;
};

#ifdef __KERNEL__
extern const struct nfhp_tunables nfhp_tunables;
#else
extern struct nfhp_tunables nfhp_tunables;
#endif

#endif /* _NFHP_TUNABLES_H */
