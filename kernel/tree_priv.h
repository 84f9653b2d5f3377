/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: what the files of the decision tree share.
 *
 * The layout of stored nodes, the scan of a region's relevant entries, the
 * state of a split, and the functions tree*.c call across files.  Not an
 * API: that is tree.h, and lookup.h the read side.  DOC: Theory of
 * Operation (tree.c) says which file does what.
 */
#ifndef _NFHP_TREE_PRIV_H
#define _NFHP_TREE_PRIV_H

#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>

#include "lookup.h"
#include "tree.h"
#include "tunables.h"

/* RLP32 nodes with this many intervals get an index, see nfhp_index_fill(). */
#define NFHP_INDEX_MIN		32
#define NFHP_INDEX_MAX_BITS	12
/*
 * How many children ahead a pass over a wide node's children fetches the
 * one whose reference count it will change: each is a miss of its own.
 */
#define NFHP_REFS_AHEAD		16
/*
 * Tests per entry of a list node, and entries of a list node whatever
 * nfhp_tunables.list_max says (the words of its tests must fit in @ishift).
 */
#define NFHP_LIST_DIMS		5
#define NFHP_LIST_MAX_ANY	8

/**
 * struct nfhp_node_ctl - what the control path keeps of a stored node
 * @hnext: next node in the same deduplication bucket
 * @refs: references from parents and roots
 * @hash: hash of the node's contents, for deduplication
 * @mark: scratch for walks that visit each shared node once
 *
 * It comes just before the node (nfhp_ctl()), where a reference is taken
 * without reading the node, and the node starts where the header and the
 * first keys and children, which every lookup reads, share a cache line:
 * within the allocation's first line when all of it fits there, at the
 * second line otherwise (nfhp_node_lead()).
 */
struct nfhp_node_ctl {
	struct nfhp_node *hnext;
	u32 refs;
	u32 hash;
	u32 mark;
};

/**
 * struct nfhp_lend - children two copies of a wide node share, counted once
 * @peer: the other copy, or NULL: the node holds a reference to each of
 *	its children
 * @lo: the first child the node holds a reference to
 * @hi: the end of those; the others' references are the peer's, until
 *	one of the two is freed and the other holds them all
 *
 * An update copies a wide node with a few children new (struct
 * nfhp_splice) and counted a reference to each of the thousands it keeps,
 * then dropped them all again when the old node was freed: a third of an
 * update at the ClassBench 10k sets' roots.  So the copy borrows them: the
 * old node lends all but its replaced children, the copy holds references
 * to its new ones alone, and whichever of the two is freed first drops
 * only its own and leaves the rest to the other (__nfhp_tree_put()).  A
 * node has one peer at most: a node lending or borrowing already is
 * copied with references counted.
 */
struct nfhp_lend {
	struct nfhp_node *peer;
	u32 lo;
	u32 hi;
};

/**
 * struct nfhp_wide_ctl - what the control path keeps of a node past a line
 * @sum: the sum the node's hash is folded from (nfhp_node_hash()), for a
 *	32-bit range-location node; a copy's hash is made from it
 *	(nfhp_splice_sum())
 * @lend: the children it shares with a copy
 *
 * Both serve updates of wide nodes, which are copied with a few children
 * changed.  It lies in the first cache line of the node's allocation,
 * before the control block, in room that a node past that line leaves
 * there (nfhp_node_lead()).
 */
struct nfhp_wide_ctl {
	u64 sum;
	struct nfhp_lend lend;
};

/* log2 of the index buckets of a node: about one key per bucket. */
static inline u8 nfhp_index_bits(u8 kind, u32 n)
{
	if ((kind != NFHP_NODE_RLP32 && kind != NFHP_NODE_RLP64) ||
	    n < NFHP_INDEX_MIN)
		return 0;
	return min_t(u32, fls(n - 1), NFHP_INDEX_MAX_BITS);
}

/* Bytes of the index of a node of @n intervals, in whole words. */
static inline size_t nfhp_index_size(u8 kind, u32 n)
{
	u8 bits = nfhp_index_bits(kind, n);

	if (!bits)
		return 0;
	return ALIGN(((1u << bits) + 1) * sizeof(u32), sizeof(unsigned long));
}

/*
 * The bits above the window of the list test @y, those of @near, any
 * value of the list's region (struct nfhp_list_test).
 */
