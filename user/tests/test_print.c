// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the printer (lib/print.c) against the real iptables.
 *
 * data/rules.txt was loaded into the iptables 1.8.9 of the build machine
 * by data/gen-iptables-ref.sh, which captured iptables-save and
 * iptables -L with several option sets; data/gen-iptables-counters.sh did
 * the same for counter formatting.  Every rule of rules.txt is parsed here
 * and printed by nf-hipac's printer; the output must be byte-identical.
 * Then every printed rule must parse back into the same spec.
 */
#include "parse.h"
#include "print.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static char datadir[1024];

#define MAX_RULES 128

struct rule {
	char chain[NFHP_CHAIN_NAME_LEN];
	struct nfhp_rule_spec spec;
	struct nfhp_counter cnt;
	bool has_cnt;
};

static struct rule *rules;
static int nrules;

static FILE *data(const char *name)
{
	char path[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", datadir, name);
	f = fopen(path, "r");
	if (!f) {
		printf("Bail out! cannot open %s\n", path);
		exit(1);
	}
	return f;
}

static int parse_line(const char *line, struct nfhp_cmdline *cl, char *err,
		      size_t errlen)
{
	char buf[2048], *argv[128];
	int argc;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[0] = "iptables";
	argc = nfhp_split_line(buf, argv + 1, 126);
	if (argc < 0)
		return -1;
	return nfhp_parse_cmdline(argc + 1, argv, cl, err, errlen);
}

/* Read a file of "-A CHAIN ..." command lines into rules[]. */
static void load_rules(const char *name)
{
	struct nfhp_cmdline *cl = malloc(sizeof(*cl));
	char line[2048], err[512];
	FILE *f = data(name);
	int ret;

	nrules = 0;
	while (fgets(line, sizeof(line), f) && nrules < MAX_RULES) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		ret = parse_line(line, cl, err, sizeof(err));
		check(!ret, "parse %s%s%s", line, ret ? ": " : "",
		      ret ? err : "");
		if (ret)
			continue;
		strcpy(rules[nrules].chain, cl->chain);
		rules[nrules].spec = cl->spec;
		rules[nrules].cnt = cl->counters;
		rules[nrules].has_cnt = cl->has_counters;
		nrules++;
	}
	fclose(f);
	free(cl);
}

/* The lines of an expected file that a filter keeps, joined. */
static char *expected_lines(const char *name, const char *prefix)
{
	static char out[65536];
	char line[2048];
	size_t len = 0;
	FILE *f = data(name);

	out[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix)) ||
		    (line[0] == '[' && strstr(line, prefix) == strchr(line, ' ') + 1))
			len += snprintf(out + len, sizeof(out) - len, "%s",
					line);
	fclose(f);
	return out;
}

/* One chain's section of an -L file: header, column line, rule lines. */
static char *expected_section(const char *name, const char *chain)
{
	static char out[65536];
	char line[2048], head[64];
	bool in = false;
	size_t len = 0;
	FILE *f = data(name);

	snprintf(head, sizeof(head), "Chain %s ", chain);
	out[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Chain ", 6))
			in = !strncmp(line, head, strlen(head));
		else if (line[0] == '\n')
			in = false;
		if (in)
			len += snprintf(out + len, sizeof(out) - len, "%s",
					line);
	}
	fclose(f);
	return out;
}

static void report_diff(const char *got, const char *want)
{
	size_t i = 0, line = 1;

	while (got[i] && got[i] == want[i]) {
		if (got[i] == '\n')
			line++;
		i++;
	}
	printf("# first difference at line %zu, byte %zu\n", line, i);
	printf("# got:  %.120s\n", got + i - (i > 20 ? 20 : i));
	printf("# want: %.120s\n", want + i - (i > 20 ? 20 : i));
}

static void compare(const char *what, char *got, size_t gotlen,
		    const char *want)
{
	bool ok = !strcmp(got, want) && want[0];

	check(ok, "%s", what);
	if (!ok)
		report_diff(got, want);
	(void)gotlen;
}

