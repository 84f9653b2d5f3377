/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: where each rule of a built-in chain begins among its hook's
 * entries.
 *
 * An update walks the committed and the staged built-in chain side by
 * side and carries the entries of the rules they share over in runs
 * (nfhp_reflatten_hook() in reflatten.c).  It must know where a rule's
 * committed entries begin.  An array of the index of each rule's first
 * entry answered that, but every insert or delete shifted the indexes of
 * all the rules behind it: at 100,000 rules a copy of 400 KB, a quarter
 * of a single-rule update.
 *
 * This index keeps, per rule, the order key of its first entry instead.
 * Kept entries keep their keys, so an update changes only the rules it
 * created or removed, and a binary search of the committed entries by
 * key turns a key into an index.  It is a hash table of rules, built from
 * the committed entries at the first update that needs it and brought
 * forward by every update after that, like the candidate index.
 */
#ifndef _NFHP_RULE_STARTS_H
#define _NFHP_RULE_STARTS_H

#include <linux/types.h>

#include "mem.h"
#include "pageseq.h"
#include "tree.h"

/**
 * nfhp_rule_hash() - hash a rule by its address
 * @rule: the rule
 *
 * For the tables keyed by rule: this index and where rules stand
 * (nfhp_rule_locate() in chain.c).
 *
 * Return: the hash; its low bits pick a slot.
 */
static inline u32 nfhp_rule_hash(const struct nfhp_rule *rule)
{
	return (u32)((((unsigned long)rule >> 4) * 0x9e3779b97f4a7c15ull) >>
		     32);
}

/**
 * struct nfhp_rule_starts_slot - one rule of the index
 * @rule: the rule, NULL for a free slot
 * @order: the order key of its first entry
 */
struct nfhp_rule_starts_slot {
	const struct nfhp_rule *rule;
	u64 order;
};

/**
 * struct nfhp_rule_starts - the rules of a built-in chain and their first entry
 * @slot: open addressing with linear probing, at most 4/5 full
 * @mask: slots less one, a power of two less one; 0 without slots
 * @n: rules held
 * @valid: it holds exactly the rules of the hook's committed entries
 */
struct nfhp_rule_starts {
	struct nfhp_rule_starts_slot *slot;
	u32 mask;
	u32 n;
	bool valid;
};

void nfhp_rule_starts_clear(struct nfhp_mem *mem, struct nfhp_rule_starts *f);
int nfhp_rule_starts_build(struct nfhp_mem *mem, struct nfhp_rule_starts *f,
			   const struct nfhp_pageseq *e, unsigned int n,
		      unsigned int rules);
u64 nfhp_rule_starts_find(const struct nfhp_rule_starts *f,
			  const struct nfhp_rule *rule);
int nfhp_rule_starts_add(struct nfhp_mem *mem, struct nfhp_rule_starts *f,
			 const struct nfhp_rule *rule, u64 order);
void nfhp_rule_starts_del(struct nfhp_rule_starts *f,
			  const struct nfhp_rule *rule,
			  u64 order);
bool nfhp_rule_starts_equal(const struct nfhp_rule_starts *a,
			    const struct nfhp_rule_starts *b);

#endif /* _NFHP_RULE_STARTS_H */
