// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of nf-hipac-set without a kernel: ipset's syntax (lib/set_parse.c)
 * and the wire format of the set commands (lib/nl_set.c).
 *
 * The messages and exit codes expected are those of ipset v7.17 for the
 * same input, where ipset has one.  Requests are encoded as the client
 * sends them, then read back as the kernel's answers would carry them:
 * the raw layout of an address is checked against the uapi contract
 * (four host-order words, most significant first), malformed attributes
 * must be refused and unknown ones skipped.
 */
#include "../lib/nl.c"
#include "../lib/nl_set.c"
#include "tap.h"

static char err[256];

/* --- syntax --------------------------------------------------------------- */

/* The options @opts of a create of a set of @type, @algo at first. */
static int create_typed(u8 type, const char *algo, const char *opts,
			struct nfhp_set_info *info, bool *exist)
{
	char buf[512], *argv[64];
	int argc;

	memset(info, 0, sizeof(*info));
	*exist = false;
	strcpy(info->name, "s");
	info->type = type;
	strcpy(info->algo, algo);
	snprintf(buf, sizeof(buf), "%s", opts);
	argc = nfhp_split_line(buf, argv, 63);
	err[0] = '\0';
	return nfhp_set_parse_create(argc, argv, info, exist, err,
				     sizeof(err));
}

static int create(const char *opts, struct nfhp_set_info *info, bool *exist)
{
	return create_typed(NFHP_SET_ADDR, "hash", opts, info, exist);
}

static void test_typenames(void)
{
	struct nfhp_set_info info = {};
	const char *algo = NULL;
	u8 type = 0;

	check(nfhp_set_parse_typename("hash:ip", &type, &algo) &&
	      type == NFHP_SET_ADDR && !strcmp(algo, "hash"),
	      "hash:ip is an addr set in a hash");
	check(nfhp_set_parse_typename("hash:net", &type, &algo) &&
	      type == NFHP_SET_ADDR && !strcmp(algo, "lpm"),
	      "hash:net is an addr set of prefixes");
	check(nfhp_set_parse_typename("hash:ip,port", &type, &algo) &&
	      type == NFHP_SET_FLOW && !strcmp(algo, "hash"),
	      "hash:ip,port is a flow set in a hash");
	check(nfhp_set_parse_typename("hash:net,port", &type, &algo) &&
	      type == NFHP_SET_FLOW && !strcmp(algo, "lpm"),
	      "hash:net,port is a flow set of prefixes");
	check(!nfhp_set_parse_typename("hash:ip,mark", &type, &algo) &&
	      !nfhp_set_parse_typename("hash:", &type, &algo),
	      "other types are refused");
	info.type = NFHP_SET_FLOW;
	strcpy(info.algo, "lpm");
	check(!strcmp(nfhp_set_typename(&info), "hash:net,port"),
	      "a flow lpm set prints as hash:net,port");
	info.type = NFHP_SET_ADDR;
	strcpy(info.algo, "lpm");
	check(!strcmp(nfhp_set_typename(&info), "hash:net"),
	      "an lpm set prints as hash:net");
	strcpy(info.algo, "hash");
	check(!strcmp(nfhp_set_typename(&info), "hash:ip"),
	      "a hash set prints as hash:ip");
}

static void test_create(void)
{
	struct nfhp_set_info info;
	bool exist;

	check(!create("", &info, &exist) && info.limit == 65536 &&
	      info.family == NFHP_FAMILY_IPV4 && !info.flags && !exist,
	      "create: ipset's defaults, maxelem 65536, inet");
	check(!create("family inet6 maxelem 10 hashsize 64 timeout 0 counters comment -exist",
		      &info, &exist) &&
	      info.family == NFHP_FAMILY_IPV6 && info.limit == 10 && exist,
	      "create: what ipset save writes is taken");
	check(!create("family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x367f137f",
		      &info, &exist) && info.limit == 65536,
	      "create: bucketsize and initval of ipset save are taken");
	check(!create("algo lpm limit 0 locked", &info, &exist) &&
	      !strcmp(info.algo, "lpm") && info.limit == 0 &&
	      info.flags == NFHP_SET_F_LOCKED,
	      "create: nf-hipac's algo, limit and locked");
	check(create("timeout 5", &info, &exist) == NFHP_SET_EXIT_ERR &&
	      strstr(err, "only timeout 0"),
	      "create: a timeout is refused, exit 1: %s", err);
	check(create("foo 1", &info, &exist) == NFHP_SET_EXIT_PARAM &&
	      !strcmp(err, "Unknown argument: `foo'"),
	      "create: an unknown option is ipset's exit 2: %s", err);
	check(create("maxelem", &info, &exist) == NFHP_SET_EXIT_PARAM &&
	      !strcmp(err, "Missing mandatory argument of option `maxelem'"),
	      "create: a missing argument, exit 2: %s", err);
	check(create("maxelem abc", &info, &exist) == NFHP_SET_EXIT_ERR &&
	      !strcmp(err, "Syntax error: 'abc' is invalid as number"),
	      "create: a bad number, exit 1: %s", err);
	check(create("maxelem 99999999999", &info, &exist) ==
	      NFHP_SET_EXIT_ERR &&
	      !strcmp(err, "Syntax error: '99999999999' is out of range 0-4294967295"),
	      "create: a number out of range: %s", err);
	check(create("family inet7", &info, &exist) == NFHP_SET_EXIT_ERR &&
	      !strcmp(err, "Syntax error: unknown inet family inet7"),
	      "create: an unknown family: %s", err);
	check(create("algo tree", &info, &exist) == NFHP_SET_EXIT_ERR,
	      "create: an unknown algorithm");
}

/**
 * struct keys - the keys an element stands for
 * @e: the keys
 * @n: how many
 * @str: them as ipset prints them, space-separated
 */
struct keys {
	struct nfhp_set_entry e[64];
	unsigned int n;
	char str[1024];
	u8 family;
};

static int keys_cb(void *data, const struct nfhp_set_entry *e)
{
	struct keys *k = data;
	char s[64];

	if (k->n < ARRAY_SIZE(k->e))
		k->e[k->n] = *e;
	k->n++;
	nfhp_set_key_str(s, sizeof(s), k->family, e);
	if (strlen(k->str) + strlen(s) + 2 < sizeof(k->str)) {
		if (k->str[0])
			strcat(k->str, " ");
		strcat(k->str, s);
	}
	return 0;
}

