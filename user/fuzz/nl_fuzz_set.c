// SPDX-License-Identifier: GPL-2.0
/*
 * nl_fuzz: the named sets (NFHP_CMD_SET_*, NFHPA_SET, NFHPA_RULE_SETM).
 *
 * Valid requests of every set command over a small pool of names, so that
 * they meet: address sets of both algorithms and families, number sets
 * of both algorithms ("bitmap", "range"), flow sets of both algorithms
 * and families (NFHPA_SETE_PROTO and _PORT: ports, ICMP type and code,
 * protocol 0, a port on a protocol without) and interface sets of both
 * ("hash", "lpm"), with limits and locks, counting (NFHP_SET_F_COUNTERS)
 * or not;
 * batched adds and removes of valid keys, adds with the counts an entry
 * starts at (NFHPA_SETE_PACKETS, _BYTES, to sets that count or not),
 * nomatch entries (NFHPA_SETE_FLAGS, to every algorithm, now and then
 * with an unknown bit) that except hosts from the prefixes around them,
 * keys with bits below their
 * prefix length, keys of the other family's width, prefix lengths 0, 1,
 * 31, 32, 127, 128; number ranges at 0, 65535 and 2^32 - 1, backwards,
 * overlapping, with an address or of an address set; interface names of
 * 1 to 16 bytes, nested wildcards ("+", "e+", "eth+", "eth1+"), with an
 * address, or sent to other sets; tests, flushes, swaps, modifies,
 * destroys (of one set
 * and of all, also while rules refer to them); dumps of every set and of
 * one set's entries, now and then after a bulk add that needs several
 * messages; and the set matches of rules (none to NFHP_MAX_SETM + 1, of
 * sets that exist and of sets that do not, both directions, a second
 * one (NFHPA_SETM_DIR2) or not, inverted).
 * Attribute soup and huge counts of the set attributes for the random and
 * mutated requests of nl_fuzz.c.
 *
 * The errnos each set command may answer with are the contract's, plus
 * what genetlink answers before the module reads a request; anything else
 * is flagged.  The reply of a valid add, remove or test is checked against
 * the contract: one result per entry sent, in range, and the ack's errno
 * that of the first entry that failed; a test's entry found carries both
 * counts or neither, one not found none.  The entries of a dump carry
 * both counts (u64s) or neither, all those of a message alike.
 *
 * Between rounds every set is destroyed after the rules were flushed; a
 * set that rules of the other fuzzer process (or of a transaction) still
 * refer to stays (-EBUSY).  With strict (nl_fuzz -F, once no fuzzer runs
 * and the rules are gone) every set must go, and a dump must then find
 * none: a reference a freed rule did not give back shows there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/nf_hipac.h>

#include "nl_fuzz.h"

/*
 * A bulk add: enough entries for a dump of several messages (about 800
 * fit in one), and now and then more than NFHP_SET_MAX_BATCH, which the
 * module must refuse with E2BIG before applying any.
 */
#define FZ_BULK_MIN	700
#define FZ_BULK_MAX	(NFHP_SET_MAX_BATCH + 100)

/*
 * The pool of names: each with the family and type its sets mostly have
 * (number and interface sets serve both families' rules).
 */
static const struct {
	const char *name;
	uint8_t family;
	bool number;
	bool flow;
	bool iface;
} fz_sets[] = {
	{ "fz4a", NFHP_FAMILY_IPV4 },
	{ "fz4b", NFHP_FAMILY_IPV4 },
	{ "fz4c", NFHP_FAMILY_IPV4 },
	{ "fz6a", NFHP_FAMILY_IPV6 },
	{ "fz6b", NFHP_FAMILY_IPV6 },
	{ "fzpa", NFHP_FAMILY_IPV4, true },
	{ "fzpb", NFHP_FAMILY_IPV4, true },
	{ "fz4f", NFHP_FAMILY_IPV4, false, true },
	{ "fz6f", NFHP_FAMILY_IPV6, false, true },
	{ "fzia", NFHP_FAMILY_IPV4, false, false, true },
	{ "fzib", NFHP_FAMILY_IPV6, false, false, true },
};
#define FZ_NSETS	(sizeof(fz_sets) / sizeof(fz_sets[0]))

/* The longest name there is: 31 bytes and the NUL. */
#define FZ_LONGEST	"fz-longest-name-of-all-the-sets"

static const char *const fz_set_cmd_names[] = {
	"new", "del", "flush", "swap", "modify", "add", "remove", "test",
	"list",
};

/**
 * struct fz_set_stats - what the set commands did
 * @sent: valid or mutated requests by command (index cmd - SET_NEW)
 * @acked: of those, answered with 0
 * @busy: destroys refused because rules referred to a set
 * @bulk: bulk adds sent
 * @multi: dumps of one set's entries that took several messages
 * @checked: replies of valid adds, removes and tests checked
 * @setm: valid rule changes with set matches, by the errno of their
 *	answer (0: they went through)
 * @reset_busy: resets that left sets behind (-EBUSY)
 * @counts_sent: entries of adds built with counts
 * @counted: entries of dumps and tests that came with their counts
 * @nomatch_sent: entries sent with NFHP_SETE_F_NOMATCH
 * @nomatch: entries of dumps and tests that came with it
 */
struct fz_set_stats {
	unsigned long sent[9], acked[9];
	unsigned long busy, bulk, multi, checked, setm[256];
	unsigned long reset_busy;
	unsigned long counts_sent, counted;
	unsigned long nomatch_sent, nomatch;
};

static struct fz_set_stats sst;

/**
 * struct fz_set_expect - the reply expected to the request just sent
 * @cmd: its command, 0 when it is no set command
 * @valid: it was sent as built, unmutated
 * @entries: NFHPA_SET_ENTRY it holds
 * @flags: its NFHPA_SET_FLAGS
 * @setm: set matches of its rule
 * @replied: a reply came (an add's, remove's or test's results)
 * @got: entries in the reply
 * @first: errno of the first entry that failed, as the contract says
 * @bad: the reply broke the contract
 * @set_msgs: set messages of a dump
 * @entry_msgs: messages with entries of a dump
 */
static struct fz_set_expect {
	uint8_t cmd;
	bool valid;
	unsigned int entries;
	uint32_t flags;
	unsigned int setm;
	bool replied;
	unsigned int got;
	int first;
	bool bad;
	unsigned int set_msgs, entry_msgs;
} fx;

