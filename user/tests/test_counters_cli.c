// SPDX-License-Identifier: GPL-2.0
/*
 * The per-entry counters of named sets (ipset's "counters",
 * NFHP_SET_F_COUNTERS) in nf-hipac-set, nf-hipac-save and
 * nf-hipac-restore.
 *
 * First without a kernel: the create option, an add's "packets N" and
 * "bytes N", the refusal for a set that does not count, the lines of
 * list and save, and the attributes on the wire (lib/set_parse.c,
 * lib/nl_set.c).  Then the tools as they are (their main functions, in
 * cli/), over the netlink client compiled into this file with libmnl's
 * socket calls and recv() replaced by a fake kernel.  It keeps sets as
 * the uapi header says a set with counters behaves (an add starts an
 * entry at the counts given, an update takes those given, a set without
 * counters refuses them, a swap needs both to count or neither) and
 * writes each request down ("SET_NEW c counters; SET_ADD c: 10.0.0.1
 * p3 b180"), so that what the tools send can be compared.
 *
 * The messages and exit codes expected are ipset v7.17's for the same
 * input: "Packet/byte counters cannot be used: set was created without
 * counter support", exit 1, is what ipset prints for its kernel's
 * IPSET_ERR_COUNTER.
 */
#include "fake_nl.h"
#include "../lib/nl_set.c"
#include "../cli/subcommands.h"
#include "tap.h"

#define NO_COUNTERS_MSG	\
	"Packet/byte counters cannot be used: set was created without counter support"

static char err[256];

/* --- syntax --------------------------------------------------------------- */

/* A create of a hash:ip set with the options @opts. */
static int create(const char *opts, struct nfhp_set_info *info)
{
	char buf[256], *argv[32];
	bool exist = false;
	int argc;

	memset(info, 0, sizeof(*info));
	strcpy(info->name, "s");
	info->type = NFHP_SET_ADDR;
	strcpy(info->algo, "hash");
	snprintf(buf, sizeof(buf), "%s", opts);
	argc = nfhp_split_line(buf, argv, 31);
	err[0] = '\0';
	return nfhp_set_parse_create(argc, argv, info, &exist, err,
				     sizeof(err));
}

static void test_create_opt(void)
{
	struct nfhp_set_info info;

	check(!create("counters", &info) &&
	      info.flags == NFHP_SET_F_COUNTERS,
	      "create: counters is NFHP_SET_F_COUNTERS");
	check(!create("family inet hashsize 1024 maxelem 65536 counters bucketsize 12 initval 0x1c1a1f7e",
		      &info) && info.flags == NFHP_SET_F_COUNTERS &&
	      info.limit == 65536,
	      "create: ipset save's line with counters");
	check(!create("locked counters comment", &info) &&
	      info.flags == (NFHP_SET_F_COUNTERS | NFHP_SET_F_LOCKED),
	      "create: counters beside locked, comment ignored");
	check(!create("maxelem 10 comment", &info) && !info.flags,
	      "create: without counters no flag");
}

/* An add's (@add) or a del's options @s into @e. */
static int opts(const char *s, bool add, struct nfhp_set_entry *e)
{
	char buf[256], *argv[32];
	bool exist = false;
	int argc;

	snprintf(buf, sizeof(buf), "%s", s);
	argc = nfhp_split_line(buf, argv, 31);
	memset(e, 0, sizeof(*e));
	err[0] = '\0';
	return nfhp_set_parse_entry_opts(argc, argv, add, e, &exist, err,
					 sizeof(err));
}

static void test_entry_opts(void)
{
	struct nfhp_set_entry e;
	u32 value = 0;
	bool exist;

	check(!opts("packets 3 bytes 180", true, &e) && e.has_packets &&
	      e.packets == 3 && e.has_bytes && e.bytes == 180 && !e.value,
	      "add: packets and bytes");
	check(!opts("bytes 9 value 4 timeout 0 packets 0", true, &e) &&
	      e.has_packets && !e.packets && e.has_bytes && e.bytes == 9 &&
	      e.value == 4,
	      "add: in any order, among value and timeout 0");
	check(!opts("packets 5", true, &e) && e.has_packets && !e.has_bytes,
	      "add: packets alone, no bytes given");
	check(!opts("bytes 5", true, &e) && !e.has_packets && e.has_bytes,
	      "add: bytes alone, no packets given");
	check(!opts("value 1", true, &e) && !e.has_packets && !e.has_bytes,
	      "add: no counts given");
	check(!opts("packets 18446744073709551615 bytes 0x10", true, &e) &&
	      e.packets == ~0ULL && e.bytes == 16,
	      "add: 2^64 - 1 packets; bytes in hex, as ipset takes numbers");
	check(opts("packets 18446744073709551616", true, &e) ==
	      NFHP_SET_EXIT_ERR &&
	      !strcmp(err, "Syntax error: '18446744073709551616' is out of range 0-18446744073709551615"),
	      "add: 2^64 packets refused, exit 1: %s", err);
	check(opts("bytes 99999999999999999999999", true, &e) ==
	      NFHP_SET_EXIT_ERR && strstr(err, "is out of range"),
	      "add: far too many bytes refused: %s", err);
	check(opts("packets abc", true, &e) == NFHP_SET_EXIT_ERR &&
	      !strcmp(err, "Syntax error: 'abc' is invalid as number"),
	      "add: a bad number: %s", err);
	check(opts("bytes 12x", true, &e) == NFHP_SET_EXIT_ERR &&
	      !strcmp(err, "Syntax error: '12x' is invalid as number"),
	      "add: a number with a tail: %s", err);
	check(opts("packets -1", true, &e) == NFHP_SET_EXIT_ERR &&
	      strstr(err, "'-1' is out of range"),
	      "add: a negative count: %s", err);
	check(opts("bytes", true, &e) == NFHP_SET_EXIT_PARAM &&
	      !strcmp(err, "Missing mandatory argument of option `bytes'"),
	      "add: bytes without its number, ipset's exit 2: %s", err);
	check(!opts("packets 5 bytes abc", false, &e) && !e.has_packets &&
	      !e.has_bytes,
	      "del: packets and bytes taken unread, as before");
	check(!nfhp_set_parse_elem_opts(0, NULL, &value, &exist, err,
					sizeof(err)) && !value,
	      "the value-only parser still takes no options");
	{
		char buf[] = "value 3 packets 4", *argv[8];
		int argc = nfhp_split_line(buf, argv, 7);

		check(!nfhp_set_parse_elem_opts(argc, argv, &value, &exist,
						err, sizeof(err)) &&
		      value == 3,
		      "the value-only parser: the value, counts dropped");
	}
}

