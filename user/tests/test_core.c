// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the classifier core: boxes (match.c), the tree (tree.c)
 * and the rule set (ruleset.c and the files beside it, stats.c), compiled
 * unmodified against the userspace shim with ASan and UBSan.
 */
#include <stdarg.h>

#include "cand_index.h"
#include "rule_starts.h"
#include "ext.h"
#include "group.h"
#include "ifname.h"
#include "lookup.h"
#include "match.h"
#include "ruleset.h"
#include "scratch.h"
#include "stats.h"
#include "tree.h"
#include "tunables.h"
#include <linux/sched/signal.h>

#include "tap.h"

static struct nfhp_rule_spec *spec_new(u8 action)
{
	struct nfhp_rule_spec *s = calloc(1, sizeof(*s));

	s->action = action;
	return s;
}

static struct nfhp_dim_match *spec_add(struct nfhp_rule_spec *s, u8 dim,
				       u8 form, bool invert)
{
	struct nfhp_dim_match *m = &s->m[s->nmatch++];

	m->dim = dim;
	m->form = form;
	m->invert = invert;
	return m;
}

static void spec_range(struct nfhp_rule_spec *s, u8 dim, u32 lo, u32 hi,
		       bool invert)
{
	struct nfhp_dim_match *m = spec_add(s, dim, NFHP_FORM_RANGES, invert);

	m->nranges = 1;
	m->ranges[0].lo = lo;
	m->ranges[0].hi = hi;
}

static void spec_prefix(struct nfhp_rule_spec *s, u8 dim, nfhp_u128 addr,
			u8 len, bool invert)
{
	struct nfhp_dim_match *m = spec_add(s, dim, NFHP_FORM_PREFIX, invert);

	m->nranges = len;
	m->ranges[0].lo = addr;
}

static u32 ip(u8 a, u8 b, u8 c, u8 d)
{
	return (u32)a << 24 | b << 16 | c << 8 | d;
}

static void key_init(struct nfhp_key *k)
{
	memset(k, 0, sizeof(*k));
	k->v[NFHP_DIM_STATE] = NFHP_CT_NEW;
	k->v[NFHP_DIM_TTL] = 64;
	k->v[NFHP_DIM_LEN] = 64;
}

/*
 * The tests write a key's protocol plain; what the core reads, with the
 * destination port (key.h), is this copy of it.
 */
static const struct nfhp_key *folded(const struct nfhp_key *k)
{
	static struct nfhp_key f;

	f = *k;
	nfhp_key_fold_port(&f, k->v[NFHP_DIM_PROTO]);
	return &f;
}

static void test_box_prefix_and_negation(void)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_rule_spec *s = spec_new(NFHP_ACT_DROP);
	const char *msg = NULL;
	struct nfhp_box *b;
	struct nfhp_key k;

	spec_prefix(s, NFHP_DIM_SRC, ip(10, 11, 12, 13), 8, false);
	spec_range(s, NFHP_DIM_DPORT, 22, 22, true);
	check(!nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg),
	      "box from spec");
	check(nfhp_box_nranges(b, NFHP_DIM_SRC) == 1 &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[0].lo == ip(10, 0, 0, 0) &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[0].hi == ip(10, 255, 255, 255),
	      "prefix /8 canonical");
	check(nfhp_box_nranges(b, NFHP_DIM_DPORT) == 2 &&
	      nfhp_box_ranges(b, NFHP_DIM_DPORT)[0].hi == 21 &&
	      nfhp_box_ranges(b, NFHP_DIM_DPORT)[1].lo == 23 &&
	      nfhp_box_ranges(b, NFHP_DIM_DPORT)[1].hi == 65535,
	      "! --dport 22 is two intervals");
	check(!(b->restricted & (1u << NFHP_DIM_FRAG)),
	      "no fragment dimension needed");
	key_init(&k);
	k.v[NFHP_DIM_SRC] = ip(10, 1, 2, 3);
	k.v[NFHP_DIM_DPORT] = 80;
	check(nfhp_box_contains_key(b, folded(&k)), "key inside");
	nfhp_key_set_fragment(&k);
	check(!nfhp_box_contains_key(b, folded(&k)), "fragment outside");
	nfhp_box_free(&mem, b);
	check(!mem.used, "box memory returned");
	free(s);
}

/*
 * IPv6 rule sets: addresses are 128 bits wide, so a prefix is cut at its
 * own length from the top of 128, "! -s" complements against 2^128 - 1,
 * and /0 restricts nothing.  The same spec read as IPv4 is refused: its
 * address does not fit.
 */
static void test_box_ipv6_prefix(void)
{
	const nfhp_u128 net = (nfhp_u128)0x20010db8 << 96;
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_rule_spec *s = spec_new(NFHP_ACT_DROP);
	const char *msg = NULL;
	struct nfhp_box *b;

	spec_prefix(s, NFHP_DIM_SRC, net | 0x1234, 32, false);
	spec_prefix(s, NFHP_DIM_DST, net | 1, 128, true);
	check(!nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV6, s, &b, &msg),
	      "IPv6 box from spec");
	check(b->family == NFHP_FAMILY_IPV6, "the box knows its family");
	check(nfhp_box_nranges(b, NFHP_DIM_SRC) == 1 &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[0].lo == net &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[0].hi ==
	      (net | (((nfhp_u128)1 << 96) - 1)), "2001:db8::/32 canonical");
	check(nfhp_box_nranges(b, NFHP_DIM_DST) == 2 &&
	      nfhp_box_ranges(b, NFHP_DIM_DST)[0].hi == net &&
	      nfhp_box_ranges(b, NFHP_DIM_DST)[1].lo == (net | 2) &&
	      nfhp_box_ranges(b, NFHP_DIM_DST)[1].hi == ~(nfhp_u128)0,
	      "! -d 2001:db8::1/128 is two intervals up to 2^128 - 1");
	nfhp_box_free(&mem, b);
	check(nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg) ==
	      -EINVAL, "an IPv6 prefix of 128 bits is refused in IPv4");
	free(s);

	s = spec_new(NFHP_ACT_DROP);
	spec_prefix(s, NFHP_DIM_SRC, net, 0, false);
	spec_prefix(s, NFHP_DIM_DST, (nfhp_u128)1 << 127, 1, false);
	check(!nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV6, s, &b, &msg),
	      "IPv6 /0 and /1");
	check(!(b->restricted & (1u << NFHP_DIM_SRC)), "::/0 restricts nothing");
	check(nfhp_box_ranges(b, NFHP_DIM_DST)[0].lo == (nfhp_u128)1 << 127 &&
	      nfhp_box_ranges(b, NFHP_DIM_DST)[0].hi == ~(nfhp_u128)0,
	      "8000::/1 is the upper half");
	nfhp_box_free(&mem, b);
	check(!mem.used, "IPv6 box memory returned");
	free(s);
}

static void test_box_mask_and_ifname(void)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_rule_spec *s = spec_new(NFHP_ACT_DROP);
	struct nfhp_dim_match *m;
	const char *msg = NULL;
	struct nfhp_box *b;
	struct nfhp_key k;

	m = spec_add(s, NFHP_DIM_TCPFLAGS, NFHP_FORM_MASK, false);
	m->ranges[0].lo = 0x02;		/* --syn */
	m->ranges[0].hi = 0x17;
	m = spec_add(s, NFHP_DIM_IIF, NFHP_FORM_IFNAME, false);
	strcpy(m->ifname, "eth+");
	check(!nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg),
	      "mask and ifname box");
	key_init(&k);
	k.v[NFHP_DIM_TCPFLAGS] = 0x02;
	k.v[NFHP_DIM_IIF] = nfhp_ifname_value("eth0", 0);
	check(nfhp_box_contains_key(b, folded(&k)), "SYN on eth0 matches");
	k.v[NFHP_DIM_TCPFLAGS] = 0x12;
	check(!nfhp_box_contains_key(b, folded(&k)), "SYN+ACK does not");
	k.v[NFHP_DIM_TCPFLAGS] = 0x0a;
	check(nfhp_box_contains_key(b, folded(&k)), "SYN+PSH does (PSH not in mask)");
	k.v[NFHP_DIM_IIF] = nfhp_ifname_value("eth", 0);
	check(nfhp_box_contains_key(b, folded(&k)), "eth+ matches eth itself");
	k.v[NFHP_DIM_IIF] = nfhp_ifname_value("et", 0);
	check(!nfhp_box_contains_key(b, folded(&k)), "eth+ does not match et");
	k.v[NFHP_DIM_IIF] = nfhp_ifname_value("veth0", 0);
	check(!nfhp_box_contains_key(b, folded(&k)), "eth+ does not match veth0");
	nfhp_box_free(&mem, b);
	free(s);
}

/*
 * The packet path reads a device's name in two words (nfhp_ifname_value16)
 * where rules read it bytewise: both must give the same value, whatever
 * an earlier, longer name left after the NUL.
 */
static void test_ifname_words(void)
{
	unsigned int seed = 1, i, j, len, bad = 0;
	char name[NFHP_IFNAME_LEN];

	for (i = 0; i < 100000; i++) {
		len = i % (NFHP_IFNAME_LEN + 1);
		for (j = 0; j < NFHP_IFNAME_LEN; j++) {
			seed = seed * 1103515245 + 12345;
			/* Some bytes 0x01, 0x80 or 0xff: the carry cases. */
			name[j] = (seed >> 16) % 4 ? seed >> 24 | 1 :
				  (const char[]){ 1, 0x80, 0xff, 0x7f }[seed >> 30];
		}
		if (len < NFHP_IFNAME_LEN)
			name[len] = 0;
		bad += nfhp_ifname_value16(name) != nfhp_ifname_value(name, 0);
	}
	check(!bad, "device names read in two words = bytewise (%u differ)",
	      bad);
	memset(name, 0, sizeof(name));
	check(nfhp_ifname_value16(name) == 0, "no name is 0");
	strcpy(name, "eth0");
	check(nfhp_ifname_value16(name) == nfhp_ifname_value("eth0", 0),
	      "eth0 read in two words");
}

/* Is @p inside @body's block, aligned for a box? */
static bool in_body(const struct nfhp_rule_body *body, const void *p,
		    size_t size)
{
	const u8 *lo = (const u8 *)body->box, *q = p;

	return q >= lo && q + size <= lo + nfhp_rule_body_size(body) &&
	       !((unsigned long)q % __alignof__(struct nfhp_box));
}

static bool box_same(const struct nfhp_box *a, const struct nfhp_box *b)
{
	return a->size == b->size && !memcmp(a, b, a->size);
}

/*
 * A rule's body holds its box, its "--ports" twin, its hotdrop box and its
 * packed specification in one block: each where nfhp_box_from_spec() and
 * nfhp_spec_pack() would have put it alone, none overlapping.
 */
static void test_rule_body(void)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_rule_spec *s = spec_new(NFHP_ACT_ACCEPT), *back;
	struct nfhp_rule_body body, again;
	struct nfhp_box *alone;
	const char *msg = NULL;
	u8 *end;
	int err;

	spec_prefix(s, NFHP_DIM_SRC, ip(10, 0, 0, 0), 8, false);
	spec_range(s, NFHP_DIM_PROTO, 6, 6, false);
	spec_range(s, NFHP_DIM_DPORT, 22, 22, true);
	strcpy(s->comment, "ssh elsewhere");
	check(!nfhp_rule_body_new(&mem, NFHP_FAMILY_IPV4, s, &body, &msg),
	      "body of tcp rule");
	check(!nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &alone, &msg),
	      "box alone");
	check(box_same(body.box, alone), "body's box is the box");
	check(!body.alt, "one box without --ports");
	/* The port of one protocol is part of its dimension (match.c). */
	check(body.hot && !(body.hot->restricted & (1u << NFHP_DIM_DPORT)) &&
	      nfhp_box_nranges(body.hot, NFHP_DIM_SRC) == 1 &&
	      nfhp_box_nranges(body.hot, NFHP_DIM_PROTO) == 1 &&
	      nfhp_box_ranges(body.hot, NFHP_DIM_PROTO)[0].lo ==
	      (6u << NFHP_PROTO_SHIFT | NFHP_L4_TRUNCATED) &&
	      nfhp_box_ranges(body.hot, NFHP_DIM_PROTO)[0].hi ==
	      (6u << NFHP_PROTO_SHIFT | (NFHP_L4_SHORT + 0xffff)),
	      "hotdrop box keeps the source, narrows tcp's port");
	check(nfhp_box_nranges(body.box, NFHP_DIM_PROTO) == 2 &&
	      !(body.box->restricted & (1u << NFHP_DIM_DPORT)),
	      "! --dport 22 of tcp: two protocol-port intervals");
	end = (u8 *)body.spec + body.spec->size;
	check(in_body(&body, body.box, body.box->size) &&
	      in_body(&body, body.hot, body.hot->size) &&
	      (u8 *)body.box + body.box->size <= (u8 *)body.hot &&
	      (u8 *)body.hot + body.hot->size <= (u8 *)body.spec &&
	      end == (u8 *)body.box + nfhp_rule_body_size(&body),
	      "parts in order, no overlap");
	back = spec_new(NFHP_ACT_NONE);
	nfhp_spec_unpack(body.spec, back);
	check(back->nmatch == 3 && !strcmp(back->comment, "ssh elsewhere") &&
	      back->m[2].invert, "packed specification reads back");
	/*
	 * Unpacked over garbage it is the same rule: nothing reads what
	 * nfhp_spec_unpack() leaves alone.
	 */
	memset(back, 0xa5, sizeof(*back));
	nfhp_spec_unpack(body.spec, back);
	check(!nfhp_rule_body_new(&mem, NFHP_FAMILY_IPV4, back, &again, &msg) &&
	      box_same(again.box, body.box) && !again.alt &&
	      box_same(again.hot, body.hot) &&
	      nfhp_packed_spec_equal(again.spec, body.spec),
	      "unpacked over garbage: the same boxes and packed copy");
	nfhp_rule_body_free(&mem, &again);
	free(back);
	nfhp_box_free(&mem, alone);
	nfhp_rule_body_free(&mem, &body);
	check(!mem.used && !body.box, "one block returned");

	s->m[2].syntax = NFHP_SYN_MULTIPORT_BOTH;	/* --ports 22 */
	s->m[2].invert = false;
	check(!nfhp_rule_body_new(&mem, NFHP_FAMILY_IPV4, s, &body, &msg),
	      "body of --ports");
	check(body.alt && in_body(&body, body.alt, body.alt->size) &&
	      nfhp_box_disjoint(body.box, body.alt), "--ports: two boxes");
	nfhp_rule_body_free(&mem, &body);

	for (long n = 1; ; n++) {
		nfhp_shim_fail_countdown = n;
		err = nfhp_rule_body_new(&mem, NFHP_FAMILY_IPV4, s, &body, &msg);
		nfhp_shim_fail_countdown = 0;
		if (!err)
			break;
		check(err == -ENOMEM && !body.box && !mem.used,
		      "failure %ld leaves nothing", n);
	}
	nfhp_rule_body_free(&mem, &body);
	check(!mem.used, "all returned");
	free(s);
}

/* Are two set matches the same, field by field? */
static bool setm_same(const struct nfhp_setm_spec *a,
		      const struct nfhp_setm_spec *b)
{
	return !strcmp(a->name, b->name) && a->dir == b->dir &&
	       a->invert == b->invert && a->has_value == b->has_value &&
	       a->has_dir2 == b->has_dir2 && a->dir2 == b->dir2 &&
	       (!a->has_value || (a->value_min == b->value_min &&
				  a->value_max == b->value_max)) &&
	       a->no_count == b->no_count &&
	       a->packets_cmp == b->packets_cmp &&
	       a->bytes_cmp == b->bytes_cmp &&
	       a->packets == b->packets && a->bytes == b->bytes;
}

/*
 * Set matches survive the packed copy with their value ranges, "!
 * --update-counters" and compares of counts, unpacked over garbage; a
 * packed copy differs when a compare or its number does.
 */
static void test_setm_pack(void)
{
	static const struct nfhp_setm_spec setm[] = {
		{ .name = "plain", .dir = NFHP_SETM_DST },
		{ .name = "all", .dir = NFHP_SETM_SRC, .invert = 1,
		  .has_value = 1, .value_min = 2, .value_max = 9,
		  .has_dir2 = 1, .dir2 = NFHP_SETM_DST, .no_count = 1,
		  .packets_cmp = NFHP_SETM_CMP_GT, .packets = 5,
		  .bytes_cmp = NFHP_SETM_CMP_NE, .bytes = ~0ull },
		{ .name = "bytes", .bytes_cmp = NFHP_SETM_CMP_LT,
		  .bytes = 1ull << 40 },
		{ .name = "quiet", .no_count = 1,
		  .packets_cmp = NFHP_SETM_CMP_EQ },
	};
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_rule_spec *s = spec_new(NFHP_ACT_DROP), *back;
	struct nfhp_rule_body body, other;
	const char *msg = NULL;
	unsigned int i;
	bool same = true;

	memcpy(s->setm, setm, sizeof(setm));
	s->nsetm = ARRAY_SIZE(setm);
	check(!nfhp_rule_body_new(&mem, NFHP_FAMILY_IPV4, s, &body, &msg),
	      "body of four set matches");
	back = spec_new(NFHP_ACT_NONE);
	memset(back, 0xa5, sizeof(*back));
	nfhp_spec_unpack(body.spec, back);
	for (i = 0; i < ARRAY_SIZE(setm); i++)
		same &= setm_same(&back->setm[i], &setm[i]);
	check(back->nsetm == ARRAY_SIZE(setm) && same,
	      "set matches read back: values, no count, compares");
	s->setm[1].packets = 6;
	check(!nfhp_rule_body_new(&mem, NFHP_FAMILY_IPV4, s, &other, &msg) &&
	      !nfhp_packed_spec_equal(other.spec, body.spec),
	      "--packets-gt 6 is another rule than --packets-gt 5");
	nfhp_rule_body_free(&mem, &other);
	s->setm[1].packets = 5;
	s->setm[2].bytes_cmp = NFHP_SETM_CMP_GT;
	check(!nfhp_rule_body_new(&mem, NFHP_FAMILY_IPV4, s, &other, &msg) &&
	      !nfhp_packed_spec_equal(other.spec, body.spec),
	      "--bytes-gt is another rule than --bytes-lt");
	nfhp_rule_body_free(&mem, &other);
	s->setm[2].bytes_cmp = NFHP_SETM_CMP_LT;
	s->setm[0].no_count = 1;
	check(!nfhp_rule_body_new(&mem, NFHP_FAMILY_IPV4, s, &other, &msg) &&
	      !nfhp_packed_spec_equal(other.spec, body.spec),
	      "! --update-counters is another rule");
	nfhp_rule_body_free(&mem, &other);
	nfhp_rule_body_free(&mem, &body);
	check(!mem.used, "all returned");
	free(back);
	free(s);
}

static struct nfhp_box *box_of(struct nfhp_mem *mem,
				struct nfhp_rule_spec *s)
{
	const char *msg = NULL;
	struct nfhp_box *b = NULL;

	check(!nfhp_box_from_spec(mem, NFHP_FAMILY_IPV4, s, &b, &msg),
	      "box of spec: %s",
	      msg ? msg : "ok");
	free(s);
	return b;
}

/* Counters come from blocks; a slot handed out again starts at zero. */
static void test_counter_pool(void)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_counter init = { .packets = 7, .bytes = 700 }, sum;
	struct nfhp_rcounter *c[200];
	struct nfhp_cpool pool;
	unsigned int i, bad = 0;

	nfhp_cpool_init(&pool, &mem);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		c[i] = nfhp_rcounter_new(&pool, i % 2 ? &init : NULL);
		if (!c[i]) {
			check(false, "counter %u handed out", i);
			return;
		}
		per_cpu_ptr(c[i]->pc, 0)->packets += i;
	}
	check(pool.blocks == 4, "200 counters in 4 blocks (%u)", pool.blocks);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		nfhp_counter_sum(c[i], &sum);
		bad += sum.packets != i + (i % 2 ? 7 : 0);
	}
	check(!bad, "every counter its own (%u wrong)", bad);
	c[3]->refs++;
	for (i = 0; i < ARRAY_SIZE(c); i += 2)
		nfhp_rcounter_put(&pool, c[i]);
	nfhp_rcounter_put(&pool, c[3]);
	check(pool.blocks == 4, "half put: no block freed");
	for (i = 0; i < ARRAY_SIZE(c); i += 2)
		c[i] = nfhp_rcounter_new(&pool, NULL);
	check(pool.blocks == 4, "their slots handed out again");
	for (i = 0, bad = 0; i < ARRAY_SIZE(c); i++) {
		nfhp_counter_sum(c[i], &sum);
		bad += sum.packets != (i % 2 ? i + 7 : 0);
	}
	check(!bad, "slots handed out again start at zero (%u wrong)", bad);
	for (i = 0; i < ARRAY_SIZE(c); i++)
		nfhp_rcounter_put(&pool, c[i]);
	check(!pool.blocks && !pool.partial && !mem.used,
	      "all put: every block freed");
}

