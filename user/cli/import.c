// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac import: take over the live nftables rule set of this netns.
 *
 * The table (by default "ip filter", the one iptables-nft writes, and for
 * nf-hipac6 "ip6 filter", ip6tables-nft's) is read over NETLINK_NETFILTER
 * with libnftnl: its chains, its sets with their elements and its rules,
 * between two reads of the generation id so that the snapshot is
 * consistent.  lib/nft_xlate.c turns it into iptables-save text for the
 * IPv4 rule set (table ip) or ip6tables-save text for the IPv6 one (table
 * ip6); an inet table gives both, each family's view of it.  Each text is
 * checked with the parser that nf-hipac-restore uses, so a rule nf-hipac
 * cannot take is refused (exit 2), and sent into one nf-hipac transaction
 * (restore_part()), which commits both rule sets or neither; the named
 * sets its set matches refer to go first, as the set lines of
 * nf-hipac-save (import_sets.c).  --print shows the text instead.
 * --takeover then flushes the nft chains in one nft batch that only
 * applies if the nft rule set is still the one that was read: in between
 * both filters hold the same rules, so no packet is ever unfiltered.  With --ipv4-only an inet table gives its IPv4 view
 * alone and is not flushed, it still filters IPv6: its base chains get
 * "meta nfproto ipv4 accept" in front instead.
 *
 * libxtables serves one family per process (lib/xt.c), and the parser
 * needs it for every match and target that is not native (-j REJECT,
 * -m limit...), as the translation does for the xt blobs of iptables-nft.
 * So the IPv6 view of an inet table is translated, checked and sent by a
 * child forked before this process sets libxtables up for IPv4; it sends
 * on the inherited nf-hipac socket, within the same transaction, while
 * the parent waits, and passes its counts (and, for --print, its text)
 * back through a pipe.
 *
 * The same batch marks each base chain it takes over with a rule that
 * carries NFHP_TAKEOVER_MARK as its comment (or, the inet accept,
 * NFHP_TAKEOVER_MARK_IPV4), so that the mark goes with the chain's rules:
 * a later flush or iptables-nft-restore removes it.  An import refuses,
 * without --force, a table whose chains carry it, and one without rules:
 * either would replace the nf-hipac rule set with an emptier one by
 * accident.
 */
#include "subcommands.h"
#include "nft_xlate.h"
#include "xt.h"
#include <getopt.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <libnftnl/batch.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/gen.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <libnftnl/udata.h>

#define IMPORT_PROG	"nf-hipac import"
#define IMPORT_RETRIES	10

/**
 * struct import_opts - the command line of nf-hipac import
 * @takeover: --takeover
 * @dry_run: --dry-run
 * @print: --print
 * @verbose: --verbose
 * @counters: --counters
 * @force: --force
 * @ipv4_only: --ipv4-only: of an inet table, the IPv4 view alone
 * @family: NFPROTO_IPV4, NFPROTO_IPV6 or NFPROTO_INET
 * @table: the nft table
 * @chain: --chain, NULL for the whole table
 */
struct import_opts {
	bool takeover, dry_run, print, verbose, counters, force, ipv4_only;
	int family;
	const char *table;
	const char *chain;
};

/**
 * struct nft_sock - a NETLINK_NETFILTER socket
 * @nl: the socket
 * @portid: its port id
 * @seq: the last sequence number used
 * @buf: requests and answers
 */
struct nft_sock {
	struct mnl_socket *nl;
	u32 portid;
	u32 seq;
	char buf[1 << 16];
};

/**
 * struct dump_ctx - what the dump callbacks fill
 * @x: the translation
 * @sets: the table's sets, before their elements are read
 * @nsets: their number
 * @genid: the generation id (NFT_MSG_GETGEN)
 * @err: an allocation failed
 */
struct dump_ctx {
	struct nfhp_xlate *x;
	struct nftnl_set **sets;
	unsigned int nsets;
	u32 genid;
	int err;
};

/**
 * struct view_out - the import of one family's view of the table
 * @view: NFPROTO_IPV4 or NFPROTO_IPV6
 * @ret: its exit code
 * @nrules: the rules written
 * @nskipped: the nft rules left out as of the other family only
 * @text: the text, for --print
 * @len: its length
 */
struct view_out {
	int view;
	int ret;
	unsigned int nrules, nskipped;
	char *text;
	size_t len;
};

static const char *family_name(int family)
{
	return family == NFPROTO_INET ? "inet" :
	       family == NFPROTO_IPV6 ? "ip6" : "ip";
}

/* The nf-hipac rule set of an nft view. */
static u8 hipac_family(int view)
{
	return view == NFPROTO_IPV6 ? NFHP_FAMILY_IPV6 : NFHP_FAMILY_IPV4;
}

/* --- reading ------------------------------------------------------------ */

static int nft_open(struct nft_sock *s)
{
	s->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!s->nl)
		return -errno;
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		mnl_socket_close(s->nl);
		s->nl = NULL;
		return err;
	}
	s->portid = mnl_socket_get_portid(s->nl);
	s->seq = time(NULL);
	return 0;
}

