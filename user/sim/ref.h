/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: a naive iptables filter-table traversal, the oracle of the
 * differential tests and the "linear" side of the benchmark.
 *
 * It evaluates rule specifications one by one, in position order, following
 * jumps, gotos and RETURN exactly as ip_tables.c does.  With keep-state or
 * CHECK-STATE rules, it numbers the rules of a hook in flattened order (a
 * jump's or goto's chain right after it, as often as it is reached) and
 * looks the states up (&struct nfhp_ext_ops.check_state) the first time
 * its walk reaches or passes the first such position without a verdict,
 * or at the policy.  It shares no code
 * with the kernel/ sources on purpose: a bug in the core's interval arithmetic must
 * not be repeated here.
 */
#ifndef _NFHP_REF_H
#define _NFHP_REF_H

#include "spec.h"
#include "ext.h"
#include "ruleset.h"

/* Deeper jump nesting than this (or endless gotos) ends in NFHP_REF_LOOP. */
#define NFHP_REF_MAX_DEPTH	64

struct nfhp_ref;

/**
 * struct nfhp_ref_verdict - the outcome of nfhp_ref_classify()
 * @action: NFHP_ACT_ACCEPT, NFHP_ACT_DROP, NFHP_ACT_QUEUE or NFHP_ACT_XT
 * @chain: the chain of the deciding rule, or the hook's chain for a policy
 * @pos: the 1-based number of the deciding rule, 0 for the policy
 * @loop: the traversal was cut at NFHP_REF_MAX_DEPTH (then DROP, pos 0)
 * @hotdrop: a transport or extension match dropped a short packet (then
 *	DROP, @chain the hook's chain, pos 0)
 * @xt_verdict: for NFHP_ACT_XT, what the extension target returned
 * @state: a dynamic state decided at the hook's check point (then
 *	@chain the hook's chain, pos 0)
 */
struct nfhp_ref_verdict {
	u8 action;
	char chain[NFHP_CHAIN_NAME_LEN];
	unsigned int pos;
	bool loop;
	bool hotdrop;
	u32 xt_verdict;
	bool state;
};

/* A reference of one &enum nfhp_family. */
struct nfhp_ref *nfhp_ref_new(u8 family);
void nfhp_ref_free(struct nfhp_ref *ref);
/* Rules with extensions need their evaluator; @ops->destroy gets NULL. */
void nfhp_ref_set_ext(struct nfhp_ref *ref, const struct nfhp_ext_ops *ops,
		      void *priv);
/* These return 0 or -ENOENT (no such chain/rule), -EEXIST, -EINVAL, -ENOMEM. */
int nfhp_ref_chain_new(struct nfhp_ref *ref, const char *name);
int nfhp_ref_chain_delete(struct nfhp_ref *ref, const char *name);
int nfhp_ref_policy(struct nfhp_ref *ref, const char *chain, u8 action);
int nfhp_ref_insert(struct nfhp_ref *ref, const char *chain, unsigned int pos,
		    const struct nfhp_rule_spec *spec);
int nfhp_ref_delete(struct nfhp_ref *ref, const char *chain, unsigned int pos);
int nfhp_ref_replace(struct nfhp_ref *ref, const char *chain,
		     unsigned int pos, const struct nfhp_rule_spec *spec);
int nfhp_ref_flush(struct nfhp_ref *ref, const char *chain);
unsigned int nfhp_ref_nrules(const struct nfhp_ref *ref, const char *chain);
/* Classify and count: every rule that matches, and the policy that decides. */
void nfhp_ref_classify(struct nfhp_ref *ref, enum nfhp_hook hook,
		       const struct nfhp_key *key, void *pkt,
		       struct nfhp_ref_verdict *v);
/*
 * Packets counted by rule @pos of @chain, with those its states decided,
 * or by its policy for @pos 0.
 */
u64 nfhp_ref_packets(const struct nfhp_ref *ref, const char *chain,
		     unsigned int pos);

#endif /* _NFHP_REF_H */
