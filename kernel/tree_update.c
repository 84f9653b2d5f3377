// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the update of a decision tree for a changed box.
 *
 * DOC: Updates
 *
 * An update for one box whose entries came or went (nfhp_tree_update()):
 * nodes whose regions miss the box are shared, regions inside it are built
 * anew, and the leaves, lists and tested leaves it cuts are split along it
 * or made again.  A range-location node is copied with its few new
 * children spliced between the old node's keys and children (struct
 * nfhp_splice); a wide copy is stored as drafted and borrows the children
 * it shares (struct nfhp_lend).  See "Updates: nfhp_tree_update()" in DOC:
 * Theory of Operation (tree.c).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "tree_priv.h"

/**
 * struct nfhp_update - one changed box being worked into a tree
 * @x: the box of the entries that came or went
 * @c: every current entry intersecting @x, in order, the policy last
 * @n: number of entries in @c
 * @visits: nodes the update may still visit
 * @work: work units its builds may still take ("Bounded builds")
 */
struct nfhp_update {
	const struct nfhp_box *x;
	const struct nfhp_entry **c;
	unsigned int n;
	unsigned long *visits;
	u64 *work;
};

static int nfhp_update_node(struct nfhp_forest *f, struct nfhp_node *node,
			    struct nfhp_region *reg,
			    const struct nfhp_update *u, struct nfhp_node **out);

/**
 * nfhp_box_hull() - the smallest interval holding a box's in a dimension
 * @x: the box
 * @dim: the dimension
 * @hull: set to the interval, all of @dim where @x does not restrict it
 */
void nfhp_box_hull(const struct nfhp_box *x, unsigned int dim,
		   struct nfhp_range *hull)
{
	unsigned int n = nfhp_box_nranges(x, dim);

	if (!n) {
		hull->lo = 0;
		hull->hi = ~(nfhp_u128)0;
		return;
	}
	hull->lo = nfhp_box_ranges(x, dim)[0].lo;
	hull->hi = nfhp_box_ranges(x, dim)[n - 1].hi;
}

/*
 * The children of @node, whose region in its dimension is @span, that
 * meet @hull: [@first, @last], found by the lookup's search; @first is
 * past the last child when none does.
 */
static void nfhp_rlp_met(const struct nfhp_node *node,
			 const struct nfhp_range *span,
			 const struct nfhp_range *hull, u32 *first, u32 *last)
{
	*first = 0;
	*last = node->n - 1;
	if (hull->lo > span->hi || hull->hi < span->lo) {
		*first = node->n;
		return;
	}
	if (hull->lo > span->lo)
		*first = nfhp_node_find_value(node, hull->lo);
	if (hull->hi < span->hi)
		*last = nfhp_node_find_value(node, hull->hi);
}

/* Share child @i of @node with its copy: a reference, no test. */
static struct nfhp_node *nfhp_child_share(const struct nfhp_node *node, u32 i)
{
	struct nfhp_node *child = nfhp_child(node, i);

	nfhp_refs_prefetch(nfhp_children(node), i, node->n);
	nfhp_node_ref(child);
	return child;
}

/**
 * struct nfhp_splice - a copy of a range-location node, some children new
 * @node: the node copied
 * @first: its first child replaced
 * @mid: the children that replace @first to @last, with their references
 * @from: the first of @mid the copy holds; 1 when @mid[0] merges with the
 *	child before @first, which then ends where @mid[0] ends
 * @to: the end of @mid the copy holds; less one when the last of @mid
 *	merges with the child after @last
 * @rest: the first child after @last the copy holds; past it when that
 *	child merges with the one before @first
 * @left_hi: the key the child before @first ends at in the copy
 * @changed: the first interval whose child or key the copy changes:
 *	@first, or the one before it when its key moves
 * @n: the copy's children
 */
struct nfhp_splice {
	const struct nfhp_node *node;
	u32 first;
	struct nfhp_children mid;
	u32 from;
	u32 to;
	u32 rest;
	nfhp_u128 left_hi;
	u32 changed;
	u32 n;
};

/*
 * Did the update leave the children @sp->first to @last of @sp->node as
 * they were?  Then so is the node: a quarter of the wide nodes' copies at
 * fw1_10k and seed.py's 10k set were equal to the node they copied, and
 * found it as their twin only after a copy, a hash and the references.
 */
