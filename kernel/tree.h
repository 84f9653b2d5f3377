/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the decision tree.  See DOC: Theory of Operation in tree.c.
 */
#ifndef _NFHP_TREE_H
#define _NFHP_TREE_H

#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/mutex.h>

#include "match.h"
#include "ruleset.h"
#include "scratch.h"
#include "pageseq.h"
#include "stats.h"

/*
 * Entry actions besides enum nfhp_action: the hook's policy decides, or
 * the packet is dropped as iptables drops a short one (key.h).
 */
#define NFHP_ENTRY_POLICY	NFHP_ACT_MAX
#define NFHP_ENTRY_HOTDROP	(NFHP_ACT_MAX + 1)

/*
 * Entry flags.  EVAL: the rule's extensions (ext.h) run at packet time, so
 * whether it matches, or what its target says, is known only then.  COND:
 * the entry may not be reached or may not decide even when its box holds
 * the packet (EVAL, or inside a chain entered by an EVAL jump), so a tree
 * cannot stop at it.
 */
#define NFHP_ENTRY_EVAL		0x01
#define NFHP_ENTRY_COND		0x02
/* The entry is for the rule's second box, @alt (flat.c). */
#define NFHP_ENTRY_ALT		0x04
/*
 * The jumps that lead to the entry exclude its box, so no tree holds it;
 * after a target changed the packet (a mark) the walk of the hook's rest
 * tests it with its rule's own box (classify.c).
 */
#define NFHP_ENTRY_VOID		0x08

/*
 * How the entries of a leaf are walked at packet time (its @ibits, a
 * hit's @walk).  EVAL: one runs extensions.  TESTED: the leaf is a region
 * whose build was past its share of the work ("Bounded builds" in tree.c):
 * it holds every relevant entry, and each box is tested against the
 * packet.
 */
#define NFHP_WALK_EVAL		0x01
#define NFHP_WALK_TESTED	0x02

/* @scope_end of an entry that has none. */
#define NFHP_ORDER_UNSET	(~0ull)

/**
 * struct nfhp_entry_leaf - the header of an entry's own leaf
 * @kind: %NFHP_NODE_LEAF once nfhp_entry_leaf_init() ran
 * @dim: unused, as in any leaf
 * @ibits: %NFHP_WALK_EVAL when the entry is %NFHP_ENTRY_EVAL, as in any
 *	leaf
 * @own: nonzero: the leaf is part of its entry (nfhp_node_embedded())
 * @n: 1
 *
 * Laid out as the header of struct nfhp_node, whose @min_order is the
 * entry's @order and whose one entry pointer is the entry's @self.
 */
struct nfhp_entry_leaf {
	u8 kind;
	u8 dim;
	u8 ibits;
	u8 own;
	u32 n;
};

/**
 * struct nfhp_entry - one rule as seen from one hook, user chains flattened
 * @leaf: the header of the leaf of this entry alone, which trees point to
 *	where it is all a region needs (nfhp_entry_leaf())
 * @order: position in the flattened chain; entries are sorted by it
 * @self: the entry, its leaf's one entry pointer
 * @cnt: the counter to bump when it matches, or NULL
 * @box: what it matches: the rule's box, narrowed by the jumps that lead
 *	to it
 * @rule: the rule, NULL for the policy and for the implicit return after
 *	a goto; the rule whose transport match drops, for a hotdrop
 * @scope_end: for %NFHP_ACT_RETURN, the first order past the chain
 *	invocation it leaves; for an %NFHP_ENTRY_EVAL jump or goto, the
 *	first order past the chain it enters, skipped when it does not match
 * @action: %NFHP_ACT_ACCEPT, %NFHP_ACT_DROP, %NFHP_ACT_QUEUE,
 *	%NFHP_ACT_NONE (count and go on: plain rules and jumps),
 *	%NFHP_ACT_RETURN, %NFHP_ACT_XT, %NFHP_ENTRY_POLICY or
 *	%NFHP_ENTRY_HOTDROP
 * @flags: %NFHP_ENTRY_EVAL, %NFHP_ENTRY_COND, %NFHP_ENTRY_ALT,
 *	%NFHP_ENTRY_VOID
 * @depth: how many jumps or gotos lead to it; a jump's chain is the run
 *	of entries after it that are deeper
 * @owns_box: @box was allocated for this entry
 * @group: which of its hook's trees it belongs to (group.c)
 * @seen: a statistics walk counted @leaf already (nfhp_tree_stats())
 */
