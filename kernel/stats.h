/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: statistics of the compiled trees and shadow analysis.
 *
 * The numbers behind /proc/net/nf-hipac/statistics/ and the simulator's
 * --stats.  They are computed on demand by walking a committed tree, under
 * the ruleset mutex, so the packet path pays nothing for them.
 */
#ifndef _NFHP_STATS_H
#define _NFHP_STATS_H

#include "ruleset.h"

#define NFHP_HIST_BUCKETS 32

/**
 * struct nfhp_tree_stats - the shape of one hook's tree
 * @rules: entries of the hook: rules reachable from its chain, counted once
 *	per path, their hotdrop entries (key.h) and the policy
 * @trees: trees the hook's entries are split into
 * @mem: bytes held by the tree's nodes and leaves
 * @entry_mem: bytes held by the hook's entries, the boxes that jumps
 *	narrowed for them included; trees, entries and counters
 *	(nfhp_ruleset_counter_mem()) are what lookups read
 * @nodes: range-location nodes
 * @nodes_per_dim: range-location nodes of each dimension
 * @leaves: distinct leaves, list nodes included (tree.c)
 * @lists: distinct list nodes
 * @depth: largest number of nodes on a path from the root to a leaf
 * @node_size_hist: @node_size_hist[i] counts nodes with 2^i to 2^(i+1)-1
 *	intervals
 * @leaf_size_hist: @leaf_size_hist[i] counts leaves with 2^i to 2^(i+1)-1
 *	entries (bucket 0 also holds empty leaves)
 * @depth_hist: @depth_hist[d] counts leaves at depth d (d capped at 31)
 * @shared: node references that point at a node already counted, which is
 *	what deduplication saved
 * @tested: distinct leaves of regions whose build was cut short at their
 *	share of the work, whose entries a lookup tests one by one
 *	("Bounded builds" in tree.c)
 * @tested_entries: entries of those leaves, each counted once per leaf
 * @tested_max: entries of the largest of them: the most tests a lookup
 *	of this hook may make in one tree
 */
struct nfhp_tree_stats {
	unsigned int rules;
	unsigned int trees;
	u64 mem;
	u64 entry_mem;
	unsigned int nodes;
	unsigned int nodes_per_dim[NFHP_DIM_MAX];
	unsigned int leaves;
	unsigned int lists;
	unsigned int depth;
	unsigned int node_size_hist[NFHP_HIST_BUCKETS];
	unsigned int leaf_size_hist[NFHP_HIST_BUCKETS];
	unsigned int depth_hist[NFHP_HIST_BUCKETS];
	unsigned int shared;
	unsigned int tested;
	unsigned int tested_entries;
	unsigned int tested_max;
};

int nfhp_tree_get_stats(const struct nfhp_ruleset *rs, enum nfhp_hook hook,
			struct nfhp_tree_stats *st);

/**
 * typedef nfhp_shadow_cb - called for each rule that can never match
 * @ctx: the caller's context
 * @rule: the shadowed rule
 */
typedef void (*nfhp_shadow_cb)(void *ctx, const struct nfhp_rule *rule);

/*
 * Nodes and list tests the search of one entry in the other trees of its
 * hook may visit (stats.c).  nfhp_tunables.shadow_budget is this, or more
 * in tests, which compare analyses of differently shaped trees and so
 * must not stop either early.
 */
#define NFHP_SHADOW_ENTRY_BUDGET	4096

int nfhp_shadowed_rules(const struct nfhp_ruleset *rs, nfhp_shadow_cb cb,
			void *ctx);

bool nfhp_ruleset_uses_dim(const struct nfhp_ruleset *rs, enum nfhp_dim dim);

#endif /* _NFHP_STATS_H */
