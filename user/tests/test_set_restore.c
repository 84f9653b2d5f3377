// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-save, nf-hipac-restore and nf-hipac-set restore with named
 * sets, against a fake kernel.
 *
 * The tools run as they are (their main functions, in cli/), over the
 * netlink client of lib/nl.c and lib/nl_set.c, compiled into this file
 * with libmnl's socket calls and recv() replaced: what they send goes to
 * fake_kernel(), which keeps chains, rules and sets as the module does
 * (but without staging: each request takes effect at once), answers as
 * the uapi header says, and writes each request down ("BEGIN; SET_NEW
 * bl exist; SET_FLUSH bl; ..."), so that the order of the requests in
 * the transaction can be compared.  Nomatch entries (ipset's "nomatch")
 * go through ipset's save, nf-hipac-set restore, nf-hipac-save and
 * nf-hipac-restore, and are refused where ipset refuses them.
 */
#include "fake_nl.h"
#include "../lib/nl_set.c"
#include "../cli/subcommands.h"
#include "tap.h"

/* --- the fake kernel -------------------------------------------------------- */

/**
 * struct fset - a set of the fake kernel
 * @name: its name, "" for a free slot
 * @family: &enum nfhp_family
 * @type: &enum nfhp_set_type
 * @algo: "hash", "lpm", "bitmap" or "range"
 * @limit: most entries, 0 for none
 * @locked: adds and deletes refused
 * @e: the entries
 * @n: how many
 */
struct fset {
	char name[NFHP_SET_MAXNAMELEN];
	u8 family;
	u8 type;
	char algo[NFHP_SET_ALGO_LEN];
	u32 limit;
	bool locked;
	struct nfhp_set_entry e[32];
	unsigned int n;
};

/**
 * struct frule - a rule of the fake kernel
 * @chain: its chain
 * @spec: the rule
 */
struct frule {
	char chain[NFHP_CHAIN_NAME_LEN];
	struct nfhp_rule_spec spec;
};

/**
 * struct fake - the fake kernel (its answers in fq, fake_nl.h)
 * @sets: the sets
 * @chains: the user chains, "" for a free slot
 * @policy: of INPUT, FORWARD and OUTPUT
 * @rules: the rules of every chain, in order
 * @nrules: how many
 * @log: the requests, "; "-separated
 * @busy: another socket holds the transaction: BEGIN and set writes fail
 */
static struct fake {
	struct fset sets[8];
	char chains[8][NFHP_CHAIN_NAME_LEN];
	u8 policy[3];
	struct frule rules[16];
	unsigned int nrules;
	char log[16384];
	bool busy;
} k;

static const char *const builtin[3] = { "INPUT", "FORWARD", "OUTPUT" };

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

static struct fset *fset_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < ARRAY_SIZE(k.sets); i++)
		if (!strcmp(k.sets[i].name, name))
			return &k.sets[i];
	return NULL;
}

static struct fset *fset_new(const char *name, u8 family, const char *algo)
{
	struct fset *s = fset_find("");

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->family = family;
	s->type = nfhp_set_algo_number(algo) ? NFHP_SET_NUMBER : NFHP_SET_ADDR;
	snprintf(s->algo, sizeof(s->algo), "%s", algo);
	s->limit = NFHP_SET_DEFAULT_LIMIT;
	return s;
}

static void fset_add(struct fset *s, nfhp_u128 addr, u8 plen, u32 value)
{
	struct nfhp_set_entry e = { .addr = addr, .plen = plen,
				    .value = value };

	s->e[s->n++] = e;
}

/* An entry [@lo, @hi] of a number set. */
static void fset_add_num(struct fset *s, u32 lo, u32 hi, u32 value)
{
	struct nfhp_set_entry e = { .addr = lo, .hi = hi, .value = value };

	s->e[s->n++] = e;
}

/* What the client needs to read and write @s's entries: its type. */
static struct nfhp_set_info fset_info(const struct fset *s)
{
	struct nfhp_set_info info = { .type = s->type, .family = s->family };

	return info;
}

/* The entries of a set as text: "10.0.0.1 10.0.0.2=5 10.1.0.0/16!". */
static const char *fset_str(const char *name)
{
	static char buf[1024];
	struct fset *s = fset_find(name);
	unsigned int i;
	char key[64];

	buf[0] = '\0';
	for (i = 0; s && i < s->n; i++) {
		struct nfhp_set_info info = fset_info(s);

		nfhp_set_elem_str(key, sizeof(key), &info, &s->e[i]);
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "%s%s", i ? " " : "", key);
		if (s->e[i].value)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "=%u", s->e[i].value);
		/* A nomatch entry. */
		if (s->e[i].flags & NFHP_SETE_F_NOMATCH)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "!");
	}
	return s ? buf : "(none)";
}

/*
 * The entries of @s in a listing's message, as the module puts them: the
 * name and the entries only, a number set's as their ranges.
 */
static void fake_put_entries(struct nlmsghdr *nlh, const struct fset *s)
{
	static const struct nfhp_set_info entries_only;
	struct nlattr *nest, *ent;
	unsigned int i;

	if (s->type != NFHP_SET_NUMBER) {
		nfhp_nl_put_set(nlh, &entries_only, 0, s->e, s->n, true);
		return;
	}
	nest = mnl_attr_nest_start(nlh, NFHPA_SET);
	for (i = 0; i < s->n; i++) {
		ent = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
		mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_LO, s->e[i].addr);
		mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_HI, s->e[i].hi);
		if (s->e[i].value)
			mnl_attr_put_u32(nlh, NFHPA_SETE_VALUE, s->e[i].value);
		mnl_attr_nest_end(nlh, ent);
	}
	mnl_attr_nest_end(nlh, nest);
}

