// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the rule set of one network namespace: its life cycle, the
 * helpers its parts share, and its accounting.
 *
 * DOC: The rule set
 *
 * The rule set is kept twice while a transaction is open: the committed
 * model ("live") and the staged one ("work").  They share every chain that
 * the transaction has not touched; a chain is copied the first time a
 * transaction changes it (its @gen is then the transaction's).  Rules are
 * immutable and shared.  A commit flattens and compiles only the hooks that
 * can reach a changed chain and publishes all trees with one pointer swap.
 * What the old trees and the old model alone used is picked then, into a
 * record (struct nfhp_release), and freed a grace period later: at once,
 * waiting for it, or, in the kernel, by a work item (pernet.c), so that a
 * commit does not wait several scheduler ticks for the packets still in
 * the old trees.  An abort frees what the transaction alone created.
 *
 * A hook is flattened into scratch memory first when it had entries: those
 * equal to an entry of the last commit are not allocated again but kept
 * (nfhp_flat_settle()), so a one-rule change in a user chain of 10,000
 * rules allocates a few dozen blocks, not 20,000.
 *
 * The rule set's code is in these files, which share ruleset_priv.h:
 *
 * - ruleset.c: this file; creation, freeing, memory and counts;
 * - chain.c: rules, chains and models, loops of jumps, where rules stand,
 *   and the reading API (listings, counters);
 * - edit.c: the changes a transaction stages (insert, delete, replace,
 *   flush, chains, policies, zeroing);
 * - adopt.c: the committed rules a commit takes back;
 * - flat.c: the flattening of a hook's chains into entries;
 * - scope.c: where the entries that skip others end;
 * - update.c: the diff of a hook's entries and the update of its trees;
 * - reflatten.c: the walking update, which carries kept rules' entries
 *   over and flattens only the created ones;
 * - txn.c: transactions, the commit and the build of a hook's trees;
 * - release.c: what a commit replaced, freed after a grace period;
 * - classify.c: the packet path, nfhp_classify().
 * - rule_place.c: where the committed keep-state rules stand, for the
 *   listing of the dynamic states and the states added by hand.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ruleset_priv.h"

/**
 * nfhp_hook_indexes_clear() - forget the indexes of a hook's committed entries
 * @rs: the rule set
 * @h: the hook
 *
 * Forget the indexes of hook @h's committed entries (the candidates, the
 * skipping entries and the rules' first entries): after a rebuild, or a
 * commit that failed after an update brought them forward.  The next
 * update that walks the chains finds them again.
 */
void nfhp_hook_indexes_clear(struct nfhp_ruleset *rs, int h)
{
	struct nfhp_scoped *sc = &rs->hooks[h].scoped;

	nfhp_cand_index_clear(&rs->mem, &rs->hooks[h].cands);
	nfhp_rule_starts_clear(&rs->mem, &rs->hooks[h].rule_starts);
	nfhp_free(&rs->mem, sc->e, sc->cap * sizeof(*sc->e));
	memset(sc, 0, sizeof(*sc));
}

/**
 * nfhp_grow() - make room in a growing array
 * @mem: the memory account
 * @arr: the array, NULL for none yet
 * @cap: its room, in elements; updated
 * @need: the elements it must hold
 * @size: the size of an element
 *
 * Make room in the array @arr of @cap elements for @need.  Only the
 * elements in use are ever read, so the new room is not zeroed: at
 * 100,000 rules a chain's array is 800 KB.
 *
 * Return: 0 or -ENOMEM, @arr then as it was.
 */
int nfhp_grow(struct nfhp_mem *mem, void **arr, unsigned int *cap,
	      unsigned int need, size_t size)
{
	unsigned int ncap = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = nfhp_alloc_uninit(mem, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	if (*arr)
		memcpy(p, *arr, (size_t)*cap * size);
	nfhp_free(mem, *arr, (size_t)*cap * size);
	*arr = p;
	*cap = ncap;
	return 0;
}

/**
 * nfhp_list_add() - add a rule to a list of rules
 * @mem: the memory account
 * @l: the list
 * @r: the rule
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_list_add(struct nfhp_mem *mem, struct nfhp_rule_list *l,
		  struct nfhp_rule *r)
{
	int err = nfhp_grow(mem, (void **)&l->r, &l->cap, l->n + 1,
			    sizeof(*l->r));

	if (!err)
		l->r[l->n++] = r;
	return err;
}

/**
 * nfhp_list_reserve() - make room in a list of rules
 * @mem: the memory account
 * @l: the list
 * @more: rules to make room for
 *
 * Room in @l for @more rules, so that as many adds cannot fail.
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_list_reserve(struct nfhp_mem *mem, struct nfhp_rule_list *l,
		      unsigned int more)
{
	return nfhp_grow(mem, (void **)&l->r, &l->cap, l->n + more,
			 sizeof(*l->r));
}

/**
 * nfhp_list_free() - free a list of rules, not the rules
 * @mem: the memory account
 * @l: the list, empty after
 */
void nfhp_list_free(struct nfhp_mem *mem, struct nfhp_rule_list *l)
{
	nfhp_free(mem, l->r, l->cap * sizeof(*l->r));
	memset(l, 0, sizeof(*l));
}

/* Life cycle. */

/**
 * nfhp_ruleset_new() - create an empty rule set
 * @family: its &enum nfhp_family
 * @mem_limit: the memory bound in bytes
 *
 * The built-in chains exist from the start with policy ACCEPT, and the
 * trees of all hooks are single leaves that accept.
 *
 * Return: the rule set, or NULL.
 */
struct nfhp_ruleset *nfhp_ruleset_new(u8 family, u64 mem_limit)
{
	struct nfhp_ruleset *rs = kzalloc(sizeof(*rs), GFP_KERNEL);
	const char *msg;
	int h;

	if (!rs)
		return NULL;
	rs->family = family;
	rs->any.family = family;
	rs->releases_tail = &rs->releases;
	rs->mem.limit = mem_limit;
	rs->flat_bound = U32_MAX;
	nfhp_cpool_init(&rs->cpool, &rs->mem);
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		rs->hooks[h].policy_cnt.pc = alloc_percpu(struct nfhp_counter);
		rs->hooks[h].policy_cnt.refs = 1;
		if (!rs->hooks[h].policy_cnt.pc)
			goto out_free;
	}
	if (nfhp_forest_init(&rs->forest, &rs->mem, family))
		goto out_free;
	if (nfhp_txn_begin(rs))
		goto out_forest;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		struct nfhp_chain *c;

		c = nfhp_chain_alloc(rs, nfhp_hook_chain[h], h);
		if (!c)
			goto out_abort;
		rs->work->chains[rs->work->n++] = c;
	}
	if (nfhp_txn_commit(rs, &msg))
		goto out_forest;
	return rs;
out_abort:
	nfhp_txn_abort(rs);
out_forest:
	nfhp_forest_destroy(&rs->forest);
out_free:
	for (h = 0; h < NFHP_HOOK_MAX; h++)
		free_percpu(rs->hooks[h].policy_cnt.pc);
	kfree(rs);
	return NULL;
}