/* One printed line against the one expected. */
static void compare_line(const char *what, const char *got, const char *want)
{
	bool ok = !strcmp(got, want);

	check(ok, "%s: %s", what, want);
	if (!ok)
		report_diff(got, want);
}

static void test_save(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i;

	for (i = 0; i < nrules; i++)
		nfhp_print_rule_save(f, rules[i].chain, &rules[i].spec, NULL);
	fclose(f);
	compare("iptables-save lines equal the real iptables-save", buf, len,
		expected_lines("expected-save.txt", "-A "));
	free(buf);
}

static void test_list(const char *file, unsigned int flags)
{
	static const char *const builtin[] = { "INPUT", "FORWARD", "OUTPUT" };
	char *buf = NULL, what[256];
	size_t len = 0;
	FILE *f;
	int i, b, n;

	for (b = 0; b < 3; b++) {
		f = open_memstream(&buf, &len);
		nfhp_print_chain_header(f, builtin[b], true,
					b == 1 ? NFHP_ACT_DROP : NFHP_ACT_ACCEPT,
					NULL, 0, flags);
		for (i = 0, n = 0; i < nrules; i++)
			if (!strcmp(rules[i].chain, builtin[b]))
				nfhp_print_list_rule(f, ++n, &rules[i].spec,
						     NULL, flags);
		fclose(f);
		snprintf(what, sizeof(what), "iptables -L %s: chain %s",
			 file, builtin[b]);
		compare(what, buf, len, expected_section(file, builtin[b]));
		free(buf);
		buf = NULL;
	}
	f = open_memstream(&buf, &len);
	nfhp_print_chain_header(f, "foo", false, 0, NULL, 2, flags);
	for (i = 0, n = 0; i < nrules; i++)
		if (!strcmp(rules[i].chain, "foo"))
			nfhp_print_list_rule(f, ++n, &rules[i].spec, NULL,
					     flags);
	fclose(f);
	snprintf(what, sizeof(what), "iptables -L %s: user chain foo", file);
	compare(what, buf, len, expected_section(file, "foo"));
	free(buf);
}

static void test_counters(void)
{
	static const struct nfhp_counter pol = { 0, 0 };
	char *buf = NULL, *want;
	size_t len = 0;
	FILE *f;
	int i;

	load_rules("counters.txt");
	f = open_memstream(&buf, &len);
	nfhp_print_chain_header(f, "INPUT", true, NFHP_ACT_DROP, &pol, 0,
				NFHP_PRINT_VERBOSE);
	nfhp_print_chain_header(f, "cnt", false, 0, NULL, 1,
				NFHP_PRINT_VERBOSE);
	for (i = 1; i < nrules; i++)
		nfhp_print_list_rule(f, i, &rules[i].spec, &rules[i].cnt,
				     NFHP_PRINT_VERBOSE);
	nfhp_print_chain_header(f, "cnt", false, 0, NULL, 1,
				NFHP_PRINT_VERBOSE | NFHP_PRINT_EXACT |
				NFHP_PRINT_LINENUM);
	for (i = 1; i < nrules; i++)
		nfhp_print_list_rule(f, i, &rules[i].spec, &rules[i].cnt,
				     NFHP_PRINT_VERBOSE | NFHP_PRINT_EXACT |
				     NFHP_PRINT_LINENUM);
	fclose(f);
	want = expected_lines("expected-counters-L.txt", "");
	compare("iptables -L -v / -vx counters equal the real iptables", buf,
		len, want);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	for (i = 0; i < nrules; i++)
		nfhp_print_rule_save(f, rules[i].chain, &rules[i].spec,
				     &rules[i].cnt);
	fclose(f);
	compare("iptables-save -c counters equal the real iptables", buf, len,
		expected_lines("expected-counters-save.txt", "-A "));
	free(buf);
	buf = NULL;

	/* Policy counters: iptables-nft ignores -P -c, so by the format. */
	f = open_memstream(&buf, &len);
	{
		struct nfhp_counter c = { 123456, 7890123 };

		nfhp_print_chain_header(f, "INPUT", true, NFHP_ACT_DROP, &c, 0,
					NFHP_PRINT_VERBOSE);
		nfhp_print_chain_header(f, "INPUT", true, NFHP_ACT_DROP, &c, 0,
					NFHP_PRINT_VERBOSE | NFHP_PRINT_EXACT);
	}
	fclose(f);
	compare("policy counters with K suffix and exact", buf, len,
		"Chain INPUT (policy DROP 123K packets, 7890K bytes)\n"
		" pkts bytes target     prot opt in     out     source               destination         \n"
		"Chain INPUT (policy DROP 123456 packets, 7890123 bytes)\n"
		"    pkts      bytes target     prot opt in     out     source               destination         \n");
	free(buf);
}

