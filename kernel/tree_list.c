// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the list nodes of the decision tree.
 *
 * DOC: List nodes
 *
 * Whether a region's few relevant entries make a list node, and its tests,
 * the intervals each entry but the last needs where it does not cover the
 * region (nfhp_list_get()).  See "List nodes" in DOC: Theory of Operation
 * (tree.c).
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "tree_priv.h"

/* Can @e be an entry of a list node: it ends a scan where it matches? */
static bool nfhp_list_entry_ok(const struct nfhp_entry *e)
{
	return !(e->flags & (NFHP_ENTRY_EVAL | NFHP_ENTRY_COND)) &&
	       nfhp_entry_terminal(e);
}

/*
 * The shift of the tests of a list in a dimension whose region is @r:
 * the lowest that leaves no bit above the 32 tested one where the
 * region's values differ.  0 in a region below 2^32; in an IPv6 region
 * inside a /96, a /64 or a /32, 0, 32 or 64 (struct nfhp_list_test).
 */
static unsigned int nfhp_list_window(const struct nfhp_range *r)
{
	nfhp_u128 differ = r->lo ^ r->hi;
	unsigned int bits = 0;

	if (differ >> 64)
		bits = 128 - __builtin_clzll((u64)(differ >> 64));
	else if (differ)
		bits = 64 - __builtin_clzll((u64)differ);
	return bits > 32 ? bits - 32 : 0;
}

/* The bits of a value's window at @shift, as a list test compares them. */
static u32 nfhp_list_windowed(nfhp_u128 v, unsigned int shift)
{
	return (u32)(v >> shift);
}

/*
 * The test of @e's interval @r in the dimension @d of @reg, into @y.
 * Below 2^32 the interval is taken as it is; in a wider region, the part
 * in the region, whose ends must be whole blocks of the window's shift.
 * Return false when it cannot be tested.
 */
static bool nfhp_list_test_make(const struct nfhp_range *r, unsigned int d,
				const struct nfhp_region *reg,
				struct nfhp_list_test *y)
{
	const struct nfhp_range *g = &reg->d[d];
	unsigned int shift = nfhp_list_window(g);
	nfhp_u128 lo = r->lo, hi = r->hi, below;

	if (g->hi <= U32_MAX) {
		if (hi > U32_MAX)
			return false;
	} else {
		lo = max(lo, g->lo);
		hi = min(hi, g->hi);
		below = shift ? ((nfhp_u128)1 << shift) - 1 : 0;
		if ((lo & below) || (hi & below) != below)
			return false;
	}
	y->dim = d;
	y->shift = shift;
	y->lo = nfhp_list_windowed(lo, shift);
	y->hi = nfhp_list_windowed(hi, shift);
	return true;
}

/*
 * Write the tests of @e, the dimensions where it does not cover @reg, to
 * @t.  Return the u32 words written, or 0 when a test would need more
 * than one interval, more than NFHP_LIST_DIMS dimensions, or a window its
 * ends do not fit (nfhp_list_test_make()).
 */
static unsigned int nfhp_list_tests_of(const struct nfhp_entry *e,
				       const struct nfhp_region *reg,
				       struct nfhp_list_tests *t)
{
	const struct nfhp_box *b = e->box;
	unsigned int m, d, nt = 0;

	for (m = b->restricted; m; m &= m - 1) {
		d = __builtin_ctz(m);
		if (nfhp_box_covers_dim(b, d, &reg->d[d]))
			continue;
		if (nfhp_box_nranges(b, d) != 1 || nt == NFHP_LIST_DIMS)
			return 0;
		if (!nfhp_list_test_make(nfhp_box_ranges(b, d), d, reg,
					 &t->t[nt]))
			return 0;
		nt++;
	}
	t->n = nt;
	return nt ? nfhp_list_test_words(nt) : 0;
}

/* The test of dimension @d among the tests @t of one entry, or NULL. */
static const struct nfhp_list_test *
nfhp_list_test_dim(const struct nfhp_list_tests *t, unsigned int d)
{
	unsigned int j;

	for (j = 0; j < t->n; j++)
		if (t->t[j].dim == d)
			return &t->t[j];
	return NULL;
}

