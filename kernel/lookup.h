/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the read side of the decision tree, what the packet path runs.
 *
 * The layout of a node's contents (struct nfhp_node) and the lookup, as
 * inline functions: nfhp_classify() looks a packet up in each tree of its
 * hook, and the calls alone were a tenth of its instructions.  The rest
 * of the tree is tree*.c, whose DOC: Theory of Operation (tree.c) says
 * how lookups and nodes work, and which file does what.
 */
#ifndef _NFHP_LOOKUP_H
#define _NFHP_LOOKUP_H

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/prefetch.h>

#include "tree.h"

/**
 * struct nfhp_list_test - an interval a list entry needs in one dimension
 * @dim: the dimension
 * @shift: the test compares bits @shift to @shift + 31 of the value: 0
 *	but in the 128-bit dimensions, where the list's region shares every
 *	bit above them and the interval's ends are whole blocks of
 *	2^@shift values (nfhp_list_window())
 * @lo: first value, shifted
 * @hi: last value, shifted
 */
struct nfhp_list_test {
	u16 dim;
	u16 shift;
	u32 lo;
	u32 hi;
};

/**
 * struct nfhp_list_tests - what a packet must hold for a list entry
 * @n: the tests in @t, at most %NFHP_LIST_DIMS
 * @t: one per dimension where the entry does not cover the list's region
 *
 * A list node stores one after the other, each as long as its @n needs
 * (nfhp_list_tests_next()): they are u32 words, see nfhp_node_bytes().
 */
struct nfhp_list_tests {
	u32 n;
	struct nfhp_list_test t[];
};

/*
 * Bytes of the key array of a node with @n intervals.  u32 keys come in
 * whole groups of four, the tail past @n filled with U32_MAX, which no
 * value is above: a small node's keys are counted whole (nfhp_count4()).
 */
static inline size_t nfhp_keys_size(u8 kind, u32 n)
{
	if (kind == NFHP_NODE_RLP128)
		return n * sizeof(nfhp_u128);
	if (kind == NFHP_NODE_RLP64)
		return ALIGN(n, 4) * sizeof(u64);
	return ALIGN(n, 4) * sizeof(u32);
}

/* Leaves and lists end a lookup; the other kinds have children. */
static inline bool nfhp_node_final(const struct nfhp_node *node)
{
	return node->kind < NFHP_NODE_RLP32;
}

/* The tests of a list node's first entry; they follow its entries. */
static inline struct nfhp_list_tests *
nfhp_list_tests(const struct nfhp_node *node)
{
	return (struct nfhp_list_tests *)(node->data + node->n);
}

/* The tests of the entry after the one @t tests. */
static inline const struct nfhp_list_tests *
nfhp_list_tests_next(const struct nfhp_list_tests *t)
{
	return (const struct nfhp_list_tests *)&t->t[t->n];
}

/*
 * A range-location node's keys come first, right after the header: the
 * search reads them as soon as the header is in, from the same cache line
 * in nodes of up to 12 intervals (a wide node's first key, which its
 * bucket is counted from, too).  The children follow, then the index.
 */
static inline u32 *nfhp_keys32(const struct nfhp_node *node)
{
	return (u32 *)node->data;
}

static inline u64 *nfhp_keys64(const struct nfhp_node *node)
{
	return (u64 *)node->data;
}

static inline nfhp_u128 *nfhp_keys128(const struct nfhp_node *node)
{
	return (nfhp_u128 *)node->data;
}

static inline struct nfhp_node **nfhp_children(const struct nfhp_node *node)
{
	return (struct nfhp_node **)((u8 *)node->data +
				     nfhp_keys_size(node->kind, node->n));
}

static inline u32 *nfhp_index(const struct nfhp_node *node)
{
	return (u32 *)(nfhp_children(node) + node->n);
}

static inline struct nfhp_node *nfhp_child(const struct nfhp_node *node,
					   u32 i)
{
	return nfhp_children(node)[i];
}

