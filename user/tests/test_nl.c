// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the netlink wire format of the client, without a kernel.
 *
 * Rules are encoded into a LIST answer message exactly as the kernel would
 * send it back and decoded through the same path nfhp_nl_dump() uses; the
 * decoded rule must equal the original in every field.  The raw layout of
 * a 128-bit range is checked against the uapi contract (four host-order
 * words, most significant first), malformed and out-of-order attributes
 * must be refused, unknown ones skipped, and the iptables wording of the
 * kernel's errors is pinned.
 *
 * The client (lib/nl.c) is only linked into nf-hipac, so it is compiled
 * into this test directly, the way wireguard-tools' fuzzers take the file
 * under test.
 */
#include "../lib/nl.c"
#include "print.h"

static int failures, tests;

static void ok(bool cond, const char *what)
{
	tests++;
	if (!cond)
		failures++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tests, what);
}

static nfhp_u128 u128(u64 hi, u64 lo)
{
	return (nfhp_u128)hi << 64 | lo;
}

static void add_match(struct nfhp_rule_spec *s, u8 dim, u8 form, u8 syntax,
		      u8 invert)
{
	struct nfhp_dim_match *m = &s->m[s->nmatch++];

	m->dim = dim;
	m->form = form;
	m->syntax = syntax;
	m->invert = invert;
}

/* A rule with every form, inversion, a 128-bit dimension, a comment. */
static void rich_rule(struct nfhp_rule_spec *s)
{
	struct nfhp_dim_match *m;

	memset(s, 0, sizeof(*s));
	add_match(s, NFHP_DIM_SRC, NFHP_FORM_PREFIX, NFHP_SYN_DEFAULT, 1);
	m = &s->m[0];
	m->ranges[0].lo = 0x0a000000;
	m->ranges[0].hi = 0x0affffff;
	m->nranges = 8;
	add_match(s, NFHP_DIM_PROTO, NFHP_FORM_RANGES, NFHP_SYN_DEFAULT, 0);
	m = &s->m[1];
	m->nranges = 1;
	m->ranges[0].lo = m->ranges[0].hi = 6;
	add_match(s, NFHP_DIM_DPORT, NFHP_FORM_RANGES, NFHP_SYN_MULTIPORT, 0);
	m = &s->m[2];
	m->nranges = 2;
	m->ranges[0].lo = m->ranges[0].hi = 22;
	m->ranges[1].lo = 80;
	m->ranges[1].hi = 90;
	add_match(s, NFHP_DIM_TCPFLAGS, NFHP_FORM_MASK, NFHP_SYN_SYN, 0);
	m = &s->m[3];
	m->ranges[0].lo = 0x02;
	m->ranges[0].hi = 0x17;
	add_match(s, NFHP_DIM_IIF, NFHP_FORM_IFNAME, NFHP_SYN_DEFAULT, 1);
	strcpy(s->m[4].ifname, "eth+");
	add_match(s, NFHP_DIM_OIF, NFHP_FORM_RANGES, NFHP_SYN_DEFAULT, 0);
	m = &s->m[5];
	m->nranges = 1;
	m->ranges[0].lo = u128(0x0102030405060708ull, 0x090a0b0c0d0e0f10ull);
	m->ranges[0].hi = ~(nfhp_u128)0;
	s->action = NFHP_ACT_JUMP;
	strcpy(s->target, "my-chain");
	strcpy(s->comment, "allow \"ssh\" from the lab");
}

/* The largest rule: every dimension with all ranges, a full comment. */
static void huge_rule(struct nfhp_rule_spec *s)
{
	unsigned int d, i;

	memset(s, 0, sizeof(*s));
	for (d = 0; d < NFHP_DIM_MAX; d++) {
		struct nfhp_dim_match *m = &s->m[s->nmatch];

		add_match(s, d, NFHP_FORM_RANGES, NFHP_SYN_DEFAULT, d & 1);
		m->nranges = NFHP_MAX_RANGES;
		for (i = 0; i < NFHP_MAX_RANGES; i++) {
			m->ranges[i].lo = u128(d, 2 * i);
			m->ranges[i].hi = u128(d, 2 * i + 1);
		}
	}
	s->action = NFHP_ACT_DROP;
	memset(s->comment, 'c', NFHP_COMMENT_LEN - 1);
}

/* One NFHPA_XT_MATCH or NFHPA_XT_TARGET of @len data bytes into @s->ext. */
static void add_xt(struct nfhp_rule_spec *s, int type, const char *name,
		   u8 rev, u8 fill, size_t len)
{
	static union {
		struct nlmsghdr nlh;
		char buf[MNL_NLMSG_HDRLEN + NFHP_XT_MAXLEN];
	} u;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(u.buf);
	struct nlattr *nest;
	u8 data[NFHP_XT_MAXLEN];

	memset(data, fill, sizeof(data));
	memcpy(mnl_nlmsg_get_payload(nlh), s->ext, s->ext_len);
	nlh->nlmsg_len += s->ext_len;
	nest = mnl_attr_nest_start(nlh, type);
	mnl_attr_put_strz(nlh, NFHPA_XTE_NAME, name);
	mnl_attr_put_u8(nlh, NFHPA_XTE_REVISION, rev);
	mnl_attr_put(nlh, NFHPA_XTE_DATA, len, data);
	mnl_attr_nest_end(nlh, nest);
	s->ext_len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
	memcpy(s->ext, mnl_nlmsg_get_payload(nlh), s->ext_len);
}

/* The rich rule with two xtables matches and an xtables target. */
static void xt_rule(struct nfhp_rule_spec *s)
{
	rich_rule(s);
	add_xt(s, NFHPA_XT_MATCH, "limit", 0, 0x11, 40);
	add_xt(s, NFHPA_XT_MATCH, "hashlimit", 3, 0x22, 168);
	add_xt(s, NFHPA_XT_TARGET, "REJECT", 0, 0x33, 8);
	s->action = NFHP_ACT_XT;
	s->target[0] = 0;
}

/* The largest rule with the largest extension payload. */
static void huge_xt_rule(struct nfhp_rule_spec *s)
{
	huge_rule(s);
	/* 4 + 4 + 8 + 4 + 8 + 4 header bytes: the payload fills 4096. */
	add_xt(s, NFHPA_XT_TARGET, "NFQUEUE", 3, 0x44,
	       NFHP_XT_MAXLEN - 4 - 12 - 8 - 4);
	s->action = NFHP_ACT_XT;
}

