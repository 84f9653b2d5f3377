// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: translate an nftables table into iptables-save text.
 *
 * Each rule is interpreted like a tiny register machine.  A load (payload,
 * meta, ct) tells what a register holds: "the source address, 3 bytes",
 * "the tcp destination port", "the conntrack state".  bitwise masks it,
 * and cmp, range and lookup turn the register into a condition on that
 * field, which lands in the iptables-style rule being built: -s/-d,
 * -i/-o, -p, -f or one of the matches (tcp, udp, icmp, multiport,
 * conntrack, ttl, length, mark, iprange, comment).  The xt match blobs of
 * iptables-nft are decoded into the same matches.  The verdict (immediate,
 * or the data of a verdict map) becomes the target.
 *
 * A lookup in an anonymous set whose elements cannot be folded into one
 * match (an address set, "iifname { a, b }", a verdict map) expands the
 * rule into one rule per element, in order.  That is exact: the elements
 * of an nft set never overlap, so a packet matches at most one of the
 * copies.  A lookup of an address in a named set becomes a set match
 * instead ("-m set --match-set NAME src"), of the nf-hipac set the import
 * makes of it, which may change later as the nft set could; lookups in
 * named sets of other keys are refused, since expanding them would
 * freeze what was meant to change.
 *
 * The text is written for one family, the view: an ip table gives
 * iptables-save text, an ip6 table ip6tables-save text (16-byte addresses,
 * icmp6, hl), and an inet table either, one view at a time.  What has no
 * exact nf-hipac equivalent makes the whole translation fail with a
 * message naming the rule and the expression.  The only rules left out
 * are those that can never see a packet of the view's family ("meta
 * nfproto ipv6" in the IPv4 view of an inet table); they are counted and
 * noted in the output.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_addrtype.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_connmark.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_length.h>
#include <linux/netfilter/xt_limit.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_owner.h>
#include <linux/netfilter/xt_pkttype.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ipt_LOG.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/netfilter_ipv4/ipt_ttl.h>
#include <linux/netfilter_ipv6/ip6t_REJECT.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/udata.h>

#include "parse.h"
#include "nft_sets.h"
#include "nft_xlate.h"
#include "print.h"
#include "xt_hooks.h"

#define XL_MAX_CLAUSES	12
#define XL_MAX_EXPAND	4	/* set lookups expanded per rule */
#define XL_MAX_COPIES	65536	/* rules one nft rule may expand into */
#define XL_NREGS	16	/* 32-bit registers */
#define XL_IFNAMSIZ	16
#define XL_VERDICT_XT	1000	/* an iptables target: -j REJECT, LOG... */
#define XL_LOG_DEFAULT	4	/* LOG --log-level warning */
#define XL_XT_TEXT	512	/* " -m NAME ..." of an xt match */
#define XL_TARGET_TEXT	260	/* " -j NAME ...": " -j " and s->xtarget */

/* ipt_icmp (linux/netfilter_ipv4/ip_tables.h drags in too much). */
struct xl_ipt_icmp {
	__u8 type;
	__u8 code[2];
	__u8 invflags;
};

/* Conntrack states as xt_state numbers them (nft's ct state alike). */
#define XL_CT_INVALID	0x01
#define XL_CT_EST	0x02
#define XL_CT_REL	0x04
#define XL_CT_NEW	0x08
#define XL_CT_UNTRACKED	0x40
#define XL_CT_ALL	0x4f

static const struct {
	const char *name;
	unsigned int bit;
} xl_states[] = {	/* iptables' print order */
	{ "INVALID", XL_CT_INVALID }, { "NEW", XL_CT_NEW },
	{ "RELATED", XL_CT_REL }, { "ESTABLISHED", XL_CT_EST },
	{ "UNTRACKED", XL_CT_UNTRACKED },
};

/* What a register holds. */
enum xl_field {
	XF_NONE, XF_SADDR, XF_DADDR, XF_PROTO, XF_NFPROTO, XF_ETHPROTO,
	XF_IIFNAME, XF_OIFNAME, XF_IIF, XF_OIF, XF_SPORT, XF_DPORT,
	XF_TCPFLAGS, XF_ICMPTYPE, XF_ICMPCODE, XF_ICMPTC, XF_FRAG, XF_TTL,
	XF_LENGTH, XF_MARK, XF_CTSTATE, XF_PKTTYPE, XF_SKUID, XF_SKGID,
	XF_SADDRTYPE, XF_DADDRTYPE, XF_CTMARK, XF_CONST, XF_CTSTATUS,
	XF_CTDIR,
};

/**
 * struct xl_reg - the contents of a register
 * @field: &enum xl_field
 * @len: bytes loaded
 * @host: a host-endian 32-bit value (meta, ct), else network order
 * @masked: a bitwise AND was applied
 * @mask: that mask, in value space
 * @iface: for an address type (nft fib), XT_ADDRTYPE_LIMIT_IFACE_IN or
 *	_OUT when the lookup is limited to the packet's interface, else 0
 * @value: XF_CONST: the 32-bit value an immediate put there
 * @mask6: an IPv6 address: the mask, as bytes (@mask holds 32 bits only)
 */
struct xl_reg {
	int field;
	unsigned int len;
	bool host;
	bool masked;
	u32 mask;
	u8 mask6[16];
	u32 iface;
	u32 value;
};

/**
 * struct xl_range - an interval condition on one field
 * @set: present
 * @inv: negated
 * @lo: low end, inclusive
 * @hi: high end, inclusive
 */
struct xl_range {
	bool set, inv;
	u32 lo, hi;
};

enum xl_kind {
	XK_TCP, XK_UDP, XK_ICMP, XK_MULTIPORT, XK_STATE, XK_CONNTRACK,
	XK_TTL, XK_LENGTH, XK_MARK, XK_IPRANGE, XK_COMMENT, XK_LIMIT, XK_XT,
	XK_OWNER, XK_ADDRTYPE, XK_CTXT, XK_SETM,
};

enum { XL_TTL_EQ, XL_TTL_NE, XL_TTL_LT, XL_TTL_GT };

/**
 * struct xl_clause - one "-m NAME ..." of the rule being built
 * @kind: &enum xl_kind
 * @sport: tcp/udp --sport
 * @dport: tcp/udp --dport
 * @has_flags: tcp --tcp-flags given
 * @flags_inv: negated
 * @fmask: its mask
 * @fcmp: its comparison
 * @option: tcp --tcp-option, 0 for none
 * @option_inv: negated
 * @icmp_set: icmp --icmp-type given
 * @icmp_inv: negated
 * @type: icmp type, 0xff for any
 * @code_lo: icmp code range
 * @code_hi: icmp code range
 * @mp_dir: multiport: XT_MULTIPORT_SOURCE, _DESTINATION or _EITHER
 * @mp_inv: negated
 * @mp_n: number of ports or ranges
 * @mp_lo: ports or range starts
 * @mp_hi: range ends
 * @state: conntrack/state bits (xt_state numbering)
 * @state_inv: negated
 * @ttl_mode: XL_TTL_*
 * @ttl: the ttl
 * @len: --length
 * @mark: --mark value
 * @mark_mask: --mark mask
 * @mark_inv: negated
 * @src: iprange --src-range
 * @dst: iprange --dst-range
 * @comment: --comment
 * @rate: limit: the time between packets in 1/XT_LIMIT_SCALE seconds and
 *	the burst (XK_LIMIT, an XK_XT once the rule is read)
 * @xt: an xt match as its library prints it (" -m NAME ...")
 * @uid: owner --uid-owner (XK_OWNER, an XK_XT once the rule is read)
 * @gid: owner --gid-owner
 * @atype: addrtype (XK_ADDRTYPE, an XK_XT once the rule is read)
 * @ct: conntrack --ctstatus, --ctdir (XK_CTXT, an XK_XT once the rule is
 *	read)
 * @kept: an XK_XT iptables-nft kept as such, which may keep state
 * @setm: set --match-set: the named set (XK_SETM)
 * @setm_dst: of the destination address, else the source
 * @setm_inv: negated
 */
struct xl_clause {
	int kind;
	struct xl_range sport, dport;
	bool has_flags, flags_inv;
	u8 fmask, fcmp;
	u8 option;
	bool option_inv;
	bool icmp_set, icmp_inv;
	u8 type, code_lo, code_hi;
	u8 mp_dir;
	bool mp_inv;
	unsigned int mp_n;
	u16 mp_lo[XT_MULTI_PORTS], mp_hi[XT_MULTI_PORTS];
	unsigned int state;
	bool state_inv;
	int ttl_mode;
	u8 ttl;
	struct xl_range len;
	u32 mark, mark_mask;
	bool mark_inv;
	struct xl_range src, dst;
	char comment[NFHP_COMMENT_LEN];
	struct xt_rateinfo rate;
	char xt[XL_XT_TEXT];
	struct xl_range uid, gid;
	struct xt_addrtype_info_v1 atype;
	struct xt_conntrack_mtinfo3 ct;
	bool kept;
	struct xl_set *setm;
	bool setm_dst, setm_inv;
};

/**
 * struct xl_addr - -s or -d
 * @set: present
 * @inv: negated
 * @addr: the IPv4 address, host order
 * @addr6: the IPv6 address
 * @plen: prefix length
 */
struct xl_addr {
	bool set, inv;
	u32 addr;
	u8 addr6[16];
	unsigned int plen;
};

/**
 * struct xl_iface - -i or -o
 * @set: present
 * @inv: negated
 * @name: the name, ending in '+' for a prefix
 */
struct xl_iface {
	bool set, inv;
	char name[XL_IFNAMSIZ + 2];
};

/**
 * struct xl_elem - a set element as an interval of field values
 * @lo: first value
 * @hi: last value
 * @key: the raw key (strings: interface names)
 * @keylen: its length
 * @verdict: a verdict map's verdict
 * @chain: and its chain
 */
struct xl_elem {
	u32 lo, hi;
	u8 key[XL_IFNAMSIZ];
	u32 keylen;
	int verdict;
	const char *chain;
};

/**
 * struct xl_set - a set of the table
 * @s: the set, with its elements
 * @elems: its elements as intervals, once a lookup needed them
 * @nelems: their number
 * @loaded: @elems is valid
 * @used: a named set the set matches of the text refer to
 */
struct xl_set {
	struct nftnl_set *s;
	struct xl_elem *elems;
	unsigned int nelems;
	bool loaded;
	bool used;
};

/**
 * struct xl_chain - a chain of the table
 * @c: the chain
 * @name: its nft name
 * @ipt: its iptables name (INPUT/FORWARD/OUTPUT for base chains)
 * @base: a base chain
 * @drop: its policy drops
 * @rules: its rules, in order
 * @nrules: their number
 * @used: part of the output
 * @done: translated
 * @text: the translated rules
 * @ntext: their length
 * @origins: rule descriptions of the lines of @text
 * @norigins: their number
 * @marked: holds the mark of an earlier takeover
 */
struct xl_chain {
	struct nftnl_chain *c;
	const char *name;
	const char *ipt;
	bool base, drop;
	struct nftnl_rule **rules;
	unsigned int nrules;
	bool used, done;
	char *text;
	size_t ntext;
	char **origins;
	unsigned int norigins;
	bool marked;
};

/**
 * struct nfhp_xlate - a translation
 * @family: NFPROTO_IPV4, NFPROTO_IPV6 or NFPROTO_INET
 * @view: the family of the text, NFPROTO_IPV4 or NFPROTO_IPV6
 * @table: the table's name
 * @chains: its chains
 * @nchains: their number
 * @sets: its sets
 * @nsets: their number
 * @order: @chains in output order, after nfhp_xlate_save()
 * @norder: chains in @order
 * @origins: per output line, the rule it came from (or NULL)
 * @norigins: lines in @origins
 * @nrules: rules written
 * @nskipped: rules left out as of the other family only
 * @counters: write the rules' counters
 */
struct nfhp_xlate {
	int family;
	int view;
	char *table;
	struct xl_chain *chains;
	unsigned int nchains;
	struct xl_set *sets;
	unsigned int nsets;
	struct xl_chain **order;
	unsigned int norder;
	char **origins;
	unsigned long norigins;
	unsigned int nrules;
	unsigned int nskipped;
	bool counters;
};

/**
 * struct xl_state - the interpretation of one rule (one expansion of it)
 * @x: the translation
 * @regs: register contents
 * @src: -s
 * @dst: -d
 * @iif: -i
 * @oif: -o
 * @proto_set: -p given
 * @proto_inv: negated
 * @proto: the protocol
 * @frag_set: -f given
 * @frag_inv: negated
 * @cl: the matches, in order
 * @ncl: their number
 * @verdict: NF_ACCEPT, NF_DROP, NFT_RETURN, NFT_JUMP, NFT_GOTO or
 *	NFT_CONTINUE (no target)
 * @have_verdict: a verdict was seen (nothing may follow)
 * @target: the chain of NFT_JUMP and NFT_GOTO
 * @xtarget: XL_VERDICT_XT: the target and its options ("REJECT --re...")
 * @log: a LOG, NFLOG, MARK or CONNMARK target before the verdict (nft
 *	"log ... drop" becomes two rules), "" for none
 * @reads_ctmark: the rule matches on the ct mark
 * @other: the rule cannot match a packet of the view's family
 * @pkts: the rule's counter (first copy of an expanded rule only)
 * @bytes: its bytes
 * @choice: the element each expanded lookup takes
 * @nalt: the number of elements of each expanded lookup
 * @nexp: expanded lookups so far
 * @err: why the rule cannot be translated
 */
struct xl_state {
	struct nfhp_xlate *x;
	struct xl_reg regs[XL_NREGS];
	struct xl_addr src, dst;
	struct xl_iface iif, oif;
	bool proto_set, proto_inv;
	u8 proto;
	bool frag_set, frag_inv;
	struct xl_clause cl[XL_MAX_CLAUSES];
	unsigned int ncl;
	int verdict;
	bool have_verdict;
	char target[NFT_CHAIN_MAXNAMELEN];
	char xtarget[256];
	char log[256];
	bool reads_ctmark;
	bool other;
	u64 pkts, bytes;
	const unsigned int *choice;
	unsigned int nalt[XL_MAX_EXPAND];
	unsigned int nexp;
	char err[256];
};

