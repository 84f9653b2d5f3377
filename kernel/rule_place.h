/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: where the committed keep-state rules stand (rule_place.c).
 */
#ifndef _NFHP_RULE_PLACE_H
#define _NFHP_RULE_PLACE_H

#include <linux/types.h>

struct nfhp_ruleset;

/**
 * struct nfhp_rule_place - where a committed keep-state rule stands
 * @key: what its states know it by: the @key of nfhp_rule_places() of
 *	its handle
 * @chain: its chain's name, good while the committed rules do not change
 * @pos: its 1-based position in the chain
 */
struct nfhp_rule_place {
	const void *key;
	const char *chain;
	unsigned int pos;
};

unsigned int nfhp_rule_places(const struct nfhp_ruleset *rs,
			      const void *(*key)(const void *ext),
			      struct nfhp_rule_place *places, unsigned int cap);
const struct nfhp_rule_place *
nfhp_rule_place_find(const struct nfhp_rule_place *places, unsigned int n,
		     const void *key);
int nfhp_rule_keep_ext(const struct nfhp_ruleset *rs, const char *chain,
		       unsigned int pos, void **ext);

#endif /* _NFHP_RULE_PLACE_H */