/* Set matches put into the request being built. */
static unsigned int fz_setm_built;
/* The set of the last bulk add, which dumps then list more often. */
static unsigned int fz_bulk_set;

bool fz_set_cmd(uint8_t cmd)
{
	return cmd >= NFHP_CMD_SET_NEW && cmd <= NFHP_CMD_SET_LIST;
}

/* --- building requests --------------------------------------------------- */

/*
 * A set command, weighted towards creating sets and adding entries, so
 * that between two resets there are sets for the others to work on.
 */
uint8_t fz_pick_set_cmd(void)
{
	static const uint8_t cmds[] = {
		NFHP_CMD_SET_NEW, NFHP_CMD_SET_NEW, NFHP_CMD_SET_NEW,
		NFHP_CMD_SET_DEL, NFHP_CMD_SET_FLUSH, NFHP_CMD_SET_SWAP,
		NFHP_CMD_SET_MODIFY, NFHP_CMD_SET_ADD, NFHP_CMD_SET_ADD,
		NFHP_CMD_SET_ADD, NFHP_CMD_SET_REMOVE, NFHP_CMD_SET_REMOVE,
		NFHP_CMD_SET_TEST, NFHP_CMD_SET_TEST, NFHP_CMD_SET_LIST,
	};

	return cmds[below(sizeof(cmds))];
}

/* A name of the pool, of that family (any for 0) most of the time. */
static unsigned int pick_set(uint8_t family)
{
	unsigned int i;

	for (;;) {
		i = below(FZ_NSETS);
		if (!family || fz_sets[i].family == family || one_in(4))
			return i;
	}
}

/* The name of set i, or now and then one no set has, or none may have. */
static const char *set_name(unsigned int i)
{
	static char name[40];

	if (!one_in(16))
		return fz_sets[i].name;
	switch (below(5)) {
	case 0:
		return "fznone";
	case 1:
		return "";
	case 2:
		return FZ_LONGEST;
	case 3:
		return FZ_LONGEST "x";	/* a byte too long */
	default:
		memset(name, 0, sizeof(name));
		rnd_bytes(name, below(sizeof(name) - 1));
		return name;
	}
}

/* NFHPA_FAMILY: left out for IPv4 half the time, now and then a bad one. */
static void put_family(struct nlmsghdr *nlh, uint8_t family)
{
	if (one_in(24))
		mnl_attr_put_u8(nlh, NFHPA_FAMILY, rnd());
	else if (family != NFHP_FAMILY_IPV4 || one_in(2))
		mnl_attr_put_u8(nlh, NFHPA_FAMILY, family);
}

static uint8_t other_family(uint8_t family)
{
	return family == NFHP_FAMILY_IPV4 ? NFHP_FAMILY_IPV6 : NFHP_FAMILY_IPV4;
}

/* Clear the bits of w (the key of a width-bit family) below plen. */
static void mask_key(uint32_t *w, unsigned int width, unsigned int plen)
{
	unsigned int i, keep;

	if (plen > width)
		return;
	if (width == 32) {
		w[3] = plen ? w[3] & ~0U << (32 - plen) : 0;
		return;
	}
	for (i = 0; i < 4; i++) {
		keep = plen > 32 * i ? plen - 32 * i : 0;
		if (keep < 32)
			w[i] = keep ? w[i] & ~0U << (32 - keep) : 0;
	}
}

/*
 * A flow key's NFHPA_SETE_PROTO and _PORT: TCP, UDP, SCTP and UDPLITE
 * ports that meet, ICMP and ICMPv6 type and code (either family's),
 * GRE (port 0, or one it has none of), protocol 0, now and then none or
 * any; the port absent now and then (0).
 */
static void put_proto_port(struct nlmsghdr *nlh)
{
	static const uint8_t protos[] = { 6, 17, 132, 136, 1, 58, 47, 0 };
	uint8_t proto = protos[below(sizeof(protos))];

	if (!one_in(16))
		mnl_attr_put_u8(nlh, NFHPA_SETE_PROTO,
				one_in(16) ? rnd() : proto);
	if (one_in(8))
		return;
	mnl_attr_put_u16(nlh, NFHPA_SETE_PORT, proto == 47 && !one_in(4) ? 0 :
			 one_in(8) ? (uint16_t)rnd() : 79 + below(4));
}

/*
 * An add's NFHPA_SETE_PACKETS and _BYTES, now and then: either, both,
 * small or any u64.  A set without counters refuses the entry
 * (NFHP_SET_INVALID).
 */
static void put_counts(struct nlmsghdr *nlh, bool add)
{
	bool packets, bytes;

	if (!add)
		return;
	packets = one_in(4);
	bytes = one_in(4);
	if (packets)
		mnl_attr_put_u64(nlh, NFHPA_SETE_PACKETS, one_in(2) ?
				 below(4) : rnd());
	if (bytes)
		mnl_attr_put_u64(nlh, NFHPA_SETE_BYTES, one_in(2) ?
				 60 * below(4) : rnd());
	sst.counts_sent += packets || bytes;
}

/*
 * NFHPA_SETE_FLAGS now and then: NFHP_SETE_F_NOMATCH, which only "lpm"
 * sets of addresses and flows take (else NFHP_SET_INVALID), 0, or any
 * bits (refused by the policy).
 */
static void put_sete_flags(struct nlmsghdr *nlh)
{
	u32 flags;

	if (!one_in(4))
		return;
	flags = one_in(16) ? rnd_value() : below(2) * NFHP_SETE_F_NOMATCH;
	mnl_attr_put_u32(nlh, NFHPA_SETE_FLAGS, flags);
	sst.nomatch_sent += flags == NFHP_SETE_F_NOMATCH;
}

/*
 * One NFHPA_SET_ENTRY for a set of family: keys from a small space, so
 * that adds, removes and tests meet.  A host only with host; else now and
 * then a prefix, bits below the prefix length, the other family's width.
 * Of a flow set (flow) with a protocol and port, mostly ones that meet.
 * An add's (add) with counts now and then.
 */
