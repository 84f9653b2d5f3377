// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the scopes of the entries that skip others.
 *
 * DOC: Scopes
 *
 * A RETURN, a goto's end or a jump decided at packet time skips the
 * entries up to its scope's end (@scope_end).  An update sets the scope
 * ends anew near the entries it changed (nfhp_scopes_near()), from the
 * committed entries that skip (struct nfhp_scoped), or with a pass over
 * all entries (nfhp_flat_scopes()).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sort.h>

#include "ruleset_priv.h"

/**
 * struct nfhp_scope_end - where a scope that is still open must end
 * @lo: the key of the last entry inside it
 * @hi: the key of the first entry after it
 *
 * A skip goes to the first entry whose key is not below @scope_end, so
 * any end in (@lo, @hi] is right.
 */
struct nfhp_scope_end {
	u64 lo;
	u64 hi;
};

/* Depths of entries: a chain 64 jumps deep and a goto's RETURN below it. */
#define NFHP_DEPTHS		(NFHP_MAX_JUMP_DEPTH + 2)

/* Is @e the RETURN that ends a chain a goto went to (it has no rule)? */
static bool nfhp_entry_implicit_return(const struct nfhp_entry *e)
{
	return !e->rule && e->action == NFHP_ACT_RETURN;
}

/* Does @e skip to where @end says? */
static bool nfhp_scope_holds(const struct nfhp_entry *e,
			     const struct nfhp_scope_end *end)
{
	return e->scope_end > end->lo && e->scope_end <= end->hi;
}

/*
 * Make entry @i of @fl, the committed entry @oi (or added, @added),
 * skip to @end.  An added entry is changed; a committed one, which
 * packets may be reading, is replaced by a copy that @d lists as added
 * and the original as removed, out of order (nfhp_flat_scopes() sorts).
 */
static int nfhp_scope_set(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			  struct nfhp_delta *d, unsigned int i, unsigned int oi,
			  bool added, const struct nfhp_scope_end *end)
{
	struct nfhp_entry *e = nfhp_flat_at(fl, i), *copy;
	struct nfhp_box *box = NULL;

	if (nfhp_scope_holds(e, end))
		return 0;
	if (added) {
		e->scope_end = end->hi;
		return 0;
	}
	if (d->nremoved == d->cap)
		return -EAGAIN;
	if (nfhp_grow(&rs->mem, (void **)&d->added, &d->added_cap,
		      d->nadded + 1, sizeof(*d->added)))
		return -ENOMEM;
	fl->own = d->added;
	fl->own_cap = d->added_cap;
	copy = nfhp_alloc(&rs->mem, sizeof(*copy));
	if (copy && e->owns_box && nfhp_box_clone(&rs->mem, e->box, &box)) {
		nfhp_free(&rs->mem, copy, sizeof(*copy));
		copy = NULL;
	}
	if (copy && nfhp_pageseq_set(&rs->mem, &fl->e, i, copy)) {
		if (box)
			nfhp_box_free(&rs->mem, box);
		nfhp_free(&rs->mem, copy, sizeof(*copy));
		copy = NULL;
	}
	if (!copy)
		return -ENOMEM;
	*copy = *e;
	nfhp_entry_leaf_init(copy);
	if (box)
		copy->box = box;
	copy->scope_end = end->hi;
	d->added[d->nadded++] = i;
	fl->nown = d->nadded;
	d->removed[d->nremoved++] = oi;
	return 0;
}

static int nfhp_uint_cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * Fill @le and @ends for an entry at @depth whose key is @hi, after one
 * with key @lo: @le[k] is where a scope ends that the first entry at
 * depth k or less ends (a jump's at depth k), @ends[k] where one ends that
 * the first entry above depth k or a goto's RETURN at k ends (a RETURN's
 * at depth k).  Depths past @deepest had no entry yet.
 */
static void nfhp_scope_seen(struct nfhp_scope_end *le,
			    struct nfhp_scope_end *ends, unsigned int depth,
			    bool implicit, unsigned int deepest, u64 lo, u64 hi)
{
	unsigned int k;

	for (k = depth; k <= deepest; k++) {
		le[k].lo = lo;
		le[k].hi = hi;
		if (k > depth || implicit)
			ends[k] = le[k];
	}
}

