// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the generic netlink client of the nf-hipac tools.
 *
 * One request per change, acknowledged (NLM_F_ACK) and answered with the
 * extended ack message on failure; LIST is a dump.  Batch mode queues many
 * requests in one buffer and sends them with a single sendmsg(): genetlink
 * handles every message of it synchronously, in order, inside that
 * sendmsg(), so when it returns the error answers of the failed requests
 * (the only answers, since the batch does not ask for acks) are already
 * waiting on the socket and are read without blocking.
 *
 * A sender thread does that while the caller fills the next batch: a
 * restore parses its rules on one CPU while the kernel takes in the
 * previous batch on another (see "batch mode" below).
 */
#include "nl.h"
#include "parse.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

/*
 * A request with 14 full matches and a comment is about 8 KiB, the
 * NFHPA_RULE_XT payload adds at most NFHP_XT_MAXLEN (4 KiB).
 */
#define NFHP_NL_MSG_MAX		16384
#define NFHP_NL_RECV_SIZE	65536
/* A sendmsg() must stay below the default socket send buffer (208 KiB). */
#define NFHP_NL_BATCH_SIZE	(128 * 1024)

/**
 * struct nfhp_nl_slot - a request queued in a batch
 * @tag: the caller's tag (a line number)
 * @cmd: &enum nfhp_cmd
 * @by_spec: a delete by rule
 */
struct nfhp_nl_slot {
	unsigned long tag;
	u8 cmd;
	bool by_spec;
};

/**
 * struct nfhp_nl_batch - requests queued to be sent with one sendmsg()
 * @mb: the libmnl batch over @buf
 * @buf: the requests
 * @slots: what each queued request was, indexed by seq - @first_seq
 * @nslots: number of requests queued
 * @first_seq: sequence number of the first request
 */
struct nfhp_nl_batch {
	struct mnl_nlmsg_batch *mb;
	char *buf;
	struct nfhp_nl_slot *slots;
	unsigned int nslots;
	u32 first_seq;
};

/**
 * struct nfhp_nl - a connection to the nf_hipac genetlink family
 * @sock: the netlink socket
 * @family: the family id resolved by name
 * @portid: our netlink port id
 * @seq: sequence number of the last request
 * @buf: a request or an answer
 * @fail: the first failure since the last request (or batch) started;
 *	in batch mode under @lock, the sender records into it
 * @bat: the two batch buffers
 * @batch: the batch being filled, NULL outside batch mode
 * @sending: the batch handed to the sender, NULL when it is idle
 * @rbuf: the sender's answers
 * @sender: the sender thread, see batch_sender()
 * @sender_up: @sender runs; without it batches are sent in place
 * @stop: tells @sender to end once idle
 * @lock: guards @fail, @sending and @stop in batch mode
 * @cond: signals a change of @sending or @stop
 * @tag: the tag of the requests queued from now on
 * @wait: wait for another process's transaction, see nfhp_nl_set_wait()
 * @wait_seconds: for how long at most, 0 for ever
 * @wait_interval_us: between two tries
 * @ip_family: the rule set requests go to, &enum nfhp_family
 */
struct nfhp_nl {
	struct mnl_socket *sock;
	u16 family;
	u8 ip_family;
	u32 portid;
	u32 seq;
	char *buf;
	struct nfhp_nl_failure fail;
	struct nfhp_nl_batch bat[2];
	struct nfhp_nl_batch *batch;
	struct nfhp_nl_batch *sending;
	char *rbuf;
	pthread_t sender;
	bool sender_up;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long tag;
	bool wait;
	unsigned int wait_seconds;
	unsigned long wait_interval_us;
};

/*
 * Batch slots: the smallest request (BEGIN) is 20 bytes, so a batch holds
 * at most NFHP_NL_BATCH_SIZE / 20 requests.
 */
#define NFHP_NL_BATCH_SLOTS	(NFHP_NL_BATCH_SIZE / 20 + 1)

/* --- encoding ------------------------------------------------------------ */

static void put_u128(u32 w[4], nfhp_u128 v)
{
	w[0] = (u32)(v >> 96);
	w[1] = (u32)(v >> 64);
	w[2] = (u32)(v >> 32);
	w[3] = (u32)v;
}

static nfhp_u128 get_u128(const u32 w[4])
{
	return (nfhp_u128)w[0] << 96 | (nfhp_u128)w[1] << 64 |
	       (nfhp_u128)w[2] << 32 | w[3];
}

static void put_counters(struct nlmsghdr *nlh, u16 type,
			 const struct nfhp_counter *c)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_u64(nlh, NFHPA_COUNTER_PACKETS, c->packets);
	mnl_attr_put_u64(nlh, NFHPA_COUNTER_BYTES, c->bytes);
	mnl_attr_nest_end(nlh, nest);
}

/* Number of nfhp_uapi_range a match carries: ranges, or value and mask. */
static unsigned int match_nranges(const struct nfhp_dim_match *m)
{
	switch (m->form) {
	case NFHP_FORM_RANGES:
		return m->nranges;
	case NFHP_FORM_PREFIX:
	case NFHP_FORM_MASK:
		return 1;
	default:
		return 0;
	}
}

static void put_match(struct nlmsghdr *nlh, const struct nfhp_dim_match *m)
{
	struct nfhp_uapi_range r[NFHP_MAX_RANGES];
	unsigned int i, n = match_nranges(m);
	struct nlattr *nest;

	nest = mnl_attr_nest_start(nlh, NFHPA_RULE_MATCH);
	mnl_attr_put_u8(nlh, NFHPA_MATCH_DIM, m->dim);
	mnl_attr_put_u8(nlh, NFHPA_MATCH_FORM, m->form);
	mnl_attr_put_u8(nlh, NFHPA_MATCH_SYNTAX, m->syntax);
	if (m->invert)
		mnl_attr_put(nlh, NFHPA_MATCH_INVERT, 0, NULL);
	if (n > NFHP_MAX_RANGES)
		n = NFHP_MAX_RANGES;
	for (i = 0; i < n; i++) {
		put_u128(r[i].lo, m->ranges[i].lo);
		put_u128(r[i].hi, m->ranges[i].hi);
	}
	if (n)
		mnl_attr_put(nlh, NFHPA_MATCH_RANGES, n * sizeof(r[0]), r);
	if (m->form == NFHP_FORM_PREFIX)
		mnl_attr_put_u8(nlh, NFHPA_MATCH_PREFIXLEN, m->nranges);
	if (m->form == NFHP_FORM_IFNAME)
		mnl_attr_put_strz(nlh, NFHPA_MATCH_IFNAME, m->ifname);
	mnl_attr_nest_end(nlh, nest);
}

static void put_setm(struct nlmsghdr *nlh, const struct nfhp_setm_spec *m)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_RULE_SETM);

	mnl_attr_put_strz(nlh, NFHPA_SETM_NAME, m->name);
	mnl_attr_put_u8(nlh, NFHPA_SETM_DIR, m->dir);
	if (m->has_dir2)
		mnl_attr_put_u8(nlh, NFHPA_SETM_DIR2, m->dir2);
	if (m->invert)
		mnl_attr_put(nlh, NFHPA_SETM_INVERT, 0, NULL);
	if (m->has_value) {
		mnl_attr_put_u32(nlh, NFHPA_SETM_VALUE_MIN, m->value_min);
		mnl_attr_put_u32(nlh, NFHPA_SETM_VALUE_MAX, m->value_max);
	}
	if (m->no_count)
		mnl_attr_put_u32(nlh, NFHPA_SETM_FLAGS, NFHP_SETM_F_NO_COUNT);
	if (m->packets_cmp) {
		mnl_attr_put_u8(nlh, NFHPA_SETM_PACKETS_CMP, m->packets_cmp);
		mnl_attr_put_u64(nlh, NFHPA_SETM_PACKETS, m->packets);
	}
	if (m->bytes_cmp) {
		mnl_attr_put_u8(nlh, NFHPA_SETM_BYTES_CMP, m->bytes_cmp);
		mnl_attr_put_u64(nlh, NFHPA_SETM_BYTES, m->bytes);
	}
	mnl_attr_nest_end(nlh, nest);
}

/* NFHPA_RULE_STATE, for a keep-state or check-state rule only. */
static void put_state(struct nlmsghdr *nlh, const struct nfhp_state_spec *st)
{
	struct nlattr *nest;

	if (st->mode == NFHP_RSTATE_NONE)
		return;
	nest = mnl_attr_nest_start(nlh, NFHPA_RULE_STATE);
	mnl_attr_put_u8(nlh, NFHPA_RSTATE_MODE, st->mode);
	if (st->limit) {
		mnl_attr_put_u32(nlh, NFHPA_RSTATE_LIMIT, st->limit);
		mnl_attr_put_u8(nlh, NFHPA_RSTATE_LIMIT_BY, st->limit_by);
	}
	mnl_attr_nest_end(nlh, nest);
}