/* NFHP_MAX_SETM set matches, of the longest names, both ways. */
static void add_setms(struct nfhp_rule_spec *s)
{
	unsigned int i;

	for (i = 0; i < NFHP_MAX_SETM; i++) {
		memset(s->setm[i].name, 'a' + i, NFHP_SET_MAXNAMELEN - 1);
		s->setm[i].name[NFHP_SET_MAXNAMELEN - 1] = '\0';
		s->setm[i].dir = i & 1 ? NFHP_SETM_DST : NFHP_SETM_SRC;
		s->setm[i].invert = i >= 2;
		/* Values on two of them, one the widest range. */
		s->setm[i].has_value = i & 1;
		s->setm[i].value_min = i == 1 ? 0 : 7;
		s->setm[i].value_max = i == 1 ? ~0u : 9;
	}
	s->nsetm = NFHP_MAX_SETM;
}

/* keep-state with the largest limit, over every field of the flow. */
static void keep_state(struct nfhp_rule_spec *s)
{
	s->action = NFHP_ACT_DROP;
	s->target[0] = '\0';
	s->state.mode = NFHP_RSTATE_KEEP;
	s->state.limit = ~0u;
	s->state.limit_by = NFHP_STATE_LIMIT_ALL;
}

static struct nlmsghdr *answer(char *buf, const char *chain, u32 pos)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = 0x20;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = NFHP_CMD_LIST;
	mnl_attr_put_strz(nlh, NFHPA_CHAIN, chain);
	if (pos)
		mnl_attr_put_u32(nlh, NFHPA_POS, pos);
	return nlh;
}

struct seen {
	int chains, rules;
	char chain[NFHP_CHAIN_NAME_LEN];
	unsigned int pos;
	struct nfhp_nl_chain c;
	struct nfhp_rule_spec spec;
	struct nfhp_counter counters;
};

static int seen_chain(void *data, const struct nfhp_nl_chain *c)
{
	struct seen *s = data;

	s->chains++;
	s->c = *c;
	snprintf(s->chain, sizeof(s->chain), "%s", c->name);
	return 0;
}

static int seen_rule(void *data, const char *chain, unsigned int pos,
		     const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *c)
{
	struct seen *s = data;

	s->rules++;
	snprintf(s->chain, sizeof(s->chain), "%s", chain);
	s->pos = pos;
	s->spec = *spec;
	s->counters = *c;
	return 0;
}

static const struct nfhp_nl_dump_ops seen_ops = {
	.chain = seen_chain,
	.rule = seen_rule,
};

/* Field by field, so that a bug in nfhp_nl_spec_equal() cannot hide one. */
static bool same_rule(const struct nfhp_rule_spec *a,
		      const struct nfhp_rule_spec *b)
{
	unsigned int i, j;

	if (a->nmatch != b->nmatch || a->action != b->action ||
	    strcmp(a->target, b->target) || strcmp(a->comment, b->comment) ||
	    a->ext_len != b->ext_len || memcmp(a->ext, b->ext, a->ext_len) ||
	    a->norder != b->norder || memcmp(a->order, b->order, a->norder) ||
	    a->nsetm != b->nsetm || a->state.mode != b->state.mode ||
	    a->state.limit != b->state.limit ||
	    a->state.limit_by != b->state.limit_by)
		return false;
	for (i = 0; i < a->nsetm; i++)
		if (strcmp(a->setm[i].name, b->setm[i].name) ||
		    a->setm[i].dir != b->setm[i].dir ||
		    a->setm[i].invert != b->setm[i].invert ||
		    a->setm[i].has_value != b->setm[i].has_value ||
		    (a->setm[i].has_value &&
		     (a->setm[i].value_min != b->setm[i].value_min ||
		      a->setm[i].value_max != b->setm[i].value_max)))
			return false;
	for (i = 0; i < a->nmatch; i++) {
		const struct nfhp_dim_match *x = &a->m[i], *y = &b->m[i];
		unsigned int n = x->form == NFHP_FORM_RANGES ? x->nranges :
				 x->form == NFHP_FORM_IFNAME ? 0 : 1;

		if (x->dim != y->dim || x->form != y->form ||
		    x->syntax != y->syntax || x->invert != y->invert ||
		    x->nranges != y->nranges || strcmp(x->ifname, y->ifname))
			return false;
		for (j = 0; j < n; j++)
			if (x->ranges[j].lo != y->ranges[j].lo ||
			    x->ranges[j].hi != y->ranges[j].hi)
				return false;
	}
	return true;
}

/* @spec as -S and as -L -v -x --line-numbers print it. */
static char *printed(const struct nfhp_rule_spec *spec)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	nfhp_print_rule_save(f, "FORWARD", spec, NULL);
	nfhp_print_list_rule(f, 7, spec, NULL, NFHP_PRINT_VERBOSE |
			     NFHP_PRINT_EXACT | NFHP_PRINT_LINENUM);
	nfhp_print_list_rule(f, 7, spec, NULL, NFHP_PRINT_NUMERIC);
	fclose(f);
	return text;
}

static void test_round_trip(const char *name, struct nfhp_rule_spec *spec,
			    const struct nfhp_counter *c)
{
	static char buf[32768];
	struct nlmsghdr *nlh = answer(buf, "FORWARD", 7);
	struct seen *s = calloc(1, sizeof(*s));
	char what[128], *want, *got;
	int ret;

	nfhp_nl_put_rule(nlh, spec, c);
	ret = nfhp_nl_dump_msg(nlh, &seen_ops, s);
	snprintf(what, sizeof(what), "%s: decodes", name);
	ok(ret == 0 && s->rules == 1 && s->chains == 0, what);
	snprintf(what, sizeof(what), "%s: chain and position", name);
	ok(!strcmp(s->chain, "FORWARD") && s->pos == 7, what);
	snprintf(what, sizeof(what), "%s: every field survives", name);
	ok(same_rule(spec, &s->spec), what);
	snprintf(what, sizeof(what), "%s: nfhp_nl_spec_equal", name);
	ok(nfhp_nl_spec_equal(spec, &s->spec), what);
	/* Decoded into malloc()ed memory, which ASan fills with 0xa5. */
	want = printed(spec);
	got = printed(&s->spec);
	snprintf(what, sizeof(what), "%s: prints as the original", name);
	ok(!strcmp(want, got), what);
	free(want);
	free(got);
	snprintf(what, sizeof(what), "%s: counters", name);
	ok(c ? s->counters.packets == c->packets &&
	       s->counters.bytes == c->bytes :
	       !s->counters.packets && !s->counters.bytes, what);
	snprintf(what, sizeof(what), "%s: fits a request (%u bytes)", name,
		 nlh->nlmsg_len);
	ok(nlh->nlmsg_len < 16384, what);
	free(s);
}