/* A user chain's rule inside its jump's box shares its box. */
static void test_box_contains(void)
{
	static const u32 ports[][2] = {
		{ 9, 9 }, { 1, 1 }, { 7, 7 }, { 3, 3 }, { 5, 5 },
	};
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_box *net8, *net16, *other, *tcp8, *no22, *in, *out;
	struct nfhp_rule_spec *s;
	struct nfhp_dim_match *m;
	unsigned int i;

	s = spec_new(NFHP_ACT_JUMP);
	spec_prefix(s, NFHP_DIM_SRC, ip(10, 0, 0, 0), 8, false);
	net8 = box_of(&mem, s);
	s = spec_new(NFHP_ACT_DROP);
	spec_prefix(s, NFHP_DIM_SRC, ip(10, 1, 0, 0), 16, false);
	spec_range(s, NFHP_DIM_PROTO, 6, 6, false);
	net16 = box_of(&mem, s);
	s = spec_new(NFHP_ACT_DROP);
	spec_prefix(s, NFHP_DIM_SRC, ip(11, 1, 0, 0), 16, false);
	other = box_of(&mem, s);
	s = spec_new(NFHP_ACT_JUMP);
	spec_prefix(s, NFHP_DIM_SRC, ip(10, 0, 0, 0), 8, false);
	spec_range(s, NFHP_DIM_PROTO, 6, 6, false);
	tcp8 = box_of(&mem, s);
	s = spec_new(NFHP_ACT_JUMP);
	spec_range(s, NFHP_DIM_DPORT, 22, 22, true);
	no22 = box_of(&mem, s);
	s = spec_new(NFHP_ACT_DROP);
	spec_range(s, NFHP_DIM_DPORT, 80, 90, false);
	in = box_of(&mem, s);
	s = spec_new(NFHP_ACT_DROP);
	spec_range(s, NFHP_DIM_DPORT, 20, 30, false);
	out = box_of(&mem, s);

	check(nfhp_box_contains(net8, net16), "/16 inside /8");
	check(!nfhp_box_contains(net16, net8), "/8 not inside /16");
	check(!nfhp_box_contains(net8, other), "other /16 not inside /8");
	check(!nfhp_box_contains(tcp8, net8),
	      "a box restricting more dimensions is no bigger");
	check(nfhp_box_contains(tcp8, net16), "tcp /16 inside tcp /8");
	check(nfhp_box_contains(no22, in), "80:90 inside ! 22");
	check(!nfhp_box_contains(no22, out), "20:30 not inside ! 22");
	check(nfhp_box_contains(no22, no22), "a box contains itself");
	nfhp_box_free(&mem, net8);
	nfhp_box_free(&mem, net16);
	nfhp_box_free(&mem, other);
	nfhp_box_free(&mem, tcp8);
	nfhp_box_free(&mem, no22);
	nfhp_box_free(&mem, in);
	nfhp_box_free(&mem, out);

	/* More intervals than a list holds inline, negated: 6 remain. */
	s = spec_new(NFHP_ACT_DROP);
	m = spec_add(s, NFHP_DIM_DPORT, NFHP_FORM_RANGES, true);
	m->nranges = ARRAY_SIZE(ports);
	for (i = 0; i < ARRAY_SIZE(ports); i++) {
		m->ranges[i].lo = ports[i][0];
		m->ranges[i].hi = ports[i][1];
	}
	in = box_of(&mem, s);
	check(in && nfhp_box_nranges(in, NFHP_DIM_DPORT) == 6 &&
	      nfhp_box_ranges(in, NFHP_DIM_DPORT)[0].lo == 0 &&
	      nfhp_box_ranges(in, NFHP_DIM_DPORT)[0].hi == 0 &&
	      nfhp_box_ranges(in, NFHP_DIM_DPORT)[2].lo == 4 &&
	      nfhp_box_ranges(in, NFHP_DIM_DPORT)[2].hi == 4 &&
	      nfhp_box_ranges(in, NFHP_DIM_DPORT)[5].lo == 10 &&
	      nfhp_box_ranges(in, NFHP_DIM_DPORT)[5].hi == 65535,
	      "! 9,1,7,3,5 is 0 2 4 6 8 10:65535");
	nfhp_box_free(&mem, in);
	check(!mem.used, "box memory returned");
}

static void test_box_errors(void)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_rule_spec *s = spec_new(NFHP_ACT_DROP);
	struct nfhp_dim_match *m;
	const char *msg = NULL;
	struct nfhp_box *b;
	int err;

	m = spec_add(s, NFHP_DIM_MARK, NFHP_FORM_MASK, false);
	m->ranges[0].lo = 1;
	m->ranges[0].hi = 1;
	err = nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg);
	check(err == -E2BIG && msg,
	      "mark mask of 2^31 intervals refused: %s", msg);
	/* 2^11 intervals is the most (NFHP_MAX_MASK_RANGES), 2^12 too many. */
	s->nmatch = 0;
	m = spec_add(s, NFHP_DIM_SRC, NFHP_FORM_MASK, false);
	m->ranges[0].lo = 0x0a000000;
	m->ranges[0].hi = 0xfff000ff;
	check(nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg) == -E2BIG,
	      "netmask 255.240.0.255 (4096 intervals) refused");
	m->ranges[0].hi = 0xfff800ff;
	err = nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg);
	check(!err && nfhp_box_nranges(b, NFHP_DIM_SRC) == 2048 &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[1].lo == 0x0a000100 &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[1].hi == 0x0a000100 &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[2047].lo == 0x0a07ff00,
	      "netmask 255.248.0.255 is 2048 single addresses");
	if (!err)
		nfhp_box_free(&mem, b);
	m->ranges[0].hi = 0xff00ff00;
	err = nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg);
	check(!err && nfhp_box_nranges(b, NFHP_DIM_SRC) == 256 &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[1].lo == 0x0a010000 &&
	      nfhp_box_ranges(b, NFHP_DIM_SRC)[1].hi == 0x0a0100ff,
	      "netmask 255.0.255.0 is 256 intervals of 256");
	if (!err)
		nfhp_box_free(&mem, b);
	m->invert = true;
	err = nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg);
	check(!err && nfhp_box_nranges(b, NFHP_DIM_SRC) == 257,
	      "! netmask 255.0.255.0 is 257 intervals");
	if (!err)
		nfhp_box_free(&mem, b);
	s->nmatch = 0;
	spec_range(s, NFHP_DIM_DPORT, 30, 20, false);
	check(nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg) == -ERANGE,
	      "inverted range refused");
	s->nmatch = 0;
	spec_range(s, NFHP_DIM_SPORT, 1, 2, false);
	spec_range(s, NFHP_DIM_SPORT, 3, 4, false);
	check(nfhp_box_from_spec(&mem, NFHP_FAMILY_IPV4, s, &b, &msg) == -EINVAL,
	      "repeated dimension refused");
	check(!mem.used, "nothing leaked on errors");
	free(s);
}

static void classify(struct nfhp_ruleset *rs, enum nfhp_hook hook,
		     const struct nfhp_key *k, struct nfhp_verdict *v)
{
	nfhp_classify(rs, hook, folded(k), 100, NULL, v);
}

/* The worked example of DOC: Theory of Operation in tree.c. */
static void test_worked_example(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *r1 = spec_new(NFHP_ACT_ACCEPT);
	struct nfhp_rule_spec *r2 = spec_new(NFHP_ACT_DROP);
	struct nfhp_rule_spec *r3 = spec_new(NFHP_ACT_ACCEPT);
	struct nfhp_tree_stats st;
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;
	unsigned int pos;

	spec_prefix(r1, NFHP_DIM_SRC, ip(10, 0, 0, 0), 8, false);
	spec_range(r1, NFHP_DIM_PROTO, 6, 6, false);
	spec_range(r1, NFHP_DIM_DPORT, 22, 22, false);
	spec_prefix(r2, NFHP_DIM_SRC, ip(10, 1, 0, 0), 16, false);
	spec_range(r3, NFHP_DIM_PROTO, 6, 6, false);
	check(!nfhp_txn_begin(rs), "begin");
	check(!nfhp_chain_policy(rs, "FORWARD", NFHP_ACT_DROP, NULL, &msg),
	      "policy DROP");
	check(!nfhp_rule_append(rs, "FORWARD", r1, NULL, &msg) &&
	      !nfhp_rule_append(rs, "FORWARD", r2, NULL, &msg) &&
	      !nfhp_rule_append(rs, "FORWARD", r3, NULL, &msg), "append 3");
	check(!nfhp_txn_commit(rs, &msg), "commit");

	key_init(&k);
	k.v[NFHP_DIM_SRC] = ip(10, 1, 2, 3);
	k.v[NFHP_DIM_PROTO] = 6;
	k.v[NFHP_DIM_DPORT] = 22;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 1, "10.1.2.3 tcp/22 ACCEPT 1");
	k.v[NFHP_DIM_DPORT] = 80;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_DROP && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 2, "10.1.2.3 tcp/80 DROP 2");
	k.v[NFHP_DIM_SRC] = ip(11, 0, 0, 1);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 3, "11.0.0.1 tcp ACCEPT 3");
	/*
	 * A commit drops the table of positions; without memory to build it
	 * again the chains are searched.
	 */
	check(!nfhp_rule_insert(rs, "FORWARD", 1, r2, NULL, &msg),
	      "-I FORWARD 1");
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	nfhp_shim_fail_countdown = 1;
	pos = v.rule ? nfhp_rule_position(rs, v.rule) : 0;
	nfhp_shim_fail_countdown = 0;
	check(pos == 4 && nfhp_rule_position(rs, v.rule) == 4 &&
	      !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), "FORWARD"),
	      "after -I 1 the rule is FORWARD 4, searched (%u) and looked up",
	      pos);
	check(!nfhp_rule_delete(rs, "FORWARD", 1, &msg), "-D FORWARD 1");
	k.v[NFHP_DIM_PROTO] = 17;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_DROP && !v.rule, "udp: policy DROP");
	classify(rs, NFHP_HOOK_INPUT, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && !v.rule, "INPUT: policy ACCEPT");

	nfhp_tree_get_stats(rs, NFHP_HOOK_FORWARD, &st);
	check(st.depth <= 3 && st.trees >= 2,
	      "%u trees, depth %u, %u nodes, %u leaves, %u shared", st.trees,
	      st.depth, st.nodes, st.leaves, st.shared);
	check(st.shared >= 1, "identical subtrees are shared");
	nfhp_ruleset_free(rs);
	free(r1);
	free(r2);
	free(r3);
}

/*
 * The chain of test_order_room(): each rule accepts or drops dport >= lo,
 * from 10.0.0.0/24 for odd lo (another tree: see nfhp_group_of()).
 */
struct order_model {
	u32 lo[256];
	u8 act[256];
	unsigned int n;
};

static void order_rule(struct nfhp_ruleset *rs, struct order_model *m,
		       unsigned int pos, u32 lo, u8 act)
{
	struct nfhp_rule_spec *s = spec_new(act);
	const char *msg = NULL;

	spec_range(s, NFHP_DIM_PROTO, 6, 6, false);
	spec_range(s, NFHP_DIM_DPORT, lo, 65535, false);
	if (lo % 2)
		spec_prefix(s, NFHP_DIM_SRC, ip(10, 0, 0, 0), 24, false);
	check(!nfhp_rule_insert(rs, "FORWARD", pos, s, NULL, &msg),
	      "-I FORWARD %u dport %u:", pos, lo);
	memmove(m->lo + pos, m->lo + pos - 1, (m->n - pos + 1) * sizeof(u32));
	memmove(m->act + pos, m->act + pos - 1, m->n - pos + 1);
	m->lo[pos - 1] = lo;
	m->act[pos - 1] = act;
	m->n++;
	free(s);
}

/* Does every dport below 128 get the model's first match? */
static bool order_check(struct nfhp_ruleset *rs, const struct order_model *m)
{
	struct nfhp_verdict v;
	struct nfhp_key k;
	unsigned int d, i;

	key_init(&k);
	k.v[NFHP_DIM_SRC] = ip(10, 0, 0, 1);
	k.v[NFHP_DIM_PROTO] = 6;
	for (d = 0; d < 128; d++) {
		k.v[NFHP_DIM_DPORT] = d;
		classify(rs, NFHP_HOOK_FORWARD, &k, &v);
		for (i = 0; i < m->n && m->lo[i] > d; i++)
			;
		if (i == m->n ? v.rule || v.action != NFHP_ACT_DROP :
		    !v.rule || v.action != m->act[i] ||
		    nfhp_rule_position(rs, v.rule) != i + 1) {
			printf("# dport %u: rule %u of the model, got %u\n",
			       d, i + 1,
			       v.rule ? nfhp_rule_position(rs, v.rule) : 0);
			return false;
		}
	}
	return true;
}

/*
 * Added entries get order keys between those of their kept neighbours,
 * whose keys packets may be comparing.  Inserts at one place halve the
 * room there until there is none, and the commit flattens the hook
 * afresh: here also after the keys of an earlier insert of the same
 * transaction were given already.
 */
static void test_order_room(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct order_model m = { .n = 0 };
	const char *msg = NULL;
	unsigned int t;
	bool ok = true;

	check(!nfhp_txn_begin(rs) &&
	      !nfhp_chain_policy(rs, "FORWARD", NFHP_ACT_DROP, NULL, &msg) &&
	      !nfhp_txn_commit(rs, &msg), "policy DROP");
	order_rule(rs, &m, 1, 120, NFHP_ACT_ACCEPT);
	order_rule(rs, &m, 2, 0, NFHP_ACT_DROP);
	for (t = 1; t <= 40 && ok; t++) {
		check(!nfhp_txn_begin(rs), "begin %u", t);
		check(!nfhp_rule_delete(rs, "FORWARD", 1, &msg), "-D 1");
		m.n--;
		memmove(m.lo, m.lo + 1, m.n * sizeof(u32));
		memmove(m.act, m.act + 1, m.n);
		/* Room enough at the head: its neighbour's key stays. */
		order_rule(rs, &m, 1, 120 - t % 2,
			   t % 2 ? NFHP_ACT_DROP : NFHP_ACT_ACCEPT);
		/* Half the room before the last rule, every time. */
		order_rule(rs, &m, m.n, 100 - t,
			   t % 3 ? NFHP_ACT_ACCEPT : NFHP_ACT_DROP);
		check(!nfhp_txn_commit(rs, &msg), "commit %u", t);
		ok = order_check(rs, &m);
	}
	check(ok, "%u commits each adding at the head and before the tail: "
	      "first matches and positions as in the model", t - 1);
	nfhp_ruleset_free(rs);
}

/*
 * -I 1 and -A, over and over, are updates and never rebuilds: the keys
 * of the first entry and of the policy leave room (NFHP_ORDER_BASE,
 * NFHP_ORDER_POLICY).  A rebuild would allocate every entry anew.
 */
static void test_order_ends(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct order_model m = { .n = 0 };
	unsigned long a0, most = 0;
	const char *msg = NULL;
	unsigned int t;

	check(!nfhp_txn_begin(rs) &&
	      !nfhp_chain_policy(rs, "FORWARD", NFHP_ACT_DROP, NULL, &msg) &&
	      !nfhp_txn_commit(rs, &msg), "policy DROP");
	for (t = 0; t < 60; t++)
		order_rule(rs, &m, m.n + 1, 120 - t, NFHP_ACT_ACCEPT);
	for (t = 0; t < 160; t++) {
		a0 = nfhp_shim_allocs;
		order_rule(rs, &m, t % 2 ? 1 : m.n + 1, 127 - t % 100,
			   t % 3 ? NFHP_ACT_DROP : NFHP_ACT_ACCEPT);
		most = max(most, nfhp_shim_allocs - a0);
	}
	check(order_check(rs, &m), "220 rules: first matches and positions "
	      "as in the model");
	check(most < 150, "80 inserts at the head and 80 appends, each "
	      "committed: at most %lu allocations each", most);
	nfhp_ruleset_free(rs);
}

/* Pages of @now that are pages of @old too. */
static unsigned int pages_shared(const struct nfhp_pageseq *now,
				 const struct nfhp_pageseq_page *const *old,
				 unsigned int nold)
{
	unsigned int k, j, n = 0;

	for (k = 0; k < now->npages; k++)
		for (j = 0; j < nold; j++)
			n += now->slot[k].page == old[j];
	return n;
}

/*
 * An update shares the pages of the committed entries it keeps whole
 * (nfhp_flat_keep()) and copies the one it changes, and the pages pass to
 * the new entries at the commit: those the update replaced are freed with
 * the old entries, the others live on.
 */
static void test_entry_pages(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	const struct nfhp_pageseq_page *old[16];
	const struct nfhp_pageseq *e;
	const char *msg = NULL;
	unsigned int i, nold, n0, pos;
	unsigned int over = 0;
	bool ok = true;
	u64 x = 1;

	nfhp_txn_begin(rs);
	for (i = 0; i < 3000; i++) {
		r->nmatch = 0;
		spec_range(r, NFHP_DIM_DPORT, i, i, false);
		nfhp_rule_append(rs, "FORWARD", r, NULL, &msg);
	}
	check(!nfhp_txn_commit(rs, &msg), "pages: 3000 rules: %s", msg);
	e = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD);
	n0 = e->n;
	nold = min(e->npages, 16u);
	for (i = 0; i < nold; i++)
		old[i] = e->slot[i].page;
	check(e->npages == nold && nold >= 6, "pages: %u entries in %u pages",
	      e->n, e->npages);
	nfhp_ruleset_defer_release(rs, true);
	r->nmatch = 0;
	spec_range(r, NFHP_DIM_DPORT, 9000, 9000, false);
	check(!nfhp_rule_insert(rs, "FORWARD", 1500, r, NULL, &msg),
	      "pages: insert in the middle");
	check(e->n > n0 && pages_shared(e, old, nold) >= nold - 2,
	      "pages: the insert shares %u of the %u pages (%u now)",
	      pages_shared(e, old, nold), nold, e->npages);
	for (i = 0; i < e->npages; i++)
		ok &= e->slot[i].own;
	check(ok, "pages: every page passed to the new entries");
	synchronize_rcu();
	check(!nfhp_rule_delete(rs, "FORWARD", 1500, &msg), "pages: delete");
	synchronize_rcu();
	nfhp_ruleset_release(rs, false);
	nfhp_ruleset_defer_release(rs, false);
	check(e->n == n0 && pages_shared(e, old, nold) >= nold - 4,
	      "pages: after the delete %u of the first pages live on",
	      pages_shared(e, old, nold));
	/* Updates at random places leave no trail of small pages. */
	for (i = 0; i < 600; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		pos = 1 + (x >> 33) % 3000;
		r->nmatch = 0;
		spec_range(r, NFHP_DIM_DPORT, 10000 + i, 10000 + i, false);
		ok &= i < 300 ?
		      !nfhp_rule_insert(rs, "FORWARD", pos, r, NULL, &msg) :
		      !nfhp_rule_delete(rs, "FORWARD", pos, &msg);
		over += e->npages > 2 + e->n / (NFHP_PAGESEQ_PAGE / 4);
	}
	check(ok && !over, "pages: 300 inserts and 300 deletes at random "
	      "places: pages a quarter full or more (%u entries in %u pages "
	      "at the end), %u times not", e->n, e->npages, over);
	nfhp_ruleset_free(rs);
	free(r);
}

/* Does rule @pos of FORWARD (0: the policy) decide @proto with @action? */
static bool proto_decided(struct nfhp_ruleset *rs, u8 proto, u8 action,
			  unsigned int pos)
{
	struct nfhp_verdict v;
	struct nfhp_key k;

	key_init(&k);
	k.v[NFHP_DIM_PROTO] = proto;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	return v.action == action &&
	       (v.rule ? nfhp_rule_position(rs, v.rule) : 0) == pos;
}

/*
 * A rule that matches nothing has no entry.  Updates of a straight chain
 * find the rules around it by where each rule's entries begin, so it must
 * neither hide its neighbours nor keep its place after a delete.
 */
