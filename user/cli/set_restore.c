// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-set: restore, and the set lines of nf-hipac-restore.
 *
 * Lines in ipset's restore syntax (create, add, del, destroy, flush,
 * swap, and nf-hipac's lock, unlock and limit) are checked against the
 * sets the kernel has and those the lines before created or destroyed,
 * then sent, the adds of one set batched.  Both tools send them inside a
 * transaction (NFHP_CMD_BEGIN ... COMMIT): the kernel stages the set
 * writes and publishes them at the commit, with the rules of
 * nf-hipac-restore, or drops them.  Its listings show the committed sets
 * only, so the sets that the lines create are known here, not asked for.
 *
 * nf-hipac-set restore reads its whole input and checks every line before
 * it sends the first, as ipset restore does, and what the kernel refuses
 * (an entry already there, a full set) aborts it all.  nf-hipac-restore
 * checks and sends line by line, as it sends rules.  There a create of a
 * set that exists replaces the set's entries, its limit and its lock
 * (a save restored over itself changes nothing), unless the tool's
 * --noflush makes every line -exist.
 */
#include "set.h"
#include "parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RESTORE_MAX_WORDS	64

/**
 * struct rset - a set as the lines of a restore see it
 * @info: its head
 * @gone: destroyed by a line before
 */
struct rset {
	struct nfhp_set_info info;
	bool gone;
};

/**
 * struct set_restore - a restore under way
 * @c: the run, whose line is the one being restored
 * @replace: a create of a set that is there replaces it (nf-hipac-restore)
 * @apply: send the lines; else only check them
 * @foreign: a line of no set command is the caller's: -ENOENT, no message
 * @sets: the sets the lines know: the kernel's, then those they created
 * @nsets: how many
 * @cap: room
 * @nkernel: how many of them the kernel listed, first in @sets
 * @b: the adds and deletes being batched
 */
struct set_restore {
	struct set_cli *c;
	bool replace;
	bool apply;
	bool foreign;
	struct rset *sets;
	unsigned int nsets, cap, nkernel;
	struct set_batch b;
};

static int rset_add(void *data, const struct nfhp_set_info *info)
{
	struct set_restore *r = data;

	if (r->nsets == r->cap) {
		unsigned int cap = r->cap ? 2 * r->cap : 16;
		void *p = realloc(r->sets, cap * sizeof(*r->sets));

		if (!p)
			return -ENOMEM;
		r->sets = p;
		r->cap = cap;
	}
	r->sets[r->nsets].info = *info;
	r->sets[r->nsets].gone = false;
	r->nsets++;
	return 0;
}

static struct rset *rset_find(struct set_restore *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nsets; i++)
		if (!r->sets[i].gone && !strcmp(r->sets[i].info.name, name))
			return &r->sets[i];
	return NULL;
}

/* The set a line names, or NULL after ipset's message. */
static struct rset *rset_need(struct set_restore *r, const char *name)
{
	struct rset *s = rset_find(r, name);

	if (!s)
		set_error(r->c, "The set with the given name does not exist");
	return s;
}

/* Back to the kernel's sets, for the pass that sends what one checked. */
static void rset_rewind(struct set_restore *r)
{
	unsigned int i;

	r->nsets = r->nkernel;
	for (i = 0; i < r->nsets; i++)
		r->sets[i].gone = false;
}

/* Both count, or neither: the kernel swaps no others. */
static bool same_counting(const struct nfhp_set_info *a,
			  const struct nfhp_set_info *b)
{
	return !((a->flags ^ b->flags) & NFHP_SET_F_COUNTERS);
}

/* Sets the kernel takes as the same for a create with -exist. */
static bool same_kind(const struct nfhp_set_info *a,
		      const struct nfhp_set_info *b)
{
	return a->type == b->type && !strcmp(a->algo, b->algo) &&
	       a->family == b->family && a->ranged == b->ranged &&
	       a->range_lo == b->range_lo && a->range_hi == b->range_hi &&
	       same_counting(a, b);
}

static const char *const restore_cmds[][3] = {
	{ "create", "n", "-N" }, { "add", "a", "-A" }, { "del", "d", "-D" },
	{ "destroy", "x", "-X" }, { "flush", "f", "-F" },
	{ "swap", "w", "-W" }, { "lock" }, { "unlock" }, { "limit" },
};

