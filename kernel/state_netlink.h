/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the netlink commands and events of the dynamic states
 * (state_netlink.c).
 */
#ifndef _NFHP_STATE_NETLINK_H
#define _NFHP_STATE_NETLINK_H

#include <net/genetlink.h>

struct nfhp_net;

/* The family's multicast groups, in the order netlink.c registers them. */
enum nfhp_mcgrp {
	NFHP_MCGRP_STATES_IDX,
};

extern const struct nla_policy nfhp_state_policy[NFHPA_STATE_MAX + 1];

int nfhp_nl_state_list_start(struct netlink_callback *cb);
int nfhp_nl_state_list(struct sk_buff *skb, struct netlink_callback *cb);
int nfhp_nl_state_list_done(struct netlink_callback *cb);
int nfhp_nl_state_del(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_state_flush(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_state_add(struct sk_buff *skb, struct genl_info *info);

void nfhp_state_events_attach(struct nfhp_net *hn);
void nfhp_state_places_hide(struct nfhp_net *hn, unsigned int fams);
void nfhp_state_places_publish(struct nfhp_net *hn, unsigned int fams);
void nfhp_state_places_free(struct nfhp_net *hn);
void nfhp_state_events_enable(bool on);

#endif /* _NFHP_STATE_NETLINK_H */