static void test_straight_empty_rule(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	static const u8 proto[] = { 6, 0, 17 };
	const char *msg = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(proto); i++) {
		r->nmatch = 0;
		/* ! -p 0:255 matches nothing. */
		spec_range(r, NFHP_DIM_PROTO, proto[i], proto[i] ? proto[i] : 255,
			   !proto[i]);
		check(!nfhp_rule_append(rs, "FORWARD", r, NULL, &msg),
		      "empty rule: rule %u: %s", i + 1, msg);
	}
	i = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD)->n;
	check(i == 3, "empty rule: two entries and the policy's (%u)", i);
	r->nmatch = 0;
	spec_range(r, NFHP_DIM_PROTO, 1, 1, false);
	check(!nfhp_rule_insert(rs, "FORWARD", 3, r, NULL, &msg),
	      "empty rule: -I FORWARD 3 -p icmp: %s", msg);
	check(proto_decided(rs, 17, NFHP_ACT_DROP, 4),
	      "empty rule: udp by rule 4");
	check(proto_decided(rs, 1, NFHP_ACT_DROP, 3),
	      "empty rule: icmp by rule 3");
	check(!nfhp_rule_delete(rs, "FORWARD", 2, &msg),
	      "empty rule: -D FORWARD 2");
	r->nmatch = 0;
	spec_range(r, NFHP_DIM_PROTO, 17, 17, false);
	r->action = NFHP_ACT_ACCEPT;
	check(!nfhp_rule_insert(rs, "FORWARD", 2, r, NULL, &msg),
	      "empty rule: -I FORWARD 2 -p udp -j ACCEPT");
	check(proto_decided(rs, 17, NFHP_ACT_ACCEPT, 2),
	      "empty rule: udp now accepted by rule 2");
	check(proto_decided(rs, 6, NFHP_ACT_DROP, 1),
	      "empty rule: tcp by rule 1");
	check(proto_decided(rs, 47, NFHP_ACT_ACCEPT, 0),
	      "empty rule: gre to the policy");
	nfhp_ruleset_free(rs);
	free(r);
}

/*
 * Chains are found by a binary search of the user chains, kept sorted by
 * name through creates, renames and deletes in any order.
 */
static void test_chain_names(void)
{
	enum { N = 300 };
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	unsigned int i, k, lost = 0;
	char name[32], to[32];
	const char *msg = NULL;
	bool made[N] = {};

	check(!nfhp_txn_begin(rs), "chain names: begin");
	for (i = 0; i < N; i++) {
		k = (i * 7919) % N;	/* 7919 is prime: every k once */
		snprintf(name, sizeof(name), "c%u", k);
		made[k] = !nfhp_chain_new(rs, name, &msg);
	}
	for (k = 0; k < N; k += 3) {
		snprintf(name, sizeof(name), "c%u", k);
		snprintf(to, sizeof(to), "r%u", k);
		made[k] &= !nfhp_chain_rename(rs, name, to, &msg);
	}
	for (k = 1; k < N; k += 5) {
		snprintf(name, sizeof(name), "%s%u", k % 3 ? "c" : "r", k);
		made[k] &= !nfhp_chain_delete(rs, name, &msg);
	}
	check(!nfhp_txn_commit(rs, &msg), "chain names: commit");
	for (k = 0; k < N; k++) {
		snprintf(name, sizeof(name), "%s%u", k % 3 ? "c" : "r", k);
		snprintf(to, sizeof(to), "%s%u", k % 3 ? "r" : "c", k);
		lost += !made[k] || !!nfhp_chain_find(rs, name) != (k % 5 != 1) ||
			nfhp_chain_find(rs, to);
	}
	check(!lost && nfhp_chain_find(rs, "FORWARD") &&
	      nfhp_ruleset_nchains(rs) == 3 + N - N / 5,
	      "chain names: %u chains found by name (%u wrong)",
	      nfhp_ruleset_nchains(rs), lost);
	/* The commit hashed the names; a transaction's copy of them... */
	check(!nfhp_txn_begin(rs) && nfhp_chain_find(rs, "r3") &&
	      !nfhp_chain_rename(rs, "r3", "zz", &msg) &&
	      !nfhp_chain_new(rs, "aa", &msg) &&
	      !nfhp_chain_delete(rs, "c2", &msg) &&
	      nfhp_chain_find(rs, "zz") && nfhp_chain_find(rs, "aa") &&
	      !nfhp_chain_find(rs, "r3") && !nfhp_chain_find(rs, "c2") &&
	      nfhp_chain_find(rs, "c4"),
	      "chain names: renamed, added and deleted after a commit");
	/* ...the changes made stale, and the next commit hashes anew. */
	check(!nfhp_txn_commit(rs, &msg) && nfhp_chain_find(rs, "zz") &&
	      nfhp_chain_find(rs, "aa") && !nfhp_chain_find(rs, "r3") &&
	      !nfhp_chain_find(rs, "c2") && nfhp_chain_find(rs, "c299") &&
	      nfhp_chain_find(rs, "INPUT"),
	      "chain names: found after the next commit");
	nfhp_ruleset_free(rs);
}

/* Put "-s @addr/@len -j @action" at @pos of @chain (0: append). */
static bool src_rule(struct nfhp_ruleset *rs, const char *chain,
		     unsigned int pos, u32 addr, u8 len, u8 action)
{
	struct nfhp_rule_spec *s = spec_new(action);
	const char *msg = NULL;
	bool ok;

	spec_prefix(s, NFHP_DIM_SRC, addr, len, false);
	ok = pos ? !nfhp_rule_insert(rs, chain, pos, s, NULL, &msg) :
		   !nfhp_rule_append(rs, chain, s, NULL, &msg);
	free(s);
	return ok;
}

/* Does FORWARD decide a packet from @src with @action by @chain's @pos? */
static bool src_decided(struct nfhp_ruleset *rs, u32 src, u8 action,
			const char *chain, unsigned int pos)
{
	struct nfhp_verdict v;
	struct nfhp_key k;

	key_init(&k);
	k.v[NFHP_DIM_SRC] = src;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	return v.rule && v.action == action &&
	       !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), chain) &&
	       nfhp_rule_position(rs, v.rule) == pos;
}

/* Put "-s 10.@k.@j.0/24 -j DROP" at @pos of @chain (0: append). */
static bool chain_rule(struct nfhp_ruleset *rs, const char *chain,
		       unsigned int k, unsigned int j, unsigned int pos)
{
	return src_rule(rs, chain, pos, ip(10, k, j, 0), 24, NFHP_ACT_DROP);
}

/* The verdict of FORWARD for a packet from 10.@k.@j.1: DROP by rule @pos? */
static bool chain_drops(struct nfhp_ruleset *rs, unsigned int k,
			unsigned int j, const char *chain, unsigned int pos)
{
	struct nfhp_verdict v;
	struct nfhp_key key;

	key_init(&key);
	key.v[NFHP_DIM_SRC] = ip(10, k, j, 1);
	classify(rs, NFHP_HOOK_FORWARD, &key, &v);
	if (!pos)
		return !v.rule && v.action == NFHP_ACT_ACCEPT;
	return v.rule && v.action == NFHP_ACT_DROP &&
	       !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), chain) &&
	       nfhp_rule_position(rs, v.rule) == pos;
}

/*
 * A rule set sent again as iptables-restore sends it (everything flushed,
 * the user chains deleted, then all of it anew, @changed standing for
 * FORWARD's rule at that index when not -1): 20 rules in FORWARD, 10 in
 * C, a jump to C.  @cnt gives FORWARD's first rule its counters.
 */
static bool adopt_restore(struct nfhp_ruleset *rs, int changed,
			  const struct nfhp_counter *cnt, bool commit)
{
	struct nfhp_rule_spec *s = spec_new(NFHP_ACT_DROP);
	const char *msg = NULL;
	bool ok;
	int j;

	ok = !nfhp_txn_begin(rs) && !nfhp_chain_flush(rs, NULL, &msg) &&
	     !nfhp_chain_delete(rs, NULL, &msg) &&
	     !nfhp_chain_new(rs, "C", &msg);
	for (j = 0; j < 10 && ok; j++)
		ok = src_rule(rs, "C", 0, ip(10, 1, j, 0), 24, NFHP_ACT_DROP);
	for (j = 0; j < 20 && ok; j++) {
		s->nmatch = 0;
		spec_prefix(s, NFHP_DIM_SRC, ip(10, 0, j == changed ? 200 : j, 0),
			    24, false);
		ok = !nfhp_rule_append(rs, "FORWARD", s, j ? NULL : cnt, &msg);
	}
	s->action = NFHP_ACT_JUMP;
	s->nmatch = 0;
	spec_prefix(s, NFHP_DIM_SRC, ip(10, 1, 0, 0), 16, false);
	strcpy(s->target, "C");
	ok = ok && !nfhp_rule_append(rs, "FORWARD", s, NULL, &msg);
	free(s);
	if (!commit)
		return ok;
	return ok && !nfhp_txn_commit(rs, &msg);
}

/* The rules of @chain are @want's, pointer for pointer, but at @skip. */
static bool adopt_same(struct nfhp_ruleset *rs, const char *chain,
		       const struct nfhp_rule **want, unsigned int n, int skip)
{
	const struct nfhp_chain *c = nfhp_chain_find(rs, chain);
	unsigned int j;

	for (j = 0; j < n; j++)
		if ((nfhp_rule_at(c, j + 1) == want[j]) != (j != skip))
			return false;
	return true;
}

static u64 adopt_packets(const struct nfhp_rule *r)
{
	struct nfhp_counter sum;

	nfhp_rule_counter(r, &sum);
	return sum.packets;
}

/*
 * A commit takes back the rules a transaction deleted and created again
 * (nfhp_adopt()): a rule set sent again unchanged is no change at all,
 * one with a rule changed is an update of that rule.
 */
static void test_adopt(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	const struct nfhp_counter given = { .packets = 5, .bytes = 500 };
	const struct nfhp_rule *fw[21], *cr[10];
	const struct nfhp_pageseq_slot *e0, *e;
	const struct nfhp_chain *c0;
	struct nfhp_verdict v;
	struct nfhp_key k;
	const char *msg = NULL;
	unsigned int n0, n, j;
	int failed = 0, wrong = 0;
	bool ok;

	check(adopt_restore(rs, -1, NULL, true), "a rule set of 31 rules");
	for (j = 0; j < 21; j++)
		fw[j] = nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), j + 1);
	for (j = 0; j < 10; j++)
		cr[j] = nfhp_rule_at(nfhp_chain_find(rs, "C"), j + 1);
	c0 = nfhp_chain_find(rs, "C");
	e0 = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD)->slot;
	n0 = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD)->n;
	key_init(&k);
	k.v[NFHP_DIM_SRC] = ip(10, 0, 5, 1);
	for (j = 0; j < 3; j++)
		classify(rs, NFHP_HOOK_FORWARD, &k, &v);

	ok = adopt_restore(rs, -1, NULL, true);
	e = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD)->slot;
	n = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD)->n;
	check(ok && !nfhp_ruleset_flattened(rs) && e == e0 && n == n0 &&
	      adopt_same(rs, "FORWARD", fw, 21, -1) &&
	      adopt_same(rs, "C", cr, 10, -1) && nfhp_chain_find(rs, "C") == c0,
	      "sent again unchanged: the same rules and chains, nothing "
	      "flattened, the entries untouched");
	check(adopt_same(rs, "FORWARD", fw, 21, -1) &&
	      adopt_packets(fw[5]) == 0,
	      "the rule taken back counts from zero, as a new one would");

	ok = adopt_restore(rs, 7, NULL, true);
	check(ok && nfhp_ruleset_flattened(rs) == 1 &&
	      adopt_same(rs, "FORWARD", fw, 21, 7) &&
	      adopt_same(rs, "C", cr, 10, -1) &&
	      src_decided(rs, ip(10, 0, 200, 1), NFHP_ACT_DROP, "FORWARD", 8) &&
	      chain_drops(rs, 0, 7, NULL, 0) &&
	      src_decided(rs, ip(10, 0, 8, 1), NFHP_ACT_DROP, "FORWARD", 9) &&
	      src_decided(rs, ip(10, 1, 3, 1), NFHP_ACT_DROP, "C", 4),
	      "sent again with one rule changed: that rule alone flattened, "
	      "verdicts right");
	fw[7] = nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 8);

	ok = adopt_restore(rs, 7, &given, true);
	check(ok && adopt_same(rs, "FORWARD", fw, 21, -1) &&
	      adopt_packets(fw[0]) == 5,
	      "counters given with the rules are the rules' taken back");

	/* A duplicate after a kept rule must not take back one before it. */
	ok = !nfhp_txn_begin(rs) && !nfhp_rule_delete(rs, "FORWARD", 1, &msg) &&
	     src_rule(rs, "FORWARD", 20, ip(10, 0, 0, 0), 24, NFHP_ACT_DROP) &&
	     !nfhp_txn_commit(rs, &msg);
	ok = ok && nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 20) != fw[0] &&
	     nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1) == fw[1] &&
	     src_decided(rs, ip(10, 0, 0, 1), NFHP_ACT_DROP, "FORWARD", 20);
	/* Nor one before a kept rule take back one after it. */
	ok = ok && !nfhp_txn_begin(rs) &&
	     !nfhp_rule_delete(rs, "FORWARD", 19, &msg) &&
	     src_rule(rs, "FORWARD", 1, ip(10, 0, 19, 0), 24, NFHP_ACT_DROP) &&
	     !nfhp_txn_commit(rs, &msg);
	check(ok && nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1) != fw[19] &&
	      nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 2) == fw[1] &&
	      src_decided(rs, ip(10, 0, 19, 1), NFHP_ACT_DROP, "FORWARD", 1),
	      "a rule moved behind or before the others is a new rule, not "
	      "taken back");

	/* Renamed, its rules are kept by the new name: none to take back. */
	ok = !nfhp_txn_begin(rs) && !nfhp_chain_rename(rs, "C", "D", &msg) &&
	     !nfhp_chain_new(rs, "C", &msg);
	for (j = 0; j < 10 && ok; j++)
		ok = src_rule(rs, "C", 0, ip(10, 1, j, 0), 24, NFHP_ACT_DROP);
	ok = ok && !nfhp_txn_commit(rs, &msg);
	check(ok && adopt_same(rs, "D", cr, 10, -1) &&
	      nfhp_rule_at(nfhp_chain_find(rs, "C"), 1) != cr[0] &&
	      src_decided(rs, ip(10, 1, 3, 1), NFHP_ACT_DROP, "D", 4),
	      "a chain renamed keeps its rules, a new one of its old name "
	      "has its own");

	/*
	 * Failures injected further and further into the commit: a commit
	 * that fails leaves the rules, their counters and verdicts; one that
	 * gets through (adopting is best effort) has the rule set sent.
	 */
	ok = adopt_restore(rs, 3, NULL, true);
	for (j = 1, n = 0; j < 400 && ok; j++) {
		bool fired;

		for (n0 = 0; n0 < 20; n0++)
			fw[n0] = nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"),
					      n0 + 1);
		ok = adopt_restore(rs, 3, NULL, false);
		nfhp_shim_fail_countdown = j;
		ok = ok && !nfhp_txn_commit(rs, &msg);
		fired = !nfhp_shim_fail_countdown;
		nfhp_shim_fail_countdown = 0;
		if (!ok) {
			failed++;
			if (!adopt_same(rs, "FORWARD", fw, 20, -1) ||
			    adopt_packets(fw[5]) != n)
				wrong++;
			ok = true;
		} else {
			n = 0;
			if (adopt_packets(nfhp_rule_at(nfhp_chain_find(rs,
						"FORWARD"), 6)))
				wrong++;
		}
		if (!src_decided(rs, ip(10, 0, 200, 1), NFHP_ACT_DROP,
				 "FORWARD", 4) ||
		    !src_decided(rs, ip(10, 0, 5, 1), NFHP_ACT_DROP,
				 "FORWARD", 6))
			wrong++;
		n++;	/* the packets fw[5] counted since the last commit */
		if (!fired)
			break;
	}
	check(failed >= 2 && !wrong,
	      "%d commits failed by injected ENOMEM: the rules, their "
	      "counters and verdicts as they were after each", failed);
	nfhp_ruleset_free(rs);
}

/*
 * A hook with user chains is updated as a straight one is: a rule added
 * to a user chain, or to the built-in chain between the jumps, is
 * flattened alone, not with the hook's thousands of entries, which are
 * carried over.
 */
static void test_chain_update(void)
{
	enum { NCH = 40, NRULES = 50 };
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	const struct nfhp_entry *last;
	const struct nfhp_pageseq *e;
	unsigned int most = 0;
	const char *msg = NULL;
	unsigned int k, j, n;
	char name[16];
	bool ok;

	ok = !nfhp_txn_begin(rs);
	for (k = 0; k < NCH && ok; k++) {
		snprintf(name, sizeof(name), "C%u", k);
		ok = !nfhp_chain_new(rs, name, &msg);
		for (j = 0; j < NRULES && ok; j++)
			ok = chain_rule(rs, name, k, 2 * j, 0);
		jump->nmatch = 0;
		spec_prefix(jump, NFHP_DIM_SRC, ip(10, k, 0, 0), 16, false);
		strcpy(jump->target, name);
		ok = ok && !nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg);
	}
	check(ok && !nfhp_txn_commit(rs, &msg), "%u chains of %u rules, "
	      "a jump to each", NCH, NRULES);
	e = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD);
	last = nfhp_pageseq_get(e, e->n - 2);
	for (k = 0; k < NCH; k++) {
		snprintf(name, sizeof(name), "C%u", k);
		ok &= chain_rule(rs, name, k, 2 * k + 1, k + 2);
		most = max(most, nfhp_ruleset_flattened(rs));
		ok &= chain_drops(rs, k, 2 * k + 1, name, k + 2) &&
		      chain_drops(rs, k, 2 * k, name, k + 1);
	}
	n = e->n;
	check(ok && n == NCH * (NRULES + 2) + 1 &&
	      nfhp_pageseq_get(e, n - 2) == last,
	      "a rule inserted into each chain: verdicts right, the last "
	      "chain's entries carried over");
	check(most == 1, "each insert into a chain flattened %u entries at "
	      "most (a rebuild flattens %u)", most, n);
	ok = chain_rule(rs, "FORWARD", 200, 0, NCH / 2) &&
	     nfhp_ruleset_flattened(rs) == 1 &&
	     chain_drops(rs, 200, 0, "FORWARD", NCH / 2) &&
	     !nfhp_rule_delete(rs, "C3", 1, &msg) &&
	     !nfhp_ruleset_flattened(rs) &&
	     chain_drops(rs, 3, 0, "C3", 0) && chain_drops(rs, 3, 2, "C3", 1);
	check(ok, "a rule between the jumps flattened alone, a delete in a "
	      "chain flattened nothing");
	jump->nmatch = 0;
	spec_prefix(jump, NFHP_DIM_SRC, ip(10, 0, 0, 0), 8, false);
	strcpy(jump->target, "C6");
	ok = !nfhp_rule_insert(rs, "FORWARD", 1, jump, NULL, &msg) &&
	     nfhp_ruleset_flattened(rs) == NRULES + 2 &&
	     chain_drops(rs, 5, 0, "C5", 1) && chain_rule(rs, "C6", 6, 5, 1) &&
	     nfhp_ruleset_flattened(rs) == 2 &&
	     chain_drops(rs, 6, 5, "C6", 1) && chain_drops(rs, 6, 0, "C6", 2);
	check(ok, "a second jump to a chain flattened with its chain, then a "
	      "rule in the chain flattened once for each jump");
	free(jump);
	nfhp_ruleset_free(rs);
}

/*
 * A hook whose chains RETURN is updated too, not rebuilt: new entries
 * get order keys on the right side of the scopes around them (a rule put
 * just behind a jump's chain must not be skipped by the chain's RETURN),
 * and a RETURN added gets its scope's end.
 */
