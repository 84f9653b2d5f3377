// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the incremental update of a hook's entries and trees.
 *
 * DOC: Incremental update
 *
 * A commit that flattened a hook diffs its entries against the committed
 * ones (nfhp_flat_diff(), nfhp_update_hook()), gives the new entries order
 * keys between their neighbours', and updates each group's tree for the
 * entries that changed, with the candidates the index finds
 * (nfhp_update_trees()); a group whose update gives up is built anew
 * (nfhp_group_rebuild()).
 */
#include <linux/bsearch.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "ruleset_priv.h"

static bool nfhp_entry_same(const struct nfhp_entry *a,
			    const struct nfhp_entry *b)
{
	return a->rule == b->rule && a->action == b->action &&
	       a->cnt == b->cnt && a->flags == b->flags &&
	       a->depth == b->depth &&
	       (a->box == b->box || (a->box->size == b->box->size &&
				     !memcmp(a->box, b->box, a->box->size)));
}

/*
 * Align the new entries with the old ones: @match[j] is the old index of
 * new entry j, or -1 for an added one.  Changes are local, so a greedy walk
 * that looks a window ahead finds them.
 */
static unsigned int nfhp_flat_diff(const struct nfhp_flat *old,
				   const struct nfhp_flat *fl, int *match)
{
	unsigned int i = 0, j, k, changes = 0;
	const struct nfhp_entry *a, *b;
	struct nfhp_pageseq_iter io, it;

	nfhp_pageseq_iter_init(&io, &old->e, 0);
	/* a is old entry i, NULL past the last. */
	a = nfhp_pageseq_iter_next(&io);
	nfhp_pageseq_iter_init(&it, &fl->e, 0);
	for (j = 0; (b = nfhp_pageseq_iter_next(&it)); j++) {
		if (a && !nfhp_entry_same(a, b)) {
			for (k = 1; k < NFHP_DIFF_WINDOW && i + k < old->e.n;
			     k++)
				if (nfhp_entry_same(nfhp_flat_at(old, i + k), b))
					break;
			if (i + k < old->e.n && k < NFHP_DIFF_WINDOW) {
				changes += k;	/* old i .. i + k - 1 removed */
				i += k;
				nfhp_pageseq_iter_init(&io, &old->e, i);
				a = nfhp_pageseq_iter_next(&io);
			}
		}
		if (a && nfhp_entry_same(a, b)) {
			match[j] = i++;
			a = nfhp_pageseq_iter_next(&io);
			continue;
		}
		match[j] = -1;	/* added */
		changes++;
	}
	return changes + (old->e.n - i);
}

/*
 * Keys for the @run added entries of @fl from @j on, between the kept
 * entries beside them, whose keys are @lo (0 at the head) and @hi, see
 * nfhp_flat_orders().
 */
static int nfhp_flat_orders_run(struct nfhp_flat *fl, u64 lo, u64 hi,
				unsigned int j, unsigned int run, bool apply)
{
	unsigned int k;
	u64 step;

	step = min_t(u64, (hi - lo) / (run + 1), NFHP_ORDER_GAP);
	if (!step)
		return -EAGAIN;
	for (k = 0; k < run && apply; k++)
		nfhp_flat_at(fl, j + k)->order = j ? lo + step * (k + 1) :
					  hi - step * (run - k);
	return 0;
}

/*
 * Give added entries order keys between their kept neighbours, so that no
 * kept entry, which packets may be comparing right now, changes its key.
 * Keys go NFHP_ORDER_GAP apart where there is room, next to the upper
 * neighbour at the head and next to the lower one elsewhere: inserts at
 * the head and appends then never run out of room.  With @apply false
 * only check that there is room.
 */
static int nfhp_flat_orders(struct nfhp_flat *fl, const struct nfhp_flat *old,
			    const int *match, bool apply)
{
	unsigned int j = 0, run;
	u64 lo, hi;
	int err;

	while (j < fl->e.n) {
		if (match[j] >= 0) {
			j++;
			continue;
		}
		for (run = 0; j + run < fl->e.n && match[j + run] < 0; run++)
			;
		if (j + run == fl->e.n)
			return -EAGAIN;	/* the policy is always kept */
		/* Only the neighbours of a run are read: few entries. */
		lo = j ? nfhp_flat_at(old, match[j - 1])->order : 0;
		hi = nfhp_flat_at(old, match[j + run])->order;
		err = nfhp_flat_orders_run(fl, lo, hi, j, run, apply);
		if (err)
			return err;
		j += run;
	}
	return 0;
}