static void normalize(struct nfhp_rule_spec *s)
{
	unsigned int i;

	for (i = 0; i < s->nmatch; i++)
		if (s->m[i].syntax == NFHP_SYN_SYN)
			s->m[i].syntax = NFHP_SYN_TCPFLAGS;
}

static void test_roundtrip(void)
{
	struct nfhp_cmdline *cl = malloc(sizeof(*cl));
	char line[4096], err[512];
	int i, ret, bad = 0;
	FILE *f;

	for (i = 0; i < nrules; i++) {
		f = fmemopen(line, sizeof(line), "w");
		nfhp_print_rule_save(f, rules[i].chain, &rules[i].spec, NULL);
		fclose(f);
		line[strcspn(line, "\n")] = 0;
		ret = parse_line(line, cl, err, sizeof(err));
		normalize(&cl->spec);
		normalize(&rules[i].spec);
		if (ret || memcmp(&cl->spec, &rules[i].spec, sizeof(cl->spec))) {
			printf("# round trip differs: %s (%s)\n", line,
			       ret ? err : "spec");
			bad++;
		}
	}
	check(nrules > 50 && !bad, "%d rules round-trip parse -> print -> parse",
	      nrules);
	free(cl);
}

/*
 * keep-state and CHECK-STATE are nf-hipac's own, so no iptables printed
 * these: keep-state after every other match, as " -m keep-state
 * --state-limit N --state-limit-by LIST" (the fields always, in one
 * order) and as "keep-state limit N by LIST" at the end of -L's options;
 * CHECK-STATE in the target column, wider than -L's, which
 * it pushes right as iptables does a long target name (%-9s).  The
 * layout is iptables 1.8.9's (-n prints protocol numbers).
 */