static int xl_fail(struct xl_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int xl_fail(struct xl_state *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* --- objects --------------------------------------------------------- */

struct nfhp_xlate *nfhp_xlate_alloc(int family, const char *name)
{
	struct nfhp_xlate *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->family = family;
	x->view = family == NFPROTO_IPV6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	x->table = strdup(name);
	if (!x->table) {
		free(x);
		return NULL;
	}
	return x;
}

/* Forget what the last nfhp_xlate_save() wrote, so that another may run. */
static void xlate_reset(struct nfhp_xlate *x)
{
	unsigned int i, j;

	for (i = 0; i < x->nchains; i++) {
		struct xl_chain *ch = &x->chains[i];

		for (j = 0; j < ch->norigins; j++)
			free(ch->origins[j]);
		free(ch->origins);
		free(ch->text);
		ch->origins = NULL;
		ch->norigins = 0;
		ch->text = NULL;
		ch->ntext = 0;
		ch->used = false;
		ch->done = false;
		ch->marked = false;
	}
	for (i = 0; i < x->nsets; i++)
		x->sets[i].used = false;
	free(x->order);
	free(x->origins);
	x->order = NULL;
	x->norder = 0;
	x->origins = NULL;
	x->norigins = 0;
	x->nrules = 0;
	x->nskipped = 0;
}

void nfhp_xlate_free(struct nfhp_xlate *x)
{
	unsigned int i, j;

	if (!x)
		return;
	xlate_reset(x);
	for (i = 0; i < x->nchains; i++) {
		struct xl_chain *ch = &x->chains[i];

		for (j = 0; j < ch->nrules; j++)
			nftnl_rule_free(ch->rules[j]);
		free(ch->rules);
		nftnl_chain_free(ch->c);
	}
	for (i = 0; i < x->nsets; i++) {
		free(x->sets[i].elems);
		nftnl_set_free(x->sets[i].s);
	}
	free(x->chains);
	free(x->sets);
	free(x->table);
	free(x);
}

int nfhp_xlate_set_view(struct nfhp_xlate *x, int view)
{
	if (view != NFPROTO_IPV4 && view != NFPROTO_IPV6)
		return -EINVAL;
	if (x->family != NFPROTO_INET && view != x->view)
		return -EINVAL;
	x->view = view;
	return 0;
}

static bool view6(const struct xl_state *s)
{
	return s->x->view == NFPROTO_IPV6;
}

/* The protocol of -m icmp (IPv4) or -m icmp6 (IPv6). */
static u8 icmp_proto(const struct xl_state *s)
{
	return view6(s) ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
}

static bool in_table(const struct nfhp_xlate *x, const char *table,
		     int family)
{
	return table && family == x->family && !strcmp(table, x->table);
}

static const char *hook_chain(u32 hook)
{
	switch (hook) {
	case NF_INET_LOCAL_IN:
		return "INPUT";
	case NF_INET_FORWARD:
		return "FORWARD";
	case NF_INET_LOCAL_OUT:
		return "OUTPUT";
	}
	return NULL;
}

int nfhp_xlate_add_chain(struct nfhp_xlate *x, struct nftnl_chain *c)
{
	struct xl_chain *ch;
	void *p;

	if (!in_table(x, nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE),
		      nftnl_chain_get_u32(c, NFTNL_CHAIN_FAMILY)) ||
	    !nftnl_chain_get_str(c, NFTNL_CHAIN_NAME)) {
		nftnl_chain_free(c);
		return 0;
	}
	p = realloc(x->chains, (x->nchains + 1) * sizeof(*x->chains));
	if (!p) {
		nftnl_chain_free(c);
		return -ENOMEM;
	}
	x->chains = p;
	ch = &x->chains[x->nchains++];
	memset(ch, 0, sizeof(*ch));
	ch->c = c;
	ch->name = nftnl_chain_get_str(c, NFTNL_CHAIN_NAME);
	ch->ipt = ch->name;
	ch->base = nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM);
	if (ch->base) {
		const char *ipt = hook_chain(nftnl_chain_get_u32(c,
						NFTNL_CHAIN_HOOKNUM));

		if (ipt)
			ch->ipt = ipt;
		ch->drop = nftnl_chain_is_set(c, NFTNL_CHAIN_POLICY) &&
			   nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY) == NF_DROP;
	}
	return 0;
}

int nfhp_xlate_add_set(struct nfhp_xlate *x, struct nftnl_set *s)
{
	void *p;

	if (!in_table(x, nftnl_set_get_str(s, NFTNL_SET_TABLE),
		      nftnl_set_get_u32(s, NFTNL_SET_FAMILY)) ||
	    !nftnl_set_get_str(s, NFTNL_SET_NAME)) {
		nftnl_set_free(s);
		return 0;
	}
	p = realloc(x->sets, (x->nsets + 1) * sizeof(*x->sets));
	if (!p) {
		nftnl_set_free(s);
		return -ENOMEM;
	}
	x->sets = p;
	memset(&x->sets[x->nsets], 0, sizeof(x->sets[0]));
	x->sets[x->nsets++].s = s;
	return 0;
}

static struct xl_chain *find_chain(struct nfhp_xlate *x, const char *name)
{
	unsigned int i;

	for (i = 0; i < x->nchains; i++)
		if (!strcmp(x->chains[i].name, name))
			return &x->chains[i];
	return NULL;
}

int nfhp_xlate_add_rule(struct nfhp_xlate *x, struct nftnl_rule *r)
{
	struct xl_chain *ch;
	void *p;

	if (!in_table(x, nftnl_rule_get_str(r, NFTNL_RULE_TABLE),
		      nftnl_rule_get_u32(r, NFTNL_RULE_FAMILY)) ||
	    !nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) {
		nftnl_rule_free(r);
		return 0;
	}
	ch = find_chain(x, nftnl_rule_get_str(r, NFTNL_RULE_CHAIN));
	if (!ch) {		/* the chain went away during the dump */
		nftnl_rule_free(r);
		return 0;
	}
	p = realloc(ch->rules, (ch->nrules + 1) * sizeof(*ch->rules));
	if (!p) {
		nftnl_rule_free(r);
		return -ENOMEM;
	}
	ch->rules = p;
	ch->rules[ch->nrules++] = r;
	return 0;
}

/* --- values ------------------------------------------------------------ */

static unsigned int reg_index(u32 reg)
{
	if (reg >= NFT_REG_1 && reg <= NFT_REG_4)
		return (reg - NFT_REG_1) * 4;
	if (reg >= NFT_REG32_00 && reg < NFT_REG32_00 + XL_NREGS)
		return reg - NFT_REG32_00;
	return XL_NREGS;
}

static struct xl_reg *get_reg(struct xl_state *s, u32 reg)
{
	unsigned int i = reg_index(reg);

	return i < XL_NREGS ? &s->regs[i] : NULL;
}

