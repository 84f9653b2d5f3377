// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: adoption, the committed rules a commit takes back.
 *
 * DOC: Adoption
 *
 * iptables-restore, and the tools that feed it a whole table on every
 * sync, re-send every rule: a chain is flushed and filled again, almost
 * always with the rules it had.  Each would be a new rule to the commit,
 * and the hook would be flattened and built afresh.  Before it diffs, a
 * commit takes back the committed rules that the transaction removed,
 * wherever a rule it created has the same specification, in the same
 * chain and in the same order among the rules it kept: the rule set means
 * the same, and what is left to do is the true changes.
 *
 * A rule taken back keeps its entries; its counters become those the
 * duplicate was given (zero without --counters), as the duplicate's own
 * would have been.  Rules with extensions that keep state are not taken
 * back (&struct nfhp_ext_ops @stateless).  A staged chain that then holds
 * exactly its committed rules, with the same policy, is the committed
 * chain again.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "ruleset_priv.h"

/*
 * How far ahead of the last rule taken back a duplicate may find its rule
 * alone: further, the rule after it must match the next one too, so that
 * one rule equal to a far one does not leave all between unmatched.
 */
#define NFHP_ADOPT_JUMP		NFHP_DIFF_WINDOW

/* A committed rule's key: its specification's hash, then its place. */
static u64 nfhp_adopt_key(u32 hash, unsigned int pos)
{
	return (u64)hash << 32 | pos;
}

/**
 * nfhp_u64_cmp() - compare two u64 for sort()
 * @a: the first
 * @b: the second
 *
 * Return: -1, 0 or 1.
 */
int nfhp_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * May the committed rule @old take the place of the created rule @r?  With
 * extensions only when they keep no state (REJECT, LOG, -m set): a limit,
 * a quota or a count iptables-restore starts afresh.
 */
static bool nfhp_adopt_may(const struct nfhp_ruleset *rs,
			   const struct nfhp_rule *old,
			   const struct nfhp_rule *r)
{
	if (!old->adopt || old->ext_hooks != r->ext_hooks ||
	    !nfhp_packed_spec_equal(old->body.spec, r->body.spec))
		return false;
	return !old->ext || (rs->ext_ops->stateless &&
			     rs->ext_ops->stateless(old->ext));
}

/**
 * struct nfhp_adopt_chain - what adopting into one staged chain needs
 * @c: the staged chain
 * @lc: the committed chain of the same name
 * @lim: per rule of @c, the index in @lc of the next rule @c kept (its
 *	own for a kept rule), @lc's length after the last
 * @keys: nfhp_adopt_key() of @lc's removed rules, rising, built at the
 *	first duplicate not found in place; NULL before
 * @nkeys: entries in @keys
 */
struct nfhp_adopt_chain {
	struct nfhp_chain *c;
	const struct nfhp_chain *lc;
	unsigned int *lim;
	u64 *keys;
	unsigned int nkeys;
};

/* Fill @a->lim; false when @c did not keep @lc's rules in their order. */
static bool nfhp_adopt_limits(struct nfhp_ruleset *rs,
			      struct nfhp_adopt_chain *a)
{
	const struct nfhp_chain *c = a->c, *lc = a->lc;
	unsigned int j, k = 0, lim = lc->rules.n;

	for (j = 0; j < c->rules.n; j++) {
		if (nfhp_chain_at(c, j)->gen == rs->gen)
			continue;
		while (k < lc->rules.n &&
		       nfhp_chain_at(lc, k) != nfhp_chain_at(c, j))
			k++;
		if (k == lc->rules.n)
			return false;
		a->lim[j] = k++;
	}
	for (j = c->rules.n; j-- > 0;) {
		if (nfhp_chain_at(c, j)->gen != rs->gen)
			lim = a->lim[j];
		a->lim[j] = lim;
	}
	return true;
}

static int nfhp_adopt_keys(struct nfhp_ruleset *rs, struct nfhp_adopt_chain *a)
{
	const struct nfhp_chain *lc = a->lc;
	unsigned int k;

	a->keys = nfhp_scratch_alloc(&rs->forest.scratch, max(lc->rules.n, 1u),
				     sizeof(*a->keys));
	if (!a->keys)
		return -ENOMEM;
	for (k = 0; k < lc->rules.n; k++) {
		const struct nfhp_rule *r = nfhp_chain_at(lc, k);
		u32 hash;

		if (!r->adopt)
			continue;
		hash = nfhp_packed_spec_hash(r->body.spec);
		a->keys[a->nkeys++] = nfhp_adopt_key(hash, k);
	}
	sort(a->keys, a->nkeys, sizeof(*a->keys), nfhp_u64_cmp, NULL);
	return 0;
}

