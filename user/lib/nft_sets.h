/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: nft named sets as nf-hipac named sets, for "nf-hipac import".
 *
 * A rule's lookup of an address in a named nft set ("ip saddr @bl",
 * "ip6 daddr != @nets") becomes a set match of the nf-hipac set of the
 * same name ("-m set [!] --match-set bl src"), which the import creates
 * and fills with the nft set's elements in the transaction of the rules.
 * A set of type ipv4_addr or ipv6_addr becomes a set of that family:
 * without the interval flag a "hash" set (hash:ip) of its hosts, with it
 * an "lpm" set (hash:net) of prefixes, a range that is no prefix becoming
 * the fewest prefixes that cover it exactly.  Anonymous sets ("ip saddr
 * { ... }") are none of this: the translation expands them.
 *
 * Nothing here talks to the kernel.
 */
#ifndef _NFHP_NFT_SETS_H
#define _NFHP_NFT_SETS_H

#include "set_parse.h"

struct nftnl_set;

/*
 * Can named set @s, looked up with keys of @len bytes (4: IPv4, 16:
 * IPv6), become an nf-hipac set?  Not a map, a concatenation, a set of
 * other keys, a set whose elements time out or that rules fill, nor one
 * whose name nf-hipac cannot take.  Return: 0, or -EINVAL with why in
 * @err ("a map", ...).
 */
int nfhp_nft_set_check(const struct nftnl_set *s, unsigned int len,
		       char *err, size_t errlen);

/*
 * The nf-hipac set of &enum nfhp_family @family that set @s (checked)
 * becomes: its name, type, algorithm, family and limit (the nft set's
 * size, or the number of keys if that is more; none without a size).
 * Return: 0, -EINVAL for a malformed element or -ENOMEM.
 */
int nfhp_nft_set_info(const struct nftnl_set *s, u8 family,
		      struct nfhp_set_info *info);

/*
 * The keys of the elements of set @s, as the set @info that
 * nfhp_nft_set_info() made takes them, in the order of their addresses:
 * hosts, or prefixes.  @fn may stop the walk with a non-zero value.
 * Return: 0, @fn's value, -EINVAL for a malformed element or -ENOMEM.
 */
int nfhp_nft_set_keys(const struct nftnl_set *s,
		      const struct nfhp_set_info *info,
		      int (*fn)(void *data, const struct nfhp_set_entry *e),
		      void *data);

#endif /* _NFHP_NFT_SETS_H */
