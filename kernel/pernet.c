// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: one rule set per family and network namespace.
 *
 * Every namespace gets an empty IPv4 and an empty IPv6 rule set when it is
 * created, but no hooks: a family's are registered by the first commit
 * that changes its rule set and stay, the way iptables and ip6tables
 * register a namespace's filter table on first use.  A
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

#include "conntrack.h"
#include "hooks.h"
#include "pernet.h"
#include "proc.h"
#include "state_netlink.h"
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
 * nfhp_fam_hooks_up() - register a family's hooks unless they are
 * @fam: the family's state, its namespace's lock held
 *
 * Return: 0 or -errno.
 */
static int nfhp_fam_hooks_up(struct nfhp_fam *fam)
{
	int ret;

	if (fam->hooks_registered)
		return 0;
	ret = nfhp_hooks_register(fam->hn->net, fam->family,
				  fam->ops[fam->cur_ops], fam,
				  nfhp_net_priority(fam->hn));
	if (ret)
		return ret;
	fam->hooks_registered = true;
	return 0;
}

/**
 * nfhp_fam_hooks_down() - unregister a family's hooks if they are
 * @fam: the family's state, its namespace's lock held
 */
static void nfhp_fam_hooks_down(struct nfhp_fam *fam)
{
	if (!fam->hooks_registered)
		return;
	nfhp_hooks_unregister(fam->hn->net, fam->ops[fam->cur_ops]);
	fam->hooks_registered = false;
}

/**
 * nfhp_fam_ct_put() - drop the family's conntrack reference if it holds one
 * @fam: the family's state, its namespace's lock held
 */
static void nfhp_fam_ct_put(struct nfhp_fam *fam)
{
	if (!fam->ct_held)
		return;
	nfhp_ct_netns_put(fam->hn->net, fam->family);
	fam->ct_held = false;
}

/**
 * nfhp_fam_prepare() - get what a family's staged rule set needs
 * @fam: the family's state, its namespace's lock held, a transaction open
 *	on its rule set
 * @msg: set to the reason on error
 *
 * Takes a conntrack reference if the staged rule set matches on the state
 * and registers the family's hooks.  Both are harmless for the rule set
 * still committed; nfhp_net_settle() gives back conntrack when it turns
 * out not to be needed.
 *
 * Return: 0 or -errno.
 */
static int nfhp_fam_prepare(struct nfhp_fam *fam, const char **msg)
{
	int ret;

	if (!fam->ct_held && nfhp_ruleset_uses_dim(fam->rs, NFHP_DIM_STATE)) {
		ret = nfhp_ct_netns_get(fam->hn->net, fam->family);
		if (ret) {
			*msg = "cannot enable connection tracking";
			return ret;
		}
		fam->ct_held = true;
	}
	ret = nfhp_fam_hooks_up(fam);
	if (ret)
		*msg = "cannot register the netfilter hooks";
	return ret;
}

/**
 * nfhp_net_settle() - give back what the committed rule sets do not need
 * @hn: the namespace state, @hn->lock held
 *
 * A family with a transaction open keeps what it holds.
 */
void nfhp_net_settle(struct nfhp_net *hn)
{
	struct nfhp_fam *fam;

	for (fam = hn->fam; fam < hn->fam + NFHP_FAM_MAX; fam++)
		if (!nfhp_txn_active(fam->rs) &&
		    !nfhp_ruleset_uses_dim(fam->rs, NFHP_DIM_STATE))
			nfhp_fam_ct_put(fam);
}

/*
 * What commits replaced goes a grace period after them, and only then the
 * conntrack reference the old rules may have used: free what no packet
 * can be inside any more, and come back after another grace period for
 * the rest, unless the namespace is going.  @hn->lock held.
 */
static void nfhp_net_release(struct nfhp_net *hn)
{
	bool pending = false;
	unsigned int i;

	for (i = 0; i < NFHP_FAM_MAX; i++)
		pending |= nfhp_ruleset_release(hn->fam[i].rs, false);
	if (!pending)
		nfhp_net_settle(hn);
	else if (!hn->dying)
		queue_rcu_work(system_wq, &hn->release_work);
}

/**
 * nfhp_net_abort() - abort the transactions of every family
 * @hn: the namespace state, @hn->lock held
 *
 * Forgets what they staged, records the change for dumps and gives back
 * what the committed rule sets do not need.
 */
void nfhp_net_abort(struct nfhp_net *hn)
{
	unsigned int i;

	for (i = 0; i < NFHP_FAM_MAX; i++)
		nfhp_txn_abort(hn->fam[i].rs);
	/* After the rules it created, which may refer to its sets. */
	nfhp_sets_abort(&hn->sets);
	nfhp_net_changed(hn);
	nfhp_net_settle(hn);
}