/* Register @dreg now holds @len bytes of @field (@what names the load). */
static struct xl_reg *load_reg(struct xl_state *s, u32 dreg, int field,
			       unsigned int len, bool host, const char *what)
{
	struct xl_reg *r = get_reg(s, dreg);

	if (!r) {
		xl_fail(s, "%s into an unknown register", what);
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->field = field;
	r->len = len;
	r->host = host;
	return r;
}

static u32 field_max(int field)
{
	switch (field) {
	case XF_SPORT:
	case XF_DPORT:
	case XF_LENGTH:
	case XF_ICMPTC:
		return 0xffff;
	case XF_TTL:
	case XF_PROTO:
	case XF_ICMPTYPE:
	case XF_ICMPCODE:
	case XF_TCPFLAGS:
		return 0xff;
	}
	return 0xffffffff;
}

/*
 * Data compared with a register, as a number: one byte, a host-endian
 * word (meta and ct keys) or network order; a partial address load (the
 * prefix iptables-nft cuts to whole bytes) is shifted to its place.
 */
static u32 data_val(const struct xl_reg *r, const void *data, u32 dlen)
{
	const u8 *d = data;
	unsigned int i, n = r->len < dlen ? r->len : dlen;
	u32 v = 0;

	if (!n)
		return 0;
	if (r->len == 1 && r->field != XF_SADDR && r->field != XF_DADDR)
		return d[0];
	if (r->host) {
		memcpy(&v, d, n > 4 ? 4 : n);
		return v;
	}
	for (i = 0; i < n && i < 4; i++)
		v = v << 8 | d[i];
	if ((r->field == XF_SADDR || r->field == XF_DADDR) && r->len < 4)
		v <<= 8 * (4 - r->len);
	return v;
}

/* The mask of the bytes a partial address load keeps. */
static u32 load_mask(const struct xl_reg *r)
{
	if ((r->field == XF_SADDR || r->field == XF_DADDR) && r->len < 4)
		return r->len ? ~0u << 8 * (4 - r->len) : 0;
	return ~0u;
}

static int prefix_len(u32 mask)
{
	int n = 0;

	while (n < 32 && mask & (1u << (31 - n)))
		n++;
	if (n < 32 && mask << n)
		return -1;
	return n;
}

static const char *field_name(int field)
{
	static const char *const names[] = {
		[XF_NONE] = "nothing", [XF_SADDR] = "ip saddr",
		[XF_DADDR] = "ip daddr", [XF_PROTO] = "meta l4proto",
		[XF_NFPROTO] = "meta nfproto", [XF_ETHPROTO] = "meta protocol",
		[XF_IIFNAME] = "iifname", [XF_OIFNAME] = "oifname",
		[XF_IIF] = "iif", [XF_OIF] = "oif", [XF_SPORT] = "sport",
		[XF_DPORT] = "dport", [XF_TCPFLAGS] = "tcp flags",
		[XF_ICMPTYPE] = "icmp type", [XF_ICMPCODE] = "icmp code",
		[XF_ICMPTC] = "icmp type/code", [XF_FRAG] = "ip frag-off",
		[XF_TTL] = "ip ttl", [XF_LENGTH] = "length",
		[XF_MARK] = "meta mark", [XF_CTSTATE] = "ct state",
		[XF_PKTTYPE] = "meta pkttype", [XF_SKUID] = "meta skuid",
		[XF_SKGID] = "meta skgid", [XF_SADDRTYPE] = "fib saddr type",
		[XF_DADDRTYPE] = "fib daddr type", [XF_CTMARK] = "ct mark",
		[XF_CONST] = "a constant", [XF_CTSTATUS] = "ct status",
		[XF_CTDIR] = "ct direction",
	};

	return names[field];
}

/* --- building the rule ------------------------------------------------- */

static struct xl_clause *clause_new(struct xl_state *s, int kind)
{
	struct xl_clause *c;

	if (s->ncl == XL_MAX_CLAUSES) {
		xl_fail(s, "too many matches");
		return NULL;
	}
	c = &s->cl[s->ncl++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	return c;
}

/* The rule's clause of @kind, or NULL. */
static struct xl_clause *find_clause(struct xl_state *s, int kind)
{
	unsigned int i;

	for (i = 0; i < s->ncl; i++)
		if (s->cl[i].kind == kind)
			return &s->cl[i];
	return NULL;
}

/* The clause of @kind, new if the rule has none yet. */
static struct xl_clause *clause(struct xl_state *s, int kind)
{
	struct xl_clause *c = find_clause(s, kind);

	return c ? c : clause_new(s, kind);
}

/* Ports and flags need "-p tcp" (or udp, icmp) before them. */
static int l4_kind(struct xl_state *s, int field)
{
	if (!s->proto_set || s->proto_inv)
		goto fail;
	switch (field) {
	case XF_SPORT:
	case XF_DPORT:
		if (s->proto == IPPROTO_TCP)
			return XK_TCP;
		if (s->proto == IPPROTO_UDP)
			return XK_UDP;
		break;
	case XF_TCPFLAGS:
		if (s->proto == IPPROTO_TCP)
			return XK_TCP;
		break;
	default:
		if (s->proto == icmp_proto(s))
			return XK_ICMP;
	}
fail:
	return xl_fail(s, "%s without a tcp, udp or icmp protocol match",
		       field_name(field));
}

/* The interval condition a field's ranges and one-sided compares build. */
static struct xl_range *range_of(struct xl_state *s, int field)
{
	struct xl_clause *c;
	int kind;

	switch (field) {
	case XF_SADDR:
	case XF_DADDR:
		c = clause(s, XK_IPRANGE);
		if (!c)
			return NULL;
		return field == XF_SADDR ? &c->src : &c->dst;
	case XF_SPORT:
	case XF_DPORT:
		kind = l4_kind(s, field);
		if (kind < 0)
			return NULL;
		c = clause(s, kind);
		if (!c)
			return NULL;
		return field == XF_SPORT ? &c->sport : &c->dport;
	case XF_LENGTH:
		c = clause(s, XK_LENGTH);
		return c ? &c->len : NULL;
	case XF_SKUID:
	case XF_SKGID:
		c = clause(s, XK_OWNER);
		if (!c)
			return NULL;
		return field == XF_SKUID ? &c->uid : &c->gid;
	}
	xl_fail(s, "a range of %s", field_name(field));
	return NULL;
}

static int set_prefix(struct xl_state *s, int field, u32 addr, u32 mask,
		      bool inv)
{
	struct xl_addr *a = field == XF_SADDR ? &s->src : &s->dst;
	int plen = prefix_len(mask);

	if (plen < 0)
		return xl_fail(s, "%s with the non-prefix mask 0x%08x",
			       field_name(field), mask);
	if (a->set)
		return xl_fail(s, "a second %s match", field_name(field));
	a->set = true;
	a->inv = inv;
	a->addr = addr & mask;
	a->plen = plen;
	return 0;
}

/*
 * An IPv6 address compared in the @r->len bytes loaded (iptables-nft
 * loads the whole bytes of a prefix only), under the register's mask.
 */
static int set_prefix6(struct xl_state *s, const struct xl_reg *r,
		       const u8 *d, u32 dlen, bool inv)
{
	struct xl_addr *a = r->field == XF_SADDR ? &s->src : &s->dst;
	unsigned int i, plen = 0;
	u8 mask[16] = { };

	if (dlen != r->len || dlen > sizeof(mask))
		return xl_fail(s, "%s compared with %u bytes",
			       field_name(r->field), dlen);
	for (i = 0; i < r->len; i++)
		mask[i] = r->masked ? r->mask6[i] : 0xff;
	while (plen < 128 && mask[plen / 8] & (0x80 >> plen % 8))
		plen++;
	for (i = plen; i < 128; i++)
		if (mask[i / 8] & (0x80 >> i % 8))
			return xl_fail(s, "%s with a non-prefix mask",
				       field_name(r->field));
	if (a->set)
		return xl_fail(s, "a second %s match", field_name(r->field));
	a->set = true;
	a->inv = inv;
	a->plen = plen;
	for (i = 0; i < r->len; i++)
		a->addr6[i] = d[i] & mask[i];
	return 0;
}

static int set_ttl(struct xl_state *s, int mode, u32 v)
{
	struct xl_clause *c;

	if (v > 255)
		return xl_fail(s, "ip ttl compared with %u", v);
	c = clause(s, XK_TTL);
	if (!c)
		return -EINVAL;
	if (c->ttl_mode || c->ttl)
		return xl_fail(s, "a second ip ttl match");
	c->ttl_mode = mode;
	c->ttl = v;
	return 0;
}

static int set_state(struct xl_state *s, u32 bits, bool inv)
{
	struct xl_clause *c;

	if (!bits || bits & ~XL_CT_ALL)
		return xl_fail(s, "ct state bits 0x%x", bits);
	c = clause(s, XK_CONNTRACK);
	if (!c)
		return -EINVAL;
	if (c->state)
		return xl_fail(s, "a second ct state match");
	c->state = bits;
	c->state_inv = inv;
	return 0;
}

/*
 * Print an xt match or target (@name, revision @rev, @len bytes of @info
 * as the kernel holds them) into @buf through its own library
 * (xt_hooks.h), as iptables-nft-save prints it; nf-hipac's parser reads
 * it back, or refuses it, as it would in a restore.  Without the library
 * (the tests link none) it cannot be read.
 */
static int xt_print_ext(struct xl_state *s, bool target, const char *name,
			u32 rev, const void *info, u32 len, char *buf,
			size_t size)
{
	bool known;
	FILE *f;

	f = fmemopen(buf, size, "w");
	if (!f)
		return xl_fail(s, "out of memory");
	known = name && info &&
		nfhp_print_save_one(f, target, name, rev, info, len,
				    s->proto_set ? s->proto : 0, s->proto_inv);
	fputc(0, f);
	if (fclose(f) || !memchr(buf, 0, size - 1))
		return xl_fail(s, "xt %s \"%s\": options too long",
			       target ? "target" : "match", name ? name : "?");
	if (!known)
		return xl_fail(s, "xt %s \"%s\" (revision %u) has no nf-hipac equivalent",
			       target ? "target" : "match", name ? name : "?",
			       rev);
	return 0;
}

/* An xt match made up here for an nft expression that has no native form. */
static int put_xt_match(struct xl_state *s, const char *name, u32 rev,
			const void *info, u32 len)
{
	struct xl_clause *c = clause_new(s, XK_XT);

	return c ? xt_print_ext(s, false, name, rev, info, len, c->xt,
				sizeof(c->xt)) : -EINVAL;
}

/* ct mark [& mask] ==/!= value: -m connmark --mark value/mask. */
static int put_connmark(struct xl_state *s, u32 mark, u32 mask, bool inv)
{
	struct xt_connmark_mtinfo1 i = {
		.mark = mark, .mask = mask, .invert = inv,
	};

	return put_xt_match(s, "connmark", 1, &i, sizeof(i));
}

/* meta pkttype: -m pkttype --pkt-type. */
static int put_pkttype(struct xl_state *s, u32 type, bool inv)
{
	struct xt_pkttype_info i = { .pkttype = type, .invert = inv };

	return put_xt_match(s, "pkttype", 0, &i, sizeof(i));
}

/* -m owner of an XK_OWNER clause, see xt_finish(). */
static int owner_finish(struct xl_state *s, struct xl_clause *c)
{
	struct xt_owner_match_info i = {};

	if (c->uid.set) {
		i.match |= XT_OWNER_UID;
		i.invert |= c->uid.inv ? XT_OWNER_UID : 0;
		i.uid_min = c->uid.lo;
		i.uid_max = c->uid.hi;
	}
	if (c->gid.set) {
		i.match |= XT_OWNER_GID;
		i.invert |= c->gid.inv ? XT_OWNER_GID : 0;
		i.gid_min = c->gid.lo;
		i.gid_max = c->gid.hi;
	}
	c->kind = XK_XT;
	return xt_print_ext(s, false, "owner", 1, &i, sizeof(i), c->xt,
			    sizeof(c->xt));
}

/*
 * Matches gathered while the rule is read, from meta skuid and skgid (a
 * range is two compares), fib ... type, limit and ct status and
 * direction, become the xt matches owner, addrtype, limit and conntrack
 * once it is.
 */
static int xt_finish(struct xl_state *s)
{
	struct xt_addrtype_info_v1 a;
	struct xl_clause *c;
	unsigned int k;
	int ret = 0;

	for (k = 0; k < s->ncl && !ret; k++) {
		c = &s->cl[k];
		if (c->kind == XK_OWNER) {
			ret = owner_finish(s, c);
		} else if (c->kind == XK_ADDRTYPE) {
			a = c->atype;
			c->kind = XK_XT;
			ret = xt_print_ext(s, false, "addrtype", 1, &a,
					   sizeof(a), c->xt, sizeof(c->xt));
		} else if (c->kind == XK_LIMIT) {
			c->kind = XK_XT;
			ret = xt_print_ext(s, false, "limit", 0, &c->rate,
					   sizeof(c->rate), c->xt, sizeof(c->xt));
		} else if (c->kind == XK_CTXT) {
			c->kind = XK_XT;
			ret = xt_print_ext(s, false, "conntrack", 3, &c->ct,
					   sizeof(c->ct), c->xt, sizeof(c->xt));
		}
	}
	return ret;
}

/*
 * ct status & BITS != 0 (nft's "ct status assured") or == 0, and ct
 * direction: -m conntrack [!] --ctstatus and --ctdir.  Untracked packets
 * match neither, in nft (the load breaks) as in xt_conntrack.
 */
static int set_ctxt(struct xl_state *s, const struct xl_reg *r, u32 v,
		    u32 mask, bool ne)
{
	struct xl_clause *c;
	u16 flag = r->field == XF_CTSTATUS ? XT_CONNTRACK_STATUS :
					     XT_CONNTRACK_DIRECTION;
	bool inv;

	if (r->field == XF_CTSTATUS) {
		/* --ctstatus names these; SNAT and DNAT are --ctstate's */
		if (!r->masked || v || mask & ~(IPS_EXPECTED | IPS_SEEN_REPLY |
						 IPS_ASSURED | IPS_CONFIRMED))
			return xl_fail(s, "ct status compared as 0x%x/0x%x (only a test of the bits expected, seen-reply, assured, confirmed)",
				       v, mask);
		inv = !ne;
	} else {
		if (v > 1)
			return xl_fail(s, "ct direction %u", v);
		inv = (v == 1) != ne;	/* --ctdir REPLY is the inverted flag */
	}
	c = clause(s, XK_CTXT);
	if (!c)
		return -EINVAL;
	if (c->ct.match_flags & flag)
		return xl_fail(s, "a second %s match", field_name(r->field));
	c->ct.match_flags |= flag;
	if (inv)
		c->ct.invert_flags |= flag;
	if (r->field == XF_CTSTATUS)
		c->ct.status_mask = mask;
	return 0;
}

/*
 * fib saddr or daddr type, maybe limited to the packet's interface: the
 * address type bits of -m addrtype --src-type or --dst-type.
 */
static int set_addrtype(struct xl_state *s, const struct xl_reg *r, u32 v,
			bool ne)
{
	bool src = r->field == XF_SADDRTYPE;
	struct xl_clause *c;
	u16 *types;

	if (v > 11)	/* RTN_XRESOLVE, the last XT_ADDRTYPE_* */
		return xl_fail(s, "%s %u", field_name(r->field), v);
	c = clause(s, XK_ADDRTYPE);
	if (!c)
		return -EINVAL;
	types = src ? &c->atype.source : &c->atype.dest;
	if (*types)
		return xl_fail(s, "a second %s match", field_name(r->field));
	if (r->iface && c->atype.flags & ~r->iface &
	    (XT_ADDRTYPE_LIMIT_IFACE_IN | XT_ADDRTYPE_LIMIT_IFACE_OUT))
		return xl_fail(s, "fib lookups limited to iif and to oif");
	*types = 1u << v;
	c->atype.flags |= r->iface;
	if (ne)
		c->atype.flags |= src ? XT_ADDRTYPE_INVERT_SOURCE :
					XT_ADDRTYPE_INVERT_DEST;
	return 0;
}

/* The field lies in [lo, hi] (or outside, inv). */
static int set_range(struct xl_state *s, int field, u32 lo, u32 hi, bool inv)
{
	struct xl_range *r;

	if (lo > hi)
		return xl_fail(s, "the empty range %u-%u", lo, hi);
	if (field == XF_SADDR || field == XF_DADDR) {
		u32 mask = ~(lo ^ hi);

		if (prefix_len(mask) >= 0 && (lo & ~mask) == 0 &&
		    (hi | mask) == ~0u)
			return set_prefix(s, field, lo, mask, inv);
	}
	if (field == XF_TTL) {
		if (lo == hi)
			return set_ttl(s, inv ? XL_TTL_NE : XL_TTL_EQ, lo);
		if (!inv && lo == 0 && hi < 255)
			return set_ttl(s, XL_TTL_LT, hi + 1);
		if (!inv && hi == 255 && lo > 0)
			return set_ttl(s, XL_TTL_GT, lo - 1);
		return xl_fail(s, "the ip ttl range %u-%u", lo, hi);
	}
	r = range_of(s, field);
	if (!r)
		return -EINVAL;
	if (r->set)
		return xl_fail(s, "a second %s match", field_name(field));
	r->set = true;
	r->inv = inv;
	r->lo = lo;
	r->hi = hi;
	return 0;
}

/* A one-sided compare narrows the field's range. */
static int narrow(struct xl_state *s, int field, int op, u32 v)
{
	u32 max = field_max(field);
	struct xl_range *r;

	if (field == XF_TTL) {
		if (op == NFT_CMP_LT || (op == NFT_CMP_LTE && v < 255))
			return set_ttl(s, XL_TTL_LT, op == NFT_CMP_LT ? v : v + 1);
		if (op == NFT_CMP_GT || (op == NFT_CMP_GTE && v > 0))
			return set_ttl(s, XL_TTL_GT, op == NFT_CMP_GT ? v : v - 1);
		return xl_fail(s, "ip ttl compared with %u", v);
	}
	r = range_of(s, field);
	if (!r)
		return -EINVAL;
	if (r->set && r->inv)
		return xl_fail(s, "a second %s match", field_name(field));
	if (!r->set) {
		r->set = true;
		r->lo = 0;
		r->hi = max;
	}
	switch (op) {
	case NFT_CMP_GT:
		if (v == max)
			goto empty;
		v++;
		/* fall through */
	case NFT_CMP_GTE:
		if (v > r->lo)
			r->lo = v;
		break;
	case NFT_CMP_LT:
		if (v == 0)
			goto empty;
		v--;
		/* fall through */
	case NFT_CMP_LTE:
		if (v < r->hi)
			r->hi = v;
		break;
	}
	if (r->lo > r->hi)
		goto empty;
	return 0;
empty:
	return xl_fail(s, "%s compares that match nothing", field_name(field));
}

static int set_iface(struct xl_state *s, int field, const u8 *d, u32 dlen,
		     bool inv)
{
	struct xl_iface *f = field == XF_IIFNAME || field == XF_IIF ?
			     &s->iif : &s->oif;
	const u8 *nul = memchr(d, 0, dlen);
	size_t n = nul ? (size_t)(nul - d) : dlen;

	if (f->set)
		return xl_fail(s, "a second %s match", field_name(field));
	if (n > XL_IFNAMSIZ - 1 || (!nul && dlen >= XL_IFNAMSIZ) || !n)
		return xl_fail(s, "%s compared with %u bytes",
			       field_name(field), dlen);
	memcpy(f->name, d, n);
	f->name[n] = 0;
	if (!nul)
		strcat(f->name, "+");	/* a prefix: "eth" is eth+ */
	if (strpbrk(f->name, " \t\"'\\"))
		return xl_fail(s, "%s \"%s\"", field_name(field), f->name);
	f->set = true;
	f->inv = inv;
	return 0;
}

/* The field equals v (ne: differs) after the register's mask. */
static int set_eq(struct xl_state *s, const struct xl_reg *r, u32 v,
		  const void *d, u32 dlen, bool ne)
{
	u32 mask = (r->masked ? r->mask : ~0u) & load_mask(r);
	char name[IF_NAMESIZE];
	struct xl_clause *c;
	int kind;

	if (r->masked && r->field != XF_SADDR && r->field != XF_DADDR &&
	    r->field != XF_TCPFLAGS && r->field != XF_MARK &&
	    r->field != XF_CTSTATE && r->field != XF_FRAG &&
	    r->field != XF_CTMARK && r->field != XF_CTSTATUS)
		return xl_fail(s, "a masked %s", field_name(r->field));
	switch (r->field) {
	case XF_SADDR:
	case XF_DADDR:
		if (view6(s))
			return set_prefix6(s, r, d, dlen, ne);
		return set_prefix(s, r->field, v, mask, ne);
	case XF_PROTO:
		if (s->proto_set)
			return xl_fail(s, "a second protocol match");
		s->proto_set = true;
		s->proto_inv = ne;
		s->proto = v;
		return 0;
	case XF_NFPROTO:
		if (((int)v == s->x->view) == ne)
			s->other = true;
		return 0;
	case XF_ETHPROTO:
		if ((v == (view6(s) ? 0x86dd : 0x0800)) == ne)
			s->other = true;
		return 0;
	case XF_IIFNAME:
	case XF_OIFNAME:
		return set_iface(s, r->field, d, dlen, ne);
	case XF_IIF:
	case XF_OIF:
		if (!if_indextoname(v, name))
			return xl_fail(s, "%s %u: no such interface",
				       field_name(r->field), v);
		return set_iface(s, r->field, (const u8 *)name,
				 strlen(name) + 1, ne);
	case XF_SPORT:
	case XF_DPORT:
	case XF_LENGTH:
	case XF_TTL:
		return set_range(s, r->field, v, v, ne);
	case XF_TCPFLAGS:
		if (mask & ~0x3fu || v & ~mask)
			return xl_fail(s, "tcp flags 0x%02x/0x%02x", v, mask);
		kind = l4_kind(s, r->field);
		c = kind < 0 ? NULL : clause(s, kind);
		if (!c)
			return -EINVAL;
		if (c->has_flags)
			return xl_fail(s, "a second tcp flags match");
		c->has_flags = true;
		c->flags_inv = ne;
		c->fmask = mask;
		c->fcmp = v;
		return 0;
	case XF_ICMPTYPE:
	case XF_ICMPTC:
		kind = l4_kind(s, r->field);
		c = kind < 0 ? NULL : clause(s, kind);
		if (!c)
			return -EINVAL;
		if (c->icmp_set)
			return xl_fail(s, "a second icmp type match");
		c->icmp_set = true;
		c->icmp_inv = ne;
		c->type = r->field == XF_ICMPTC ? v >> 8 : v;
		c->code_lo = r->field == XF_ICMPTC ? v & 0xff : 0;
		c->code_hi = r->field == XF_ICMPTC ? v & 0xff : 0xff;
		if (c->type == 0xff)
			return xl_fail(s, "icmp type 255");
		return 0;
	case XF_ICMPCODE:
		kind = l4_kind(s, r->field);
		c = kind < 0 ? NULL : clause(s, kind);
		if (!c)
			return -EINVAL;
		if (!c->icmp_set || c->icmp_inv || ne ||
		    c->code_lo != 0 || c->code_hi != 0xff)
			return xl_fail(s, "an icmp code match without its type");
		c->code_lo = c->code_hi = v;
		return 0;
	case XF_FRAG:
		if (mask != 0x1fff || v)
			return xl_fail(s, "ip frag-off 0x%04x/0x%04x", v, mask);
		if (s->frag_set)
			return xl_fail(s, "a second fragment match");
		s->frag_set = true;
		s->frag_inv = !ne;	/* offset != 0: -f */
		return 0;
	case XF_MARK:
		c = clause(s, XK_MARK);
		if (!c)
			return -EINVAL;
		if (c->mark_mask)
			return xl_fail(s, "a second mark match");
		c->mark = v;
		c->mark_mask = mask;
		c->mark_inv = ne;
		return 0;
	case XF_PKTTYPE:
		return put_pkttype(s, v, ne);
	case XF_SADDRTYPE:
	case XF_DADDRTYPE:
		return set_addrtype(s, r, v, ne);
	case XF_CTMARK:
		s->reads_ctmark = true;
		return put_connmark(s, v, mask, ne);
	case XF_CTSTATUS:
	case XF_CTDIR:
		return set_ctxt(s, r, v, mask, ne);
	case XF_SKUID:
	case XF_SKGID:
		return set_range(s, r->field, v, v, ne);
	case XF_CTSTATE:
		if (r->masked) {
			if (v)
				return xl_fail(s, "ct state 0x%x/0x%x", v, mask);
			return set_state(s, mask, !ne);
		}
		/*
		 * The state is always exactly one bit: "ct state !=
		 * established,related" (nft compares the value) always holds.
		 */
		if (!v || v & (v - 1)) {
			if (ne)
				return 0;
			return xl_fail(s, "ct state == 0x%x never matches", v);
		}
		return set_state(s, v, ne);
	}
	return xl_fail(s, "a compare of %s", field_name(r->field));
}

/* --- expressions ---------------------------------------------------- */

static int load_payload(struct xl_state *s, struct nftnl_expr *e)
{
	u32 base = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_BASE);
	u32 off = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET);
	u32 len = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_LEN);
	struct xl_reg *r;
	int field = XF_NONE;

	if (nftnl_expr_is_set(e, NFTNL_EXPR_PAYLOAD_SREG))
		return xl_fail(s, "a payload write");
	r = get_reg(s, nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_DREG));
	if (!r)
		return xl_fail(s, "payload into an unknown register");
	if (base == NFT_PAYLOAD_NETWORK_HEADER && view6(s)) {
		if ((off == 8 || off == 24) && len >= 1 && len <= 16)
			field = off == 8 ? XF_SADDR : XF_DADDR;
		else if (off == 7 && len == 1)
			field = XF_TTL;		/* the hop limit */
	} else if (base == NFT_PAYLOAD_NETWORK_HEADER) {
		if ((off == 12 || off == 16) && len >= 1 && len <= 4)
			field = off == 12 ? XF_SADDR : XF_DADDR;
		else if (off == 9 && len == 1)
			field = XF_PROTO;
		else if (off == 8 && len == 1)
			field = XF_TTL;
		else if (off == 6 && len == 2)
			field = XF_FRAG;
		else if (off == 2 && len == 2)
			field = XF_LENGTH;
	} else if (base == NFT_PAYLOAD_TRANSPORT_HEADER) {
		if ((off == 0 || off == 2) && len == 2 && s->proto_set &&
		    !s->proto_inv && s->proto == icmp_proto(s))
			field = off == 0 ? XF_ICMPTC : XF_NONE;
		else if ((off == 0 || off == 2) && len == 2)
			field = off == 0 ? XF_SPORT : XF_DPORT;
		else if (off == 13 && len == 1)
			field = XF_TCPFLAGS;
		else if (off == 0 && len == 1)
			field = XF_ICMPTYPE;
		else if (off == 1 && len == 1)
			field = XF_ICMPCODE;
	}
	if (s->other)	/* the other family's header in an inet table */
		field = XF_NONE;
	if (field == XF_NONE && !s->other)
		return xl_fail(s, "payload load %ub @ %s header + %u", len,
			       base == NFT_PAYLOAD_LL_HEADER ? "link" :
			       base == NFT_PAYLOAD_NETWORK_HEADER ? "network" :
			       base == NFT_PAYLOAD_TRANSPORT_HEADER ?
			       "transport" : "inner", off);
	memset(r, 0, sizeof(*r));
	r->field = field;
	r->len = len;
	return 0;
}

