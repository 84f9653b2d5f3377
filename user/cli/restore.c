// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-restore: load iptables-save format as one transaction.
 *
 * BEGIN is sent alone and acknowledged: if another program holds the
 * rule set, nothing else may go out (once that transaction ends, the
 * requests would commit one by one).  Then, unless --noflush, every rule
 * is flushed and every user chain deleted, and the input follows, all in
 * batches; at the end COMMIT publishes everything at once (ABORT for
 * --test).  The first failure aborts: the old rule set stays as it was.
 *
 * Outside the tables, the lines of nf-hipac-set restore (what
 * nf-hipac-save prints before the table) go into the same transaction,
 * where they come: the batch of rules before them is sent, and they go
 * one request after another, as set_restore.c sends them, with the sets
 * the kernel has when the first comes.  A create of a set that is there
 * replaces its entries, unless --noflush.
 *
 * The kernel builds the trees inside the COMMIT request.  A signal
 * (Ctrl-C, SIGTERM, SIGHUP) stops that build, and the commit fails with
 * the old rules in force; the signal is caught meanwhile, so that the
 * failure can be told, then raised again.  A restore that takes over a
 * second says where the time went.
 */
#include "subcommands.h"
#include "set.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The family restored, chosen by the program's name (nf-hipac6-restore). */
static u8 restore_family = NFHP_FAMILY_IPV4;
#define RESTORE_PROG	(restore_family == NFHP_FAMILY_IPV6 ? \
			 "nf-hipac6-restore" : "nf-hipac-restore")

/* A restore that takes longer says where its time went. */
#define RESTORE_SLOW_NS	1000000000ull

/**
 * struct restore_times - when each step of a restore ended, in ns
 * @start: the program started
 * @read: the input was read
 * @sent: every rule was parsed and sent
 * @done: the kernel answered the commit
 */
struct restore_times {
	unsigned long long start;
	unsigned long long read;
	unsigned long long sent;
	unsigned long long done;
};

static unsigned long long restore_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Signals that stop the commit: they would end the program. */
static const int restore_stops[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t restore_stopped;

static void restore_on_stop(int sig)
{
	restore_stopped = sig;
}

/*
 * Catch the stopping signals while the kernel commits (@on), or give back
 * their handlers @saved.  Without SA_RESTART: the kernel sees the signal
 * pending and stops its build, and the answer is still read.
 */
static void restore_catch(bool on, struct sigaction *saved)
{
	struct sigaction sa = { .sa_handler = restore_on_stop };
	unsigned int i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(restore_stops); i++) {
		if (on)
			sigaction(restore_stops[i], &sa, &saved[i]);
		else
			sigaction(restore_stops[i], &saved[i], NULL);
	}
}

