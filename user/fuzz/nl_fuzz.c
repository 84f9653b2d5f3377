// SPDX-License-Identifier: GPL-2.0
/*
 * nl_fuzz: a generic netlink fuzzer for the nf_hipac family of nf_hipac.ko.
 *
 *	nl_fuzz [-n COUNT] [-s SEED] [-k SOCKETS] [-e] [-F] [-v] [-D]
 *
 * Resolves the "nf_hipac" family, then sends COUNT (default 100000)
 * requests over SOCKETS (default 4) sockets.  A request is a valid one
 * (built as user/cli/nl.c builds them), a valid one with one to four
 * mutations (bit flips, wrong attribute types and lengths, duplicated,
 * deleted and over-deep nested attributes, huge counts, truncated
 * messages, wrong flags), or random attribute soup.  Only about one in six
 * requests is sent unmutated: those that go through cost a commit.  The
 * sockets open and end transactions (BEGIN, COMMIT, ABORT, closing the
 * socket) in between, so that their changes and transactions interleave.
 * Every few hundred requests the rule set is flushed so that it stays small,
 * and every set is destroyed.  The named sets' commands and the set
 * matches of rules are nl_fuzz_set.c's.  One rule in five keeps or checks
 * states (NFHPA_RULE_STATE): mostly as the CLI sends them, else with
 * wrong modes, limits, fields or duplicates; the unmutated ones are
 * counted by their answers.
 *
 * Every request asks for an ack and genetlink answers it inside sendmsg(),
 * so the answers are read without blocking after each send.  The run fails
 * (exit 1) if an answer carries an errno the module never returns (for a
 * set command: one its contract does not give it), if the reply of a valid
 * set add, remove or test breaks the contract, if a socket operation
 * fails, or if the rule set cannot be listed and flushed at the end.  The
 * kernel log is the test harness's business.
 *
 * -F (final check, once no other fuzzer runs): after the reset, every set
 * must be destroyed and a dump must find none; with -n 0 only that.
 *
 * -D (dry run): build and mutate the requests but send nothing, to test
 * the generator itself (e.g. built with -fsanitize=address).
 *
 * -e (EPERM mode, for a sender without CAP_NET_ADMIN over the namespace):
 * only well-formed headers of commands that change something, with valid
 * or mutated attributes; every one of them must be answered with EPERM,
 * and so must a plain list at the end (reading is closed by default).
 *
 * The seed (default: from the clock) is printed first, so a run can be
 * repeated with -s.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/nf_hipac.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_statistic.h>

#include "nl_fuzz.h"

#define FZ_BUF_SIZE	(64 * 1024)
/* Room for the biggest answer: the results of a bulk set add. */
#define FZ_RX_SIZE	(256 * 1024)
#define FZ_MAX_SOCKS	16
#define FZ_MAX_ATTRS	512
#define FZ_MAX_DEPTH	16
/* Flush the rule set this often, so that it stays small. */
#define FZ_RESET_EVERY	200

/**
 * enum fz_rstate_kind - what NFHPA_RULE_STATE a rule went with
 * @FZ_RSTATE_NONE: none
 * @FZ_RSTATE_KEEP: keep-state as the CLI sends it, on ACCEPT or DROP
 * @FZ_RSTATE_CHECK: CHECK-STATE as the CLI sends it, on a bare rule
 * @FZ_RSTATE_OTHER: any other: a wrong mode, limit or fields, a rule it
 *	does not fit, twice
 * @FZ_RSTATE_KINDS: their number
 */
enum fz_rstate_kind {
	FZ_RSTATE_NONE,
	FZ_RSTATE_KEEP,
	FZ_RSTATE_CHECK,
	FZ_RSTATE_OTHER,
	FZ_RSTATE_KINDS,
};

/**
 * struct fz_stats - what the run did and how the kernel answered
 * @sent: requests sent
 * @acks: answers with error 0
 * @errs: answers by errno (index: positive errno, capped)
 * @dumps: dump messages received
 * @reopens: sockets closed (aborting their transactions) and reopened
 * @bad: answers with an errno the module never returns
 * @mutated: requests with at least one mutation
 * @random: random requests
 * @rstate: unmutated rule changes with NFHPA_RULE_STATE, by &enum
 *	fz_rstate_kind and the errno of their answer (0: they went through)
 */
struct fz_stats {
	unsigned long sent, acks, errs[256], dumps, reopens, bad;
	unsigned long mutated, random;
	unsigned long rstate[FZ_RSTATE_KINDS][256];
};

/**
 * struct fz_attr - an attribute found in a request, for mutations
 * @off: its offset in the request
 * @parents: offsets of the enclosing attributes, outermost first
 * @depth: number of @parents
 */
struct fz_attr {
	unsigned int off;
	unsigned int parents[FZ_MAX_DEPTH];
	unsigned int depth;
};

static uint64_t fz_rng;
static uint16_t fz_family;
/* The NFHPA_RULE_STATE of the rule being built, and of the one sent. */
static enum fz_rstate_kind fz_rstate_built, fz_rstate_req;
static bool fz_verbose;
static bool fz_dry;
static bool fz_eperm;
static struct fz_stats st;
static char rxbuf[FZ_RX_SIZE];

static const char *const fz_chains[] = {
	"INPUT", "FORWARD", "OUTPUT", "fz0", "fz1", "fz2", "fz3",
};
#define FZ_NCHAINS	(sizeof(fz_chains) / sizeof(fz_chains[0]))

/* --- randomness ---------------------------------------------------------- */

/* xorshift64*: small, fast, and the same sequence for the same seed. */
uint64_t rnd(void)
{
	fz_rng ^= fz_rng >> 12;
	fz_rng ^= fz_rng << 25;
	fz_rng ^= fz_rng >> 27;
	return fz_rng * 0x2545f4914f6cdd1dULL;
}

/* A number in [0, n), 0 for n == 0. */
uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() >> 32) % n : 0;
}

/* True with probability 1/n. */
bool one_in(uint32_t n)
{
	return below(n) == 0;
}

