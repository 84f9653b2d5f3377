// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: what a box answers once built, see box.h.
 *
 * The tree asks these while it builds and updates (does an entry cover a
 * node's region, meet it), and the control path asks them to compare
 * rules (is one rule's box inside another's, are two disjoint).  None of
 * them allocates but nfhp_box_clone().
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "box.h"
#include "mem.h"

/**
 * nfhp_box_clone() - a copy of a box
 * @mem: the account to allocate it on
 * @b: the box
 * @out: set to the copy
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_box_clone(struct nfhp_mem *mem, const struct nfhp_box *b,
		   struct nfhp_box **out)
{
	*out = nfhp_alloc_uninit(mem, b->size);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, b, b->size);
	return 0;
}

/**
 * nfhp_box_free() - free a box
 * @mem: the account it was allocated on
 * @b: the box, may be NULL
 */
void nfhp_box_free(struct nfhp_mem *mem, struct nfhp_box *b)
{
	if (b)
		nfhp_free(mem, b, b->size);
}

/**
 * nfhp_box_covers_dim() - do @b's intervals in @dim hold all of @span?
 * @b: the box
 * @dim: a dimension @b restricts
 * @span: the interval
 *
 * Return: true when one interval of @b contains @span.
 */
bool nfhp_box_covers_dim(const struct nfhp_box *b, unsigned int dim,
			 const struct nfhp_range *span)
{
	const struct nfhp_range *r = nfhp_box_ranges(b, dim);
	unsigned int i;

	for (i = 0; i < nfhp_box_nranges(b, dim) && r[i].lo <= span->lo; i++)
		if (r[i].hi >= span->hi)
			return true;
	return false;
}

static bool nfhp_box_meets_dim(const struct nfhp_box *b, unsigned int dim,
			       const struct nfhp_range *span)
{
	const struct nfhp_range *r = nfhp_box_ranges(b, dim);
	unsigned int i;

	for (i = 0; i < nfhp_box_nranges(b, dim) && r[i].lo <= span->hi; i++)
		if (r[i].hi >= span->lo)
			return true;
	return false;
}

/**
 * nfhp_box_intersects() - can a packet of @reg match @b?
 * @b: the box
 * @reg: the region
 *
 * Return: true when @b and @reg share at least one point.
 */
bool nfhp_box_intersects(const struct nfhp_box *b,
			 const struct nfhp_region *reg)
{
	unsigned int m;

	if (b->empty)
		return false;
	for (m = b->restricted; m; m &= m - 1)
		if (!nfhp_box_meets_dim(b, __builtin_ctz(m),
					&reg->d[__builtin_ctz(m)]))
			return false;
	return true;
}

/**
 * nfhp_box_covers() - does every packet of @reg match @b?
 * @b: the box
 * @reg: the region
 *
 * Return: true when @reg lies inside @b.
 */
bool nfhp_box_covers(const struct nfhp_box *b, const struct nfhp_region *reg)
{
	unsigned int m;

	if (b->empty)
		return false;
	for (m = b->restricted; m; m &= m - 1)
		if (!nfhp_box_covers_dim(b, __builtin_ctz(m),
					 &reg->d[__builtin_ctz(m)]))
			return false;
	return true;
}

static bool nfhp_ranges_meet(const struct nfhp_range *a, unsigned int na,
			     const struct nfhp_range *b, unsigned int nb)
{
	unsigned int i = 0, j = 0;

	while (i < na && j < nb) {
		if (a[i].hi < b[j].lo)
			i++;
		else if (b[j].hi < a[i].lo)
			j++;
		else
			return true;
	}
	return false;
}

/* Does every interval of b[0..nb) lie inside one of a[0..na)? */
static bool nfhp_ranges_inside(const struct nfhp_range *a, unsigned int na,
			       const struct nfhp_range *b, unsigned int nb)
{
	unsigned int i = 0, j;

	for (j = 0; j < nb; j++) {
		while (i < na && a[i].hi < b[j].lo)
			i++;
		if (i == na || a[i].lo > b[j].lo || a[i].hi < b[j].hi)
			return false;
	}
	return true;
}

/**
 * nfhp_box_contains() - does every packet of @inner match @outer?
 * @outer: the bigger box
 * @inner: the smaller box
 *
 * Then @inner is also the intersection of the two, and a user chain's rule
 * inside what its jump matches can use its own box: see
 * nfhp_flatten_box().  Intervals of @outer that touch without being
 * merged can make the answer a false "no", never a false "yes".
 *
 * Return: true when @inner lies inside @outer.
 */
bool nfhp_box_contains(const struct nfhp_box *outer,
		       const struct nfhp_box *inner)
{
	unsigned int m, d;

	if (inner->empty)
		return true;
	if (outer->empty || (outer->restricted & ~inner->restricted))
		return false;
	for (m = outer->restricted; m; m &= m - 1) {
		d = __builtin_ctz(m);
		if (!nfhp_ranges_inside(nfhp_box_ranges(outer, d),
					nfhp_box_nranges(outer, d),
					nfhp_box_ranges(inner, d),
					nfhp_box_nranges(inner, d)))
			return false;
	}
	return true;
}

/* Are @a and @b disjoint in one of the dimensions @dims (bits)? */
static bool nfhp_box_apart(const struct nfhp_box *a, const struct nfhp_box *b,
			   unsigned int dims)
{
	unsigned int m, d;

	if (a->empty || b->empty)
		return true;
	for (m = a->restricted & b->restricted & dims; m; m &= m - 1) {
		d = __builtin_ctz(m);
		if (!nfhp_ranges_meet(nfhp_box_ranges(a, d),
				      nfhp_box_nranges(a, d),
				      nfhp_box_ranges(b, d),
				      nfhp_box_nranges(b, d)))
			return true;
	}
	return false;
}

/**
 * nfhp_box_disjoint() - can no packet match both boxes?
 * @a: one box
 * @b: the other
 *
 * Return: true when the boxes share no point.
 */
bool nfhp_box_disjoint(const struct nfhp_box *a, const struct nfhp_box *b)
{
	return nfhp_box_apart(a, b, ~0u);
}

/**
 * nfhp_box_disjoint_beside() - are two boxes apart in another dimension?
 * @a: one box
 * @b: the other
 * @dim: the dimension not looked at
 *
 * Whether the boxes would still share no point if @dim were whole in
 * both: a packet that a target changes in @dim alone matches at most one.
 *
 * Return: true when the boxes are disjoint in a dimension other than
 * @dim, or one of them is empty.
 */
bool nfhp_box_disjoint_beside(const struct nfhp_box *a,
			      const struct nfhp_box *b, unsigned int dim)
{
	return nfhp_box_apart(a, b, ~BIT(dim));
}

/**
 * nfhp_box_contains_key() - does a packet match @b?
 * @b: the box
 * @key: the packet
 *
 * Return: true when the point @key lies inside @b.
 */
bool nfhp_box_contains_key(const struct nfhp_box *b,
			   const struct nfhp_key *key)
{
	const struct nfhp_range *r;
	unsigned int m, d, i, n;
	nfhp_u128 v;

	if (b->empty)
		return false;
	for (m = b->restricted; m; m &= m - 1) {
		d = __builtin_ctz(m);
		r = nfhp_box_ranges(b, d);
		n = nfhp_box_nranges(b, d);
		v = key->v[d];
		for (i = 0; i < n && r[i].hi < v; i++)
			;
		if (i == n || r[i].lo > v)
			return false;
	}
	return true;
}