/* The first NFHPA_MATCH_RANGES payload of the rule in nlh. */
static const u32 *first_ranges(const struct nlmsghdr *nlh, unsigned int *len)
{
	const struct nlattr *a, *b, *c;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != NFHPA_RULE)
			continue;
		mnl_attr_for_each_nested(b, a) {
			if (mnl_attr_get_type(b) != NFHPA_RULE_MATCH)
				continue;
			mnl_attr_for_each_nested(c, b) {
				if (mnl_attr_get_type(c) != NFHPA_MATCH_RANGES)
					continue;
				*len = mnl_attr_get_payload_len(c);
				return mnl_attr_get_payload(c);
			}
		}
	}
	return NULL;
}

static void test_wire_layout(void)
{
	static char buf[32768];
	struct nfhp_rule_spec *spec = calloc(1, sizeof(*spec));
	struct nlmsghdr *nlh = answer(buf, "INPUT", 1);
	const u32 *w;
	unsigned int len = 0;

	add_match(spec, NFHP_DIM_IIF, NFHP_FORM_RANGES, 0, 0);
	spec->m[0].nranges = 1;
	spec->m[0].ranges[0].lo = u128(0x0102030405060708ull,
				       0x090a0b0c0d0e0f10ull);
	spec->m[0].ranges[0].hi = 0xc0a80001;
	spec->action = NFHP_ACT_ACCEPT;
	nfhp_nl_put_rule(nlh, spec, NULL);
	w = first_ranges(nlh, &len);
	ok(w && len == sizeof(struct nfhp_uapi_range),
	   "wire: one nfhp_uapi_range");
	ok(w && w[0] == 0x01020304 && w[1] == 0x05060708 &&
	   w[2] == 0x090a0b0c && w[3] == 0x0d0e0f10,
	   "wire: lo is four words, most significant first");
	ok(w && !w[4] && !w[5] && !w[6] && w[7] == 0xc0a80001,
	   "wire: a 32-bit value uses only the last word");
	free(spec);
}

static void test_chain_header(void)
{
	static char buf[4096];
	struct nlmsghdr *nlh = answer(buf, "OUTPUT", 0);
	struct nfhp_counter c = { .packets = 5, .bytes = 1ull << 40 };
	struct seen *s = calloc(1, sizeof(*s));
	struct nlattr *nest;

	mnl_attr_put_u8(nlh, NFHPA_POLICY, NFHP_ACT_DROP);
	mnl_attr_put_u32(nlh, NFHPA_REFS, 0);
	nest = mnl_attr_nest_start(nlh, NFHPA_COUNTERS);
	mnl_attr_put_u64(nlh, NFHPA_COUNTER_PACKETS, c.packets);
	mnl_attr_put_u64(nlh, NFHPA_COUNTER_BYTES, c.bytes);
	mnl_attr_nest_end(nlh, nest);
	ok(nfhp_nl_dump_msg(nlh, &seen_ops, s) == 0 && s->chains == 1 &&
	   !s->rules, "chain: a message without NFHPA_RULE is a chain");
	ok(!strcmp(s->chain, "OUTPUT") && s->c.builtin &&
	   s->c.policy == NFHP_ACT_DROP && s->c.counters.packets == 5 &&
	   s->c.counters.bytes == 1ull << 40, "chain: built-in with policy");

	memset(s, 0, sizeof(*s));
	nlh = answer(buf, "user", 0);
	mnl_attr_put_u32(nlh, NFHPA_REFS, 3);
	ok(nfhp_nl_dump_msg(nlh, &seen_ops, s) == 0 && !s->c.builtin &&
	   s->c.refs == 3, "chain: user chain with references");
	free(s);
}

/* Build a rule nest by hand, for the malformed cases. */
static struct nlattr *start_rule(struct nlmsghdr *nlh)
{
	return mnl_attr_nest_start(nlh, NFHPA_RULE);
}

static void put_raw_match(struct nlmsghdr *nlh, u8 dim, const void *ranges,
			  unsigned int len)
{
	struct nlattr *m = mnl_attr_nest_start(nlh, NFHPA_RULE_MATCH);

	mnl_attr_put_u8(nlh, NFHPA_MATCH_DIM, dim);
	mnl_attr_put_u8(nlh, NFHPA_MATCH_FORM, NFHP_FORM_RANGES);
	mnl_attr_put(nlh, NFHPA_MATCH_RANGES, len, ranges);
	mnl_attr_nest_end(nlh, m);
}

static int decode_raw(struct nlmsghdr *nlh)
{
	struct seen *s = calloc(1, sizeof(*s));
	int ret = nfhp_nl_dump_msg(nlh, &seen_ops, s);

	free(s);
	return ret;
}

/* A rule of @n set matches of set @name (none: no name) and @dir. */
static int decode_setms(char *buf, unsigned int n, const char *name, u8 dir)
{
	struct nlmsghdr *nlh = answer(buf, "INPUT", 1);
	struct nlattr *rule = start_rule(nlh), *m;
	unsigned int i;

	for (i = 0; i < n; i++) {
		m = mnl_attr_nest_start(nlh, NFHPA_RULE_SETM);
		if (name)
			mnl_attr_put_strz(nlh, NFHPA_SETM_NAME, name);
		mnl_attr_put_u8(nlh, NFHPA_SETM_DIR, dir);
		mnl_attr_nest_end(nlh, m);
	}
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_nest_end(nlh, rule);
	return decode_raw(nlh);
}

