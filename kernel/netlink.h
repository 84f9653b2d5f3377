/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the generic netlink family "nf_hipac".
 */
#ifndef _NFHP_NETLINK_H
#define _NFHP_NETLINK_H

int nfhp_genetlink_init(void);
void nfhp_genetlink_uninit(void);

#endif /* _NFHP_NETLINK_H */
