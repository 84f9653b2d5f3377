// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the entries of a set's body, with their counts.
 *
 * A plain body hands its entries to its algorithm as they are.  In a
 * slotted one (a set that counts, or one with nomatch entries), each
 * entry has a slot (set_counter.c) and the algorithm holds the slot's
 * index as the entry's value, with %NFHP_SET_SLOT_NOMATCH for a nomatch
 * entry: here the slots are taken and freed with the entries, and the
 * values, counts and flags read back through them.  An update that
 * turns an entry into a nomatch one or back gives the algorithm the
 * entry's slot with the bit changed: a lookup sees the old or the new.
 *
 * An add or a remove of a range of a "bitmap" set is one of each of its
 * numbers, all or none (set_bitmap.c).  In a counting set each number
 * has a slot of its own, so the range goes a number at a time: first
 * the check that decides all or none, then a slot for each new number,
 * then their adds, undone if one fails, and last the new value of every
 * number, which cannot fail.
 *
 * Only "lpm" takes nomatch entries, and its keys are single.
 *
 * Example: "add 80-82 value 7 packets 5", with 81 there (slot 4) and
 * update allowed, in an empty-handed counting set: 80 and 82 get slots 0
 * and 1 (value 7, 5 packets, 0 bytes) and are added; then slots 0, 4
 * and 1 take value 7 and 5 packets.  81 keeps its bytes.
 */
#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "set.h"

/* How many entries @key stands for: one per number of a bitmap range. */
static u32 nfhp_set_units(const struct nfhp_set_body *body,
			  const struct nfhp_set_key *key)
{
	/* A bad range is one key: the algorithm refuses it. */
	if (body->algo != &nfhp_set_num_bitmap ||
	    !nfhp_set_num_key_ok(key) || key->hi > U16_MAX)
		return 1;
	return key->hi - nfhp_set_key_num(key) + 1;
}

/* The @i-th entry of @key's @units: @key itself, or a number of it. */
static struct nfhp_set_key nfhp_set_unit(const struct nfhp_set_key *key,
					 u32 units, u32 i)
{
	struct nfhp_set_key unit = *key;

	if (units > 1) {
		unit.addr = nfhp_set_key_num(key) + i;
		unit.hi = nfhp_set_key_num(key) + i;
	}
	return unit;
}

/* Is the entry of @key there, and in which slot?  For writers. */
static bool nfhp_set_slot_of(const struct nfhp_set_body *body,
			     const struct nfhp_set_key *key, u32 *slot)
{
	bool found;

	rcu_read_lock();
	found = body->algo->find(body->inst, key, slot);
	rcu_read_unlock();
	*slot &= ~NFHP_SET_SLOT_NOMATCH;
	return found;
}

/**
 * nfhp_set_flip() - make an entry a nomatch one, or a plain one
 * @ctx: the body's writer context
 * @body: a slotted body
 * @key: the key of an entry there
 * @nomatch: %NFHP_SET_SLOT_NOMATCH or 0, what the entry is to be
 *
 * The algorithm's update of the value: a lookup sees the old or the new.
 *
 * Return: 0, or -errno with the entry as it was.
 */
static int nfhp_set_flip(struct nfhp_set_ctx *ctx, struct nfhp_set_body *body,
			 const struct nfhp_set_key *key, u32 nomatch)
{
	u32 held;
	int ret;

	rcu_read_lock();
	body->algo->find(body->inst, key, &held);
	rcu_read_unlock();
	if ((held & NFHP_SET_SLOT_NOMATCH) == nomatch)
		return 0;
	held = (held & ~NFHP_SET_SLOT_NOMATCH) | nomatch;
	ret = body->algo->add(ctx, body->inst, key, held, true);
	return ret < 0 ? ret : 0;
}

/* Remove the entries of @key's first @n units that @had does not hold. */
static void nfhp_set_add_undo(struct nfhp_set_ctx *ctx,
			      struct nfhp_set_body *body,
			      const struct nfhp_set_key *key, u32 units,
			      const unsigned long *had, u32 n)
{
	struct nfhp_set_key unit;
	u32 i, slot;

	for (i = 0; i < n; i++) {
		if (test_bit(i, had))
			continue;
		unit = nfhp_set_unit(key, units, i);
		if (!nfhp_set_slot_of(body, &unit, &slot))
			continue;
		body->algo->del(ctx, body->inst, &unit);
		nfhp_set_slot_put(ctx, &body->counters, slot);
	}
}