static void test_check_opts(void)
{
	struct nfhp_set_info plain = { .name = "p" }, counting = {
		.name = "c", .flags = NFHP_SET_F_COUNTERS,
	};
	struct nfhp_set_entry e = {};

	check(!nfhp_set_check_entry_opts(&plain, &e, err, sizeof(err)) &&
	      !nfhp_set_check_entry_opts(&counting, &e, err, sizeof(err)),
	      "no counts go to either set");
	e.has_packets = true;
	err[0] = '\0';
	check(nfhp_set_check_entry_opts(&plain, &e, err, sizeof(err)) ==
	      NFHP_SET_EXIT_ERR && !strcmp(err, NO_COUNTERS_MSG),
	      "packets for a set without counters: ipset's words, exit 1: %s",
	      err);
	check(!nfhp_set_check_entry_opts(&counting, &e, err, sizeof(err)),
	      "packets for a set with counters");
	e.has_packets = false;
	e.has_bytes = true;
	check(nfhp_set_check_entry_opts(&plain, &e, err, sizeof(err)) ==
	      NFHP_SET_EXIT_ERR, "bytes alone are refused too");
}

/* --- printing ------------------------------------------------------------- */

static char out[2048];

/* @s on one line, for a TAP message: "first|second|". */
static const char *one_line(const char *s)
{
	static char line[2048];
	size_t i;

	for (i = 0; s[i] && i < sizeof(line) - 1; i++)
		line[i] = s[i] == '\n' ? '|' : s[i];
	line[i] = '\0';
	return line;
}

/* What @what (CREATE, ADD, HEAD, MEMBER) prints of @info and @e, in out. */
static void printed(int what, const struct nfhp_set_info *info,
		    const struct nfhp_set_entry *e)
{
	FILE *f = fmemopen(out, sizeof(out), "w");

	switch (what) {
	case 0:
		nfhp_set_print_create(f, info);
		break;
	case 1:
		nfhp_set_print_add(f, info, e);
		break;
	case 2:
		nfhp_set_print_list_head(f, info, false);
		break;
	default:
		nfhp_set_print_member(f, info, e);
	}
	fclose(f);
}

enum { CREATE, ADD, HEAD, MEMBER };

/* Does @what of @info and @e print @want?  Case @name. */
static void print_is(int what, const struct nfhp_set_info *info,
		     const struct nfhp_set_entry *e, const char *want,
		     const char *name)
{
	printed(what, info, e);
	check(!strcmp(out, want), "%s: %s", name, one_line(out));
}

static void test_print(void)
{
	struct nfhp_set_info info = {
		.name = "c", .type = NFHP_SET_ADDR, .algo = "hash",
		.family = NFHP_FAMILY_IPV4, .limit = 65536, .count = 2,
		.flags = NFHP_SET_F_COUNTERS, .memory = 296,
	};
	struct nfhp_set_entry e = {
		.addr = 0x0a000001, .plen = 32, .has_packets = true,
		.has_bytes = true, .packets = 3, .bytes = 180,
	};

	print_is(CREATE, &info, NULL,
		 "create c hash:ip family inet hashsize 1024 maxelem 65536 counters\n",
		 "save: ipset's create line with counters");
	print_is(ADD, &info, &e, "add c 10.0.0.1 packets 3 bytes 180\n",
		 "save: ipset's add line with the counts");
	print_is(MEMBER, &info, &e, "10.0.0.1 packets 3 bytes 180\n",
		 "list: ipset's member line with the counts");
	print_is(HEAD, &info, NULL,
		 "Name: c\nType: hash:ip\nRevision: 0\n"
		 "Header: family inet hashsize 1024 maxelem 65536 counters algo hash\n"
		 "Size in memory: 296\nReferences: 0\n"
		 "Number of entries: 2\nMembers:\n",
		 "list: counters in the header where ipset has it");
	e.value = 5;
	e.packets = ~0ULL;
	e.bytes = 0;
	print_is(ADD, &info, &e,
		 "add c 10.0.0.1 value 5 packets 18446744073709551615 bytes 0\n",
		 "save: the counts after the value, 2^64 - 1, 0");
	print_is(MEMBER, &info, &e,
		 "10.0.0.1 value 5 packets 18446744073709551615 bytes 0\n",
		 "list: the counts after the value");
	e.has_packets = false;
	e.has_bytes = false;
	e.packets = 0;
	print_is(MEMBER, &info, &e, "10.0.0.1 value 5 packets 0 bytes 0\n",
		 "list: an entry of a set that counts, its counts not sent: 0");
	info.flags = NFHP_SET_F_COUNTERS | NFHP_SET_F_LOCKED;
	printed(HEAD, &info, NULL);
	check(strstr(out, "Header: family inet hashsize 1024 maxelem 65536 counters algo hash locked\n"),
	      "list: counters, then nf-hipac's algo and lock: %s",
	      one_line(out));

	/* Whatever its entries hold: the counts a kernel may not send. */
	info.flags = 0;
	e.has_packets = true;
	e.packets = 7;
	print_is(CREATE, &info, NULL,
		 "create c hash:ip family inet hashsize 1024 maxelem 65536\n",
		 "a set without counters: its create line as before");
	print_is(ADD, &info, &e, "add c 10.0.0.1 value 5\n",
		 "a set without counters: its add line as before");
	print_is(MEMBER, &info, &e, "10.0.0.1 value 5\n",
		 "a set without counters: its member line as before");

	info.type = NFHP_SET_NUMBER;
	strcpy(info.algo, "bitmap");
	info.ranged = true;
	info.range_lo = 1000;
	info.range_hi = 2000;
	info.flags = NFHP_SET_F_COUNTERS;
	e.addr = 1024;
	e.hi = 1024;
	e.value = 0;
	e.bytes = 60;
	print_is(CREATE, &info, NULL,
		 "create c bitmap:port range 1000-2000 counters\n",
		 "bitmap:port: ipset's create line with counters");
	print_is(ADD, &info, &e, "add c 1024 packets 7 bytes 60\n",
		 "bitmap:port: ipset's add line with counts");
	info.type = NFHP_SET_IFACE;
	strcpy(info.algo, "lpm");
	print_is(CREATE, &info, NULL,
		 "create c hash:iface hashsize 1024 maxelem 65536 counters algo lpm\n",
		 "hash:iface: counters before nf-hipac's algo");
}

/* --- wire format ---------------------------------------------------------- */

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

