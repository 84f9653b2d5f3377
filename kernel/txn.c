// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: transactions: begin, abort and the commit.
 *
 * DOC: Transactions
 *
 * nfhp_txn_commit() checks the staged model, takes back what it can
 * (adopt.c), finds the hooks that reach a changed chain, updates or builds
 * their trees (nfhp_commit_build()), publishes all hooks with one pointer
 * swap and records what the old tables alone used for release.c.  Any
 * failure before the publish leaves the committed rule set as it was.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ruleset_priv.h"

/**
 * nfhp_counter_write() - set a counter when the transaction is published
 * @rs: the rule set, a transaction open
 * @c: the counter
 * @val: its totals, or NULL for zero
 *
 * Set the counter @c to @val (zero when NULL) once the open transaction is
 * published (nfhp_counters_settle()).
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_counter_write(struct nfhp_ruleset *rs, struct nfhp_rcounter *c,
		       const struct nfhp_counter *val)
{
	static const struct nfhp_counter zero;

	if (nfhp_grow(&rs->mem, (void **)&rs->writes, &rs->writes_cap,
		      rs->nwrites + 1, sizeof(*rs->writes)))
		return -ENOMEM;
	rs->writes[rs->nwrites].c = c;
	rs->writes[rs->nwrites++].val = val ? *val : zero;
	return 0;
}

/*
 * The counters a transaction set hold once it is published, not before:
 * a restore that fails leaves the counters.  In the order it set them, so
 * that a rule zeroed, then sent again with counters, has those.
 */
static void nfhp_counters_settle(struct nfhp_ruleset *rs, bool published)
{
	unsigned int i;

	for (i = 0; published && i < rs->nwrites; i++)
		nfhp_counter_set(rs->writes[i].c, &rs->writes[i].val);
	nfhp_free(&rs->mem, rs->writes, rs->writes_cap * sizeof(*rs->writes));
	rs->writes = NULL;
	rs->writes_cap = 0;
	rs->nwrites = 0;
}

/**
 * nfhp_txn_begin() - open a transaction
 * @rs: the rule set
 *
 * Return: 0, -EBUSY when one is open already, or -ENOMEM.
 */
int nfhp_txn_begin(struct nfhp_ruleset *rs)
{
	if (rs->work)
		return -EBUSY;
	rs->work = nfhp_model_copy(rs, rs->live);
	if (!rs->work)
		return -ENOMEM;
	rs->gen++;
	rs->jumps_added = false;
	return 0;
}

/**
 * nfhp_txn_active() - is a transaction open?
 * @rs: the rule set
 *
 * Return: true between nfhp_txn_begin() and its commit or abort.
 */
bool nfhp_txn_active(const struct nfhp_ruleset *rs)
{
	return rs->work;
}

/**
 * nfhp_txn_abort() - forget every staged change
 * @rs: the rule set
 */
void nfhp_txn_abort(struct nfhp_ruleset *rs)
{
	unsigned int i;

	if (!rs->work)
		return;
	for (i = 0; i < rs->work->n; i++)
		if (rs->work->chains[i]->gen == rs->gen)
			nfhp_chain_free(rs, rs->work->chains[i]);
	for (i = 0; i < rs->created.n; i++)
		nfhp_rule_free(rs, rs->created.r[i]);
	nfhp_adopt_end(rs, false);
	nfhp_counters_settle(rs, false);
	rs->created.n = 0;
	rs->removed.n = 0;
	nfhp_model_free(rs, rs->work);
	rs->work = NULL;
}

/* Values of the commit's @stable, see nfhp_chain_stable(). */
enum {
	NFHP_CHAIN_UNSEEN,
	NFHP_CHAIN_STABLE,
	NFHP_CHAIN_CHANGED,
};

static bool nfhp_chain_stable(const struct nfhp_ruleset *rs, u8 *stable,
			      int i, unsigned int depth);

/**
 * nfhp_target_stable() - is the chain a jump goes to the committed one?
 * @rs: the rule set, committing
 * @stable: what is known of each chain of the staged model
 * @r: a jump or goto of the staged model
 * @depth: jumps taken to reach @r
 *
 * nfhp_chain_stable() of the chain that the jump @r of the staged model
 * goes to.  A chain without jumps is stable when unchanged, which its
 * slot tells without reading it: on a Kubernetes node the 5,000 chains
 * read were a quarter of a commit.
 *
 * Return: true when the target and what it reaches are unchanged.
 */
