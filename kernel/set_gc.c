// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets, the memory their lookups may still read.
 *
 * A writer of a set never changes memory a lookup reads in a way that
 * tears a key: it builds the new block beside the old, publishes it with
 * rcu_assign_pointer(), and retires the old one here.  A retired block is
 * freed by the first writer that finds its grace period over
 * (poll_state_synchronize_rcu()), so a stream of updates costs no
 * synchronize_rcu() and no call_rcu() per update, and the block's header
 * (&struct nfhp_set_retired) is all the bookkeeping.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>

#include "set_algo.h"

static struct nfhp_set_retired *nfhp_set_header(void *block)
{
	return (struct nfhp_set_retired *)block - 1;
}

/**
 * nfhp_set_block_alloc() - memory that lookups will read
 * @ctx: the writer's context
 * @size: the bytes wanted
 *
 * Return: zeroed memory behind a &struct nfhp_set_retired, or NULL.
 */
void *nfhp_set_block_alloc(struct nfhp_set_ctx *ctx, size_t size)
{
	size_t bytes = sizeof(struct nfhp_set_retired) + size;
	struct nfhp_set_retired *h = nfhp_alloc(ctx->mem, bytes);

	if (!h)
		return NULL;
	h->size = bytes;
	return h + 1;
}

/**
 * nfhp_set_block_free() - free a block no lookup has seen
 * @ctx: the writer's context
 * @block: from nfhp_set_block_alloc(), or NULL
 */
void nfhp_set_block_free(struct nfhp_set_ctx *ctx, void *block)
{
	struct nfhp_set_retired *h;

	if (!block)
		return;
	h = nfhp_set_header(block);
	nfhp_free(ctx->mem, h, h->size);
}

/**
 * nfhp_set_retire() - free a block once no lookup can read it
 * @ctx: the writer's context
 * @block: from nfhp_set_block_alloc(), unpublished already, or NULL
 */
void nfhp_set_retire(struct nfhp_set_ctx *ctx, void *block)
{
	struct nfhp_set_gc *gc = ctx->gc;
	struct nfhp_set_retired *h;

	if (!block)
		return;
	h = nfhp_set_header(block);
	h->next = NULL;
	h->cookie = get_state_synchronize_rcu();
	if (gc->tail)
		gc->tail->next = h;
	else
		gc->head = h;
	gc->tail = h;
	gc->bytes += h->size;
}

/**
 * nfhp_set_gc_run() - free the retired blocks no lookup can read now
 * @ctx: the writer's context
 * @wait: wait for the grace period of the newest, and free them all
 *
 * The blocks are in the order they were retired, so the first whose
 * grace period is not over ends the pass.
 */
void nfhp_set_gc_run(struct nfhp_set_ctx *ctx, bool wait)
{
	struct nfhp_set_gc *gc = ctx->gc;
	struct nfhp_set_retired *h;

	if (wait && gc->tail)
		cond_synchronize_rcu(gc->tail->cookie);
	while ((h = gc->head) && poll_state_synchronize_rcu(h->cookie)) {
		gc->head = h->next;
		gc->bytes -= h->size;
		nfhp_free(ctx->mem, h, h->size);
	}
	if (!gc->head)
		gc->tail = NULL;
}