/* NFHP_CMD_SET_LIST: every set's head, or one set's with its entries. */
static void fake_set_list(const struct nlmsghdr *req, const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(k.sets); i++) {
		struct fset *s = &k.sets[i];
		struct nlmsghdr *nlh;
		struct nlattr *nest;

		if (!s->name[0] || (name && strcmp(name, s->name)))
			continue;
		nlh = reply(req, NFHP_CMD_SET_LIST);
		mnl_attr_put_u8(nlh, NFHPA_FAMILY, s->family);
		nest = mnl_attr_nest_start(nlh, NFHPA_SET);
		mnl_attr_put_strz(nlh, NFHPA_SET_NAME, s->name);
		mnl_attr_put_u8(nlh, NFHPA_SET_TYPE, s->type);
		mnl_attr_put_strz(nlh, NFHPA_SET_ALGO, s->algo);
		mnl_attr_put_u32(nlh, NFHPA_SET_LIMIT, s->limit);
		mnl_attr_put_u32(nlh, NFHPA_SET_FLAGS,
				 s->locked ? NFHP_SET_F_LOCKED : 0);
		mnl_attr_put_u32(nlh, NFHPA_SET_COUNT, s->n);
		mnl_attr_nest_end(nlh, nest);
		push(nlh);
		if (!name)
			continue;
		nlh = reply(req, NFHP_CMD_SET_LIST);
		mnl_attr_put_u8(nlh, NFHPA_FAMILY, s->family);
		fake_put_entries(nlh, s);
		push(nlh);
	}
	dump_done(req);
}

/* An entry's result in set @s, applied. */
static u8 fake_entry(struct fset *s, bool add, u32 flags,
		     const struct nfhp_set_entry *e)
{
	unsigned int i;

	if (s->locked)
		return NFHP_SET_LOCKED;
	for (i = 0; i < s->n; i++)
		if (s->e[i].addr == e->addr && s->e[i].plen == e->plen &&
		    s->e[i].hi == e->hi)
			break;
	if (!add) {
		if (i == s->n)
			return NFHP_SET_NOT_FOUND;
		s->e[i] = s->e[--s->n];
		return NFHP_SET_DELETED;
	}
	if (i < s->n && !(flags & NFHP_SET_F_UPDATE))
		return NFHP_SET_EXISTS;
	if (i < s->n) {
		s->e[i].value = e->value;
		s->e[i].flags = e->flags;
		return NFHP_SET_UPDATED;
	}
	if ((s->limit && s->n >= s->limit) || s->n == ARRAY_SIZE(s->e))
		return NFHP_SET_LIMIT;
	s->e[s->n++] = *e;
	return NFHP_SET_ADDED;
}

static int result_err(u8 result, u32 flags)
{
	switch (result) {
	case NFHP_SET_EXISTS:
		return flags & NFHP_SET_F_EXIST ? 0 : -EEXIST;
	case NFHP_SET_NOT_FOUND:
		return flags & NFHP_SET_F_EXIST ? 0 : -ENOENT;
	case NFHP_SET_LOCKED:
		return -EPERM;
	case NFHP_SET_LIMIT:
		return -E2BIG;
	}
	return 0;
}

/* NFHP_CMD_SET_ADD and _REMOVE: a result per entry, then the first error. */
static int fake_set_entries(const struct nlmsghdr *req,
			    const struct nlattr *nest, u8 family, bool add)
{
	const struct nlattr *set[NFHPA_SET_MAX + 1] = {}, *a;
	const char *name;
	char keys[2048] = "";
	struct nlmsghdr *nlh;
	struct nlattr *out;
	struct fset *s;
	u32 flags;
	int err = 0;

	mnl_attr_parse_nested(nest, index_cb, set);
	name = str(set[NFHPA_SET_NAME]);
	flags = set[NFHPA_SET_FLAGS] ? mnl_attr_get_u32(set[NFHPA_SET_FLAGS]) :
				       0;
	s = fset_find(name);
	nlh = reply(req, add ? NFHP_CMD_SET_ADD : NFHP_CMD_SET_REMOVE);
	out = mnl_attr_nest_start(nlh, NFHPA_SET);
	mnl_attr_for_each_nested(a, nest) {
		struct nfhp_set_entry e;
		struct nlattr *ent;
		char key[64];

		struct nfhp_set_info info = { .family = family };

		if (mnl_attr_get_type(a) != NFHPA_SET_ENTRY ||
		    parse_entry(a, family, &e))
			continue;
		info.type = s ? s->type : NFHP_SET_ADDR;
		nfhp_set_elem_str(key, sizeof(key), &info, &e);
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys),
			 " %s", key);
		if (e.value)
			snprintf(keys + strlen(keys),
				 sizeof(keys) - strlen(keys), "=%u", e.value);
		if (e.flags & NFHP_SETE_F_NOMATCH)
			snprintf(keys + strlen(keys),
				 sizeof(keys) - strlen(keys), " nomatch");
		e.result = s ? fake_entry(s, add, flags, &e) :
			       NFHP_SET_INVALID;
		if (!err)
			err = result_err(e.result, flags);
		ent = mnl_attr_nest_start(nlh, NFHPA_SET_ENTRY);
		if (info.type == NFHP_SET_NUMBER) {
			mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_LO, e.addr);
			mnl_attr_put_u32(nlh, NFHPA_SETE_NUM_HI, e.hi);
		} else {
			put_addr(nlh, e.addr);
			mnl_attr_put_u8(nlh, NFHPA_SETE_PLEN, e.plen);
		}
		mnl_attr_put_u8(nlh, NFHPA_SETE_RESULT, e.result);
		mnl_attr_nest_end(nlh, ent);
	}
	mnl_attr_nest_end(nlh, out);
	note("SET_%s %s%s%s:%s", add ? "ADD" : "REMOVE", name,
	     flags & NFHP_SET_F_EXIST ? " exist" : "",
	     flags & NFHP_SET_F_UPDATE ? " update" : "", keys);
	if (!s)
		return -ENOENT;
	push(nlh);
	return err;
}

