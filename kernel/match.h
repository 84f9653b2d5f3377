/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: a rule's matches normalized into boxes (box.h), and the
 * rule's body, which holds its boxes and its packed specification
 * (packed_spec.h) in one allocation.
 *
 * Negation, prefixes, masks, multiport lists and interface wildcards all
 * become lists of intervals when the rule is added, so the tree only ever
 * compares numbers.
 */
#ifndef _NFHP_MATCH_H
#define _NFHP_MATCH_H

#include "box.h"
#include "mem.h"
#include "packed_spec.h"
#include "spec.h"

nfhp_u128 nfhp_dim_span(u8 family, unsigned int dim);
void nfhp_region_full(u8 family, struct nfhp_region *reg);
int nfhp_box_from_spec(struct nfhp_mem *mem, u8 family,
		       const struct nfhp_rule_spec *s,
		       struct nfhp_box **box, const char **msg);
int nfhp_box_intersect(struct nfhp_mem *mem, const struct nfhp_box *a,
		       const struct nfhp_box *b, struct nfhp_box **out);

/**
 * struct nfhp_rule_body - what a rule is made of, in one allocation
 * @box: what it matches
 * @alt: a second box it matches, disjoint from @box, or NULL (a
 *	"-m multiport --ports" rule, see nfhp_rule_body_new())
 * @hot: the short packets its transport match drops, or NULL
 * @spec: what the user wrote, packed; it comes last in the block, so the
 *	block ends where it does (nfhp_rule_body_size())
 *
 * No size field: it would cost struct nfhp_rule its kmalloc-96 bucket.
 */
struct nfhp_rule_body {
	struct nfhp_box *box;
	struct nfhp_box *alt;
	struct nfhp_box *hot;
	struct nfhp_packed_spec *spec;
};

/**
 * nfhp_rule_body_size() - bytes of a rule's body
 * @body: the body, from nfhp_rule_body_new()
 *
 * Return: the size of the block, from @body->box to the end of @body->spec.
 */
static inline size_t nfhp_rule_body_size(const struct nfhp_rule_body *body)
{
	return (const u8 *)body->spec + body->spec->size -
	       (const u8 *)body->box;
}

int nfhp_rule_body_new(struct nfhp_mem *mem, u8 family,
		       const struct nfhp_rule_spec *s, struct nfhp_rule_body *body,
		       const char **msg);
void nfhp_rule_body_free(struct nfhp_mem *mem, struct nfhp_rule_body *body);

#endif /* _NFHP_MATCH_H */