/* After a stopping signal was caught: end as it would have ended us. */
static void restore_stop_now(void)
{
	int sig = restore_stopped;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Past RESTORE_SLOW_NS, one line on where the time of a restore went. */
static void restore_say_times(const struct restore_times *t,
			      unsigned long rules)
{
	if (t->done - t->start <= RESTORE_SLOW_NS)
		return;
	fprintf(stderr,
		"%s: %.1f s: %.1f s reading, %.1f s parsing and sending %lu rules, %.1f s in the kernel's commit\n",
		RESTORE_PROG, (t->done - t->start) / 1e9,
		(t->read - t->start) / 1e9, (t->sent - t->read) / 1e9, rules,
		(t->done - t->sent) / 1e9);
}

/**
 * struct restore_ctx - a restore in progress
 * @nl: the connection, in batch mode
 * @f: the input, read from @buf
 * @buf: the whole input, the caller's
 * @len: its length
 * @scan_pos: how far @buf has been scanned for line ends
 * @scan_line: line ends before @scan_pos
 * @line: the line being applied
 * @noflush: --noflush
 * @counters: --counters
 * @chains: --noflush: the chains that existed, "\0"-separated
 * @nchains: size of @chains
 * @in_table: a "*filter" line was seen
 * @committed: its "COMMIT" line was seen
 * @rules: rules sent, for --verbose
 * @set_cli: the set lines' run: their connection, line and messages
 * @sets: their restore, from the first set line on
 * @in_sets: set lines are being sent: batch mode is left
 * @said: a set line's failure was told
 */
struct restore_ctx {
	struct nfhp_nl *nl;
	FILE *f;
	const char *buf;
	size_t len;
	size_t scan_pos;
	unsigned long scan_line;
	unsigned long line;
	bool noflush;
	bool counters;
	char *chains;
	size_t nchains;
	bool in_table;
	bool committed;
	unsigned long rules;
	struct set_cli set_cli;
	struct set_restore *sets;
	bool in_sets;
	bool said;
};

/*
 * The number of the line the parser just handed over: it has read up to
 * and including that line's end, so count the line ends before ftell().
 */
static unsigned long current_line(struct restore_ctx *ctx)
{
	long pos = ftell(ctx->f);

	if (pos < 0)
		return 0;
	for (; ctx->scan_pos < (size_t)pos; ctx->scan_pos++)
		if (ctx->buf[ctx->scan_pos] == '\n')
			ctx->scan_line++;
	/* A last line without a line end. */
	if ((size_t)pos == ctx->len && ctx->len && ctx->buf[ctx->len - 1] != '\n')
		return ctx->scan_line + 1;
	return ctx->scan_line;
}

/* Tag what is sent next with the current line. */
static void next_line(struct restore_ctx *ctx)
{
	ctx->line = current_line(ctx);
	nfhp_nl_set_tag(ctx->nl, ctx->line);
}

static bool chain_existed(const struct restore_ctx *ctx, const char *name)
{
	const char *p;

	for (p = ctx->chains; p && p < ctx->chains + ctx->nchains;
	     p += strlen(p) + 1)
		if (!strcmp(p, name))
			return true;
	return false;
}

/* A set line: the rules' batch goes first, the set lines one by one. */
static int sets_enter(struct restore_ctx *ctx)
{
	int ret;

	if (ctx->in_sets)
		return 0;
	/* A failure of the rules is told by send_input(). */
	if (nfhp_nl_batch_end(ctx->nl))
		return NFHP_EXIT_OTHER;
	ctx->in_sets = true;
	if (ctx->sets)
		return 0;
	ctx->set_cli.nl = ctx->nl;
	ctx->set_cli.prog = RESTORE_PROG;
	ctx->set_cli.exist = ctx->noflush;
	ret = set_restore_start(&ctx->set_cli, !ctx->noflush, &ctx->sets);
	ctx->said = ret;
	return ret;
}

/* What the set lines queued goes; then the rules' batches again. */
static int sets_leave(struct restore_ctx *ctx, bool batch)
{
	int ret;

	if (!ctx->in_sets)
		return 0;
	ctx->in_sets = false;
	ret = set_restore_flush(ctx->sets);
	if (ret) {
		ctx->said = true;
		return ret;
	}
	if (batch)
		nfhp_nl_batch_start(ctx->nl);
	return 0;
}

static int restore_outside(void *data, char *line)
{
	struct restore_ctx *ctx = data;
	int ret;

	next_line(ctx);
	ret = sets_enter(ctx);
	if (ret)
		return ret;
	ctx->set_cli.line = ctx->line;
	ret = set_restore_line(ctx->sets, line);
	if (ret > 0)
		ctx->said = true;
	return ret;
}

static int restore_table(void *data, const char *name)
{
	struct restore_ctx *ctx = data;
	int ret;

	next_line(ctx);
	ret = sets_leave(ctx, true);
	if (ret)
		return ret;
	if (strcmp(name, "filter")) {
		fprintf(stderr,
			"%s: unable to initialize table '%s' (nf-hipac has the filter table only)\n"
			"Error occurred at line: %lu\n",
			RESTORE_PROG, name, ctx->line);
		return NFHP_EXIT_OTHER;
	}
	ctx->in_table = true;
	ctx->committed = false;
	if (ctx->noflush)
		return 0;
	if (nfhp_nl_flush(ctx->nl, NULL) || nfhp_nl_del_chain(ctx->nl, NULL))
		return NFHP_EXIT_OTHER;
	return 0;
}

static int restore_chain(void *data, const char *name, u8 policy,
			 const struct nfhp_counter *c)
{
	static const struct nfhp_counter zero;
	struct restore_ctx *ctx = data;
	int ret;

	next_line(ctx);
	/* Like iptables-restore, without --counters the policy's restart. */
	if (policy != NFHP_ACT_NONE)
		ret = nfhp_nl_policy(ctx->nl, name, policy,
				     ctx->counters && c ? c : &zero);
	else if (chain_existed(ctx, name))
		ret = nfhp_nl_flush(ctx->nl, name);	/* as iptables does */
	else
		ret = nfhp_nl_new_chain(ctx->nl, name);
	return ret ? NFHP_EXIT_OTHER : 0;
}

static int apply(struct restore_ctx *ctx, struct nfhp_cmdline *cl)
{
	const struct nfhp_counter *c =
		ctx->counters && cl->has_counters ? &cl->counters : NULL;
	struct nfhp_nl *nl = ctx->nl;

	switch (cl->cmd) {
	case NFHP_CLI_APPEND:
		ctx->rules++;
		return nfhp_nl_append(nl, cl->chain, &cl->spec, c);
	case NFHP_CLI_INSERT:
		ctx->rules++;
		return nfhp_nl_insert(nl, cl->chain, cl->pos ? cl->pos : 1,
				      &cl->spec, c);
	case NFHP_CLI_DELETE:
		if (cl->pos)
			return nfhp_nl_delete_pos(nl, cl->chain, cl->pos);
		return nfhp_nl_delete_spec(nl, cl->chain, &cl->spec);
	case NFHP_CLI_REPLACE:
		return nfhp_nl_replace(nl, cl->chain, cl->pos, &cl->spec);
	case NFHP_CLI_FLUSH:
		return nfhp_nl_flush(nl, nfhp_cli_chain(cl));
	case NFHP_CLI_ZERO:
		return nfhp_nl_zero(nl, nfhp_cli_chain(cl), cl->pos);
	case NFHP_CLI_NEW_CHAIN:
		return nfhp_nl_new_chain(nl, cl->chain);
	case NFHP_CLI_DEL_CHAIN:
		return nfhp_nl_del_chain(nl, nfhp_cli_chain(cl));
	case NFHP_CLI_RENAME_CHAIN:
		return nfhp_nl_rename(nl, cl->chain, cl->new_name);
	case NFHP_CLI_POLICY:
		return nfhp_nl_policy(nl, cl->chain, cl->policy,
				      cl->has_counters ? &cl->counters : NULL);
	}
	return -EOPNOTSUPP;
}

static int restore_cmd(void *data, struct nfhp_cmdline *cl)
{
	struct restore_ctx *ctx = data;
	int ret;

	next_line(ctx);
	if (!ctx->in_table) {
		fprintf(stderr, "%s: no table given\nError occurred at line: %lu\n",
			RESTORE_PROG, ctx->line);
		return NFHP_EXIT_PARAM;
	}
	ret = apply(ctx, cl);
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr,
			"%s: this command cannot be restored\nError occurred at line: %lu\n",
			RESTORE_PROG, ctx->line);
		return NFHP_EXIT_PARAM;
	}
	return ret ? NFHP_EXIT_OTHER : 0;
}

