// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the named-set commands of the netlink client (see nl_set.h
 * and the "Named sets" part of include/uapi/linux/nf_hipac.h).
 *
 * Requests go through nfhp_nl_request() and nfhp_nl_talk() of nl.c; the
 * answers are parsed the libmnl way: a callback per attribute checks
 * its type is known, validates it and stores it in tb[].
 */
#include "nl_set.h"
#include "set_iface.h"

#include <errno.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

/* The kernel refuses a larger add or delete whole. */
_Static_assert(NFHP_NL_SET_BATCH <= NFHP_SET_MAX_BATCH,
	       "a batch within the kernel's NFHP_SET_MAX_BATCH");

/* --- encoding ------------------------------------------------------------ */

static void put_addr(struct nlmsghdr *nlh, nfhp_u128 a)
{
	u32 w[4] = {
		(u32)(a >> 96), (u32)(a >> 64), (u32)(a >> 32), (u32)a,
	};

	mnl_attr_put(nlh, NFHPA_SETE_ADDR, sizeof(w), w);
}

static void put_iface(struct nlmsghdr *nlh, const struct nfhp_set_entry *e)
{
	char name[NFHP_IFNAME_LEN + 1];

	nfhp_iface_key_str(e->addr, e->plen, name);
	mnl_attr_put_strz(nlh, NFHPA_SETE_IFACE, name);
}

/**
 * nfhp_nl_put_set() - put NFHPA_SET into a request
 * @nlh: the request
 * @info: the set; its name and type, and for a create its algorithm and
 *	limit
 * @flags: NFHPA_SET_FLAGS, left out when 0
 * @e: entries, or NULL
 * @n: their number
 * @values: put each entry's NFHPA_SETE_VALUE, and NFHPA_SETE_PACKETS and
 *	_BYTES where it has them (adds)
 *
 * A create (an @info with a type and an algorithm) carries the type,
 * the algorithm, the limit and a number set's range too.  The entries
 * of a number set (@info's type %NFHP_SET_NUMBER) go as their two
 * numbers, those of a flow set with their protocol and port, those of
 * an interface set as their names.
 */
void nfhp_nl_put_set(struct nlmsghdr *nlh, const struct nfhp_set_info *info,
		     u32 flags, const struct nfhp_set_entry *e,
		     unsigned int n, bool values)
{
	struct nlattr *set = mnl_attr_nest_start(nlh, NFHPA_SET);
	unsigned int i;

	if (info->name[0])
		mnl_attr_put_strz(nlh, NFHPA_SET_NAME, info->name);
	if (info->type && info->algo[0]) {
		mnl_attr_put_u8(nlh, NFHPA_SET_TYPE, info->type);
		mnl_attr_put_strz(nlh, NFHPA_SET_ALGO, info->algo);
		if (info->limit)
			mnl_attr_put_u32(nlh, NFHPA_SET_LIMIT, info->limit);
		if (info->ranged) {
			mnl_attr_put_u32(nlh, NFHPA_SET_RANGE_LO,
					 info->range_lo);
			mnl_attr_put_u32(nlh, NFHPA_SET_RANGE_HI,
					 info->range_hi);
		}
	}
	if (flags)
		mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, flags);
	for (i = 0; i < n; i++) {
		struct nlattr *ent = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);

		if (info->type == NFHP_SET_NUMBER) {
			mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_LO, (u32)e[i].addr);
			mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_HI, e[i].hi);
		} else if (info->type == NFHP_SET_IFACE) {
			put_iface(nlh, &e[i]);
		} else {
			put_addr(nlh, e[i].addr);
			mnl_attr_put_u8(nlh, NFHPA_SETE_PLEN, e[i].plen);
		}
		if (info->type == NFHP_SET_FLOW) {
			mnl_attr_put_u8(nlh, NFHPA_SETE_PROTO, e[i].proto);
			mnl_attr_put_u16(nlh, NFHPA_SETE_PORT, e[i].port);
		}
		if (values && e[i].value)
			mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, e[i].value);
		/* The kernel takes them unaligned: no NFHPA_SETE_PAD. */
		if (values && e[i].has_packets)
			mnl_attr_put_u64(nlh, NFHPA_SETE_PACKETS, e[i].packets);
		if (values && e[i].has_bytes)
			mnl_attr_put_u64(nlh, NFHPA_SETE_BYTES, e[i].bytes);
		/* An add's or a test's nomatch. */
		if (e[i].flags)
			mnl_attr_put_u32(nlh, NFHPA_SETE_FLAGS, e[i].flags);
		mnl_attr_nest_end(nlh, ent);
	}
	mnl_attr_nest_end(nlh, set);
}

