/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: memory accounting.
 *
 * Every allocation of the classifier core goes through nfhp_alloc(), which
 * counts what was asked for ("used") and what the allocator really handed
 * out ("allocated"), and refuses to go past the bound.  nf-hipac 0.9 had the
 * same two numbers and a bound of half the RAM by default.
 */
#ifndef _NFHP_MEM_H
#define _NFHP_MEM_H

#include <linux/types.h>

/**
 * struct nfhp_mem - the memory account of one rule set
 * @limit: most bytes "allocated" may reach
 * @used: bytes requested by the core
 * @allocated: bytes the allocator really reserved for them
 */
struct nfhp_mem {
	u64 limit;
	u64 used;
	u64 allocated;
};

void *nfhp_alloc(struct nfhp_mem *mem, size_t size);
void *nfhp_alloc_uninit(struct nfhp_mem *mem, size_t size);
void nfhp_free(struct nfhp_mem *mem, void *p, size_t size);
void *nfhp_alloc_unaccounted(size_t size);
void nfhp_free_unaccounted(void *p);
bool nfhp_mem_charge(struct nfhp_mem *mem, void *p, size_t size);
bool nfhp_mem_reserve(struct nfhp_mem *mem, u64 bytes);
void nfhp_mem_unreserve(struct nfhp_mem *mem, u64 bytes);

#endif /* _NFHP_MEM_H */
