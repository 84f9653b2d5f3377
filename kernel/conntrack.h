/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: nf_conntrack, linked only for rules that match on its state
 * (conntrack.c).
 */
#ifndef _NFHP_CONNTRACK_H
#define _NFHP_CONNTRACK_H

#include <linux/types.h>

struct net;

int nfhp_ct_netns_get(struct net *net, u8 family);
void nfhp_ct_netns_put(struct net *net, u8 family);
void nfhp_ct_unlink(void);

#endif /* _NFHP_CONNTRACK_H */
