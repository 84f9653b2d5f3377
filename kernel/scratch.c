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
 * The bytes of the chunks kept between builds.  Scratch memory is not on
 * the rule set's account, so a build's peak (tens of MiB for 100,000
 * rules) must not stay behind; an update at 200,000 rules still fits.
 */
#define NFHP_SCRATCH_SPARE_MAX	(8 * 1024 * 1024)
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
	memset(s, 0, sizeof(*s));
}

/**
 * nfhp_scratch_destroy() - free every chunk
 * @s: the stack; every buffer taken from it is gone
 */
void nfhp_scratch_destroy(struct nfhp_scratch *s)
{
	struct nfhp_scratch_mark empty = {};
	int i;

	nfhp_scratch_release(s, empty);
	for (i = 0; i < NFHP_SCRATCH_SPARES; i++) {
		kvfree(s->spare[i]);
		s->spare[i] = NULL;
	}
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
 * The slot of the smallest spare of at least @size bytes; with @size 0, an
 * empty slot.  -1: none.
 */
static int nfhp_scratch_spare_fit(const struct nfhp_scratch *s, size_t size)
{
	int i, best = -1;

	for (i = 0; i < NFHP_SCRATCH_SPARES; i++) {
		if (!s->spare[i]) {
			if (!size)
				return i;
			continue;
		}
		if (s->spare[i]->size >= size &&
		    (best < 0 || s->spare[i]->size < s->spare[best]->size))
			best = i;
	}
	return best;
}

/* Bytes held by the spares. */
static size_t nfhp_scratch_spare_bytes(const struct nfhp_scratch *s)
{
	size_t bytes = 0;
	int i;

	for (i = 0; i < NFHP_SCRATCH_SPARES; i++)
		if (s->spare[i])
			bytes += s->spare[i]->size;
	return bytes;
}

/*
 * Free a chunk, or keep it as a spare, the biggest ones up to
 * NFHP_SCRATCH_SPARE_MAX in all: an update takes the same big arrays at
 * every commit, and faulting their pages in anew each time cost more than
 * filling them (1 % of the inserts at 100,000 rules took 10-30 ms).
 */
static void nfhp_scratch_drop(struct nfhp_scratch *s,
			      struct nfhp_scratch_chunk *c)
{
	int i = nfhp_scratch_spare_fit(s, 0);

	if (i < 0)
		i = nfhp_scratch_spare_fit(s, 1);	/* the smallest */
	if (c->size > NFHP_SCRATCH_SPARE_MAX ||
	    (s->spare[i] && s->spare[i]->size >= c->size)) {
		kvfree(c);
		return;
	}
	kvfree(s->spare[i]);
	s->spare[i] = c;
	while (nfhp_scratch_spare_bytes(s) > NFHP_SCRATCH_SPARE_MAX) {
		i = nfhp_scratch_spare_fit(s, 1);
		kvfree(s->spare[i]);
		s->spare[i] = NULL;
	}
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
	size_t size = max_t(size_t, bytes, NFHP_SCRATCH_CHUNK);
	struct nfhp_scratch_chunk *c;

	int i = nfhp_scratch_spare_fit(s, size);

	if (i >= 0) {
		c = s->spare[i];
		s->spare[i] = NULL;
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
