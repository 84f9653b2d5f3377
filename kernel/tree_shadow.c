// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: whether trees decide a box before an entry.
 *
 * DOC: Shadow search
 *
 * The search behind shadow analysis (stats.c): do a hook's trees, between
 * them, decide every packet of a box before a given entry
 * (nfhp_trees_decided_before())?  It walks the trees, not the entries, and
 * asks the next tree about what one leaves undecided.
 */
#include <linux/kernel.h>

#include "tree_priv.h"

/**
 * struct nfhp_cover - the trees a shadow search has still to ask
 * @roots: their roots, each decides what the ones before it left
 * @n: number of trees in @roots
 * @order: the order of the entry asked about
 * @budget: nodes and list tests the search may still visit
 */
struct nfhp_cover {
	const struct nfhp_node *const *roots;
	unsigned int n;
	u64 order;
	unsigned int *budget;
};

static bool nfhp_cover_rest(const struct nfhp_cover *c,
			    struct nfhp_region *q);

/* Do the tests @t hold every packet of @q? */
static bool nfhp_list_tests_hold(const struct nfhp_list_tests *t,
				 const struct nfhp_region *q)
{
	const struct nfhp_list_test *y;
	unsigned int j;

	for (j = 0; j < t->n; j++) {
		y = &t->t[j];
		if (q->d[y->dim].lo < nfhp_list_test_lo(y, q->d[y->dim].lo) ||
		    q->d[y->dim].hi > nfhp_list_test_hi(y, q->d[y->dim].lo))
			return false;
	}
	return true;
}

/*
 * Do the tests @t[0 .. @n - 1] of a list's entries, or after them the
 * trees of @c, hold every packet of @q?  @q is split along each test of
 * @t[0]: what lies outside it must be held by the others.  Lists have few
 * entries with disjoint tests, so the pieces mostly miss the next test at
 * once.  A piece that one entry's tests hold whole ends there: without
 * that, the pieces of overlapping tests multiply with every entry.
 */
static bool nfhp_list_tests_cover(const struct nfhp_list_tests *const *t,
				  unsigned int n, struct nfhp_region *q,
				  const struct nfhp_cover *c)
{
	struct nfhp_range keep[NFHP_LIST_DIMS];
	const struct nfhp_list_test *y;
	struct nfhp_range *r;
	nfhp_u128 lo, hi;
	bool ok = true;
	unsigned int j;

	if (!*c->budget)
		return false;
	if (!n)
		return nfhp_cover_rest(c, q);
	(*c->budget)--;
	for (j = 0; j < n; j++)
		if (nfhp_list_tests_hold(t[j], q))
			return true;
	for (j = 0; j < t[0]->n; j++) {
		y = &t[0]->t[j];
		r = &q->d[y->dim];
		if (nfhp_list_test_hi(y, r->lo) < r->lo ||
		    nfhp_list_test_lo(y, r->lo) > r->hi)
			return nfhp_list_tests_cover(t + 1, n - 1, q, c);
	}
	for (j = 0; j < t[0]->n && ok; j++) {
		y = &t[0]->t[j];
		r = &q->d[y->dim];
		keep[j] = *r;
		lo = nfhp_list_test_lo(y, r->lo);
		hi = nfhp_list_test_hi(y, r->lo);
		if (r->lo < lo) {
			r->hi = lo - 1;
			ok = nfhp_list_tests_cover(t + 1, n - 1, q, c);
			*r = keep[j];
		}
		if (ok && r->hi > hi) {
			r->lo = hi + 1;
			ok = nfhp_list_tests_cover(t + 1, n - 1, q, c);
			*r = keep[j];
		}
		/* What is left of @q in this dimension lies inside the test. */
		r->lo = max(r->lo, lo);
		r->hi = min(r->hi, hi);
	}
	while (j--)
		q->d[t[0]->t[j].dim] = keep[j];
	return ok;
}

/*
 * Does the list @list, or after it the trees of @c, decide every packet
 * of @q, which lies in the list's region, before @c->order?  The list's
 * entries before it decide the packets their tests hold; the last entry
 * covers the region.
 */
static bool nfhp_list_decided_before(const struct nfhp_node *list,
				     struct nfhp_region *q,
				     const struct nfhp_cover *c)
{
	const struct nfhp_entry *const *items = nfhp_leaf_entries(list);
	const struct nfhp_list_tests *early[NFHP_LIST_MAX_ANY];
	const struct nfhp_list_tests *t = nfhp_list_tests(list);
	u32 i;

	for (i = 0; i < list->n && items[i]->order < c->order; i++) {
		if (i == list->n - 1)
			return true;
		early[i] = t;
		t = nfhp_list_tests_next(t);
	}
	return nfhp_list_tests_cover(early, i, q, c);
}