/* Interesting numbers first: boundaries attract bugs. */
uint64_t rnd_value(void)
{
	static const uint64_t edge[] = {
		0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0xffff, 0x10000,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0xffffffffffffffffULL,
	};

	if (one_in(2))
		return edge[below(sizeof(edge) / sizeof(edge[0]))];
	return rnd() >> below(64);
}

void rnd_bytes(void *p, size_t n)
{
	unsigned char *c = p;

	while (n--)
		*c++ = rnd();
}

/* --- building requests --------------------------------------------------- */

struct nlmsghdr *put_header(char *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = fz_family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = NFHP_GENL_VERSION;
	return nlh;
}

/*
 * Is there room for n more bytes?  Not after a truncation below the
 * headers: what we append would overwrite them.
 */
bool room(const struct nlmsghdr *nlh, size_t n)
{
	return nlh->nlmsg_len >= MNL_NLMSG_HDRLEN + sizeof(struct genlmsghdr) &&
	       nlh->nlmsg_len + MNL_ALIGN(n) + MNL_ATTR_HDRLEN + 64 <=
	       FZ_MSG_MAX;
}

static const char *rnd_chain(void)
{
	static char name[40];

	if (!one_in(12))
		return fz_chains[below(FZ_NCHAINS)];
	/* Too long, empty, or odd characters. */
	memset(name, 0, sizeof(name));
	rnd_bytes(name, below(sizeof(name) - 1));
	return name;
}

static void put_range(struct nfhp_uapi_range *r, uint32_t lo, uint32_t hi)
{
	memset(r, 0, sizeof(*r));
	r->lo[3] = lo;
	r->hi[3] = hi;
}

/* One valid-looking match of dimension dim. */
static void put_match(struct nlmsghdr *nlh, uint8_t dim)
{
	struct nfhp_uapi_range r[NFHP_MAX_RANGES];
	unsigned int i, n = 1 + below(3);
	struct nlattr *nest;
	uint8_t form = NFHP_FORM_RANGES;
	uint32_t a, b;

	switch (dim) {
	case NFHP_DIM_SRC:
	case NFHP_DIM_DST:
		form = one_in(3) ? NFHP_FORM_RANGES : NFHP_FORM_PREFIX;
		break;
	case NFHP_DIM_TCPFLAGS:
	case NFHP_DIM_MARK:
		form = NFHP_FORM_MASK;
		break;
	case NFHP_DIM_IIF:
	case NFHP_DIM_OIF:
		form = NFHP_FORM_IFNAME;
		break;
	}
	if (one_in(50))
		form = below(NFHP_FORM_MAX);

	nest = mnl_attr_nest_start(nlh, NFHPA_RULE_MATCH);
	mnl_attr_put_u8(nlh, NFHPA_MATCH_DIM, dim);
	mnl_attr_put_u8(nlh, NFHPA_MATCH_FORM, form);
	mnl_attr_put_u8(nlh, NFHPA_MATCH_SYNTAX, one_in(4) ?
			below(NFHP_SYN_MAX) : NFHP_SYN_DEFAULT);
	if (one_in(5))
		mnl_attr_put(nlh, NFHPA_MATCH_INVERT, 0, NULL);
	switch (form) {
	case NFHP_FORM_RANGES:
		for (i = 0; i < n; i++) {
			a = below(dim == NFHP_DIM_PROTO ? 256 : 65536);
			b = a + below(dim == NFHP_DIM_PROTO ? 256 - a : 1000);
			if (dim == NFHP_DIM_STATE) {
				a = below(NFHP_CT_MAX);
				b = a;
			}
			put_range(&r[i], a, b);
		}
		mnl_attr_put(nlh, NFHPA_MATCH_RANGES, n * sizeof(r[0]), r);
		break;
	case NFHP_FORM_PREFIX:
		put_range(&r[0], 0x0a000000 | below(1 << 24), 0);
		mnl_attr_put(nlh, NFHPA_MATCH_RANGES, sizeof(r[0]), r);
		mnl_attr_put_u8(nlh, NFHPA_MATCH_PREFIXLEN, below(33));
		break;
	case NFHP_FORM_MASK:
		a = below(256);
		put_range(&r[0], a & 0x3f, 0x3f);
		mnl_attr_put(nlh, NFHPA_MATCH_RANGES, sizeof(r[0]), r);
		break;
	case NFHP_FORM_IFNAME:
		mnl_attr_put_strz(nlh, NFHPA_MATCH_IFNAME,
				  one_in(2) ? "veth+" : "lo");
		break;
	}
	mnl_attr_nest_end(nlh, nest);
}

/*
 * xtables extensions the kernel has: their real info size most of the
 * time, so that checkentry runs on random contents, else any size.
 */
static const struct {
	const char *name;
	uint8_t rev;
	bool target;
	size_t size;
} fz_xt[] = {
	{ "comment", 0, false, XT_ALIGN(sizeof(struct xt_comment_info)) },
	{ "mark", 1, false, XT_ALIGN(sizeof(struct xt_mark_mtinfo1)) },
	{ "statistic", 0, false, XT_ALIGN(sizeof(struct xt_statistic_info)) },
	{ "MARK", 2, true, XT_ALIGN(sizeof(struct xt_mark_tginfo2)) },
	{ "nosuchmatch", 0, false, 8 },
};

static void put_xt_one(struct nlmsghdr *nlh, unsigned int i)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, fz_xt[i].target ?
						  NFHPA_XT_TARGET :
						  NFHPA_XT_MATCH);
	size_t size = one_in(4) ? below(300) : fz_xt[i].size;
	uint8_t data[300];

	rnd_bytes(data, sizeof(data));
	if (one_in(2))
		memset(data, 0, sizeof(data));
	mnl_attr_put_strz(nlh, NFHPA_XTE_NAME, fz_xt[i].name);
	mnl_attr_put_u8(nlh, NFHPA_XTE_REVISION,
			one_in(8) ? below(4) : fz_xt[i].rev);
	if (!one_in(16))
		mnl_attr_put(nlh, NFHPA_XTE_DATA, size, data);
	mnl_attr_nest_end(nlh, nest);
}

