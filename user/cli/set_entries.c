// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-set: the commands on entries, add, del and test, and restore.
 *
 * Adds and deletes go to the kernel in batches, many entries per
 * NFHP_CMD_SET_ADD or _REMOVE, each answered with a result per entry:
 * the first entry that failed is reported as ipset reports it.
 *
 * A restore reads its whole input and checks every line first, against
 * the sets the kernel has and those the input creates and destroys, so
 * that a syntax error, an unknown set or a type mismatch anywhere changes
 * nothing.  Then it runs the lines, the adds of one set batched; what the
 * kernel refuses (an entry already there, a full set) stops it there, as
 * it stops ipset restore.
 */
#include "set.h"
#include "parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/**
 * struct batch - entries on their way to the kernel
 * @info: their set
 * @add: an add, else a delete
 * @flags: NFHP_SET_F_UPDATE, NFHP_SET_F_EXIST
 * @e: the entries
 * @line: the restore line of each entry, 0 outside a restore
 * @n: how many
 */
struct batch {
	struct nfhp_set_info info;
	bool add;
	u32 flags;
	struct nfhp_set_entry e[NFHP_NL_SET_BATCH];
	unsigned long line[NFHP_NL_SET_BATCH];
	unsigned int n;
};

/* ipset's words for an entry's failure, NULL for a success. */
static const char *result_msg(bool add, u32 flags, u8 result)
{
	switch (result) {
	case NFHP_SET_ADDED:
	case NFHP_SET_UPDATED:
	case NFHP_SET_DELETED:
		return NULL;
	case NFHP_SET_EXISTS:
		if (flags & NFHP_SET_F_EXIST)
			return NULL;
		return "Element cannot be added to the set: it's already added";
	case NFHP_SET_NOT_FOUND:
		if (flags & NFHP_SET_F_EXIST)
			return NULL;
		return "Element cannot be deleted from the set: it's not added";
	case NFHP_SET_LIMIT:
		return "Hash is full, cannot add more elements";
	case NFHP_SET_LOCKED:
		return add ? "Element cannot be added to the set: the set is locked" :
			     "Element cannot be deleted from the set: the set is locked";
	case NFHP_SET_NOMEM:
		return "Memory allocation problem";
	default:
		return "Element is not of the set's type or family";
	}
}

/* Send what is queued; report the first entry that failed. */
static int batch_send(struct set_cli *c, struct batch *b)
{
	unsigned long line = c->line;
	struct nfhp_nl_failure f;
	unsigned int i, n = b->n;
	int ret;

	if (!n)
		return 0;
	b->n = 0;
	ret = nfhp_nl_set_entries(c->nl, b->add, &b->info, b->flags, b->e, n);
	nfhp_nl_get_failure(c->nl, &f);
	for (i = 0; i < n; i++) {
		const char *m = result_msg(b->add, b->flags, b->e[i].result);

		if (!m)
			continue;
		/* An entry without a result: the command failed as a whole. */
		if (ret && ret != -EPROTO && b->e[i].result == NFHP_SET_INVALID)
			break;
		c->line = b->line[i];
		set_error(c, "%s", m);
		c->line = line;
		return NFHP_SET_EXIT_ERR;
	}
	if (!ret)
		return 0;
	c->line = b->line[i < n ? i : 0];
	if (ret == -EPROTO)
		set_error(c, "Kernel error received: an answer nf-hipac-set cannot read");
	else
		set_failure(c, &f, b->add ? NFHP_CMD_SET_ADD :
					    NFHP_CMD_SET_REMOVE);
	c->line = line;
	return NFHP_SET_EXIT_ERR;
}

/**
 * struct queue_ctx - the keys of one element, queued
 * @c: the run
 * @b: the batch
 * @value: the value they take
 * @ret: an exit code of a batch sent on the way
 */
struct queue_ctx {
	struct set_cli *c;
	struct batch *b;
	u32 value;
	int ret;
};

static int queue_cb(void *data, const struct nfhp_set_entry *e)
{
	struct queue_ctx *q = data;
	struct batch *b = q->b;

	if (b->n == NFHP_NL_SET_BATCH) {
		q->ret = batch_send(q->c, b);
		if (q->ret)
			return 1;
	}
	b->e[b->n] = *e;
	b->e[b->n].value = q->value;
	b->line[b->n] = q->c->line;
	b->n++;
	return 0;
}

