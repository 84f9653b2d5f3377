// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac state: the dynamic states of keep-state rules, as conntrack
 * shows and changes nf_conntrack's.
 *
 *	nf-hipac [-4|-6] state COMMAND [OPTIONS]
 *
 * "nf-hipac6 state" and "nf-hipac -6 state" work on the IPv6 states,
 * else on the IPv4 ones.  The commands are a table of their own: list
 * (-L), delete (-D), flush (-F), add (-A), monitor (-E), save and
 * restore.  A flow is "-p PROTO -s ADDR -d ADDR [--sport N] [--dport N]"
 * (ICMP echo: --id N); a state added by hand has its rule too,
 * "--rule CHAIN:POS --timeout SECONDS", and may have "--tcp-flags
 * FORWARD REPLY" and "--counters PKTS BYTES PKTS BYTES" (state_parse.c).
 * save writes one "-A ..." line per state, which restore reads back.
 * Exit codes are iptables': 1 for a failure such as a flow without a
 * state, 2 for a bad command line, 3 without the module, 4 for want of
 * permission or room.
 */
#include "nl_state.h"
#include "subcommands.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * struct state_cli - one run of "nf-hipac state"
 * @prog: "nf-hipac" or "nf-hipac6", for messages
 * @family: the family whose states it works on
 * @nl: the connection, once opened
 * @line: the line restore reads, for messages; 0 outside restore
 * @shown: states listed or saved
 */
struct state_cli {
	const char *prog;
	u8 family;
	struct nfhp_nl *nl;
	unsigned long line;
	unsigned long shown;
};

/**
 * struct state_cmd - a command of "nf-hipac state"
 * @names: its short option, long option and word; NULL for none
 * @fn: it, with the arguments after its name
 * @help: one line of usage
 */
struct state_cmd {
	const char *names[3];
	int (*fn)(struct state_cli *c, int argc, char **argv);
	const char *help;
};

static volatile sig_atomic_t state_stop;

