// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-set: named sets in ipset's syntax.
 *
 * nf-hipac-set is a link to nf-hipac ("nf-hipac set ..." is the same).
 * Its commands, options, messages and exit codes are ipset's (v7.17):
 * ipset's hash:ip and hash:net are nf-hipac's "hash" and "lpm" sets of
 * addresses; lock, unlock and limit are nf-hipac's own.  This file reads
 * the command line and holds the commands on whole sets; set_entries.c
 * those on entries and restore.
 */
#include "set.h"
#include "subcommands.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#define SET_MSG_PREFIX	NFHP_SET_PROG " v" NFHP_VERSION ": "

/* ipset's "ipset v7.17: ", or the tool's name that runs set lines. */
static void set_prefix(const struct set_cli *c)
{
	if (c->prog)
		fprintf(stderr, "%s: ", c->prog);
	else
		fputs(SET_MSG_PREFIX, stderr);
}

static void set_vmsg(const struct set_cli *c, const char *fmt, va_list ap)
{
	if (c->quiet)
		return;
	set_prefix(c);
	if (c->line)
		fprintf(stderr, "Error in line %lu: ", c->line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/**
 * set_error() - print an error as ipset does
 * @c: the run (a restore names the line)
 * @fmt: the message
 */
void set_error(const struct set_cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_vmsg(c, fmt, ap);
	va_end(ap);
}

/**
 * set_param_error() - a bad command line, as ipset says it
 * @c: the run
 * @fmt: the message
 *
 * Return: %NFHP_SET_EXIT_PARAM.
 */
int set_param_error(const struct set_cli *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_prefix(c);
	if (c->line)
		fprintf(stderr, "Error in line %lu: ", c->line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	if (!c->prog)
		fprintf(stderr, "Try `" NFHP_SET_PROG " help' for more information.\n");
	return NFHP_SET_EXIT_PARAM;
}

/**
 * set_connect() - open the connection, once
 * @c: the run
 *
 * Return: 0, or an exit code after a message.
 */
int set_connect(struct set_cli *c)
{
	if (c->nl)
		return 0;
	return nfhp_nl_open(&c->nl, NFHP_SET_PROG) ? NFHP_SET_EXIT_ERR : 0;
}

/**
 * set_kernel_error() - report the failure of a set command
 * @c: the run, whose connection holds the failure
 * @name: the set the command named, or NULL
 * @cmd: &enum nfhp_cmd of the command
 *
 * ipset's words for what ipset has them for, else the error's, and the
 * kernel's own message on a line of its own.
 *
 * Return: %NFHP_SET_EXIT_ERR.
 */
int set_kernel_error(struct set_cli *c, const char *name, int cmd)
{
	struct nfhp_nl_failure f;

	nfhp_nl_get_failure(c->nl, &f);
	return set_failure(c, &f, cmd);
}

/**
 * set_failure() - report a failure kept aside
 * @c: the run
 * @f: the failure
 * @cmd: &enum nfhp_cmd of the command
 *
 * Return: %NFHP_SET_EXIT_ERR.
 */
int set_failure(struct set_cli *c, const struct nfhp_nl_failure *f, int cmd)
{
	const char *m = NULL;

	switch (-f->err) {
	case ENOENT:
		m = "The set with the given name does not exist";
		break;
	case EEXIST:
		if (cmd == NFHP_CMD_SET_NEW)
			m = "Set cannot be created: set with the same name already exists";
		else if (cmd == NFHP_CMD_SET_ADD)
			m = "Element cannot be added to the set: it's already added";
		break;
	case EBUSY:
		/* Else another socket's transaction, which a commit ends. */
		if (cmd == NFHP_CMD_SET_DEL)
			m = "Set cannot be destroyed: it is in use by a kernel component";
		else
			m = "Another app is currently holding the nf-hipac transaction";
		break;
	case EINVAL:
		if (cmd == NFHP_CMD_SET_SWAP)
			m = "The sets cannot be swapped: their type does not match";
		break;
	case E2BIG:
		m = "Hash is full, cannot add more elements";
		break;
	}
	if (m)
		set_error(c, "%s", m);
	else
		set_error(c, "Kernel error received: %s", strerror(-f->err));
	if (f->ext_msg[0] && !c->quiet) {
		set_prefix(c);
		fprintf(stderr, "kernel: %s\n", f->ext_msg);
	}
	return NFHP_SET_EXIT_ERR;
}

/**
 * set_lookup() - the head of a set, or ipset's message that it is not
 * @c: the run
 * @name: the set
 * @info: where its head goes
 *
 * Return: 0, or an exit code after a message.
 */
int set_lookup(struct set_cli *c, const char *name,
	       struct nfhp_set_info *info)
{
	int ret = set_connect(c);

	if (ret)
		return ret;
	ret = nfhp_nl_set_get(c->nl, name, info);
	if (ret == -ENOENT) {
		set_error(c, "The set with the given name does not exist");
		return NFHP_SET_EXIT_ERR;
	}
	if (ret)
		return set_kernel_error(c, name, NFHP_CMD_SET_LIST);
	return 0;
}

static int check_name(const struct set_cli *c, const char *name)
{
	if (strlen(name) >= NFHP_SET_MAXNAMELEN) {
		set_error(c, "Syntax error: setname '%s' is longer than %d characters",
			  name, NFHP_SET_MAXNAMELEN - 1);
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

/* --- whole sets ---------------------------------------------------------- */

/**
 * set_ipset_type() - is this one of ipset's types?
 * @s: a type name
 *
 * Return: true for ipset's types nf-hipac has no sets of, which get
 * another message than a name ipset does not know either.
 */
bool set_ipset_type(const char *s)
{
	static const char *const types[] = {
		"bitmap:ip", "bitmap:ip,mac", "hash:ip,mac",
		"hash:ip,mark", "hash:ip,port,ip",
		"hash:ip,port,net", "hash:mac", "hash:net,iface",
		"hash:net,net", "hash:net,port,net",
		"list:set",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(s, types[i]))
			return true;
	return false;
}

/**
 * set_parse_create() - the arguments of a create
 * @c: the run
 * @argc: number of words
 * @argv: the words after "create": NAME TYPE [OPTIONS]
 * @info: the set they describe
 * @exist: set by -exist
 *
 * Return: 0, or ipset's exit code after its message.
 */
int set_parse_create(struct set_cli *c, int argc, char **argv,
		     struct nfhp_set_info *info, bool *exist)
{
	const char *algo;
	char err[256];
	int ret;

	if (argc < 1)
		return set_param_error(c, "Missing mandatory argument to command create");
	if (argc < 2)
		return set_param_error(c, "Missing second mandatory argument to command create");
	ret = check_name(c, argv[0]);
	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	strcpy(info->name, argv[0]);
	if (!nfhp_set_parse_typename(argv[1], &info->type, &algo)) {
		if (set_ipset_type(argv[1]))
			set_error(c, "Syntax error: typename '%s' is not supported by nf-hipac (hash:ip, hash:net, bitmap:port, hash:ip,port, hash:net,port and hash:iface are)",
				  argv[1]);
		else
			set_error(c, "Syntax error: typename '%s' is unknown",
				  argv[1]);
		return NFHP_SET_EXIT_ERR;
	}
	snprintf(info->algo, sizeof(info->algo), "%s", algo);
	ret = nfhp_set_parse_create(argc - 2, argv + 2, info, exist, err,
				    sizeof(err));
	if (ret == NFHP_SET_EXIT_PARAM)
		return set_param_error(c, "%s", err);
	if (ret)
		set_error(c, "%s", err);
	return ret;
}

static int set_create_main(struct set_cli *c, int argc, char **argv)
{
	struct nfhp_set_info info;
	int ret;

	ret = set_parse_create(c, argc, argv, &info, &c->exist);
	if (ret)
		return ret;
	ret = set_connect(c);
	if (ret)
		return ret;
	if (nfhp_nl_set_new(c->nl, &info, c->exist))
		return set_kernel_error(c, info.name, NFHP_CMD_SET_NEW);
	return 0;
}

/* A command on one set or, without a name, on every set. */
static int all_or_one(struct set_cli *c, int argc, char **argv,
		      const char *cmdname, int cmd,
		      int (*fn)(struct nfhp_nl *nl, const char *name))
{
	const char *name = argc ? argv[0] : NULL;
	int ret;

	if (argc > 1)
		return set_param_error(c, "Unknown argument %s", argv[1]);
	if (name) {
		ret = check_name(c, name);
		if (ret)
			return ret;
	}
	ret = set_connect(c);
	if (ret)
		return ret;
	if (fn(c->nl, name))
		return set_kernel_error(c, name, cmd);
	return 0;
}

static int set_destroy_main(struct set_cli *c, int argc, char **argv)
{
	return all_or_one(c, argc, argv, "destroy", NFHP_CMD_SET_DEL,
			  nfhp_nl_set_del);
}

static int set_flush_main(struct set_cli *c, int argc, char **argv)
{
	return all_or_one(c, argc, argv, "flush", NFHP_CMD_SET_FLUSH,
			  nfhp_nl_set_flush);
}

static int set_swap_main(struct set_cli *c, int argc, char **argv)
{
	struct nfhp_nl_failure f;
	struct nfhp_set_info info;
	int ret;

	if (argc < 1)
		return set_param_error(c, "Missing mandatory argument to command swap");
	if (argc < 2)
		return set_param_error(c, "Missing second mandatory argument to command swap");
	if (argc > 2)
		return set_param_error(c, "Unknown argument %s", argv[2]);
	ret = check_name(c, argv[0]) ? : check_name(c, argv[1]);
	if (ret)
		return ret;
	ret = set_connect(c);
	if (ret)
		return ret;
	if (!nfhp_nl_set_swap(c->nl, argv[0], argv[1]))
		return 0;
	/* ipset tells which of the two is missing. */
	nfhp_nl_get_failure(c->nl, &f);
	if (f.err == -ENOENT && !nfhp_nl_set_get(c->nl, argv[0], &info)) {
		set_error(c, "Sets cannot be swapped: the second set does not exist");
		return NFHP_SET_EXIT_ERR;
	}
	return set_failure(c, &f, NFHP_CMD_SET_SWAP);
}

/* lock, unlock, limit N: nf-hipac's own. */
static int set_modify_main(struct set_cli *c, int argc, char **argv,
		       const char *cmdname, const u32 *limit,
		       const bool *locked)
{
	int ret;

	if (argc < 1)
		return set_param_error(c, "Missing mandatory argument to command %s",
				       cmdname);
	if (argc > 1)
		return set_param_error(c, "Unknown argument %s", argv[1]);
	ret = check_name(c, argv[0]);
	if (ret)
		return ret;
	ret = set_connect(c);
	if (ret)
		return ret;
	if (nfhp_nl_set_modify(c->nl, argv[0], limit, locked))
		return set_kernel_error(c, argv[0], NFHP_CMD_SET_MODIFY);
	return 0;
}

static int set_lock_main(struct set_cli *c, int argc, char **argv)
{
	bool locked = true;

	return set_modify_main(c, argc, argv, "lock", NULL, &locked);
}

static int set_unlock_main(struct set_cli *c, int argc, char **argv)
{
	bool locked = false;

	return set_modify_main(c, argc, argv, "unlock", NULL, &locked);
}

static int set_limit_main(struct set_cli *c, int argc, char **argv)
{
	unsigned long long v;
	u32 limit;

	if (argc < 2)
		return set_param_error(c, "Missing %smandatory argument to command limit",
				       argc ? "second " : "");
	if (!nfhp_parse_uint(argv[1], 0, 0xffffffffULL, &v)) {
		set_error(c, "Syntax error: '%s' is invalid as number",
			  argv[1]);
		return NFHP_SET_EXIT_ERR;
	}
	limit = v;
	argv[1] = argv[0];
	return set_modify_main(c, argc - 1, argv + 1, "limit", &limit, NULL);
}

/* --- listing --------------------------------------------------------------- */

/**
 * struct list_state - a list or save under way
 * @c: the run
 * @save: the save format
 * @out: where it goes
 * @family: the sets of this &enum nfhp_family only, 0 for every set
 * @nsets: sets printed so far
 * @head: the set whose entries come
 */
struct list_state {
	struct set_cli *c;
	bool save;
	FILE *out;
	u8 family;
	unsigned int nsets;
	struct nfhp_set_info head;
};

static int list_head_cb(void *data, const struct nfhp_set_info *info)
{
	struct list_state *s = data;

	s->head = *info;
	if (s->c->names) {
		fprintf(s->out, "%s\n", info->name);
		return 0;
	}
	if (s->save) {
		nfhp_set_print_create(s->out, info);
		return 0;
	}
	if (s->nsets++)
		fputc('\n', s->out);
	nfhp_set_print_list_head(s->out, info, s->c->terse);
	return 0;
}

static int list_entry_cb(void *data, const struct nfhp_set_info *info,
			 const struct nfhp_set_entry *e)
{
	struct list_state *s = data;

	if (s->save)
		nfhp_set_print_add(s->out, info, e);
	else
		nfhp_set_print_member(s->out, info, e);
	return 0;
}

static const struct nfhp_nl_set_ops list_ops = {
	.set = list_head_cb,
	.entry = list_entry_cb,
};

/* One set with its entries; a locked one's save ends in "lock NAME". */
static int list_one(struct list_state *s, const char *name)
{
	int ret;

	s->head.name[0] = '\0';
	ret = nfhp_nl_set_list(s->c->nl, name, &list_ops, s);

	if (ret == -ENOENT || (!ret && strcmp(s->head.name, name))) {
		set_error(s->c, "The set with the given name does not exist");
		return NFHP_SET_EXIT_ERR;
	}
	if (ret)
		return set_kernel_error(s->c, name, NFHP_CMD_SET_LIST);
	if (s->save && (s->head.flags & NFHP_SET_F_LOCKED))
		fprintf(s->out, "lock %s\n", name);
	return 0;
}

/**
 * struct name_list - the names of every set, for a list or save of all
 * @name: the names
 * @n: how many
 * @cap: room
 * @family: the sets of this family only, 0 for every set
 */
struct name_list {
	char (*name)[NFHP_SET_MAXNAMELEN];
	unsigned int n, cap;
	u8 family;
};

static int collect_cb(void *data, const struct nfhp_set_info *info)
{
	struct name_list *l = data;

	/* Number and interface sets serve both families: both saves do. */
	if (l->family && info->family != l->family &&
	    info->type == NFHP_SET_ADDR)
		return 0;
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 16;
		void *p = realloc(l->name, cap * sizeof(*l->name));

		if (!p)
			return -ENOMEM;
		l->name = p;
		l->cap = cap;
	}
	memcpy(l->name[l->n++], info->name, NFHP_SET_MAXNAMELEN);
	return 0;
}

static int list_all(struct list_state *s)
{
	static const struct nfhp_nl_set_ops collect = { .set = collect_cb };
	struct name_list l = { .family = s->family };
	struct set_cli *c = s->c;
	unsigned int i;
	int ret;

	ret = nfhp_nl_set_list(c->nl, NULL, &collect, &l);
	if (ret == -ENOMEM) {
		set_error(c, "Memory allocation problem");
		ret = NFHP_SET_EXIT_ERR;
		goto cleanup;
	}
	if (ret) {
		ret = set_kernel_error(c, NULL, NFHP_CMD_SET_LIST);
		goto cleanup;
	}
	for (i = 0; i < l.n && !ret; i++) {
		if (c->names) {
			fprintf(s->out, "%s\n", l.name[i]);
			continue;
		}
		ret = list_one(s, l.name[i]);
	}
cleanup:
	free(l.name);
	return ret;
}

/**
 * set_save() - every set of a family in the save format
 * @c: the run, connected
 * @out: where the lines go
 * @family: &enum nfhp_family of the sets, 0 for every set
 *
 * The lines of "nf-hipac-set save": for each set its create line, an add
 * line per entry, and "lock NAME" when it is locked.
 *
 * Return: 0, or ipset's exit code after a message.
 */
int set_save(struct set_cli *c, FILE *out, u8 family)
{
	struct list_state s = {
		.c = c, .save = true, .out = out, .family = family,
	};

	return list_all(&s);
}

static int list_or_save(struct set_cli *c, int argc, char **argv, bool save)
{
	struct list_state s = { .c = c, .save = save, .out = stdout };
	int ret;

	if (argc > 1)
		return set_param_error(c, "Unknown argument %s", argv[1]);
	if (argc) {
		ret = check_name(c, argv[0]);
		if (ret)
			return ret;
	}
	ret = set_connect(c);
	if (ret)
		return ret;
	if (!argc)
		return list_all(&s);
	if (c->names || c->terse) {
		struct nfhp_set_info info;

		ret = set_lookup(c, argv[0], &info);
		if (ret)
			return ret;
		return list_head_cb(&s, &info);
	}
	return list_one(&s, argv[0]);
}

static int set_list_main(struct set_cli *c, int argc, char **argv)
{
	return list_or_save(c, argc, argv, c->save);
}

static int set_save_main(struct set_cli *c, int argc, char **argv)
{
	return list_or_save(c, argc, argv, true);
}

/* --- the command line ------------------------------------------------------ */

static void set_usage(void)
{
	printf(
NFHP_SET_PROG " v" NFHP_VERSION "\n"
"\n"
"Usage: " NFHP_SET_PROG " [options] COMMAND\n"
"\n"
"Commands:\n"
"create SETNAME TYPENAME [type-specific-options]\n"
"        Create a new set (hash:ip, hash:net, bitmap:port, hash:iface)\n"
"add SETNAME ENTRY [value N] [packets N] [bytes N]\n"
"        Add entry to the named set\n"
"del SETNAME ENTRY\n"
"        Delete entry from the named set\n"
"test SETNAME ENTRY\n"
"        Test entry in the named set\n"
"destroy [SETNAME]\n"
"        Destroy a named set or all sets\n"
"list [SETNAME]\n"
"        List the entries of a named set or all sets\n"
"save [SETNAME]\n"
"        Save the named set or all sets to stdout\n"
"restore\n"
"        Restore a saved state\n"
"flush [SETNAME]\n"
"        Flush a named set or all sets\n"
"swap FROM-SETNAME TO-SETNAME\n"
"        Swap the contents of two sets\n"
"lock SETNAME, unlock SETNAME\n"
"        Refuse, or take again, adds and deletes\n"
"limit SETNAME N\n"
"        Hold at most N entries (0: no limit)\n"
"help\n"
"        Print this help\n"
"version\n"
"        Print version information\n"
"\n"
"Options:\n"
"-o plain|save  Specify output mode for listing sets\n"
"-exist         Ignore errors when exactly the same set is to be created\n"
"               or an already added entry is added again (its value\n"
"               is then updated) or a missing entry is deleted\n"
"-q             Quiet mode\n"
"-name          List just the names of the existing sets\n"
"-terse         List just the names and headers of the existing sets\n"
"\n"
"Create options: family inet|inet6, maxelem N, limit N, algo hash|lpm,\n"
"locked, counters; hashsize N, timeout 0, comment are accepted.\n"
"bitmap:port: range [PROTO:]FIRST-LAST, algo bitmap|range; entries\n"
"[PROTO:]PORT or [PROTO:]FIRST-LAST, ports by number or service name,\n"
"PROTO tcp (the default) or udp.\n"
"hash:iface (nf-hipac's): entries eth0 or eth+, algo hash|lpm.\n"
"See nf-hipac-set(8).\n");
}

static const struct {
	const char *name;
	const char *alias;
	const char *old;
	int (*fn)(struct set_cli *c, int argc, char **argv);
} commands[] = {
	{ "create", "n", "-N", set_create_main },
	{ "add", "a", "-A", set_add_main },
	{ "del", "d", "-D", set_del_main },
	{ "test", "t", "-T", set_test_main },
	{ "destroy", "x", "-X", set_destroy_main },
	{ "list", "l", "-L", set_list_main },
	{ "save", "s", "-S", set_save_main },
	{ "restore", "r", "-R", set_restore_main },
	{ "flush", "f", "-F", set_flush_main },
	{ "swap", "w", "-W", set_swap_main },
	{ "lock", NULL, NULL, set_lock_main },
	{ "unlock", NULL, NULL, set_unlock_main },
	{ "limit", NULL, NULL, set_limit_main },
};

/*
 * Take ipset's options out of argv, wherever they are, as ipset does.
 * -exist is left to the commands that read options (create, add, del):
 * it is taken there too.  Return: 0 or an exit code.
 */
static int take_options(struct set_cli *c, int *argc, char **argv)
{
	int i, n = 0;

	for (i = 0; i < *argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-exist") || !strcmp(o, "--exist") ||
		    !strcmp(o, "-!")) {
			c->exist = true;
		} else if (!strcmp(o, "-n") || !strcmp(o, "-name") ||
			   !strcmp(o, "--name")) {
			c->names = true;
		} else if (!strcmp(o, "-t") || !strcmp(o, "-terse") ||
			   !strcmp(o, "--terse")) {
			c->terse = true;
		} else if (!strcmp(o, "-q") || !strcmp(o, "-quiet") ||
			   !strcmp(o, "--quiet")) {
			c->quiet = true;
		} else if (!strcmp(o, "-s") || !strcmp(o, "-sorted") ||
			   !strcmp(o, "--sorted") || !strcmp(o, "-r") ||
			   !strcmp(o, "-resolve") || !strcmp(o, "--resolve")) {
			/* listings are in the kernel's order, numeric */
		} else if (!strcmp(o, "-o") || !strcmp(o, "-output") ||
			   !strcmp(o, "--output")) {
			if (i + 1 >= *argc)
				return set_param_error(c, "Missing mandatory argument of option `output'");
			o = argv[++i];
			if (!strcmp(o, "save")) {
				c->save = true;
			} else if (!strcmp(o, "plain")) {
				c->save = false;
			} else {
				return set_param_error(c, "Syntax error: unknown output mode '%s'",
						       o);
			}
		} else {
			argv[n++] = argv[i];
		}
	}
	*argc = n;
	argv[n] = NULL;
	return 0;
}

/**
 * set_run() - run one command line (or one line of a restore)
 * @c: the run
 * @argc: number of words
 * @argv: the command and its arguments, options anywhere
 *
 * Return: ipset's exit code.
 */
int set_run(struct set_cli *c, int argc, char **argv)
{
	unsigned int i;
	int ret;

	ret = take_options(c, &argc, argv);
	if (ret)
		return ret;
	if (!argc)
		return set_param_error(c, "No command specified.");
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "-h") ||
	    !strcmp(argv[0], "--help") || !strcmp(argv[0], "-H")) {
		set_usage();
		return 0;
	}
	if (!strcmp(argv[0], "version") || !strcmp(argv[0], "-v") ||
	    !strcmp(argv[0], "-V") || !strcmp(argv[0], "--version")) {
		printf(NFHP_SET_PROG " v" NFHP_VERSION "\n");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(argv[0], commands[i].name) ||
		    (commands[i].alias && !strcmp(argv[0], commands[i].alias)) ||
		    (commands[i].old && !strcmp(argv[0], commands[i].old)))
			return commands[i].fn(c, argc - 1, argv + 1);
	}
	if (!strcmp(argv[0], "rename") || !strcmp(argv[0], "e") ||
	    !strcmp(argv[0], "-E")) {
		set_error(c, "nf-hipac sets cannot be renamed: create, swap and destroy instead");
		return NFHP_SET_EXIT_ERR;
	}
	return set_param_error(c, "No command specified: unknown argument %s",
			       argv[0]);
}

/**
 * set_main() - nf-hipac-set, or "nf-hipac set"
 * @argc: number of arguments
 * @argv: the program's name, then the arguments
 *
 * Return: ipset's exit code.
 */
int set_main(int argc, char **argv)
{
	struct set_cli c = {};
	int ret;

	ret = set_run(&c, argc - 1, argv + 1);
	nfhp_nl_close(c.nl);
	return ret;
}
