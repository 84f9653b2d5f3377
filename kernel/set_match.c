// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the set matches of rules ("-m set --match-set NAME src").
 *
 * DOC: Set matches
 *
 * A set match is no dimension of the tree: its sets change without a
 * commit, and a tree that held their entries would have to be rebuilt at
 * each change.  It runs where the xtables matches run, after the tree
 * found the packet in the rule's box (xt_run.c), before those matches.
 * So "-s 10.0.0.0/8 -m set --match-set bl src -j DROP" costs the tree's
 * lookup for every packet and a set lookup only for packets from
 * 10.0.0.0/8, whatever the set holds.
 *
 * With a value range ("--set-value 1:4") the entry found must also have
 * a value in it: one rule per verdict maps a set's values to verdicts,
 * and an add with a new value changes an address's verdict at once.
 *
 * The rule resolves the set's name when it is added and holds a
 * reference to the set until the rule is freed, a grace period after no
 * packet can see it: a set is never freed under a packet.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>

#include "hooks.h"
#include "pernet.h"
#include "set_match.h"

/**
 * nfhp_setm_get() - resolve the set matches of a rule
 * @net: the namespace of the rule set
 * @family: its family (NFPROTO_IPV4 or NFPROTO_IPV6, which are the
 *	&enum nfhp_family values)
 * @spec: the rule
 * @out: filled with @spec's set matches, each set referenced
 * @msg: set to the reason of a failure
 *
 * The caller holds the namespace's mutex.
 *
 * Return: 0, -ENOENT for an unknown set or -EINVAL for one of another
 * family; nothing is referenced then.
 */
int nfhp_setm_get(struct net *net, u8 family,
		  const struct nfhp_rule_spec *spec, struct nfhp_setm *out,
		  const char **msg)
{
	struct nfhp_sets *sets = &nfhp_net(net)->sets;
	unsigned int i;
	struct nfhp_set *set;

	for (i = 0; i < nfhp_spec_nsetm(spec); i++) {
		set = nfhp_set_find(sets, spec->setm[i].name);
		if (!set || set->family != family) {
			*msg = set ? "the set is of another family" :
				     "no set of that name";
			nfhp_setm_put(out, i);
			return set ? -EINVAL : -ENOENT;
		}
		set->refs++;
		out[i].set = set;
		out[i].dir = spec->setm[i].dir;
		out[i].invert = spec->setm[i].invert;
		out[i].has_value = spec->setm[i].has_value;
		out[i].value_min = spec->setm[i].value_min;
		out[i].value_max = spec->setm[i].value_max;
	}
	return 0;
}

/**
 * nfhp_setm_put() - give back the sets of set matches
 * @m: the set matches
 * @n: how many
 *
 * The caller holds the namespace's mutex.
 */
void nfhp_setm_put(struct nfhp_setm *m, unsigned int n)
{
	while (n--)
		m[n].set->refs--;
}

/* The address @dir names of @skb, as a set's key. */
static void nfhp_setm_key(u8 family, u8 dir, const struct sk_buff *skb,
			  struct nfhp_set_key *key)
{
	if (family == NFHP_FAMILY_IPV6) {
		const struct ipv6hdr *h = ipv6_hdr(skb);

		key->addr = nfhp_in6_value(dir == NFHP_SETM_SRC ? &h->saddr :
							      &h->daddr);
		key->plen = 128;
	} else {
		const struct iphdr *h = ip_hdr(skb);

		key->addr = ntohl(dir == NFHP_SETM_SRC ? h->saddr : h->daddr);
		key->plen = 32;
	}
}

/**
 * nfhp_setm_match() - do all set matches of a rule hold for a packet?
 * @m: the set matches
 * @n: how many
 * @family: the packet's family
 * @skb: the packet
 *
 * The packet path: under rcu_read_lock().
 *
 * Return: true when they all hold.
 */
bool nfhp_setm_match(const struct nfhp_setm *m, unsigned int n, u8 family,
		     const struct sk_buff *skb)
{
	struct nfhp_set_key key;
	unsigned int i;
	bool hit;
	u32 value;

	for (i = 0; i < n; i++) {
		nfhp_setm_key(family, m[i].dir, skb, &key);
		hit = nfhp_set_lookup(m[i].set, &key, &value);
		if (hit && m[i].has_value)
			hit = value >= m[i].value_min && value <= m[i].value_max;
		if (hit == m[i].invert)
			return false;
	}
	return true;
}