static void put_entry(struct nlmsghdr *nlh, uint8_t family, bool host,
		      bool flow, bool add)
{
	static const uint8_t plens4[] = { 0, 1, 8, 16, 24, 31, 32, 127, 128 };
	static const uint8_t plens6[] = { 0, 1, 31, 32, 48, 64, 96, 120, 127,
					  128 };
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
	unsigned int width;
	uint32_t w[4] = {};
	uint8_t plen;

	if (one_in(12))
		family = other_family(family);	/* the other width */
	width = family == NFHP_FAMILY_IPV6 ? 128 : 32;
	w[3] = below(4) << 8 | below(16);
	if (family == NFHP_FAMILY_IPV6)
		w[0] = 0x20010db8;
	else
		w[3] |= 0x0a000000;
	plen = width;
	if (!host && one_in(2))
		plen = family == NFHP_FAMILY_IPV6 ?
		       plens6[below(sizeof(plens6))] :
		       plens4[below(sizeof(plens4))];
	if (!one_in(8))		/* else bits below the prefix length */
		mask_key(w, width, plen);
	mnl_attr_put(nlh, NFHPA_SETE_ADDR, sizeof(w), w);
	if (plen != width || one_in(2))
		mnl_attr_put_u8(nlh, NFHPA_SETE_PLEN, plen);
	if (one_in(2))
		mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, one_in(2) ? below(4) :
				 rnd_value());
	if (flow != one_in(24))
		put_proto_port(nlh);
	put_counts(nlh, add);
	put_sete_flags(nlh);
	mnl_attr_nest_end(nlh, nest);
}

/*
 * One NFHPA_SET_ENTRY of a number set: a range near 0, 65535 or 2^32 - 1,
 * so that they overlap and meet; now and then backwards, without its
 * end, or with an address (both refused).
 */
static void put_num_entry(struct nlmsghdr *nlh, bool add)
{
	static const uint32_t bases[] = { 0, 80, 65530, 0xfffffff8u };
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
	uint32_t lo = bases[below(4)] + below(8), hi = lo + below(4);
	uint32_t w[4] = { 0, 0, 0, lo };

	if (one_in(8))
		hi = lo - 1 - below(4);		/* backwards, or wrapped */
	mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_LO, lo);
	if (!one_in(4))
		mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_HI, hi);
	if (one_in(16))
		mnl_attr_put(nlh, NFHPA_SETE_ADDR, sizeof(w), w);
	if (one_in(2))
		mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, below(4));
	put_counts(nlh, add);
	mnl_attr_nest_end(nlh, nest);
}

/*
 * One NFHPA_SET_ENTRY of an interface set: names and wildcards that nest,
 * so that they meet; now and then 15 or 16 bytes, none, or with an
 * address (refused).
 */
static void put_iface_entry(struct nlmsghdr *nlh, bool add)
{
	static const char *const names[] = {
		"+", "e+", "eth+", "eth1+", "eth1", "eth10", "lo", "ppp+",
		"abcdefghijklmno", "abcdefghijklmn+", "abcdefghijklmnop", "",
	};
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
	uint32_t w[4] = { 0, 0, 0, 1 };

	mnl_attr_put_strz(nlh, NFHPA_SETE_IFACE,
			  names[one_in(8) ? below(sizeof(names) /
						 sizeof(names[0])) : below(8)]);
	if (one_in(16))
		mnl_attr_put(nlh, NFHPA_SETE_ADDR, sizeof(w), w);
	if (one_in(2))
		mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, below(4));
	put_counts(nlh, add);
	mnl_attr_nest_end(nlh, nest);
}

/*
 * An entry of the set i is mostly of: a range, a name or an address.
 * Counts only go with an add (add): what a remove or a test does with
 * them the contract does not say.
 */
static void put_some_entry(struct nlmsghdr *nlh, unsigned int i, bool host,
			   bool add)
{
	if (fz_sets[i].iface != one_in(12))
		put_iface_entry(nlh, add);
	else if (fz_sets[i].number != one_in(12))
		put_num_entry(nlh, add);
	else
		put_entry(nlh, fz_sets[i].family, host, fz_sets[i].flow, add);
}

/*
 * Hundreds of hosts (numbers, names), for a dump of several messages;
 * now and then each with both counts, the largest entries an add takes,
 * or every eighth host a nomatch one, which dumps of an "lpm" set then
 * carry (a "hash" set refuses them, and takes the others).
 */
static void put_bulk(struct nlmsghdr *nlh, unsigned int set)
{
	unsigned int n = FZ_BULK_MIN + below(FZ_BULK_MAX - FZ_BULK_MIN);
	uint32_t base = below(4096), i, w[4] = {};
	uint8_t family = fz_sets[set].family;
	bool counts = one_in(4), nomatch = one_in(2);
	char name[16];

	for (i = 0; i < n && room(nlh, 64); i++) {
		struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);

		if (counts) {
			mnl_attr_put_u64(nlh, NFHPA_SETE_PACKETS, i);
			mnl_attr_put_u64(nlh, NFHPA_SETE_BYTES, 60ULL * i);
			sst.counts_sent++;
		}
		if (fz_sets[set].iface) {
			snprintf(name, sizeof(name), "b%u%s", base + i,
				 i % 8 ? "" : "+");
			mnl_attr_put_strz(nlh, NFHPA_SETE_IFACE, name);
			mnl_attr_nest_end(nlh, nest);
			continue;
		}
		if (fz_sets[set].number) {
			mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_LO, base + i);
			mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, i);
			mnl_attr_nest_end(nlh, nest);
			continue;
		}
		if (family == NFHP_FAMILY_IPV6) {
			w[0] = 0x20010db8;
			w[1] = 1;
			w[3] = base + i;
		} else {
			w[3] = 0x0b000000 + base + i;
		}
		mnl_attr_put(nlh, NFHPA_SETE_ADDR, sizeof(w), w);
		mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, i);
		if (nomatch && i % 8 == 1) {
			mnl_attr_put_u32(nlh, NFHPA_SETE_FLAGS,
					 NFHP_SETE_F_NOMATCH);
			sst.nomatch_sent++;
		}
		mnl_attr_nest_end(nlh, nest);
	}
	sst.bulk++;
}

/* NFHPA_SET_FLAGS of an add or a remove: UPDATE, EXIST, now and then any. */
static void put_entry_flags(struct nlmsghdr *nlh)
{
	if (one_in(16))
		mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, rnd_value());
	else if (one_in(2))
		mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, below(8) &
				 (NFHP_SET_F_UPDATE | NFHP_SET_F_EXIST));
}