/**
 * nfhp_ruleset_set_ext() - give a rule set the evaluator of extensions
 * @rs: the rule set, still without rules
 * @ops: the evaluator (ext.h)
 * @priv: its first argument
 *
 * Without one, rules with extensions are refused.
 */
void nfhp_ruleset_set_ext(struct nfhp_ruleset *rs,
			  const struct nfhp_ext_ops *ops, void *priv)
{
	rs->ext_ops = ops;
	rs->ext_priv = priv;
}

static void nfhp_model_free_chains(struct nfhp_ruleset *rs,
				   struct nfhp_model *m)
{
	unsigned int i, j;

	for (i = 0; i < m->n; i++) {
		struct nfhp_chain *c = m->chains[i];

		for (j = 0; j < c->rules.n; j++)
			nfhp_rule_free(rs, nfhp_chain_at(c, j));
		nfhp_chain_free(rs, c);
	}
	nfhp_model_free(rs, m);
}

/**
 * nfhp_ruleset_set_lock() - name the mutex that serializes a rule set
 * @rs: the rule set
 * @lock: the mutex its caller holds around every call but nfhp_classify()
 *
 * Lockdep then checks that it is held where the rule set reads what it
 * publishes.  Userspace callers, single-threaded, name none.
 */
void nfhp_ruleset_set_lock(struct nfhp_ruleset *rs, struct mutex *lock)
{
	rs->lock = lock;
}