static int fake_set_cmd(const struct nlmsghdr *req, u8 cmd,
			const struct nlattr *nest, u8 family, const char **msg)
{
	const struct nlattr *set[NFHPA_SET_MAX + 1] = {};
	const char *name;
	struct fset *s;
	u32 flags;

	if (cmd == NFHP_CMD_SET_ADD || cmd == NFHP_CMD_SET_REMOVE)
		return fake_set_entries(req, nest, family,
					cmd == NFHP_CMD_SET_ADD);
	if (nest)
		mnl_attr_parse_nested(nest, index_cb, set);
	name = str(set[NFHPA_SET_NAME]);
	flags = set[NFHPA_SET_FLAGS] ? mnl_attr_get_u32(set[NFHPA_SET_FLAGS]) :
				       0;
	s = fset_find(name);
	switch (cmd) {
	case NFHP_CMD_SET_LIST:
		note("SET_LIST%s%s", name ? " " : "", name ? name : "");
		fake_set_list(req, name);
		return 0;
	case NFHP_CMD_SET_NEW:
		note("SET_NEW %s%s%s", name,
		     flags & NFHP_SET_F_EXIST ? " exist" : "",
		     flags & NFHP_SET_F_LOCKED ? " locked" : "");
		if (s && (!(flags & NFHP_SET_F_EXIST) || s->family != family ||
			  strcmp(s->algo, str(set[NFHPA_SET_ALGO])))) {
			*msg = "a set of that name exists";
			return -EEXIST;
		}
		if (s)
			return 0;
		s = fset_new(name, family, str(set[NFHPA_SET_ALGO]));
		s->limit = set[NFHPA_SET_LIMIT] ?
			   mnl_attr_get_u32(set[NFHPA_SET_LIMIT]) : 0;
		s->locked = flags & NFHP_SET_F_LOCKED;
		return 0;
	case NFHP_CMD_SET_FLUSH:
		note("SET_FLUSH %s", name);
		if (!s)
			return -ENOENT;
		s->n = 0;
		return 0;
	case NFHP_CMD_SET_MODIFY:
		note("SET_MODIFY %s%s%s", name,
		     set[NFHPA_SET_LIMIT] ? " limit" : "",
		     !set[NFHPA_SET_FLAGS] ? "" :
		     flags & NFHP_SET_F_LOCKED ? " locked" : " unlocked");
		if (!s)
			return -ENOENT;
		if (set[NFHPA_SET_LIMIT])
			s->limit = mnl_attr_get_u32(set[NFHPA_SET_LIMIT]);
		if (set[NFHPA_SET_FLAGS])
			s->locked = flags & NFHP_SET_F_LOCKED;
		return 0;
	case NFHP_CMD_SET_DEL:
		note("SET_DEL %s", name ? name : "");
		if (!s)
			return -ENOENT;
		s->name[0] = '\0';
		return 0;
	}
	note("SET_CMD%u", cmd);
	return -EOPNOTSUPP;
}

static bool chain_is(const char *name)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(name, builtin[i]))
			return true;
	for (i = 0; i < ARRAY_SIZE(k.chains); i++)
		if (!strcmp(name, k.chains[i]))
			return true;
	return false;
}

/* NFHP_CMD_LIST: each chain, then the rules, as the module dumps them. */
static void fake_list(const struct nlmsghdr *req)
{
	static const struct nfhp_counter zero;
	unsigned int i, j, pos;

	for (i = 0; i < 3 + ARRAY_SIZE(k.chains); i++) {
		const char *name = i < 3 ? builtin[i] : k.chains[i - 3];
		struct nlmsghdr *nlh;

		if (!name[0])
			continue;
		nlh = reply(req, NFHP_CMD_LIST);
		mnl_attr_put_strz(nlh, NFHPA_CHAIN, name);
		if (i < 3) {
			mnl_attr_put_u8(nlh, NFHPA_POLICY, k.policy[i]);
			put_counters(nlh, NFHPA_COUNTERS, &zero);
		}
		push(nlh);
		for (j = 0, pos = 0; j < k.nrules; j++) {
			if (strcmp(k.rules[j].chain, name))
				continue;
			nlh = reply(req, NFHP_CMD_LIST);
			mnl_attr_put_strz(nlh, NFHPA_CHAIN, name);
			mnl_attr_put_u32(nlh, NFHPA_POS, ++pos);
			nfhp_nl_put_rule(nlh, &k.rules[j].spec, &zero);
			push(nlh);
		}
	}
	dump_done(req);
}