static int nfhp_scoped_add(struct nfhp_ruleset *rs, struct nfhp_scoped *sc,
			   struct nfhp_entry *e, u64 hi)
{
	if (nfhp_grow(&rs->mem, (void **)&sc->e, &sc->cap, sc->n + 1,
		      sizeof(*sc->e)))
		return -ENOMEM;
	sc->e[sc->n].e = e;
	sc->e[sc->n++].hi = hi;
	return 0;
}

/*
 * Give the skipping entries of @fl, which an update carried over or added
 * (@d) with their keys given, the ends of their scopes: a RETURN's is
 * where its chain's invocation ends, a jump decided at packet time's
 * where its chain's does.  Added entries were flattened with ends
 * counted in positions, and a scope whose last entries came or went ends
 * elsewhere now.  One pass from the back, remembering per depth where
 * the scopes still open end (nfhp_scope_seen()).  @sc, unless NULL, is
 * filled with the skipping entries on the way, for the next update; it is
 * valid if all of them fit.  With @check, set nothing: every end must
 * hold already (nfhp_tunables.update_verify).
 */
static int nfhp_scopes_all(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			   const struct nfhp_flat *old, struct nfhp_delta *d,
			   struct nfhp_scoped *sc, bool check)
{
	struct nfhp_scratch *s = &rs->forest.scratch;
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(s);
	unsigned int nadded = d->nadded, nremoved = d->nremoved;
	unsigned int a = nadded, r = nremoved, deepest = 0, skips = 0, i;
	unsigned int oi = old->e.n - 1;	/* the policy's */
	struct nfhp_scope_end *le, *ends, *end;
	struct nfhp_entry *e;
	bool added;
	u64 before;
	int err = 0;

	le = nfhp_scratch_alloc(s, NFHP_DEPTHS, sizeof(*le));
	ends = nfhp_scratch_alloc(s, NFHP_DEPTHS, sizeof(*ends));
	if (!le || !ends) {
		err = -ENOMEM;
		goto out_release;
	}
	le[0].lo = fl->e.n > 1 ? nfhp_flat_at(fl, fl->e.n - 2)->order : 0;
	le[0].hi = nfhp_flat_at(fl, fl->e.n - 1)->order;
	ends[0] = le[0];
	if (sc) {
		sc->n = 0;
		sc->valid = false;
	}
	for (i = fl->e.n - 1; i-- > 0 && !err;) {
		e = nfhp_flat_at(fl, i);
		if (e->depth >= NFHP_DEPTHS) {
			err = -EAGAIN;
			break;
		}
		for (; deepest < e->depth; deepest++) {
			le[deepest + 1] = le[deepest];
			ends[deepest + 1] = le[deepest];
		}
		added = a > 0 && d->added[a - 1] == i;
		if (added) {
			a--;
		} else {
			for (; r > 0 && d->removed[r - 1] == oi - 1; r--)
				oi--;
			if (WARN_ON_ONCE(!oi || nfhp_flat_at(old, --oi) != e)) {
				err = -EAGAIN;
				break;
			}
		}
		/* A goto's RETURN (no rule) ends the chain of the goto. */
		end = NULL;
		if (e->action == NFHP_ACT_RETURN)
			end = &ends[e->depth - !e->rule];
		else if (e->scope_end != NFHP_ORDER_UNSET)
			end = &le[e->depth];
		if (end && check)
			WARN_ON_ONCE(!nfhp_scope_holds(e, end));
		else if (end)
			err = nfhp_scope_set(rs, fl, d, i, oi, added, end);
		/* Without room the index is found again next time. */
		if (end && sc &&
		    nfhp_scoped_add(rs, sc, nfhp_flat_at(fl, i), end->hi))
			sc = NULL;
		skips += !!end;
		before = i ? nfhp_flat_at(fl, i - 1)->order : 0;
		nfhp_scope_seen(le, ends, e->depth,
				nfhp_entry_implicit_return(e), deepest,
				before, e->order);
	}
	/* Without skips left the hook's entries go back to their groups. */
	if (!err && !skips)
		err = -EAGAIN;
	if (!err && sc)
		sc->valid = true;
out_release:
	nfhp_scratch_release(s, mark);
	return err;
}

/* Does @e skip later entries: a RETURN, or a jump decided at packet time? */
static bool nfhp_entry_skips(const struct nfhp_entry *e)
{
	return e->action == NFHP_ACT_RETURN ||
	       e->scope_end != NFHP_ORDER_UNSET;
}