bool nfhp_target_stable(const struct nfhp_ruleset *rs, u8 *stable,
			const struct nfhp_rule *r, unsigned int depth)
{
	const struct nfhp_model *m = rs->work;
	const struct nfhp_chain_slot *slot = nfhp_target_slot(m, r);
	int t = nfhp_chain_target_at(m, r, slot);

	if (t < 0)
		return false;
	if (slot && nfhp_tunables.update_verify)
		WARN_ON_ONCE(slot->gen != m->chains[t]->gen ||
			     slot->njump != m->chains[t]->njump);
	else if (slot && !slot->njump && stable[t] == NFHP_CHAIN_UNSEEN)
		stable[t] = slot->gen != rs->gen &&
			    depth <= NFHP_MAX_JUMP_DEPTH ?
			    NFHP_CHAIN_STABLE : NFHP_CHAIN_CHANGED;
	return nfhp_chain_stable(rs, stable, t, depth);
}

/*
 * Is the chain @i of the staged model, and every chain it reaches, the
 * committed one?  Chains are copied when a transaction changes them, so
 * an old generation tells: the chain is then the committed one of that
 * name, with the same rules, whose jumps reach the same chains if these
 * are unchanged too.  What is found is kept in @stable, one per chain of
 * the staged model, for the commit: each jump's target is looked up once.
 */
static bool nfhp_chain_stable(const struct nfhp_ruleset *rs, u8 *stable,
			      int i, unsigned int depth)
{
	const struct nfhp_chain *c;
	unsigned int k;
	bool ok;

	if (stable[i] != NFHP_CHAIN_UNSEEN)
		return stable[i] == NFHP_CHAIN_STABLE;
	c = rs->work->chains[i];
	ok = c->gen != rs->gen && depth <= NFHP_MAX_JUMP_DEPTH;
	for (k = 0; k < c->rules.n && c->njump && ok; k++)
		if (nfhp_rule_jumps(nfhp_chain_at(c, k)))
			ok = nfhp_target_stable(rs, stable, nfhp_chain_at(c, k),
						depth + 1);
	stable[i] = ok ? NFHP_CHAIN_STABLE : NFHP_CHAIN_CHANGED;
	return ok;
}

/*
 * Hooks whose trees must be rebuilt: they reach a chain that changed, or
 * the commit has no memory for @rs->stable to tell.
 */
static unsigned int nfhp_dirty_hooks(struct nfhp_ruleset *rs)
{
	unsigned int dirty = 0;
	int h;

	for (h = 0; h < NFHP_HOOK_MAX; h++)
		if (!rs->live || !rs->stable ||
		    !nfhp_chain_stable(rs, rs->stable, h, 0))
			dirty |= 1u << h;
	return dirty;
}

/**
 * struct nfhp_groups - a hook's entries sorted into groups
 * @e: the entries of each group, in order, then the policy
 * @n: entries of each group, the policy included
 * @all: one allocation that @e point into
 */
struct nfhp_groups {
	const struct nfhp_entry **e[NFHP_GROUPS];
	unsigned int n[NFHP_GROUPS];
	const struct nfhp_entry **all;
};

/* Sort @fl's entries into groups. */
static int nfhp_groups_fill(const struct nfhp_flat *fl, struct nfhp_groups *gr)
{
	unsigned int i, g, p = fl->e.n - 1, pos = 0;
	unsigned int n = fl->e.n - 1 + NFHP_GROUPS;
	bool groups = nfhp_flat_groupable(fl);
	const struct nfhp_entry *e;
	struct nfhp_pageseq_iter it;

	memset(gr, 0, sizeof(*gr));
	gr->all = kvmalloc_array(n, sizeof(*gr->all), GFP_KERNEL);
	if (!gr->all)
		return -ENOMEM;
	nfhp_pageseq_iter_init(&it, &fl->e, 0);
	for (i = 0; i < p; i++) {
		e = nfhp_pageseq_iter_next(&it);
		if (!(e->flags & NFHP_ENTRY_VOID))
			gr->n[groups ? it.tag : 0]++;
	}
	for (g = 0; g < NFHP_GROUPS; g++) {
		gr->e[g] = gr->all + pos;
		pos += gr->n[g] + 1;
		gr->n[g] = 0;
	}
	nfhp_pageseq_iter_init(&it, &fl->e, 0);
	for (i = 0; i < p; i++) {
		e = nfhp_pageseq_iter_next(&it);
		if (e->flags & NFHP_ENTRY_VOID)
			continue;
		g = groups ? it.tag : 0;
		gr->e[g][gr->n[g]++] = e;
	}
	e = nfhp_pageseq_iter_next(&it);
	for (g = 0; g < NFHP_GROUPS; g++)
		gr->e[g][gr->n[g]++] = e;	/* the policy */
	return 0;
}