static bool nfhp_splice_same(const struct nfhp_splice *sp, u32 last)
{
	u32 i;

	if (sp->mid.n != last - sp->first + 1)
		return false;
	for (i = 0; i < sp->mid.n; i++)
		if (sp->mid.node[i] != nfhp_child(sp->node, sp->first + i))
			return false;
	return true;
}

/*
 * Plan the copy of @sp->node with the children @sp->first to @last
 * replaced by @sp->mid, merging equal neighbours where they meet as
 * nfhp_children_add() would.  Any key width: the list way
 * (nfhp_splice_list()) sizes its list by the plan too.
 */
static void nfhp_splice_plan(struct nfhp_splice *sp, u32 last)
{
	struct nfhp_node *const *old = nfhp_children(sp->node);
	const struct nfhp_node *node = sp->node;
	u32 p = sp->first, n = node->n;

	sp->from = 0;
	sp->to = sp->mid.n;
	sp->rest = last + 1;
	sp->left_hi = p ? nfhp_node_key(node, p - 1) : 0;
	if (p && sp->mid.node[0] == old[p - 1]) {
		sp->left_hi = sp->mid.hi[0];
		sp->from = 1;
	}
	if (sp->rest < n && sp->from < sp->to &&
	    sp->mid.node[sp->to - 1] == old[sp->rest]) {
		sp->to--;
	} else if (sp->rest < n && sp->from == sp->to &&
		   old[sp->rest] == old[p - 1]) {
		sp->left_hi = nfhp_node_key(node, sp->rest);
		sp->rest++;
	}
	sp->changed = p && sp->left_hi != nfhp_node_key(node, p - 1) ?
		      p - 1 : p;
	sp->n = p + sp->to - sp->from + n - sp->rest;
}

/* Count (@delta 1) or drop (-1) references to @child[@lo .. @hi - 1]. */
static void nfhp_refs_range(struct nfhp_forest *f,
			    struct nfhp_node *const *child, u32 lo, u32 hi,
			    int delta)
{
	u32 i;

	for (i = lo; i < hi; i++) {
		if (delta < 0) {
			nfhp_tree_put(f, child[i]);
			continue;
		}
		nfhp_refs_prefetch(child, i, hi);
		nfhp_node_ref(child[i]);
	}
}

/* Count (@delta 1) or drop (-1) the copy's references to shared children. */
static void nfhp_splice_refs(struct nfhp_forest *f,
			     const struct nfhp_splice *sp, int delta)
{
	struct nfhp_node *const *old = nfhp_children(sp->node);

	nfhp_refs_range(f, old, 0, sp->first, delta);
	nfhp_refs_range(f, old, sp->rest, sp->node->n, delta);
}

/*
 * Is the copy @sp plans wide enough to be drafted in memory of its own,
 * stored as it is, and to borrow the children it shares (struct
 * nfhp_lend)?  Wide copies are rarely twins of stored nodes, and copying
 * them again was a tenth of an update at seed.py's 10k set; the pieces of
 * the 100k sets (512 intervals) were 4 % slower to delete that way.
 */
static bool nfhp_splice_wide(const struct nfhp_splice *sp)
{
	return sp->n > 2 * nfhp_tunables.node_piece;
}

/*
 * The index of the copy @sp plans, from the old node's: a bucket whose
 * first interval lies before the first key the splice changed keeps it,
 * one whose first interval lies in the old node's suffix moves it by the
 * size change, and only the buckets between are searched again.  That
 * holds while the buckets divide the same span: the same index size,
 * the same first key and last key but one.  Return: false when they do
 * not, and nfhp_index_fill() must build the index.
 */
static bool nfhp_splice_index(struct nfhp_node *draft,
			      const struct nfhp_splice *sp)
{
	const struct nfhp_node *node = sp->node;
	const u32 *k = nfhp_keys32(draft), *ok = nfhp_keys32(node);
	u32 p = sp->first, n = draft->n, b, i, nb, delta;
	const u32 *oidx = nfhp_index(node);
	u32 *idx = nfhp_index(draft);
	u64 start;

	if (!node->ibits || nfhp_index_bits(draft->kind, n) != node->ibits ||
	    k[0] != ok[0] || k[n - 2] != ok[node->n - 2])
		return false;
	draft->ibits = node->ibits;
	draft->ishift = node->ishift;
	nb = 1u << draft->ibits;
	delta = p + sp->to - sp->from - sp->rest;	/* modulo 2^32 */
	for (b = 0; b <= nb && oidx[b] < sp->changed; b++)
		idx[b] = oidx[b];
	for (i = sp->changed; b <= nb && oidx[b] < sp->rest; b++) {
		start = (u64)k[0] + 1 + ((u64)b << draft->ishift);
		while (i < n - 1 && k[i] < start)
			i++;
		idx[b] = i;
	}
	for (; b <= nb; b++)
		idx[b] = oidx[b] + delta;
	return true;
}