/*
 * What follows " -j " in @text, an xt target as its library printed it,
 * into @dst, as s->xtarget and s->log hold targets.
 */
static int xt_target_text(struct xl_state *s, const char *text, char *dst,
			  size_t size)
{
	static const char jump[] = " -j ";

	if (strncmp(text, jump, strlen(jump)) ||
	    strlen(text + strlen(jump)) >= size)
		return xl_fail(s, "xt target printed as \"%s\"", text);
	strcpy(dst, text + strlen(jump));
	return 0;
}

/*
 * A target that does not end the rule, before its verdict: written as a
 * rule of its own with the same matches (s->log), then the verdict's.
 * The second rule sees what the first changed, so a rule that sets a
 * mark must not also match on that mark.
 */
static int put_pre_target(struct xl_state *s, const char *name, u32 rev,
			  const void *info, u32 len)
{
	char text[XL_TARGET_TEXT];
	int ret;

	if (s->log[0])
		return xl_fail(s, "two statements before the verdict");
	ret = xt_print_ext(s, true, name, rev, info, len, text, sizeof(text));
	return ret ? ret : xt_target_text(s, text, s->log, sizeof(s->log));
}

/*
 * meta mark set V, meta mark set ct mark, ct mark set V and ct mark set
 * meta mark: -j MARK --set-xmark, CONNMARK --restore-mark, --set-xmark
 * and --save-mark.
 */
static int set_mark(struct xl_state *s, struct nftnl_expr *e, u32 key,
		    u16 sreg, bool ct)
{
	const struct xl_reg *r = get_reg(s, nftnl_expr_get_u32(e, sreg));
	struct xt_connmark_tginfo2 cm = {
		.ctmask = ~0u, .nfmask = ~0u,
	};
	struct xt_mark_tginfo2 m = { .mask = ~0u };

	if (key != (ct ? NFT_CT_MARK : NFT_META_MARK))
		return xl_fail(s, "%s set (key %u)", ct ? "ct" : "meta", key);
	if (!r || r->masked ||
	    (r->field != XF_CONST && r->field != (ct ? XF_MARK : XF_CTMARK)))
		return xl_fail(s, "%s mark set from %s", ct ? "ct" : "meta",
			       r ? field_name(r->field) : "nothing");
	if (!ct) {
		if (find_clause(s, XK_MARK))
			return xl_fail(s, "meta mark set in a rule that matches the mark");
		if (r->field == XF_CONST) {
			m.mark = r->value;
			return put_pre_target(s, "MARK", 2, &m, sizeof(m));
		}
		cm.mode = XT_CONNMARK_RESTORE;
		return put_pre_target(s, "CONNMARK", 2, &cm, sizeof(cm));
	}
	if (s->reads_ctmark)
		return xl_fail(s, "ct mark set in a rule that matches the ct mark");
	if (r->field == XF_CONST) {
		cm.mode = XT_CONNMARK_SET;
		cm.ctmark = r->value;
	} else {
		cm.mode = XT_CONNMARK_SAVE;
	}
	return put_pre_target(s, "CONNMARK", 2, &cm, sizeof(cm));
}

static int load_meta(struct xl_state *s, struct nftnl_expr *e)
{
	u32 key = nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY);
	int field;
	u32 len = 4;

	if (nftnl_expr_is_set(e, NFTNL_EXPR_META_SREG))
		return set_mark(s, e, key, NFTNL_EXPR_META_SREG, false);
	switch (key) {
	case NFT_META_IIFNAME:
		field = XF_IIFNAME;
		len = XL_IFNAMSIZ;
		break;
	case NFT_META_OIFNAME:
		field = XF_OIFNAME;
		len = XL_IFNAMSIZ;
		break;
	case NFT_META_IIF:
		field = XF_IIF;
		break;
	case NFT_META_OIF:
		field = XF_OIF;
		break;
	case NFT_META_L4PROTO:
		field = XF_PROTO;
		len = 1;
		break;
	case NFT_META_NFPROTO:
		field = XF_NFPROTO;
		len = 1;
		break;
	case NFT_META_PROTOCOL:
		field = XF_ETHPROTO;
		len = 2;
		break;
	case NFT_META_MARK:
		field = XF_MARK;
		break;
	case NFT_META_LEN:
		field = XF_LENGTH;
		break;
	case NFT_META_PKTTYPE:
		field = XF_PKTTYPE;
		len = 1;
		break;
	case NFT_META_SKUID:
		field = XF_SKUID;
		break;
	case NFT_META_SKGID:
		field = XF_SKGID;
		break;
	default:
		return xl_fail(s, "meta key %u (only iifname, oifname, iif, oif, l4proto, nfproto, protocol, mark, length, pkttype, skuid, skgid)",
			       key);
	}
	return load_reg(s, nftnl_expr_get_u32(e, NFTNL_EXPR_META_DREG), field,
			len, field != XF_ETHPROTO && field != XF_IIFNAME &&
			field != XF_OIFNAME, "meta") ? 0 : -EINVAL;
}

/* nft fib saddr/daddr [. iif/oif] type: an address type, see set_addrtype(). */
static int load_fib(struct xl_state *s, struct nftnl_expr *e)
{
	u32 flags = nftnl_expr_get_u32(e, NFTNL_EXPR_FIB_FLAGS);
	u32 addr = flags & (NFTA_FIB_F_SADDR | NFTA_FIB_F_DADDR);
	u32 iface = flags & (NFTA_FIB_F_IIF | NFTA_FIB_F_OIF);
	struct xl_reg *r;

	if (nftnl_expr_get_u32(e, NFTNL_EXPR_FIB_RESULT) !=
	    NFT_FIB_RESULT_ADDRTYPE ||
	    flags & ~(addr | iface) || !addr || (addr & (addr - 1)) ||
	    (iface & (iface - 1)))
		return xl_fail(s, "fib with flags 0x%x and result %u (only saddr or daddr [. iif or oif] type)",
			       flags, nftnl_expr_get_u32(e,
							 NFTNL_EXPR_FIB_RESULT));
	r = load_reg(s, nftnl_expr_get_u32(e, NFTNL_EXPR_FIB_DREG),
		     addr == NFTA_FIB_F_SADDR ? XF_SADDRTYPE : XF_DADDRTYPE,
		     4, true, "fib");
	if (!r)
		return -EINVAL;
	if (iface)
		r->iface = iface == NFTA_FIB_F_IIF ?
			   XT_ADDRTYPE_LIMIT_IFACE_IN :
			   XT_ADDRTYPE_LIMIT_IFACE_OUT;
	return 0;
}

static int load_ct(struct xl_state *s, struct nftnl_expr *e)
{
	u32 key = nftnl_expr_get_u32(e, NFTNL_EXPR_CT_KEY);
	unsigned int len = 4;
	int field;

	if (nftnl_expr_is_set(e, NFTNL_EXPR_CT_SREG))
		return set_mark(s, e, key, NFTNL_EXPR_CT_SREG, true);
	switch (key) {
	case NFT_CT_STATE:
		field = XF_CTSTATE;
		break;
	case NFT_CT_MARK:
		field = XF_CTMARK;
		break;
	case NFT_CT_STATUS:
		field = XF_CTSTATUS;
		break;
	case NFT_CT_DIRECTION:
		field = XF_CTDIR;
		len = 1;
		break;
	default:
		return xl_fail(s, "ct key %u (only ct state, mark, status and direction)",
			       key);
	}
	return load_reg(s, nftnl_expr_get_u32(e, NFTNL_EXPR_CT_DREG), field,
			len, true, "ct") ? 0 : -EINVAL;
}

static int do_bitwise(struct xl_state *s, struct nftnl_expr *e)
{
	struct xl_reg *src, *dst;
	const void *mask, *xor;
	u32 mlen = 0, xlen = 0, i;

	src = get_reg(s, nftnl_expr_get_u32(e, NFTNL_EXPR_BITWISE_SREG));
	dst = get_reg(s, nftnl_expr_get_u32(e, NFTNL_EXPR_BITWISE_DREG));
	if (!src || !dst || !src->field)
		return xl_fail(s, "bitwise on an empty register");
	if (nftnl_expr_is_set(e, NFTNL_EXPR_BITWISE_OP) &&
	    nftnl_expr_get_u32(e, NFTNL_EXPR_BITWISE_OP) != NFT_BITWISE_BOOL)
		return xl_fail(s, "a bitwise shift");
	mask = nftnl_expr_get(e, NFTNL_EXPR_BITWISE_MASK, &mlen);
	xor = nftnl_expr_get(e, NFTNL_EXPR_BITWISE_XOR, &xlen);
	for (i = 0; xor && i < xlen; i++)
		if (((const u8 *)xor)[i])
			return xl_fail(s, "a bitwise xor");
	if (!mask || src->masked)
		return xl_fail(s, "a bitwise on %s", field_name(src->field));
	*dst = *src;
	dst->masked = true;
	dst->mask = data_val(dst, mask, mlen) & load_mask(dst);
	if (view6(s) && (dst->field == XF_SADDR || dst->field == XF_DADDR)) {
		if (mlen != dst->len || mlen > sizeof(dst->mask6))
			return xl_fail(s, "a bitwise of %u bytes on %u",
				       mlen, dst->len);
		memcpy(dst->mask6, mask, mlen);
	}
	return 0;
}

/*
 * nft compares ranges of host-order values (meta skuid 1000-2000) in
 * network order: it turns the register around first.  The value stays
 * what it was; only the order the compared data comes in changes.
 */
static int do_byteorder(struct xl_state *s, struct nftnl_expr *e)
{
	struct xl_reg *src = get_reg(s, nftnl_expr_get_u32(e,
					NFTNL_EXPR_BYTEORDER_SREG));
	struct xl_reg *dst = get_reg(s, nftnl_expr_get_u32(e,
					NFTNL_EXPR_BYTEORDER_DREG));
	u32 op = nftnl_expr_get_u32(e, NFTNL_EXPR_BYTEORDER_OP);
	u32 len = nftnl_expr_get_u32(e, NFTNL_EXPR_BYTEORDER_LEN);
	u32 size = nftnl_expr_get_u32(e, NFTNL_EXPR_BYTEORDER_SIZE);

	if (!src || !dst || !src->field || src->masked)
		return xl_fail(s, "byteorder of an empty register");
	if (size != 4 || len != 4 || src->len != 4 ||
	    src->host != (op == NFT_BYTEORDER_HTON))
		return xl_fail(s, "byteorder %s of %u bytes in %u-byte words of %s",
			       op == NFT_BYTEORDER_HTON ? "hton" : "ntoh", len,
			       size, field_name(src->field));
	*dst = *src;
	dst->host = op == NFT_BYTEORDER_NTOH;
	return 0;
}

/* Does @r hold (part of) an IPv6 address? */
static bool addr6(const struct xl_state *s, const struct xl_reg *r)
{
	return view6(s) && (r->field == XF_SADDR || r->field == XF_DADDR);
}

static int do_cmp(struct xl_state *s, struct nftnl_expr *e)
{
	struct xl_reg *r = get_reg(s, nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_SREG));
	u32 op = nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_OP);
	u32 dlen = 0;
	const void *d = nftnl_expr_get(e, NFTNL_EXPR_CMP_DATA, &dlen);
	u32 v;

	if (!r || !r->field || !d)
		return xl_fail(s, "cmp on an empty register");
	v = data_val(r, d, dlen);
	if (op == NFT_CMP_EQ || op == NFT_CMP_NEQ)
		return set_eq(s, r, v, d, dlen, op == NFT_CMP_NEQ);
	if (r->masked)
		return xl_fail(s, "a masked %s compared by order",
			       field_name(r->field));
	if (addr6(s, r))
		return xl_fail(s, "an IPv6 address compared by order");
	if (r->field == XF_SADDR && r->len != 4)
		return xl_fail(s, "a partial ip saddr compared by order");
	if (r->field == XF_DADDR && r->len != 4)
		return xl_fail(s, "a partial ip daddr compared by order");
	return narrow(s, r->field, op, v);
}

static int do_range(struct xl_state *s, struct nftnl_expr *e)
{
	struct xl_reg *r = get_reg(s, nftnl_expr_get_u32(e,
						NFTNL_EXPR_RANGE_SREG));
	u32 op = nftnl_expr_get_u32(e, NFTNL_EXPR_RANGE_OP);
	u32 flen = 0, tlen = 0;
	const void *from = nftnl_expr_get(e, NFTNL_EXPR_RANGE_FROM_DATA, &flen);
	const void *to = nftnl_expr_get(e, NFTNL_EXPR_RANGE_TO_DATA, &tlen);

	if (!r || !r->field || !from || !to)
		return xl_fail(s, "range on an empty register");
	if (addr6(s, r))
		return xl_fail(s, "a range of IPv6 addresses");
	if (r->masked || ((r->field == XF_SADDR || r->field == XF_DADDR) &&
			  r->len != 4))
		return xl_fail(s, "a range of a masked %s",
			       field_name(r->field));
	return set_range(s, r->field, data_val(r, from, flen),
			 data_val(r, to, tlen), op == NFT_RANGE_NEQ);
}

static int set_verdict(struct xl_state *s, int verdict, const char *chain)
{
	switch (verdict) {
	case NF_ACCEPT:
	case NF_DROP:
	case NFT_RETURN:
	case NFT_CONTINUE:
		break;
	case NFT_JUMP:
	case NFT_GOTO:
		if (!chain || strlen(chain) >= sizeof(s->target))
			return xl_fail(s, "a jump without a chain");
		strcpy(s->target, chain);
		break;
	default:
		return xl_fail(s, "the verdict %d", verdict);
	}
	s->verdict = verdict;
	s->have_verdict = verdict != NFT_CONTINUE;
	return 0;
}

static int do_immediate(struct xl_state *s, struct nftnl_expr *e)
{
	u32 dreg = nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_DREG);
	struct xl_reg *r;
	const void *d;
	u32 len = 0;

	if (dreg != NFT_REG_VERDICT) {
		d = nftnl_expr_get(e, NFTNL_EXPR_IMM_DATA, &len);
		if (!d || len != 4)
			return xl_fail(s, "immediate data of %u bytes", len);
		r = load_reg(s, dreg, XF_CONST, 4, true, "immediate");
		if (!r)
			return -EINVAL;
		memcpy(&r->value, d, 4);
		return 0;
	}
	return set_verdict(s, (int)nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_VERDICT),
			   nftnl_expr_get_str(e, NFTNL_EXPR_IMM_CHAIN));
}

/* --- sets ------------------------------------------------------------- */

static struct xl_set *find_set(struct nfhp_xlate *x, const char *name)
{
	unsigned int i;