/* The rule commands a restore sends. */
static int fake_rule_cmd(u8 cmd, const struct nlattr **tb, const char *six,
			 const char **msg)
{
	const char *chain = str(tb[NFHPA_CHAIN]);
	struct frule *r = &k.rules[k.nrules];
	unsigned int i;

	switch (cmd) {
	case NFHP_CMD_FLUSH:
		note("FLUSH%s%s%s", chain ? " " : "", chain ? chain : "", six);
		if (!chain)
			k.nrules = 0;
		return 0;
	case NFHP_CMD_DEL_CHAIN:
		note("DEL_CHAIN%s%s%s", chain ? " " : "", chain ? chain : "",
		     six);
		for (i = 0; !chain && i < ARRAY_SIZE(k.chains); i++)
			k.chains[i][0] = '\0';
		return 0;
	case NFHP_CMD_NEW_CHAIN:
		note("NEW_CHAIN %s%s", chain, six);
		for (i = 0; i < ARRAY_SIZE(k.chains) && k.chains[i][0]; i++)
			;
		snprintf(k.chains[i], sizeof(k.chains[i]), "%s", chain);
		return 0;
	case NFHP_CMD_POLICY:
		note("POLICY %s%s", chain, six);
		return 0;
	case NFHP_CMD_APPEND:
		note("APPEND %s%s", chain, six);
		if (nfhp_nl_parse_rule(tb[NFHPA_RULE], &r->spec, NULL))
			return -EINVAL;
		if (r->spec.action == NFHP_ACT_JUMP &&
		    !chain_is(r->spec.target)) {
			*msg = "no chain by that name";
			return -ENOENT;
		}
		snprintf(r->chain, sizeof(r->chain), "%s", chain);
		k.nrules++;
		return 0;
	}
	note("CMD%u%s", cmd, six);
	return -EOPNOTSUPP;
}

/* One request: written down, done, answered. */
static void fake_kernel(const struct nlmsghdr *req)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(req);
	const struct nlattr *tb[NFHPA_MAX + 1] = {};
	const char *msg = NULL;
	u8 family = NFHP_FAMILY_IPV4;
	int err = 0;

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
	if (k.busy && g->cmd != NFHP_CMD_LIST && g->cmd != NFHP_CMD_SET_LIST) {
		note("BUSY %u", g->cmd);
		ack(req, -EBUSY, NULL);
		return;
	}
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
		note("LIST%s", family == NFHP_FAMILY_IPV6 ? "/6" : "");
		fake_list(req);
		return;
	case NFHP_CMD_SET_NEW ... NFHP_CMD_SET_LIST:
		err = fake_set_cmd(req, g->cmd, tb[NFHPA_SET], family, &msg);
		if (g->cmd == NFHP_CMD_SET_LIST)
			return;
		break;
	default:
		err = fake_rule_cmd(g->cmd, tb,
				    family == NFHP_FAMILY_IPV6 ? "/6" : "",
				    &msg);
	}
	ack(req, err, msg);
}

/* --- running the tools -------------------------------------------------- */

/* A kernel with the three built-in chains and no set. */
static void fake_reset(void)
{
	fake_answers_drop();
	memset(k.sets, 0, sizeof(k.sets));
	memset(k.chains, 0, sizeof(k.chains));
	k.nrules = 0;
	k.busy = false;
	k.log[0] = '\0';
}

/* Run @fn (a tool's main), what it prints on the TAP output: fake_run(). */
static int run(int (*fn)(int argc, char **argv), const char *cmdline,
	       const char *input)
{
	k.log[0] = '\0';
	return fake_run(fn, cmdline, input, false);
}

/* nf-hipac-save and its kind into text[]. */
static int save(const char *prog)
{
	char cmd[128], path[] = "/tmp/test_set_restore.out.XXXXXX";
	int fd = mkstemp(path), ret;

	close(fd);
	snprintf(cmd, sizeof(cmd), "%s -f %s", prog, path);
	ret = run(save_main, cmd, "");
	slurp(open(path, O_RDONLY), text, sizeof(text));
	unlink(path);
	return ret;
}

/* Whether @s holds the lines @lines, one after the other. */
static bool has_lines(const char *s, const char *lines)
{
	const char *p = strstr(s, lines);

	return p && (p == s || p[-1] == '\n');
}

/* A kernel with an IPv4 hash set, a locked IPv4 lpm set, an IPv6 set. */
static void some_sets(void)
{
	struct fset *s;

	fake_reset();
	s = fset_new("bl", NFHP_FAMILY_IPV4, "hash");
	fset_add(s, 0x0a000009, 32, 0);
	s = fset_new("nets", NFHP_FAMILY_IPV4, "lpm");
	fset_add(s, 0xc0000200, 24, 7);
	s->locked = true;
	s->limit = 100;
	s = fset_new("bl6", NFHP_FAMILY_IPV6, "hash");
	fset_add(s, (nfhp_u128)0x20010db8 << 96 | 1, 128, 0);
}

static int restore(const char *cmdline, const char *input)
{
	return run(restore_main, cmdline, input);
}

/* --- nf-hipac-save ----------------------------------------------------------- */