/* NFHPA_RULE_XT: a few extensions, a target last unless it is wrong. */
static void put_xt(struct nlmsghdr *nlh, uint8_t action)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_RULE_XT);
	unsigned int n = below(3), i;
	const unsigned int nxt = sizeof(fz_xt) / sizeof(fz_xt[0]);

	for (i = 0; i < n; i++)
		put_xt_one(nlh, below(nxt));
	if (action == NFHP_ACT_XT || one_in(16))
		put_xt_one(nlh, 3);	/* MARK */
	mnl_attr_nest_end(nlh, nest);
}

/* A state limit's count: none, the least, a few, or the most a u32 has. */
static uint32_t rnd_limit(void)
{
	switch (below(4)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 2 + below(100);
	}
	return UINT32_MAX;
}

/*
 * NFHPA_RULE_STATE of mode: mostly as the CLI sends it (the mode, and
 * for keep-state a limit with its fields or none), else modes 0 to 4,
 * limits of 0, 1 or 2^32 - 1, fields 0 to 0x1f, fields without a count,
 * no mode, an attribute twice: nfhp_rstate_decode() and the policy.
 *
 * Return: it is one of the odd ones.
 */
static bool put_rstate(struct nlmsghdr *nlh, uint8_t mode)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_RULE_STATE);
	bool wild = one_in(4);
	uint8_t by = 1 + below(NFHP_STATE_LIMIT_ALL);

	if (!wild || !one_in(8))
		mnl_attr_put_u8(nlh, NFHPA_RSTATE_MODE,
				wild && one_in(2) ? below(5) : mode);
	if (wild && one_in(8))
		mnl_attr_put_u8(nlh, NFHPA_RSTATE_MODE, below(5));
	if (wild)
		by = below(0x20);
	if (mode == NFHP_RSTATE_KEEP ? one_in(2) : wild && one_in(4)) {
		mnl_attr_put_u32(nlh, NFHPA_RSTATE_LIMIT,
				 wild ? rnd_limit() : 1 + below(100));
		if (!wild || !one_in(4))
			mnl_attr_put_u8(nlh, NFHPA_RSTATE_LIMIT_BY, by);
	} else if (wild && one_in(4)) {
		mnl_attr_put_u8(nlh, NFHPA_RSTATE_LIMIT_BY, by);
	}
	if (wild && one_in(16))
		mnl_attr_put(nlh, below(NFHPA_RSTATE_MAX + 3), 4, &by);
	mnl_attr_nest_end(nlh, nest);
	return wild;
}

/*
 * One rule in five keeps or checks states: mostly as keep-state and
 * CHECK-STATE need (an ACCEPT or DROP verdict; no match, no action), so
 * that they go through, else with whatever the rule has.
 */
static uint8_t rnd_rstate_mode(uint8_t *action, unsigned int *nmatch,
			       bool *bare, bool *fits)
{
	uint8_t mode = one_in(2) ? NFHP_RSTATE_KEEP : NFHP_RSTATE_CHECK;

	*bare = false;
	*fits = false;
	if (!one_in(5))
		return NFHP_RSTATE_NONE;
	if (one_in(4))
		return mode;
	*fits = true;
	if (mode == NFHP_RSTATE_KEEP) {
		*action = one_in(2) ? NFHP_ACT_ACCEPT : NFHP_ACT_DROP;
	} else {
		*action = NFHP_ACT_NONE;
		*nmatch = 0;
		*bare = true;
	}
	return mode;
}

/*
 * A valid-looking rule of family: sorted distinct dimensions, an action.
 * With setm, set matches too, and mostly a plain rule around them (few
 * dimensions, a verdict), so that they are refused for their own sake
 * when they are.  Now and then a keep-state or CHECK-STATE rule, and now
 * and then one with its NFHPA_RULE_STATE twice.
 */
static void put_rule(struct nlmsghdr *nlh, uint8_t family, bool setm)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_RULE);
	bool plain = setm && !one_in(4), bare, fits;
	unsigned int nmatch = below(plain ? 3 : 5), d;
	uint8_t action = below(plain ? NFHP_ACT_JUMP : NFHP_ACT_MAX);
	uint8_t rstate = rnd_rstate_mode(&action, &nmatch, &bare, &fits);

	for (d = 0; d < NFHP_DIM_MAX && nmatch; d++) {
		if (below(NFHP_DIM_MAX - d) < nmatch) {
			put_match(nlh, d);
			nmatch--;
		}
	}
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, action);
	if (action == NFHP_ACT_JUMP || action == NFHP_ACT_GOTO)
		mnl_attr_put_strz(nlh, NFHPA_RULE_TARGET,
				  fz_chains[3 + below(FZ_NCHAINS - 3)]);
	if (one_in(8))
		mnl_attr_put_strz(nlh, NFHPA_RULE_COMMENT, "nl_fuzz");
	if (setm && !bare)
		fz_put_setm(nlh, family);
	if (action == NFHP_ACT_XT ? !one_in(8) :
	    !bare && one_in(plain ? 32 : 6))
		put_xt(nlh, action);
	if (rstate) {
		fits &= !put_rstate(nlh, rstate);
		if (one_in(16)) {
			put_rstate(nlh, rstate);
			fits = false;
		}
		fz_rstate_built = !fits ? FZ_RSTATE_OTHER :
				  rstate == NFHP_RSTATE_KEEP ? FZ_RSTATE_KEEP :
							       FZ_RSTATE_CHECK;
	}
	if (one_in(8)) {
		struct nlattr *c = mnl_attr_nest_start(nlh,
						       NFHPA_RULE_COUNTERS);

		mnl_attr_put_u64(nlh, NFHPA_COUNTER_PACKETS, rnd_value());
		mnl_attr_put_u64(nlh, NFHPA_COUNTER_BYTES, rnd_value());
		mnl_attr_nest_end(nlh, c);
	}
	mnl_attr_nest_end(nlh, nest);
}

static void put_pos(struct nlmsghdr *nlh)
{
	mnl_attr_put_u32(nlh, NFHPA_POS, one_in(10) ? rnd_value() :
			 1 + below(8));
}

/* A request for cmd with the attributes the ABI asks for. */
static struct nlmsghdr *build_valid(char *buf, uint8_t cmd)
{
	uint8_t family = NFHP_FAMILY_IPV4;
	bool setm = one_in(3);
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	const char *chain;