struct nfhp_entry {
	struct nfhp_entry_leaf leaf;
	u64 order;
	const struct nfhp_entry *self;
	struct nfhp_counter __percpu *cnt;
	const struct nfhp_box *box;
	const struct nfhp_rule *rule;
	u64 scope_end;
	u8 action;
	u8 flags;
	u8 depth;
	u8 owns_box;
	u8 group;
	u8 seen;
};

/*
 * A range-location node holds at most twice this many intervals; a wider
 * one is cut into nodes of NFHP_NODE_PIECE under a parent of the same
 * dimension ("Wide nodes" in tree.c).  Each level costs lookups a node,
 * so only splits wider than any of the ClassBench 10k sets has are cut.
 * The pieces are small, for an update copies the one it changes and
 * counts a reference to each of its children: at the ClassBench 100k
 * sets, inserts took half the time with pieces of 1024 intervals (12 KB)
 * as with 8192 (100 KB), and 5-10 % less again with 512; lookups did not
 * mind.  At 256 the parents grow as much as the pieces shrink.
 * nfhp_tunables.node_fanout and nfhp_tunables.node_piece are these, or less in
 * tests, which cut small nodes to reach the cutting code.
 */
#define NFHP_NODE_FANOUT	8192
#define NFHP_NODE_PIECE		512

/*
 * Splits with up to this many interval ends sort them by insertion, wider
 * ones by radix (tree_split.c).  nfhp_tunables.events_insertion_max is this, or
 * less in tests, which reach the radix sort with small rule sets.
 */
#define NFHP_EVENTS_INSERTION_MAX	24

/*
 * A region with up to this many relevant entries, all plain terminal
 * ones, may become a list node instead of a subtree (tree.c, "List
 * nodes").  nfhp_tunables.list_max is this, or another value in tests; 0 turns
 * list nodes off.
 */
#define NFHP_LIST_MAX		4

/*
 * The first split of a tree build with at least this many relevant
 * entries in each of two halves of its work takes a helper to build one
 * (tree.c, "Two builders").  nfhp_tunables.share_min is this, or less in tests,
 * which share the splits of small rule sets.
 */
#define NFHP_SHARE_MIN		2048

/*
 * The work a build may do, per entry relevant at its root: a unit is one
 * relevant entry of one child of a split, about 100 ns and 4 bytes here
 * ("Bounded builds" in tree.c).  A region past its share becomes a leaf
 * whose entries are tested.  Whatever its entries, a build may do
 * NFHP_BUILD_BUDGET_MIN units and no more than NFHP_BUILD_BUDGET_MAX.
 * The ClassBench sets, bench/seed.py's and bench/kube.py's take at most
 * 140 a relevant entry and 14 million in all (acl1_100k with --returns).
 * A first attempt, which gives every region what is left and is dropped
 * whole when that runs out, may do NFHP_BUILD_FIRST units an entry, within
 * the same bounds: a rule set past it loses that much time once.
 * nfhp_tunables.build_budget, nfhp_tunables.build_first and the bounds are
 * these, or less in tests, which reach the tested leaves with small rule sets.
 */
#define NFHP_BUILD_BUDGET	2048
#define NFHP_BUILD_FIRST	(NFHP_BUILD_BUDGET / 4)
#define NFHP_BUILD_BUDGET_MIN	BIT(16)
#define NFHP_BUILD_BUDGET_MAX	BIT(24)
u64 nfhp_build_budget_of(u32 per_entry, unsigned int n);
/*
 * On a second attempt a child's share of its parent's pool is this many
 * times its part of the parent's relevant entries, at most all of it.
 */
#define NFHP_SHARE_OVERCOMMIT	1

/*
 * A box is a product of intervals, a few per dimension; shadow analysis
 * asks about each piece, one interval per dimension, up to this many
 * pieces, and about the hull of the box past it
 * (nfhp_trees_decided_before()).  nfhp_tunables.cover_pieces is this, or more
 * in tests, which want the exact answer.
 */
#define NFHP_COVER_PIECES	64

/*
 * Trees per hook (struct nfhp_tables in ruleset_priv.h): one per width group
 * of its entries, and one per width group of its hotdrop entries (group.c).
 */
#define NFHP_WIDTH_TREES	7
#define NFHP_HOOK_TREES		(2 * NFHP_WIDTH_TREES)

