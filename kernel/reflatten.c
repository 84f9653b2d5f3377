// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the walking update, which carries kept entries over.
 *
 * DOC: Walking update
 *
 * A commit first tries to update a hook without flattening it: it walks
 * the committed and staged built-in chains side by side, carries the
 * entries of the rules both keep over in runs of shared pages, flattens
 * only the rules the transaction created, and updates the trees for the
 * changed entries (nfhp_update_rules(), nfhp_reflatten_hook()).
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "ruleset_priv.h"

/*
 * Append the old entries [@i, @i + @n) to @fl as kept: runs of them, so
 * that a hundred thousand kept entries are a few calls, not as many.  The
 * pages of @old the run covers whole are shared, not copied: at 170,000
 * entries the copy was 1.4 MB, a third of a single-rule update.  Only a
 * walking update keeps entries this way: no summaries.
 */
static int nfhp_flat_keep(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			  const struct nfhp_flat *old, unsigned int i,
			  unsigned int n)
{
	return nfhp_pageseq_append_run(&rs->mem, &fl->e, &old->e, i, n);
}

/* Record the old entries [@i, @end) as removed; false when @d is full. */
static bool nfhp_delta_remove(struct nfhp_delta *d, unsigned int i,
			      unsigned int end)
{
	for (; i < end; i++) {
		if (d->nremoved == d->cap)
			return false;
		d->removed[d->nremoved++] = i;
	}
	return true;
}

/* Chains deeper than this are flattened afresh, not walked by an update. */
#define NFHP_REFLAT_DEPTH	8

/**
 * struct nfhp_reflat - a walk that carries a hook's committed entries over
 * @rs: the rule set
 * @fl: the new entries
 * @old: the hook's committed entries
 * @d: the changes found so far
 * @rule_starts: where the rules of the committed built-in chain begin in @old
 * @stable: the commit's, see nfhp_chain_stable()
 * @run_from: the first of the committed entries waiting to be carried over
 * @run_to: the entry after them
 *
 * The entries carried over are gathered into runs first: the rules of a
 * user chain of 400 are then one copy, not 400.
 */
struct nfhp_reflat {
	struct nfhp_ruleset *rs;
	struct nfhp_flat *fl;
	const struct nfhp_flat *old;
	struct nfhp_delta *d;
	const struct nfhp_rule_starts *rule_starts;
	u8 *stable;
	unsigned int run_from;
	unsigned int run_to;
};

static int nfhp_reflat_flush(struct nfhp_reflat *w)
{
	int err = nfhp_flat_keep(w->rs, w->fl, w->old, w->run_from,
				 w->run_to - w->run_from);

	w->run_from = w->run_to;
	return err;
}

/* Carry the committed entries [@from, @to) over. */
static int nfhp_reflat_keep(struct nfhp_reflat *w, unsigned int from,
			    unsigned int to)
{
	int err = 0;

	if (from == to)
		return 0;
	if (from != w->run_to) {
		err = nfhp_reflat_flush(w);
		w->run_from = from;
	}
	w->run_to = to;
	return err;
}

/* The committed entries [@from, @to) are gone; -EAGAIN: too many changes. */
static int nfhp_reflat_remove(struct nfhp_reflat *w, unsigned int from,
			      unsigned int to)
{
	return nfhp_delta_remove(w->d, from, to) ? 0 : -EAGAIN;
}

/*
 * Flatten the rule @r this transaction created into @w's entries, under
 * the matches @prefix of the jumps to its chain, as added ones.  A jump
 * adds its chain's entries too, so @d->added grows, up to as many
 * changes as an update takes.
 */