/**
 * nfhp_nl_put_rule() - put a rule into a request
 * @nlh: the request
 * @spec: the rule
 * @counters: its initial counters, or NULL
 *
 * The caller guarantees NFHP_NL_MSG_MAX bytes of room.
 */
void nfhp_nl_put_rule(struct nlmsghdr *nlh, const struct nfhp_rule_spec *spec,
		      const struct nfhp_counter *counters)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_RULE);
	unsigned int i;

	for (i = 0; i < spec->nmatch && i < NFHP_DIM_MAX; i++)
		put_match(nlh, &spec->m[i]);
	for (i = 0; i < nfhp_spec_nsetm(spec); i++)
		put_setm(nlh, &spec->setm[i]);
	put_state(nlh, &spec->state);
	mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, spec->action);
	if (spec->action == NFHP_ACT_JUMP || spec->action == NFHP_ACT_GOTO)
		mnl_attr_put_strz(nlh, NFHPA_RULE_TARGET, spec->target);
	if (spec->comment[0])
		mnl_attr_put_strz(nlh, NFHPA_RULE_COMMENT, spec->comment);
	if (spec->norder && spec->norder <= sizeof(spec->order))
		mnl_attr_put(nlh, NFHPA_RULE_ORDER, spec->norder, spec->order);
	if (spec->ext_len && spec->ext_len <= sizeof(spec->ext))
		mnl_attr_put(nlh, NFHPA_RULE_XT | NLA_F_NESTED, spec->ext_len,
			     spec->ext);
	if (counters)
		put_counters(nlh, NFHPA_RULE_COUNTERS, counters);
	mnl_attr_nest_end(nlh, nest);
}

/* --- decoding ------------------------------------------------------------ */

/*
 * A listing decodes every attribute of every rule: the walk is inline,
 * without libmnl's callbacks and calls per attribute, which took a
 * fifth of a listing.  It accepts what libmnl's parsing with
 * mnl_attr_validate() accepts: attributes past the end of their nest are
 * ignored (mnl_attr_ok()), unknown types are skipped (a newer kernel may
 * add some), and the known ones must have the length of their type.
 */

/* How a known attribute type is checked, as enum mnl_attr_data_type. */
enum attr_kind {
	ATTR_ANY,	/* MNL_TYPE_BINARY, or not checked */
	ATTR_U8,
	ATTR_U32,
	ATTR_U64,
	ATTR_FLAG,
	ATTR_NUL_STRING,
	ATTR_NESTED,
};

static const u8 counter_kinds[NFHPA_COUNTER_MAX + 1] = {
	[NFHPA_COUNTER_PACKETS] = ATTR_U64,
	[NFHPA_COUNTER_BYTES] = ATTR_U64,
};

static const u8 match_kinds[NFHPA_MATCH_MAX + 1] = {
	[NFHPA_MATCH_DIM] = ATTR_U8,
	[NFHPA_MATCH_FORM] = ATTR_U8,
	[NFHPA_MATCH_SYNTAX] = ATTR_U8,
	[NFHPA_MATCH_PREFIXLEN] = ATTR_U8,
	[NFHPA_MATCH_INVERT] = ATTR_FLAG,
	[NFHPA_MATCH_IFNAME] = ATTR_NUL_STRING,
};

static const u8 setm_kinds[NFHPA_SETM_MAX + 1] = {
	[NFHPA_SETM_NAME] = ATTR_NUL_STRING,
	[NFHPA_SETM_DIR] = ATTR_U8,
	[NFHPA_SETM_INVERT] = ATTR_FLAG,
	[NFHPA_SETM_VALUE_MIN] = ATTR_U32,
	[NFHPA_SETM_VALUE_MAX] = ATTR_U32,
	[NFHPA_SETM_DIR2] = ATTR_U8,
	[NFHPA_SETM_FLAGS] = ATTR_U32,
	[NFHPA_SETM_PACKETS_CMP] = ATTR_U8,
	[NFHPA_SETM_PACKETS] = ATTR_U64,
	[NFHPA_SETM_BYTES_CMP] = ATTR_U8,
	[NFHPA_SETM_BYTES] = ATTR_U64,
};

static const u8 rstate_kinds[NFHPA_RSTATE_MAX + 1] = {
	[NFHPA_RSTATE_MODE] = ATTR_U8,
	[NFHPA_RSTATE_LIMIT] = ATTR_U32,
	[NFHPA_RSTATE_LIMIT_BY] = ATTR_U8,
};

static const u8 rule_kinds[NFHPA_RULE_MAX + 1] = {
	[NFHPA_RULE_MATCH] = ATTR_NESTED,
	[NFHPA_RULE_SETM] = ATTR_NESTED,
	[NFHPA_RULE_STATE] = ATTR_NESTED,
	[NFHPA_RULE_COUNTERS] = ATTR_NESTED,
	[NFHPA_RULE_XT] = ATTR_NESTED,
	[NFHPA_RULE_ACTION] = ATTR_U8,
	[NFHPA_RULE_TARGET] = ATTR_NUL_STRING,
	[NFHPA_RULE_COMMENT] = ATTR_NUL_STRING,
};

static const u8 top_kinds[NFHPA_MAX + 1] = {
	[NFHPA_CHAIN] = ATTR_NUL_STRING,
	[NFHPA_NEW_NAME] = ATTR_NUL_STRING,
	[NFHPA_POS] = ATTR_U32,
	[NFHPA_REFS] = ATTR_U32,
	[NFHPA_POLICY] = ATTR_U8,
	[NFHPA_COUNTERS] = ATTR_NESTED,
	[NFHPA_RULE] = ATTR_NESTED,
};

/* mnl_attr_ok(): @a lies whole within the @len bytes left. */
static inline bool attr_ok(const struct nlattr *a, int len)
{
	return len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= len;
}

/* mnl_attr_next(): the attribute after @a, @len lowered by its room. */
static inline const struct nlattr *attr_next(const struct nlattr *a,
					     int *len)
{
	*len -= MNL_ALIGN(a->nla_len);
	return (const struct nlattr *)((const char *)a +
				       MNL_ALIGN(a->nla_len));
}

static inline const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + MNL_ATTR_HDRLEN;
}

static inline unsigned int attr_len(const struct nlattr *a)
{
	return a->nla_len - MNL_ATTR_HDRLEN;
}

static inline unsigned int attr_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

#define for_each_attr(a, start, len, left)				\
	for ((a) = (start), (left) = (len); attr_ok(a, left);		\
	     (a) = attr_next(a, &(left)))

#define for_each_nested(a, nest, left)					\
	for_each_attr(a, (const struct nlattr *)attr_data(nest),	\
		      (int)attr_len(nest), left)

static inline u8 attr_u8(const struct nlattr *a)
{
	return *(const u8 *)attr_data(a);
}

static inline u32 attr_u32(const struct nlattr *a)
{
	u32 v;

	memcpy(&v, attr_data(a), sizeof(v));
	return v;
}

static inline u64 attr_u64(const struct nlattr *a)
{
	u64 v;

	memcpy(&v, attr_data(a), sizeof(v));
	return v;
}

/* mnl_attr_validate() of the kind of a known attribute. */
static inline bool attr_valid(const struct nlattr *a, u8 kind)
{
	unsigned int len = attr_len(a);

	switch (kind) {
	case ATTR_U8:
		return len == 1;
	case ATTR_U32:
		return len == 4;
	case ATTR_U64:
		return len == 8;
	case ATTR_FLAG:
		return !len;
	case ATTR_NUL_STRING:
		return len && !((const char *)attr_data(a))[len - 1];
	case ATTR_NESTED:
		return !len || len >= MNL_ATTR_HDRLEN;
	}
	return true;
}

/*
 * Index the attributes of @len bytes at @start into @tb (zeroed, @max + 1
 * entries) as mnl_attr_parse() with a validating callback would; the last
 * of a repeated type wins.  Return: 0, or -EINVAL for a known attribute
 * that does not pass attr_valid().
 */
static int attr_index(const struct nlattr *start, int len, const u8 *kinds,
		      unsigned int max, const struct nlattr **tb)
{
	const struct nlattr *a;
	int left;

	for_each_attr(a, start, len, left) {
		unsigned int type = attr_type(a);

		if (type > max)
			continue;
		if (!attr_valid(a, kinds[type]))
			return -EINVAL;
		tb[type] = a;
	}
	return 0;
}

static int attr_index_nested(const struct nlattr *nest, const u8 *kinds,
			     unsigned int max, const struct nlattr **tb)
{
	return attr_index(attr_data(nest), attr_len(nest), kinds, max, tb);
}

static int parse_counters(const struct nlattr *nest, struct nfhp_counter *c)
{
	const struct nlattr *tb[NFHPA_COUNTER_MAX + 1] = {};

	if (attr_index_nested(nest, counter_kinds, NFHPA_COUNTER_MAX, tb))
		return -EINVAL;
	c->packets = tb[NFHPA_COUNTER_PACKETS] ?
		     attr_u64(tb[NFHPA_COUNTER_PACKETS]) : 0;
	c->bytes = tb[NFHPA_COUNTER_BYTES] ?
		   attr_u64(tb[NFHPA_COUNTER_BYTES]) : 0;
	return 0;
}