/* The n-th NFHPA_SET_ENTRY of the request's NFHPA_SET. */
static const struct nlattr *nth_entry(const struct nlmsghdr *nlh,
				      unsigned int n)
{
	const struct nlattr *set, *a;

	set = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr));
	mnl_attr_for_each_nested(a, set)
		if (mnl_attr_get_type(a) == NFHPA_SET_ENTRY && !n--)
			return a;
	return NULL;
}

/**
 * struct seen - the entries nfhp_nl_parse_set_msg() handed over
 * @e: the entries
 * @n: how many
 */
struct seen {
	struct nfhp_set_entry e[4];
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

/* An answer with one entry of a set that counts; @bad: a count not u64. */
static struct nlmsghdr *counted_answer(int bad)
{
	struct nlmsghdr *nlh = msg_start(NFHP_CMD_SET_TEST);
	u32 w[4] = { 0, 0, 0, 0x0a000001 }, four = 4;
	struct nlattr *set, *ent;

	set = mnl_attr_nest_start(nlh, NFHPA_SET);
	mnl_attr_put_strz(nlh, NFHPA_SET_NAME, "c");
	ent = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
	mnl_attr_put(nlh, NFHPA_SETE_ADDR, sizeof(w), w);
	mnl_attr_put_u8(nlh, NFHPA_SETE_RESULT, NFHP_SET_EXISTS);
	mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, 9);
	mnl_attr_put(nlh, NFHPA_SETE_PAD, 0, NULL);
	if (bad == 1)
		mnl_attr_put(nlh, NFHPA_SETE_PACKETS, sizeof(four), &four);
	else
		mnl_attr_put_u64(nlh, NFHPA_SETE_PACKETS, 1ULL << 40);
	if (bad == 2)
		mnl_attr_put(nlh, NFHPA_SETE_BYTES, sizeof(four), &four);
	else
		mnl_attr_put_u64(nlh, NFHPA_SETE_BYTES, ~0ULL);
	mnl_attr_nest_end(nlh, ent);
	mnl_attr_nest_end(nlh, set);
	return nlh;
}

static void test_wire(void)
{
	struct nfhp_set_info info = { .name = "c", .type = NFHP_SET_ADDR };
	struct nfhp_set_entry e[3] = {
		{ .addr = 0x0a000001, .plen = 32, .has_packets = true,
		  .packets = 1ULL << 33, .has_bytes = true, .bytes = 180 },
		{ .addr = 0x0a000002, .plen = 32, .has_bytes = true,
		  .bytes = 0 },
		{ .addr = 0x0a000003, .plen = 32 },
	};
	struct nfhp_set_entry sent = { .addr = 0x0a000001, .plen = 32 };
	struct results r = { .e = &sent, .n = 1 };
	const struct nlattr *a, *b;
	struct nlmsghdr *nlh;
	struct nfhp_set_info back = {};
	struct seen s = {};

	nlh = msg_start(NFHP_CMD_SET_ADD);
	nfhp_nl_put_set(nlh, &info, 0, e, 3, true);
	a = find_attr(nth_entry(nlh, 0), NFHPA_SETE_PACKETS);
	b = find_attr(nth_entry(nlh, 0), NFHPA_SETE_BYTES);
	check(a && b && mnl_attr_get_payload_len(a) == 8 &&
	      mnl_attr_get_u64(a) == 1ULL << 33 && mnl_attr_get_u64(b) == 180,
	      "add: NFHPA_SETE_PACKETS and _BYTES, u64");
	check(!find_attr(nth_entry(nlh, 1), NFHPA_SETE_PACKETS) &&
	      find_attr(nth_entry(nlh, 1), NFHPA_SETE_BYTES) &&
	      !mnl_attr_get_u64(find_attr(nth_entry(nlh, 1),
					  NFHPA_SETE_BYTES)),
	      "add: bytes 0 given is sent, packets not given is not");
	check(!find_attr(nth_entry(nlh, 2), NFHPA_SETE_PACKETS) &&
	      !find_attr(nth_entry(nlh, 2), NFHPA_SETE_BYTES),
	      "add: no counts given, none sent");
	check(!nfhp_nl_parse_set_msg(nlh, &back, seen_cb, &s) && s.n == 3 &&
	      s.e[0].has_packets && s.e[0].packets == 1ULL << 33 &&
	      s.e[0].has_bytes && s.e[0].bytes == 180 &&
	      !s.e[1].has_packets && s.e[1].has_bytes &&
	      !s.e[2].has_packets && !s.e[2].has_bytes,
	      "the counts read back, each where it was");
	nlh = msg_start(NFHP_CMD_SET_REMOVE);
	nfhp_nl_put_set(nlh, &info, 0, e, 1, false);
	check(!find_attr(nth_entry(nlh, 0), NFHPA_SETE_PACKETS) &&
	      !find_attr(nth_entry(nlh, 0), NFHPA_SETE_BYTES),
	      "remove, test: no counts");

	memset(&s, 0, sizeof(s));
	check(!nfhp_nl_parse_set_msg(counted_answer(0), &back, seen_cb, &s) &&
	      s.n == 1 && s.e[0].packets == 1ULL << 40 &&
	      s.e[0].bytes == ~0ULL && s.e[0].value == 9,
	      "a listed entry's counts, beside NFHPA_SETE_PAD");
	check(nfhp_nl_parse_set_msg(counted_answer(1), &back, seen_cb, &s) ==
	      -EINVAL, "packets of 4 bytes are refused");
	check(nfhp_nl_parse_set_msg(counted_answer(2), &back, seen_cb, &s) ==
	      -EINVAL, "bytes of 4 bytes are refused");
	check(!results_msg_cb(counted_answer(0), &r) && r.seen == 1 &&
	      sent.result == NFHP_SET_EXISTS && sent.value == 9 &&
	      sent.has_packets && sent.packets == 1ULL << 40 &&
	      sent.has_bytes && sent.bytes == ~0ULL,
	      "a test's answer: the value and the counts to the caller");
}

/* --- the fake kernel ------------------------------------------------------ */

/**
 * struct fset - a set of the fake kernel
 * @name: its name, "" for a free slot
 * @family: &enum nfhp_family
 * @type: &enum nfhp_set_type
 * @algo: its algorithm
 * @limit: most entries
 * @flags: %NFHP_SET_F_LOCKED, %NFHP_SET_F_COUNTERS
 * @ranged: a number set's range is @range_lo to @range_hi
 * @range_lo: its first number
 * @range_hi: its last
 * @e: the entries; those of a set that counts have both counts
 * @n: how many
 */