static void test_states(void)
{
	static const struct {
		const char *in, *save, *list, *list_nv;
	} cases[] = {
		{ "-A INPUT -p tcp --dport 22 -m keep-state -j ACCEPT",
		  "-A INPUT -p tcp -m tcp --dport 22 -m keep-state -j ACCEPT",
		  "ACCEPT     tcp  --  anywhere             anywhere             tcp dpt:ssh keep-state",
		  "1           0        0 ACCEPT     6    --  *      *       0.0.0.0/0            0.0.0.0/0            tcp dpt:22 keep-state" },
		{ "-A FORWARD -m keep-state --state-limit-by dst-port,src-addr --state-limit 100 -m comment --comment web -d 10.0.0.80 -j DROP",
		  "-A FORWARD -d 10.0.0.80/32 -m comment --comment web -m keep-state --state-limit 100 --state-limit-by src-addr,dst-port -j DROP",
		  "DROP       all  --  anywhere             10.0.0.80            /* web */ keep-state limit 100 by src-addr,dst-port",
		  "1           0        0 DROP       0    --  *      *       0.0.0.0/0            10.0.0.80            /* web */ keep-state limit 100 by src-addr,dst-port" },
		{ "-A INPUT -m set --match-set bl src -m keep-state --state-limit 1 -j ACCEPT",
		  "-A INPUT -m set --match-set bl src -m keep-state --state-limit 1 --state-limit-by src-addr -j ACCEPT",
		  "ACCEPT     all  --  anywhere             anywhere             match-set bl src keep-state limit 1 by src-addr",
		  "1           0        0 ACCEPT     0    --  *      *       0.0.0.0/0            0.0.0.0/0            match-set bl src keep-state limit 1 by src-addr" },
		{ "-A INPUT -m set ! --match-set c src ! --update-counters ! --packets-eq 3 --bytes-lt 1000 -j DROP",
		  "-A INPUT -m set ! --match-set c src ! --update-counters ! --packets-eq 3 --bytes-lt 1000 -j DROP",
		  "DROP       all  --  anywhere             anywhere             ! match-set c src ! update-counters ! packets-eq 3 bytes-lt 1000",
		  "1           0        0 DROP       0    --  *      *       0.0.0.0/0            0.0.0.0/0            ! match-set c src ! update-counters ! packets-eq 3 bytes-lt 1000" },
		{ "-A INPUT -j CHECK-STATE",
		  "-A INPUT -j CHECK-STATE",
		  "CHECK-STATE  all  --  anywhere             anywhere            ",
		  "1           0        0 CHECK-STATE  0    --  *      *       0.0.0.0/0            0.0.0.0/0           " },
	};
	struct nfhp_cmdline *cl = malloc(sizeof(*cl));
	char got[3][1024], err[512];
	unsigned int flags[3] = { 0, 0, NFHP_PRINT_NUMERIC |
				  NFHP_PRINT_VERBOSE | NFHP_PRINT_EXACT |
				  NFHP_PRINT_LINENUM };
	size_t i, k;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (parse_line(cases[i].in, cl, err, sizeof(err))) {
			check(false, "states: parse %s: %s", cases[i].in, err);
			continue;
		}
		for (k = 0; k < 3; k++) {
			f = fmemopen(got[k], sizeof(got[k]), "w");
			if (!k)
				nfhp_print_rule_save(f, cl->chain, &cl->spec,
						     NULL);
			else
				nfhp_print_list_rule(f, 1, &cl->spec, NULL,
						     flags[k]);
			fclose(f);
			got[k][strcspn(got[k], "\n")] = 0;
		}
		compare_line("states: save", got[0], cases[i].save);
		compare_line("states: -L", got[1], cases[i].list);
		compare_line("states: -L -nvx --line-numbers", got[2],
			     cases[i].list_nv);
	}
	free(cl);
}

int main(void)
{
	char src[1024];

	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(datadir, sizeof(datadir), "%s/data", dirname(src));
	rules = calloc(MAX_RULES, sizeof(*rules));
	if (!rules)
		return 1;
	load_rules("rules.txt");
	test_save();
	test_list("expected-L.txt", 0);
	test_list("expected-Ln.txt", NFHP_PRINT_NUMERIC);
	test_list("expected-Lv.txt", NFHP_PRINT_VERBOSE);
	test_list("expected-Lnv.txt", NFHP_PRINT_NUMERIC | NFHP_PRINT_VERBOSE);
	test_list("expected-Lnvx.txt", NFHP_PRINT_NUMERIC | NFHP_PRINT_VERBOSE |
		  NFHP_PRINT_EXACT);
	test_list("expected-Lnlinenumbers.txt", NFHP_PRINT_NUMERIC |
		  NFHP_PRINT_LINENUM);
	test_list("expected-Lnvlinenumbers.txt", NFHP_PRINT_NUMERIC |
		  NFHP_PRINT_VERBOSE | NFHP_PRINT_LINENUM);
	test_roundtrip();
	test_counters();
	test_states();
	free(rules);
	printf("%d tests, %d passed, %d failed\n", tests, tests - failures,
	       failures);
	return failures ? 1 : 0;
}