static int restore_commit(void *data)
{
	struct restore_ctx *ctx = data;

	next_line(ctx);
	ctx->committed = true;
	return 0;
}

static const struct nfhp_restore_ops restore_ops = {
	.table = restore_table,
	.chain = restore_chain,
	.cmd = restore_cmd,
	.commit = restore_commit,
	.outside = restore_outside,
};

static int note_chain(void *data, const struct nfhp_nl_chain *c)
{
	FILE *f = data;

	fwrite(c->name, 1, strlen(c->name) + 1, f);
	return 0;
}

/* --noflush: which chains exist already, in the transaction's view. */
static int list_chains(struct restore_ctx *ctx)
{
	static const struct nfhp_nl_dump_ops ops = { .chain = note_chain };
	FILE *f = open_memstream(&ctx->chains, &ctx->nchains);
	int ret;

	if (!f)
		return -ENOMEM;
	ret = nfhp_nl_dump_chains(ctx->nl, NULL, &ops, f);
	fclose(f);
	return ret;
}

/*
 * Read the whole input into *@bufp, *@lenp bytes, to be freed.  The buffer
 * starts at the size of a regular file: a 100,000-rule file read through a
 * stream that grows cost its copies and page faults a tenth of the parsing
 * time in the VM.  A pipe or a file that grows meanwhile is read to its end
 * all the same.
 */