/* --- decoding ------------------------------------------------------------ */

static int top_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NFHPA_MAX) < 0)
		return MNL_CB_OK;	/* a newer kernel's */
	switch (type) {
	case NFHPA_FAMILY:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SET:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		break;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static int set_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NFHPA_SET_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case NFHPA_SET_NAME:
	case NFHPA_SET_OTHER:
	case NFHPA_SET_ALGO:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SET_TYPE:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SET_LIMIT:
	case NFHPA_SET_FLAGS:
	case NFHPA_SET_COUNT:
	case NFHPA_SET_REFS:
	case NFHPA_SET_RANGE_LO:
	case NFHPA_SET_RANGE_HI:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SET_MEMORY:
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SET_ENTRY:
		/* Repeated: walked by parse_entries(). */
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
			return MNL_CB_ERROR;
		return MNL_CB_OK;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static int entry_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NFHPA_SETE_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case NFHPA_SETE_ADDR:
		if (mnl_attr_validate2(attr, MNL_TYPE_BINARY,
				       4 * sizeof(u32)) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SETE_PLEN:
	case NFHPA_SETE_RESULT:
	case NFHPA_SETE_PROTO:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SETE_VALUE:
	case NFHPA_SETE_FLAGS:
	case NFHPA_SETE_NUM_LO:
	case NFHPA_SETE_NUM_HI:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SETE_PORT:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SETE_PACKETS:
	case NFHPA_SETE_BYTES:
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_SETE_IFACE:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
		    mnl_attr_get_payload_len(attr) > NFHP_IFNAME_LEN)
			return MNL_CB_ERROR;
		break;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static int set_copy_str(char *dst, size_t size, const struct nlattr *attr)
{
	if (mnl_attr_get_payload_len(attr) > size)
		return -EINVAL;
	strcpy(dst, mnl_attr_get_str(attr));
	return 0;
}

static int parse_entry(const struct nlattr *nest, u8 family,
		       struct nfhp_set_entry *e)
{
	const struct nlattr *tb[NFHPA_SETE_MAX + 1] = {};
	unsigned int width = family == NFHP_FAMILY_IPV6 ? 128 : 32;
	u32 w[4];

	memset(e, 0, sizeof(*e));
	if (mnl_attr_parse_nested(nest, entry_attr_cb, tb) < 0)
		return -EINVAL;
	e->value = tb[NFHPA_SETE_VALUE] ?
		   mnl_attr_get_u32(tb[NFHPA_SETE_VALUE]) : 0;
	e->flags = tb[NFHPA_SETE_FLAGS] ?
		   mnl_attr_get_u32(tb[NFHPA_SETE_FLAGS]) : 0;
	e->result = tb[NFHPA_SETE_RESULT] ?
		    mnl_attr_get_u8(tb[NFHPA_SETE_RESULT]) : NFHP_SET_ADDED;
	/* A set with NFHP_SET_F_COUNTERS lists its entries' counts. */
	if (tb[NFHPA_SETE_PACKETS]) {
		e->has_packets = true;
		e->packets = mnl_attr_get_u64(tb[NFHPA_SETE_PACKETS]);
	}
	if (tb[NFHPA_SETE_BYTES]) {
		e->has_bytes = true;
		e->bytes = mnl_attr_get_u64(tb[NFHPA_SETE_BYTES]);
	}
	if (tb[NFHPA_SETE_IFACE]) {
		/* An interface set's entry: its name. */
		e->hi = 0;
		if (!nfhp_iface_key_parse(mnl_attr_get_str(tb[NFHPA_SETE_IFACE]),
					  &e->addr, &e->plen))
			return -EINVAL;
		return 0;
	}
	if (tb[NFHPA_SETE_NUM_LO]) {
		/* A number set's entry: its range. */
		e->addr = mnl_attr_get_u32(tb[NFHPA_SETE_NUM_LO]);
		e->hi = tb[NFHPA_SETE_NUM_HI] ?
			mnl_attr_get_u32(tb[NFHPA_SETE_NUM_HI]) : (u32)e->addr;
		e->plen = 0;
		return e->hi < e->addr ? -EINVAL : 0;
	}
	if (!tb[NFHPA_SETE_ADDR])
		return -EINVAL;
	memcpy(w, mnl_attr_get_payload(tb[NFHPA_SETE_ADDR]), sizeof(w));
	e->addr = (nfhp_u128)w[0] << 96 | (nfhp_u128)w[1] << 64 |
		  (nfhp_u128)w[2] << 32 | w[3];
	e->plen = tb[NFHPA_SETE_PLEN] ? mnl_attr_get_u8(tb[NFHPA_SETE_PLEN]) :
					width;
	e->proto = tb[NFHPA_SETE_PROTO] ?
		   mnl_attr_get_u8(tb[NFHPA_SETE_PROTO]) : 0;
	e->port = tb[NFHPA_SETE_PORT] ? mnl_attr_get_u16(tb[NFHPA_SETE_PORT]) :
					0;
	e->hi = 0;
	return e->plen > width ? -EINVAL : 0;
}

/**
 * nfhp_nl_parse_set_msg() - read the NFHPA_SET of an answer
 * @nlh: the answer
 * @info: the set's attributes that are present, over what it held
 * @fn: called for each NFHPA_SET_ENTRY in order, or NULL
 * @data: its argument
 *
 * Return: 0, @fn's non-zero value, or -EINVAL for a malformed answer.
 */
int nfhp_nl_parse_set_msg(const struct nlmsghdr *nlh,
			  struct nfhp_set_info *info,
			  int (*fn)(void *data, const struct nfhp_set_info *info,
				    const struct nfhp_set_entry *e),
			  void *data)
{
	const struct nlattr *top[NFHPA_MAX + 1] = {};
	const struct nlattr *tb[NFHPA_SET_MAX + 1] = {};
	const struct nlattr *attr;
	int ret;

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), top_attr_cb,
			   top) < 0 || !top[NFHPA_SET])
		return -EINVAL;
	if (mnl_attr_parse_nested(top[NFHPA_SET], set_attr_cb, tb) < 0)
		return -EINVAL;
	if (top[NFHPA_FAMILY])
		info->family = mnl_attr_get_u8(top[NFHPA_FAMILY]);
	if (info->family != NFHP_FAMILY_IPV6)
		info->family = NFHP_FAMILY_IPV4;
	if (tb[NFHPA_SET_NAME] &&
	    set_copy_str(info->name, sizeof(info->name), tb[NFHPA_SET_NAME]))
		return -EINVAL;
	if (tb[NFHPA_SET_ALGO] &&
	    set_copy_str(info->algo, sizeof(info->algo), tb[NFHPA_SET_ALGO]))
		return -EINVAL;
	if (tb[NFHPA_SET_TYPE])
		info->type = mnl_attr_get_u8(tb[NFHPA_SET_TYPE]);
	if (tb[NFHPA_SET_LIMIT])
		info->limit = mnl_attr_get_u32(tb[NFHPA_SET_LIMIT]);
	if (tb[NFHPA_SET_FLAGS])
		info->flags = mnl_attr_get_u32(tb[NFHPA_SET_FLAGS]);
	if (tb[NFHPA_SET_COUNT])
		info->count = mnl_attr_get_u32(tb[NFHPA_SET_COUNT]);
	if (tb[NFHPA_SET_REFS])
		info->refs = mnl_attr_get_u32(tb[NFHPA_SET_REFS]);
	if (tb[NFHPA_SET_MEMORY])
		info->memory = mnl_attr_get_u64(tb[NFHPA_SET_MEMORY]);
	if (tb[NFHPA_SET_RANGE_LO] && tb[NFHPA_SET_RANGE_HI]) {
		info->ranged = true;
		info->range_lo = mnl_attr_get_u32(tb[NFHPA_SET_RANGE_LO]);
		info->range_hi = mnl_attr_get_u32(tb[NFHPA_SET_RANGE_HI]);
	}
	if (!fn)
		return 0;
	mnl_attr_for_each_nested(attr, top[NFHPA_SET]) {
		struct nfhp_set_entry e;

		if (mnl_attr_get_type(attr) != NFHPA_SET_ENTRY)
			continue;
		if (parse_entry(attr, info->family, &e))
			return -EINVAL;
		ret = fn(data, info, &e);
		if (ret)
			return ret;
	}
	return 0;
}