/* Does the answer in s->buf hold the end of a dump? */
static bool dump_done(const struct nft_sock *s, int len)
{
	const struct nlmsghdr *nlh = (const void *)s->buf;

	for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len))
		if (nlh->nlmsg_type == NLMSG_DONE ||
		    nlh->nlmsg_type == NLMSG_ERROR)
			return true;
	return false;
}

/*
 * Send the request in s->buf and feed every answer to cb until the end.
 * A dump the kernel marks interrupted (the rule set changed under it) is
 * read to its end, so that nothing stale stays on the socket: -EINTR.
 */
static int nft_talk(struct nft_sock *s, struct nlmsghdr *nlh, mnl_cb_t cb,
		    void *data)
{
	bool intr = false;
	int len, ret;

	if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		len = mnl_socket_recvfrom(s->nl, s->buf, sizeof(s->buf));
		if (len < 0)
			return -errno;
		ret = intr ? MNL_CB_OK : mnl_cb_run(s->buf, len, s->seq,
						    s->portid, cb, data);
		if (ret < 0 && errno == EINTR)
			intr = true;
		else if (ret < 0)
			return -errno;
		if (intr && dump_done(s, len))
			return -EINTR;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

static int gen_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;
	struct nftnl_gen *g = nftnl_gen_alloc();

	if (!g || nftnl_gen_nlmsg_parse(nlh, g) < 0) {
		nftnl_gen_free(g);
		return MNL_CB_ERROR;
	}
	ctx->genid = nftnl_gen_get_u32(g, NFTNL_GEN_ID);
	nftnl_gen_free(g);
	return MNL_CB_OK;
}

static int chain_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;
	struct nftnl_chain *c = nftnl_chain_alloc();

	if (!c || nftnl_chain_nlmsg_parse(nlh, c) < 0) {
		nftnl_chain_free(c);
		return MNL_CB_ERROR;
	}
	if (nfhp_xlate_add_chain(ctx->x, c))
		ctx->err = -ENOMEM;
	return MNL_CB_OK;
}

static int set_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;
	struct nftnl_set *s = nftnl_set_alloc();
	void *p;

	if (!s || nftnl_set_nlmsg_parse(nlh, s) < 0) {
		nftnl_set_free(s);
		return MNL_CB_ERROR;
	}
	p = realloc(ctx->sets, (ctx->nsets + 1) * sizeof(*ctx->sets));
	if (!p) {
		nftnl_set_free(s);
		ctx->err = -ENOMEM;
		return MNL_CB_OK;
	}
	ctx->sets = p;
	ctx->sets[ctx->nsets++] = s;
	return MNL_CB_OK;
}

static int elem_cb(const struct nlmsghdr *nlh, void *data)
{
	return nftnl_set_elems_nlmsg_parse(nlh, data) < 0 ? MNL_CB_ERROR :
							    MNL_CB_OK;
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;
	struct nftnl_rule *r = nftnl_rule_alloc();

	if (!r || nftnl_rule_nlmsg_parse(nlh, r) < 0) {
		nftnl_rule_free(r);
		return MNL_CB_ERROR;
	}
	if (nfhp_xlate_add_rule(ctx->x, r))
		ctx->err = -ENOMEM;
	return MNL_CB_OK;
}

static int get_genid(struct nft_sock *s, struct dump_ctx *ctx)
{
	struct nlmsghdr *nlh;

	nlh = nftnl_nlmsg_build_hdr(s->buf, NFT_MSG_GETGEN, AF_UNSPEC,
				    NLM_F_ACK, ++s->seq);
	return nft_talk(s, nlh, gen_cb, ctx);
}

/* Does table @name of @family exist?  0, -ENOENT or -errno. */
static int find_table(struct nft_sock *s, int family, const char *name)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;
	int ret;

	if (!t)
		return -ENOMEM;
	nlh = nftnl_nlmsg_build_hdr(s->buf, NFT_MSG_GETTABLE, family,
				    NLM_F_ACK, ++s->seq);
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, name);
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	ret = nft_talk(s, nlh, NULL, NULL);
	return ret;
}

