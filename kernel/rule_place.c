// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: where the committed keep-state rules stand.
 *
 * A dynamic state knows the rule that made it by a pointer the rule's
 * handle gave it (&struct nfhp_state_rule.rule), not by its chain and
 * position, which change with every commit.  A listing of the states
 * names the rule as iptables does, "FORWARD:3": it asks here once for a
 * map of the keep-state rules of the committed rule set, sorted by what
 * their states know them by, and looks each state's rule up in it.  A
 * state added by hand names its rule by chain and position, and gets
 * the handle of the committed rule there.
 *
 * Both read the committed rules, whatever a transaction stages: states
 * are made by the rules packets see.  The caller holds the rule set's
 * mutex, and the map is good until it lets go.
 */
#include <linux/bsearch.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sort.h>

#include "rule_place.h"
#include "ruleset_priv.h"

/**
 * nfhp_rule_place_cmp() - order two places by their keys
 * @a: a place
 * @b: another
 *
 * Return: less than, equal to or more than 0.
 */
static int nfhp_rule_place_cmp(const void *a, const void *b)
{
	const struct nfhp_rule_place *x = a, *y = b;

	if (x->key == y->key)
		return 0;
	return (unsigned long)x->key < (unsigned long)y->key ? -1 : 1;
}

/**
 * nfhp_rule_places() - the places of the committed keep-state rules
 * @rs: the rule set, its mutex held
 * @key: what the states of a rule with handle @ext know it by, or NULL
 *	for the handle itself
 * @places: filled with the first @cap of them, sorted by key
 * @cap: room in @places
 *
 * One pass over the committed rules.  A caller with too little room
 * asks again with as much as the first call returned.
 *
 * Return: how many there are, which may be more than @cap.
 */
unsigned int nfhp_rule_places(const struct nfhp_ruleset *rs,
			      const void *(*key)(const void *ext),
			      struct nfhp_rule_place *places, unsigned int cap)
{
	const struct nfhp_model *m = rs->live;
	const struct nfhp_chain *c;
	const struct nfhp_rule *r;
	unsigned int i, j, n = 0;

	for (i = 0; m && rs->nstate && i < m->n; i++) {
		c = m->chains[i];
		for (j = 0; j < c->rules.n; j++) {
			r = nfhp_chain_at(c, j);
			if (r->state != NFHP_RSTATE_KEEP || !r->ext)
				continue;
			if (n < cap)
				places[n] = (struct nfhp_rule_place){
					.key = key ? key(r->ext) : r->ext,
					.chain = c->name, .pos = j + 1,
				};
			n++;
		}
	}
	sort(places, min(n, cap), sizeof(*places), nfhp_rule_place_cmp, NULL);
	return n;
}

/**
 * nfhp_rule_place_find() - the place of a state's rule
 * @places: the map of nfhp_rule_places()
 * @n: its places
 * @key: the state's rule (&struct nfhp_state.rule)
 *
 * Return: the place, or NULL when the rule is not committed.
 */
const struct nfhp_rule_place *
nfhp_rule_place_find(const struct nfhp_rule_place *places, unsigned int n,
		     const void *key)
{
	struct nfhp_rule_place want = { .key = key };

	return bsearch(&want, places, n, sizeof(*places), nfhp_rule_place_cmp);
}

/**
 * nfhp_rule_keep_ext() - the handle of a committed keep-state rule
 * @rs: the rule set, its mutex held
 * @chain: the rule's chain
 * @pos: its 1-based position
 * @ext: set to its handle
 *
 * Return: 0, -ENOENT when there is no such chain or rule, -EINVAL when
 * the rule is no keep-state rule.
 */
int nfhp_rule_keep_ext(const struct nfhp_ruleset *rs, const char *chain,
		       unsigned int pos, void **ext)
{
	const struct nfhp_model *m = rs->live;
	const struct nfhp_chain *c;
	const struct nfhp_rule *r;
	int i;

	i = m ? nfhp_chain_index(m, chain) : -1;
	if (i < 0)
		return -ENOENT;
	c = m->chains[i];
	if (!pos || pos > c->rules.n)
		return -ENOENT;
	r = nfhp_chain_at(c, pos - 1);
	if (r->state != NFHP_RSTATE_KEEP || !r->ext)
		return -EINVAL;
	*ext = r->ext;
	return 0;
}
