/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the state of one network namespace.
 */
#ifndef _NFHP_PERNET_H
#define _NFHP_PERNET_H

#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "ruleset.h"

struct proc_dir_entry;

/**
 * struct nfhp_net - nf-hipac in one network namespace
 * @lock: serializes every change and every reader of @rs but the packet
 *	path; also protects the fields below
 * @net: the namespace
 * @rs: the rule set, allocated for the whole life of the namespace
 * @ops: two sets of hook registrations, so that a priority change can
 *	register the new set before the old one goes and no packet slips
 *	through unfiltered in between
 * @cur_ops: index of the set in @ops that is registered (or will be)
 * @hooks_registered: the hooks in @ops[@cur_ops] are registered
 * @iptables_first: hook after the iptables filter table instead of before
 * @world_readable: listing the rule set and reading /proc/net/nf-hipac
 *	need no CAP_NET_ADMIN; off unless root sets it (proc.c)
 * @ct_held: we hold a conntrack reference on @net for the state dimension
 * @txn_owner: netlink port id of the socket whose transaction is open,
 *	meaningful only while nfhp_txn_active(@rs)
 * @gen: bumped on every change, never 0; lets a dump that spans several
 *	messages notice that the rule set changed under it
 * @proc_dir: /proc/net/nf-hipac of this namespace
 * @spec: where a change request's rule is decoded (netlink.c), allocated
 *	on first use: it is too big for the stack, and allocating it anew
 *	for each of a restore's rules cost more than adding the rule
 * @release_work: frees what commits replaced, a grace period after them
 *	(nfhp_ruleset_release()), so that a commit does not wait for one
 * @dying: the namespace is going; @release_work does not queue itself
 * @commits: commits that published a rule set
 * @commit_ns: how long the last of them took in nfhp_txn_commit()
 * @commits_stopped: commits a signal to the committing task stopped
 */
struct nfhp_net {
	struct mutex lock;	/* see @lock above */
	struct net *net;
	struct nfhp_ruleset *rs;
	struct nf_hook_ops ops[2][NFHP_HOOK_MAX];
	unsigned int cur_ops;
	bool hooks_registered;
	bool iptables_first;
	bool world_readable;
	bool ct_held;
	u32 txn_owner;
	unsigned int gen;
	struct proc_dir_entry *proc_dir;
	struct nfhp_rule_spec *spec;
	struct rcu_work release_work;
	bool dying;
	u64 commits;
	u64 commit_ns;
	u64 commits_stopped;
};

extern unsigned int nfhp_net_id;

/**
 * nfhp_net() - the nf-hipac state of a namespace
 * @net: the namespace
 *
 * Return: the state, which lives as long as @net.
 */
static inline struct nfhp_net *nfhp_net(const struct net *net)
{
	return net_generic(net, nfhp_net_id);
}

/**
 * nfhp_net_changed() - record a change of the rule set for dumps
 * @hn: the namespace state, @hn->lock held
 */
static inline void nfhp_net_changed(struct nfhp_net *hn)
{
	if (!++hn->gen)
		hn->gen = 1;
}

/**
 * nfhp_net_world_readable() - may readers without CAP_NET_ADMIN see the rules?
 * @hn: the namespace state
 *
 * Return: true once root has opened reading up in this namespace.
 */
static inline bool nfhp_net_world_readable(const struct nfhp_net *hn)
{
	return READ_ONCE(hn->world_readable);
}

int nfhp_net_prepare(struct nfhp_net *hn, const char **msg);
void nfhp_net_settle(struct nfhp_net *hn);
int nfhp_net_commit(struct nfhp_net *hn, const char **msg);
int nfhp_net_set_order(struct nfhp_net *hn, bool iptables_first);
u64 nfhp_ram_bytes(void);

int nfhp_pernet_init(void);
void nfhp_pernet_uninit(void);

#endif /* _NFHP_PERNET_H */