static int dump_sets(struct nft_sock *s, struct dump_ctx *ctx,
		     const struct import_opts *o)
{
	struct nftnl_set *req = nftnl_set_alloc();
	struct nlmsghdr *nlh;
	unsigned int i;
	int ret;

	if (!req)
		return -ENOMEM;
	nlh = nftnl_nlmsg_build_hdr(s->buf, NFT_MSG_GETSET, o->family,
				    NLM_F_DUMP, ++s->seq);
	nftnl_set_set_str(req, NFTNL_SET_TABLE, o->table);
	nftnl_set_nlmsg_build_payload(nlh, req);
	nftnl_set_free(req);
	ret = nft_talk(s, nlh, set_cb, ctx);
	for (i = 0; !ret && i < ctx->nsets; i++) {
		nlh = nftnl_nlmsg_build_hdr(s->buf, NFT_MSG_GETSETELEM,
					    o->family, NLM_F_DUMP, ++s->seq);
		nftnl_set_elems_nlmsg_build_payload(nlh, ctx->sets[i]);
		ret = nft_talk(s, nlh, elem_cb, ctx->sets[i]);
	}
	for (i = 0; i < ctx->nsets; i++) {
		if (!ret && nfhp_xlate_add_set(ctx->x, ctx->sets[i]))
			ret = -ENOMEM;
		else if (ret)
			nftnl_set_free(ctx->sets[i]);
	}
	free(ctx->sets);
	ctx->sets = NULL;
	ctx->nsets = 0;
	return ret;
}

static int dump_table(struct nft_sock *s, struct dump_ctx *ctx,
		      const struct import_opts *o)
{
	struct nftnl_rule *req;
	struct nlmsghdr *nlh;
	int ret;

	nlh = nftnl_nlmsg_build_hdr(s->buf, NFT_MSG_GETCHAIN, o->family,
				    NLM_F_DUMP, ++s->seq);
	ret = nft_talk(s, nlh, chain_cb, ctx);
	if (!ret)
		ret = dump_sets(s, ctx, o);
	if (ret)
		return ret;
	req = nftnl_rule_alloc();
	if (!req)
		return -ENOMEM;
	nlh = nftnl_nlmsg_build_hdr(s->buf, NFT_MSG_GETRULE, o->family,
				    NLM_F_DUMP, ++s->seq);
	nftnl_rule_set_str(req, NFTNL_RULE_TABLE, o->table);
	nftnl_rule_nlmsg_build_payload(nlh, req);
	nftnl_rule_free(req);
	ret = nft_talk(s, nlh, rule_cb, ctx);
	return ret ? ret : ctx->err;
}

/*
 * Read the table into a new translation, again if the rule set changed
 * while it was read.  Returns 0 or an exit code after saying why.
 */
static int read_table(struct nft_sock *s, const struct import_opts *o,
		      struct nfhp_xlate **xp, u32 *genid)
{
	struct dump_ctx ctx = { };
	unsigned int tries;
	u32 gen;
	int ret;

	ret = find_table(s, o->family, o->table);
	if (ret == -ENOENT) {
		fprintf(stderr, "%s: no nft table %s %s\n", IMPORT_PROG,
			family_name(o->family), o->table);
		return NFHP_EXIT_OTHER;
	}
	for (tries = 0; !ret && tries < IMPORT_RETRIES; tries++) {
		ret = get_genid(s, &ctx);
		if (ret)
			break;
		gen = ctx.genid;
		ctx.x = nfhp_xlate_alloc(o->family, o->table);
		if (!ctx.x) {
			ret = -ENOMEM;
			break;
		}
		ret = dump_table(s, &ctx, o);
		if (!ret)
			ret = get_genid(s, &ctx);
		if (!ret && ctx.genid == gen) {
			*xp = ctx.x;
			*genid = gen;
			return 0;
		}
		if (ret == -EINTR)	/* NLM_F_DUMP_INTR: changed meanwhile */
			ret = 0;
		nfhp_xlate_free(ctx.x);
		ctx.x = NULL;
		ctx.err = 0;
	}
	if (!ret)
		ret = -EAGAIN;
	fprintf(stderr, "%s: cannot read nft table %s %s: %s\n", IMPORT_PROG,
		family_name(o->family), o->table,
		ret == -EAGAIN ? "it keeps changing" : strerror(-ret));
	return ret == -ENOMEM ? NFHP_EXIT_RESOURCE : NFHP_EXIT_OTHER;
}

/* --- checking and loading ------------------------------------------------ */

/* Parse the text as nf-hipac-restore will; name the nft rule on failure. */
static int check_text(const struct nfhp_xlate *x, int view, char *text,
		      size_t len)
{
	static const struct nfhp_restore_ops ops = { };
	char err[256] = "", origin[160], *rule = NULL;
	unsigned long line = 0;
	FILE *f = fmemopen(text, len, "r");
	int ret;

	if (!f) {
		fprintf(stderr, "%s: out of memory\n", IMPORT_PROG);
		return NFHP_EXIT_RESOURCE;
	}
	ret = nfhp_parse_save_stream(f, hipac_family(view), &ops, NULL, err,
				     sizeof(err));
	fclose(f);
	if (!ret)
		return 0;
	if (sscanf(err, "line %lu", &line) == 1) {
		unsigned long n = 1;
		char *p = text;

		while (n < line && (p = memchr(p, '\n', text + len - p))) {
			p++;
			n++;
		}
		if (p && n == line)
			rule = strndup(p, strcspn(p, "\n"));
	}
	nfhp_xlate_line_origin(x, line, origin, sizeof(origin));
	fprintf(stderr, "%s: %s%snf-hipac cannot take `%s': %s\n", IMPORT_PROG,
		origin, origin[0] ? ": " : "", rule ? rule : "?", err);
	free(rule);
	return ret;
}