struct fset {
	char name[NFHP_SET_MAXNAMELEN];
	u8 family;
	u8 type;
	char algo[NFHP_SET_ALGO_LEN];
	u32 limit;
	u32 flags;
	bool ranged;
	u32 range_lo, range_hi;
	struct nfhp_set_entry e[16];
	unsigned int n;
};

/**
 * struct fake - the fake kernel (its answers in fq, fake_nl.h)
 * @sets: the sets
 * @log: the requests, "; "-separated
 */
static struct fake {
	struct fset sets[8];
	char log[8192];
} k;

static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	size_t n = strlen(k.log);
	va_list ap;

	if (n)
		n += snprintf(k.log + n, sizeof(k.log) - n, "; ");
	va_start(ap, fmt);
	vsnprintf(k.log + n, sizeof(k.log) - n, fmt, ap);
	va_end(ap);
}

static u32 u32_or(const struct nlattr *a, u32 dflt)
{
	return a ? mnl_attr_get_u32(a) : dflt;
}

static struct fset *fset_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < ARRAY_SIZE(k.sets); i++)
		if (!strcmp(k.sets[i].name, name))
			return &k.sets[i];
	return NULL;
}

static bool counts(const struct fset *s)
{
	return s->flags & NFHP_SET_F_COUNTERS;
}

/* A set of the kernel, as a create without -exist makes it. */
static struct fset *fset_new(const char *name, u8 type, const char *algo,
			     u32 flags)
{
	struct fset *s = fset_find("");

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->family = NFHP_FAMILY_IPV4;
	s->type = type;
	snprintf(s->algo, sizeof(s->algo), "%s", algo);
	s->limit = NFHP_SET_DEFAULT_LIMIT;
	s->flags = flags;
	return s;
}

static void fset_put(struct fset *s, nfhp_u128 addr, u32 value, u64 packets,
		     u64 bytes)
{
	struct nfhp_set_entry e = {
		.addr = addr, .plen = 32, .value = value,
		.has_packets = counts(s), .packets = counts(s) ? packets : 0,
		.has_bytes = counts(s), .bytes = counts(s) ? bytes : 0,
	};

	s->e[s->n++] = e;
}

/* An entry as text: "10.0.0.1[=5][ p3 b180]", of the counts given. */
static void entry_str(char *out, size_t len, const struct fset *s,
		      const struct nfhp_set_entry *e)
{
	struct nfhp_set_info info = { .type = s->type, .family = s->family };
	char key[NFHP_SET_ELEM_STRLEN];
	size_t n;

	nfhp_set_elem_str(key, sizeof(key), &info, e);
	n = snprintf(out, len, "%s", key);
	if (e->value && n < len)
		n += snprintf(out + n, len - n, "=%u", e->value);
	if (e->has_packets && n < len)
		n += snprintf(out + n, len - n, " p%llu",
			      (unsigned long long)e->packets);
	if (e->has_bytes && n < len)
		snprintf(out + n, len - n, " b%llu",
			 (unsigned long long)e->bytes);
}

/* The entries of a set: "10.0.0.1 p3 b180, 10.0.0.2=5 p0 b0". */
static const char *fset_str(const char *name)
{
	static char text[1024];
	struct fset *s = fset_find(name);
	unsigned int i;
	char one[128];

	text[0] = '\0';
	for (i = 0; s && i < s->n; i++) {
		entry_str(one, sizeof(one), s, &s->e[i]);
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%s%s", i ? ", " : "", one);
	}
	return s ? text : "(none)";
}

static bool same_key(const struct nfhp_set_entry *a,
		     const struct nfhp_set_entry *b)
{
	return a->addr == b->addr && a->plen == b->plen && a->hi == b->hi &&
	       a->proto == b->proto && a->port == b->port;
}

/* A set's head, and with @entries its entries, as the module lists them. */
static void fake_list_set(const struct nlmsghdr *req, const struct fset *s,
			  bool entries)
{
	struct nfhp_set_info only = { .type = s->type };
	struct nlmsghdr *nlh = reply(req, NFHP_CMD_SET_LIST);
	struct nlattr *nest;

	mnl_attr_put_u8(nlh, NFHPA_FAMILY, s->family);
	nest = mnl_attr_nest_start(nlh, NFHPA_SET);
	mnl_attr_put_strz(nlh, NFHPA_SET_NAME, s->name);
	mnl_attr_put_u8(nlh, NFHPA_SET_TYPE, s->type);
	mnl_attr_put_strz(nlh, NFHPA_SET_ALGO, s->algo);
	mnl_attr_put_u32(nlh, NFHPA_SET_LIMIT, s->limit);
	mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, s->flags);
	mnl_attr_put_u32(nlh, NFHPA_SET_COUNT, s->n);
	if (s->ranged) {
		mnl_attr_put_u32(nlh, NFHPA_SET_RANGE_LO, s->range_lo);
		mnl_attr_put_u32(nlh, NFHPA_SET_RANGE_HI, s->range_hi);
	}
	mnl_attr_nest_end(nlh, nest);
	push(nlh);
	if (!entries)
		return;
	/* Its entries with the counts they carry: both, in a set that counts. */
	nlh = reply(req, NFHP_CMD_SET_LIST);
	mnl_attr_put_u8(nlh, NFHPA_FAMILY, s->family);
	nfhp_nl_put_set(nlh, &only, 0, s->e, s->n, true);
	push(nlh);
}

/* An entry of an add into @s, applied: its result. */
static u8 fake_add(struct fset *s, u32 flags, const struct nfhp_set_entry *e)
{
	struct nfhp_set_entry *old = NULL;
	unsigned int i;

	if ((e->has_packets || e->has_bytes) && !counts(s))
		return NFHP_SET_INVALID;
	for (i = 0; i < s->n; i++)
		if (same_key(&s->e[i], e))
			old = &s->e[i];
	if (old && !(flags & NFHP_SET_F_UPDATE))
		return NFHP_SET_EXISTS;
	if (!old) {
		if (s->n == ARRAY_SIZE(s->e))
			return NFHP_SET_LIMIT;
		old = &s->e[s->n++];
		*old = *e;
		old->has_packets = counts(s);
		old->has_bytes = counts(s);
		old->packets = e->has_packets ? e->packets : 0;
		old->bytes = e->has_bytes ? e->bytes : 0;
		return NFHP_SET_ADDED;
	}
	old->value = e->value;
	if (e->has_packets)
		old->packets = e->packets;
	if (e->has_bytes)
		old->bytes = e->bytes;
	return NFHP_SET_UPDATED;
}