static void test_malformed(void)
{
	static char buf[4096];
	struct nfhp_uapi_range r[2] = {
		{ .lo = { 0, 0, 0, 1 }, .hi = { 0, 0, 0, 2 } },
		{ .lo = { 0, 0, 0, 5 }, .hi = { 0, 0, 0, 9 } },
	};
	struct nlmsghdr *nlh;
	struct nlattr *rule;

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	put_raw_match(nlh, NFHP_DIM_DPORT, r, sizeof(r[0]) + 4);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: ranges of a bad length");

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	put_raw_match(nlh, NFHP_DIM_DPORT, r, sizeof(r));
	put_raw_match(nlh, NFHP_DIM_SRC, r, sizeof(r));
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: matches out of order");

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	put_raw_match(nlh, NFHP_DIM_DPORT, r, sizeof(r));
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: no action");

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	put_raw_match(nlh, NFHP_DIM_DPORT, r, sizeof(r));
	mnl_attr_put_u32(nlh, NFHPA_RULE_MAX + 7, 42);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_nest_end(nlh, rule);
	mnl_attr_put_u32(nlh, NFHPA_MAX + 3, 42);
	ok(decode_raw(nlh) == 0, "forward compatible: unknown attributes");

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	mnl_attr_put_u32(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: action of the wrong size");

	ok(decode_setms(buf, 1, "bl", NFHP_SETM_DST) == 0,
	   "set match: a name and a direction");
	ok(decode_setms(buf, 1, "bl", NFHP_SETM_DPORT) == 0,
	   "set match: a port direction (a number set's, from another client)");
	ok(decode_setms(buf, 1, "bl", NFHP_SETM_DPORT + 1) == -EINVAL,
	   "malformed: a set match's unknown direction");
	ok(decode_setms(buf, 1, NULL, NFHP_SETM_SRC) == -EINVAL,
	   "malformed: a set match without a set");
	ok(decode_setms(buf, NFHP_MAX_SETM, "bl", NFHP_SETM_SRC) == 0,
	   "set matches: NFHP_MAX_SETM of them");
	ok(decode_setms(buf, NFHP_MAX_SETM + 1, "bl", NFHP_SETM_SRC) == -EINVAL,
	   "malformed: more than NFHP_MAX_SETM set matches");
}

/* The attribute @type inside the NFHPA_RULE nest of @nlh, or NULL. */
static const struct nlattr *rule_attr(const struct nlmsghdr *nlh, u16 type)
{
	const struct nlattr *r, *a, *found = NULL;

	mnl_attr_for_each(r, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(r) == NFHPA_RULE)
			mnl_attr_for_each_nested(a, r)
				if (mnl_attr_get_type(a) == type)
					found = a;
	return found;
}

/* The attribute @type in @nest, or NULL. */
static const struct nlattr *nested(const struct nlattr *nest, u16 type)
{
	const struct nlattr *a;

	if (nest)
		mnl_attr_for_each_nested(a, nest)
			if (mnl_attr_get_type(a) == type)
				return a;
	return NULL;
}

#define ABSENT	(-1)

/*
 * A rule whose NFHPA_RULE_STATE holds @mode, @limit and @limit_by, each
 * left out when ABSENT, an unknown attribute too if @unknown, and the
 * whole nest twice if @twice; decoded into @st.
 */
static int decode_state(char *buf, int mode, long long limit, int limit_by,
			bool unknown, bool twice, struct nfhp_state_spec *st)
{
	struct nlmsghdr *nlh = answer(buf, "INPUT", 1);
	struct nlattr *rule = start_rule(nlh), *nest;
	struct seen *s = calloc(1, sizeof(*s));
	int i, ret;

	for (i = 0; i < 1 + twice; i++) {
		nest = mnl_attr_nest_start(nlh, NFHPA_RULE_STATE);
		if (mode != ABSENT)
			mnl_attr_put_u8(nlh, NFHPA_RSTATE_MODE, mode);
		if (limit != ABSENT)
			mnl_attr_put_u32(nlh, NFHPA_RSTATE_LIMIT, limit);
		if (limit_by != ABSENT)
			mnl_attr_put_u8(nlh, NFHPA_RSTATE_LIMIT_BY, limit_by);
		if (unknown)
			mnl_attr_put_u32(nlh, NFHPA_RSTATE_MAX + 1, 7);
		mnl_attr_nest_end(nlh, nest);
	}
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_nest_end(nlh, rule);
	ret = nfhp_nl_dump_msg(nlh, &seen_ops, s);
	*st = s->spec.state;
	free(s);
	return ret;
}

/*
 * NFHPA_RULE_STATE: only for a keep-state or check-state rule, its limit
 * and fields only with a limit; decoded as the kernel checks it.
 */
static void test_state_wire(void)
{
	static char buf[32768];
	struct nfhp_rule_spec *spec = calloc(1, sizeof(*spec));
	const struct nlattr *st, *a;
	struct nfhp_state_spec got;
	struct nlmsghdr *nlh;

	rich_rule(spec);
	nlh = answer(buf, "INPUT", 1);
	nfhp_nl_put_rule(nlh, spec, NULL);
	ok(!rule_attr(nlh, NFHPA_RULE_STATE),
	   "state: none sent for a rule without one");

	spec->action = NFHP_ACT_ACCEPT;
	spec->state.mode = NFHP_RSTATE_KEEP;
	nlh = answer(buf, "INPUT", 1);
	nfhp_nl_put_rule(nlh, spec, NULL);
	st = rule_attr(nlh, NFHPA_RULE_STATE);
	a = nested(st, NFHPA_RSTATE_MODE);
	ok(st && (st->nla_type & NLA_F_NESTED) && a &&
	   mnl_attr_get_payload_len(a) == 1 &&
	   mnl_attr_get_u8(a) == NFHP_RSTATE_KEEP &&
	   !nested(st, NFHPA_RSTATE_LIMIT) &&
	   !nested(st, NFHPA_RSTATE_LIMIT_BY),
	   "state: keep-state without a limit is its mode alone");

	spec->state.limit = 70000;
	spec->state.limit_by = NFHP_STATE_LIMIT_SRC_ADDR |
			       NFHP_STATE_LIMIT_DST_PORT;
	nlh = answer(buf, "INPUT", 1);
	nfhp_nl_put_rule(nlh, spec, NULL);
	st = rule_attr(nlh, NFHPA_RULE_STATE);
	a = nested(st, NFHPA_RSTATE_LIMIT);
	ok(a && mnl_attr_get_payload_len(a) == 4 &&
	   mnl_attr_get_u32(a) == 70000, "state: the limit, a u32");
	a = nested(st, NFHPA_RSTATE_LIMIT_BY);
	ok(a && mnl_attr_get_payload_len(a) == 1 &&
	   mnl_attr_get_u8(a) == (NFHP_STATE_LIMIT_SRC_ADDR |
				  NFHP_STATE_LIMIT_DST_PORT),
	   "state: its fields, a u8 of NFHP_STATE_LIMIT_* bits");

	memset(spec, 0, sizeof(*spec));
	spec->state.mode = NFHP_RSTATE_CHECK;
	nlh = answer(buf, "INPUT", 1);
	nfhp_nl_put_rule(nlh, spec, NULL);
	st = rule_attr(nlh, NFHPA_RULE_STATE);
	a = nested(st, NFHPA_RSTATE_MODE);
	ok(a && mnl_attr_get_u8(a) == NFHP_RSTATE_CHECK &&
	   !nested(st, NFHPA_RSTATE_LIMIT) && !rule_attr(nlh, NFHPA_RULE_MATCH),
	   "state: check-state is its mode alone, no match");

	ok(!decode_state(buf, NFHP_RSTATE_KEEP, 5, ABSENT, false, false,
			 &got) &&
	   got.mode == NFHP_RSTATE_KEEP && got.limit == 5 &&
	   got.limit_by == NFHP_STATE_LIMIT_SRC_ADDR,
	   "state: a limit without its fields counts by src-addr");
	ok(!decode_state(buf, NFHP_RSTATE_CHECK, ABSENT, ABSENT, true, false,
			 &got) && got.mode == NFHP_RSTATE_CHECK && !got.limit,
	   "forward compatible: an unknown state attribute");
	ok(decode_state(buf, ABSENT, ABSENT, ABSENT, false, false, &got) ==
	   -EINVAL, "malformed: a state without its mode");
	ok(decode_state(buf, NFHP_RSTATE_NONE, ABSENT, ABSENT, false, false,
			&got) == -EINVAL, "malformed: a state of mode NONE");
	ok(decode_state(buf, NFHP_RSTATE_CHECK + 1, ABSENT, ABSENT, false,
			false, &got) == -EINVAL,
	   "malformed: a state's unknown mode");
	ok(decode_state(buf, NFHP_RSTATE_CHECK, 5, ABSENT, false, false,
			&got) == -EINVAL,
	   "malformed: check-state with a limit");
	ok(decode_state(buf, NFHP_RSTATE_KEEP, 0, ABSENT, false, false,
			&got) == -EINVAL, "malformed: a limit of 0");
	ok(decode_state(buf, NFHP_RSTATE_KEEP, ABSENT,
			NFHP_STATE_LIMIT_SRC_ADDR, false, false, &got) ==
	   -EINVAL, "malformed: a limit's fields without a limit");
	ok(decode_state(buf, NFHP_RSTATE_KEEP, 5, 0, false, false, &got) ==
	   -EINVAL, "malformed: a limit by no field");
	ok(decode_state(buf, NFHP_RSTATE_KEEP, 5, NFHP_STATE_LIMIT_ALL + 1,
			false, false, &got) == -EINVAL,
	   "malformed: a limit by an unknown field");
	ok(decode_state(buf, NFHP_RSTATE_KEEP, ABSENT, ABSENT, false, true,
			&got) == -EINVAL, "malformed: two states");
	free(spec);
}

/*
 * NFHPA_RULE_XT carries spec->ext as its payload, byte for byte, flagged
 * nested; a payload with trailing garbage or too long is refused.
 */
static void test_xt_wire(void)
{
	static char buf[32768];
	struct nfhp_rule_spec *spec = calloc(1, sizeof(*spec));
	const struct nlattr *xt;
	struct nlmsghdr *nlh;
	struct nlattr *rule, *nest;
	u8 junk[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	xt_rule(spec);
	nlh = answer(buf, "INPUT", 1);
	nfhp_nl_put_rule(nlh, spec, NULL);
	xt = rule_attr(nlh, NFHPA_RULE_XT);
	ok(xt && (xt->nla_type & NLA_F_NESTED) &&
	   mnl_attr_get_payload_len(xt) == spec->ext_len &&
	   !memcmp(mnl_attr_get_payload(xt), spec->ext, spec->ext_len),
	   "xtables: NFHPA_RULE_XT is the ext payload, nested");

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_XT);
	nest = mnl_attr_nest_start(nlh, NFHPA_RULE_XT);
	mnl_attr_put(nlh, NFHPA_XT_TARGET, 40, spec->ext);
	/* A truncated attribute header at the end of the payload. */
	memcpy(mnl_nlmsg_get_payload_tail(nlh), junk, 2);
	nlh->nlmsg_len += 4;
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: xtables payload trailer");

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_XT);
	nest = mnl_attr_nest_start(nlh, NFHPA_RULE_XT);
	mnl_attr_put(nlh, NFHPA_XT_TARGET, NFHP_XT_MAXLEN, buf + 8192);
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: xtables payload too long");
	free(spec);
}