static void restore_opts_of(const struct import_opts *o,
			    struct restore_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->noflush = o->chain != NULL;
	ro->test = o->dry_run;
	ro->verbose = o->verbose;
	ro->counters = o->counters;
}

/* --- checking the source -------------------------------------------- */

/*
 * Refuse, unless --force, a source that would replace the nf-hipac rule
 * set with an emptier one by accident: a table an earlier --takeover
 * marked (its rules are in nf-hipac already, what is left is accept
 * policies and, in an inet table, the accept in front), or one without
 * a rule to import.  Returns 0 or NFHP_EXIT_OTHER after saying why.
 */
static int check_source(const struct nfhp_xlate *x,
			const struct import_opts *o, unsigned int nrules)
{
	const char *name;
	bool base, drop;
	unsigned int i;

	if (o->force)
		return 0;
	for (i = 0; (name = nfhp_xlate_source(x, i, &base, &drop)); i++) {
		if (!nfhp_xlate_source_marked(x, i))
			continue;
		fprintf(stderr,
			"%s: nft chain %s of %s %s carries the mark of an earlier `nf-hipac import --takeover': its rules were moved to nf-hipac, and importing what is left would replace them.  Nothing changed; --force imports it all the same.\n",
			IMPORT_PROG, name, family_name(o->family), o->table);
		return NFHP_EXIT_OTHER;
	}
	if (nrules)
		return 0;
	fprintf(stderr,
		"%s: nft table %s %s has no rules to import%s%s%s: nf-hipac would be left with the policies alone.  Nothing changed; --force imports it all the same.\n",
		IMPORT_PROG, family_name(o->family), o->table,
		o->chain ? " (chain " : "", o->chain ? o->chain : "",
		o->chain ? " and the chains it reaches)" : "");
	return NFHP_EXIT_OTHER;
}

/* --- takeover --------------------------------------------------------- */

static void batch_next(struct mnl_nlmsg_batch *b)
{
	if (!mnl_nlmsg_batch_next(b)) {
		/* The buffer holds hundreds of small requests: not reached. */
		fprintf(stderr, "%s: nft batch too large\n", IMPORT_PROG);
		exit(NFHP_EXIT_RESOURCE);
	}
}

/* Give @r the comment that marks a takeover (NFHP_TAKEOVER_MARK...). */
static int set_mark(struct nftnl_rule *r, const char *mark)
{
	struct nftnl_udata_buf *u = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
	int ret = -ENOMEM;

	if (u && nftnl_udata_put_strz(u, NFTNL_UDATA_RULE_COMMENT, mark))
		ret = nftnl_rule_set_data(r, NFTNL_RULE_USERDATA,
					  nftnl_udata_buf_data(u),
					  nftnl_udata_buf_len(u));
	nftnl_udata_buf_free(u);
	return ret;
}

/*
 * Queue the mark of a taken-over base chain: a rule that only counts and
 * lets every packet on to the next rule, nft's "counter comment ...".
 * Not a rule of no expressions: nft prints that as a bare comment, which
 * nft -f reads back as the chain's.  Returns the requests queued.
 */
static unsigned int queue_mark(struct mnl_nlmsg_batch *b, u32 *seq,
			       const struct import_opts *o, const char *name)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nftnl_expr *counter = nftnl_expr_alloc("counter");
	struct nlmsghdr *nlh;

	if (!r || !counter || set_mark(r, NFHP_TAKEOVER_MARK)) {
		nftnl_rule_free(r);
		nftnl_expr_free(counter);
		return 0;
	}
	nftnl_rule_add_expr(r, counter);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, o->table);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, name);
	nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b),
				    NFT_MSG_NEWRULE, o->family,
				    NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK,
				    ++*seq);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	batch_next(b);
	return 1;
}

/*
 * Queue the flush of chain @name (and, for a base chain that drops, its
 * policy to accept, else it would drop everything).  Returns the number
 * of acknowledged requests queued.
 */
static unsigned int queue_flush(struct mnl_nlmsg_batch *b, u32 *seq,
				const struct import_opts *o, const char *name,
				bool base, bool drop)
{
	struct nlmsghdr *nlh;
	struct nftnl_chain *c;
	struct nftnl_rule *r;
	unsigned int n = 0;

	r = nftnl_rule_alloc();
	if (!r)
		return 0;
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, o->table);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, name);
	nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b),
				    NFT_MSG_DELRULE, o->family, NLM_F_ACK,
				    ++*seq);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	batch_next(b);
	n++;
	if (!base || !drop)
		return n;
	c = nftnl_chain_alloc();
	if (!c)
		return n;
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, o->table);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
	nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b),
				    NFT_MSG_NEWCHAIN, o->family, NLM_F_ACK,
				    ++*seq);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	nftnl_chain_free(c);
	batch_next(b);
	return n + 1;
}

