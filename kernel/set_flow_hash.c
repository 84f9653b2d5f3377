// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: flow sets (ipset's hash:ip,port), and the table of flow keys
 * both algorithms of the type keep.
 *
 * DOC: Flow sets
 *
 * A flow set's key is an address or prefix of the set's family, a
 * transport protocol and a port (ipset's "proto:port": of ICMP and
 * ICMPv6 type << 8 | code, of a protocol without ports 0).  Rules look
 * up a packet's address, its protocol and one of its ports, as
 * "-m set --match-set NAME src,dst" does.
 *
 * Both algorithms keep their keys in one &struct nfhp_flow_table: an
 * open-addressing hash of 32-byte slots, the key (address, prefix
 * length, protocol and port) and its value, found by linear probing
 * from a seeded hash.  It works as the addr type's hash (set_hash.c)
 * does for IPv6, with whose helpers (set_hash_priv.h): a slot's state,
 * empty, used or deleted, is published last with a release, and a used
 * slot's key never changes while the array is live, so a lookup under
 * RCU sees an entry whole or not at all.  Writers, serialized by the
 * set's mutex, take empty slots only, turn deleted keys into tombstones
 * and rehash into a new array at three quarters full or below a
 * sixteenth, retiring the old one (set_gc.c).
 *
 * "hash" holds hosts: a lookup is one probe sequence.  "lpm" holds
 * prefixes (set_flow_lpm.c): one probe per prefix length present.
 *
 * Example: an IPv4 "hash" set, "add 10.0.0.1,tcp:80 value 3" stores the
 * slot { hi 0, lo 0x0a000001, meta 32 << 24 | 6 << 16 | 80, value 3 }
 * where the hash of (0, 0x0a000001, meta) with the array's seed points.
 * A TCP packet from 10.0.0.1 to port 80, under "src,dst", is looked up
 * with the same three words and finds it; one to port 81 has another
 * meta, probes elsewhere and stops at an empty slot: not in the set.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "set_flow.h"
#include "set_hash_priv.h"

/**
 * enum nfhp_flow_state - what a slot holds
 * @NFHP_FLOW_EMPTY: nothing, ever: a probe ends here
 * @NFHP_FLOW_USED: a key and its value
 * @NFHP_FLOW_TOMB: a deleted key, which probes walk past
 */
enum nfhp_flow_state {
	NFHP_FLOW_EMPTY,
	NFHP_FLOW_USED,
	NFHP_FLOW_TOMB,
};

/**
 * nfhp_flow_proto_ports() - does a protocol have a port in a flow key?
 * @proto: the protocol
 * @family: the set's family
 *
 * Return: true for TCP, UDP, SCTP and UDPLITE, and for ICMP in an IPv4
 * set and ICMPv6 in an IPv6 one (type and code): as ipset keeps them.
 */
static bool nfhp_flow_proto_ports(u8 proto, u8 family)
{
	switch (proto) {
	case 6:		/* IPPROTO_TCP */
	case 17:	/* IPPROTO_UDP */
	case 132:	/* IPPROTO_SCTP */
	case 136:	/* IPPROTO_UDPLITE */
		return true;
	case 1:		/* IPPROTO_ICMP */
		return family == NFHP_FAMILY_IPV4;
	case 58:	/* IPPROTO_ICMPV6 */
		return family == NFHP_FAMILY_IPV6;
	default:
		return false;
	}
}

/*
 * Is @key one a flow set of @family takes?  A protocol other than 0
 * (which ipset refuses); a port only for a protocol that has one; a
 * prefix of 1 to the family's width (a host for @hosts) with no bits set
 * below it.
 */
static bool nfhp_flow_key_ok(const struct nfhp_set_key *key, u8 family,
			     bool hosts)
{
	unsigned int width = nfhp_flow_width(family);

	if (!key->proto || (key->port && !nfhp_flow_proto_ports(key->proto,
								 family)))
		return false;
	if (key->plen < 1 || key->plen > width || (hosts && key->plen != width))
		return false;
	if (width == 32 && key->addr >> 32)
		return false;
	return nfhp_flow_prefix(key->addr, width, key->plen) == key->addr;
}

/**
 * nfhp_flow_fkey_ok() - the table's key of a writer's or a find's key
 * @fs: the set
 * @key: the key of an add, a delete or a find
 * @k: set to the table's key
 *
 * Return: false for a key the set does not take (nfhp_flow_key_ok()).
 */
bool nfhp_flow_fkey_ok(const struct nfhp_flow_set *fs,
		       const struct nfhp_set_key *key,
		       struct nfhp_flow_fkey *k)
{
	if (!nfhp_flow_key_ok(key, fs->family, fs->hosts))
		return false;
	*k = nfhp_flow_fkey_of(key, key->addr, key->plen);
	return true;
}