/*
 * Tests (nfhp_tunables.splice_verify): the index nfhp_splice_index() made must
 * be the one nfhp_index_fill() makes.
 */
static void nfhp_splice_index_check(struct nfhp_forest *f,
				    struct nfhp_node *draft)
{
	size_t size = nfhp_index_size(draft->kind, draft->n);
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	u8 ibits = draft->ibits, ishift = draft->ishift;
	u32 *made = nfhp_scratch_alloc(&f->scratch, 1, size);

	if (!made)
		return;
	memcpy(made, nfhp_index(draft), size);
	draft->ishift = 0;
	nfhp_index_fill(draft);
	WARN_ON(draft->ibits != ibits || draft->ishift != ishift ||
		memcmp(made, nfhp_index(draft), size));
	nfhp_scratch_release(&f->scratch, mark);
}

/*
 * The draft of the copy @sp plans: the shared children's keys and
 * pointers are copied in two runs, where nfhp_children_add() and
 * nfhp_make_node() went through each.  Its references are taken by the
 * caller.
 */
static struct nfhp_node *nfhp_splice_draft(struct nfhp_forest *f,
					   const struct nfhp_splice *sp,
					   u64 min_order)
{
	const struct nfhp_node *node = sp->node;
	u32 p = sp->first, m = sp->to - sp->from, s = node->n - sp->rest, i;
	struct nfhp_node **child;
	struct nfhp_node *draft;
	u32 *key;

	if (nfhp_splice_wide(sp))
		draft = nfhp_draft_alloc(NFHP_NODE_RLP32, sp->n);
	else
		draft = nfhp_draft_new(f, NFHP_NODE_RLP32, sp->n);
	if (!draft)
		return NULL;
	draft->dim = node->dim;
	child = nfhp_children(draft);
	key = nfhp_keys32(draft);
	memcpy(child, nfhp_children(node), p * sizeof(*child));
	memcpy(key, nfhp_keys32(node), p * sizeof(*key));
	if (p)
		key[p - 1] = (u32)sp->left_hi;
	for (i = 0; i < m; i++) {
		child[p + i] = sp->mid.node[sp->from + i];
		key[p + i] = (u32)sp->mid.hi[sp->from + i];
	}
	memcpy(child + p + m, nfhp_children(node) + sp->rest,
	       s * sizeof(*child));
	memcpy(key + p + m, nfhp_keys32(node) + sp->rest, s * sizeof(*key));
	if (min_order == U64_MAX)
		for (i = 0; i < sp->n; i++)
			min_order = min(min_order, child[i]->min_order);
	draft->min_order = min_order;
	if (!nfhp_splice_index(draft, sp))
		nfhp_index_fill(draft);
	else if (nfhp_tunables.splice_verify)
		nfhp_splice_index_check(f, draft);
	return draft;
}

/*
 * The hash sum of @draft, the copy @sp plans: the old node's, less the
 * terms of the intervals from @sp->changed to @sp->rest, plus those of
 * the copy's new ones.  Tests (nfhp_tunables.splice_verify) check it against
 * the sum of all the copy's terms.
 */
static u64 nfhp_splice_sum(const struct nfhp_splice *sp,
			   const struct nfhp_node *draft)
{
	u32 end = sp->first + sp->to - sp->from, i;
	const struct nfhp_node *node = sp->node;
	u64 sum;

	if (!nfhp_node_roomy(node))
		return nfhp_rlp32_sum(draft);
	sum = nfhp_wide_ctl(node)->sum;
	for (i = sp->changed; i < sp->rest; i++)
		sum -= nfhp_pair_hash(nfhp_child(node, i),
				      nfhp_keys32(node)[i]);
	for (i = sp->changed; i < end; i++)
		sum += nfhp_pair_hash(nfhp_child(draft, i),
				      nfhp_keys32(draft)[i]);
	WARN_ON(nfhp_tunables.splice_verify && sum != nfhp_rlp32_sum(draft));
	return sum;
}

