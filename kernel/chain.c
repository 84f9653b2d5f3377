// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: rules, chains and the models that hold them.
 *
 * DOC: Rules and chains
 *
 * A rule is immutable once made (nfhp_rule_new()) and shared by every
 * model that holds it.  A model is the chains of the rule set, built-in
 * ones first; the staged model shares the committed one's chains until a
 * change copies one (nfhp_chain_mut()).  This file also finds chains by
 * name (a hash table of the names for the commit), checks jumps for loops,
 * finds where a committed rule stands, and answers the reading API of
 * ruleset.h.
 */
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ruleset_priv.h"

/**
 * nfhp_name_hash() - hash a chain name
 * @name: the name
 *
 * Return: its FNV-1a hash.
 */
u32 nfhp_name_hash(const char *name)
{
	u32 h = 2166136261u;

	while (*name)
		h = (h ^ (u8)*name++) * 16777619u;
	return h;
}

/* Rules. */

#define NFHP_ALL_HOOKS	((1u << NFHP_HOOK_MAX) - 1)

/**
 * nfhp_rule_free() - free a rule no model holds any more
 * @rs: the rule set
 * @r: the rule
 */
void nfhp_rule_free(struct nfhp_ruleset *rs, struct nfhp_rule *r)
{
	if (r->ext)
		rs->ext_ops->destroy(rs->ext_priv, r->ext);
	rs->nbound -= r->ext_hooks != NFHP_ALL_HOOKS;
	rs->nstate -= r->state != NFHP_RSTATE_NONE;
	nfhp_rule_body_free(&rs->mem, &r->body);
	nfhp_rcounter_put(&rs->cpool, r->cnt);
	nfhp_free(&rs->mem, r, sizeof(*r));
}

/**
 * nfhp_chain_hooks() - the hooks a new rule's extensions are checked for
 * @rs: the rule set, a transaction open
 * @c: the staged chain the rule goes to
 * @spec: the rule
 *
 * The hooks a rule of @c with the extensions of @spec is checked for, as
 * bits: those the staged rule set reaches @c from, none for a chain no
 * hook reaches yet (as iptables checks an unreferenced chain), all when
 * there are no extensions to check.  A jump added later is checked
 * against the rule's nfhp_ext_ops.hooks at commit (nfhp_check_hooks()).
 *
 * Return: the hooks, as bits.
 */
unsigned int nfhp_chain_hooks(struct nfhp_ruleset *rs,
			      const struct nfhp_chain *c,
			      const struct nfhp_rule_spec *spec)
{
	unsigned int hooks = 0;
	int h;

	if (c->hook >= 0)
		return 1u << c->hook;
	if (!spec->ext_len || !rs->work)
		return NFHP_ALL_HOOKS;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		rs->mark++;
		nfhp_reach(rs, rs->work, rs->work->chains[h], 0);
		if (c->mark == rs->mark)
			hooks |= 1u << h;
	}
	return hooks;
}

/*
 * A keep-state rule gives its states its verdict, ACCEPT or DROP; a
 * check-state rule is a check point and nothing else.  Both need an
 * evaluator that looks states up.
 */