/*
 * nfhp_flat_orders() for the added entries @d lists: their neighbours in
 * @fl are the kept entries themselves.
 */
static int nfhp_delta_orders(struct nfhp_flat *fl, const struct nfhp_delta *d)
{
	unsigned int a = 0, j, run;
	u64 lo, hi;
	int err;

	while (a < d->nadded) {
		j = d->added[a];
		for (run = 1; a + run < d->nadded; run++)
			if (d->added[a + run] != j + run)
				break;
		if (j + run == fl->e.n)
			return -EAGAIN;	/* the policy is always kept */
		lo = j ? nfhp_flat_at(fl, j - 1)->order : 0;
		hi = nfhp_flat_at(fl, j + run)->order;
		err = nfhp_flat_orders_run(fl, lo, hi, j, run, true);
		if (err)
			return err;
		a += run;
	}
	return 0;
}

/*
 * Gather the entries of group @g of @fl into @out, the policy last: all
 * of them where they skip, which keeps them in one tree.
 */
static unsigned int nfhp_group_gather(const struct nfhp_flat *fl,
				      unsigned int g,
				      const struct nfhp_entry **out)
{
	bool groups = nfhp_flat_groupable(fl);
	const struct nfhp_entry *e;
	struct nfhp_pageseq_iter it;
	unsigned int i, n = 0;

	nfhp_pageseq_iter_init(&it, &fl->e, 0);
	for (i = 0; i + 1 < fl->e.n; i++) {
		e = nfhp_pageseq_iter_next(&it);
		if (!groups || it.tag == g)
			out[n++] = e;
	}
	out[n++] = nfhp_pageseq_iter_next(&it);
	return n;
}

/* Has group @g of @fl an entry besides the policy?  Its tags tell. */
static bool nfhp_group_used(const struct nfhp_flat *fl, unsigned int g)
{
	unsigned int k, len, left = fl->e.n ? fl->e.n - 1 : 0;
	const struct nfhp_pageseq_page *pg;

	for (k = 0; k < fl->e.npages && left; k++) {
		pg = fl->e.slot[k].page;
		len = min_t(unsigned int, pg->n, left);
		if (memchr(pg->tag, g, len))
			return true;
		left -= len;
	}
	return false;
}

/**
 * struct nfhp_cands_query - one search of nfhp_cands_find()
 * @cx: where it searches
 * @g: the group searched
 * @x: the summary of the changed entry
 * @box: its box
 * @out: the candidates found
 * @n: candidates in @out
 */
struct nfhp_cands_query {
	const struct nfhp_cands *cx;
	unsigned int g;
	const struct nfhp_entry_sum *x;
	const struct nfhp_box *box;
	const struct nfhp_entry **out;
	unsigned int n;
};

static int nfhp_ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const void *const *)a;
	uintptr_t y = (uintptr_t)*(const void *const *)b;

	return x < y ? -1 : x > y;
}