static inline nfhp_u128 nfhp_list_test_above(const struct nfhp_list_test *y,
					     nfhp_u128 near)
{
	unsigned int top = y->shift + 32;

	return top >= 128 ? 0 : near >> top << top;
}

/* The first value the list test @y lets through, in @near's region. */
static inline nfhp_u128 nfhp_list_test_lo(const struct nfhp_list_test *y,
					  nfhp_u128 near)
{
	return nfhp_list_test_above(y, near) | (nfhp_u128)y->lo << y->shift;
}

/* The last value the list test @y lets through, in @near's region. */
static inline nfhp_u128 nfhp_list_test_hi(const struct nfhp_list_test *y,
					  nfhp_u128 near)
{
	nfhp_u128 below = y->shift ? ((nfhp_u128)1 << y->shift) - 1 : 0;

	return nfhp_list_test_above(y, near) | (nfhp_u128)y->hi << y->shift |
	       below;
}

/* u32 words of the tests of one list entry with @n tests. */
static inline size_t nfhp_list_test_words(u32 n)
{
	return (sizeof(struct nfhp_list_tests) +
		n * sizeof(struct nfhp_list_test)) / sizeof(u32);
}

/* u32 words of the tests of a list node of @n entries, at most. */
static inline size_t nfhp_list_words_max(u32 n)
{
	return (n - 1) * nfhp_list_test_words(NFHP_LIST_DIMS);
}

/*
 * Bytes of the header and contents of a node of @n intervals or entries;
 * for a list node the most its tests can take, nfhp_node_bytes() gives
 * what they do take.
 */
static inline size_t nfhp_node_size(u8 kind, u32 n)
{
	if (kind == NFHP_NODE_LEAF)
		return sizeof(struct nfhp_node) + n * sizeof(void *);
	if (kind == NFHP_NODE_LIST)
		return sizeof(struct nfhp_node) + n * sizeof(void *) +
		       ALIGN(nfhp_list_words_max(n) * sizeof(u32),
			     sizeof(unsigned long));
	return sizeof(struct nfhp_node) + nfhp_keys_size(kind, n) +
	       n * sizeof(struct nfhp_node *) + nfhp_index_size(kind, n);
}

static inline size_t nfhp_node_bytes(const struct nfhp_node *node)
{
	if (node->kind == NFHP_NODE_LIST)
		return sizeof(*node) + node->n * sizeof(void *) +
		       ALIGN(node->ishift * sizeof(u32), sizeof(unsigned long));
	return nfhp_node_size(node->kind, node->n);
}

/*
 * Where a node of @bytes starts in its allocation: right after its
 * control block when both fit in one cache line, else at the second line,
 * the control block at the end of the first.
 */
static inline size_t nfhp_node_lead(size_t bytes)
{
	size_t ctl = sizeof(struct nfhp_node_ctl);

	return ctl + bytes <= L1_CACHE_BYTES ? ctl : L1_CACHE_BYTES;
}

/*
 * Bytes a stored node of @bytes takes.  Past a cache line it is asked for
 * in whole lines: kmalloc() aligns those sizes to a line, but not 96
 * bytes, and such nodes would start mid-line.
 */
static inline size_t nfhp_node_alloc_size(size_t bytes)
{
	size_t size = nfhp_node_lead(bytes) + bytes;

	return size <= L1_CACHE_BYTES ? size : ALIGN(size, L1_CACHE_BYTES);
}

/* The control block of @node, just before it. */
static inline struct nfhp_node_ctl *nfhp_ctl(const struct nfhp_node *node)
{
	return (struct nfhp_node_ctl *)node - 1;
}

/* Has @node room for a struct nfhp_wide_ctl, past its first cache line? */
static inline bool nfhp_node_roomy(const struct nfhp_node *node)
{
	BUILD_BUG_ON(sizeof(struct nfhp_wide_ctl) +
		     sizeof(struct nfhp_node_ctl) > L1_CACHE_BYTES);
	return nfhp_node_lead(nfhp_node_bytes(node)) == L1_CACHE_BYTES;
}

/* The struct nfhp_wide_ctl of a node nfhp_node_roomy() says has one. */
static inline struct nfhp_wide_ctl *nfhp_wide_ctl(const struct nfhp_node *node)
{
	return (struct nfhp_wide_ctl *)nfhp_ctl(node) - 1;
}

/* The lending record of a node nfhp_node_roomy() says has one. */
static inline struct nfhp_lend *nfhp_lend_of(const struct nfhp_node *node)
{
	return &nfhp_wide_ctl(node)->lend;
}