static int elem(const char *s, u8 family, const char *algo, struct keys *k)
{
	memset(k, 0, sizeof(*k));
	k->family = family;
	err[0] = '\0';
	return nfhp_set_parse_elem(s, family,
				   nfhp_set_algo_number(algo) ? NFHP_SET_NUMBER :
								NFHP_SET_ADDR,
				   algo, keys_cb, k, err, sizeof(err));
}

static void test_elems(void)
{
	struct keys k;
	const u8 v4 = NFHP_FAMILY_IPV4, v6 = NFHP_FAMILY_IPV6;

	check(!elem("10.0.0.1", v4, "hash", &k) && k.n == 1 &&
	      k.e[0].addr == 0x0a000001 && k.e[0].plen == 32,
	      "a host: the address in the low 32 bits, /32");
	check(!elem("10.0.0.1/30", v4, "hash", &k) && k.n == 4 &&
	      !strcmp(k.str, "10.0.0.0 10.0.0.1 10.0.0.2 10.0.0.3"),
	      "hash: a prefix stands for its hosts, as in ipset's hash:ip: %s",
	      k.str);
	check(!elem("10.0.0.1-10.0.0.3", v4, "hash", &k) && k.n == 3,
	      "hash: a range stands for its hosts");
	check(elem("10.0.0.0/8", v4, "hash", &k) == -EINVAL &&
	      strstr(err, "more than 65536 hosts"),
	      "hash: at most 65536 hosts: %s", err);
	check(!elem("10.0.0.0/16", v4, "hash", &k) && k.n == 65536,
	      "hash: a /16 is 65536 hosts");
	check(!elem("10.1.2.3/24", v4, "lpm", &k) && k.n == 1 &&
	      !strcmp(k.str, "10.1.2.0/24"),
	      "lpm: the bits below a prefix are cleared: %s", k.str);
	check(!elem("1.1.1.1-1.1.1.6", v4, "lpm", &k) &&
	      !strcmp(k.str, "1.1.1.1 1.1.1.2/31 1.1.1.4/31 1.1.1.6"),
	      "lpm: a range is ipset's prefixes: %s", k.str);
	check(!elem("1.1.1.6-1.1.1.1", v4, "lpm", &k) &&
	      !strcmp(k.str, "1.1.1.1 1.1.1.2/31 1.1.1.4/31 1.1.1.6"),
	      "lpm: a range backwards, as ipset takes it");
	check(!elem("0.0.0.0-255.255.255.255", v4, "lpm", &k) &&
	      !strcmp(k.str, "0.0.0.0/0"), "lpm: the whole space is /0");
	check(!elem("0.0.0.0/0", v4, "lpm", &k) && k.e[0].plen == 0,
	      "lpm: /0");
	check(elem("10.0.0.0/33", v4, "lpm", &k) == -EINVAL &&
	      !strcmp(err, "Syntax error: '33' is out of range 0-32"),
	      "a prefix too long, ipset's message: %s", err);
	check(elem("10.0.0.300", v4, "hash", &k) == -EINVAL &&
	      !strcmp(err, "Syntax error: cannot parse 10.0.0.300: resolving to IPv4 address failed"),
	      "a bad address, ipset's message: %s", err);
	check(elem("::1", v4, "hash", &k) == -EINVAL &&
	      strstr(err, "resolving to IPv4 address failed"),
	      "an IPv6 address in an IPv4 set: %s", err);
	check(elem("10.0.0.0/", v4, "lpm", &k) == -EINVAL &&
	      strstr(err, "cannot parse 10.0.0.0/"),
	      "a prefix without a length: %s", err);
	check(elem("10.0.0.0/abc", v4, "lpm", &k) == -EINVAL &&
	      !strcmp(err, "Syntax error: 'abc' is invalid as number"),
	      "a prefix length that is no number: %s", err);
	check(!elem("2001:db8::1", v6, "hash", &k) && k.n == 1 &&
	      k.e[0].addr == ((nfhp_u128)0x20010db8 << 96 | 1) &&
	      k.e[0].plen == 128 && !strcmp(k.str, "2001:db8::1"),
	      "IPv6: a host, 128 bits");
	check(elem("2001:db8::/64", v6, "hash", &k) == -EINVAL &&
	      !strcmp(err, "Syntax error: plain IP address must be supplied: 2001:db8::/64"),
	      "IPv6 hash: plain addresses only, as ipset: %s", err);
	check(!elem("2001:db8::1/32", v6, "lpm", &k) &&
	      !strcmp(k.str, "2001:db8::/32"), "IPv6 lpm: a prefix");
	check(!elem("::/0", v6, "lpm", &k) && k.e[0].plen == 0 &&
	      !strcmp(k.str, "::/0"), "IPv6 lpm: /0");
	check(elem("10.0.0.1", v6, "lpm", &k) == -EINVAL &&
	      strstr(err, "resolving to IPv6 address failed"),
	      "an IPv4 address in an IPv6 set: %s", err);
}

static int opts(const char *s, u32 *value, bool *exist)
{
	char buf[256], *argv[32];
	int argc;

	snprintf(buf, sizeof(buf), "%s", s);
	argc = nfhp_split_line(buf, argv, 31);
	*exist = false;
	err[0] = '\0';
	return nfhp_set_parse_elem_opts(argc, argv, value, exist, err,
					sizeof(err));
}

static void test_elem_opts(void)
{
	bool exist;
	u32 value = 0;

	check(!opts("value 7 -exist", &value, &exist) && value == 7 && exist,
	      "add: value and -exist");
	check(!opts("timeout 0 packets 5 bytes 10 comment \"a b\"", &value,
		    &exist), "add: ipset save's entry options are taken");
	check(opts("timeout 3", &value, &exist) == NFHP_SET_EXIT_ERR,
	      "add: a timeout is refused");
	check(opts("value 7", NULL, &exist) == NFHP_SET_EXIT_PARAM &&
	      !strcmp(err, "Unknown argument: `value'"),
	      "del: no value, ipset's exit 2: %s", err);
	check(opts("1.1.1.3", &value, &exist) == NFHP_SET_EXIT_PARAM &&
	      !strcmp(err, "Unknown argument: `1.1.1.3'"),
	      "a second element: %s", err);
	check(opts("value", &value, &exist) == NFHP_SET_EXIT_PARAM,
	      "value without a number");
	check(opts("value -1", &value, &exist) == NFHP_SET_EXIT_ERR,
	      "a negative value");
}