static void test_skip_update(void)
{
	enum { NCH = 10, NRULES = 20 };
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	const char *msg = NULL;
	unsigned int k, j;
	char name[16];
	u64 given;
	bool ok;

	ok = !nfhp_txn_begin(rs);
	for (k = 0; k < NCH && ok; k++) {
		snprintf(name, sizeof(name), "C%u", k);
		ok = !nfhp_chain_new(rs, name, &msg) &&
		     src_rule(rs, name, 0, ip(10, k, 200, 0), 24,
			      NFHP_ACT_RETURN);
		for (j = 0; j < NRULES && ok; j++)
			ok = src_rule(rs, name, 0, ip(10, k, j, 0), 24,
				      NFHP_ACT_DROP);
		jump->nmatch = 0;
		spec_prefix(jump, NFHP_DIM_SRC, ip(10, k, 0, 0), 16, false);
		strcpy(jump->target, name);
		ok = ok && !nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg);
	}
	ok = ok && src_rule(rs, "FORWARD", 0, ip(10, 0, 0, 0), 8,
			    NFHP_ACT_ACCEPT) && !nfhp_txn_commit(rs, &msg);
	check(ok && src_decided(rs, ip(10, 3, 200, 1), NFHP_ACT_ACCEPT,
				"FORWARD", NCH + 1) &&
	      src_decided(rs, ip(10, 3, 5, 1), NFHP_ACT_DROP, "C3", 7),
	      "skips: %u chains that RETURN", NCH);
	ok = src_rule(rs, "C3", 0, ip(10, 3, 200, 0), 24, NFHP_ACT_DROP) &&
	     nfhp_ruleset_flattened(rs) == 1 &&
	     src_decided(rs, ip(10, 3, 200, 1), NFHP_ACT_ACCEPT, "FORWARD",
			 NCH + 1);
	check(ok, "skips: a rule appended inside the scope of a RETURN is "
	      "skipped, flattened alone");
	ok = src_rule(rs, "C3", 1, ip(10, 3, 200, 5), 32, NFHP_ACT_DROP) &&
	     nfhp_ruleset_flattened(rs) == 1 &&
	     src_decided(rs, ip(10, 3, 200, 5), NFHP_ACT_DROP, "C3", 1) &&
	     src_rule(rs, "FORWARD", 5, ip(10, 3, 200, 7), 32,
		      NFHP_ACT_DROP) &&
	     nfhp_ruleset_flattened(rs) == 1 &&
	     src_decided(rs, ip(10, 3, 200, 7), NFHP_ACT_DROP, "FORWARD", 5);
	check(ok, "skips: a rule before the RETURN, and one just behind the "
	      "chain that returns, flattened alone");
	ok = src_rule(rs, "C4", 1, ip(10, 4, 1, 0), 24, NFHP_ACT_RETURN) &&
	     nfhp_ruleset_flattened(rs) == 1 &&
	     src_decided(rs, ip(10, 4, 1, 1), NFHP_ACT_ACCEPT, "FORWARD",
			 NCH + 2) &&
	     src_decided(rs, ip(10, 4, 2, 1), NFHP_ACT_DROP, "C4", 5) &&
	     !nfhp_rule_delete(rs, "C3", 2, &msg) &&
	     !nfhp_ruleset_flattened(rs) &&
	     src_decided(rs, ip(10, 3, 200, 7), NFHP_ACT_DROP, "C3",
			 NRULES + 2);
	check(ok, "skips: a RETURN added and one deleted (the rule it skipped "
	      "decides), nothing else flattened");
	given = nfhp_ruleset_updates_given_up(rs);
	nfhp_tunables.update_visits_per_entry = 0;
	nfhp_tunables.update_visits_min = 0;
	ok = src_rule(rs, "C5", 1, ip(10, 5, 100, 0), 24, NFHP_ACT_DROP) &&
	     nfhp_ruleset_updates_given_up(rs) == given + 1 &&
	     src_decided(rs, ip(10, 5, 100, 1), NFHP_ACT_DROP, "C5", 1) &&
	     src_decided(rs, ip(10, 5, 5, 1), NFHP_ACT_DROP, "C5", 8) &&
	     !nfhp_rule_delete(rs, "C5", 1, &msg) &&
	     nfhp_ruleset_updates_given_up(rs) == given + 2 &&
	     src_decided(rs, ip(10, 5, 100, 1), NFHP_ACT_ACCEPT, "FORWARD",
			 NCH + 2) &&
	     src_decided(rs, ip(10, 5, 200, 1), NFHP_ACT_ACCEPT, "FORWARD",
			 NCH + 2);
	nfhp_tunables.update_visits_per_entry = NFHP_UPDATE_VISITS_PER_ENTRY;
	nfhp_tunables.update_visits_min = NFHP_UPDATE_VISITS_MIN;
	check(ok, "skips: updates out of visits give up, the tree is built "
	      "anew, verdicts right");
	free(jump);
	nfhp_ruleset_free(rs);
}

/* Append "-j @to" to chain @from, or "-j DROP" with @to NULL. */
static bool deep_rule(struct nfhp_ruleset *rs, const char *from,
		      const char *to)
{
	struct nfhp_rule_spec *s = spec_new(to ? NFHP_ACT_JUMP : NFHP_ACT_DROP);
	const char *msg = NULL;
	bool ok;

	if (to)
		strcpy(s->target, to);
	ok = !nfhp_rule_append(rs, from, s, NULL, &msg);
	free(s);
	return ok;
}

/*
 * Jumps 64 deep, as deep as they may go, are flattened without recursion
 * (64 levels of it overflowed the kernel stack); one more is refused at
 * the commit and leaves the committed rules in force.
 */
static void test_deep_jumps(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	char name[16], next[16];
	const char *msg = NULL;
	struct nfhp_verdict v;
	struct nfhp_key k;
	unsigned int i;
	bool ok;

	ok = !nfhp_txn_begin(rs);
	for (i = 1; i <= 64 && ok; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		ok = !nfhp_chain_new(rs, name, &msg);
	}
	for (i = 1; i < 64 && ok; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		snprintf(next, sizeof(next), "d%u", i + 1);
		ok = deep_rule(rs, name, next);
	}
	ok = ok && deep_rule(rs, "d64", NULL) &&
	     deep_rule(rs, "FORWARD", "d1") && !nfhp_txn_commit(rs, &msg);
	key_init(&k);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(ok && v.rule && v.action == NFHP_ACT_DROP &&
	      !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), "d64"),
	      "64 levels of jumps: the deepest chain drops");
	msg = NULL;
	ok = !nfhp_txn_begin(rs) && !nfhp_chain_new(rs, "d65", &msg) &&
	     deep_rule(rs, "d65", NULL) && deep_rule(rs, "d64", "d65") &&
	     nfhp_txn_commit(rs, &msg) == -ELOOP;
	check(ok && msg, "a 65th level is refused at the commit: %s", msg);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.rule && nfhp_rule_position(rs, v.rule) == 1 &&
	      !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), "d64"),
	      "the 64 levels stay in force");
	nfhp_ruleset_free(rs);
}

/* The tree of FORWARD's rule @pos, whose only entry is its @pos-th. */
static unsigned int fold_tree(struct nfhp_ruleset *rs, unsigned int pos)
{
	const struct nfhp_pageseq *e = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD);

	return nfhp_ruleset_entry_tree(rs, NFHP_HOOK_FORWARD,
				       nfhp_pageseq_get(e, pos - 1));
}

/* Append -s @addr/@len -j DROP to FORWARD; false on failure. */
static bool fold_append(struct nfhp_ruleset *rs, struct nfhp_rule_spec *r,
			u32 addr, u8 len)
{
	const char *msg = NULL;

	r->nmatch = 0;
	spec_prefix(r, NFHP_DIM_SRC, addr, len, false);
	return !nfhp_rule_append(rs, "FORWARD", r, NULL, &msg);
}

/*
 * Middle sources (a /16) share the narrow ones' tree while they nest few
 * of them (group.c): source class times three plus destination class,
 * here wide, so tree 6 folded and 3 apart.  The fold a build chose holds
 * for the rules updates add, until a check finds the nesting grown.
 */
static void test_fold(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	u32 copies = nfhp_tunables.fold_copies;
	u32 recheck = nfhp_tunables.fold_recheck;
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;
	bool ok = true;
	unsigned int i;

	nfhp_tunables.fold_copies = 1;
	nfhp_tunables.fold_recheck = NFHP_FOLD_RECHECK;
	check(!nfhp_txn_begin(rs), "fold: begin");
	ok &= fold_append(rs, r, ip(10, 1, 0, 0), 16);
	for (i = 0; i < 4; i++)
		ok &= fold_append(rs, r, ip(10, 2, 0, i), 32);
	check(ok && !nfhp_txn_commit(rs, &msg), "fold: commit 5 rules");
	check(fold_tree(rs, 1) == 6 && fold_tree(rs, 2) == 6,
	      "fold: a /16 nesting nothing is in the narrow tree (%u)",
	      fold_tree(rs, 1));
	r->nmatch = 0;
	spec_prefix(r, NFHP_DIM_SRC, ip(10, 3, 0, 0), 16, false);
	check(!nfhp_rule_insert(rs, "FORWARD", 1, r, NULL, &msg) &&
	      fold_tree(rs, 1) == 6,
	      "fold: a /16 inserted goes where the build put the others");
	nfhp_tunables.fold_recheck = 1;
	for (i = 0; i < 20 && ok; i++)
		ok &= fold_append(rs, r, ip(10, 1, 0, i), 32);
	for (i = 0; i < 10 && ok; i++)
		ok &= fold_append(rs, r, ip(10, 1, 0, 0), 16);
	check(ok, "fold: 20 /32 and 10 /16 appended");
	check(fold_tree(rs, 1) == 3 && fold_tree(rs, 2) == 3 &&
	      fold_tree(rs, 3) == 6,
	      "fold: /16 nesting many /32 get a tree of their own (%u)",
	      fold_tree(rs, 1));
	key_init(&k);
	k.v[NFHP_DIM_SRC] = ip(10, 2, 0, 3);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_DROP && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 6,
	      "fold: 10.2.0.3 still decided by rule 6");
	nfhp_tunables.fold_copies = copies;
	nfhp_tunables.fold_recheck = recheck;
	nfhp_ruleset_free(rs);
	free(r);
}

/*
 * The fold counts the places where narrow sources begin inside a middle
 * one, not their rules: 12 rules from one /32 inside three /16 are three
 * copies, where 12 distinct /32 are 36.  The check of a built hook
 * changes its fold only past twice the bound (one per entry of the hook)
 * or below half of it: 20 copies (ten /32 in two /16) for 13 or 14
 * entries keep the fold, 36 for 17 do not.
 */
static void test_fold_places(void)
{
	static const struct {
		unsigned int middle, narrow, places, tree;
		const char *what;
	} t[] = {
		{ 3, 12, 1, 6, "twelve rules from one /32 in three /16 fold" },
		{ 2, 10, 10, 6, "ten distinct /32 in two /16 stay folded" },
		{ 3, 12, 12, 3, "twelve distinct /32 in three /16 unfold" },
	};
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	u32 recheck = nfhp_tunables.fold_recheck;
	const char *msg = NULL;
	unsigned int c, i;
	bool ok = true;

	/* A first commit updates the empty trees: the next one's check. */
	nfhp_tunables.fold_recheck = 1;
	for (c = 0; c < ARRAY_SIZE(t); c++) {
		struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);

		check(!nfhp_txn_begin(rs), "fold places: begin");
		for (i = 0; i < t[c].middle; i++)
			ok &= fold_append(rs, r, ip(10, 1, 0, 0), 16);
		for (i = 0; i < t[c].narrow; i++)
			ok &= fold_append(rs, r, ip(10, 1, 0, i % t[c].places),
					  32);
		check(ok && !nfhp_txn_commit(rs, &msg),
		      "fold places: commit");
		/* Checks read the committed entries, every n / 8 commits. */
		ok &= fold_append(rs, r, ip(10, 9, 0, 0), 32);
		ok &= fold_append(rs, r, ip(10, 9, 0, 1), 32);
		check(ok && fold_tree(rs, 1) == t[c].tree,
		      "fold places: %s (tree %u)", t[c].what,
		      fold_tree(rs, 1));
		nfhp_ruleset_free(rs);
	}
	nfhp_tunables.fold_recheck = recheck;
	free(r);
}

/*
 * A build that would run off the kernel stack gives up instead: the
 * commit fails with a message and the old rules stay.  The shim's stack
 * base is moved up to just below this frame to get there.
 */
static void test_stack_guard(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	const char *msg = NULL;
	char here;
	int err;

	spec_range(r, NFHP_DIM_PROTO, 6, 6, false);
	check(!nfhp_rule_append(rs, "FORWARD", r, NULL, &msg),
	      "stack: -A FORWARD -p tcp -j DROP");
	r->nmatch = 0;
	spec_range(r, NFHP_DIM_PROTO, 17, 17, false);
	spec_range(r, NFHP_DIM_DPORT, 53, 53, false);
	nfhp_shim_stack_base = (unsigned long)&here - 4096;
	err = nfhp_rule_append(rs, "FORWARD", r, NULL, &msg);
	nfhp_shim_stack_base = 0;
	check(err == -E2BIG && msg && strstr(msg, "stack"),
	      "stack: too little left: %d (%s)", err, msg ? msg : "");
	check(nfhp_chain_rules(nfhp_chain_find(rs, "FORWARD")) == 1 &&
	      proto_decided(rs, 6, NFHP_ACT_DROP, 1) &&
	      proto_decided(rs, 17, NFHP_ACT_ACCEPT, 0),
	      "stack: the old rule set stays");
	check(!nfhp_rule_append(rs, "FORWARD", r, NULL, &msg),
	      "stack: with room, the same rule goes in");
	nfhp_ruleset_free(rs);
	free(r);
}

/*
 * Deferred release: a commit returns with what it replaced still there for
 * packets that may be inside the old tables; nfhp_ruleset_release() frees
 * it only once a grace period has passed since.
 */
static void test_deferred_release(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	const char *msg = NULL;
	struct nfhp_verdict v;
	struct nfhp_key k;
	u64 used;
	int i;

	spec_range(r, NFHP_DIM_PROTO, 17, 17, false);
	nfhp_ruleset_defer_release(rs, true);
	check(!nfhp_ruleset_release(rs, false), "nothing to release at first");
	for (i = 0; i < 3; i++)
		check(!nfhp_rule_append(rs, "INPUT", r, NULL, &msg),
		      "-A INPUT -p udp -j DROP, commit %d", i + 1);
	check(!nfhp_rule_delete(rs, "INPUT", 1, &msg), "-D INPUT 1");
	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 17;
	classify(rs, NFHP_HOOK_INPUT, &k, &v);
	check(v.action == NFHP_ACT_DROP && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 1, "udp dropped by rule 1");
	used = nfhp_ruleset_mem_used(rs);
	check(nfhp_ruleset_release(rs, false) &&
	      nfhp_ruleset_mem_used(rs) == used,
	      "no grace period yet: the four commits' records stay");
	synchronize_rcu();
	check(!nfhp_rule_delete(rs, "INPUT", 1, &msg), "-D INPUT 1 again");
	check(nfhp_ruleset_release(rs, false) &&
	      nfhp_ruleset_mem_used(rs) < used,
	      "after a grace period the older records go, the newest stays");
	synchronize_rcu();
	check(!nfhp_ruleset_release(rs, false), "and then it goes too");
	classify(rs, NFHP_HOOK_INPUT, &k, &v);
	check(v.action == NFHP_ACT_DROP && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 1, "udp still dropped");
	check(!nfhp_rule_append(rs, "INPUT", r, NULL, &msg),
	      "a last commit, left for nfhp_ruleset_free()");
	nfhp_ruleset_free(rs);
	free(r);
}

static void count_shadow(void *ctx, const struct nfhp_rule *r)
{
	(*(int *)ctx)++;
}

/*
 * The counters a transaction gives a policy (iptables-restore's [p:b], or
 * zero), and its -Z, hold once it is published: one that is aborted, or
 * whose commit fails, leaves the counters.
 */
/*
 * A jump renamed with its chain shares the committed jump's counter
 * (nfhp_rule_retarget()): -Z of it in a transaction must wait as well.
 */
static void test_renamed_jump_counter(struct nfhp_ruleset *rs)
{
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_counter sum;
	const char *msg = NULL;
	bool ok;

	strcpy(jump->target, "U");
	spec_prefix(jump, NFHP_DIM_SRC, ip(10, 9, 0, 0), 16, false);
	ok = !nfhp_chain_new(rs, "U", &msg) &&
	     !nfhp_rule_insert(rs, "FORWARD", 1, jump, NULL, &msg) &&
	     src_decided(rs, ip(10, 9, 0, 1), NFHP_ACT_ACCEPT, "FORWARD", 2);
	ok = ok && !nfhp_txn_begin(rs) &&
	     !nfhp_chain_rename(rs, "U", "V", &msg) &&
	     !nfhp_counters_zero(rs, "FORWARD", 1, &msg);
	nfhp_txn_abort(rs);
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1),
			  &sum);
	check(ok && sum.packets == 1,
	      "-Z of a jump renamed in an aborted transaction: the jump's "
	      "counter stays (%llu packets)", (unsigned long long)sum.packets);
	ok = !nfhp_txn_begin(rs) && !nfhp_chain_rename(rs, "U", "V", &msg) &&
	     !nfhp_counters_zero(rs, "FORWARD", 1, &msg) &&
	     !nfhp_txn_commit(rs, &msg);
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1),
			  &sum);
	check(ok && !sum.packets, "in a committed one: zero");
	free(jump);
}

static void test_policy_counters(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	const struct nfhp_counter given = { .packets = 7, .bytes = 700 };
	struct nfhp_counter sum;
	struct nfhp_verdict v;
	struct nfhp_key k;
	const char *msg = NULL;
	int i, failed = 0, wrong = 0;
	bool ok;

	key_init(&k);
	ok = !nfhp_chain_policy(rs, "FORWARD", NFHP_ACT_ACCEPT, NULL, &msg);
	for (i = 0; i < 3; i++)
		classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	ok = ok && !nfhp_txn_begin(rs) &&
	     !nfhp_chain_policy(rs, "FORWARD", NFHP_ACT_DROP, &given, &msg);
	nfhp_txn_abort(rs);
	nfhp_chain_policy_counter(nfhp_chain_find(rs, "FORWARD"), &sum);
	check(ok && sum.packets == 3 && sum.bytes == 300,
	      "counters given to a policy in an aborted transaction: the "
	      "policy's stay (%llu packets)", (unsigned long long)sum.packets);
	for (i = 1; i < 400; i++) {
		nfhp_shim_fail_countdown = i;
		ok = !nfhp_chain_policy(rs, "FORWARD", NFHP_ACT_DROP, &given,
					&msg);
		nfhp_shim_fail_countdown = 0;
		if (ok)
			break;
		failed++;
		nfhp_chain_policy_counter(nfhp_chain_find(rs, "FORWARD"), &sum);
		wrong += sum.packets != 3;
	}
	check(failed && !wrong, "%d commits failed by injected ENOMEM: the "
	      "policy's counters stay", failed);
	nfhp_chain_policy_counter(nfhp_chain_find(rs, "FORWARD"), &sum);
	check(ok && sum.packets == 7 && sum.bytes == 700,
	      "in a committed one: the policy's counters are those given");

	/* -Z in a transaction waits for it too. */
	ok = src_rule(rs, "FORWARD", 0, ip(10, 0, 0, 0), 8, NFHP_ACT_ACCEPT);
	k.v[NFHP_DIM_SRC] = ip(10, 1, 1, 1);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	ok = ok && !nfhp_txn_begin(rs) &&
	     !nfhp_counters_zero(rs, "FORWARD", 0, &msg);
	nfhp_txn_abort(rs);
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1),
			  &sum);
	ok = ok && sum.packets == 2;
	nfhp_chain_policy_counter(nfhp_chain_find(rs, "FORWARD"), &sum);
	check(ok && sum.packets == 7,
	      "-Z in an aborted transaction: the counters stay");
	ok = !nfhp_txn_begin(rs) &&
	     !nfhp_counters_zero(rs, "FORWARD", 0, &msg) &&
	     !nfhp_txn_commit(rs, &msg);
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1),
			  &sum);
	ok = ok && !sum.packets;
	nfhp_chain_policy_counter(nfhp_chain_find(rs, "FORWARD"), &sum);
	check(ok && !sum.packets, "-Z in a committed one: zero");
	test_renamed_jump_counter(rs);
	nfhp_ruleset_free(rs);
}

/*
 * A rule a transaction made dies when the same transaction deletes or
 * replaces it: its chain's jump counts are taken off before, not read
 * from the freed rule (fuzz_restore found it, -A then -D of a jump).
 */
static void test_created_rule_gone(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_rule_spec *drop = spec_new(NFHP_ACT_DROP);
	struct nfhp_rule_spec *acc = spec_new(NFHP_ACT_ACCEPT);
	const char *msg = NULL;
	bool ok;

	strcpy(jump->target, "U");
	spec_prefix(jump, NFHP_DIM_SRC, ip(10, 9, 0, 0), 16, false);
	spec_prefix(drop, NFHP_DIM_SRC, ip(10, 9, 1, 0), 24, false);
	spec_prefix(acc, NFHP_DIM_SRC, ip(10, 9, 0, 0), 16, false);
	ok = !nfhp_chain_new(rs, "U", &msg) &&
	     !nfhp_rule_insert(rs, "U", 1, drop, NULL, &msg);
	ok = ok && !nfhp_txn_begin(rs) &&
	     !nfhp_rule_insert(rs, "FORWARD", 1, jump, NULL, &msg) &&
	     !nfhp_rule_delete(rs, "FORWARD", 1, &msg) &&
	     !nfhp_rule_insert(rs, "FORWARD", 1, jump, NULL, &msg) &&
	     !nfhp_rule_replace(rs, "FORWARD", 1, acc, &msg) &&
	     !nfhp_rule_insert(rs, "FORWARD", 1, jump, NULL, &msg) &&
	     !nfhp_txn_commit(rs, &msg);
	check(ok && nfhp_chain_rules(nfhp_chain_find(rs, "FORWARD")) == 2,
	      "-I, -D, -I, -R, -I of jumps in one transaction: two rules (%s)",
	      msg ? msg : "");
	check(src_decided(rs, ip(10, 9, 1, 1), NFHP_ACT_DROP, "U", 1) &&
	      src_decided(rs, ip(10, 9, 2, 1), NFHP_ACT_ACCEPT, "FORWARD", 2),
	      "the jump, then the rule that replaced the deleted one");
	ok = !nfhp_rule_delete(rs, "FORWARD", 1, &msg) &&
	     src_decided(rs, ip(10, 9, 1, 1), NFHP_ACT_ACCEPT, "FORWARD", 1) &&
	     !nfhp_rule_delete(rs, "FORWARD", 1, &msg) &&
	     !nfhp_chain_rules(nfhp_chain_find(rs, "FORWARD"));
	check(ok, "then both deleted, one at a time (%s)", msg ? msg : "");
	nfhp_ruleset_free(rs);
	free(jump);
	free(drop);
	free(acc);
}