static int nfhp_reflat_created(struct nfhp_reflat *w,
			       const struct nfhp_rule *r,
			       const struct nfhp_box *prefix,
			       unsigned int depth, u8 flags)
{
	struct nfhp_ruleset *rs = w->rs;
	struct nfhp_flat *fl = w->fl;
	struct nfhp_delta *d = w->d;
	unsigned int k, m;
	int err;

	err = nfhp_reflat_flush(w);
	if (err)
		return err;
	k = fl->e.n;
	err = nfhp_flatten_rule(rs, rs->work, fl, r, prefix, depth, flags);
	if (d->nadded + fl->e.n - k > d->cap)
		err = err ?: -EAGAIN;
	else if (nfhp_grow(&rs->mem, (void **)&d->added, &d->added_cap,
			   d->nadded + fl->e.n - k, sizeof(*d->added)))
		err = err ?: -ENOMEM;
	else
		for (; k < fl->e.n; k++)
			d->added[d->nadded++] = k;
	fl->own = d->added;
	fl->own_cap = d->added_cap;
	fl->nown = d->nadded;
	/* Entries not listed are nobody's: free them here. */
	for (m = k; m < fl->e.n; m++)
		nfhp_entry_free(rs, fl, nfhp_flat_at(fl, m));
	nfhp_pageseq_truncate(&rs->mem, &fl->e, k);
	return err;
}

/* Does the rule @r keep all its committed entries, those it jumps to too? */
static bool nfhp_reflat_rule_kept(struct nfhp_reflat *w,
				  const struct nfhp_rule *r)
{
	if (!nfhp_rule_jumps(r))
		return true;
	return nfhp_target_stable(w->rs, w->stable, r, 0);
}

/*
 * Where the committed entries of the rule @r of a chain flattened at
 * @depth end, those from @i on: its own entries are at @depth, those of
 * the chains it jumps to deeper.  At most @most are read: the index
 * returned is @i + @most when the rule goes on past them.
 */
static unsigned int nfhp_reflat_extent(const struct nfhp_flat *old,
				       unsigned int i,
				       const struct nfhp_rule *r,
				       unsigned int depth, unsigned int most)
{
	unsigned int stop = old->e.n - 1;
	const struct nfhp_entry *e;
	struct nfhp_pageseq_iter it;

	if (stop - i > most)
		stop = i + most;
	nfhp_pageseq_iter_init(&it, &old->e, i);
	for (; i < stop; i++) {
		e = nfhp_pageseq_iter_next(&it);
		if (e->depth < depth || (e->depth == depth && e->rule != r))
			break;
	}
	return i;
}

/*
 * Entries of a built-in chain's jump read for where they end, before the
 * index of first entries is asked: most chains that a Kubernetes node
 * jumps to have two or three entries, and reading them is cheaper than a
 * search of the hook's entries.
 */
#define NFHP_REFLAT_SCAN	16

static int nfhp_reflat_chain(struct nfhp_reflat *w,
			     const struct nfhp_chain *oc,
			     const struct nfhp_chain *nc, unsigned int *pos,
			     const struct nfhp_box *prefix, unsigned int depth,
			     u8 flags, bool top);

/*
 * Where the committed entries of rule @oj of the built-in chain @oc
 * begin, at @from or after it, into *@i: the policy's after the last
 * rule.  The index of first entries gives the key.  A rule without
 * entries (one that matches nothing) is not in it, and begins where the
 * next rule does.  -EAGAIN, a bug, when the entry there is not the
 * rule's first, and the hook is built anew.
 */
static int nfhp_reflat_first(const struct nfhp_reflat *w,
			     const struct nfhp_chain *oc, unsigned int oj,
			     unsigned int from, unsigned int *i)
{
	const struct nfhp_flat *old = w->old;
	const struct nfhp_rule *r = NULL;
	u64 order = NFHP_ORDER_UNSET;
	unsigned int k;

	for (; oj < oc->rules.n; oj++) {
		r = nfhp_chain_at(oc, oj);
		order = nfhp_rule_starts_find(w->rule_starts, r);
		if (order != NFHP_ORDER_UNSET)
			break;
	}
	if (oj == oc->rules.n) {
		*i = old->e.n - 1;
		return 0;
	}
	k = nfhp_flat_lower_from(old, from, order);
	if (WARN_ON_ONCE(k + 1 >= old->e.n || nfhp_flat_at(old, k)->rule != r ||
			 nfhp_flat_at(old, k)->depth ||
			 (k && nfhp_flat_at(old, k - 1)->rule == r &&
			  !nfhp_flat_at(old, k - 1)->depth)))
		return -EAGAIN;
	*i = k;
	return 0;
}

