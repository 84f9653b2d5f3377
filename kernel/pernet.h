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
#include "set.h"
#include "state_pernet.h"

struct proc_dir_entry;

/* The families of a namespace, in the order they are listed. */
enum nfhp_fam_index {
	NFHP_FAM_IPV4,
	NFHP_FAM_IPV6,
	NFHP_FAM_MAX,
};

struct nfhp_net;
struct nfhp_state_places;

/**
 * struct nfhp_fam - the rule set of one family in one namespace
 * @hn: the namespace state it is part of
 * @family: its &enum nfhp_family
 * @rs: the rule set, allocated for the whole life of the namespace
 * @ops: two sets of hook registrations, so that a priority change can
 *	register the new set before the old one goes and no packet slips
 *	through unfiltered in between
 * @cur_ops: index of the set in @ops that is registered (or will be)
 * @hooks_registered: the hooks in @ops[@cur_ops] are registered
 * @ct_held: we hold a conntrack reference on the namespace for this
 *	family, for the state dimension
 * @commits: commits that published this rule set
 * @commit_ns: how long the last of them took in nfhp_txn_prepare() and
 *	nfhp_txn_finish()
 * @commits_stopped: commits a signal to the committing task stopped
 * @places: where its keep-state rules stood at its last commit, for the
 *	states' events (state_netlink.c); NULL while it commits
 */
struct nfhp_fam {
	struct nfhp_net *hn;
	u8 family;
	struct nfhp_ruleset *rs;
	struct nf_hook_ops ops[2][NFHP_HOOK_MAX];
	unsigned int cur_ops;
	bool hooks_registered;
	bool ct_held;
	u64 commits;
	u64 commit_ns;
	u64 commits_stopped;
	struct nfhp_state_places __rcu *places;
};

/**
 * struct nfhp_net - nf-hipac in one network namespace
 * @lock: serializes every change and every reader of the rule sets but
 *	the packet path; also protects the fields below
 * @net: the namespace
 * @fam: the IPv4 and the IPv6 rule set, each with its hooks
 * @iptables_first: hook after the iptables filter tables instead of before
 * @world_readable: listing the rule sets and reading /proc/net/nf-hipac
 *	need no CAP_NET_ADMIN; off unless root sets it (proc.c)
 * @txn_open: a socket opened a transaction (NFHP_CMD_BEGIN); the rule set
 *	of each family it changes opens its own when first changed, and all
 *	of them commit together
 * @txn_owner: netlink port id of the socket whose transaction is open,
 *	meaningful only while @txn_open
 * @gen: bumped on every change, never 0; lets a dump that spans several
 *	messages notice that the rule set changed under it
 * @proc_dir: /proc/net/nf-hipac of this namespace
 * @spec: where a change request's rule is decoded (netlink.c), allocated
 *	on first use: it is too big for the stack, and allocating it anew
 *	for each of a restore's rules cost more than adding the rule
 * @release_work: frees what commits replaced, a grace period after them
 *	(nfhp_ruleset_release()), so that a commit does not wait for one
 * @dying: the namespace is going; @release_work does not queue itself
 * @sets: the named sets, which the rules of both families refer to
 * @set_gc_work: frees what the writers of @sets replaced, a grace period
 *	after them (nfhp_net_sets_changed())
 * @states: the dynamic states of both families, with their tick
 */
struct nfhp_net {
	struct mutex lock;	/* see @lock above */
	struct net *net;
	struct nfhp_fam fam[NFHP_FAM_MAX];
	bool iptables_first;
	bool world_readable;
	bool txn_open;
	u32 txn_owner;
	unsigned int gen;
	struct proc_dir_entry *proc_dir;
	struct nfhp_rule_spec *spec;
	struct rcu_work release_work;
	bool dying;
	struct nfhp_sets sets;
	struct rcu_work set_gc_work;
	struct nfhp_states states;
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

/**
 * nfhp_net_fam() - the rule set of a family in a namespace
 * @hn: the namespace state
 * @family: an &enum nfhp_family
 *
 * Return: its state, or NULL for a family nf-hipac does not filter.
 */
static inline struct nfhp_fam *nfhp_net_fam(struct nfhp_net *hn, u8 family)
{
	switch (family) {
	case NFHP_FAMILY_IPV4:
		return &hn->fam[NFHP_FAM_IPV4];
	case NFHP_FAMILY_IPV6:
		return &hn->fam[NFHP_FAM_IPV6];
	default:
		return NULL;
	}
}

void nfhp_net_settle(struct nfhp_net *hn);
void nfhp_net_sets_changed(struct nfhp_net *hn);
int nfhp_net_commit(struct nfhp_net *hn, const char **msg);
void nfhp_net_abort(struct nfhp_net *hn);
int nfhp_net_set_order(struct nfhp_net *hn, bool iptables_first);
u64 nfhp_ram_bytes(void);

int nfhp_pernet_init(void);
void nfhp_pernet_uninit(void);

#endif /* _NFHP_PERNET_H */