	if (fz_set_cmd(cmd))
		return fz_build_set(buf, cmd);
	/* A rule with set matches mostly goes to a chain that exists. */
	chain = setm && !one_in(4) ? fz_chains[below(3)] : rnd_chain();
	nlh = put_header(buf, cmd, 0);
	/* Either family's rule set; now and then one nf-hipac has not. */
	if (one_in(2)) {
		family = one_in(8) ? (uint8_t)rnd() : NFHP_FAMILY_IPV6;
		mnl_attr_put_u8(nlh, NFHPA_FAMILY, family);
	}
	switch (cmd) {
	case NFHP_CMD_INSERT:
		if (one_in(2))
			put_pos(nlh);
		/* fall through */
	case NFHP_CMD_APPEND:
		mnl_attr_put_strz(nlh, NFHPA_CHAIN, chain);
		put_rule(nlh, family, setm);
		break;
	case NFHP_CMD_DELETE:
		mnl_attr_put_strz(nlh, NFHPA_CHAIN, chain);
		if (one_in(2))
			put_pos(nlh);
		else
			put_rule(nlh, family, setm);
		break;
	case NFHP_CMD_REPLACE:
		mnl_attr_put_strz(nlh, NFHPA_CHAIN, chain);
		put_pos(nlh);
		put_rule(nlh, family, setm);
		break;
	case NFHP_CMD_FLUSH:
	case NFHP_CMD_DEL_CHAIN:
		if (one_in(2))
			mnl_attr_put_strz(nlh, NFHPA_CHAIN, rnd_chain());
		break;
	case NFHP_CMD_NEW_CHAIN:
		mnl_attr_put_strz(nlh, NFHPA_CHAIN, rnd_chain());
		break;
	case NFHP_CMD_RENAME_CHAIN:
		mnl_attr_put_strz(nlh, NFHPA_CHAIN, rnd_chain());
		mnl_attr_put_strz(nlh, NFHPA_NEW_NAME, rnd_chain());
		break;
	case NFHP_CMD_POLICY:
		mnl_attr_put_strz(nlh, NFHPA_CHAIN, fz_chains[below(3)]);
		mnl_attr_put_u8(nlh, NFHPA_POLICY, NFHP_ACT_ACCEPT);
		if (one_in(3)) {
			nest = mnl_attr_nest_start(nlh, NFHPA_COUNTERS);
			mnl_attr_put_u64(nlh, NFHPA_COUNTER_PACKETS,
					 rnd_value());
			mnl_attr_put_u64(nlh, NFHPA_COUNTER_BYTES, rnd_value());
			mnl_attr_nest_end(nlh, nest);
		}
		break;
	case NFHP_CMD_ZERO:
		if (one_in(2)) {
			mnl_attr_put_strz(nlh, NFHPA_CHAIN, rnd_chain());
			if (one_in(2))
				put_pos(nlh);
		}
		break;
	case NFHP_CMD_LIST:
		nlh->nlmsg_flags |= NLM_F_DUMP;
		if (one_in(3))
			mnl_attr_put_strz(nlh, NFHPA_CHAIN, rnd_chain());
		if (one_in(3))
			mnl_attr_put_u32(nlh, NFHPA_LIST_FLAGS,
					 one_in(2) ? NFHP_LIST_CHAINS_ONLY :
						     (uint32_t)rnd_value());
		break;
	}
	return nlh;
}

/* Random attributes, nested up to depth levels deep. */
static void put_soup(struct nlmsghdr *nlh, unsigned int depth)
{
	unsigned int n = below(6), i;
	unsigned char data[96];

	for (i = 0; i < n && room(nlh, sizeof(data)); i++) {
		uint16_t type = below(NFHPA_MAX + 1);

		if (one_in(16))
			type = rnd();
		if (one_in(8)) {	/* the sets' vocabulary */
			fz_put_set_soup(nlh, depth);
			continue;
		}
		if (depth && one_in(3)) {
			struct nlattr *nest = mnl_attr_nest_start(nlh, type);

			put_soup(nlh, depth - 1);
			mnl_attr_nest_end(nlh, nest);
			continue;
		}
		rnd_bytes(data, sizeof(data));
		mnl_attr_put(nlh, type, below(sizeof(data) + 1), data);
	}
}

static struct nlmsghdr *build_random(char *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = put_header(buf, cmd,
					  cmd == NFHP_CMD_SET_LIST && one_in(2) ?
					  NLM_F_DUMP : 0);

	if (fz_set_cmd(cmd) && one_in(2))
		fz_put_set_soup(nlh, below(3));
	put_soup(nlh, below(5));
	return nlh;
}

/* --- mutations ----------------------------------------------------------- */

/*
 * Every attribute of the request, depth first, with its ancestors.  Walks
 * only attributes whose length fits in their parent, as the kernel would.
 */
static unsigned int collect(char *base, unsigned int start, unsigned int end,
			    struct fz_attr *a, unsigned int n,
			    const struct fz_attr *parent)
{
	unsigned int off = start;

	while (off + sizeof(struct nlattr) <= end && n < FZ_MAX_ATTRS) {
		struct nlattr *attr = (struct nlattr *)(base + off);
		unsigned int len = attr->nla_len;

		if (len < sizeof(struct nlattr) || off + len > end)
			break;
		a[n].off = off;
		a[n].depth = 0;
		if (parent) {
			memcpy(a[n].parents, parent->parents,
			       parent->depth * sizeof(a[n].parents[0]));
			a[n].depth = parent->depth;
			a[n].parents[a[n].depth++] = parent->off;
		}
		n++;
		/* Any attribute with room for children may be a nest. */
		if (len >= 2 * sizeof(struct nlattr) &&
		    a[n - 1].depth < FZ_MAX_DEPTH - 1)
			n = collect(base, off + MNL_ATTR_HDRLEN, off + len, a,
				    n, &a[n - 1]);
		off += MNL_ALIGN(len);
	}
	return n;
}