/* NFHPA_SET of NFHP_CMD_SET_NEW. */
static void put_set_new(struct nlmsghdr *nlh, unsigned int i)
{
	static const char *const algos[] = { "hash", "lpm", "bitmap",
					     "range", "", "lpmx", "hash\xff" };
	bool number = fz_sets[i].number != one_in(16);
	bool iface = fz_sets[i].iface != one_in(16);
	uint8_t type = iface ? NFHP_SET_IFACE :
		       fz_sets[i].flow != one_in(16) ? NFHP_SET_FLOW :
		       number ? NFHP_SET_NUMBER : NFHP_SET_ADDR;

	number = type == NFHP_SET_NUMBER;
	mnl_attr_put_strz(nlh, NFHPA_SET_NAME, set_name(i));
	if (!one_in(32))
		mnl_attr_put_u8(nlh, NFHPA_SET_TYPE, one_in(16) ? below(6) :
				type);
	if (!one_in(32))
		mnl_attr_put_strz(nlh, NFHPA_SET_ALGO, algos[one_in(16) ?
				  below(7) : 2 * (number && !iface) +
				  below(2)]);
	if (one_in(3))
		mnl_attr_put_u32(nlh, NFHPA_SET_LIMIT, one_in(2) ? below(8) :
				 rnd_value());
	if (one_in(16))
		mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, rnd_value());
	else if (one_in(3))
		mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, (one_in(4) ?
				 NFHP_SET_F_LOCKED : 0) |
				 (one_in(2) ? NFHP_SET_F_EXIST : 0) |
				 (one_in(2) ? NFHP_SET_F_COUNTERS : 0));
	/* A number set's range: small, so that adds fall on both sides. */
	if (one_in(number ? 3 : 16))
		mnl_attr_put_u32(nlh, NFHPA_SET_RANGE_LO, one_in(2) ?
				 below(100) : rnd_value());
	if (one_in(number ? 3 : 16))
		mnl_attr_put_u32(nlh, NFHPA_SET_RANGE_HI, one_in(2) ?
				 100 + below(60000) : rnd_value());
}

/**
 * fz_build_set() - a valid-looking request of a set command
 * @buf: the buffer, FZ_MSG_MAX bytes at least
 * @cmd: NFHP_CMD_SET_NEW .. NFHP_CMD_SET_LIST
 *
 * Return: the request.
 */
struct nlmsghdr *fz_build_set(char *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = put_header(buf, cmd, cmd == NFHP_CMD_SET_LIST ?
					  NLM_F_DUMP : 0);
	unsigned int i = pick_set(0), j, n;
	uint8_t family;
	struct nlattr *nest;

	if (cmd == NFHP_CMD_SET_LIST && one_in(2))
		i = fz_bulk_set;
	family = fz_sets[i].family;

	if (cmd == NFHP_CMD_SET_NEW && one_in(8))
		family = other_family(family);
	/* The family only counts for a new set; the others ignore it. */
	if (cmd == NFHP_CMD_SET_NEW || one_in(8))
		put_family(nlh, family);

	/* Every set (destroying all now and then only), or no NFHPA_SET. */
	if ((cmd == NFHP_CMD_SET_FLUSH || cmd == NFHP_CMD_SET_LIST ||
	     (cmd == NFHP_CMD_SET_DEL && one_in(2))) && one_in(3)) {
		if (one_in(4)) {
			nest = mnl_attr_nest_start(nlh, NFHPA_SET);
			mnl_attr_nest_end(nlh, nest);
		}
		return nlh;
	}
	if (one_in(64))
		return nlh;

	nest = mnl_attr_nest_start(nlh, NFHPA_SET);
	if (cmd == NFHP_CMD_SET_NEW) {
		put_set_new(nlh, i);
		mnl_attr_nest_end(nlh, nest);
		return nlh;
	}
	mnl_attr_put_strz(nlh, NFHPA_SET_NAME, set_name(i));
	switch (cmd) {
	case NFHP_CMD_SET_SWAP:
		/* Mostly the same family; now and then the set itself. */
		j = one_in(16) ? i : pick_set(one_in(3) ? 0 : family);
		if (!one_in(16))
			mnl_attr_put_strz(nlh, NFHPA_SET_OTHER, set_name(j));
		break;
	case NFHP_CMD_SET_MODIFY:
		if (!one_in(3))
			mnl_attr_put_u32(nlh, NFHPA_SET_LIMIT, one_in(3) ? 0 :
					 one_in(4) ? rnd_value() : below(16));
		if (!one_in(3))
			mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, one_in(3) ?
					 NFHP_SET_F_LOCKED : 0);
		break;
	case NFHP_CMD_SET_ADD:
	case NFHP_CMD_SET_REMOVE:
		put_entry_flags(nlh);
		if (cmd == NFHP_CMD_SET_ADD && one_in(12)) {
			put_bulk(nlh, i);
			fz_bulk_set = i;
			break;
		}
		for (n = one_in(16) ? 0 : 1 + below(8); n; n--)
			put_some_entry(nlh, i, false,
				       cmd == NFHP_CMD_SET_ADD);
		break;
	case NFHP_CMD_SET_TEST:
		n = one_in(16) ? below(3) : 1;
		while (n--)
			put_some_entry(nlh, i, !one_in(4), false);
		break;
	}
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/**
 * fz_put_setm() - the set matches of a rule
 * @nlh: the request, inside NFHPA_RULE
 * @family: the rule's family: its sets mostly are of it
 *
 * One, or none to NFHP_MAX_SETM + 1 (one too many), each of a set of the
 * pool (which may or may not exist), either direction, inverted or not;
 * now and then without a name or a direction, or with a direction that is
 * none; some with a value range, whole, half or empty, some with "!
 * --update-counters" and compares of the counts, whole or half.
 */