/*
 * Where the committed entries of rule @oj of @oc, flattened at @depth
 * from @i on, end, into *@end.  They are read up to the next rule's,
 * but a built-in chain's jump may lead to thousands: past
 * NFHP_REFLAT_SCAN entries the next rule's first is looked up.
 */
static int nfhp_reflat_end(const struct nfhp_reflat *w,
			   const struct nfhp_chain *oc, unsigned int oj,
			   unsigned int i, unsigned int depth, bool top,
			   unsigned int *end)
{
	const struct nfhp_rule *r = nfhp_chain_at(oc, oj);
	bool far = top && nfhp_rule_jumps(r);
	unsigned int k;

	k = nfhp_reflat_extent(w->old, i, r, depth,
			       far ? NFHP_REFLAT_SCAN : U32_MAX);
	if (far && k - i == NFHP_REFLAT_SCAN)
		return nfhp_reflat_first(w, oc, oj + 1, k, end);
	*end = k;
	return 0;
}

/*
 * The rule @r at @depth is kept, but the chain it jumps to changed: its
 * own entries, the committed [@from, @to), are carried over, and each
 * one's chain is walked against the committed chain, with the entry's
 * box as what the jump matches and its flags (a jump decided at packet
 * time makes its chain's entries conditional); a goto's implicit RETURN
 * after the chain is carried over too.
 */
static int nfhp_reflat_jump(struct nfhp_reflat *w, const struct nfhp_rule *r,
			    unsigned int from, unsigned int to,
			    unsigned int depth)
{
	const struct nfhp_entry *e;
	int oc, nc, err = 0;

	if (depth + 1 >= NFHP_REFLAT_DEPTH)
		return -EAGAIN;
	oc = nfhp_chain_target(w->rs->live, r);
	nc = nfhp_chain_target(w->rs->work, r);
	if (oc < 0 || nc < 0)
		return -EAGAIN;
	while (from < to && !err) {
		e = nfhp_flat_at(w->old, from);
		if (e->rule != r || e->depth != depth)
			return -EAGAIN;	/* not the entries of @r */
		err = nfhp_reflat_keep(w, from, from + 1);
		from++;
		if (err || e->action == NFHP_ENTRY_HOTDROP)
			continue;
		err = nfhp_reflat_chain(w, w->rs->live->chains[oc],
					w->rs->work->chains[nc], &from, e->box,
					depth + 1,
					e->flags & (NFHP_ENTRY_COND |
						    NFHP_ENTRY_VOID),
					false);
		if (err || r->action != NFHP_ACT_GOTO)
			continue;
		if (from >= to || nfhp_flat_at(w->old, from)->rule ||
		    nfhp_flat_at(w->old, from)->action != NFHP_ACT_RETURN)
			return -EAGAIN;	/* no implicit RETURN */
		err = nfhp_reflat_keep(w, from, from + 1);
		from++;
	}
	return err;
}

/*
 * How many rules of the staged chain @nc from @j on are those of the
 * committed @oc from @oj on, for a chain without jumps.
 */
static unsigned int nfhp_reflat_same_len(const struct nfhp_chain *oc,
					 unsigned int oj,
					 const struct nfhp_chain *nc,
					 unsigned int j)
{
	unsigned int most = min(nc->rules.n - j, oc->rules.n - oj);
	unsigned int len = 0, known = 0;

	/* What the transaction left alone needs no comparing. */
	if (j == oj && j < nc->same_head)
		known = min(most, nc->same_head - j);
	if (nc->rules.n - j == oc->rules.n - oj &&
	    nc->rules.n - j <= nc->same_tail)
		known = most;
	if (!nfhp_tunables.update_verify)
		len = known;
	/* The chains' rule pointers, pages they share unread: no entry is. */
	len += nfhp_pageseq_same_len(&nc->rules, j + len, &oc->rules, oj + len,
				 most - len);
	WARN_ON_ONCE(len < known);
	return len;
}

