/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: /proc/net/nf-hipac.
 */
#ifndef _NFHP_PROC_H
#define _NFHP_PROC_H

struct file;
struct net;
struct nfhp_net;
struct proc_dir_entry;

int nfhp_proc_net_init(struct nfhp_net *hn);
void nfhp_proc_net_exit(struct nfhp_net *hn);
bool nfhp_proc_may_read(const struct file *file, struct net *net);

/* state_proc.c */
int nfhp_state_proc_init(struct proc_dir_entry *dir);

#endif /* _NFHP_PROC_H */
