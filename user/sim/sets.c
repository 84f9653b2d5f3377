// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-sim: named sets and the set matches of rules, see sets.h.
 */
#include "sets.h"
#include "set_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SETS_MAX_WORDS	64

static struct nfhp_sets sim_sets;
static const struct nfhp_ext_ops *sim_inner;

/**
 * struct sim_ext - the extensions of one rule
 * @inner: the handle of the opaque extensions, or NULL
 * @nsetm: set matches in @setm
 * @setm: the set matches as written, and their sets, referenced
 */
struct sim_ext {
	void *inner;
	unsigned int nsetm;
	struct {
		struct nfhp_set *set;
		struct nfhp_setm_spec m;
	} setm[NFHP_MAX_SETM];
};

/* Split @line into words at blanks; the count, or -1 for too many. */
static int split_words(char *line, char **argv)
{
	int argc = 0;
	char *w;

	for (w = strtok(line, " \t\r\n"); w; w = strtok(NULL, " \t\r\n")) {
		if (argc == SETS_MAX_WORDS)
			return -1;
		argv[argc++] = w;
	}
	return argc;
}

static int sets_create(int argc, char **argv, char *err, size_t errlen)
{
	struct nfhp_set_info info = {};
	const struct nfhp_set_algo *algo;
	const char *algo_name, *msg = NULL;
	struct nfhp_set_spec spec;
	bool exist = false;
	int ret;

	if (argc < 3 || !nfhp_set_parse_typename(argv[2], &info.type,
						 &algo_name)) {
		snprintf(err, errlen,
			 "create: a name and hash:ip, hash:net, bitmap:port, hash:ip,port, hash:net,port or hash:iface");
		return -EINVAL;
	}
	strncpy(info.algo, algo_name, sizeof(info.algo) - 1);
	if (nfhp_set_parse_create(argc - 3, argv + 3, &info, &exist, err,
				  errlen))
		return -EINVAL;
	algo = nfhp_set_algo_find(info.type, info.algo);
	if (!algo) {
		snprintf(err, errlen, "no algorithm %s", info.algo);
		return -EINVAL;
	}
	nfhp_set_spec_init(&spec, info.family, algo);
	spec.limit = info.limit;
	spec.flags = info.flags & ~NFHP_SET_F_LOCKED;
	if (info.ranged) {
		spec.range_lo = info.range_lo;
		spec.range_hi = info.range_hi;
	}
	ret = nfhp_set_create(&sim_sets, argv[1], &spec, &msg);
	if (ret)
		snprintf(err, errlen, "%s: %s", argv[1], msg);
	return ret;
}

/**
 * struct sets_add_ctx - one add line's keys going into a set
 * @set: the set
 * @value: their value
 */
struct sets_add_ctx {
	struct nfhp_set *set;
	u32 value;
};

static int sets_add_key(void *data, const struct nfhp_set_entry *e)
{
	struct sets_add_ctx *c = data;
	struct nfhp_set_key key = { .addr = e->addr, .plen = e->plen,
				    .proto = e->proto, .port = e->port,
				    .hi = e->hi };
	int res;

	res = nfhp_set_add(&sim_sets, c->set, &key, c->value, NULL,
			   NFHP_SET_F_UPDATE);
	return res == NFHP_SET_ADDED || res == NFHP_SET_UPDATED ? 0 : -EINVAL;
}

static int sets_add(int argc, char **argv, char *err, size_t errlen)
{
	struct sets_add_ctx c = {};
	bool exist = false;

	if (argc < 3) {
		snprintf(err, errlen, "add: a set and an entry");
		return -EINVAL;
	}
	c.set = nfhp_set_find(&sim_sets, argv[1]);
	if (!c.set) {
		snprintf(err, errlen, "add: no set %s", argv[1]);
		return -ENOENT;
	}
	if (nfhp_set_parse_elem_opts(argc - 3, argv + 3, &c.value, &exist, err,
				     errlen))
		return -EINVAL;
	if (nfhp_set_parse_elem(argv[2], c.set->family, c.set->algo->type,
				c.set->algo->name,
				sets_add_key, &c, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "add %s %s: refused", argv[1],
				 argv[2]);
		return -EINVAL;
	}
	return 0;
}

