// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: what a commit replaced, freed once no packet sees it.
 *
 * DOC: Release
 *
 * A commit picks what the new tables no longer use into a struct
 * nfhp_release, stamped with get_state_synchronize_rcu(), and frees it
 * once the grace period is over (nfhp_ruleset_release()): never before,
 * for a packet may still walk the old entries.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "ruleset_priv.h"

/**
 * nfhp_release_new() - a release record for a commit
 * @rs: the rule set
 * @old: the model the commit replaces, or NULL
 *
 * A record for a commit that replaces model @old, or NULL.
 *
 * Return: the record, or NULL.
 */
struct nfhp_release *nfhp_release_new(struct nfhp_ruleset *rs,
				      const struct nfhp_model *old)
{
	struct nfhp_release *rel = nfhp_alloc(&rs->mem, sizeof(*rel));

	if (!rel || !old || !old->n)
		return rel;
	rel->chains = nfhp_alloc(&rs->mem, old->n * sizeof(*rel->chains));
	if (!rel->chains) {
		nfhp_free(&rs->mem, rel, sizeof(*rel));
		return NULL;
	}
	return rel;
}

/*
 * Free the replaced entries @fl but those that the @nfrom entries
 * replacing them carried over (@from, rising where not -1; NULL: none),
 * or only the @ngone entries @gone when it is not NULL.  Only the gaps
 * between the carried-over ones are read: @fl's pages stay as packets
 * saw them, and those it still owns, which the new entries did not
 * share, are freed with it.
 */
static void nfhp_flat_free_replaced(struct nfhp_ruleset *rs,
				    struct nfhp_flat *fl, const int *from,
				    unsigned int nfrom,
				    struct nfhp_entry *const *gone,
				    unsigned int ngone)
{
	unsigned int i = 0, j = 0;
	struct nfhp_pageseq_iter it;
	struct nfhp_entry *e;

	if (gone) {
		/* A walking update listed them: no pass over the others. */
		for (; j < ngone; j++)
			nfhp_entry_free(rs, fl, gone[j]);
		i = fl->e.n;
	}
	while (from && j < nfrom) {
		/* Runs of carried-over entries, most of them: no call. */
		while (j < nfrom && from[j] == (int)i) {
			i++;
			j++;
		}
		if (j == nfrom)
			break;
		if (from[j] < 0) {
			j++;
			continue;
		}
		for (; i < (unsigned int)from[j]; i++)
			nfhp_entry_free(rs, fl, nfhp_flat_at(fl, i));
	}
	nfhp_pageseq_iter_init(&it, &fl->e, i);
	while ((e = nfhp_pageseq_iter_next(&it)))
		nfhp_entry_free(rs, fl, e);
	nfhp_flat_recycle(rs, fl);
	memset(fl, 0, sizeof(*fl));
}

/*
 * The removed rules' states go now, before the grace period that frees
 * the rules: so no state outlives its rule, and a packet that found one
 * may count on its rule until the grace period ends.
 */
static void nfhp_release_retire(struct nfhp_ruleset *rs,
				const struct nfhp_rule_list *rules)
{
	unsigned int i;

	if (!rs->nstate || !rs->ext_ops || !rs->ext_ops->retire)
		return;
	for (i = 0; i < rules->n; i++)
		if (rules->r[i]->ext &&
		    rules->r[i]->state == NFHP_RSTATE_KEEP)
			rs->ext_ops->retire(rs->ext_priv, rules->r[i]->ext);
}

/**
 * nfhp_release_fill() - record what a commit replaced
 * @rs: the rule set
 * @rel: the record
 * @old: the replaced model
 * @old_tables: the replaced tables
 * @old_flat: per hook, the replaced entries
 *
 * Fill @rel with what the commit that just published replaced: the old
 * tables, the old entries and which of them the new ones carried over,
 * the removed rules, the old model and its chains the new one does not
 * have.
 */
void nfhp_release_fill(struct nfhp_ruleset *rs,
		       struct nfhp_release *rel, struct nfhp_model *old,
		       struct nfhp_tables *old_tables,
		       struct nfhp_flat *old_flat)
{
	unsigned int i;
	int h;

