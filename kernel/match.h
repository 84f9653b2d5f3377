/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: normalized matches ("boxes") and packed rule specifications.
 *
 * A box is what a rule matches, as the tree sees it: for every dimension
 * either nothing (the rule does not restrict it) or a sorted list of
 * disjoint, non-adjacent closed intervals.  Negation, prefixes, masks,
 * multiport lists and interface wildcards all become such lists when the
 * rule is added, so the tree only ever compares numbers.
 */
#ifndef _NFHP_MATCH_H
#define _NFHP_MATCH_H

#include "spec.h"
#include "mem.h"

/**
 * struct nfhp_box - the normalized match of a rule
 * @restricted: bit d is set when dimension d is restricted
 * @empty: the rule can match no packet at all
 * @size: bytes allocated for the box
 * @start: the intervals of dimension d are @r[@start[d]] up to, not
 *	including, @r[@start[d + 1]]
 * @r: the intervals
 */
struct nfhp_box {
	u16 restricted;
	u8 empty;
	u32 size;
	u16 start[NFHP_DIM_MAX + 1];
	struct nfhp_range r[];
};

/**
 * struct nfhp_region - an axis-parallel box with one interval per dimension
 * @d: the interval of each dimension
 *
 * Every node of a tree stands for a region: the packets that reach it.
 */
struct nfhp_region {
	struct nfhp_range d[NFHP_DIM_MAX];
};

/**
 * nfhp_box_nranges() - number of intervals of a box in one dimension
 * @b: the box
 * @dim: the dimension
 *
 * Return: 0 when @dim is not restricted.
 */
static inline unsigned int nfhp_box_nranges(const struct nfhp_box *b,
					    unsigned int dim)
{
	return b->start[dim + 1] - b->start[dim];
}

/**
 * nfhp_box_ranges() - the intervals of a box in one dimension
 * @b: the box
 * @dim: the dimension
 *
 * Return: the first of nfhp_box_nranges() intervals.
 */
static inline const struct nfhp_range *
nfhp_box_ranges(const struct nfhp_box *b, unsigned int dim)
{
	return &b->r[b->start[dim]];
}

nfhp_u128 nfhp_dim_span(unsigned int dim);
void nfhp_region_full(struct nfhp_region *reg);
int nfhp_box_from_spec(struct nfhp_mem *mem, const struct nfhp_rule_spec *s,
		       struct nfhp_box **box, const char **msg);
int nfhp_box_intersect(struct nfhp_mem *mem, const struct nfhp_box *a,
		       const struct nfhp_box *b, struct nfhp_box **out);
int nfhp_box_clone(struct nfhp_mem *mem, const struct nfhp_box *b,
		   struct nfhp_box **out);
void nfhp_box_free(struct nfhp_mem *mem, struct nfhp_box *b);
bool nfhp_box_intersects(const struct nfhp_box *b,
			 const struct nfhp_region *reg);
bool nfhp_box_covers(const struct nfhp_box *b, const struct nfhp_region *reg);
bool nfhp_box_covers_dim(const struct nfhp_box *b, unsigned int dim,
			 const struct nfhp_range *span);
bool nfhp_box_disjoint(const struct nfhp_box *a, const struct nfhp_box *b);
bool nfhp_box_contains(const struct nfhp_box *outer,
		       const struct nfhp_box *inner);
bool nfhp_box_contains_key(const struct nfhp_box *b,
			   const struct nfhp_key *key);

/**
 * struct nfhp_packed_spec - a rule specification in as few bytes as it needs
 * @size: bytes allocated, this header included
 * @len: bytes of @data in use
 * @data: the packed matches, action, target and comment
 */
struct nfhp_packed_spec {
	u32 size;
	u32 len;
	u8 data[];
};

int nfhp_spec_pack(struct nfhp_mem *mem, const struct nfhp_rule_spec *s,
		   struct nfhp_packed_spec **out);

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

int nfhp_rule_body_new(struct nfhp_mem *mem, const struct nfhp_rule_spec *s,
		       struct nfhp_rule_body *body, const char **msg);
void nfhp_rule_body_free(struct nfhp_mem *mem, struct nfhp_rule_body *body);
void nfhp_spec_unpack(const struct nfhp_packed_spec *p,
		      struct nfhp_rule_spec *s);
bool nfhp_packed_spec_equal(const struct nfhp_packed_spec *a,
			    const struct nfhp_packed_spec *b);
u32 nfhp_packed_spec_hash(const struct nfhp_packed_spec *p);

#endif /* _NFHP_MATCH_H */