static int read_input(const char *file, char **bufp, size_t *lenp)
{
	FILE *in = file ? fopen(file, "r") : stdin;
	size_t cap = 65536, len = 0;
	char *buf, *more;
	struct stat st;
	int ret = NFHP_EXIT_OK;

	if (!in) {
		fprintf(stderr, "%s: cannot open %s: %s\n", RESTORE_PROG, file,
			strerror(errno));
		return NFHP_EXIT_OTHER;
	}
	if (!fstat(fileno(in), &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (unsigned long long)st.st_size < SIZE_MAX / 2)
		cap = st.st_size + 1;
	buf = malloc(cap);
	while (buf) {
		len += fread(buf + len, 1, cap - len, in);
		if (len < cap)
			break;
		cap *= 2;
		more = realloc(buf, cap);
		if (!more)
			free(buf);
		buf = more;
	}
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", RESTORE_PROG);
		ret = NFHP_EXIT_RESOURCE;
	} else if (ferror(in)) {
		fprintf(stderr, "%s: cannot read %s: %s\n", RESTORE_PROG,
			file ? file : "standard input", strerror(errno));
		ret = NFHP_EXIT_OTHER;
	}
	if (file)
		fclose(in);
	*bufp = buf;
	*lenp = len;
	return ret;
}

/* The first failure of the kernel, as iptables-restore words it. */
static int kernel_failure(struct restore_ctx *ctx)
{
	struct nfhp_nl_failure f;

	nfhp_nl_get_failure(ctx->nl, &f);
	fprintf(stderr, "%s: line %lu failed\n", RESTORE_PROG, f.tag);
	nfhp_nl_report_failure(&f, RESTORE_PROG);
	return NFHP_EXIT_OTHER;
}

/* Commit what was sent, catching the signals that would stop it. */
static int commit(struct restore_ctx *ctx, const struct restore_opts *o)
{
	struct sigaction saved[ARRAY_SIZE(restore_stops)];
	int failed;

	nfhp_nl_set_tag(ctx->nl, ctx->line);
	if (o->verbose)
		fprintf(stderr, "%s: committing %lu rules\n", RESTORE_PROG,
			ctx->rules);
	restore_catch(true, saved);
	failed = nfhp_nl_commit(ctx->nl);
	restore_catch(false, saved);
	if (failed)
		return kernel_failure(ctx);
	if (o->verbose)
		fprintf(stderr, "%s: %lu lines, %lu rules committed\n",
			RESTORE_PROG, ctx->scan_line, ctx->rules);
	return NFHP_EXIT_OK;
}

/*
 * Send the input into the open transaction: the flush unless --noflush,
 * then every line.  Returns 0 or the exit code, after saying why; the
 * caller aborts then.
 */
static int send_input(struct restore_ctx *ctx, const struct restore_opts *o)
{
	char err[256] = "";
	int ret;

	if (o->noflush && list_chains(ctx))
		return nfhp_nl_report(ctx->nl, RESTORE_PROG);
	nfhp_nl_batch_start(ctx->nl);
	ret = nfhp_parse_save_stream(ctx->f, restore_family, &restore_ops,
				     ctx, err, sizeof(err));
	if (!ret)
		ret = sets_leave(ctx, false);
	if (!ret && nfhp_nl_batch_end(ctx->nl))
		ret = NFHP_EXIT_OTHER;
	if (ctx->said)
		return ret;
	if (nfhp_nl_error(ctx->nl))
		return kernel_failure(ctx);
	if (ret) {
		/* A parse error, or a callback that already said why. */
		if (err[0])
			fprintf(stderr, "%s: %s\n", RESTORE_PROG, err);
		return ret;
	}
	if (ctx->in_table && !ctx->committed) {
		fprintf(stderr, "%s: COMMIT expected at line %lu\n",
			RESTORE_PROG, current_line(ctx) + 1);
		return NFHP_EXIT_OTHER;
	}
	return 0;
}

static int run(struct restore_ctx *ctx, const struct restore_opts *o,
	       struct restore_times *t)
{
	int ret;

	nfhp_nl_set_tag(ctx->nl, 0);
	if (nfhp_nl_begin(ctx->nl))
		return nfhp_nl_report(ctx->nl, RESTORE_PROG);
	ret = send_input(ctx, o);
	if (ret || o->test || (!ctx->in_table && !ctx->sets))
		goto out_abort;

