// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: one rule set per network namespace.
 *
 * Every namespace gets an empty rule set when it is created, but no hooks:
 * they are registered by the first commit in the namespace and stay, the
 * way iptables registers a namespace's filter table on first use.  A
 * namespace nobody configures pays nothing per packet, and once the hooks
 * are in, the policies count every packet even while no rule exists.
 * Conntrack is enabled in a namespace only while some rule matches on the
 * state.
 *
 * Growing happens before a commit (nfhp_net_prepare()), shrinking after it
 * (nfhp_net_settle()): the old rule set never needs the new resources and
 * the new one finds them in place from its first packet.
 */

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/timekeeping.h>
#include <net/netfilter/nf_conntrack.h>

#include "hooks.h"
#include "pernet.h"
#include "proc.h"
#include "stats.h"
#include "xt_run.h"

unsigned int nfhp_net_id __read_mostly;

/**
 * nfhp_ram_bytes() - the size of the RAM
 *
 * Return: the number of bytes of RAM the kernel manages.
 */
u64 nfhp_ram_bytes(void)
{
	return (u64)totalram_pages() << PAGE_SHIFT;
}

/**
 * nfhp_net_priority() - the hook priority of a namespace
 * @hn: the namespace state
 *
 * Return: %NFHP_PRI_FIRST or %NFHP_PRI_AFTER.
 */
static int nfhp_net_priority(const struct nfhp_net *hn)
{
	return hn->iptables_first ? NFHP_PRI_AFTER : NFHP_PRI_FIRST;
}

/**
 * nfhp_net_hooks_up() - register the hooks unless they are
 * @hn: the namespace state, @hn->lock held
 *
 * Return: 0 or -errno.
 */
static int nfhp_net_hooks_up(struct nfhp_net *hn)
{
	int ret;

	if (hn->hooks_registered)
		return 0;
	ret = nfhp_hooks_register(hn->net, hn->ops[hn->cur_ops], hn,
				  nfhp_net_priority(hn));
	if (ret)
		return ret;
	hn->hooks_registered = true;
	return 0;
}

/**
 * nfhp_net_hooks_down() - unregister the hooks if they are registered
 * @hn: the namespace state, @hn->lock held
 */
static void nfhp_net_hooks_down(struct nfhp_net *hn)
{
	if (!hn->hooks_registered)
		return;
	nfhp_hooks_unregister(hn->net, hn->ops[hn->cur_ops]);
	hn->hooks_registered = false;
}

/**
 * nfhp_net_ct_put() - drop our conntrack reference if we hold one
 * @hn: the namespace state, @hn->lock held
 */
static void nfhp_net_ct_put(struct nfhp_net *hn)
{
	if (!hn->ct_held)
		return;
	nf_ct_netns_put(hn->net, NFPROTO_IPV4);
	hn->ct_held = false;
}

/**
 * nfhp_net_prepare() - get what the rule set about to be committed needs
 * @hn: the namespace state, @hn->lock held, a transaction open
 * @msg: set to the reason on error
 *
 * Takes a conntrack reference if the staged rule set matches on the state
 * and registers the hooks.  Both are harmless for the rule set still
 * committed; nfhp_net_settle() gives back conntrack when it turns out not
 * to be needed.
 *
 * Return: 0 or -errno.
 */
int nfhp_net_prepare(struct nfhp_net *hn, const char **msg)
{
	int ret;

	if (!hn->ct_held && nfhp_ruleset_uses_dim(hn->rs, NFHP_DIM_STATE)) {
		ret = nf_ct_netns_get(hn->net, NFPROTO_IPV4);
		if (ret) {
			*msg = "cannot enable connection tracking";
			return ret;
		}
		hn->ct_held = true;
	}
	ret = nfhp_net_hooks_up(hn);
	if (ret)
		*msg = "cannot register the netfilter hooks";
	return ret;
}

/**
 * nfhp_net_settle() - give back what the committed rule set does not need
 * @hn: the namespace state, @hn->lock held, no transaction open
 */
void nfhp_net_settle(struct nfhp_net *hn)
{
	if (!nfhp_ruleset_uses_dim(hn->rs, NFHP_DIM_STATE))
		nfhp_net_ct_put(hn);
}

/**
 * nfhp_net_commit() - commit the open transaction
 * @hn: the namespace state, @hn->lock held, a transaction open
 * @msg: set to the reason on error
 *
 * When the resources for the new rule set cannot be had, the transaction
 * stays open and nothing changes for packets.
 *
 * Return: 0 or -errno.
 */
int nfhp_net_commit(struct nfhp_net *hn, const char **msg)
{
	u64 start;
	int ret;

	ret = nfhp_net_prepare(hn, msg);
	if (!ret) {
		start = ktime_get_ns();
		ret = nfhp_txn_commit(hn->rs, msg);
		if (!ret) {
			hn->commit_ns = ktime_get_ns() - start;
			hn->commits++;
		}
		hn->commits_stopped += ret == -ECANCELED;
	}
	nfhp_net_changed(hn);
	/*
	 * What commits replaced goes a grace period after them, and only
	 * then the conntrack reference the old rules may have used.
	 */
	if (nfhp_ruleset_release(hn->rs, false))
		queue_rcu_work(system_wq, &hn->release_work);
	else if (!nfhp_txn_active(hn->rs))
		nfhp_net_settle(hn);
	return ret;
}

