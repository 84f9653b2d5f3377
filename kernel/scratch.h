/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: scratch memory for building trees.
 *
 * Building a tree splits regions recursively, and every split needs a
 * handful of arrays that live exactly as long as the split: its interval
 * ends, its children, its active entries, its memo.  A large rule set
 * makes hundreds of thousands of splits.  Taking those arrays from the
 * slab allocator cost more than the build itself (and far more on a
 * kernel with KASAN or kmemleak), so they come from a stack instead: a
 * split notes the top with nfhp_scratch_mark(), takes what it needs, and
 * gives it all back with nfhp_scratch_release() when it returns.
 */
#ifndef _NFHP_SCRATCH_H
#define _NFHP_SCRATCH_H

#include <linux/types.h>

struct nfhp_scratch_chunk;

/* Released chunks kept for reuse: one commit takes about three big ones. */
#define NFHP_SCRATCH_SPARES	4

/**
 * struct nfhp_scratch - a stack of scratch buffers
 * @top: the newest chunk, NULL when empty
 * @spare: the biggest chunks released (up to a bound, see scratch.c),
 *	kept for the next ones needed, so that a split at a chunk's end does
 *	not allocate and free one per child, and an update does not allocate
 *	its arrays anew at every commit; NULL where none is kept
 */
struct nfhp_scratch {
	struct nfhp_scratch_chunk *top;
	struct nfhp_scratch_chunk *spare[NFHP_SCRATCH_SPARES];
};

/**
 * struct nfhp_scratch_mark - a position of the stack to release to
 * @chunk: the chunk that was on top
 * @used: bytes used in it
 */
struct nfhp_scratch_mark {
	struct nfhp_scratch_chunk *chunk;
	size_t used;
};

void nfhp_scratch_init(struct nfhp_scratch *s);
void nfhp_scratch_destroy(struct nfhp_scratch *s);
struct nfhp_scratch_mark nfhp_scratch_mark(const struct nfhp_scratch *s);
void nfhp_scratch_release(struct nfhp_scratch *s, struct nfhp_scratch_mark m);
void *nfhp_scratch_alloc(struct nfhp_scratch *s, size_t n, size_t size);
void *nfhp_scratch_zalloc(struct nfhp_scratch *s, size_t n, size_t size);

#endif /* _NFHP_SCRATCH_H */