/* How many of the four keys at @k are below @v. */
static inline u32 nfhp_count4(const u32 *k, u32 v)
{
	return (k[0] < v) + (k[1] < v) + (k[2] < v) + (k[3] < v);
}

/* How many of the eight keys at @k are below @v. */
static inline u32 nfhp_count8(const u32 *k, u32 v)
{
	return nfhp_count4(k, v) + nfhp_count4(k + 4, v);
}

/*
 * The first of the at most @stop keys that @k[@lo .. @lo + @n - 1],
 * which hold @v's interval, narrow to.
 */
static inline u32 nfhp_bisect32(const u32 *k, u32 lo, u32 n, u32 stop, u32 v)
{
	while (n > stop) {
		u32 half = n / 2;

		if (k[lo + half - 1] < v)
			lo += half;
		n -= half;
	}
	return lo;
}

/*
 * The interval of @v among the keys @k[@lo .. @lo + @n - 1] of a node of
 * @all intervals, at least 8, whose keys before @lo are below @v.
 *
 * A binary step cannot start before the previous step's key is loaded.
 * Past four keys, the last three steps are one count of eight keys
 * instead, whose loads do not wait for each other: a lookup's chain of
 * dependent loads is what it costs.  The eight end at the node's last key
 * at the latest; keys before @lo are below @v and counted as such.  The
 * count is clamped to the node, whatever the keys say.  Up to four keys
 * are two steps at most, cheaper than a count, and one key none.
 */
static inline u32 nfhp_search32(const u32 *k, u32 lo, u32 n, u32 all, u32 v)
{
	if (n <= 4)
		return nfhp_bisect32(k, lo, n, 1, v);
	lo = nfhp_bisect32(k, lo, n, 8, v);
	lo = min(lo, all - 8);
	return min(lo + nfhp_count8(k + lo, v), all - 1);
}

/* nfhp_count4() of u64 keys. */
static inline u32 nfhp_count4_64(const u64 *k, u64 v)
{
	return (k[0] < v) + (k[1] < v) + (k[2] < v) + (k[3] < v);
}

/* nfhp_search32() of u64 keys: the same steps, on keys twice as wide. */
static inline u32 nfhp_search64(const u64 *k, u32 lo, u32 n, u32 all, u64 v)
{
	u32 stop = n <= 4 ? 1 : 8;

	while (n > stop) {
		u32 half = n / 2;

		if (k[lo + half - 1] < v)
			lo += half;
		n -= half;
	}
	if (stop == 1)
		return lo;
	lo = min(lo, all - 8);
	return min(lo + nfhp_count4_64(k + lo, v) +
		   nfhp_count4_64(k + lo + 4, v), all - 1);
}

/*
 * The child of an RLP64 node that holds the value whose top half is @v.
 * A key K:ones is below V:x exactly when K < V, as x is at most ones.
 */
static inline u32 nfhp_node_find64(const struct nfhp_node *node, u64 v)
{
	const u64 *k = nfhp_keys64(node);
	const u32 *idx;
	u32 b;

	if (!node->ibits) {
		if (node->n == 2)
			return k[0] < v;
		if (node->n <= 4)
			return min(nfhp_count4_64(k, v), node->n - 1);
		return nfhp_search64(k, 0, node->n, node->n, v);
	}
	if (v <= k[0])
		return 0;
	idx = nfhp_index(node);
	b = min_t(u64, (v - k[0] - 1) >> node->ishift,
		  (1u << node->ibits) - 1);
	prefetch(&nfhp_children(node)[(idx[b] + idx[b + 1]) / 2]);
	return nfhp_search64(k, idx[b], idx[b + 1] - idx[b] + 1, node->n, v);
}

static inline u32 nfhp_search128(const nfhp_u128 *k, u32 n, nfhp_u128 v)
{
	u32 lo = 0;

	while (n > 1) {
		u32 half = n / 2;

		if (k[lo + half - 1] < v)
			lo += half;
		n -= half;
	}
	return lo;
}

