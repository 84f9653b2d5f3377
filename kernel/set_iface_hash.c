// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets of interface names, the "hash" algorithm.
 *
 * DOC: Interface names in hashes
 *
 * An exact name is one 128-bit key and a wildcard "eth+" a prefix of
 * such keys (DOC: Interface sets, set_iface.h).  The set keeps one hash
 * of hosts (set_hash.c, IPv6-wide slots) per prefix length, index L for
 * the wildcards of L bytes and index 16 for the exact names, and a
 * bitmap of the lengths that hold entries.  A lookup of a packet's name
 * probes the exact names first, then the name cut to each wildcard
 * length present, longest first, and stops at the first hit: the
 * longest match.  A set of exact names costs one probe, as a hash of
 * hosts does; each wildcard length present adds one.
 *
 * Example: "eth1+" => 2, "eth+" => 1, "lo" => 9 make the hashes 4
 * ("eth1"), 3 ("eth") and 16 ("lo"), bitmap bits 16, 4, 3.  A lookup of
 * "eth12" probes 16 with "eth12" (miss), then 4 with "eth1": hit, 2.
 *
 * A length's hash is made by the first add of that length and kept, empty
 * or not, until the set goes: a lookup may hold it without a lock.  An
 * add publishes it before its bit; a delete that empties it clears its
 * bit, and a lookup that read the bit before finds nothing in it.
 */
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>

#include "set_algo.h"
#include "set_iface.h"

/* A hash per wildcard length, 0 to 14 bytes, and one for exact names. */
#define NFHP_IFACE_EXACT	NFHP_IFNAME_LEN
#define NFHP_IFACE_HASHES	(NFHP_IFACE_EXACT + 1)
/* walk(): the hash's index above these bits of the cursor. */
#define NFHP_IFACE_CURSOR_SHIFT	40

/**
 * struct nfhp_iface_hash - one set's hashes
 * @by_len: the hash of each length, NULL until the first add of it
 * @present: bit i set when @by_len[i] holds entries
 * @count: the entries of all
 */
struct nfhp_iface_hash {
	void __rcu *by_len[NFHP_IFACE_HASHES];
	u32 present;
	u32 count;
};

/**
 * nfhp_iface_index() - the hash of a key
 * @key: a name (plen 128) or a wildcard
 *
 * Return: its bytes for a wildcard, %NFHP_IFACE_EXACT for a name.
 */
static unsigned int nfhp_iface_index(const struct nfhp_set_key *key)
{
	return key->plen / 8;
}

/**
 * nfhp_iface_probe() - the key a length's hash holds a name under
 * @name: a packet's name, or the key of an entry
 * @i: the hash's index
 *
 * Return: @name cut to the length's bytes, as a host key.
 */
static struct nfhp_set_key nfhp_iface_probe(nfhp_u128 name, unsigned int i)
{
	return (struct nfhp_set_key){ .addr = name & nfhp_iface_mask(i),
				      .plen = 128 };
}

/**
 * nfhp_iface_hash_lookup() - the value of the longest match of a name
 * @priv: the set
 * @key: the packet's device name, plen 128
 * @value: set to the value of the match
 *
 * Runs under rcu_read_lock(), beside a writer.
 *
 * Return: whether an entry holds the name.
 */
static bool nfhp_iface_hash_lookup(const void *priv,
				   const struct nfhp_set_key *key, u32 *value)
{
	const struct nfhp_iface_hash *ih = priv;
	struct nfhp_set_key probe;
	const void *h;
	unsigned int i;
	u32 left;

	/* Pairs with nfhp_iface_hash_add(): a bit seen, its hash is too. */
	left = smp_load_acquire(&ih->present);
	while (left) {
		i = fls(left) - 1;
		left &= ~BIT(i);
		h = rcu_dereference(ih->by_len[i]);
		probe = nfhp_iface_probe(key->addr, i);
		if (h && nfhp_hash_lookup(h, &probe, value))
			return true;
	}
	return false;
}

/**
 * nfhp_iface_hash_find() - the value of a name or wildcard itself
 * @priv: the set
 * @key: the name
 * @value: set to its value when found
 *
 * Return: whether the set holds it.
 */