	for (i = 0; name && i < x->nsets; i++)
		if (!strcmp(nftnl_set_get_str(x->sets[i].s, NFTNL_SET_NAME),
			    name))
			return &x->sets[i];
	return NULL;
}

/**
 * struct xl_bound - an element of an interval set as the kernel keeps it
 * @v: the key
 * @end: the element ends an interval (exclusive)
 * @e: the element
 */
struct xl_bound {
	u32 v;
	bool end;
	struct nftnl_set_elem *e;
};

static int bound_cmp(const void *a, const void *b)
{
	const struct xl_bound *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (int)y->end - (int)x->end;	/* an end before a start */
}

static void elem_data(struct xl_elem *el, struct nftnl_set_elem *e)
{
	el->verdict = NF_DROP;
	if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_VERDICT))
		el->verdict = (int)nftnl_set_elem_get_u32(e,
						NFTNL_SET_ELEM_VERDICT);
	el->chain = nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN);
}

/*
 * The elements of set @xs as sorted intervals of the field in @r: interval
 * sets keep a start element and an end element one past each interval
 * (or, newer, both ends in one element).
 */
static int load_elems(struct xl_state *s, struct xl_set *xs,
		      const struct xl_reg *r)
{
	bool interval = nftnl_set_get_u32(xs->s, NFTNL_SET_FLAGS) &
			NFT_SET_INTERVAL;
	struct nftnl_set_elems_iter *it;
	struct nftnl_set_elem *e;
	struct xl_bound *b = NULL;
	unsigned int n = 0, i, k;
	int ret = 0;

	it = nftnl_set_elems_iter_create(xs->s);
	if (!it)
		return xl_fail(s, "out of memory");
	while ((e = nftnl_set_elems_iter_next(it))) {
		u32 klen = 0, elen = 0, flags = 0;
		const void *key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY,
						     &klen);
		const void *kend = nftnl_set_elem_get(e,
					NFTNL_SET_ELEM_KEY_END, &elen);
		void *p = realloc(b, (n + 2) * sizeof(*b));

		if (!p) {
			ret = xl_fail(s, "out of memory");
			goto out;
		}
		b = p;
		if (!key || klen > XL_IFNAMSIZ) {
			ret = xl_fail(s, "a set element of %u bytes", klen);
			goto out;
		}
		if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS))
			flags = nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS);
		b[n].v = data_val(r, key, klen);
		b[n].end = interval && (flags & NFT_SET_ELEM_INTERVAL_END);
		b[n++].e = e;
		if (kend) {	/* both ends in one element: inclusive */
			b[n].v = data_val(r, kend, elen) + 1;
			b[n].end = true;
			b[n++].e = e;
			if (b[n - 1].v == 0) {	/* up to the maximum */
				n--;
			}
		}
	}
	qsort(b, n, sizeof(*b), bound_cmp);
	xs->elems = calloc(n + 1, sizeof(*xs->elems));
	if (!xs->elems) {
		ret = xl_fail(s, "out of memory");
		goto out;
	}
	for (i = 0, k = 0; i < n; i++) {
		struct xl_elem *el = &xs->elems[k];
		u32 klen = 0;
		const void *key;

		if (b[i].end)
			continue;	/* a stray end: the 0 of old rbtrees */
		key = nftnl_set_elem_get(b[i].e, NFTNL_SET_ELEM_KEY, &klen);
		memcpy(el->key, key, klen);
		el->keylen = klen;
		el->lo = el->hi = b[i].v;
		if (interval) {
			el->hi = field_max(r->field);
			if (i + 1 < n && b[i + 1].end)
				el->hi = b[i + 1].v - 1;
		}
		elem_data(el, b[i].e);
		k++;
	}
	xs->nelems = k;
	xs->loaded = true;
out:
	nftnl_set_elems_iter_destroy(it);
	free(b);
	return ret;
}

/* A port set that fits one multiport match (15 ports, a range counts 2). */
static bool multiport_fits(const struct xl_set *xs)
{
	unsigned int i, slots = 0;

	for (i = 0; i < xs->nelems; i++)
		slots += xs->elems[i].lo == xs->elems[i].hi ? 1 : 2;
	return xs->nelems > 1 && slots <= XT_MULTI_PORTS;
}

static int set_multiport(struct xl_state *s, int field,
			 const struct xl_set *xs, bool inv)
{
	struct xl_clause *c;
	unsigned int i;

	if (l4_kind(s, field) < 0)
		return -EINVAL;
	c = clause(s, XK_MULTIPORT);
	if (!c)
		return -EINVAL;
	if (c->mp_n)
		return xl_fail(s, "a second port set");
	c->mp_dir = field == XF_SPORT ? XT_MULTIPORT_SOURCE :
					XT_MULTIPORT_DESTINATION;
	c->mp_inv = inv;
	c->mp_n = xs->nelems;
	for (i = 0; i < xs->nelems; i++) {
		c->mp_lo[i] = xs->elems[i].lo;
		c->mp_hi[i] = xs->elems[i].hi;
	}
	return 0;
}

static int apply_elem(struct xl_state *s, const struct xl_reg *r,
		      const struct xl_elem *el, bool inv)
{
	if (el->lo == el->hi)
		return set_eq(s, r, el->lo, el->key, el->keylen, inv);
	return set_range(s, r->field, el->lo, el->hi, inv);
}

/*
 * A lookup of an address in a named set: a set match of the nf-hipac set
 * the import makes of it (nft_sets.h).  The kernel runs set matches after
 * the tree and before the xtables matches, so the text puts it before
 * the first of them, as nf-hipac-save prints it; after a match that may
 * keep state (limit, an xt match iptables-nft kept) that would be
 * another rule.
 */
static int named_lookup(struct xl_state *s, const struct xl_reg *r,
			struct xl_set *xs, bool inv, bool map)
{
	const char *name = nftnl_set_get_str(xs->s, NFTNL_SET_NAME);
	struct xl_clause *c;
	char why[160];
	unsigned int i;

	if (map)
		return xl_fail(s, "a lookup in named map %s: nf-hipac imports named sets of addresses only",
			       name);
	if (r->field != XF_SADDR && r->field != XF_DADDR)
		return xl_fail(s, "a lookup of %s in named set %s: nf-hipac imports named sets of addresses only",
			       field_name(r->field), name);
	if (r->masked)
		return xl_fail(s, "a lookup of a masked %s in named set %s",
			       field_name(r->field), name);
	if (r->len != (view6(s) ? 16 : 4))
		return xl_fail(s, "a lookup of part of %s in named set %s",
			       field_name(r->field), name);
	if (nfhp_nft_set_check(xs->s, r->len, why, sizeof(why)))
		return xl_fail(s, "named set %s: %s", name, why);
	for (i = 0; i < s->ncl; i++)
		if (s->cl[i].kind == XK_LIMIT || s->cl[i].kept)
			return xl_fail(s, "a lookup in named set %s after a match that may keep state: nf-hipac runs set matches first",
				       name);
	c = clause_new(s, XK_SETM);
	if (!c)
		return -EINVAL;
	c->setm = xs;
	c->setm_dst = r->field == XF_DADDR;
	c->setm_inv = inv;
	return 0;
}

static int do_lookup(struct xl_state *s, struct nftnl_expr *e)
{
	struct xl_reg *r = get_reg(s, nftnl_expr_get_u32(e,
						NFTNL_EXPR_LOOKUP_SREG));
	const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET);
	bool map = nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_DREG);
	bool inv = nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_FLAGS) &&
		   nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_FLAGS) &
		   NFT_LOOKUP_F_INV;
	struct xl_set *xs = find_set(s->x, name);
	const struct xl_elem *el;
	unsigned int i, k;
	u32 bits = 0;

	if (!r || !r->field || !xs)
		return xl_fail(s, "lookup in set %s", name ? name : "?");
	if (!(nftnl_set_get_u32(xs->s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS))
		return named_lookup(s, r, xs, inv, map);
	if (addr6(s, r))
		return xl_fail(s, "lookup in set %s of IPv6 addresses (not supported yet)",
			       name);
	if (r->masked)
		return xl_fail(s, "lookup of a masked %s",
			       field_name(r->field));
	if (map && nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_DREG) !=
		   NFT_REG_VERDICT)
		return xl_fail(s, "a data map (set %s)", name);
	/* "ip saddr . tcp dport { ... }": a key over several registers. */
	if (nftnl_set_is_set(xs->s, NFTNL_SET_KEY_LEN) &&
	    nftnl_set_get_u32(xs->s, NFTNL_SET_KEY_LEN) != r->len)
		return xl_fail(s, "lookup of %u-byte keys in set %s (a concatenation?)",
			       nftnl_set_get_u32(xs->s, NFTNL_SET_KEY_LEN), name);
	if (!xs->loaded && load_elems(s, xs, r))
		return -EINVAL;
	if (!xs->nelems) {
		if (inv && !map)
			return 0;	/* not in the empty set: always */
		return xl_fail(s, "lookup in the empty set %s", name);
	}
	if (!map && r->field == XF_CTSTATE) {
		for (i = 0; i < xs->nelems; i++) {
			el = &xs->elems[i];
			if (el->lo != el->hi || el->lo & (el->lo - 1))
				return xl_fail(s, "a ct state set element 0x%x",
					       el->lo);
			bits |= el->lo;
		}
		return set_state(s, bits, inv);
	}
	if (!map && (r->field == XF_SPORT || r->field == XF_DPORT) &&
	    multiport_fits(xs))
		return set_multiport(s, r->field, xs, inv);
	if (inv || xs->nelems == 1) {
		if (xs->nelems > 1)
			return xl_fail(s, "a negated lookup in %s, a set of %u elements",
				       name, xs->nelems);
		el = &xs->elems[0];
		if (apply_elem(s, r, el, inv))
			return -EINVAL;
		return map ? set_verdict(s, el->verdict, el->chain) : 0;
	}
	/* One copy of the rule per element. */
	if (s->nexp == XL_MAX_EXPAND)
		return xl_fail(s, "more than %d set lookups", XL_MAX_EXPAND);
	k = s->nexp++;
	s->nalt[k] = xs->nelems;
	el = &xs->elems[s->choice[k] < xs->nelems ? s->choice[k] : 0];
	if (apply_elem(s, r, el, false))
		return -EINVAL;
	return map ? set_verdict(s, el->verdict, el->chain) : 0;
}

/* --- xt matches (iptables-nft) ------------------------------------------ */

static const void *xt_info(struct xl_state *s, struct nftnl_expr *e,
			   const char *name, size_t size)
{
	u32 len = 0;
	const void *info = nftnl_expr_get(e, NFTNL_EXPR_MT_INFO, &len);

	if (!info || len < size) {
		xl_fail(s, "xt match %s: %u bytes of info, not %zu", name, len,
			size);
		return NULL;
	}
	return info;
}

static int xt_ports(struct xl_state *s, int field, const __u16 pts[2],
		    bool inv)
{
	if (pts[0] == 0 && pts[1] == 0xffff && !inv)
		return 0;
	return set_range(s, field, pts[0], pts[1], inv);
}

static int xt_tcpudp(struct xl_state *s, struct nftnl_expr *e, bool tcp)
{
	const struct xt_tcp *t;
	const struct xt_udp *u;
	struct xl_clause *c;

	if (!s->proto_set || s->proto_inv ||
	    s->proto != (tcp ? IPPROTO_TCP : IPPROTO_UDP))
		return xl_fail(s, "xt match %s without -p %s",
			       tcp ? "tcp" : "udp", tcp ? "tcp" : "udp");
	c = clause(s, tcp ? XK_TCP : XK_UDP);
	if (!c)
		return -EINVAL;
	if (!tcp) {
		u = xt_info(s, e, "udp", sizeof(*u));
		if (!u || xt_ports(s, XF_SPORT, u->spts,
				   u->invflags & XT_UDP_INV_SRCPT) ||
		    xt_ports(s, XF_DPORT, u->dpts,
			     u->invflags & XT_UDP_INV_DSTPT))
			return -EINVAL;
		return 0;
	}
	t = xt_info(s, e, "tcp", sizeof(*t));
	if (!t || xt_ports(s, XF_SPORT, t->spts,
			   t->invflags & XT_TCP_INV_SRCPT) ||
	    xt_ports(s, XF_DPORT, t->dpts, t->invflags & XT_TCP_INV_DSTPT))
		return -EINVAL;
	if (t->flg_mask || t->invflags & XT_TCP_INV_FLAGS) {
		if (c->has_flags)
			return xl_fail(s, "a second tcp flags match");
		c->has_flags = true;
		c->flags_inv = t->invflags & XT_TCP_INV_FLAGS;
		c->fmask = t->flg_mask;
		c->fcmp = t->flg_cmp;
	}
	c->option = t->option;
	c->option_inv = t->invflags & XT_TCP_INV_OPTION;
	return 0;
}

static int xt_icmp(struct xl_state *s, struct nftnl_expr *e)
{
	const struct xl_ipt_icmp *i = xt_info(s, e, "icmp", sizeof(*i));
	struct xl_clause *c;

	/* ip6t_icmp is laid out as ipt_icmp */
	if (!i)
		return -EINVAL;
	if (!s->proto_set || s->proto_inv || s->proto != icmp_proto(s))
		return xl_fail(s, "xt match %s without -p %s",
			       view6(s) ? "icmp6" : "icmp",
			       view6(s) ? "ipv6-icmp" : "icmp");
	c = clause(s, XK_ICMP);
	if (!c)
		return -EINVAL;
	if (c->icmp_set)
		return xl_fail(s, "a second icmp type match");
	if (i->type != 0xff && !(i->code[0] == i->code[1] ||
				 (i->code[0] == 0 && i->code[1] == 0xff)))
		return xl_fail(s, "icmp codes %u-%u", i->code[0], i->code[1]);
	c->icmp_set = true;
	c->icmp_inv = i->invflags & 0x01;	/* IPT_ICMP_INV */
	c->type = i->type;
	c->code_lo = i->code[0];
	c->code_hi = i->code[1];
	return 0;
}

static int xt_multiport(struct xl_state *s, struct nftnl_expr *e, u32 rev)
{
	const struct xt_multiport_v1 *m1 = NULL;
	const struct xt_multiport *m0 = NULL;
	struct xl_clause *c;
	unsigned int i, n;

	if (rev == 1)
		m1 = xt_info(s, e, "multiport", sizeof(*m1));
	else if (rev == 0)
		m0 = xt_info(s, e, "multiport", sizeof(*m0));
	else
		return xl_fail(s, "xt match multiport revision %u", rev);
	if (!m0 && !m1)
		return -EINVAL;
	c = clause(s, XK_MULTIPORT);
	if (!c)
		return -EINVAL;
	if (c->mp_n)
		return xl_fail(s, "a second multiport match");
	c->mp_dir = m1 ? m1->flags : m0->flags;
	n = m1 ? m1->count : m0->count;
	if (n > XT_MULTI_PORTS || !n || c->mp_dir > XT_MULTIPORT_EITHER)
		return xl_fail(s, "a malformed multiport match");
	for (i = 0; i < n; i++) {
		c->mp_lo[c->mp_n] = m1 ? m1->ports[i] : m0->ports[i];
		c->mp_hi[c->mp_n] = c->mp_lo[c->mp_n];
		if (m1 && m1->pflags[i] && i + 1 < n)
			c->mp_hi[c->mp_n] = m1->ports[++i];
		c->mp_n++;
	}
	c->mp_inv = m1 && m1->invert;
	return 0;
}