/*
 * nfhp_reflat_same_len() for a chain with jumps: only the rules that
 * also keep all their entries, the jumps whose chains did not change.
 */
static unsigned int nfhp_reflat_kept_len(struct nfhp_reflat *w,
					 const struct nfhp_chain *oc,
					 unsigned int oj,
					 const struct nfhp_chain *nc,
					 unsigned int j)
{
	unsigned int len = 0, most = min(nc->rules.n - j, oc->rules.n - oj);
	const struct nfhp_rule *r;

	for (; len < most; len++) {
		r = nfhp_chain_at(nc, j + len);
		if (r != nfhp_chain_at(oc, oj + len) ||
		    !nfhp_reflat_rule_kept(w, r))
			break;
	}
	return len;
}

/*
 * Carry over the entries of the rules the committed built-in chain @oc
 * and the staged one @nc share from position @oj and @j on, as many as
 * follow alike and keep all their entries (a jump whose chain did not
 * change); the committed ones begin at *@i, and *@i ends after them.
 * Only the end of the run is looked up, not each rule's: 5,000 jumps of
 * a Kubernetes node are one run but for the chain that changed.
 * Return: how many rules, 0 when the first one is not kept.
 */
static int nfhp_reflat_run(struct nfhp_reflat *w, const struct nfhp_chain *oc,
			   unsigned int oj, const struct nfhp_chain *nc,
			   unsigned int j, unsigned int *i)
{
	unsigned int len, from = *i;
	int err;

	len = nc->njump ? nfhp_reflat_kept_len(w, oc, oj, nc, j) :
			  nfhp_reflat_same_len(oc, oj, nc, j);
	if (!len)
		return 0;
	err = nfhp_reflat_first(w, oc, oj + len, from, i);
	return err ?: nfhp_reflat_keep(w, from, *i) ?: len;
}

/*
 * Walk the committed chain @oc, whose entries begin at *@pos, and the
 * staged @nc side by side, both flattened under @prefix at @depth with
 * @flags: the entries of the rules both have are carried over (or
 * walked, for a jump whose chain changed), a rule this transaction
 * created is flattened, and a committed rule that @nc lacks was removed.
 * *@pos ends after @oc's entries.  @top: @oc is a built-in chain, where
 * the index of first entries finds runs of kept rules at once.
 */
static int nfhp_reflat_chain(struct nfhp_reflat *w,
			     const struct nfhp_chain *oc,
			     const struct nfhp_chain *nc, unsigned int *pos,
			     const struct nfhp_box *prefix, unsigned int depth,
			     u8 flags, bool top)
{
	const struct nfhp_rule *r;
	unsigned int j = 0, oj = 0, i = *pos, end;
	int err = 0, len;

	while (j < nc->rules.n && !err) {
		r = nfhp_chain_at(nc, j);
		if (top && oj < oc->rules.n && nfhp_chain_at(oc, oj) == r) {
			len = nfhp_reflat_run(w, oc, oj, nc, j, &i);
			if (len < 0)
				return len;
			j += len;
			oj += len;
			if (len)
				continue;
		}
		if (oj < oc->rules.n && nfhp_chain_at(oc, oj) == r) {
			err = nfhp_reflat_end(w, oc, oj, i, depth, top, &end);
			if (err)
				break;
			err = nfhp_reflat_rule_kept(w, r) ?
			      nfhp_reflat_keep(w, i, end) :
			      nfhp_reflat_jump(w, r, i, end, depth);
			i = end;
			j++;
			oj++;
		} else if (r->gen == w->rs->gen) {
			err = nfhp_reflat_created(w, r, prefix, depth, flags);
			j++;
		} else if (oj < oc->rules.n) {
			/* Removed: a rule stays the same object while kept. */
			err = nfhp_reflat_end(w, oc, oj, i, depth, top, &end);
			if (err)
				break;
			err = nfhp_reflat_remove(w, i, end);
			i = end;
			oj++;
		} else {
			return -EAGAIN;	/* not the chain of the entries */
		}
	}
	for (; oj < oc->rules.n && !err; oj++) {
		err = nfhp_reflat_end(w, oc, oj, i, depth, top, &end);
		if (err)
			break;
		err = nfhp_reflat_remove(w, i, end);
		i = end;
	}
	*pos = i;
	return err;
}