static void test_save(void)
{
	struct nfhp_cmdline *cl = calloc(1, sizeof(*cl));
	char line[] = "-A FORWARD -m set --match-set bl src -j DROP";
	char *argv[16], msg[256];
	int argc;

	fake_reset();
	check(!save("nf-hipac-save") &&
	      !strncmp(text, "# Generated by nf-hipac-save", 28) &&
	      has_lines(text, "*filter\n:INPUT ACCEPT [0:0]\n") &&
	      !strstr(text, "create") && !strcmp(k.log, "LIST; SET_LIST"),
	      "save without sets: the table only, as before: %s", k.log);

	some_sets();
	argv[0] = "iptables";
	argc = nfhp_split_line(line, argv + 1, 14) + 1;
	nfhp_parse_cmdline(argc, argv, cl, msg, sizeof(msg));
	k.rules[0].spec = cl->spec;
	strcpy(k.rules[0].chain, "FORWARD");
	k.nrules = 1;
	check(!save("nf-hipac-save") &&
	      has_lines(text,
			"create bl hash:ip family inet hashsize 1024 maxelem 65536\n"
			"add bl 10.0.0.9\n"
			"create nets hash:net family inet hashsize 1024 maxelem 100\n"
			"add nets 192.0.2.0/24 value 7\n"
			"lock nets\n"
			"*filter\n"),
	      "save: the IPv4 sets first, in nf-hipac-set save's lines: %s", text);
	check(has_lines(text, "-A FORWARD -m set --match-set bl src -j DROP\nCOMMIT\n") &&
	      !strstr(text, "bl6"),
	      "save: then the rules; no IPv6 set");
	check(!strncmp(text, "# Generated by nf-hipac-save", 28) &&
	      strstr(text, "\ncreate bl ") < strstr(text, "\n*filter"),
	      "save: the sets after the header's comment, before *filter");
	check(!save("nf-hipac6-save") &&
	      has_lines(text,
			"create bl6 hash:ip family inet6 hashsize 1024 maxelem 65536\n"
			"add bl6 2001:db8::1\n*filter\n") &&
	      !strstr(text, "create bl ") && !strstr(text, "nets"),
	      "nf-hipac6-save: the IPv6 set only");
	check(strstr(k.log, "LIST/6; SET_LIST") == k.log,
	      "nf-hipac6-save: its rule listing is IPv6's: %s", k.log);
	free(cl);
}

/* --- nf-hipac-restore ---------------------------------------------------------- */

static const char saved[] =
	"# Generated by nf-hipac-save v1.0\n"
	"create bl hash:ip family inet hashsize 1024 maxelem 65536\n"
	"add bl 10.0.0.1\n"
	"add bl 10.0.0.2 value 5\n"
	"create nets hash:net family inet hashsize 1024 maxelem 100\n"
	"add nets 192.0.2.0/24 value 7\n"
	"lock nets\n"
	"create new hash:net family inet hashsize 1024 maxelem 65536\n"
	"add new 198.51.100.0/24\n"
	"*filter\n"
	":INPUT ACCEPT [0:0]\n"
	":FORWARD ACCEPT [0:0]\n"
	":OUTPUT ACCEPT [0:0]\n"
	"-A FORWARD -m set --match-set new src -j DROP\n"
	"COMMIT\n";

static void test_restore(void)
{
	some_sets();
	check(!restore("nf-hipac-restore", saved) &&
	      !strcmp(k.log,
		      "BEGIN; SET_LIST; "
		      "SET_NEW bl exist; SET_FLUSH bl; "
		      "SET_ADD bl: 10.0.0.1 10.0.0.2=5; "
		      "SET_NEW nets exist; SET_MODIFY nets limit unlocked; "
		      "SET_FLUSH nets; SET_ADD nets: 192.0.2.0/24=7; "
		      "SET_MODIFY nets locked; "
		      "SET_NEW new; SET_ADD new: 198.51.100.0/24; "
		      "FLUSH; DEL_CHAIN; POLICY INPUT; POLICY FORWARD; "
		      "POLICY OUTPUT; APPEND FORWARD; COMMIT"),
	      "restore: the sets in the transaction, before the rules: %s",
	      k.log);
	check(!strcmp(fset_str("bl"), "10.0.0.1 10.0.0.2=5") &&
	      !strcmp(fset_str("nets"), "192.0.2.0/24=7") &&
	      fset_find("nets")->locked &&
	      !strcmp(fset_str("bl6"), "2001:db8::1"),
	      "restore: a set's entries replaced, lock kept, other sets untouched: %s",
	      fset_str("bl"));
	check(!restore("nf-hipac-restore", saved) &&
	      !strcmp(fset_str("bl"), "10.0.0.1 10.0.0.2=5") &&
	      strstr(k.log, "SET_NEW new exist; SET_FLUSH new; SET_ADD new: 198.51.100.0/24"),
	      "restore over itself: the same sets: %s", fset_str("bl"));

	some_sets();
	check(!restore("nf-hipac-restore -n",
		       "create bl hash:ip family inet hashsize 1024 maxelem 65536\n"
		       "add bl 10.0.0.1\nadd bl 10.0.0.9 value 3\n"
		       "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n") &&
	      !strcmp(k.log,
		      "BEGIN; LIST; SET_LIST; SET_NEW bl exist; "
		      "SET_ADD bl exist update: 10.0.0.1 10.0.0.9=3; "
		      "POLICY INPUT; COMMIT"),
	      "restore -n: no flush, the adds merge as with -exist: %s",
	      k.log);
	check(!strcmp(fset_str("bl"), "10.0.0.9=3 10.0.0.1"),
	      "restore -n: the entries there stay, updated: %s",
	      fset_str("bl"));
	some_sets();
	check(restore("nf-hipac-restore -n", saved) == 1 &&
	      strstr(errs, "nf-hipac-restore: Error in line 6: Element cannot be added to the set: the set is locked") &&
	      strstr(k.log, "; ABORT"),
	      "restore -n: a locked set refuses the adds: %s", errs);

	some_sets();
	check(!restore("nf-hipac-restore",
		       "create bl hash:ip family inet -exist\n"
		       "add bl 10.0.0.1\n") &&
	      !strcmp(fset_str("bl"), "10.0.0.9 10.0.0.1") &&
	      strstr(k.log, "SET_NEW bl exist; SET_ADD bl: 10.0.0.1; COMMIT"),
	      "restore: a create with -exist keeps the entries: %s", k.log);
}