static int xt_conntrack(struct xl_state *s, struct nftnl_expr *e, u32 rev)
{
	const struct xt_conntrack_mtinfo1 *c1 = NULL;
	const struct xt_conntrack_mtinfo2 *c2 = NULL;
	struct xl_clause *c;
	unsigned int flags, inv, state;

	if (rev == 1)
		c1 = xt_info(s, e, "conntrack", sizeof(*c1));
	else if (rev == 2 || rev == 3)	/* v3 extends v2 */
		c2 = xt_info(s, e, "conntrack", sizeof(*c2));
	else
		return xl_fail(s, "xt match conntrack revision %u", rev);
	if (!c1 && !c2)
		return -EINVAL;
	flags = c1 ? c1->match_flags : c2->match_flags;
	inv = c1 ? c1->invert_flags : c2->invert_flags;
	state = c1 ? c1->state_mask : c2->state_mask;
	if ((flags & ~XT_CONNTRACK_STATE_ALIAS) != XT_CONNTRACK_STATE)
		return xl_fail(s, "xt match conntrack with options other than --ctstate (flags 0x%x)",
			       flags);
	if (state & (XT_CONNTRACK_STATE_SNAT | XT_CONNTRACK_STATE_DNAT))
		return xl_fail(s, "conntrack --ctstate SNAT/DNAT");
	if (state & XT_CONNTRACK_STATE_UNTRACKED)
		state = (state & ~XT_CONNTRACK_STATE_UNTRACKED) |
			XL_CT_UNTRACKED;
	if (set_state(s, state, inv & XT_CONNTRACK_STATE))
		return -EINVAL;
	if (flags & XT_CONNTRACK_STATE_ALIAS) {
		c = clause(s, XK_CONNTRACK);
		c->kind = XK_STATE;
	}
	return 0;
}

/* An xt match or target iptables-nft keeps as such, see xt_print_ext(). */
static int xt_through(struct xl_state *s, struct nftnl_expr *e, bool target,
		      char *buf, size_t size)
{
	u32 len = 0;
	const void *info = nftnl_expr_get(e, target ? NFTNL_EXPR_TG_INFO :
					  NFTNL_EXPR_MT_INFO, &len);

	return xt_print_ext(s, target,
			    nftnl_expr_get_str(e, target ? NFTNL_EXPR_TG_NAME :
					       NFTNL_EXPR_MT_NAME),
			    nftnl_expr_get_u32(e, target ? NFTNL_EXPR_TG_REV :
					       NFTNL_EXPR_MT_REV),
			    info, len, buf, size);
}


static int xt_match_through(struct xl_state *s, struct nftnl_expr *e)
{
	struct xl_clause *c = clause_new(s, XK_XT);

	if (!c)
		return -EINVAL;
	c->kept = true;
	return xt_through(s, e, false, c->xt, sizeof(c->xt));
}

static int xt_match(struct xl_state *s, struct nftnl_expr *e)
{
	const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_MT_NAME);
	u32 rev = nftnl_expr_get_u32(e, NFTNL_EXPR_MT_REV);
	struct xl_clause *c;

	if (!name)
		return xl_fail(s, "an xt match without a name");
	if (!strcmp(name, "tcp") || !strcmp(name, "udp"))
		return xt_tcpudp(s, e, name[0] == 't');
	if (!strcmp(name, view6(s) ? "icmp6" : "icmp"))
		return xt_icmp(s, e);
	if (!strcmp(name, "multiport"))
		return xt_multiport(s, e, rev);
	if (!strcmp(name, "conntrack"))
		return xt_conntrack(s, e, rev);
	if (!strcmp(name, "state")) {
		const struct xt_state_info *i = xt_info(s, e, name,
							sizeof(*i));

		if (!i || set_state(s, i->statemask, false))
			return -EINVAL;
		clause(s, XK_CONNTRACK)->kind = XK_STATE;
		return 0;
	}
	if (!strcmp(name, "comment")) {
		const struct xt_comment_info *i = xt_info(s, e, name,
							  sizeof(*i));

		c = i ? clause(s, XK_COMMENT) : NULL;
		if (!c)
			return -EINVAL;
		if (c->comment[0])
			return xl_fail(s, "a second comment");
		memcpy(c->comment, i->comment, sizeof(c->comment) - 1);
		return 0;
	}
	if (!strcmp(name, view6(s) ? "hl" : "ttl")) {
		/* ip6t_hl_info is laid out as ipt_ttl_info */
		const struct ipt_ttl_info *i = xt_info(s, e, name, sizeof(*i));

		if (!i || i->mode > IPT_TTL_GT)
			return i ? xl_fail(s, "ttl mode %u", i->mode) : -EINVAL;
		/* IPT_TTL_EQ, _NE, _LT, _GT are XL_TTL_* */
		return set_ttl(s, i->mode, i->ttl);
	}
	if (!strcmp(name, "length")) {
		const struct xt_length_info *i = xt_info(s, e, name,
							 sizeof(*i));

		return i ? set_range(s, XF_LENGTH, i->min, i->max, i->invert) :
			   -EINVAL;
	}
	if (!strcmp(name, "mark") && rev == 1) {
		const struct xt_mark_mtinfo1 *i = xt_info(s, e, name,
							  sizeof(*i));

		c = i ? clause(s, XK_MARK) : NULL;
		if (!c)
			return -EINVAL;
		if (c->mark_mask)
			return xl_fail(s, "a second mark match");
		c->mark = i->mark;
		c->mark_mask = i->mask;
		c->mark_inv = i->invert;
		return 0;
	}
	if (!strcmp(name, "iprange") && rev == 1 && !view6(s)) {
		const struct xt_iprange_mtinfo *i = xt_info(s, e, name,
							    sizeof(*i));

		c = i ? clause(s, XK_IPRANGE) : NULL;
		if (!c)
			return -EINVAL;
		if (c->src.set || c->dst.set)
			return xl_fail(s, "a second iprange match");
		c->src.set = i->flags & IPRANGE_SRC;
		c->src.inv = i->flags & IPRANGE_SRC_INV;
		c->src.lo = ntohl(i->src_min.ip);
		c->src.hi = ntohl(i->src_max.ip);
		c->dst.set = i->flags & IPRANGE_DST;
		c->dst.inv = i->flags & IPRANGE_DST_INV;
		c->dst.lo = ntohl(i->dst_min.ip);
		c->dst.hi = ntohl(i->dst_max.ip);
		return 0;
	}
	return xt_match_through(s, e);
}

/* --- targets: REJECT, LOG, NFLOG ---------------------------------------- */


/*
 * The rule ends in an iptables target, written as iptables-save does
 * (libipt_REJECT, libipt_LOG, libxt_NFLOG); whether nf-hipac can run it
 * is for the restore parser to say.  Nothing may follow it.
 */
static FILE *xtarget_open(struct xl_state *s, const char *name)
{
	bool log = name[0] != 'R';	/* LOG, NFLOG: not terminal */
	FILE *f;

	if (s->have_verdict || (log && s->log[0])) {
		xl_fail(s, "target %s after %s", name,
			s->have_verdict ? "the verdict" : "a log");
		return NULL;
	}
	f = fmemopen(log ? s->log : s->xtarget, sizeof(s->xtarget), "w");
	if (!f) {
		xl_fail(s, "out of memory");
		return NULL;
	}
	fputs(name, f);
	return f;
}

static int xtarget_close(struct xl_state *s, FILE *f, bool log)
{
	fputc(0, f);
	if (fclose(f) || !memchr(log ? s->log : s->xtarget, 0,
				 sizeof(s->xtarget) - 1))
		return xl_fail(s, "target options too long");
	if (!log) {
		s->verdict = XL_VERDICT_XT;
		s->have_verdict = true;
	}
	return 0;
}

static int put_reject_with(struct xl_state *s, const char *name)
{
	FILE *f = xtarget_open(s, "REJECT");

	if (!f)
		return -EINVAL;
	fprintf(f, " --reject-with %s", name);
	return xtarget_close(s, f, false);
}

/* libipt_REJECT's names of enum ipt_reject_with. */
static int put_reject(struct xl_state *s, unsigned int with)
{
	static const char *const names[] = {
		[IPT_ICMP_NET_UNREACHABLE] = "icmp-net-unreachable",
		[IPT_ICMP_HOST_UNREACHABLE] = "icmp-host-unreachable",
		[IPT_ICMP_PROT_UNREACHABLE] = "icmp-proto-unreachable",
		[IPT_ICMP_PORT_UNREACHABLE] = "icmp-port-unreachable",
		[IPT_ICMP_NET_PROHIBITED] = "icmp-net-prohibited",
		[IPT_ICMP_HOST_PROHIBITED] = "icmp-host-prohibited",
		[IPT_TCP_RESET] = "tcp-reset",
		[IPT_ICMP_ADMIN_PROHIBITED] = "icmp-admin-prohibited",
	};

	if (with >= ARRAY_SIZE(names) || !names[with])
		return xl_fail(s, "REJECT with type %u", with);
	return put_reject_with(s, names[with]);
}

/* libip6t_REJECT's names of enum ip6t_reject_with. */
static int put_reject6(struct xl_state *s, unsigned int with)
{
	static const char *const names[] = {
		[IP6T_ICMP6_NO_ROUTE] = "icmp6-no-route",
		[IP6T_ICMP6_ADM_PROHIBITED] = "icmp6-adm-prohibited",
		[IP6T_ICMP6_ADDR_UNREACH] = "icmp6-addr-unreachable",
		[IP6T_ICMP6_PORT_UNREACH] = "icmp6-port-unreachable",
		[IP6T_TCP_RESET] = "tcp-reset",
		[IP6T_ICMP6_POLICY_FAIL] = "icmp6-policy-fail",
		[IP6T_ICMP6_REJECT_ROUTE] = "icmp6-reject-route",
	};

	if (with >= ARRAY_SIZE(names) || !names[with])
		return xl_fail(s, "REJECT with type %u", with);
	return put_reject_with(s, names[with]);
}

static int put_log(struct xl_state *s, const char *prefix, u32 level,
		   u32 flags)
{
	static const struct {
		u32 flag;
		const char *opt;
	} opts[] = {
		{ 0x01, " --log-tcp-sequence" }, { 0x02, " --log-tcp-options" },
		{ 0x04, " --log-ip-options" }, { 0x08, " --log-uid" },
		{ 0x20, " --log-macdecode" },
	};
	unsigned int i;
	FILE *f;

	if (flags & ~0x2fu || level > 7)
		return xl_fail(s, "log level %u flags 0x%x", level, flags);
	f = xtarget_open(s, "LOG");
	if (!f)
		return -EINVAL;
	if (prefix && prefix[0]) {
		fputs(" --log-prefix", f);
		nfhp_print_save_string(f, prefix);
	}
	if (level != XL_LOG_DEFAULT)
		fprintf(f, " --log-level %u", level);
	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (flags & opts[i].flag)
			fputs(opts[i].opt, f);
	return xtarget_close(s, f, true);
}

/* Any other xt target: " -j NAME ..." from its library, see xt_through(). */
static int xt_target_through(struct xl_state *s, struct nftnl_expr *e)
{
	char text[XL_TARGET_TEXT];
	int ret;

	if (s->have_verdict)
		return xl_fail(s, "a target after the verdict");
	ret = xt_through(s, e, true, text, sizeof(text));
	if (!ret)
		ret = xt_target_text(s, text, s->xtarget, sizeof(s->xtarget));
	if (ret)
		return ret;
	s->verdict = XL_VERDICT_XT;
	s->have_verdict = true;
	return 0;
}

static int xt_target(struct xl_state *s, struct nftnl_expr *e)
{
	const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_TG_NAME);
	u32 rev = nftnl_expr_get_u32(e, NFTNL_EXPR_TG_REV);
	u32 len = 0;
	const void *info = nftnl_expr_get(e, NFTNL_EXPR_TG_INFO, &len);

	/* ip6t_reject_info is laid out as ipt_reject_info */
	if (name && !strcmp(name, "REJECT") && rev == 0 && info &&
	    len >= sizeof(struct ipt_reject_info))
		return (view6(s) ? put_reject6 : put_reject)(s,
			((const struct ipt_reject_info *)info)->with);
	if (name && !strcmp(name, "LOG") && rev == 0 && info &&
	    len >= sizeof(struct ipt_log_info)) {
		const struct ipt_log_info *l = info;
		char prefix[sizeof(l->prefix) + 1] = "";

		memcpy(prefix, l->prefix, sizeof(l->prefix));
		return put_log(s, prefix, l->level, l->logflags);
	}
	return xt_target_through(s, e);
}

/* nft's reject of IPv6: the icmpv6 codes ip6tables' REJECT can send. */
static int do_reject6(struct xl_state *s, u32 type, u32 code)
{
	if (type == NFT_REJECT_TCP_RST)
		return put_reject6(s, IP6T_TCP_RESET);
	if (type == NFT_REJECT_ICMPX_UNREACH) {
		switch (code) {
		case NFT_REJECT_ICMPX_NO_ROUTE:
			return put_reject6(s, IP6T_ICMP6_NO_ROUTE);
		case NFT_REJECT_ICMPX_PORT_UNREACH:
			return put_reject6(s, IP6T_ICMP6_PORT_UNREACH);
		case NFT_REJECT_ICMPX_HOST_UNREACH:
			return put_reject6(s, IP6T_ICMP6_ADDR_UNREACH);
		case NFT_REJECT_ICMPX_ADMIN_PROHIBITED:
			return put_reject6(s, IP6T_ICMP6_ADM_PROHIBITED);
		}
	} else if (type == NFT_REJECT_ICMP_UNREACH) {
		switch (code) {	/* ICMPV6_NOROUTE... */
		case 0:
			return put_reject6(s, IP6T_ICMP6_NO_ROUTE);
		case 1:
			return put_reject6(s, IP6T_ICMP6_ADM_PROHIBITED);
		case 3:
			return put_reject6(s, IP6T_ICMP6_ADDR_UNREACH);
		case 4:
			return put_reject6(s, IP6T_ICMP6_PORT_UNREACH);
		case 5:
			return put_reject6(s, IP6T_ICMP6_POLICY_FAIL);
		case 6:
			return put_reject6(s, IP6T_ICMP6_REJECT_ROUTE);
		}
	}
	return xl_fail(s, "reject type %u code %u", type, code);
}

/*
 * nft's own reject: the icmp codes iptables' REJECT can send.  In an inet
 * table the code of "icmp" is one of the family of the packet.
 */
static int do_reject(struct xl_state *s, struct nftnl_expr *e)
{
	u32 type = nftnl_expr_get_u32(e, NFTNL_EXPR_REJECT_TYPE);
	u32 code = nftnl_expr_get_u8(e, NFTNL_EXPR_REJECT_CODE);

	if (view6(s))
		return do_reject6(s, type, code);
	if (type == NFT_REJECT_TCP_RST)
		return put_reject(s, IPT_TCP_RESET);
	if (type == NFT_REJECT_ICMPX_UNREACH) {
		switch (code) {
		case NFT_REJECT_ICMPX_NO_ROUTE:
			return put_reject(s, IPT_ICMP_NET_UNREACHABLE);
		case NFT_REJECT_ICMPX_PORT_UNREACH:
			return put_reject(s, IPT_ICMP_PORT_UNREACHABLE);
		case NFT_REJECT_ICMPX_HOST_UNREACH:
			return put_reject(s, IPT_ICMP_HOST_UNREACHABLE);
		case NFT_REJECT_ICMPX_ADMIN_PROHIBITED:
			return put_reject(s, IPT_ICMP_ADMIN_PROHIBITED);
		}
	} else if (type == NFT_REJECT_ICMP_UNREACH) {
		switch (code) {	/* ICMP_NET_UNREACH... */
		case 0:
			return put_reject(s, IPT_ICMP_NET_UNREACHABLE);
		case 1:
			return put_reject(s, IPT_ICMP_HOST_UNREACHABLE);
		case 2:
			return put_reject(s, IPT_ICMP_PROT_UNREACHABLE);
		case 3:
			return put_reject(s, IPT_ICMP_PORT_UNREACHABLE);
		case 9:
			return put_reject(s, IPT_ICMP_NET_PROHIBITED);
		case 10:
			return put_reject(s, IPT_ICMP_HOST_PROHIBITED);
		case 13:
			return put_reject(s, IPT_ICMP_ADMIN_PROHIBITED);
		}
	}
	return xl_fail(s, "reject type %u code %u", type, code);
}

