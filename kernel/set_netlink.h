/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the netlink commands of named sets (set_netlink.c).
 */
#ifndef _NFHP_SET_NETLINK_H
#define _NFHP_SET_NETLINK_H

#include <net/genetlink.h>

#include "spec.h"

extern const struct nla_policy nfhp_set_policy[NFHPA_SET_MAX + 1];
extern const struct nla_policy nfhp_setm_policy[NFHPA_SETM_MAX + 1];

int nfhp_setm_decode(struct nfhp_rule_spec *spec, const struct nlattr *attr,
		     struct netlink_ext_ack *extack);
int nfhp_setm_put_all(struct sk_buff *skb, const struct nfhp_rule_spec *spec);

int nfhp_nl_set_new(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_set_del(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_set_flush(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_set_swap(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_set_modify(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_set_entries(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_set_test(struct sk_buff *skb, struct genl_info *info);
int nfhp_nl_set_list_start(struct netlink_callback *cb);
int nfhp_nl_set_list(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _NFHP_SET_NETLINK_H */
