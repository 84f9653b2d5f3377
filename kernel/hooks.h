/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the netfilter hooks, where packets meet the classifier.
 */
#ifndef _NFHP_HOOKS_H
#define _NFHP_HOOKS_H

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>

#include "ruleset.h"

/* Just before or just after the iptables filter table. */
#define NFHP_PRI_FIRST		(NF_IP_PRI_FILTER - 1)
#define NFHP_PRI_AFTER		(NF_IP_PRI_FILTER + 1)

int nfhp_hooks_register(struct net *net, u8 family, struct nf_hook_ops *ops,
			void *priv, int priority);
void nfhp_hooks_unregister(struct net *net, struct nf_hook_ops *ops);

#endif /* _NFHP_HOOKS_H */
