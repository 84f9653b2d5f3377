/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the core's tunables, one struct for all.
 *
 * Each is a bound or a threshold of the core with a default chosen by
 * measurement, named beside the code it bounds.  The kernel never changes
 * them: there the struct is const.  The userspace tests set them to reach
 * code that the defaults reach only with large rule sets, or to check a
 * short cut against the long way.
 *
 * The tree's own knobs (tree.h) are not here yet.
 */
#ifndef _NFHP_TUNABLES_H
#define _NFHP_TUNABLES_H

#include <linux/types.h>

/**
 * struct nfhp_tunables - the core's tunables
 * @fold_recheck: commits between two checks of a hook's fold, at least
 *	(%NFHP_FOLD_RECHECK, ruleset.h)
 * @update_visits_per_entry: nodes an update of a tree may visit per entry
 *	of its hook (%NFHP_UPDATE_VISITS_PER_ENTRY, ruleset.h)
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
 * @seq_page_max: pointers a page of a sequence is filled up to
 *	(%NFHP_SEQ_PAGE, seq.h)
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
	u32 seq_page_max;
};

#ifdef __KERNEL__
extern const struct nfhp_tunables nfhp_tunables;
#else
extern struct nfhp_tunables nfhp_tunables;
#endif

#endif /* _NFHP_TUNABLES_H */