/* The entries a hook of the staged rule set may flatten into. */
static unsigned int nfhp_flat_bound(const struct nfhp_model *m)
{
	u64 rules = 0;
	unsigned int i;

	for (i = 0; i < m->n; i++)
		rules += m->chains[i]->rules.n;
	return min_t(u64, max_t(u64, rules * nfhp_tunables.flat_per_rule,
				nfhp_tunables.flat_min), U32_MAX);
}

/*
 * Choose the fold of hook @h's entries @fl before its trees are built from
 * scratch, and group them by it.  Entries that an update carried over
 * (@from or @own set) are shared with the committed ones, whose groups
 * must not change under them: such a flat keeps its fold, as does one
 * without memory for the choice.
 */
static void nfhp_flat_regroup(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			      int h)
{
	struct nfhp_pageseq_page *pg;
	struct nfhp_entry *e;
	unsigned int k, x;
	u8 fold;

	if (fl->from || fl->own || !nfhp_flat_groupable(fl) ||
	    nfhp_fold_choose(&fl->e, NULL, &fold))
		return;
	rs->hooks[h].fold_age = 0;
	if (fold == fl->fold)
		return;
	fl->fold = fold;
	/* Entries of its own alone: their pages are all its own too. */
	for (k = 0; k < fl->e.npages; k++) {
		pg = fl->e.slot[k].page;
		for (x = 0; x < pg->n; x++) {
			e = pg->p[x];
			e->group = nfhp_group_of(e, fold);
			pg->tag[x] = e->group;
		}
	}
}

/*
 * Has hook @h's fold gone stale?  Updates keep it, so rules added one by
 * one never choose it again: every so many commits, a share of the hook's
 * entries (a few entries' work a commit), it is chosen anew from the
 * committed entries, and the hook is rebuilt when the choice differs by
 * a margin (nfhp_fold_choose() with the fold it has).
 */
static bool nfhp_fold_stale(struct nfhp_ruleset *rs, int h)
{
	const struct nfhp_flat *fl = &rs->hooks[h].flat;
	u8 fold;

	if (!fl->e.n || !nfhp_flat_groupable(fl) ||
	    ++rs->hooks[h].fold_age <
	    max(nfhp_tunables.fold_recheck, fl->e.n / 8))
		return false;
	rs->hooks[h].fold_age = 0;
	return !nfhp_fold_choose(&fl->e, &fl->fold, &fold) &&
	       fold != fl->fold;
}

/**
 * nfhp_state_order() - a hook's check point
 * @rs: the rule set
 * @fl: the hook's entries
 *
 * The order of the first entry of a keep-state or check-state rule, or
 * of the entry after the first such rule that flattening dropped, no
 * packet reaching it (&struct nfhp_flat.ghost), whichever comes first:
 * see DOC: The check point in classify.c.  Such rules usually come
 * early, as ipfw's check-state does, so the walk is short; rule sets
 * without any take none.
 *
 * Return: the order, or U64_MAX for no check point.
 */
static u64 nfhp_state_order(const struct nfhp_ruleset *rs,
			    const struct nfhp_flat *fl)
{
	const struct nfhp_entry *en;
	struct nfhp_pageseq_iter it;
	unsigned int i;

	if (!rs->nstate)
		return U64_MAX;
	nfhp_pageseq_iter_init(&it, &fl->e, 0);
	for (i = 0; (en = nfhp_pageseq_iter_next(&it)); i++)
		if ((fl->ghost && i == fl->ghost_at) ||
		    (en->rule && en->rule->state != NFHP_RSTATE_NONE))
			return en->order;
	return U64_MAX;
}