/* --- requests ------------------------------------------------------------ */

/*
 * A request of @family: its header carries the family, and the rule
 * requests that follow go to the rule set they went to before (a restore
 * sends set commands between them).
 */
static struct nlmsghdr *set_request(struct nfhp_nl *nl, u8 cmd, u8 family,
				    bool dump)
{
	u8 rules = nfhp_nl_family(nl);
	struct nlmsghdr *nlh;

	nfhp_nl_set_family(nl, family);
	nlh = nfhp_nl_request(nl, cmd, dump);
	nfhp_nl_set_family(nl, rules);
	return nlh;
}

static int name_request(struct nfhp_nl *nl, u8 cmd, const char *name,
			const char *other)
{
	struct nlmsghdr *nlh = set_request(nl, cmd, NFHP_FAMILY_IPV4, false);
	struct nlattr *set = mnl_attr_nest_start(nlh, NFHPA_SET);

	if (name)
		mnl_attr_put_strz(nlh, NFHPA_SET_NAME, name);
	if (other)
		mnl_attr_put_strz(nlh, NFHPA_SET_OTHER, other);
	mnl_attr_nest_end(nlh, set);
	return nfhp_nl_talk(nl, nlh, NULL, NULL);
}

int nfhp_nl_set_new(struct nfhp_nl *nl, const struct nfhp_set_info *info,
		    bool exist)
{
	struct nlmsghdr *nlh = set_request(nl, NFHP_CMD_SET_NEW, info->family,
					   false);
	u32 flags = info->flags & (NFHP_SET_F_LOCKED | NFHP_SET_F_COUNTERS);

	if (exist)
		flags |= NFHP_SET_F_EXIST;
	nfhp_nl_put_set(nlh, info, flags, NULL, 0, false);
	return nfhp_nl_talk(nl, nlh, NULL, NULL);
}

