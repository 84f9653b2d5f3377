/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the rule set of one network namespace.
 *
 * This is the API of the classifier core for its two users: the kernel glue
 * (netlink, hooks, /proc) and the userspace simulator and tests.  It knows
 * nothing of skbs or netlink.
 *
 * Locking: every function but nfhp_classify() must be called with the
 * caller's per-ruleset mutex held (the core takes no lock of its own).
 * nfhp_classify() takes no lock and must run inside rcu_read_lock().
 *
 * Transactions: every change is staged.  nfhp_txn_begin() opens a
 * transaction; changes made without one open and commit their own.
 * nfhp_txn_commit() publishes all staged changes of all three hooks with a
 * single pointer swap; nfhp_txn_abort() forgets them.  A change that fails
 * leaves the transaction as it was before that change.
 */
#ifndef _NFHP_RULESET_H
#define _NFHP_RULESET_H

#include "counter.h"
#include "spec.h"

struct nfhp_ruleset;
struct nfhp_chain;
struct nfhp_rule;
struct nfhp_packed_spec;

/**
 * enum nfhp_hook - the built-in chains
 * @NFHP_HOOK_INPUT: INPUT
 * @NFHP_HOOK_FORWARD: FORWARD
 * @NFHP_HOOK_OUTPUT: OUTPUT
 * @NFHP_HOOK_MAX: number of hooks
 */
enum nfhp_hook {
	NFHP_HOOK_INPUT,
	NFHP_HOOK_FORWARD,
	NFHP_HOOK_OUTPUT,
	NFHP_HOOK_MAX
};

/**
 * struct nfhp_verdict - the outcome of nfhp_classify()
 * @action: %NFHP_ACT_ACCEPT, %NFHP_ACT_DROP, %NFHP_ACT_QUEUE or %NFHP_ACT_XT
 * @rule: the deciding rule, or NULL when a policy decided or @hotdrop
 * @hook: the hook whose tree was searched
 * @hotdrop: a match dropped a short packet (key.h, ext.h); DROP
 * @xt_verdict: for %NFHP_ACT_XT, the netfilter verdict of the rule's
 *	target
 */
struct nfhp_verdict {
	u8 action;
	const struct nfhp_rule *rule;
	u8 hook;
	bool hotdrop;
	u32 xt_verdict;
};

/* Life cycle. */
struct nfhp_ruleset *nfhp_ruleset_new(u8 family, u64 mem_limit);
struct nfhp_ext_ops;
void nfhp_ruleset_set_ext(struct nfhp_ruleset *rs,
			  const struct nfhp_ext_ops *ops, void *priv);
struct mutex;
void nfhp_ruleset_set_lock(struct nfhp_ruleset *rs, struct mutex *lock);
void nfhp_ruleset_free(struct nfhp_ruleset *rs);
void nfhp_ruleset_defer_release(struct nfhp_ruleset *rs, bool defer);
bool nfhp_ruleset_release(struct nfhp_ruleset *rs, bool wait);
bool nfhp_ruleset_empty(const struct nfhp_ruleset *rs);

/* Transactions. */
int nfhp_txn_begin(struct nfhp_ruleset *rs);
int nfhp_txn_commit(struct nfhp_ruleset *rs, const char **msg);
int nfhp_txn_prepare(struct nfhp_ruleset *rs, const char **msg);
void nfhp_txn_finish(struct nfhp_ruleset *rs);
void nfhp_txn_unprepare(struct nfhp_ruleset *rs);
void nfhp_txn_abort(struct nfhp_ruleset *rs);
bool nfhp_txn_active(const struct nfhp_ruleset *rs);

/*
 * Changes.  Positions are 1-based.  On error they return -errno and point
 * *msg at a static, human-readable reason (msg may be NULL).  counters may
 * be NULL; it gives a new rule's (or a policy's) initial counters.
 */
int nfhp_rule_insert(struct nfhp_ruleset *rs, const char *chain,
		     unsigned int pos, const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *counters, const char **msg);
int nfhp_rule_append(struct nfhp_ruleset *rs, const char *chain,
		     const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *counters, const char **msg);
int nfhp_rule_replace(struct nfhp_ruleset *rs, const char *chain,
		      unsigned int pos, const struct nfhp_rule_spec *spec,
		      const char **msg);
int nfhp_rule_delete(struct nfhp_ruleset *rs, const char *chain,
		     unsigned int pos, const char **msg);
int nfhp_rule_delete_spec(struct nfhp_ruleset *rs, const char *chain,
			  const struct nfhp_rule_spec *spec, const char **msg);
int nfhp_chain_flush(struct nfhp_ruleset *rs, const char *chain,
		     const char **msg);
int nfhp_chain_new(struct nfhp_ruleset *rs, const char *chain,
		   const char **msg);
int nfhp_chain_delete(struct nfhp_ruleset *rs, const char *chain,
		      const char **msg);
int nfhp_chain_rename(struct nfhp_ruleset *rs, const char *chain,
		      const char *new_name, const char **msg);
int nfhp_chain_policy(struct nfhp_ruleset *rs, const char *chain, u8 action,
		      const struct nfhp_counter *counters, const char **msg);