void fz_put_setm(struct nlmsghdr *nlh, uint8_t family)
{
	unsigned int n = one_in(2) ? 1 : below(NFHP_MAX_SETM + 2), i;

	for (i = 0; i < n; i++) {
		struct nlattr *nest = mnl_attr_nest_start(nlh,
							  NFHPA_RULE_SETM);

		if (!one_in(40))
			mnl_attr_put_strz(nlh, NFHPA_SETM_NAME,
					  set_name(pick_set(family)));
		if (!one_in(40))
			mnl_attr_put_u8(nlh, NFHPA_SETM_DIR, one_in(40) ?
					rnd() : below(one_in(4) ? 4 : 2));
		/* A second direction: flow sets' port, refused elsewhere. */
		if (one_in(3))
			mnl_attr_put_u8(nlh, NFHPA_SETM_DIR2, one_in(40) ?
					rnd() : below(one_in(4) ? 4 : 2));
		if (one_in(3))
			mnl_attr_put(nlh, NFHPA_SETM_INVERT, 0, NULL);
		if (one_in(4))
			mnl_attr_put_u32(nlh, NFHPA_SETM_VALUE_MIN, below(4));
		if (one_in(4))
			mnl_attr_put_u32(nlh, NFHPA_SETM_VALUE_MAX, below(4));
		/* ! --update-counters, compares of counts, whole or half. */
		if (one_in(4))
			mnl_attr_put_u32(nlh, NFHPA_SETM_FLAGS, one_in(20) ?
					 rnd() : NFHP_SETM_F_NO_COUNT);
		if (one_in(4))
			mnl_attr_put_u8(nlh, NFHPA_SETM_PACKETS_CMP,
					one_in(20) ? rnd() : below(5));
		if (one_in(4))
			mnl_attr_put_u64(nlh, NFHPA_SETM_PACKETS, below(4));
		if (one_in(6))
			mnl_attr_put_u8(nlh, NFHPA_SETM_BYTES_CMP, below(5));
		if (one_in(6))
			mnl_attr_put_u64(nlh, NFHPA_SETM_BYTES, rnd_value());
		mnl_attr_nest_end(nlh, nest);
	}
	fz_setm_built += n;
}

/* A NUL-terminated name or algorithm, or bytes that are none. */
static void put_soup_string(struct nlmsghdr *nlh, uint16_t type)
{
	char s[48];

	if (one_in(2)) {
		mnl_attr_put_strz(nlh, type, one_in(2) ?
				  set_name(below(FZ_NSETS)) :
				  one_in(2) ? "hash" : "lpm");
		return;
	}
	rnd_bytes(s, sizeof(s));
	mnl_attr_put(nlh, type, below(sizeof(s) + 1), s);
}

/* An attribute of type with a payload of its own type's size, or not. */
static void put_soup_int(struct nlmsghdr *nlh, uint16_t type, size_t size)
{
	uint64_t v = rnd_value();

	mnl_attr_put(nlh, type, one_in(8) ? below(9) : size, &v);
}

/* NFHPA_SET_ENTRY with random attributes of the entry's vocabulary. */
static void put_soup_entry(struct nlmsghdr *nlh)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
	unsigned int n = below(5);
	uint32_t w[5];

	while (n-- && room(nlh, 64)) {
		uint16_t type = below(NFHPA_SETE_MAX + 2);

		switch (type) {
		case NFHPA_SETE_ADDR:
			rnd_bytes(w, sizeof(w));
			mnl_attr_put(nlh, type, one_in(4) ? below(21) : 16, w);
			break;
		case NFHPA_SETE_VALUE:
		case NFHPA_SETE_NUM_LO:
		case NFHPA_SETE_NUM_HI:
		case NFHPA_SETE_FLAGS:
			put_soup_int(nlh, type, 4);
			break;
		case NFHPA_SETE_IFACE:
			put_soup_string(nlh, type);
			break;
		case NFHPA_SETE_PORT:
			put_soup_int(nlh, type, 2);
			break;
		case NFHPA_SETE_PACKETS:
		case NFHPA_SETE_BYTES:
			put_soup_int(nlh, type, 8);
			break;
		default:	/* PLEN, RESULT (the kernel's), PROTO, PAD, none */
			put_soup_int(nlh, type, 1);
			break;
		}
	}
	mnl_attr_nest_end(nlh, nest);
}

/* NFHPA_RULE_SETM with random attributes of the set match's vocabulary. */
static void put_soup_setm(struct nlmsghdr *nlh)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_RULE_SETM);
	unsigned int n = below(4);

	while (n-- && room(nlh, 64)) {
		uint16_t type = below(NFHPA_SETM_MAX + 2);

		if (type == NFHPA_SETM_NAME)
			put_soup_string(nlh, type);
		else if (type == NFHPA_SETM_INVERT && one_in(2))
			mnl_attr_put(nlh, type, 0, NULL);
		else if (type == NFHPA_SETM_PACKETS || type == NFHPA_SETM_BYTES)
			put_soup_int(nlh, type, 8);
		else if (type == NFHPA_SETM_FLAGS)
			put_soup_int(nlh, type, 4);
		else
			put_soup_int(nlh, type, 1);
	}
	mnl_attr_nest_end(nlh, nest);
}

/**
 * fz_put_set_soup() - random attributes of the sets' vocabulary
 * @nlh: the request
 * @depth: how deep entries may nest further
 *
 * NFHPA_SET with any of its attributes, of their types or not, entries
 * among them; or NFHPA_RULE with set matches of random contents.
 */
void fz_put_set_soup(struct nlmsghdr *nlh, unsigned int depth)
{
	struct nlattr *nest;
	unsigned int n = below(8);

	if (one_in(4)) {
		nest = mnl_attr_nest_start(nlh, NFHPA_RULE);
		while (n-- && room(nlh, 256))
			put_soup_setm(nlh);
		if (one_in(2))
			mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_DROP);
		mnl_attr_nest_end(nlh, nest);
		return;
	}
	nest = mnl_attr_nest_start(nlh, NFHPA_SET);
	while (n-- && room(nlh, 256)) {
		uint16_t type = below(NFHPA_SET_MAX + 2);

		switch (type) {
		case NFHPA_SET_NAME:
		case NFHPA_SET_OTHER:
		case NFHPA_SET_ALGO:
			put_soup_string(nlh, type);
			break;
		case NFHPA_SET_TYPE:
			put_soup_int(nlh, type, 1);
			break;
		case NFHPA_SET_ENTRY:
			if (depth || one_in(2))
				put_soup_entry(nlh);
			break;
		case NFHPA_SET_MEMORY:	/* the kernel's, all three */
			put_soup_int(nlh, type, 8);
			break;
		default:	/* LIMIT, FLAGS, COUNT, REFS, PAD, none */
			put_soup_int(nlh, type, 4);
			break;
		}
	}
	mnl_attr_nest_end(nlh, nest);
}

/**
 * fz_put_set_huge() - far more set attributes than there may be
 * @nlh: the request
 *
 * A rule with dozens of set matches, a set with thousands of entries (to
 * a test, which takes one), or with its name over and over.
 */