/* Grow (delta > 0) or shrink the lengths of attr's ancestors and the message. */
static void fix_lengths(struct nlmsghdr *nlh, const struct fz_attr *attr,
			int delta)
{
	unsigned int i;

	for (i = 0; i < attr->depth; i++) {
		struct nlattr *p = (struct nlattr *)((char *)nlh +
						     attr->parents[i]);

		p->nla_len += delta;
	}
	nlh->nlmsg_len += delta;
}

/* Deep nesting: levels of nests around a random leaf, appended at the end. */
static void put_deep(struct nlmsghdr *nlh, unsigned int levels)
{
	struct nlattr *nest[64];
	unsigned int i;

	if (levels > 64)
		levels = 64;
	for (i = 0; i < levels; i++) {
		static const uint16_t nests[] = {
			NFHPA_RULE, NFHPA_RULE_MATCH, NFHPA_SET,
			NFHPA_SET_ENTRY, NFHPA_RULE_SETM, NFHPA_RULE_STATE,
		};
		uint16_t type = nests[below(sizeof(nests) / sizeof(nests[0]))];

		if (one_in(4))
			type = below(12);
		nest[i] = mnl_attr_nest_start(nlh, type);
	}
	mnl_attr_put_u32(nlh, below(10), rnd());
	while (i--)
		mnl_attr_nest_end(nlh, nest[i]);
}

/* Many copies of a match, far more than NFHP_DIM_MAX. */
static void put_huge(struct nlmsghdr *nlh)
{
	struct nfhp_uapi_range r[NFHP_MAX_RANGES + 2];
	struct nlattr *rule = mnl_attr_nest_start(nlh, NFHPA_RULE);
	unsigned int i, n = 15 + below(200);

	for (i = 0; i < NFHP_MAX_RANGES + 2; i++)
		put_range(&r[i], i, 65535 - i);
	for (i = 0; i < n && room(nlh, sizeof(r) + 64); i++) {
		struct nlattr *m = mnl_attr_nest_start(nlh, NFHPA_RULE_MATCH);

		mnl_attr_put_u8(nlh, NFHPA_MATCH_DIM, one_in(2) ? 4 : i);
		mnl_attr_put_u8(nlh, NFHPA_MATCH_FORM, NFHP_FORM_RANGES);
		mnl_attr_put(nlh, NFHPA_MATCH_RANGES, sizeof(r[0]) *
			     (NFHP_MAX_RANGES - 1 + below(4)), r);
		mnl_attr_nest_end(nlh, m);
	}
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_DROP);
	mnl_attr_nest_end(nlh, rule);
}

/*
 * One mutation of the request.  With keep_header the netlink and genetlink
 * headers stay intact (EPERM mode).  Returns the number of bytes to send,
 * which may differ from nlmsg_len.
 */
static unsigned int mutate(struct nlmsghdr *nlh, bool keep_header,
			   unsigned int sendlen)
{
	static struct fz_attr attrs[FZ_MAX_ATTRS];
	unsigned int hdr = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct genlmsghdr));
	char *base = (char *)nlh;
	unsigned int n, len, off;
	struct fz_attr *a;
	struct nlattr *attr;
	int what = below(12);

	n = collect(base, hdr, nlh->nlmsg_len, attrs, 0, NULL);
	if (!n && what < 7)
		what = 7 + below(5);
	a = &attrs[below(n ? n : 1)];
	attr = (struct nlattr *)(base + a->off);

	switch (what) {
	case 0:		/* another type, maybe with the nested flag */
		attr->nla_type = one_in(2) ? below(12) : rnd();
		break;
	case 1:		/* a wrong length */
		attr->nla_len = one_in(2) ? attr->nla_len + below(9) - 4 :
			rnd();
		break;
	case 2:		/* duplicate it */
		len = MNL_ALIGN(attr->nla_len);
		if (nlh->nlmsg_len + len > FZ_MSG_MAX)
			break;
		off = a->off + len;
		if (off > nlh->nlmsg_len)
			break;
		memmove(base + off + len, base + off, nlh->nlmsg_len - off);
		memcpy(base + off, attr, len);
		fix_lengths(nlh, a, len);
		return nlh->nlmsg_len;
	case 3:		/* delete it */
		len = MNL_ALIGN(attr->nla_len);
		if (a->off + len > nlh->nlmsg_len)
			break;
		memmove(base + a->off, base + a->off + len,
			nlh->nlmsg_len - a->off - len);
		fix_lengths(nlh, a, -(int)len);
		return nlh->nlmsg_len;
	case 4:		/* flip bits in its payload */
	case 5:
		len = attr->nla_len;
		if (len > MNL_ATTR_HDRLEN && a->off + len <= nlh->nlmsg_len)
			base[a->off + MNL_ATTR_HDRLEN +
			     below(len - MNL_ATTR_HDRLEN)] ^= 1 << below(8);
		break;
	case 6:		/* a payload of interesting numbers */
		len = attr->nla_len;
		if (len >= MNL_ATTR_HDRLEN + 8 && a->off + len <= nlh->nlmsg_len) {
			uint64_t v = rnd_value();

			memcpy(base + a->off + MNL_ATTR_HDRLEN, &v, sizeof(v));
		}
		break;
	case 7:		/* over-deep nesting */
		if (room(nlh, 64 * 8 + 16))
			put_deep(nlh, 1 + below(64));
		break;
	case 8:		/* huge counts */
		if (!room(nlh, 2048))
			break;
		if (one_in(2))
			fz_put_set_huge(nlh);
		else
			put_huge(nlh);
		break;
	case 9:		/* truncated: nlmsg_len or the bytes sent */
		if (keep_header)
			break;
		if (one_in(2))
			return 1 + below(sendlen);	/* 1..sendlen */
		nlh->nlmsg_len = below(nlh->nlmsg_len + 8);
		return sendlen;
	case 10:	/* header fields */
		if (keep_header)
			break;
		switch (below(4)) {
		case 0:
			((struct genlmsghdr *)(nlh + 1))->version = rnd();
			break;
		case 1:
			((struct genlmsghdr *)(nlh + 1))->reserved = rnd();
			break;
		case 2:
			nlh->nlmsg_flags ^= 1 << below(16);
			nlh->nlmsg_flags |= NLM_F_REQUEST;
			break;
		case 3:
			((struct genlmsghdr *)(nlh + 1))->cmd = below(40);
			break;
		}
		break;
	case 11:	/* random attributes at the end */
		if (room(nlh, 1024))
			put_soup(nlh, below(4));
		break;
	}
	return nlh->nlmsg_len;
}

