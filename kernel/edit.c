// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the changes a transaction stages.
 *
 * DOC: Changes
 *
 * Each change runs inside the open transaction, or in one of its own that
 * it commits (nfhp_change()).  Changes copy the chains they touch and
 * leave the committed model alone; a change that fails leaves the
 * transaction as it was before it.
 */
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ruleset_priv.h"

typedef int (*nfhp_change_fn)(struct nfhp_ruleset *rs, void *arg,
			      const char **msg);

static int nfhp_change(struct nfhp_ruleset *rs, nfhp_change_fn fn, void *arg,
		       const char **msg)
{
	const char *dummy = NULL;
	bool own = !rs->work;
	int err;

	if (!msg)
		msg = &dummy;
	*msg = NULL;
	if (own) {
		err = nfhp_txn_begin(rs);
		if (err)
			return err;
	}
	err = fn(rs, arg, msg);
	if (own) {
		if (err)
			nfhp_txn_abort(rs);
		else
			err = nfhp_txn_commit(rs, msg);
	}
	return err;
}

/**
 * struct nfhp_change_args - arguments of a change, see nfhp_change()
 * @chain: chain name
 * @name: second name (rename)
 * @pos: 1-based position, 0 when not given
 * @spec: rule specification
 * @counters: initial counters
 * @action: policy
 */
struct nfhp_change_args {
	const char *chain;
	const char *name;
	unsigned int pos;
	const struct nfhp_rule_spec *spec;
	const struct nfhp_counter *counters;
	u8 action;
};

static int nfhp_do_insert(struct nfhp_ruleset *rs, void *arg,
			  const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c = nfhp_chain_work(rs, a->chain, msg);
	struct nfhp_rule *r;
	int err;

	if (IS_ERR(c))
		return PTR_ERR(c);
	if (a->pos < 1 || a->pos > c->rules.n + 1) {
		*msg = "index of insertion too big";
		return -E2BIG;
	}
	err = nfhp_check_jump(rs, a->spec, msg);
	if (err)
		return err;
	err = nfhp_rule_new(rs, a->spec, nfhp_chain_hooks(rs, c, a->spec),
			    a->counters, &r, msg);
	if (err)
		return err;
	c = nfhp_chain_mut(rs, a->chain, msg);
	err = IS_ERR(c) ? PTR_ERR(c) :
			  nfhp_pageseq_insert(&rs->mem, &c->rules, a->pos - 1,
					      r);
	if (err) {
		*msg = "out of memory";
		/* A rule of this transaction is freed, which cannot fail. */
		nfhp_rule_retire(rs, r);
		return err;
	}
	c->nbranch += nfhp_rule_branches(r);
	c->njump += nfhp_rule_jumps(r);
	nfhp_chain_touched(c, a->pos - 1, c->rules.n - a->pos);
	return 0;
}

/* The staged chain of @a, whose rule at @a->pos must exist. */
static struct nfhp_chain *nfhp_chain_mut_at(struct nfhp_ruleset *rs,
					    const struct nfhp_change_args *a,
					    const char *too_big,
					    const char **msg)
{
	struct nfhp_chain *c = nfhp_chain_mut(rs, a->chain, msg);

	if (!IS_ERR(c) && (a->pos < 1 || a->pos > c->rules.n)) {
		*msg = too_big;
		return ERR_PTR(-E2BIG);
	}
	return c;
}

static int nfhp_do_delete(struct nfhp_ruleset *rs, void *arg,
			  const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	struct nfhp_rule *r;
	int err;

	c = nfhp_chain_mut_at(rs, a, "index of deletion too big", msg);
	if (IS_ERR(c))
		return PTR_ERR(c);
	r = nfhp_chain_at(c, a->pos - 1);
	err = nfhp_list_reserve(&rs->mem, &rs->removed, 1) ?:
	      nfhp_pageseq_delete(&rs->mem, &c->rules, a->pos - 1);
	if (err) {
		*msg = "out of memory";
		return err;
	}
	/* Counted first: a rule of this transaction dies when retired. */
	c->nbranch -= nfhp_rule_branches(r);
	c->njump -= nfhp_rule_jumps(r);
	nfhp_rule_retire(rs, r);
	nfhp_chain_touched(c, a->pos - 1, c->rules.n - (a->pos - 1));
	return 0;
}

