/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: /proc/net/nf-hipac.
 */
#ifndef _NFHP_PROC_H
#define _NFHP_PROC_H

struct nfhp_net;

int nfhp_proc_net_init(struct nfhp_net *hn);
void nfhp_proc_net_exit(struct nfhp_net *hn);

#endif /* _NFHP_PROC_H */