/*
 * Prepare the commit of each family whose rule set has a transaction
 * open; return the families prepared, as bits, in @prepared.
 */
static int nfhp_net_prepare(struct nfhp_net *hn, unsigned int *prepared,
			    const char **msg)
{
	struct nfhp_fam *fam;
	unsigned int i;
	u64 start;
	int ret;

	*prepared = 0;
	for (i = 0; i < NFHP_FAM_MAX; i++) {
		fam = &hn->fam[i];
		if (!nfhp_txn_active(fam->rs))
			continue;
		ret = nfhp_fam_prepare(fam, msg);
		if (ret)
			return ret;
		start = ktime_get_ns();
		ret = nfhp_txn_prepare(fam->rs, msg);
		fam->commit_ns = ktime_get_ns() - start;
		fam->commits_stopped += ret == -ECANCELED;
		if (ret)
			return ret;
		*prepared |= 1u << i;
	}
	return 0;
}

/**
 * nfhp_net_commit() - commit the open transactions of every family
 * @hn: the namespace state, @hn->lock held
 * @msg: set to the reason on error
 *
 * Each family's commit is prepared first, and published only when all of
 * them are (nfhp_txn_prepare()): both rule sets change, or neither does.
 * Either way no transaction is open on return.
 *
 * Return: 0 or -errno.
 */
int nfhp_net_commit(struct nfhp_net *hn, const char **msg)
{
	unsigned int prepared, i;
	struct nfhp_fam *fam;
	u64 start;
	int ret;

	ret = nfhp_net_prepare(hn, &prepared, msg);
	/* Nothing fails from here on: the sets go first, so that the new
	 * rules never see a set of the transaction without its entries.
	 */
	if (!ret && hn->sets.txn) {
		nfhp_sets_commit(&hn->sets);
		nfhp_net_sets_changed(hn);
	}
	if (!ret)
		nfhp_state_places_hide(hn, prepared);
	for (i = 0; i < NFHP_FAM_MAX; i++) {
		fam = &hn->fam[i];
		if (!(prepared & (1u << i)))
			continue;
		if (ret) {
			nfhp_txn_unprepare(fam->rs);
			continue;
		}
		start = ktime_get_ns();
		nfhp_txn_finish(fam->rs);
		fam->commit_ns += ktime_get_ns() - start;
		fam->commits++;
	}
	if (ret)
		nfhp_net_abort(hn);
	else
		nfhp_state_places_publish(hn, prepared);
	nfhp_net_changed(hn);
	nfhp_net_release(hn);
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
	nfhp_net_release(hn);
	mutex_unlock(&hn->lock);
}

/**
 * nfhp_net_sets_changed() - free what writers of sets replaced, later
 * @hn: the namespace state, @hn->lock held
 *
 * A set's writers free replaced blocks whose grace period is over as
 * they go; what the last of a burst replaced would wait for the next
 * write.  The release work frees it after a grace period instead.
 */
void nfhp_net_sets_changed(struct nfhp_net *hn)
{
	if (!hn->dying)
		queue_rcu_work(system_wq, &hn->set_gc_work);
}

/*
 * Free the blocks the writers of named sets replaced, a grace period
 * after the write that queued this; come back for those still young.
 * A work of its own: the rule sets' release keeps its own times.
 */
static void nfhp_net_set_gc_work(struct work_struct *work)
{
	struct nfhp_net *hn = container_of(to_rcu_work(work), struct nfhp_net,
					   set_gc_work);

	mutex_lock(&hn->lock);
	if (nfhp_sets_collect(&hn->sets) && !hn->dying)
		queue_rcu_work(system_wq, &hn->set_gc_work);
	mutex_unlock(&hn->lock);
}

/**
 * nfhp_net_set_order() - hook before or after the iptables filter tables
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
	int pri = iptables_first ? NFHP_PRI_AFTER : NFHP_PRI_FIRST;
	struct nfhp_fam *fam;
	unsigned int i;
	int ret = 0;

	if (hn->iptables_first == iptables_first)
		return 0;
	for (i = 0; i < NFHP_FAM_MAX && !ret; i++) {
		fam = &hn->fam[i];
		if (fam->hooks_registered)
			ret = nfhp_hooks_register(hn->net, fam->family,
						  fam->ops[!fam->cur_ops], fam,
						  pri);
	}
	if (ret) {
		/* Family i - 1 failed: take back the ones before it. */
		while (--i > 0) {
			fam = &hn->fam[i - 1];
			if (fam->hooks_registered)
				nfhp_hooks_unregister(hn->net,
						      fam->ops[!fam->cur_ops]);
		}
		return ret;
	}
	for (fam = hn->fam; fam < hn->fam + NFHP_FAM_MAX; fam++) {
		if (fam->hooks_registered)
			nfhp_hooks_unregister(hn->net, fam->ops[fam->cur_ops]);
		fam->cur_ops = !fam->cur_ops;
	}
	hn->iptables_first = iptables_first;
	return 0;
}