/*
 * NFHPA_RULE_ORDER carries spec->order byte for byte; an empty one, one
 * longer than NFHP_MAX_ORDER or one naming an unknown module is refused,
 * as the kernel refuses it.  The order counts for equality.
 */
static void test_order_wire(void)
{
	static char buf[32768];
	struct nfhp_rule_spec *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	static const u8 order[] = { NFHP_MOD_COMMENT, NFHP_MOD_STATE,
				    NFHP_MOD_TCP, NFHP_MOD_MARK };
	u8 bad[NFHP_MAX_ORDER + 1];
	const struct nlattr *attr;
	struct nlmsghdr *nlh;
	struct nlattr *rule;
	unsigned int i;

	rich_rule(a);
	memcpy(a->order, order, sizeof(order));
	a->norder = sizeof(order);
	test_round_trip("ordered rule", a, NULL);
	for (i = 0; i < NFHP_MAX_ORDER; i++)
		a->order[i] = (i * 7) % NFHP_MOD_MAX;
	a->norder = NFHP_MAX_ORDER;
	test_round_trip("longest order", a, NULL);

	nlh = answer(buf, "INPUT", 1);
	a->norder = sizeof(order);
	memcpy(a->order, order, sizeof(order));
	nfhp_nl_put_rule(nlh, a, NULL);
	attr = rule_attr(nlh, NFHPA_RULE_ORDER);
	ok(attr && mnl_attr_get_payload_len(attr) == sizeof(order) &&
	   !memcmp(mnl_attr_get_payload(attr), order, sizeof(order)),
	   "order: NFHPA_RULE_ORDER holds the module bytes");

	rich_rule(b);
	nlh = answer(buf, "INPUT", 1);
	nfhp_nl_put_rule(nlh, b, NULL);
	attr = rule_attr(nlh, NFHPA_RULE_ORDER);
	ok(!attr, "order: none sent for the canonical order");

	memset(bad, NFHP_MOD_TTL, sizeof(bad));
	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_put(nlh, NFHPA_RULE_ORDER, sizeof(bad), bad);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: order too long");

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_put(nlh, NFHPA_RULE_ORDER, 0, NULL);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: empty order");

	bad[2] = NFHP_MOD_MAX;
	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	mnl_attr_put(nlh, NFHPA_RULE_ORDER, 3, bad);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == -EINVAL, "malformed: unknown module in the order");

	nlh = answer(buf, "INPUT", 1);
	rule = start_rule(nlh);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_ACCEPT);
	bad[2] = NFHP_MOD_COMMENT;
	mnl_attr_put(nlh, NFHPA_RULE_ORDER, NFHP_MAX_ORDER, bad);
	mnl_attr_nest_end(nlh, rule);
	ok(decode_raw(nlh) == 0, "order: NFHP_MAX_ORDER modules decode");

	rich_rule(b);
	memcpy(b->order, order, sizeof(order));
	b->norder = sizeof(order);
	ok(nfhp_nl_spec_equal(a, b), "equal: same order");
	b->order[5] = 0x55;
	ok(nfhp_nl_spec_equal(a, b), "equal: ignores order bytes past norder");
	b->order[1] = NFHP_MOD_TTL;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a different order");
	b->order[1] = a->order[1];
	b->norder = 3;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a shorter order");
	rich_rule(b);
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a missing order");
	free(a);
	free(b);
}