/**
 * nfhp_sim_sets_line() - one line of a save of sets
 * @line: the line; split in place
 * @aliases: ipset's old forms too ("-N", "-A"), where no rule line is
 * @err: the reason of a failure
 * @errlen: room in @err
 *
 * create and add lines load a set; lock and unlock lines are taken and
 * change nothing, since nothing writes a set after it is loaded.  Blank
 * lines and "#" lines are skipped.
 *
 * Return: 0, 1 for a line of no set command, or -errno with @err.
 */
int nfhp_sim_sets_line(char *line, bool aliases, char *err, size_t errlen)
{
	char *argv[SETS_MAX_WORDS];
	int argc = split_words(line, argv);

	err[0] = 0;
	if (argc < 0) {
		snprintf(err, errlen, "too many words");
		return -E2BIG;
	}
	if (!argc || argv[0][0] == '#')
		return 0;
	if (!strcmp(argv[0], "create") || (aliases && !strcmp(argv[0], "-N")))
		return sets_create(argc, argv, err, errlen);
	if (!strcmp(argv[0], "add") || (aliases && !strcmp(argv[0], "-A")))
		return sets_add(argc, argv, err, errlen);
	if (strcmp(argv[0], "lock") && strcmp(argv[0], "unlock"))
		return 1;
	if (argc != 2 || !nfhp_set_find(&sim_sets, argv[1])) {
		snprintf(err, errlen, "%s: no set %s", argv[0],
			 argc > 1 ? argv[1] : "named");
		return -ENOENT;
	}
	return 0;
}

/**
 * nfhp_sim_sets_load() - read sets in the format of ipset save
 * @f: the file
 * @err: the reason of a failure, with its line
 * @errlen: room in @err
 *
 * Return: 0 or -errno.
 */
int nfhp_sim_sets_load(FILE *f, char *err, size_t errlen)
{
	char line[4096], reason[256];
	unsigned int lineno = 0;
	int ret;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		ret = nfhp_sim_sets_line(line, true, reason, sizeof(reason));
		if (ret == 1)
			ret = -EINVAL;
		if (ret) {
			snprintf(err, errlen, "line %u: %s", lineno,
				 reason[0] ? reason :
					     "not a create, add or lock line");
			return ret;
		}
	}
	return 0;
}

static void sim_ext_destroy(void *priv, void *ext)
{
	struct sim_ext *x = ext;
	unsigned int i;

	if (x->inner)
		sim_inner->destroy(NULL, x->inner);
	for (i = 0; i < x->nsetm; i++)
		x->setm[i].set->refs--;
	free(x);
}

/* Resolve @spec's set matches into @x; -ENOENT or -EINVAL with @msg. */
static int sim_ext_setm(struct sim_ext *x, u8 family,
			const struct nfhp_rule_spec *spec, const char **msg)
{
	struct nfhp_set *set;

	const struct nfhp_setm_spec *m;
	bool any_family, flow;

	for (x->nsetm = 0; x->nsetm < nfhp_spec_nsetm(spec); x->nsetm++) {
		m = &spec->setm[x->nsetm];
		set = nfhp_set_find(&sim_sets, m->name);
		if (!set) {
			*msg = "no set of that name";
			return -ENOENT;
		}
		flow = set->algo->type == NFHP_SET_FLOW;
		if (flow != !!m->has_dir2) {
			*msg = flow ? "a flow set takes two directions, as src,dst" :
				      "the set has one field: one direction";
			return -EINVAL;
		}
		/* As the module's nfhp_setm_get(): these serve both. */
		any_family = set->algo->type == NFHP_SET_NUMBER ||
			     set->algo->type == NFHP_SET_IFACE;
		if (!any_family && set->family != family) {
			*msg = "the set is of another family";
			return -EINVAL;
		}
		if (set->algo->type != NFHP_SET_NUMBER &&
		    m->dir != NFHP_SETM_SRC && m->dir != NFHP_SETM_DST) {
			*msg = "a port direction needs a number set";
			return -EINVAL;
		}
		set->refs++;
		x->setm[x->nsetm].set = set;
		x->setm[x->nsetm].m = spec->setm[x->nsetm];
	}
	return 0;
}