void fz_put_set_huge(struct nlmsghdr *nlh)
{
	unsigned int i, n = NFHP_MAX_SETM + 1 + below(200);
	struct nlattr *nest, *e;
	uint32_t w[4] = { 0, 0, 0, 0x0a000000 };

	switch (below(3)) {
	case 0:
		nest = mnl_attr_nest_start(nlh, NFHPA_RULE);
		for (i = 0; i < n && room(nlh, 128); i++) {
			e = mnl_attr_nest_start(nlh, NFHPA_RULE_SETM);
			mnl_attr_put_strz(nlh, NFHPA_SETM_NAME,
					  fz_sets[i % FZ_NSETS].name);
			mnl_attr_put_u8(nlh, NFHPA_SETM_DIR, i & 1);
			mnl_attr_nest_end(nlh, e);
		}
		mnl_attr_put_u8(nlh, NFHPA_RULE_ACTION, NFHP_ACT_DROP);
		mnl_attr_nest_end(nlh, nest);
		break;
	case 1:
		nest = mnl_attr_nest_start(nlh, NFHPA_SET);
		mnl_attr_put_strz(nlh, NFHPA_SET_NAME,
				  fz_sets[below(FZ_NSETS)].name);
		for (i = 0; i < 20 * n && room(nlh, 64); i++) {
			e = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
			w[3] = 0x0a000000 + (i & 0xff);
			mnl_attr_put(nlh, NFHPA_SETE_ADDR, sizeof(w), w);
			mnl_attr_nest_end(nlh, e);
		}
		mnl_attr_nest_end(nlh, nest);
		break;
	default:
		nest = mnl_attr_nest_start(nlh, NFHPA_SET);
		for (i = 0; i < n && room(nlh, 64); i++)
			mnl_attr_put_strz(nlh, i & 1 ? NFHPA_SET_OTHER :
					  NFHPA_SET_NAME,
					  fz_sets[below(FZ_NSETS)].name);
		mnl_attr_nest_end(nlh, nest);
		break;
	}
}

/* --- answers ------------------------------------------------------------- */

/**
 * fz_set_errno_ok() - may set command cmd answer err?
 * @cmd: the command the request carried
 * @err: the positive errno
 *
 * What genetlink answers before the module reads the request (a bad
 * attribute, a command without doit or dumpit, memory), and what the
 * contract gives each command.  EPERM is only a locked set's answer here:
 * the fuzzer runs with CAP_NET_ADMIN (the EPERM mode checks the rest).
 * EBUSY answers every write while another socket (the other fuzzer) has
 * a transaction open.
 *
 * Return: true when it may.
 */
bool fz_set_errno_ok(uint8_t cmd, int err)
{
	switch (err) {
	case 0: case EINVAL: case ERANGE: case EOPNOTSUPP: case ENOMEM:
	case EAFNOSUPPORT:
		return true;
	case EBUSY:
		return cmd != NFHP_CMD_SET_TEST && cmd != NFHP_CMD_SET_LIST;
	}
	switch (cmd) {
	case NFHP_CMD_SET_NEW:
		return err == EEXIST;
	case NFHP_CMD_SET_DEL:
		return err == ENOENT;
	case NFHP_CMD_SET_ADD:
		return err == ENOENT || err == EEXIST || err == E2BIG ||
		       err == EPERM;
	case NFHP_CMD_SET_REMOVE:
		return err == ENOENT || err == EPERM || err == E2BIG;
	default:	/* FLUSH, SWAP, MODIFY, TEST, LIST */
		return err == ENOENT;
	}
}

/* The errno the contract gives a result of an add or a remove. */
static int result_errno(uint8_t result, uint32_t flags)
{
	switch (result) {
	case NFHP_SET_EXISTS:
		return flags & NFHP_SET_F_EXIST ? 0 : EEXIST;
	case NFHP_SET_NOT_FOUND:
		return flags & NFHP_SET_F_EXIST ? 0 : ENOENT;
	case NFHP_SET_LIMIT:
		return E2BIG;
	case NFHP_SET_LOCKED:
		return EPERM;
	case NFHP_SET_INVALID:
		return EINVAL;
	case NFHP_SET_NOMEM:
		return ENOMEM;
	case NFHP_SET_OUT_OF_RANGE:
		return ERANGE;
	}
	return 0;
}

/* May a result answer an entry of cmd, sent with flags? */
static bool result_ok(uint8_t cmd, uint8_t result, uint32_t flags)
{
	switch (result) {
	case NFHP_SET_ADDED:
	case NFHP_SET_EXISTS:
	case NFHP_SET_LIMIT:
	case NFHP_SET_OUT_OF_RANGE:
		return cmd == NFHP_CMD_SET_ADD || (cmd == NFHP_CMD_SET_TEST &&
						   result == NFHP_SET_EXISTS);
	case NFHP_SET_UPDATED:
		return cmd == NFHP_CMD_SET_ADD && flags & NFHP_SET_F_UPDATE;
	case NFHP_SET_DELETED:
		return cmd == NFHP_CMD_SET_REMOVE;
	case NFHP_SET_NOT_FOUND:
		return cmd != NFHP_CMD_SET_ADD;
	case NFHP_SET_LOCKED:
	case NFHP_SET_INVALID:
	case NFHP_SET_NOMEM:
		return cmd != NFHP_CMD_SET_TEST;
	}
	return false;
}

static void fz_set_bad(const char *what, unsigned int a, unsigned int b)
{
	fprintf(stderr, "nl_fuzz: set %s: %s (%u, %u)\n",
		fz_set_cmd_names[fx.cmd - NFHP_CMD_SET_NEW], what, a, b);
	fx.bad = true;
}

/**
 * fz_set_expect() - note the request about to be sent
 * @req: the request
 * @valid: it goes as built, unmutated
 *
 * Counts its entries and set matches, for fz_set_answer() and
 * fz_set_done().
 */
void fz_set_expect(const struct nlmsghdr *req, bool valid)
{
	const struct genlmsghdr *genl;
	const struct nlattr *a, *b;

	memset(&fx, 0, sizeof(fx));
	fx.setm = fz_setm_built;
	fz_setm_built = 0;
	if (req->nlmsg_len < FZ_GENL_HDRLEN)
		return;
	genl = mnl_nlmsg_get_payload(req);
	fx.cmd = genl->cmd;
	fx.valid = valid;
	if (!valid || !fz_set_cmd(fx.cmd))
		return;
	mnl_attr_for_each(a, req, sizeof(*genl)) {
		if (mnl_attr_get_type(a) != NFHPA_SET)
			continue;
		mnl_attr_for_each_nested(b, a) {
			if (mnl_attr_get_type(b) == NFHPA_SET_ENTRY)
				fx.entries++;
			else if (mnl_attr_get_type(b) == NFHPA_SET_FLAGS)
				fx.flags = mnl_attr_get_u32(b);
		}
	}
	sst.sent[fx.cmd - NFHP_CMD_SET_NEW]++;
}