static u32 nfhp_flow_index(const struct nfhp_flow_array *a,
			   const struct nfhp_flow_fkey *k)
{
	return nfhp_hash_scale(nfhp_hash_mix128(a->seed,
						k->hi ^ (u64)k->meta << 32,
						k->lo), a->nslots);
}

/*
 * The slot of @k, or the empty slot that ends its probe, and in @found
 * which of them it is, as read.
 */
static u32 nfhp_flow_probe(const struct nfhp_flow_array *a,
			   const struct nfhp_flow_fkey *k, bool *found)
{
	u32 i = nfhp_flow_index(a, k);
	const struct nfhp_flow_slot *s;
	u32 state;

	for (;; i = nfhp_hash_step(a->nslots, i)) {
		s = &a->slot[i];
		/* Pairs with nfhp_flow_put(): a used slot's key is written. */
		state = smp_load_acquire(&s->state);
		*found = state == NFHP_FLOW_USED && s->hi == k->hi &&
			 s->lo == k->lo && s->meta == k->meta;
		if (*found || state == NFHP_FLOW_EMPTY)
			return i;
	}
}

/**
 * nfhp_flow_table_get() - the value of a key
 * @a: the slots, as rcu_dereference() or the writer read them
 * @k: the key
 * @value: set to its value
 *
 * Lookups and writers both find keys so.
 *
 * Return: true if @k is in @a.
 */
bool nfhp_flow_table_get(const struct nfhp_flow_array *a,
			 const struct nfhp_flow_fkey *k, u32 *value)
{
	bool found;
	u32 i = nfhp_flow_probe(a, k, &found);

	*value = found ? READ_ONCE(a->slot[i].value) : 0;
	return found;
}

/* Put a key known to be absent into an empty slot of @a; no tombstone. */
static void nfhp_flow_put(struct nfhp_flow_array *a,
			  const struct nfhp_flow_fkey *k, u32 value)
{
	struct nfhp_flow_slot *s;
	bool found;

	s = &a->slot[nfhp_flow_probe(a, k, &found)];
	s->hi = k->hi;
	s->lo = k->lo;
	s->meta = k->meta;
	s->value = value;
	/* The key before the state: see nfhp_flow_probe(). */
	smp_store_release(&s->state, NFHP_FLOW_USED);
}

static struct nfhp_flow_array *nfhp_flow_array_new(struct nfhp_set_ctx *ctx,
						   u32 keys)
{
	u32 slots = nfhp_hash_slots(sizeof(struct nfhp_flow_array),
				    sizeof(struct nfhp_flow_slot), keys);
	struct nfhp_flow_array *a;

	a = nfhp_set_block_alloc(ctx, sizeof(*a) +
				 (size_t)slots * sizeof(struct nfhp_flow_slot));
	if (!a)
		return NULL;
	a->nslots = slots;
	a->seed = nfhp_hash_seed();
	return a;
}

/**
 * nfhp_flow_rehash() - move the keys to a new array sized for @keys
 * @ctx: the writer's context
 * @t: the table
 * @keys: how many keys the new array is to hold at a quarter to a half
 *
 * Return: 0, or -ENOMEM with the table unchanged.
 */
static int nfhp_flow_rehash(struct nfhp_set_ctx *ctx,
			    struct nfhp_flow_table *t, u32 keys)
{
	struct nfhp_flow_array *old, *a;
	const struct nfhp_flow_slot *s;
	struct nfhp_flow_fkey k;
	u32 i;

	old = rcu_dereference_protected(t->array, nfhp_set_writing(ctx));
	a = nfhp_flow_array_new(ctx, keys);
	if (!a)
		return -ENOMEM;
	for (i = 0; i < old->nslots; i++) {
		s = &old->slot[i];
		if (s->state != NFHP_FLOW_USED)
			continue;
		k = (struct nfhp_flow_fkey){ s->hi, s->lo, s->meta };
		nfhp_flow_put(a, &k, s->value);
	}
	rcu_assign_pointer(t->array, a);
	nfhp_set_retire(ctx, old);
	t->used = t->count;
	return 0;
}

/**
 * nfhp_flow_table_init() - an empty table
 * @ctx: the writer's context
 * @t: the table, zeroed
 * @hint: the keys it is sized for
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_flow_table_init(struct nfhp_set_ctx *ctx, struct nfhp_flow_table *t,
			 u32 hint)
{
	struct nfhp_flow_array *a = nfhp_flow_array_new(ctx, hint);

	if (!a)
		return -ENOMEM;
	RCU_INIT_POINTER(t->array, a);
	return 0;
}

/**
 * nfhp_flow_table_free() - free a table no lookup can see any more
 * @ctx: the writer's context
 * @t: the table
 */