static struct nftnl_expr *expr_u8_cmp(u8 v)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	if (!e)
		return NULL;
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, &v, sizeof(v));
	return e;
}

/*
 * --ipv4-only: an inet base chain still filters IPv6, which was not
 * imported: rather than flushed, it gets "meta nfproto ipv4 accept" in
 * front, so IPv4 goes on to nf-hipac and IPv6 keeps its rules.  The rule
 * is the chain's mark too.  Returns the requests queued.
 */
static unsigned int queue_ipv4_accept(struct mnl_nlmsg_batch *b, u32 *seq,
				      const struct import_opts *o,
				      const char *name)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nftnl_expr *meta = nftnl_expr_alloc("meta");
	struct nftnl_expr *cmp = expr_u8_cmp(NFPROTO_IPV4);
	struct nftnl_expr *imm = nftnl_expr_alloc("immediate");
	struct nlmsghdr *nlh;

	if (!r || !meta || !cmp || !imm || set_mark(r, NFHP_TAKEOVER_MARK_IPV4)) {
		nftnl_rule_free(r);
		nftnl_expr_free(meta);
		nftnl_expr_free(cmp);
		nftnl_expr_free(imm);
		return 0;
	}
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, o->table);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, name);
	nftnl_expr_set_u32(meta, NFTNL_EXPR_META_KEY, NFT_META_NFPROTO);
	nftnl_expr_set_u32(meta, NFTNL_EXPR_META_DREG, NFT_REG_1);
	nftnl_rule_add_expr(r, meta);
	nftnl_rule_add_expr(r, cmp);
	nftnl_expr_set_u32(imm, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(imm, NFTNL_EXPR_IMM_VERDICT, NF_ACCEPT);
	nftnl_rule_add_expr(r, imm);
	/* No NLM_F_APPEND and no position: the rule goes first. */
	nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b),
				    NFT_MSG_NEWRULE, o->family,
				    NLM_F_CREATE | NLM_F_ACK, ++*seq);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	batch_next(b);
	return 1;
}

/*
 * The kernel handles a batch inside sendmsg(): every answer is queued on
 * the socket when it returns.  Count the acks, keep the first error.
 */
static int batch_answers(struct nft_sock *s, unsigned int expected)
{
	unsigned int acks = 0;
	int first = 0;
	ssize_t n;

	while ((n = recv(mnl_socket_get_fd(s->nl), s->buf, sizeof(s->buf),
			 MSG_DONTWAIT)) > 0) {
		const struct nlmsghdr *nlh = (const void *)s->buf;
		int len = n;

		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct nlmsgerr *e;

			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			if (e->error && !first)
				first = e->error;
			else if (!e->error)
				acks++;
		}
	}
	if (first)
		return first;
	return acks == expected ? 0 : -EPROTO;
}

static int takeover(struct nft_sock *s, const struct nfhp_xlate *x,
		    const struct import_opts *o, u32 genid)
{
	size_t size = 1 << 20;
	char *buf = malloc(size);
	struct mnl_nlmsg_batch *b;
	unsigned int i, expected = 0;
	struct nlmsghdr *nlh;
	const char *name;
	bool base, drop, tried = false;
	u32 seq = s->seq;
	int ret;

	if (!nfhp_xlate_source(x, 0, &base, &drop)) {	/* no chains */
		free(buf);
		return NFHP_EXIT_OK;
	}
	b = buf ? mnl_nlmsg_batch_start(buf, size) : NULL;
	if (!b) {
		free(buf);
		fprintf(stderr, "%s: out of memory\n", IMPORT_PROG);
		return NFHP_EXIT_RESOURCE;
	}
	nlh = nftnl_batch_begin(mnl_nlmsg_batch_current(b), ++seq);
	/* Refused with ERESTART if the rule set changed since it was read. */
	mnl_attr_put_u32(nlh, NFNL_BATCH_GENID, htonl(genid));
	batch_next(b);
	for (i = 0; (name = nfhp_xlate_source(x, i, &base, &drop)); i++) {
		/* --force again: the accept in front is there already. */
		if (o->ipv4_only) {
			if (base && !nfhp_xlate_source_marked(x, i)) {
				expected += queue_ipv4_accept(b, &seq, o, name);
				tried = true;
			}
			continue;
		}
		/* --chain: user chains may serve other base chains too. */
		if (o->chain && !base)
			continue;
		expected += queue_flush(b, &seq, o, name, base, drop);
		if (base)
			expected += queue_mark(b, &seq, o, name);
		tried = true;
	}
	if (!tried) {
		mnl_nlmsg_batch_stop(b);
		free(buf);
		return NFHP_EXIT_OK;
	}
	nftnl_batch_end(mnl_nlmsg_batch_current(b), ++seq);
	batch_next(b);
	s->seq = seq;
	if (mnl_socket_sendto(s->nl, mnl_nlmsg_batch_head(b),
			      mnl_nlmsg_batch_size(b)) < 0)
		ret = -errno;
	else
		ret = expected ? batch_answers(s, expected) : -ENOMEM;
	mnl_nlmsg_batch_stop(b);
	free(buf);
	if (!ret)
		return NFHP_EXIT_OK;
	if (ret == -ERESTART)
		fprintf(stderr,
			"%s: nf-hipac now holds the rules, but the nft rule set changed after it was read, so the nft chains of %s %s were NOT flushed; both filter now.  Run the import again.\n",
			IMPORT_PROG, family_name(o->family), o->table);
	else
		fprintf(stderr,
			"%s: nf-hipac now holds the rules, but flushing the nft chains of %s %s failed: %s; both filter now\n",
			IMPORT_PROG, family_name(o->family), o->table,
			strerror(-ret));
	return NFHP_EXIT_OTHER;
}