static void test_restore_errors(void)
{
	some_sets();
	check(restore("nf-hipac-restore",
		      "create other hash:ip\n"
		      "add other 10.1.1.1\n"
		      "create bl hash:net family inet\n"
		      "*filter\n-A INPUT -j DROP\nCOMMIT\n") == 1 &&
	      strstr(errs, "nf-hipac-restore: Error in line 3: Set cannot be created: set with the same name already exists (hash:ip family inet)") &&
	      strstr(k.log, "; ABORT") && !strstr(k.log, "COMMIT") &&
	      !strstr(k.log, "SET_NEW bl"),
	      "a create of another type: exit 1, its line, aborted: %s", errs);
	some_sets();
	check(restore("nf-hipac-restore",
		      "create bl6 hash:ip family inet\n") == 1 &&
	      strstr(errs, "Error in line 1: Set cannot be created: set with the same name already exists (hash:ip family inet6)"),
	      "a create of another family: exit 1: %s", errs);
	check(restore("nf-hipac-restore -n",
		      "create bl hash:net\n") == 1 &&
	      strstr(errs, "Error in line 1: Set cannot be created"),
	      "-n: another type is an error too");
	some_sets();
	check(restore("nf-hipac-restore",
		      "# sets\n\ncreate x hash:ip\nadd x 10.0.0.300\n") == 1 &&
	      strstr(errs, "nf-hipac-restore: Error in line 4: Syntax error: cannot parse 10.0.0.300") &&
	      strstr(k.log, "; ABORT"),
	      "a bad address: its line, exit 1: %s", errs);
	check(restore("nf-hipac-restore", "add nosuch 10.0.0.1\n") == 1 &&
	      strstr(errs, "Error in line 1: The set with the given name does not exist"),
	      "an add to no set: exit 1: %s", errs);
	check(restore("nf-hipac-restore", "create x hash:ip foo\n") == 2 &&
	      strstr(errs, "Error in line 1: Unknown argument: `foo'") &&
	      !strstr(errs, "Try"),
	      "an unknown option: ipset's exit 2: %s", errs);
	check(restore("nf-hipac-restore",
		      "-A INPUT -j DROP\n*filter\nCOMMIT\n") == 1 &&
	      strstr(errs, "line 1: no table specified"),
	      "a rule outside a table: as before: %s", errs);
	check(restore("nf-hipac-restore",
		      "-N x\n") == 1 &&
	      strstr(errs, "line 1: no table specified"),
	      "ipset's -N is iptables' there: %s", errs);
	some_sets();
	check(restore("nf-hipac-restore",
		      "create bl hash:ip\nadd bl 10.0.0.1\n"
		      "*filter\n-A INPUT -j nochain\nCOMMIT\n") == 1 &&
	      strstr(errs, "line 4 failed") &&
	      strstr(k.log, "SET_ADD bl: 10.0.0.1; FLUSH") &&
	      strstr(k.log, "; ABORT") && !strstr(k.log, "COMMIT"),
	      "a rule the kernel refuses after the sets: aborted: %s", errs);
	some_sets();
	check(restore("nf-hipac-restore",
		      "create bl hash:ip\nadd bl 10.0.0.1\nadd bl 10.0.0.1\n") == 1 &&
	      strstr(errs, "Error in line 3: Element cannot be added to the set: it's already added") &&
	      strstr(k.log, "; ABORT"),
	      "an entry twice: the kernel's refusal, its line: %s", errs);
}

static void test_restore_test(void)
{
	some_sets();
	check(!restore("nf-hipac-restore --test", saved) &&
	      strstr(k.log, "BEGIN; SET_LIST; SET_NEW bl exist; SET_FLUSH bl;") &&
	      strstr(k.log, "APPEND FORWARD; ABORT") &&
	      !strstr(k.log, "COMMIT"),
	      "--test: the set lines go to the kernel, then the abort: %s",
	      k.log);
	some_sets();
	check(restore("nf-hipac-restore --test",
		      "create bl hash:net\n*filter\nCOMMIT\n") == 1 &&
	      strstr(errs, "Error in line 1: Set cannot be created") &&
	      !strstr(k.log, "COMMIT"),
	      "--test: a bad set line fails it: %s", errs);
	some_sets();
	check(!restore("nf-hipac-restore", "create only hash:ip\nadd only 10.0.0.1\n") &&
	      !strcmp(k.log, "BEGIN; SET_LIST; SET_NEW only; SET_ADD only: 10.0.0.1; COMMIT"),
	      "sets and no table: committed, no rule touched: %s", k.log);
}

static void test_restore6(void)
{
	some_sets();
	check(!run(restore_main, "nf-hipac6-restore",
		   "create bl6 hash:ip family inet6\nadd bl6 2001:db8::2\n"
		   "*filter\n:INPUT ACCEPT [0:0]\n"
		   "-A INPUT -m set --match-set bl6 src -j DROP\nCOMMIT\n") &&
	      !strcmp(k.log,
		      "BEGIN; SET_LIST; SET_NEW bl6 exist; SET_FLUSH bl6; "
		      "SET_ADD bl6: 2001:db8::2; FLUSH/6; DEL_CHAIN/6; "
		      "POLICY INPUT/6; APPEND INPUT/6; COMMIT"),
	      "nf-hipac6-restore: the rules after the set lines are IPv6's: %s",
	      k.log);
}

