/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the netfilter hooks, where packets meet the classifier.
 */
#ifndef _NFHP_HOOKS_H
#define _NFHP_HOOKS_H

#include <asm/unaligned.h>
#include <linux/in6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>

#include "key.h"
#include "ruleset.h"

/* Just before or just after the iptables filter table. */
#define NFHP_PRI_FIRST		(NF_IP_PRI_FILTER - 1)
#define NFHP_PRI_AFTER		(NF_IP_PRI_FILTER + 1)

/**
 * nfhp_in6_value() - an IPv6 address as the number the tree compares
 * @a: the address
 *
 * Return: the address as a big-endian 128-bit number.
 */
static inline nfhp_u128 nfhp_in6_value(const struct in6_addr *a)
{
	return (nfhp_u128)get_unaligned_be64(&a->s6_addr[0]) << 64 |
	       get_unaligned_be64(&a->s6_addr[8]);
}

int nfhp_hooks_register(struct net *net, u8 family, struct nf_hook_ops *ops,
			void *priv, int priority);
void nfhp_hooks_unregister(struct net *net, struct nf_hook_ops *ops);

#endif /* _NFHP_HOOKS_H */