/* An entry of a remove from @s, applied: its result. */
static u8 fake_remove(struct fset *s, const struct nfhp_set_entry *e)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		if (same_key(&s->e[i], e)) {
			s->e[i] = s->e[--s->n];
			return NFHP_SET_DELETED;
		}
	}
	return NFHP_SET_NOT_FOUND;
}

static int result_err(u8 result, u32 flags)
{
	switch (result) {
	case NFHP_SET_EXISTS:
		return flags & NFHP_SET_F_EXIST ? 0 : -EEXIST;
	case NFHP_SET_NOT_FOUND:
		return flags & NFHP_SET_F_EXIST ? 0 : -ENOENT;
	case NFHP_SET_INVALID:
		return -EINVAL;
	case NFHP_SET_LIMIT:
		return -E2BIG;
	}
	return 0;
}

/*
 * NFHP_CMD_SET_ADD, _REMOVE and _TEST: a result per entry, then the
 * first error.
 */
static int fake_entries(const struct nlmsghdr *req, u8 cmd,
			const struct nlattr *nest, u8 family)
{
	const struct nlattr *set[NFHPA_SET_MAX + 1] = {}, *a;
	u32 flags;
	char text[1024] = "";
	struct nlmsghdr *nlh;
	struct nlattr *out;
	struct fset *s;
	int error = 0;

	mnl_attr_parse_nested(nest, index_cb, set);
	flags = u32_or(set[NFHPA_SET_FLAGS], 0);
	s = fset_find(str(set[NFHPA_SET_NAME]));
	if (!s)
		return -ENOENT;
	nlh = reply(req, cmd);
	out = mnl_attr_nest_start(nlh, NFHPA_SET);
	mnl_attr_for_each_nested(a, nest) {
		struct nfhp_set_entry e, *found = NULL;
		struct nlattr *ent;
		char one[128];
		unsigned int i;

		if (mnl_attr_get_type(a) != NFHPA_SET_ENTRY ||
		    parse_entry(a, family, &e))
			continue;
		entry_str(one, sizeof(one), s, &e);
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%s%s", text[0] ? ", " : " ", one);
		for (i = 0; i < s->n; i++)
			if (same_key(&s->e[i], &e))
				found = &s->e[i];
		ent = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
		put_addr(nlh, e.addr);
		mnl_attr_put_u8(nlh, NFHPA_SETE_PLEN, e.plen);
		if (cmd == NFHP_CMD_SET_TEST) {
			mnl_attr_put_u8(nlh, NFHPA_SETE_RESULT, found ?
					NFHP_SET_EXISTS : NFHP_SET_NOT_FOUND);
			if (found && found->value)
				mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE,
						 found->value);
			if (found && counts(s)) {
				mnl_attr_put_u64(nlh, NFHPA_SETE_PACKETS,
						 found->packets);
				mnl_attr_put_u64(nlh, NFHPA_SETE_BYTES,
						 found->bytes);
			}
		} else {
			e.result = cmd == NFHP_CMD_SET_ADD ?
				   fake_add(s, flags, &e) : fake_remove(s, &e);
			mnl_attr_put_u8(nlh, NFHPA_SETE_RESULT, e.result);
			if (!error)
				error = result_err(e.result, flags);
		}
		mnl_attr_nest_end(nlh, ent);
	}
	mnl_attr_nest_end(nlh, out);
	push(nlh);
	note("SET_%s %s%s%s:%s", cmd == NFHP_CMD_SET_TEST ? "TEST" :
	     cmd == NFHP_CMD_SET_ADD ? "ADD" : "REMOVE",
	     s->name, flags & NFHP_SET_F_EXIST ? " exist" : "",
	     flags & NFHP_SET_F_UPDATE ? " update" : "", text);
	return error;
}

/* NFHP_CMD_SET_NEW: the same set with -exist, as the contract compares. */
static int fake_new(const struct nlattr **set, u8 family)
{
	const char *name = str(set[NFHPA_SET_NAME]), *algo;
	u32 flags = u32_or(set[NFHPA_SET_FLAGS], 0);
	struct fset *s = fset_find(name);

	algo = str(set[NFHPA_SET_ALGO]);
	note("SET_NEW %s%s%s%s", name, flags & NFHP_SET_F_EXIST ? " exist" : "",
	     flags & NFHP_SET_F_LOCKED ? " locked" : "",
	     flags & NFHP_SET_F_COUNTERS ? " counters" : "");
	if (s)
		return flags & NFHP_SET_F_EXIST && s->family == family &&
		       !strcmp(s->algo, algo) &&
		       !((s->flags ^ flags) & NFHP_SET_F_COUNTERS) ? 0 :
		       -EEXIST;
	s = fset_new(name, mnl_attr_get_u8(set[NFHPA_SET_TYPE]), algo,
		     flags & (NFHP_SET_F_LOCKED | NFHP_SET_F_COUNTERS));
	s->family = family;
	s->limit = u32_or(set[NFHPA_SET_LIMIT], 0);
	if (set[NFHPA_SET_RANGE_LO] && set[NFHPA_SET_RANGE_HI]) {
		s->ranged = true;
		s->range_lo = mnl_attr_get_u32(set[NFHPA_SET_RANGE_LO]);
		s->range_hi = mnl_attr_get_u32(set[NFHPA_SET_RANGE_HI]);
	}
	return 0;
}

/* NFHP_CMD_SET_SWAP: the entries move; both count, or neither. */
static int fake_swap(struct fset *s, struct fset *t)
{
	struct fset tmp;

	if (!s || !t)
		return -ENOENT;
	if (s->type != t->type || s->family != t->family ||
	    (s->flags ^ t->flags) & NFHP_SET_F_COUNTERS)
		return -EINVAL;
	tmp = *s;
	memcpy(s->e, t->e, sizeof(s->e));
	s->n = t->n;
	memcpy(t->e, tmp.e, sizeof(t->e));
	t->n = tmp.n;
	return 0;
}