/*
 * The command a line's first word names; only by its full name where the
 * lines are among others (nf-hipac-restore's "-A" is iptables').
 */
static const char *restore_cmd(const char *w, bool aliases)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(restore_cmds); i++)
		for (j = 0; j < (aliases ? 3 : 1); j++)
			if (restore_cmds[i][j] &&
			    !strcmp(w, restore_cmds[i][j]))
				return restore_cmds[i][0];
	return NULL;
}

/* Send what is queued, before a line of another command. */
static int flush_batch(struct set_restore *r)
{
	return set_batch_send(r->c, &r->b);
}

/*
 * A create of a set that is there, in nf-hipac-restore: the set takes
 * the line's limit and lock and loses its entries, so that the adds that
 * follow are all it holds.
 */
static int replace_set(struct set_restore *r, const struct nfhp_set_info *info,
		       const struct nfhp_set_info *old)
{
	struct nfhp_nl *nl = r->c->nl;
	bool locked = info->flags & NFHP_SET_F_LOCKED;

	if (nfhp_nl_set_new(nl, info, true))
		return set_kernel_error(r->c, info->name, NFHP_CMD_SET_NEW);
	if ((old->limit != info->limit ||
	     !(old->flags & NFHP_SET_F_LOCKED) != !locked) &&
	    nfhp_nl_set_modify(nl, info->name, &info->limit, &locked))
		return set_kernel_error(r->c, info->name, NFHP_CMD_SET_MODIFY);
	if (nfhp_nl_set_flush(nl, info->name))
		return set_kernel_error(r->c, info->name, NFHP_CMD_SET_FLUSH);
	return 0;
}

static int do_create(struct set_restore *r, int argc, char **argv, bool exist)
{
	struct nfhp_set_info info, old = {};
	struct rset *s;
	int ret;

	ret = set_parse_create(r->c, argc, argv, &info, &exist);
	if (ret)
		return ret;
	s = rset_find(r, info.name);
	if (s && !same_kind(&s->info, &info)) {
		const char *counters = s->info.flags & NFHP_SET_F_COUNTERS ?
				       " counters" : "";

		if (s->info.ranged)
			set_error(r->c, "Set cannot be created: set with the same name already exists (%s range %u-%u%s)",
				  nfhp_set_typename(&s->info),
				  s->info.range_lo, s->info.range_hi,
				  counters);
		else
			set_error(r->c, "Set cannot be created: set with the same name already exists (%s family %s%s)",
				  nfhp_set_typename(&s->info),
				  s->info.family == NFHP_FAMILY_IPV6 ? "inet6" : "inet",
				  counters);
		return NFHP_SET_EXIT_ERR;
	}
	if (s && !exist && !r->replace) {
		set_error(r->c, "Set cannot be created: set with the same name already exists");
		return NFHP_SET_EXIT_ERR;
	}
	/* -exist (and nf-hipac-restore's --noflush) keeps what is there. */
	if (s) {
		old = s->info;
		if (r->replace && !exist)
			s->info = info;
	} else if (rset_add(r, &info)) {
		set_error(r->c, "Memory allocation problem");
		return NFHP_SET_EXIT_ERR;
	}
	if (!r->apply)
		return 0;
	ret = flush_batch(r);
	if (ret)
		return ret;
	if (s && r->replace && !exist)
		return replace_set(r, &info, &old);
	if (nfhp_nl_set_new(r->c->nl, &info, s || exist))
		return set_kernel_error(r->c, info.name, NFHP_CMD_SET_NEW);
	return 0;
}

/* An add or a del: checked, and queued when the lines are sent. */
static int do_entries(struct set_restore *r, int argc, char **argv, bool add,
		      bool exist)
{
	struct set_batch *b = &r->b;
	struct nfhp_set_entry opts;
	struct rset *s;
	u32 flags;
	int ret;

	ret = set_entry_args(r->c, NULL, add, argc, argv, &opts, &exist);
	if (ret)
		return ret;
	s = rset_need(r, argv[0]);
	if (!s)
		return NFHP_SET_EXIT_ERR;
	/* When sent, the element is read once, as it is queued. */
	if (!r->apply)
		return set_entry_args(r->c, &s->info, add, argc, argv, &opts,
				      &exist);
	/* The counts of the line, against the set the lines before made. */
	ret = set_entry_check(r->c, &s->info, add, &opts);
	if (ret)
		return ret;
	flags = set_entry_flags(add, exist);
	if (b->n && (b->add != add || b->flags != flags ||
		     strcmp(b->info.name, s->info.name))) {
		ret = set_batch_send(r->c, b);
		if (ret)
			return ret;
	}
	b->info = s->info;
	b->add = add;
	b->flags = flags;
	return set_batch_queue(r->c, b, argv[1], &opts);
}