/*
 * How many of NFHPA_SETE_PACKETS and _BYTES an entry of an answer
 * carries: 0 or 2 (a set that counts), each a u64.
 */
static unsigned int entry_counts(const struct nlattr *e)
{
	const struct nlattr *a;
	unsigned int n = 0;

	mnl_attr_for_each_nested(a, e) {
		if (mnl_attr_get_type(a) != NFHPA_SETE_PACKETS &&
		    mnl_attr_get_type(a) != NFHPA_SETE_BYTES)
			continue;
		if (mnl_attr_get_payload_len(a) != 8)
			fz_set_bad("a count that is no u64", fx.got,
				   mnl_attr_get_payload_len(a));
		n++;
	}
	if (n == 1 || n > 2)
		fz_set_bad("an entry without both counts", fx.got, n);
	sst.counted += n == 2;
	return n;
}

/*
 * An entry of an answer carries NFHPA_SETE_FLAGS only as a u32 of
 * NFHP_SETE_F_NOMATCH: in a dump, or a test's entry found.
 */
static void entry_flags(const struct nlattr *e)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, e) {
		if (mnl_attr_get_type(a) != NFHPA_SETE_FLAGS)
			continue;
		if (mnl_attr_get_payload_len(a) != 4 ||
		    mnl_attr_get_u32(a) != NFHP_SETE_F_NOMATCH)
			fz_set_bad("entry flags other than nomatch", fx.got,
				   mnl_attr_get_payload_len(a));
		else
			sst.nomatch++;
	}
}

/* The results of an add, a remove or a test. */
static void answer_entries(const struct nlattr *set)
{
	const struct nlattr *e, *a;

	mnl_attr_for_each_nested(e, set) {
		int result = -1;

		if (mnl_attr_get_type(e) != NFHPA_SET_ENTRY)
			continue;
		fx.got++;
		mnl_attr_for_each_nested(a, e)
			if (mnl_attr_get_type(a) == NFHPA_SETE_RESULT &&
			    mnl_attr_get_payload_len(a) == 1)
				result = mnl_attr_get_u8(a);
		if (result < 0) {
			fz_set_bad("an entry without a result", fx.got, 0);
			continue;
		}
		if (!result_ok(fx.cmd, result, fx.flags))
			fz_set_bad("a result out of place", fx.got, result);
		entry_flags(e);
		/* A test's counts are those of the entry it found. */
		if (fx.cmd == NFHP_CMD_SET_TEST && entry_counts(e) &&
		    result != NFHP_SET_EXISTS)
			fz_set_bad("counts of an entry not found", fx.got,
				   result);
		if (!fx.first)
			fx.first = result_errno(result, fx.flags);
	}
}

/*
 * The entries of a dump's message: each with both counts or neither,
 * all alike, as the set they come from counts or not.
 */
static void dump_entries(const struct nlattr *set)
{
	const struct nlattr *e;
	unsigned int with = 0, without = 0;

	mnl_attr_for_each_nested(e, set) {
		if (mnl_attr_get_type(e) != NFHPA_SET_ENTRY)
			continue;
		entry_flags(e);
		if (entry_counts(e))
			with++;
		else
			without++;
	}
	if (with && without)
		fz_set_bad("entries of one message with and without counts",
			   with, without);
}

/**
 * fz_set_answer() - a message other than an ack to the request just sent
 * @nlh: the message
 */
void fz_set_answer(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *b;
	bool entries = false;

	if (!fx.valid || !fz_set_cmd(fx.cmd) ||
	    nlh->nlmsg_len < FZ_GENL_HDRLEN)
		return;
	if (genl->cmd != fx.cmd) {
		fz_set_bad("a reply of another command", genl->cmd, 0);
		return;
	}
	mnl_attr_for_each(a, nlh, sizeof(*genl)) {
		if (mnl_attr_get_type(a) != NFHPA_SET)
			continue;
		if (fx.cmd != NFHP_CMD_SET_LIST) {
			fx.replied = true;
			answer_entries(a);
			continue;
		}
		mnl_attr_for_each_nested(b, a) {
			if (mnl_attr_get_type(b) == NFHPA_SET_TYPE)
				fx.set_msgs++;
			entries |= mnl_attr_get_type(b) == NFHPA_SET_ENTRY;
		}
		dump_entries(a);
	}
	fx.entry_msgs += entries;
}

/**
 * fz_set_done() - the ack (or a dump's end) of the request just sent
 * @err: its errno
 * @overrun: answers were lost: nothing to check
 *
 * Return: false when the answers broke the contract.
 */
bool fz_set_done(int err, bool overrun)
{
	unsigned int k = fx.cmd - NFHP_CMD_SET_NEW;
	bool ok = !fx.bad;

	if (fx.valid && fx.setm && (fx.cmd == NFHP_CMD_APPEND ||
				    fx.cmd == NFHP_CMD_INSERT ||
				    fx.cmd == NFHP_CMD_REPLACE))
		sst.setm[err > 0 && err < 256 ? err : 0]++;
	if (!fx.valid || !fz_set_cmd(fx.cmd))
		goto out;
	sst.acked[k] += !err;
	sst.busy += fx.cmd == NFHP_CMD_SET_DEL && err == EBUSY;
	if (overrun)
		goto out;
	switch (fx.cmd) {
	case NFHP_CMD_SET_ADD:
	case NFHP_CMD_SET_REMOVE:
		/* E2BIG, or a flag the policy refused first: never applied. */
		if (fx.entries > NFHP_SET_MAX_BATCH && (!err || fx.replied))
			fz_set_bad("a batch over NFHP_SET_MAX_BATCH not refused",
				   err, fx.entries);
		/* No reply: refused before any entry (no such set...). */
		if (!fx.replied) {
			if (!err)
				fz_set_bad("an ack without results", 0, 0);
			break;
		}
		sst.checked++;
		/*
		 * An entry the module cannot decode (a number range
		 * backwards, an address for a number set or numbers for an
		 * address set: a set of the pool may have either type) ends
		 * the results, with EINVAL unless an entry failed before.
		 */
		if (fx.got < fx.entries && err == (fx.first ?: EINVAL))
			break;
		if (fx.got != fx.entries)
			fz_set_bad("results for entries sent", fx.got,
				   fx.entries);
		if (err != fx.first)
			fz_set_bad("errno of the first entry that failed", err,
				   fx.first);
		break;
	case NFHP_CMD_SET_TEST:
		if (!err && (!fx.replied || fx.got != 1))
			fz_set_bad("a test's reply without its entry",
				   fx.replied, fx.got);
		if (err && fx.replied)
			fz_set_bad("a test's reply and an error", err, 0);
		sst.checked += !err;
		break;
	case NFHP_CMD_SET_LIST:
		sst.multi += fx.entry_msgs >= 2;
		break;
	}
	ok = !fx.bad;
out:
	fx.cmd = 0;
	fx.valid = false;
	return ok;
}

