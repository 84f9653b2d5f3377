/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the xtables evaluator of ext.h, see xt_run.c.
 */
#ifndef _NFHP_XT_RUN_H
#define _NFHP_XT_RUN_H

#include <linux/netfilter.h>
#include <linux/skbuff.h>

#include "ext.h"
#include "set_match.h"

/**
 * struct nfhp_xt_pkt - a packet as xtables modules see it
 * @skb: the packet
 * @state: the hook state
 * @fragoff: the fragment offset: IPv4's in 8-byte units, IPv6's in bytes
 *	as ipv6_find_hdr() gives it (modules test it against zero)
 * @thoff: offset of the transport header
 * @proto: the IPv4 protocol, or IPv6's upper-layer protocol
 *	(%NEXTHDR_NONE for a later fragment with none in sight)
 * @sets: the set lookups of its rules so far, which the later ones reuse
 */
struct nfhp_xt_pkt {
	struct sk_buff *skb;
	const struct nf_hook_state *state;
	int fragoff;
	unsigned int thoff;
	u8 proto;
	struct nfhp_setm_cache sets;
};

/* The evaluators of IPv4 and IPv6; @priv is the rule set's struct net. */
extern const struct nfhp_ext_ops nfhp_xt_ops;
extern const struct nfhp_ext_ops nfhp_xt6_ops;

struct nfhp_keep_state;
struct nfhp_keep_state *nfhp_xt_keep_state(const void *ext);

#endif /* _NFHP_XT_RUN_H */