/*
 * The index in @a->lc of the first rule in [@from, @to) that the created
 * rule @r may take, or @to: by its hash, for one not in place.
 */
static unsigned int nfhp_adopt_find(struct nfhp_ruleset *rs,
				    struct nfhp_adopt_chain *a,
				    const struct nfhp_rule *r,
				    unsigned int from, unsigned int to)
{
	u32 hash = nfhp_packed_spec_hash(r->body.spec);
	unsigned int i;

	if (!a->keys && nfhp_adopt_keys(rs, a))
		return to;
	i = nfhp_u64_lower_bound(a->keys, a->nkeys, nfhp_adopt_key(hash, from));
	for (; i < a->nkeys && a->keys[i] < nfhp_adopt_key(hash, to); i++)
		if (nfhp_adopt_may(rs, nfhp_chain_at(a->lc, (u32)a->keys[i]),
				   r))
			return (u32)a->keys[i];
	return to;
}

/*
 * Where in @a->lc the created rule @j of @a->c finds its committed rule,
 * from *@k on, or @a->lim[@j] for none: in place, one on (a rule deleted),
 * or by hash.  Where @j alone changed, the next rule tells without a
 * hash: it matches one on when @j replaced the rule at *@k, which *@k
 * then passes, and in place when @j was inserted.
 */
static unsigned int nfhp_adopt_at(struct nfhp_ruleset *rs,
				  struct nfhp_adopt_chain *a, unsigned int j,
				  unsigned int *k)
{
	const struct nfhp_chain *lc = a->lc;
	const struct nfhp_rule *r = nfhp_chain_at(a->c, j), *next = NULL;
	unsigned int lim = a->lim[j], at = *k;

	if (j + 1 < a->c->rules.n && nfhp_chain_at(a->c, j + 1)->gen == rs->gen)
		next = nfhp_chain_at(a->c, j + 1);
	if (at < lim && nfhp_adopt_may(rs, nfhp_chain_at(lc, at), r))
		return at;
	if (at + 1 < lim && nfhp_adopt_may(rs, nfhp_chain_at(lc, at + 1), r))
		return at + 1;
	if (next && at + 1 < lim &&
	    nfhp_adopt_may(rs, nfhp_chain_at(lc, at + 1), next)) {
		(*k)++;
		return lim;
	}
	if (next && at < lim && nfhp_adopt_may(rs, nfhp_chain_at(lc, at), next))
		return lim;
	return nfhp_adopt_find(rs, a, r, at, lim);
}

/* Rule @j of the staged chain gives way to rule @k of the committed one. */
static int nfhp_adopt_one(struct nfhp_ruleset *rs, struct nfhp_adopt_chain *a,
			  unsigned int j, unsigned int k)
{
	struct nfhp_rule *old = nfhp_chain_at(a->lc, k);
	struct nfhp_rule *dup = nfhp_chain_at(a->c, j);
	struct nfhp_counter sum;

	if (nfhp_list_reserve(&rs->mem, &rs->dups, 1) ||
	    nfhp_pageseq_set(&rs->mem, &a->c->rules, j, old))
		return -ENOMEM;
	nfhp_counter_sum(dup->cnt, &sum);
	if (nfhp_counter_write(rs, old->cnt, &sum)) {
		/* Its page is the chain's own now: this cannot fail. */
		WARN_ON_ONCE(nfhp_pageseq_set(&rs->mem, &a->c->rules, j, dup));
		return -ENOMEM;
	}
	WARN_ON_ONCE(nfhp_list_add(&rs->mem, &rs->dups, dup));
	old->adopt = 0;
	dup->adopt = 1;
	return 0;
}

/*
 * Take back into @a->c the committed rules of @a->lc that its created
 * rules duplicate: in place, else by hash before the next rule it kept.
 */
