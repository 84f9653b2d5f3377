/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the per-entry counters of named sets (set_counter.c).
 */
#ifndef _NFHP_SET_COUNTER_H
#define _NFHP_SET_COUNTER_H

#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "set_algo.h"

/* No slot: the end of a list of free slots, or out of memory. */
#define NFHP_SET_SLOT_NONE	U32_MAX

/*
 * The bit of a slotted body's algorithm value that marks a nomatch entry
 * (DOC: Counters): slot indexes stay below it.
 */
#define NFHP_SET_SLOT_NOMATCH	(1U << 31)

/**
 * struct nfhp_set_slot - the value and counts of one entry
 * @packets: packets whose lookup found the entry
 * @bytes: their bytes
 * @value: the entry's value
 * @next: while the slot is free, the next free slot
 *
 * @next is not @value: a lookup that found the entry before its remove
 * may read @value after it.
 */
struct nfhp_set_slot {
	atomic64_t packets;
	atomic64_t bytes;
	u32 value;
	u32 next;
};

/*
 * Slots per chunk: as many as fill a page with the block's header (169).
 * A chunk never moves, so a slot never does.
 */
#define NFHP_SET_SLOT_CHUNK						\
	((PAGE_SIZE - sizeof(struct nfhp_set_retired)) /		\
	 sizeof(struct nfhp_set_slot))

/**
 * struct nfhp_set_slot_dir - the chunks of slots
 * @chunks: how many @chunk holds
 * @chunk: the chunks, each of %NFHP_SET_SLOT_CHUNK slots
 */
struct nfhp_set_slot_dir {
	u32 chunks;
	struct nfhp_set_slot *chunk[];
};

/**
 * struct nfhp_set_counters - the slots of a body whose set counts
 * @dir: the chunks, which lookups read under RCU
 * @made: slots handed out at least once; the next new slot
 * @free: free slots no lookup can reach, a list through their @next
 * @waiting: slots freed before @cookie, a list: free once its grace
 *	period is over
 * @cookie: get_state_synchronize_rcu() after the last of @waiting left
 * @fresh: slots freed since, a list: they wait next
 * @used: slots held by entries
 *
 * An entry of a counting set holds, as its algorithm's value, the index
 * of its slot.  A lookup that finds it reads the slot and counts there;
 * a slot freed by a remove may still be counted in by a lookup that
 * found the entry just before, so it is handed out again only after a
 * grace period.  Writers are serialized by the set's caller.
 */
struct nfhp_set_counters {
	struct nfhp_set_slot_dir __rcu *dir;
	u32 made;
	u32 free;
	u32 waiting;
	unsigned long cookie;
	u32 fresh;
	u32 used;
};

/**
 * struct nfhp_set_counts - counts an add gives an entry, or a reader gets
 * @packets: packets
 * @bytes: bytes
 * @given: %NFHP_SET_COUNTS_PACKETS and %NFHP_SET_COUNTS_BYTES: the counts
 *	an add sets (a new entry starts the others at 0; an updated one
 *	keeps them)
 */
struct nfhp_set_counts {
	u64 packets;
	u64 bytes;
	u8 given;
};

#define NFHP_SET_COUNTS_PACKETS	(1U << 0)
#define NFHP_SET_COUNTS_BYTES	(1U << 1)

/**
 * nfhp_set_slot_at() - a slot of a directory
 * @dir: the directory, as the caller may read it
 * @slot: the slot's index, one an entry holds
 *
 * Return: the slot.
 */
static inline struct nfhp_set_slot *
nfhp_set_slot_at(const struct nfhp_set_slot_dir *dir, u32 slot)
{
	return &dir->chunk[slot / NFHP_SET_SLOT_CHUNK]
			  [slot % NFHP_SET_SLOT_CHUNK];
}

/**
 * nfhp_set_slot_hit() - the packet path through a slot
 * @c: the counters
 * @value: the algorithm's value of the entry the lookup found: its slot,
 *	with %NFHP_SET_SLOT_NOMATCH for a nomatch entry; set to the entry's
 *	own value
 * @len: the packet's length
 * @counting: count the packet in the slot
 *
 * A nomatch entry counts its packets too, as ipset's do.
 *
 * Under rcu_read_lock().
 *
 * Return: false when the entry is a nomatch one: the packet is not in
 * the set.
 */
static inline bool nfhp_set_slot_hit(const struct nfhp_set_counters *c,
				     u32 *value, unsigned int len,
				     bool counting)
{
	u32 held = *value;
	struct nfhp_set_slot *s = nfhp_set_slot_at(rcu_dereference(c->dir),
						   held & ~NFHP_SET_SLOT_NOMATCH);

	if (counting) {
		atomic64_inc(&s->packets);
		atomic64_add(len, &s->bytes);
	}
	*value = READ_ONCE(s->value);
	return !(held & NFHP_SET_SLOT_NOMATCH);
}

/**
 * nfhp_set_slot_value() - the value of a slot's entry: the packet path
 * @c: the counters
 * @slot: the slot of the entry a lookup found
 *
 * Under rcu_read_lock().  Counts nothing.
 *
 * Return: the entry's value.
 */
static inline u32 nfhp_set_slot_value(const struct nfhp_set_counters *c,
				      u32 slot)
{
	return READ_ONCE(nfhp_set_slot_at(rcu_dereference(c->dir),
					  slot & ~NFHP_SET_SLOT_NOMATCH)->value);
}

/**
 * nfhp_set_slot_use() - a packet's use of a slot, with the counts after it
 * @c: the counters
 * @slot: the slot of the entry its lookup found
 * @len: the packet's length
 * @count: count the packet (else only read the counts)
 * @now: set to the slot's counts, this packet's included when counted
 *
 * Under rcu_read_lock(): the rules' use of the entry a packet's lookup
 * found, once the lookup read its value.
 */
static inline void nfhp_set_slot_use(const struct nfhp_set_counters *c,
				    u32 slot, unsigned int len, bool count,
				    struct nfhp_set_counts *now)
{
	struct nfhp_set_slot *s = nfhp_set_slot_at(rcu_dereference(c->dir),
						   slot & ~NFHP_SET_SLOT_NOMATCH);

	if (count) {
		now->packets = atomic64_inc_return(&s->packets);
		now->bytes = atomic64_add_return(len, &s->bytes);
	} else {
		now->packets = atomic64_read(&s->packets);
		now->bytes = atomic64_read(&s->bytes);
	}
}

int nfhp_set_counters_init(struct nfhp_set_ctx *ctx,
			   struct nfhp_set_counters *c);
void nfhp_set_counters_destroy(struct nfhp_set_ctx *ctx,
			       struct nfhp_set_counters *c);
u32 nfhp_set_slot_get(struct nfhp_set_ctx *ctx, struct nfhp_set_counters *c,
		      u32 value, const struct nfhp_set_counts *counts);
void nfhp_set_slot_put(struct nfhp_set_ctx *ctx, struct nfhp_set_counters *c,
		       u32 slot);
void nfhp_set_slot_set(struct nfhp_set_ctx *ctx, struct nfhp_set_counters *c,
		       u32 slot, u32 value, const struct nfhp_set_counts *counts);
u32 nfhp_set_slot_read(const struct nfhp_set_counters *c, u32 slot,
		       struct nfhp_set_counts *counts);

#endif /* _NFHP_SET_COUNTER_H */