static int count_cb(void *data, const struct nfhp_set_entry *e)
{
	(*(unsigned int *)data)++;
	return 0;
}

/*
 * The words after NAME ELEMENT of add and del, and the element itself,
 * checked against set @info: 0, or an exit code after a message.
 */
static int check_elem(struct set_cli *c, const struct nfhp_set_info *info,
		      bool add, int argc, char **argv, u32 *value,
		      bool *exist)
{
	unsigned int n = 0;
	char err[256];
	int ret;

	ret = nfhp_set_parse_elem_opts(argc - 2, argv + 2,
				       add ? value : NULL, exist, err,
				       sizeof(err));
	if (ret == NFHP_SET_EXIT_PARAM)
		return set_param_error(c, "%s", err);
	if (ret) {
		set_error(c, "%s", err);
		return ret;
	}
	if (!info)
		return 0;
	if (nfhp_set_parse_elem(argv[1], info->family, info->algo, count_cb,
				&n, err, sizeof(err))) {
		set_error(c, "%s", err);
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

static int arg_count(struct set_cli *c, int argc, const char *cmd)
{
	if (argc < 1)
		return set_param_error(c, "Missing mandatory argument to command %s",
				       cmd);
	if (argc < 2)
		return set_param_error(c, "Missing second mandatory argument to command %s",
				       cmd);
	return 0;
}

static u32 entry_flags(bool add, bool exist, bool value)
{
	u32 flags = exist ? NFHP_SET_F_EXIST : 0;

	/* -exist updates an entry, as it updates ipset's timeouts. */
	if (add && exist)
		flags |= NFHP_SET_F_UPDATE;
	return flags;
}

/* Queue the keys of one element; the caller sends the batch. */
static int queue_elem(struct set_cli *c, struct batch *b, const char *elem,
		      u32 value)
{
	struct queue_ctx q = { .c = c, .b = b, .value = value };
	char err[256];
	int ret;

	ret = nfhp_set_parse_elem(elem, b->info.family, b->info.algo,
				  queue_cb, &q, err, sizeof(err));
	if (q.ret)
		return q.ret;
	if (ret) {
		set_error(c, "%s", err);
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

static int entries_main(struct set_cli *c, int argc, char **argv, bool add)
{
	bool exist = c->exist;
	struct batch *b;
	u32 value = 0;
	int ret;

	ret = arg_count(c, argc, add ? "add" : "del") ?:
	      check_elem(c, NULL, add, argc, argv, &value, &exist);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b) {
		set_error(c, "Memory allocation problem");
		return NFHP_SET_EXIT_ERR;
	}
	ret = set_lookup(c, argv[0], &b->info);
	if (ret)
		goto cleanup;
	b->add = add;
	b->flags = entry_flags(add, exist, value);
	/* Every key is checked before the first is sent. */
	ret = check_elem(c, &b->info, add, argc, argv, &value, &exist) ?:
	      queue_elem(c, b, argv[1], value) ?: batch_send(c, b);
cleanup:
	free(b);
	return ret;
}

int set_add_main(struct set_cli *c, int argc, char **argv)
{
	return entries_main(c, argc, argv, true);
}

int set_del_main(struct set_cli *c, int argc, char **argv)
{
	return entries_main(c, argc, argv, false);
}

static int first_cb(void *data, const struct nfhp_set_entry *e)
{
	struct nfhp_set_entry *first = data;

	if (first->result)
		return 1;	/* a second key */
	*first = *e;
	first->result = 1;
	return 0;
}

int set_test_main(struct set_cli *c, int argc, char **argv)
{
	struct nfhp_set_entry e = {};
	struct nfhp_set_info info;
	bool found, exist = false;
	char err[256];
	int ret;

	ret = arg_count(c, argc, "test") ?:
	      check_elem(c, NULL, false, argc, argv, NULL, &exist) ?:
	      set_lookup(c, argv[0], &info);
	if (ret)
		return ret;
	ret = nfhp_set_parse_elem(argv[1], info.family, info.algo, first_cb,
				  &e, err, sizeof(err));
	if (ret > 0) {
		set_error(c, "Syntax error: test takes one address or prefix: %s",
			  argv[1]);
		return NFHP_SET_EXIT_ERR;
	}
	if (ret) {
		set_error(c, "%s", err);
		return NFHP_SET_EXIT_ERR;
	}
	ret = nfhp_nl_set_test(c->nl, &info, &e, &found);
	if (ret == -EPROTO) {
		set_error(c, "Kernel error received: an answer nf-hipac-set cannot read");
		return NFHP_SET_EXIT_ERR;
	}
	if (ret)
		return set_kernel_error(c, info.name, NFHP_CMD_SET_TEST);
	if (!c->quiet)
		fprintf(stderr, found ? "Warning: %s is in set %s.\n" :
					"%s is NOT in set %s.\n",
			argv[1], info.name);
	return found ? NFHP_SET_EXIT_OK : NFHP_SET_EXIT_ERR;
}

/* --- restore -------------------------------------------------------------- */

#define RESTORE_MAX_WORDS	64

/**
 * struct rset - a set as the check of a restore sees it
 * @info: its head
 * @gone: destroyed by a line before
 */
struct rset {
	struct nfhp_set_info info;
	bool gone;
};

/**
 * struct restore - a restore under way
 * @c: the run
 * @apply: the second pass, which changes things; the first only checks
 * @sets: the sets known to the first pass
 * @nsets: how many
 * @cap: room
 * @b: the adds and deletes being batched (second pass)
 */
struct restore {
	struct set_cli *c;
	bool apply;
	struct rset *sets;
	unsigned int nsets, cap;
	struct batch b;
};

static int rset_collect(void *data, const struct nfhp_set_info *info)
{
	struct restore *r = data;

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

static struct rset *rset_find(struct restore *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nsets; i++)
		if (!r->sets[i].gone && !strcmp(r->sets[i].info.name, name))
			return &r->sets[i];
	return NULL;
}

/* The set a line names, or NULL after ipset's message. */
static struct rset *rset_need(struct restore *r, const char *name)
{
	struct rset *s = rset_find(r, name);

	if (!s)
		set_error(r->c, "The set with the given name does not exist");
	return s;
}

static const char *const restore_cmds[][3] = {
	{ "create", "n", "-N" }, { "add", "a", "-A" }, { "del", "d", "-D" },
	{ "destroy", "x", "-X" }, { "flush", "f", "-F" },
	{ "swap", "w", "-W" }, { "lock" }, { "unlock" }, { "limit" },
};

static const char *restore_cmd(const char *w)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(restore_cmds); i++)
		for (j = 0; j < 3; j++)
			if (restore_cmds[i][j] &&
			    !strcmp(w, restore_cmds[i][j]))
				return restore_cmds[i][0];
	return NULL;
}

/* First pass: a create, its options and its name. */
static int check_create(struct restore *r, int argc, char **argv,
			bool *exist)
{
	struct nfhp_set_info info = {};
	struct rset *s;
	const char *algo;
	char err[256];
	int ret;

	ret = arg_count(r->c, argc, "create");
	if (ret)
		return ret;
	if (strlen(argv[0]) >= NFHP_SET_MAXNAMELEN) {
		set_error(r->c, "Syntax error: setname '%s' is longer than %d characters",
			  argv[0], NFHP_SET_MAXNAMELEN - 1);
		return NFHP_SET_EXIT_ERR;
	}
	strcpy(info.name, argv[0]);
	if (!nfhp_set_parse_typename(argv[1], &info.type, &algo)) {
		if (set_ipset_type(argv[1]))
			set_error(r->c, "Syntax error: typename '%s' is not supported by nf-hipac (hash:ip and hash:net are)",
				  argv[1]);
		else
			set_error(r->c, "Syntax error: typename '%s' is unknown",
				  argv[1]);
		return NFHP_SET_EXIT_ERR;
	}
	snprintf(info.algo, sizeof(info.algo), "%s", algo);
	ret = nfhp_set_parse_create(argc - 2, argv + 2, &info, exist, err,
				    sizeof(err));
	if (ret == NFHP_SET_EXIT_PARAM)
		return set_param_error(r->c, "%s", err);
	if (ret) {
		set_error(r->c, "%s", err);
		return ret;
	}
	s = rset_find(r, info.name);
	if (s && (!*exist || s->info.type != info.type ||
		  strcmp(s->info.algo, info.algo) ||
		  s->info.family != info.family)) {
		set_error(r->c, "Set cannot be created: set with the same name already exists");
		return NFHP_SET_EXIT_ERR;
	}
	if (!s && rset_collect(r, &info)) {
		set_error(r->c, "Memory allocation problem");
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

/* First pass: one line, against the sets known so far. */
static int check_line(struct restore *r, const char *cmd, int argc,
		      char **argv, bool *exist)
{
	unsigned long long limit;
	struct rset *s, *t;
	unsigned int i;
	u32 value;

	if (!strcmp(cmd, "create"))
		return check_create(r, argc, argv, exist);
	if (!strcmp(cmd, "add") || !strcmp(cmd, "del")) {
		int ret = arg_count(r->c, argc, cmd) ?:
			  check_elem(r->c, NULL, *cmd == 'a', argc, argv,
				     &value, exist);

		if (ret)
			return ret;
		s = rset_need(r, argv[0]);
		if (!s)
			return NFHP_SET_EXIT_ERR;
		return check_elem(r->c, &s->info, *cmd == 'a', argc, argv,
				  &value, exist);
	}
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
	if (s->info.type != t->info.type || s->info.family != t->info.family) {
		set_error(r->c, "The sets cannot be swapped: their type does not match");
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

/* Second pass: queue an add or delete, sending what came before. */
static int apply_entries(struct restore *r, int argc, char **argv, bool add,
			 bool exist)
{
	struct batch *b = &r->b;
	u32 value = 0, flags;
	int ret;

	ret = check_elem(r->c, NULL, add, argc, argv, &value, &exist);
	if (ret)
		return ret;
	flags = entry_flags(add, exist, value);
	if (b->n && (b->add != add || b->flags != flags ||
		     strcmp(b->info.name, argv[0]))) {
		ret = batch_send(r->c, b);
		if (ret)
			return ret;
	}
	if (strcmp(b->info.name, argv[0])) {
		ret = set_lookup(r->c, argv[0], &b->info);
		if (ret)
			return ret;
	}
	b->add = add;
	b->flags = flags;
	return queue_elem(r->c, b, argv[1], value);
}

static int restore_line(struct restore *r, char *line)
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
	cmd = restore_cmd(argv[0]);
	if (!cmd)
		return set_param_error(c, "No command specified: unknown argument %s",
				       argv[0]);
	if (!r->apply)
		return check_line(r, cmd, argc - 1, argv + 1, &exist);
	if (!strcmp(cmd, "add") || !strcmp(cmd, "del"))
		return apply_entries(r, argc - 1, argv + 1, *cmd == 'a',
				     exist);
	/* Any other command: what is queued goes first. */
	ret = batch_send(c, &r->b);
	if (ret)
		return ret;
	r->b.info.name[0] = '\0';	/* a swap or destroy may change it */
	ret = set_run(c, argc, argv);
	c->exist = exist;
	return ret;
}

/* Run every line of @text, the pass @r is in. */
static int restore_pass(struct restore *r, const char *text, size_t len)
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
		ret = restore_line(r, line);
	}
	if (!ret && r->apply)
		ret = batch_send(r->c, &r->b);
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

static const struct nfhp_nl_set_ops rset_ops = { .set = rset_collect };

int set_restore_main(struct set_cli *c, int argc, char **argv)
{
	struct restore *r;
	size_t len;
	char *text;
	int ret;

	if (argc)
		return set_param_error(c, "Unknown argument %s", argv[0]);
	ret = set_connect(c);
	if (ret)
		return ret;
	text = read_all(stdin, &len);
	r = calloc(1, sizeof(*r));
	if (!text || !r) {
		set_error(c, "Memory allocation problem");
		ret = NFHP_SET_EXIT_ERR;
		goto cleanup;
	}
	r->c = c;
	if (nfhp_nl_set_list(c->nl, NULL, &rset_ops, r)) {
		ret = set_kernel_error(c, NULL, NFHP_CMD_SET_LIST);
		goto cleanup;
	}
	ret = restore_pass(r, text, len);
	if (ret)
		goto cleanup;
	r->apply = true;
	ret = restore_pass(r, text, len);
cleanup:
	if (r)
		free(r->sets);
	free(r);
	free(text);
	return ret;
}