static int nfhp_do_replace(struct nfhp_ruleset *rs, void *arg,
			   const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	struct nfhp_rule *r, *old;
	int err;

	c = nfhp_chain_mut_at(rs, a, "index of replacement too big", msg);
	if (IS_ERR(c))
		return PTR_ERR(c);
	err = nfhp_check_jump(rs, a->spec, msg);
	if (!err)
		err = nfhp_rule_new(rs, a->spec,
				    nfhp_chain_hooks(rs, c, a->spec), NULL,
				    &r, msg);
	if (err)
		return err;
	old = nfhp_chain_at(c, a->pos - 1);
	err = nfhp_list_reserve(&rs->mem, &rs->removed, 1) ?:
	      nfhp_pageseq_set(&rs->mem, &c->rules, a->pos - 1, r);
	if (err) {
		*msg = "out of memory";
		nfhp_rule_retire(rs, r);
		return err;
	}
	c->nbranch += nfhp_rule_branches(r) - nfhp_rule_branches(old);
	c->njump += nfhp_rule_jumps(r) - nfhp_rule_jumps(old);
	nfhp_rule_retire(rs, old);
	nfhp_chain_touched(c, a->pos - 1, c->rules.n - a->pos);
	return 0;
}

static int nfhp_flush_one(struct nfhp_ruleset *rs, const char *name,
			  const char **msg)
{
	struct nfhp_chain *c = nfhp_chain_mut(rs, name, msg);
	unsigned int i;

	if (IS_ERR(c))
		return PTR_ERR(c);
	if (nfhp_list_reserve(&rs->mem, &rs->removed, c->rules.n)) {
		*msg = "out of memory";
		return -ENOMEM;
	}
	for (i = 0; i < c->rules.n; i++)
		nfhp_rule_retire(rs, nfhp_chain_at(c, i));
	nfhp_pageseq_free(&rs->mem, &c->rules);
	c->nbranch = 0;
	c->njump = 0;
	nfhp_chain_touched(c, 0, 0);
	return 0;
}

static int nfhp_do_flush(struct nfhp_ruleset *rs, void *arg,
			 const char **msg)
{
	struct nfhp_change_args *a = arg;
	unsigned int i;
	int err;

	if (a->chain)
		return nfhp_flush_one(rs, a->chain, msg);
	for (i = 0; i < rs->work->n; i++) {
		err = nfhp_flush_one(rs, rs->work->chains[i]->name, msg);
		if (err)
			return err;
	}
	return 0;
}

static bool nfhp_chain_name_ok(const char *name, const char **msg)
{
	size_t len = strnlen(name, NFHP_CHAIN_NAME_LEN);

	if (!len || len == NFHP_CHAIN_NAME_LEN) {
		*msg = "chain name empty or too long";
		return false;
	}
	if (!strcmp(name, "ACCEPT") || !strcmp(name, "DROP") ||
	    !strcmp(name, "RETURN") || name[0] == '-' || name[0] == '!') {
		*msg = "invalid chain name";
		return false;
	}
	return true;
}

/* Insert @c into the model keeping user chains sorted by name. */
static int nfhp_model_insert(struct nfhp_ruleset *rs, struct nfhp_chain *c)
{
	struct nfhp_model *m = rs->work;
	unsigned int i;
	int err;

	err = nfhp_grow(&rs->mem, (void **)&m->chains, &m->cap, m->n + 1,
			sizeof(*m->chains));
	if (err)
		return err;
	i = nfhp_chain_place(m, c->name);
	memmove(&m->chains[i + 1], &m->chains[i],
		(m->n - i) * sizeof(*m->chains));
	m->chains[i] = c;
	m->n++;
	m->hashed = false;
	return 0;
}

static void nfhp_model_remove(struct nfhp_model *m, unsigned int i)
{
	memmove(&m->chains[i], &m->chains[i + 1],
		(m->n - i - 1) * sizeof(*m->chains));
	m->n--;
	m->hashed = false;
}

static int nfhp_do_new_chain(struct nfhp_ruleset *rs, void *arg,
			     const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	int err;

	if (!nfhp_chain_name_ok(a->chain, msg))
		return -EINVAL;
	if (nfhp_chain_index(rs->work, a->chain) >= 0) {
		*msg = "chain already exists";
		return -EEXIST;
	}
	c = nfhp_chain_alloc(rs, a->chain, -1);
	if (!c)
		return -ENOMEM;
	err = nfhp_model_insert(rs, c);
	if (err)
		nfhp_chain_free(rs, c);
	return err;
}

/**
 * nfhp_model_refs() - count the jumps and gotos to a chain
 * @m: the model
 * @name: the chain's name
 *
 * Return: the references to @name in @m.
 */
