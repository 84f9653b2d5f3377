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

/**
 * nfhp_mem_charge() - put memory on an account, within its bound
 * @mem: the account
 * @p: memory from nfhp_alloc_unaccounted()
 * @size: the size it was asked for with
 *
 * The caller serializes this with every other use of @mem.
 *
 * Return: true, or false with @p freed when the bound would be crossed.
 */
bool nfhp_mem_charge(struct nfhp_mem *mem, void *p, size_t size)
{
	size_t real = nfhp_real_size(p, size);

	if (mem->allocated + real > mem->limit) {
		kvfree(p);
		return false;
	}
	mem->used += size;
	mem->allocated += real;
	return true;
}

/**
 * nfhp_alloc_unaccounted() - memory to be charged later
 * @size: bytes wanted
 *
 * Needs no lock: a builder allocates a node while another may use the
 * account, and charges it with nfhp_mem_charge() under the lock.  Free
 * it with nfhp_free_unaccounted() if it is not charged.
 *
 * Return: uninitialized memory, or NULL.
 */
void *nfhp_alloc_unaccounted(size_t size)
{
	return kvmalloc(size, GFP_KERNEL | __GFP_NOWARN);
}

/**
 * nfhp_free_unaccounted() - give back memory that was never charged
 * @p: memory from nfhp_alloc_unaccounted(), may be NULL
 */
void nfhp_free_unaccounted(void *p)
{
	kvfree(p);
}

static void *nfhp_alloc_gfp(struct nfhp_mem *mem, size_t size, gfp_t gfp)
{
	void *p;

	if (mem->allocated + size > mem->limit)
		return NULL;
	p = kvmalloc(size, gfp | GFP_KERNEL | __GFP_NOWARN);
	if (!p || !nfhp_mem_charge(mem, p, size))
		return NULL;
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

/**
 * nfhp_mem_reserve() - put memory yet to be allocated on an account
 * @mem: the account
 * @bytes: what the allocator will really hand out, at most
 *
 * For memory taken where the account cannot be locked: the packet path
 * makes states unlocked, within a bound reserved here beforehand
 * (state_table.c).  The caller serializes this with every other use of
 * @mem.
 *
 * Return: true, or false when the bound would be crossed.
 */
bool nfhp_mem_reserve(struct nfhp_mem *mem, u64 bytes)
{
	if (mem->allocated + bytes > mem->limit)
		return false;
	mem->used += bytes;
	mem->allocated += bytes;
	return true;
}

/**
 * nfhp_mem_unreserve() - give back what nfhp_mem_reserve() took
 * @mem: the account
 * @bytes: as reserved
 */
void nfhp_mem_unreserve(struct nfhp_mem *mem, u64 bytes)
{
	mem->used -= bytes;
	mem->allocated -= bytes;
}