/*
 * The entries of hook @h now and at the last commit: a rule's entries
 * are its own and those of the chains it jumps to, and the index of
 * first entries tells where each rule of the built-in chain's begin.
 * So the two chains are compared rule by rule, the entries of the rules
 * they share are carried over, and only what this transaction changed
 * is flattened: the rules it created, and those of the chains it changed
 * where a kept rule jumps to them.  @d lists the changes; more than it
 * has room for are more than an update takes: -EAGAIN.
 */
static int nfhp_reflatten_hook(struct nfhp_ruleset *rs, int h,
			       struct nfhp_flat *fl, struct nfhp_delta *d,
			       unsigned int *changes)
{
	const struct nfhp_chain *nc = rs->work->chains[h];
	const struct nfhp_flat *old = &rs->hooks[h].flat;
	struct nfhp_reflat w = {
		.rs = rs, .fl = fl, .old = old, .d = d,
		.rule_starts = &rs->hooks[h].rule_starts, .stable = rs->stable,
	};
	unsigned int pos = 0;
	int err;

	err = nfhp_reflat_chain(&w, rs->live->chains[h], nc, &pos, NULL, 0, 0,
				true);
	if (!err && pos != old->e.n - 1)
		err = -EAGAIN;	/* not the chain of the entries */
	/* Then the policy, always kept. */
	if (!err)
		err = nfhp_reflat_keep(&w, old->e.n - 1, old->e.n);
	if (!err)
		err = nfhp_reflat_flush(&w);
	*changes = d->nadded + d->nremoved;
	return err;
}

/**
 * nfhp_rebuild_certain() - is an update of a hook bound to give up?
 * @rs: the rule set, committing
 * @h: the hook
 *
 * Is an update of hook @h bound to give up for a rebuild?  Each rule of a
 * hook's chain has at least one entry, so when more rules came or went
 * than an update takes entries (see nfhp_update_matched()), it is.  A
 * restore then flattens the hook once, not three times.  Only a guess
 * for chains with jumps, and a wrong guess merely rebuilds.
 *
 * Return: true when the hook had better be built anew.
 */
bool nfhp_rebuild_certain(const struct nfhp_ruleset *rs, int h)
{
	unsigned int now = rs->work->chains[h]->rules.n;
	unsigned int was = rs->live ? rs->live->chains[h]->rules.n : 0;
	unsigned int moved = now > was ? now - was : was - now;

	return moved > max_t(unsigned int, 64, (3 * now + 1) /
					       NFHP_INCR_MAX_SHARE);
}

/*
 * The candidate index of hook @h for an update from its committed entries
 * @old, or NULL when there is none and no memory to build it.
 */
static struct nfhp_cand_index *nfhp_cands_index(struct nfhp_ruleset *rs, int h,
						const struct nfhp_flat *old)
{
	struct nfhp_cand_index *idx = &rs->hooks[h].cands;

	if (!idx->valid && nfhp_cand_index_build(&rs->mem, idx, &old->e,
						 old->e.n - 1))
		return NULL;
	return idx;
}

/*
 * The index of first entries of hook @h for an update from its committed
 * entries @old, or NULL when there is none and no memory to build it.
 */
static const struct nfhp_rule_starts *
nfhp_rule_starts_index(struct nfhp_ruleset *rs, int h,
		       const struct nfhp_flat *old)
{
	struct nfhp_rule_starts *f = &rs->hooks[h].rule_starts;

	if (!f->valid && nfhp_rule_starts_build(&rs->mem, f, &old->e, old->e.n,
						rs->live->chains[h]->rules.n))
		return NULL;
	return f;
}