static int parse_ranges(const struct nlattr *attr, struct nfhp_dim_match *m,
			unsigned int *n)
{
	const struct nfhp_uapi_range *r = attr_data(attr);
	unsigned int i, len = attr_len(attr);

	if (!len || len % sizeof(*r) || len / sizeof(*r) > NFHP_MAX_RANGES)
		return -EINVAL;
	*n = len / sizeof(*r);
	for (i = 0; i < *n; i++) {
		struct nfhp_uapi_range one;

		/* The payload is only 4-byte aligned. */
		memcpy(&one, &r[i], sizeof(one));
		m->ranges[i].lo = get_u128(one.lo);
		m->ranges[i].hi = get_u128(one.hi);
	}
	return 0;
}

static int parse_match(const struct nlattr *nest, struct nfhp_dim_match *m)
{
	const struct nlattr *tb[NFHPA_MATCH_MAX + 1] = {};
	unsigned int n = 0;

	if (attr_index_nested(nest, match_kinds, NFHPA_MATCH_MAX, tb))
		return -EINVAL;
	if (!tb[NFHPA_MATCH_DIM] || !tb[NFHPA_MATCH_FORM])
		return -EINVAL;
	m->dim = attr_u8(tb[NFHPA_MATCH_DIM]);
	m->form = attr_u8(tb[NFHPA_MATCH_FORM]);
	if (m->dim >= NFHP_DIM_MAX || m->form >= NFHP_FORM_MAX)
		return -EINVAL;
	/* Every field but the unused ranges, see nfhp_nl_parse_rule(). */
	m->syntax = tb[NFHPA_MATCH_SYNTAX] ?
		    attr_u8(tb[NFHPA_MATCH_SYNTAX]) : 0;
	m->invert = !!tb[NFHPA_MATCH_INVERT];
	m->nranges = 0;
	m->ifname[0] = '\0';
	if (tb[NFHPA_MATCH_RANGES] &&
	    parse_ranges(tb[NFHPA_MATCH_RANGES], m, &n) < 0)
		return -EINVAL;

	switch (m->form) {
	case NFHP_FORM_RANGES:
		if (!n)
			return -EINVAL;
		m->nranges = n;
		break;
	case NFHP_FORM_PREFIX:
		if (!n || !tb[NFHPA_MATCH_PREFIXLEN])
			return -EINVAL;
		m->nranges = attr_u8(tb[NFHPA_MATCH_PREFIXLEN]);
		break;
	case NFHP_FORM_MASK:
		if (!n)
			return -EINVAL;
		break;
	case NFHP_FORM_IFNAME:
		if (!tb[NFHPA_MATCH_IFNAME] ||
		    attr_len(tb[NFHPA_MATCH_IFNAME]) > sizeof(m->ifname))
			return -EINVAL;
		strcpy(m->ifname, attr_data(tb[NFHPA_MATCH_IFNAME]));
		break;
	}
	return 0;
}

/*
 * A set match's compare of one count: both attributes or neither, a
 * known compare.
 */
static int parse_setm_cmp(const struct nlattr *cmp_attr,
			  const struct nlattr *num_attr, u8 *cmp, u64 *n)
{
	*cmp = NFHP_SETM_CMP_NONE;
	*n = 0;
	if (!cmp_attr != !num_attr)
		return -EINVAL;
	if (!cmp_attr)
		return 0;
	*cmp = attr_u8(cmp_attr);
	*n = attr_u64(num_attr);
	return *cmp >= NFHP_SETM_CMP_EQ && *cmp <= NFHP_SETM_CMP_GT ?
	       0 : -EINVAL;
}

/* One NFHPA_RULE_SETM, as the kernel checks it. */
static int parse_setm(const struct nlattr *nest, struct nfhp_setm_spec *m)
{
	const struct nlattr *tb[NFHPA_SETM_MAX + 1] = {};

	if (attr_index_nested(nest, setm_kinds, NFHPA_SETM_MAX, tb))
		return -EINVAL;
	if (!tb[NFHPA_SETM_NAME] || !tb[NFHPA_SETM_DIR] ||
	    attr_len(tb[NFHPA_SETM_NAME]) > sizeof(m->name))
		return -EINVAL;
	strcpy(m->name, attr_data(tb[NFHPA_SETM_NAME]));
	m->dir = attr_u8(tb[NFHPA_SETM_DIR]);
	/* The port directions of a number set, as another client sent them. */
	if (m->dir > NFHP_SETM_DPORT)
		return -EINVAL;
	m->has_dir2 = !!tb[NFHPA_SETM_DIR2];
	m->dir2 = m->has_dir2 ? attr_u8(tb[NFHPA_SETM_DIR2]) : 0;
	if (m->dir2 > NFHP_SETM_DPORT)
		return -EINVAL;
	m->invert = !!tb[NFHPA_SETM_INVERT];
	m->has_value = tb[NFHPA_SETM_VALUE_MIN] && tb[NFHPA_SETM_VALUE_MAX];
	if (m->has_value) {
		m->value_min = attr_u32(tb[NFHPA_SETM_VALUE_MIN]);
		m->value_max = attr_u32(tb[NFHPA_SETM_VALUE_MAX]);
	}
	m->no_count = tb[NFHPA_SETM_FLAGS] &&
		      attr_u32(tb[NFHPA_SETM_FLAGS]) & NFHP_SETM_F_NO_COUNT;
	return parse_setm_cmp(tb[NFHPA_SETM_PACKETS_CMP],
			      tb[NFHPA_SETM_PACKETS], &m->packets_cmp,
			      &m->packets) ?:
	       parse_setm_cmp(tb[NFHPA_SETM_BYTES_CMP], tb[NFHPA_SETM_BYTES],
			      &m->bytes_cmp, &m->bytes);
}

/*
 * NFHPA_RULE_STATE, as the kernel checks it: a known mode, a limit of 1
 * or more on keep-state only, its fields (NFHP_STATE_LIMIT_SRC_ADDR when
 * absent) with it only.
 */
static int parse_state(const struct nlattr *nest, struct nfhp_state_spec *st)
{
	const struct nlattr *tb[NFHPA_RSTATE_MAX + 1] = {};

	if (attr_index_nested(nest, rstate_kinds, NFHPA_RSTATE_MAX, tb))
		return -EINVAL;
	if (!tb[NFHPA_RSTATE_MODE])
		return -EINVAL;
	st->mode = attr_u8(tb[NFHPA_RSTATE_MODE]);
	if (st->mode != NFHP_RSTATE_KEEP && st->mode != NFHP_RSTATE_CHECK)
		return -EINVAL;
	if (!tb[NFHPA_RSTATE_LIMIT])
		return tb[NFHPA_RSTATE_LIMIT_BY] ? -EINVAL : 0;
	st->limit = attr_u32(tb[NFHPA_RSTATE_LIMIT]);
	st->limit_by = tb[NFHPA_RSTATE_LIMIT_BY] ?
		       attr_u8(tb[NFHPA_RSTATE_LIMIT_BY]) :
		       NFHP_STATE_LIMIT_SRC_ADDR;
	if (st->mode != NFHP_RSTATE_KEEP || !st->limit || !st->limit_by ||
	    (st->limit_by & ~NFHP_STATE_LIMIT_ALL))
		return -EINVAL;
	return 0;
}

/*
 * The matches of a rule, in the walk that indexes its other attributes:
 * NFHPA_RULE_MATCH and NFHPA_RULE_SETM repeat.
 */
static int parse_rule_attrs(const struct nlattr *rule,
			    struct nfhp_rule_spec *spec,
			    const struct nlattr **tb)
{
	const struct nlattr *attr;
	int left;

	for_each_nested(attr, rule, left) {
		unsigned int type = attr_type(attr);
		struct nfhp_dim_match *m;

		if (type > NFHPA_RULE_MAX)
			continue;
		if (!attr_valid(attr, rule_kinds[type]))
			return -EINVAL;
		if (type == NFHPA_RULE_STATE && tb[type])
			return -EINVAL;		/* at most one */
		tb[type] = attr;
		if (type == NFHPA_RULE_SETM) {
			if (spec->nsetm >= NFHP_MAX_SETM ||
			    parse_setm(attr, &spec->setm[spec->nsetm]) < 0)
				return -EINVAL;
			spec->nsetm++;
			continue;
		}
		if (type != NFHPA_RULE_MATCH)
			continue;
		if (spec->nmatch >= NFHP_DIM_MAX)
			return -EINVAL;
		m = &spec->m[spec->nmatch];
		if (parse_match(attr, m) < 0)
			return -EINVAL;
		/* Sorted by dimension, one match per dimension. */
		if (spec->nmatch && m->dim <= spec->m[spec->nmatch - 1].dim)
			return -EINVAL;
		spec->nmatch++;
	}
	return 0;
}

/*
 * NFHPA_RULE_XT: the payload as it is, once it is known to be a sequence
 * of well-formed attributes that fits.
 */
