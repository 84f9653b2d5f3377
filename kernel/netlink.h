/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the generic netlink family "nf_hipac".
 */
#ifndef _NFHP_NETLINK_H
#define _NFHP_NETLINK_H

#include <net/genetlink.h>

struct nfhp_net;

void nfhp_set_msg(struct netlink_ext_ack *extack, const char *msg);
bool nfhp_txn_foreign(const struct nfhp_net *hn, struct genl_info *info);
const struct genl_family *nfhp_genl_family(void);
int nfhp_genetlink_init(void);
void nfhp_genetlink_uninit(void);

#endif /* _NFHP_NETLINK_H */