/*
 * Number sets serve both families: nf-hipac-save and nf-hipac6-save both
 * carry them, in ipset's bitmap:port lines, and each restore takes them.
 */
static void test_numbers(void)
{
	static const char lines[] =
		"create ports bitmap:port range 0-65535\n"
		"add ports 22\n"
		"add ports 80-82 value 3\n"
		"create big bitmap:port range 0-65535 maxelem 10 algo range\n"
		"add big 1000-4294967295\n";
	struct fset *s;

	fake_reset();
	s = fset_new("ports", NFHP_FAMILY_IPV4, "bitmap");
	fset_add_num(s, 22, 22, 0);
	fset_add_num(s, 80, 82, 3);
	s = fset_new("big", NFHP_FAMILY_IPV4, "range");
	fset_add_num(s, 1000, 0xffffffffu, 0);
	s->limit = 10;
	check(!save("nf-hipac-save") && has_lines(text, lines),
	      "save: number sets in ipset's bitmap:port lines: %s", text);
	check(!save("nf-hipac6-save") && has_lines(text, lines),
	      "nf-hipac6-save: the number sets too: %s", text);
	fake_reset();
	check(!run(restore_main, "nf-hipac6-restore", text) &&
	      strstr(k.log, "SET_NEW ports; SET_ADD ports: 22 80-82=3; "
			    "SET_NEW big; SET_ADD big: 1000-4294967295; ") &&
	      !strcmp(fset_str("ports"), "22 80-82=3") &&
	      !strcmp(fset_find("big")->algo, "range") &&
	      fset_find("big")->limit == 10 &&
	      fset_find("big")->type == NFHP_SET_NUMBER,
	      "restore: the number sets back, ranges, values, algorithm and limit: %s",
	      k.log);
	fake_reset();
	s = fset_new("ports", NFHP_FAMILY_IPV4, "bitmap");
	fset_add_num(s, 81, 81, 0);
	check(!run(set_main, "nf-hipac-set -exist del ports 80-82", "") &&
	      strstr(k.log, "SET_REMOVE ports exist: 80 81 82") &&
	      !strcmp(fset_str("ports"), ""),
	      "del -exist of a bitmap range: port by port, as ipset: %s",
	      k.log);
	fake_reset();
	s = fset_new("hi", NFHP_FAMILY_IPV4, "range");
	fset_add_num(s, 80, 82, 0);
	check(!run(set_main, "nf-hipac-set -exist del hi 80-82", "") &&
	      strstr(k.log, "SET_REMOVE hi exist: 80-82") &&
	      !strcmp(fset_str("hi"), ""),
	      "del -exist of a range entry: whole: %s", k.log);

	/* Ports by name and with a protocol, as ipset's bitmap:port. */
	fake_reset();
	check(!run(set_main, "nf-hipac-set restore",
		   "create w bitmap:port range [ftp-data]-https\n"
		   "add w http\nadd w udp:domain value 2\n"
		   "add w tcp:[ftp-data]-ftp\n") &&
	      strstr(k.log, "SET_NEW w; SET_ADD w: 80 53=2 20-21; COMMIT"),
	      "nf-hipac-set restore: ports by name and with a protocol: %s",
	      k.log);
	/* The fake keeps a range whole, where the kernel's bitmap splits it. */
	check(!save("nf-hipac-save") &&
	      has_lines(text, "add w 80\nadd w 53 value 2\nadd w 20-21\n"),
	      "save: they print as numbers: %s", text);
	check(!run(set_main, "nf-hipac-set del w tcp:http", "") &&
	      strstr(k.log, "SET_REMOVE w: 80"),
	      "del by name: %s", k.log);
	check(run(set_main, "nf-hipac-set add w icmp:1", "") == 1 &&
	      !strcmp(errs, "nf-hipac-set v1.0: Syntax error: Only protocols TCP and UDP are valid") &&
	      !strstr(k.log, "SET_ADD w: 1"),
	      "add icmp:1 refused before the kernel, ipset's words: %s", errs);
}

/* --- nf-hipac-set restore ------------------------------------------------------ */