/* nft's log: LOG, or NFLOG when it names a group. */
static int do_log(struct xl_state *s, struct nftnl_expr *e)
{
	const char *prefix = nftnl_expr_get_str(e, NFTNL_EXPR_LOG_PREFIX);
	u32 level = XL_LOG_DEFAULT, flags = 0, v;
	FILE *f;

	if (nftnl_expr_is_set(e, NFTNL_EXPR_LOG_LEVEL))
		level = nftnl_expr_get_u32(e, NFTNL_EXPR_LOG_LEVEL);
	if (nftnl_expr_is_set(e, NFTNL_EXPR_LOG_FLAGS))
		flags = nftnl_expr_get_u32(e, NFTNL_EXPR_LOG_FLAGS);
	if (!nftnl_expr_is_set(e, NFTNL_EXPR_LOG_GROUP))
		return put_log(s, prefix, level, flags);
	f = xtarget_open(s, "NFLOG");
	if (!f)
		return -EINVAL;
	if (prefix && prefix[0]) {
		fputs(" --nflog-prefix", f);
		nfhp_print_save_string(f, prefix);
	}
	v = nftnl_expr_get_u16(e, NFTNL_EXPR_LOG_GROUP);
	if (v)
		fprintf(f, " --nflog-group %u", v);
	v = nftnl_expr_is_set(e, NFTNL_EXPR_LOG_SNAPLEN) ?
	    nftnl_expr_get_u32(e, NFTNL_EXPR_LOG_SNAPLEN) : 0;
	if (v)
		fprintf(f, " --nflog-size %u", v);
	v = nftnl_expr_is_set(e, NFTNL_EXPR_LOG_QTHRESHOLD) ?
	    nftnl_expr_get_u16(e, NFTNL_EXPR_LOG_QTHRESHOLD) : 0;
	if (v > 1)
		fprintf(f, " --nflog-threshold %u", v);
	return xtarget_close(s, f, true);
}

/*
 * nft "limit rate N/UNIT [burst B packets]", which iptables-nft makes of
 * -m limit: the time between packets as iptables-nft computes it, so
 * that libxt_limit prints the rate as iptables-nft-save does (120/min as
 * 2/sec).  Byte rates, "rate over" and weeks have no -m limit form.
 */
static int do_limit(struct xl_state *s, struct nftnl_expr *e)
{
	u64 rate = nftnl_expr_get_u64(e, NFTNL_EXPR_LIMIT_RATE);
	u64 unit = nftnl_expr_get_u64(e, NFTNL_EXPR_LIMIT_UNIT);
	u32 burst = nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_BURST);
	u64 avg = rate ? XT_LIMIT_SCALE * unit / rate : 0;
	struct xl_clause *c;

	if (nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_TYPE) != NFT_LIMIT_PKTS)
		return xl_fail(s, "limit in bytes has no -m limit form");
	if (nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_FLAGS) & NFT_LIMIT_F_INV)
		return xl_fail(s, "limit rate over has no -m limit form");
	if (unit != 1 && unit != 60 && unit != 60 * 60 && unit != 24 * 60 * 60)
		return xl_fail(s, "limit per %llu seconds has no -m limit form",
			       (unsigned long long)unit);
	if (!avg)	/* at most a day per packet: avg fits in u32 */
		return xl_fail(s, "limit rate %llu per %llu seconds is above -m limit's %u/second",
			       (unsigned long long)rate,
			       (unsigned long long)unit, XT_LIMIT_SCALE);
	if (!burst)
		return xl_fail(s, "limit burst 0 has no -m limit form");
	if (find_clause(s, XK_LIMIT))
		return xl_fail(s, "a second limit in one rule");
	c = clause(s, XK_LIMIT);
	if (!c)
		return -EINVAL;
	c->rate.avg = avg;
	c->rate.burst = burst;
	return 0;
}

/* --- a rule ------------------------------------------------------------ */

/* The comment nft keeps in the rule's user data ("comment \"...\""), or NULL. */
static const char *rule_comment(struct nftnl_rule *r)
{
	const struct nftnl_udata *tb[NFTNL_UDATA_RULE_MAX + 1] = {};
	const struct nftnl_udata *attr;
	const void *data;
	u32 len = 0;
	const char *p;

	data = nftnl_rule_get_data(r, NFTNL_RULE_USERDATA, &len);
	if (!data)
		return NULL;
	for (attr = data; (const char *)attr + 2 <= (const char *)data + len;
	     attr = nftnl_udata_next(attr)) {
		if ((const char *)nftnl_udata_next(attr) >
		    (const char *)data + len)
			break;
		if (nftnl_udata_type(attr) <= NFTNL_UDATA_RULE_MAX)
			tb[nftnl_udata_type(attr)] = attr;
	}
	attr = tb[NFTNL_UDATA_RULE_COMMENT];
	if (!attr)
		return NULL;
	p = nftnl_udata_get(attr);
	len = nftnl_udata_len(attr);
	return len && !p[len - 1] ? p : NULL;
}

static int udata_comment(struct xl_state *s, struct nftnl_rule *r)
{
	const char *p = rule_comment(r);
	struct xl_clause *c;

	if (!p)
		return 0;
	c = clause(s, XK_COMMENT);
	if (!c)
		return -EINVAL;
	if (!c->comment[0])	/* iptables-nft's xt comment wins */
		snprintf(c->comment, sizeof(c->comment), "%s", p);
	return 0;
}

/*
 * Is @r the mark of a takeover (NFHP_TAKEOVER_MARK)?  Its expressions must
 * be the takeover's too, a counter alone or "meta nfproto ipv4 accept": a
 * rule of the user's that only carries the same comment stays a rule.
 */
static bool takeover_mark(struct nftnl_rule *r)
{
	static const char *const inet[] = { "meta", "cmp", "immediate" };
	const char *comment = rule_comment(r);
	struct nftnl_expr_iter *it;
	struct nftnl_expr *e;
	unsigned int n = 0;
	bool ok = true;
	const char *name;
	const u8 *d;
	u32 len = 0;

	if (!comment || (strcmp(comment, NFHP_TAKEOVER_MARK) &&
			 strcmp(comment, NFHP_TAKEOVER_MARK_IPV4)))
		return false;
	it = nftnl_expr_iter_create(r);
	if (!it)
		return false;
	while (ok && (e = nftnl_expr_iter_next(it))) {
		name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
		if (!n && !strcmp(name, "counter")) {
			/* family ip: nothing may follow */
			ok = !nftnl_expr_iter_next(it);
			n = sizeof(inet) / sizeof(inet[0]);
			break;
		}
		if (n == sizeof(inet) / sizeof(inet[0]) ||
		    strcmp(name, inet[n])) {
			ok = false;
			break;
		}
		switch (n++) {
		case 0:
			ok = nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY) ==
			     NFT_META_NFPROTO;
			break;
		case 1:
			d = nftnl_expr_get(e, NFTNL_EXPR_CMP_DATA, &len);
			ok = nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_OP) ==
			     NFT_CMP_EQ && len == 1 && d[0] == NFPROTO_IPV4;
			break;
		default:
			ok = nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_VERDICT) ==
			     NF_ACCEPT;
		}
	}
	nftnl_expr_iter_destroy(it);
	return ok && n == sizeof(inet) / sizeof(inet[0]);
}

static int interp(struct xl_state *s, struct nftnl_rule *r)
{
	struct nftnl_expr_iter *it = nftnl_expr_iter_create(r);
	struct nftnl_expr *e;
	int ret = 0;

	if (!it)
		return xl_fail(s, "out of memory");
	s->verdict = NFT_CONTINUE;
	while (!ret && (e = nftnl_expr_iter_next(it))) {
		const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);

		if (s->have_verdict) {
			ret = xl_fail(s, "expression \"%s\" after the verdict",
				      name);
			break;
		}
		if (!strcmp(name, "counter")) {
			s->pkts += nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
			s->bytes += nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_BYTES);
			continue;
		}
		/* After a log only the verdict may come. */
		if (s->log[0] && strcmp(name, "immediate") &&
		    strcmp(name, "reject") && strcmp(name, "target")) {
			ret = xl_fail(s, "expression \"%s\" after a log", name);
			break;
		}
		if (!strcmp(name, "payload"))
			ret = load_payload(s, e);
		else if (!strcmp(name, "meta"))
			ret = load_meta(s, e);
		else if (!strcmp(name, "ct"))
			ret = load_ct(s, e);
		else if (!strcmp(name, "fib"))
			ret = load_fib(s, e);
		else if (!strcmp(name, "bitwise"))
			ret = do_bitwise(s, e);
		else if (!strcmp(name, "cmp"))
			ret = do_cmp(s, e);
		else if (!strcmp(name, "byteorder"))
			ret = do_byteorder(s, e);
		else if (!strcmp(name, "range"))
			ret = do_range(s, e);
		else if (!strcmp(name, "lookup"))
			ret = do_lookup(s, e);
		else if (!strcmp(name, "immediate"))
			ret = do_immediate(s, e);
		else if (!strcmp(name, "match"))
			ret = xt_match(s, e);
		else if (!strcmp(name, "target"))
			ret = xt_target(s, e);
		else if (!strcmp(name, "reject"))
			ret = do_reject(s, e);
		else if (!strcmp(name, "log"))
			ret = do_log(s, e);
		else if (!strcmp(name, "limit"))
			ret = do_limit(s, e);
		else
			ret = xl_fail(s, "expression \"%s\" has no nf-hipac equivalent",
				      name);
		/* An inet rule for IPv6 only: the rest does not matter. */
		if (!ret && s->other)
			break;
	}
	nftnl_expr_iter_destroy(it);
	if (!ret && !s->other)
		ret = xt_finish(s);
	if (!ret && !s->other)
		ret = udata_comment(s, r);
	return ret;
}

/* --- printing ------------------------------------------------------------ */

static void put_addr(FILE *f, u32 a)
{
	fprintf(f, "%u.%u.%u.%u", a >> 24, a >> 16 & 0xff, a >> 8 & 0xff,
		a & 0xff);
}

/* -s or -d as iptables-save or ip6tables-save writes it. */
static void put_prefix(FILE *f, const char *opt, const struct xl_addr *a,
		       bool v6)
{
	char buf[INET6_ADDRSTRLEN];

	if (!a->set)
		return;
	fprintf(f, "%s %s ", a->inv ? " !" : "", opt);
	if (v6)
		fputs(inet_ntop(AF_INET6, a->addr6, buf, sizeof(buf)), f);
	else
		put_addr(f, a->addr);
	fprintf(f, "/%u", a->plen);
}

static const char *bang(bool inv)
{
	return inv ? " !" : "";
}

static void put_ports(FILE *f, const char *opt, const struct xl_range *r)
{
	if (!r->set)
		return;
	fprintf(f, "%s %s %u", bang(r->inv), opt, r->lo);
	if (r->hi != r->lo)
		fprintf(f, ":%u", r->hi);
}

static void put_tcpf(FILE *f, u8 flags)
{
	const char *sep = " ";
	unsigned int i;

	if (!flags)
		fputs(" NONE", f);
	while (flags) {
		for (i = 0; !(flags & nfhp_tcp_flag_names[i].value); i++)
			;
		fprintf(f, "%s%s", sep, nfhp_tcp_flag_names[i].name);
		sep = ",";
		flags &= ~nfhp_tcp_flag_names[i].value;
	}
}

static void put_states(FILE *f, unsigned int bits)
{
	const char *sep = " ";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xl_states); i++) {
		if (bits & xl_states[i].bit) {
			fprintf(f, "%s%s", sep, xl_states[i].name);
			sep = ",";
		}
	}
}

/* -m icmp6 and -m hl, as ip6tables-save writes them. */
static bool put_clause6(FILE *f, const struct xl_clause *c)
{
	static const char *const hl_opt[] = { "--hl-eq", "! --hl-eq",
					      "--hl-lt", "--hl-gt" };

	if (c->kind == XK_TTL) {
		fprintf(f, " -m hl %s %u", hl_opt[c->ttl_mode], c->ttl);
		return true;
	}
	if (c->kind != XK_ICMP)
		return false;
	fprintf(f, " -m icmp6%s --icmpv6-type %u", bang(c->icmp_inv),
		c->type);
	if (c->code_lo != 0 || c->code_hi != 0xff)
		fprintf(f, "/%u", c->code_lo);
	return true;
}

static void put_clause(FILE *f, const struct xl_clause *c, bool v6)
{
	static const char *const mp_opt[] = { "--sports", "--dports",
					      "--ports" };
	static const char *const ttl_opt[] = { "--ttl-eq", "! --ttl-eq",
					       "--ttl-lt", "--ttl-gt" };
	unsigned int i;

	if (v6 && put_clause6(f, c))
		return;
	switch (c->kind) {
	case XK_TCP:
	case XK_UDP:
		fputs(c->kind == XK_TCP ? " -m tcp" : " -m udp", f);
		put_ports(f, "--sport", &c->sport);
		put_ports(f, "--dport", &c->dport);
		if (c->option)
			fprintf(f, "%s --tcp-option %u", bang(c->option_inv),
				c->option);
		if (c->has_flags) {
			fprintf(f, "%s --tcp-flags", bang(c->flags_inv));
			put_tcpf(f, c->fmask);
			put_tcpf(f, c->fcmp);
		}
		break;
	case XK_ICMP:
		fprintf(f, " -m icmp%s --icmp-type", bang(c->icmp_inv));
		if (c->type == 0xff)
			fputs(" any", f);
		else if (c->code_lo == 0 && c->code_hi == 0xff)
			fprintf(f, " %u", c->type);
		else
			fprintf(f, " %u/%u", c->type, c->code_lo);
		break;
	case XK_MULTIPORT:
		fprintf(f, " -m multiport%s %s ", bang(c->mp_inv),
			mp_opt[c->mp_dir]);
		for (i = 0; i < c->mp_n; i++) {
			fprintf(f, "%s%u", i ? "," : "", c->mp_lo[i]);
			if (c->mp_hi[i] != c->mp_lo[i])
				fprintf(f, ":%u", c->mp_hi[i]);
		}
		break;
	case XK_STATE:
	case XK_CONNTRACK:
		fprintf(f, c->kind == XK_STATE ? " -m state%s --state" :
			" -m conntrack%s --ctstate", bang(c->state_inv));
		put_states(f, c->state);
		break;
	case XK_TTL:
		fprintf(f, " -m ttl %s %u", ttl_opt[c->ttl_mode], c->ttl);
		break;
	case XK_LENGTH:
		fputs(" -m length", f);
		put_ports(f, "--length", &c->len);
		break;
	case XK_MARK:
		fprintf(f, " -m mark%s --mark 0x%x", bang(c->mark_inv),
			c->mark);
		if (c->mark_mask != ~0u)
			fprintf(f, "/0x%x", c->mark_mask);
		break;
	case XK_IPRANGE:
		fputs(" -m iprange", f);
		if (c->src.set) {
			fprintf(f, "%s --src-range ", bang(c->src.inv));
			put_addr(f, c->src.lo);
			fputc('-', f);
			put_addr(f, c->src.hi);
		}
		if (c->dst.set) {
			fprintf(f, "%s --dst-range ", bang(c->dst.inv));
			put_addr(f, c->dst.lo);
			fputc('-', f);
			put_addr(f, c->dst.hi);
		}
		break;
	case XK_COMMENT:
		fputs(" -m comment --comment", f);
		nfhp_print_save_string(f, c->comment);
		break;
	case XK_XT:
		fputs(c->xt, f);
		break;
	}
}

