// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets of hosts, in an open-addressing hash.
 *
 * DOC: Theory of Operation
 *
 * The "hash" algorithm of the addr type holds host addresses (/32 or
 * /128) for exact lookups: blocklists, banned hosts.  Its keys sit in
 * one array of slots, found by linear probing from a seeded hash, so a
 * lookup reads the table's header and, mostly, one cache line of slots.
 *
 * An IPv4 slot is 8 bytes, the key in its low half and the value in its
 * high half, read and written as one u64: a lookup sees a slot whole.
 * Key 0 marks an empty slot and key 1 a deleted one (a tombstone); the
 * hosts 0.0.0.0 and 0.0.0.1 themselves live in two slots of the header.
 * An IPv6 slot holds the key, the value and a state (empty, used,
 * deleted); the writer writes the key first and publishes the state
 * with a release, and a used slot's key never changes while the array
 * is live, so a lookup that sees "used" reads the key it was given.
 *
 * A writer never puts a key in a tombstone: adds take empty slots, and
 * deletes turn used slots into tombstones.  When keys and tombstones
 * fill three quarters of the slots, or the keys drop below a sixteenth,
 * the writer rehashes: it fills a new array of twice the keys' number
 * rounded up to a power of two, publishes it, and retires the old one
 * (set_gc.c).  The array is a quarter to three quarters full, so an
 * IPv4 host costs 11 to 32 bytes.  A slot's index is the hash scaled to
 * the number of slots, which need not be a power of two: the array fills
 * the power of two bytes that kmalloc would hand out for it anyway.
 *
 * Example: an empty IPv4 set of 16 slots (really a few more), seed s.  "add 192.0.2.1 7"
 * hashes the key to slot 5 and stores 7 << 32 | 0xc0000201 there;
 * "add 192.0.2.9 8" hashes to 5 too and takes slot 6.  A lookup of
 * 192.0.2.9 reads slots 5 and 6; one of 192.0.2.3, hashed to 5, reads
 * 5, 6 and 7, which is empty: not in the set.  "del 192.0.2.1" writes
 * key 1 to slot 5, and a lookup of 192.0.2.9 still walks past it to 6.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "set_hash_priv.h"

#define NFHP_HASH4_EMPTY	0u
#define NFHP_HASH4_TOMB		1u
/* A special key's word in the header: present, and its value. */
#define NFHP_HASH4_PRESENT	BIT_ULL(32)

/**
 * enum nfhp_hash6_state - what an IPv6 slot holds
 * @NFHP_HASH6_EMPTY: nothing, ever: a probe ends here
 * @NFHP_HASH6_USED: a key and its value
 * @NFHP_HASH6_TOMB: a deleted key, which probes walk past
 */
enum nfhp_hash6_state {
	NFHP_HASH6_EMPTY,
	NFHP_HASH6_USED,
	NFHP_HASH6_TOMB,
};

/**
 * struct nfhp_hash6_slot - one IPv6 host
 * @hi: the top 64 bits of the address
 * @lo: the bottom 64 bits
 * @value: its value
 * @state: &enum nfhp_hash6_state, published last
 */
struct nfhp_hash6_slot {
	u64 hi;
	u64 lo;
	u32 value;
	u32 state;
};

/**
 * struct nfhp_hash_array - the slots lookups read
 * @nslots: the slots: as many as fill an allocation of a power of two
 *	bytes, which is what kmalloc hands out anyway
 * @pad: unused
 * @seed: what the hash mixes in, chosen at each rehash
 * @special: IPv4: the words of the hosts 0 and 1 (%NFHP_HASH4_PRESENT)
 * @slot4: IPv4: the slots, key | value << 32
 * @slot6: IPv6: the slots
 */
struct nfhp_hash_array {
	u32 nslots;
	u32 pad;
	u64 seed;
	u64 special[2];
	union {
		DECLARE_FLEX_ARRAY(u64, slot4);
		DECLARE_FLEX_ARRAY(struct nfhp_hash6_slot, slot6);
	};
};