static int copy_xt(struct nfhp_rule_spec *spec, const struct nlattr *nest)
{
	const struct nlattr *attr;
	size_t len = attr_len(nest);
	size_t seen = 0;
	int left;

	if (len > sizeof(spec->ext))
		return -EINVAL;
	for_each_nested(attr, nest, left)
		seen = (const char *)attr + MNL_ALIGN(attr->nla_len) -
		       (const char *)attr_data(nest);
	if (seen < len)		/* trailing bytes no attribute covers */
		return -EINVAL;
	memcpy(spec->ext, attr_data(nest), len);
	spec->ext_len = len;
	return 0;
}

/* NFHPA_RULE_ORDER: as the kernel checks it, 1 to NFHP_MAX_ORDER modules. */
static int copy_order(struct nfhp_rule_spec *spec, const struct nlattr *attr)
{
	const u8 *order = attr_data(attr);
	size_t i, len = attr_len(attr);

	if (len < 1 || len > sizeof(spec->order))
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (order[i] >= NFHP_MOD_MAX)
			return -EINVAL;
	memcpy(spec->order, order, len);
	spec->norder = len;
	return 0;
}

static int copy_str(char *dst, size_t size, const struct nlattr *attr)
{
	if (attr_len(attr) > size)
		return -EINVAL;
	strcpy(dst, attr_data(attr));
	return 0;
}

/**
 * nfhp_nl_parse_rule() - rebuild a rule from its NFHPA_RULE attribute
 * @attr: the NFHPA_RULE attribute
 * @spec: the rule, overwritten
 * @counters: its counters (zero when absent), or NULL
 *
 * Every field is written but what no reader looks at, as in the kernel:
 * the ranges past those a match holds (nfhp_match_stored_ranges()), the
 * matches past @nmatch, the bytes past the strings' NUL, @norder and
 * @ext_len.  Zeroing the whole 11 KiB took a listing a fifth of its time.
 *
 * Return: 0, or -EINVAL when the attribute is malformed.
 */
int nfhp_nl_parse_rule(const struct nlattr *attr, struct nfhp_rule_spec *spec,
		       struct nfhp_counter *counters)
{
	const struct nlattr *tb[NFHPA_RULE_MAX + 1] = {};

	spec->nmatch = 0;
	spec->nsetm = 0;
	spec->target[0] = '\0';
	spec->comment[0] = '\0';
	spec->norder = 0;
	spec->ext_len = 0;
	memset(&spec->state, 0, sizeof(spec->state));
	if (parse_rule_attrs(attr, spec, tb) < 0)
		return -EINVAL;
	if (!tb[NFHPA_RULE_ACTION])
		return -EINVAL;
	spec->action = attr_u8(tb[NFHPA_RULE_ACTION]);
	if (spec->action >= NFHP_ACT_MAX)
		return -EINVAL;
	if (tb[NFHPA_RULE_TARGET] &&
	    copy_str(spec->target, sizeof(spec->target), tb[NFHPA_RULE_TARGET]))
		return -EINVAL;
	if (tb[NFHPA_RULE_COMMENT] &&
	    copy_str(spec->comment, sizeof(spec->comment),
		     tb[NFHPA_RULE_COMMENT]))
		return -EINVAL;
	if (tb[NFHPA_RULE_XT] && copy_xt(spec, tb[NFHPA_RULE_XT]))
		return -EINVAL;
	if (tb[NFHPA_RULE_ORDER] && copy_order(spec, tb[NFHPA_RULE_ORDER]))
		return -EINVAL;
	if (tb[NFHPA_RULE_STATE] &&
	    parse_state(tb[NFHPA_RULE_STATE], &spec->state))
		return -EINVAL;
	if (counters) {
		memset(counters, 0, sizeof(*counters));
		if (tb[NFHPA_RULE_COUNTERS] &&
		    parse_counters(tb[NFHPA_RULE_COUNTERS], counters) < 0)
			return -EINVAL;
	}
	return 0;
}

static int dump_chain(const struct nlattr **tb,
		      const struct nfhp_nl_dump_ops *ops, void *data)
{
	struct nfhp_nl_chain c = {
		.name = attr_data(tb[NFHPA_CHAIN]),
		.builtin = !!tb[NFHPA_POLICY],
	};

	if (tb[NFHPA_POLICY])
		c.policy = attr_u8(tb[NFHPA_POLICY]);
	if (tb[NFHPA_REFS])
		c.refs = attr_u32(tb[NFHPA_REFS]);
	if (tb[NFHPA_COUNTERS] &&
	    parse_counters(tb[NFHPA_COUNTERS], &c.counters) < 0)
		return -EINVAL;
	return ops->chain ? ops->chain(data, &c) : 0;
}

static int dump_rule(const struct nlattr **tb,
		     const struct nfhp_nl_dump_ops *ops, void *data)
{
	struct nfhp_rule_spec *spec;
	struct nfhp_counter c;
	int ret;

	if (!tb[NFHPA_POS])
		return -EINVAL;
	/* About 11 KiB: not for the stack of a callback. */
	spec = malloc(sizeof(*spec));
	if (!spec)
		return -ENOMEM;
	ret = nfhp_nl_parse_rule(tb[NFHPA_RULE], spec, &c);
	if (!ret && ops->rule)
		ret = ops->rule(data, attr_data(tb[NFHPA_CHAIN]),
				attr_u32(tb[NFHPA_POS]), spec, &c);
	free(spec);
	return ret;
}

/**
 * nfhp_nl_dump_msg() - hand one LIST answer to the dump callbacks
 * @nlh: a message of the dump
 * @ops: the callbacks
 * @data: their argument
 *
 * A message with NFHPA_RULE is a rule, one without is a chain.
 *
 * Return: 0, a callback's non-zero value, or -EINVAL/-ENOMEM.
 */
int nfhp_nl_dump_msg(const struct nlmsghdr *nlh,
		     const struct nfhp_nl_dump_ops *ops, void *data)
{
	const struct nlattr *tb[NFHPA_MAX + 1] = {};
	size_t hdr = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct genlmsghdr));

	if (attr_index((const struct nlattr *)((const char *)nlh + hdr),
		       (int)nlh->nlmsg_len - (int)hdr, top_kinds, NFHPA_MAX,
		       tb))
		return -EINVAL;
	if (!tb[NFHPA_CHAIN])
		return -EINVAL;
	if (tb[NFHPA_RULE])
		return dump_rule(tb, ops, data);
	return dump_chain(tb, ops, data);
}

static bool match_equal(const struct nfhp_dim_match *a,
			const struct nfhp_dim_match *b)
{
	unsigned int i, n = match_nranges(a);

	if (a->dim != b->dim || a->form != b->form ||
	    a->syntax != b->syntax || a->invert != b->invert)
		return false;
	/* nranges is a count or a prefix length; mask and name ignore it. */
	if ((a->form == NFHP_FORM_RANGES || a->form == NFHP_FORM_PREFIX) &&
	    a->nranges != b->nranges)
		return false;
	if (a->form == NFHP_FORM_IFNAME)
		return !strcmp(a->ifname, b->ifname);
	for (i = 0; i < n && i < NFHP_MAX_RANGES; i++)
		if (a->ranges[i].lo != b->ranges[i].lo ||
		    a->ranges[i].hi != b->ranges[i].hi)
			return false;
	return true;
}

/* The limit's fields count only with a limit. */
static bool state_equal(const struct nfhp_state_spec *a,
			const struct nfhp_state_spec *b)
{
	return a->mode == b->mode && a->limit == b->limit &&
	       (!a->limit || a->limit_by == b->limit_by);
}

/**
 * nfhp_nl_spec_equal() - are two rules the same?
 * @a: a rule
 * @b: another rule
 *
 * Compares what the wire format carries, so that a rule parsed from the
 * command line equals the same rule read back from the kernel.  The
 * written order of the native matches (NFHPA_RULE_ORDER) counts, as the
 * kernel compares it too and iptables -D takes a rule whose matches come
 * in another order for another rule.
 *
 * Return: true when they are equal.
 */
bool nfhp_nl_spec_equal(const struct nfhp_rule_spec *a,
			const struct nfhp_rule_spec *b)
{
	unsigned int i;

	if (a->nmatch != b->nmatch || a->action != b->action ||
	    strcmp(a->comment, b->comment) || a->norder != b->norder ||
	    a->norder > sizeof(a->order) ||
	    memcmp(a->order, b->order, a->norder) ||
	    a->ext_len != b->ext_len ||
	    a->ext_len > sizeof(a->ext) ||
	    memcmp(a->ext, b->ext, a->ext_len))
		return false;
	if ((a->action == NFHP_ACT_JUMP || a->action == NFHP_ACT_GOTO) &&
	    strcmp(a->target, b->target))
		return false;
	if (!state_equal(&a->state, &b->state))
		return false;
	for (i = 0; i < a->nmatch && i < NFHP_DIM_MAX; i++)
		if (!match_equal(&a->m[i], &b->m[i]))
			return false;
	if (nfhp_spec_nsetm(a) != nfhp_spec_nsetm(b))
		return false;
	for (i = 0; i < nfhp_spec_nsetm(a); i++)
		if (strcmp(a->setm[i].name, b->setm[i].name) ||
		    a->setm[i].dir != b->setm[i].dir ||
		    !a->setm[i].invert != !b->setm[i].invert ||
		    !a->setm[i].has_value != !b->setm[i].has_value ||
		    (a->setm[i].has_value &&
		     (a->setm[i].value_min != b->setm[i].value_min ||
		      a->setm[i].value_max != b->setm[i].value_max)))
			return false;
	return true;
}