/**
 * nfhp_ruleset_free() - free a rule set
 * @rs: the rule set; no packet may reach it any more, its @lock held
 */
void nfhp_ruleset_free(struct nfhp_ruleset *rs)
{
	struct nfhp_spare_seen seen;
	struct nfhp_tables *t;
	int h;

	if (rs->work)
		nfhp_txn_abort(rs);
	nfhp_ruleset_release(rs, true);
	t = nfhp_tables_held(rs);
	nfhp_tables_put(rs, t);
	for (h = 0; h < NFHP_HOOK_MAX; h++)
		nfhp_flat_free(rs, &rs->hooks[h].flat);
	for (h = 0; h < NFHP_HOOK_MAX; h++)
		nfhp_hook_indexes_clear(rs, h);
	nfhp_model_free_chains(rs, rs->live);
	nfhp_spare_see(rs, &seen);
	nfhp_spare_trim(rs, &seen);
	nfhp_list_free(&rs->mem, &rs->created);
	nfhp_list_free(&rs->mem, &rs->removed);
	nfhp_list_free(&rs->mem, &rs->dups);
	nfhp_where_drop(rs);
	nfhp_forest_destroy(&rs->forest);
	for (h = 0; h < NFHP_HOOK_MAX; h++)
		free_percpu(rs->hooks[h].policy_cnt.pc);
	WARN_ON(rs->mem.used);
	kfree(rs);
}

/**
 * nfhp_ruleset_empty() - does the rule set accept everything unseen?
 * @rs: the rule set
 *
 * Return: true when every committed chain is empty and every policy is
 * ACCEPT: the hooks need not be registered.
 */
bool nfhp_ruleset_empty(const struct nfhp_ruleset *rs)
{
	unsigned int i;

	for (i = 0; i < rs->live->n; i++) {
		const struct nfhp_chain *c = rs->live->chains[i];

		if (c->rules.n || (c->hook >= 0 && c->policy != NFHP_ACT_ACCEPT))
			return false;
	}
	return true;
}

/* Accounting. */

/**
 * nfhp_ruleset_mem_limit() - the memory bound
 * @rs: the rule set
 *
 * Return: the bound in bytes.
 */
u64 nfhp_ruleset_mem_limit(const struct nfhp_ruleset *rs)
{
	return rs->mem.limit;
}

/**
 * nfhp_ruleset_set_mem_limit() - change the memory bound
 * @rs: the rule set
 * @limit: the new bound in bytes
 *
 * Return: 0, or -EINVAL when more than @limit is in use already.
 */
int nfhp_ruleset_set_mem_limit(struct nfhp_ruleset *rs, u64 limit)
{
	if (limit < rs->mem.allocated)
		return -EINVAL;
	rs->mem.limit = limit;
	return 0;
}

/**
 * nfhp_ruleset_mem_used() - bytes the core asked for
 * @rs: the rule set
 *
 * Return: the bytes.
 */
u64 nfhp_ruleset_mem_used(const struct nfhp_ruleset *rs)
{
	return rs->mem.used;
}

/**
 * nfhp_ruleset_mem_allocated() - bytes the allocator reserved
 * @rs: the rule set
 *
 * Return: the bytes.
 */
u64 nfhp_ruleset_mem_allocated(const struct nfhp_ruleset *rs)
{
	return rs->mem.allocated;
}

/**
 * nfhp_ruleset_counter_mem() - bytes the rules' counters take
 * @rs: the rule set
 *
 * Their percpu copies are not on the account (nfhp_cpool_bytes()).
 *
 * Return: the bytes.
 */
u64 nfhp_ruleset_counter_mem(const struct nfhp_ruleset *rs)
{
	return nfhp_cpool_bytes(&rs->cpool);
}

/**
 * nfhp_ruleset_nchains() - number of chains, built-in ones included
 * @rs: the rule set
 *
 * Return: the number.
 */
unsigned int nfhp_ruleset_nchains(const struct nfhp_ruleset *rs)
{
	return nfhp_view(rs)->n;
}

/**
 * nfhp_ruleset_nrules() - number of rules in all chains
 * @rs: the rule set
 *
 * Return: the number.
 */