/*
 * Can the scope of the skipping entry @j end at @r, a later entry?  A
 * jump's chain ends at the first entry not deeper than the jump; a
 * RETURN's invocation at the first entry above it or at the RETURN that
 * ends a goto into its chain.  A goto's own RETURN (no rule) ends the
 * chain of the goto.  As nfhp_scope_seen() remembers them.
 */
static bool nfhp_scope_ends_at(const struct nfhp_entry *j,
			       const struct nfhp_entry *r)
{
	unsigned int k;

	if (j->action != NFHP_ACT_RETURN)
		return r->depth <= j->depth;
	k = j->depth - !j->rule;
	return r->depth < k ||
	       (nfhp_entry_implicit_return(r) && r->depth == k);
}

/* Does the scope of @j, a RETURN, end only with the hook's chain? */
static bool nfhp_scope_at_policy(const struct nfhp_entry *j)
{
	return j->action == NFHP_ACT_RETURN && j->depth == !j->rule;
}

/*
 * The end of the scope of entry @p of @fl, by a pass over the scope.  A
 * RETURN of the hook's own chain, or of a chain it goes to, ends at the
 * policy, and is not passed over at all.
 */
static void nfhp_scope_after(const struct nfhp_flat *fl, unsigned int p,
			     struct nfhp_scope_end *end)
{
	const struct nfhp_entry *e = nfhp_flat_at(fl, p);
	unsigned int q = fl->e.n - 1;
	struct nfhp_pageseq_iter it;

	if (!nfhp_scope_at_policy(e)) {
		nfhp_pageseq_iter_init(&it, &fl->e, p + 1);
		for (q = p + 1; q + 1 < fl->e.n; q++)
			if (nfhp_scope_ends_at(e, nfhp_pageseq_iter_next(&it)))
				break;
	}
	end->lo = nfhp_flat_at(fl, q - 1)->order;
	end->hi = nfhp_flat_at(fl, q)->order;
}

/* The index of the first entry of @fl whose key is @order or more. */
static unsigned int nfhp_flat_lower(const struct nfhp_flat *fl, u64 order)
{
	return nfhp_entries_lower_bound(&fl->e, 0, fl->e.n, order);
}

/**
 * nfhp_flat_lower_from() - the first entry with a key not below, searched from a place
 * @fl: the entries
 * @from: an index at or before the entry
 * @order: the key
 *
 * nfhp_flat_lower() for a key whose entry is at @from or after it, and
 * likely near: a galloping search reads about 2 log2(d) entries for one
 * d entries on.  A commit on a Kubernetes node looks up where each of
 * 5,000 jumps ends, a few entries after it begins.
 *
 * Return: the index of the first entry of @fl whose key is @order or more.
 */
unsigned int nfhp_flat_lower_from(const struct nfhp_flat *fl,
				  unsigned int from, u64 order)
{
	unsigned int lo = from, hi = from, step = 1;

	while (hi < fl->e.n && nfhp_flat_at(fl, hi)->order < order) {
		lo = hi + 1;
		hi += step;
		step *= 2;
	}
	return nfhp_entries_lower_bound(&fl->e, lo, min(hi, fl->e.n), order);
}

/* The index of the entry of @fl with the key @order, or -1. */
static int nfhp_flat_find(const struct nfhp_flat *fl, u64 order)
{
	unsigned int i = nfhp_flat_lower(fl, order);

	return i < fl->e.n && nfhp_flat_at(fl, i)->order == order ? i : -1;
}

/*
 * The keys of the entries the update (@d, its first @nadded and
 * @nremoved entries) added to @fl and removed from @old, rising, on the
 * scratch stack of @rs; NULL without memory.
 */
static u64 *nfhp_delta_keys(struct nfhp_ruleset *rs, const struct nfhp_flat *fl,
			    const struct nfhp_flat *old,
			    const struct nfhp_delta *d, unsigned int nadded,
			    unsigned int nremoved)
{
	u64 *keys = nfhp_scratch_alloc(&rs->forest.scratch,
				       nadded + nremoved + 1, sizeof(*keys));
	unsigned int k;

	if (!keys)
		return NULL;
	for (k = 0; k < nadded; k++)
		keys[k] = nfhp_flat_at(fl, d->added[k])->order;
	for (k = 0; k < nremoved; k++)
		keys[nadded + k] = nfhp_flat_at(old, d->removed[k])->order;
	sort(keys, nadded + nremoved, sizeof(*keys), nfhp_u64_cmp, NULL);
	return keys;
}