/* --- sockets ------------------------------------------------------------- */

static struct mnl_socket *open_sock(uint32_t *portid)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_GENERIC);
	int one = 1, size = 1 << 20;

	if (!nl) {
		perror("nl_fuzz: mnl_socket_open");
		exit(1);
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("nl_fuzz: mnl_socket_bind");
		exit(1);
	}
	/* Extended acks exercise the kernel's error message paths too. */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF, &size,
		   sizeof(size));
	*portid = mnl_socket_get_portid(nl);
	return nl;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(attr, CTRL_ATTR_MAX) < 0)
		return MNL_CB_OK;
	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
		return MNL_CB_ERROR;
	tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = {};

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb,
			   tb) < 0)
		return MNL_CB_ERROR;
	if (tb[CTRL_ATTR_FAMILY_ID])
		*(uint16_t *)data = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return MNL_CB_OK;
}

/* CTRL_CMD_GETFAMILY for "nf_hipac"; exits if it is not registered. */
static void resolve_family(void)
{
	static char buf[8192];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;
	uint32_t portid;
	int len;

	nl = open_sock(&portid);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, NFHP_GENL_NAME);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		perror("nl_fuzz: send GETFAMILY");
		exit(1);
	}
	while ((len = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		len = mnl_cb_run(buf, len, 1, portid, family_cb, &fz_family);
		if (len <= 0)
			break;
	}
	mnl_socket_close(nl);
	if (!fz_family) {
		fprintf(stderr, "nl_fuzz: family %s not found: %s\n",
			NFHP_GENL_NAME, strerror(errno));
		exit(1);
	}
}

/* Errnos the module (and genetlink in front of it) may answer with. */
static bool known_errno(int err)
{
	switch (err) {
	case 0: case EINVAL: case ENOENT: case EEXIST: case EBUSY:
	case EAGAIN: case E2BIG: case ERANGE: case ENOTEMPTY: case EMLINK:
	case ELOOP: case EOPNOTSUPP: case EPERM: case ENOMEM:
	case EMSGSIZE: case ENOBUFS:
	case EPROTOTYPE:	/* an xtables extension without that revision */
	case EAFNOSUPPORT:	/* NFHPA_FAMILY of a family nf-hipac lacks */
		return true;
	}
	return false;
}

/*
 * The command of the request just sent, when the kernel reads it as one
 * message with that command (no bytes past its nlmsg_len, which the kernel
 * would read as further messages): its answers are checked against what
 * that command may answer.  0 otherwise.
 */
static uint8_t fz_req_cmd;

/* The answer of the request just sent, if it was a rule change with states. */
static void fz_rstate_done(int err)
{
	if (fz_rstate_req && (fz_req_cmd == NFHP_CMD_APPEND ||
			      fz_req_cmd == NFHP_CMD_INSERT ||
			      fz_req_cmd == NFHP_CMD_REPLACE))
		st.rstate[fz_rstate_req][err > 0 && err < 256 ? err : 0]++;
}

/* The unmutated rule changes with states, by kind and answer. */
static void fz_rstate_report(void)
{
	static const char *const kinds[] = { "", "keep-state", "CHECK-STATE",
					     "odd states" };
	unsigned int i, k;

	printf("nl_fuzz: valid rule changes with states:");
	for (i = 1; i < FZ_RSTATE_KINDS; i++) {
		printf(" %s", kinds[i]);
		for (k = 0; k < 256; k++)
			if (st.rstate[i][k])
				printf(" %s=%lu",
				       k ? strerrorname_np(k) : "acked",
				       st.rstate[i][k]);
		printf(i + 1 < FZ_RSTATE_KINDS ? ";" : "\n");
	}
}

/*
 * Read every waiting answer (genetlink has answered by the time sendmsg
 * returns; a dump goes on with each read) and account for it.  Returns the
 * number of NLMSG_ERROR answers; *last_err gets the last error code.
 */
static unsigned int drain(struct fz_sock *s, int *last_err)
{
	unsigned int answers = 0;
	bool overrun = false, done = false;

	for (;;) {
		const struct nlmsghdr *nlh;
		int len;

		len = recv(mnl_socket_get_fd(s->nl), rxbuf, sizeof(rxbuf),
			   MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return answers;
			if (errno == ENOBUFS) {	/* overrun: lost answers */
				st.errs[ENOBUFS]++;
				overrun = true;
				continue;
			}
			perror("nl_fuzz: recv");
			exit(1);
		}
		nlh = (const struct nlmsghdr *)rxbuf;
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			bool ours = nlh->nlmsg_seq == s->seq && !done;
			int err;

			if (nlh->nlmsg_type == NLMSG_DONE) {
				err = 0;
				if (mnl_nlmsg_get_payload_len(nlh) >=
				    sizeof(int))
					err = -*(int *)mnl_nlmsg_get_payload(nlh);
			} else if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e =
					mnl_nlmsg_get_payload(nlh);

				err = -e->error;
			} else {
				st.dumps++;
				if (ours)
					fz_set_answer(nlh);
				continue;
			}
			answers++;
			*last_err = err;
			if (!err)
				st.acks++;
			else
				st.errs[err > 0 && err < 256 ? err : 255]++;
			if (!known_errno(err) ||
			    (ours && fz_set_cmd(fz_req_cmd) &&
			     !fz_set_errno_ok(fz_req_cmd, err))) {
				st.bad++;
				fprintf(stderr,
					"nl_fuzz: unexpected answer %d (%s) to seq %u, command %u\n",
					-err, strerror(err), nlh->nlmsg_seq,
					ours ? fz_req_cmd : 0);
			}
			if (ours) {
				done = true;
				fz_rstate_done(err);
				if (!fz_set_done(err, overrun)) {
					st.bad++;
					fprintf(stderr,
						"nl_fuzz: set reply to seq %u broke the contract\n",
						nlh->nlmsg_seq);
				}
			}
		}
	}
}

