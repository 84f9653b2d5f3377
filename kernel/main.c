// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: module init and exit.
 */

#include <linux/module.h>
#include <net/genetlink.h>

#include "conntrack.h"
#include "netlink.h"
#include "pernet.h"

/**
 * nfhp_mod_init() - load nf-hipac
 *
 * The per-namespace state comes first, so that no netlink request can
 * arrive before every namespace has its rule set.
 *
 * Return: 0 or -errno.
 */
static int __init nfhp_mod_init(void)
{
	int ret;

	ret = nfhp_pernet_init();
	if (ret)
		goto err_pernet;
	ret = nfhp_genetlink_init();
	if (ret)
		goto err_netlink;
	pr_info("decision-tree packet classifier loaded\n");
	return 0;

err_netlink:
	nfhp_pernet_uninit();
err_pernet:
	return ret;
}

/**
 * nfhp_mod_exit() - unload nf-hipac, in the reverse order of nfhp_mod_init()
 */
static void __exit nfhp_mod_exit(void)
{
	nfhp_genetlink_uninit();
	nfhp_pernet_uninit();
	/* No namespace holds conntrack's hooks any more. */
	nfhp_ct_unlink();
}

module_init(nfhp_mod_init);
module_exit(nfhp_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("nf-hipac: IPv4 and IPv6 packet filter with a decision-tree classifier");
MODULE_AUTHOR("nf-hipac developers");
MODULE_VERSION(NFHP_VERSION);
MODULE_ALIAS_GENL_FAMILY(NFHP_GENL_NAME);