/*
 * Two rule sets, one per family, commit together: each is prepared, and
 * only when both are is either published.  A prepared commit that is
 * dropped leaves the old rules in force and gives its memory back.
 */
static void test_txn_prepare_unprepare(void)
{
	struct nfhp_ruleset *v4 = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_ruleset *v6 = nfhp_ruleset_new(NFHP_FAMILY_IPV6, ~0ull);
	struct nfhp_rule_spec *drop = spec_new(NFHP_ACT_DROP);
	struct nfhp_verdict v;
	const char *msg = "";
	struct nfhp_key k;
	u64 used;
	int h;

	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 17;
	spec_range(drop, NFHP_DIM_PROTO, 17, 17, false);
	/* A first transaction, aborted, leaves what any abort keeps. */
	check(!nfhp_txn_begin(v4) &&
	      !nfhp_rule_append(v4, "FORWARD", drop, NULL, &msg),
	      "staged and aborted: %s", msg);
	nfhp_txn_abort(v4);
	nfhp_ruleset_release(v4, true);
	used = nfhp_ruleset_mem_used(v4);
	check(!nfhp_txn_begin(v4) &&
	      !nfhp_rule_append(v4, "FORWARD", drop, NULL, &msg) &&
	      !nfhp_chain_policy(v4, "INPUT", NFHP_ACT_DROP, NULL, &msg),
	      "staged: %s", msg);
	check(!nfhp_txn_prepare(v4, &msg), "prepared: %s", msg);
	check(nfhp_txn_prepare(v4, &msg) == -EINVAL, "prepared once only");
	nfhp_txn_unprepare(v4);
	check(!nfhp_txn_active(v4), "unprepare aborts the transaction");
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		classify(v4, h, &k, &v);
		check(v.action == NFHP_ACT_ACCEPT && !v.rule,
		      "hook %d: the old rules hold", h);
	}
	nfhp_ruleset_release(v4, true);
	check(nfhp_ruleset_mem_used(v4) == used,
	      "unprepared commit freed: %llu bytes, %llu after an abort",
	      (unsigned long long)nfhp_ruleset_mem_used(v4),
	      (unsigned long long)used);

	check(!nfhp_txn_begin(v4) && !nfhp_txn_begin(v6) &&
	      !nfhp_rule_append(v4, "FORWARD", drop, NULL, &msg) &&
	      !nfhp_rule_append(v6, "FORWARD", drop, NULL, &msg),
	      "both staged: %s", msg);
	check(!nfhp_txn_prepare(v4, &msg) && !nfhp_txn_prepare(v6, &msg),
	      "both prepared: %s", msg);
	classify(v4, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT, "prepared is not published");
	nfhp_txn_finish(v4);
	nfhp_txn_finish(v6);
	classify(v4, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_DROP, "IPv4 published");
	classify(v6, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_DROP, "IPv6 published");
	nfhp_ruleset_free(v4);
	nfhp_ruleset_free(v6);
	free(drop);
}

static void test_txn_and_errors(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *acc = spec_new(NFHP_ACT_ACCEPT);
	struct nfhp_rule_spec *drop = spec_new(NFHP_ACT_DROP);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_counter c;
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;
	int shadowed = 0, err;

	key_init(&k);
	spec_range(drop, NFHP_DIM_PROTO, 17, 17, false);
	check(!nfhp_rule_append(rs, "FORWARD", drop, NULL, &msg), "append");
	err = nfhp_rule_append(rs, "nosuch", drop, NULL, &msg);
	check(err == -ENOENT, "append to missing chain: %s", msg);
	err = nfhp_rule_insert(rs, "FORWARD", 3, drop, NULL, &msg);
	check(err == -E2BIG, "insert past end: %s", msg);
	check(!nfhp_chain_new(rs, "user", &msg), "new chain");
	check(nfhp_chain_new(rs, "user", &msg) == -EEXIST, "chain exists");
	strcpy(jump->target, "user");
	check(!nfhp_rule_append(rs, "user", acc, NULL, &msg), "user ACCEPT");
	check(!nfhp_rule_insert(rs, "FORWARD", 1, jump, NULL, &msg),
	      "jump to user");
	err = nfhp_chain_delete(rs, "user", &msg);
	check(err == -EMLINK, "referenced chain: %s", msg);
	err = nfhp_rule_append(rs, "user", jump, NULL, &msg);
	check(err == -ELOOP, "loop refused: %s", msg);
	/* As iptables: a loop no hook reaches stands until one does. */
	strcpy(jump->target, "self");
	check(!nfhp_chain_new(rs, "self", &msg) &&
	      !nfhp_rule_append(rs, "self", jump, NULL, &msg),
	      "a loop no hook reaches is taken: %s", msg);
	check(!nfhp_chain_rename(rs, "self", "self2", &msg),
	      "its chain renamed");
	strcpy(jump->target, "self2");
	err = nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg);
	check(err == -ELOOP, "a jump from a hook into it refused: %s", msg);
	check(nfhp_ruleset_nrules(rs) == 4, "the refused jump is not in");
	check(!nfhp_rule_delete(rs, "self2", 1, &msg) &&
	      !nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg) &&
	      !nfhp_rule_delete(rs, "FORWARD", 3, &msg) &&
	      !nfhp_chain_delete(rs, "self2", &msg),
	      "without the loop the jump is taken: %s", msg);
	strcpy(jump->target, "user");

	k.v[NFHP_DIM_PROTO] = 17;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && v.rule &&
	      !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), "user") &&
	      nfhp_rule_position(rs, v.rule) == 1, "decided in user chain");
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1), &c);
	check(c.packets == 1 && c.bytes == 100, "jump rule counted");
	check(!nfhp_shadowed_rules(rs, count_shadow, &shadowed) &&
	      shadowed == 1, "the DROP after the jump is shadowed");

	check(!nfhp_txn_begin(rs), "begin");
	check(nfhp_txn_begin(rs) == -EBUSY, "nested begin refused");
	check(!nfhp_chain_flush(rs, NULL, &msg), "flush in txn");
	check(!nfhp_chain_policy(rs, "FORWARD", NFHP_ACT_DROP, NULL, &msg),
	      "policy in txn");
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT, "staged changes invisible");
	nfhp_txn_abort(rs);
	check(nfhp_ruleset_nrules(rs) == 3, "abort keeps the rules");

	check(!nfhp_chain_rename(rs, "user", "other", &msg), "rename");
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && v.rule &&
	      !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), "other"),
	      "jump follows the rename");
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1), &c);
	check(c.packets == 3, "renamed jump keeps its counter");
	/* A jump added and its chain renamed in one transaction. */
	check(!nfhp_txn_begin(rs), "begin for rename");
	check(!nfhp_chain_new(rs, "fresh", &msg), "new chain in txn");
	strcpy(jump->target, "fresh");
	check(!nfhp_rule_append(rs, "INPUT", jump, NULL, &msg),
	      "jump added in txn");
	check(!nfhp_chain_rename(rs, "fresh", "renamed", &msg),
	      "rename the chain of a jump added in the same txn");
	check(!nfhp_txn_commit(rs, &msg), "commit the rename");
	check(nfhp_chain_refs(nfhp_chain_find(rs, "renamed")) == 1,
	      "the new jump follows the rename");
	check(!nfhp_rule_delete_spec(rs, "FORWARD", drop, &msg),
	      "delete by spec");
	err = nfhp_rule_delete_spec(rs, "FORWARD", drop, &msg);
	check(err == -ENOENT, "delete missing spec: %s", msg);
	nfhp_ruleset_free(rs);
	free(acc);
	free(drop);
	free(jump);
}

/*
 * Extensions valid at OUTPUT only, as -m owner: the checks record the
 * hooks they were given.
 */
static unsigned int hooks_checked;

static int out_create(void *priv, const struct nfhp_rule_spec *spec,
		      unsigned int hooks, void **ext, bool *matches,
		      const char **msg)
{
	hooks_checked = hooks;
	if (hooks & ~(1u << NFHP_HOOK_OUTPUT)) {
		*msg = "only valid at OUTPUT";
		return -EINVAL;
	}
	*ext = malloc(1);
	*matches = true;
	return *ext ? 0 : -ENOMEM;
}

static void out_destroy(void *priv, void *ext)
{
	free(ext);
}

static enum nfhp_ext_result out_match(const void *ext, void *pkt)
{
	return NFHP_EXT_MATCH;
}

static u32 out_target(const void *ext, void *pkt)
{
	return NFHP_EXT_CONTINUE;
}

static bool out_rekey(void *pkt, struct nfhp_key *key)
{
	return false;
}

static unsigned int out_hooks(const void *ext)
{
	return 1u << NFHP_HOOK_OUTPUT;
}

static const struct nfhp_ext_ops out_ops = {
	.create = out_create, .destroy = out_destroy, .match = out_match,
	.target = out_target, .rekey = out_rekey, .hooks = out_hooks,
};

/*
 * A rule of a user chain is checked for the hooks that reach the chain
 * when it is added (none yet: as iptables checks an unreferenced chain);
 * a later jump from a hook its extensions are not valid at fails the
 * commit and leaves the rule set as it was.
 */
static void test_ext_hooks(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *own = spec_new(NFHP_ACT_DROP);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;
	int err;

	nfhp_ruleset_set_ext(rs, &out_ops, NULL);
	key_init(&k);
	own->ext_len = 1;
	strcpy(jump->target, "U");
	check(!nfhp_chain_new(rs, "U", &msg), "hooks: new chain");
	check(!nfhp_rule_append(rs, "U", own, NULL, &msg) &&
	      hooks_checked == 0, "hooks: unreferenced chain checked for none");
	check(!nfhp_rule_append(rs, "OUTPUT", jump, NULL, &msg),
	      "hooks: jump from OUTPUT");
	check(!nfhp_rule_append(rs, "U", own, NULL, &msg) &&
	      hooks_checked == 1u << NFHP_HOOK_OUTPUT,
	      "hooks: chain reached from OUTPUT checked for it");
	err = nfhp_rule_append(rs, "U", jump, NULL, &msg);
	check(err == -ELOOP, "hooks: loop still refused: %s", msg);
	err = nfhp_rule_append(rs, "INPUT", jump, NULL, &msg);
	check(err == -EINVAL && nfhp_chain_rules(nfhp_chain_find(rs, "INPUT")) == 0,
	      "hooks: jump from INPUT refused at commit: %s", msg);
	err = nfhp_rule_append(rs, "INPUT", own, NULL, &msg);
	check(err == -EINVAL, "hooks: rule in INPUT refused: %s", msg);
	classify(rs, NFHP_HOOK_OUTPUT, &k, &v);
	check(v.action == NFHP_ACT_DROP && v.rule &&
	      !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), "U"),
	      "hooks: OUTPUT still goes through U");
	classify(rs, NFHP_HOOK_INPUT, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && !v.rule,
	      "hooks: INPUT still has no rule");
	/* Dropped in the same transaction, the jump is fine. */
	check(!nfhp_txn_begin(rs), "hooks: begin");
	check(!nfhp_rule_append(rs, "INPUT", jump, NULL, &msg) &&
	      !nfhp_chain_flush(rs, "U", &msg) &&
	      !nfhp_txn_commit(rs, &msg),
	      "hooks: jump from INPUT once U is flushed");
	own->ext_len = 0;
	check(!nfhp_rule_append(rs, "U", own, NULL, &msg),
	      "hooks: plain rule in U");
	own->ext_len = 1;
	err = nfhp_rule_append(rs, "U", own, NULL, &msg);
	check(err == -EINVAL, "hooks: U reached from INPUT refuses it: %s",
	      msg);
	nfhp_ruleset_free(rs);
	free(own);
	free(jump);
}

/* An xtables target that sets the mark to the packet's new_mark, as MARK. */
struct mark_pkt {
	u32 mark;
	u32 new_mark;
};

static int mark_create(void *priv, const struct nfhp_rule_spec *spec,
		       unsigned int hooks, void **ext, bool *matches,
		       const char **msg)
{
	*ext = malloc(1);
	*matches = true;
	return *ext ? 0 : -ENOMEM;
}

static u32 mark_target(const void *ext, void *pkt)
{
	struct mark_pkt *p = pkt;

	p->mark = p->new_mark;
	return NFHP_EXT_CONTINUE;
}

static bool mark_rekey(void *pkt, struct nfhp_key *key)
{
	key->v[NFHP_DIM_MARK] = ((struct mark_pkt *)pkt)->mark;
	return true;
}

static const struct nfhp_ext_ops mark_ops = {
	.create = mark_create, .destroy = out_destroy, .match = out_match,
	.target = mark_target, .rekey = mark_rekey,
};

/*
 * -A FORWARD -m mark --mark 0x80000/0x80000 -j U
 * -A U -j MARK --set-mark 5
 * -A U -m mark --mark 0x4/0xfffffffc -j DROP
 * The jump excludes the last rule's mark, so no tree may hold it; after
 * the MARK target it matches, and iptables drops.
 */
static void test_mark_reaches_excluded_rule(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_rule_spec *mark = spec_new(NFHP_ACT_XT);
	struct nfhp_rule_spec *drop = spec_new(NFHP_ACT_DROP);
	struct mark_pkt pkt = { .mark = 0x80000, .new_mark = 5 };
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;

	nfhp_ruleset_set_ext(rs, &mark_ops, NULL);
	key_init(&k);
	k.v[NFHP_DIM_MARK] = pkt.mark;
	spec_range(jump, NFHP_DIM_MARK, 0x80000, 0xfffff, false);
	strcpy(jump->target, "U");
	mark->ext_len = 1;
	spec_range(drop, NFHP_DIM_MARK, 4, 7, false);
	check(!nfhp_chain_new(rs, "U", &msg) &&
	      !nfhp_rule_append(rs, "U", mark, NULL, &msg) &&
	      !nfhp_rule_append(rs, "U", drop, NULL, &msg) &&
	      !nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg),
	      "mark: rules load: %s", msg);
	nfhp_classify(rs, NFHP_HOOK_FORWARD, folded(&k), 100, &pkt, &v);
	check(v.action == NFHP_ACT_DROP && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 2,
	      "mark: the rule the jump excluded drops after MARK");
	pkt.mark = 0x80000;
	pkt.new_mark = 9;
	nfhp_classify(rs, NFHP_HOOK_FORWARD, folded(&k), 100, &pkt, &v);
	check(v.action == NFHP_ACT_ACCEPT && !v.rule,
	      "mark: another mark falls through to the policy");
	nfhp_ruleset_free(rs);
	free(jump);
	free(mark);
	free(drop);
}

/*
 * -A FORWARD -s 10.0.0.0/8 -j A
 * -A A -p tcp -m EXT -g G
 * -A FORWARD -s 10.0.9.0/24 -j ACCEPT
 * -A G -s 10.0.1.0/24 -j DROP
 * The goto, decided at packet time, skips G when EXT does not match; its
 * entry has a box of its own (10.0.0.0/8 and tcp), and so has G's
 * implicit RETURN.  A rule inserted just behind the jump to A moves the
 * scope ends of both: the update replaces their entries by copies, which
 * must not point into the box freed with the goto's replaced entry (the
 * next update reads it).
 */
static void test_goto_scope_update(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_rule_spec *go = spec_new(NFHP_ACT_GOTO);
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;
	bool ok;

	nfhp_ruleset_set_ext(rs, &mark_ops, NULL);
	spec_prefix(jump, NFHP_DIM_SRC, ip(10, 0, 0, 0), 8, false);
	strcpy(jump->target, "A");
	spec_range(go, NFHP_DIM_PROTO, 6, 6, false);
	go->ext_len = 1;
	strcpy(go->target, "G");
	ok = !nfhp_txn_begin(rs) && !nfhp_chain_new(rs, "A", &msg) &&
	     !nfhp_chain_new(rs, "G", &msg) &&
	     src_rule(rs, "G", 0, ip(10, 0, 1, 0), 24, NFHP_ACT_DROP) &&
	     !nfhp_rule_append(rs, "A", go, NULL, &msg) &&
	     !nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg) &&
	     src_rule(rs, "FORWARD", 0, ip(10, 0, 9, 0), 24,
		      NFHP_ACT_ACCEPT) &&
	     !nfhp_txn_commit(rs, &msg);
	check(ok, "goto scope: rules load: %s", msg);
	ok = src_rule(rs, "G", 0, ip(10, 0, 2, 0), 24, NFHP_ACT_DROP) &&
	     nfhp_ruleset_flattened(rs) == 1 &&
	     src_rule(rs, "FORWARD", 2, ip(10, 0, 8, 0), 24,
		      NFHP_ACT_ACCEPT) &&
	     nfhp_ruleset_flattened(rs) == 1 &&
	     src_rule(rs, "G", 0, ip(10, 0, 3, 0), 24, NFHP_ACT_DROP);
	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 6;
	k.v[NFHP_DIM_SRC] = ip(10, 0, 3, 1);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	ok = ok && v.rule && v.action == NFHP_ACT_DROP &&
	     nfhp_rule_position(rs, v.rule) == 3;
	k.v[NFHP_DIM_SRC] = ip(10, 0, 2, 1);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(ok && v.rule && v.action == NFHP_ACT_DROP &&
	      nfhp_rule_position(rs, v.rule) == 2,
	      "goto scope: a rule inserted behind the jump, one entry "
	      "flattened, the copies' boxes still there for the next update");
	free(go);
	free(jump);
	nfhp_ruleset_free(rs);
}

/*
 * The updates of one commit share a build's budget: with 30 visits for a
 * tree, a commit of one rule updates the tree, one of 40 rules, each of
 * whose updates would fit alone, gives up and builds it anew (a budget per
 * update made a restore of a firewall of tested leaves ten builds long).
 */
static void test_update_budget_shared(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	const char *msg = NULL;
	unsigned int i;
	u64 before;
	bool ok;

	ok = !nfhp_txn_begin(rs);
	for (i = 0; i < 200 && ok; i++)
		ok = src_rule(rs, "FORWARD", 0, ip(10, 1, i, 0), 24,
			      NFHP_ACT_DROP);
	ok = ok && !nfhp_txn_commit(rs, &msg);
	check(ok, "update budget: 200 rules load: %s", msg);
	nfhp_tunables.update_visits_min = 30;
	nfhp_tunables.update_visits_per_entry = 0;
	before = nfhp_ruleset_updates_given_up(rs);
	ok = src_rule(rs, "FORWARD", 0, ip(10, 2, 0, 0), 24, NFHP_ACT_DROP);
	check(ok && nfhp_ruleset_updates_given_up(rs) == before &&
	      nfhp_ruleset_flattened(rs) == 1,
	      "update budget: one rule updates the tree");
	ok = !nfhp_txn_begin(rs);
	for (i = 0; i < 40 && ok; i++)
		ok = src_rule(rs, "FORWARD", 0, ip(10, 3, i, 0), 24,
			      NFHP_ACT_DROP);
	ok = ok && !nfhp_txn_commit(rs, &msg);
	check(ok && nfhp_ruleset_updates_given_up(rs) == before + 1,
	      "update budget: 40 rules in one commit give up once (%llu): %s",
	      (unsigned long long)(nfhp_ruleset_updates_given_up(rs) - before),
	      msg);
	check(src_decided(rs, ip(10, 3, 39, 1), NFHP_ACT_DROP, "FORWARD", 241) &&
	      src_decided(rs, ip(10, 1, 7, 1), NFHP_ACT_DROP, "FORWARD", 8),
	      "update budget: the tree built anew decides as before");
	nfhp_tunables.update_visits_min = NFHP_UPDATE_VISITS_MIN;
	nfhp_tunables.update_visits_per_entry = NFHP_UPDATE_VISITS_PER_ENTRY;
	nfhp_ruleset_free(rs);
}

/*
 * -A FORWARD -j MARK --set-mark 5
 * -A FORWARD -s 10.0.0.0/8 -j U
 * -A U -s 192.168.0.0/16 -j DROP
 * -A U -s 10.1.0.0/16 -j DROP
 * A target may change the mark, nothing else: U's first rule, which the
 * jump excludes by its source, never matches, so it is no entry at all,
 * not a void one, and the hook updates in place.
 */
