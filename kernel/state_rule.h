/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: keep-state and check-state rules, the glue (state_rule.c).
 */
#ifndef _NFHP_STATE_RULE_H
#define _NFHP_STATE_RULE_H

#include <net/netlink.h>

#include "counter.h"
#include "ext.h"
#include "state.h"
#include "xt_run.h"

/**
 * struct nfhp_keep_state - what a keep-state rule's handle holds
 * @rule: what its states get: this struct as their rule (so that they
 *	are flushed by it and count on @cnt), the rule's verdict and limit;
 *	@rule.retired once a commit removed the rule
 * @cnt: the rule's counters, which its states' packets count on too
 */
struct nfhp_keep_state {
	struct nfhp_state_rule rule;
	struct nfhp_counter __percpu *cnt;
};

extern const struct nla_policy nfhp_rstate_policy[NFHPA_RSTATE_MAX + 1];

int nfhp_rstate_decode(struct nfhp_rule_spec *spec, const struct nlattr *attr,
		       struct netlink_ext_ack *extack);
int nfhp_rstate_put(struct sk_buff *skb, const struct nfhp_rule_spec *spec);

void nfhp_keep_state_init(struct nfhp_keep_state *ks,
			  const struct nfhp_rule_spec *spec);
enum nfhp_ext_result nfhp_keep_state(struct net *net,
				     const struct nfhp_xt_pkt *p,
				     const struct nfhp_keep_state *ks);
u8 nfhp_check_state(void *priv, void *pkt);
void nfhp_keep_state_retire(struct net *net, struct nfhp_keep_state *ks);

#endif /* _NFHP_STATE_RULE_H */