/* The child of @node that holds the value @value of its dimension. */
static inline u32 nfhp_node_find_value(const struct nfhp_node *node,
				       nfhp_u128 value)
{
	const u32 *k, *idx;
	u32 v, b;

	if (unlikely(node->kind != NFHP_NODE_RLP32)) {
		if (node->kind == NFHP_NODE_RLP64)
			return nfhp_node_find64(node, (u64)(value >> 64));
		return nfhp_search128(nfhp_keys128(node), node->n, value);
	}
	k = nfhp_keys32(node);
	v = (u32)value;
	if (!node->ibits) {
		/* Two keys are one test; up to eight are counted whole. */
		if (node->n == 2)
			return k[0] < v;
		if (node->n <= 4)
			return min(nfhp_count4(k, v), node->n - 1);
		if (node->n <= 8)
			return min(nfhp_count8(k, v), node->n - 1);
		return nfhp_search32(k, 0, node->n, node->n, v);
	}
	if (v <= k[0])
		return 0;
	idx = nfhp_index(node);
	/* Values lie in the node's region; the clamp only guards memory. */
	b = min((v - k[0] - 1) >> node->ishift, (1u << node->ibits) - 1);
	/*
	 * The child is in one of the bucket's intervals, far from its keys:
	 * its pointer's line is fetched while the keys are searched.
	 */
	prefetch(&nfhp_children(node)[(idx[b] + idx[b + 1]) / 2]);
	return nfhp_search32(k, idx[b], idx[b + 1] - idx[b] + 1, node->n, v);
}

/* The child of @node that holds @key. */
static inline u32 nfhp_node_find(const struct nfhp_node *node,
				 const struct nfhp_key *key)
{
	return nfhp_node_find_value(node, key->v[node->dim]);
}

/* The first entry of a list node whose tests hold @key. */
static inline u32 nfhp_list_find(const struct nfhp_node *node,
				 const struct nfhp_key *key)
{
	const struct nfhp_list_tests *t = nfhp_list_tests(node);
	const struct nfhp_list_test *y;
	u32 i, j, v;
	bool in;

	for (i = 0; i < node->n - 1; i++, t = nfhp_list_tests_next(t)) {
		in = true;
		for (j = 0; j < t->n; j++) {
			y = &t->t[j];
			v = (u32)(key->v[y->dim] >> y->shift);
			in &= v >= y->lo && v <= y->hi;
		}
		if (in)
			break;
	}
	return i;
}

/**
 * nfhp_tree_lookup() - find what a tree decides for a packet
 * @root: the tree; its @min_order is below @bound, which the caller has
 *	checked already (to stop at the first tree that cannot win)
 * @key: the packet
 * @bound: the order of the decision the packet has already, U64_MAX if
 *	none; subtrees whose entries all come at or after it are skipped
 * @hit: set to the entries the packet matches, when true is returned
 *
 * Runs on the packet path under RCU: it only reads immutable nodes.
 *
 * Return: false when no entry of the tree comes before @bound.
 */
static __always_inline bool nfhp_tree_lookup(const struct nfhp_node *root,
					     const struct nfhp_key *key,
					     u64 bound, struct nfhp_hit *hit)
{
	const struct nfhp_node *node = root;

	while (!nfhp_node_final(node)) {
		node = nfhp_child(node, nfhp_node_find(node, key));
		if (node->min_order >= bound)
			return false;
	}
	hit->items = nfhp_leaf_entries(node);
	hit->n = node->n;
	hit->walk = node->ibits;
	if (node->kind == NFHP_NODE_LEAF)
		return true;	/* its first entry is its @min_order */
	hit->items += nfhp_list_find(node, key);
	hit->n = 1;
	return hit->items[0]->order < bound;
}

#endif /* _NFHP_LOOKUP_H */