static void test_target_keeps_other_exclusions(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_rule_spec *mark = spec_new(NFHP_ACT_XT);
	struct mark_pkt pkt = { .mark = 0, .new_mark = 5 };
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;
	bool ok;

	nfhp_ruleset_set_ext(rs, &mark_ops, NULL);
	mark->ext_len = 1;
	spec_prefix(jump, NFHP_DIM_SRC, ip(10, 0, 0, 0), 8, false);
	strcpy(jump->target, "U");
	ok = !nfhp_txn_begin(rs) && !nfhp_chain_new(rs, "U", &msg) &&
	     src_rule(rs, "U", 0, ip(192, 168, 0, 0), 16, NFHP_ACT_DROP) &&
	     src_rule(rs, "U", 0, ip(10, 1, 0, 0), 16, NFHP_ACT_DROP) &&
	     !nfhp_rule_append(rs, "FORWARD", mark, NULL, &msg) &&
	     !nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg) &&
	     !nfhp_txn_commit(rs, &msg);
	check(ok, "excluded by source: rules load: %s", msg);
	ok = src_rule(rs, "FORWARD", 0, ip(10, 2, 0, 0), 16, NFHP_ACT_DROP);
	check(ok && nfhp_ruleset_flattened(rs) == 1,
	      "excluded by source: a rule appended, one entry flattened (%u)",
	      nfhp_ruleset_flattened(rs));
	key_init(&k);
	k.v[NFHP_DIM_SRC] = ip(192, 168, 0, 1);
	nfhp_classify(rs, NFHP_HOOK_FORWARD, folded(&k), 100, &pkt, &v);
	ok = v.action == NFHP_ACT_ACCEPT && !v.rule;
	k.v[NFHP_DIM_SRC] = ip(10, 1, 0, 1);
	nfhp_classify(rs, NFHP_HOOK_FORWARD, folded(&k), 100, &pkt, &v);
	ok = ok && v.action == NFHP_ACT_DROP && v.rule &&
	     nfhp_rule_position(rs, v.rule) == 2;
	k.v[NFHP_DIM_SRC] = ip(10, 2, 0, 1);
	nfhp_classify(rs, NFHP_HOOK_FORWARD, folded(&k), 100, &pkt, &v);
	check(ok && v.action == NFHP_ACT_DROP && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 3,
	      "excluded by source: verdicts after MARK as iptables gives them");
	nfhp_ruleset_free(rs);
	free(jump);
	free(mark);
}

/*
 * -A FORWARD -m mark --mark 0x80000/0x80000 -j U
 * -A U -j MARK --set-mark 5
 * -A U -m mark --mark 0x4/0xfffffffc -j V
 * -A V -p udp -j DROP
 * The same with a jump: the chain it excludes must still be walked after
 * the MARK target, and the jump counted.
 */
static void test_mark_reaches_excluded_jump(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_rule_spec *mark = spec_new(NFHP_ACT_XT);
	struct nfhp_rule_spec *inner = spec_new(NFHP_ACT_JUMP);
	struct nfhp_rule_spec *drop = spec_new(NFHP_ACT_DROP);
	struct mark_pkt pkt = { .mark = 0x80000, .new_mark = 5 };
	struct nfhp_counter sum;
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;

	nfhp_ruleset_set_ext(rs, &mark_ops, NULL);
	key_init(&k);
	k.v[NFHP_DIM_MARK] = pkt.mark;
	k.v[NFHP_DIM_PROTO] = 17;
	spec_range(jump, NFHP_DIM_MARK, 0x80000, 0xfffff, false);
	strcpy(jump->target, "U");
	mark->ext_len = 1;
	spec_range(inner, NFHP_DIM_MARK, 4, 7, false);
	strcpy(inner->target, "V");
	spec_range(drop, NFHP_DIM_PROTO, 17, 17, false);
	check(!nfhp_chain_new(rs, "U", &msg) && !nfhp_chain_new(rs, "V", &msg) &&
	      !nfhp_rule_append(rs, "V", drop, NULL, &msg) &&
	      !nfhp_rule_append(rs, "U", mark, NULL, &msg) &&
	      !nfhp_rule_append(rs, "U", inner, NULL, &msg) &&
	      !nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg),
	      "mark jump: rules load: %s", msg);
	nfhp_classify(rs, NFHP_HOOK_FORWARD, folded(&k), 100, &pkt, &v);
	check(v.action == NFHP_ACT_DROP && v.rule &&
	      !strcmp(nfhp_chain_name(nfhp_rule_chain(rs, v.rule)), "V"),
	      "mark jump: the chain the jump excluded drops after MARK");
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "U"), 2), &sum);
	check(sum.packets == 1, "mark jump: the excluded jump counted");
	pkt.mark = 0x80000;
	k.v[NFHP_DIM_PROTO] = 6;
	nfhp_classify(rs, NFHP_HOOK_FORWARD, folded(&k), 100, &pkt, &v);
	check(v.action == NFHP_ACT_ACCEPT && !v.rule,
	      "mark jump: tcp passes the chain to the policy");
	pkt.mark = 0x80000;
	pkt.new_mark = 9;
	k.v[NFHP_DIM_PROTO] = 17;
	nfhp_classify(rs, NFHP_HOOK_FORWARD, folded(&k), 100, &pkt, &v);
	check(v.action == NFHP_ACT_ACCEPT && !v.rule,
	      "mark jump: another mark does not take the jump");
	nfhp_ruleset_free(rs);
	free(jump);
	free(mark);
	free(inner);
	free(drop);
}

/* Every allocation of a commit can fail: the old rules stay in force. */
static void test_enomem(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *s = spec_new(NFHP_ACT_DROP);
	struct nfhp_verdict v;
	const char *msg;
	struct nfhp_key k;
	int i, failed = 0, wrong = 0, err;
	u64 used;

	spec_range(s, NFHP_DIM_DPORT, 1000, 2000, false);
	spec_range(s, NFHP_DIM_PROTO, 6, 6, false);
	for (i = 0; i < 20; i++)
		nfhp_rule_append(rs, "FORWARD", s, NULL, &msg);
	used = nfhp_ruleset_mem_used(rs);
	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 6;
	k.v[NFHP_DIM_DPORT] = 1500;
	for (i = 1; i < 400; i++) {
		nfhp_shim_fail_countdown = i;
		err = nfhp_chain_flush(rs, "FORWARD", &msg);
		nfhp_shim_fail_countdown = 0;
		if (!err)
			break;
		failed++;
		classify(rs, NFHP_HOOK_FORWARD, &k, &v);
		if (v.action != NFHP_ACT_DROP || nfhp_ruleset_nrules(rs) != 20)
			wrong++;
		/* Scratch arrays may keep their grown capacity, no more. */
		if (nfhp_ruleset_mem_used(rs) > used + 4096)
			wrong++;
	}
	check(failed > 3 && !wrong,
	      "%d injected failures, old rules intact after each", failed);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT, "flush finally went through");
	check(nfhp_ruleset_set_mem_limit(rs, 1) == -EINVAL,
	      "bound below use refused");
	check(!nfhp_ruleset_set_mem_limit(rs, nfhp_ruleset_mem_allocated(rs)),
	      "bound at use accepted");
	err = nfhp_rule_append(rs, "FORWARD", s, NULL, &msg);
	check(err == -ENOMEM, "bound enforced: %s", msg);
	nfhp_ruleset_free(rs);
	free(s);
}

/* FORWARD's rules as the ports they drop, 0 for the policy's. */
static void drops_of(struct nfhp_ruleset *rs, u32 *port, unsigned int n)
{
	struct nfhp_verdict v;
	struct nfhp_key k;
	unsigned int i, j = 0;

	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 6;
	for (i = 0; i < n; i++)
		port[i] = 0;
	for (i = 1000; i < 1040 && j < n; i++) {
		k.v[NFHP_DIM_DPORT] = i;
		classify(rs, NFHP_HOOK_FORWARD, &k, &v);
		if (v.action == NFHP_ACT_DROP)
			port[j++] = i;
	}
}

/*
 * An insert or delete that fails inside a transaction leaves its chain as
 * it was: the new rule is freed, the old one not retired, and the staged
 * chain, whose pages of rules it shares with the committed one until it
 * changes them (pageseq.c), holds the same rules.
 */
static void test_change_enomem(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	const struct nfhp_chain *c;
	const struct nfhp_rule *at;
	struct nfhp_rule_spec *s;
	const char *msg;
	u32 port[24];
	int i, err, failed = 0, wrong = 0;
	u64 used;

	for (i = 0; i < 20; i++) {
		s = spec_new(NFHP_ACT_DROP);
		spec_range(s, NFHP_DIM_PROTO, 6, 6, false);
		spec_range(s, NFHP_DIM_DPORT, 1000 + i, 1000 + i, false);
		nfhp_rule_append(rs, "FORWARD", s, NULL, &msg);
		free(s);
	}
	/* What a commit that changes nothing keeps, as the loop's do. */
	nfhp_txn_begin(rs);
	nfhp_txn_commit(rs, &msg);
	nfhp_ruleset_release(rs, true);
	used = nfhp_ruleset_mem_used(rs);
	s = spec_new(NFHP_ACT_DROP);
	spec_range(s, NFHP_DIM_PROTO, 6, 6, false);
	spec_range(s, NFHP_DIM_DPORT, 1030, 1030, false);
	for (i = 1; i < 100; i++) {
		nfhp_txn_begin(rs);
		at = nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 5);
		nfhp_shim_fail_countdown = i;
		err = nfhp_rule_insert(rs, "FORWARD", 5, s, NULL, &msg);
		nfhp_shim_fail_countdown = 0;
		c = nfhp_chain_find(rs, "FORWARD");
		if (!err) {
			nfhp_txn_abort(rs);
			break;
		}
		failed++;
		if (nfhp_chain_rules(c) != 20 || nfhp_rule_at(c, 5) != at)
			wrong++;
		/* Committed, not aborted: the new rule must be gone already. */
		if (nfhp_txn_commit(rs, &msg))
			wrong++;
		nfhp_ruleset_release(rs, true);
		if (nfhp_ruleset_mem_used(rs) != used)
			wrong++;
	}
	check(failed > 3 && !wrong,
	      "insert: %d injected failures, the chain as it was after each",
	      failed);

	/* The removed list is full after 8: the 9th delete must grow it. */
	nfhp_txn_begin(rs);
	for (i = 0; i < 8; i++)
		nfhp_rule_delete(rs, "FORWARD", 1, &msg);
	c = nfhp_chain_find(rs, "FORWARD");
	at = nfhp_rule_at(c, 1);
	nfhp_shim_fail_countdown = 1;
	err = nfhp_rule_delete(rs, "FORWARD", 1, &msg);
	nfhp_shim_fail_countdown = 0;
	c = nfhp_chain_find(rs, "FORWARD");
	check(err == -ENOMEM && nfhp_chain_rules(c) == 12 &&
	      nfhp_rule_at(c, 1) == at && nfhp_rule_at(c, 12),
	      "delete: a failure leaves the rule in place (%d rules)",
	      nfhp_chain_rules(c));
	check(!nfhp_txn_commit(rs, &msg), "commit after it");
	drops_of(rs, port, 24);
	for (i = 0; i < 12 && port[i] == 1008 + (u32)i; i++)
		;
	check(i == 12 && !port[12], "the 12 rules left drop ports 1008-1019");
	nfhp_ruleset_free(rs);
	free(s);
}

/*
 * Short packets (key.h): iptables' tcp match drops a TCP header cut short
 * and a TCP fragment at offset 1 without a verdict or counter; multiport
 * only needs the ports.
 */
static void test_hotdrop(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *tcp = spec_new(NFHP_ACT_ACCEPT);
	struct nfhp_rule_spec *mp = spec_new(NFHP_ACT_DROP);
	struct nfhp_counter c1, c2, pol;
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;

	spec_range(tcp, NFHP_DIM_PROTO, 6, 6, false);
	spec_range(tcp, NFHP_DIM_DPORT, 22, 22, true);
	spec_range(mp, NFHP_DIM_PROTO, 17, 17, false);
	spec_range(mp, NFHP_DIM_DPORT, 53, 53, false);
	mp->m[1].syntax = NFHP_SYN_MULTIPORT;
	check(!nfhp_txn_begin(rs) &&
	      !nfhp_rule_append(rs, "FORWARD", tcp, NULL, &msg) &&
	      !nfhp_rule_append(rs, "FORWARD", mp, NULL, &msg) &&
	      !nfhp_txn_commit(rs, &msg), "tcp ! --dport 22, multiport 53");

	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 6;
	k.v[NFHP_DIM_DPORT] = 80;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && v.rule && !v.hotdrop,
	      "whole tcp/80: rule 1");
	nfhp_key_set_l4_short(&k, 6, 0, 19);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_DROP && !v.rule && v.hotdrop,
	      "19 bytes of tcp: hotdrop");
	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 6;
	k.v[NFHP_DIM_FRAG] = 1;
	nfhp_key_set_l4_short(&k, 6, 1, 0);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.hotdrop, "tcp fragment at offset 1: hotdrop");
	nfhp_key_set_l4_short(&k, 6, 2, 0);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && !v.rule && !v.hotdrop,
	      "tcp fragment at offset 2: policy");

	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 17;
	k.v[NFHP_DIM_DPORT] = 53;
	nfhp_key_set_l4_short(&k, 17, 0, 4);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_DROP && v.rule && !v.hotdrop,
	      "4 bytes of udp: multiport rule 2 reads the ports");
	nfhp_key_set_l4_short(&k, 17, 0, 3);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.hotdrop, "3 bytes of udp: multiport hotdrop");

	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1),
			  &c1);
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 2),
			  &c2);
	nfhp_chain_policy_counter(nfhp_chain_find(rs, "FORWARD"), &pol);
	check(c1.packets == 1 && c2.packets == 1 && pol.packets == 1,
	      "hotdrops count nowhere (%llu %llu %llu)",
	      (unsigned long long)c1.packets, (unsigned long long)c2.packets,
	      (unsigned long long)pol.packets);
	nfhp_ruleset_free(rs);
	free(tcp);
	free(mp);
}

/*
 * A rule set whose FORWARD (policy ACCEPT) holds the rules @r[0 .. @n - 1]
 * and then @fill rules that drop one source address each.  Enough rules
 * in one commit make it a full build, where list nodes are made; updates
 * only make them in regions they rebuild.
 */
static struct nfhp_ruleset *forward_of(struct nfhp_rule_spec **r,
				       unsigned int n, unsigned int fill)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *filler = spec_new(NFHP_ACT_DROP);
	const char *msg = NULL;
	unsigned int i;

	check(!nfhp_txn_begin(rs), "begin");
	for (i = 0; i < n; i++)
		check(!nfhp_rule_append(rs, "FORWARD", r[i], NULL, &msg),
		      "append %u", i + 1);
	for (i = 0; i < fill; i++) {
		filler->nmatch = 0;
		spec_prefix(filler, NFHP_DIM_SRC, ip(10, 0, 0, i), 32, false);
		if (nfhp_rule_append(rs, "FORWARD", filler, NULL, &msg))
			break;
	}
	check(i == fill, "%u fillers", fill);
	check(!nfhp_txn_commit(rs, &msg), "commit");
	free(filler);
	return rs;
}

static unsigned int shadowed_count(struct nfhp_ruleset *rs)
{
	int shadowed = 0;

	check(!nfhp_shadowed_rules(rs, count_shadow, &shadowed), "shadow");
	return shadowed;
}

/*
 * A build whose first split is shared with a helper (tree.c, "Two
 * builders") makes the same tree as one builder: the same nodes, stored
 * once, whichever half built them.
 */
/* 3,000 rules of nested source prefixes, some with a port or a protocol. */
static struct nfhp_ruleset *nested_rules(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	const char *msg = NULL;
	unsigned int i;

	check(!nfhp_txn_begin(rs), "begin");
	for (i = 0; i < 3000; i++) {
		r->nmatch = 0;
		r->action = i % 3 ? NFHP_ACT_DROP : NFHP_ACT_ACCEPT;
		spec_prefix(r, NFHP_DIM_SRC, ip(10, i % 7, i >> 8, i),
			    i % 5 ? 32 : 24, false);
		if (i % 4) {
			spec_range(r, NFHP_DIM_PROTO, 6, 6, false);
			spec_range(r, NFHP_DIM_DPORT, i % 50, i % 50 + 10,
				   false);
		}
		if (nfhp_rule_append(rs, "FORWARD", r, NULL, &msg))
			break;
	}
	check(i == 3000 && !nfhp_txn_commit(rs, &msg), "3000 rules");
	free(r);
	return rs;
}

/* Is one of @k's transport dimensions marked for a hotdrop entry? */
static bool key_marked(const struct nfhp_key *k)
{
	return k->v[NFHP_DIM_SPORT] >= NFHP_L4_TRUNCATED ||
	       k->v[NFHP_DIM_DPORT] >= NFHP_L4_TRUNCATED ||
	       k->v[NFHP_DIM_TCPFLAGS] >= NFHP_L4_TRUNCATED ||
	       k->v[NFHP_DIM_ICMP] >= NFHP_L4_TRUNCATED;
}

/*
 * nfhp_classify() visits the trees of hotdrop entries only for keys that
 * nfhp_key_hot() finds: it must find every key in which some transport
 * dimension carries a mark a hotdrop entry matches, whatever the protocol,
 * fragment offset and length of header nfhp_key_set_l4_short() was given.
 */
static void test_key_hot(void)
{
	static const u8 protos[] = { 0, 1, 6, 17, 33, 47, 132, 136 };
	static const u32 values[] = { 0, 1, 22, 0xff, 0xffff };
	unsigned int p, frag, len, v, bad = 0, hot = 0;
	struct nfhp_key k;
	bool marked;

	for (p = 0; p < ARRAY_SIZE(protos); p++)
		for (frag = 0; frag < 3; frag++)
			for (len = 0; len <= 24; len++)
				for (v = 0; v < ARRAY_SIZE(values); v++) {
					key_init(&k);
					k.v[NFHP_DIM_SPORT] = values[v];
					k.v[NFHP_DIM_DPORT] = values[v];
					k.v[NFHP_DIM_TCPFLAGS] = values[v] & 0xff;
					k.v[NFHP_DIM_ICMP] = values[v];
					nfhp_key_set_l4_short(&k, protos[p],
							      frag, len);
					marked = key_marked(&k);
					nfhp_key_fold_port(&k, protos[p]);
					bad += nfhp_key_hot(&k) != marked;
					hot += marked;
				}
	check(!bad && hot,
	      "nfhp_key_hot() finds every marked key: %u wrong, %u marked",
	      bad, hot);
}

static void test_shared_build(void)
{
	struct nfhp_tree_stats alone, shared;
	u32 share_min = nfhp_tunables.share_min;
	struct nfhp_ruleset *rs;

	nfhp_tunables.share_min = ~0u;
	rs = nested_rules();
	check(!nfhp_tree_get_stats(rs, NFHP_HOOK_FORWARD, &alone),
	      "stats, one builder");
	check(!nfhp_ruleset_shared_splits(rs), "no split shared");
	nfhp_ruleset_free(rs);
	nfhp_tunables.share_min = 64;
	rs = nested_rules();
	check(!nfhp_tree_get_stats(rs, NFHP_HOOK_FORWARD, &shared),
	      "stats, two builders");
	/* The first split of the rules' tree, and of their hotdrops' tree. */
	check(nfhp_ruleset_shared_splits(rs) == 2,
	      "one split of each tree built by two builders");
	nfhp_ruleset_free(rs);
	nfhp_tunables.share_min = share_min;
	check(alone.nodes > 100 && !memcmp(&alone, &shared, sizeof(alone)),
	      "same tree: %u nodes, %u leaves, %llu bytes, %u shared references",
	      shared.nodes, shared.leaves, (unsigned long long)shared.mem,
	      shared.shared);
}

/* The verdicts of 2000 keys in and around nested_rules()'s sources. */
static void nested_verdicts(struct nfhp_ruleset *rs, u32 *out)
{
	struct nfhp_verdict v;
	struct nfhp_key k;
	unsigned int i;

	for (i = 0; i < 2000; i++) {
		key_init(&k);
		k.v[NFHP_DIM_SRC] = ip(10, i % 8, (i * 7) >> 8, i * 13);
		k.v[NFHP_DIM_PROTO] = i % 3 ? 6 : 17;
		k.v[NFHP_DIM_DPORT] = i % 64;
		classify(rs, NFHP_HOOK_FORWARD, &k, &v);
		out[i] = v.action << 16 |
			 (v.rule ? nfhp_rule_position(rs, v.rule) : 0);
	}
}

/* Does any hook's tree of @rs have a tested leaf? */
static unsigned int tested_leaves(struct nfhp_ruleset *rs)
{
	struct nfhp_tree_stats st = {};

	nfhp_tree_get_stats(rs, NFHP_HOOK_FORWARD, &st);
	return st.tested;
}

/*
 * Bounded builds (tree.c): a build past its budget is made again with
 * shares of it, the regions past theirs tested leaves.  The verdicts must
 * be the exact tree's, before and after an update that meets the tested
 * leaves; with the shipped budget the same rules are not cut at all.
 */