static char *print(void (*fn)(FILE *f, const struct nfhp_set_info *info,
			      const struct nfhp_set_entry *e),
		   const struct nfhp_set_info *info,
		   const struct nfhp_set_entry *e)
{
	static char out[1024];
	FILE *f = fmemopen(out, sizeof(out), "w");

	fn(f, info, e);
	fclose(f);
	return out;
}

static void create_line(FILE *f, const struct nfhp_set_info *info,
			const struct nfhp_set_entry *e)
{
	nfhp_set_print_create(f, info);
}

static void head_lines(FILE *f, const struct nfhp_set_info *info,
		       const struct nfhp_set_entry *e)
{
	nfhp_set_print_list_head(f, info, false);
}

static void test_print(void)
{
	struct nfhp_set_info info = {
		.name = "bl", .type = NFHP_SET_ADDR, .algo = "hash",
		.family = NFHP_FAMILY_IPV4, .limit = 65536, .count = 2,
		.refs = 1, .memory = 296,
	};
	struct nfhp_set_entry e = { .addr = 0x0a000001, .plen = 32 };

	check(!strcmp(print(create_line, &info, NULL),
		      "create bl hash:ip family inet hashsize 1024 maxelem 65536\n"),
	      "save: ipset's create line");
	check(!strcmp(print(nfhp_set_print_add, &info, &e),
		      "add bl 10.0.0.1\n"), "save: ipset's add line");
	e.value = 5;
	check(!strcmp(print(nfhp_set_print_add, &info, &e),
		      "add bl 10.0.0.1 value 5\n"), "save: a value");
	check(!strcmp(print(nfhp_set_print_member, &info, &e),
		      "10.0.0.1 value 5\n"), "list: a member with a value");
	strcpy(info.algo, "lpm");
	info.family = NFHP_FAMILY_IPV6;
	info.flags = NFHP_SET_F_LOCKED;
	info.limit = 0;
	check(!strcmp(print(head_lines, &info, NULL),
		      "Name: bl\nType: hash:net\nRevision: 0\n"
		      "Header: family inet6 hashsize 1024 maxelem 0 algo lpm locked\n"
		      "Size in memory: 296\nReferences: 1\n"
		      "Number of entries: 2\nMembers:\n"),
	      "list: ipset's head lines");
	e.addr = (nfhp_u128)0x20010db8 << 96;
	e.plen = 32;
	e.value = 0;
	check(!strcmp(print(nfhp_set_print_member, &info, &e),
		      "2001:db8::/32\n"), "list: an IPv6 prefix");
}

/* --- wire format ------------------------------------------------------------ */

static char buf[NFHP_NL_RECV_SIZE];

static struct nlmsghdr *msg_start(u8 cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = cmd;
	g->version = NFHP_GENL_VERSION;
	return nlh;
}

static const struct nlattr *find_attr(const struct nlattr *nest, u16 type)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

/**
 * struct seen - what nfhp_nl_parse_set_msg() handed over
 * @e: the entries
 * @n: how many
 */
struct seen {
	struct nfhp_set_entry e[8];
	unsigned int n;
};

static int seen_cb(void *data, const struct nfhp_set_info *info,
		   const struct nfhp_set_entry *e)
{
	struct seen *s = data;

	if (s->n < ARRAY_SIZE(s->e))
		s->e[s->n] = *e;
	s->n++;
	return 0;
}

static void test_request(void)
{
	struct nfhp_set_info info = {
		.name = "bl", .type = NFHP_SET_ADDR, .algo = "lpm",
		.family = NFHP_FAMILY_IPV6, .limit = 10,
	};
	struct nfhp_set_entry e[2] = {
		{ .addr = (nfhp_u128)0x20010db8 << 96 | 0x1234, .plen = 128,
		  .value = 9 },
		{ .addr = 0, .plen = 0 },
	};
	const struct nlattr *set, *ent, *a;
	struct nlmsghdr *nlh;
	struct nfhp_set_info back = {};
	struct seen s = {};
	u32 w[4];

	nlh = msg_start(NFHP_CMD_SET_NEW);
	nfhp_nl_put_set(nlh, &info, NFHP_SET_F_EXIST, NULL, 0, false);
	set = (const struct nlattr *)mnl_nlmsg_get_payload_offset(nlh,
						sizeof(struct genlmsghdr));
	check(mnl_attr_get_type(set) == NFHPA_SET &&
	      !strcmp(mnl_attr_get_str(find_attr(set, NFHPA_SET_NAME)), "bl") &&
	      mnl_attr_get_u8(find_attr(set, NFHPA_SET_TYPE)) == NFHP_SET_ADDR &&
	      !strcmp(mnl_attr_get_str(find_attr(set, NFHPA_SET_ALGO)), "lpm") &&
	      mnl_attr_get_u32(find_attr(set, NFHPA_SET_LIMIT)) == 10 &&
	      mnl_attr_get_u32(find_attr(set, NFHPA_SET_FLAGS)) ==
	      NFHP_SET_F_EXIST,
	      "create: name, type, algorithm, limit and flags");
	info.limit = 0;
	nlh = msg_start(NFHP_CMD_SET_NEW);
	nfhp_nl_put_set(nlh, &info, 0, NULL, 0, false);
	set = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr));
	check(!find_attr(set, NFHPA_SET_LIMIT) && !find_attr(set, NFHPA_SET_FLAGS),
	      "create: no limit, no flags: no attributes");

	info.type = 0;
	nlh = msg_start(NFHP_CMD_SET_ADD);
	nfhp_nl_put_set(nlh, &info, NFHP_SET_F_UPDATE, e, 2, true);
	set = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr));
	check(!find_attr(set, NFHPA_SET_TYPE), "add: no type");
	ent = find_attr(set, NFHPA_SET_ENTRY);
	a = find_attr(ent, NFHPA_SETE_ADDR);
	memcpy(w, mnl_attr_get_payload(a), sizeof(w));
	check(mnl_attr_get_payload_len(a) == 16 && w[0] == 0x20010db8 &&
	      w[1] == 0 && w[2] == 0 && w[3] == 0x1234,
	      "add: the address as four host-order words, most significant first");
	check(mnl_attr_get_u8(find_attr(ent, NFHPA_SETE_PLEN)) == 128 &&
	      mnl_attr_get_u32(find_attr(ent, NFHPA_SETE_VALUE)) == 9,
	      "add: prefix length and value");
	mnl_attr_put_u8(nlh, NFHPA_FAMILY, NFHP_FAMILY_IPV6);
	check(!nfhp_nl_parse_set_msg(nlh, &back, seen_cb, &s) && s.n == 2 &&
	      s.e[0].addr == e[0].addr && s.e[0].plen == 128 &&
	      s.e[0].value == 9 && s.e[1].plen == 0 && s.e[1].value == 0 &&
	      !strcmp(back.name, "bl") && back.family == NFHP_FAMILY_IPV6,
	      "add: the entries read back, in order");

	nlh = msg_start(NFHP_CMD_SET_REMOVE);
	nfhp_nl_put_set(nlh, &info, 0, e, 1, false);
	set = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr));
	check(!find_attr(find_attr(set, NFHPA_SET_ENTRY), NFHPA_SETE_VALUE),
	      "remove: no value");
}

