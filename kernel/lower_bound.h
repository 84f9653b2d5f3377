/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: ranks in sorted arrays, for the control path.
 *
 * Commits look up where a key falls among sorted u64 keys (the fold of
 * group.c, the changed keys of a commit) and among entries sorted by
 * order (a flattened hook).  Each is a lower bound: the number of items
 * below the key, which is also the index of the first item at or above
 * it.  The kernel's bsearch() finds only equal items.
 */
#ifndef _NFHP_LOWER_BOUND_H
#define _NFHP_LOWER_BOUND_H

#include <linux/types.h>

#include "tree.h"

/**
 * nfhp_u64_lower_bound() - how many of some sorted keys are below a key
 * @keys: the keys, rising
 * @n: how many
 * @k: the key
 *
 * Return: the index of the first of @keys at or above @k, @n if none is.
 */
static inline unsigned int nfhp_u64_lower_bound(const u64 *keys, unsigned int n,
						u64 k)
{
	unsigned int lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (keys[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * nfhp_entry_lower_bound() - where an order falls among entries sorted by order
 * @e: the entries, their orders rising
 * @lo: the first entry searched
 * @hi: one past the last entry searched
 * @order: the order
 *
 * Return: the index of the first entry of @e[@lo .. @hi - 1] whose order
 * is @order or more, @hi if none is.
 */
static inline unsigned int
nfhp_entry_lower_bound(const struct nfhp_entry *const *e, unsigned int lo,
		       unsigned int hi, u64 order)
{
	unsigned int mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e[mid]->order < order)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif /* _NFHP_LOWER_BOUND_H */