	rel->tables = old_tables;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		rel->hooks[h].flat = old_flat[h];
		/* What the new entries shared is theirs alone now. */
		rel->hooks[h].kept = rs->hooks[h].flat.from;
		rel->hooks[h].nkept = rs->hooks[h].flat.e.n;
		rel->hooks[h].kept_cap = rs->hooks[h].flat.from_cap;
		rs->hooks[h].flat.from = NULL;
		rs->hooks[h].flat.from_cap = 0;
		rel->hooks[h].gone = rs->hooks[h].flat.gone;
		rel->hooks[h].ngone = rs->hooks[h].flat.ngone;
		rs->hooks[h].flat.gone = NULL;
		nfhp_flat_free_delta(rs, &rs->hooks[h].flat);
	}
	rel->rules = rs->removed;
	memset(&rs->removed, 0, sizeof(rs->removed));
	nfhp_release_retire(rs, &rel->rules);
	rs->created.n = 0;
	rel->model = old;
	if (!old)
		return;
	rs->mark++;
	for (i = 0; i < rs->live->n; i++)
		rs->live->chains[i]->mark = rs->mark;
	for (i = 0; i < old->n; i++)
		if (old->chains[i]->mark != rs->mark)
			rel->chains[rel->nchains++] = old->chains[i];
}

static void nfhp_release_free(struct nfhp_ruleset *rs,
			      struct nfhp_release *rel)
{
	struct nfhp_model *old = rel->model;
	unsigned int i;
	int h;

	/* Trees first: their leaves may be entries' own (tree.h). */
	if (rel->tables)
		nfhp_tables_put(rs, rel->tables);
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		struct nfhp_release_hook *rh = &rel->hooks[h];

		nfhp_flat_free_replaced(rs, &rh->flat, rh->kept, rh->nkept,
					rh->gone, rh->ngone);
		nfhp_ints_free(rs, rh->kept, rh->kept_cap);
		nfhp_free(&rs->mem, rh->gone,
			  max(rh->ngone, 1u) * sizeof(*rh->gone));
	}
	for (i = 0; i < rel->rules.n; i++)
		nfhp_rule_free(rs, rel->rules.r[i]);
	nfhp_list_free(&rs->mem, &rel->rules);
	for (i = 0; i < rel->nchains; i++)
		nfhp_chain_free(rs, rel->chains[i]);
	if (old) {
		nfhp_free(&rs->mem, rel->chains, old->n * sizeof(*rel->chains));
		nfhp_model_free(rs, old);
	}
	nfhp_free(&rs->mem, rel, sizeof(*rel));
}

/**
 * nfhp_ruleset_release() - free what commits replaced, once packets cannot
 * see it any more
 * @rs: the rule set
 * @wait: wait for the grace periods still running; otherwise free only
 *	what the grace periods that ended allow
 *
 * Return: true when records are left, which need another call after a
 * grace period.
 */
bool nfhp_ruleset_release(struct nfhp_ruleset *rs, bool wait)
{
	struct nfhp_release *rel;

	while ((rel = rs->releases)) {
		if (!wait && !poll_state_synchronize_rcu(rel->cookie))
			break;
		cond_synchronize_rcu(rel->cookie);
		rs->releases = rel->next;
		nfhp_release_free(rs, rel);
	}
	if (!rs->releases)
		rs->releases_tail = &rs->releases;
	return rs->releases;
}

/**
 * nfhp_ruleset_defer_release() - let commits return before a grace period
 * @rs: the rule set
 * @defer: true: a commit leaves what it replaced to nfhp_ruleset_release(),
 *	which the caller runs after a grace period; false (the default): a
 *	commit waits for the grace period and frees it
 *
 * A grace period takes several scheduler ticks, milliseconds, which
 * would be most of the time of a small update.
 */
void nfhp_ruleset_defer_release(struct nfhp_ruleset *rs, bool defer)
{
	rs->defer_release = defer;
}

/**
 * nfhp_hook_trees_drop() - drop the trees of a hook
 * @rs: the rule set
 * @t: the tables
 * @h: the hook
 *
 * Drop the trees of @t's hook @h.
 */
void nfhp_hook_trees_drop(struct nfhp_ruleset *rs,
			  struct nfhp_tables *t, int h)
{
	int g;

	for (g = 0; g < NFHP_GROUPS; g++) {
		nfhp_tree_put(&rs->forest, t->hooks[h].root[g]);
		t->hooks[h].root[g] = NULL;
	}
}

/**
 * nfhp_tables_put() - drop the trees of tables and free them
 * @rs: the rule set
 * @t: the tables
 *
 * Drop the trees of @t and free it.
 */
void nfhp_tables_put(struct nfhp_ruleset *rs, struct nfhp_tables *t)
{
	int h, g;

	for (h = 0; h < NFHP_HOOK_MAX; h++)
		for (g = 0; g < NFHP_GROUPS; g++)
			nfhp_tree_put(&rs->forest, t->hooks[h].root[g]);
	nfhp_free(&rs->mem, t, sizeof(*t));
}