static void test_equal(void)
{
	struct nfhp_rule_spec *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));

	rich_rule(a);
	rich_rule(b);
	/* Bytes past the used ranges must not matter. */
	b->m[1].ranges[5].lo = 1234;
	ok(nfhp_nl_spec_equal(a, b), "equal: ignores unused ranges");
	b->m[2].ranges[1].hi = 91;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a different range end");
	rich_rule(b);
	b->m[2].syntax = NFHP_SYN_DEFAULT;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a different syntax");
	rich_rule(b);
	strcpy(b->target, "other");
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a different target");
	xt_rule(a);
	xt_rule(b);
	ok(nfhp_nl_spec_equal(a, b), "equal: same xtables extensions");
	b->ext[b->ext_len - 1] ^= 1;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a different xtables byte");
	xt_rule(b);
	b->ext_len -= 12;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a missing xtables target");
	rich_rule(b);
	b->action = NFHP_ACT_XT;
	b->target[0] = 0;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees missing xtables matches");
	rich_rule(a);
	rich_rule(b);
	add_setms(a);
	add_setms(b);
	ok(nfhp_nl_spec_equal(a, b), "equal: same set matches");
	b->setm[3].invert = 0;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a set match's !");
	add_setms(b);
	b->setm[0].dir = NFHP_SETM_DST;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a set match's direction");
	add_setms(b);
	b->setm[2].name[3] = 'z';
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a set match's set");
	add_setms(b);
	b->nsetm = 3;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a missing set match");
	rich_rule(a);
	rich_rule(b);
	keep_state(a);
	keep_state(b);
	ok(nfhp_nl_spec_equal(a, b), "equal: same keep-state");
	b->state.limit_by = NFHP_STATE_LIMIT_SRC_ADDR;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a limit's fields");
	keep_state(b);
	b->state.limit = 3;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a limit");
	a->state.limit = b->state.limit = 0;
	ok(nfhp_nl_spec_equal(a, b),
	   "equal: ignores the fields of no limit");
	b->state.mode = NFHP_RSTATE_NONE;
	ok(!nfhp_nl_spec_equal(a, b), "equal: sees a missing keep-state");
	free(a);
	free(b);
}

static void test_strerror(void)
{
	const char *msg;
	int code;

	msg = nfhp_nl_strerror(NFHP_CMD_INSERT, false, E2BIG, &code);
	ok(!strcmp(msg, "Index of insertion too big") && code == 1,
	   "errors: -I past the end");
	msg = nfhp_nl_strerror(NFHP_CMD_DELETE, false, ERANGE, &code);
	ok(!strcmp(msg, "Index of deletion too big") && code == 1,
	   "errors: -D past the end");
	msg = nfhp_nl_strerror(NFHP_CMD_DELETE, true, ENOENT, &code);
	ok(!strcmp(msg,
		   "Bad rule (does a matching rule exist in that chain?)") &&
	   code == 1, "errors: -D of a rule that does not exist");
	msg = nfhp_nl_strerror(NFHP_CMD_APPEND, false, ENOENT, &code);
	ok(!strcmp(msg, "No chain/target/match by that name") && code == 1,
	   "errors: missing chain");
	msg = nfhp_nl_strerror(NFHP_CMD_NEW_CHAIN, false, EEXIST, &code);
	ok(!strcmp(msg, "Chain already exists") && code == 1,
	   "errors: -N of an existing chain");
	msg = nfhp_nl_strerror(NFHP_CMD_RENAME_CHAIN, false, EEXIST, &code);
	ok(!strcmp(msg, "File exists") && code == 1,
	   "errors: -E onto an existing chain");
	msg = nfhp_nl_strerror(NFHP_CMD_DEL_CHAIN, false, EMLINK, &code);
	ok(!strcmp(msg, "Too many links") && code == 1,
	   "errors: -X of a referenced chain");
	msg = nfhp_nl_strerror(NFHP_CMD_DEL_CHAIN, false, ENOTEMPTY, &code);
	ok(!strcmp(msg, "Directory not empty") && code == 1,
	   "errors: -X of a chain with rules");
	msg = nfhp_nl_strerror(NFHP_CMD_APPEND, false, EPERM, &code);
	ok(!strcmp(msg, "Permission denied (you must be root)") && code == 4,
	   "errors: not root");
	nfhp_nl_strerror(NFHP_CMD_BEGIN, false, EBUSY, &code);
	ok(code == 4, "errors: another transaction is a resource problem");
	msg = nfhp_nl_strerror(NFHP_CMD_POLICY, false, EINVAL, &code);
	ok(!strcmp(msg, "Bad built-in chain name") && code == 1,
	   "errors: -P of a user chain");
}

