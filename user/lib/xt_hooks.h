/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the optional interface through which the parser and the
 * printer hand the matches and targets they do not know to someone else.
 *
 * parse.c and print.c know the native matches only.  The CLI plugs in
 * xt.c, which runs them through libxtables as iptables does; the
 * simulator with --opaque-xt plugs in sim/opaque.c, which keeps them as
 * opaque words for a model; the fuzzers, the core tests and the
 * simulator without it plug in nothing, and the parser keeps refusing
 * every other extension there.  Only spec.h is needed here, so that
 * xt.c, compiled against the system's kernel headers for libxtables, can
 * include this file without the userspace shim.
 */
#ifndef _NFHP_XT_HOOKS_H
#define _NFHP_XT_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct nfhp_rule_spec;

/**
 * struct nfhp_ext_opt - a long option an extension claims
 * @id: its handle for &struct nfhp_parse_ext @option
 * @has_arg: 0 none, 1 required, 2 optional (getopt_long's values)
 * @exact: the name was given in full, not abbreviated
 * @seq: the load sequence number of the extension it belongs to
 */
struct nfhp_ext_opt {
	int id;
	int has_arg;
	bool exact;
	unsigned int seq;
};

/**
 * struct nfhp_parse_ext - extensions for nfhp_parse_cmdline()
 * @begin: a command line starts: forget the extensions of the last one
 * @match: load the match @name (-m NAME; @implicit: the protocol match
 *	iptables loads for an option nobody knows, not an error when there
 *	is none).  Return 0 when loaded, -1 when @implicit and there is no
 *	such match, else an iptables exit code with the message in @err.
 * @target: load the target @name of -j.  Return 1 when loaded, 0 when
 *	there is no such target (a chain), else an exit code with @err set.
 * @find_option: look up the long option @name (@len bytes, maybe
 *	abbreviated) among the loaded extensions' options.  Return 1 and
 *	fill @o when found, 0 when not, -1 when ambiguous.
 * @option: run the option @id with its argument @arg (NULL when none);
 *	*@ip indexes the next word of @argv and may advance, as optind does;
 *	@argv ends with NULL, as main()'s does.
 *	@proto is the -p protocol (0 for none), @proto_inv its "!".
 *	Return 0 or an exit code with @err set.
 * @finish: the line is complete: run the extensions' final checks and
 *	serialise them into @spec ext and ext_len.  Return 0 or an exit code
 *	with @err set.
 * @any_order: the extensions keep no state and drop no packet, so they
 *	may run after the native matches whatever the order written: a
 *	native match loaded after one of them stays native (the simulator's
 *	opaque model).  Without it the native matches after the first
 *	extension go to the extensions too, as parse.c says.
 *
 * Load sequence numbers (@seq) order the native matches and the
 * extensions together: when both know an option by its full name, the one
 * loaded last gets it, as with iptables' merged option table.
 */
struct nfhp_parse_ext {
	void (*begin)(void);
	int (*match)(const char *name, bool implicit, unsigned int seq,
		     char *err, size_t errlen);
	int (*target)(const char *name, unsigned int seq, char *err,
		      size_t errlen);
	int (*find_option)(const char *name, size_t len,
			   struct nfhp_ext_opt *o);
	int (*option)(int id, const char *arg, char **argv, int *ip,
		      bool invert, unsigned char proto, bool proto_inv,
		      char *err, size_t errlen);
	int (*finish)(struct nfhp_rule_spec *spec, unsigned char proto,
		      bool proto_inv, char *err, size_t errlen);
	bool any_order;
};

/**
 * struct nfhp_print_ext - printing the extensions of a rule
 * @save_matches: the " -m NAME ..." parts of an iptables-save line
 * @save_target: the " -j NAME ..." part for %NFHP_ACT_XT
 * @list: the matches' and the target's part of an iptables -L line
 * @target_name: the target column of iptables -L for %NFHP_ACT_XT; the
 *	string lives until the next call
 * @save_one: one match (" -m NAME ...") or target (" -j NAME ...") given
 *	as the kernel holds it, @name, @rev and @len bytes of @data, in a
 *	rule of protocol @proto (0: any) and @proto_inv; for nf-hipac
 *	import, which meets them in iptables-nft's rules.  Return false,
 *	printing nothing, when no library knows that extension and revision.
 */
struct nfhp_print_ext {
	void (*save_matches)(FILE *f, const struct nfhp_rule_spec *spec);
	void (*save_target)(FILE *f, const struct nfhp_rule_spec *spec);
	void (*list)(FILE *f, const struct nfhp_rule_spec *spec,
		     bool numeric);
	const char *(*target_name)(const struct nfhp_rule_spec *spec);
	bool (*save_one)(FILE *f, bool target, const char *name,
			 unsigned int rev, const void *data, size_t len,
			 unsigned char proto, bool proto_inv);
};

/* Plug in (or, with NULL, unplug) the extensions; parse.c and print.c. */
void nfhp_parse_set_ext(const struct nfhp_parse_ext *ext);
void nfhp_print_set_ext(const struct nfhp_print_ext *ext);
bool nfhp_print_save_one(FILE *f, bool target, const char *name,
			 unsigned int rev, const void *data, size_t len,
			 unsigned char proto, bool proto_inv);

#endif /* _NFHP_XT_HOOKS_H */