/**
 * struct nfhp_node - a range-location node or a leaf
 * @kind: &enum nfhp_node_kind
 * @dim: the dimension a range-location node splits
 * @ibits: log2 of the buckets of the index of a wide RLP32 or RLP64
 *	node, or 0;
 *	for a leaf, how a lookup that ends there walks its entries:
 *	%NFHP_WALK_EVAL, %NFHP_WALK_TESTED or 0
 * @ishift: how far a value's offset is shifted to find its bucket; for
 *	a list node, the number of u32 words of its tests; for a leaf,
 *	nonzero when it is an entry's own (struct nfhp_entry_leaf)
 * @n: intervals of a range-location node, entries of a leaf or a list
 * @min_order: the smallest order of any entry in any leaf below; a
 *	lookup that already has a decision before it skips the subtree
 * @data: keys, children and index of a range-location node, entries of
 *	a leaf, entries and then tests of a list
 *
 * A range-location node holds @n sorted inclusive upper bounds, one per
 * elementary interval, and after them its @n children; the last bound is
 * the end of the node's region, so every value of the region finds its
 * interval.  Keys are u32 where the node's region ends below 2^32, in
 * whole groups of four (the tail is U32_MAX); the top halves of 128-bit
 * keys as u64 where every key ends in 64 one bits, in groups of four too
 * (the tail is U64_MAX); nfhp_u128 elsewhere.  The header holds only
 * what a lookup reads, and the keys come first, where the search finds them in
 * the header's cache line: a node of four intervals is one line, and a node of
 * up to 12 has all its keys there.  What only the control path needs comes
 * before the node (struct nfhp_node_ctl in tree_priv.h).
 */
struct nfhp_node {
	u8 kind;
	u8 dim;
	u8 ibits;
	u8 ishift;
	u32 n;
	u64 min_order;
	unsigned long data[];
};

/**
 * enum nfhp_node_kind - what a node is
 * @NFHP_NODE_LEAF: a leaf, @data holds entry pointers
 * @NFHP_NODE_LIST: a list node: entry pointers, each but the last with
 *	the intervals that must hold the packet for it to decide
 * @NFHP_NODE_RLP32: a range-location node with u32 keys
 * @NFHP_NODE_RLP64: a range-location node of a 128-bit dimension whose
 *	keys all end in 64 one bits (the ends of prefixes of /64 or
 *	shorter): it keeps their top halves as u64 keys, and compares a
 *	value's top half, which is exact (nfhp_node_find_value())
 * @NFHP_NODE_RLP128: a range-location node with nfhp_u128 keys
 *
 * Leaves and lists end a lookup; the kinds after them have children.
 */
enum nfhp_node_kind {
	NFHP_NODE_LEAF,
	NFHP_NODE_LIST,
	NFHP_NODE_RLP32,
	NFHP_NODE_RLP64,
	NFHP_NODE_RLP128,
};

/**
 * struct nfhp_forest - the nodes of all trees of a rule set
 * @mem: the account nodes are allocated on
 * @family: the &enum nfhp_family of the rule set, which sets the width of
 *	the address dimensions
 * @buckets: deduplication hash table
 * @mask: number of buckets less one
 * @count: nodes in the table
 * @mark: the current statistics walk
 * @scratch: the short-lived arrays of builds and updates
 * @home: for a helper's forest, the forest whose table, nodes and account
 *	it builds into; NULL for a rule set's own
 * @lock: guards the table, the nodes' references and @mem while @shared
 * @shared: a helper is building into this forest (see "Two builders" in
 *	tree.c)
 * @may_share: the next split of nfhp_tree_build() may take a helper
 * @shared_splits: splits whose intervals two builders built
 * @memo: the subtrees of the build under way, by their relevant entries
 * @shares: the build under way is a second attempt, whose regions take
 *	shares of the budget ("Bounded builds" in tree.c)
 * @builds_cut: builds whose first attempt ran out of budget
 */
struct nfhp_memo;

struct nfhp_forest {
	struct nfhp_mem *mem;
	u8 family;
	struct nfhp_node **buckets;
	u32 mask;
	u32 count;
	u32 mark;
	struct nfhp_scratch scratch;
	struct nfhp_forest *home;
	/* Guards the table, references and @mem while @shared. */
	struct mutex lock;
	bool shared;
	bool may_share;
	u64 shared_splits;
	struct nfhp_memo *memo;
	bool shares;
	u64 builds_cut;
};

int nfhp_forest_init(struct nfhp_forest *f, struct nfhp_mem *mem, u8 family);
void nfhp_forest_destroy(struct nfhp_forest *f);

int nfhp_tree_build(struct nfhp_forest *f, const struct nfhp_entry **entries,
		    unsigned int n, struct nfhp_node **root);
int nfhp_tree_update(struct nfhp_forest *f, struct nfhp_node *root,
		     const struct nfhp_box *x,
		     const struct nfhp_entry **cands, unsigned int n,
		     unsigned long *visits, u64 *work, struct nfhp_node **out);