/* What nfhp_nl_report_failure() prints for @f, and its exit code. */
static int report_failure(const struct nfhp_nl_failure *f, char *out,
			  size_t size)
{
	FILE *saved = stderr;
	int code;

	stderr = fmemopen(out, size, "w");
	code = nfhp_nl_report_failure(f, "nf-hipac");
	fclose(stderr);
	stderr = saved;
	return code;
}

/* The same for a request @cmd that failed with @err and the kernel's @ext. */
static int report(int cmd, int err, const char *ext, char *out, size_t size)
{
	struct nfhp_nl_failure f = { .err = -err, .cmd = cmd };

	snprintf(f.ext_msg, sizeof(f.ext_msg), "%s", ext);
	return report_failure(&f, out, size);
}

/* An answer the socket lost: iptables' line, then what may have happened. */
static void test_report_lost(void)
{
	struct nfhp_nl_failure f = {
		.err = -ENOBUFS, .cmd = NFHP_CMD_APPEND, .lost = true,
	};
	char out[512] = "";
	int code;

	code = report_failure(&f, out, sizeof(out));
	ok(code == 4 &&
	   !strcmp(out, "nf-hipac: Memory allocation problem.\n"
			"nf-hipac: the kernel's answer was lost: the change may have taken effect, check with -L or nf-hipac-save\n"),
	   "report: a lost answer says the change may be in");
}

static void test_report(void)
{
	char out[512];
	int code;

	memset(out, 0, sizeof(out));
	code = report(NFHP_CMD_APPEND, EPERM, "", out, sizeof(out));
	ok(code == 4 &&
	   !strcmp(out, "nf-hipac: Permission denied (you must be root).\n"),
	   "report: genetlink's permission check");
	memset(out, 0, sizeof(out));
	code = report(NFHP_CMD_LIST, EPERM, "", out, sizeof(out));
	ok(code == 4 &&
	   !strcmp(out, "nf-hipac: can't initialize nf-hipac table `filter': Permission denied (you must be root)\n"),
	   "report: a listing refused, in the words of iptables -L");
	memset(out, 0, sizeof(out));
	code = report(NFHP_CMD_DEL_CHAIN, EPERM,
		      "cannot delete a built-in chain", out, sizeof(out));
	ok(code == 1 &&
	   !strcmp(out, "nf-hipac: Invalid argument.\n"
			"nf-hipac: kernel: cannot delete a built-in chain\n"),
	   "report: -X of a built-in chain, with the kernel's reason");
	memset(out, 0, sizeof(out));
	code = report(NFHP_CMD_RENAME_CHAIN, EPERM, "cannot rename", out,
		      sizeof(out));
	ok(code == 1 && !strncmp(out,
		"nf-hipac: No chain/target/match by that name.\n", 46),
	   "report: -E of a built-in chain");
	test_report_lost();
}

/*
 * iptables-save lines, in the canonical form nf-hipac-save prints: parsed,
 * sent through the wire format and printed again, each must come back
 * unchanged.  This is what a rule goes through from nf-hipac -A to
 * nf-hipac-save, less the kernel (which stores the decoded spec as is).
 */
static const char *const save_lines[] = {
	"-A INPUT -s 10.0.0.0/8 -p tcp -m tcp --dport 22 -j ACCEPT",
	"-A INPUT ! -s 192.168.1.1/32 -p icmp -m icmp --icmp-type 8 -j foo",
	"-A INPUT -i eth+ -p udp -m multiport --dports 53,67:68 -j DROP",
	"-A INPUT -m state --state RELATED,ESTABLISHED -j ACCEPT",
	"-A foo -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -m comment --comment \"new tcp\" -j RETURN",
	"-A foo -m iprange --src-range 10.1.1.1-10.1.1.9 -j bar",
	"-A FORWARD -o veth1 -m ttl --ttl-gt 5 -m length --length 100:200 -g bar",
	"-A OUTPUT -m mark --mark 0x10000/0xffff0000",
	"-A OUTPUT -p tcp -m tcp ! --sport 1024:65535 --tcp-flags SYN,ACK SYN -j DROP",
	"-A bar -m conntrack --ctstate INVALID,NEW -j DROP",
	"-A bar -d 1.2.3.4/32 -f -j ACCEPT",
	/* The native matches in the order written (NFHPA_RULE_ORDER). */
	"-A INPUT -p tcp -m state --state NEW -m tcp --dport 22 -j ACCEPT",
	"-A INPUT -p udp -m mark --mark 0x1 -m comment --comment x -m udp --sport 53 -m ttl --ttl-eq 5",
	/* Set matches (NFHPA_RULE_SETM), after the native matches. */
	"-A INPUT -p tcp -m tcp --dport 22 -m set --match-set bl src -m set ! --match-set bl2 dst -j DROP",
	"-A INPUT -m set --match-set c src ! --update-counters --packets-gt 5 ! --bytes-eq 18446744073709551615 --set-value 1:2 -j DROP",
	"-A INPUT -m set ! --match-set c src --packets-lt 1 -m set --match-set d dst --bytes-gt 0",
	/* keep-state and check-state (NFHPA_RULE_STATE). */
	"-A INPUT -p tcp -m tcp --dport 22 -m keep-state -j ACCEPT",
	"-A INPUT -s 10.0.0.0/8 -m comment --comment x -m set --match-set bl src -m keep-state --state-limit 10 --state-limit-by src-addr,dst-port -j DROP",
	"-A INPUT -m keep-state --state-limit 4294967295 --state-limit-by src-addr,src-port,dst-addr,dst-port -j ACCEPT",
	"-A INPUT -j CHECK-STATE",
};

