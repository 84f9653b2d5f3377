/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The case runner of test_xt (IPv4) and test_xt6 (IPv6): a rule is parsed
 * as the CLI parses it under the program name xt_prog, printed as
 * iptables-save (ip6tables-save) and -L -n print it and compared with the
 * expected text; the saved line must parse back into the same bytes and
 * print the same again.  A refused rule must give the expected exit code
 * and message.
 */
#ifndef _NFHP_XT_CASES_H
#define _NFHP_XT_CASES_H

#include "parse.h"
#include "print.h"

#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* The program name the rules are parsed under: it chooses the family. */
static const char *xt_prog = "iptables";

/* Characters before the options column of -L -n (source, destination...). */
static size_t xt_list_cols = 61;

/* After a failed check(): what came out and what should have. */
static void show(bool ok, const char *got, const char *want)
{
	if (!ok)
		printf("#   got  %s\n#   want %s\n", got, want);
}

/**
 * struct xt_case - one rule
 * @in: the command line after the program name
 * @save: what iptables-save prints for it, NULL when @in
 * @list: the options column of iptables -L -n, NULL to skip
 * @target: the target column of iptables -L -n, NULL to skip
 * @respelled: the saved form is another spelling that libxtables turns
 *	into other bytes (a mask given as an IPv4 address fills 4 of the 16
 *	bytes its default fills), in iptables just the same
 */
struct xt_case {
	const char *in;
	const char *save;
	const char *list;
	const char *target;
	bool respelled;
};

/**
 * struct xt_bad - a rule iptables (ip6tables) refuses
 * @in: the command line after the program name
 * @code: the exit code
 * @msg: the message, iptables' own (most of them libxtables')
 */
struct xt_bad {
	const char *in;
	int code;
	const char *msg;
};

static int parse_line(const char *line, struct nfhp_cmdline *cl, char *err,
		      size_t errlen)
{
	static char buf[4096];
	char *argv[256];
	int argc;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[0] = (char *)xt_prog;
	argc = nfhp_split_line(buf, argv + 1, 250);
	if (argc < 0)
		return -1;
	argv[argc + 1] = NULL;
	return nfhp_parse_cmdline(argc + 1, argv, cl, err, errlen);
}

/* The save line of @spec; the caller frees it. */
static char *save_str(const struct nfhp_rule_spec *spec, const char *chain)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	nfhp_print_rule_save(f, chain, spec, NULL);
	fclose(f);
	s[strcspn(s, "\n")] = 0;
	return s;
}

static char *list_str(const struct nfhp_rule_spec *spec)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	nfhp_print_list_rule(f, 1, spec, NULL, NFHP_PRINT_NUMERIC);
	fclose(f);
	s[strcspn(s, "\n")] = 0;
	return s;
}

/*
 * The options column of a -L -n line without -v: what follows the
 * target, prot, opt, source and destination columns (xt_list_cols
 * characters) and the space each option starts with.
 */
static const char *list_opts(const char *line)
{
	size_t skip = xt_list_cols + 1;

	return strlen(line) > skip ? line + skip : "";
}

static void test_case(const struct xt_case *c, struct nfhp_cmdline *cl,
		      struct nfhp_cmdline *cl2)
{
	const char *want = c->save ? c->save : c->in;
	char err[512], *saved, *again, *list;
	char tname[32];
	bool ok;
	int ret;

	ret = parse_line(c->in, cl, err, sizeof(err));
	check(!ret, "parse %s%s%s", c->in, ret ? ": " : "", ret ? err : "");
	if (ret)
		return;
	saved = save_str(&cl->spec, cl->chain);
	ok = !strcmp(saved, want);
	check(ok, "save %s", c->in);
	show(ok, saved, want);
	ret = parse_line(saved, cl2, err, sizeof(err));
	check(!ret && cl2->spec.action == cl->spec.action &&
	      (c->respelled ||
	       (cl2->spec.ext_len == cl->spec.ext_len &&
		!memcmp(cl2->spec.ext, cl->spec.ext, cl->spec.ext_len))),
	      "saved form parses%s: %s",
	      c->respelled ? "" : " into the same bytes", saved);
	again = save_str(&cl2->spec, cl2->chain);
	check(!strcmp(again, saved), "saved form saves the same: %s", again);
	list = list_str(&cl->spec);
	if (c->list) {
		ok = !strcmp(list_opts(list), c->list);
		check(ok, "-L options of %s", c->in);
		show(ok, list_opts(list), c->list);
	}
	if (c->target) {
		if (sscanf(list, "%31s", tname) != 1 || list[0] == ' ')
			tname[0] = 0;
		check(!strcmp(tname, c->target), "-L target of %s: %s",
		      c->in, tname);
	}
	free(saved);
	free(again);
	free(list);
}

static void test_bad(const struct xt_bad *bad, size_t n,
		     struct nfhp_cmdline *cl)
{
	char err[512];
	size_t i;
	bool ok;
	int ret;

	for (i = 0; i < n; i++) {
		ret = parse_line(bad[i].in, cl, err, sizeof(err));
		ok = ret == bad[i].code && !strcmp(err, bad[i].msg);
		check(ok, "refused with exit %d: %s", bad[i].code, bad[i].in);
		show(ok, err, bad[i].msg);
	}
}

#endif /* _NFHP_XT_CASES_H */