static bool nfhp_iface_hash_find(const void *priv,
				 const struct nfhp_set_key *key, u32 *value)
{
	const struct nfhp_iface_hash *ih = priv;
	struct nfhp_set_key probe;
	const void *h;

	if (!nfhp_iface_key_ok(key->addr, key->plen))
		return false;
	h = rcu_dereference(ih->by_len[nfhp_iface_index(key)]);
	probe = nfhp_iface_probe(key->addr, NFHP_IFACE_EXACT);
	return h && nfhp_hash_lookup(h, &probe, value);
}

/**
 * nfhp_iface_hash_of() - a length's hash, for a writer
 * @ctx: the writer's context
 * @ih: the set
 * @i: the hash's index
 *
 * Return: the hash, or NULL before the first add of that length.
 */
static void *nfhp_iface_hash_of(struct nfhp_set_ctx *ctx,
				struct nfhp_iface_hash *ih, unsigned int i)
{
	return rcu_dereference_protected(ih->by_len[i], nfhp_set_writing(ctx));
}

/**
 * nfhp_iface_hash_entry() - where a writer finds an entry
 * @ctx: the writer's context
 * @ih: the set
 * @key: the entry's name or wildcard
 * @probe: set to its key in its length's hash
 * @make: make the length's hash if there is none yet (an add)
 *
 * Return: its length's hash; NULL when there is none and not @make;
 * ERR_PTR(-EINVAL) when @key is no name, ERR_PTR(-ENOMEM).
 */
static void *nfhp_iface_hash_entry(struct nfhp_set_ctx *ctx,
				   struct nfhp_iface_hash *ih,
				   const struct nfhp_set_key *key,
				   struct nfhp_set_key *probe, bool make)
{
	unsigned int i;
	void *h;

	if (!nfhp_iface_key_ok(key->addr, key->plen))
		return ERR_PTR(-EINVAL);
	*probe = nfhp_iface_probe(key->addr, NFHP_IFACE_EXACT);
	i = nfhp_iface_index(key);
	h = nfhp_iface_hash_of(ctx, ih, i);
	if (h || !make)
		return h;
	h = nfhp_hash_create(ctx, NFHP_FAMILY_IPV6, 0);
	if (!h)
		return ERR_PTR(-ENOMEM);
	rcu_assign_pointer(ih->by_len[i], h);
	return h;
}

/**
 * nfhp_iface_hash_add() - add a name or a wildcard, or update its value
 * @ctx: the writer's context
 * @priv: the set
 * @key: the name
 * @value: its value
 * @update: give an existing name @value
 *
 * Return: the &enum nfhp_set_result, -EINVAL for no name, or -ENOMEM.
 */
static int nfhp_iface_hash_add(struct nfhp_set_ctx *ctx, void *priv,
			       const struct nfhp_set_key *key, u32 value,
			       bool update)
{
	struct nfhp_iface_hash *ih = priv;
	struct nfhp_set_key probe;
	void *h;
	int ret;

	h = nfhp_iface_hash_entry(ctx, ih, key, &probe, true);
	if (IS_ERR(h))
		return PTR_ERR(h);
	ret = nfhp_hash_add(ctx, h, &probe, value, update);
	if (ret != NFHP_SET_ADDED)
		return ret;
	ih->count++;
	/* After the hash and its key: a lookup that sees the bit finds it. */
	smp_store_release(&ih->present,
			  ih->present | BIT(nfhp_iface_index(key)));
	return ret;
}

/**
 * nfhp_iface_hash_del() - delete a name or a wildcard
 * @ctx: the writer's context
 * @priv: the set
 * @key: the name
 *
 * Return: %NFHP_SET_DELETED, %NFHP_SET_NOT_FOUND or -EINVAL.
 */
static int nfhp_iface_hash_del(struct nfhp_set_ctx *ctx, void *priv,
			       const struct nfhp_set_key *key)
{
	struct nfhp_iface_hash *ih = priv;
	struct nfhp_set_key probe;
	void *h;
	int ret;

	h = nfhp_iface_hash_entry(ctx, ih, key, &probe, false);
	if (!h)
		return NFHP_SET_NOT_FOUND;
	if (IS_ERR(h))
		return PTR_ERR(h);
	ret = nfhp_hash_del(ctx, h, &probe);
	if (ret != NFHP_SET_DELETED)
		return ret;
	ih->count--;
	if (!nfhp_hash_count(h))
		WRITE_ONCE(ih->present,
			   ih->present & ~BIT(nfhp_iface_index(key)));
	return ret;
}

