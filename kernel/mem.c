// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: memory accounting, see mem.h.
 */
#include <linux/slab.h>
#include <linux/mm.h>

#include "mem.h"

static size_t nfhp_real_size(const void *p, size_t size)
{
	if (is_vmalloc_addr(p))
		return PAGE_ALIGN(size);
	return ksize(p);
}

static void *nfhp_alloc_gfp(struct nfhp_mem *mem, size_t size, gfp_t gfp)
{
	size_t real;
	void *p;

	if (mem->allocated + size > mem->limit)
		return NULL;
	p = kvmalloc(size, gfp | GFP_KERNEL | __GFP_NOWARN);
	if (!p)
		return NULL;
	real = nfhp_real_size(p, size);
	if (mem->allocated + real > mem->limit) {
		kvfree(p);
		return NULL;
	}
	mem->used += size;
	mem->allocated += real;
	return p;
}

/**
 * nfhp_alloc() - allocate zeroed memory on a rule set's account
 * @mem: the account
 * @size: bytes wanted
 *
 * Large blocks fall back to vmalloc, so a node array of a huge tree never
 * needs a high-order page.
 *
 * Return: the memory, or NULL when the allocator fails or the bound would
 * be crossed.
 */
void *nfhp_alloc(struct nfhp_mem *mem, size_t size)
{
	return nfhp_alloc_gfp(mem, size, __GFP_ZERO);
}

/**
 * nfhp_alloc_uninit() - nfhp_alloc() without zeroing
 * @mem: the account
 * @size: bytes wanted
 *
 * For arrays the caller fills before it reads them: the entry arrays of a
 * hook are reallocated at every commit, megabytes at 100,000 rules.
 *
 * Return: the memory, or NULL.
 */
void *nfhp_alloc_uninit(struct nfhp_mem *mem, size_t size)
{
	return nfhp_alloc_gfp(mem, size, 0);
}

/**
 * nfhp_free() - give back memory taken with nfhp_alloc()
 * @mem: the account it was taken on
 * @p: the memory, may be NULL
 * @size: the size it was asked for with
 */
void nfhp_free(struct nfhp_mem *mem, void *p, size_t size)
{
	if (!p)
		return;
	mem->used -= size;
	mem->allocated -= nfhp_real_size(p, size);
	kvfree(p);
}