static int state_param_error(const struct state_cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A bad command line: the message, iptables' hint, exit code 2. */
static int state_param_error(const struct state_cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", c->prog);
	if (c->line)
		fprintf(stderr, "line %lu: ", c->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry `%s state -h' for more information.\n",
		c->prog);
	return NFHP_EXIT_PARAM;
}

static int state_connect(struct state_cli *c)
{
	if (c->nl)
		return 0;
	return nfhp_nl_open(&c->nl, c->prog);
}

/**
 * state_failure() - report a failed command
 * @c: the run, whose connection holds the failure
 * @e: the flow the command named, or NULL
 * @ret: the command's -errno, for a failure the connection did not see
 *	(an answer that could not be read)
 *
 * Return: the exit code: 4 for want of permission, memory or room, else 1.
 */
static int state_failure(struct state_cli *c, const struct nfhp_state_entry *e,
			 int ret)
{
	struct nfhp_nl_failure f;
	char flow[512] = "";
	int err;

	nfhp_nl_get_failure(c->nl, &f);
	err = f.err ? -f.err : -ret;
	fprintf(stderr, "%s: ", c->prog);
	if (c->line)
		fprintf(stderr, "line %lu failed: ", c->line);
	if (err == EPERM || err == EACCES) {
		fprintf(stderr, "Permission denied (you must be root)\n");
		return NFHP_EXIT_RESOURCE;
	}
	if (err == ENOENT && f.cmd == NFHP_CMD_STATE_DEL) {
		nfhp_state_format_flow(flow, sizeof(flow), e);
		fprintf(stderr, "No such state: %s\n", flow);
		return NFHP_EXIT_OTHER;
	}
	fprintf(stderr, "%s\n", f.ext_msg[0] ? f.ext_msg : strerror(err));
	if (err == ENOMEM || err == ENOSPC || err == ENOBUFS || err == EDQUOT)
		return NFHP_EXIT_RESOURCE;
	return NFHP_EXIT_OTHER;
}

/* --- list and save ------------------------------------------------------- */

static int print_list(void *data, const struct nfhp_state_entry *e)
{
	struct state_cli *c = data;
	char line[512];

	nfhp_state_format(line, sizeof(line), e, NULL);
	puts(line);
	c->shown++;
	return 0;
}

static int print_save(void *data, const struct nfhp_state_entry *e)
{
	struct state_cli *c = data;
	char line[512];

	nfhp_state_format_save(line, sizeof(line), e);
	puts(line);
	c->shown++;
	return 0;
}

/* No argument but -4 and -6, which chose the family already. */
static int no_args(struct state_cli *c, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-4") && strcmp(argv[i], "-6") &&
		    strcmp(argv[i], "--ipv4") && strcmp(argv[i], "--ipv6"))
			return state_param_error(c, "unexpected argument \"%s\"",
						 argv[i]);
	}
	return 0;
}

static int state_list(struct state_cli *c, int argc, char **argv)
{
	int ret = no_args(c, argc, argv);

	if (!ret)
		ret = state_connect(c);
	if (ret)
		return ret;
	ret = nfhp_nl_state_list(c->nl, c->family, print_list, c);
	if (ret)
		return state_failure(c, NULL, ret);
	fprintf(stderr, "%s v%s: %lu flow entries have been shown.\n",
		c->prog, NFHP_VERSION, c->shown);
	return 0;
}

static int state_save(struct state_cli *c, int argc, char **argv)
{
	int ret = no_args(c, argc, argv);

	if (!ret)
		ret = state_connect(c);
	if (ret)
		return ret;
	printf("# Generated by %s state save v%s: the %s states\n", c->prog,
	       NFHP_VERSION, c->family == NFHP_FAMILY_IPV6 ? "IPv6" : "IPv4");
	ret = nfhp_nl_state_list(c->nl, c->family, print_save, c);
	if (ret)
		return state_failure(c, NULL, ret);
	printf("# Completed: %lu states\n", c->shown);
	return 0;
}

/* --- delete, flush, add -------------------------------------------------- */

/* The options of a flow or a state into @e, with what must be there. */
static int state_opts(struct state_cli *c, int argc, char **argv,
		      struct nfhp_state_entry *e, unsigned int need,
		      unsigned int *got)
{
	unsigned int have;
	char err[256];
	int ret;

	memset(e, 0, sizeof(*e));
	e->family = c->family;
	ret = nfhp_state_parse_opts(argc, argv, e, &have, err, sizeof(err));
	if (ret)
		return state_param_error(c, "%s", err);
	if (got)
		*got = have;
	if ((have & need) != need)
		return state_param_error(c, "%s",
					 need & NFHP_STATE_HAVE_RULE ?
					 "a state needs -p, -s, -d, --rule CHAIN:POS and --timeout SECONDS" :
					 "a flow needs -p, -s and -d");
	return 0;
}

static int state_get(struct state_cli *c, int argc, char **argv)
{
	struct nfhp_state_entry flow, e;
	char line[512];
	bool found;
	int ret;

	ret = state_opts(c, argc, argv, &flow, NFHP_STATE_HAVE_FLOW, NULL);
	if (!ret)
		ret = state_connect(c);
	if (ret)
		return ret;
	ret = nfhp_nl_state_get(c->nl, &flow, &e, &found);
	if (ret)
		return state_failure(c, NULL, ret);
	if (!found) {
		nfhp_state_format_flow(line, sizeof(line), &flow);
		fprintf(stderr, "%s: No such state: %s\n", c->prog, line);
		return NFHP_EXIT_OTHER;
	}
	nfhp_state_format(line, sizeof(line), &e, NULL);
	puts(line);
	return 0;
}

static int state_delete(struct state_cli *c, int argc, char **argv)
{
	struct nfhp_state_entry e;
	int ret;

	ret = state_opts(c, argc, argv, &e, NFHP_STATE_HAVE_FLOW, NULL);
	if (!ret)
		ret = state_connect(c);
	if (ret)
		return ret;
	ret = nfhp_nl_state_del(c->nl, &e);
	return ret ? state_failure(c, &e, ret) : 0;
}

/* -F: every state of the family, or with --rule CHAIN:POS its states. */
static int state_flush(struct state_cli *c, int argc, char **argv)
{
	struct nfhp_state_entry e;
	unsigned int have = 0;
	int i, ret = 0;

	for (i = 0; i < argc && !ret; i++) {
		if (!strcmp(argv[i], "--rule"))
			i++;
		else if (strcmp(argv[i], "-4") && strcmp(argv[i], "-6") &&
			 strcmp(argv[i], "--ipv4") && strcmp(argv[i], "--ipv6"))
			ret = state_param_error(c, "flush takes --rule CHAIN:POS only");
	}
	if (!ret)
		ret = state_opts(c, argc, argv, &e, 0, &have);
	if (!ret)
		ret = state_connect(c);
	if (ret)
		return ret;
	if (have & NFHP_STATE_HAVE_RULE)
		ret = nfhp_nl_state_flush(c->nl, c->family, e.chain, e.pos);
	else
		ret = nfhp_nl_state_flush(c->nl, c->family, NULL, 0);
	return ret ? state_failure(c, NULL, ret) : 0;
}

static int state_add(struct state_cli *c, int argc, char **argv)
{
	const unsigned int need = NFHP_STATE_HAVE_FLOW | NFHP_STATE_HAVE_RULE |
				  NFHP_STATE_HAVE_TIMEOUT;
	struct nfhp_state_entry e;
	int ret;

	ret = state_opts(c, argc, argv, &e, need, NULL);
	if (!ret)
		ret = state_connect(c);
	if (ret)
		return ret;
	ret = nfhp_nl_state_add(c->nl, &e);
	return ret ? state_failure(c, &e, ret) : 0;
}

/* --- restore ------------------------------------------------------------- */

/* One line of a save: "-A" and a state's options; blank and # lines pass. */
static int restore_line(struct state_cli *c, char *line)
{
	char *argv[64];
	int argc;

	line[strcspn(line, "\n")] = '\0';
	argc = nfhp_split_line(line, argv, 63);
	if (argc < 0)
		return state_param_error(c, "too many words, or a bad quote");
	if (!argc || argv[0][0] == '#')
		return 0;
	if (strcmp(argv[0], "-A"))
		return state_param_error(c, "a line must start with -A");
	return state_add(c, argc - 1, argv + 1);
}

static int state_restore(struct state_cli *c, int argc, char **argv)
{
	FILE *in = stdin;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (argc > 1)
		return state_param_error(c, "restore takes one file at most");
	if (argc && strcmp(argv[0], "-")) {
		in = fopen(argv[0], "r");
		if (!in) {
			fprintf(stderr, "%s: cannot open %s: %s\n", c->prog,
				argv[0], strerror(errno));
			return NFHP_EXIT_OTHER;
		}
	}
	while (!ret && getline(&line, &cap, in) >= 0) {
		c->line++;
		ret = restore_line(c, line);
	}
	free(line);
	if (in != stdin)
		fclose(in);
	return ret;
}

/* --- monitor ------------------------------------------------------------- */

static void state_signal(int sig)
{
	state_stop = 1;
}

static int print_event(void *data, u8 cmd, const struct nfhp_state_entry *e)
{
	const struct state_cli *c = data;
	char line[512];

	if (e->family != c->family)
		return 0;
	nfhp_state_format(line, sizeof(line), e,
			  cmd == NFHP_CMD_STATE_NEW ? "[NEW]" : "[DESTROY]");
	puts(line);
	fflush(stdout);
	return 0;
}

static int state_monitor(struct state_cli *c, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = state_signal };
	struct nfhp_nl_mon *m;
	int ret = no_args(c, argc, argv);

	if (ret)
		return ret;
	ret = nfhp_nl_mon_open(&m);
	if (ret == -ENOENT) {
		fprintf(stderr,
			"%s: kernel module nf_hipac is not loaded (modprobe nf_hipac)\n",
			c->prog);
		return NFHP_EXIT_VERSION;
	}
	if (ret) {
		fprintf(stderr, "%s: cannot listen to the state events: %s\n",
			c->prog, ret == -EPERM ?
			"Permission denied (you must be root)" : strerror(-ret));
		return NFHP_EXIT_RESOURCE;
	}
	/* No SA_RESTART: a signal ends the wait for events. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!state_stop) {
		ret = nfhp_nl_mon_read(m, print_event, c);
		if (ret == -ENOBUFS) {
			fprintf(stderr,
				"%s: WARNING: events lost: the socket's buffer was full\n",
				c->prog);
		} else if (ret && ret != -EINTR) {
			fprintf(stderr, "%s: reading events: %s\n", c->prog,
				strerror(-ret));
			nfhp_nl_mon_close(m);
			return NFHP_EXIT_OTHER;
		}
	}
	nfhp_nl_mon_close(m);
	return 0;
}

/* --- the table ----------------------------------------------------------- */

static int state_help(struct state_cli *c, int argc, char **argv);

static const struct state_cmd state_cmds[] = {
	{ { "-L", "--list", "list" }, state_list,
	  "list the states, as conntrack -L" },
	{ { "-G", "--get", "get" }, state_get,
	  "list the state of FLOW, given either way round" },
	{ { "-D", "--delete", "delete" }, state_delete,
	  "delete the state of FLOW, given either way round" },
	{ { "-F", "--flush", "flush" }, state_flush,
	  "delete every state of the family [of --rule CHAIN:POS]" },
	{ { "-A", "--add", "add" }, state_add, "add STATE" },
	{ { "-E", "--event", "monitor" }, state_monitor,
	  "print the states made and deleted, as conntrack -E" },
	{ { NULL, NULL, "save" }, state_save,
	  "print every state as the line of -A that adds it" },
	{ { NULL, NULL, "restore" }, state_restore,
	  "add the states of a save, from FILE or stdin" },
	{ { "-h", "--help", "help" }, state_help, "this help" },
};

static int state_help(struct state_cli *c, int argc, char **argv)
{
	const struct state_cmd *cmd;
	unsigned int i;

	printf("%s v%s\n\nUsage: %s [-4|-6] state COMMAND [OPTIONS]\n\n"
	       "Commands:\n", c->prog, NFHP_VERSION, c->prog);
	for (i = 0; i < ARRAY_SIZE(state_cmds); i++) {
		cmd = &state_cmds[i];
		printf("  %-3s %-9s %-8s %s\n",
		       cmd->names[0] ? cmd->names[0] : "",
		       cmd->names[1] ? cmd->names[1] : "", cmd->names[2],
		       cmd->help);
	}
	printf("\nFLOW:  -p PROTO -s ADDR -d ADDR [--sport N] [--dport N] [--id N]\n"
	       "STATE: FLOW --rule CHAIN:POS --timeout SECONDS\n"
	       "       [--tcp-flags FORWARD REPLY] [--counters PKTS BYTES PKTS BYTES]\n"
	       "       (TCP flags: SYN,ACK,FIN,RST or NONE)\n");
	return 0;
}

/* The command named @word, or NULL. */
static const struct state_cmd *state_find(const char *word)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(state_cmds); i++) {
		for (j = 0; j < 3; j++) {
			if (state_cmds[i].names[j] &&
			    !strcmp(state_cmds[i].names[j], word))
				return &state_cmds[i];
		}
	}
	return NULL;
}

/**
 * state_main() - "nf-hipac state ..."
 * @argc: number of arguments
 * @argv: "state", then the arguments
 * @family: the family of the program's name and -4/-6
 *
 * Return: iptables' exit code.
 */
int state_main(int argc, char **argv, u8 family)
{
	struct state_cli c = {
		.prog = family == NFHP_FAMILY_IPV6 ? "nf-hipac6" : NFHP_PROG,
		.family = family,
	};
	const struct state_cmd *cmd = NULL;
	int i, ret;

	/* The command is the first word that is not -4 or -6. */
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-4") && strcmp(argv[i], "-6") &&
		    strcmp(argv[i], "--ipv4") && strcmp(argv[i], "--ipv6"))
			break;
	}
	if (i == argc)
		return state_param_error(&c, "no command given");
	cmd = state_find(argv[i]);
	if (!cmd)
		return state_param_error(&c, "unknown command \"%s\"", argv[i]);
	ret = cmd->fn(&c, argc - i - 1, argv + i + 1);
	nfhp_nl_close(c.nl);
	return ret;
}
