/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: boxes, what a rule matches as the tree sees it.
 *
 * A box has, for every dimension, either nothing (the rule does not
 * restrict it) or a sorted list of disjoint, non-adjacent closed
 * intervals.  match.c builds boxes from rules; box.c answers questions
 * about them.
 */
#ifndef _NFHP_BOX_H
#define _NFHP_BOX_H

#include "key.h"
#include "mem.h"
#include "spec.h"

/**
 * struct nfhp_box - the normalized match of a rule
 * @restricted: bit d is set when dimension d is restricted
 * @empty: the rule can match no packet at all
 * @family: the &enum nfhp_family of its rule set, which sets the width of
 *	the address dimensions
 * @size: bytes allocated for the box
 * @start: the intervals of dimension d are @r[@start[d]] up to, not
 *	including, @r[@start[d + 1]]
 * @r: the intervals
 */
struct nfhp_box {
	u16 restricted;
	u8 empty;
	u8 family;
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

int nfhp_box_clone(struct nfhp_mem *mem, const struct nfhp_box *b,
		   struct nfhp_box **out);
void nfhp_box_free(struct nfhp_mem *mem, struct nfhp_box *b);
bool nfhp_box_intersects(const struct nfhp_box *b,
			 const struct nfhp_region *reg);
bool nfhp_box_covers(const struct nfhp_box *b, const struct nfhp_region *reg);
bool nfhp_box_covers_dim(const struct nfhp_box *b, unsigned int dim,
			 const struct nfhp_range *span);
bool nfhp_box_disjoint(const struct nfhp_box *a, const struct nfhp_box *b);
bool nfhp_box_disjoint_beside(const struct nfhp_box *a,
			      const struct nfhp_box *b, unsigned int dim);
bool nfhp_box_contains(const struct nfhp_box *outer,
		       const struct nfhp_box *inner);
bool nfhp_box_contains_key(const struct nfhp_box *b,
			   const struct nfhp_key *key);

#endif /* _NFHP_BOX_H */