static int sim_ext_create(void *priv, const struct nfhp_rule_spec *spec,
			  unsigned int hooks, void **ext, bool *matches,
			  const char **msg)
{
	u8 family = (u8)(uintptr_t)priv;
	struct sim_ext *x = calloc(1, sizeof(*x));
	bool inner_matches = false;
	int ret;

	if (!x) {
		*msg = "out of memory";
		return -ENOMEM;
	}
	ret = sim_ext_setm(x, family, spec, msg);
	if (!ret && (spec->ext_len || spec->action == NFHP_ACT_XT)) {
		if (sim_inner)
			ret = sim_inner->create(NULL, spec, hooks, &x->inner,
						&inner_matches, msg);
		else
			*msg = "nf-hipac-sim: extensions need --opaque-xt";
		ret = sim_inner ? ret : -EOPNOTSUPP;
	}
	if (ret) {
		sim_ext_destroy(NULL, x);
		return ret;
	}
	*matches = inner_matches || x->nsetm;
	*ext = x;
	return 0;
}

/*
 * The device name of an interface set's match, as the module reads it:
 * the input device for "src", the output device for "dst"; false for a
 * packet without it (value 0).
 */
static bool sim_iface(const struct nfhp_key *k, u8 dir,
		      struct nfhp_set_key *key)
{
	key->addr = k->v[dir == NFHP_SETM_SRC ? NFHP_DIM_IIF : NFHP_DIM_OIF];
	key->plen = 128;
	return key->addr != 0;
}

/*
 * The port of a set match of direction @dir, as the module reads it: a
 * TCP or UDP packet's, when the packet holds it; false for none.
 */
static bool sim_port(const struct nfhp_key *k, u8 dir, u32 *port)
{
	u8 proto = nfhp_key_plain(k, NFHP_DIM_PROTO);
	bool src = dir == NFHP_SETM_SRC || dir == NFHP_SETM_SPORT;
	u32 v = k->v[src ? NFHP_DIM_SPORT : NFHP_DIM_DPORT];

	if (proto != 6 && proto != 17)
		return false;
	/* Short headers keep their ports; fragments and truncations not. */
	if (v >= NFHP_L4_SHORT)
		v -= NFHP_L4_SHORT;
	else if (v >= NFHP_L4_FRAGMENT)
		return false;
	*port = v;
	return true;
}

/*
 * A flow set's protocol and port of a packet, as the module reads them
 * (set_match.c): TCP's, UDP's, SCTP's and UDPLITE's port, the family's
 * ICMP type << 8 | code, 0 for other protocols; false for a later
 * fragment or a truncated header.  The key does not tell an SCTP or
 * UDPLITE header of 4 to 11 bytes, which the module finds short.
 */
static bool sim_flow_port(const struct nfhp_key *k, u8 family, u8 dir,
			  struct nfhp_set_key *key)
{
	u8 proto = nfhp_key_plain(k, NFHP_DIM_PROTO);
	bool src = dir == NFHP_SETM_SRC || dir == NFHP_SETM_SPORT;
	u32 sport = k->v[NFHP_DIM_SPORT], v;