/* Drop the references of a wide draft that found a twin, and free it. */
static void nfhp_splice_drop(struct nfhp_forest *f,
			     const struct nfhp_splice *sp,
			     struct nfhp_node *draft, bool lent)
{
	u32 i, p = sp->first, m = sp->to - sp->from;

	if (!lent)
		nfhp_draft_drop(f, draft);
	for (i = p; lent && i < p + m; i++)
		nfhp_tree_put(f, nfhp_child(draft, i));
	nfhp_draft_free(draft);
}

/* @sp->node lends its copy @copy the children they share. */
static void nfhp_splice_lend(const struct nfhp_splice *sp,
			     struct nfhp_node *copy)
{
	struct nfhp_lend *lender = nfhp_lend_of(sp->node);
	struct nfhp_lend *borrower = nfhp_lend_of(copy);

	lender->peer = copy;
	lender->lo = sp->first;
	lender->hi = sp->rest;
	borrower->peer = (struct nfhp_node *)sp->node;
	borrower->lo = sp->first;
	borrower->hi = sp->first + sp->to - sp->from;
}

/*
 * Store the copy @sp plans, whose earliest entry is @min_order (U64_MAX:
 * to be found).  On success it holds @sp->mid's references, less those of
 * the merged ones, which are dropped; on failure they stay with @sp->mid.
 * A wide copy borrows the children it shares with the node, unless the
 * node lends or borrows already (struct nfhp_lend); a narrow one counts
 * a reference to each.
 */
static int nfhp_splice_make(struct nfhp_forest *f, struct nfhp_splice *sp,
			    u64 min_order, struct nfhp_node **out)
{
	struct nfhp_node *draft = nfhp_splice_draft(f, sp, min_order);
	bool wide = nfhp_splice_wide(sp), lent;

	if (!draft)
		return -ENOMEM;
	lent = wide && nfhp_node_roomy(sp->node) && nfhp_node_roomy(draft) &&
	       !nfhp_lend_of(sp->node)->peer;
	if (!lent)
		nfhp_splice_refs(f, sp, 1);
	*out = wide ? nfhp_node_store(f, draft, nfhp_splice_sum(sp, draft)) :
		      nfhp_node_intern(f, draft);
	if (!*out) {
		if (!lent)
			nfhp_splice_refs(f, sp, -1);
		return -ENOMEM;
	}
	if (wide && *out != draft)
		nfhp_splice_drop(f, sp, draft, lent);
	else if (lent)
		nfhp_splice_lend(sp, draft);
	if (sp->from)
		nfhp_tree_put(f, sp->mid.node[0]);
	if (sp->to < sp->mid.n)
		nfhp_tree_put(f, sp->mid.node[sp->mid.n - 1]);
	return 0;
}

/*
 * The copy of @sp->node the generic way, through a list of all children
 * (nfhp_make_rlp()): for 128-bit keys, and for copies that are cut into
 * pieces or are one child.  Its references as nfhp_splice_make()'s.
 */
static int nfhp_splice_list(struct nfhp_forest *f, struct nfhp_splice *sp,
			    u32 last, u64 min_order, struct nfhp_node **out)
{
	const struct nfhp_node *node = sp->node;
	struct nfhp_children c = {};
	u32 i;
	int err;

	/* The plan's merges at both ends are the list's to make again. */
	c.node = nfhp_scratch_alloc(&f->scratch, sp->n + 2, sizeof(*c.node));
	c.hi = nfhp_scratch_alloc(&f->scratch, sp->n + 2, sizeof(*c.hi));
	if (!c.node || !c.hi)
		return -ENOMEM;
	for (i = 0; i < sp->first; i++)
		nfhp_children_add(f, &c, nfhp_child_share(node, i),
				  nfhp_node_key(node, i));
	for (i = 0; i < sp->mid.n; i++)
		nfhp_children_add(f, &c, sp->mid.node[i], sp->mid.hi[i]);
	for (i = last + 1; i < node->n; i++)
		nfhp_children_add(f, &c, nfhp_child_share(node, i),
				  nfhp_node_key(node, i));
	if (min_order == U64_MAX)
		min_order = nfhp_children_min(&c);
	err = nfhp_make_rlp(f, node->dim, &c, min_order, out);
	if (!err)
		return 0;
	/* Give @sp->mid its references back, drop the shared ones. */
	for (i = 0; i < sp->mid.n; i++)
		nfhp_node_get(f, sp->mid.node[i]);
	for (i = 0; i < c.n; i++)
		nfhp_tree_put(f, c.node[i]);
	return err;
}

