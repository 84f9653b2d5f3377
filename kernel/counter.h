/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: rule counters.
 *
 * Every rule counts packets and bytes per CPU, and the copies of a rule
 * that a replace makes share one counter.  Allocated one by one, a restore
 * of 100,000 rules made 100,000 per-CPU allocations and as many small ones
 * for the reference counts, each of them tracked under kmemleak.  The
 * counters come from blocks of 64 instead: two allocations per block.
 */
#ifndef _NFHP_COUNTER_H
#define _NFHP_COUNTER_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "mem.h"

/**
 * struct nfhp_counter - packet and byte counter
 * @packets: packets
 * @bytes: bytes
 */
struct nfhp_counter {
	u64 packets;
	u64 bytes;
};

struct nfhp_cblock;

/**
 * struct nfhp_rcounter - per-CPU counters shared by the copies of a rule
 * @pc: the counters
 * @block: the block it was handed out from, NULL for a policy's counter
 * @refs: rules holding it
 */
struct nfhp_rcounter {
	struct nfhp_counter __percpu *pc;
	struct nfhp_cblock *block;
	unsigned int refs;
};

/**
 * struct nfhp_cpool - where a rule set's rule counters come from
 * @mem: the account the blocks are on
 * @partial: the blocks with a free counter
 * @blocks: blocks allocated
 */
struct nfhp_cpool {
	struct nfhp_mem *mem;
	struct nfhp_cblock *partial;
	unsigned int blocks;
};

void nfhp_cpool_init(struct nfhp_cpool *p, struct nfhp_mem *mem);
u64 nfhp_cpool_bytes(const struct nfhp_cpool *p);
struct nfhp_rcounter *nfhp_rcounter_new(struct nfhp_cpool *p,
					const struct nfhp_counter *init);
void nfhp_rcounter_put(struct nfhp_cpool *p, struct nfhp_rcounter *c);
void nfhp_counter_sum(const struct nfhp_rcounter *c,
		      struct nfhp_counter *sum);
void nfhp_counter_zero(struct nfhp_rcounter *c);
void nfhp_counter_set(struct nfhp_rcounter *c, const struct nfhp_counter *val);

#endif /* _NFHP_COUNTER_H */
