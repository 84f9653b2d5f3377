// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac import: take over the live nftables rule set of this netns.
 *
 * The table (by default "ip filter", the one iptables-nft writes) is read
 * over NETLINK_NETFILTER with libnftnl: its chains, its sets with their
 * elements and its rules, between two reads of the generation id so that
 * the snapshot is consistent.  lib/nft_xlate.c turns it into iptables-save
 * text, which is checked with the parser that nf-hipac-restore uses, so a
 * rule nf-hipac cannot take is refused (exit 2) before anything changes.
 * --print shows that text; otherwise restore_text() loads it as
 * nf-hipac-restore does, one transaction.  --takeover then flushes the
 * nft chains in one nft batch that only applies if the nft rule set is
 * still the one that was read: in between both filters hold the same
 * rules, so no packet is ever unfiltered.  An inet table is not flushed,
 * it still filters IPv6: its base chains get "meta nfproto ipv4 accept" in
 * front instead.
 *
 * The same batch marks each base chain it takes over with a rule that
 * carries NFHP_TAKEOVER_MARK as its comment (the inet accept is that
 * rule), so that the mark goes with the chain's rules: a later flush or
 * iptables-nft-restore removes it.  An import refuses, without --force, a
 * table whose chains carry it, and one without rules: either would
 * replace the nf-hipac rule set with an emptier one by accident.
 */
#include "subcommands.h"
#include "nft_xlate.h"
#include <getopt.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
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
 * @family: NFPROTO_IPV4 or NFPROTO_INET
 * @table: the nft table
 * @chain: --chain, NULL for the whole table
 */
struct import_opts {
	bool takeover, dry_run, print, verbose, counters, force;
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

static const char *family_name(int family)
{
	return family == NFPROTO_INET ? "inet" : "ip";
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
static int check_text(const struct nfhp_xlate *x, char *text, size_t len)
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
	ret = nfhp_parse_save_stream(f, NFHP_FAMILY_IPV4, &ops, NULL, err,
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

/* Load the text as nf-hipac-restore does (one transaction). */
static int load_text(const char *text, size_t len, const struct import_opts *o)
{
	const struct restore_opts ro = {
		.noflush = o->chain != NULL,
		.test = o->dry_run,
		.verbose = o->verbose,
		.counters = o->counters,
	};
	int ret;

	ret = restore_text(text, len, &ro);
	if (ret)
		fprintf(stderr,
			"%s: the nf-hipac rule set is unchanged (line numbers: those of `nf-hipac import --print')\n",
			IMPORT_PROG);
	return ret;
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
			const struct import_opts *o)
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
	if (nfhp_xlate_nrules(x))
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
 * An inet base chain also filters IPv6, which nf-hipac does not: rather
 * than flushed, it gets "meta nfproto ipv4 accept" in front, so IPv4 goes
 * on to nf-hipac and IPv6 keeps its rules.  The rule is the chain's mark
 * too.  Returns the requests queued.
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
		if (o->family == NFPROTO_INET) {
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
		"                       [--verbose]\n"
		"  Load the live nftables table (default ip:filter, the table of\n"
		"  iptables-nft) into nf-hipac, replacing its rule set.\n"
		"  -T, --takeover      then flush the nft chains (one nft batch; inet:\n"
		"                      let IPv4 through them, IPv6 stays with nft)\n"
		"  -t, --table F:NAME  the nft table; FAMILY ip or inet\n"
		"  -c, --chain NAME    only this base chain and the chains it reaches\n"
		"  -n, --dry-run       check everything with the kernel, change nothing\n"
		"  -p, --print         print the rules as iptables-save text, load nothing\n"
		"  -C, --counters      carry the nft rule counters over\n"
		"  -f, --force         import a table without rules, or one an earlier\n"
		"                      --takeover marked, all the same\n"
		"  -v, --verbose       say what was done\n");
}

static const struct option import_options[] = {
	{ "takeover", no_argument, NULL, 'T' },
	{ "table", required_argument, NULL, 't' },
	{ "chain", required_argument, NULL, 'c' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "print", no_argument, NULL, 'p' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "counters", no_argument, NULL, 'C' },
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

static int parse_table(struct import_opts *o, char *arg)
{
	char *colon = strchr(arg, ':');

	if (!colon || !colon[1])
		return -1;
	*colon = 0;
	if (!strcmp(arg, "ip"))
		o->family = NFPROTO_IPV4;
	else if (!strcmp(arg, "inet"))
		o->family = NFPROTO_INET;
	else
		return -1;
	o->table = colon + 1;
	return 0;
}

static int parse_import_opts(int argc, char **argv, struct import_opts *o)
{
	int c;

	o->family = NFPROTO_IPV4;
	o->table = "filter";
	argv[0] = IMPORT_PROG;	/* getopt's messages name the program */
	optind = 0;
	while ((c = getopt_long(argc, argv, "Tt:c:npvCfh", import_options,
				NULL)) != -1) {
		switch (c) {
		case 'T':
			o->takeover = true;
			break;
		case 't':
			if (parse_table(o, optarg)) {
				nfhp_cli_param_error(IMPORT_PROG,
					"--table wants FAMILY:NAME, FAMILY ip or inet");
				return NFHP_EXIT_PARAM;
			}
			break;
		case 'c':
			o->chain = optarg;
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
	if (o->takeover && (o->dry_run || o->print)) {
		nfhp_cli_param_error(IMPORT_PROG,
			"--takeover cannot go with --dry-run or --print");
		return NFHP_EXIT_PARAM;
	}
	if (o->dry_run && o->print) {
		nfhp_cli_param_error(IMPORT_PROG,
			"--dry-run and --print exclude each other");
		return NFHP_EXIT_PARAM;
	}
	return 0;
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

int import_main(int argc, char **argv)
{
	struct import_opts o = { };
	struct nfhp_xlate *x = NULL;
	struct nft_sock *s;
	char *text = NULL;
	size_t len = 0;
	u32 genid = 0;
	int ret;

	ret = parse_import_opts(argc, argv, &o);
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
	if (!ret)
		ret = translate(&o, x, &text, &len);
	if (ret)
		goto out;
	if (nfhp_xlate_nskipped(x))
		fprintf(stderr, "%s: %u IPv6-only rules of %s %s left out\n",
			IMPORT_PROG, nfhp_xlate_nskipped(x),
			family_name(o.family), o.table);
	/* --print shows the text even when nf-hipac would refuse it. */
	if (o.print) {
		fwrite(text, 1, len, stdout);
		if (fflush(stdout))
			ret = NFHP_EXIT_OTHER;
	}
	if (!ret)
		ret = check_text(x, text, len);
	if (ret || o.print)
		goto out;
	ret = check_source(x, &o);
	if (ret)
		goto out;
	ret = load_text(text, len, &o);
	if (!ret && o.verbose)
		fprintf(stderr, "%s: %u rules from nft table %s %s %s\n",
			IMPORT_PROG, nfhp_xlate_nrules(x),
			family_name(o.family), o.table,
			o.dry_run ? "checked" : "loaded");
	if (!ret && o.takeover) {
		ret = takeover(s, x, &o, genid);
		if (!ret && o.verbose)
			fprintf(stderr, "%s: nft chains of %s %s flushed\n",
				IMPORT_PROG, family_name(o.family), o.table);
	}
out:
	free(text);
	nfhp_xlate_free(x);
	mnl_socket_close(s->nl);
	free(s);
	return ret;
}