/* --- errors ---------------------------------------------------------------- */

/**
 * nfhp_nl_strerror() - iptables' wording of a kernel error
 * @cmd: &enum nfhp_cmd of the failed request
 * @by_spec: the request was a delete by rule
 * @err: the positive errno
 * @exit_code: set to the exit code iptables uses for it
 *
 * The messages are those of iptables-legacy (libiptc), which knows the
 * command that failed; errors it has no words for get strerror().
 *
 * Return: the message, without the final period.
 */
const char *nfhp_nl_strerror(int cmd, bool by_spec, int err, int *exit_code)
{
	*exit_code = NFHP_EXIT_OTHER;
	switch (err) {
	case EPERM:
	case EACCES:
		*exit_code = NFHP_EXIT_RESOURCE;
		return "Permission denied (you must be root)";
	case ENOMEM:
	case ENOBUFS:
	case ENOSPC:
		*exit_code = NFHP_EXIT_RESOURCE;
		return "Memory allocation problem";
	case EAGAIN:
		*exit_code = NFHP_EXIT_RESOURCE;
		break;
	case EBUSY:
		/* Another tool's transaction, like iptables' xtables lock. */
		*exit_code = NFHP_EXIT_RESOURCE;
		return "Another app is currently holding the nf-hipac transaction. Perhaps you want to use the -w option?";
	case EEXIST:
		if (cmd == NFHP_CMD_NEW_CHAIN)
			return "Chain already exists";
		return "File exists";
	case ENOENT:
		if (cmd == NFHP_CMD_DELETE && by_spec)
			return "Bad rule (does a matching rule exist in that chain?)";
		if (cmd == NFHP_CMD_POLICY)
			return "Bad built-in chain name";
		return "No chain/target/match by that name";
	case E2BIG:
	case ERANGE:
		switch (cmd) {
		case NFHP_CMD_INSERT:
			return "Index of insertion too big";
		case NFHP_CMD_DELETE:
			return "Index of deletion too big";
		case NFHP_CMD_REPLACE:
			return "Index of replacement too big";
		case NFHP_CMD_ZERO:
			return "Index of counter too big";
		}
		break;
	case ENOTEMPTY:
		return "Directory not empty";
	case EMLINK:
		return "Too many links";
	case ELOOP:
		return "Too many levels of symbolic links";
	case EOPNOTSUPP:
		if (cmd == NFHP_CMD_POLICY)
			return "Bad built-in chain name";
		break;
	case EINVAL:
		/* The parser refuses policies other than ACCEPT and DROP. */
		if (cmd == NFHP_CMD_POLICY)
			return "Bad built-in chain name";
		break;
	}
	return strerror(err);
}

/**
 * nfhp_nl_report_failure() - print a failure the way iptables does
 * @f: the failure
 * @prog: the program name for the message prefix
 *
 * The first line is iptables' ("nf-hipac: Chain already exists."), the
 * second the kernel's own explanation, when it gave one.
 *
 * Return: the exit code for the failure.
 */
int nfhp_nl_report_failure(const struct nfhp_nl_failure *f, const char *prog)
{
	int code, err = -f->err;
	const char *msg;

	if (!err)
		return NFHP_EXIT_OK;
	/*
	 * A listing without the right to it: iptables-legacy fails to read
	 * the table ("iptables v1.8.9 (legacy): can't initialize iptables
	 * table `filter': Permission denied (you must be root)").  The exit
	 * code is that of a refused change.
	 */
	if (f->cmd == NFHP_CMD_LIST && (err == EPERM || err == EACCES)) {
		fprintf(stderr,
			"%s: can't initialize nf-hipac table `filter': %s\n",
			prog, nfhp_nl_strerror(f->cmd, false, err, &code));
		return code;
	}
	/*
	 * The core refuses to delete or rename a built-in chain with EPERM
	 * and says why; genetlink's permission check says nothing.  Word the
	 * former as iptables does.
	 */
	if (err == EPERM && f->ext_msg[0])
		err = f->cmd == NFHP_CMD_RENAME_CHAIN ? ENOENT : EINVAL;
	msg = nfhp_nl_strerror(f->cmd, f->by_spec, err, &code);
	if (err == EBUSY && f->waited)
		fprintf(stderr,
			"%s: Another app is currently holding the nf-hipac transaction. Stopped waiting after %us.\n",
			prog, f->waited);
	else
		fprintf(stderr, "%s: %s.\n", prog, msg);
	if (f->ext_msg[0])
		fprintf(stderr, "%s: kernel: %s\n", prog, f->ext_msg);
	/* Sending it again could apply it twice (-A). */
	if (f->lost)
		fprintf(stderr,
			"%s: the kernel's answer was lost: the change may have taken effect, check with -L or nf-hipac-save\n",
			prog);
	return code;
}

int nfhp_nl_report(const struct nfhp_nl *nl, const char *prog)
{
	return nfhp_nl_report_failure(&nl->fail, prog);
}

void nfhp_nl_get_failure(const struct nfhp_nl *nl, struct nfhp_nl_failure *f)
{
	*f = nl->fail;
}

int nfhp_nl_error(const struct nfhp_nl *nl)
{
	return nl->fail.err;
}

const char *nfhp_nl_ext_msg(const struct nfhp_nl *nl)
{
	return nl->fail.ext_msg;
}

unsigned long nfhp_nl_failed_tag(const struct nfhp_nl *nl)
{
	return nl->fail.tag;
}

void nfhp_nl_set_tag(struct nfhp_nl *nl, unsigned long tag)
{
	nl->tag = tag;
}

void nfhp_nl_set_family(struct nfhp_nl *nl, u8 family)
{
	nl->ip_family = family;
}

u8 nfhp_nl_family(const struct nfhp_nl *nl)
{
	return nl->ip_family;
}

void nfhp_nl_set_wait(struct nfhp_nl *nl, unsigned int seconds,
		      unsigned long interval_us)
{
	nl->wait = true;
	nl->wait_seconds = seconds;
	nl->wait_interval_us = interval_us;
}

/* Keep the first failure only: later ones are usually its consequences. */
static void set_error(struct nfhp_nl *nl, int err, int cmd, bool by_spec,
		      unsigned long tag, const char *ext_msg)
{
	if (nl->fail.err)
		return;
	nl->fail.err = err;
	nl->fail.cmd = cmd;
	nl->fail.by_spec = by_spec;
	nl->fail.tag = tag;
	snprintf(nl->fail.ext_msg, sizeof(nl->fail.ext_msg), "%s",
		 ext_msg ? ext_msg : "");
}

static int ext_ack_cb(const struct nlattr *attr, void *data)
{
	const char **msg = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		*msg = mnl_attr_get_str(attr);
	return MNL_CB_OK;
}

/*
 * The extended ack message of an NLMSG_ERROR (or of the NLMSG_DONE that
 * ends a failed dump), NULL if none.  Its TLVs follow the error code and
 * the echoed request, of which only the header is echoed when capped.
 */
static const char *ext_ack_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	unsigned int off = sizeof(*e);
	const char *msg = NULL;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	if (nlh->nlmsg_type == NLMSG_DONE)
		off = sizeof(int);
	else if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += mnl_nlmsg_get_payload_len(&e->msg);
	if (mnl_nlmsg_get_payload_len(nlh) < off)
		return NULL;
	mnl_attr_parse(nlh, off, ext_ack_cb, &msg);
	return msg;
}

/* --- requests -------------------------------------------------------------- */

static struct nlmsghdr *put_request(struct nfhp_nl *nl, void *buf, u8 cmd,
				    u16 flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = NFHP_GENL_VERSION;
	/* IPv4 goes without, which kernels before IPv6 understand too. */
	if (nl->ip_family == NFHP_FAMILY_IPV6)
		mnl_attr_put_u8(nlh, NFHPA_FAMILY, NFHP_FAMILY_IPV6);
	return nlh;
}

/*
 * Read answers until the one to @stop_seq, recording a failure.  Returns 0
 * or -errno of a socket failure.
 */
static int read_answers(struct nfhp_nl *nl, u32 stop_seq)
{
	for (;;) {
		const struct nlmsghdr *nlh;
		int len;

		len = recv(mnl_socket_get_fd(nl->sock), nl->buf,
			   NFHP_NL_RECV_SIZE, 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		nlh = (const struct nlmsghdr *)nl->buf;
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct nlmsgerr *e;

			/* Answers to an earlier, aborted batch are stale. */
			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    nlh->nlmsg_seq != stop_seq)
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			if (e->error)
				set_error(nl, e->error, nl->fail.cmd,
					  nl->fail.by_spec, nl->tag,
					  ext_ack_msg(nlh));
			return 0;
		}
	}
}