static void test_set_restore(void)
{
	some_sets();
	check(!run(set_main, "nf-hipac-set restore",
		   "create s hash:ip\nadd s 10.0.0.1\nadd s 10.0.0.2\n"
		   "create n hash:net\nadd n 10.0.0.0/8\nadd s 10.0.0.3\n") &&
	      !strcmp(k.log,
		      "BEGIN; SET_LIST; SET_NEW s; "
		      "SET_ADD s: 10.0.0.1 10.0.0.2; SET_NEW n; "
		      "SET_ADD n: 10.0.0.0/8; SET_ADD s: 10.0.0.3; COMMIT"),
	      "nf-hipac-set restore: one transaction; the new sets known without asking: %s",
	      k.log);
	check(run(set_main, "nf-hipac-set restore",
		  "add s 10.0.0.4\nadd s 10.0.0.1\n") == 1 &&
	      strstr(errs, "nf-hipac-set v1.0: Error in line 2: Element cannot be added to the set: it's already added") &&
	      !strcmp(k.log, "BEGIN; SET_LIST; SET_ADD s: 10.0.0.4 10.0.0.1; ABORT"),
	      "nf-hipac-set restore: the kernel's refusal aborts it all: %s",
	      k.log);
	check(run(set_main, "nf-hipac-set restore",
		  "create t hash:ip\nadd t 1.2.3.400\n") == 1 &&
	      !strcmp(k.log, "BEGIN; SET_LIST; ABORT"),
	      "nf-hipac-set restore: a bad line, nothing sent: %s", k.log);
	check(run(set_main, "nf-hipac-set restore", "create bl hash:ip\n") == 1 &&
	      strstr(errs, "Set cannot be created: set with the same name already exists") &&
	      run(set_main, "nf-hipac-set restore", "create bl hash:ip -exist\n") == 0 &&
	      !strcmp(k.log, "BEGIN; SET_LIST; SET_NEW bl exist; COMMIT"),
	      "nf-hipac-set restore: ipset's create: no replace, -exist: %s",
	      k.log);
	k.busy = true;
	check(run(set_main, "nf-hipac-set restore", "add bl 10.0.0.5\n") == 1 &&
	      !strcmp(errs, "nf-hipac-set v1.0: Another app is currently holding the nf-hipac transaction"),
	      "nf-hipac-set restore while another transaction is open: %s",
	      errs);
	check(run(set_main, "nf-hipac-set add bl 10.0.0.5", "") == 1 &&
	      !strcmp(errs, "nf-hipac-set v1.0: Another app is currently holding the nf-hipac transaction"),
	      "nf-hipac-set add then: the same words: %s", errs);
	k.busy = false;
}

/* --- nomatch entries ---------------------------------------------------------- */

/* ipset 7.17's words and help line for nomatch where it is refused. */
#define NOMATCH_REFUSED \
	"nf-hipac-set v1.0: Unknown argument: `nomatch'|Try `nf-hipac-set help' for more information."

/* What ipset 7.17 saves of a blocklist with an exception. */
static const char ipset_nomatch[] =
	"create nm hash:net family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x3b2ef28a\n"
	"add nm 10.0.0.0/8\n"
	"add nm 10.1.0.0/16 nomatch\n";

static void test_nomatch(void)
{
	some_sets();
	check(!run(set_main, "nf-hipac-set restore", ipset_nomatch) &&
	      strstr(k.log, "SET_NEW nm; SET_ADD nm: 10.0.0.0/8 10.1.0.0/16 nomatch; COMMIT") &&
	      !strcmp(fset_str("nm"), "10.0.0.0/8 10.1.0.0/16!"),
	      "nf-hipac-set restore of ipset's save: nomatch sent: %s", k.log);
	check(!save("nf-hipac-save") &&
	      has_lines(text,
			"create nm hash:net family inet hashsize 1024 maxelem 65536\n"
			"add nm 10.0.0.0/8\n"
			"add nm 10.1.0.0/16 nomatch\n"),
	      "nf-hipac-save: nomatch after the element, as ipset saves: %s",
	      text);
	check(!restore("nf-hipac-restore", text) &&
	      strstr(k.log, "SET_FLUSH nm; SET_ADD nm: 10.0.0.0/8 10.1.0.0/16 nomatch;") &&
	      !strcmp(fset_str("nm"), "10.0.0.0/8 10.1.0.0/16!"),
	      "nf-hipac-restore of it: the same entries: %s", k.log);
	check(!run(set_main, "nf-hipac-set -exist add nm 10.1.0.0/16", "") &&
	      !strcmp(k.log, "SET_LIST; SET_ADD nm exist update: 10.1.0.0/16") &&
	      !strcmp(fset_str("nm"), "10.0.0.0/8 10.1.0.0/16"),
	      "add -exist without nomatch: the flag goes: %s", k.log);
	check(!run(set_main, "nf-hipac-set add nm 10.1.0.0/16 nomatch -exist",
		   "") &&
	      !strcmp(fset_str("nm"), "10.0.0.0/8 10.1.0.0/16!"),
	      "add nomatch -exist: it comes back: %s", fset_str("nm"));
	check(run(set_main, "nf-hipac-set del nm 10.1.0.0/16 nomatch", "") ==
	      2 && strstr(errs, "Unknown argument: `nomatch'") &&
	      !strstr(k.log, "SET_REMOVE"),
	      "del ... nomatch: refused as ipset's del refuses it, exit 2: %s",
	      errs);
	check(run(set_main, "nf-hipac-set add bl 10.0.0.7 nomatch", "") == 2 &&
	      !strcmp(errs, NOMATCH_REFUSED) &&
	      !strstr(k.log, "SET_ADD"),
	      "hash:ip refuses nomatch in ipset's words, exit 2: %s", errs);
	check(run(set_main, "nf-hipac-set restore",
		  "add nm 10.2.0.0/16\nadd bl 10.0.0.7 nomatch\n") == 2 &&
	      strstr(errs, "Error in line 2: Unknown argument: `nomatch'") &&
	      !strstr(k.log, "COMMIT"),
	      "restore: a nomatch for hash:ip stops it: %s", errs);
	check(run(set_main, "nf-hipac-set add nm 10.3.0.0/16 nomatch value 4",
		  "") == 0 &&
	      strstr(k.log, "SET_ADD nm: 10.3.0.0/16=4 nomatch") &&
	      !save("nf-hipac-save") &&
	      strstr(text, "add nm 10.3.0.0/16 nomatch value 4\n"),
	      "nomatch with a value: saved after the element: %s", text);
}

int main(void)
{
	test_save();
	test_restore();
	test_restore_errors();
	test_restore_test();
	test_restore6();
	test_numbers();
	test_set_restore();
	test_nomatch();
	fake_reset();
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