/* Build the trees of one hook's entries into @t->hooks[@h].root. */
static int nfhp_build_groups(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			     struct nfhp_tables *t, int h)
{
	struct nfhp_groups gr;
	unsigned int g;
	int err;

	err = nfhp_groups_fill(fl, &gr);
	if (err)
		return err;
	for (g = 0; g < NFHP_GROUPS && !err; g++) {
		/* Group 0 always has a tree: the policy at least. */
		if (gr.n[g] == 1 && g)
			continue;
		err = nfhp_tree_build(&rs->forest, gr.e[g], gr.n[g],
				      &t->hooks[h].root[g]);
	}
	kvfree(gr.all);
	return err;
}

/* Order the trees of each hook for nfhp_classify(). */
static void nfhp_tables_sequence(struct nfhp_tables *t)
{
	const struct nfhp_node *tmp, **seq;
	unsigned int h, g, i, hot;

	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		t->hooks[h].ntrees[0] = 0;
		t->hooks[h].ntrees[1] = 0;
		for (g = 0; g < NFHP_GROUPS; g++) {
			if (!t->hooks[h].root[g])
				continue;
			hot = g >= NFHP_WIDTH_TREES;
			seq = t->hooks[h].seq[hot];
			i = t->hooks[h].ntrees[hot]++;
			seq[i] = t->hooks[h].root[g];
			for (; i && seq[i - 1]->min_order > seq[i]->min_order;
			     i--) {
				tmp = seq[i - 1];
				seq[i - 1] = seq[i];
				seq[i] = tmp;
			}
		}
	}
}

/* Flatten and compile the dirty hooks into @t; undo all on failure. */
static int nfhp_commit_build(struct nfhp_ruleset *rs, unsigned int dirty,
			     struct nfhp_tables *t, struct nfhp_flat *flat,
			     const char **msg)
{
	const struct nfhp_tables *cur = nfhp_tables_held(rs);
	int h, g, err = 0;
	bool certain;

	rs->flat_bound = nfhp_flat_bound(rs->work);
	/* What chains hold state rules is known anew (flat.c). */
	rs->state_mark++;
	for (h = 0; h < NFHP_HOOK_MAX && !err; h++) {
		t->hooks[h].policy = rs->work->chains[h]->policy;
		if (!(dirty & (1u << h))) {
			for (g = 0; g < NFHP_GROUPS; g++) {
				t->hooks[h].root[g] = cur->hooks[h].root[g];
				if (t->hooks[h].root[g])
					nfhp_tree_get(t->hooks[h].root[g]);
			}
			continue;
		}
		certain = nfhp_rebuild_certain(rs, h) || nfhp_fold_stale(rs, h);
		err = certain ? -EAGAIN :
				nfhp_update_rules(rs, &flat[h], cur, t, h);
		/* The indexes follow walking updates only. */
		if (err)
			nfhp_hook_indexes_clear(rs, h);
		if (err == -EAGAIN) {
			if (cur && rs->hooks[h].flat.e.n && !certain)
				nfhp_flat_stage(rs, &flat[h]);
			err = nfhp_flatten_hook(rs, rs->work, h, &flat[h]);
			if (err)
				break;
			err = certain ? -EAGAIN :
				nfhp_update_hook(rs, &flat[h], cur, t, h);
		}
		if (err == -EAGAIN)
			err = nfhp_flat_settle(rs, &flat[h], NULL, NULL) ?:
			      -EAGAIN;
		if (err == -EAGAIN) {
			nfhp_hook_trees_drop(rs, t, h);
			nfhp_flat_regroup(rs, &flat[h], h);
			err = nfhp_build_groups(rs, &flat[h], t, h);
		}
		/* An update flattens only what it adds: count them all. */
		if (!err && flat[h].e.n > rs->flat_bound)
			err = -EFBIG;
	}
	if (!err) {
		for (h = 0; h < NFHP_HOOK_MAX; h++) {
			const struct nfhp_flat *fl = dirty & (1u << h) ?
				&flat[h] : &rs->hooks[h].flat;

			t->hooks[h].entries = fl->e;
			t->hooks[h].state_order = nfhp_state_order(rs, fl);
		}
		nfhp_tables_sequence(t);
		return 0;
	}
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		nfhp_hook_trees_drop(rs, t, h);
		nfhp_flat_free(rs, &flat[h]);
		/* An index a walking update brought forward is wrong now. */
		if (dirty & (1u << h))
			nfhp_hook_indexes_clear(rs, h);
	}
	if (err == -ELOOP)
		*msg = "too many levels of chain jumps";
	else if (err == -E2BIG)
		*msg = "rule set too deep to compile on the kernel stack";
	else if (err == -ECANCELED)
		*msg = "interrupted by a signal: the old rules stay in force";
	else if (err == -EFBIG)
		/* Over 100 columns: a message is never split (grep finds it). */
		*msg = "user chains reached from too many places: a hook would flatten into more than 16 entries a rule";
	else
		*msg = "out of memory (see /proc/net/nf-hipac/info)";
	return err;
}

