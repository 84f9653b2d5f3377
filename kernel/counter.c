// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: rule counters, see counter.h.
 *
 * A block holds %NFHP_CBLOCK_SLOTS handles and one per-CPU array of as many
 * counters; a bitmap says which are handed out.  Blocks with a free slot
 * are on the pool's "partial" list, and a block whose last counter is put
 * is freed.  Counters are put only after the grace period that retires
 * the trees counting in them (release.c), so a slot handed out again is
 * never bumped for its previous rule.  The control path's mutex serializes
 * every call.
 */
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "counter.h"

#define NFHP_CBLOCK_SLOTS	64
#define NFHP_CBLOCK_FULL	(~0ull)

/**
 * struct nfhp_cblock - a block of rule counters
 * @prev: the previous block on the partial list
 * @next: the next block on the partial list
 * @pc: the per-CPU counters, @slot[i] counting in @pc[i]
 * @used: bit i set when @slot[i] is handed out
 * @slot: the handles
 */
struct nfhp_cblock {
	struct nfhp_cblock *prev;
	struct nfhp_cblock *next;
	struct nfhp_counter __percpu *pc;
	u64 used;
	struct nfhp_rcounter slot[NFHP_CBLOCK_SLOTS];
};

/**
 * nfhp_cpool_init() - make an empty pool
 * @p: the pool
 * @mem: the account to allocate its blocks on
 */
void nfhp_cpool_init(struct nfhp_cpool *p, struct nfhp_mem *mem)
{
	p->mem = mem;
	p->partial = NULL;
	p->blocks = 0;
}

/**
 * nfhp_cpool_bytes() - memory the counters of a pool take
 * @p: the pool
 *
 * Each block is one allocation on the account and NFHP_CBLOCK_SLOTS
 * counters in the percpu allocator, outside it: a copy for each possible
 * CPU.
 *
 * Return: the bytes of both.
 */
u64 nfhp_cpool_bytes(const struct nfhp_cpool *p)
{
	u64 percpu = (u64)num_possible_cpus() * NFHP_CBLOCK_SLOTS *
		     sizeof(struct nfhp_counter);

	return p->blocks * (sizeof(struct nfhp_cblock) + percpu);
}

static void nfhp_cblock_link(struct nfhp_cpool *p, struct nfhp_cblock *b)
{
	b->prev = NULL;
	b->next = p->partial;
	if (p->partial)
		p->partial->prev = b;
	p->partial = b;
}

static void nfhp_cblock_unlink(struct nfhp_cpool *p, struct nfhp_cblock *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		p->partial = b->next;
	if (b->next)
		b->next->prev = b->prev;
	b->prev = NULL;
	b->next = NULL;
}

static struct nfhp_cblock *nfhp_cblock_new(struct nfhp_cpool *p)
{
	struct nfhp_cblock *b = nfhp_alloc(p->mem, sizeof(*b));

	if (!b)
		return NULL;
	b->pc = __alloc_percpu(NFHP_CBLOCK_SLOTS * sizeof(*b->pc),
			       __alignof__(*b->pc));
	if (!b->pc) {
		nfhp_free(p->mem, b, sizeof(*b));
		return NULL;
	}
	nfhp_cblock_link(p, b);
	p->blocks++;
	return b;
}

/**
 * nfhp_rcounter_new() - hand out a counter
 * @p: the pool
 * @init: the counter's values, or NULL for zero
 *
 * Return: the counter, holding one reference, or NULL without memory.
 */
struct nfhp_rcounter *nfhp_rcounter_new(struct nfhp_cpool *p,
					const struct nfhp_counter *init)
{
	struct nfhp_cblock *b = p->partial;
	struct nfhp_rcounter *c;
	unsigned int i;
	int cpu;

	if (!b) {
		b = nfhp_cblock_new(p);
		if (!b)
			return NULL;
	}
	i = __builtin_ctzll(~b->used);
	b->used |= 1ull << i;
	if (b->used == NFHP_CBLOCK_FULL)
		nfhp_cblock_unlink(p, b);
	c = &b->slot[i];
	c->pc = b->pc + i;
	c->block = b;
	c->refs = 1;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(c->pc, cpu), 0, sizeof(*c->pc));
	if (init)
		*per_cpu_ptr(c->pc, 0) = *init;
	return c;
}

/**
 * nfhp_rcounter_put() - drop a reference to a counter
 * @p: the pool it came from
 * @c: the counter
 *
 * The last reference gives the counter back to its block, and the block's
 * last counter frees the block.
 */
void nfhp_rcounter_put(struct nfhp_cpool *p, struct nfhp_rcounter *c)
{
	struct nfhp_cblock *b = c->block;

	if (--c->refs)
		return;
	if (WARN_ON(!b))
		return;
	if (b->used == NFHP_CBLOCK_FULL)
		nfhp_cblock_link(p, b);
	b->used &= ~(1ull << (c - b->slot));
	if (b->used)
		return;
	nfhp_cblock_unlink(p, b);
	free_percpu(b->pc);
	nfhp_free(p->mem, b, sizeof(*b));
	p->blocks--;
}

/**
 * nfhp_counter_sum() - add up a counter over the CPUs
 * @c: the counter
 * @sum: set to the totals
 */
void nfhp_counter_sum(const struct nfhp_rcounter *c, struct nfhp_counter *sum)
{
	int cpu;

	sum->packets = 0;
	sum->bytes = 0;
	for_each_possible_cpu(cpu) {
		const struct nfhp_counter *pc = per_cpu_ptr(c->pc, cpu);

		sum->packets += READ_ONCE(pc->packets);
		sum->bytes += READ_ONCE(pc->bytes);
	}
}

/**
 * nfhp_counter_zero() - zero a counter on every CPU
 * @c: the counter
 */
void nfhp_counter_zero(struct nfhp_rcounter *c)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct nfhp_counter *pc = per_cpu_ptr(c->pc, cpu);

		WRITE_ONCE(pc->packets, 0);
		WRITE_ONCE(pc->bytes, 0);
	}
}

/**
 * nfhp_counter_set() - set a counter to given totals
 * @c: the counter
 * @val: the totals
 *
 * CPU 0's share holds them, as in a new counter; packets that
 * other CPUs count meanwhile may be lost, as in a zeroing.
 */
void nfhp_counter_set(struct nfhp_rcounter *c, const struct nfhp_counter *val)
{
	struct nfhp_counter *pc0 = per_cpu_ptr(c->pc, 0);

	nfhp_counter_zero(c);
	WRITE_ONCE(pc0->packets, val->packets);
	WRITE_ONCE(pc0->bytes, val->bytes);
}
