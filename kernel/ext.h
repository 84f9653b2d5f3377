/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: matches and targets the tree does not classify.
 *
 * A rule may carry matches and a target that are no dimension of the tree
 * (-m limit, -j REJECT, ...): &struct nfhp_rule_spec @ext.  The core never
 * reads them.  It asks the evaluator its rule set was given for a handle
 * when the rule is added, and at packet time, for the rules the tree found
 * in the packet's leaves, whether their matches match and what their
 * target says.  In the kernel the evaluator is xt_run.c, which runs the
 * kernel's own xtables modules; userspace tests plug in a model.
 */
#ifndef _NFHP_EXT_H
#define _NFHP_EXT_H

#include "counter.h"
#include "spec.h"

/* What &struct nfhp_ext_ops @target returns to let the next rule decide. */
#define NFHP_EXT_CONTINUE	0xffffffffu

/**
 * enum nfhp_ext_result - what the matches of a rule say about a packet
 * @NFHP_EXT_NOMATCH: some match does not match
 * @NFHP_EXT_MATCH: all match
 * @NFHP_EXT_HOTDROP: a match wants the packet dropped at once, as
 *	xt_action_param's hotdrop does
 */
enum nfhp_ext_result {
	NFHP_EXT_NOMATCH,
	NFHP_EXT_MATCH,
	NFHP_EXT_HOTDROP,
};

/**
 * struct nfhp_ext_ops - the evaluator of a rule set's extensions
 * @create: check the extensions of @spec for a rule reachable from the
 *	hooks @hooks (bits of &enum nfhp_hook) and make their handle;
 *	set *@matches when they include matches, not just a target.
 *	Process context, may sleep.  Return 0 or -errno with *@msg set.
 * @destroy: free a handle, once no packet can see its rule any more
 * @match: run a rule's matches on the packet @pkt, the opaque argument of
 *	nfhp_classify()
 * @target: run a rule's target on @pkt; return a netfilter verdict or
 *	%NFHP_EXT_CONTINUE
 * @rekey: after a target continued: bring the mark of @key up to date
 *	with @pkt; return true when it changed, so that later rules see the
 *	packet as it is now.  The mark is the one dimension a target may
 *	change: flattening drops the rules that jumps exclude in another
 *	(flat.c)
 * @hooks: optional: the hooks (bits of &enum nfhp_hook) a handle's
 *	extensions are valid at, whatever @create was told; a commit that
 *	reaches a rule from another hook fails.  Without it: all hooks.
 * @stateless: optional: true when none of a handle's extensions keeps
 *	state of its own from packet to packet (a rate, a quota, a count),
 *	so that a rule sent again unchanged may keep its handle instead of
 *	starting afresh (adopt.c, "Adoption").  Without it: none may.  The
 *	dynamic states a keep-state rule made are not its handle's: they
 *	stay with the rule a commit carries over.
 * @bind: optional: tell a new handle its rule's counters, which a
 *	keep-state rule's states count their packets on too
 * @check_state: optional, needed by keep-state and check-state rules:
 *	at its hook's check point, look the flow of @pkt up in the dynamic
 *	states; for a live state, count the packet on it and its rule and
 *	return its verdict, %NFHP_ACT_ACCEPT or %NFHP_ACT_DROP; else
 *	%NFHP_ACT_NONE.  Runs on the packet path, as @match does.
 * @retire: optional: the rule of a handle left the rule set in the commit
 *	that just published.  Packets may run its extensions until the
 *	grace period ends, but what it made for later packets (its dynamic
 *	states) must go now; @destroy follows after the grace period.
 *	Process context, under the commit's locks.
 */
struct nfhp_ext_ops {
	int (*create)(void *priv, const struct nfhp_rule_spec *spec,
		      unsigned int hooks, void **ext, bool *matches,
		      const char **msg);
	void (*destroy)(void *priv, void *ext);
	enum nfhp_ext_result (*match)(const void *ext, void *pkt);
	u32 (*target)(const void *ext, void *pkt);
	bool (*rekey)(void *pkt, struct nfhp_key *key);
	unsigned int (*hooks)(const void *ext);
	bool (*stateless)(const void *ext);
	void (*bind)(void *ext, struct nfhp_counter __percpu *cnt);
	u8 (*check_state)(void *priv, void *pkt);
	void (*retire)(void *priv, void *ext);
};

#endif /* _NFHP_EXT_H */
