/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: which of its hook's trees an entry goes to, see group.c.
 */
#ifndef _NFHP_GROUP_H
#define _NFHP_GROUP_H

#include <linux/types.h>

#include "pageseq.h"
#include "tree.h"

/*
 * Bits of a hook's fold: the middle width class joins the narrow one;
 * and for IPv6, how far up the address the width classes sit, in bytes
 * (group.c, nfhp_fold_shift()).
 */
#define NFHP_FOLD_SRC		0x01
#define NFHP_FOLD_DST		0x02
#define NFHP_FOLD_SHIFT_SHIFT	2
#define NFHP_FOLD_SHIFT_MASK	0x3c

/* The bits an IPv6 hook's width classes are moved up by, from its fold. */
static inline unsigned int nfhp_fold_shift(u8 fold)
{
	return ((fold & NFHP_FOLD_SHIFT_MASK) >> NFHP_FOLD_SHIFT_SHIFT) * 8;
}

/*
 * A dimension is folded while its middle entries would be copied, on
 * estimate, into fewer regions than this per entry of the hook: between
 * the ClassBench sets (at most 0.42) and bench/seed.py's nesting prefixes
 * (1.26 and up).  nfhp_tunables.fold_copies is this, or other values in
 * tests (0 folds nothing).
 */
#define NFHP_FOLD_COPIES	1

unsigned int nfhp_group_of(const struct nfhp_entry *e, u8 fold);
int nfhp_fold_choose(const struct nfhp_pageseq *e, const u8 *now, u8 *fold);

#endif /* _NFHP_GROUP_H */