/*
 * Bring the index of first entries @f from the committed entries @old to
 * the new ones @fl (the changes @d): the rules whose first entry went are
 * forgotten, then the rules of the entries that came are noted, the
 * first entry winning.  An entry replaced by a copy keeps its key, so
 * its rule is noted again.  Without memory the index is cleared, to be
 * built again by the next update.  Tests check it against one built.
 */
static void nfhp_rule_starts_apply(struct nfhp_ruleset *rs,
				   struct nfhp_rule_starts *f,
				   const struct nfhp_flat *old,
			      const struct nfhp_flat *fl,
			      const struct nfhp_delta *d, int h)
{
	struct nfhp_rule_starts built = {};
	const struct nfhp_entry *e;
	unsigned int i;

	for (i = 0; i < d->nremoved; i++) {
		e = nfhp_flat_at(old, d->removed[i]);
		if (!e->depth && e->rule)
			nfhp_rule_starts_del(f, e->rule, e->order);
	}
	for (i = 0; i < d->nadded; i++) {
		e = nfhp_flat_at(fl, d->added[i]);
		if (e->depth || !e->rule)
			continue;
		if (nfhp_rule_starts_add(&rs->mem, f, e->rule, e->order)) {
			nfhp_rule_starts_clear(&rs->mem, f);
			return;
		}
	}
	if (!nfhp_tunables.update_verify ||
	    nfhp_rule_starts_build(&rs->mem, &built, &fl->e, fl->e.n,
				   rs->work->chains[h]->rules.n))
		return;
	WARN_ON_ONCE(!nfhp_rule_starts_equal(f, &built));
	nfhp_rule_starts_clear(&rs->mem, &built);
}

/*
 * Bring @idx from the committed entries @old to the new ones @fl, which
 * @d lists the changes of; without memory it is cleared, to be built
 * again by the next update.
 */
static void nfhp_cands_apply(struct nfhp_ruleset *rs,
			     struct nfhp_cand_index *idx,
			     const struct nfhp_flat *old,
			     const struct nfhp_flat *fl,
			     const struct nfhp_delta *d)
{
	struct nfhp_entry_sum sum;
	struct nfhp_entry *e;
	unsigned int i;
	bool ok = true;

	for (i = 0; i < d->nremoved && ok; i++) {
		e = nfhp_flat_at(old, d->removed[i]);
		nfhp_entry_sum_fill(&sum, e->box);
		ok = nfhp_cand_index_del(&rs->mem, idx, e->group, e, &sum);
		WARN_ON_ONCE(!ok);
	}
	for (i = 0; i < d->nadded && ok; i++) {
		e = nfhp_flat_at(fl, d->added[i]);
		nfhp_entry_sum_fill(&sum, e->box);
		ok = !nfhp_cand_index_add(&rs->mem, idx, e->group, e, &sum);
	}
	if (!ok)
		nfhp_cand_index_clear(&rs->mem, idx);
}

/* List in @fl the committed entries @d removes, for the release. */
static int nfhp_flat_gone(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			  const struct nfhp_flat *old,
			  const struct nfhp_delta *d)
{
	unsigned int i;

	fl->gone = nfhp_alloc(&rs->mem, max(d->nremoved, 1u) *
					sizeof(*fl->gone));
	if (!fl->gone)
		return -ENOMEM;
	for (i = 0; i < d->nremoved; i++)
		fl->gone[i] = nfhp_flat_at(old, d->removed[i]);
	fl->ngone = d->nremoved;
	return 0;
}