void nfhp_tree_get(struct nfhp_node *root);
void nfhp_tree_put(struct nfhp_forest *f, struct nfhp_node *root);
void nfhp_tree_stats(struct nfhp_forest *f, const struct nfhp_node *root,
		     struct nfhp_tree_stats *st);

typedef void (*nfhp_leaf_cb)(void *ctx, const struct nfhp_node *leaf);
void nfhp_tree_walk_leaves(struct nfhp_forest *f,
			   const struct nfhp_node *root, nfhp_leaf_cb cb,
			   void *ctx);

/**
 * nfhp_leaf_entries() - the entries of a leaf or a list node
 * @leaf: the leaf or list
 *
 * Return: @leaf->n entries in flattened order.  In a leaf the last one
 * decides; in a list the first whose tests hold the packet does.
 */
static inline const struct nfhp_entry *const *
nfhp_leaf_entries(const struct nfhp_node *leaf)
{
	return (const struct nfhp_entry *const *)leaf->data;
}

/*
 * An entry's own leaf (struct nfhp_entry_leaf): a lookup that ends there
 * reads the line of the entry it bumps and decides by, and no other.  It
 * lives and dies with its entry: no reference count, no twin in the
 * deduplication table, which the entry's own control bytes would need.
 */
static inline bool nfhp_node_embedded(const struct nfhp_node *node)
{
	return node->kind == NFHP_NODE_LEAF && node->ishift;
}

static inline struct nfhp_node *nfhp_entry_leaf(const struct nfhp_entry *e)
{
	return (struct nfhp_node *)e;
}

/* Make @e's own leaf, once its @flags and @order are set. */
static inline void nfhp_entry_leaf_init(struct nfhp_entry *e)
{
	BUILD_BUG_ON(offsetof(struct nfhp_entry, leaf.kind) !=
		     offsetof(struct nfhp_node, kind));
	BUILD_BUG_ON(offsetof(struct nfhp_entry, leaf.ibits) !=
		     offsetof(struct nfhp_node, ibits));
	BUILD_BUG_ON(offsetof(struct nfhp_entry, leaf.own) !=
		     offsetof(struct nfhp_node, ishift));
	BUILD_BUG_ON(offsetof(struct nfhp_entry, leaf.n) !=
		     offsetof(struct nfhp_node, n));
	BUILD_BUG_ON(offsetof(struct nfhp_entry, order) !=
		     offsetof(struct nfhp_node, min_order));
	BUILD_BUG_ON(offsetof(struct nfhp_entry, self) !=
		     offsetof(struct nfhp_node, data));
	/* A lookup that ends at the leaf reads this one line. */
	BUILD_BUG_ON(sizeof(struct nfhp_entry) > L1_CACHE_BYTES);
	e->leaf.kind = NFHP_NODE_LEAF;
	e->leaf.ibits = e->flags & NFHP_ENTRY_EVAL ? NFHP_WALK_EVAL : 0;
	e->leaf.own = 1;
	e->leaf.n = 1;
	e->self = e;
}

/**
 * struct nfhp_hit - what one tree says about a packet
 * @items: the entries the packet matches and whose counters it bumps, in
 *	order; the last one decides.  With %NFHP_WALK_TESTED, the entries
 *	it may match, of which the last decides if reached.
 * @n: number of entries in @items
 * @walk: 0, or how @items must be walked at packet time (%NFHP_WALK_EVAL,
 *	%NFHP_WALK_TESTED)
 */
struct nfhp_hit {
	const struct nfhp_entry *const *items;
	u32 n;
	u8 walk;
};

bool nfhp_trees_decided_before(const struct nfhp_node *const *roots,
			       unsigned int n, const struct nfhp_box *box,
			       u64 order, unsigned int *budget);

/* The ruleset's trees and entries, for stats.c. */
const struct nfhp_node *nfhp_ruleset_tree(const struct nfhp_ruleset *rs,
					  enum nfhp_hook hook,
					  unsigned int group,
					  struct nfhp_forest **f);
const struct nfhp_pageseq *nfhp_ruleset_entries(const struct nfhp_ruleset *rs,
						enum nfhp_hook hook);
unsigned int nfhp_ruleset_entry_tree(const struct nfhp_ruleset *rs,
				     enum nfhp_hook hook,
				     const struct nfhp_entry *e);
const struct nfhp_box *nfhp_rule_box(const struct nfhp_rule *r);
u16 nfhp_rule_written(const struct nfhp_rule *r);

#endif /* _NFHP_TREE_H */