/*
 * Read the answers of batch @b that are waiting, the failures of its
 * requests (a batch asks for no acks), and record them.  Returns 0 or
 * -errno of a socket failure.
 */
static int read_batch_answers(struct nfhp_nl *nl,
			      const struct nfhp_nl_batch *b)
{
	for (;;) {
		const struct nlmsghdr *nlh;
		int len;

		len = recv(mnl_socket_get_fd(nl->sock), nl->rbuf,
			   NFHP_NL_RECV_SIZE, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		nlh = (const struct nlmsghdr *)nl->rbuf;
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct nfhp_nl_slot *slot;
			const struct nlmsgerr *e;
			u32 i = nlh->nlmsg_seq - b->first_seq;

			if (nlh->nlmsg_type != NLMSG_ERROR || i >= b->nslots)
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			slot = &b->slots[i];
			pthread_mutex_lock(&nl->lock);
			set_error(nl, e->error, slot->cmd, slot->by_spec,
				  slot->tag, ext_ack_msg(nlh));
			pthread_mutex_unlock(&nl->lock);
		}
	}
}

static int send_buf(struct nfhp_nl *nl, const void *buf, size_t len)
{
	if (mnl_socket_sendto(nl->sock, buf, len) < 0)
		return -errno;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Send one acknowledged request and wait for the answer.  nl->fail.cmd and
 * nl->fail.by_spec describe the request until it is answered.
 */
static int transact_once(struct nfhp_nl *nl, struct nlmsghdr *nlh,
			 bool by_spec)
{
	u8 cmd = ((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd;
	int ret;

	nl->fail.err = 0;
	nl->fail.waited = 0;
	nl->fail.ext_msg[0] = '\0';
	nl->fail.lost = false;
	nl->fail.cmd = cmd;
	nl->fail.by_spec = by_spec;
	ret = send_buf(nl, nlh, nlh->nlmsg_len);
	if (!ret) {
		ret = read_answers(nl, nlh->nlmsg_seq);
		nl->fail.lost = ret;	/* sent: it may have taken effect */
	}
	if (ret)
		set_error(nl, ret, cmd, by_spec, nl->tag, NULL);
	return nl->fail.err;
}

/*
 * transact_once(), and with nl->wait again while another process's
 * transaction refuses it.  Nothing of a refused request took effect, so
 * sending it again is safe.  The answer overwrites the request in
 * nl->buf: a copy is sent.
 */
static int transact(struct nfhp_nl *nl, struct nlmsghdr *nlh, bool by_spec)
{
	unsigned long us = nl->wait_interval_us ? : 1000000;
	double start = now_s();
	struct nlmsghdr *copy;
	struct timespec ts;
	int ret;

	if (!nl->wait)
		return transact_once(nl, nlh, by_spec);
	copy = malloc(nlh->nlmsg_len);
	if (!copy)
		return transact_once(nl, nlh, by_spec);
	memcpy(copy, nlh, nlh->nlmsg_len);
	while ((ret = transact_once(nl, copy, by_spec)) == -EBUSY) {
		if (nl->wait_seconds &&
		    now_s() - start + us / 1e6 > nl->wait_seconds) {
			nl->fail.waited = nl->wait_seconds;
			break;
		}
		ts.tv_sec = us / 1000000;
		ts.tv_nsec = us % 1000000 * 1000;
		nanosleep(&ts, NULL);
	}
	free(copy);
	return ret;
}

/*
 * Batches: a restore queues its requests in one batch while the sender
 * thread sends the other (batch_sender()), so that parsing the rules and
 * the kernel taking them in overlap.  After a failure the queued requests
 * are dropped instead of sent, since the caller aborts the transaction:
 * the failure reported is the first one either way.
 */

static void batch_reset(struct nfhp_nl_batch *b)
{
	mnl_nlmsg_batch_reset(b->mb);
	b->nslots = 0;
}

/* Send @b and record the failures of its requests. */
static void batch_send(struct nfhp_nl *nl, const struct nfhp_nl_batch *b)
{
	size_t len = mnl_nlmsg_batch_size(b->mb);
	int ret;

	if (!len)
		return;
	ret = send_buf(nl, mnl_nlmsg_batch_head(b->mb), len);
	if (!ret)
		ret = read_batch_answers(nl, b);
	if (ret) {
		pthread_mutex_lock(&nl->lock);
		set_error(nl, ret, NFHP_CMD_UNSPEC, false,
			  b->slots[b->nslots - 1].tag, NULL);
		pthread_mutex_unlock(&nl->lock);
	}
}

/* The sender thread: sends each batch handed over in @nl->sending. */
static void *batch_sender(void *arg)
{
	struct nfhp_nl *nl = arg;
	struct nfhp_nl_batch *b;

	pthread_mutex_lock(&nl->lock);
	for (;;) {
		while (!nl->sending && !nl->stop)
			pthread_cond_wait(&nl->cond, &nl->lock);
		b = nl->sending;
		if (!b)
			break;
		pthread_mutex_unlock(&nl->lock);
		batch_send(nl, b);
		pthread_mutex_lock(&nl->lock);
		batch_reset(b);
		nl->sending = NULL;
		pthread_cond_broadcast(&nl->cond);
	}
	pthread_mutex_unlock(&nl->lock);
	return NULL;
}

/* The first failure so far, as the sender may be recording one. */
static int batch_failed(struct nfhp_nl *nl)
{
	int err;

	pthread_mutex_lock(&nl->lock);
	err = nl->fail.err;
	pthread_mutex_unlock(&nl->lock);
	return err;
}

/*
 * Hand the batch being filled to the sender, once it is done with the
 * other, and fill that one.  Without a sender, send it in place.
 */
static void batch_flush(struct nfhp_nl *nl)
{
	struct nfhp_nl_batch *b = nl->batch;

	if (!nl->sender_up) {
		batch_send(nl, b);
		batch_reset(b);
		return;
	}
	pthread_mutex_lock(&nl->lock);
	while (nl->sending)
		pthread_cond_wait(&nl->cond, &nl->lock);
	if (nl->fail.err || !b->nslots) {
		batch_reset(b);
	} else {
		nl->sending = b;
		nl->batch = b == &nl->bat[0] ? &nl->bat[1] : &nl->bat[0];
		pthread_cond_broadcast(&nl->cond);
	}
	pthread_mutex_unlock(&nl->lock);
}

/* Wait for the sender to finish, stop it and leave batch mode. */
static void batch_leave(struct nfhp_nl *nl)
{
	if (nl->sender_up) {
		pthread_mutex_lock(&nl->lock);
		nl->stop = true;
		pthread_cond_broadcast(&nl->cond);
		pthread_mutex_unlock(&nl->lock);
		pthread_join(nl->sender, NULL);
		nl->sender_up = false;
	}
	batch_reset(nl->batch);
	nl->batch = NULL;
}

/*
 * Start a request: in its own buffer, or at the end of the batch (sent
 * first when a request might not fit).
 */
static struct nlmsghdr *start(struct nfhp_nl *nl, u8 cmd)
{
	struct nfhp_nl_batch *b = nl->batch;

	if (!b)
		return put_request(nl, nl->buf, cmd, NLM_F_ACK);
	if (mnl_nlmsg_batch_size(b->mb) + NFHP_NL_MSG_MAX >
	    NFHP_NL_BATCH_SIZE || b->nslots == NFHP_NL_BATCH_SLOTS) {
		batch_flush(nl);
		b = nl->batch;
	}
	if (!b->nslots)
		b->first_seq = nl->seq + 1;
	return put_request(nl, mnl_nlmsg_batch_current(b->mb), cmd, 0);
}

/* Finish a request: send it, or leave it queued in the batch. */
static int finish(struct nfhp_nl *nl, struct nlmsghdr *nlh, bool by_spec)
{
	struct nfhp_nl_batch *b = nl->batch;
	struct nfhp_nl_slot *slot;

	if (!b)
		return transact(nl, nlh, by_spec);
	slot = &b->slots[b->nslots++];
	slot->tag = nl->tag;
	slot->cmd = ((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd;
	slot->by_spec = by_spec;
	mnl_nlmsg_batch_next(b->mb);
	return batch_failed(nl);
}

static void put_chain(struct nlmsghdr *nlh, u16 type, const char *chain)
{
	if (chain)
		mnl_attr_put_strz(nlh, type, chain);
}

static int rule_request(struct nfhp_nl *nl, u8 cmd, const char *chain,
			unsigned int pos, const struct nfhp_rule_spec *spec,
			const struct nfhp_counter *counters)
{
	struct nlmsghdr *nlh = start(nl, cmd);

	put_chain(nlh, NFHPA_CHAIN, chain);
	if (pos)
		mnl_attr_put_u32(nlh, NFHPA_POS, pos);
	if (spec)
		nfhp_nl_put_rule(nlh, spec, counters);
	return finish(nl, nlh, cmd == NFHP_CMD_DELETE && spec);
}

static int chain_request(struct nfhp_nl *nl, u8 cmd, const char *chain)
{
	struct nlmsghdr *nlh = start(nl, cmd);

	put_chain(nlh, NFHPA_CHAIN, chain);
	return finish(nl, nlh, false);
}

int nfhp_nl_append(struct nfhp_nl *nl, const char *chain,
		   const struct nfhp_rule_spec *spec,
		   const struct nfhp_counter *counters)
{
	return rule_request(nl, NFHP_CMD_APPEND, chain, 0, spec, counters);
}

int nfhp_nl_insert(struct nfhp_nl *nl, const char *chain, unsigned int pos,
		   const struct nfhp_rule_spec *spec,
		   const struct nfhp_counter *counters)
{
	return rule_request(nl, NFHP_CMD_INSERT, chain, pos, spec, counters);
}

int nfhp_nl_delete_pos(struct nfhp_nl *nl, const char *chain,
		       unsigned int pos)
{
	return rule_request(nl, NFHP_CMD_DELETE, chain, pos, NULL, NULL);
}

int nfhp_nl_delete_spec(struct nfhp_nl *nl, const char *chain,
			const struct nfhp_rule_spec *spec)
{
	return rule_request(nl, NFHP_CMD_DELETE, chain, 0, spec, NULL);
}

int nfhp_nl_replace(struct nfhp_nl *nl, const char *chain, unsigned int pos,
		    const struct nfhp_rule_spec *spec)
{
	return rule_request(nl, NFHP_CMD_REPLACE, chain, pos, spec, NULL);
}

int nfhp_nl_flush(struct nfhp_nl *nl, const char *chain)
{
	return chain_request(nl, NFHP_CMD_FLUSH, chain);
}

int nfhp_nl_new_chain(struct nfhp_nl *nl, const char *chain)
{
	return chain_request(nl, NFHP_CMD_NEW_CHAIN, chain);
}

int nfhp_nl_del_chain(struct nfhp_nl *nl, const char *chain)
{
	return chain_request(nl, NFHP_CMD_DEL_CHAIN, chain);
}

int nfhp_nl_rename(struct nfhp_nl *nl, const char *chain,
		   const char *new_name)
{
	struct nlmsghdr *nlh = start(nl, NFHP_CMD_RENAME_CHAIN);

	put_chain(nlh, NFHPA_CHAIN, chain);
	put_chain(nlh, NFHPA_NEW_NAME, new_name);
	return finish(nl, nlh, false);
}

int nfhp_nl_policy(struct nfhp_nl *nl, const char *chain, u8 policy,
		   const struct nfhp_counter *counters)
{
	struct nlmsghdr *nlh = start(nl, NFHP_CMD_POLICY);

	put_chain(nlh, NFHPA_CHAIN, chain);
	mnl_attr_put_u8(nlh, NFHPA_POLICY, policy);
	if (counters)
		put_counters(nlh, NFHPA_COUNTERS, counters);
	return finish(nl, nlh, false);
}

int nfhp_nl_zero(struct nfhp_nl *nl, const char *chain, unsigned int pos)
{
	return rule_request(nl, NFHP_CMD_ZERO, chain, pos, NULL, NULL);
}

int nfhp_nl_begin(struct nfhp_nl *nl)
{
	return chain_request(nl, NFHP_CMD_BEGIN, NULL);
}

int nfhp_nl_commit(struct nfhp_nl *nl)
{
	return chain_request(nl, NFHP_CMD_COMMIT, NULL);
}

/**
 * nfhp_nl_abort() - drop the staged changes
 * @nl: the connection
 *
 * Sent on its own even in batch mode, which it ends: the queued requests
 * are thrown away, they would be dropped anyway.  The failure that led to
 * the abort is kept for nfhp_nl_report().
 *
 * Return: 0 or -errno of the abort itself.
 */
int nfhp_nl_abort(struct nfhp_nl *nl)
{
	struct nfhp_nl_failure saved;
	struct nlmsghdr *nlh;
	int ret;

	if (nl->batch)
		batch_leave(nl);
	saved = nl->fail;
	nlh = put_request(nl, nl->buf, NFHP_CMD_ABORT, NLM_F_ACK);
	ret = transact(nl, nlh, false);
	if (saved.err)
		nl->fail = saved;
	return ret;
}

/* --- batch mode ------------------------------------------------------------ */

/**
 * nfhp_nl_batch_start() - queue the requests from now on
 * @nl: the connection
 *
 * They are sent a batch at a time by a sender thread, or in place if the
 * thread cannot start.
 */
void nfhp_nl_batch_start(struct nfhp_nl *nl)
{
	nl->fail.err = 0;
	nl->fail.ext_msg[0] = '\0';
	nl->stop = false;
	nl->sending = NULL;
	batch_reset(&nl->bat[0]);
	batch_reset(&nl->bat[1]);
	nl->batch = &nl->bat[0];
	nl->sender_up = !pthread_create(&nl->sender, NULL, batch_sender, nl);
}

/**
 * nfhp_nl_batch_end() - send what is queued and leave batch mode
 * @nl: the connection
 *
 * Return: 0, or -errno of the first failed request of the batch.
 */
int nfhp_nl_batch_end(struct nfhp_nl *nl)
{
	if (!nl->batch)
		return nl->fail.err;
	batch_flush(nl);
	batch_leave(nl);
	return nl->fail.err;
}

/* --- dumps ----------------------------------------------------------------- */

/**
 * dump() - list the rule set
 * @nl: the connection
 * @chain: the chain to list, NULL for all
 * @flags: NFHPA_LIST_FLAGS, or 0
 * @equal: the rule whose equals to list (NFHPA_RULE), NULL for all
 * @ops: the callbacks
 * @data: their argument
 *
 * Return: 0, a callback's non-zero value, or -errno (kept for
 * nfhp_nl_report()).
 */
static int dump(struct nfhp_nl *nl, const char *chain, u32 flags,
		const struct nfhp_rule_spec *equal,
		const struct nfhp_nl_dump_ops *ops, void *data)
{
	struct nlmsghdr *req;
	int ret, cb_ret = 0;
	u32 seq;

	nl->fail.err = 0;
	nl->fail.ext_msg[0] = '\0';
	req = put_request(nl, nl->buf, NFHP_CMD_LIST, NLM_F_DUMP);
	put_chain(req, NFHPA_CHAIN, chain);
	if (flags)
		mnl_attr_put_u32(req, NFHPA_LIST_FLAGS, flags);
	if (equal)
		nfhp_nl_put_rule(req, equal, NULL);
	seq = req->nlmsg_seq;
	ret = send_buf(nl, req, req->nlmsg_len);

	while (!ret) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)nl->buf;
		int len;

		len = recv(mnl_socket_get_fd(nl->sock), nl->buf,
			   NFHP_NL_RECV_SIZE, 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR ||
			    nlh->nlmsg_type == NLMSG_DONE) {
				const int *code = mnl_nlmsg_get_payload(nlh);

				if (mnl_nlmsg_get_payload_len(nlh) >=
				    sizeof(*code) && *code < 0)
					set_error(nl, *code, NFHP_CMD_LIST,
						  false, nl->tag,
						  ext_ack_msg(nlh));
				goto done;
			}
			/*
			 * After a callback stopped the dump, the rest is
			 * read and dropped so the socket stays usable.
			 */
			if (nlh->nlmsg_type != nl->family || cb_ret)
				continue;
			cb_ret = nfhp_nl_dump_msg(nlh, ops, data);
			if (cb_ret < 0)
				set_error(nl, cb_ret, NFHP_CMD_LIST, false,
					  nl->tag, "malformed LIST answer");
		}
	}
	set_error(nl, ret, NFHP_CMD_LIST, false, nl->tag, NULL);
done:
	if (nl->fail.err)
		return nl->fail.err;
	return cb_ret;
}

int nfhp_nl_dump(struct nfhp_nl *nl, const char *chain,
		 const struct nfhp_nl_dump_ops *ops, void *data)
{
	return dump(nl, chain, 0, NULL, ops, data);
}

int nfhp_nl_dump_chains(struct nfhp_nl *nl, const char *chain,
			const struct nfhp_nl_dump_ops *ops, void *data)
{
	return dump(nl, chain, NFHP_LIST_CHAINS_ONLY, NULL, ops, data);
}

int nfhp_nl_dump_equal(struct nfhp_nl *nl, const char *chain,
		       const struct nfhp_rule_spec *spec,
		       const struct nfhp_nl_dump_ops *ops, void *data)
{
	return dump(nl, chain, 0, spec, ops, data);
}

/* --- requests with answers ------------------------------------------------ */

/**
 * nfhp_nl_request() - start a request whose answers carry data
 * @nl: the connection, not in batch mode
 * @cmd: &enum nfhp_cmd
 * @dump: a dump (NLM_F_DUMP), else an acknowledged request
 *
 * The request is built in the connection's buffer, which the answers
 * overwrite: it is good until nfhp_nl_talk().
 *
 * Return: the request, for the caller's attributes.
 */
struct nlmsghdr *nfhp_nl_request(struct nfhp_nl *nl, u8 cmd, bool dump)
{
	return put_request(nl, nl->buf, cmd, dump ? NLM_F_DUMP : NLM_F_ACK);
}

/**
 * nfhp_nl_talk() - send a request and hand its answers to a callback
 * @nl: the connection
 * @nlh: the request of nfhp_nl_request()
 * @cb: called with each answer of the family before the acknowledgement
 *	(or the NLMSG_DONE of a dump), or NULL
 * @data: its argument
 *
 * A callback's non-zero value stops the calls, not the reading: the rest
 * of the answers is read and dropped, so the socket stays usable.  A
 * failure of the request is kept for nfhp_nl_report() and
 * nfhp_nl_get_failure(), as for the other requests.
 *
 * Return: the request's -errno, else the callback's non-zero value, else
 * 0.
 */
int nfhp_nl_talk(struct nfhp_nl *nl, struct nlmsghdr *nlh,
		 int (*cb)(const struct nlmsghdr *nlh, void *data),
		 void *data)
{
	u8 cmd = ((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd;
	u32 seq = nlh->nlmsg_seq;
	int ret, cb_ret = 0;

	memset(&nl->fail, 0, sizeof(nl->fail));
	nl->fail.cmd = cmd;
	ret = send_buf(nl, nlh, nlh->nlmsg_len);
	while (!ret) {
		const struct nlmsghdr *a = (const struct nlmsghdr *)nl->buf;
		int len;

		len = recv(mnl_socket_get_fd(nl->sock), nl->buf,
			   NFHP_NL_RECV_SIZE, 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			nl->fail.lost = true;
			break;
		}
		for (; mnl_nlmsg_ok(a, len); a = mnl_nlmsg_next(a, &len)) {
			if (a->nlmsg_seq != seq)
				continue;
			if (a->nlmsg_type == NLMSG_ERROR ||
			    a->nlmsg_type == NLMSG_DONE) {
				const int *code = mnl_nlmsg_get_payload(a);

				if (mnl_nlmsg_get_payload_len(a) >=
				    sizeof(*code) && *code < 0)
					set_error(nl, *code, cmd, false,
						  nl->tag, ext_ack_msg(a));
				goto done;
			}
			if (a->nlmsg_type != nl->family || cb_ret || !cb)
				continue;
			cb_ret = cb(a, data);
		}
	}
	set_error(nl, ret, cmd, false, nl->tag, NULL);
done:
	if (nl->fail.err)
		return nl->fail.err;
	return cb_ret;
}

/* --- connection ------------------------------------------------------------ */

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, CTRL_ATTR_MAX) < 0)
		return MNL_CB_OK;
	if (type == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
		return MNL_CB_ERROR;
	if (type == CTRL_ATTR_MCAST_GROUPS &&
	    mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

static int group_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, CTRL_ATTR_MCAST_GRP_MAX) < 0)
		return MNL_CB_OK;
	if (type == CTRL_ATTR_MCAST_GRP_NAME &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
		return MNL_CB_ERROR;
	if (type == CTRL_ATTR_MCAST_GRP_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

/* The controller's answer: the family's id and that of the group asked. */
static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = {};
	struct nfhp_nl_ids *ids = data;
	const struct nlattr *grp;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb,
			   tb) < 0 || !tb[CTRL_ATTR_FAMILY_ID])
		return MNL_CB_ERROR;
	ids->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (!ids->group || !tb[CTRL_ATTR_MCAST_GROUPS])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS]) {
		const struct nlattr *g[CTRL_ATTR_MCAST_GRP_MAX + 1] = {};

		if (mnl_attr_parse_nested(grp, group_attr_cb, g) < 0)
			return MNL_CB_ERROR;
		if (g[CTRL_ATTR_MCAST_GRP_NAME] && g[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(mnl_attr_get_str(g[CTRL_ATTR_MCAST_GRP_NAME]),
			    ids->group))
			ids->group_id = mnl_attr_get_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return MNL_CB_OK;
}

/**
 * nfhp_nl_resolve() - ask the generic netlink controller for "nf_hipac"
 * @sock: a bound generic netlink socket
 * @buf: room for the request and the answers
 * @size: its size
 * @seq: the request's sequence number
 * @ids: @ids->group names a multicast group to look for, or is NULL;
 *	@ids->family and @ids->group_id are filled in
 *
 * Return: 0, -ENOENT when the module (or the group asked) is not there,
 * or -errno.
 */
int nfhp_nl_resolve(struct mnl_socket *sock, void *buf, size_t size, u32 seq,
		    struct nfhp_nl_ids *ids)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;
	ssize_t len;
	int ret;

	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, NFHP_GENL_NAME);
	if (mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;

	ids->family = 0;
	ids->group_id = 0;
	do {
		len = mnl_socket_recvfrom(sock, buf, size);
		if (len < 0)
			return -errno;
		ret = mnl_cb_run(buf, len, seq, mnl_socket_get_portid(sock),
				 family_cb, ids);
	} while (ret > 0);
	if (ret < 0)
		return -errno;
	return ids->family && (!ids->group || ids->group_id) ? 0 : -ENOENT;
}