	if (sport == NFHP_L4_FRAGMENT || sport == NFHP_L4_EVIL_FRAG)
		return false;
	key->proto = proto;
	key->port = 0;
	switch (proto) {
	case 6: case 17: case 132: case 136:	/* TCP, UDP, SCTP, UDPLITE */
		v = k->v[src ? NFHP_DIM_SPORT : NFHP_DIM_DPORT];
		break;
	case 1: case 58:			/* ICMP, ICMPv6 */
		if ((proto == 1) != (family == NFHP_FAMILY_IPV4))
			return true;
		v = k->v[NFHP_DIM_ICMP];
		break;
	default:
		return true;
	}
	/* Truncated, short: no port, as the module wants whole headers. */
	if (v >= NFHP_L4_FRAGMENT)
		return false;
	key->port = v;
	return true;
}

/*
 * The length a set with counters counts for a packet: the simulator's
 * packets are headers only, and nothing shows the counts.
 */
#define SIM_PKT_LEN	0

/* Does @pkt's field of set match @m hit set @set? Its value in @value. */
static bool sim_setm_lookup(const struct nfhp_set *set,
			    const struct nfhp_setm_spec *m,
			    const struct nfhp_sim_pkt *p, u32 *value)
{
	struct nfhp_set_key key = {};
	u32 port = 0;

	if (set->algo->type == NFHP_SET_NUMBER) {
		if (!sim_port(&p->key, m->dir, &port))
			return false;
		key.addr = port;
		return nfhp_set_lookup(set, &key, SIM_PKT_LEN, value);
	}
	if (set->algo->type == NFHP_SET_IFACE)
		return sim_iface(&p->key, m->dir, &key) &&
		       nfhp_set_lookup(set, &key, SIM_PKT_LEN, value);
	key.addr = p->key.v[m->dir == NFHP_SETM_SRC ? NFHP_DIM_SRC :
						     NFHP_DIM_DST];
	key.plen = set->family == NFHP_FAMILY_IPV6 ? 128 : 32;
	if (set->algo->type == NFHP_SET_FLOW &&
	    !sim_flow_port(&p->key, set->family, m->dir2, &key))
		return false;
	return nfhp_set_lookup(set, &key, SIM_PKT_LEN, value);
}

static enum nfhp_ext_result sim_ext_match(const void *ext, void *pkt)
{
	const struct sim_ext *x = ext;
	const struct nfhp_sim_pkt *p = pkt;
	const struct nfhp_setm_spec *m;
	unsigned int i;
	u32 value;
	bool hit;

	for (i = 0; i < x->nsetm; i++) {
		m = &x->setm[i].m;
		hit = sim_setm_lookup(x->setm[i].set, m, p, &value);
		if (hit && m->has_value)
			hit = value >= m->value_min && value <= m->value_max;
		if (hit == m->invert)
			return NFHP_EXT_NOMATCH;
	}
	return x->inner ? sim_inner->match(x->inner, pkt) : NFHP_EXT_MATCH;
}

static u32 sim_ext_target(const void *ext, void *pkt)
{
	const struct sim_ext *x = ext;

	return sim_inner->target(x->inner, pkt);
}

static bool sim_ext_stateless(const void *ext)
{
	const struct sim_ext *x = ext;

	return !x->inner ||
	       (sim_inner->stateless && sim_inner->stateless(x->inner));
}

const struct nfhp_ext_ops nfhp_sim_ext_ops = {
	.create = sim_ext_create,
	.destroy = sim_ext_destroy,
	.match = sim_ext_match,
	.target = sim_ext_target,
	.stateless = sim_ext_stateless,
};

/**
 * nfhp_sim_sets_init() - an empty registry, and the opaque extensions
 * @inner: the opaque extensions' evaluator, or NULL to refuse them
 */
void nfhp_sim_sets_init(const struct nfhp_ext_ops *inner)
{
	nfhp_sets_init(&sim_sets, NULL, ~0ULL);
	sim_inner = inner;
}

/**
 * nfhp_sim_sets_free() - free the sets, once no rule refers to them
 */
void nfhp_sim_sets_free(void)
{
	nfhp_sets_free(&sim_sets);
}