/**
 * struct nfhp_hash - one set's hash
 * @array: the slots, replaced at each rehash
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @count: the keys
 * @used: the slots that are not empty: keys and tombstones
 */
struct nfhp_hash {
	struct nfhp_hash_array __rcu *array;
	u8 family;
	u32 count;
	u32 used;
};

static bool nfhp_hash_is6(const struct nfhp_hash *h)
{
	return h->family == NFHP_FAMILY_IPV6;
}

static u32 nfhp_hash_index4(const struct nfhp_hash_array *a, u32 key)
{
	return nfhp_hash_scale((key ^ a->seed) * 0x9e3779b97f4a7c15ull,
			       a->nslots);
}

static u32 nfhp_hash_index6(const struct nfhp_hash_array *a, u64 hi, u64 lo)
{
	return nfhp_hash_scale(nfhp_hash_mix128(a->seed, hi, lo), a->nslots);
}

/* The slot after @i, the first after the last. */
static u32 nfhp_hash_next(const struct nfhp_hash_array *a, u32 i)
{
	return nfhp_hash_step(a->nslots, i);
}

static size_t nfhp_hash_slot_size(const struct nfhp_hash *h)
{
	return nfhp_hash_is6(h) ? sizeof(struct nfhp_hash6_slot) : sizeof(u64);
}

static struct nfhp_hash_array *nfhp_hash_array_new(struct nfhp_set_ctx *ctx,
						   const struct nfhp_hash *h,
						   u32 slots)
{
	struct nfhp_hash_array *a;

	a = nfhp_set_block_alloc(ctx, sizeof(*a) +
				 (size_t)slots * nfhp_hash_slot_size(h));
	if (!a)
		return NULL;
	a->nslots = slots;
	a->seed = nfhp_hash_seed();
	return a;
}

/* The slots for @keys keys at a quarter to a half full. */
static u32 nfhp_hash_slots_for(const struct nfhp_hash *h, u32 keys)
{
	return nfhp_hash_slots(sizeof(struct nfhp_hash_array),
			       nfhp_hash_slot_size(h), keys);
}

/**
 * nfhp_hash_key_ok() - is @key a host of the set's family?
 * @h: the set
 * @key: the key of an add, a delete or a find
 *
 * Return: true if it is.
 */
static bool nfhp_hash_key_ok(const struct nfhp_hash *h,
			     const struct nfhp_set_key *key)
{
	if (nfhp_hash_is6(h))
		return key->plen == 128;
	return key->plen == 32 && !(key->addr >> 32);
}

/*
 * The slot of @key, or the empty slot that ends its probe, and in @word
 * the slot as read: a writer may fill an empty slot behind the probe.
 */
static u32 nfhp_hash_probe4(const struct nfhp_hash_array *a, u32 key,
			    u64 *word)
{
	u32 i = nfhp_hash_index4(a, key);

	for (;; i = nfhp_hash_next(a, i)) {
		*word = READ_ONCE(a->slot4[i]);
		if ((u32)*word == key || (u32)*word == NFHP_HASH4_EMPTY)
			return i;
	}
}

/*
 * The slot of @key, or the empty slot that ends its probe, and in @found
 * which of them it is, as read.
 */
static u32 nfhp_hash_probe6(const struct nfhp_hash_array *a, u64 hi, u64 lo,
			    bool *found)
{
	u32 i = nfhp_hash_index6(a, hi, lo);
	const struct nfhp_hash6_slot *s;
	u32 state;

	for (;; i = nfhp_hash_next(a, i)) {
		s = &a->slot6[i];
		/* Pairs with nfhp_hash_put(): a used slot's key is written. */
		state = smp_load_acquire(&s->state);
		*found = state == NFHP_HASH6_USED && s->hi == hi && s->lo == lo;
		if (*found || state == NFHP_HASH6_EMPTY)
			return i;
	}
}