/*
 * A jump may have made a user chain reachable from a hook that one of its
 * rules' extensions is not valid at (-m owner reached from INPUT), which
 * iptables refuses when it replaces the table; so does the commit.
 */
static int nfhp_check_hooks(struct nfhp_ruleset *rs, const char **msg)
{
	const struct nfhp_model *m = rs->work;
	unsigned int i, j;
	int h;

	if (!rs->nbound)
		return 0;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		rs->mark++;
		nfhp_reach(rs, m, m->chains[h], 0);
		for (i = 0; i < m->n; i++) {
			const struct nfhp_chain *c = m->chains[i];

			if (c->mark != rs->mark || c->hook >= 0)
				continue;
			for (j = 0; j < c->rules.n; j++) {
				if (nfhp_chain_at(c, j)->ext_hooks & (1u << h))
					continue;
				/* Over 100 columns, not split: see above. */
				*msg = "an xtables match or target of a user chain is not valid at a hook that reaches the chain";
				return -EINVAL;
			}
		}
	}
	return 0;
}

/**
 * nfhp_txn_publish() - publish what a commit built; it cannot fail
 * @rs: the rule set, committing, its new tables built
 * @t: the new tables
 * @dirty: the hooks whose new entries @rs->staged holds, as bits
 * @old: the model the commit replaces
 * @rel: the record of what it replaces, for the release
 * @stale: the spare arrays there were before the commit
 *
 * Swaps the tables packets read, hands the new entries and the staged
 * model over to the rule set, settles the counters the transaction set
 * and queues @rel for a grace period later.
 */
static void nfhp_txn_publish(struct nfhp_ruleset *rs, struct nfhp_tables *t,
			     unsigned int dirty, struct nfhp_model *old,
			     struct nfhp_release *rel,
			     const struct nfhp_spare_seen *stale)
{
	struct nfhp_tables *old_tables = nfhp_tables_held(rs);
	struct nfhp_flat *flat = rs->staged;
	int h;

	rcu_assign_pointer(rs->tables, t);
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		if (!(dirty & (1u << h)))
			continue;
		swap(rs->hooks[h].flat, flat[h]);
		/* The pages the new entries share are theirs from now on. */
		nfhp_pageseq_succeed(&rs->hooks[h].flat.e, &flat[h].e);
	}
	nfhp_where_drop(rs);
	nfhp_chains_succeed(rs);
	rs->live = rs->work;
	rs->work = NULL;
	nfhp_counters_settle(rs, true);
	nfhp_adopt_end(rs, true);
	nfhp_release_fill(rs, rel, old, old_tables, flat);
	nfhp_spare_trim(rs, stale);
	rel->cookie = get_state_synchronize_rcu();
	*rs->releases_tail = rel;
	rs->releases_tail = &rel->next;
}

/* Undo what nfhp_commit_build() built for @p: trees, entries, indexes. */
static void nfhp_commit_unbuild(struct nfhp_ruleset *rs,
				const struct nfhp_prepared *p)
{
	int h;

	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		nfhp_hook_trees_drop(rs, p->t, h);
		nfhp_flat_free(rs, &rs->staged[h]);
		if (p->dirty & (1u << h))
			nfhp_hook_indexes_clear(rs, h);
	}
}

/* Free the tables and the release record of @p, which published nothing. */
static void nfhp_prepared_free(struct nfhp_ruleset *rs,
			       struct nfhp_prepared *p)
{
	nfhp_free(&rs->mem, p->t, sizeof(*p->t));
	if (p->old && p->old->n)
		nfhp_free(&rs->mem, p->rel->chains,
			  p->old->n * sizeof(*p->rel->chains));
	nfhp_free(&rs->mem, p->rel, sizeof(*p->rel));
	memset(p, 0, sizeof(*p));
}