unsigned int nfhp_model_refs(const struct nfhp_model *m,
			     const char *name)
{
	unsigned int i, j, refs = 0;

	for (i = 0; i < m->n; i++) {
		const struct nfhp_chain *c = m->chains[i];

		for (j = 0; j < c->rules.n && c->njump; j++)
			if ((nfhp_chain_at(c, j)->action == NFHP_ACT_JUMP ||
			     nfhp_chain_at(c, j)->action == NFHP_ACT_GOTO) &&
			    !strcmp(nfhp_chain_at(c, j)->target, name))
				refs++;
	}
	return refs;
}

static int nfhp_delete_one(struct nfhp_ruleset *rs, unsigned int i,
			   const char **msg)
{
	struct nfhp_chain *c = rs->work->chains[i];

	if (c->hook >= 0) {
		*msg = "cannot delete a built-in chain";
		return -EPERM;
	}
	if (nfhp_model_refs(rs->work, c->name)) {
		*msg = "chain is still referenced";
		return -EMLINK;
	}
	if (c->rules.n) {
		*msg = "chain is not empty";
		return -ENOTEMPTY;
	}
	nfhp_model_remove(rs->work, i);
	if (c->gen == rs->gen)
		nfhp_chain_free(rs, c);
	return 0;
}

static int nfhp_do_delete_chain(struct nfhp_ruleset *rs, void *arg,
				const char **msg)
{
	struct nfhp_change_args *a = arg;
	unsigned int i;
	int idx;

	if (a->chain) {
		idx = nfhp_chain_index(rs->work, a->chain);
		if (idx < 0) {
			*msg = "no chain by that name";
			return -ENOENT;
		}
		return nfhp_delete_one(rs, idx, msg);
	}
	/* Without a name: every user chain, like iptables -X. */
	for (i = rs->work->n; i > NFHP_HOOK_MAX; i--) {
		int err = nfhp_delete_one(rs, i - 1, msg);

		if (err)
			return err;
	}
	return 0;
}

/* A rule of @c that differs from @r only in its jump target. */
static int nfhp_rule_retarget(struct nfhp_ruleset *rs,
			      const struct nfhp_chain *c, struct nfhp_rule *r,
			      const char *target, struct nfhp_rule **out)
{
	struct nfhp_rule_spec *spec = kzalloc(sizeof(*spec), GFP_KERNEL);
	const char *msg;
	int err;

	if (!spec)
		return -ENOMEM;
	nfhp_spec_unpack(r->body.spec, spec);
	strscpy(spec->target, target, sizeof(spec->target));
	err = nfhp_rule_new(rs, spec, nfhp_chain_hooks(rs, c, spec), NULL,
			    out, &msg);
	kfree(spec);
	if (err)
		return err;
	/* The renamed rule keeps counting where the old one stopped. */
	nfhp_rcounter_put(&rs->cpool, (*out)->cnt);
	(*out)->cnt = r->cnt;
	r->cnt->refs++;
	return 0;
}

static int nfhp_retarget_jumps(struct nfhp_ruleset *rs, const char *from,
			       const char *to, const char **msg)
{
	unsigned int i, j;
	int err;

	for (i = 0; i < rs->work->n; i++) {
		struct nfhp_chain *c = rs->work->chains[i];

		for (j = 0; j < c->rules.n; j++) {
			struct nfhp_rule *r = nfhp_chain_at(c, j), *nr;

			if ((r->action != NFHP_ACT_JUMP &&
			     r->action != NFHP_ACT_GOTO) ||
			    strcmp(r->target, from))
				continue;
			c = nfhp_chain_mut(rs, c->name, msg);
			if (IS_ERR(c))
				return PTR_ERR(c);
			err = nfhp_rule_retarget(rs, c, r, to, &nr);
			if (err)
				return err;
			err = nfhp_list_reserve(&rs->mem, &rs->removed, 1) ?:
			      nfhp_pageseq_set(&rs->mem, &c->rules, j, nr);
			if (err) {
				nfhp_rule_retire(rs, nr);
				return err;
			}
			nfhp_rule_retire(rs, r);
		}
	}
	return 0;
}

static int nfhp_do_rename(struct nfhp_ruleset *rs, void *arg,
			  const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	int idx, err;

	if (!nfhp_chain_name_ok(a->name, msg))
		return -EINVAL;
	idx = nfhp_chain_index(rs->work, a->chain);
	if (idx < 0) {
		*msg = "no chain by that name";
		return -ENOENT;
	}
	if (rs->work->chains[idx]->hook >= 0) {
		*msg = "cannot rename a built-in chain";
		return -EPERM;
	}
	if (nfhp_chain_index(rs->work, a->name) >= 0) {
		*msg = "chain already exists";
		return -EEXIST;
	}
	err = nfhp_retarget_jumps(rs, a->chain, a->name, msg);
	if (err)
		return err;
	c = nfhp_chain_mut(rs, a->chain, msg);
	if (IS_ERR(c))
		return PTR_ERR(c);
	nfhp_model_remove(rs->work, nfhp_chain_index(rs->work, a->chain));
	strscpy(c->name, a->name, sizeof(c->name));
	c->hash = nfhp_name_hash(c->name);
	return nfhp_model_insert(rs, c);
}

