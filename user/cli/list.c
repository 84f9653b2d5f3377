// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac -L and -S: the rule set laid out as iptables -L and -S print it.
 */
#include "subcommands.h"
#include "print.h"
#include <string.h>

/**
 * struct list_ctx - the state of a listing
 * @flags: NFHP_PRINT_* for -L
 * @pos: the only rule to print (-L CHAIN N), 0 for all
 * @chains: chains printed so far
 * @verbose: -S -v: print counters
 * @rules: -S of all chains: the rules, printed after every chain line
 */
struct list_ctx {
	unsigned int flags;
	unsigned int pos;
	unsigned int chains;
	bool verbose;
	FILE *rules;
};

static int list_chain(void *data, const struct nfhp_nl_chain *c)
{
	struct list_ctx *ctx = data;

	/* "-L INPUT 2" prints the rule line alone. */
	if (ctx->pos)
		return 0;
	if (ctx->chains++)
		putchar('\n');
	nfhp_print_chain_header(stdout, c->name, c->builtin, c->policy,
				&c->counters, c->refs, ctx->flags);
	return 0;
}

static int list_rule(void *data, const char *chain, unsigned int pos,
		     const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *c)
{
	struct list_ctx *ctx = data;

	if (!ctx->pos || ctx->pos == pos)
		nfhp_print_list_rule(stdout, pos, spec, c, ctx->flags);
	return 0;
}

static unsigned int print_flags(const struct nfhp_cmdline *cl)
{
	return (cl->numeric ? NFHP_PRINT_NUMERIC : 0) |
	       (cl->verbose ? NFHP_PRINT_VERBOSE : 0) |
	       (cl->exact ? NFHP_PRINT_EXACT : 0) |
	       (cl->line_numbers ? NFHP_PRINT_LINENUM : 0);
}

int list_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	static const struct nfhp_nl_dump_ops ops = {
		.chain = list_chain,
		.rule = list_rule,
	};
	struct list_ctx ctx = { .flags = print_flags(cl), .pos = cl->pos };

	if (nfhp_nl_dump(nl, nfhp_cli_chain(cl), &ops, &ctx))
		return nfhp_nl_report(nl, NFHP_PROG);
	return NFHP_EXIT_OK;
}

static int rules_chain(void *data, const struct nfhp_nl_chain *c)
{
	struct list_ctx *ctx = data;

	if (ctx->pos)
		return 0;
	if (!c->builtin)
		printf("-N %s\n", c->name);
	else if (ctx->verbose)
		printf("-P %s %s -c %llu %llu\n", c->name,
		       c->policy == NFHP_ACT_DROP ? "DROP" : "ACCEPT",
		       (unsigned long long)c->counters.packets,
		       (unsigned long long)c->counters.bytes);
	else
		printf("-P %s %s\n", c->name,
		       c->policy == NFHP_ACT_DROP ? "DROP" : "ACCEPT");
	return 0;
}

/* The last occurrence of needle: the target follows any comment. */
static char *last_str(char *haystack, const char *needle)
{
	char *at, *last = NULL;

	for (at = strstr(haystack, needle); at; at = strstr(at + 1, needle))
		last = at;
	return last;
}

/*
 * iptables -S -v puts "-c PKTS BYTES" after the matches, before the
 * target: print the rule and splice the counters in front of its " -j "
 * or " -g ", or at its end when it has no target.
 */
static void print_rule_counters(FILE *f, const char *chain,
				const struct nfhp_rule_spec *spec,
				const struct nfhp_counter *c)
{
	char *line = NULL, *at;
	size_t size = 0;
	FILE *m = open_memstream(&line, &size);

	if (!m)
		return;
	nfhp_print_rule_save(m, chain, spec, NULL);
	fclose(m);
	if (size && line[size - 1] == '\n')
		line[--size] = '\0';
	at = last_str(line, spec->action == NFHP_ACT_GOTO ? " -g " : " -j ");
	if (!at || spec->action == NFHP_ACT_NONE)
		at = line + size;
	fprintf(f, "%.*s -c %llu %llu%s\n", (int)(at - line), line,
		(unsigned long long)c->packets, (unsigned long long)c->bytes,
		at);
	free(line);
}

static int rules_rule(void *data, const char *chain, unsigned int pos,
		      const struct nfhp_rule_spec *spec,
		      const struct nfhp_counter *c)
{
	struct list_ctx *ctx = data;
	FILE *f = ctx->rules ? ctx->rules : stdout;

	if (ctx->pos && ctx->pos != pos)
		return 0;
	if (ctx->verbose)
		print_rule_counters(f, chain, spec, c);
	else
		nfhp_print_rule_save(f, chain, spec, NULL);
	return 0;
}

/*
 * -S without a chain prints every -P and -N line first, then the rules:
 * the rules wait in memory until the dump is over.
 */
int list_rules_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	static const struct nfhp_nl_dump_ops ops = {
		.chain = rules_chain,
		.rule = rules_rule,
	};
	struct list_ctx ctx = { .pos = cl->pos, .verbose = cl->verbose };
	char *rules = NULL;
	size_t size = 0;
	int ret = NFHP_EXIT_OK;

	if (!nfhp_cli_chain(cl)) {
		ctx.rules = open_memstream(&rules, &size);
		if (!ctx.rules) {
			fprintf(stderr, "%s: out of memory\n", NFHP_PROG);
			return NFHP_EXIT_RESOURCE;
		}
	}
	if (nfhp_nl_dump(nl, nfhp_cli_chain(cl), &ops, &ctx))
		ret = nfhp_nl_report(nl, NFHP_PROG);
	if (ctx.rules) {
		fclose(ctx.rules);
		if (!ret)
			fwrite(rules, 1, size, stdout);
		free(rules);
	}
	return ret;
}
