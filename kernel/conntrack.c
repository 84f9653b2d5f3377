// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: nf_conntrack, linked only for rules that match on its state.
 *
 * nf_hipac.ko does not link against nf_conntrack, so loading it does not
 * load nf_conntrack, and nf-hipac's own states (keep-state) work without
 * it.  A rule set that matches on conntrack's state ("-m state",
 * "-m conntrack --ctstate") needs conntrack's hooks in its namespace,
 * which nf_ct_netns_get() registers.  The first commit of such a rule set
 * loads nf_conntrack and finds nf_ct_netns_get() and nf_ct_netns_put()
 * with symbol_get(), which holds a reference to nf_conntrack until
 * nf_hipac unloads: the two functions are never called once gone.
 */
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <net/netfilter/nf_conntrack.h>

#include "conntrack.h"

/* Serializes the first link against nf_conntrack. */
static DEFINE_MUTEX(nfhp_ct_link_lock);

/**
 * struct nfhp_ct_link - nf_conntrack's functions, once linked
 * @get: nf_ct_netns_get()
 * @put: nf_ct_netns_put()
 */
static struct nfhp_ct_link {
	int (*get)(struct net *net, u8 nfproto);
	void (*put)(struct net *net, u8 nfproto);
} nfhp_ct;

/**
 * nfhp_ct_link() - load nf_conntrack and take its functions, once
 *
 * Return: 0, or -EOPNOTSUPP when this kernel has no nf_conntrack.
 */
static int nfhp_ct_link(void)
{
	int ret = 0;

	mutex_lock(&nfhp_ct_link_lock);
	if (nfhp_ct.get)
		goto out_unlock;
	/* Built in, it needs no loading: a failure here is no answer. */
	request_module("nf_conntrack");
	nfhp_ct.get = symbol_get(nf_ct_netns_get);
	nfhp_ct.put = symbol_get(nf_ct_netns_put);
	if (nfhp_ct.get && nfhp_ct.put)
		goto out_unlock;
	nfhp_ct_unlink();
	ret = -EOPNOTSUPP;
out_unlock:
	mutex_unlock(&nfhp_ct_link_lock);
	return ret;
}

/**
 * nfhp_ct_netns_get() - conntrack's hooks for a family of a namespace
 * @net: the namespace
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 *
 * Loads nf_conntrack the first time.
 *
 * Return: 0 or -errno.
 */
int nfhp_ct_netns_get(struct net *net, u8 family)
{
	int ret = nfhp_ct_link();

	return ret ?: nfhp_ct.get(net, family);
}

/**
 * nfhp_ct_netns_put() - give back what nfhp_ct_netns_get() took
 * @net: the namespace
 * @family: as given to nfhp_ct_netns_get()
 */
void nfhp_ct_netns_put(struct net *net, u8 family)
{
	nfhp_ct.put(net, family);
}

/**
 * nfhp_ct_unlink() - let nf_conntrack go
 *
 * At module exit, when no namespace holds conntrack's hooks any more, or
 * when nfhp_ct_link() found only one of the functions.
 */
void nfhp_ct_unlink(void)
{
	if (nfhp_ct.get)
		symbol_put(nf_ct_netns_get);
	if (nfhp_ct.put)
		symbol_put(nf_ct_netns_put);
	nfhp_ct.get = NULL;
	nfhp_ct.put = NULL;
}