static int nfhp_do_policy(struct nfhp_ruleset *rs, void *arg,
			  const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	int idx;

	if (a->action != NFHP_ACT_ACCEPT && a->action != NFHP_ACT_DROP) {
		*msg = "policy must be ACCEPT or DROP";
		return -EINVAL;
	}
	idx = nfhp_chain_index(rs->work, a->chain);
	if (idx < 0) {
		*msg = "no chain by that name";
		return -ENOENT;
	}
	if (rs->work->chains[idx]->hook < 0) {
		*msg = "only built-in chains have a policy";
		return -EINVAL;
	}
	c = nfhp_chain_mut(rs, a->chain, msg);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (a->counters &&
	    nfhp_counter_write(rs, &rs->hooks[c->hook].policy_cnt,
			       a->counters)) {
		*msg = "out of memory";
		return -ENOMEM;
	}
	c->policy = a->action;
	return 0;
}

/**
 * nfhp_rule_insert() - insert a rule before a position
 * @rs: the rule set
 * @chain: the chain
 * @pos: the 1-based position the new rule takes; the chain's length + 1
 *	appends
 * @spec: the rule
 * @counters: initial counters, or NULL
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_insert(struct nfhp_ruleset *rs, const char *chain,
		     unsigned int pos, const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *counters, const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .pos = pos,
				      .spec = spec, .counters = counters };

	return nfhp_change(rs, nfhp_do_insert, &a, msg);
}

/**
 * nfhp_rule_append() - append a rule to a chain
 * @rs: the rule set
 * @chain: the chain
 * @spec: the rule
 * @counters: initial counters, or NULL
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_append(struct nfhp_ruleset *rs, const char *chain,
		     const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *counters, const char **msg)
{
	const struct nfhp_model *m = nfhp_view(rs);
	int idx = nfhp_chain_index(m, chain);

	if (idx < 0) {
		if (msg)
			*msg = "no chain by that name";
		return -ENOENT;
	}
	return nfhp_rule_insert(rs, chain, m->chains[idx]->rules.n + 1, spec,
				counters, msg);
}

/**
 * nfhp_rule_replace() - replace the rule at a position
 * @rs: the rule set
 * @chain: the chain
 * @pos: 1-based position
 * @spec: the new rule
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_replace(struct nfhp_ruleset *rs, const char *chain,
		      unsigned int pos, const struct nfhp_rule_spec *spec,
		      const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .pos = pos,
				      .spec = spec };

	return nfhp_change(rs, nfhp_do_replace, &a, msg);
}

/**
 * nfhp_rule_delete() - delete the rule at a position
 * @rs: the rule set
 * @chain: the chain
 * @pos: 1-based position
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_delete(struct nfhp_ruleset *rs, const char *chain,
		     unsigned int pos, const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .pos = pos };

	return nfhp_change(rs, nfhp_do_delete, &a, msg);
}

/**
 * nfhp_rule_delete_spec() - delete the first rule equal to @spec
 * @rs: the rule set
 * @chain: the chain
 * @spec: the rule
 * @msg: set to a reason on error
 *
 * Return: 0, -ENOENT when no rule is equal, or -errno.
 */
int nfhp_rule_delete_spec(struct nfhp_ruleset *rs, const char *chain,
			  const struct nfhp_rule_spec *spec, const char **msg)
{
	const struct nfhp_model *m = nfhp_view(rs);
	struct nfhp_packed_spec *p;
	struct nfhp_mem scratch = { .limit = ~0ull };
	const struct nfhp_chain *c;
	unsigned int i;
	int idx, err;

	idx = nfhp_chain_index(m, chain);
	if (idx < 0) {
		if (msg)
			*msg = "no chain by that name";
		return -ENOENT;
	}
	c = m->chains[idx];
	err = nfhp_spec_pack(&scratch, spec, &p);
	if (err)
		return err;
	for (i = 0; i < c->rules.n; i++)
		if (nfhp_rule_is(nfhp_chain_at(c, i), p))
			break;
	nfhp_free(&scratch, p, p->size);
	if (i == c->rules.n) {
		if (msg)
			*msg = "bad rule (does a matching rule exist in that chain?)";
		return -ENOENT;
	}
	return nfhp_rule_delete(rs, chain, i + 1, msg);
}