static int nfhp_rule_state_check(const struct nfhp_ruleset *rs,
				 const struct nfhp_rule_spec *spec,
				 const char **msg)
{
	const struct nfhp_state_spec *st = &spec->state;

	switch (st->mode) {
	case NFHP_RSTATE_NONE:
		return 0;
	case NFHP_RSTATE_KEEP:
		if (spec->action != NFHP_ACT_ACCEPT &&
		    spec->action != NFHP_ACT_DROP) {
			*msg = "keep-state needs -j ACCEPT or -j DROP";
			return -EINVAL;
		}
		if (!st->limit != !st->limit_by ||
		    st->limit_by & ~NFHP_STATE_LIMIT_ALL) {
			*msg = "a state limit needs a count and its fields";
			return -EINVAL;
		}
		break;
	case NFHP_RSTATE_CHECK:
		if (spec->action != NFHP_ACT_NONE || spec->nmatch ||
		    spec->nsetm || spec->ext_len || st->limit) {
			*msg = "CHECK-STATE takes no match: it checks every packet that reaches it";
			return -EINVAL;
		}
		break;
	default:
		*msg = "unknown state mode";
		return -EINVAL;
	}
	if (!rs->ext_ops || !rs->ext_ops->check_state) {
		*msg = "this program cannot evaluate dynamic states";
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Check @spec's extensions and make their handle for @r. */
static int nfhp_rule_ext(struct nfhp_ruleset *rs, struct nfhp_rule *r,
			 const struct nfhp_rule_spec *spec, unsigned int hooks,
			 const char **msg)
{
	bool matches = false;
	int err;

	if (!spec->ext_len && !spec->nsetm &&
	    spec->state.mode != NFHP_RSTATE_KEEP) {
		if (spec->action != NFHP_ACT_XT)
			return 0;
		*msg = "an xtables target needs its extension data";
		return -EINVAL;
	}
	if (!rs->ext_ops) {
		*msg = spec->ext_len ?
		       "this program cannot evaluate xtables extensions" :
		       "this program cannot evaluate set matches";
		return -EOPNOTSUPP;
	}
	err = rs->ext_ops->create(rs->ext_priv, spec, hooks, &r->ext,
				  &matches, msg);
	if (err)
		return err;
	r->ext_match = matches;
	if (rs->ext_ops->hooks)
		r->ext_hooks = rs->ext_ops->hooks(r->ext) & NFHP_ALL_HOOKS;
	if (rs->ext_ops->bind)
		rs->ext_ops->bind(r->ext, r->cnt->pc);
	return 0;
}

/**
 * nfhp_rule_new() - make a rule
 * @rs: the rule set
 * @spec: what the user wrote
 * @hooks: the hooks its extensions are checked for (nfhp_chain_hooks())
 * @counters: its initial counters, or NULL
 * @out: set to the rule
 * @msg: set to the reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_new(struct nfhp_ruleset *rs,
		  const struct nfhp_rule_spec *spec, unsigned int hooks,
		  const struct nfhp_counter *counters,
		  struct nfhp_rule **out, const char **msg)
{
	struct nfhp_rule *r;
	int err = -ENOMEM;
	unsigned int i;

	if (spec->action >= NFHP_ACT_MAX) {
		*msg = "unknown rule action";
		return -EINVAL;
	}
	if (spec->ext_len > sizeof(spec->ext)) {
		*msg = "xtables extensions too long";
		return -EINVAL;
	}
	err = nfhp_rule_state_check(rs, spec, msg);
	if (err)
		return err;
	err = -ENOMEM;
	r = nfhp_alloc(&rs->mem, sizeof(*r));
	if (!r)
		goto out_nomem;
	r->action = spec->action;
	r->state = spec->state.mode;
	r->gen = rs->gen;
	r->ext_hooks = NFHP_ALL_HOOKS;
	strscpy(r->target, spec->target, sizeof(r->target));
	r->target_hash = nfhp_name_hash(r->target);
	for (i = 0; i < spec->nmatch && i < NFHP_DIM_MAX; i++)
		if (spec->m[i].dim < NFHP_DIM_MAX)
			r->written |= 1u << spec->m[i].dim;
	err = nfhp_rule_body_new(&rs->mem, rs->family, spec, &r->body, msg);
	if (err)
		goto out_free_rule;
	err = -ENOMEM;
	r->cnt = nfhp_rcounter_new(&rs->cpool, counters);
	if (!r->cnt)
		goto out_free_body;
	err = nfhp_rule_ext(rs, r, spec, hooks, msg);
	if (err)
		goto out_put_counter;
	err = nfhp_list_add(&rs->mem, &rs->created, r);
	if (err)
		goto out_destroy_ext;
	rs->nbound += r->ext_hooks != NFHP_ALL_HOOKS;
	rs->nstate += r->state != NFHP_RSTATE_NONE;
	*out = r;
	return 0;
out_destroy_ext:
	if (r->ext)
		rs->ext_ops->destroy(rs->ext_priv, r->ext);
out_put_counter:
	nfhp_rcounter_put(&rs->cpool, r->cnt);
out_free_body:
	nfhp_rule_body_free(&rs->mem, &r->body);
out_free_rule:
	nfhp_free(&rs->mem, r, sizeof(*r));
out_nomem:
	if (err == -ENOMEM)
		*msg = "out of memory (see /proc/net/nf-hipac/info for the bound)";
	return err;
}

/* Chains and models. */

/**
 * nfhp_chain_free() - free a chain, not its rules
 * @rs: the rule set
 * @c: the chain
 */
void nfhp_chain_free(struct nfhp_ruleset *rs, struct nfhp_chain *c)
{
	nfhp_pageseq_free(&rs->mem, &c->rules);
	nfhp_free(&rs->mem, c, sizeof(*c));
}

/**
 * nfhp_chain_alloc() - make an empty chain
 * @rs: the rule set
 * @name: its name
 * @hook: the hook of a built-in chain, -1 for a user chain
 *
 * An empty chain.
 *
 * Return: the chain, or NULL.
 */
struct nfhp_chain *nfhp_chain_alloc(struct nfhp_ruleset *rs,
				    const char *name, int hook)
{
	struct nfhp_chain *c = nfhp_alloc(&rs->mem, sizeof(*c));

	if (!c)
		return NULL;
	strscpy(c->name, name, sizeof(c->name));
	c->hash = nfhp_name_hash(c->name);
	c->hook = hook;
	c->policy = NFHP_ACT_ACCEPT;
	c->rs = rs;
	c->gen = rs->gen;
	return c;
}

/**
 * nfhp_model_free() - free a model, not its chains
 * @rs: the rule set
 * @m: the model, or NULL
 */
void nfhp_model_free(struct nfhp_ruleset *rs, struct nfhp_model *m)
{
	if (!m)
		return;
	nfhp_free(&rs->mem, m->slot, m->nslot * sizeof(*m->slot));
	nfhp_free(&rs->mem, m->chains, m->cap * sizeof(*m->chains));
	nfhp_free(&rs->mem, m, sizeof(*m));
}

/**
 * nfhp_model_copy() - a model that shares the chains of another
 * @rs: the rule set
 * @from: the model copied, or NULL for an empty one
 *
 * Return: the copy, or NULL.
 */
struct nfhp_model *nfhp_model_copy(struct nfhp_ruleset *rs,
				   const struct nfhp_model *from)
{
	struct nfhp_model *m = nfhp_alloc(&rs->mem, sizeof(*m));

	if (!m)
		return NULL;
	if (nfhp_grow(&rs->mem, (void **)&m->chains, &m->cap,
		      from ? from->n : NFHP_HOOK_MAX, sizeof(*m->chains))) {
		nfhp_free(&rs->mem, m, sizeof(*m));
		return NULL;
	}
	if (from) {
		memcpy(m->chains, from->chains, from->n * sizeof(*m->chains));
		m->n = from->n;
	}
	/* Without memory for the table the commit hashes anew. */
	if (from && from->hashed) {
		m->slot = nfhp_alloc_uninit(&rs->mem,
					    from->nslot * sizeof(*m->slot));
		if (m->slot) {
			memcpy(m->slot, from->slot,
			       from->nslot * sizeof(*m->slot));
			m->nslot = from->nslot;
			m->hashed = true;
			m->unique = from->unique;
		}
	}
	return m;
}

/**
 * nfhp_model_hash() - hash the names of a model's chains
 * @rs: the rule set
 * @m: the model
 *
 * Hash the names of @m's chains into @m->slot, unless it is hashed or
 * small.  Without memory it stays searched: slower, not wrong.
 */
void nfhp_model_hash(struct nfhp_ruleset *rs, struct nfhp_model *m)
{
	unsigned int i, k, want = 64;
	u32 hash;

	if (m->hashed || m->n < nfhp_tunables.hash_min_chains)
		return;
	while (want < 2 * m->n)
		want *= 2;
	if (want != m->nslot) {
		nfhp_free(&rs->mem, m->slot, m->nslot * sizeof(*m->slot));
		m->nslot = 0;
		m->slot = nfhp_alloc_uninit(&rs->mem, want * sizeof(*m->slot));
		if (!m->slot)
			return;
		m->nslot = want;
	}
	memset(m->slot, 0, want * sizeof(*m->slot));
	m->unique = true;
	for (i = 0; i < m->n; i++) {
		hash = m->chains[i]->hash;
		for (k = hash & (want - 1); m->slot[k].idx;
		     k = (k + 1) & (want - 1))
			if (m->slot[k].hash == hash)
				m->unique = false;
		m->slot[k].hash = hash;
		m->slot[k].idx = i + 1;
		m->slot[k].gen = m->chains[i]->gen;
		m->slot[k].njump = m->chains[i]->njump;
	}
	m->hashed = true;
}

/**
 * nfhp_chain_place() - where a user chain's name goes among a model's
 * @m: the model
 * @name: the name
 *
 * The first user chain of @m whose name is not below @name: they are
 * sorted, and a flatten looks up every jump's target, so that thousands
 * of chains (a Kubernetes node's) cost a search each, not a pass.
 *
 * Return: the index of the first user chain not below @name.
 */
unsigned int nfhp_chain_place(const struct nfhp_model *m,
			      const char *name)
{
	unsigned int lo = NFHP_HOOK_MAX, hi = m->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(m->chains[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index in @m of the chain @name, whose nfhp_name_hash() is @hash. */
static int nfhp_chain_lookup(const struct nfhp_model *m, const char *name,
			     u32 hash)
{
	const struct nfhp_chain_slot *slot;
	unsigned int i;

	if (m->hashed) {
		for (i = hash & (m->nslot - 1); m->slot[i].idx;
		     i = (i + 1) & (m->nslot - 1)) {
			slot = &m->slot[i];
			if (slot->hash == hash &&
			    !strcmp(m->chains[slot->idx - 1]->name, name))
				return slot->idx - 1;
		}
		return -1;
	}
	for (i = 0; i < NFHP_HOOK_MAX && i < m->n; i++)
		if (!strcmp(m->chains[i]->name, name))
			return i;
	i = nfhp_chain_place(m, name);
	return i < m->n && !strcmp(m->chains[i]->name, name) ? i : -1;
}

/**
 * nfhp_chain_index() - find a chain of a model by name
 * @m: the model
 * @name: the name
 *
 * Return: its index, or -1.
 */
int nfhp_chain_index(const struct nfhp_model *m, const char *name)
{
	/* A searched model needs no hash. */
	return nfhp_chain_lookup(m, name, m->hashed ? nfhp_name_hash(name) : 0);
}

/**
 * nfhp_target_slot() - the hash slot of a jump's target, if its hash tells
 * @m: the model
 * @r: a jump or goto of @m
 *
 * The slot of the chain that the jump or goto @r of @m goes to, when its
 * hash alone tells (see struct nfhp_model), else NULL.
 *
 * Return: the slot, or NULL.
 */
const struct nfhp_chain_slot *
nfhp_target_slot(const struct nfhp_model *m, const struct nfhp_rule *r)
{
	unsigned int i;

	if (!m->hashed || !m->unique)
		return NULL;
	for (i = r->target_hash & (m->nslot - 1); m->slot[i].idx;
	     i = (i + 1) & (m->nslot - 1))
		if (m->slot[i].hash == r->target_hash)
			return &m->slot[i];
	return NULL;
}

/**
 * nfhp_chain_target_at() - the chain a jump goes to, given its slot
 * @m: the model
 * @r: a jump or goto of @m
 * @slot: nfhp_target_slot() of @r, or NULL
 *
 * The index in @m of the chain that the jump or goto @r of @m goes to, or
 * -1, given its nfhp_target_slot() @slot.  Tests (nfhp_tunables.update_verify)
 * find it by its name all the same, and the slot must agree.
 *
 * Return: the chain's index in @m, or -1.
 */
int nfhp_chain_target_at(const struct nfhp_model *m,
			 const struct nfhp_rule *r,
			 const struct nfhp_chain_slot *slot)
{
	int t;

	if (slot && !nfhp_tunables.update_verify)
		return slot->idx - 1;
	t = nfhp_chain_lookup(m, r->target, r->target_hash);
	WARN_ON_ONCE(slot && slot->idx - 1 != t);
	return t;
}

/**
 * nfhp_chain_target() - the chain a jump goes to
 * @m: the model
 * @r: a jump or goto of @m
 *
 * The index in @m of the chain that the jump or goto @r of @m goes to.
 *
 * Return: the chain's index in @m, or -1.
 */
int nfhp_chain_target(const struct nfhp_model *m,
		      const struct nfhp_rule *r)
{
	return nfhp_chain_target_at(m, r, nfhp_target_slot(m, r));
}

/**
 * nfhp_chain_note() - keep a changed chain's hash slot up to date
 * @m: the model
 * @c: its chain that changed
 *
 * The chain @c of @m changed: its slot follows.
 */
void nfhp_chain_note(struct nfhp_model *m, const struct nfhp_chain *c)
{
	struct nfhp_chain_slot *slot;
	unsigned int i;

	if (!m->hashed)
		return;
	for (i = c->hash & (m->nslot - 1); m->slot[i].idx;
	     i = (i + 1) & (m->nslot - 1)) {
		slot = &m->slot[i];
		if (m->chains[slot->idx - 1] != c)
			continue;
		slot->gen = c->gen;
		slot->njump = c->njump;
		return;
	}
}

/* The index of chain @name in the staged model, or -ENOENT and @msg. */
static int nfhp_chain_work_index(struct nfhp_ruleset *rs, const char *name,
				 const char **msg)
{
	int i = nfhp_chain_index(rs->work, name);

	if (i < 0) {
		*msg = "no chain by that name";
		return -ENOENT;
	}
	return i;
}

/**
 * nfhp_chain_work() - a chain of the staged model by name
 * @rs: the rule set, a transaction open
 * @name: the name
 * @msg: set to the reason on error
 *
 * The chain of the staged model by @name, staged or still shared.
 *
 * Return: the chain, or an ERR_PTR().
 */
struct nfhp_chain *nfhp_chain_work(struct nfhp_ruleset *rs,
				   const char *name, const char **msg)
{
	int i = nfhp_chain_work_index(rs, name, msg);

	return i < 0 ? ERR_PTR(i) : rs->work->chains[i];
}

/**
 * nfhp_chain_mut() - the staged copy of a chain, to change it
 * @rs: the rule set, a transaction open
 * @name: the chain's name
 * @msg: set to the reason on error
 *
 * The staged copy of a chain, made from the committed one if needed: it
 * shares the committed chain's pages of rules until it changes them.
 *
 * Return: the copy, or an ERR_PTR().
 */
struct nfhp_chain *nfhp_chain_mut(struct nfhp_ruleset *rs,
				  const char *name, const char **msg)
{
	int i = nfhp_chain_work_index(rs, name, msg);
	struct nfhp_chain *c, *copy;

	if (i < 0)
		return ERR_PTR(i);
	c = rs->work->chains[i];
	if (c->gen == rs->gen)
		return c;
	copy = nfhp_chain_alloc(rs, c->name, c->hook);
	if (!copy || nfhp_pageseq_share(&rs->mem, &copy->rules, &c->rules)) {
		nfhp_free(&rs->mem, copy, sizeof(*copy));
		*msg = "out of memory";
		return ERR_PTR(-ENOMEM);
	}
	copy->policy = c->policy;
	copy->nbranch = c->nbranch;
	copy->njump = c->njump;
	copy->same_head = c->rules.n;
	copy->same_tail = c->rules.n;
	copy->from = c;
	rs->work->chains[i] = copy;
	nfhp_chain_note(rs->work, copy);
	return copy;
}

/**
 * nfhp_chains_succeed() - the staged chains take over the committed ones' pages
 * @rs: the rule set, committing
 *
 * At the commit, the staged copies take over the pages of rules of the
 * committed chains they replace, which then keep only the pages the
 * transaction replaced, to free them a grace period later.
 */
void nfhp_chains_succeed(struct nfhp_ruleset *rs)
{
	struct nfhp_chain *c;
	unsigned int i;

	for (i = 0; i < rs->work->n; i++) {
		c = rs->work->chains[i];
		if (c->gen != rs->gen || !c->from)
			continue;
		nfhp_pageseq_succeed(&c->rules, &c->from->rules);
		c->from = NULL;
	}
}

/**
 * nfhp_chain_touched() - record which rules of a staged chain changed
 * @c: the staged chain
 * @head: the first rule changed
 * @tail: rules at its end left unchanged
 *
 * The transaction changed staged chain @c from rule @head on, and all
 * but its last @tail rules (struct nfhp_chain, @same_head).
 */
void nfhp_chain_touched(struct nfhp_chain *c, unsigned int head,
			unsigned int tail)
{
	c->same_head = min(c->same_head, head);
	c->same_tail = min(c->same_tail, tail);
	nfhp_chain_note(c->rs->work, c);
}

/**
 * nfhp_rule_retire() - take a rule out of its chain for good
 * @rs: the rule set, a transaction open
 * @r: the rule
 *
 * Rules that leave a chain go to the removed list, or die if new.  It
 * cannot fail: the caller made the room first (nfhp_list_reserve()), or
 * the rule is one of this transaction's.
 */
void nfhp_rule_retire(struct nfhp_ruleset *rs, struct nfhp_rule *r)
{
	unsigned int i;

	for (i = 0; i < rs->created.n; i++) {
		if (rs->created.r[i] != r)
			continue;
		rs->created.r[i] = rs->created.r[--rs->created.n];
		nfhp_rule_free(rs, r);
		return;
	}
	WARN_ON_ONCE(nfhp_list_add(&rs->mem, &rs->removed, r));
}

/**
 * nfhp_reach() - mark the chains reachable from a chain
 * @rs: the rule set
 * @m: the model
 * @c: the chain
 * @depth: jumps taken to reach @c
 *
 * Walk the chains reachable from @c, marking them with rs->mark.
 *
 * Return: 0, or -ELOOP past %NFHP_MAX_JUMP_DEPTH jumps.
 */
int nfhp_reach(struct nfhp_ruleset *rs, const struct nfhp_model *m,
	       struct nfhp_chain *c, unsigned int depth)
{
	unsigned int i;
	int err;

	if (c->mark == rs->mark)
		return 0;
	if (depth > NFHP_MAX_JUMP_DEPTH)
		return -ELOOP;
	c->mark = rs->mark;
	for (i = 0; i < c->rules.n && c->njump; i++) {
		const struct nfhp_rule *r = nfhp_chain_at(c, i);
		int t;

		if (!nfhp_rule_jumps(r))
			continue;
		t = nfhp_chain_target(m, r);
		if (t < 0)
			continue;
		err = nfhp_reach(rs, m, m->chains[t], depth + 1);
		if (err)
			return err;
	}
	return 0;
}

/**
 * nfhp_check_jump() - check the target of a new jump or goto
 * @rs: the rule set, a transaction open
 * @spec: the rule
 * @msg: set to the reason on error
 *
 * A jump or goto must go to a user chain.  Whether it closes a loop is
 * for the commit to say (nfhp_check_loops()): iptables takes a loop that
 * no hook reaches.
 *
 * Return: 0 or -errno.
 */
int nfhp_check_jump(struct nfhp_ruleset *rs,
		    const struct nfhp_rule_spec *spec, const char **msg)
{
	int t;

	if (spec->action != NFHP_ACT_JUMP && spec->action != NFHP_ACT_GOTO)
		return 0;
	t = nfhp_chain_index(rs->work, spec->target);
	if (t < 0 || rs->work->chains[t]->hook >= 0) {
		*msg = "jump target is not a user chain";
		return -ENOENT;
	}
	rs->jumps_added = true;
	return 0;
}

/*
 * Walk the jumps from @c, at @depth, for nfhp_check_loops(): the chains
 * on the walk's path are marked @path, those done @path + 1.  Return
 * -ELOOP for a loop, -E2BIG for a path of more than NFHP_MAX_JUMP_DEPTH
 * jumps.
 */
static int nfhp_loop_walk(const struct nfhp_model *m, struct nfhp_chain *c,
			  u32 path, unsigned int depth)
{
	struct nfhp_chain *to;
	unsigned int i;
	int t, err;

	if (depth > NFHP_MAX_JUMP_DEPTH)
		return -E2BIG;
	c->mark = path;
	for (i = 0; i < c->rules.n && c->njump; i++) {
		const struct nfhp_rule *r = nfhp_chain_at(c, i);

		if (!nfhp_rule_jumps(r))
			continue;
		t = nfhp_chain_target(m, r);
		if (t < 0)
			continue;
		to = m->chains[t];
		if (to->mark == path)
			return -ELOOP;
		if (to->mark == path + 1)
			continue;
		err = nfhp_loop_walk(m, to, path, depth + 1);
		if (err)
			return err;
	}
	c->mark = path + 1;
	return 0;
}

/**
 * nfhp_check_loops() - refuse a loop of jumps a hook reaches
 * @rs: the rule set, committing
 * @msg: set to the reason on error
 *
 * A loop of jumps and gotos that a hook reaches is refused when the
 * table is replaced, as ip_tables' mark_source_chains() refuses it; one
 * among chains no hook reaches is not (iptables-legacy takes "-A web
 * -j web" until a hook jumps to web).
 *
 * Return: 0, or -ELOOP.
 */
int nfhp_check_loops(struct nfhp_ruleset *rs, const char **msg)
{
	const struct nfhp_model *m = rs->work;
	u32 path = rs->mark + 1;
	int h, err = 0;

	rs->mark += 2;
	for (h = 0; h < NFHP_HOOK_MAX && !err; h++)
		err = nfhp_loop_walk(m, m->chains[h], path, 0);
	if (err == -E2BIG)
		*msg = "too many levels of chain jumps";
	else if (err)
		*msg = "loop detected in the chain jumps";
	return err ? -ELOOP : 0;
}

/*
 * Where rules stand.  Every rule of a chain changed by a commit may move, so
 * a position kept in each rule would cost a commit a write to every rule
 * behind the change (100,000 at worst).  Instead the positions are looked
 * up in a table built from the committed chains when first asked (the
 * simulator's verdicts, the shadowed rules in /proc), which the next commit
 * drops.
 */

/**
 * nfhp_where_drop() - forget where the committed rules stand
 * @rs: the rule set
 */
void nfhp_where_drop(struct nfhp_ruleset *rs)
{
	if (!rs->where)
		return;
	nfhp_free(&rs->mem, rs->where, (rs->where_mask + 1) *
					sizeof(*rs->where));
	rs->where = NULL;
}

static struct nfhp_where *nfhp_where_slot(const struct nfhp_ruleset *rs,
					  const struct nfhp_rule *r)
{
	u32 i = nfhp_rule_hash(r) & rs->where_mask;

	while (rs->where[i].rule && rs->where[i].rule != r)
		i = (i + 1) & rs->where_mask;
	return &rs->where[i];
}

static int nfhp_where_build(struct nfhp_ruleset *rs)
{
	const struct nfhp_model *m = rs->live;
	unsigned int i, j, n = 0, size = 16;
	struct nfhp_where *w;

	for (i = 0; m && i < m->n; i++)
		n += m->chains[i]->rules.n;
	while (size < 2 * n)
		size *= 2;
	rs->where = nfhp_alloc(&rs->mem, size * sizeof(*rs->where));
	if (!rs->where)
		return -ENOMEM;
	rs->where_mask = size - 1;
	for (i = 0; m && i < m->n; i++) {
		for (j = 0; j < m->chains[i]->rules.n; j++) {
			w = nfhp_where_slot(rs, nfhp_chain_at(m->chains[i], j));
			w->rule = nfhp_chain_at(m->chains[i], j);
			w->chain = m->chains[i];
			w->pos = j + 1;
		}
	}
	return 0;
}

/*
 * The chain and position of committed rule @r; false when it has none.
 * Without memory for the table, the chains are searched.
 */
static bool nfhp_rule_locate(struct nfhp_ruleset *rs,
			     const struct nfhp_rule *r,
			     const struct nfhp_chain **c, unsigned int *pos)
{
	const struct nfhp_model *m = rs->live;
	const struct nfhp_where *w;
	unsigned int i, j;

	if (rs->where || !nfhp_where_build(rs)) {
		w = nfhp_where_slot(rs, r);
		*c = w->chain;
		*pos = w->pos;
		return w->rule;
	}
	for (i = 0; m && i < m->n; i++) {
		for (j = 0; j < m->chains[i]->rules.n; j++) {
			if (nfhp_chain_at(m->chains[i], j) == r) {
				*c = m->chains[i];
				*pos = j + 1;
				return true;
			}
		}
	}
	return false;
}

/* Reading. */

/**
 * nfhp_chain_first() - the first chain, INPUT
 * @rs: the rule set
 *
 * Return: the chain.
 */
const struct nfhp_chain *nfhp_chain_first(const struct nfhp_ruleset *rs)
{
	return nfhp_view(rs)->chains[0];
}

/**
 * nfhp_chain_next() - the chain after @c
 * @rs: the rule set
 * @c: a chain of it
 *
 * Return: the next chain, or NULL after the last.
 */
const struct nfhp_chain *nfhp_chain_next(const struct nfhp_ruleset *rs,
					 const struct nfhp_chain *c)
{
	const struct nfhp_model *m = nfhp_view(rs);
	int i = nfhp_chain_lookup(m, c->name, c->hash);

	/* Found by name, not by a walk: a listing of 5000 chains calls it. */
	return i >= 0 && i + 1 < (int)m->n ? m->chains[i + 1] : NULL;
}

/**
 * nfhp_chain_find() - a chain by name
 * @rs: the rule set
 * @name: the name
 *
 * Return: the chain or NULL.
 */
const struct nfhp_chain *nfhp_chain_find(const struct nfhp_ruleset *rs,
					 const char *name)
{
	const struct nfhp_model *m = nfhp_view(rs);
	int i = nfhp_chain_index(m, name);

	return i < 0 ? NULL : m->chains[i];
}

/**
 * nfhp_chain_name() - the name of a chain
 * @c: the chain, or NULL (the chain of a rule that has none)
 *
 * Return: the name, "?" for NULL.
 */
const char *nfhp_chain_name(const struct nfhp_chain *c)
{
	return c ? c->name : "?";
}

/**
 * nfhp_chain_builtin() - is this INPUT, FORWARD or OUTPUT?
 * @c: the chain
 *
 * Return: true for a built-in chain.
 */
bool nfhp_chain_builtin(const struct nfhp_chain *c)
{
	return c->hook >= 0;
}

/**
 * nfhp_chain_get_policy() - the policy of a built-in chain
 * @c: the chain
 *
 * Return: %NFHP_ACT_ACCEPT or %NFHP_ACT_DROP.
 */
u8 nfhp_chain_get_policy(const struct nfhp_chain *c)
{
	return c->policy;
}

/**
 * nfhp_chain_refs() - how many rules jump or go to a chain
 * @c: the chain
 *
 * Linear in the number of rules.
 *
 * Return: the number of references.
 */
unsigned int nfhp_chain_refs(const struct nfhp_chain *c)
{
	return nfhp_model_refs(nfhp_view(c->rs), c->name);
}

/**
 * nfhp_chain_count() - how many chains a rule set has
 * @rs: the rule set
 *
 * Return: the number of chains, built-in ones included.
 */
unsigned int nfhp_chain_count(const struct nfhp_ruleset *rs)
{
	return nfhp_view(rs)->n;
}

/**
 * nfhp_chain_refs_all() - how many rules jump or go to each chain
 * @rs: the rule set
 * @refs: set to nfhp_chain_refs() of every chain, in the order of
 *	nfhp_chain_first() and nfhp_chain_next(): nfhp_chain_count() of them
 *
 * One pass over the jumps, where nfhp_chain_refs() of every chain of a
 * listing took one pass over all rules per chain.
 */
void nfhp_chain_refs_all(const struct nfhp_ruleset *rs, unsigned int *refs)
{
	const struct nfhp_model *m = nfhp_view(rs);
	unsigned int i, j;
	int t;

	memset(refs, 0, m->n * sizeof(*refs));
	for (i = 0; i < m->n; i++) {
		const struct nfhp_chain *c = m->chains[i];

		for (j = 0; j < c->rules.n && c->njump; j++) {
			const struct nfhp_rule *r = nfhp_chain_at(c, j);

			if (!nfhp_rule_jumps(r))
				continue;
			t = nfhp_chain_lookup(m, r->target, r->target_hash);
			if (t >= 0)
				refs[t]++;
		}
	}
}

/**
 * nfhp_chain_rules() - how many rules a chain has
 * @c: the chain
 *
 * Return: the number of rules.
 */
unsigned int nfhp_chain_rules(const struct nfhp_chain *c)
{
	return c->rules.n;
}

/**
 * nfhp_chain_policy_counter() - the counters of a built-in chain's policy
 * @c: the chain
 * @sum: set to the counters summed over all CPUs (0 for user chains)
 */
void nfhp_chain_policy_counter(const struct nfhp_chain *c,
			       struct nfhp_counter *sum)
{
	memset(sum, 0, sizeof(*sum));
	if (c->hook >= 0)
		nfhp_counter_sum(&c->rs->hooks[c->hook].policy_cnt, sum);
}

/**
 * nfhp_rule_first() - the first rule of a chain
 * @c: the chain
 *
 * Return: the rule, or NULL for an empty chain.
 */
const struct nfhp_rule *nfhp_rule_first(const struct nfhp_chain *c)
{
	return c->rules.n ? nfhp_chain_at(c, 0) : NULL;
}

/**
 * nfhp_rule_at() - the rule at a position
 * @c: the chain
 * @pos: 1-based position
 *
 * Return: the rule, or NULL past the end.
 */
const struct nfhp_rule *nfhp_rule_at(const struct nfhp_chain *c,
				     unsigned int pos)
{
	return pos >= 1 && pos <= c->rules.n ? nfhp_chain_at(c, pos - 1) : NULL;
}

/**
 * nfhp_rule_get_spec() - what the user wrote for a rule
 * @r: the rule
 * @spec: filled with the specification
 *
 * Return: 0.
 */
int nfhp_rule_get_spec(const struct nfhp_rule *r, struct nfhp_rule_spec *spec)
{
	nfhp_spec_unpack(r->body.spec, spec);
	return 0;
}

/**
 * nfhp_rule_is() - is a rule the one a delete by rule looks for?
 * @r: the rule
 * @spec: the specification looked for, packed (nfhp_spec_pack())
 *
 * Return: true when nfhp_rule_delete_spec() would take @r for @spec.
 */
bool nfhp_rule_is(const struct nfhp_rule *r,
		  const struct nfhp_packed_spec *spec)
{
	return nfhp_packed_spec_equal(r->body.spec, spec);
}

/**
 * nfhp_rule_counter() - the counters of a rule
 * @r: the rule
 * @sum: set to the counters summed over all CPUs
 */
void nfhp_rule_counter(const struct nfhp_rule *r, struct nfhp_counter *sum)
{
	nfhp_counter_sum(r->cnt, sum);
}

/**
 * nfhp_rule_chain() - the chain of a committed rule
 * @rs: the rule set
 * @r: the rule
 *
 * Call with the rule set's lock held (it may build &nfhp_ruleset.where).
 *
 * Return: the chain it had at the last commit, NULL if none.
 */
const struct nfhp_chain *nfhp_rule_chain(struct nfhp_ruleset *rs,
					 const struct nfhp_rule *r)
{
	const struct nfhp_chain *c = NULL;
	unsigned int pos;

	nfhp_rule_locate(rs, r, &c, &pos);
	return c;
}

/**
 * nfhp_rule_position() - the 1-based position of a committed rule
 * @rs: the rule set
 * @r: the rule
 *
 * Call with the rule set's lock held, as nfhp_rule_chain().
 *
 * Return: the number --line-numbers shows for it, 0 if none.
 */
unsigned int nfhp_rule_position(struct nfhp_ruleset *rs,
				const struct nfhp_rule *r)
{
	const struct nfhp_chain *c;
	unsigned int pos = 0;

	nfhp_rule_locate(rs, r, &c, &pos);
	return pos;
}
