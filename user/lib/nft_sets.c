// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: nft named sets as nf-hipac named sets (see nft_sets.h).
 *
 * nft keeps an interval set as bounds: an element starts an interval, and
 * an element flagged NFT_SET_ELEM_INTERVAL_END one past its last address
 * ends it (an interval up to the last address has no end; older
 * rbtrees add a stray end at 0), or, in newer dumps, one element holds
 * both ends (NFTNL_SET_ELEM_KEY_END, inclusive).  Sorted, with an end
 * before a start of the same address, the bounds alternate start, end.
 */
#include "nft_sets.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/nf_tables.h>
#include <libnftnl/set.h>

/* nft's datatypes of IPv4 and IPv6 addresses (NFTNL_SET_KEY_TYPE). */
#define NFT_TYPE_IPADDR		7
#define NFT_TYPE_IP6ADDR	8

/**
 * struct bound - a bound of an interval, or a host
 * @v: the address, host order
 * @end: one past the last address of an interval
 */
struct bound {
	nfhp_u128 v;
	bool end;
};

static u32 set_flags(const struct nftnl_set *s)
{
	return nftnl_set_is_set(s, NFTNL_SET_FLAGS) ?
	       nftnl_set_get_u32(s, NFTNL_SET_FLAGS) : 0;
}

/*
 * Names go into iptables-save text ("--match-set NAME src"), a word
 * of its own, and into nf-hipac's NFHP_SET_MAXNAMELEN.
 */
static int check_name(const char *name, char *err, size_t errlen)
{
	const unsigned char *p;

	if (strlen(name) >= NFHP_SET_MAXNAMELEN) {
		snprintf(err, errlen,
			 "a name longer than the %d bytes of nf-hipac's set names",
			 NFHP_SET_MAXNAMELEN - 1);
		return -EINVAL;
	}
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p <= ' ' || *p == '"' || *p == '\'' || *p == '\\' ||
		    *p == 0x7f) {
			snprintf(err, errlen,
				 "a name with a space, a quote or a control character, which iptables-save text cannot hold");
			return -EINVAL;
		}
	}
	return 0;
}

int nfhp_nft_set_check(const struct nftnl_set *s, unsigned int len,
		       char *err, size_t errlen)
{
	u32 flags = set_flags(s);
	u32 type = len == 16 ? NFT_TYPE_IP6ADDR : NFT_TYPE_IPADDR;
	u32 klen = nftnl_set_is_set(s, NFTNL_SET_KEY_LEN) ?
		   nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN) : len;

	if (flags & (NFT_SET_MAP | NFT_SET_OBJECT))
		snprintf(err, errlen, "a map");
	else if (flags & NFT_SET_CONCAT || klen != len)
		snprintf(err, errlen, "keys of %u bytes (a concatenation)",
			 klen);
	else if (nftnl_set_is_set(s, NFTNL_SET_KEY_TYPE) &&
		 nftnl_set_get_u32(s, NFTNL_SET_KEY_TYPE) != type)
		snprintf(err, errlen, "keys of nft type %u, not %s",
			 nftnl_set_get_u32(s, NFTNL_SET_KEY_TYPE),
			 len == 16 ? "ipv6_addr" : "ipv4_addr");
	else if (flags & NFT_SET_TIMEOUT)
		snprintf(err, errlen,
			 "elements that time out, which nf-hipac's sets do not");
	else if (flags & NFT_SET_EVAL)
		snprintf(err, errlen,
			 "filled by rules (flags dynamic), which nf-hipac's sets are not");
	else
		return check_name(nftnl_set_get_str(s, NFTNL_SET_NAME), err,
				  errlen);
	return -EINVAL;
}

static nfhp_u128 key_val(const void *key, u32 len)
{
	const u8 *b = key;
	nfhp_u128 v = 0;
	u32 i;

	for (i = 0; i < len; i++)
		v = v << 8 | b[i];
	return v;
}

static int bound_cmp(const void *a, const void *b)
{
	const struct bound *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (int)y->end - (int)x->end;	/* an end before a start */
}