static void test_bounded_build(void)
{
	u32 budget = nfhp_tunables.build_budget;
	u32 budget_min = nfhp_tunables.build_budget_min;
	u32 *exact = calloc(2000, sizeof(*exact));
	u32 *cut = calloc(2000, sizeof(*cut));
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_ACCEPT);
	struct nfhp_ruleset *rs;
	const char *msg = NULL;
	struct nfhp_verdict v;
	struct nfhp_key k;

	rs = nested_rules();
	nested_verdicts(rs, exact);
	check(!nfhp_ruleset_builds_cut(rs) && !tested_leaves(rs),
	      "budget: 3000 rules within the shipped budget, exact");
	nfhp_ruleset_free(rs);
	nfhp_tunables.build_budget = 2;
	nfhp_tunables.build_budget_min = 0;
	rs = nested_rules();
	nested_verdicts(rs, cut);
	check(nfhp_ruleset_builds_cut(rs) && tested_leaves(rs),
	      "budget: with 2 an entry, builds cut short: %u tested leaves",
	      tested_leaves(rs));
	check(!memcmp(exact, cut, 2000 * sizeof(*cut)),
	      "budget: the same verdicts as the exact tree");
	spec_prefix(r, NFHP_DIM_SRC, ip(10, 1, 0, 0), 16, false);
	spec_range(r, NFHP_DIM_PROTO, 17, 17, false);
	check(!nfhp_rule_insert(rs, "FORWARD", 1, r, NULL, &msg),
	      "budget: an update meets the tested leaves");
	nested_verdicts(rs, cut);
	key_init(&k);
	k.v[NFHP_DIM_SRC] = ip(10, 1, 2, 3);
	k.v[NFHP_DIM_PROTO] = 17;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && v.rule &&
	      nfhp_rule_position(rs, v.rule) == 1,
	      "budget: the new rule decides its packets");
	nfhp_tunables.build_budget = budget;
	nfhp_tunables.build_budget_min = budget_min;
	check(!nfhp_rule_delete(rs, "FORWARD", 1, &msg),
	      "budget: the rule goes again");
	nested_verdicts(rs, cut);
	check(!memcmp(exact, cut, 2000 * sizeof(*cut)),
	      "budget: the verdicts are the exact tree's again");
	nfhp_ruleset_free(rs);
	free(r);
	free(exact);
	free(cut);
}

/*
 * A signal to the committing task stops a build between two children of
 * a split (tree.c, "Bounded builds"): the commit fails with -ECANCELED and
 * says so, the old rules stay, and nothing leaks (ASan).
 */
static void test_interrupted_commit(void)
{
	struct nfhp_ruleset *rs = nested_rules();
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	u32 *before = calloc(2000, sizeof(*before));
	u32 *after = calloc(2000, sizeof(*after));
	const char *msg = NULL;
	unsigned int i;
	int err;

	nested_verdicts(rs, before);
	check(!nfhp_txn_begin(rs) &&
	      !nfhp_chain_flush(rs, "FORWARD", &msg), "signal: begin, -F");
	for (i = 0; i < 200; i++) {
		r->nmatch = 0;
		spec_prefix(r, NFHP_DIM_SRC, ip(10, i % 8, i, 0), 24, false);
		spec_range(r, NFHP_DIM_PROTO, 6, 6, false);
		nfhp_rule_append(rs, "FORWARD", r, NULL, &msg);
	}
	nfhp_shim_signal_countdown = 3;
	err = nfhp_txn_commit(rs, &msg);
	check(err == -ECANCELED && msg && strstr(msg, "interrupted"),
	      "signal: the commit stops: %d (%s)", err, msg ? msg : "");
	nfhp_shim_signal_countdown = 0;
	nested_verdicts(rs, after);
	check(!nfhp_txn_active(rs) &&
	      nfhp_chain_rules(nfhp_chain_find(rs, "FORWARD")) == 3000 &&
	      !memcmp(before, after, 2000 * sizeof(*after)),
	      "signal: the old rules stay in force");
	nfhp_ruleset_free(rs);
	free(r);
	free(before);
	free(after);
}

/*
 * The flatten bound (ruleset.h): a chain of 10 rules that FORWARD jumps
 * to 100 times flattens into more than 2 entries a rule: the commit fails
 * with -EFBIG and says why, the old rules stay; on the shipped bound the
 * same rules go in.
 */
static void test_flatten_bound(void)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	struct nfhp_rule_spec *r = spec_new(NFHP_ACT_DROP);
	const char *msg = NULL;
	unsigned int i;
	int err;

	check(!nfhp_chain_new(rs, "C", &msg), "bound: -N C");
	spec_range(r, NFHP_DIM_PROTO, 6, 6, false);
	check(!nfhp_rule_append(rs, "FORWARD", r, NULL, &msg),
	      "bound: -A FORWARD -p tcp -j DROP");
	nfhp_tunables.flat_per_rule = 2;
	nfhp_tunables.flat_min = 0;
	check(!nfhp_txn_begin(rs), "bound: begin");
	for (i = 0; i < 10; i++) {
		r->nmatch = 0;
		spec_range(r, NFHP_DIM_DPORT, i, i, false);
		spec_range(r, NFHP_DIM_PROTO, 17, 17, false);
		nfhp_rule_append(rs, "C", r, NULL, &msg);
	}
	r->action = NFHP_ACT_JUMP;
	strcpy(r->target, "C");
	for (i = 0; i < 100; i++) {
		r->nmatch = 0;
		spec_prefix(r, NFHP_DIM_SRC, ip(10, 0, i, 0), 24, false);
		nfhp_rule_append(rs, "FORWARD", r, NULL, &msg);
	}
	err = nfhp_txn_commit(rs, &msg);
	check(err == -EFBIG && msg && strstr(msg, "too many places"),
	      "bound: 1,111 entries for 111 rules refused: %d (%s)", err,
	      msg ? msg : "");
	check(nfhp_chain_rules(nfhp_chain_find(rs, "FORWARD")) == 1 &&
	      proto_decided(rs, 6, NFHP_ACT_DROP, 1) &&
	      proto_decided(rs, 17, NFHP_ACT_ACCEPT, 0),
	      "bound: the old rule set stays");
	nfhp_tunables.flat_per_rule = NFHP_FLAT_PER_RULE;
	nfhp_tunables.flat_min = NFHP_FLAT_MIN;
	check(!nfhp_txn_begin(rs), "bound: begin again");
	for (i = 0; i < 100; i++)
		nfhp_rule_append(rs, "FORWARD", r, NULL, &msg);
	check(!nfhp_txn_commit(rs, &msg) &&
	      nfhp_chain_rules(nfhp_chain_find(rs, "FORWARD")) == 101,
	      "bound: the shipped bound takes them");
	nfhp_ruleset_free(rs);
	free(r);
}

/*
 * List nodes (tree_list.c): a region of few terminal entries is one node that
 * tests them in order.  It must decide as the split would, count, change
 * with updates, and keep shadow analysis exact.
 */
static void test_list_nodes(void)
{
	struct nfhp_rule_spec *r[3] = { spec_new(NFHP_ACT_DROP),
					spec_new(NFHP_ACT_ACCEPT),
					spec_new(NFHP_ACT_DROP) };
	struct nfhp_tree_stats st = {};
	struct nfhp_ruleset *rs;
	struct nfhp_counter c;
	struct nfhp_verdict v;
	const char *msg = NULL;
	struct nfhp_key k;
	unsigned int n;

	/* tcp --dport 22: its hotdrop entry, itself and the policy. */
	spec_range(r[1], NFHP_DIM_PROTO, 6, 6, false);
	spec_range(r[1], NFHP_DIM_DPORT, 22, 22, false);
	rs = forward_of(&r[1], 1, 100);
	nfhp_tree_get_stats(rs, NFHP_HOOK_FORWARD, &st);
	check(st.nodes_per_dim[NFHP_DIM_PROTO] == 0 &&
	      st.nodes_per_dim[NFHP_DIM_DPORT] == 0 && st.leaves >= 2,
	      "tcp/22 makes list nodes, no PROTO or DPORT node (%u, %u)",
	      st.nodes_per_dim[NFHP_DIM_PROTO],
	      st.nodes_per_dim[NFHP_DIM_DPORT]);
	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 6;
	k.v[NFHP_DIM_DPORT] = 22;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && v.rule, "tcp/22: rule 1");
	k.v[NFHP_DIM_DPORT] = 23;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_ACCEPT && !v.rule, "tcp/23: policy");
	nfhp_key_set_l4_short(&k, 6, 0, 19);
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.hotdrop, "19 bytes of tcp: hotdrop");
	nfhp_rule_counter(nfhp_rule_at(nfhp_chain_find(rs, "FORWARD"), 1), &c);
	check(c.packets == 1, "rule 1 counted once (%llu)",
	      (unsigned long long)c.packets);
	/* An update that cuts the list: rule 1 is gone, tcp/22 with it. */
	check(!nfhp_rule_insert(rs, "FORWARD", 1, r[0], NULL, &msg) &&
	      !nfhp_rule_delete(rs, "FORWARD", 2, &msg), "-I 1 DROP, -D 2");
	key_init(&k);
	k.v[NFHP_DIM_PROTO] = 6;
	k.v[NFHP_DIM_DPORT] = 22;
	classify(rs, NFHP_HOOK_FORWARD, &k, &v);
	check(v.action == NFHP_ACT_DROP && v.rule, "tcp/22 after: DROP 1");
	nfhp_ruleset_free(rs);
	free(r[0]);
	free(r[1]);
	free(r[2]);

	/* TTL 50-60 ACCEPT lies inside TTL 0-99 DROP: they overlap. */
	r[0] = spec_new(NFHP_ACT_DROP);
	r[1] = spec_new(NFHP_ACT_ACCEPT);
	r[2] = spec_new(NFHP_ACT_DROP);
	spec_range(r[0], NFHP_DIM_TTL, 0, 99, false);
	spec_range(r[1], NFHP_DIM_TTL, 50, 60, false);
	rs = forward_of(r, 2, 100);
	check(shadowed_count(rs) == 1, "TTL 50-60 after TTL 0-99: shadowed");
	nfhp_ruleset_free(rs);
	/*
	 * TTL 0-99 and 100-255 leave nothing for the rules after them: the
	 * -j DROP and the 100 fillers, which are in trees of their own.
	 */
	free(r[1]);
	r[1] = spec_new(NFHP_ACT_ACCEPT);
	spec_range(r[1], NFHP_DIM_TTL, 100, 255, false);
	rs = forward_of(r, 3, 100);
	n = shadowed_count(rs);
	check(n == 101, "-j DROP and fillers after both TTL halves: shadowed (%u)",
	      n);
	nfhp_ruleset_free(rs);
	free(r[0]);
	free(r[1]);
	free(r[2]);
}

/* The shadowed rules of @rs as "CHAIN NUM," text. */
struct shadow_list {
	struct nfhp_ruleset *rs;
	char buf[256];
};

static void list_shadow(void *ctx, const struct nfhp_rule *r)
{
	struct shadow_list *l = ctx;
	size_t len = strlen(l->buf);

	snprintf(l->buf + len, sizeof(l->buf) - len, "%s %u,",
		 nfhp_chain_name(nfhp_rule_chain(l->rs, r)),
		 nfhp_rule_position(l->rs, r));
}

static const char *shadow_text(struct nfhp_ruleset *rs,
			       struct shadow_list *l)
{
	l->rs = rs;
	l->buf[0] = 0;
	check(!nfhp_shadowed_rules(rs, list_shadow, l), "shadow analysis");
	return l->buf;
}

/*
 * A hook's rules are in trees by the width of their addresses
 * (txn.c), so a rule can be in a leaf of its own tree and still be
 * decided before, everywhere, by another tree (stats.c).
 */
static void test_shadow_across_trees(void)
{
	struct nfhp_rule_spec *any = spec_new(NFHP_ACT_DROP);
	struct nfhp_rule_spec *tcp8 = spec_new(NFHP_ACT_DROP);
	struct nfhp_rule_spec *host = spec_new(NFHP_ACT_ACCEPT);
	struct nfhp_rule_spec *jump = spec_new(NFHP_ACT_JUMP);
	struct nfhp_rule_spec *r[2];
	struct shadow_list l;
	struct nfhp_ruleset *rs;
	const char *msg = NULL;
	const char *text;

	spec_prefix(tcp8, NFHP_DIM_SRC, ip(10, 0, 0, 0), 8, false);
	spec_range(tcp8, NFHP_DIM_PROTO, 6, 6, false);
	spec_prefix(host, NFHP_DIM_SRC, ip(10, 0, 0, 1), 32, false);
	strcpy(jump->target, "user");

	r[0] = any;
	r[1] = host;
	rs = forward_of(r, 2, 0);
	text = shadow_text(rs, &l);
	check(!strcmp(text, "FORWARD 2,"),
	      "-j DROP, then -s 10.0.0.1: the /32 is shadowed (%s)", text);
	nfhp_ruleset_free(rs);

	r[0] = tcp8;
	rs = forward_of(r, 2, 0);
	text = shadow_text(rs, &l);
	check(!*text, "-s 10/8 -p tcp -j DROP, then -s 10.0.0.1: UDP reaches it (%s)",
	      text);
	nfhp_ruleset_free(rs);

	/*
	 * To 10.0.0.1, TTL 0-99 and 100-199 DROP make a list node, the
	 * policy last, in the tree of narrow destinations: a rule from
	 * 10.0.0.1 to it, in the tree of narrow sources and destinations,
	 * inside both TTL intervals is decided before by the two entries
	 * together; one that reaches past 199 is not.
	 */
	r[0] = spec_new(NFHP_ACT_DROP);
	r[1] = spec_new(NFHP_ACT_DROP);
	spec_prefix(r[0], NFHP_DIM_DST, ip(10, 0, 0, 1), 32, false);
	spec_prefix(r[1], NFHP_DIM_DST, ip(10, 0, 0, 1), 32, false);
	spec_prefix(host, NFHP_DIM_DST, ip(10, 0, 0, 1), 32, false);
	spec_range(r[0], NFHP_DIM_TTL, 0, 99, false);
	spec_range(r[1], NFHP_DIM_TTL, 100, 199, false);
	spec_range(host, NFHP_DIM_TTL, 50, 150, false);
	rs = forward_of(r, 2, 0);
	check(!nfhp_rule_append(rs, "FORWARD", host, NULL, &msg),
	      "-s 10.0.0.1 --ttl 50:150");
	text = shadow_text(rs, &l);
	check(!strcmp(text, "FORWARD 3,"),
	      "TTL 50-150 after TTL 0-99 and 100-199: shadowed (%s)", text);
	nfhp_ruleset_free(rs);
	host->m[host->nmatch - 1].ranges[0].hi = 250;
	rs = forward_of(r, 2, 0);
	check(!nfhp_rule_append(rs, "FORWARD", host, NULL, &msg),
	      "-s 10.0.0.1 --ttl 50:250");
	text = shadow_text(rs, &l);
	check(!*text, "TTL 50-250 after them: reached (%s)", text);
	nfhp_ruleset_free(rs);
	host->m[host->nmatch - 1].ranges[0].hi = 150;
	r[0]->m[r[0]->nmatch - 1].ranges[0].lo = 60;
	rs = forward_of(r, 2, 0);
	check(!nfhp_rule_append(rs, "FORWARD", host, NULL, &msg),
	      "-s 10.0.0.1 --ttl 50:150");
	text = shadow_text(rs, &l);
	check(!*text, "TTL 50-150 after TTL 60-99 and 100-199: reached (%s)",
	      text);
	nfhp_ruleset_free(rs);
	free(r[0]);
	free(r[1]);
	host->nmatch -= 2;

	/*
	 * -d 10.0.0.0/9 (a wide destination) and -s 192.168.1.0/24 -d
	 * 10.128.0.0/9 (a narrow source) are in two trees; a rule from
	 * 192.168.1.1 to 10/8 is in the second, in a leaf there, and neither
	 * tree decides all of it: the two do between them.  From 192.168.2.1
	 * the second leaves 10.128/9 to it.
	 */
	r[0] = spec_new(NFHP_ACT_DROP);
	r[1] = spec_new(NFHP_ACT_DROP);
	spec_prefix(r[0], NFHP_DIM_DST, ip(10, 0, 0, 0), 9, false);
	spec_prefix(r[1], NFHP_DIM_SRC, ip(192, 168, 1, 0), 24, false);
	spec_prefix(r[1], NFHP_DIM_DST, ip(10, 128, 0, 0), 9, false);
	rs = forward_of(r, 2, 0);
	free(r[0]);
	r[0] = spec_new(NFHP_ACT_DROP);
	spec_prefix(r[0], NFHP_DIM_SRC, ip(192, 168, 1, 1), 32, false);
	spec_prefix(r[0], NFHP_DIM_DST, ip(10, 0, 0, 0), 8, false);
	check(!nfhp_rule_append(rs, "FORWARD", r[0], NULL, &msg),
	      "-s 192.168.1.1 -d 10/8");
	r[0]->m[0].ranges[0].lo = ip(192, 168, 2, 1);
	check(!nfhp_rule_append(rs, "FORWARD", r[0], NULL, &msg),
	      "-s 192.168.2.1 -d 10/8");
	check(fold_tree(rs, 1) != fold_tree(rs, 2),
	      "the /9 rules are in two trees");
	text = shadow_text(rs, &l);
	check(!strcmp(text, "FORWARD 3,"),
	      "decided by two trees between them: shadowed, the other reached (%s)",
	      text);
	nfhp_ruleset_free(rs);
	free(r[0]);
	free(r[1]);

	/* A user chain shadowed from FORWARD but reached from INPUT. */
	rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	check(!nfhp_txn_begin(rs) && !nfhp_chain_new(rs, "user", &msg) &&
	      !nfhp_rule_append(rs, "user", host, NULL, &msg) &&
	      !nfhp_rule_append(rs, "FORWARD", any, NULL, &msg) &&
	      !nfhp_rule_append(rs, "FORWARD", jump, NULL, &msg) &&
	      !nfhp_rule_append(rs, "INPUT", jump, NULL, &msg) &&
	      !nfhp_txn_commit(rs, &msg), "user chain from FORWARD and INPUT");
	text = shadow_text(rs, &l);
	check(!strcmp(text, "FORWARD 2,"),
	      "only the jump after -j DROP is shadowed (%s)", text);
	nfhp_ruleset_free(rs);
	free(any);
	free(tcp8);
	free(host);
	free(jump);
}

/* Leaves of up to three entries must not cross a cache line. */
static void line_check_leaf(void *ctx, const struct nfhp_node *leaf)
{
	unsigned int *bad = ctx;
	uintptr_t at = (uintptr_t)leaf % 64;

	if (leaf->n <= 3 && at + sizeof(*leaf) + leaf->n * sizeof(void *) > 64)
		(*bad)++;
}

/**
 * struct line_case - a forward hook whose root cuts the source ranges
 * @r: a DROP rule of the ranges, then an ACCEPT rule of port 22
 * @rs: the rule set of the two
 * @f: the root's forest
 * @root: the tree of the FORWARD hook, NULL if there is none
 */
struct line_case {
	struct nfhp_rule_spec *r[2];
	struct nfhp_ruleset *rs;
	struct nfhp_forest *f;
	const struct nfhp_node *root;
};

/* Build @c from the @n source ranges @lo[i]..@hi[i]. */
static void line_case_build(struct line_case *c, const u32 *lo, const u32 *hi,
			    unsigned int n)
{
	struct nfhp_dim_match *m;
	unsigned int i;

	c->r[0] = spec_new(NFHP_ACT_DROP);
	c->r[1] = spec_new(NFHP_ACT_ACCEPT);
	m = spec_add(c->r[0], NFHP_DIM_SRC, NFHP_FORM_RANGES, false);
	m->nranges = n;
	for (i = 0; i < n; i++) {
		m->ranges[i].lo = lo[i];
		m->ranges[i].hi = hi[i];
	}
	spec_range(c->r[1], NFHP_DIM_DPORT, 22, 22, false);
	c->rs = forward_of(c->r, 2, 0);
	c->root = nfhp_ruleset_tree(c->rs, NFHP_HOOK_FORWARD, 0, &c->f);
}

static void line_case_free(struct line_case *c)
{
	nfhp_ruleset_free(c->rs);
	free(c->r[0]);
	free(c->r[1]);
}

/*
 * The keys come right after the header, so that the search finds them in
 * the header's line: all of them in a node of 12 intervals, which six
 * source ranges (the first from 0) cut the root into.
 */
static void test_node_keys_line(void)
{
	u32 lo[6] = { 0 }, hi[6] = { ip(10, 255, 255, 255) };
	const struct nfhp_node *root;
	struct line_case c;
	uintptr_t end = 0;
	unsigned int i;

	for (i = 1; i < 6; i++) {
		lo[i] = ip(20 * i, 0, 0, 0);
		hi[i] = ip(20 * i + 5, 0, 0, 0);
	}
	line_case_build(&c, lo, hi, 6);
	root = c.root;
	check(root && root->kind == NFHP_NODE_RLP32 && root->n == 12 &&
	      !root->ibits, "six source ranges: a node of 12, no index");
	if (root)
		end = (uintptr_t)(nfhp_keys32(root) + root->n) -
		      ((uintptr_t)root & ~(uintptr_t)63);
	check(root && end <= 64,
	      "its header and its 12 keys are one cache line (they end at %lu)",
	      (unsigned long)end);
	line_case_free(&c);
}

