// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: flow sets of prefixes (ipset's hash:net,port).
 *
 * DOC: Flow sets of prefixes
 *
 * The "lpm" algorithm of the flow type holds a prefix with a protocol
 * and a port per entry, in the table "hash" keeps hosts in
 * (set_flow_hash.c), the prefix length part of each key.  Beside it, a
 * bitmap of the prefix lengths present, and for the writer how many
 * keys each has.  A lookup, as ipset's hash:net,port does it, cuts the
 * packet's address to each length present, longest first, and probes
 * the table with it, its protocol and its port: the first hit is the
 * longest prefix that holds the packet with that protocol and port.  A
 * lookup costs one probe per length present, whatever the entries.
 *
 * A writer adds a key before it sets its length's bit, and clears the
 * bit when the length's last key goes: a lookup that sees a bit whose
 * key it does not find yet misses, as it would have just before.
 *
 * Example: "add 10.0.0.0/8,tcp:22 value 1" and "add 10.1.0.0/16,tcp:22
 * value 2" set the bits of 16 and 8.  A TCP packet from 10.1.2.3 to port
 * 22 under "src,dst" probes 10.1.0.0/16 with tcp:22 first and gets 2;
 * one from 10.2.0.1 misses 10.2.0.0/16, then finds 10.0.0.0/8: 1; a UDP
 * one from 10.1.2.3 to port 22 misses both.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>

#include "set_flow.h"

/**
 * struct nfhp_flow_lpm - an "lpm" flow set: prefixes
 * @fs: its keys, each with its prefix length, and its family
 * @lens: bit L - 1 set while a key of prefix length L is in the table;
 *	lookups read it
 * @nlen: the keys of each prefix length L at L - 1, for the writer
 */
struct nfhp_flow_lpm {
	struct nfhp_flow_set fs;
	u64 lens[2];
	u32 nlen[128];
};

static void *nfhp_flow_lpm_create(struct nfhp_set_ctx *ctx, u8 family,
				  u32 hint)
{
	return nfhp_flow_set_new(ctx, family, hint,
				 sizeof(struct nfhp_flow_lpm), false);
}

/**
 * nfhp_flow_lpm_count_len() - count a key of a prefix length in or out
 * @l: the set
 * @plen: the length, 1 to 128
 * @delta: 1 for a key added, -1 for one deleted
 *
 * Sets the length's bit with its first key, clears it with its last.
 */
static void nfhp_flow_lpm_count_len(struct nfhp_flow_lpm *l, u8 plen,
				    int delta)
{
	unsigned int b = plen - 1;
	u64 *word = &l->lens[b / 64];

	l->nlen[b] += delta;
	if (l->nlen[b])
		WRITE_ONCE(*word, *word | BIT_ULL(b % 64));
	else
		WRITE_ONCE(*word, *word & ~BIT_ULL(b % 64));
}

/*
 * Add or delete @key, as @add says, counting its length in or out when
 * the table changed.
 */
static int nfhp_flow_lpm_change(struct nfhp_set_ctx *ctx, void *priv,
				const struct nfhp_set_key *key, bool add,
				u32 value, bool update)
{
	struct nfhp_flow_lpm *l = priv;
	struct nfhp_flow_fkey k;
	int ret;

	if (!nfhp_flow_fkey_ok(&l->fs, key, &k))
		return -EINVAL;
	if (add)
		ret = nfhp_flow_table_add(ctx, &l->fs.t, &k, value, update);
	else
		ret = nfhp_flow_table_del(ctx, &l->fs.t, &k);
	if (ret == NFHP_SET_ADDED || ret == NFHP_SET_DELETED)
		nfhp_flow_lpm_count_len(l, key->plen, add ? 1 : -1);
	return ret;
}

static int nfhp_flow_lpm_add(struct nfhp_set_ctx *ctx, void *priv,
			     const struct nfhp_set_key *key, u32 value,
			     bool update)
{
	return nfhp_flow_lpm_change(ctx, priv, key, true, value, update);
}

static int nfhp_flow_lpm_del(struct nfhp_set_ctx *ctx, void *priv,
			     const struct nfhp_set_key *key)
{
	return nfhp_flow_lpm_change(ctx, priv, key, false, 0, false);
}

/* A packet's key: the longest prefix present that holds it, or none. */
static bool nfhp_flow_lpm_lookup(const void *priv,
				 const struct nfhp_set_key *key, u32 *value)
{
	const struct nfhp_flow_lpm *l = priv;
	const struct nfhp_flow_array *a = rcu_dereference(l->fs.t.array);
	unsigned int width = nfhp_flow_width(l->fs.family);
	struct nfhp_flow_fkey k;
	unsigned int plen;
	int w;
	u64 bits;

	for (w = 1; w >= 0; w--) {
		bits = READ_ONCE(l->lens[w]);
		while (bits) {
			plen = 64 * w + fls64(bits);
			bits &= ~BIT_ULL(fls64(bits) - 1);
			if (plen > width)
				continue;
			k = nfhp_flow_fkey_of(key, nfhp_flow_prefix(key->addr,
								    width,
								    plen),
					      plen);
			if (nfhp_flow_table_get(a, &k, value))
				return true;
		}
	}
	return false;
}

const struct nfhp_set_algo nfhp_set_flow_lpm = {
	.name = "lpm",
	.type = NFHP_SET_FLOW,
	.nomatch = true,
	.create = nfhp_flow_lpm_create,
	.destroy = nfhp_flow_set_destroy,
	.add = nfhp_flow_lpm_add,
	.del = nfhp_flow_lpm_del,
	.lookup = nfhp_flow_lpm_lookup,
	.find = nfhp_flow_set_find,
	.walk = nfhp_flow_set_walk,
	.count = nfhp_flow_set_count,
};