static int fake_set_cmd(const struct nlmsghdr *req, u8 cmd,
			const struct nlattr *nest, u8 family)
{
	const struct nlattr *set[NFHPA_SET_MAX + 1] = {};
	const char *name;
	struct fset *s;
	unsigned int i;

	if (cmd == NFHP_CMD_SET_ADD || cmd == NFHP_CMD_SET_REMOVE ||
	    cmd == NFHP_CMD_SET_TEST)
		return fake_entries(req, cmd, nest, family);
	if (nest)
		mnl_attr_parse_nested(nest, index_cb, set);
	name = str(set[NFHPA_SET_NAME]);
	s = fset_find(name);
	switch (cmd) {
	case NFHP_CMD_SET_LIST:
		note("SET_LIST%s%s", name ? " " : "", name ? name : "");
		for (i = 0; i < ARRAY_SIZE(k.sets); i++)
			if (k.sets[i].name[0] &&
			    (!name || !strcmp(name, k.sets[i].name)))
				fake_list_set(req, &k.sets[i], name);
		dump_done(req);
		return 0;
	case NFHP_CMD_SET_NEW:
		return fake_new(set, family);
	case NFHP_CMD_SET_FLUSH:
		note("SET_FLUSH %s", name);
		if (!s)
			return -ENOENT;
		s->n = 0;
		return 0;
	case NFHP_CMD_SET_SWAP:
		note("SET_SWAP %s %s", name, str(set[NFHPA_SET_OTHER]));
		return fake_swap(s, fset_find(str(set[NFHPA_SET_OTHER])));
	case NFHP_CMD_SET_MODIFY:
		note("SET_MODIFY %s", name);
		return s ? 0 : -ENOENT;
	}
	note("SET_CMD%u", cmd);
	return -EOPNOTSUPP;
}

/* NFHP_CMD_LIST: the three built-in chains, empty, as a save needs. */
static void fake_rule_list(const struct nlmsghdr *req)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	static const struct nfhp_counter zero;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(builtin); i++) {
		struct nlmsghdr *nlh = reply(req, NFHP_CMD_LIST);

		mnl_attr_put_strz(nlh, NFHPA_CHAIN, builtin[i]);
		mnl_attr_put_u8(nlh, NFHPA_POLICY, NFHP_ACT_ACCEPT);
		put_counters(nlh, NFHPA_COUNTERS, &zero);
		push(nlh);
	}
	dump_done(req);
}

/* One request: written down, done, answered. */
static void fake_kernel(const struct nlmsghdr *req)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(req);
	const struct nlattr *tb[NFHPA_MAX + 1] = {};
	u8 family = NFHP_FAMILY_IPV4;
	int error = 0;

	if (req->nlmsg_type == GENL_ID_CTRL) {
		struct nlmsghdr *nlh = reply(req, CTRL_CMD_NEWFAMILY);

		mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAKE_FAMILY);
		push(nlh);
		ack(req, 0, NULL);
		return;
	}
	mnl_attr_parse(req, sizeof(*g), index_cb, tb);
	if (tb[NFHPA_FAMILY])
		family = mnl_attr_get_u8(tb[NFHPA_FAMILY]);
	switch (g->cmd) {
	case NFHP_CMD_BEGIN:
		note("BEGIN");
		break;
	case NFHP_CMD_COMMIT:
		note("COMMIT");
		break;
	case NFHP_CMD_ABORT:
		note("ABORT");
		break;
	case NFHP_CMD_LIST:
		note("LIST");
		fake_rule_list(req);
		return;
	case NFHP_CMD_SET_NEW ... NFHP_CMD_SET_LIST:
		error = fake_set_cmd(req, g->cmd, tb[NFHPA_SET], family);
		if (g->cmd == NFHP_CMD_SET_LIST)
			return;
		break;
	default:
		/* The rule commands of a restore: the table is empty. */
		note("CMD%u", g->cmd);
	}
	ack(req, error, NULL);
}

/* --- running the tools -------------------------------------------------- */

/* A kernel without sets. */
static void fake_reset(void)
{
	fake_answers_drop();
	memset(k.sets, 0, sizeof(k.sets));
	k.log[0] = '\0';
}

/* Run @fn (a tool's main), what it prints into text[]: fake_run(). */
static int run(int (*fn)(int argc, char **argv), const char *cmdline,
	       const char *input)
{
	k.log[0] = '\0';
	return fake_run(fn, cmdline, input, true);
}

static int set(const char *cmdline)
{
	return run(set_main, cmdline, "");
}

/* A kernel with set c that counts, its entries, and p that does not. */
static void two_sets(void)
{
	struct fset *s;

	fake_reset();
	s = fset_new("c", NFHP_SET_ADDR, "hash", NFHP_SET_F_COUNTERS);
	fset_put(s, 0x0a000001, 0, 3, 180);
	fset_put(s, 0x0a000002, 5, 0, 0);
	s = fset_new("p", NFHP_SET_ADDR, "hash", 0);
	fset_put(s, 0x0a000001, 0, 0, 0);
}

/* --- nf-hipac-set --------------------------------------------------------- */

static void test_cli_create(void)
{
	fake_reset();
	check(!set("nf-hipac-set create c hash:ip counters") &&
	      !strcmp(k.log, "SET_NEW c counters") &&
	      fset_find("c")->flags == NFHP_SET_F_COUNTERS,
	      "create ... counters: NFHP_SET_F_COUNTERS sent: %s", k.log);
	check(!set("nf-hipac-set create p hash:net") &&
	      !strcmp(k.log, "SET_NEW p") && !fset_find("p")->flags,
	      "create without counters: no flag: %s", k.log);
	check(!set("nf-hipac-set -exist create c hash:ip counters") &&
	      !strcmp(k.log, "SET_NEW c exist counters"),
	      "create -exist with the same counters: taken");
	check(set("nf-hipac-set -exist create c hash:ip") == 1 &&
	      !strcmp(errs, "nf-hipac-set v1.0: Set cannot be created: set with the same name already exists"),
	      "create -exist without counters of a set with: refused: %s",
	      errs);
}

