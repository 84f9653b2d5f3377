// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the per-entry counters of named sets.
 *
 * DOC: Counters
 *
 * A set made with "counters" (ipset's extension, NFHP_SET_F_COUNTERS)
 * counts, for each entry, the packets whose lookup found it and their
 * bytes.  The algorithms know nothing of it: each holds a u32 value per
 * entry, and in a counting set that value is the index of a slot
 * (&struct nfhp_set_slot) that holds the entry's own value and its two
 * counts.  A lookup that finds the entry counts in its slot with two
 * atomic adds, as ipset's counters do, and returns the slot's value.
 *
 * Slots sit in chunks of %NFHP_SET_SLOT_CHUNK, a page each, that never
 * move; a directory of the chunks is replaced, under RCU, when it is
 * full.  A remove frees its entry's slot, but a lookup that found the entry just
 * before may still count in it: a freed slot waits for a grace period
 * before another entry takes it, so no entry ever gets a packet of
 * another.  The waiting is two lists and one cookie: slots freed go on
 * @fresh; when @waiting is empty, @fresh becomes it, with the cookie of
 * that moment; when its grace period is over and @free is empty,
 * @waiting becomes @free.  Slots are taken from @free, else new ones
 * are made.
 *
 * The same slots hold the entries of a set with nomatch entries (ipset's
 * "nomatch": the packets whose longest matching entry is one are not in
 * the set), counting or not.  Such a body is "slotted": the value its
 * algorithm holds for an entry is the slot's index, with
 * %NFHP_SET_SLOT_NOMATCH for a nomatch entry; a lookup that finds one
 * reads the bit beside the index, counts if the set counts, and misses.
 * A body becomes slotted, by a copy, with its first nomatch entry (a
 * flush makes it plain again): a set without nomatch entries reads no
 * slot, and pays nothing for them.  A body that counts is slotted from
 * the start.
 *
 * Example: a set holds 10.0.0.1 in slot 0 and 10.0.0.2 in slot 1.  A
 * remove of 10.0.0.1 puts slot 0 on @fresh; an add of 10.0.0.3 finds
 * @free empty, moves slot 0 to @waiting with a cookie, and, the grace
 * period not being over, makes slot 2.  An add after the grace period
 * takes slot 0, whose counts start again at 0.
 *
 * The slots are taken on the body's account and freed with the body.
 * This is part of the pure core: no netlink here.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>

#include "set_counter.h"

/* The directory a writer reads and changes. */
static struct nfhp_set_slot_dir *
nfhp_set_slot_dir(struct nfhp_set_ctx *ctx, const struct nfhp_set_counters *c)
{
	return rcu_dereference_protected(c->dir, nfhp_set_writing(ctx));
}

/* A directory of @chunks chunks, those of @old copied in; NULL: no memory. */
static struct nfhp_set_slot_dir *
nfhp_set_slot_dir_new(struct nfhp_set_ctx *ctx,
		      const struct nfhp_set_slot_dir *old, u32 chunks)
{
	struct nfhp_set_slot_dir *dir;

	dir = nfhp_set_block_alloc(ctx, struct_size(dir, chunk, chunks));
	if (!dir)
		return NULL;
	dir->chunks = chunks;
	if (old)
		memcpy(dir->chunk, old->chunk,
		       old->chunks * sizeof(old->chunk[0]));
	return dir;
}

/**
 * nfhp_set_counters_init() - the counters of a new, empty body
 * @ctx: the body's writer context
 * @c: the counters, zeroed
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_set_counters_init(struct nfhp_set_ctx *ctx,
			   struct nfhp_set_counters *c)
{
	struct nfhp_set_slot_dir *dir = nfhp_set_slot_dir_new(ctx, NULL, 1);

	if (!dir)
		return -ENOMEM;
	c->free = NFHP_SET_SLOT_NONE;
	c->waiting = NFHP_SET_SLOT_NONE;
	c->fresh = NFHP_SET_SLOT_NONE;
	RCU_INIT_POINTER(c->dir, dir);
	return 0;
}

/**
 * nfhp_set_counters_destroy() - free the slots of a body no lookup reads
 * @ctx: the body's writer context
 * @c: the counters
 */
void nfhp_set_counters_destroy(struct nfhp_set_ctx *ctx,
			       struct nfhp_set_counters *c)
{
	struct nfhp_set_slot_dir *dir = nfhp_set_slot_dir(ctx, c);
	u32 i;

	if (!dir)
		return;
	for (i = 0; i < dir->chunks; i++)
		nfhp_set_block_free(ctx, dir->chunk[i]);
	nfhp_set_block_free(ctx, dir);
	RCU_INIT_POINTER(c->dir, NULL);
}

/* Move freed slots on, as their grace periods end (DOC: Counters). */
static void nfhp_set_slots_age(struct nfhp_set_counters *c)
{
	if (c->free == NFHP_SET_SLOT_NONE && c->waiting != NFHP_SET_SLOT_NONE &&
	    poll_state_synchronize_rcu(c->cookie)) {
		c->free = c->waiting;
		c->waiting = NFHP_SET_SLOT_NONE;
	}
	if (c->waiting == NFHP_SET_SLOT_NONE && c->fresh != NFHP_SET_SLOT_NONE) {
		c->waiting = c->fresh;
		c->fresh = NFHP_SET_SLOT_NONE;
		c->cookie = get_state_synchronize_rcu();
	}
}

/* A slot never handed out, making its chunk; NONE: no memory. */
static u32 nfhp_set_slot_make(struct nfhp_set_ctx *ctx,
			      struct nfhp_set_counters *c)
{
	struct nfhp_set_slot_dir *dir = nfhp_set_slot_dir(ctx, c), *bigger;
	u32 i = c->made / NFHP_SET_SLOT_CHUNK;
	struct nfhp_set_slot *chunk;

	/* An index must leave its nomatch bit free. */
	if (c->made == NFHP_SET_SLOT_NOMATCH)
		return NFHP_SET_SLOT_NONE;
	if (c->made % NFHP_SET_SLOT_CHUNK)
		return c->made++;
	chunk = nfhp_set_block_alloc(ctx, NFHP_SET_SLOT_CHUNK *
					  sizeof(*chunk));
	if (!chunk)
		return NFHP_SET_SLOT_NONE;
	if (i == dir->chunks) {
		bigger = nfhp_set_slot_dir_new(ctx, dir, 2 * dir->chunks);
		if (!bigger) {
			nfhp_set_block_free(ctx, chunk);
			return NFHP_SET_SLOT_NONE;
		}
		rcu_assign_pointer(c->dir, bigger);
		nfhp_set_retire(ctx, dir);
		dir = bigger;
	}
	/* No entry holds a slot of it yet: no lookup reads it before. */
	dir->chunk[i] = chunk;
	return c->made++;
}

/**
 * nfhp_set_slot_set() - give a slot an entry's value and counts
 * @ctx: the body's writer context
 * @c: the counters
 * @slot: the slot
 * @value: the entry's value
 * @counts: the counts to set, those it gives; NULL for none
 */
void nfhp_set_slot_set(struct nfhp_set_ctx *ctx, struct nfhp_set_counters *c,
		       u32 slot, u32 value, const struct nfhp_set_counts *counts)
{
	struct nfhp_set_slot *s = nfhp_set_slot_at(nfhp_set_slot_dir(ctx, c),
						   slot);

	WRITE_ONCE(s->value, value);
	if (!counts)
		return;
	if (counts->given & NFHP_SET_COUNTS_PACKETS)
		atomic64_set(&s->packets, counts->packets);
	if (counts->given & NFHP_SET_COUNTS_BYTES)
		atomic64_set(&s->bytes, counts->bytes);
}

/**
 * nfhp_set_slot_get() - a slot for a new entry
 * @ctx: the body's writer context
 * @c: the counters
 * @value: the entry's value
 * @counts: the counts it starts at, those it gives (0 for the others);
 *	NULL for 0 and 0
 *
 * The slot is the entry's once the caller has given its index to the
 * algorithm; until then no lookup reaches it.
 *
 * Return: the slot, or %NFHP_SET_SLOT_NONE when out of memory.
 */
u32 nfhp_set_slot_get(struct nfhp_set_ctx *ctx, struct nfhp_set_counters *c,
		      u32 value, const struct nfhp_set_counts *counts)
{
	struct nfhp_set_slot *s;
	u32 slot;

	nfhp_set_slots_age(c);
	slot = c->free;
	if (slot != NFHP_SET_SLOT_NONE) {
		s = nfhp_set_slot_at(nfhp_set_slot_dir(ctx, c), slot);
		c->free = s->next;
	} else {
		slot = nfhp_set_slot_make(ctx, c);
		if (slot == NFHP_SET_SLOT_NONE)
			return slot;
		s = nfhp_set_slot_at(nfhp_set_slot_dir(ctx, c), slot);
	}
	atomic64_set(&s->packets, 0);
	atomic64_set(&s->bytes, 0);
	nfhp_set_slot_set(ctx, c, slot, value, counts);
	c->used++;
	return slot;
}

/**
 * nfhp_set_slot_put() - free the slot of an entry just removed
 * @ctx: the body's writer context
 * @c: the counters
 * @slot: the slot, which no entry holds now
 */
void nfhp_set_slot_put(struct nfhp_set_ctx *ctx, struct nfhp_set_counters *c,
		       u32 slot)
{
	struct nfhp_set_slot *s = nfhp_set_slot_at(nfhp_set_slot_dir(ctx, c),
						   slot);

	s->next = c->fresh;
	c->fresh = slot;
	c->used--;
	nfhp_set_slots_age(c);
}

/**
 * nfhp_set_slot_read() - the value and counts of an entry's slot
 * @c: the counters
 * @slot: the slot
 * @counts: set to its counts, or NULL
 *
 * Under rcu_read_lock().
 *
 * Return: the entry's value.
 */
u32 nfhp_set_slot_read(const struct nfhp_set_counters *c, u32 slot,
		       struct nfhp_set_counts *counts)
{
	struct nfhp_set_slot *s = nfhp_set_slot_at(rcu_dereference(c->dir),
						   slot);

	if (counts) {
		counts->packets = atomic64_read(&s->packets);
		counts->bytes = atomic64_read(&s->bytes);
		counts->given = NFHP_SET_COUNTS_PACKETS | NFHP_SET_COUNTS_BYTES;
	}
	return READ_ONCE(s->value);
}