/* Is none of the @n rising @keys in [@lo, @hi]? */
static bool nfhp_keys_none_in(const u64 *keys, unsigned int n, u64 lo,
			      u64 hi)
{
	unsigned int i = nfhp_u64_lower_bound(keys, n, lo);

	return i == n || keys[i] > hi;
}

/*
 * nfhp_scopes_all() without the pass over all entries: the committed
 * entries that skip, @sc, get their ends anew, each by a pass over its
 * own scope, where an entry came or went from their own key to their
 * end's (@hi), and the added ones that skip get theirs.  The others are
 * not even looked up: a Kubernetes node has thousands, and two searches
 * of the entries for each took longer than the pass over all.  @sc then
 * holds the new entries that skip, or is invalid after an error.
 */
static int nfhp_scopes_near(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			    const struct nfhp_flat *old, struct nfhp_delta *d,
			    struct nfhp_scoped *sc)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&rs->forest.scratch);
	unsigned int nadded = d->nadded, nremoved = d->nremoved, k, w = 0, a;
	struct nfhp_scoped_entry *it;
	struct nfhp_scope_end end;
	struct nfhp_entry *j;
	int err = 0, i, oi;
	u64 *keys;

	sc->valid = false;
	keys = nfhp_delta_keys(rs, fl, old, d, nadded, nremoved);
	if (!keys)
		return -ENOMEM;
	for (k = 0; k < sc->n && !err; k++) {
		it = &sc->e[k];
		j = it->e;
		if (!nfhp_scope_at_policy(j) &&
		    nfhp_keys_none_in(keys, nadded + nremoved, j->order,
				      it->hi)) {
			sc->e[w++] = *it;
			continue;
		}
		i = nfhp_flat_find(fl, j->order);
		if (i < 0 || nfhp_flat_at(fl, i) != j)
			continue;	/* removed */
		nfhp_scope_after(fl, i, &end);
		if (!nfhp_scope_holds(j, &end)) {
			oi = nfhp_flat_find(old, j->order);
			if (WARN_ON_ONCE(oi < 0 || nfhp_flat_at(old, oi) != j))
				err = -EAGAIN;
			else
				err = nfhp_scope_set(rs, fl, d, i, oi, false,
						     &end);
		}
		sc->e[w].e = nfhp_flat_at(fl, i);
		sc->e[w++].hi = end.hi;
	}
	nfhp_scratch_release(&rs->forest.scratch, mark);
	sc->n = w;
	for (a = 0; a < nadded && !err; a++) {
		i = d->added[a];
		if (!nfhp_entry_skips(nfhp_flat_at(fl, i)))
			continue;
		nfhp_scope_after(fl, i, &end);
		err = nfhp_scope_set(rs, fl, d, i, 0, true, &end) ?:
		      nfhp_scoped_add(rs, sc, nfhp_flat_at(fl, i), end.hi);
	}
	/* Without skips left the hook's entries go back to their groups. */
	if (!err && !sc->n)
		err = -EAGAIN;
	sc->valid = !err;
	return err;
}

/**
 * nfhp_flat_scopes() - set the scope ends of the entries that skip
 * @rs: the rule set
 * @fl: the new entries
 * @old: the hook's committed entries
 * @d: the changes of the update, or NULL
 * @h: the hook
 *
 * Set the scope ends of the skipping entries of @fl, hook @h, after an
 * update (@d): near the changes where the hook's committed skipping
 * entries are known, else in a pass over all entries, which then finds
 * them for the next update.  Tests check the first way
 * against the second (nfhp_tunables.update_verify).
 *
 * Return: 0 or -errno.
 */
int nfhp_flat_scopes(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		     const struct nfhp_flat *old, struct nfhp_delta *d,
		     int h)
{
	struct nfhp_scoped *sc = &rs->hooks[h].scoped;
	unsigned int nadded = d->nadded;
	int err;

	if (sc->valid)
		err = nfhp_scopes_near(rs, fl, old, d, sc);
	else
		err = nfhp_scopes_all(rs, fl, old, d, sc, false);
	if (!err && d->nadded > nadded) {
		sort(d->added, d->nadded, sizeof(*d->added), nfhp_uint_cmp,
		     NULL);
		sort(d->removed, d->nremoved, sizeof(*d->removed),
		     nfhp_uint_cmp, NULL);
	}
	if (!err && nfhp_tunables.update_verify)
		WARN_ON_ONCE(nfhp_scopes_all(rs, fl, old, d, NULL, true));
	return err;
}