/**
 * nfhp_chain_flush() - delete every rule of a chain, or of all chains
 * @rs: the rule set
 * @chain: the chain, or NULL for all
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_chain_flush(struct nfhp_ruleset *rs, const char *chain,
		     const char **msg)
{
	struct nfhp_change_args a = { .chain = chain };

	return nfhp_change(rs, nfhp_do_flush, &a, msg);
}

/**
 * nfhp_chain_new() - create a user chain
 * @rs: the rule set
 * @chain: its name
 * @msg: set to a reason on error
 *
 * Return: 0, -EEXIST or -errno.
 */
int nfhp_chain_new(struct nfhp_ruleset *rs, const char *chain,
		   const char **msg)
{
	struct nfhp_change_args a = { .chain = chain };

	return nfhp_change(rs, nfhp_do_new_chain, &a, msg);
}

/**
 * nfhp_chain_delete() - delete an empty, unreferenced user chain
 * @rs: the rule set
 * @chain: its name, or NULL for every user chain
 * @msg: set to a reason on error
 *
 * Return: 0, -ENOTEMPTY, -EMLINK or -errno.
 */
int nfhp_chain_delete(struct nfhp_ruleset *rs, const char *chain,
		      const char **msg)
{
	struct nfhp_change_args a = { .chain = chain };

	return nfhp_change(rs, nfhp_do_delete_chain, &a, msg);
}

/**
 * nfhp_chain_rename() - rename a user chain; jumps to it follow
 * @rs: the rule set
 * @chain: its name
 * @new_name: the new name
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_chain_rename(struct nfhp_ruleset *rs, const char *chain,
		      const char *new_name, const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .name = new_name };

	return nfhp_change(rs, nfhp_do_rename, &a, msg);
}

/**
 * nfhp_chain_policy() - set the policy of a built-in chain
 * @rs: the rule set
 * @chain: the chain
 * @action: %NFHP_ACT_ACCEPT or %NFHP_ACT_DROP
 * @counters: new policy counters, or NULL to keep them
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_chain_policy(struct nfhp_ruleset *rs, const char *chain, u8 action,
		      const struct nfhp_counter *counters, const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .action = action,
				      .counters = counters };

	return nfhp_change(rs, nfhp_do_policy, &a, msg);
}

/*
 * Inside a transaction a zeroing waits for the publish, as the counters
 * given to rules and policies do: a restore that fails leaves them.  A
 * @fresh counter, a rule's the transaction created, no packet counted
 * yet: it is zeroed now.  A renamed jump is created yet shares the
 * committed jump's counter (nfhp_rule_retarget()), so that one waits.
 */
static int nfhp_zero(struct nfhp_ruleset *rs, struct nfhp_rcounter *c,
		     bool fresh)
{
	if (!rs->work || fresh) {
		nfhp_counter_zero(c);
		return 0;
	}
	return nfhp_counter_write(rs, c, NULL);
}

/**
 * nfhp_counters_zero() - zero counters, at once, outside transactions
 * @rs: the rule set
 * @chain: the chain, or NULL for every chain and policy
 * @pos: the rule's 1-based position, or 0 for the whole chain; a built-in
 *	chain's policy counters are zeroed either way, as iptables does
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_counters_zero(struct nfhp_ruleset *rs, const char *chain,
		       unsigned int pos, const char **msg)
{
	const struct nfhp_model *m = nfhp_view(rs);
	unsigned int i, j;
	int idx = -1;

	if (chain) {
		idx = nfhp_chain_index(m, chain);
		if (idx < 0) {
			if (msg)
				*msg = "no chain by that name";
			return -ENOENT;
		}
		if (pos > m->chains[idx]->rules.n) {
			if (msg)
				*msg = "index of counter too big";
			return -E2BIG;
		}
	}
	for (i = 0; i < m->n; i++) {
		const struct nfhp_chain *c = m->chains[i];

		if (idx >= 0 && (int)i != idx)
			continue;
		/* iptables-legacy zeroes the policy with any rule of its chain. */
		if (c->hook >= 0 &&
		    nfhp_zero(rs, &rs->hooks[c->hook].policy_cnt, false))
			goto out_nomem;
		for (j = 0; j < c->rules.n; j++)
			if ((!pos || j + 1 == pos) &&
			    nfhp_zero(rs, nfhp_chain_at(c, j)->cnt,
				      nfhp_chain_at(c, j)->gen == rs->gen &&
				      nfhp_chain_at(c, j)->cnt->refs == 1))
				goto out_nomem;
	}
	return 0;
out_nomem:
	if (msg)
		*msg = "out of memory";
	return -ENOMEM;
}
