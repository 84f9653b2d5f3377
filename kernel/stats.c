// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: statistics of the compiled trees and shadow analysis.
 *
 * A rule that appears in no leaf of any tree can never match a packet:
 * earlier rules cover all of it, or no hook reaches its chain.  Walking the
 * distinct leaves finds every rule that can match, so the rest are reported
 * as shadowed, which no linear firewall can tell its user.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "stats.h"
#include "tree.h"

/**
 * nfhp_tree_get_stats() - the shape of a hook's committed tree
 * @rs: the rule set
 * @hook: the hook
 * @st: filled with the statistics
 *
 * Return: 0.
 */
int nfhp_tree_get_stats(const struct nfhp_ruleset *rs, enum nfhp_hook hook,
			struct nfhp_tree_stats *st)
{
	const struct nfhp_node *root;
	struct nfhp_forest *f;
	unsigned int g;

	memset(st, 0, sizeof(*st));
	nfhp_ruleset_entries(rs, hook, &st->rules);
	for (g = 0; g < NFHP_HOOK_TREES; g++) {
		root = nfhp_ruleset_tree(rs, hook, g, &f);
		if (!root)
			continue;
		st->trees++;
		nfhp_tree_stats(f, root, st);
	}
	return 0;
}

/**
 * struct nfhp_ptrset - an open-addressing set of pointers
 * @slot: the slots, NULL when free
 * @mask: number of slots less one
 */
struct nfhp_ptrset {
	const void **slot;
	unsigned long mask;
};

static unsigned long nfhp_ptr_hash(const void *p)
{
	return ((unsigned long)p >> 4) * 0x9e3779b97f4a7c15ull;
}

static void nfhp_ptrset_add(struct nfhp_ptrset *s, const void *p)
{
	unsigned long i = nfhp_ptr_hash(p) & s->mask;

	while (s->slot[i] && s->slot[i] != p)
		i = (i + 1) & s->mask;
	s->slot[i] = p;
}

static bool nfhp_ptrset_has(const struct nfhp_ptrset *s, const void *p)
{
	unsigned long i = nfhp_ptr_hash(p) & s->mask;

	while (s->slot[i]) {
		if (s->slot[i] == p)
			return true;
		i = (i + 1) & s->mask;
	}
	return false;
}

static void nfhp_mark_leaf_rules(void *ctx, const struct nfhp_node *leaf)
{
	const struct nfhp_entry *const *items = nfhp_leaf_entries(leaf);
	u32 i;

	for (i = 0; i < leaf->n; i++)
		if (items[i]->rule && items[i]->action != NFHP_ENTRY_HOTDROP)
			nfhp_ptrset_add(ctx, items[i]->rule);
}

/**
 * nfhp_shadowed_rules() - report every rule that can never match
 * @rs: the rule set
 * @cb: called for each such rule, in chain order
 * @ctx: passed to @cb
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_shadowed_rules(const struct nfhp_ruleset *rs, nfhp_shadow_cb cb,
			void *ctx)
{
	unsigned long size = 64;
	const struct nfhp_chain *c;
	struct nfhp_ptrset set;
	unsigned int pos;
	int h;

	while (size < 2ul * nfhp_ruleset_nrules(rs) + 2)
		size *= 2;
	set.mask = size - 1;
	set.slot = kvcalloc(size, sizeof(*set.slot), GFP_KERNEL);
	if (!set.slot)
		return -ENOMEM;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		const struct nfhp_node *root;
		struct nfhp_forest *f;
		unsigned int g;

		for (g = 0; g < NFHP_HOOK_TREES; g++) {
			root = nfhp_ruleset_tree(rs, h, g, &f);
			if (root)
				nfhp_tree_walk_leaves(f, root,
						      nfhp_mark_leaf_rules, &set);
		}
	}
	for (c = nfhp_chain_first(rs); c; c = nfhp_chain_next(rs, c)) {
		for (pos = 1; pos <= nfhp_chain_rules(c); pos++) {
			const struct nfhp_rule *r = nfhp_rule_at(c, pos);

			if (!nfhp_ptrset_has(&set, r))
				cb(ctx, r);
		}
	}
	kvfree(set.slot);
	return 0;
}

/**
 * nfhp_ruleset_uses_dim() - does any rule match on a dimension?
 * @rs: the rule set
 * @dim: the dimension
 *
 * The glue asks for %NFHP_DIM_STATE, to enable connection tracking when a
 * rule has a state match, as iptables does, even one that lets every
 * state through: conntrack also reassembles fragments.
 *
 * Return: true when some rule's specification names @dim.
 */
bool nfhp_ruleset_uses_dim(const struct nfhp_ruleset *rs, enum nfhp_dim dim)
{
	const struct nfhp_chain *c;
	unsigned int pos;

	for (c = nfhp_chain_first(rs); c; c = nfhp_chain_next(rs, c))
		for (pos = 1; pos <= nfhp_chain_rules(c); pos++)
			if (nfhp_rule_written(nfhp_rule_at(c, pos)) &
			    (1u << dim))
				return true;
	return false;
}
