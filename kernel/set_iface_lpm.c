// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets of interface names, the "lpm" algorithm.
 *
 * The names are 128-bit keys and the wildcards their prefixes (DOC:
 * Interface sets, set_iface.h), so an IPv6-wide "lpm" set holds them as
 * they are: a lookup is one search of one slot's sorted intervals, what
 * ipfw's iface:array does with a binary search of its names.  This file
 * checks that a key is a name and hands it on.
 */
#include <linux/errno.h>

#include "set_algo.h"
#include "set_iface.h"

/**
 * nfhp_iface_lpm_create() - an empty set of names
 * @ctx: the writer's context
 * @family: unused: names serve both families
 * @hint: unused: the table grows with the set
 *
 * Return: the set, or NULL when out of memory.
 */
static void *nfhp_iface_lpm_create(struct nfhp_set_ctx *ctx, u8 family,
				   u32 hint)
{
	return nfhp_lpm_create(ctx, NFHP_FAMILY_IPV6, hint);
}

/**
 * nfhp_iface_lpm_add() - add a name or a wildcard, or update its value
 * @ctx: the writer's context
 * @priv: the set
 * @key: the name
 * @value: its value
 * @update: give an existing name @value
 *
 * Return: the &enum nfhp_set_result, -EINVAL for no name, or -ENOMEM.
 */
static int nfhp_iface_lpm_add(struct nfhp_set_ctx *ctx, void *priv,
			      const struct nfhp_set_key *key, u32 value,
			      bool update)
{
	if (!nfhp_iface_key_ok(key->addr, key->plen))
		return -EINVAL;
	return nfhp_lpm_add(ctx, priv, key, value, update);
}

/**
 * nfhp_iface_lpm_del() - delete a name or a wildcard
 * @ctx: the writer's context
 * @priv: the set
 * @key: the name
 *
 * Return: %NFHP_SET_DELETED, %NFHP_SET_NOT_FOUND, -EINVAL or -ENOMEM.
 */
static int nfhp_iface_lpm_del(struct nfhp_set_ctx *ctx, void *priv,
			      const struct nfhp_set_key *key)
{
	if (!nfhp_iface_key_ok(key->addr, key->plen))
		return -EINVAL;
	return nfhp_lpm_del(ctx, priv, key);
}

/**
 * nfhp_iface_lpm_find() - the value of a name or wildcard itself
 * @priv: the set
 * @key: the name
 * @value: set to its value when found
 *
 * Return: whether the set holds it.
 */
static bool nfhp_iface_lpm_find(const void *priv,
				const struct nfhp_set_key *key, u32 *value)
{
	return nfhp_iface_key_ok(key->addr, key->plen) &&
	       nfhp_lpm_find(priv, key, value);
}

const struct nfhp_set_algo nfhp_set_iface_lpm = {
	.name = "lpm",
	.type = NFHP_SET_IFACE,
	.create = nfhp_iface_lpm_create,
	.destroy = nfhp_lpm_destroy,
	.add = nfhp_iface_lpm_add,
	.del = nfhp_iface_lpm_del,
	.lookup = nfhp_lpm_lookup,
	.find = nfhp_iface_lpm_find,
	.walk = nfhp_lpm_walk,
	.count = nfhp_lpm_count,
};