static void test_cli_add(void)
{
	two_sets();
	check(!set("nf-hipac-set add c 10.0.0.3 packets 3 bytes 180") &&
	      !strcmp(k.log, "SET_LIST; SET_ADD c: 10.0.0.3 p3 b180"),
	      "add with packets and bytes: sent: %s", k.log);
	check(!set("nf-hipac-set add c 10.0.0.4 bytes 9 value 4") &&
	      strstr(k.log, "SET_ADD c: 10.0.0.4=4 b9") &&
	      strstr(fset_str("c"), "10.0.0.4=4 p0 b9"),
	      "add with bytes alone, after a value: packets start at 0: %s",
	      fset_str("c"));
	check(!set("nf-hipac-set add c 10.0.1.0/31 packets 2") &&
	      strstr(k.log, "SET_ADD c: 10.0.1.0 p2, 10.0.1.1 p2"),
	      "add of a prefix: each host starts at the counts: %s", k.log);
	check(!set("nf-hipac-set add c 10.0.0.5") &&
	      strstr(k.log, "SET_ADD c: 10.0.0.5") &&
	      strstr(fset_str("c"), "10.0.0.5 p0 b0"),
	      "add without counts to a set that counts: 0 and 0");
	check(!set("nf-hipac-set -exist add c 10.0.0.1 packets 7") &&
	      strstr(k.log, "SET_ADD c exist update: 10.0.0.1 p7") &&
	      strstr(fset_str("c"), "10.0.0.1 p7 b180"),
	      "add -exist: the entry takes the packets given, keeps its bytes: %s",
	      fset_str("c"));
	check(set("nf-hipac-set add p 10.0.0.9 packets 1") == 1 &&
	      !strcmp(errs, "nf-hipac-set v1.0: " NO_COUNTERS_MSG) &&
	      !strcmp(k.log, "SET_LIST"),
	      "add with packets to a set without counters: ipset's message, exit 1, nothing sent: %s",
	      errs);
	check(set("nf-hipac-set add p 10.0.0.9 bytes 0") == 1 &&
	      !strcmp(k.log, "SET_LIST"),
	      "bytes 0 to a set without counters: refused too");
	check(!set("nf-hipac-set add p 10.0.0.9 value 2") &&
	      strstr(k.log, "SET_ADD p: 10.0.0.9=2"),
	      "a set without counters takes its adds as before");
	check(set("nf-hipac-set add c 10.0.0.6 packets 18446744073709551616") ==
	      1 && strstr(errs, "Syntax error: '18446744073709551616' is out of range 0-18446744073709551615") &&
	      !k.log[0],
	      "add with 2^64 packets: refused before anything is asked: %s",
	      errs);
	check(set("nf-hipac-set add c 10.0.0.6 packets") == 2 &&
	      strstr(errs, "Missing mandatory argument of option `packets'") &&
	      strstr(errs, "Try `nf-hipac-set help'"),
	      "add with packets without a number: exit 2: %s", errs);
	check(!set("nf-hipac-set del c 10.0.0.5 packets 1 bytes x") &&
	      strstr(k.log, "SET_REMOVE c: 10.0.0.5") &&
	      !strstr(k.log, " p1") && !strstr(fset_str("c"), "10.0.0.5"),
	      "del takes packets and bytes unread, as before: %s", k.log);
}

static void test_cli_test(void)
{
	struct nfhp_set_info info = {};
	struct nfhp_set_entry e = { .addr = 0x0a000001, .plen = 32 };
	struct nfhp_nl *nl;
	bool found = false;

	two_sets();
	check(!set("nf-hipac-set test c 10.0.0.1") &&
	      !strcmp(errs, "Warning: 10.0.0.1 is in set c.") &&
	      strstr(k.log, "SET_TEST c: 10.0.0.1"),
	      "test: ipset's words, no counts printed: %s", errs);
	if (nfhp_nl_open(&nl, "test")) {
		check(false, "the client opens on the fake kernel");
		return;
	}
	strcpy(info.name, "c");
	info.type = NFHP_SET_ADDR;
	check(!nfhp_nl_set_test(nl, &info, &e, &found) && found &&
	      e.has_packets && e.packets == 3 && e.has_bytes &&
	      e.bytes == 180,
	      "nfhp_nl_set_test(): the entry's counts from the answer");
	strcpy(info.name, "p");
	memset(&e, 0, sizeof(e));
	e.addr = 0x0a000001;
	e.plen = 32;
	check(!nfhp_nl_set_test(nl, &info, &e, &found) && found &&
	      !e.has_packets && !e.has_bytes,
	      "nfhp_nl_set_test(): no counts from a set that does not count");
	nfhp_nl_close(nl);
}

static const char list_c[] =
	"Name: c\nType: hash:ip\nRevision: 0\n"
	"Header: family inet hashsize 1024 maxelem 65536 counters algo hash\n"
	"Size in memory: 0\nReferences: 0\nNumber of entries: 2\n"
	"Members:\n"
	"10.0.0.1 packets 3 bytes 180\n"
	"10.0.0.2 value 5 packets 0 bytes 0\n";

static const char save_c[] =
	"create c hash:ip family inet hashsize 1024 maxelem 65536 counters\n"
	"add c 10.0.0.1 packets 3 bytes 180\n"
	"add c 10.0.0.2 value 5 packets 0 bytes 0\n";

static void test_cli_list(void)
{
	int ret;

	two_sets();
	ret = set("nf-hipac-set list c");
	check(!ret && !strcmp(text, list_c),
	      "list: counters in the header, each member's counts: %s",
	      one_line(text));
	ret = set("nf-hipac-set list p");
	check(!ret &&
	      !strcmp(text,
		      "Name: p\nType: hash:ip\nRevision: 0\n"
		      "Header: family inet hashsize 1024 maxelem 65536 algo hash\n"
		      "Size in memory: 0\nReferences: 0\nNumber of entries: 1\n"
		      "Members:\n10.0.0.1\n"),
	      "list of a set without counters: as before: %s",
	      one_line(text));
	check(!set("nf-hipac-set -terse list c") &&
	      strstr(text, "counters algo hash\n") && !strstr(text, "Members"),
	      "list -terse: the header with counters");
	ret = set("nf-hipac-set save c");
	check(!ret && !strcmp(text, save_c),
	      "save: ipset's lines with counters and counts: %s",
	      one_line(text));
	ret = set("nf-hipac-set -o save list p");
	check(!ret &&
	      !strcmp(text,
		      "create p hash:ip family inet hashsize 1024 maxelem 65536\n"
		      "add p 10.0.0.1\n"),
	      "save of a set without counters: as before: %s",
	      one_line(text));
}

/* --- restore -------------------------------------------------------------- */

/* What ipset v7.17's save prints of sets with counters. */
static const char ipset_saved[] =
	"create foo hash:ip family inet hashsize 1024 maxelem 65536 counters bucketsize 12 initval 0x1c1a1f7e\n"
	"add foo 192.168.1.1 packets 12 bytes 1008\n"
	"add foo 192.168.1.2 packets 0 bytes 0\n"
	"create bar hash:net family inet hashsize 1024 maxelem 65536 counters comment bucketsize 12 initval 0x5a2b8f31\n"
	"add bar 10.1.0.0/16 packets 1 bytes 60 comment \"a b\"\n";

