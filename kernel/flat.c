// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: flattening, the user chains of a hook into its entries.
 *
 * DOC: Flattening
 *
 * A hook's built-in chain and the user chains it reaches become one list
 * of entries in order (struct nfhp_flat): a jump's matches narrow the
 * entries of its chain, a RETURN or a goto becomes an entry that skips
 * the rest of its chain.  This file also keeps the big arrays commits
 * reuse (struct nfhp_spare) and settles staged entries into the rule
 * set's memory (nfhp_flat_settle()).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ruleset_priv.h"

/* Free the summaries of @fl, which it sizes by @cap. */
static void nfhp_flat_free_arrays(struct nfhp_ruleset *rs,
				  struct nfhp_flat *fl)
{
	nfhp_free(&rs->mem, fl->sum, (size_t)fl->cap * sizeof(*fl->sum));
}

/**
 * nfhp_flat_recycle() - keep a released flat's arrays as spares
 * @rs: the rule set
 * @fl: the released entries
 *
 * Keep the released summaries of @fl as the spare ones if they are
 * bigger; free the others.  The entries' pages are never kept: an update
 * shares or copies them one at a time.
 */
void nfhp_flat_recycle(struct nfhp_ruleset *rs, struct nfhp_flat *fl)
{
	struct nfhp_flat *spare = &rs->spare.flat;

	nfhp_pageseq_free(&rs->mem, &fl->e);
	if (fl->cap > spare->cap)
		swap(*fl, *spare);
	nfhp_flat_free_arrays(rs, fl);
}

/**
 * nfhp_spare_see() - note which spare arrays there are
 * @rs: the rule set
 * @seen: set to them
 */
void nfhp_spare_see(const struct nfhp_ruleset *rs,
		    struct nfhp_spare_seen *seen)
{
	seen->sum = rs->spare.flat.sum;
	seen->ints = rs->spare.ints;
}

/**
 * nfhp_spare_trim() - free the spare arrays a commit did not take
 * @rs: the rule set
 * @stale: what nfhp_spare_see() saw before the commit
 *
 * Free the spare arrays that are still those @stale saw.
 */
void nfhp_spare_trim(struct nfhp_ruleset *rs,
		     const struct nfhp_spare_seen *stale)
{
	struct nfhp_spare *spare = &rs->spare;

	if (spare->flat.sum && spare->flat.sum == stale->sum) {
		nfhp_flat_free_arrays(rs, &spare->flat);
		memset(&spare->flat, 0, sizeof(spare->flat));
	}
	if (spare->ints && spare->ints == stale->ints) {
		kvfree(spare->ints);
		spare->ints = NULL;
		spare->ints_cap = 0;
	}
}

/**
 * nfhp_ints_alloc() - an int array of a hook's size
 * @rs: the rule set
 * @n: ints needed
 * @cap: set to the ints it holds
 *
 * An array of at least @n ints, *@cap of them: a spare one if it fits.
 *
 * Return: the array, or NULL.
 */
int *nfhp_ints_alloc(struct nfhp_ruleset *rs, unsigned int n,
		     unsigned int *cap)
{
	struct nfhp_spare *spare = &rs->spare;
	int *p;

	/* A spare more than twice the size would keep too much. */
	if (spare->ints && spare->ints_cap >= n && spare->ints_cap / 2 <= n) {
		p = spare->ints;
		*cap = spare->ints_cap;
		spare->ints = NULL;
		spare->ints_cap = 0;
		return p;
	}
	p = kvmalloc_array(nfhp_roomy(n), sizeof(*p), GFP_KERNEL);
	*cap = p ? nfhp_roomy(n) : 0;
	return p;
}

/**
 * nfhp_ints_free() - give back an array of nfhp_ints_alloc()
 * @rs: the rule set
 * @p: the array, or NULL
 * @cap: its ints
 *
 * Give back an array of nfhp_ints_alloc(): the bigger ones are kept.
 */