/**
 * nfhp_update_rules() - update a hook by walking its chains
 * @rs: the rule set
 * @fl: set to the new entries
 * @cur: the published tables
 * @t: the new tables
 * @h: the hook
 *
 * nfhp_reflatten_hook() and nfhp_update_matched(), or -EAGAIN.  The
 * hook's committed entries must have no void entries, which an update
 * cannot place, and no state rule dropped (&struct
 * nfhp_flat.state_dropped), which it could not find again; one that a
 * created rule drops is noted as a flattening notes it.  A hook whose
 * entries skip (a RETURN, a goto, a jump decided at packet time) keeps
 * its one tree and has its scopes' ends set anew (nfhp_flat_scopes());
 * the first such entry, or the last one gone, rebuilds it.
 *
 * Return: 0, -EAGAIN or -errno.
 */
noinline_for_stack int
nfhp_update_rules(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		  const struct nfhp_tables *cur, struct nfhp_tables *t, int h)
{
	const struct nfhp_flat *old = &rs->hooks[h].flat;
	const struct nfhp_chain *nc = rs->work->chains[h];
	/* A rule has up to three entries: hotdrop, box and alt. */
	unsigned int most = max(3 * nc->rules.n + 1, old->e.n), changes = 0;
	struct nfhp_scratch *s = &rs->forest.scratch;
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(s);
	struct nfhp_delta d = {
		.cap = max_t(unsigned int, 64, most / NFHP_INCR_MAX_SHARE) + 1,
	};
	struct nfhp_cands cx = { .d = &d, .fl = fl };
	int err = -ENOMEM;

	if (!cur || !old->e.n || !rs->live || !rs->stable || old->voids ||
	    old->state_dropped || !nfhp_rule_starts_index(rs, h, old))
		return -EAGAIN;
	fl->fold = old->fold;
	/* Entries carried over may run xtables targets, or skip. */
	fl->rekeys = old->rekeys;
	fl->skips = old->skips;
	/*
	 * The removed ones live on the scratch stack: two allocations per
	 * commit made glibc give pages back and fault them in again, 1 % of
	 * the inserts at fw1_100k took 30 ms.  The added ones are the new
	 * entries' @own, few.
	 */
	d.removed = nfhp_scratch_alloc(s, d.cap, sizeof(*d.removed));
	if (!d.removed || nfhp_grow(&rs->mem, (void **)&d.added, &d.added_cap,
				    3 * rs->created.n + 1,
				    sizeof(*d.added))) {
		nfhp_free(&rs->mem, d.added, d.added_cap * sizeof(*d.added));
		goto out_release;
	}
	fl->own = d.added;
	fl->own_cap = d.added_cap;
	/* Room for about as many pages as before: no doubling copies. */
	err = nfhp_pageseq_reserve(&rs->mem, &fl->e, old->e.npages + 4);
	if (!err)
		err = nfhp_reflatten_hook(rs, h, fl, &d, &changes);
	/*
	 * The first skipping entry merges the trees into one; and after a
	 * new xtables target a jump's rules that cannot match under it are
	 * void entries now, which the carried-over ones lack.
	 */
	if (!err && (fl->skips != old->skips || fl->voids ||
		     (fl->rekeys && !old->rekeys && nc->nbranch)))
		err = -EAGAIN;
	/* Without the index (no memory for it), the scan finds them. */
	if (!err)
		cx.idx = nfhp_cands_index(rs, h, old);
	if (!err)
		err = nfhp_update_matched(rs, fl, NULL, &d,
					  cx.idx ? &cx : NULL, changes, cur,
					  t, h);
	if (!err)
		err = nfhp_flat_gone(rs, fl, old, &d);
	if (!err && cx.idx)
		nfhp_cands_apply(rs, &rs->hooks[h].cands, old, fl, &d);
	if (!err)
		nfhp_rule_starts_apply(rs, &rs->hooks[h].rule_starts, old, fl,
				       &d, h);
	/*
	 * On failure the rule set goes on with its committed entries.  The
	 * trees go first: their leaves may be the new entries' own.
	 */
	if (err) {
		nfhp_hook_trees_drop(rs, t, h);
		nfhp_flat_free(rs, fl);
	}
out_release:
	nfhp_scratch_release(s, mark);
	return err;
}