/**
 * struct nfhp_iface_walk - a walk of one length's hash
 * @fn: the caller's function
 * @arg: its argument
 * @plen: the prefix length of the hash's keys as entries
 */
struct nfhp_iface_walk {
	int (*fn)(void *arg, const struct nfhp_set_key *key, u32 value);
	void *arg;
	u8 plen;
};

/**
 * nfhp_iface_walk_one() - hand one key of a length's hash on as an entry
 * @arg: the &struct nfhp_iface_walk
 * @key: the host key
 * @value: its value
 *
 * Return: what the caller's function returns.
 */
static int nfhp_iface_walk_one(void *arg, const struct nfhp_set_key *key,
			       u32 value)
{
	const struct nfhp_iface_walk *w = arg;
	struct nfhp_set_key entry = { .addr = key->addr, .plen = w->plen };

	return w->fn(w->arg, &entry, value);
}

/**
 * nfhp_iface_hash_walk() - call @fn for each entry from *@cursor on
 * @priv: the set
 * @cursor: the hash's index above %NFHP_IFACE_CURSOR_SHIFT, its own
 *	cursor below
 * @fn: the function
 * @arg: its argument
 *
 * Return: as &struct nfhp_set_algo's walk.
 */
static int nfhp_iface_hash_walk(const void *priv, u64 *cursor,
				int (*fn)(void *arg,
					  const struct nfhp_set_key *key,
					  u32 value),
				void *arg)
{
	const struct nfhp_iface_hash *ih = priv;
	struct nfhp_iface_walk w = { .fn = fn, .arg = arg };
	u64 i, sub;
	const void *h;
	int ret;

	for (i = *cursor >> NFHP_IFACE_CURSOR_SHIFT; i < NFHP_IFACE_HASHES;
	     i++) {
		h = rcu_dereference(ih->by_len[i]);
		sub = *cursor & (BIT_ULL(NFHP_IFACE_CURSOR_SHIFT) - 1);
		w.plen = i == NFHP_IFACE_EXACT ? 128 : 8 * i;
		ret = h ? nfhp_hash_walk(h, &sub, nfhp_iface_walk_one, &w) : 0;
		*cursor = i << NFHP_IFACE_CURSOR_SHIFT | sub;
		if (ret)
			return ret;
		*cursor = (i + 1) << NFHP_IFACE_CURSOR_SHIFT;
	}
	return 0;
}

/**
 * nfhp_iface_hash_count() - the entries of a set
 * @priv: the set
 *
 * Return: how many.
 */
static u32 nfhp_iface_hash_count(const void *priv)
{
	const struct nfhp_iface_hash *ih = priv;

	return ih->count;
}

/**
 * nfhp_iface_hash_create() - an empty set of names
 * @ctx: the writer's context
 * @family: unused: names serve both families
 * @hint: unused: each length's hash grows with its names
 *
 * Return: the set, or NULL when out of memory.
 */
static void *nfhp_iface_hash_create(struct nfhp_set_ctx *ctx, u8 family,
				    u32 hint)
{
	return nfhp_alloc(ctx->mem, sizeof(struct nfhp_iface_hash));
}

/**
 * nfhp_iface_hash_destroy() - free a set no lookup can see
 * @ctx: the writer's context
 * @priv: the set
 */
static void nfhp_iface_hash_destroy(struct nfhp_set_ctx *ctx, void *priv)
{
	struct nfhp_iface_hash *ih = priv;
	unsigned int i;
	void *h;

	for (i = 0; i < NFHP_IFACE_HASHES; i++) {
		h = nfhp_iface_hash_of(ctx, ih, i);
		if (h)
			nfhp_hash_destroy(ctx, h);
	}
	nfhp_free(ctx->mem, ih, sizeof(*ih));
}

const struct nfhp_set_algo nfhp_set_iface_hash = {
	.name = "hash",
	.type = NFHP_SET_IFACE,
	.create = nfhp_iface_hash_create,
	.destroy = nfhp_iface_hash_destroy,
	.add = nfhp_iface_hash_add,
	.del = nfhp_iface_hash_del,
	.lookup = nfhp_iface_hash_lookup,
	.find = nfhp_iface_hash_find,
	.walk = nfhp_iface_hash_walk,
	.count = nfhp_iface_hash_count,
};