static void sock_reopen(struct fz_sock *s)
{
	if (s->nl) {
		mnl_socket_close(s->nl);
		st.reopens++;
	}
	s->nl = open_sock(&s->portid);
	s->txn = false;
}

/* Send len bytes of nlh on s; returns the number of answers read. */
unsigned int send_req(struct fz_sock *s, struct nlmsghdr *nlh,
		      unsigned int len, int *err)
{
	nlh->nlmsg_seq = ++s->seq;
	*err = 0;
	fz_req_cmd = 0;
	/* EPERM mode has a check of its own. */
	if (!fz_eperm && len >= FZ_GENL_HDRLEN && nlh->nlmsg_len >= FZ_GENL_HDRLEN &&
	    len <= MNL_ALIGN(nlh->nlmsg_len))
		fz_req_cmd = ((struct genlmsghdr *)(nlh + 1))->cmd;
	if (fz_dry) {
		st.sent++;
		return 1;
	}
	if (send(mnl_socket_get_fd(s->nl), nlh, len, 0) < 0) {
		/* The kernel refuses some malformed messages outright. */
		if (errno != EINVAL && errno != ENOBUFS && errno != EMSGSIZE &&
		    errno != ENOMEM) {
			perror("nl_fuzz: send");
			exit(1);
		}
		st.errs[errno]++;
	}
	st.sent++;
	return drain(s, err);
}

/*
 * A well-formed request on s, for resets and the final check; for the
 * rule set of family, IPv4's when 0.
 */
static int simple(struct fz_sock *s, uint8_t cmd, const char *chain,
		  uint8_t family)
{
	static char buf[4096];
	struct nlmsghdr *nlh = put_header(buf, cmd,
					  cmd == NFHP_CMD_LIST ||
					  cmd == NFHP_CMD_SET_LIST ?
					  NLM_F_DUMP : 0);
	int err;

	if (family)
		mnl_attr_put_u8(nlh, NFHPA_FAMILY, family);
	if (chain)
		mnl_attr_put_strz(nlh, NFHPA_CHAIN, chain);
	if (cmd == NFHP_CMD_POLICY)
		mnl_attr_put_u8(nlh, NFHPA_POLICY, NFHP_ACT_ACCEPT);
	fz_set_expect(nlh, false);
	if (!send_req(s, nlh, nlh->nlmsg_len, &err))
		return -EIO;
	return -err;
}

/*
 * Close our transactions, empty the rule set and destroy every set.
 * Another fuzzer process may hold a transaction or add rules in between
 * (EBUSY, ENOTEMPTY...), whose sets then stay; it resets too.  Fails only
 * when the module does not answer at all, or with strict when a set is
 * left (fz_set_reset()).
 */
static int reset(struct fz_sock *socks, unsigned int nsocks, bool strict)
{
	static const uint8_t fams[] = { 0, NFHP_FAMILY_IPV6 };
	unsigned int i, f;
	int ret;

	for (i = 0; i < nsocks; i++) {
		if ((socks[i].txn || one_in(2)) &&
		    simple(&socks[i], NFHP_CMD_ABORT, NULL, 0) == -EIO)
			return -EIO;
		socks[i].txn = false;
	}
	/* Both rule sets: the rules of either may refer to sets. */
	for (f = 0; f < 2; f++) {
		ret = simple(&socks[0], NFHP_CMD_FLUSH, NULL, fams[f]);
		if (ret == -EBUSY) {
			/* A transaction we lost track of (a mutated BEGIN)? */
			for (i = 0; i < nsocks; i++)
				sock_reopen(&socks[i]);
			ret = simple(&socks[0], NFHP_CMD_FLUSH, NULL, fams[f]);
		}
		if (ret == -EIO ||
		    simple(&socks[0], NFHP_CMD_DEL_CHAIN, NULL, fams[f]) == -EIO)
			return -EIO;
		for (i = 0; i < 3; i++)
			if (simple(&socks[0], NFHP_CMD_POLICY, fz_chains[i],
				   fams[f]) == -EIO)
				return -EIO;
	}
	return fz_set_reset(&socks[0], strict);
}

static const uint8_t fz_changes[] = {
	NFHP_CMD_APPEND, NFHP_CMD_INSERT, NFHP_CMD_DELETE, NFHP_CMD_REPLACE,
	NFHP_CMD_FLUSH, NFHP_CMD_NEW_CHAIN, NFHP_CMD_DEL_CHAIN,
	NFHP_CMD_RENAME_CHAIN, NFHP_CMD_POLICY, NFHP_CMD_ZERO,
	NFHP_CMD_BEGIN, NFHP_CMD_COMMIT, NFHP_CMD_ABORT,
	NFHP_CMD_SET_NEW, NFHP_CMD_SET_DEL, NFHP_CMD_SET_FLUSH,
	NFHP_CMD_SET_SWAP, NFHP_CMD_SET_MODIFY, NFHP_CMD_SET_ADD,
	NFHP_CMD_SET_REMOVE, NFHP_CMD_SET_TEST,
};
#define FZ_NCHANGES	(sizeof(fz_changes) / sizeof(fz_changes[0]))