/**
 * nfhp_txn_prepare() - build every staged change, publish nothing yet
 * @rs: the rule set, a transaction open
 * @msg: set to a reason on error, unless NULL
 *
 * Everything that can fail happens here: the checks, the flattening and
 * the trees.  Then nfhp_txn_finish() publishes it, which cannot fail, or
 * nfhp_txn_unprepare() drops it.  A namespace commits the rule sets of
 * both families so, all of them or none (pernet.c).  On error the
 * transaction is aborted and the committed rule set stays in force.
 *
 * Return: 0 or -errno.
 */
int nfhp_txn_prepare(struct nfhp_ruleset *rs, const char **msg)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&rs->forest.scratch);
	struct nfhp_prepared *p = &rs->prepared;
	const char *unasked;
	int err;

	if (!rs->work || p->t)
		return -EINVAL;
	/* Its steps say why they fail; a caller may not ask. */
	if (!msg)
		msg = &unasked;
	memset(rs->staged, 0, sizeof(rs->staged));
	rs->flattened = 0;
	nfhp_spare_see(rs, &p->stale);
	/*
	 * What earlier commits replaced and no packet sees any more goes
	 * now, not only when the release work runs: its arrays are this
	 * commit's spares (at 100,000 rules a commit without them took
	 * four times as long in the kernel).
	 */
	if (rs->defer_release)
		nfhp_ruleset_release(rs, false);
	err = rs->jumps_added ? nfhp_check_loops(rs, msg) : 0;
	if (!err)
		err = nfhp_check_hooks(rs, msg);
	if (err)
		goto out_abort;
	nfhp_model_hash(rs, rs->work);
	if (rs->live)
		nfhp_model_hash(rs, rs->live);
	nfhp_adopt(rs);
	rs->stable = nfhp_scratch_zalloc(&rs->forest.scratch, rs->work->n,
					 sizeof(*rs->stable));
	p->old = rs->live;
	p->dirty = nfhp_dirty_hooks(rs);
	err = -ENOMEM;
	p->rel = nfhp_release_new(rs, p->old);
	if (!p->rel)
		goto out_abort;
	p->t = nfhp_alloc(&rs->mem, sizeof(*p->t));
	if (!p->t)
		goto out_free_prepared;
	err = nfhp_commit_build(rs, p->dirty, p->t, rs->staged, msg);
	if (err)
		goto out_free_prepared;
	rs->stable = NULL;
	nfhp_scratch_release(&rs->forest.scratch, mark);
	return 0;
out_free_prepared:
	nfhp_prepared_free(rs, p);
out_abort:
	memset(p, 0, sizeof(*p));
	rs->stable = NULL;
	nfhp_scratch_release(&rs->forest.scratch, mark);
	if (err == -ENOMEM && !*msg)
		*msg = "out of memory";
	nfhp_txn_abort(rs);
	return err;
}

/**
 * nfhp_txn_finish() - publish what nfhp_txn_prepare() built
 * @rs: the rule set, a commit prepared
 */
void nfhp_txn_finish(struct nfhp_ruleset *rs)
{
	struct nfhp_prepared *p = &rs->prepared;

	nfhp_txn_publish(rs, p->t, p->dirty, p->old, p->rel, &p->stale);
	memset(p, 0, sizeof(*p));
	if (!rs->defer_release)
		nfhp_ruleset_release(rs, true);
}

/**
 * nfhp_txn_unprepare() - drop what nfhp_txn_prepare() built, and abort
 * @rs: the rule set, a commit prepared
 *
 * The committed rule set stays in force, as after a failed commit.
 */
void nfhp_txn_unprepare(struct nfhp_ruleset *rs)
{
	struct nfhp_prepared *p = &rs->prepared;

	if (!p->t)
		return;
	nfhp_commit_unbuild(rs, p);
	nfhp_prepared_free(rs, p);
	nfhp_txn_abort(rs);
}

/**
 * nfhp_txn_commit() - publish every staged change at once
 * @rs: the rule set
 * @msg: set to a reason on error, unless NULL
 *
 * On error the transaction is aborted and the committed rule set stays in
 * force, untouched.
 *
 * Return: 0 or -errno.
 */
int nfhp_txn_commit(struct nfhp_ruleset *rs, const char **msg)
{
	int err = nfhp_txn_prepare(rs, msg);

	if (!err)
		nfhp_txn_finish(rs);
	return err;
}
