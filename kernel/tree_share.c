// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the helper that builds half of a split.
 *
 * DOC: Two builders
 *
 * The work of a split's intervals (nfhp_work_walk()), which both plans
 * count: where to cut a split into two runs of about equal work
 * (nfhp_share_plan()), and what a split takes on a bounded build's second
 * attempt (nfhp_split_work()); and the second run of a shared split, built
 * by a helper on the unbound workqueue (nfhp_split_shared()).  See "Two
 * builders" in DOC: Theory of Operation (tree.c).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "memo.h"
#include "tree_priv.h"

/**
 * struct nfhp_helper - the second run of a shared split
 * @work: the work item on the unbound workqueue
 * @f: the helper's forest: its own scratch stack, its home's table
 * @reg: the helper's copy of the region being split
 * @s: the split's relevant entries
 * @w: the helper's run
 * @c: the children it built
 * @memo: the subtrees it built
 * @err: its result
 */
struct nfhp_helper {
	struct work_struct work;
	struct nfhp_forest f;
	struct nfhp_region reg;
	const struct nfhp_scan *s;
	struct nfhp_sweep w;
	struct nfhp_children c;
	struct nfhp_memo memo;
	int err;
};

static void nfhp_helper_run(struct work_struct *work)
{
	struct nfhp_helper *h = container_of(work, struct nfhp_helper, work);
	struct nfhp_forest *f = &h->f;
	unsigned int n = h->w.nev - h->w.from + 1;

	h->c.node = nfhp_scratch_alloc(&f->scratch, n, sizeof(*h->c.node));
	h->c.hi = nfhp_scratch_alloc(&f->scratch, n, sizeof(*h->c.hi));
	h->err = -ENOMEM;
	if (h->c.node && h->c.hi)
		h->err = nfhp_split_children(f, &h->reg, h->s, &h->w, &h->c);
}

/**
 * struct nfhp_work_tally - the work of a split's intervals, walked in order
 * @done: the work of the intervals walked; an interval's work is the
 *	number of its relevant entries
 * @most: the work of the largest of them
 * @heavy: the index of that interval, or -1
 */
struct nfhp_work_tally {
	u64 done;
	u64 most;
	int heavy;
};

/*
 * Walk the intervals of a split whose region starts at @lo into @t, until
 * @t->done reaches @limit.  Return the event where the next interval
 * starts, or 0 when the walk got to the last interval.
 */
static unsigned int nfhp_work_walk(const struct nfhp_scan *s,
				   const struct nfhp_sweep *w, nfhp_u128 lo,
				   u64 limit, struct nfhp_work_tally *t)
{
	const struct nfhp_event *ev = w->ev;
	unsigned int i, e = 0;
	nfhp_u128 at = lo;
	long on = 0;
	int k;

	for (i = 0; i < s->n; i++)
		on += !nfhp_box_nranges(s->rel[i]->box, w->dim);
	for (k = 0; ; k++) {
		for (; e < w->nev && ev[e].at == at; e++)
			on += ev[e].on ? 1 : -1;
		t->done += on;
		if (on > t->most) {
			t->most = on;
			t->heavy = k;
		}
		if (e >= w->nev)
			return 0;
		if (t->done >= limit)
			return e;
		at = ev[e].at;
	}
}

/**
 * nfhp_share_plan() - plan the runs of a split
 * @s: the split's relevant entries
 * @w: its interval ends
 * @lo: where its region starts in @w->dim
 * @cut: set to the event where the second run starts, at half of the
 *	work, or 0 not to cut
 * @first: set to the work of the first run, when cut
 * @total: set to the work of the split
 * @heavy: set to the interval that holds most of the work when that is
 *	why the split is not cut, else -1
 */
noinline_for_stack void
nfhp_share_plan(const struct nfhp_scan *s,
		const struct nfhp_sweep *w, nfhp_u128 lo,
		unsigned int *cut, u64 *first, u64 *total, int *heavy)
{
	struct nfhp_work_tally all = { .heavy = -1 }, half = { .heavy = -1 };

	*cut = 0;
	*heavy = -1;
	nfhp_work_walk(s, w, lo, U64_MAX, &all);
	*total = all.done;
	if (all.done >= 2 * (u64)nfhp_tunables.share_min && 2 * all.most <= all.done) {
		*cut = nfhp_work_walk(s, w, lo, (all.done + 1) / 2, &half);
		*first = half.done;
	} else if (all.most >= nfhp_tunables.share_min) {
		*heavy = all.heavy;
	}
}

/**
 * nfhp_split_work() - the work of a split
 * @s: its relevant entries
 * @w: its interval ends
 * @lo: where its region starts in @w->dim
 *
 * Return: every child's relevant entries, at most.
 */
u64 nfhp_split_work(const struct nfhp_scan *s,
		    const struct nfhp_sweep *w, nfhp_u128 lo)
{
	struct nfhp_work_tally all = { .heavy = -1 };

	nfhp_work_walk(s, w, lo, U64_MAX, &all);
	return all.done;
}

/**
 * nfhp_split_shared() - build the children of a split in two runs
 * @f: the forest
 * @reg: the region split
 * @s: its relevant entries
 * @w: the split; the work of both runs is added to @w->used
 * @cut: the event where the second run, a helper's, starts
 * @first_work: the work of the first run
 * @total: the work of the split: the first run's pool is to @w's as
 *	@first_work is to @total
 * @c: the children, appended to
 *
 * Return: as nfhp_split_children(); -EAGAIN when no helper could be
 * made, for the caller to sweep alone.
 */
noinline_for_stack int
nfhp_split_shared(struct nfhp_forest *f, struct nfhp_region *reg,
		  const struct nfhp_scan *s,
		  struct nfhp_sweep *w, unsigned int cut, u64 first_work,
		  u64 total, struct nfhp_children *c)
{
	struct nfhp_sweep first = *w;
	struct nfhp_helper *h;
	unsigned int i;
	int err;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -EAGAIN;
	h->f.mem = f->mem;
	h->f.home = f;
	h->f.family = f->family;
	h->f.shares = f->shares;
	nfhp_scratch_init(&h->f.scratch);
	nfhp_memo_init(&h->memo);
	h->f.memo = &h->memo;
	h->reg = *reg;
	h->s = s;
	h->w = *w;
	h->w.from = cut;
	first.to = cut;
	first_work = min(first_work, total);
	first.pool = div64_u64(w->pool * first_work, max_t(u64, total, 1));
	h->w.pool = w->pool - first.pool;
	if (f->shares) {
		first.work = min(first_work, w->work);
		h->w.work = w->work - first.work;
	}
	INIT_WORK(&h->work, nfhp_helper_run);
	f->shared = true;
	queue_work(system_unbound_wq, &h->work);
	err = nfhp_split_children(f, reg, s, &first, c);
	flush_work(&h->work);
	f->shared = false;
	w->used += first.used + h->w.used;
	if (!err)
		err = h->err;
	if (!err)
		f->shared_splits++;
	for (i = 0; i < h->c.n; i++) {
		if (err)
			nfhp_tree_put(f, h->c.node[i]);
		else
			nfhp_children_add(f, c, h->c.node[i], h->c.hi[i]);
	}
	nfhp_memo_destroy(&h->memo);
	nfhp_scratch_destroy(&h->f.scratch);
	kfree(h);
	return err;
}