/* Mix the word @w into the hash @h. */
static inline u64 nfhp_hash_mix(u64 h, unsigned long w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

/* An interval's term in the hash sum of a 32-bit range-location node. */
static inline u64 nfhp_pair_hash(const struct nfhp_node *child, u32 key)
{
	return nfhp_hash_mix(nfhp_hash_mix(0x9e3779b97f4a7c15ull,
					   (unsigned long)child), key);
}

/*
 * Fetch ahead what a pass over the children @child[0 .. @n - 1] changes
 * at @i: each child's reference count is a miss of its own.
 */
static inline void nfhp_refs_prefetch(struct nfhp_node *const *child,
				      u32 i, u32 n)
{
	if (i + NFHP_REFS_AHEAD < n)
		prefetchw(nfhp_ctl(child[i + NFHP_REFS_AHEAD]));
}

/* Count one more reference to @node; an entry's own leaf counts none. */
static inline void nfhp_node_ref(struct nfhp_node *node)
{
	if (!nfhp_node_embedded(node))
		nfhp_ctl(node)->refs++;
}

/* The key of interval @i of a range-location node: its inclusive end. */
static inline nfhp_u128 nfhp_node_key(const struct nfhp_node *node, u32 i)
{
	if (node->kind == NFHP_NODE_RLP128)
		return nfhp_keys128(node)[i];
	if (node->kind == NFHP_NODE_RLP64)
		return (nfhp_u128)nfhp_keys64(node)[i] << 64 | U64_MAX;
	return nfhp_keys32(node)[i];
}

/**
 * struct nfhp_scan - the relevant entries of a region, see nfhp_scan_push()
 * @rel: the relevant entries, in order
 * @n: number of entries in @rel
 * @noncover: per dimension, relevant entries restricting it within the
 *	region without covering the region
 * @split: some relevant entry does not cover the region
 * @skip_to: entries ordered before this are skipped by a RETURN
 * @maybe_to: entries ordered before this may be skipped by a RETURN
 * @budget: the work the region's subtree may take ("Bounded builds")
 * @used: the work it took
 * @cut: a bit per dimension a split on the path to the region cut
 */
struct nfhp_scan {
	const struct nfhp_entry **rel;
	unsigned int n;
	unsigned int noncover[NFHP_DIM_MAX];
	bool split;
	u64 skip_to;
	u64 maybe_to;
	u64 budget;
	u64 used;
	u32 cut;
};

/* Does @e decide the packets that reach it, once its box holds them? */
static inline bool nfhp_entry_terminal(const struct nfhp_entry *e)
{
	return e->action == NFHP_ACT_ACCEPT || e->action == NFHP_ACT_DROP ||
	       e->action == NFHP_ACT_QUEUE || e->action == NFHP_ENTRY_POLICY ||
	       e->action == NFHP_ENTRY_HOTDROP;
}

/**
 * struct nfhp_event - an interval end in the split dimension
 * @at: the first value where the change applies
 * @idx: index of the entry in the parent's relevant list
 * @on: the entry starts (true) or stops (false) intersecting at @at
 */
struct nfhp_event {
	nfhp_u128 at;
	u32 idx;
	bool on;
};

/*
 * Stack a build or update must leave: room for its last level's leaves,
 * lists and allocations, which may reclaim memory.  Each level of their
 * recursion takes about 500 bytes of the kernel stack (nfhp_build() and
 * nfhp_split_children(); nfhp_update_node() 272), 16 KB in all with the
 * system call and netlink beneath it.  What a level does not keep across
 * the recursion is in functions of their own (noinline_for_stack) or on
 * the scratch stack.
 */
#define NFHP_STACK_RESERVE	(3 * 1024)

/*
 * Is the stack too short for another level?  Then the build gives up with
 * -E2BIG: the commit fails and the old rules stay, where running off the
 * stack would panic the kernel.  Signed: a frame below the base (the
 * userspace tests move the base up past it) has less than nothing left.
 */
static __always_inline bool nfhp_stack_low(void)
{
	unsigned long here = (unsigned long)__builtin_frame_address(0);
	unsigned long base = (unsigned long)task_stack_page(current);

	return (long)(here - base) < NFHP_STACK_RESERVE;
}

/**
 * struct nfhp_children - the children of a node being built
 * @node: child of each elementary interval
 * @hi: inclusive upper end of each elementary interval
 * @n: elementary intervals so far
 */
struct nfhp_children {
	struct nfhp_node **node;
	nfhp_u128 *hi;
	unsigned int n;
};

/**
 * struct nfhp_sweep - a run of the elementary intervals of one split
 * @dim: the dimension split
 * @ev: the interval ends of the split's entries, sorted
 * @nev: number of @ev
 * @from: the first event of the run: its intervals start at @ev[@from].at,
 *	or at the region's low end for 0
 * @to: the event the run stops before (the next run starts there)
 * @heavy: the interval whose split may take a helper, or -1
 * @work: on a second attempt, the relevant entries of the run's
 *	children not built yet, at most (nfhp_work_walk() counts every
 *	intersecting entry); a first attempt pays as it goes
 * @pool: the work the subtrees of those children may still take
 * @used: the work the run's subtrees took
 */
struct nfhp_sweep {
	unsigned int dim;
	const struct nfhp_event *ev;
	unsigned int nev;
	unsigned int from;
	unsigned int to;
	int heavy;
	u64 work;
	u64 pool;
	u64 used;
};

/* tree_node.c */
void nfhp_index_fill(struct nfhp_node *node);
u64 nfhp_rlp32_sum(const struct nfhp_node *node);
void nfhp_node_get(struct nfhp_forest *f, struct nfhp_node *node);
void nfhp_draft_drop(struct nfhp_forest *f, const struct nfhp_node *draft);
struct nfhp_node *nfhp_node_intern(struct nfhp_forest *f,
				   struct nfhp_node *draft);
struct nfhp_node *nfhp_draft_new(struct nfhp_forest *f, u8 kind, u32 n);
struct nfhp_node *nfhp_draft_alloc(u8 kind, u32 n);
void nfhp_draft_free(struct nfhp_node *draft);
struct nfhp_node *nfhp_node_store(struct nfhp_forest *f,
				  struct nfhp_node *draft, u64 sum);

/* tree.c */
bool nfhp_scan_push(struct nfhp_scan *s, const struct nfhp_region *reg,
		    const struct nfhp_entry *e);
int nfhp_build(struct nfhp_forest *f, struct nfhp_region *reg,
	       struct nfhp_scan *s, struct nfhp_node **out);
int nfhp_build_region(struct nfhp_forest *f, struct nfhp_region *reg,
		      const struct nfhp_entry **entries, unsigned int n,
		      bool deepen, u64 *left, struct nfhp_node **out);
struct nfhp_region *nfhp_region_scratch(struct nfhp_forest *f);

/* tree_list.c */
int nfhp_list_get(struct nfhp_forest *f, const struct nfhp_region *reg,
		  const struct nfhp_scan *s, struct nfhp_node **out);

/* tree_split.c */
int nfhp_split_events(struct nfhp_forest *f, const struct nfhp_scan *s,
		      unsigned int dim, const struct nfhp_range *span,
		      struct nfhp_event **out, unsigned int *nout);
void nfhp_children_put(struct nfhp_forest *f, struct nfhp_children *c);
void nfhp_children_add(struct nfhp_forest *f, struct nfhp_children *c,
		       struct nfhp_node *child, nfhp_u128 hi);
u64 nfhp_children_min(const struct nfhp_children *c);
int nfhp_make_rlp(struct nfhp_forest *f, unsigned int dim,
		  struct nfhp_children *c, u64 min_order,
		  struct nfhp_node **out);
int nfhp_split_children(struct nfhp_forest *f, struct nfhp_region *reg,
			const struct nfhp_scan *s, struct nfhp_sweep *w,
			struct nfhp_children *c);

/* tree_share.c */
void nfhp_share_plan(const struct nfhp_scan *s, const struct nfhp_sweep *w,
		     nfhp_u128 lo, unsigned int *cut, u64 *first, u64 *total,
		     int *heavy);
u64 nfhp_split_work(const struct nfhp_scan *s, const struct nfhp_sweep *w,
		    nfhp_u128 lo);
int nfhp_split_shared(struct nfhp_forest *f, struct nfhp_region *reg,
		      const struct nfhp_scan *s, struct nfhp_sweep *w,
		      unsigned int cut, u64 first_work, u64 total,
		      struct nfhp_children *c);

/* tree_update.c */
void nfhp_box_hull(const struct nfhp_box *x, unsigned int dim,
		   struct nfhp_range *hull);

#endif /* _NFHP_TREE_PRIV_H */