void nfhp_ints_free(struct nfhp_ruleset *rs, int *p, unsigned int cap)
{
	struct nfhp_spare *spare = &rs->spare;

	if (cap > spare->ints_cap) {
		swap(p, spare->ints);
		swap(cap, spare->ints_cap);
	}
	kvfree(p);
}

/* Make room in @fl for the summaries of @need entries, if it keeps them. */
static int nfhp_flat_reserve(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			     unsigned int need)
{
	unsigned int cap = fl->cap ? fl->cap : 8;
	struct nfhp_entry_sum *sum;

	if (!fl->summed || need <= fl->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (rs->spare.flat.cap == cap) {
		sum = rs->spare.flat.sum;
		memset(&rs->spare.flat, 0, sizeof(rs->spare.flat));
	} else {
		/* Only the first fl->e.n are ever read. */
		sum = nfhp_alloc_uninit(&rs->mem, (size_t)cap * sizeof(*sum));
		if (!sum)
			return -ENOMEM;
	}
	if (fl->e.n)
		memcpy(sum, fl->sum, (size_t)fl->e.n * sizeof(*sum));
	nfhp_flat_free_arrays(rs, fl);
	fl->sum = sum;
	fl->cap = cap;
	return 0;
}

/* The next entry's order, as nfhp_flat_add() will give it. */
static u64 nfhp_flat_next_order(const struct nfhp_flat *fl)
{
	return NFHP_ORDER_BASE + (u64)(fl->e.n + 1) * NFHP_ORDER_GAP;
}

static int nfhp_flat_add(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			 const struct nfhp_box *box, bool owns_box,
			 struct nfhp_rcounter *cnt,
			 const struct nfhp_rule *rule, u8 action, u8 flags,
			 unsigned int depth)
{
	struct nfhp_entry *e;

	if (fl->e.n >= rs->flat_bound)
		return -EFBIG;
	if (nfhp_flat_reserve(rs, fl, fl->e.n + 1))
		return -ENOMEM;
	if (fl->staged)
		e = nfhp_scratch_zalloc(&rs->forest.scratch, 1, sizeof(*e));
	else
		e = nfhp_alloc(&rs->mem, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->box = box;
	e->owns_box = owns_box;
	e->cnt = cnt ? cnt->pc : NULL;
	e->rule = rule;
	e->action = action;
	e->flags = flags;
	e->depth = depth;
	e->order = nfhp_flat_next_order(fl);
	e->group = nfhp_group_of(e, fl->fold);
	e->scope_end = NFHP_ORDER_UNSET;
	nfhp_entry_leaf_init(e);
	if (nfhp_pageseq_append(&rs->mem, &fl->e, e, e->group)) {
		if (!fl->staged)
			nfhp_free(&rs->mem, e, sizeof(*e));
		return -ENOMEM;
	}
	rs->flattened++;
	if (rule && rule->state != NFHP_RSTATE_NONE)
		fl->state_seen = true;
	if (action == NFHP_ACT_RETURN)
		fl->skips = true;
	if (action == NFHP_ACT_XT)
		fl->rekeys = true;
	if (fl->summed)
		nfhp_entry_sum_fill(&fl->sum[fl->e.n - 1], box);
	return 0;
}

/**
 * nfhp_entry_free() - free an entry
 * @rs: the rule set
 * @fl: the entries it is one of
 * @e: the entry
 */
void nfhp_entry_free(struct nfhp_ruleset *rs,
		     const struct nfhp_flat *fl, struct nfhp_entry *e)
{
	if (e->owns_box)
		nfhp_box_free(&rs->mem, (struct nfhp_box *)e->box);
	if (!fl->staged)
		nfhp_free(&rs->mem, e, sizeof(*e));
}

/**
 * nfhp_flat_free_delta() - free the lists of a walking update's entries
 * @rs: the rule set
 * @fl: the entries
 *
 * Free the lists of a walking update's entries, see struct nfhp_flat.
 */
void nfhp_flat_free_delta(struct nfhp_ruleset *rs, struct nfhp_flat *fl)
{
	nfhp_free(&rs->mem, fl->own, fl->own_cap * sizeof(*fl->own));
	nfhp_free(&rs->mem, fl->gone, max(fl->ngone, 1u) * sizeof(*fl->gone));
	fl->own = NULL;
	fl->gone = NULL;
}

/**
 * nfhp_flat_free() - free a hook's entries
 * @rs: the rule set
 * @fl: the entries, empty after
 *
 * Free the entries of @fl but those it shares with the hook's committed
 * ones (@fl->from, @fl->own).
 */
void nfhp_flat_free(struct nfhp_ruleset *rs, struct nfhp_flat *fl)
{
	struct nfhp_pageseq_iter it;
	struct nfhp_entry *e;
	unsigned int i;

	if (!fl->from && fl->own) {
		for (i = 0; i < fl->nown; i++)
			nfhp_entry_free(rs, fl, nfhp_flat_at(fl, fl->own[i]));
	} else {
		nfhp_pageseq_iter_init(&it, &fl->e, 0);
		for (i = 0; (e = nfhp_pageseq_iter_next(&it)); i++)
			if (!fl->from || fl->from[i] < 0)
				nfhp_entry_free(rs, fl, e);
	}
	nfhp_flat_free_delta(rs, fl);
	if (fl->staged)
		nfhp_scratch_release(&rs->forest.scratch, fl->mark);
	nfhp_pageseq_free(&rs->mem, &fl->e);
	nfhp_flat_free_arrays(rs, fl);
	nfhp_ints_free(rs, fl->from, fl->from_cap);
	memset(fl, 0, sizeof(*fl));
}

/**
 * nfhp_flat_stage() - flatten into scratch memory
 * @rs: the rule set
 * @fl: the entries about to be flattened
 *
 * Flatten a hook for an update into scratch memory: most of its entries
 * equal entries of the last commit, which nfhp_flat_settle() keeps, so
 * only the changed ones are ever allocated.
 */
void nfhp_flat_stage(struct nfhp_ruleset *rs, struct nfhp_flat *fl)
{
	fl->staged = true;
	fl->mark = nfhp_scratch_mark(&rs->forest.scratch);
}

/**
 * nfhp_flat_settle() - turn staged entries into entries of the rule set
 * @rs: the rule set
 * @fl: the entries, staged or not (then nothing is done)
 * @old: the hook's entries of the last commit, or NULL
 * @match: for each entry of @fl, the index of its equal in @old, or -1;
 *	NULL when none is kept
 *
 * A kept entry of @old replaces its staged equal; every other one is
 * copied into memory of its own.  On failure @fl holds the entries
 * settled so far and nothing staged.
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_flat_settle(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		     const struct nfhp_flat *old, const int *match)
{
	unsigned int j = 0, settled, k, x;
	struct nfhp_entry *e, **at;
	struct nfhp_pageseq_page *pg;
	int err = 0;

	if (!fl->staged)
		return 0;
	/* The staged entries were appended: their pages are all @fl's own. */
	for (k = 0; k < fl->e.npages && !err; k++) {
		pg = fl->e.slot[k].page;
		for (x = 0; x < pg->n; x++, j++) {
			at = (struct nfhp_entry **)&pg->p[x];
			e = *at;
			if (match && match[j] >= 0) {
				if (e->owns_box)
					nfhp_box_free(&rs->mem,
						      (struct nfhp_box *)e->box);
				*at = nfhp_flat_at(old, match[j]);
				continue;
			}
			e = nfhp_alloc(&rs->mem, sizeof(*e));
			if (!e) {
				err = -ENOMEM;
				break;
			}
			*e = **at;
			nfhp_entry_leaf_init(e);
			*at = e;
		}
	}
	if (err) {
		settled = j;
		for (; j < fl->e.n; j++) {
			e = nfhp_flat_at(fl, j);
			if (e->owns_box)
				nfhp_box_free(&rs->mem,
					      (struct nfhp_box *)e->box);
		}
		nfhp_pageseq_truncate(&rs->mem, &fl->e, settled);
	}
	nfhp_scratch_release(&rs->forest.scratch, fl->mark);
	fl->staged = false;
	return err;
}

/*
 * @rbox narrowed by the matches @prefix of the jumps that lead to it: @rbox
 * itself when @prefix narrows nothing, else a new box, also in @own.
 */
static int nfhp_narrow(struct nfhp_ruleset *rs, const struct nfhp_box *prefix,
		       const struct nfhp_box *rbox,
		       const struct nfhp_box **box, struct nfhp_box **own)
{
	int err;

	*box = rbox;
	*own = NULL;
	/* Most rules of a user chain lie inside what the jump matches. */
	if (!prefix || nfhp_box_contains(prefix, rbox))
		return 0;
	err = nfhp_box_intersect(&rs->mem, prefix, rbox, own);
	if (!err)
		*box = *own;
	return err;
}

/*
 * The entry of one box of a rule reached with the matches @prefix, @flags
 * being %NFHP_ENTRY_COND inside a chain entered by a jump with extension
 * matches.  For a jump or goto *@into is set to what its chain is entered
 * with, @flags to the flags of that chain's entries; else it is NULL.
 */
static int nfhp_flatten_box(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			    const struct nfhp_rule *r,
			    const struct nfhp_box *rbox,
			    const struct nfhp_box *prefix, unsigned int depth,
			    u8 *flags, const struct nfhp_box **into)
{
	const struct nfhp_box *box;
	struct nfhp_box *own;
	u8 action = r->action, f = *flags;
	int err;

	*into = NULL;
	err = nfhp_narrow(rs, prefix, rbox, &box, &own);
	if (err)
		return err;
	if (box->empty) {
		nfhp_box_free(&rs->mem, own);
		/*
		 * Targets change the mark alone (struct nfhp_ext_ops,
		 * @rekey): a rule the jumps exclude in another dimension
		 * never matches here, whatever they do.
		 */
		if (!fl->rekeys || rbox->empty ||
		    nfhp_box_disjoint_beside(prefix, rbox, NFHP_DIM_MARK))
			return 0;
		/*
		 * A target before it may change the mark so that the
		 * rule matches after all: keep it for that walk, out of
		 * the trees (nfhp_groups_fill()).  A jump's chain goes
		 * along, every entry of it void too: the walk tests each
		 * with its rule's own box (nfhp_classify_linear()).
		 */
		box = rbox;
		own = NULL;
		f |= NFHP_ENTRY_VOID;
		fl->voids = true;
	}
	if (action == NFHP_ACT_JUMP || action == NFHP_ACT_GOTO)
		action = NFHP_ACT_NONE;
	err = nfhp_flat_add(rs, fl, box, own, r->cnt, r, action,
			    (r->ext ? f | NFHP_ENTRY_EVAL | NFHP_ENTRY_COND :
				      f) |
			    (rbox == r->body.alt ? NFHP_ENTRY_ALT : 0), depth);
	if (err) {
		nfhp_box_free(&rs->mem, own);
		return err;
	}
	if (!nfhp_rule_jumps(r))
		return 0;
	*into = box;
	*flags = r->ext_match ? f | NFHP_ENTRY_COND : f;
	return 0;
}

/* The entry that drops what @r's transport match drops, without counter. */
static int nfhp_flatten_hotdrop(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
				const struct nfhp_rule *r,
				const struct nfhp_box *prefix, u8 flags,
				unsigned int depth)
{
	const struct nfhp_box *box;
	struct nfhp_box *own;
	int err;

	err = nfhp_narrow(rs, prefix, r->body.hot, &box, &own);
	if (err)
		return err;
	if (own && own->empty) {
		nfhp_box_free(&rs->mem, own);
		return 0;
	}
	err = nfhp_flat_add(rs, fl, box, own, NULL, r,
			    NFHP_ENTRY_HOTDROP, flags, depth);
	if (err)
		nfhp_box_free(&rs->mem, own);
	return err;
}

/*
 * The RETURNs among @fl's entries from @start on that an inner chain did
 * not claim leave the chain flattened from @start: they skip to the next
 * entry.
 */
static void nfhp_flat_scope_returns(struct nfhp_flat *fl, unsigned int start)
{
	struct nfhp_pageseq_iter it;
	struct nfhp_entry *e;

	nfhp_pageseq_iter_init(&it, &fl->e, start);
	while ((e = nfhp_pageseq_iter_next(&it)))
		if (e->action == NFHP_ACT_RETURN &&
		    e->scope_end == NFHP_ORDER_UNSET)
			e->scope_end = nfhp_flat_next_order(fl);
}

/* What of its rule a frame of nfhp_flatten_rule() does next. */
enum {
	NFHP_STEP_HOT,
	NFHP_STEP_BOX,
	NFHP_STEP_ALT,
	NFHP_STEP_NEXT,
};

/*
 * Close the chain of frame @f at @depth, all its rules flattened: its
 * RETURNs skip to the entry after it, a goto into it adds the implicit
 * RETURN, and a jump decided at packet time learns where its scope ends.
 */
static int nfhp_flatten_leave(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			      const struct nfhp_flat_frame *f,
			      unsigned int depth)
{
	const struct nfhp_rule *r = f->jump->rule;
	struct nfhp_box *own = NULL;
	int err = 0;

	nfhp_flat_scope_returns(fl, f->start);
	/*
	 * After a goto nothing more of this chain runs: an implicit RETURN.
	 * It has a box of its own where the goto's entry owns its box: an
	 * update may replace that entry (nfhp_scope_set()) and keep this.
	 */
	if (r->action == NFHP_ACT_GOTO) {
		if (f->jump->owns_box)
			err = nfhp_box_clone(&rs->mem, f->prefix, &own);
		if (!err)
			err = nfhp_flat_add(rs, fl, own ?: f->prefix, own,
					    NULL, NULL, NFHP_ACT_RETURN,
					    f->flags, depth);
		if (err)
			nfhp_box_free(&rs->mem, own);
	}
	if (r->ext_match) {
		f->jump->scope_end = nfhp_flat_next_order(fl);
		fl->skips = true;
	}
	return err;
}

/**
 * nfhp_chain_holds_state() - does a chain lead to a state rule?
 * @rs: the rule set, committing
 * @m: the model
 * @c: the chain
 * @depth: jumps taken to reach @c
 *
 * Known once per commit (&struct nfhp_chain.holds_state): a hook may drop
 * many jumps to one chain.  The commit refused paths of more than
 * %NFHP_MAX_JUMP_DEPTH jumps from a hook (nfhp_check_loops()), so the
 * bound on @depth only guards the stack.
 *
 * Return: true when @c or a chain it jumps or goes to has a keep-state
 * or check-state rule.
 */
static bool nfhp_chain_holds_state(struct nfhp_ruleset *rs,
				   const struct nfhp_model *m,
				   struct nfhp_chain *c, unsigned int depth)
{
	const struct nfhp_rule *r;
	bool holds = false;
	unsigned int i;
	int t;

	if (c->state_mark == rs->state_mark)
		return c->holds_state;
	for (i = 0; i < c->rules.n && !holds; i++) {
		r = nfhp_chain_at(c, i);
		if (r->state != NFHP_RSTATE_NONE) {
			holds = true;
		} else if (nfhp_rule_jumps(r) && depth < NFHP_MAX_JUMP_DEPTH) {
			t = nfhp_chain_target(m, r);
			holds = t >= 0 && nfhp_chain_holds_state(rs, m,
								 m->chains[t],
								 depth + 1);
		}
	}
	c->state_mark = rs->state_mark;
	c->holds_state = holds;
	return holds;
}

/**
 * nfhp_flat_dropped() - note a rule flattening gave no entry
 * @rs: the rule set
 * @m: the model
 * @fl: the entries
 * @r: the rule, which no packet reaches where it stands
 * @depth: jumps taken to reach it
 *
 * The check point is the position of the hook's first keep-state or
 * check-state rule, reached or not (classify.c, DOC: The check point).
 * When @r is one, or jumps to a chain holding one, and no such entry
 * came before, the next entry is where the check point is at the latest
 * (&struct nfhp_flat.ghost); after one, a later update may delete it.
 * Nothing to do without state rules.
 */
static void nfhp_flat_dropped(struct nfhp_ruleset *rs,
			      const struct nfhp_model *m, struct nfhp_flat *fl,
			      const struct nfhp_rule *r, unsigned int depth)
{
	int t;

	if (likely(!rs->nstate))
		return;
	if (r->state == NFHP_RSTATE_NONE) {
		if (!nfhp_rule_jumps(r))
			return;
		t = nfhp_chain_target(m, r);
		if (t < 0 || !nfhp_chain_holds_state(rs, m, m->chains[t],
						     depth + 1))
			return;
	}
	fl->state_dropped = true;
	if (fl->state_seen || fl->ghost)
		return;
	fl->ghost = true;
	fl->ghost_at = fl->e.n;
}

/*
 * Take the next step of frame @f's rule at @depth.  Return: 1 when it
 * entered a jump's chain (the frame after @f is that chain's), else 0 or
 * -errno.
 */
static int nfhp_flatten_step(struct nfhp_ruleset *rs,
			     const struct nfhp_model *m, struct nfhp_flat *fl,
			     struct nfhp_flat_frame *f, unsigned int depth)
{
	const struct nfhp_rule *r = f->one;
	struct nfhp_flat_frame *in = f + 1;
	const struct nfhp_box *into;
	unsigned int n = fl->e.n;
	int err, t;

	if (f->rules)
		r = nfhp_pageseq_get(f->rules, f->i);
	switch (f->step++) {
	case NFHP_STEP_HOT:
		return r->body.hot ? nfhp_flatten_hotdrop(rs, fl, r, f->prefix,
							  f->flags, depth) : 0;
	case NFHP_STEP_BOX:
	case NFHP_STEP_ALT:
		break;
	default:
		f->i++;
		f->step = NFHP_STEP_HOT;
		cond_resched();
		return 0;
	}
	if (f->step == NFHP_STEP_NEXT && !r->body.alt)
		return 0;
	in->flags = f->flags;
	err = nfhp_flatten_box(rs, fl, r, f->step == NFHP_STEP_ALT ?
				  r->body.box : r->body.alt,
			       f->prefix, depth, &in->flags, &into);
	if (!err && fl->e.n == n)
		nfhp_flat_dropped(rs, m, fl, r, depth);
	if (err || !into)
		return err;
	if (depth + 1 > NFHP_MAX_JUMP_DEPTH)
		return -ELOOP;
	t = nfhp_chain_target(m, r);
	if (t < 0)
		return -ENOENT;
	in->rules = &m->chains[t]->rules;
	in->n = m->chains[t]->rules.n;
	in->i = 0;
	in->step = NFHP_STEP_HOT;
	in->prefix = into;
	in->start = fl->e.n;
	in->jump = nfhp_flat_at(fl, fl->e.n - 1);
	return 1;
}

/**
 * nfhp_flatten_rule() - flatten one rule
 * @rs: the rule set
 * @m: the model the rule is of
 * @fl: the entries to add to
 * @r: the rule
 * @prefix: what the jumps that lead to it match, or NULL
 * @depth: jumps taken to reach it
 * @flags: flags of its entries, as those jumps set them
 *
 * The entries of one rule reached with the matches @prefix at @depth:
 * the drop of short packets first, then one run per box, the boxes being
 * disjoint, a jump's own entry followed by its chain's.  The chains are
 * walked with a stack of frames of the rule set's (@rs->jumps), not by
 * recursion: 64 levels of jumps took more than the kernel stack.
 *
 * Return: 0 or -errno.
 */
int nfhp_flatten_rule(struct nfhp_ruleset *rs,
		      const struct nfhp_model *m, struct nfhp_flat *fl,
		      const struct nfhp_rule *r,
		      const struct nfhp_box *prefix, unsigned int depth,
		      u8 flags)
{
	struct nfhp_flat_frame *f = rs->jumps;
	unsigned int top = 0;
	int err;

	f->rules = NULL;
	f->one = r;
	f->n = 1;
	f->i = 0;
	f->step = NFHP_STEP_HOT;
	f->prefix = prefix;
	f->flags = flags;
	for (;;) {
		f = &rs->jumps[top];
		if (f->i < f->n) {
			err = nfhp_flatten_step(rs, m, fl, f, depth + top);
			if (err > 0)
				top++;
		} else if (top) {
			err = nfhp_flatten_leave(rs, fl, f, depth + top);
			top--;
		} else {
			return 0;
		}
		if (err < 0)
			return err;
	}
}

/* Flatten a built-in chain. */
static int nfhp_flatten_top(struct nfhp_ruleset *rs,
			    const struct nfhp_model *m, struct nfhp_flat *fl,
			    const struct nfhp_chain *c)
{
	unsigned int i;
	int err;

	for (i = 0; i < c->rules.n; i++) {
		err = nfhp_flatten_rule(rs, m, fl, nfhp_chain_at(c, i), NULL,
					0, 0);
		if (err)
			return err;
		cond_resched();
	}
	if (c->nbranch)
		nfhp_flat_scope_returns(fl, 0);
	return 0;
}

/*
 * The entries the rules of @c make themselves: one per box and one for a
 * hotdrop box.  What its jumps add comes on top.
 */
static unsigned int nfhp_chain_entries(const struct nfhp_chain *c)
{
	const struct nfhp_rule *r;
	unsigned int i, n = 0;

	for (i = 0; i < c->rules.n; i++) {
		r = nfhp_chain_at(c, i);
		n += 1 + !!r->body.alt + !!r->body.hot;
	}
	return n;
}

/**
 * nfhp_flatten_hook() - flatten a hook's chains into its entries
 * @rs: the rule set
 * @m: the model
 * @hook: the hook
 * @fl: set to the entries
 *
 * Return: 0 or -errno, @fl then empty.
 */
int nfhp_flatten_hook(struct nfhp_ruleset *rs,
		      const struct nfhp_model *m, enum nfhp_hook hook,
		      struct nfhp_flat *fl)
{
	int err;

	/*
	 * A chain with jumps is updated by scans of the summaries, which get
	 * room for the built-in chain's own entries and the policy at once:
	 * doubling up to 200,000 entries copied and cleared the arrays a
	 * twentieth of a restore's commit.
	 */
	fl->summed = m->chains[hook]->nbranch;
	fl->fold = rs->hooks[hook].flat.fold;
	fl->state_seen = false;
	fl->state_dropped = false;
	fl->ghost = false;
	err = nfhp_flat_reserve(rs, fl,
				nfhp_chain_entries(m->chains[hook]) + 1);
	if (!err)
		err = nfhp_flatten_top(rs, m, fl, m->chains[hook]);
	if (!err)
		err = nfhp_flat_add(rs, fl, &rs->any, false,
				    &rs->hooks[hook].policy_cnt, NULL,
				    NFHP_ENTRY_POLICY, 0, 0);
	if (!err)
		nfhp_flat_at(fl, fl->e.n - 1)->order = NFHP_ORDER_POLICY;
	if (err)
		nfhp_flat_free(rs, fl);
	return err;
}