/*
 * Free what commits replaced once no packet can be inside it; come back
 * after another grace period for what later commits replaced.
 */
static void nfhp_net_release_work(struct work_struct *work)
{
	struct nfhp_net *hn = container_of(to_rcu_work(work), struct nfhp_net,
					   release_work);

	mutex_lock(&hn->lock);
	if (nfhp_ruleset_release(hn->rs, false)) {
		if (!hn->dying)
			queue_rcu_work(system_wq, &hn->release_work);
	} else if (!nfhp_txn_active(hn->rs)) {
		nfhp_net_settle(hn);
	}
	mutex_unlock(&hn->lock);
}

/**
 * nfhp_net_set_order() - hook before or after the iptables filter table
 * @hn: the namespace state, @hn->lock held
 * @iptables_first: hook after iptables
 *
 * Registered hooks move by registering the new ones before the old ones
 * go, so that no packet passes unclassified meanwhile.
 *
 * Return: 0 or -errno.
 */
int nfhp_net_set_order(struct nfhp_net *hn, bool iptables_first)
{
	unsigned int next = !hn->cur_ops;
	int ret;

	if (hn->iptables_first == iptables_first)
		return 0;
	if (hn->hooks_registered) {
		ret = nfhp_hooks_register(hn->net, hn->ops[next], hn,
					  iptables_first ? NFHP_PRI_AFTER :
							   NFHP_PRI_FIRST);
		if (ret)
			return ret;
		nfhp_hooks_unregister(hn->net, hn->ops[hn->cur_ops]);
	}
	hn->cur_ops = next;
	hn->iptables_first = iptables_first;
	return 0;
}

/**
 * nfhp_net_init() - set up nf-hipac in a new namespace
 * @net: the namespace
 *
 * Return: 0 or -errno.
 */
static int __net_init nfhp_net_init(struct net *net)
{
	struct nfhp_net *hn = nfhp_net(net);
	int ret;

	mutex_init(&hn->lock);
	hn->net = net;
	hn->gen = 1;
	INIT_RCU_WORK(&hn->release_work, nfhp_net_release_work);
	hn->rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, nfhp_ram_bytes() / 2);
	if (!hn->rs)
		return -ENOMEM;
	nfhp_ruleset_set_lock(hn->rs, &hn->lock);
	nfhp_ruleset_defer_release(hn->rs, true);
	nfhp_ruleset_set_ext(hn->rs, &nfhp_xt_ops, net);
	ret = nfhp_proc_net_init(hn);
	if (ret)
		goto err_free_ruleset;
	return 0;

err_free_ruleset:
	mutex_lock(&hn->lock);
	nfhp_ruleset_free(hn->rs);
	mutex_unlock(&hn->lock);
	return ret;
}

/**
 * nfhp_net_pre_exit() - stop classifying packets of a dying namespace
 * @net: the namespace
 *
 * The namespace core waits for an RCU grace period between this and
 * nfhp_net_exit(), so no packet still sees the rule set when it is freed.
 */
static void __net_exit nfhp_net_pre_exit(struct net *net)
{
	struct nfhp_net *hn = nfhp_net(net);

	mutex_lock(&hn->lock);
	nfhp_net_hooks_down(hn);
	mutex_unlock(&hn->lock);
}

/**
 * nfhp_net_exit() - free the state of a dying namespace
 * @net: the namespace
 */
static void __net_exit nfhp_net_exit(struct net *net)
{
	struct nfhp_net *hn = nfhp_net(net);

	nfhp_proc_net_exit(hn);
	mutex_lock(&hn->lock);
	hn->dying = true;
	mutex_unlock(&hn->lock);
	/* It frees what it can; nfhp_ruleset_free() waits for the rest. */
	flush_rcu_work(&hn->release_work);
	mutex_lock(&hn->lock);
	nfhp_net_ct_put(hn);
	nfhp_ruleset_free(hn->rs);
	mutex_unlock(&hn->lock);
	kvfree(hn->spec);
	mutex_destroy(&hn->lock);
}

static struct pernet_operations nfhp_net_ops = {
	.init = nfhp_net_init,
	.pre_exit = nfhp_net_pre_exit,
	.exit = nfhp_net_exit,
	.id = &nfhp_net_id,
	.size = sizeof(struct nfhp_net),
};

/**
 * nfhp_pernet_init() - set up nf-hipac in every namespace, now and later
 *
 * Return: 0 or -errno.
 */
int nfhp_pernet_init(void)
{
	return register_pernet_subsys(&nfhp_net_ops);
}

/**
 * nfhp_pernet_uninit() - tear nf-hipac down in every namespace
 */
void nfhp_pernet_uninit(void)
{
	unregister_pernet_subsys(&nfhp_net_ops);
}