void nfhp_flow_table_free(struct nfhp_set_ctx *ctx, struct nfhp_flow_table *t)
{
	nfhp_set_block_free(ctx, rcu_dereference_protected(t->array,
							   nfhp_set_writing(ctx)));
}

/**
 * nfhp_flow_table_add() - add a key, or give it a new value
 * @ctx: the writer's context
 * @t: the table
 * @k: the key
 * @value: its value
 * @update: give a key already there @value
 *
 * Return: %NFHP_SET_ADDED, %NFHP_SET_UPDATED, %NFHP_SET_EXISTS, or
 * -ENOMEM with the table unchanged.
 */
int nfhp_flow_table_add(struct nfhp_set_ctx *ctx, struct nfhp_flow_table *t,
			const struct nfhp_flow_fkey *k, u32 value, bool update)
{
	struct nfhp_flow_array *a;
	bool found;
	u32 i;
	int err;

	a = rcu_dereference_protected(t->array, nfhp_set_writing(ctx));
	i = nfhp_flow_probe(a, k, &found);
	if (found) {
		if (!update)
			return NFHP_SET_EXISTS;
		WRITE_ONCE(a->slot[i].value, value);
		return NFHP_SET_UPDATED;
	}
	if (nfhp_hash_full(t->used, a->nslots)) {
		err = nfhp_flow_rehash(ctx, t, t->count + 1);
		if (err)
			return err;
		a = rcu_dereference_protected(t->array, nfhp_set_writing(ctx));
	}
	nfhp_flow_put(a, k, value);
	t->count++;
	t->used++;
	return NFHP_SET_ADDED;
}

/**
 * nfhp_flow_table_del() - delete a key
 * @ctx: the writer's context
 * @t: the table
 * @k: the key
 *
 * Return: %NFHP_SET_DELETED or %NFHP_SET_NOT_FOUND.
 */
int nfhp_flow_table_del(struct nfhp_set_ctx *ctx, struct nfhp_flow_table *t,
			const struct nfhp_flow_fkey *k)
{
	struct nfhp_flow_array *a;
	bool found;
	u32 i;

	a = rcu_dereference_protected(t->array, nfhp_set_writing(ctx));
	i = nfhp_flow_probe(a, k, &found);
	if (!found)
		return NFHP_SET_NOT_FOUND;
	/* As nfhp_flow_put() publishes; the key stays as it is. */
	smp_store_release(&a->slot[i].state, NFHP_FLOW_TOMB);
	t->count--;
	/* Shrinking is an optimisation: a table that cannot keeps its slots. */
	if (nfhp_hash_sparse(t->count, a->nslots))
		nfhp_flow_rehash(ctx, t, t->count);
	return NFHP_SET_DELETED;
}

/**
 * nfhp_flow_table_walk() - call @fn for each key from *@cursor on
 * @t: the table
 * @cursor: the slot to go on at
 * @fn: as &nfhp_set_algo.walk calls it
 * @arg: its argument
 *
 * Return: 0 at the end, or @fn's non-zero value (see &nfhp_set_algo).
 */
int nfhp_flow_table_walk(const struct nfhp_flow_table *t, u64 *cursor,
			 int (*fn)(void *arg, const struct nfhp_set_key *key,
				   u32 value),
			 void *arg)
{
	const struct nfhp_flow_array *a = rcu_dereference(t->array);
	const struct nfhp_flow_slot *s;
	struct nfhp_set_key key = {};
	int err;

	for (; *cursor < a->nslots; ++*cursor) {
		s = &a->slot[*cursor];
		/* Pairs with nfhp_flow_put(), as a probe does. */
		if (smp_load_acquire(&s->state) != NFHP_FLOW_USED)
			continue;
		key.addr = (nfhp_u128)s->hi << 64 | s->lo;
		key.plen = s->meta >> 24;
		key.proto = (u8)(s->meta >> 16);
		key.port = (u16)s->meta;
		err = fn(arg, &key, READ_ONCE(s->value));
		if (err) {
			*cursor += err > 0;
			return err;
		}
	}
	return 0;
}

/**
 * nfhp_flow_set_new() - an empty flow set of either algorithm
 * @ctx: the writer's context
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @hint: the keys its table is sized for
 * @size: the bytes of the algorithm's instance, which starts with a
 *	&struct nfhp_flow_set
 * @hosts: the algorithm takes hosts only
 *
 * Return: the instance, zeroed past the common part, or NULL.
 */