/*
 * A range-location node: update the children whose intervals meet @x; the
 * others, usually nearly all, are shared as they are.  Their earliest
 * entries stay too, so unless an updated child held the node's earliest,
 * the new one is found among the updated children alone: a wide node's
 * children are not all read twice.  The copy is spliced from the old
 * node's keys and children (struct nfhp_splice): a root of 16,000
 * intervals went through a list of them twice, a third of an update.
 */
static int nfhp_update_rlp(struct nfhp_forest *f, struct nfhp_node *node,
			   struct nfhp_region *reg,
			   const struct nfhp_update *u, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_range span = reg->d[node->dim], hull;
	struct nfhp_splice sp = { .node = node };
	u64 min_order = node->min_order;
	struct nfhp_node *child;
	bool lost_min = false;
	int err = -ENOMEM;
	u32 i, last;

	nfhp_box_hull(u->x, node->dim, &hull);
	nfhp_rlp_met(node, &span, &hull, &sp.first, &last);
	if (sp.first >= node->n) {
		nfhp_node_ref(node);
		*out = node;
		return 0;
	}
	sp.mid.node = nfhp_scratch_alloc(&f->scratch, last - sp.first + 1,
					 sizeof(*sp.mid.node));
	sp.mid.hi = nfhp_scratch_alloc(&f->scratch, last - sp.first + 1,
				       sizeof(*sp.mid.hi));
	if (!sp.mid.node || !sp.mid.hi)
		goto out_release;
	for (err = 0, i = sp.first; i <= last && !err; i++) {
		reg->d[node->dim].lo = i ? nfhp_node_key(node, i - 1) + 1 :
					   span.lo;
		reg->d[node->dim].hi = nfhp_node_key(node, i);
		child = nfhp_child(node, i);
		lost_min |= child->min_order == node->min_order;
		err = nfhp_update_node(f, child, reg, u, &child);
		if (err)
			break;
		min_order = min(min_order, child->min_order);
		nfhp_children_add(f, &sp.mid, child, reg->d[node->dim].hi);
	}
	reg->d[node->dim] = span;
	if (err)
		goto out_put;
	if (nfhp_splice_same(&sp, last)) {
		nfhp_children_put(f, &sp.mid);
		nfhp_node_ref(node);
		*out = node;
		goto out_release;
	}
	if (lost_min)
		min_order = U64_MAX;
	nfhp_splice_plan(&sp, last);
	if (node->kind == NFHP_NODE_RLP32 && sp.n > 1 &&
	    sp.n <= 2 * nfhp_tunables.node_fanout)
		err = nfhp_splice_make(f, &sp, min_order, out);
	else
		err = nfhp_splice_list(f, &sp, last, min_order, out);
out_put:
	if (err)
		nfhp_children_put(f, &sp.mid);
out_release:
	nfhp_scratch_release(&f->scratch, mark);
	return err;
}

/* The first dimension in which @x does not cover the region. */
static unsigned int nfhp_uncovered_dim(const struct nfhp_box *x,
				       const struct nfhp_region *reg)
{
	unsigned int m, d;

	for (m = x->restricted; m; m &= m - 1) {
		d = __builtin_ctz(m);
		if (!nfhp_box_covers_dim(x, d, &reg->d[d]))
			return d;
	}
	return NFHP_DIM_MAX;
}

/*
 * A leaf that @x cuts: split it along @x's intervals in one dimension,
 * keep it outside them and update it inside.
 */