/*
 * The bounds element @e of a set (keys of @len bytes, @max the last
 * address) stands for, into @b: its key, and the end after a range that
 * it holds whole.  Return: their number, or -EINVAL.
 */
static int elem_bounds(struct nftnl_set_elem *e, bool interval, u32 len,
		       nfhp_u128 max, struct bound *b)
{
	u32 klen = 0, elen = 0, flags = 0;
	const void *key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &klen);
	const void *kend = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY_END,
					      &elen);

	if (!key || klen != len || (kend && elen != len))
		return -EINVAL;
	if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS))
		flags = nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS);
	b[0].v = key_val(key, len);
	b[0].end = interval && flags & NFT_SET_ELEM_INTERVAL_END;
	if (!interval || !kend || key_val(kend, len) == max)
		return 1;
	b[1].v = key_val(kend, len) + 1;
	b[1].end = true;
	return 2;
}

/* The elements of @s as sorted bounds: their number, or -errno. */
static int read_bounds(const struct nftnl_set *s, u32 len, nfhp_u128 max,
		       struct bound **bp)
{
	bool interval = set_flags(s) & NFT_SET_INTERVAL;
	struct nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	struct nftnl_set_elem *e;
	struct bound *b = NULL, *p;
	int n = 0, k = 0;

	if (!it)
		return -ENOMEM;
	while (k >= 0 && (e = nftnl_set_elems_iter_next(it))) {
		p = realloc(b, (n + 2) * sizeof(*b));
		if (!p) {
			k = -ENOMEM;
			break;
		}
		b = p;
		k = elem_bounds(e, interval, len, max, b + n);
		n += k;
	}
	nftnl_set_elems_iter_destroy(it);
	if (k < 0) {
		free(b);
		return k;
	}
	if (n > 1)
		qsort(b, n, sizeof(*b), bound_cmp);
	*bp = b;
	return n;
}

int nfhp_nft_set_keys(const struct nftnl_set *s,
		      const struct nfhp_set_info *info,
		      int (*fn)(void *data, const struct nfhp_set_entry *e),
		      void *data)
{
	bool v6 = info->family == NFHP_FAMILY_IPV6;
	nfhp_u128 hi, max = v6 ? ~(nfhp_u128)0 : 0xffffffff;
	struct nfhp_set_entry e = { .plen = v6 ? 128 : 32 };
	struct bound *b = NULL;
	int i, n, ret = 0;

	n = read_bounds(s, v6 ? 16 : 4, max, &b);
	if (n < 0)
		return n;
	for (i = 0; !ret && i < n; i++) {
		if (b[i].end)
			continue;	/* a stray end: the 0 of rbtrees */
		if (strcmp(info->algo, "lpm")) {
			e.addr = b[i].v;
			ret = fn(data, &e);
			continue;
		}
		if (i + 1 < n && !b[i + 1].end) {
			ret = -EINVAL;	/* overlapping intervals */
			break;
		}
		hi = i + 1 < n ? b[i + 1].v - 1 : max;
		ret = nfhp_set_range_prefixes(b[i].v, hi, info->family, fn,
					      data);
	}
	free(b);
	return ret;
}

static int count_key(void *data, const struct nfhp_set_entry *e)
{
	(*(u32 *)data)++;
	return 0;
}

int nfhp_nft_set_info(const struct nftnl_set *s, u8 family,
		      struct nfhp_set_info *info)
{
	u32 n = 0;
	int ret;

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s",
		 nftnl_set_get_str(s, NFTNL_SET_NAME));
	info->type = NFHP_SET_ADDR;
	snprintf(info->algo, sizeof(info->algo), "%s",
		 set_flags(s) & NFT_SET_INTERVAL ? "lpm" : "hash");
	info->family = family;
	ret = nfhp_nft_set_keys(s, info, count_key, &n);
	if (ret)
		return ret;
	if (nftnl_set_is_set(s, NFTNL_SET_DESC_SIZE))
		info->limit = nftnl_set_get_u32(s, NFTNL_SET_DESC_SIZE);
	if (info->limit && info->limit < n)
		info->limit = n;
	return 0;
}