int nfhp_nl_set_del(struct nfhp_nl *nl, const char *name)
{
	return name_request(nl, NFHP_CMD_SET_DEL, name, NULL);
}

int nfhp_nl_set_flush(struct nfhp_nl *nl, const char *name)
{
	return name_request(nl, NFHP_CMD_SET_FLUSH, name, NULL);
}

int nfhp_nl_set_swap(struct nfhp_nl *nl, const char *a, const char *b)
{
	return name_request(nl, NFHP_CMD_SET_SWAP, a, b);
}

int nfhp_nl_set_modify(struct nfhp_nl *nl, const char *name,
		       const u32 *limit, const bool *locked)
{
	struct nlmsghdr *nlh = set_request(nl, NFHP_CMD_SET_MODIFY,
					   NFHP_FAMILY_IPV4, false);
	struct nlattr *set = mnl_attr_nest_start(nlh, NFHPA_SET);

	mnl_attr_put_strz(nlh, NFHPA_SET_NAME, name);
	if (limit)
		mnl_attr_put_u32(nlh, NFHPA_SET_LIMIT, *limit);
	if (locked)
		mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS,
				 *locked ? NFHP_SET_F_LOCKED : 0);
	mnl_attr_nest_end(nlh, set);
	return nfhp_nl_talk(nl, nlh, NULL, NULL);
}