/* --- reset --------------------------------------------------------------- */

/*
 * Set i of the pool anew, of its family and either algorithm, counting
 * or not, so that the rules of the next round find sets to refer to and
 * the adds with counts meet sets of both kinds.
 */
static int set_create(struct fz_sock *s, unsigned int i)
{
	static char buf[4096];
	struct nlmsghdr *nlh = put_header(buf, NFHP_CMD_SET_NEW, 0);
	struct nlattr *nest;
	int err;

	mnl_attr_put_u8(nlh, NFHPA_FAMILY, fz_sets[i].family);
	nest = mnl_attr_nest_start(nlh, NFHPA_SET);
	mnl_attr_put_strz(nlh, NFHPA_SET_NAME, fz_sets[i].name);
	if (fz_sets[i].number) {
		mnl_attr_put_u8(nlh, NFHPA_SET_TYPE, NFHP_SET_NUMBER);
		mnl_attr_put_strz(nlh, NFHPA_SET_ALGO,
				  one_in(2) ? "bitmap" : "range");
	} else if (fz_sets[i].flow) {
		mnl_attr_put_u8(nlh, NFHPA_SET_TYPE, NFHP_SET_FLOW);
		mnl_attr_put_strz(nlh, NFHPA_SET_ALGO,
				  one_in(2) ? "hash" : "lpm");
	} else {
		mnl_attr_put_u8(nlh, NFHPA_SET_TYPE, NFHP_SET_ADDR);
		mnl_attr_put_strz(nlh, NFHPA_SET_ALGO,
				  one_in(2) ? "hash" : "lpm");
	}
	if (one_in(2))
		mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS, NFHP_SET_F_COUNTERS);
	mnl_attr_nest_end(nlh, nest);
	fz_set_expect(nlh, true);
	if (!send_req(s, nlh, nlh->nlmsg_len, &err))
		return -EIO;
	return -err;
}

/* NFHP_CMD_SET_DEL (of name, of all for NULL), or a dump of every set. */
static int set_simple(struct fz_sock *s, uint8_t cmd, const char *name)
{
	static char buf[4096];
	struct nlmsghdr *nlh = put_header(buf, cmd, cmd == NFHP_CMD_SET_LIST ?
					  NLM_F_DUMP : 0);
	struct nlattr *nest;
	int err;

	if (name) {
		nest = mnl_attr_nest_start(nlh, NFHPA_SET);
		mnl_attr_put_strz(nlh, NFHPA_SET_NAME, name);
		mnl_attr_nest_end(nlh, nest);
	}
	fz_set_expect(nlh, true);
	if (!send_req(s, nlh, nlh->nlmsg_len, &err))
		return -EIO;
	return -err;
}

/**
 * fz_set_reset() - destroy every set, once the rules are flushed
 * @s: the socket
 * @strict: no other fuzzer runs and no rule is left: every set must go
 *
 * Rules of the other fuzzer process, or of a transaction, may still
 * refer to sets: then those of the pool that no rule refers to go.  Unless
 * strict, the sets of the pool are then created anew (a set that stayed,
 * or that the other process created meanwhile, answers EEXIST).
 *
 * Return: 0; -EIO when the module does not answer; -EBUSY when strict
 * and a set is left.
 */
int fz_set_reset(struct fz_sock *s, bool strict)
{
	unsigned int i;
	int ret;

	ret = set_simple(s, NFHP_CMD_SET_DEL, NULL);
	if (ret == -EIO)
		return ret;
	if (strict) {
		if (ret) {
			fprintf(stderr, "nl_fuzz: FAIL: destroying every set: %s\n",
				strerror(-ret));
			return -EBUSY;
		}
		ret = set_simple(s, NFHP_CMD_SET_LIST, NULL);
		if (ret == -EIO)
			return ret;
		if (ret || fx.set_msgs) {
			fprintf(stderr, "nl_fuzz: FAIL: sets left: %u (%s)\n",
				fx.set_msgs, strerror(-ret));
			return -EBUSY;
		}
		return 0;
	}
	if (ret == -EBUSY) {
		sst.reset_busy++;
		for (i = 0; i < FZ_NSETS; i++)
			if (set_simple(s, NFHP_CMD_SET_DEL,
				       fz_sets[i].name) == -EIO)
				return -EIO;
	}
	for (i = 0; i < FZ_NSETS; i++)
		if (set_create(s, i) == -EIO)
			return -EIO;
	return 0;
}

/* What the set commands did, for the run's summary. */
void fz_set_report(void)
{
	unsigned int k;

	printf("nl_fuzz: valid set requests acked/sent:");
	for (k = 0; k < sizeof(sst.sent) / sizeof(sst.sent[0]); k++)
		printf(" %s=%lu/%lu", fz_set_cmd_names[k], sst.acked[k],
		       sst.sent[k]);
	printf("\n");
	printf("nl_fuzz: sets: %lu destroys refused busy, %lu bulk adds, %lu multi-message entry dumps, %lu replies checked, %lu resets left sets\n",
	       sst.busy, sst.bulk, sst.multi, sst.checked, sst.reset_busy);
	printf("nl_fuzz: set counters: %lu entries added with counts, %lu listed or tested with them\n",
	       sst.counts_sent, sst.counted);
	printf("nl_fuzz: set nomatch: %lu entries sent with it, %lu listed or tested with it\n",
	       sst.nomatch_sent, sst.nomatch);
	printf("nl_fuzz: valid rule changes with set matches:");
	for (k = 0; k < 256; k++)
		if (sst.setm[k])
			printf(" %s=%lu", k ? strerrorname_np(k) : "acked",
			       sst.setm[k]);
	printf("\n");
}