/**
 * nfhp_hash_get() - the value of a host
 * @a: the slots
 * @is6: whether they are IPv6 slots
 * @key: the host
 * @value: set to its value
 *
 * Lookups and writers both find keys so.
 *
 * Return: true if the host is in @a.
 */
static bool nfhp_hash_get(const struct nfhp_hash_array *a, bool is6,
			  const struct nfhp_set_key *key, u32 *value)
{
	bool found;
	u64 word;
	u32 i;

	if (is6) {
		i = nfhp_hash_probe6(a, (u64)(key->addr >> 64), (u64)key->addr,
				     &found);
		*value = found ? READ_ONCE(a->slot6[i].value) : 0;
		return found;
	}
	if ((u32)key->addr <= NFHP_HASH4_TOMB) {
		word = READ_ONCE(a->special[(u32)key->addr]);
		*value = (u32)word;
		return word & NFHP_HASH4_PRESENT;
	}
	nfhp_hash_probe4(a, (u32)key->addr, &word);
	*value = word >> 32;
	return (u32)word != NFHP_HASH4_EMPTY;
}

bool nfhp_hash_lookup(const void *priv, const struct nfhp_set_key *key,
			     u32 *value)
{
	const struct nfhp_hash *h = priv;

	return nfhp_hash_get(rcu_dereference(h->array), nfhp_hash_is6(h), key,
			     value);
}

static bool nfhp_hash_find(const void *priv, const struct nfhp_set_key *key,
			   u32 *value)
{
	const struct nfhp_hash *h = priv;

	if (!nfhp_hash_key_ok(h, key))
		return false;
	return nfhp_hash_lookup(priv, key, value);
}

/* Put a key known to be absent into an empty slot of @a; no tombstone. */
static void nfhp_hash_put(struct nfhp_hash_array *a, bool is6, u64 hi, u64 lo,
			  u32 value)
{
	struct nfhp_hash6_slot *s;
	bool found;
	u64 word;
	u32 i;

	if (!is6 && lo <= NFHP_HASH4_TOMB) {
		WRITE_ONCE(a->special[lo], NFHP_HASH4_PRESENT | value);
		return;
	}
	if (!is6) {
		i = nfhp_hash_probe4(a, (u32)lo, &word);
		WRITE_ONCE(a->slot4[i], (u64)value << 32 | lo);
		return;
	}
	i = nfhp_hash_probe6(a, hi, lo, &found);
	s = &a->slot6[i];
	s->hi = hi;
	s->lo = lo;
	s->value = value;
	/* The key before the state: see nfhp_hash_probe6(). */
	smp_store_release(&s->state, NFHP_HASH6_USED);
}

/* Copy the keys of @from into the empty array @to. */
static void nfhp_hash_copy(struct nfhp_hash_array *to,
			   const struct nfhp_hash_array *from, bool is6)
{
	const struct nfhp_hash6_slot *s;
	u32 i;

	for (i = 0; i <= NFHP_HASH4_TOMB && !is6; i++)
		to->special[i] = from->special[i];
	for (i = 0; i < from->nslots; i++) {
		if (is6) {
			s = &from->slot6[i];
			if (s->state == NFHP_HASH6_USED)
				nfhp_hash_put(to, true, s->hi, s->lo, s->value);
		} else if ((u32)from->slot4[i] > NFHP_HASH4_TOMB) {
			nfhp_hash_put(to, false, 0, (u32)from->slot4[i],
				      from->slot4[i] >> 32);
		}
	}
}

/**
 * nfhp_hash_rehash() - move the keys to a new array sized for @keys
 * @ctx: the writer's context
 * @h: the set
 * @keys: how many keys the new array is to hold at a quarter to a half
 *
 * Return: 0, or -ENOMEM with the set unchanged.
 */
