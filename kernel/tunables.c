// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the core's tunables and their defaults, see tunables.h.
 */
#include "group.h"
#include "ruleset.h"
#include "seq.h"
#include "stats.h"
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
	.seq_page_max = NFHP_SEQ_PAGE,
};
