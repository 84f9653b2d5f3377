// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-sim: dynamic states, keep-state and CHECK-STATE rules, see
 * states.h.
 */
#include "states.h"

#include <stdlib.h>
#include <string.h>

/**
 * struct sim_state_ext - the handle of a rule with states or extensions
 * @st: the states it makes and counts on
 * @inner: the inner evaluator's handle, or NULL
 * @inner_matches: @inner has matches to run
 * @keep: a keep-state rule
 * @rule: what its states get: this handle as their rule, the rule's
 *	verdict and limit, as the module's nfhp_keep_state_init()
 * @cnt: the rule's counters (&struct nfhp_ext_ops.bind)
 */
struct sim_state_ext {
	struct nfhp_sim_states *st;
	void *inner;
	bool inner_matches;
	bool keep;
	struct nfhp_state_rule rule;
	struct nfhp_counter __percpu *cnt;
};

/* The packet's flow as the states key it, into @sp. */
static void sim_state_pkt(const struct nfhp_sim_states *st, const void *pkt,
			  struct nfhp_state_pkt *sp)
{
	struct nfhp_state_tuple t = *st->flow(pkt, &sp->tcp_flags, &sp->ack,
					      &sp->len);

	t.family = st->family;
	nfhp_state_pkt_init(sp, &t);
}

/* The core's refusal of extensions without an evaluator (chain.c). */
static int sim_state_no_inner(const struct nfhp_rule_spec *spec,
			      const char **msg)
{
	*msg = spec->ext_len ?
	       "this program cannot evaluate xtables extensions" :
	       "this program cannot evaluate set matches";
	return -EOPNOTSUPP;
}

static void sim_state_destroy(void *priv, void *ext)
{
	struct sim_state_ext *x = ext;

	if (x->inner)
		x->st->inner->destroy(x->st->inner_priv, x->inner);
	/* A rule that never left a commit was never retired. */
	if (x->keep)
		nfhp_state_flush(&x->st->table, x);
	free(x);
}

static int sim_state_create(void *priv, const struct nfhp_rule_spec *spec,
			    unsigned int hooks, void **ext, bool *matches,
			    const char **msg)
{
	struct nfhp_sim_states *st = priv;
	struct sim_state_ext *x;
	int ret;

	if ((spec->ext_len || spec->nsetm || spec->action == NFHP_ACT_XT) &&
	    !st->inner)
		return sim_state_no_inner(spec, msg);
	x = calloc(1, sizeof(*x));
	if (!x) {
		*msg = "out of memory";
		return -ENOMEM;
	}
	x->st = st;
	if (spec->ext_len || spec->nsetm || spec->action == NFHP_ACT_XT) {
		ret = st->inner->create(st->inner_priv, spec, hooks, &x->inner,
					&x->inner_matches, msg);
		if (ret) {
			free(x);
			return ret;
		}
	}
	x->keep = spec->state.mode == NFHP_RSTATE_KEEP;
	x->rule.rule = x;
	x->rule.verdict = spec->action;
	x->rule.limit = spec->state.limit;
	x->rule.limit_mask = spec->state.limit_by;
	*matches = x->inner_matches || x->keep;
	*ext = x;
	return 0;
}

/*
 * keep-state, the last match: the state is made once the rest matched;
 * refused (the table full, over the limit) the rule does not match.
 * A state the flow has (dead ones are not found) is renewed instead, and
 * a retired rule makes none but matches, as in the module.
 */
static enum nfhp_ext_result sim_state_keep(const struct sim_state_ext *x,
					   const void *pkt)
{
	struct nfhp_sim_states *st = x->st;
	struct nfhp_state_pkt sp;
	struct nfhp_state *s;
	int err;

	sim_state_pkt(st, pkt, &sp);
	err = nfhp_state_keep(&st->table, &sp, &x->rule, st->now, &s);
	if (!err || err == -EEXIST || err == -ENOENT)
		return NFHP_EXT_MATCH;
	return NFHP_EXT_NOMATCH;
}

static enum nfhp_ext_result sim_state_match(const void *ext, void *pkt)
{
	const struct sim_state_ext *x = ext;
	enum nfhp_ext_result res = NFHP_EXT_MATCH;

	if (x->inner_matches)
		res = x->st->inner->match(x->inner, pkt);
	if (res != NFHP_EXT_MATCH || !x->keep)
		return res;
	return sim_state_keep(x, pkt);
}

static u32 sim_state_target(const void *ext, void *pkt)
{
	const struct sim_state_ext *x = ext;

	return x->st->inner->target(x->inner, pkt);
}