static int nfhp_hash_rehash(struct nfhp_set_ctx *ctx, struct nfhp_hash *h,
			    u32 keys)
{
	struct nfhp_hash_array *old, *a;

	old = rcu_dereference_protected(h->array, nfhp_set_writing(ctx));
	a = nfhp_hash_array_new(ctx, h, nfhp_hash_slots_for(h, keys));
	if (!a)
		return -ENOMEM;
	nfhp_hash_copy(a, old, nfhp_hash_is6(h));
	rcu_assign_pointer(h->array, a);
	nfhp_set_retire(ctx, old);
	h->used = h->count;
	if (!nfhp_hash_is6(h))
		h->used -= !!(a->special[0] & NFHP_HASH4_PRESENT) +
			   !!(a->special[1] & NFHP_HASH4_PRESENT);
	return 0;
}

void *nfhp_hash_create(struct nfhp_set_ctx *ctx, u8 family, u32 hint)
{
	struct nfhp_hash *h;

	if (family != NFHP_FAMILY_IPV4 && family != NFHP_FAMILY_IPV6)
		return NULL;
	h = nfhp_alloc(ctx->mem, sizeof(*h));
	if (!h)
		return NULL;
	h->family = family;
	RCU_INIT_POINTER(h->array,
			 nfhp_hash_array_new(ctx, h, nfhp_hash_slots_for(h, hint)));
	if (!rcu_access_pointer(h->array)) {
		nfhp_free(ctx->mem, h, sizeof(*h));
		return NULL;
	}
	return h;
}

void nfhp_hash_destroy(struct nfhp_set_ctx *ctx, void *priv)
{
	struct nfhp_hash *h = priv;

	nfhp_set_block_free(ctx, rcu_dereference_protected(h->array, nfhp_set_writing(ctx)));
	nfhp_free(ctx->mem, h, sizeof(*h));
}

/* Give @key, which is in @a, @value. */
static void nfhp_hash_set_value(struct nfhp_hash_array *a, bool is6,
				const struct nfhp_set_key *key, u32 value)
{
	bool found;
	u64 word;
	u32 i;

	if (is6) {
		i = nfhp_hash_probe6(a, (u64)(key->addr >> 64),
				     (u64)key->addr, &found);
		WRITE_ONCE(a->slot6[i].value, value);
	} else if ((u32)key->addr <= NFHP_HASH4_TOMB) {
		WRITE_ONCE(a->special[(u32)key->addr],
			   NFHP_HASH4_PRESENT | value);
	} else {
		i = nfhp_hash_probe4(a, (u32)key->addr, &word);
		WRITE_ONCE(a->slot4[i], (u64)value << 32 | (u32)key->addr);
	}
}

int nfhp_hash_add(struct nfhp_set_ctx *ctx, void *priv,
			 const struct nfhp_set_key *key, u32 value,
			 bool update)
{
	struct nfhp_hash *h = priv;
	bool is6 = nfhp_hash_is6(h);
	struct nfhp_hash_array *a;
	u32 old;
	int err;

	if (!nfhp_hash_key_ok(h, key))
		return -EINVAL;
	a = rcu_dereference_protected(h->array, nfhp_set_writing(ctx));
	if (nfhp_hash_get(a, is6, key, &old)) {
		if (!update)
			return NFHP_SET_EXISTS;
		nfhp_hash_set_value(a, is6, key, value);
		return NFHP_SET_UPDATED;
	}
	if (nfhp_hash_full(h->used, a->nslots)) {
		err = nfhp_hash_rehash(ctx, h, h->count + 1);
		if (err)
			return err;
		a = rcu_dereference_protected(h->array, nfhp_set_writing(ctx));
	}
	nfhp_hash_put(a, is6, (u64)(key->addr >> 64), (u64)key->addr, value);
	h->count++;
	h->used += is6 || (u32)key->addr > NFHP_HASH4_TOMB;
	return NFHP_SET_ADDED;
}