/* The rule sets of both families, in the order of enum nfhp_fam_index. */
static const u8 nfhp_fam_family[NFHP_FAM_MAX] = {
	[NFHP_FAM_IPV4] = NFHP_FAMILY_IPV4,
	[NFHP_FAM_IPV6] = NFHP_FAMILY_IPV6,
};

/* Free the rule sets nfhp_net_init() made; @hn->lock held. */
static void nfhp_net_free_rulesets(struct nfhp_net *hn)
{
	unsigned int i;

	for (i = 0; i < NFHP_FAM_MAX; i++) {
		if (!hn->fam[i].rs)
			continue;
		nfhp_fam_ct_put(&hn->fam[i]);
		nfhp_ruleset_free(hn->fam[i].rs);
		hn->fam[i].rs = NULL;
	}
}

/* Make the empty rule set of each family. */
static int nfhp_net_new_rulesets(struct nfhp_net *hn)
{
	struct nfhp_fam *fam;
	unsigned int i;

	for (i = 0; i < NFHP_FAM_MAX; i++) {
		fam = &hn->fam[i];
		fam->hn = hn;
		fam->family = nfhp_fam_family[i];
		fam->rs = nfhp_ruleset_new(fam->family, nfhp_ram_bytes() / 2);
		if (!fam->rs)
			return -ENOMEM;
		nfhp_ruleset_set_lock(fam->rs, &hn->lock);
		nfhp_ruleset_defer_release(fam->rs, true);
		nfhp_ruleset_set_ext(fam->rs, fam->family == NFHP_FAMILY_IPV6 ?
				     &nfhp_xt6_ops : &nfhp_xt_ops, hn->net);
	}
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

	BUILD_BUG_ON((int)NFHP_FAMILY_IPV4 != (int)NFPROTO_IPV4);
	BUILD_BUG_ON((int)NFHP_FAMILY_IPV6 != (int)NFPROTO_IPV6);
	mutex_init(&hn->lock);
	hn->net = net;
	hn->gen = 1;
	INIT_RCU_WORK(&hn->release_work, nfhp_net_release_work);
	INIT_RCU_WORK(&hn->set_gc_work, nfhp_net_set_gc_work);
	nfhp_sets_init(&hn->sets, &hn->lock, nfhp_ram_bytes() / 2);
	ret = nfhp_net_new_rulesets(hn);
	if (ret)
		goto err_free_rulesets;
	ret = nfhp_states_init(&hn->states, nfhp_ram_bytes() / 2);
	if (ret)
		goto err_free_rulesets;
	nfhp_state_events_attach(hn);
	ret = nfhp_proc_net_init(hn);
	if (ret)
		goto err_states_exit;
	return 0;

err_states_exit:
	nfhp_states_exit(&hn->states);
err_free_rulesets:
	mutex_lock(&hn->lock);
	nfhp_net_free_rulesets(hn);
	mutex_unlock(&hn->lock);
	return ret;
}

/**
 * nfhp_net_pre_exit() - stop classifying packets of a dying namespace
 * @net: the namespace
 *
 * The namespace core waits for an RCU grace period between this and
 * nfhp_net_exit(), so no packet still sees the rule sets when they are
 * freed.
 */
static void __net_exit nfhp_net_pre_exit(struct net *net)
{
	struct nfhp_net *hn = nfhp_net(net);
	unsigned int i;

	mutex_lock(&hn->lock);
	for (i = 0; i < NFHP_FAM_MAX; i++)
		nfhp_fam_hooks_down(&hn->fam[i]);
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
	/* No packet sees the hooks any more (nfhp_net_pre_exit()). */
	nfhp_states_exit(&hn->states);
	mutex_lock(&hn->lock);
	hn->dying = true;
	mutex_unlock(&hn->lock);
	/* It frees what it can; nfhp_ruleset_free() waits for the rest. */
	flush_rcu_work(&hn->release_work);
	flush_rcu_work(&hn->set_gc_work);
	mutex_lock(&hn->lock);
	nfhp_state_places_free(hn);
	nfhp_net_free_rulesets(hn);
	/* The rules referred to the sets: they go after them. */
	nfhp_sets_free(&hn->sets);
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