static noinline_for_stack int
nfhp_update_leaf(struct nfhp_forest *f, struct nfhp_node *leaf,
		 struct nfhp_region *reg,
		 const struct nfhp_update *u, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	unsigned int d = nfhp_uncovered_dim(u->x, reg), nr, i;
	const struct nfhp_range *r = nfhp_box_ranges(u->x, d);
	struct nfhp_range span = reg->d[d];
	struct nfhp_children c = {};
	nfhp_u128 lo = span.lo;
	struct nfhp_node *child;
	int err = -ENOMEM;

	nr = nfhp_box_nranges(u->x, d);
	c.node = nfhp_scratch_alloc(&f->scratch, 2 * nr + 1, sizeof(*c.node));
	c.hi = nfhp_scratch_alloc(&f->scratch, 2 * nr + 1, sizeof(*c.hi));
	if (!c.node || !c.hi)
		goto out_release;
	for (i = 0, err = 0; i < nr && !err; i++) {
		if (r[i].hi < span.lo)
			continue;
		if (r[i].lo > span.hi)
			break;
		if (r[i].lo > lo) {
			nfhp_node_ref(leaf);
			nfhp_children_add(f, &c, leaf, r[i].lo - 1);
		}
		reg->d[d].lo = max(r[i].lo, lo);
		reg->d[d].hi = min(r[i].hi, span.hi);
		err = nfhp_update_node(f, leaf, reg, u, &child);
		if (err)
			break;
		nfhp_children_add(f, &c, child, reg->d[d].hi);
		if (reg->d[d].hi == span.hi)
			break;
		lo = reg->d[d].hi + 1;
	}
	reg->d[d] = span;
	if (!err && c.hi[c.n - 1] != span.hi) {
		nfhp_node_ref(leaf);
		nfhp_children_add(f, &c, leaf, span.hi);
	}
	if (!err)
		err = nfhp_make_rlp(f, d, &c, nfhp_children_min(&c), out);
	if (err)
		for (i = 0; i < c.n; i++)
			nfhp_tree_put(f, c.node[i]);
out_release:
	nfhp_scratch_release(&f->scratch, mark);
	return err;
}

/* Does the part of @reg that the tests @t hold meet @x? */
static bool nfhp_list_part_meets(const struct nfhp_list_tests *t,
				 const struct nfhp_box *x,
				 const struct nfhp_region *reg,
				 struct nfhp_region *part)
{
	const struct nfhp_list_test *y;
	unsigned int j;

	*part = *reg;
	for (j = 0; j < t->n; j++) {
		y = &t->t[j];
		part->d[y->dim].lo = max(part->d[y->dim].lo,
					 nfhp_list_test_lo(y, reg->d[y->dim].lo));
		part->d[y->dim].hi = min(part->d[y->dim].hi,
					 nfhp_list_test_hi(y, reg->d[y->dim].lo));
	}
	return nfhp_box_intersects(x, part);
}

/*
 * A list that @x cuts is built anew for its whole region: unlike a leaf
 * it holds entries that do not cover its region, and those @x meets may
 * be gone, so no part of it can be kept.  Its entries that @x does not
 * meet stay as they are (they are read through their tests only, not
 * dereferenced, until known to stay); @u->c brings the rest.
 */
static noinline_for_stack int
nfhp_update_list(struct nfhp_forest *f, struct nfhp_node *list,
		 struct nfhp_region *reg,
		 const struct nfhp_update *u, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	const struct nfhp_entry *const *items = nfhp_leaf_entries(list);
	const struct nfhp_entry **all;
	const struct nfhp_list_tests *t = nfhp_list_tests(list);
	struct nfhp_region *part;
	unsigned int i, j = 0, n = 0;
	int err = -ENOMEM;

	all = nfhp_scratch_alloc(&f->scratch, list->n + u->n, sizeof(*all));
	part = nfhp_scratch_alloc(&f->scratch, 1, sizeof(*part));
	if (!all || !part)
		goto out_release;
	/* The last entry covers the region, so @x, which meets it, meets it. */
	for (i = 0; i < list->n - 1; i++, t = nfhp_list_tests_next(t)) {
		if (nfhp_list_part_meets(t, u->x, reg, part))
			continue;
		/* It may be a candidate too, by a part outside the region. */
		for (; j < u->n && u->c[j]->order <= items[i]->order; j++)
			if (u->c[j] != items[i])
				all[n++] = u->c[j];
		all[n++] = items[i];
	}
	while (j < u->n)
		all[n++] = u->c[j++];
	err = nfhp_build_region(f, reg, all, n, true, u->work,
				out);
out_release:
	nfhp_scratch_release(&f->scratch, mark);
	return err;
}