static int nfhp_adopt_rules(struct nfhp_ruleset *rs, struct nfhp_adopt_chain *a)
{
	const struct nfhp_chain *lc = a->lc;
	const struct nfhp_rule *next;
	struct nfhp_chain *c = a->c;
	unsigned int j, k = 0, at;
	int err;

	for (j = 0; j < c->rules.n; j++) {
		if (nfhp_chain_at(c, j)->gen != rs->gen) {
			k = a->lim[j] + 1;
			continue;
		}
		at = nfhp_adopt_at(rs, a, j, &k);
		if (at == a->lim[j])
			continue;
		next = j + 1 < c->rules.n ? nfhp_chain_at(c, j + 1) : NULL;
		/* A far rule alone may be another one that is equal. */
		if (at - k > NFHP_ADOPT_JUMP &&
		    (!next || at + 1 == a->lim[j] || next->gen != rs->gen ||
		     !nfhp_adopt_may(rs, nfhp_chain_at(lc, at + 1), next)))
			continue;
		err = nfhp_adopt_one(rs, a, j, at);
		if (err)
			return err;
		k = at + 1;
	}
	return 0;
}

/* A staged chain that holds its committed rules again is the committed one. */
static void nfhp_adopt_settle_chain(struct nfhp_ruleset *rs, unsigned int i,
				    struct nfhp_chain *lc)
{
	struct nfhp_chain *c = rs->work->chains[i];

	if (c->hook != lc->hook || c->policy != lc->policy ||
	    c->rules.n != lc->rules.n ||
	    nfhp_pageseq_same_len(&c->rules, 0, &lc->rules, 0, c->rules.n) !=
	    c->rules.n)
		return;
	rs->work->chains[i] = lc;
	nfhp_chain_note(rs->work, lc);
	nfhp_chain_free(rs, c);
}

/* Drop the rules nfhp_adopt() marked from @l: kept ones when @keep. */
static void nfhp_adopt_sweep(struct nfhp_rule_list *l, bool keep)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (!l->r[i]->adopt == !keep)
			l->r[n++] = l->r[i];
		l->r[i]->adopt = 0;
	}
	l->n = n;
}

/**
 * nfhp_adopt() - take back the committed rules a transaction sent again
 * @rs: the rule set, committing
 *
 * Adopt into each staged chain that the transaction changed, and give back
 * the committed chain where nothing is left changed (a policy set to what
 * it was, rules sent again); best effort: without memory a chain is left
 * as it is, which only costs time.
 */
void nfhp_adopt(struct nfhp_ruleset *rs)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&rs->forest.scratch);
	struct nfhp_adopt_chain a;
	struct nfhp_chain *lc;
	bool rules = rs->removed.n && rs->created.n;
	unsigned int i;
	int idx;

	if (!rs->live)
		return;
	for (i = 0; i < rs->removed.n; i++)
		rs->removed.r[i]->adopt = 1;
	for (i = 0; i < rs->work->n; i++) {
		memset(&a, 0, sizeof(a));
		a.c = rs->work->chains[i];
		if (a.c->gen != rs->gen)
			continue;
		idx = nfhp_chain_index(rs->live, a.c->name);
		if (idx < 0)
			continue;
		lc = rs->live->chains[idx];
		a.lc = lc;
		a.lim = nfhp_scratch_alloc(&rs->forest.scratch,
					   max(a.c->rules.n, 1u),
					   sizeof(*a.lim));
		if (!a.lim)
			break;
		/* Not the committed chain's rules (a rename): none to adopt. */
		if (!rules || nfhp_adopt_limits(rs, &a)) {
			if (rules && nfhp_adopt_rules(rs, &a))
				break;
			nfhp_adopt_settle_chain(rs, i, lc);
		}
		nfhp_scratch_release(&rs->forest.scratch, mark);
	}
	nfhp_scratch_release(&rs->forest.scratch, mark);
	nfhp_adopt_sweep(&rs->removed, true);
	nfhp_adopt_sweep(&rs->created, false);
}

/**
 * nfhp_adopt_end() - free the duplicates nfhp_adopt() replaced
 * @rs: the rule set
 * @published: the commit published
 *
 * The duplicates nfhp_adopt() replaced go with the rules the commit
 * removed, after it returned (a restore of 100,000 rules frees as many);
 * for a commit that failed, now.
 */
void nfhp_adopt_end(struct nfhp_ruleset *rs, bool published)
{
	unsigned int i;

	for (i = 0; i < rs->dups.n; i++)
		if (!published ||
		    nfhp_list_add(&rs->mem, &rs->removed, rs->dups.r[i]))
			nfhp_rule_free(rs, rs->dups.r[i]);
	rs->dups.n = 0;
}