/**
 * struct results - the answer to an add, remove or test
 * @e: the entries sent, whose results are filled in
 * @n: their number
 * @seen: results read so far
 * @family: the set's family: the answer does not say it, and the
 *	prefix lengths of its entries are checked against its width
 */
struct results {
	struct nfhp_set_entry *e;
	unsigned int n, seen;
	u8 family;
};

static int result_cb(void *data, const struct nfhp_set_info *info,
		     const struct nfhp_set_entry *e)
{
	struct results *r = data;

	if (r->seen >= r->n)
		return -EPROTO;
	r->e[r->seen].result = e->result;
	if (e->result == NFHP_SET_EXISTS) {	/* a test's value, counts */
		r->e[r->seen].value = e->value;
		r->e[r->seen].has_packets = e->has_packets;
		r->e[r->seen].packets = e->packets;
		r->e[r->seen].has_bytes = e->has_bytes;
		r->e[r->seen].bytes = e->bytes;
	}
	r->seen++;
	return 0;
}

static int results_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct results *r = data;
	struct nfhp_set_info info = { .family = r->family };

	return nfhp_nl_parse_set_msg(nlh, &info, result_cb, data);
}

/*
 * The command's -errno; an answer that could not be read, the command
 * itself done, is -EPROTO.
 */
static int results_ret(struct nfhp_nl *nl, int ret, const struct results *r)
{
	if (!ret && r->seen != r->n)
		return -EPROTO;
	if (ret && !nfhp_nl_error(nl))
		return -EPROTO;
	return ret;
}

/**
 * nfhp_nl_set_entries() - add or remove entries of a set
 * @nl: the connection
 * @add: NFHP_CMD_SET_ADD, else NFHP_CMD_SET_REMOVE
 * @info: the set: its name and family
 * @flags: NFHP_SET_F_UPDATE, NFHP_SET_F_EXIST
 * @e: the entries; each one's result is filled in
 * @n: their number, at most %NFHP_NL_SET_BATCH
 *
 * Return: 0, the command's -errno, or -EPROTO when an entry got no
 * result (its result is then %NFHP_SET_INVALID) or the answer could not
 * be read.
 */
int nfhp_nl_set_entries(struct nfhp_nl *nl, bool add,
			const struct nfhp_set_info *info, u32 flags,
			struct nfhp_set_entry *e, unsigned int n)
{
	struct nfhp_set_info req = {};
	struct results r = { .e = e, .n = n, .family = info->family };
	struct nlmsghdr *nlh;
	unsigned int i;
	int ret;

	memcpy(req.name, info->name, sizeof(req.name));
	req.type = info->type;	/* the entries' form; no algorithm: no create */
	nlh = set_request(nl, add ? NFHP_CMD_SET_ADD : NFHP_CMD_SET_REMOVE,
			  info->family, false);
	nfhp_nl_put_set(nlh, &req, flags, e, n, add);
	for (i = 0; i < n; i++)
		e[i].result = NFHP_SET_INVALID;
	ret = nfhp_nl_talk(nl, nlh, results_msg_cb, &r);
	return results_ret(nl, ret, &r);
}