/* The add of a slotted body; see the comment at the top. */
static int nfhp_set_add_counted(struct nfhp_set_ctx *ctx,
				struct nfhp_set_body *body,
				const struct nfhp_set_key *key, u32 value,
				const struct nfhp_set_counts *counts,
				u32 flags)
{
	u32 nomatch = flags & NFHP_SET_ADD_NOMATCH ? NFHP_SET_SLOT_NOMATCH : 0;
	bool update = flags & NFHP_SET_F_UPDATE;
	struct nfhp_set_counters *c = &body->counters;
	u32 units = nfhp_set_units(body, key), i, slot, present = 0;
	unsigned long one_word = 0, *had = &one_word;
	struct nfhp_set_key unit;
	int ret;

	/* Most adds are of one entry: no allocation for them. */
	if (units > BITS_PER_LONG) {
		had = bitmap_zalloc(units, GFP_KERNEL);
		if (!had)
			return -ENOMEM;
	}
	for (i = 0; i < units; i++) {
		unit = nfhp_set_unit(key, units, i);
		if (nfhp_set_slot_of(body, &unit, &slot)) {
			__set_bit(i, had);
			present++;
		}
	}
	ret = NFHP_SET_EXISTS;
	if (present && !update)
		goto out_free;
	for (i = 0; i < units; i++) {
		if (test_bit(i, had))
			continue;
		unit = nfhp_set_unit(key, units, i);
		slot = nfhp_set_slot_get(ctx, c, value, counts);
		if (slot == NFHP_SET_SLOT_NONE) {
			ret = -ENOMEM;
			goto err_undo;
		}
		ret = body->algo->add(ctx, body->inst, &unit, slot | nomatch,
				      false);
		if (ret != NFHP_SET_ADDED) {
			nfhp_set_slot_put(ctx, c, slot);
			goto err_undo;
		}
	}
	/* The flag first: of an update, only its change can fail. */
	if (present && body->algo->nomatch) {
		ret = nfhp_set_flip(ctx, body, key, nomatch);
		if (ret < 0)
			goto out_free;
	}
	for (i = 0; i < units; i++) {
		unit = nfhp_set_unit(key, units, i);
		if (test_bit(i, had) && nfhp_set_slot_of(body, &unit, &slot))
			nfhp_set_slot_set(ctx, c, slot, value, counts);
	}
	ret = present == units ? NFHP_SET_UPDATED : NFHP_SET_ADDED;
	goto out_free;

err_undo:
	nfhp_set_add_undo(ctx, body, key, units, had, i);
out_free:
	if (had != &one_word)
		bitmap_free(had);
	return ret;
}

/**
 * nfhp_set_body_add() - add an entry to a body, or update it
 * @ctx: the body's writer context
 * @body: the body
 * @key: the entry's key
 * @value: its value
 * @counts: the counts of a counting body's entry, or NULL for 0
 * @flags: %NFHP_SET_F_UPDATE: an entry there already takes @value,
 *	@counts' given ones and the flag below; %NFHP_SET_ADD_NOMATCH: the
 *	entry is a nomatch one, which only a slotted body of an algorithm
 *	with &nfhp_set_algo.nomatch takes
 *
 * Return: an &enum nfhp_set_result, or -errno with the body unchanged.
 */
int nfhp_set_body_add(struct nfhp_set_ctx *ctx, struct nfhp_set_body *body,
		      const struct nfhp_set_key *key, u32 value,
		      const struct nfhp_set_counts *counts, u32 flags)
{
	if (body->slotted)
		return nfhp_set_add_counted(ctx, body, key, value, counts,
					    flags);
	if (WARN_ON_ONCE(flags & NFHP_SET_ADD_NOMATCH))
		return NFHP_SET_INVALID;
	return body->algo->add(ctx, body->inst, key, value,
			       flags & NFHP_SET_F_UPDATE);
}

/**
 * nfhp_set_body_del() - remove an entry from a body
 * @ctx: the body's writer context
 * @body: the body
 * @key: the entry's key; a bitmap's range removes all its numbers or none
 *
 * Return: an &enum nfhp_set_result, or -errno with the body unchanged.
 */