/* destroy, flush, swap, lock, unlock, limit: checked. */
static int check_other(struct set_restore *r, const char *cmd, int argc,
		       char **argv)
{
	unsigned long long limit;
	struct rset *s, *t;
	unsigned int i;

	if ((!strcmp(cmd, "destroy") || !strcmp(cmd, "flush")) && !argc) {
		if (*cmd == 'd')
			for (i = 0; i < r->nsets; i++)
				r->sets[i].gone = true;
		return 0;
	}
	if (argc < 1 || (!strcmp(cmd, "swap") || !strcmp(cmd, "limit") ?
			 argc != 2 : argc != 1))
		return set_param_error(r->c, "Wrong number of arguments to command %s",
				       cmd);
	s = rset_need(r, argv[0]);
	if (!s)
		return NFHP_SET_EXIT_ERR;
	if (!strcmp(cmd, "destroy"))
		s->gone = true;
	if (!strcmp(cmd, "limit") &&
	    !nfhp_parse_uint(argv[1], 0, 0xffffffffULL, &limit)) {
		set_error(r->c, "Syntax error: '%s' is invalid as number",
			  argv[1]);
		return NFHP_SET_EXIT_ERR;
	}
	if (strcmp(cmd, "swap"))
		return 0;
	t = rset_find(r, argv[1]);
	if (!t) {
		set_error(r->c, "Sets cannot be swapped: the second set does not exist");
		return NFHP_SET_EXIT_ERR;
	}
	if (s->info.type != t->info.type || s->info.family != t->info.family ||
	    !same_counting(&s->info, &t->info)) {
		set_error(r->c, "The sets cannot be swapped: their type does not match");
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

/**
 * set_restore_line() - check one line of a restore, and send it
 * @r: the restore
 * @line: the line, without its end; split in place
 *
 * The line is sent unless the restore only checks (the first pass of
 * nf-hipac-set restore).  Its number is @r's run's.
 *
 * Return: 0; ipset's exit code after its message; or -ENOENT for a line
 * of no set command, without a message, when it is the caller's.
 */
int set_restore_line(struct set_restore *r, char *line)
{
	struct set_cli *c = r->c;
	char *argv[RESTORE_MAX_WORDS + 1];
	bool exist = c->exist;
	const char *cmd;
	int argc, ret;

	argc = nfhp_split_line(line, argv, RESTORE_MAX_WORDS);
	if (argc < 0)
		return set_param_error(c, "Syntax error: cannot split the line");
	if (!argc || argv[0][0] == '#')
		return 0;
	argv[argc] = NULL;
	cmd = restore_cmd(argv[0], !r->foreign);
	if (!cmd && r->foreign)
		return -ENOENT;
	if (!cmd)
		return set_param_error(c, "No command specified: unknown argument %s",
				       argv[0]);
	if (!strcmp(cmd, "create"))
		return do_create(r, argc - 1, argv + 1, exist);
	if (!strcmp(cmd, "add") || !strcmp(cmd, "del"))
		return do_entries(r, argc - 1, argv + 1, *cmd == 'a', exist);
	ret = check_other(r, cmd, argc - 1, argv + 1);
	if (ret || !r->apply)
		return ret;
	ret = flush_batch(r);
	if (ret)
		return ret;
	ret = set_run(c, argc, argv);
	c->exist = exist;
	return ret;
}

/**
 * set_restore_flush() - send the adds and deletes still queued
 * @r: the restore
 *
 * Return: 0, or ipset's exit code after its message.
 */
int set_restore_flush(struct set_restore *r)
{
	return flush_batch(r);
}

static const struct nfhp_nl_set_ops rset_ops = { .set = rset_add };

/**
 * set_restore_start() - a restore of set lines
 * @c: the run, connected, inside the transaction the lines go to
 * @replace: a create of a set that is there replaces it (nf-hipac-restore)
 * @rp: the restore, for set_restore_line(); set_restore_free() frees it
 *
 * The lines are sent (set_restore_line()) and those of no set command
 * are the caller's.
 *
 * Return: 0, or ipset's exit code after its message.
 */
int set_restore_start(struct set_cli *c, bool replace,
		      struct set_restore **rp)
{
	struct set_restore *r = calloc(1, sizeof(*r));
	int ret;

	*rp = r;
	if (!r) {
		set_error(c, "Memory allocation problem");
		return NFHP_SET_EXIT_ERR;
	}
	r->c = c;
	r->replace = replace;
	r->apply = true;
	r->foreign = true;
	ret = nfhp_nl_set_list(c->nl, NULL, &rset_ops, r);
	if (ret == -ENOMEM) {
		set_error(c, "Memory allocation problem");
		return NFHP_SET_EXIT_ERR;
	}
	if (ret)
		return set_kernel_error(c, NULL, NFHP_CMD_SET_LIST);
	r->nkernel = r->nsets;
	return 0;
}

/**
 * set_restore_free() - end a restore
 * @r: the restore, or NULL
 */
void set_restore_free(struct set_restore *r)
{
	if (!r)
		return;
	free(r->sets);
	free(r);
}

/* --- nf-hipac-set restore ----------------------------------------------- */

/* Run every line of @text, the pass @r is in. */
static int restore_pass(struct set_restore *r, const char *text, size_t len)
{
	size_t off = 0;
	char *line = NULL;
	size_t room = 0;
	int ret = 0;

	r->c->line = 0;
	while (off < len && !ret) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = (nl ? (size_t)(nl - text) : len) - off;

		if (n + 1 > room) {
			char *p = realloc(line, n + 1);

			if (!p) {
				set_error(r->c, "Memory allocation problem");
				ret = NFHP_SET_EXIT_ERR;
				break;
			}
			line = p;
			room = n + 1;
		}
		memcpy(line, text + off, n);
		line[n] = '\0';
		r->c->line++;
		off += n + 1;
		ret = set_restore_line(r, line);
	}
	if (!ret && r->apply)
		ret = flush_batch(r);
	r->c->line = 0;
	free(line);
	return ret;
}

/* All of @f, in a buffer of the heap; NULL when out of memory. */
static char *read_all(FILE *f, size_t *len)
{
	size_t room = 1 << 16;
	char *buf = malloc(room), *p;

	*len = 0;
	while (buf) {
		*len += fread(buf + *len, 1, room - *len, f);
		if (*len < room)
			break;
		room *= 2;
		p = realloc(buf, room);
		if (!p)
			free(buf);
		buf = p;
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/* Check every line, then send them: the transaction is open. */
static int restore_text(struct set_cli *c, const char *text, size_t len)
{
	struct set_restore *r;
	int ret;

	ret = set_restore_start(c, false, &r);
	if (ret)
		goto cleanup;
	r->foreign = false;
	r->apply = false;
	ret = restore_pass(r, text, len);
	if (ret)
		goto cleanup;
	rset_rewind(r);
	r->apply = true;
	ret = restore_pass(r, text, len);
cleanup:
	set_restore_free(r);
	return ret;
}

/**
 * set_restore_main() - nf-hipac-set restore
 * @c: the run
 * @argc: number of arguments after "restore": none
 * @argv: them
 *
 * The standard input, in one transaction: all of it or nothing.
 *
 * Return: ipset's exit code.
 */
int set_restore_main(struct set_cli *c, int argc, char **argv)
{
	size_t len;
	char *text;
	int ret;

	if (argc)
		return set_param_error(c, "Unknown argument %s", argv[0]);
	ret = set_connect(c);
	if (ret)
		return ret;
	text = read_all(stdin, &len);
	if (!text) {
		set_error(c, "Memory allocation problem");
		return NFHP_SET_EXIT_ERR;
	}
	if (nfhp_nl_begin(c->nl)) {
		ret = set_kernel_error(c, NULL, NFHP_CMD_BEGIN);
		goto cleanup;
	}
	ret = restore_text(c, text, len);
	if (ret)
		nfhp_nl_abort(c->nl);
	else if (nfhp_nl_commit(c->nl))
		ret = set_kernel_error(c, NULL, NFHP_CMD_COMMIT);
cleanup:
	free(text);
	return ret;
}