unsigned int nfhp_ruleset_nrules(const struct nfhp_ruleset *rs)
{
	const struct nfhp_model *m = nfhp_view(rs);
	unsigned int i, n = 0;

	for (i = 0; i < m->n; i++)
		n += m->chains[i]->rules.n;
	return n;
}

/**
 * nfhp_ruleset_shared_splits() - splits two builders built
 * @rs: the rule set
 *
 * Return: how many splits of tree builds had a helper build half of their
 * children (tree.c, "Two builders").
 */
u64 nfhp_ruleset_shared_splits(const struct nfhp_ruleset *rs)
{
	return rs->forest.shared_splits;
}

/**
 * nfhp_ruleset_flattened() - entries the last commit flattened
 * @rs: the rule set
 *
 * A rebuild flattens every entry of the hooks it rebuilds; an update
 * only those of the rules it added and of the chains they reach.
 *
 * Return: the number of entries.
 */
unsigned int nfhp_ruleset_flattened(const struct nfhp_ruleset *rs)
{
	return rs->flattened;
}

/**
 * nfhp_ruleset_builds_cut() - tree builds that ran out of work
 * @rs: the rule set
 *
 * A build whose first attempt ran out of its budget builds again with a
 * share of it for each region, and the regions past their shares become
 * tested leaves ("Bounded builds" in tree.c).
 *
 * Return: how many builds did so since @rs was made.
 */
u64 nfhp_ruleset_builds_cut(const struct nfhp_ruleset *rs)
{
	return rs->forest.builds_cut;
}

/**
 * nfhp_ruleset_updates_given_up() - tree updates that gave up
 * @rs: the rule set
 *
 * An update that would visit more nodes than a build makes gives up, and
 * the tree is built anew ("Updates: nfhp_tree_update()" in tree.c).
 *
 * Return: how many times that happened since @rs was made.
 */
u64 nfhp_ruleset_updates_given_up(const struct nfhp_ruleset *rs)
{
	return rs->updates_given_up;
}

/* For stats.c: the committed tree and entries of a hook. */

/**
 * nfhp_ruleset_tree() - a published tree of a hook
 * @rs: the rule set
 * @hook: the hook
 * @group: which of the hook's trees
 * @f: set to the forest holding it
 *
 * Return: the root, or NULL when the group is empty.
 */
const struct nfhp_node *nfhp_ruleset_tree(const struct nfhp_ruleset *rs,
					  enum nfhp_hook hook,
					  unsigned int group,
					  struct nfhp_forest **f)
{
	const struct nfhp_tables *t = nfhp_tables_held(rs);

	*f = (struct nfhp_forest *)&rs->forest;
	return group < NFHP_GROUPS ? t->hooks[hook].root[group] : NULL;
}

/**
 * nfhp_ruleset_entries() - the flattened entries of a hook's tree
 * @rs: the rule set
 * @hook: the hook
 *
 * Return: the entries in order, their number @n; they change with the
 * next commit.
 */
const struct nfhp_pageseq *nfhp_ruleset_entries(const struct nfhp_ruleset *rs,
						enum nfhp_hook hook)
{
	return &rs->hooks[hook].flat.e;
}

/**
 * nfhp_ruleset_entry_tree() - which of a hook's trees holds an entry
 * @rs: the rule set
 * @hook: the hook
 * @e: one of nfhp_ruleset_entries()
 *
 * A hook whose entries may skip later ones (a RETURN) keeps them all in
 * tree 0; otherwise each is in the tree of its group.
 *
 * Return: the @group of nfhp_ruleset_tree() that holds @e.
 */
unsigned int nfhp_ruleset_entry_tree(const struct nfhp_ruleset *rs,
				     enum nfhp_hook hook,
				     const struct nfhp_entry *e)
{
	return nfhp_flat_groupable(&rs->hooks[hook].flat) ? e->group : 0;
}

/**
 * nfhp_rule_written() - the dimensions a rule's specification names
 * @r: the rule
 *
 * Return: a bit per &enum nfhp_dim.
 */
u16 nfhp_rule_written(const struct nfhp_rule *r)
{
	return r->written;
}

/**
 * nfhp_rule_box() - what a rule matches, normalized
 * @r: the rule
 *
 * Return: its (first) box.
 */
const struct nfhp_box *nfhp_rule_box(const struct nfhp_rule *r)
{
	return r->body.box;
}