/* CTRL_CMD_GETFAMILY: the id of "nf_hipac", or -ENOENT if not loaded. */
static int resolve_family(struct nfhp_nl *nl)
{
	struct nfhp_nl_ids ids = {};
	int ret;

	ret = nfhp_nl_resolve(nl->sock, nl->buf, NFHP_NL_RECV_SIZE, ++nl->seq,
			      &ids);
	nl->family = ids.family;
	return ret;
}

static int open_socket(struct nfhp_nl *nl)
{
	int one = 1;

	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock)
		return -errno;
	/* Extended acks carry the kernel's reason; capped acks stay small. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		return -errno;
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);
	return 0;
}

static int batch_alloc(struct nfhp_nl_batch *b)
{
	b->buf = malloc(NFHP_NL_BATCH_SIZE);
	b->slots = calloc(NFHP_NL_BATCH_SLOTS, sizeof(*b->slots));
	if (b->buf)
		b->mb = mnl_nlmsg_batch_start(b->buf, NFHP_NL_BATCH_SIZE);
	return b->mb && b->slots ? 0 : -ENOMEM;
}

static void batch_free(struct nfhp_nl_batch *b)
{
	if (b->mb)
		mnl_nlmsg_batch_stop(b->mb);
	free(b->slots);
	free(b->buf);
}

/**
 * nfhp_nl_open() - connect to the nf_hipac family
 * @nlp: set to the new connection
 * @prog: program name for messages
 *
 * Return: %NFHP_EXIT_OK, or an exit code after a message: the module is
 * not loaded (%NFHP_EXIT_VERSION, iptables' "can't initialize"), or the
 * socket failed (%NFHP_EXIT_RESOURCE).
 */