void *nfhp_flow_set_new(struct nfhp_set_ctx *ctx, u8 family, u32 hint,
			u32 size, bool hosts)
{
	struct nfhp_flow_set *fs;

	if (family != NFHP_FAMILY_IPV4 && family != NFHP_FAMILY_IPV6)
		return NULL;
	fs = nfhp_alloc(ctx->mem, size);
	if (!fs)
		return NULL;
	fs->family = family;
	fs->hosts = hosts;
	fs->size = size;
	if (nfhp_flow_table_init(ctx, &fs->t, hint)) {
		nfhp_free(ctx->mem, fs, size);
		return NULL;
	}
	return fs;
}

/**
 * nfhp_flow_set_destroy() - free a flow set no lookup can see any more
 * @ctx: the writer's context
 * @priv: the instance
 */
void nfhp_flow_set_destroy(struct nfhp_set_ctx *ctx, void *priv)
{
	struct nfhp_flow_set *fs = priv;

	nfhp_flow_table_free(ctx, &fs->t);
	nfhp_free(ctx->mem, fs, fs->size);
}

/**
 * nfhp_flow_set_walk() - the &nfhp_set_algo.walk of both algorithms
 * @priv: the instance
 * @cursor: the slot to go on at
 * @fn: called for each entry
 * @arg: its argument
 *
 * Return: as nfhp_flow_table_walk().
 */
int nfhp_flow_set_walk(const void *priv, u64 *cursor,
		       int (*fn)(void *arg, const struct nfhp_set_key *key,
				 u32 value),
		       void *arg)
{
	const struct nfhp_flow_set *fs = priv;

	return nfhp_flow_table_walk(&fs->t, cursor, fn, arg);
}

/**
 * nfhp_flow_set_count() - the &nfhp_set_algo.count of both algorithms
 * @priv: the instance
 *
 * Return: its keys.
 */
u32 nfhp_flow_set_count(const void *priv)
{
	const struct nfhp_flow_set *fs = priv;

	return fs->t.count;
}

static void *nfhp_flow_hash_create(struct nfhp_set_ctx *ctx, u8 family,
				   u32 hint)
{
	return nfhp_flow_set_new(ctx, family, hint,
				 sizeof(struct nfhp_flow_set), true);
}

static int nfhp_flow_hash_add(struct nfhp_set_ctx *ctx, void *priv,
			      const struct nfhp_set_key *key, u32 value,
			      bool update)
{
	struct nfhp_flow_set *fs = priv;
	struct nfhp_flow_fkey k;

	if (!nfhp_flow_fkey_ok(fs, key, &k))
		return -EINVAL;
	return nfhp_flow_table_add(ctx, &fs->t, &k, value, update);
}

static int nfhp_flow_hash_del(struct nfhp_set_ctx *ctx, void *priv,
			      const struct nfhp_set_key *key)
{
	struct nfhp_flow_set *fs = priv;
	struct nfhp_flow_fkey k;

	if (!nfhp_flow_fkey_ok(fs, key, &k))
		return -EINVAL;
	return nfhp_flow_table_del(ctx, &fs->t, &k);
}

/* A packet's key: full width, its protocol and port as they are. */
static bool nfhp_flow_hash_lookup(const void *priv,
				  const struct nfhp_set_key *key, u32 *value)
{
	const struct nfhp_flow_set *fs = priv;
	struct nfhp_flow_fkey k = nfhp_flow_fkey_of(key, key->addr, key->plen);

	return nfhp_flow_table_get(rcu_dereference(fs->t.array), &k, value);
}

/**
 * nfhp_flow_set_find() - the &nfhp_set_algo.find of both algorithms
 * @priv: the instance
 * @key: a host, or a prefix of "lpm", with its protocol and port
 * @value: set to the value of the entry that is @key
 *
 * Return: true if there is one.
 */
bool nfhp_flow_set_find(const void *priv, const struct nfhp_set_key *key,
			u32 *value)
{
	const struct nfhp_flow_set *fs = priv;
	struct nfhp_flow_fkey k;

	return nfhp_flow_fkey_ok(fs, key, &k) &&
	       nfhp_flow_table_get(rcu_dereference(fs->t.array), &k, value);
}

const struct nfhp_set_algo nfhp_set_flow_hash = {
	.name = "hash",
	.type = NFHP_SET_FLOW,
	.create = nfhp_flow_hash_create,
	.destroy = nfhp_flow_set_destroy,
	.add = nfhp_flow_hash_add,
	.del = nfhp_flow_hash_del,
	.lookup = nfhp_flow_hash_lookup,
	.find = nfhp_flow_set_find,
	.walk = nfhp_flow_set_walk,
	.count = nfhp_flow_set_count,
};