/*
 * A small node is counted whole, its key tail with it: the tail must be
 * above every value, and every boundary must find its interval.
 */
static void test_node_keys_tail(void)
{
	const u32 lo[1] = { ip(10, 0, 0, 0) }, hi[1] = { ip(20, 0, 0, 0) };
	static const u32 want[] = { 0, 0, 1, 1, 2, 2 };
	const struct nfhp_node *root;
	unsigned int i, bad = 0;
	struct line_case c;
	u32 v[6];

	line_case_build(&c, lo, hi, 1);
	root = c.root;
	check(root && root->kind == NFHP_NODE_RLP32 && root->n == 3,
	      "one source range: a node of three");
	if (!root)
		goto out;
	check(nfhp_keys32(root)[3] == U32_MAX, "its fourth key is U32_MAX");
	v[0] = 0;
	v[1] = lo[0] - 1;
	v[2] = lo[0];
	v[3] = hi[0];
	v[4] = hi[0] + 1;
	v[5] = U32_MAX;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		bad += nfhp_node_find_value(root, v[i]) != want[i];
	check(!bad, "each boundary finds its interval (%u do not)", bad);
out:
	line_case_free(&c);
}

/*
 * nfhp_search32() against the first key not below the value, for every
 * window that holds the answer and values at, below and above each key.
 */
static void test_search32_windows(void)
{
	enum { N = 40 };
	u32 k[N], v[3 * N + 1], i, j, lo, n, want, bad = 0, tries = 0;

	for (i = 0; i < N - 1; i++)
		k[i] = 10 * (i + 1);
	k[N - 1] = U32_MAX;
	v[0] = 0;
	for (i = 0; i < N; i++) {
		v[3 * i + 1] = k[i] - 1;
		v[3 * i + 2] = k[i];
		v[3 * i + 3] = k[i] + (k[i] != U32_MAX);
	}
	for (j = 0; j < ARRAY_SIZE(v); j++) {
		for (want = 0; k[want] < v[j]; want++)
			;
		for (lo = 0; lo <= want; lo++)
			for (n = want - lo + 1; lo + n <= N; n++) {
				bad += nfhp_search32(k, lo, n, N, v[j]) != want;
				tries++;
			}
	}
	check(!bad, "nfhp_search32: %u of %u windows wrong", bad, tries);
}

/*
 * A lookup reads a node's header, its keys and one child: for a node of
 * four intervals and a leaf of up to three entries, one cache line.
 */
static void test_node_lines(void)
{
	const u32 lo[2] = { 0, ip(20, 0, 0, 0) };
	const u32 hi[2] = { ip(10, 255, 255, 255), ip(30, 0, 0, 0) };
	u32 list_max = nfhp_tunables.list_max;
	const struct nfhp_node *root;
	unsigned int bad = 0;
	struct line_case c;

	nfhp_tunables.list_max = 0;
	/* One rule of two source ranges: the root is split four ways. */
	line_case_build(&c, lo, hi, 2);
	root = c.root;
	check(root && root->kind == NFHP_NODE_RLP32 && root->n == 4 &&
	      root->dim == NFHP_DIM_SRC, "two source ranges: a node of four");
	check(root && (uintptr_t)root % 64 == 0 &&
	      sizeof(*root) + root->n * (sizeof(void *) + sizeof(u32)) <= 64,
	      "its header, children and keys are one cache line (at %lu)",
	      root ? (unsigned long)((uintptr_t)root % 64) : 0);
	if (root)
		nfhp_tree_walk_leaves(c.f, root, line_check_leaf, &bad);
	check(!bad, "small leaves lie within a cache line (%u do not)", bad);
	line_case_free(&c);
	nfhp_tunables.list_max = list_max;
	test_node_keys_line();
	test_node_keys_tail();
	test_search32_windows();
}

/* Count the entries' own leaves, and those that are not their entry's. */
static void own_leaf_check(void *ctx, const struct nfhp_node *leaf)
{
	unsigned int *n = ctx;
	const struct nfhp_entry *e = nfhp_leaf_entries(leaf)[0];

	if (!nfhp_node_embedded(leaf))
		return;
	n[0]++;
	n[1] += leaf != nfhp_entry_leaf(e) || e->self != e || leaf->n != 1 ||
		leaf->min_order != e->order;
}

/* The FORWARD tree of forward_of()'s fillers, a group of its own. */
static const struct nfhp_node *fillers_tree(const struct nfhp_ruleset *rs,
					    struct nfhp_forest **f)
{
	const struct nfhp_node *root;
	unsigned int g;

	for (g = 0; g < NFHP_HOOK_TREES; g++) {
		root = nfhp_ruleset_tree(rs, NFHP_HOOK_FORWARD, g, f);
		if (root && root->kind == NFHP_NODE_RLP32)
			return root;
	}
	return NULL;
}

/*
 * A region where one entry decides alone points to that entry's own leaf
 * (tree.h): ten adjacent source addresses each dropped by a rule, and the
 * policy around them, are 12 intervals and 11 leaves, no node of their
 * own.  Statistics count each once a tree (the policy's is group 0's
 * root too) and leave no mark, and the trees go before the entries they
 * point into (ASan sees the order).
 */
static void test_entry_leaves(void)
{
	u32 list_max = nfhp_tunables.list_max;
	struct nfhp_tree_stats st[2];
	const struct nfhp_node *root;
	unsigned int own[2] = {}, i, seen = 0;
	const struct nfhp_pageseq *es;
	struct nfhp_forest *f;
	struct nfhp_ruleset *rs;
	const char *msg = NULL;

	nfhp_tunables.list_max = 0;
	rs = forward_of(NULL, 0, 10);
	root = fillers_tree(rs, &f);
	check(root && root->kind == NFHP_NODE_RLP32 && root->n == 12,
	      "ten addresses: a root of 12 intervals");
	if (root)
		nfhp_tree_walk_leaves(f, root, own_leaf_check, own);
	check(own[0] == 12 && !own[1],
	      "every leaf is its entry's own (%u, %u not)", own[0], own[1]);
	nfhp_tree_get_stats(rs, NFHP_HOOK_FORWARD, &st[0]);
	nfhp_tree_get_stats(rs, NFHP_HOOK_FORWARD, &st[1]);
	check(st[0].leaves == 12 && st[0].shared == 1 && st[0].nodes == 1,
	      "stats: 12 leaves, 1 shared, 1 node (%u, %u, %u)",
	      st[0].leaves, st[0].shared, st[0].nodes);
	check(st[1].leaves == st[0].leaves && st[1].shared == st[0].shared &&
	      st[1].mem == st[0].mem, "and the same when asked again");
	es = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD);
	for (i = 0; i < es->n; i++)
		seen += ((const struct nfhp_entry *)nfhp_pageseq_get(es, i))->seen;
	check(!seen, "no entry keeps the walk's mark (%u do)", seen);
	check(!nfhp_rule_delete(rs, "FORWARD", 10, &msg), "-D FORWARD 10");
	root = fillers_tree(rs, &f);
	check(root && root->n == 11, "the root lost its interval");
	nfhp_ruleset_free(rs);
	nfhp_tunables.list_max = list_max;
}

/*
 * A commit must not write to the entry array it replaced until a grace
 * period has passed: a packet may still walk it (nfhp_classify_linear()).
 */
static void test_replaced_entries_untouched(void)
{
	struct nfhp_ruleset *rs = forward_of(NULL, 0, 10);
	const struct nfhp_pageseq *now = nfhp_ruleset_entries(rs, NFHP_HOOK_FORWARD);
	const struct nfhp_pageseq old = *now;	/* as a packet holds it */
	const struct nfhp_entry **copy;
	const char *msg = NULL;
	unsigned int i, same = 0;

	nfhp_ruleset_defer_release(rs, true);
	copy = malloc(old.n * sizeof(*copy));
	for (i = 0; i < old.n; i++)
		copy[i] = nfhp_pageseq_get(&old, i);
	check(!nfhp_rule_delete(rs, "FORWARD", 5, &msg), "-D FORWARD 5");
	check(now->slot != old.slot && now->n == old.n - 1,
	      "new entries published");
	for (i = 0; i < old.n; i++)
		same += copy[i] == nfhp_pageseq_get(&old, i);
	check(same == old.n,
	      "the replaced entries are as published until the grace period");
	synchronize_rcu();
	check(!nfhp_ruleset_release(rs, false), "released after it");
	nfhp_ruleset_free(rs);
	free(copy);
}

/* xorshift64: the candidate index test's own numbers. */
static u64 cx_state = 0x9e3779b97f4a7c15ull;

static u32 cx_rnd(u32 n)
{
	cx_state ^= cx_state << 13;
	cx_state ^= cx_state >> 7;
	cx_state ^= cx_state << 17;
	return n ? (u32)(cx_state % n) : (u32)cx_state;
}

/* A hull in one dimension: often next to the span's edge or the ends. */
static void cx_hull(u32 *lo, u32 *hi)
{
	static const u32 width[] = {
		0, 1, 255, 65534, 65535, 65536, 65537, 1u << 24, 0xffffffffu,
	};
	u32 w = width[cx_rnd(ARRAY_SIZE(width))];

	switch (cx_rnd(4)) {
	case 0:
		*lo = 0;
		break;
	case 1:
		*lo = 0xffffffffu - w;
		break;
	default:
		/* Clustered, so that windows hold several entries. */
		*lo = (cx_rnd(8) << 24) + cx_rnd(1u << 18);
		*lo = min_t(u32, *lo, 0xffffffffu - w);
	}
	*hi = *lo + w;
}

static void cx_sum(struct nfhp_entry_sum *sum)
{
	cx_hull(&sum->lo[0], &sum->hi[0]);
	cx_hull(&sum->lo[1], &sum->hi[1]);
}

struct cx_found {
	const struct nfhp_entry **e;
	unsigned int n;
	bool twice;
};

static void cx_take(void *arg, const struct nfhp_entry *e,
		    const struct nfhp_entry_sum *sum)
{
	struct cx_found *f = arg;
	unsigned int i;

	for (i = 0; i < f->n; i++)
		f->twice |= f->e[i] == e;
	f->e[f->n++] = e;
}

/*
 * The candidate index against a scan of every entry: random hulls on
 * both sides of NFHP_CAND_INDEX_SPAN and at the ends of the address space,
 * random groups, a build and then adds and deletes, each query checked.
 */
static void test_cand_index(void)
{
	enum { N = 12000, STEPS = 4000 };
	struct nfhp_entry *ent = calloc(N, sizeof(*ent));
	struct nfhp_entry_sum *sum = calloc(N, sizeof(*sum));
	const struct nfhp_entry **found = calloc(N, sizeof(*found));
	struct nfhp_entry **ptr = calloc(N, sizeof(*ptr));
	bool *in = calloc(N, sizeof(*in));
	u8 *group = calloc(N, 1);
	struct nfhp_mem mem = { .limit = ~0ull }, boxes = { .limit = ~0ull };
	struct nfhp_rule_spec *spec = spec_new(NFHP_ACT_DROP);
	struct nfhp_cand_index x = {};
	struct nfhp_pageseq seq = {};
	unsigned int i, j, k, g, want, wrong = 0, queries = 0, lost = 0;
	struct nfhp_box *box;
	struct nfhp_entry_sum q;
	struct cx_found f;

	for (i = 0; i < N; i++) {
		cx_sum(&sum[i]);
		/* The build reads the summaries off the boxes. */
		spec->nmatch = 0;
		spec_range(spec, NFHP_DIM_SRC, sum[i].lo[0], sum[i].hi[0], false);
		spec_range(spec, NFHP_DIM_DST, sum[i].lo[1], sum[i].hi[1], false);
		box = NULL;
		nfhp_box_from_spec(&boxes, NFHP_FAMILY_IPV4, spec, &box, NULL);
		ent[i].box = box;
		/* Few groups: long lists, split into several blocks. */
		group[i] = cx_rnd(3);
		ptr[i] = &ent[i];
		in[i] = i < N / 2;
	}
	for (i = 0; i < N; i++)
		nfhp_pageseq_append(&mem, &seq, ptr[i], group[i]);
	check(!nfhp_cand_index_build(&mem, &x, &seq, N / 2) &&
	      x.valid, "cand_index: built from %u entries", N / 2);
	for (k = 0; k < STEPS; k++) {
		i = cx_rnd(N);
		if (in[i])
			lost += !nfhp_cand_index_del(&mem, &x, group[i], ptr[i],
						  &sum[i]);
		else if (nfhp_cand_index_add(&mem, &x, group[i], ptr[i], &sum[i]))
			lost++;
		in[i] = !in[i];
		cx_sum(&q);
		g = cx_rnd(4);
		f = (struct cx_found){ .e = found };
		nfhp_cand_index_query(&x, g, &q, cx_take, &f);
		for (j = 0, want = 0; j < N; j++) {
			if (!in[j] || group[j] != g ||
			    !nfhp_entry_sum_meet(&sum[j], &q))
				continue;
			want++;
		}
		queries++;
		wrong += f.twice || f.n != want;
		for (j = 0; j < f.n; j++) {
			i = f.e[j] - ent;
			wrong += !in[i] || group[i] != g ||
				 !nfhp_entry_sum_meet(&sum[i], &q);
		}
	}
	check(!lost, "cand_index: every add and delete went through");
	check(!wrong, "cand_index: %u queries found what a scan finds", queries);
	nfhp_cand_index_clear(&mem, &x);
	nfhp_pageseq_free(&mem, &seq);
	check(!mem.used && !x.valid, "cand_index: cleared, memory returned");
	for (i = 0; i < N; i++)
		nfhp_box_free(&boxes, (struct nfhp_box *)ent[i].box);
	free(spec);
	free(ent);
	free(sum);
	free(found);
	free(ptr);
	free(in);
	free(group);
}

/*
 * The index of first entries: a build from entries where a jump's own
 * entries come back after its chain's, then random notes and removals
 * against a plain array of keys, every rule looked up after each step.
 * Rules are addresses 16 bytes apart, so that many share a home slot
 * and removals move probed rules back across the table's end.
 */
static void test_firsts(void)
{
	enum { N = 600, STEPS = 20000 };
	static _Alignas(16) char space[N * 16];
	struct nfhp_entry ent[5], *e[5];
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_rule_starts f = {}, g = {};
	struct nfhp_pageseq seq = {};
	u64 key[N], k;
	unsigned int i, j, wrong = 0, held = 0;
	const struct nfhp_rule *r[N];

	for (i = 0; i < N; i++) {
		r[i] = (const struct nfhp_rule *)(space + 16 * i);
		key[i] = NFHP_ORDER_UNSET;
	}
	/* A jump (r0) with an alternative box: its entries around its chain's. */
	ent[0] = (struct nfhp_entry){ .rule = r[0], .order = 10 };
	ent[1] = (struct nfhp_entry){ .rule = r[1], .order = 20, .depth = 1 };
	ent[2] = (struct nfhp_entry){ .rule = r[0], .order = 30 };
	ent[3] = (struct nfhp_entry){ .rule = r[2], .order = 40 };
	ent[4] = (struct nfhp_entry){ .order = 50 };	/* the policy */
	for (i = 0; i < 5; i++)
		e[i] = &ent[i];
	for (i = 0; i < 5; i++)
		nfhp_pageseq_append(&mem, &seq, e[i], 0);
	check(!nfhp_rule_starts_build(&mem, &f, &seq, 5, 2) && f.valid && f.n == 2 &&
	      nfhp_rule_starts_find(&f, r[0]) == 10 &&
	      nfhp_rule_starts_find(&f, r[2]) == 40 &&
	      nfhp_rule_starts_find(&f, r[1]) == NFHP_ORDER_UNSET,
	      "rule_starts: a jump's first own entry, no chain's rule, no policy");
	nfhp_rule_starts_del(&f, r[0], 30);
	check(nfhp_rule_starts_find(&f, r[0]) == 10,
	      "rule_starts: a rule stays when another of its entries goes");
	nfhp_rule_starts_clear(&mem, &f);
	for (i = 0; i < STEPS; i++) {
		j = cx_rnd(N / (i < STEPS / 2 ? 8 : 1));
		k = cx_rnd(1000);
		if (key[j] != NFHP_ORDER_UNSET && cx_rnd(2)) {
			nfhp_rule_starts_del(&f, r[j], key[j]);
			key[j] = NFHP_ORDER_UNSET;
			held--;
		} else {
			wrong += !!nfhp_rule_starts_add(&mem, &f, r[j], k);
			held += key[j] == NFHP_ORDER_UNSET;
			key[j] = min(key[j], k);
		}
		for (j = 0; j < N; j++)
			wrong += nfhp_rule_starts_find(&f, r[j]) != key[j];
		wrong += f.n != held;
	}
	check(!wrong, "rule_starts: %u notes and removals agree with an array",
	      STEPS);
	for (i = 0; i < N; i++)
		if (key[i] != NFHP_ORDER_UNSET)
			wrong += !!nfhp_rule_starts_add(&mem, &g, r[i], key[i]);
	check(!wrong && nfhp_rule_starts_equal(&f, &g) && nfhp_rule_starts_equal(&g, &f),
	      "rule_starts: equal to the same rules noted afresh");
	nfhp_rule_starts_del(&g, r[cx_rnd(N)], 1000);	/* no such key */
	if (held) {
		for (j = 0; key[j] == NFHP_ORDER_UNSET; j++)
			;
		nfhp_rule_starts_del(&g, r[j], key[j]);
	}
	check(!held || !nfhp_rule_starts_equal(&f, &g),
	      "rule_starts: unequal once a rule is gone");
	nfhp_rule_starts_clear(&mem, &f);
	nfhp_rule_starts_clear(&mem, &g);
	nfhp_pageseq_free(&mem, &seq);
	check(!mem.used && !f.valid, "rule_starts: cleared, memory returned");
}

/*
 * The scratch stack keeps released chunks for the next user, the biggest
 * first and 8 MiB of them at most: an update takes the same big arrays at
 * every commit, and must not allocate them anew.
 */
static void test_scratch_spares(void)
{
	struct nfhp_scratch s;
	struct nfhp_scratch_mark m;
	unsigned long before;
	void *big, *again;
	int i;

	nfhp_scratch_init(&s);
	m = nfhp_scratch_mark(&s);
	big = nfhp_scratch_alloc(&s, 1 << 20, 1);
	for (i = 0; i < 8; i++)
		check(nfhp_scratch_alloc(&s, 40000, 1) != NULL,
		      "scratch: small buffer %d", i);
	nfhp_scratch_release(&s, m);
	before = nfhp_shim_allocs;
	again = nfhp_scratch_alloc(&s, 1 << 20, 1);
	nfhp_scratch_alloc(&s, 40000, 1);
	check(again == big && nfhp_shim_allocs == before,
	      "scratch: the big chunk and a small one come back unallocated");
	nfhp_scratch_release(&s, m);
	for (i = 0; i < 3; i++)
		nfhp_scratch_alloc(&s, 3 << 20, 1);
	nfhp_scratch_release(&s, m);
	before = nfhp_shim_allocs;
	for (i = 0; i < 3; i++)
		nfhp_scratch_alloc(&s, 3 << 20, 1);
	check(nfhp_shim_allocs == before + 1,
	      "scratch: two of three 3 MiB chunks were kept, not all three");
	nfhp_scratch_destroy(&s);
}

int main(void)
{
	/* The short cuts of updates are checked against the long way. */
	nfhp_tunables.update_verify = true;
	nfhp_tunables.splice_verify = true;
	test_box_prefix_and_negation();
	test_box_ipv6_prefix();
	test_box_mask_and_ifname();
	test_ifname_words();
	test_box_errors();
	test_box_contains();
	test_counter_pool();
	test_scratch_spares();
	test_cand_index();
	test_firsts();
	test_worked_example();
	test_order_room();
	test_order_ends();
	test_entry_pages();
	test_straight_empty_rule();
	test_chain_names();
	test_chain_update();
	/*
	 * Once more as the module runs, without the long ways: the jumps'
	 * chains are then found by their names' hashes alone.
	 */
	nfhp_tunables.update_verify = false;
	test_chain_update();
	nfhp_tunables.update_verify = true;
	test_adopt();
	test_deep_jumps();
	test_skip_update();
	test_goto_scope_update();
	test_fold();
	test_fold_places();
	test_stack_guard();
	test_deferred_release();
	test_txn_and_errors();
	test_txn_prepare_unprepare();
	test_policy_counters();
	test_created_rule_gone();
	test_enomem();
	test_change_enomem();
	test_hotdrop();
	test_key_hot();
	test_rule_body();
	test_setm_pack();
	test_list_nodes();
	test_shadow_across_trees();
	test_replaced_entries_untouched();
	test_entry_leaves();
	test_node_lines();
	test_shared_build();
	test_bounded_build();
	test_interrupted_commit();
	test_flatten_bound();
	test_ext_hooks();
	test_mark_reaches_excluded_rule();
	test_mark_reaches_excluded_jump();
	test_target_keeps_other_exclusions();
	test_update_budget_shared();
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
