// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the core's tunables and their defaults, see tunables.h.
 */
#include "group.h"
#include "ruleset.h"
#include "pageseq.h"
#include "stats.h"
#include "tree.h"
#include "tunables.h"

#ifdef __KERNEL__
const
#endif
struct nfhp_tunables nfhp_tunables = {
	.fold_recheck = NFHP_FOLD_RECHECK,
	.update_visits_per_entry = NFHP_UPDATE_VISITS_PER_ENTRY,
	.update_visits_min = NFHP_UPDATE_VISITS_MIN,
	.flat_per_rule = NFHP_FLAT_PER_RULE,
	.flat_min = NFHP_FLAT_MIN,
	.hash_min_chains = NFHP_HASH_MIN_CHAINS,
	.fold_copies = NFHP_FOLD_COPIES,
	.shadow_budget = NFHP_SHADOW_ENTRY_BUDGET,
	.page_fill = NFHP_PAGESEQ_PAGE,
	.node_fanout = NFHP_NODE_FANOUT,
	.node_piece = NFHP_NODE_PIECE,
	.list_max = NFHP_LIST_MAX,
	.events_insertion_max = NFHP_EVENTS_INSERTION_MAX,
	.share_min = NFHP_SHARE_MIN,
	.build_budget = NFHP_BUILD_BUDGET,
	.build_first = NFHP_BUILD_FIRST,
	.build_budget_min = NFHP_BUILD_BUDGET_MIN,
	.build_budget_max = NFHP_BUILD_BUDGET_MAX,
	.cover_pieces = NFHP_COVER_PIECES,
};