/* --- command line --------------------------------------------------------- */

static void import_usage(FILE *f)
{
	fprintf(f,
		"Usage: nf-hipac import [--takeover] [--table FAMILY:NAME] [--chain NAME]\n"
		"                       [--dry-run|--print] [--counters] [--force]\n"
		"                       [--ipv4-only] [--verbose]\n"
		"       nf-hipac6 import ... (default table ip6:filter)\n"
		"  Load the live nftables table (default ip:filter, the table of\n"
		"  iptables-nft) into nf-hipac, replacing its rule set: ip into the\n"
		"  IPv4 rule set, ip6 into the IPv6 one, inet into both at once.\n"
		"  -T, --takeover      then flush the nft chains (one nft batch)\n"
		"  -t, --table F:NAME  the nft table; FAMILY ip, ip6 or inet\n"
		"                      (\"F NAME\" as nft writes it does too)\n"
		"  -c, --chain NAME    only this base chain and the chains it reaches\n"
		"  -4, --ipv4-only     inet: the IPv4 rules alone; --takeover lets\n"
		"                      IPv4 through the chains, IPv6 stays with nft\n"
		"  -n, --dry-run       check everything with the kernel, change nothing\n"
		"  -p, --print         print the rules as iptables-save text (inet:\n"
		"                      the IPv4 text, then the ip6tables-save text),\n"
		"                      load nothing\n"
		"  -C, --counters      carry the nft rule counters over\n"
		"  -f, --force         import a table without rules, or one an earlier\n"
		"                      --takeover marked, all the same\n"
		"  -v, --verbose       say what was done\n");
}