/* Do the tests @a and @b of two entries hold no packet of @reg in common? */
static bool nfhp_list_disjoint(const struct nfhp_list_tests *a,
			       const struct nfhp_list_tests *b,
			       const struct nfhp_region *reg)
{
	const struct nfhp_list_test *x, *y;
	u32 lo, hi;
	unsigned int j;

	for (j = 0; j < a->n; j++) {
		x = &a->t[j];
		y = nfhp_list_test_dim(b, x->dim);
		if (!y)
			continue;
		/* One region, one window: both tests have its shift. */
		lo = max(max(x->lo, y->lo),
			 nfhp_list_windowed(reg->d[x->dim].lo, x->shift));
		hi = min(min(x->hi, y->hi),
			 nfhp_list_windowed(reg->d[x->dim].hi, x->shift));
		if (lo > hi)
			return true;
	}
	return false;
}

/*
 * Do the intervals of dimension @d of the @n tests in @t leave a gap in
 * @reg?  A test without @d covers it.
 */
static bool nfhp_list_gap_in(const struct nfhp_list_tests *const *t,
			     unsigned int n, unsigned int d,
			     const struct nfhp_region *reg)
{
	unsigned int shift = nfhp_list_window(&reg->d[d]);
	u64 from = nfhp_list_windowed(reg->d[d].lo, shift);
	u64 end = nfhp_list_windowed(reg->d[d].hi, shift);
	const struct nfhp_list_test *x;
	bool moved = true;
	unsigned int i;

	/* Few intervals: advance past any that starts by @from, until stuck. */
	while (moved && from <= end) {
		moved = false;
		for (i = 0; i < n; i++) {
			x = nfhp_list_test_dim(t[i], d);
			if (!x)
				return false;
			if (x->lo <= from && x->hi >= from) {
				from = (u64)x->hi + 1;
				moved = true;
			}
		}
	}
	return from <= end;
}

/*
 * Does the last entry of a list decide some packet of @reg: do the tests
 * @t of the others leave a gap in one dimension?
 */
static bool nfhp_list_last_reached(const struct nfhp_list_tests *const *t,
				   unsigned int n,
				   const struct nfhp_region *reg)
{
	unsigned int j;

	for (j = 0; j < t[0]->n; j++)
		if (nfhp_list_gap_in(t, n, t[0]->t[j].dim, reg))
			return true;
	return false;
}

/*
 * Fill the list node @list from the relevant entries of @s, see "List
 * nodes" in DOC: Theory of Operation.  Return false when @s does not
 * qualify: then a subtree is built.
 */
static bool nfhp_list_fill(struct nfhp_node *list, const struct nfhp_region *reg,
			   const struct nfhp_scan *s)
{
	const struct nfhp_list_tests *test[NFHP_LIST_MAX_ANY];
	u32 *t = (u32 *)nfhp_list_tests(list);
	struct nfhp_list_tests *tests;
	unsigned int i, j, w, words = 0;

	for (i = 0; i < s->n; i++)
		if (!nfhp_list_entry_ok(s->rel[i]))
			return false;
	if (!nfhp_box_covers(s->rel[s->n - 1]->box, reg))
		return false;
	for (i = 0; i < s->n - 1; i++) {
		tests = (struct nfhp_list_tests *)(t + words);
		w = nfhp_list_tests_of(s->rel[i], reg, tests);
		if (!w)
			return false;
		test[i] = tests;
		words += w;
		for (j = 0; j < i; j++)
			if (!nfhp_list_disjoint(test[j], test[i], reg))
				return false;
	}
	if (!nfhp_list_last_reached(test, s->n - 1, reg))
		return false;
	if (words & 1)
		t[words] = 0;
	memcpy(list->data, s->rel, s->n * sizeof(*s->rel));
	list->ishift = words;
	list->min_order = s->rel[0]->order;
	return true;
}

/**
 * nfhp_list_get() - the list node of a region with few relevant entries
 * @f: the forest
 * @reg: the region
 * @s: its relevant entries
 * @out: set to the list node, holding one reference
 *
 * See "List nodes" in DOC: Theory of Operation.
 *
 * Return: 1 when the entries do not qualify (nothing is allocated), else
 * 0 or -ENOMEM.
 */
noinline_for_stack int
nfhp_list_get(struct nfhp_forest *f, const struct nfhp_region *reg,
	      const struct nfhp_scan *s, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_node *list;
	int ret = 1;

	list = nfhp_draft_new(f, NFHP_NODE_LIST, s->n);
	if (!list)
		return -ENOMEM;
	if (nfhp_list_fill(list, reg, s)) {
		*out = nfhp_node_intern(f, list);
		ret = *out ? 0 : -ENOMEM;
	}
	nfhp_scratch_release(&f->scratch, mark);
	return ret;
}