/* parse_line - parse the iptables arguments of @text into @cl. */
static int parse_line(struct nfhp_cmdline *cl, const char *text, char *err,
		      size_t errlen)
{
	char line[512], *argv[64];
	int argc;

	snprintf(line, sizeof(line), "nf-hipac %s", text);
	argc = nfhp_split_line(line, argv, ARRAY_SIZE(argv));
	if (argc < 0)
		return -1;
	return nfhp_parse_cmdline(argc, argv, cl, err, errlen);
}

/* wire - @cl's rule as nfhp_nl_put_rule() sends it, into @buf. */
static struct nlmsghdr *wire(char *buf, const struct nfhp_cmdline *cl)
{
	struct nlmsghdr *nlh = answer(buf, "X", 1);

	nfhp_nl_put_rule(nlh, &cl->spec, NULL);
	return nlh;
}

static bool same_wire(const struct nlmsghdr *a, const struct nlmsghdr *b)
{
	return a->nlmsg_len == b->nlmsg_len && !memcmp(a, b, a->nlmsg_len);
}

static void test_cli_round_trip(void)
{
	struct nfhp_cmdline *cl = malloc(sizeof(*cl));
	struct seen *back = malloc(sizeof(*back));
	static char buf[32768];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(save_lines); i++) {
		char err[256] = "", *out = NULL;
		struct nlmsghdr *nlh;
		size_t len = 0;
		FILE *f;

		memset(cl, 0, sizeof(*cl));
		if (parse_line(cl, save_lines[i], err, sizeof(err))) {
			ok(false, save_lines[i]);
			printf("# parse: %s\n", err);
			continue;
		}
		nlh = wire(buf, cl);
		memset(back, 0, sizeof(*back));
		f = open_memstream(&out, &len);
		if (nfhp_nl_dump_msg(nlh, &seen_ops, back) || back->rules != 1)
			fprintf(f, "decode failed\n");
		else
			nfhp_print_rule_save(f, cl->chain, &back->spec, NULL);
		fclose(f);
		if (len && out[len - 1] == '\n')
			out[len - 1] = '\0';
		ok(!strcmp(out, save_lines[i]), save_lines[i]);
		if (strcmp(out, save_lines[i]))
			printf("# got: %s\n", out);
		free(out);
	}
	free(back);
	free(cl);
}

/*
 * Each parse resets only what a pass reads (pass_reset() in lib/parse.c):
 * the match arrays and the xtables buffer keep what the previous command
 * line left there, on the promise that nothing reads them before writing
 * them.  Hold it to that: every line must send the same bytes whether it
 * is parsed into a zeroed command line, one filled with 0xa5, or one
 * holding each other line's rule.  (The parser's own state is malloc'ed;
 * __asan_default_options() below has ASan fill all of it.)
 */
static void test_parse_poison(void)
{
	struct nfhp_cmdline *cl = malloc(sizeof(*cl));
	static char ref[32768], buf[32768];
	unsigned int i, j, bad;
	char err[256], name[600];

	for (i = 0; i < ARRAY_SIZE(save_lines); i++) {
		struct nlmsghdr *want;

		memset(cl, 0, sizeof(*cl));
		if (parse_line(cl, save_lines[i], err, sizeof(err))) {
			ok(false, "poison: parse");
			continue;
		}
		want = wire(ref, cl);
		bad = 0;
		memset(cl, 0xa5, sizeof(*cl));
		if (parse_line(cl, save_lines[i], err, sizeof(err)) ||
		    !same_wire(want, wire(buf, cl)))
			bad++;
		for (j = 0; j < ARRAY_SIZE(save_lines); j++) {
			if (parse_line(cl, save_lines[j], err, sizeof(err)) ||
			    parse_line(cl, save_lines[i], err, sizeof(err)) ||
			    !same_wire(want, wire(buf, cl)))
				bad++;
		}
		snprintf(name, sizeof(name), "poison: %s", save_lines[i]);
		ok(!bad, name);
		if (bad)
			printf("# %u parses sent other bytes\n", bad);
	}
	free(cl);
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "max_malloc_fill_size=1048576:malloc_fill_byte=165";
}

int main(void)
{
	struct nfhp_rule_spec *spec = malloc(sizeof(*spec));
	struct nfhp_counter c = { .packets = 123456789012ull,
				  .bytes = 0xfedcba9876543210ull };

	rich_rule(spec);
	test_round_trip("rich rule", spec, &c);
	huge_rule(spec);
	test_round_trip("largest rule", spec, NULL);
	memset(spec, 0, sizeof(*spec));
	spec->action = NFHP_ACT_NONE;
	test_round_trip("empty rule", spec, NULL);
	xt_rule(spec);
	test_round_trip("xtables rule", spec, &c);
	huge_xt_rule(spec);
	ok(spec->ext_len == NFHP_XT_MAXLEN, "largest xtables payload is full");
	test_round_trip("largest xtables rule", spec, NULL);
	test_xt_wire();
	rich_rule(spec);
	add_setms(spec);
	test_round_trip("rule with set matches", spec, &c);
	huge_xt_rule(spec);
	add_setms(spec);
	test_round_trip("largest rule with set matches", spec, NULL);
	rich_rule(spec);
	keep_state(spec);
	test_round_trip("keep-state rule with a limit", spec, &c);
	spec->state.limit = 0;
	spec->state.limit_by = 0;
	test_round_trip("keep-state rule", spec, NULL);
	/* The largest a keep-state rule gets: its target is no extension. */
	huge_rule(spec);
	add_xt(spec, NFHPA_XT_MATCH, "limit", 0, 0x55,
	       NFHP_XT_MAXLEN - 4 - 12 - 8 - 4);
	add_setms(spec);
	keep_state(spec);
	ok(spec->ext_len == NFHP_XT_MAXLEN,
	   "largest keep-state rule: a full xtables payload");
	test_round_trip("largest keep-state rule", spec, &c);
	memset(spec, 0, sizeof(*spec));
	spec->state.mode = NFHP_RSTATE_CHECK;
	test_round_trip("check-state rule", spec, NULL);
	free(spec);
	test_wire_layout();
	test_chain_header();
	test_malformed();
	test_state_wire();
	test_equal();
	test_order_wire();
	test_strerror();
	test_report();
	test_cli_round_trip();
	test_parse_poison();
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