/* An answer: NFHPA_FAMILY and NFHPA_SET, its entries with results. */
static struct nlmsghdr *answer(const char *name, u8 family, int bad)
{
	struct nlmsghdr *nlh = msg_start(NFHP_CMD_SET_LIST);
	struct nlattr *set, *ent;
	u32 w[4] = { 0, 0, 0, 0x0a000001 };

	mnl_attr_put_u8(nlh, NFHPA_FAMILY, family);
	set = mnl_attr_nest_start(nlh, NFHPA_SET);
	mnl_attr_put_strz(nlh, NFHPA_SET_NAME, name);
	mnl_attr_put_u8(nlh, NFHPA_SET_TYPE, NFHP_SET_ADDR);
	mnl_attr_put_strz(nlh, NFHPA_SET_ALGO, "hash");
	mnl_attr_put_u32(nlh, NFHPA_SET_LIMIT, 100);
	mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, NFHP_SET_F_LOCKED);
	mnl_attr_put_u32(nlh, NFHPA_SET_COUNT, 2);
	mnl_attr_put_u32(nlh, NFHPA_SET_REFS, 3);
	mnl_attr_put_u64(nlh, NFHPA_SET_MEMORY, 4096);
	mnl_attr_put_u32(nlh, NFHPA_SET_MAX + 5, 0);	/* a newer kernel's */
	ent = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
	mnl_attr_put(nlh, NFHPA_SETE_ADDR, bad == 1 ? 8 : 16, w);
	mnl_attr_put_u8(nlh, NFHPA_SETE_RESULT, NFHP_SET_EXISTS);
	mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, 42);
	if (bad == 2)
		mnl_attr_put_u32(nlh, NFHPA_SETE_PLEN, 32);	/* not a u8 */
	mnl_attr_nest_end(nlh, ent);
	ent = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
	w[3] = 0x0a000000;
	mnl_attr_put(nlh, NFHPA_SETE_ADDR, 16, w);
	mnl_attr_put_u8(nlh, NFHPA_SETE_PLEN, bad == 3 ? 33 : 24);
	mnl_attr_put_u8(nlh, NFHPA_SETE_RESULT, NFHP_SET_LIMIT);
	mnl_attr_nest_end(nlh, ent);
	mnl_attr_nest_end(nlh, set);
	return nlh;
}

/* What the listing callbacks were told, as text. */
static char listed[1024];

static int listed_set(void *data, const struct nfhp_set_info *info)
{
	size_t n = strlen(listed);

	snprintf(listed + n, sizeof(listed) - n, "[%s %s %u %u %u %u %llu]",
		 info->name, nfhp_set_typename(info), info->family, info->limit,
		 info->count, info->refs, (unsigned long long)info->memory);
	return 0;
}

static int listed_entry(void *data, const struct nfhp_set_info *info,
			const struct nfhp_set_entry *e)
{
	size_t n = strlen(listed);
	char key[64];

	nfhp_set_key_str(key, sizeof(key), info->family, e);
	snprintf(listed + n, sizeof(listed) - n, " %s:%u", key, e->value);
	return 0;
}

static void test_answers(void)
{
	static const struct nfhp_nl_set_ops ops = {
		.set = listed_set, .entry = listed_entry,
	};
	struct list_ctx c = { .ops = &ops };
	struct nfhp_set_entry sent[2] = {};
	struct results r = { .e = sent, .n = 2 };
	struct nfhp_set_info info = {};
	struct seen s = {};

	check(!nfhp_nl_parse_set_msg(answer("bl", NFHP_FAMILY_IPV4, 0), &info,
				     seen_cb, &s) &&
	      !strcmp(info.name, "bl") && info.type == NFHP_SET_ADDR &&
	      !strcmp(info.algo, "hash") && info.limit == 100 &&
	      info.flags == NFHP_SET_F_LOCKED && info.count == 2 &&
	      info.refs == 3 && info.memory == 4096 &&
	      info.family == NFHP_FAMILY_IPV4,
	      "a set's head, an unknown attribute skipped");
	check(s.n == 2 && s.e[0].addr == 0x0a000001 && s.e[0].plen == 32 &&
	      s.e[0].value == 42 && s.e[0].result == NFHP_SET_EXISTS &&
	      s.e[1].plen == 24 && s.e[1].result == NFHP_SET_LIMIT,
	      "entries: no prefix length is the family's width; results");
	check(nfhp_nl_parse_set_msg(answer("bl", NFHP_FAMILY_IPV4, 1), &info,
				    seen_cb, &s) == -EINVAL,
	      "an address of 8 bytes is refused");
	check(nfhp_nl_parse_set_msg(answer("bl", NFHP_FAMILY_IPV4, 2), &info,
				    seen_cb, &s) == -EINVAL,
	      "a prefix length that is not a u8 is refused");
	check(nfhp_nl_parse_set_msg(answer("bl", NFHP_FAMILY_IPV4, 3), &info,
				    seen_cb, &s) == -EINVAL,
	      "a prefix length over the width is refused");
	check(results_msg_cb(answer("bl", NFHP_FAMILY_IPV4, 0), &r) == 0 &&
	      r.seen == 2 && sent[0].result == NFHP_SET_EXISTS &&
	      sent[0].value == 42 && sent[1].result == NFHP_SET_LIMIT,
	      "an add's answer: a result per entry sent, in order");
	r.seen = 0;
	r.n = 1;
	check(results_msg_cb(answer("bl", NFHP_FAMILY_IPV4, 0), &r) ==
	      -EPROTO, "more results than entries sent is refused");

	/* An add's answer has no NFHPA_FAMILY: the request's family counts. */
	{
		struct nlmsghdr *nlh = msg_start(NFHP_CMD_SET_ADD);
		struct nfhp_set_entry e6 = {
			.addr = (nfhp_u128)0xfd000001 << 96 | 2, .plen = 128,
		};
		struct nfhp_set_info six = {
			.name = "s6", .family = NFHP_FAMILY_IPV6,
		};
		struct results r6 = { .e = sent, .n = 1,
				      .family = NFHP_FAMILY_IPV6 };

		nfhp_nl_put_set(nlh, &six, 0, &e6, 1, false);
		check(results_msg_cb(nlh, &r6) == 0 && r6.seen == 1,
		      "an IPv6 add's answer without a family: /128 read");
		r6.seen = 0;
		r6.family = 0;
		check(results_msg_cb(nlh, &r6) == -EINVAL,
		      "the same answer read as IPv4's: /128 is too long");
	}

	listed[0] = '\0';
	check(!list_msg_cb(answer("a", NFHP_FAMILY_IPV4, 0), &c) &&
	      !list_msg_cb(answer("b", NFHP_FAMILY_IPV6, 0), &c) &&
	      !strcmp(listed, "[a hash:ip 2 100 2 3 4096] 10.0.0.1:42 10.0.0.0/24:0"
			      "[b hash:ip 10 100 2 3 4096] ::10.0.0.1:42 ::10.0.0.0/24:0"),
	      "a listing: each set's head, then its entries: %s", listed);
}