/*
 * A tested leaf that @x cuts is made anew for its whole region, as a
 * list is: its entries need not cover the region.  Those whose boxes miss
 * @x stay; @u->c brings every entry that meets @x.  It stays a tested
 * leaf (or becomes a leaf or a list): updates do not deepen a region a
 * build cut short, so the tree stays within what a build would take.
 */
static noinline_for_stack int
nfhp_update_tested(struct nfhp_forest *f, struct nfhp_node *leaf,
		   struct nfhp_region *reg,
		   const struct nfhp_update *u, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	const struct nfhp_entry *const *items = nfhp_leaf_entries(leaf);
	const struct nfhp_entry **all;
	unsigned int i, j = 0, n = 0;
	int err;

	all = nfhp_scratch_alloc(&f->scratch, leaf->n + u->n, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < leaf->n; i++) {
		if (!nfhp_box_disjoint(items[i]->box, u->x))
			continue;
		for (; j < u->n && u->c[j]->order < items[i]->order; j++)
			all[n++] = u->c[j];
		all[n++] = items[i];
	}
	while (j < u->n)
		all[n++] = u->c[j++];
	err = nfhp_build_region(f, reg, all, n, false, u->work, out);
	nfhp_scratch_release(&f->scratch, mark);
	return err;
}

static int nfhp_update_node(struct nfhp_forest *f, struct nfhp_node *node,
			    struct nfhp_region *reg,
			    const struct nfhp_update *u, struct nfhp_node **out)
{
	/*
	 * A subtree that several parents share is visited once per path to
	 * it, and the paths can multiply at every level.
	 */
	if (!*u->visits)
		return -EOVERFLOW;
	(*u->visits)--;
	if (!nfhp_box_intersects(u->x, reg)) {
		nfhp_node_ref(node);
		*out = node;
		return 0;
	}
	if (nfhp_box_covers(u->x, reg))
		return nfhp_build_region(f, reg, u->c, u->n, true,
					 u->work, out);
	if (nfhp_stack_low())
		return -E2BIG;
	if (node->kind == NFHP_NODE_LIST)
		return nfhp_update_list(f, node, reg, u, out);
	if (node->kind == NFHP_NODE_LEAF && node->ibits & NFHP_WALK_TESTED)
		return nfhp_update_tested(f, node, reg, u, out);
	if (node->kind == NFHP_NODE_LEAF)
		return nfhp_update_leaf(f, node, reg, u, out);
	return nfhp_update_rlp(f, node, reg, u, out);
}

/**
 * nfhp_tree_update() - rebuild the part of a tree that a change touches
 * @f: the forest
 * @root: the current tree; it is not changed
 * @x: the box of an entry that was added or removed
 * @cands: every entry of the new rule set that intersects @x, in order,
 *	ending with the policy
 * @n: number of entries in @cands
 * @visits: how many nodes the update may visit; less what it visited
 *	on return
 * @work: how many work units its builds may take, as a build's budget
 *	("Bounded builds" in DOC: Theory of Operation); less what they took
 *	on return
 * @out: set to the new tree, holding one reference
 *
 * Nodes whose regions miss @x are shared with @root; regions inside @x are
 * built anew from @cands, which hold every entry that can matter there;
 * leaves that @x cuts are split along it.  Several changes are applied one
 * after the other.  The visits are counted: a subtree shared by several
 * parents is visited once per path to it, and where paths multiply, a
 * build of the whole tree costs less (see "Updates: nfhp_tree_update()"
 * in DOC: Theory of Operation).
 *
 * Return: 0, -ENOMEM, or -EOVERFLOW when @visits did not suffice; on
 * error nothing is allocated.
 */
int nfhp_tree_update(struct nfhp_forest *f, struct nfhp_node *root,
		     const struct nfhp_box *x,
		     const struct nfhp_entry **cands, unsigned int n,
		     unsigned long *visits, u64 *work, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_update u = {
		.x = x, .c = cands, .n = n, .visits = visits, .work = work,
	};
	struct nfhp_region *reg = nfhp_region_scratch(f);
	int err;

	if (!reg)
		return -ENOMEM;
	err = nfhp_update_node(f, root, reg, &u, out);
	nfhp_scratch_release(&f->scratch, mark);
	return err;
}