int nfhp_nl_open(struct nfhp_nl **nlp, const char *prog)
{
	struct nfhp_nl *nl;
	int ret;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		goto out_nomem;
	pthread_mutex_init(&nl->lock, NULL);
	pthread_cond_init(&nl->cond, NULL);
	nl->buf = malloc(NFHP_NL_RECV_SIZE);
	nl->rbuf = malloc(NFHP_NL_RECV_SIZE);
	if (!nl->buf || !nl->rbuf || batch_alloc(&nl->bat[0]) ||
	    batch_alloc(&nl->bat[1]))
		goto out_close;

	ret = open_socket(nl);
	if (!ret)
		ret = resolve_family(nl);
	if (ret == -ENOENT) {
		fprintf(stderr,
			"%s: kernel module nf_hipac is not loaded (modprobe nf_hipac)\n",
			prog);
		nfhp_nl_close(nl);
		return NFHP_EXIT_VERSION;
	}
	if (ret) {
		fprintf(stderr, "%s: can't talk to the kernel: %s\n", prog,
			strerror(-ret));
		nfhp_nl_close(nl);
		return NFHP_EXIT_RESOURCE;
	}
	*nlp = nl;
	return NFHP_EXIT_OK;

out_close:
	nfhp_nl_close(nl);
out_nomem:
	fprintf(stderr, "%s: out of memory\n", prog);
	return NFHP_EXIT_RESOURCE;
}

/**
 * nfhp_nl_close() - close a connection
 * @nl: the connection, may be NULL
 *
 * A transaction still open is aborted by the kernel when the socket goes.
 */
void nfhp_nl_close(struct nfhp_nl *nl)
{
	if (!nl)
		return;
	if (nl->batch)
		batch_leave(nl);
	if (nl->sock)
		mnl_socket_close(nl->sock);
	batch_free(&nl->bat[0]);
	batch_free(&nl->bat[1]);
	free(nl->rbuf);
	free(nl->buf);
	pthread_cond_destroy(&nl->cond);
	pthread_mutex_destroy(&nl->lock);
	free(nl);
}