/* --- number sets (bitmap:port) ---------------------------------------- */

static int num_elem(const char *s, const char *algo, struct nfhp_set_entry *e)
{
	struct keys k;
	int ret = elem(s, NFHP_FAMILY_IPV4, algo, &k);

	*e = k.e[0];
	return ret ? ret : (int)k.n;
}

static void test_numbers(void)
{
	struct nfhp_set_info info;
	struct nfhp_set_entry e;
	const char *algo = NULL;
	bool exist;
	u8 type = 0;

	check(nfhp_set_parse_typename("bitmap:port", &type, &algo) &&
	      type == NFHP_SET_NUMBER && !strcmp(algo, "bitmap") &&
	      nfhp_set_algo_number("range") && !nfhp_set_algo_number("lpm"),
	      "bitmap:port is a number set, algorithm bitmap; range is one too");
	check(!create_typed(NFHP_SET_NUMBER, "bitmap", "range 0-1024 -exist",
			    &info, &exist) && exist &&
	      !strcmp(info.algo, "bitmap"),
	      "create: ipset save's bitmap:port line is taken: %s", err);
	check(!create_typed(NFHP_SET_NUMBER, "bitmap", "algo range", &info,
			    &exist) && !strcmp(info.algo, "range"),
	      "create: algo range for bitmap:port");
	check(create_typed(NFHP_SET_NUMBER, "bitmap", "algo lpm", &info,
			   &exist) == NFHP_SET_EXIT_ERR &&
	      strstr(err, "bitmap or range"),
	      "create: an address algorithm for numbers is refused: %s", err);
	check(create_typed(NFHP_SET_NUMBER, "bitmap", "range 9-70000", &info,
			   &exist) == NFHP_SET_EXIT_ERR &&
	      strstr(err, "out of range 0-65535"),
	      "create: a range beyond the ports is refused: %s", err);
	check(create("range 0-10", &info, &exist) == NFHP_SET_EXIT_PARAM,
	      "create: range is bitmap:port's alone");
	check(!create_typed(NFHP_SET_NUMBER, "bitmap", "range 1024-2047",
			    &info, &exist) && info.ranged &&
	      info.range_lo == 1024 && info.range_hi == 2047,
	      "create: the range goes to the kernel");
	check(!create_typed(NFHP_SET_NUMBER, "bitmap", "", &info, &exist) &&
	      info.ranged && info.range_lo == 0 && info.range_hi == 65535,
	      "create: a bitmap without a range holds every port");
	check(!create_typed(NFHP_SET_NUMBER, "bitmap",
			    "range 70000-4294967295 algo range", &info,
			    &exist) && info.ranged && info.range_lo == 70000 &&
	      info.range_hi == 0xffffffffu,
	      "create: algo range takes any u32 range, before or after algo");
	check(!create_typed(NFHP_SET_NUMBER, "bitmap", "algo range", &info,
			    &exist) && info.ranged && info.range_lo == 0 &&
	      info.range_hi == 0xffffffffu,
	      "create: algo range without a range: any u32");
	check(create_typed(NFHP_SET_NUMBER, "bitmap", "range 9-3", &info,
			   &exist) == NFHP_SET_EXIT_ERR &&
	      strstr(err, "ends before it begins"),
	      "create: a range backwards is refused: %s", err);
	check(num_elem("80", "bitmap", &e) == 1 && e.addr == 80 &&
	      e.hi == 80, "a port: one key [80, 80]");
	check(num_elem("1024-2047", "bitmap", &e) == 1 && e.addr == 1024 &&
	      e.hi == 2047, "a port range: one key [1024, 2047]");
	check(num_elem("9-3", "range", &e) == 1 && e.addr == 3 && e.hi == 9,
	      "a range backwards, as ipset takes it");
	check(num_elem("65536", "bitmap", &e) == -EINVAL &&
	      strstr(err, "out of range 0-65535"),
	      "bitmap: 65536 is no port: %s", err);
	check(num_elem("0-4294967295", "range", &e) == 1 && e.addr == 0 &&
	      e.hi == 0xffffffffu, "range: the whole u32");
	check(num_elem("4294967296", "range", &e) == -EINVAL,
	      "range: beyond u32 refused");
	check(num_elem("0x50", "bitmap", &e) == 1 && e.addr == 80,
	      "a port in hex, as ipset reads numbers");
	check(num_elem("http", "bitmap", &e) == 1 && e.addr == 80 &&
	      e.hi == 80, "a service name: its port, tcp's: %s", err);
	check(num_elem("tcp:80", "bitmap", &e) == 1 && e.addr == 80 &&
	      e.hi == 80, "tcp:80: the port: %s", err);
	check(num_elem("udp:53", "bitmap", &e) == 1 && e.addr == 53 &&
	      e.hi == 53, "udp:53: the port: %s", err);
	check(num_elem("udp:domain", "bitmap", &e) == 1 && e.addr == 53,
	      "udp:domain: a udp service: %s", err);
	check(num_elem("17:bootps", "bitmap", &e) == 1 && e.addr == 67,
	      "a protocol by number: %s", err);
	check(num_elem("bootps", "bitmap", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: cannot parse 'bootps' as a tcp port"),
	      "a udp-only service needs udp:, ipset's message: %s", err);
	check(num_elem("udp:ftp", "bitmap", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: cannot parse 'ftp' as a udp port"),
	      "udp: a tcp-only service refused: %s", err);
	check(num_elem("[ftp-data]-ftp", "bitmap", &e) == 1 && e.addr == 20 &&
	      e.hi == 21, "a range from a name with a '-' in brackets: %s",
	      err);
	check(num_elem("tcp:ftp-ftp-data", "bitmap", &e) == 1 &&
	      e.addr == 20 && e.hi == 21,
	      "a range to a name with a '-', either way round: %s", err);
	check(num_elem("ftp-data-ftp", "bitmap", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: cannot parse 'data-ftp' as a tcp port"),
	      "a bare name with a '-' first splits there, as in ipset: %s",
	      err);
	check(num_elem("[ftp-data]", "bitmap", &e) == 1 && e.addr == 20 &&
	      e.hi == 20, "a name in brackets alone: %s", err);
	check(num_elem("icmp:1", "bitmap", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: Only protocols TCP and UDP are valid"),
	      "icmp refused, ipset's message: %s", err);
	check(num_elem("sctp:80", "range", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: Only protocols TCP and UDP are valid"),
	      "sctp refused too, in range sets as well: %s", err);
	check(num_elem("foo:80", "bitmap", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: cannot parse 'foo' as a protocol"),
	      "an unknown protocol: %s", err);
	check(num_elem("nosuchservice", "bitmap", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: cannot parse 'nosuchservice' as a tcp port"),
	      "an unknown name refused: %s", err);
	check(num_elem("tcp:70000", "bitmap", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: '70000' is out of range 0-65535"),
	      "bitmap: tcp:70000 is no port: %s", err);
	check(num_elem("http-70000", "range", &e) == 1 && e.addr == 80 &&
	      e.hi == 70000,
	      "range: a name, and a number above the ports: %s", err);
	check(create_typed(NFHP_SET_NUMBER, "bitmap", "range tcp:1024-2048",
			   &info, &exist) == 0 && info.range_lo == 1024 &&
	      info.range_hi == 2048, "create: range tcp:1024-2048: %s", err);
	check(create_typed(NFHP_SET_NUMBER, "bitmap", "range [ftp-data]-https",
			   &info, &exist) == 0 && info.range_lo == 20 &&
	      info.range_hi == 443, "create: a range of names: %s", err);
	check(create_typed(NFHP_SET_NUMBER, "bitmap",
			   "algo range range udp:domain-100000", &info,
			   &exist) == 0 && info.range_lo == 53 &&
	      info.range_hi == 100000,
	      "create: algo range, a name and a number past the ports: %s",
	      err);
	check(create_typed(NFHP_SET_NUMBER, "bitmap", "range icmp:1-2", &info,
			   &exist) == NFHP_SET_EXIT_ERR &&
	      !strcmp(err, "Syntax error: Only protocols TCP and UDP are valid"),
	      "create: a range of icmp refused: %s", err);

	memset(&info, 0, sizeof(info));
	strcpy(info.name, "p");
	info.type = NFHP_SET_NUMBER;
	strcpy(info.algo, "bitmap");
	info.limit = NFHP_SET_DEFAULT_LIMIT;
	check(!strcmp(print(create_line, &info, NULL),
		      "create p bitmap:port range 0-65535\n"),
	      "save: ipset's bitmap:port create line");
	strcpy(info.algo, "range");
	info.limit = 10;
	check(!strcmp(print(create_line, &info, NULL),
		      "create p bitmap:port range 0-65535 maxelem 10 algo range\n"),
	      "save: the range algorithm and a limit, nf-hipac's");
	info.ranged = true;
	info.range_lo = 1024;
	info.range_hi = 4294967295u;
	check(!strcmp(print(create_line, &info, NULL),
		      "create p bitmap:port range 1024-4294967295 maxelem 10 algo range\n"),
	      "save: the range the kernel lists");
	e = (struct nfhp_set_entry){ .addr = 1000, .hi = 1999, .value = 3 };
	check(!strcmp(print(nfhp_set_print_add, &info, &e),
		      "add p 1000-1999 value 3\n"), "save: a range with a value");
	e = (struct nfhp_set_entry){ .addr = 22, .hi = 22 };
	check(!strcmp(print(nfhp_set_print_member, &info, &e), "22\n"),
	      "list: a port");
}

/* Number entries on the wire: NUM_LO, NUM_HI, and read back. */
static void test_num_wire(void)
{
	struct nfhp_set_info info = {
		.name = "p", .type = NFHP_SET_NUMBER, .algo = "range",
	};
	struct nfhp_set_entry e = { .addr = 1000, .hi = 1999, .value = 3 };
	const struct nlattr *set, *ent;
	struct nfhp_set_info back = {};
	struct nlmsghdr *nlh;
	struct seen s = {};

	nlh = msg_start(NFHP_CMD_SET_ADD);
	nfhp_nl_put_set(nlh, &info, 0, &e, 1, true);
	set = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr));
	ent = find_attr(set, NFHPA_SET_ENTRY);
	check(!find_attr(ent, NFHPA_SETE_ADDR) &&
	      !find_attr(ent, NFHPA_SETE_PLEN) &&
	      mnl_attr_get_u32(find_attr(ent, NFHPA_SETE_NUM_LO)) == 1000 &&
	      mnl_attr_get_u32(find_attr(ent, NFHPA_SETE_NUM_HI)) == 1999,
	      "add: a number entry is NUM_LO and NUM_HI, no address");
	check(!nfhp_nl_parse_set_msg(nlh, &back, seen_cb, &s) && s.n == 1 &&
	      s.e[0].addr == 1000 && s.e[0].hi == 1999 && s.e[0].value == 3,
	      "add: the range read back");
}

/* A flow set's element: its keys as ipset prints them, or 0 and @err. */
static unsigned int flow(const char *s, u8 family, const char *algo,
			 char *out, size_t len)
{
	struct nfhp_set_info info = { .type = NFHP_SET_FLOW, .family = family };
	char one[NFHP_SET_ELEM_STRLEN];
	struct keys k;
	unsigned int i;

	memset(&k, 0, sizeof(k));
	k.family = family;
	snprintf(info.algo, sizeof(info.algo), "%s", algo);
	err[0] = out[0] = '\0';
	if (nfhp_set_parse_elem(s, family, NFHP_SET_FLOW, algo, keys_cb, &k,
				err, sizeof(err)))
		return 0;
	for (i = 0; i < k.n && i < ARRAY_SIZE(k.e); i++) {
		nfhp_set_elem_str(one, sizeof(one), &info, &k.e[i]);
		snprintf(out + strlen(out), len - strlen(out), "%s%s",
			 i ? " " : "", one);
	}
	return k.n;
}

/**
 * struct flow_case - a flow set's element and what it stands for
 * @elem: the element
 * @family: the set's family
 * @algo: its algorithm
 * @n: the keys it stands for, 0 for a refusal
 * @want: the keys as ipset prints them, or the start of the message
 * @what: the check's name
 */
struct flow_case {
	const char *elem;
	u8 family;
	const char *algo;
	unsigned int n;
	const char *want;
	const char *what;
};

static const struct flow_case flow_cases[] = {
	{ "10.0.0.1,80", NFHP_FAMILY_IPV4, "hash", 1, "10.0.0.1,tcp:80",
	  "tcp by default" },
	{ "10.0.0.1,tcp:80-82", NFHP_FAMILY_IPV4, "hash", 3,
	  "10.0.0.1,tcp:80 10.0.0.1,tcp:81 10.0.0.1,tcp:82",
	  "a port range is a key per port" },
	{ "10.0.0.1,http", NFHP_FAMILY_IPV4, "hash", 1, "10.0.0.1,tcp:80",
	  "a service by name" },
	{ "10.0.0.1,010", NFHP_FAMILY_IPV4, "hash", 1, "10.0.0.1,tcp:8",
	  "a port in octal, as ipset reads numbers" },
	{ "10.0.0.1,udp:0x35", NFHP_FAMILY_IPV4, "hash", 1,
	  "10.0.0.1,udp:53", "a port in hex" },
	{ "10.0.0.1,[ftp-data]", NFHP_FAMILY_IPV4, "hash", 1,
	  "10.0.0.1,tcp:20", "a name with a '-' in brackets, as ipset's" },
	{ "10.0.0.1,tcp:[ftp-data]-ftp", NFHP_FAMILY_IPV4, "hash", 2,
	  "10.0.0.1,tcp:20 10.0.0.1,tcp:21", "a range from a name in brackets" },
	{ "10.0.0.1,ftp-ftp-data", NFHP_FAMILY_IPV4, "hash", 2,
	  "10.0.0.1,tcp:20 10.0.0.1,tcp:21",
	  "a range to a name with a '-': the first '-' splits" },
	{ "10.0.0.1,ftp-data", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: cannot parse 'data' as a tcp port",
	  "a bare name with a '-' is a range, as in ipset" },
	{ "10.0.0.1,[ftp-data]x", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: range separator expected after '[ftp-data]'",
	  "brackets followed by no '-'" },
	{ "10.0.0.1,[ftp-data", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: cannot find closing escape character ']' in [ftp-data",
	  "brackets not closed" },
	{ "10.0.0.1,:80", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: cannot parse ':80' as a tcp port",
	  "a ':' first is no protocol's, as in ipset" },
	{ "10.0.0.2/31,udp:53", NFHP_FAMILY_IPV4, "hash", 2,
	  "10.0.0.2,udp:53 10.0.0.3,udp:53", "hash: a prefix is its hosts" },
	{ "10.0.0.9/24,udp:53", NFHP_FAMILY_IPV4, "lpm", 1,
	  "10.0.0.0/24,udp:53", "lpm: a prefix, its host bits cleared" },
	{ "10.1.0.0-10.1.0.5,tcp:3", NFHP_FAMILY_IPV4, "lpm", 2,
	  "10.1.0.0/30,tcp:3 10.1.0.4/31,tcp:3",
	  "lpm: a range is ipset's prefixes" },
	{ "10.0.0.3,icmp:8/0", NFHP_FAMILY_IPV4, "hash", 1,
	  "10.0.0.3,icmp:echo-request", "ICMP by type/code, printed by name" },
	{ "10.0.0.3,icmp:ping", NFHP_FAMILY_IPV4, "hash", 1,
	  "10.0.0.3,icmp:echo-request", "ICMP by another name of ipset's" },
	{ "10.0.0.3,icmp:3/8", NFHP_FAMILY_IPV4, "hash", 1,
	  "10.0.0.3,icmp:3/8", "an ICMP type/code without a name" },
	{ "10.0.0.6,47:0", NFHP_FAMILY_IPV4, "hash", 1, "10.0.0.6,gre:0",
	  "a protocol by number, printed by name" },
	{ "2001:db8::/64,icmpv6:128/0", NFHP_FAMILY_IPV6, "lpm", 1,
	  "2001:db8::/64,ipv6-icmp:echo-request", "ICMPv6 as ipset prints it" },
	{ "2001:db8::1,ipv6-icmp:echo-request", NFHP_FAMILY_IPV6, "hash", 1,
	  "2001:db8::1,ipv6-icmp:echo-request",
	  "what ipset save prints is taken back" },
	{ "10.0.0.1", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: Second element is missing from 10.0.0.1.",
	  "no port, ipset's message" },
	{ "10.0.0.1,gre:5", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: Protocol gre can be used with pseudo port value 0 only.",
	  "a port on a protocol without" },
	{ "10.0.0.1,0:0", NFHP_FAMILY_IPV4, "hash", 0,
	  "Invalid protocol specified", "protocol 0, ipset's message" },
	{ "10.0.0.1,foo:1", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: cannot parse 'foo' as a protocol",
	  "an unknown protocol" },
	{ "10.0.0.1,icmpv6:1/0", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: Protocol ICMPv6 can be used with family inet6 only",
	  "ICMPv6 in an IPv4 set" },
	{ "10.0.0.0/0,tcp:3", NFHP_FAMILY_IPV4, "lpm", 0,
	  "The value of the CIDR parameter of the IP address is invalid",
	  "lpm: /0 refused, ipset's message" },
	{ "10.0.0.1,tcp:70000", NFHP_FAMILY_IPV4, "hash", 0,
	  "Syntax error: '70000' is out of range 0-65535",
	  "a port out of range" },
};

static void test_flow_elems(void)
{
	const struct flow_case *c;
	char o[1024];
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(flow_cases); i++) {
		c = &flow_cases[i];
		n = flow(c->elem, c->family, c->algo, o, sizeof(o));
		check(n == c->n && !strncmp(n ? o : err, c->want,
					    strlen(c->want)),
		      "flow %s: %s: %s", c->elem, c->what, n ? o : err);
	}
}

static void test_flow_wire(void)
{
	struct nfhp_set_info info = {
		.name = "f", .type = NFHP_SET_FLOW, .algo = "hash",
	};
	struct nfhp_set_entry e = { .addr = 0x0a000001, .plen = 32,
				    .proto = 17, .port = 53, .value = 3 };
	const struct nlattr *set, *ent;
	struct nfhp_set_info back = {};
	struct nlmsghdr *nlh;
	struct seen s = {};

	nlh = msg_start(NFHP_CMD_SET_ADD);
	nfhp_nl_put_set(nlh, &info, 0, &e, 1, true);
	set = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr));
	ent = find_attr(set, NFHPA_SET_ENTRY);
	check(find_attr(ent, NFHPA_SETE_ADDR) &&
	      mnl_attr_get_u8(find_attr(ent, NFHPA_SETE_PROTO)) == 17 &&
	      mnl_attr_get_u16(find_attr(ent, NFHPA_SETE_PORT)) == 53,
	      "add: a flow entry is ADDR, PLEN, PROTO and PORT");
	check(!nfhp_nl_parse_set_msg(nlh, &back, seen_cb, &s) && s.n == 1 &&
	      s.e[0].addr == 0x0a000001 && s.e[0].proto == 17 &&
	      s.e[0].port == 53 && s.e[0].value == 3,
	      "add: the flow entry read back");
}

/* A hash:iface element: one key, or -EINVAL with ipset's message. */
static int iface_elem(const char *s, struct nfhp_set_entry *e)
{
	struct keys k;
	int ret;

	memset(&k, 0, sizeof(k));
	err[0] = '\0';
	ret = nfhp_set_parse_elem(s, NFHP_FAMILY_IPV4, NFHP_SET_IFACE, "hash",
				  keys_cb, &k, err, sizeof(err));
	*e = k.e[0];
	return ret ?: (int)k.n;
}

/* hash:iface, nf-hipac's: its options, names, and its lines. */
static void test_ifaces(void)
{
	struct nfhp_set_info info;
	struct nfhp_set_entry e;
	const char *algo = NULL;
	bool exist;
	u8 type = 0;

	check(nfhp_set_parse_typename("hash:iface", &type, &algo) &&
	      type == NFHP_SET_IFACE && !strcmp(algo, "hash"),
	      "hash:iface is an iface set in a hash");
	check(!create_typed(NFHP_SET_IFACE, "hash", "algo lpm maxelem 9",
			    &info, &exist) && !strcmp(info.algo, "lpm") &&
	      info.limit == 9, "create: algo lpm for hash:iface: %s", err);
	check(create_typed(NFHP_SET_IFACE, "hash", "algo bitmap", &info,
			   &exist) == NFHP_SET_EXIT_ERR &&
	      strstr(err, "hash or lpm"),
	      "create: a number algorithm for names is refused: %s", err);
	check(iface_elem("eth1+", &e) == 1 && e.plen == 32 &&
	      e.addr == (nfhp_u128)0x65746831 << 96,
	      "eth1+: the 32-bit prefix of eth1");
	check(iface_elem("abcdefghijklmno", &e) == 1 && e.plen == 128,
	      "a name of 15 bytes");
	check(iface_elem("abcdefghijklmnop", &e) == -EINVAL &&
	      !strcmp(err, "Syntax error: interface name 'abcdefghijklmnop' is longer than 15 characters"),
	      "16 bytes refused with ipset's message: %s", err);
	check(iface_elem("", &e) == -EINVAL, "no name refused");

	memset(&info, 0, sizeof(info));
	strcpy(info.name, "i");
	info.type = NFHP_SET_IFACE;
	strcpy(info.algo, "hash");
	info.limit = NFHP_SET_DEFAULT_LIMIT;
	check(!strcmp(print(create_line, &info, NULL),
		      "create i hash:iface hashsize 1024 maxelem 65536\n"),
	      "save: the hash:iface create line");
	strcpy(info.algo, "lpm");
	check(!strcmp(print(create_line, &info, NULL),
		      "create i hash:iface hashsize 1024 maxelem 65536 algo lpm\n"),
	      "save: the lpm algorithm named");
	iface_elem("eth+", &e);
	e.value = 4;
	check(!strcmp(print(nfhp_set_print_add, &info, &e),
		      "add i eth+ value 4\n"), "save: a wildcard with a value");
	iface_elem("lo", &e);
	check(!strcmp(print(nfhp_set_print_member, &info, &e), "lo\n"),
	      "list: a name");
}

/* Interface entries on the wire: IFACE as iptables writes it, back. */
static void test_iface_wire(void)
{
	struct nfhp_set_info info = {
		.name = "i", .type = NFHP_SET_IFACE, .algo = "hash",
	};
	struct nfhp_set_entry e[2];
	const struct nlattr *set, *ent;
	struct nfhp_set_info back = {};
	struct nlmsghdr *nlh;
	struct seen s = {};

	iface_elem("ppp+", &e[0]);
	iface_elem("eth0", &e[1]);
	e[1].value = 7;
	nlh = msg_start(NFHP_CMD_SET_ADD);
	nfhp_nl_put_set(nlh, &info, 0, e, 2, true);
	set = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr));
	ent = find_attr(set, NFHPA_SET_ENTRY);
	check(!find_attr(ent, NFHPA_SETE_ADDR) &&
	      !find_attr(ent, NFHPA_SETE_PLEN) &&
	      !strcmp(mnl_attr_get_str(find_attr(ent, NFHPA_SETE_IFACE)),
		      "ppp+"),
	      "add: an interface entry is IFACE \"ppp+\", no address");
	check(!nfhp_nl_parse_set_msg(nlh, &back, seen_cb, &s) && s.n == 2 &&
	      s.e[0].plen == 24 && s.e[0].addr == e[0].addr &&
	      s.e[1].plen == 128 && s.e[1].addr == e[1].addr &&
	      s.e[1].value == 7, "add: the names read back");
}

int main(void)
{
	test_numbers();
	test_num_wire();
	test_flow_elems();
	test_flow_wire();
	test_ifaces();
	test_iface_wire();
	test_typenames();
	test_create();
	test_elems();
	test_elem_opts();
	test_print();
	test_request();
	test_answers();
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
