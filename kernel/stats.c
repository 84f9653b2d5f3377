// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: statistics of the compiled trees and shadow analysis.
 *
 * A rule that appears in no leaf of any tree can never match a packet:
 * earlier rules cover all of it, or no hook reaches its chain.  Walking the
 * distinct leaves finds every rule that can match within its own tree, so
 * the rest are reported as shadowed, which no linear firewall can tell its
 * user.  A hook's rules are spread over several trees (by the width of
 * their addresses, see struct nfhp_tables), so an entry in a leaf of its
 * own tree may still be decided before, everywhere, by the others:
 * "-j DROP" then "-s 10.0.0.1 -j DROP", or "-d 10.32.0.0/12 -j DROP"
 * (the tree of wide sources), "-s 192.0.2.0/24 -d 10.48.0.0/12 -j DROP"
 * then "-s 192.0.2.1 -d 10.32.0.0/11 -j DROP" (both in that of narrow
 * ones, which leaves half of the last to the first tree).
 * Each entry found in a leaf is therefore asked of all the hook's trees
 * together (nfhp_trees_decided_before()): what one leaves undecided, the
 * next is asked about.  That is exact but for boxes of many pieces and
 * for searches past their budget, where a rule counts as reached: the
 * report is sound, and complete within those bounds.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "stats.h"
#include "tree.h"
#include "tunables.h"

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
	const struct nfhp_pageseq *entries = nfhp_ruleset_entries(rs, hook);
	const struct nfhp_node *root;
	const struct nfhp_entry *e;
	struct nfhp_pageseq_iter it;
	struct nfhp_forest *f;
	unsigned int g;

	memset(st, 0, sizeof(*st));
	st->rules = entries->n;
	nfhp_pageseq_iter_init(&it, entries, 0);
	while ((e = nfhp_pageseq_iter_next(&it))) {
		st->entry_mem += sizeof(*e);
		if (e->owns_box)
			st->entry_mem += e->box->size;
	}
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

/*
 * Nodes and list tests the search of one entry in the other trees may
 * visit (nfhp_tunables.shadow_budget), and all entries together: past them an
 * entry counts as reached, so a huge rule set is reported in bounded
 * time, less completely.  The search walks shared subtrees once per
 * path, so even a small rule set over many dimensions can spend it.
 */
#define NFHP_SHADOW_TOTAL_BUDGET	BIT(24)

static void nfhp_mark_leaf_entries(void *ctx, const struct nfhp_node *leaf)
{
	const struct nfhp_entry *const *items = nfhp_leaf_entries(leaf);
	u32 i;

	for (i = 0; i < leaf->n; i++)
		if (items[i]->rule && items[i]->action != NFHP_ENTRY_HOTDROP)
			nfhp_ptrset_add(ctx, items[i]);
}

/* Do the trees of @hook decide all of @e's box before it, between them? */
static bool nfhp_entry_preempted(const struct nfhp_ruleset *rs,
				 enum nfhp_hook hook,
				 const struct nfhp_entry *e,
				 unsigned int *total)
{
	const struct nfhp_node *roots[NFHP_HOOK_TREES], *root;
	unsigned int g, own = nfhp_ruleset_entry_tree(rs, hook, e), budget;
	struct nfhp_forest *f;
	unsigned int n = 0;
	bool preempted;

	/* Its own tree first: it decides most of the box, or none. */
	root = nfhp_ruleset_tree(rs, hook, own, &f);
	if (root)
		roots[n++] = root;
	for (g = 0; g < NFHP_HOOK_TREES; g++) {
		root = nfhp_ruleset_tree(rs, hook, g, &f);
		if (root && g != own)
			roots[n++] = root;
	}
	budget = min(*total, nfhp_tunables.shadow_budget);
	*total -= budget;
	preempted = nfhp_trees_decided_before(roots, n, e->box, e->order,
					      &budget);
	*total += budget;
	return preempted;
}

/*
 * Add to @reached the rules of @hook that some packet reaches: an entry
 * of theirs is in a leaf or list (@in_leaf) and no other tree decides
 * all of its box first.
 */
static void nfhp_mark_reached(const struct nfhp_ruleset *rs,
			      enum nfhp_hook hook,
			      const struct nfhp_ptrset *in_leaf,
			      struct nfhp_ptrset *reached, unsigned int *total)
{
	const struct nfhp_entry *e;
	struct nfhp_pageseq_iter it;

	nfhp_pageseq_iter_init(&it, nfhp_ruleset_entries(rs, hook), 0);
	while ((e = nfhp_pageseq_iter_next(&it))) {
		if (!e->rule || e->action == NFHP_ENTRY_HOTDROP ||
		    nfhp_ptrset_has(reached, e->rule) ||
		    !nfhp_ptrset_has(in_leaf, e) ||
		    nfhp_entry_preempted(rs, hook, e, total))
			continue;
		nfhp_ptrset_add(reached, e->rule);
	}
}

/* An empty set for @n pointers. */
static int nfhp_ptrset_init(struct nfhp_ptrset *s, unsigned long n)
{
	unsigned long size = 64;

	while (size < 2 * n + 2)
		size *= 2;
	s->mask = size - 1;
	s->slot = kvcalloc(size, sizeof(*s->slot), GFP_KERNEL);
	return s->slot ? 0 : -ENOMEM;
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
	unsigned int total = NFHP_SHADOW_TOTAL_BUDGET, pos, g;
	unsigned long entries = 0;
	struct nfhp_ptrset in_leaf, reached;
	const struct nfhp_node *root;
	const struct nfhp_chain *c;
	struct nfhp_forest *f;
	int h, err;

	for (h = 0; h < NFHP_HOOK_MAX; h++)
		entries += nfhp_ruleset_entries(rs, h)->n;
	err = nfhp_ptrset_init(&in_leaf, entries);
	if (err)
		return err;
	err = nfhp_ptrset_init(&reached, nfhp_ruleset_nrules(rs));
	if (err)
		goto out_free_in_leaf;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		for (g = 0; g < NFHP_HOOK_TREES; g++) {
			root = nfhp_ruleset_tree(rs, h, g, &f);
			if (root)
				nfhp_tree_walk_leaves(f, root,
						      nfhp_mark_leaf_entries,
						      &in_leaf);
		}
		nfhp_mark_reached(rs, h, &in_leaf, &reached, &total);
	}
	for (c = nfhp_chain_first(rs); c; c = nfhp_chain_next(rs, c)) {
		for (pos = 1; pos <= nfhp_chain_rules(c); pos++) {
			const struct nfhp_rule *r = nfhp_rule_at(c, pos);

			if (!nfhp_ptrset_has(&reached, r))
				cb(ctx, r);
		}
	}
	kvfree(reached.slot);
out_free_in_leaf:
	kvfree(in_leaf.slot);
	return err;
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
