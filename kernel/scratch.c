// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: scratch memory for building trees, see scratch.h.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "scratch.h"

/* Most splits fit many times in one chunk; bigger requests get their own. */
#define NFHP_SCRATCH_CHUNK	(64 * 1024)
/*
 * The biggest chunk kept between builds.  Scratch memory is not on the
 * rule set's account, so a build's peak (tens of MiB for 100,000 rules)
 * must not stay behind; a wide node's update still fits.
 */
#define NFHP_SCRATCH_SPARE_MAX	(4 * 1024 * 1024)
/* Alignment of every buffer: enough for nfhp_u128. */
#define NFHP_SCRATCH_ALIGN	16

/**
 * struct nfhp_scratch_chunk - one block of the stack
 * @prev: the chunk below
 * @size: bytes in @data
 * @used: bytes of @data handed out
 * @data: the buffers
 */
struct nfhp_scratch_chunk {
	struct nfhp_scratch_chunk *prev;
	size_t size;
	size_t used;
	u8 data[] __aligned(NFHP_SCRATCH_ALIGN);
};

/**
 * nfhp_scratch_init() - start an empty stack
 * @s: the stack
 */
void nfhp_scratch_init(struct nfhp_scratch *s)
{
	s->top = NULL;
	s->spare = NULL;
}

/**
 * nfhp_scratch_destroy() - free every chunk
 * @s: the stack; every buffer taken from it is gone
 */
void nfhp_scratch_destroy(struct nfhp_scratch *s)
{
	struct nfhp_scratch_mark empty = {};

	nfhp_scratch_release(s, empty);
	kvfree(s->spare);
	s->spare = NULL;
}

/**
 * nfhp_scratch_mark() - note the top of the stack
 * @s: the stack
 *
 * Return: the mark to hand to nfhp_scratch_release().
 */
struct nfhp_scratch_mark nfhp_scratch_mark(const struct nfhp_scratch *s)
{
	struct nfhp_scratch_mark m = { .chunk = s->top };

	if (s->top)
		m.used = s->top->used;
	return m;
}

/*
 * Free a chunk, or keep it as the spare if it is the biggest seen up to
 * NFHP_SCRATCH_SPARE_MAX: an update of a wide node takes the same big
 * arrays at every commit, and faulting their pages in anew each time cost
 * more than filling them.
 */
static void nfhp_scratch_drop(struct nfhp_scratch *s,
			      struct nfhp_scratch_chunk *c)
{
	if (c->size > NFHP_SCRATCH_SPARE_MAX ||
	    (s->spare && s->spare->size >= c->size)) {
		kvfree(c);
		return;
	}
	kvfree(s->spare);
	s->spare = c;
}

/**
 * nfhp_scratch_release() - give back every buffer taken since a mark
 * @s: the stack
 * @m: the mark, from nfhp_scratch_mark() on this stack
 */
void nfhp_scratch_release(struct nfhp_scratch *s, struct nfhp_scratch_mark m)
{
	struct nfhp_scratch_chunk *c;

	while (s->top != m.chunk) {
		c = s->top;
		s->top = c->prev;
		nfhp_scratch_drop(s, c);
	}
	if (s->top)
		s->top->used = m.used;
}

static struct nfhp_scratch_chunk *nfhp_scratch_grow(struct nfhp_scratch *s,
						    size_t bytes)
{
	struct nfhp_scratch_chunk *c;
	size_t size = max_t(size_t, bytes, NFHP_SCRATCH_CHUNK);

	if (s->spare && s->spare->size >= size) {
		c = s->spare;
		s->spare = NULL;
	} else {
		c = kvmalloc(struct_size(c, data, size), GFP_KERNEL);
		if (!c)
			return NULL;
		c->size = size;
	}
	c->used = 0;
	c->prev = s->top;
	s->top = c;
	return c;
}

/**
 * nfhp_scratch_alloc() - take an array from the stack
 * @s: the stack
 * @n: number of elements
 * @size: bytes of one element
 *
 * The memory is not zeroed and is aligned for any key type.
 *
 * Return: the array, or NULL without memory.
 */
void *nfhp_scratch_alloc(struct nfhp_scratch *s, size_t n, size_t size)
{
	struct nfhp_scratch_chunk *c = s->top;
	size_t bytes;
	void *p;

	if (check_mul_overflow(n, size, &bytes) ||
	    bytes > SIZE_MAX - NFHP_SCRATCH_ALIGN)
		return NULL;
	bytes = ALIGN(bytes ? bytes : 1, NFHP_SCRATCH_ALIGN);
	if (!c || c->size - c->used < bytes) {
		c = nfhp_scratch_grow(s, bytes);
		if (!c)
			return NULL;
	}
	p = c->data + c->used;
	c->used += bytes;
	return p;
}

/**
 * nfhp_scratch_zalloc() - take a zeroed array from the stack
 * @s: the stack
 * @n: number of elements
 * @size: bytes of one element
 *
 * Return: the array, or NULL without memory.
 */
void *nfhp_scratch_zalloc(struct nfhp_scratch *s, size_t n, size_t size)
{
	void *p = nfhp_scratch_alloc(s, n, size);

	if (p)
		memset(p, 0, n * size);
	return p;
}