/*
 * Does the tree below @node, whose region holds @q, or after it the
 * trees of @c, decide every packet of @q before @c->order?  What the
 * node's tree leaves undecided, a leaf's region cut to @q, is asked of
 * the next tree: so the trees decide a packet between them.
 */
static bool nfhp_decided_before(const struct nfhp_node *node,
				struct nfhp_region *q,
				const struct nfhp_cover *c)
{
	struct nfhp_range span;
	bool ok = true;
	u32 i, last;

	/* Each tree asked nests the walk a tree deeper. */
	if (!*c->budget || nfhp_stack_low())
		return false;
	(*c->budget)--;
	if (node->min_order >= c->order)
		return nfhp_cover_rest(c, q);
	/* Even a leaf that runs extensions decides by its last entry. */
	if (node->kind == NFHP_NODE_LEAF)
		return nfhp_leaf_entries(node)[node->n - 1]->order < c->order ||
		       nfhp_cover_rest(c, q);
	if (node->kind == NFHP_NODE_LIST)
		return nfhp_list_decided_before(node, q, c);
	span = q->d[node->dim];
	i = nfhp_node_find_value(node, span.lo);
	last = nfhp_node_find_value(node, span.hi);
	for (; i <= last && ok; i++) {
		if (i)
			q->d[node->dim].lo = max(span.lo,
						 nfhp_node_key(node, i - 1) + 1);
		q->d[node->dim].hi = min(span.hi, nfhp_node_key(node, i));
		ok = nfhp_decided_before(nfhp_child(node, i), q, c);
	}
	q->d[node->dim] = span;
	return ok;
}

/* Do the trees of @c after its first decide every packet of @q first? */
static bool nfhp_cover_rest(const struct nfhp_cover *c,
			    struct nfhp_region *q)
{
	struct nfhp_cover rest = {
		.roots = c->roots + 1, .n = c->n - 1,
		.order = c->order, .budget = c->budget,
	};

	return rest.n && nfhp_decided_before(rest.roots[0], q, &rest);
}

/* Step @at, an interval per restricted dimension of @box, to the next. */
static bool nfhp_piece_next(const struct nfhp_box *box, unsigned int *at)
{
	unsigned int m, d;

	for (m = box->restricted; m; m &= m - 1) {
		d = __builtin_ctz(m);
		if (++at[d] < nfhp_box_nranges(box, d))
			return true;
		at[d] = 0;
	}
	return false;
}

/* The piece @at of @box, or its hull when @hull. */
static void nfhp_piece(const struct nfhp_box *box, const unsigned int *at,
		       bool hull, struct nfhp_region *q)
{
	unsigned int m, d;

	nfhp_region_full(box->family, q);
	for (m = box->restricted; m; m &= m - 1) {
		d = __builtin_ctz(m);
		if (hull)
			nfhp_box_hull(box, d, &q->d[d]);
		else
			q->d[d] = nfhp_box_ranges(box, d)[at[d]];
	}
}

/**
 * nfhp_trees_decided_before() - do trees decide a box before an order?
 * @roots: the trees, every tree of a hook
 * @n: number of trees in @roots
 * @box: the packets asked about
 * @order: the order of an entry
 * @budget: nodes and list tests the search may still visit; it answers
 *	false once they are spent
 *
 * For shadow analysis (stats.c): an entry whose whole box the trees of
 * its hook decide before it, between them, is never reached, even where
 * its own tree has it in a leaf.  What the first tree leaves undecided,
 * region by region, is asked of the second, and so on, so the answer is
 * exact for a box of one interval per dimension; a box of more than
 * nfhp_tunables.cover_pieces pieces is asked about as its hull, which may
 * answer false where the box is decided, never true where it is not.  A leaf's
 * last entry ends every walk of its entries, so it bounds the decision
 * even where extensions run (nfhp_classify() bounds the later trees by it
 * too).
 *
 * Return: true if every packet of @box meets a decision of the trees that
 * comes before @order.
 */
bool nfhp_trees_decided_before(const struct nfhp_node *const *roots,
			       unsigned int n, const struct nfhp_box *box,
			       u64 order, unsigned int *budget)
{
	struct nfhp_cover c = {
		.roots = roots, .n = n, .order = order, .budget = budget,
	};
	unsigned int at[NFHP_DIM_MAX] = {};
	unsigned int m, pieces = 1;
	struct nfhp_region q;
	bool hull;

	if (!n)
		return false;
	for (m = box->restricted; m && pieces <= nfhp_tunables.cover_pieces;
	     m &= m - 1)
		pieces *= nfhp_box_nranges(box, __builtin_ctz(m));
	if (!pieces)
		return true;	/* the box holds no packet */
	hull = pieces > nfhp_tunables.cover_pieces;
	do {
		nfhp_piece(box, at, hull, &q);
		if (!nfhp_decided_before(roots[0], &q, &c))
			return false;
	} while (!hull && nfhp_piece_next(box, at));
	return true;
}