static unsigned int sim_state_hooks(const void *ext)
{
	const struct sim_state_ext *x = ext;

	if (!x->inner || !x->st->inner->hooks)
		return ~0u;
	return x->st->inner->hooks(x->inner);
}

/* States are the rule's, not the handle's: only the inner part counts. */
static bool sim_state_stateless(const void *ext)
{
	const struct sim_state_ext *x = ext;

	if (!x->inner)
		return true;
	return x->st->inner->stateless && x->st->inner->stateless(x->inner);
}

static void sim_state_bind(void *ext, struct nfhp_counter __percpu *cnt)
{
	struct sim_state_ext *x = ext;

	x->cnt = cnt;
	if (x->inner && x->st->inner->bind)
		x->st->inner->bind(x->inner, cnt);
}

/*
 * The check point: a live state counts the packet on itself and on its
 * rule, and gives its verdict.
 */
static u8 sim_state_check(void *priv, void *pkt)
{
	struct nfhp_sim_states *st = priv;
	const struct sim_state_ext *x;
	struct nfhp_state_pkt sp;
	struct nfhp_state *s;

	if (!atomic_read(&st->table.count))
		return NFHP_ACT_NONE;
	sim_state_pkt(st, pkt, &sp);
	s = nfhp_state_check(&st->table, &sp, st->now);
	if (!s)
		return NFHP_ACT_NONE;
	x = s->rule;
	if (x->cnt) {
		this_cpu_add(x->cnt->packets, 1);
		this_cpu_add(x->cnt->bytes, sp.len);
	}
	st->decided = true;
	return s->verdict;
}

/* The rule left the rule set: it makes no more states, and its go. */
static void sim_state_retire(void *priv, void *ext)
{
	struct sim_state_ext *x = ext;

	if (x->inner && x->st->inner->retire)
		x->st->inner->retire(x->st->inner_priv, x->inner);
	if (!x->keep)
		return;
	WRITE_ONCE(x->rule.retired, true);
	nfhp_state_flush(&x->st->table, x);
}

/*
 * &struct nfhp_ext_ops.rekey has no handle to find the inner evaluator
 * by: each instance has its own copy of these ops, with the inner's.
 */
static const struct nfhp_ext_ops sim_state_ops = {
	.create = sim_state_create,
	.destroy = sim_state_destroy,
	.match = sim_state_match,
	.target = sim_state_target,
	.hooks = sim_state_hooks,
	.stateless = sim_state_stateless,
	.bind = sim_state_bind,
	.check_state = sim_state_check,
	.retire = sim_state_retire,
};

/**
 * nfhp_sim_states_init() - an empty table of states, no inner evaluator
 * @st: the states, zeroed but for @st->flow
 * @family: the rule set's &enum nfhp_family
 * @hz: ticks of the packets' clock a second
 * @tun: the lifetimes and bounds, or NULL for the module's defaults
 *
 * The rule set and the reference then take @st->ops with @st as priv.
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_sim_states_init(struct nfhp_sim_states *st, u8 family, u32 hz,
			 const struct nfhp_state_tunables *tun)
{
	struct nfhp_state_tunables def;

	if (!tun) {
		nfhp_state_tunables_default(&def);
		tun = &def;
	}
	st->mem.limit = ~0ull;
	st->family = family;
	st->ops = sim_state_ops;
	return nfhp_state_table_init(&st->table, &st->mem, tun, hz, NULL);
}

/**
 * nfhp_sim_states_set_inner() - the evaluator of the other extensions
 * @st: the states
 * @inner: the evaluator, or NULL to refuse extensions
 * @priv: what its create gets
 *
 * Before any rule is made: their handles use it.
 */
void nfhp_sim_states_set_inner(struct nfhp_sim_states *st,
			       const struct nfhp_ext_ops *inner, void *priv)
{
	st->inner = inner;
	st->inner_priv = priv;
	st->ops.rekey = inner ? inner->rekey : NULL;
}

/**
 * nfhp_sim_states_advance() - the clock moves on to a packet's time
 * @st: the states
 * @now: the time, in ticks; not before the last
 *
 * Ticks the table through all its buckets, so that every state dead at
 * @now is gone before the packet, however the packets were spaced.
 */
void nfhp_sim_states_advance(struct nfhp_sim_states *st, unsigned long now)
{
	st->now = now;
	if (atomic_read(&st->table.count) || nfhp_state_growing(&st->table))
		nfhp_state_tick(&st->table, now,
				nfhp_state_buckets(&st->table));
}

/**
 * nfhp_sim_states_destroy() - free the table, once no rule refers to it
 * @st: the states
 */
void nfhp_sim_states_destroy(struct nfhp_sim_states *st)
{
	nfhp_state_table_destroy(&st->table);
}