int nfhp_counters_zero(struct nfhp_ruleset *rs, const char *chain,
		       unsigned int pos, const char **msg);

/*
 * Reading the committed rule set (or the staged one inside a transaction).
 * Chains come as iptables-save lists them: INPUT, FORWARD, OUTPUT, then
 * user chains sorted by name.
 */
const struct nfhp_chain *nfhp_chain_first(const struct nfhp_ruleset *rs);
const struct nfhp_chain *nfhp_chain_next(const struct nfhp_ruleset *rs,
					 const struct nfhp_chain *c);
const struct nfhp_chain *nfhp_chain_find(const struct nfhp_ruleset *rs,
					 const char *name);
const char *nfhp_chain_name(const struct nfhp_chain *c);
bool nfhp_chain_builtin(const struct nfhp_chain *c);
u8 nfhp_chain_get_policy(const struct nfhp_chain *c);
unsigned int nfhp_chain_refs(const struct nfhp_chain *c);
unsigned int nfhp_chain_count(const struct nfhp_ruleset *rs);
void nfhp_chain_refs_all(const struct nfhp_ruleset *rs, unsigned int *refs);
unsigned int nfhp_chain_rules(const struct nfhp_chain *c);
void nfhp_chain_policy_counter(const struct nfhp_chain *c,
			       struct nfhp_counter *sum);

const struct nfhp_rule *nfhp_rule_first(const struct nfhp_chain *c);
const struct nfhp_rule *nfhp_rule_at(const struct nfhp_chain *c,
				     unsigned int pos);
int nfhp_rule_get_spec(const struct nfhp_rule *r,
		       struct nfhp_rule_spec *spec);
bool nfhp_rule_is(const struct nfhp_rule *r,
		  const struct nfhp_packed_spec *spec);
void nfhp_rule_counter(const struct nfhp_rule *r, struct nfhp_counter *sum);
const struct nfhp_chain *nfhp_rule_chain(struct nfhp_ruleset *rs,
					 const struct nfhp_rule *r);
unsigned int nfhp_rule_position(struct nfhp_ruleset *rs,
				const struct nfhp_rule *r);

/*
 * Commits between two checks of a hook's fold (group.c), at least.
 * nfhp_tunables.fold_recheck is this, or less in tests.
 */
#define NFHP_FOLD_RECHECK	256

/*
 * Nodes the updates of a tree in one commit may visit, this many per
 * entry of its hook and NFHP_UPDATE_VISITS_MIN more, before they give up
 * and the tree is built anew ("Updates: nfhp_tree_update()" in tree.c).  A single-rule
 * update of a ClassBench set visits 5 to 11,000 (fw4_10k's wide rules).
 * nfhp_tunables.update_visits_per_entry and .update_visits_min are these,
 * or less in tests.
 */
#define NFHP_UPDATE_VISITS_PER_ENTRY	16
#define NFHP_UPDATE_VISITS_MIN		4096

/*
 * The entries a hook may flatten into: this many per rule of the rule
 * set, and NFHP_FLAT_MIN whatever the rules.  A user chain reached from
 * k places is copied k times, and nested chains multiply: past the bound
 * a commit fails with -EFBIG, the old rules in force.  The university
 * firewall of ../shared/repro takes 1.4 entries a rule, bench/kube.py's
 * sets 1.7, ClassBench with chains 1.7.  nfhp_tunables.flat_per_rule and
 * .flat_min are these, or less in tests.
 */
#define NFHP_FLAT_PER_RULE		16
#define NFHP_FLAT_MIN			65536

/*
 * Models of fewer chains than this are searched by name, larger ones
 * hashed (struct nfhp_model in ruleset_priv.h): a binary search of a few
 * is as fast.  nfhp_tunables.hash_min_chains is this, or less in tests,
 * which hash models of a few chains.
 */
#define NFHP_HASH_MIN_CHAINS	32

/* The packet path: lockless, under rcu_read_lock(). */
void nfhp_classify(const struct nfhp_ruleset *rs, enum nfhp_hook hook,
		   const struct nfhp_key *key, unsigned int len, void *pkt,
		   struct nfhp_verdict *verdict);

/* Accounting and statistics, see stats.h. */
u64 nfhp_ruleset_mem_limit(const struct nfhp_ruleset *rs);
int nfhp_ruleset_set_mem_limit(struct nfhp_ruleset *rs, u64 limit);
u64 nfhp_ruleset_mem_used(const struct nfhp_ruleset *rs);
u64 nfhp_ruleset_mem_allocated(const struct nfhp_ruleset *rs);
u64 nfhp_ruleset_counter_mem(const struct nfhp_ruleset *rs);
unsigned int nfhp_ruleset_nchains(const struct nfhp_ruleset *rs);
unsigned int nfhp_ruleset_nrules(const struct nfhp_ruleset *rs);
u64 nfhp_ruleset_shared_splits(const struct nfhp_ruleset *rs);
unsigned int nfhp_ruleset_flattened(const struct nfhp_ruleset *rs);
u64 nfhp_ruleset_updates_given_up(const struct nfhp_ruleset *rs);
u64 nfhp_ruleset_builds_cut(const struct nfhp_ruleset *rs);

#endif /* _NFHP_RULESET_H */