	t->sent = restore_now();
	ret = commit(ctx, o);
	t->done = restore_now();
	restore_say_times(t, ctx->rules);
	return ret;

out_abort:
	nfhp_nl_abort(ctx->nl);
	if (!ret && o->verbose)
		fprintf(stderr, "%s: %lu lines, %lu rules tested\n",
			RESTORE_PROG, ctx->scan_line, ctx->rules);
	return ret;
}

static void restore_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-n] [-t] [-c] [-v] [FILE]\n"
		"  -n, --noflush    keep the rules and chains that are there\n"
		"  -t, --test       check everything with the kernel, change nothing\n"
		"  -c, --counters   restore the packet and byte counters\n"
		"  -v, --verbose    say what was done\n"
		"  -w, --wait [SECONDS]\n"
		"                   wait for another tool's transaction (for ever)\n"
		"  -W, --wait-interval USECONDS\n"
		"                   try again this often (default: every second)\n",
		RESTORE_PROG);
}

static const struct option restore_options[] = {
	{ "noflush", no_argument, NULL, 'n' },
	{ "test", no_argument, NULL, 't' },
	{ "counters", no_argument, NULL, 'c' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "wait", optional_argument, NULL, 'w' },
	{ "wait-interval", required_argument, NULL, 'W' },
	{ "modprobe", required_argument, NULL, 'M' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

static int param_error(const char *msg)
{
	nfhp_cli_param_error(RESTORE_PROG, msg);
	return NFHP_EXIT_PARAM;
}

static int parse_restore_opts(int argc, char **argv, struct restore_opts *o)
{
	unsigned long long v;
	int c;

	while ((c = getopt_long(argc, argv, "ntcvw::W:M:Vh", restore_options,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			o->noflush = true;
			break;
		case 't':
			o->test = true;
			break;
		case 'c':
			o->counters = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'w':
			/* "-w 5" as well as "-w5", as iptables-restore. */
			if (!optarg && optind < argc &&
			    isdigit((unsigned char)argv[optind][0]))
				optarg = argv[optind++];
			o->wait = true;
			if (optarg && !nfhp_parse_uint(optarg, 0, UINT_MAX, &v))
				return param_error("wait seconds not numeric");
			o->wait_seconds = optarg ? v : 0;
			break;
		case 'W':
			if (!nfhp_parse_uint(optarg, 1, ULONG_MAX, &v))
				return param_error("wait interval not numeric");
			o->wait_interval_us = v;
			break;
		case 'M':
			break;
		case 'V':
			printf("%s v%s\n", RESTORE_PROG, NFHP_VERSION);
			return -1;
		case 'h':
			restore_usage(stdout);
			return -1;
		default:
			restore_usage(stderr);
			return NFHP_EXIT_PARAM;
		}
	}
	if (optind + 1 < argc) {
		restore_usage(stderr);
		return NFHP_EXIT_PARAM;
	}
	o->file = optind < argc ? argv[optind] : NULL;
	return 0;
}

/*
 * Load @text as one transaction.  @t holds when the restore started and
 * when its input was read.
 */
static int restore_buf(const char *text, size_t len,
		       const struct restore_opts *o, struct restore_times *t)
{
	struct restore_ctx ctx = {
		.buf = text,
		.len = len,
		.noflush = o->noflush,
		.counters = o->counters,
	};
	int ret = NFHP_EXIT_OK;

	if (!len)	/* nothing to restore: nothing to do */
		goto out;
	ctx.f = fmemopen((void *)text, len, "r");
	if (!ctx.f) {
		fprintf(stderr, "%s: out of memory\n", RESTORE_PROG);
		ret = NFHP_EXIT_RESOURCE;
		goto out;
	}
	ret = nfhp_nl_open(&ctx.nl, RESTORE_PROG);
	if (ret)
		goto out;
	if (o->wait)
		nfhp_nl_set_wait(ctx.nl, o->wait_seconds, o->wait_interval_us);
	nfhp_nl_set_family(ctx.nl, restore_family);
	ret = run(&ctx, o, t);
	nfhp_nl_close(ctx.nl);
out:
	if (ctx.f)
		fclose(ctx.f);
	free(ctx.chains);
	set_restore_free(ctx.sets);
	restore_stop_now();
	return ret;
}

/**
 * restore_begin() - open a transaction for restore_part()
 * @nlp: the connection, for restore_part() and restore_end()
 * @o: the options (--wait)
 *
 * For nf-hipac import, whose transaction may span both families.
 *
 * Return: 0, or the exit code after saying why.
 */
int restore_begin(struct nfhp_nl **nlp, const struct restore_opts *o)
{
	int ret = nfhp_nl_open(nlp, RESTORE_PROG);

	if (ret)
		return ret;
	if (o->wait)
		nfhp_nl_set_wait(*nlp, o->wait_seconds, o->wait_interval_us);
	nfhp_nl_set_tag(*nlp, 0);
	if (!nfhp_nl_begin(*nlp))
		return 0;
	ret = nfhp_nl_report(*nlp, RESTORE_PROG);
	nfhp_nl_close(*nlp);
	*nlp = NULL;
	return ret;
}

/**
 * restore_part() - send iptables-save text into the open transaction
 * @nl: the connection of restore_begin()
 * @family: the rule set, NFHP_FAMILY_IPV4 or NFHP_FAMILY_IPV6, whose
 *	syntax the text is in
 * @text: the text, @len bytes
 * @len: its length
 * @o: the options; @o->file, @o->test and @o->wait are not read
 *
 * As nf-hipac-restore (or nf-hipac6-restore) does, with the same messages,
 * but nothing is committed: restore_end() does that.  A forked child may
 * send its part on the connection of its parent, which waits meanwhile:
 * the transaction belongs to the socket, and each part reads every answer
 * to what it sent.
 *
 * Return: 0, or the exit code after saying why.
 */
int restore_part(struct nfhp_nl *nl, u8 family, const char *text, size_t len,
		 const struct restore_opts *o)
{
	struct restore_ctx ctx = {
		.nl = nl,
		.buf = text,
		.len = len,
		.noflush = o->noflush,
		.counters = o->counters,
	};
	int ret;

	restore_family = family;
	nfhp_nl_set_family(nl, family);
	if (!len)
		return NFHP_EXIT_OK;
	ctx.f = fmemopen((void *)text, len, "r");
	if (!ctx.f) {
		fprintf(stderr, "%s: out of memory\n", RESTORE_PROG);
		return NFHP_EXIT_RESOURCE;
	}
	ret = send_input(&ctx, o);
	if (!ret && o->verbose)
		fprintf(stderr, "%s: %lu lines, %lu rules sent\n",
			RESTORE_PROG, ctx.scan_line, ctx.rules);
	fclose(ctx.f);
	free(ctx.chains);
	set_restore_free(ctx.sets);
	return ret;
}

/**
 * restore_end() - commit what restore_part() sent, or abort
 * @nl: the connection of restore_begin(), closed here
 * @ret: 0, or the exit code of a failure: abort
 * @o: the options; --test aborts too
 *
 * A SIGINT, SIGTERM or SIGHUP caught during the commit is raised again
 * once the commit has failed.
 *
 * Return: @ret, or the exit code of the commit.
 */
int restore_end(struct nfhp_nl *nl, int ret, const struct restore_opts *o)
{
	struct restore_ctx ctx = { .nl = nl };
	struct restore_opts quiet = *o;

	quiet.verbose = false;	/* restore_part() counted the rules */
	if (ret || o->test)
		nfhp_nl_abort(nl);
	else
		ret = commit(&ctx, &quiet);
	nfhp_nl_close(nl);
	restore_stop_now();
	return ret;
}

int restore_main(int argc, char **argv)
{
	struct restore_times t = { .start = restore_now() };
	struct restore_opts o = { };
	char *buf = NULL;
	size_t len = 0;
	int ret;

	restore_family = strncmp(basename(argv[0]), "nf-hipac6", 9) ?
		NFHP_FAMILY_IPV4 : NFHP_FAMILY_IPV6;
	ret = parse_restore_opts(argc, argv, &o);
	if (ret)
		return ret < 0 ? NFHP_EXIT_OK : ret;
	ret = read_input(o.file, &buf, &len);
	t.read = restore_now();
	if (!ret)
		ret = restore_buf(buf, len, &o, &t);
	free(buf);
	return ret;
}