static const struct option import_options[] = {
	{ "takeover", no_argument, NULL, 'T' },
	{ "table", required_argument, NULL, 't' },
	{ "chain", required_argument, NULL, 'c' },
	{ "ipv4-only", no_argument, NULL, '4' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "print", no_argument, NULL, 'p' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "counters", no_argument, NULL, 'C' },
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

/* FAMILY:NAME, or FAMILY NAME as nft lists a table. */
static int parse_table(struct import_opts *o, char *arg)
{
	char *sep = strpbrk(arg, ": ");

	if (!sep || !sep[1])
		return -1;
	*sep = 0;
	if (!strcmp(arg, "ip"))
		o->family = NFPROTO_IPV4;
	else if (!strcmp(arg, "ip6"))
		o->family = NFPROTO_IPV6;
	else if (!strcmp(arg, "inet"))
		o->family = NFPROTO_INET;
	else
		return -1;
	o->table = sep + 1;
	return 0;
}

static int check_import_opts(const struct import_opts *o)
{
	const char *msg = NULL;

	if (o->takeover && (o->dry_run || o->print))
		msg = "--takeover cannot go with --dry-run or --print";
	else if (o->dry_run && o->print)
		msg = "--dry-run and --print exclude each other";
	else if (o->ipv4_only && o->family != NFPROTO_INET)
		msg = "--ipv4-only is for tables of family inet";
	if (!msg)
		return 0;
	nfhp_cli_param_error(IMPORT_PROG, msg);
	return NFHP_EXIT_PARAM;
}

static int parse_import_opts(int argc, char **argv, struct import_opts *o,
			     u8 family)
{
	int c;

	o->family = family == NFHP_FAMILY_IPV6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	o->table = "filter";
	argv[0] = IMPORT_PROG;	/* getopt's messages name the program */
	optind = 0;
	while ((c = getopt_long(argc, argv, "Tt:c:4npvCfh", import_options,
				NULL)) != -1) {
		switch (c) {
		case 'T':
			o->takeover = true;
			break;
		case 't':
			if (parse_table(o, optarg)) {
				nfhp_cli_param_error(IMPORT_PROG,
					"--table wants FAMILY:NAME, FAMILY ip, ip6 or inet");
				return NFHP_EXIT_PARAM;
			}
			break;
		case 'c':
			o->chain = optarg;
			break;
		case '4':
			o->ipv4_only = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'p':
			o->print = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'C':
			o->counters = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'h':
			import_usage(stdout);
			return -1;
		default:
			import_usage(stderr);
			return NFHP_EXIT_PARAM;
		}
	}
	if (optind < argc) {
		import_usage(stderr);
		return NFHP_EXIT_PARAM;
	}
	return check_import_opts(o);
}

static int translate(const struct import_opts *o, struct nfhp_xlate *x,
		     char **text, size_t *len)
{
	char err[512] = "";
	FILE *f = open_memstream(text, len);
	int ret;

	if (!f) {
		fprintf(stderr, "%s: out of memory\n", IMPORT_PROG);
		return NFHP_EXIT_RESOURCE;
	}
	nfhp_xlate_set_counters(x, o->counters);
	ret = nfhp_xlate_save(x, o->chain, f, err, sizeof(err));
	if (fclose(f) && !ret) {
		snprintf(err, sizeof(err), "out of memory");
		ret = NFHP_EXIT_RESOURCE;
	}
	if (ret)
		fprintf(stderr, "%s: table %s %s: %s\n", IMPORT_PROG,
			family_name(o->family), o->table, err);
	return ret;
}

/* --- the views ---------------------------------------------------------- */

/*
 * Translate @v's view of the table and check it; unless --print, send it
 * into the transaction of @nl.  libxtables is set up here for the view's
 * family: once per process.
 */
static void import_view(struct nfhp_xlate *x, const struct import_opts *o,
			struct nfhp_nl *nl, struct view_out *v)
{
	struct restore_opts ro;

	if (nfhp_xt_setup(hipac_family(v->view), 0))
		fprintf(stderr, "%s: cannot initialise libxtables\n",
			IMPORT_PROG);
	nfhp_xlate_set_view(x, v->view);
	v->ret = translate(o, x, &v->text, &v->len);
	if (v->ret)
		return;
	v->nrules = nfhp_xlate_nrules(x);
	v->nskipped = nfhp_xlate_nskipped(x);
	/* --print shows the text even when nf-hipac would refuse it. */
	v->ret = check_text(x, v->view, v->text, v->len);
	if (!v->ret)
		v->ret = import_sets_add(x, hipac_family(v->view), o->chain,
					 &v->text, &v->len);
	if (v->ret || o->print)
		return;
	v->ret = import_sets_check(nl, x, hipac_family(v->view));
	if (v->ret)
		return;
	restore_opts_of(o, &ro);
	v->ret = restore_part(nl, hipac_family(v->view), v->text, v->len,
			      &ro);
	if (v->ret)
		fprintf(stderr,
			"%s: nothing changed (line numbers: those of the %s text of `nf-hipac import --print')\n",
			IMPORT_PROG, v->view == NFPROTO_IPV6 ? "IPv6" : "IPv4");
}

static bool write_all(int fd, const void *buf, size_t len)
{
	ssize_t n;

	for (; len; buf = (const char *)buf + n, len -= n) {
		n = write(fd, buf, len);
		if (n <= 0)
			return false;
	}
	return true;
}

static bool read_all(int fd, void *buf, size_t len)
{
	ssize_t n;

	for (; len; buf = (char *)buf + n, len -= n) {
		n = read(fd, buf, len);
		if (n <= 0)
			return false;
	}
	return true;
}

/* The child's side: the view, then its result (and text) into @fd. */
static void view_child(struct nfhp_xlate *x, const struct import_opts *o,
		       struct nfhp_nl *nl, struct view_out *v, int fd)
{
	import_view(x, o, nl, v);
	if (!o->print)
		v->len = 0;
	if (!write_all(fd, v, sizeof(*v)) || !write_all(fd, v->text, v->len))
		_exit(NFHP_EXIT_OTHER);
	_exit(0);	/* not exit(): the parent's stdio buffers are its own */
}

/* Fork with a pipe from the child: its pid, 0 in it, -1 after saying why. */
static pid_t fork_piped(int fd[2])
{
	pid_t pid = -1;

	fflush(NULL);
	if (!pipe(fd)) {
		pid = fork();
		if (pid < 0) {
			int err = errno;

			close(fd[0]);
			close(fd[1]);
			errno = err;
		}
	}
	if (pid < 0)
		fprintf(stderr, "%s: cannot start the IPv6 import: %s\n",
			IMPORT_PROG, strerror(errno));
	return pid;
}

/* The child's result and text, from @fd. */
static bool read_result(int fd, struct view_out *got)
{
	bool ok = read_all(fd, got, sizeof(*got));

	got->text = NULL;	/* the child's pointer */
	if (ok && got->len) {
		got->text = malloc(got->len);
		ok = got->text && read_all(fd, got->text, got->len);
	}
	return ok;
}

/*
 * Import view @v in a child process, see the top of the file.  @v gets
 * the child's result; its text, for --print, is allocated here.
 */
static void view_in_child(struct nfhp_xlate *x, const struct import_opts *o,
			  struct nfhp_nl *nl, struct view_out *v)
{
	struct view_out got;
	int fd[2], status;
	pid_t pid;
	bool ok;

	pid = fork_piped(fd);
	if (pid < 0) {
		v->ret = NFHP_EXIT_RESOURCE;
		return;
	}
	if (!pid) {
		close(fd[0]);
		view_child(x, o, nl, v, fd[1]);
	}
	close(fd[1]);
	ok = read_result(fd[0], &got);
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!ok || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: the IPv6 import failed\n", IMPORT_PROG);
		free(got.text);
		v->ret = NFHP_EXIT_OTHER;
		return;
	}
	*v = got;
}