/**
 * nfhp_nl_set_test() - is a key in a set?
 * @nl: the connection
 * @info: the set: its name and family
 * @e: the key; its value is filled in when it is there, and its counts
 *	(@e's has_packets, has_bytes) when the set counts
 * @found: set when it is
 *
 * Return: 0 or -errno.
 */
int nfhp_nl_set_test(struct nfhp_nl *nl, const struct nfhp_set_info *info,
		     struct nfhp_set_entry *e, bool *found)
{
	struct nfhp_set_info req = {};
	struct results r = { .e = e, .n = 1, .family = info->family };
	struct nlmsghdr *nlh;
	int ret;

	memcpy(req.name, info->name, sizeof(req.name));
	req.type = info->type;	/* the entries' form; no algorithm: no create */
	nlh = set_request(nl, NFHP_CMD_SET_TEST, info->family, false);
	nfhp_nl_put_set(nlh, &req, 0, e, 1, false);
	e->result = NFHP_SET_NOT_FOUND;
	ret = results_ret(nl, nfhp_nl_talk(nl, nlh, results_msg_cb, &r), &r);
	*found = !ret && e->result == NFHP_SET_EXISTS;
	return ret;
}

/**
 * struct list_ctx - a listing under way
 * @ops: the caller's callbacks
 * @data: their argument
 * @info: the set of the message being read
 */
struct list_ctx {
	const struct nfhp_nl_set_ops *ops;
	void *data;
	struct nfhp_set_info info;
};

static int list_entry_cb(void *data, const struct nfhp_set_info *info,
			 const struct nfhp_set_entry *e)
{
	struct list_ctx *c = data;

	return c->ops->entry ? c->ops->entry(c->data, info, e) : 0;
}

/*
 * A message with the set's type is its head; the messages after it carry
 * its entries, and its name only.
 */
static int list_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct list_ctx *c = data;
	struct nfhp_set_info info = c->info;
	int ret;

	info.type = 0;
	ret = nfhp_nl_parse_set_msg(nlh, &info, NULL, NULL);
	if (ret)
		return ret;
	if (info.type) {
		c->info = info;
		if (c->ops->set) {
			ret = c->ops->set(c->data, &c->info);
			if (ret)
				return ret;
		}
	}
	return nfhp_nl_parse_set_msg(nlh, &c->info, list_entry_cb, c);
}

int nfhp_nl_set_list(struct nfhp_nl *nl, const char *name,
		     const struct nfhp_nl_set_ops *ops, void *data)
{
	struct list_ctx c = { .ops = ops, .data = data };
	struct nlmsghdr *nlh = set_request(nl, NFHP_CMD_SET_LIST,
					   NFHP_FAMILY_IPV4, true);
	struct nlattr *set = mnl_attr_nest_start(nlh, NFHPA_SET);

	if (name)
		mnl_attr_put_strz(nlh, NFHPA_SET_NAME, name);
	mnl_attr_nest_end(nlh, set);
	return nfhp_nl_talk(nl, nlh, list_msg_cb, &c);
}

/**
 * struct get_ctx - the set nfhp_nl_set_get() looks for
 * @name: its name
 * @info: where its head goes
 * @found: it was seen
 */
struct get_ctx {
	const char *name;
	struct nfhp_set_info *info;
	bool found;
};

static int get_cb(void *data, const struct nfhp_set_info *info)
{
	struct get_ctx *g = data;

	if (strcmp(info->name, g->name))
		return 0;
	*g->info = *info;
	g->found = true;
	return 0;
}

/*
 * The heads of every set are listed, not the one set by name, whose
 * listing would carry all its entries.
 */
int nfhp_nl_set_get(struct nfhp_nl *nl, const char *name,
		    struct nfhp_set_info *info)
{
	static const struct nfhp_nl_set_ops ops = { .set = get_cb };
	struct get_ctx g = { .name = name, .info = info };
	int ret;

	ret = nfhp_nl_set_list(nl, NULL, &ops, &g);
	if (ret)
		return ret;
	return g.found ? 0 : -ENOENT;
}