/* A command, weighted towards rule changes, transactions and sets. */
static uint8_t pick_cmd(bool eperm)
{
	if (eperm)
		return fz_changes[below(FZ_NCHANGES)];
	if (one_in(40))
		return below(NFHP_CMD_MAX + 4);
	if (one_in(3))
		return NFHP_CMD_APPEND + below(2);
	if (one_in(3))
		return fz_pick_set_cmd();
	return 1 + below(NFHP_CMD_MAX);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nl_fuzz [-n COUNT] [-s SEED] [-k SOCKETS] [-e] [-F] [-v] [-D]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static char buf[FZ_BUF_SIZE];
	struct fz_sock socks[FZ_MAX_SOCKS] = {};
	unsigned long count = 100000, i, noanswer = 0;
	unsigned int nsocks = 4, k;
	uint64_t seed = 0;
	bool eperm = false, final = false;
	time_t start;
	int opt, ret = 0;

	while ((opt = getopt(argc, argv, "n:s:k:eFvD")) != -1) {
		switch (opt) {
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			nsocks = strtoul(optarg, NULL, 0);
			if (!nsocks || nsocks > FZ_MAX_SOCKS)
				usage();
			break;
		case 'e':
			eperm = fz_eperm = true;
			break;
		case 'F':
			final = true;
			break;
		case 'v':
			fz_verbose = true;
			break;
		case 'D':
			fz_dry = true;
			break;
		default:
			usage();
		}
	}
	if (!seed)
		seed = (uint64_t)time(NULL) * 1000003 ^ getpid();
	printf("nl_fuzz: seed %llu (repeat with -s %llu)\n",
	       (unsigned long long)seed, (unsigned long long)seed);
	fflush(stdout);
	fz_rng = seed ? seed : 1;

	if (!fz_dry)
		resolve_family();
	for (k = 0; k < nsocks; k++)
		sock_reopen(&socks[k]);
	st.reopens = 0;
	start = time(NULL);

	if (!eperm && reset(socks, nsocks, false)) {
		fprintf(stderr, "nl_fuzz: FAIL: no answer to a flush\n");
		return 1;
	}

	for (i = 0; i < count; i++) {
		struct fz_sock *s = &socks[below(nsocks)];
		uint8_t cmd = pick_cmd(eperm);
		unsigned int len, answers, m;
		struct nlmsghdr *nlh;
		int err, kind = below(10);
		bool valid = false;

		if (!eperm && i && i % FZ_RESET_EVERY == 0 &&
		    reset(socks, nsocks, false)) {
			fprintf(stderr,
				"nl_fuzz: FAIL: no answer to a flush after %lu\n",
				i);
			ret = 1;
			break;
		}
		if (!eperm && one_in(500)) {
			/* Closing the socket aborts its transaction. */
			sock_reopen(s);
		}

		/*
		 * Requests that go through cost a commit, a hundred times
		 * what a refused one costs: keep them to about one in six.
		 * Set commands commit nothing: half of them go as built, so
		 * that sets and their entries build up between resets.
		 */
		if (kind < 1 || cmd == NFHP_CMD_BEGIN ||
		    cmd == NFHP_CMD_COMMIT || cmd == NFHP_CMD_ABORT ||
		    (fz_set_cmd(cmd) && kind < 5)) {
			nlh = build_valid(buf, cmd);
			len = nlh->nlmsg_len;
			valid = !eperm;
		} else if (kind < 9) {
			nlh = build_valid(buf, cmd);
			len = nlh->nlmsg_len;
			for (m = 1 + below(4); m; m--)
				len = mutate(nlh, eperm, len);
			st.mutated++;
		} else {
			nlh = build_random(buf, cmd);
			len = nlh->nlmsg_len;
			if (one_in(2))
				len = mutate(nlh, eperm, len);
			st.random++;
		}
		if (len > FZ_MSG_MAX)
			len = FZ_MSG_MAX;
		/* Zero bytes are refused by sendmsg() (and logged). */
		if (!len)
			len = 1 + below(MNL_NLMSG_HDRLEN);

		fz_set_expect(nlh, valid);
		fz_rstate_req = valid ? fz_rstate_built : FZ_RSTATE_NONE;
		fz_rstate_built = FZ_RSTATE_NONE;
		answers = send_req(s, nlh, len, &err);
		if (cmd == NFHP_CMD_BEGIN && answers && !err)
			s->txn = true;
		if ((cmd == NFHP_CMD_COMMIT || cmd == NFHP_CMD_ABORT) &&
		    answers && !err)
			s->txn = false;
		if (eperm) {
			if ((answers != 1 || err != EPERM) && ++st.bad <= 10) {
				fprintf(stderr,
					"nl_fuzz: FAIL: command %u answered %s (%u answers), expected EPERM\n",
					cmd, answers ? strerror(err) : "nothing",
					answers);
				ret = 1;
			}
		} else if (!answers) {
			noanswer++;
		}
		if (fz_verbose && i && i % 20000 == 0)
			printf("nl_fuzz: %lu sent, %lds\n", i,
			       (long)(time(NULL) - start));
	}

	/*
	 * The module must still answer: flush, policies, list (the test
	 * checks the rule set itself once every fuzzer is done).
	 */
	if (!eperm) {
		if (reset(socks, nsocks, final)) {
			fprintf(stderr, "nl_fuzz: FAIL: final flush\n");
			ret = 1;
		}
		if (simple(&socks[0], NFHP_CMD_LIST, NULL, 0)) {
			fprintf(stderr, "nl_fuzz: FAIL: final list\n");
			ret = 1;
		}
		if (simple(&socks[0], NFHP_CMD_SET_LIST, NULL, 0)) {
			fprintf(stderr, "nl_fuzz: FAIL: final list of the sets\n");
			ret = 1;
		}
	} else {
		if (simple(&socks[0], NFHP_CMD_LIST, NULL, 0) != -EPERM) {
			fprintf(stderr, "nl_fuzz: FAIL: list not refused with EPERM without privileges\n");
			ret = 1;
		}
		if (simple(&socks[0], NFHP_CMD_SET_LIST, NULL, 0) != -EPERM) {
			fprintf(stderr, "nl_fuzz: FAIL: list of the sets not refused with EPERM without privileges\n");
			ret = 1;
		}
	}
	for (k = 0; k < nsocks; k++)
		mnl_socket_close(socks[k].nl);

	printf("nl_fuzz: %lu messages in %lds (%lu mutated, %lu random), %lu acks, %lu dump messages, %lu unanswered, %lu socket reopens\n",
	       st.sent, (long)(time(NULL) - start), st.mutated, st.random,
	       st.acks, st.dumps, noanswer, st.reopens);
	printf("nl_fuzz: errors:");
	for (k = 1; k < 256; k++)
		if (st.errs[k])
			printf(" %s=%lu", k < 255 ? strerrorname_np(k) : "other",
			       st.errs[k]);
	printf("\n");
	if (!eperm) {
		fz_set_report();
		fz_rstate_report();
	}
	if (st.bad) {
		fprintf(stderr, "nl_fuzz: FAIL: %lu unexpected answers\n",
			st.bad);
		ret = 1;
	}
	return ret;
}