/*
 * The views to import: the table's family, or both of an inet table (the
 * IPv6 one first, in a child, before libxtables is set up here).
 */
static unsigned int import_views(struct nfhp_xlate *x,
				 const struct import_opts *o,
				 struct nfhp_nl *nl, struct view_out *v)
{
	bool both = o->family == NFPROTO_INET && !o->ipv4_only;

	memset(v, 0, 2 * sizeof(*v));
	v[0].view = o->family == NFPROTO_IPV6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	if (!both) {
		import_view(x, o, nl, &v[0]);
		return 1;
	}
	v[1].view = NFPROTO_IPV6;
	view_in_child(x, o, nl, &v[1]);
	/* --print: the IPv4 text too, whatever became of the IPv6 one. */
	if (!v[1].ret || o->print)
		import_view(x, o, nl, &v[0]);
	else
		v[0].ret = v[1].ret;
	return 2;
}

static int first_failure(const struct view_out *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (v[i].ret)
			return v[i].ret;
	return 0;
}

static int print_views(const struct view_out *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (v[i].text)
			fwrite(v[i].text, 1, v[i].len, stdout);
	return fflush(stdout) ? NFHP_EXIT_OTHER : first_failure(v, n);
}

/* --- import ------------------------------------------------------------- */

static void say_skipped(const struct import_opts *o, const struct view_out *v,
			unsigned int n)
{
	if (n != 1 || !v->nskipped)	/* of two views: in the other one */
		return;
	fprintf(stderr, "%s: %u %s-only rules of %s %s left out\n",
		IMPORT_PROG, v->nskipped,
		v->view == NFPROTO_IPV6 ? "IPv4" : "IPv6",
		family_name(o->family), o->table);
}

/* Every view in one nf-hipac transaction; then --takeover. */
static int load_views(struct nft_sock *s, struct nfhp_xlate *x,
		      const struct import_opts *o, u32 genid)
{
	struct view_out v[2];
	struct restore_opts ro;
	struct nfhp_nl *nl;
	unsigned int n, nrules;
	int ret;

	restore_opts_of(o, &ro);
	ret = restore_begin(&nl, &ro);
	if (ret)
		return ret;
	n = import_views(x, o, nl, v);
	ret = first_failure(v, n);
	nrules = v[0].nrules + v[1].nrules;
	if (!ret) {
		say_skipped(o, v, n);
		ret = check_source(x, o, nrules);
	}
	ret = restore_end(nl, ret, &ro);
	free(v[0].text);
	free(v[1].text);
	if (ret)
		return ret;
	if (o->verbose)
		fprintf(stderr, "%s: %u rules from nft table %s %s %s\n",
			IMPORT_PROG, nrules, family_name(o->family), o->table,
			o->dry_run ? "checked" : "loaded");
	if (!o->takeover)
		return 0;
	ret = takeover(s, x, o, genid);
	if (!ret && o->verbose)
		fprintf(stderr, "%s: nft chains of %s %s flushed\n",
			IMPORT_PROG, family_name(o->family), o->table);
	return ret;
}

int import_main(int argc, char **argv, u8 family)
{
	struct import_opts o = { };
	struct nfhp_xlate *x = NULL;
	struct view_out v[2];
	struct nft_sock *s;
	u32 genid = 0;
	unsigned int n;
	int ret;

	ret = parse_import_opts(argc, argv, &o, family);
	if (ret)
		return ret < 0 ? NFHP_EXIT_OK : ret;
	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "%s: out of memory\n", IMPORT_PROG);
		return NFHP_EXIT_RESOURCE;
	}
	ret = nft_open(s);
	if (ret) {
		fprintf(stderr, "%s: cannot talk to nftables: %s\n",
			IMPORT_PROG, strerror(-ret));
		free(s);
		return NFHP_EXIT_OTHER;
	}
	ret = read_table(s, &o, &x, &genid);
	if (ret)
		goto out;
	if (o.print) {
		n = import_views(x, &o, NULL, v);
		ret = print_views(v, n);
		say_skipped(&o, v, n);
		free(v[0].text);
		free(v[1].text);
	} else {
		ret = load_views(s, x, &o, genid);
	}
out:
	nfhp_xlate_free(x);
	mnl_socket_close(s->nl);
	free(s);
	return ret;
}