static int nfhp_entry_order_cmp(const void *a, const void *b)
{
	const struct nfhp_entry *x = *(const struct nfhp_entry *const *)a;
	const struct nfhp_entry *y = *(const struct nfhp_entry *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* An entry the index found: a candidate unless the update removes it. */
static void nfhp_cands_take(void *arg, const struct nfhp_entry *e,
			    const struct nfhp_entry_sum *sum)
{
	struct nfhp_cands_query *q = arg;
	const struct nfhp_cands *cx = q->cx;

	if (nfhp_box_disjoint(e->box, q->box))
		return;
	if (cx->nremoved && bsearch(&e, cx->removed, cx->nremoved,
				    sizeof(*cx->removed), nfhp_ptr_cmp))
		return;
	q->out[q->n++] = e;
}

/*
 * The entries of group @g of the new entries whose boxes meet @box (with
 * summary @x), in order, into @out: the committed ones the index finds
 * but those removed, and the added ones.
 */
static unsigned int nfhp_cands_find(const struct nfhp_cands *cx,
				    unsigned int g,
				    const struct nfhp_entry_sum *x,
				    const struct nfhp_box *box,
				    const struct nfhp_entry **out)
{
	struct nfhp_cands_query q = {
		.cx = cx, .g = g, .x = x, .box = box, .out = out,
	};
	const struct nfhp_flat *fl = cx->fl;
	bool groups = nfhp_flat_groupable(fl);
	const struct nfhp_entry *e;
	struct nfhp_entry_sum sum;
	unsigned int a;

	/* Entries that skip others share one tree: ask every group. */
	for (q.g = groups ? g : 0; q.g < (groups ? g + 1 : NFHP_GROUPS);
	     q.g++)
		nfhp_cand_index_query(cx->idx, q.g, x, nfhp_cands_take, &q);
	for (a = 0; a < cx->d->nadded; a++) {
		e = nfhp_flat_at(fl, cx->d->added[a]);
		if (groups && e->group != g)
			continue;
		nfhp_entry_sum_fill(&sum, e->box);
		if (nfhp_entry_sum_meet(&sum, x) &&
		    !nfhp_box_disjoint(e->box, box))
			out[q.n++] = e;
	}
	sort(out, q.n, sizeof(*out), nfhp_entry_order_cmp, NULL);
	return q.n;
}

/*
 * The candidates of the @nchanged entries @changed (summaries @x) among the
 * entries of group @g of @fl, by a pass over them all: for a chain with
 * jumps, or when the index could not be built.  Those of changed entry k
 * go to @cands from k * @fl->n on, @n[k] of them.
 */
static void nfhp_cands_scan(const struct nfhp_flat *fl, unsigned int g,
			    const struct nfhp_entry *const *changed,
			    const struct nfhp_entry_sum *x,
			    unsigned int nchanged,
			    const struct nfhp_entry **cands, unsigned int *n)
{
	struct nfhp_entry_sum own;
	const struct nfhp_entry_sum *sum = &own;
	bool groups = nfhp_flat_groupable(fl);
	const struct nfhp_entry *e;
	struct nfhp_pageseq_iter it;
	unsigned int i, k;

	nfhp_pageseq_iter_init(&it, &fl->e, 0);
	for (i = 0; i + 1 < fl->e.n; i++) {
		e = nfhp_pageseq_iter_next(&it);
		if (groups && it.tag != g)
			continue;
		/* A walking update keeps no summaries: read the box. */
		if (fl->summed)
			sum = &fl->sum[i];
		else
			nfhp_entry_sum_fill(&own, e->box);
		for (k = 0; k < nchanged; k++)
			if (nfhp_entry_sum_meet(sum, &x[k]) &&
			    !nfhp_box_disjoint(e->box, changed[k]->box))
				cands[k * fl->e.n + n[k]++] = e;
	}
}

/**
 * struct nfhp_update_budget - what the updates of one commit may spend
 * @visits: nodes the updates of each group's tree may still visit
 * @work: work units their builds may still take
 *
 * The updates of one tree in one commit share one budget: past it, the
 * tree is built anew.  With a build's budget for each changed entry, a
 * restore that took back all but ten rules of the university firewall
 * (../shared/repro) made 74 updates among its tested leaves, each up to
 * a build, and took ten times a build; with one build's budget for all,
 * 1.9 times; with a first attempt's, 1.1 times, and its single-rule
 * changes gave up sooner where they would (p99 0.57 s, not 0.80).
 */
struct nfhp_update_budget {
	unsigned long visits[NFHP_GROUPS];
	u64 work[NFHP_GROUPS];
};

/*
 * Give every group of @fl's hook the work of a build's first attempt (a
 * quarter of its budget) and the visits of nfhp_tunables: an update that
 * needs more gives up, and the build that follows costs little more than
 * the rest would have.
 */
static void nfhp_update_budget_init(struct nfhp_update_budget *b,
				    const struct nfhp_flat *fl)
{
	unsigned long per_entry = nfhp_tunables.update_visits_per_entry;
	u64 work = nfhp_build_budget_of(nfhp_tunables.build_first, fl->e.n);
	unsigned int g;

	for (g = 0; g < NFHP_GROUPS; g++) {
		b->visits[g] = nfhp_tunables.update_visits_min +
			       per_entry * fl->e.n;
		b->work[g] = work;
	}
}

/*
 * Work one or two changed entries of group @g into its tree @root.  A
 * rule's hotdrop entry comes with it: one pass over the hook's summaries
 * (or one search of @cx each, unless NULL) finds the candidates of both.
 * The pass reads the whole hook rather than a copy of the group's
 * entries: making that copy would read it all anyway, and write as much.
 * @cands has room for twice @fl's entries.  The updates spend from @b.
 * Return: 0, -ENOMEM, or -EOVERFLOW when the update of the tree gave up.
 */
static int nfhp_update_group(struct nfhp_ruleset *rs, struct nfhp_node **root,
			     const struct nfhp_entry *const *changed,
			     unsigned int nchanged,
			     const struct nfhp_flat *fl, unsigned int g,
			     const struct nfhp_cands *cx,
			     const struct nfhp_entry **cands,
			     struct nfhp_update_budget *b)
{
	unsigned int k, n[2] = { 0, 0 }, stride = fl->e.n;
	struct nfhp_entry_sum x[2];
	struct nfhp_node *new;
	int err;

	for (k = 0; k < nchanged; k++) {
		nfhp_entry_sum_fill(&x[k], changed[k]->box);
		if (cx)
			n[k] = nfhp_cands_find(cx, g, &x[k], changed[k]->box,
					       cands + k * stride);
	}
	if (!cx)
		nfhp_cands_scan(fl, g, changed, x, nchanged, cands, n);
	for (k = 0; k < nchanged; k++) {
		cands[k * stride + n[k]++] = nfhp_flat_at(fl, fl->e.n - 1);
		err = nfhp_tree_update(&rs->forest, *root, changed[k]->box,
				       cands + k * stride, n[k], &b->visits[g],
				       &b->work[g], &new);
		if (err)
			return err;
		nfhp_tree_put(&rs->forest, *root);
		*root = new;
	}
	return 0;
}

/*
 * Build group @g's tree anew from @fl, into @root, which may hold the
 * committed tree: for a group new to the hook, or when an update of the
 * tree gave up ("Updates: nfhp_tree_update()" in tree.c).  @cands has
 * room for @fl's entries.
 */
static int nfhp_group_rebuild(struct nfhp_ruleset *rs, struct nfhp_node **root,
			      const struct nfhp_flat *fl, unsigned int g,
			      const struct nfhp_entry **cands)
{
	struct nfhp_node *new;
	int err;

	err = nfhp_tree_build(&rs->forest, cands,
			      nfhp_group_gather(fl, g, cands), &new);
	if (err)
		return err;
	if (*root)
		nfhp_tree_put(&rs->forest, *root);
	*root = new;
	return 0;
}

/* Do @a and @b belong in one nfhp_update_group()? */
static bool nfhp_entries_pair(const struct nfhp_entry *a,
			      const struct nfhp_entry *b)
{
	return a->action == NFHP_ENTRY_HOTDROP && b->rule == a->rule &&
	       b->group == a->group;
}

/*
 * Update the trees for the @n changed entries of @e whose indexes
 * @changed lists, rising, in pairs where nfhp_entries_pair() allows.  The
 * groups of the changed entries are added to @groups, unless NULL; those
 * whose trees were built anew from @fl to @built, and left alone after.
 * The updates spend from @b.
 */
static int nfhp_update_changed(struct nfhp_ruleset *rs, struct nfhp_tables *t,
			       int h, const struct nfhp_pageseq *e,
			       const unsigned int *changed, unsigned int n,
			       const struct nfhp_flat *fl,
			       const struct nfhp_cands *cx,
			       const struct nfhp_entry **cands,
			       struct nfhp_update_budget *b,
			       unsigned int *groups, unsigned int *built)
{
	struct nfhp_node **root = t->hooks[h].root;
	const struct nfhp_entry *ch[2];
	unsigned int i, k, nch, g;
	bool gave_up;
	int err = 0;

	for (k = 0; k < n && !err; k++) {
		i = changed[k];
		ch[0] = nfhp_pageseq_get(e, i);
		ch[1] = k + 1 < n && changed[k + 1] == i + 1 ?
			nfhp_pageseq_get(e, i + 1) : NULL;
		nch = 1;
		if (ch[1] && nfhp_entries_pair(ch[0], ch[1])) {
			nch++;
			k++;
		}
		/* Entries that skip others share one tree. */
		g = nfhp_flat_groupable(fl) ? ch[0]->group : 0;
		if (groups)
			*groups |= 1u << g;
		/* A tree built in this commit holds every change already. */
		if (*built & (1u << g))
			continue;
		if (root[g])
			err = nfhp_update_group(rs, &root[g], ch, nch, fl, g,
						cx, cands, b);
		if (!root[g] || err == -EOVERFLOW) {
			gave_up = err == -EOVERFLOW;
			*built |= 1u << g;
			err = nfhp_group_rebuild(rs, &root[g], fl, g, cands);
			rs->updates_given_up += !err && gave_up;
		}
	}
	return err;
}

/*
 * List in @d the added (new) and the removed (old) entries that @match
 * tells, rising; @d's arrays have room for all entries.  @match rises
 * where it is not -1, so the old entries it skips are the removed ones,
 * and no entry is touched to find them.
 */
static void nfhp_changed_list(const struct nfhp_flat *fl,
			      const struct nfhp_flat *old, const int *match,
			      struct nfhp_delta *d)
{
	unsigned int i, next = 0;

	for (i = 0; i < fl->e.n; i++) {
		if (match[i] < 0) {
			d->added[d->nadded++] = i;
			continue;
		}
		while (next < (unsigned int)match[i])
			d->removed[d->nremoved++] = next++;
		next++;
	}
	/* The policies match, the last entry of both: none is left over. */
	WARN_ON_ONCE(next != old->e.n);
}

/*
 * Apply the added (new) and removed (old) entries to @t's trees; @d lists
 * them, or is NULL and @match tells.  @cx finds the candidates, or is NULL
 * and a scan of @fl does.
 */
static int nfhp_update_trees(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			     const struct nfhp_flat *old, const int *match,
			     const struct nfhp_delta *d,
			     const struct nfhp_cands *cx,
			     const struct nfhp_tables *cur,
			     struct nfhp_tables *t, int h)
{
	struct nfhp_scratch *s = &rs->forest.scratch;
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(s);
	const struct nfhp_entry **cands;
	struct nfhp_update_budget b;
	struct nfhp_delta listed = {};
	unsigned int g, emptied = 0, built = 0;
	int err = -ENOMEM;

	/*
	 * Scratch memory, kept from one commit to the next: allocated anew,
	 * these arrays (1.6 MB at 100,000 entries) were page faults at every
	 * commit.
	 */
	cands = nfhp_scratch_alloc(s, 2 * fl->e.n, sizeof(*cands));
	if (!cands)
		goto out_release;
	if (!d) {
		listed.added = nfhp_scratch_alloc(s, fl->e.n, sizeof(int));
		listed.removed = nfhp_scratch_alloc(s, old->e.n, sizeof(int));
		if (!listed.added || !listed.removed)
			goto out_release;
		nfhp_changed_list(fl, old, match, &listed);
		d = &listed;
	}
	for (g = 0; g < NFHP_GROUPS; g++) {
		t->hooks[h].root[g] = cur->hooks[h].root[g];
		if (t->hooks[h].root[g])
			nfhp_tree_get(t->hooks[h].root[g]);
	}
	nfhp_update_budget_init(&b, fl);
	err = nfhp_update_changed(rs, t, h, &fl->e, d->added, d->nadded, fl,
				  cx, cands, &b, NULL, &built);
	if (!err)
		err = nfhp_update_changed(rs, t, h, &old->e, d->removed,
					  d->nremoved, fl, cx, cands, &b,
					  &emptied, &built);
	/* Only a group that lost entries can have none left. */
	for (g = 1; g < NFHP_GROUPS && !err; g++) {
		if (!(emptied & (1u << g)) || !t->hooks[h].root[g] ||
		    nfhp_group_used(fl, g))
			continue;
		nfhp_tree_put(&rs->forest, t->hooks[h].root[g]);
		t->hooks[h].root[g] = NULL;
	}
out_release:
	nfhp_scratch_release(s, mark);
	return err;
}

/*
 * The committed entries @d removes, sorted by address for bsearch(), into
 * @cx.  Return: false without memory.
 */
static bool nfhp_cands_removed(struct nfhp_ruleset *rs, struct nfhp_cands *cx,
			       const struct nfhp_flat *old)
{
	const struct nfhp_delta *d = cx->d;
	unsigned int i;

	cx->removed = nfhp_scratch_alloc(&rs->forest.scratch, d->nremoved,
					 sizeof(*cx->removed));
	if (!cx->removed)
		return false;
	for (i = 0; i < d->nremoved; i++)
		cx->removed[i] = nfhp_flat_at(old, d->removed[i]);
	sort(cx->removed, d->nremoved, sizeof(*cx->removed), nfhp_ptr_cmp,
	     NULL);
	cx->nremoved = d->nremoved;
	return true;
}

/**
 * nfhp_update_matched() - update a hook's trees for the entries that changed
 * @rs: the rule set
 * @fl: the new entries
 * @match: for each new entry, the old one it equals, or -1
 * @d: the changes, or NULL
 * @cx: the candidate index, or NULL
 * @changes: entries that came or went
 * @cur: the published tables
 * @t: the new tables
 * @h: the hook
 *
 * Update the trees of a hook whose new entries @fl are aligned with the
 * old ones by @match, whose changes @d lists unless NULL; kept entries are
 * in @fl already.  -EAGAIN: too many changes, or no room for the new
 * order keys: rebuild instead.
 *
 * Return: 0, -EAGAIN or -errno.
 */
int nfhp_update_matched(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			const int *match, struct nfhp_delta *d,
			struct nfhp_cands *cx,
			unsigned int changes,
			const struct nfhp_tables *cur,
			struct nfhp_tables *t, int h)
{
	const struct nfhp_flat *old = &rs->hooks[h].flat;
	int err;

	if (changes > max_t(unsigned int, 64, fl->e.n / NFHP_INCR_MAX_SHARE))
		return -EAGAIN;
	/*
	 * Keys go to added entries only, this transaction's own: when there
	 * is no room, the caller flattens the hook afresh anyway.
	 */
	err = d ? nfhp_delta_orders(fl, d) :
		  nfhp_flat_orders(fl, old, match, true);
	if (!err && d && fl->skips)
		err = nfhp_flat_scopes(rs, fl, old, d, h);
	if (err)
		return err;
	/* The removed entries, the scopes' replaced ones included. */
	if (cx && !nfhp_cands_removed(rs, cx, old))
		cx = NULL;
	return nfhp_update_trees(rs, fl, old, match, d, cx, cur, t, h);
}

/**
 * nfhp_update_hook() - update a hook flattened afresh by a diff
 * @rs: the rule set
 * @fl: the new entries
 * @cur: the published tables
 * @t: the new tables
 * @h: the hook
 *
 * Carry the unchanged entries of the hook's last commit over into @fl and
 * update its trees only where entries came or went.  -EAGAIN: a rebuild
 * from scratch is the better (or only) way; @fl is then untouched.
 *
 * Return: 0, -EAGAIN or -errno.
 */
noinline_for_stack int
nfhp_update_hook(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		 const struct nfhp_tables *cur,
		 struct nfhp_tables *t, int h)
{
	const struct nfhp_flat *old = &rs->hooks[h].flat;
	unsigned int changes;
	int *match, err = -EAGAIN;

	/* Updates know neither skips nor entries that no tree holds. */
	if (!cur || !old->e.n || !nfhp_flat_groupable(fl) ||
	    !nfhp_flat_groupable(old) || fl->voids || old->voids)
		return -EAGAIN;
	match = nfhp_ints_alloc(rs, fl->e.n, &fl->from_cap);
	fl->from = match;
	if (!match)
		return -ENOMEM;
	changes = nfhp_flat_diff(old, fl, match);
	if (changes > max_t(unsigned int, 64, fl->e.n / NFHP_INCR_MAX_SHARE))
		goto out_free;
	err = nfhp_flat_orders(fl, old, match, false);
	if (err)
		goto out_free;
	err = nfhp_flat_settle(rs, fl, old, match);
	if (!err)
		err = nfhp_update_matched(rs, fl, match, NULL, NULL, changes,
					  cur, t, h);
	return err;
out_free:
	/* The caller settles @fl as entries of its own. */
	nfhp_ints_free(rs, fl->from, fl->from_cap);
	fl->from = NULL;
	fl->from_cap = 0;
	return err;
}
