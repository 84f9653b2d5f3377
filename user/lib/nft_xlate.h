/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: translate an nftables table into iptables-save text.
 *
 * "nf-hipac import" reads a table of the live nftables rule set through
 * libnftnl (the "ip filter" or "ip6 filter" table iptables-nft and
 * ip6tables-nft write, or a plain nft table of family ip, ip6 or inet) and
 * hands the chains, the sets and the rules to the functions below.  They
 * interpret each rule's expressions the way the kernel would (payload,
 * meta, ct loads into registers, bitwise, cmp, range and lookup on them,
 * the xt match blobs iptables-nft emits, the verdict) and write the
 * equivalent rules as iptables-save or ip6tables-save text, which the
 * ordinary restore path then parses and loads in one transaction.  A
 * lookup of an address in a named set becomes a set match of the
 * nf-hipac set the import makes of it (nft_sets.h), which
 * nfhp_xlate_named_set() hands over.
 *
 * Nothing here talks to the kernel: the unit test builds nftnl objects in
 * memory.  A rule that has no exact equivalent makes the translation fail
 * with a message naming the rule and the expression; nothing is dropped.
 */
#ifndef _NFHP_NFT_XLATE_H
#define _NFHP_NFT_XLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct nftnl_chain;
struct nftnl_rule;
struct nftnl_set;
struct nfhp_xlate;

/*
 * A translation of table @name of nft family @family (NFPROTO_IPV4,
 * NFPROTO_IPV6 or NFPROTO_INET).  NULL when out of memory.
 */
struct nfhp_xlate *nfhp_xlate_alloc(int family, const char *name);
void nfhp_xlate_free(struct nfhp_xlate *x);

/*
 * The family the text is for, NFPROTO_IPV4 (iptables-save text, the
 * default of tables ip and inet) or NFPROTO_IPV6 (ip6tables-save text, the
 * default of table ip6); an inet table has either view, the others only
 * their own.  Rules that cannot match a packet of that family are left
 * out.  0 or -EINVAL.
 */
int nfhp_xlate_set_view(struct nfhp_xlate *x, int view);

/*
 * Hand over the objects of the table, which the translation then owns.
 * Rules must come in the order of their chain; sets with their elements.
 * Objects of other tables are freed and ignored.  0 or -ENOMEM.
 */
int nfhp_xlate_add_chain(struct nfhp_xlate *x, struct nftnl_chain *c);
int nfhp_xlate_add_set(struct nfhp_xlate *x, struct nftnl_set *s);
int nfhp_xlate_add_rule(struct nfhp_xlate *x, struct nftnl_rule *r);

/* Write the counters of the nft rules ("[p:b] -A ..."), as iptables-save -c. */
void nfhp_xlate_set_counters(struct nfhp_xlate *x, bool on);

/*
 * Write the table as iptables-save text to @out (again, after another
 * view was chosen).  With @only_chain (an
 * nft chain name, or INPUT/FORWARD/OUTPUT for the base chain at that
 * hook) just that base chain and the chains it reaches are written, with
 * an explicit "-F CHAIN" so that the text is meant for restore --noflush.
 * Returns 0, or an iptables exit code (2: cannot be translated) with the
 * reason in @err.
 */
int nfhp_xlate_save(struct nfhp_xlate *x, const char *only_chain, FILE *out,
		    char *err, size_t errlen);

/*
 * After nfhp_xlate_save(): the nft rule that output line @line (1-based)
 * came from, as "rule 3 of chain FORWARD (handle 12)", or "" for lines of
 * no rule.  Returns @buf.
 */
const char *nfhp_xlate_line_origin(const struct nfhp_xlate *x,
				   unsigned long line, char *buf, size_t len);

/*
 * After nfhp_xlate_save(): the nft chains the text covers (their rules
 * are what --takeover flushes), @i from 0; NULL past the last.  @base
 * says whether it is a base chain, @policy_drop whether its policy drops.
 */
const char *nfhp_xlate_source(const struct nfhp_xlate *x, unsigned int i,
			      bool *base, bool *policy_drop);

/*
 * The comment of the rule "nf-hipac import --takeover" leaves in each base
 * chain it takes over: a rule that only counts in a flushed chain, or,
 * with the _IPV4 comment, the "meta nfproto ipv4 accept" put in front of
 * an inet chain whose IPv6 rules stay (--ipv4-only; before, every takeover
 * of a chain said IPv4).  The translation leaves such a rule out, with a
 * "#" line in its place.
 */
#define NFHP_TAKEOVER_MARK \
	"nf-hipac import --takeover: rules moved to nf-hipac"
#define NFHP_TAKEOVER_MARK_IPV4 \
	"nf-hipac import --takeover: IPv4 rules moved to nf-hipac"

/* After nfhp_xlate_save(): does source chain @i hold a takeover's mark? */
bool nfhp_xlate_source_marked(const struct nfhp_xlate *x, unsigned int i);

/*
 * After nfhp_xlate_save(): rules written, and nft rules skipped as of the
 * other family only.
 */
unsigned int nfhp_xlate_nrules(const struct nfhp_xlate *x);
unsigned int nfhp_xlate_nskipped(const struct nfhp_xlate *x);

/*
 * After nfhp_xlate_save(): the named sets the set matches of the text
 * refer to ("-m set --match-set NAME src"), checked with
 * nfhp_nft_set_check() for the view's family, @i from 0; NULL past the
 * last.
 */
const struct nftnl_set *nfhp_xlate_named_set(const struct nfhp_xlate *x,
					     unsigned int i);

#endif /* _NFHP_NFT_XLATE_H */