int nfhp_set_body_del(struct nfhp_set_ctx *ctx, struct nfhp_set_body *body,
		      const struct nfhp_set_key *key)
{
	u32 units = nfhp_set_units(body, key), i, slot;
	struct nfhp_set_key unit;
	int ret;

	if (!body->slotted)
		return body->algo->del(ctx, body->inst, key);
	for (i = 0; i < units; i++) {
		unit = nfhp_set_unit(key, units, i);
		if (!nfhp_set_slot_of(body, &unit, &slot))
			return NFHP_SET_NOT_FOUND;
	}
	/* Only "lpm" may fail a remove, and its keys are single. */
	for (i = 0; i < units; i++) {
		unit = nfhp_set_unit(key, units, i);
		nfhp_set_slot_of(body, &unit, &slot);
		ret = body->algo->del(ctx, body->inst, &unit);
		if (ret != NFHP_SET_DELETED)
			return ret;
		nfhp_set_slot_put(ctx, &body->counters, slot);
	}
	return NFHP_SET_DELETED;
}

/**
 * nfhp_set_body_find() - the value and counts of a key's entry
 * @body: the body
 * @key: the key
 * @lookup: look it up as a packet's key would be, without counting;
 *	else find the entry whose key is @key (a bitmap's range: all its
 *	numbers, with the first one's value and counts)
 * @value: set to the entry's value
 * @counts: set to its counts in a counting body, or NULL
 * @eflags: set to its %NFHP_SETE_F_* flags
 *
 * Under rcu_read_lock().  A nomatch entry is found, with its flag: the
 * caller decides what it means.
 *
 * Return: true when found.
 */
bool nfhp_set_body_find(const struct nfhp_set_body *body,
			const struct nfhp_set_key *key, bool lookup,
			u32 *value, struct nfhp_set_counts *counts,
			u32 *eflags)
{
	const struct nfhp_set_algo *algo = body->algo;
	u32 units = nfhp_set_units(body, key), i, slot;
	struct nfhp_set_key unit;

	*eflags = 0;
	if (lookup ? !algo->lookup(body->inst, key, value) :
		     !algo->find(body->inst, key, value))
		return false;
	if (!body->slotted)
		return true;
	/* A bitmap's find of a range gives no slot of its own. */
	for (i = 0; !lookup && i < units; i++) {
		unit = nfhp_set_unit(key, units, i);
		if (!algo->find(body->inst, &unit, i ? &slot : value))
			return false;
	}
	if (*value & NFHP_SET_SLOT_NOMATCH)
		*eflags = NFHP_SETE_F_NOMATCH;
	*value &= ~NFHP_SET_SLOT_NOMATCH;
	*value = nfhp_set_slot_read(&body->counters, *value,
				    body->counting ? counts : NULL);
	return true;
}

/**
 * struct nfhp_set_walk_arg - a walk of a counting body's entries
 * @body: the body
 * @fn: the walker's function
 * @arg: its argument
 */
struct nfhp_set_walk_arg {
	const struct nfhp_set_body *body;
	nfhp_set_entry_fn fn;
	void *arg;
};

/* An entry of a slotted body, its slot read. */
static int nfhp_set_walk_counted(void *arg, const struct nfhp_set_key *key,
				 u32 held)
{
	u32 slot = held & ~NFHP_SET_SLOT_NOMATCH, value;
	struct nfhp_set_walk_arg *w = arg;
	bool counting = w->body->counting;
	struct nfhp_set_counts counts;

	value = nfhp_set_slot_read(&w->body->counters, slot,
				   counting ? &counts : NULL);
	return w->fn(w->arg, key, value, counting ? &counts : NULL,
		     held & NFHP_SET_SLOT_NOMATCH ? NFHP_SETE_F_NOMATCH : 0);
}

/* An entry of a plain body. */
static int nfhp_set_walk_plain(void *arg, const struct nfhp_set_key *key,
			       u32 value)
{
	struct nfhp_set_walk_arg *w = arg;

	return w->fn(w->arg, key, value, NULL, 0);
}

/**
 * nfhp_set_body_walk() - call @fn for the entries of a body from *@cursor
 * @body: the body
 * @cursor: where to begin, 0 at first; where to go on, on return
 * @fn: called for each entry, with its value and counts
 * @arg: its first argument
 *
 * Under rcu_read_lock().
 *
 * Return: what @fn returned to stop the walk, or 0 at the end.
 */
int nfhp_set_body_walk(const struct nfhp_set_body *body, u64 *cursor,
		       nfhp_set_entry_fn fn, void *arg)
{
	struct nfhp_set_walk_arg w = { .body = body, .fn = fn, .arg = arg };

	return body->algo->walk(body->inst, cursor,
				body->slotted ? nfhp_set_walk_counted :
						 nfhp_set_walk_plain, &w);
}