int nfhp_hash_del(struct nfhp_set_ctx *ctx, void *priv,
			 const struct nfhp_set_key *key)
{
	struct nfhp_hash *h = priv;
	bool is6 = nfhp_hash_is6(h);
	struct nfhp_hash_array *a;
	u32 i, value;
	bool found;
	u64 word;

	if (!nfhp_hash_key_ok(h, key))
		return -EINVAL;
	a = rcu_dereference_protected(h->array, nfhp_set_writing(ctx));
	if (!nfhp_hash_get(a, is6, key, &value))
		return NFHP_SET_NOT_FOUND;
	if (is6) {
		i = nfhp_hash_probe6(a, (u64)(key->addr >> 64),
				     (u64)key->addr, &found);
		/* As nfhp_hash_put() publishes; the key stays as it is. */
		smp_store_release(&a->slot6[i].state, NFHP_HASH6_TOMB);
	} else if ((u32)key->addr <= NFHP_HASH4_TOMB) {
		WRITE_ONCE(a->special[(u32)key->addr], 0);
	} else {
		i = nfhp_hash_probe4(a, (u32)key->addr, &word);
		WRITE_ONCE(a->slot4[i], NFHP_HASH4_TOMB);
	}
	h->count--;
	/* Shrinking is an optimisation: a set that cannot keeps its slots. */
	if (nfhp_hash_sparse(h->count, a->nslots))
		nfhp_hash_rehash(ctx, h, h->count);
	return NFHP_SET_DELETED;
}

/* Cursor: IPv4's two special words first, then the slots. */
int nfhp_hash_walk(const void *priv, u64 *cursor,
			  int (*fn)(void *arg, const struct nfhp_set_key *key,
				    u32 value),
			  void *arg)
{
	const struct nfhp_hash *h = priv;
	const struct nfhp_hash_array *a = rcu_dereference(h->array);
	bool is6 = nfhp_hash_is6(h);
	struct nfhp_set_key key = {};
	u64 n = (u64)a->nslots + 2;
	u32 value;
	u64 word;
	int err;

	for (; *cursor < n; ++*cursor) {
		u64 i = *cursor;

		if (i < 2) {
			word = is6 ? 0 : READ_ONCE(a->special[i]);
			if (!(word & NFHP_HASH4_PRESENT))
				continue;
			key = (struct nfhp_set_key){ .addr = i, .plen = 32 };
			value = (u32)word;
		} else if (is6) {
			const struct nfhp_hash6_slot *s = &a->slot6[i - 2];

			/* Pairs with nfhp_hash_put(), as a probe does. */
			if (smp_load_acquire(&s->state) != NFHP_HASH6_USED)
				continue;
			key.addr = (nfhp_u128)s->hi << 64 | s->lo;
			key.plen = 128;
			value = READ_ONCE(s->value);
		} else {
			word = READ_ONCE(a->slot4[i - 2]);
			if ((u32)word <= NFHP_HASH4_TOMB)
				continue;
			key = (struct nfhp_set_key){ .addr = (u32)word,
						     .plen = 32 };
			value = word >> 32;
		}
		err = fn(arg, &key, value);
		if (err) {
			*cursor += err > 0;
			return err;
		}
	}
	return 0;
}

u32 nfhp_hash_count(const void *priv)
{
	const struct nfhp_hash *h = priv;

	return h->count;
}

const struct nfhp_set_algo nfhp_set_addr_hash = {
	.name = "hash",
	.type = NFHP_SET_ADDR,
	.create = nfhp_hash_create,
	.destroy = nfhp_hash_destroy,
	.add = nfhp_hash_add,
	.del = nfhp_hash_del,
	.lookup = nfhp_hash_lookup,
	.find = nfhp_hash_find,
	.walk = nfhp_hash_walk,
	.count = nfhp_hash_count,
};