static void test_restore(void)
{
	int ret;

	fake_reset();
	check(!run(set_main, "nf-hipac-set restore", ipset_saved) &&
	      !strcmp(k.log,
		      "BEGIN; SET_LIST; SET_NEW foo counters; "
		      "SET_ADD foo: 192.168.1.1 p12 b1008, 192.168.1.2 p0 b0; "
		      "SET_NEW bar counters; SET_ADD bar: 10.1.0.0/16 p1 b60; "
		      "COMMIT"),
	      "restore of ipset save's lines: the sets count, the counts restored: %s",
	      k.log);
	check(!strcmp(fset_str("foo"),
		      "192.168.1.1 p12 b1008, 192.168.1.2 p0 b0") &&
	      !strcmp(fset_str("bar"), "10.1.0.0/16 p1 b60"),
	      "restore: the kernel holds the counts");

	two_sets();
	ret = set("nf-hipac-set save");
	check(!ret && strstr(text, save_c), "save of every set: %s",
	      one_line(text));
	{
		char saved[sizeof(text)];

		strcpy(saved, text);
		fake_reset();
		check(!run(set_main, "nf-hipac-set restore", saved) &&
		      !strcmp(fset_str("c"), "10.0.0.1 p3 b180, 10.0.0.2=5 p0 b0") &&
		      !fset_find("p")->flags,
		      "our save restores: the counts, and no counters where none were: %s",
		      fset_str("c"));
		check(!set("nf-hipac-set save") && !strcmp(text, saved),
		      "and saves the same again");
	}

	fake_reset();
	check(run(set_main, "nf-hipac-set restore",
		  "create q hash:ip\nadd q 10.0.0.1\nadd q 10.0.0.2 packets 1\n") ==
	      1 && !strcmp(errs, "nf-hipac-set v1.0: Error in line 3: " NO_COUNTERS_MSG) &&
	      !strcmp(k.log, "BEGIN; SET_LIST; ABORT"),
	      "restore: counts for a set its create line made without: its line, nothing sent: %s",
	      errs);
	two_sets();
	check(run(set_main, "nf-hipac-set restore", "add p 10.0.0.7 bytes 1\n") ==
	      1 && strstr(errs, "Error in line 1: " NO_COUNTERS_MSG),
	      "restore: counts for a set of the kernel's without: refused: %s",
	      errs);
	check(run(set_main, "nf-hipac-set restore",
		  "create c hash:ip family inet -exist\n") == 1 &&
	      !strcmp(errs, "nf-hipac-set v1.0: Error in line 1: Set cannot be created: set with the same name already exists (hash:ip family inet counters)"),
	      "restore: create -exist without counters of a set with: refused, named: %s",
	      errs);
	check(run(set_main, "nf-hipac-set restore",
		  "create p hash:ip family inet counters -exist\n") == 1 &&
	      strstr(errs, "already exists (hash:ip family inet)"),
	      "restore: create -exist with counters of a set without: refused: %s",
	      errs);
	check(!run(set_main, "nf-hipac-set restore",
		   "create c hash:ip family inet counters -exist\n"
		   "add c 10.0.0.9 packets 4\n") &&
	      !strcmp(k.log, "BEGIN; SET_LIST; SET_NEW c exist counters; "
			     "SET_ADD c: 10.0.0.9 p4; COMMIT"),
	      "restore: create -exist with the same counters, then counts: %s",
	      k.log);
	check(run(set_main, "nf-hipac-set restore", "swap c p\n") == 1 &&
	      strstr(errs, "Error in line 1: The sets cannot be swapped: their type does not match") &&
	      !strcmp(k.log, "BEGIN; SET_LIST; ABORT"),
	      "restore: swap of a set that counts with one that does not: refused: %s",
	      errs);
	check(!run(set_main, "nf-hipac-set restore",
		   "create d hash:ip counters\nswap c d\n") &&
	      strstr(k.log, "SET_SWAP c d; COMMIT") &&
	      !strcmp(fset_str("c"), "") &&
	      strstr(fset_str("d"), "10.0.0.1 p3 b180"),
	      "restore: swap of two sets that count: the counts move: %s",
	      k.log);
	check(set("nf-hipac-set swap c p") == 1 &&
	      strstr(errs, "The sets cannot be swapped: their type does not match"),
	      "swap: the kernel's refusal, ipset's words: %s", errs);
}

/* --- nf-hipac-save, nf-hipac-restore -------------------------------------- */

static void test_save_restore(void)
{
	char saved[sizeof(text)];
	int ret;

	two_sets();
	ret = run(save_main, "nf-hipac-save", "");
	check(!ret && strstr(text, save_c) &&
	      strstr(text, "create p hash:ip family inet hashsize 1024 maxelem 65536\nadd p 10.0.0.1\n") &&
	      strstr(text, save_c) < strstr(text, "*filter"),
	      "nf-hipac-save: the sets with their counts, before the rules: %s",
	      one_line(text));
	strcpy(saved, text);
	two_sets();
	fset_find("c")->n = 0;
	check(!run(restore_main, "nf-hipac-restore", saved) &&
	      strstr(k.log, "SET_NEW c exist counters; SET_FLUSH c; "
			    "SET_ADD c: 10.0.0.1 p3 b180, 10.0.0.2=5 p0 b0") &&
	      !strcmp(fset_str("c"), "10.0.0.1 p3 b180, 10.0.0.2=5 p0 b0"),
	      "nf-hipac-restore: the set replaced with its counts: %s", k.log);
	fake_reset();
	check(!run(restore_main, "nf-hipac-restore", saved) &&
	      strstr(k.log, "SET_NEW c counters; SET_ADD c: 10.0.0.1 p3 b180") &&
	      strstr(k.log, "SET_NEW p; SET_ADD p: 10.0.0.1;") &&
	      !fset_find("p")->flags,
	      "nf-hipac-restore into no sets: made, counting or not: %s",
	      k.log);
	two_sets();
	check(run(restore_main, "nf-hipac-restore",
		  "create q hash:ip\nadd q 10.0.0.1 packets 1\n") == 1 &&
	      !strcmp(errs, "nf-hipac-restore: Error in line 2: " NO_COUNTERS_MSG) &&
	      !strstr(k.log, "SET_ADD") && strstr(k.log, "ABORT"),
	      "nf-hipac-restore: counts for a set without: its line, aborted: %s",
	      errs);
	check(run(restore_main, "nf-hipac-restore",
		  "create c hash:ip family inet\n") == 1 &&
	      strstr(errs, "already exists (hash:ip family inet counters)"),
	      "nf-hipac-restore: a create without counters of a set with: refused: %s",
	      errs);
}

int main(void)
{
	test_create_opt();
	test_entry_opts();
	test_check_opts();
	test_print();
	test_wire();
	test_cli_create();
	test_cli_add();
	test_cli_test();
	test_cli_list();
	test_restore();
	test_save_restore();
	fake_reset();
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