/* The set matches, as nf-hipac-save prints them. */
static void put_setms(FILE *f, const struct xl_state *s)
{
	unsigned int i;

	for (i = 0; i < s->ncl; i++)
		if (s->cl[i].kind == XK_SETM)
			fprintf(f, " -m set%s --match-set %s %s",
				bang(s->cl[i].setm_inv),
				nftnl_set_get_str(s->cl[i].setm->s,
						  NFTNL_SET_NAME),
				s->cl[i].setm_dst ? "dst" : "src");
}

/*
 * The matches: the IP part, the native ones, the set matches before the
 * first xtables one (see named_lookup()), the rest.
 */
static void put_matches(FILE *f, const char *chain, const struct xl_state *s)
{
	bool setms = false;
	const char *proto;
	unsigned int i;

	if (s->x->counters)
		fprintf(f, "[%llu:%llu] ", (unsigned long long)s->pkts,
			(unsigned long long)s->bytes);

	fprintf(f, "-A %s", chain);
	put_prefix(f, "-s", &s->src, view6(s));
	put_prefix(f, "-d", &s->dst, view6(s));
	if (s->iif.set)
		fprintf(f, "%s -i %s", bang(s->iif.inv), s->iif.name);
	if (s->oif.set)
		fprintf(f, "%s -o %s", bang(s->oif.inv), s->oif.name);
	if (s->proto_set) {
		proto = nfhp_proto_to_name(s->proto, true);
		if (proto)
			fprintf(f, "%s -p %s", bang(s->proto_inv), proto);
		else
			fprintf(f, "%s -p %u", bang(s->proto_inv), s->proto);
	}
	if (s->frag_set)
		fprintf(f, "%s -f", bang(s->frag_inv));
	for (i = 0; i < s->ncl; i++) {
		if (s->cl[i].kind == XK_XT && !setms) {
			put_setms(f, s);
			setms = true;
		}
		put_clause(f, &s->cl[i], view6(s));
	}
	if (!setms)
		put_setms(f, s);
}

/* Print the rule; returns the number of lines (a log and a verdict: 2). */
static unsigned int put_rule(FILE *f, const char *chain,
			     const struct xl_state *s)
{
	if (s->log[0]) {
		put_matches(f, chain, s);
		fprintf(f, " -j %s\n", s->log);
		if (s->verdict == NFT_CONTINUE)
			return 1;
	}
	put_matches(f, chain, s);
	switch (s->verdict) {
	case NF_ACCEPT:
		fputs(" -j ACCEPT", f);
		break;
	case NF_DROP:
		fputs(" -j DROP", f);
		break;
	case NFT_RETURN:
		fputs(" -j RETURN", f);
		break;
	case NFT_JUMP:
		fprintf(f, " -j %s", s->target);
		break;
	case NFT_GOTO:
		fprintf(f, " -g %s", s->target);
		break;
	case XL_VERDICT_XT:
		fprintf(f, " -j %s", s->xtarget);
		break;
	}
	fputc('\n', f);
	return s->log[0] ? 2 : 1;
}

/* --- chains ------------------------------------------------------------ */

static int add_origin(struct xl_chain *ch, const char *desc)
{
	char **p = realloc(ch->origins, (ch->norigins + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	ch->origins = p;
	p[ch->norigins] = desc ? strdup(desc) : NULL;
	if (desc && !p[ch->norigins])
		return -ENOMEM;
	ch->norigins++;
	return 0;
}

/* Mark the chain a jump goes to as part of the output. */
static int use_target(struct nfhp_xlate *x, struct xl_state *s)
{
	struct xl_chain *t;

	if (s->verdict != NFT_JUMP && s->verdict != NFT_GOTO)
		return 0;
	t = find_chain(x, s->target);
	if (!t || t->base)
		return xl_fail(s, "a jump to %s, not a regular chain",
			       s->target);
	t->used = true;
	return 0;
}

/* The named sets of the rule's set matches are part of the output. */
static void use_sets(struct xl_state *s)
{
	unsigned int i;

	for (i = 0; i < s->ncl; i++)
		if (s->cl[i].kind == XK_SETM)
			s->cl[i].setm->used = true;
}

/* Translate rule @pos of @ch, every expansion of it, into @f. */
static int xlate_rule(struct nfhp_xlate *x, struct xl_chain *ch,
		      unsigned int pos, FILE *f, char *err, size_t errlen)
{
	struct nftnl_rule *r = ch->rules[pos];
	unsigned int choice[XL_MAX_EXPAND] = { 0 };
	unsigned long copies = 0;
	bool skipped = false;
	struct xl_state *s;
	char desc[160];
	int k, ret = 0;

	snprintf(desc, sizeof(desc), "rule %u of chain %s (handle %llu)",
		 pos + 1, ch->name,
		 (unsigned long long)nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE));
	/* What a takeover left is no rule of the user's: noted, not loaded. */
	if (takeover_mark(r)) {
		ch->marked = true;
		fprintf(f, "# %s is the mark of an earlier nf-hipac import --takeover: not imported\n",
			desc);
		if (add_origin(ch, NULL)) {
			snprintf(err, errlen, "out of memory");
			return NFHP_EXIT_RESOURCE;
		}
		return 0;
	}
	s = malloc(sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NFHP_EXIT_RESOURCE;
	}
	for (;;) {
		memset(s, 0, sizeof(*s));
		s->x = x;
		s->choice = choice;
		if (interp(s, r) || use_target(x, s)) {
			snprintf(err, errlen, "%s: %s", desc, s->err);
			ret = NFHP_EXIT_PARAM;
			break;
		}
		if (copies) {	/* one counter for all copies: the first */
			s->pkts = 0;
			s->bytes = 0;
		}
		if (s->other) {
			skipped = true;
		} else {
			unsigned int n = put_rule(f, ch->ipt, s);

			use_sets(s);
			while (n--) {
				x->nrules++;
				if (add_origin(ch, desc)) {
					snprintf(err, errlen, "out of memory");
					ret = NFHP_EXIT_RESOURCE;
					break;
				}
			}
			if (ret)
				break;
		}
		if (++copies > XL_MAX_COPIES) {
			snprintf(err, errlen, "%s: expands into more than %d rules",
				 desc, XL_MAX_COPIES);
			ret = NFHP_EXIT_PARAM;
			break;
		}
		/* The next combination of set elements, if any. */
		for (k = (int)s->nexp - 1; k >= 0; k--) {
			if (++choice[k] < s->nalt[k])
				break;
			choice[k] = 0;
		}
		if (k < 0)
			break;
	}
	if (!ret && skipped) {
		fprintf(f, "# %s matches %s only: not imported\n", desc,
			x->view == NFPROTO_IPV6 ? "IPv4" : "IPv6");
		x->nskipped++;
		if (add_origin(ch, NULL))
			ret = NFHP_EXIT_RESOURCE;
	}
	free(s);
	return ret;
}

static int xlate_chain(struct nfhp_xlate *x, struct xl_chain *ch, char *err,
		       size_t errlen)
{
	FILE *f = open_memstream(&ch->text, &ch->ntext);
	unsigned int i;
	int ret = 0;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NFHP_EXIT_RESOURCE;
	}
	for (i = 0; !ret && i < ch->nrules; i++)
		ret = xlate_rule(x, ch, i, f, err, errlen);
	if (fclose(f) && !ret) {
		snprintf(err, errlen, "out of memory");
		ret = NFHP_EXIT_RESOURCE;
	}
	ch->done = true;
	return ret;
}

/* Base chains must be filter chains at input, forward or output. */
static int check_base(struct nfhp_xlate *x, struct xl_chain *ch, char *err,
		      size_t errlen)
{
	const char *type = nftnl_chain_get_str(ch->c, NFTNL_CHAIN_TYPE);
	u32 hook = nftnl_chain_get_u32(ch->c, NFTNL_CHAIN_HOOKNUM);
	int prio = (int)nftnl_chain_get_u32(ch->c, NFTNL_CHAIN_PRIO);
	unsigned int i;

	if (!hook_chain(hook)) {
		snprintf(err, errlen,
			 "base chain %s: hook %u, nf-hipac filters at input, forward and output only",
			 ch->name, hook);
		return NFHP_EXIT_PARAM;
	}
	if (type && strcmp(type, "filter")) {
		snprintf(err, errlen,
			 "base chain %s: type %s, nf-hipac is a filter",
			 ch->name, type);
		return NFHP_EXIT_PARAM;
	}
	if (prio != 0) {
		snprintf(err, errlen,
			 "base chain %s: priority %d, nf-hipac hooks at priority filter (0)",
			 ch->name, prio);
		return NFHP_EXIT_PARAM;
	}
	for (i = 0; i < x->nchains; i++) {
		struct xl_chain *o = &x->chains[i];

		if (o != ch && o->base && !strcmp(o->ipt, ch->ipt)) {
			snprintf(err, errlen,
				 "base chains %s and %s share hook %s",
				 ch->name, o->name, ch->ipt);
			return NFHP_EXIT_PARAM;
		}
		if (!o->base && !strcmp(o->name, ch->ipt)) {
			snprintf(err, errlen,
				 "regular chain %s has the name of a built-in chain",
				 o->name);
			return NFHP_EXIT_PARAM;
		}
	}
	return 0;
}

static int chain_order(const void *a, const void *b)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	const struct xl_chain *x = *(struct xl_chain *const *)a;
	const struct xl_chain *y = *(struct xl_chain *const *)b;
	int i, rx = 3, ry = 3;

	for (i = 0; i < 3; i++) {
		if (x->base && !strcmp(x->ipt, builtin[i]))
			rx = i;
		if (y->base && !strcmp(y->ipt, builtin[i]))
			ry = i;
	}
	if (rx != ry)
		return rx - ry;
	return strcmp(x->ipt, y->ipt);
}

static int select_chains(struct nfhp_xlate *x, const char *only, char *err,
			 size_t errlen)
{
	unsigned int i;
	int ret;

	for (i = 0; i < x->nchains; i++) {
		struct xl_chain *ch = &x->chains[i];

		if (only && strcmp(ch->name, only) &&
		    !(ch->base && !strcmp(ch->ipt, only)))
			continue;
		if (only && !ch->base) {
			snprintf(err, errlen, "chain %s is not a base chain",
				 only);
			return NFHP_EXIT_PARAM;
		}
		if (ch->base) {
			ret = check_base(x, ch, err, errlen);
			if (ret)
				return ret;
		}
		ch->used = true;
	}
	for (i = 0; only && i < x->nchains; i++)
		if (x->chains[i].used)
			return 0;
	if (only) {
		snprintf(err, errlen, "no base chain %s in table %s", only,
			 x->table);
		return NFHP_EXIT_OTHER;
	}
	return 0;
}

static void put_header(FILE *f, const struct nfhp_xlate *x,
		       const struct xl_chain *ch, const char *name)
{
	unsigned long long p = 0, b = 0;

	if (ch && ch->base && x->counters &&
	    nftnl_chain_is_set(ch->c, NFTNL_CHAIN_PACKETS)) {
		p = nftnl_chain_get_u64(ch->c, NFTNL_CHAIN_PACKETS);
		b = nftnl_chain_get_u64(ch->c, NFTNL_CHAIN_BYTES);
	}
	if (ch && !ch->base)
		fprintf(f, ":%s - [0:0]\n", name);
	else
		fprintf(f, ":%s %s [%llu:%llu]\n", name,
			ch && ch->drop ? "DROP" : "ACCEPT", p, b);
}

void nfhp_xlate_set_counters(struct nfhp_xlate *x, bool on)
{
	x->counters = on;
}

int nfhp_xlate_save(struct nfhp_xlate *x, const char *only_chain, FILE *out,
		    char *err, size_t errlen)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	unsigned long line = 0, need;
	unsigned int i, j;
	bool again;
	int ret;

	xlate_reset(x);
	ret = select_chains(x, only_chain, err, errlen);
	if (ret)
		return ret;
	/* Translate what is used until no jump adds another chain. */
	do {
		again = false;
		for (i = 0; i < x->nchains; i++) {
			struct xl_chain *ch = &x->chains[i];

			if (!ch->used || ch->done)
				continue;
			ret = xlate_chain(x, ch, err, errlen);
			if (ret)
				return ret;
			again = true;
		}
	} while (again);

	x->order = calloc(x->nchains + 1, sizeof(*x->order));
	if (!x->order)
		goto nomem;
	for (i = 0; i < x->nchains; i++)
		if (x->chains[i].used)
			x->order[x->norder++] = &x->chains[i];
	qsort(x->order, x->norder, sizeof(*x->order), chain_order);

	/* Line numbers from 1: comment, *filter, headers, flushes, rules. */
	need = 3 + 3 + 2 * x->norder + 1;
	for (i = 0; i < x->norder; i++)
		need += x->order[i]->norigins;
	x->origins = calloc(need, sizeof(*x->origins));
	if (!x->origins)
		goto nomem;

	fprintf(out, "# Generated by nf-hipac import from nft table %s %s%s\n",
		x->family == NFPROTO_INET ? "inet" :
		x->family == NFPROTO_IPV6 ? "ip6" : "ip", x->table,
		x->family != NFPROTO_INET ? "" :
		x->view == NFPROTO_IPV6 ? ", IPv6 rules" : ", IPv4 rules");
	fputs("*filter\n", out);
	line = 2;
	/* A full import lays down all three built-in chains, in order. */
	for (i = 0; !only_chain && i < 3; i++) {
		bool found = false;

		for (j = 0; j < x->norder; j++)
			found |= x->order[j]->base &&
				 !strcmp(x->order[j]->ipt, builtin[i]);
		if (!found) {
			put_header(out, x, NULL, builtin[i]);
			line++;
		}
		for (j = 0; j < x->norder; j++) {
			if (x->order[j]->base &&
			    !strcmp(x->order[j]->ipt, builtin[i])) {
				put_header(out, x, x->order[j], builtin[i]);
				line++;
			}
		}
	}
	for (i = 0; i < x->norder; i++) {
		if (only_chain || !x->order[i]->base) {
			put_header(out, x, x->order[i], x->order[i]->ipt);
			line++;
		}
	}
	/* Restore --noflush keeps a built-in chain's rules: flush them. */
	for (i = 0; only_chain && i < x->norder; i++) {
		if (x->order[i]->base) {
			fprintf(out, "-F %s\n", x->order[i]->ipt);
			line++;
		}
	}
	for (i = 0; i < x->norder; i++) {
		struct xl_chain *ch = x->order[i];

		fwrite(ch->text, 1, ch->ntext, out);
		for (j = 0; j < ch->norigins; j++)
			x->origins[++line] = ch->origins[j];
	}
	fputs("COMMIT\n", out);
	x->norigins = line + 1;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return NFHP_EXIT_RESOURCE;
}

const char *nfhp_xlate_line_origin(const struct nfhp_xlate *x,
				   unsigned long line, char *buf, size_t len)
{
	const char *o = line && line <= x->norigins && x->origins ?
			x->origins[line] : NULL;

	snprintf(buf, len, "%s", o ? o : "");
	return buf;
}

const char *nfhp_xlate_source(const struct nfhp_xlate *x, unsigned int i,
			      bool *base, bool *policy_drop)
{
	if (i >= x->norder)
		return NULL;
	*base = x->order[i]->base;
	*policy_drop = x->order[i]->drop;
	return x->order[i]->name;
}

bool nfhp_xlate_source_marked(const struct nfhp_xlate *x, unsigned int i)
{
	return i < x->norder && x->order[i]->marked;
}

unsigned int nfhp_xlate_nrules(const struct nfhp_xlate *x)
{
	return x->nrules;
}

unsigned int nfhp_xlate_nskipped(const struct nfhp_xlate *x)
{
	return x->nskipped;
}

const struct nftnl_set *nfhp_xlate_named_set(const struct nfhp_xlate *x,
					     unsigned int i)
{
	unsigned int k;

	for (k = 0; k < x->nsets; k++)
		if (x->sets[k].used && !i--)
			return x->sets[k].s;
	return NULL;
}
