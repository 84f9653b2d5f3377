// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: rules printed the way iptables 1.8.9 prints them.
 *
 * Two formats: the canonical iptables-save / iptables -S line and the
 * iptables -L table.  The expected outputs in user/tests/data/ were taken
 * from the real iptables of the build machine; the format strings below
 * follow iptables' own (print_firewall(), xtables_print_num(), the
 * extensions' print and save functions), quirks included ("icmptype 8",
 * "multiport sports  !1,2,3").
 */
#include "print.h"
#include "parse.h"
#include "xt_hooks.h"

#include <netdb.h>
#include <string.h>
#include <arpa/inet.h>

/* The printer of the extensions: xt.c in the CLI, else none. */
static const struct nfhp_print_ext *print_ext;

/**
 * nfhp_print_set_ext() - print the extensions of rules through @ext
 * @ext: the printing ops, or NULL (the default): the extensions of a rule
 *	then print as a placeholder
 */
void nfhp_print_set_ext(const struct nfhp_print_ext *ext)
{
	print_ext = ext;
}

/* The family of the rules printed: addresses and -L's columns differ. */
static u8 print_family = NFHP_FAMILY_IPV4;

void nfhp_print_set_family(u8 family)
{
	print_family = family;
}

/* An IPv6 address as inet_ntop() writes it. */
static void ip6_str(char *buf, size_t len, nfhp_u128 v)
{
	struct in6_addr a;
	int i;

	for (i = 15; i >= 0; i--, v >>= 8)
		a.s6_addr[i] = (u8)v;
	if (!inet_ntop(AF_INET6, &a, buf, len))
		*buf = 0;
}

/**
 * nfhp_print_save_one() - print one extension as iptables-save does
 * @f: where to
 * @target: a target (" -j NAME ..."), else a match (" -m NAME ...")
 * @name: its name
 * @rev: its revision
 * @data: its data, as the kernel holds it
 * @len: bytes of @data
 * @proto: the rule's protocol, 0 for any
 * @proto_inv: the protocol is negated
 *
 * Return: false, printing nothing, when no extension printer is plugged
 * in or it does not know the extension.
 */
bool nfhp_print_save_one(FILE *f, bool target, const char *name,
			 unsigned int rev, const void *data, size_t len,
			 unsigned char proto, bool proto_inv)
{
	return print_ext && print_ext->save_one &&
	       print_ext->save_one(f, target, name, rev, data, len, proto,
				   proto_inv);
}

static const struct nfhp_dim_match *find_dim(const struct nfhp_rule_spec *s,
					     int dim)
{
	unsigned int i;

	for (i = 0; i < s->nmatch; i++)
		if (s->m[i].dim == dim)
			return &s->m[i];
	return NULL;
}

static u32 lo32(const struct nfhp_dim_match *m, unsigned int i)
{
	return (u32)m->ranges[i].lo;
}

static u32 hi32(const struct nfhp_dim_match *m, unsigned int i)
{
	return (u32)m->ranges[i].hi;
}

/*
 * A listing prints a few numbers, addresses and padded columns per rule;
 * fprintf() for each was half the time of nf-hipac -L of 10k rules.  These
 * write what "%u", "%s" and "%-*s" would, for the common cases.
 */

/* @v in decimal at @p, which has room for 21 bytes; returns the end. */
static char *dec(char *p, unsigned long long v)
{
	char tmp[20];
	unsigned int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* fprintf(f, "%llu", v) */
static void put_u(FILE *f, unsigned long long v)
{
	char buf[24];

	fwrite(buf, 1, dec(buf, v) - buf, f);
}

/* fprintf(f, "%-*s", width, s) */
static void put_left(FILE *f, const char *s, int width)
{
	int n = strlen(s);

	fwrite(s, 1, n, f);
	for (; n < width; n++)
		putc(' ', f);
}

/* fprintf(f, "%*s", width, s) */
static void put_right(FILE *f, const char *s, int width)
{
	int n = strlen(s);

	for (; n < width; width--)
		putc(' ', f);
	fwrite(s, 1, n, f);
}

/* "a.b.c.d" into @buf, at least 16 bytes */
static void ip_str(char *buf, size_t len, u32 a)
{
	char *p = buf;

	p = dec(p, a >> 24);
	*p++ = '.';
	p = dec(p, (a >> 16) & 0xff);
	*p++ = '.';
	p = dec(p, (a >> 8) & 0xff);
	*p++ = '.';
	p = dec(p, a & 0xff);
	*p = '\0';
}

static u8 spec_proto(const struct nfhp_rule_spec *s)
{
	const struct nfhp_dim_match *m = find_dim(s, NFHP_DIM_PROTO);

	return m ? (u8)lo32(m, 0) : 0;
}

/**
 * nfhp_print_save_string() - print " v", quoted as xtables_save_string() does
 * @f: the stream
 * @v: the string
 */
void nfhp_print_save_string(FILE *f, const char *v)
{
	static const char plain[] = "_-0123456789abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	size_t n = strspn(v, plain);

	if (n > 0 && !v[n]) {
		fprintf(f, " %s", v);
		return;
	}
	fputs(" \"", f);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\' || *v == '\'')
			fputc('\\', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

static void print_tcpf(FILE *f, u8 flags)
{
	bool any = false;
	unsigned int i;

	while (flags) {
		for (i = 0; !(flags & nfhp_tcp_flag_names[i].value); i++)
			;
		fprintf(f, "%s%s", any ? "," : "", nfhp_tcp_flag_names[i].name);
		any = true;
		flags &= ~nfhp_tcp_flag_names[i].value;
	}
	if (!any)
		fputs("NONE", f);
}

static void print_states(FILE *f, const struct nfhp_dim_match *m)
{
	bool any = false;
	unsigned int i, r;

	for (i = 0; nfhp_state_names[i].name; i++) {
		u32 v = nfhp_state_names[i].value;

		for (r = 0; r < m->nranges; r++) {
			if (v >= lo32(m, r) && v <= hi32(m, r)) {
				fprintf(f, "%s%s", any ? "," : "",
					nfhp_state_names[i].name);
				any = true;
				break;
			}
		}
	}
}

/*
 * "--sport 0:65535" is how the parser keeps a bare "-m tcp" or "-m udp";
 * iptables prints neither.
 */
static bool ports_all(const struct nfhp_dim_match *m)
{
	return !m->invert && lo32(m, 0) == 0 && hi32(m, 0) == 0xFFFF;
}

static void save_ports(FILE *f, const char *opt,
		       const struct nfhp_dim_match *m)
{
	if (!m || m->syntax != NFHP_SYN_DEFAULT || ports_all(m))
		return;
	fputs(m->invert ? " ! --" : " --", f);
	fputs(opt, f);
	putc(' ', f);
	put_u(f, lo32(m, 0));
	if (hi32(m, 0) != lo32(m, 0)) {
		putc(':', f);
		put_u(f, hi32(m, 0));
	}
}

/*
 * The native match groups of a rule in the order they print: those of
 * spec->order first, then the others in the canonical order (parse.h).
 * Return: the number of groups in @groups.
 */
static unsigned int print_order(const struct nfhp_rule_spec *s,
				u8 groups[NFHP_MOD_GROUPS])
{
	bool seen[NFHP_MOD_GROUPS + 1] = { false };
	unsigned int i, g, n = 0;

	for (i = 0; i < s->norder && i < sizeof(s->order); i++) {
		g = nfhp_mod_group(s->order[i]);
		if (g < NFHP_MOD_GROUPS && !seen[g]) {
			seen[g] = true;
			groups[n++] = g;
		}
	}
	for (g = 0; g < NFHP_MOD_GROUPS; g++)
		if (!seen[g])
			groups[n++] = g;
	return n;
}

/*
 * "a.b.c.d/len", or "a.b.c.d/m.m.m.m" for a mask with holes, as iptables
 * prints them; "a.b.c.d" alone when @full_len is false and it is a /32.
 * IPv6 addresses the same way, as ip6tables prints them.
 * Return: false for a match that is neither (an iprange).
 */
static bool addr_str(char *buf, size_t len, const struct nfhp_dim_match *m,
		     bool full_len)
{
	size_t n;

	if (m->form != NFHP_FORM_PREFIX && m->form != NFHP_FORM_MASK)
		return false;
	if (print_family == NFHP_FAMILY_IPV6) {
		/* ip6tables: "/128" in save only. */
		ip6_str(buf, len, m->ranges[0].lo);
		n = strlen(buf);
		if (m->form == NFHP_FORM_MASK) {
			buf[n] = '/';
			ip6_str(buf + n + 1, len - n - 1, m->ranges[0].hi);
		} else if (full_len || m->nranges != 128) {
			buf[n] = '/';
			*dec(buf + n + 1, m->nranges) = '\0';
		}
		return true;
	}
	ip_str(buf, len, lo32(m, 0));
	n = strlen(buf);
	if (m->form == NFHP_FORM_MASK) {
		buf[n] = '/';
		ip_str(buf + n + 1, len - n - 1, hi32(m, 0));
	} else if (full_len || m->nranges != 32) {
		buf[n] = '/';
		*dec(buf + n + 1, m->nranges) = '\0';
	}
	return true;
}

/* The IP part of a rule in iptables-save syntax, after "-A CHAIN". */
static void save_ip(FILE *f, const struct nfhp_rule_spec *s)
{
	const struct nfhp_dim_match *m;
	char a[40];
	u8 proto = spec_proto(s);

	m = find_dim(s, NFHP_DIM_SRC);
	if (m && addr_str(a, sizeof(a), m, true)) {
		fputs(m->invert ? " ! -s " : " -s ", f);
		fputs(a, f);
	}
	m = find_dim(s, NFHP_DIM_DST);
	if (m && addr_str(a, sizeof(a), m, true)) {
		fputs(m->invert ? " ! -d " : " -d ", f);
		fputs(a, f);
	}
	/* iptables-save leaves out "+", the wildcard of every name. */
	m = find_dim(s, NFHP_DIM_IIF);
	if (m && strcmp(m->ifname, "+"))
		fprintf(f, "%s -i %s", m->invert ? " !" : "", m->ifname);
	m = find_dim(s, NFHP_DIM_OIF);
	if (m && strcmp(m->ifname, "+"))
		fprintf(f, "%s -o %s", m->invert ? " !" : "", m->ifname);
	m = find_dim(s, NFHP_DIM_PROTO);
	if (m) {
		const char *name = nfhp_proto_to_name(proto, true);

		fputs(m->invert ? " ! -p " : " -p ", f);
		if (name)
			fputs(name, f);
		else
			put_u(f, proto);
	}
	m = find_dim(s, NFHP_DIM_FRAG);
	if (m)
		fprintf(f, "%s -f", m->invert ? " !" : "");
}

/* The multiport match of a rule, or NULL. */
static const struct nfhp_dim_match *multiport(const struct nfhp_rule_spec *s)
{
	const struct nfhp_dim_match *sp = find_dim(s, NFHP_DIM_SPORT);
	const struct nfhp_dim_match *dp = find_dim(s, NFHP_DIM_DPORT);

	return sp && sp->syntax == NFHP_SYN_MULTIPORT ? sp :
	       dp && dp->syntax != NFHP_SYN_DEFAULT ? dp : NULL;
}

/* One native match group (nfhp_mod_group()) in iptables-save syntax. */
static void save_group(FILE *f, const struct nfhp_rule_spec *s,
		       unsigned int group)
{
	const struct nfhp_dim_match *m, *sp, *dp, *fl, *mp;
	char a[32], b[32];
	u8 proto = spec_proto(s);
	const char *name;
	unsigned int i;

	switch (group) {
	case 0:		/* tcp, udp */
		sp = find_dim(s, NFHP_DIM_SPORT);
		dp = find_dim(s, NFHP_DIM_DPORT);
		fl = find_dim(s, NFHP_DIM_TCPFLAGS);
		if (!(sp && sp->syntax == NFHP_SYN_DEFAULT) &&
		    !(dp && dp->syntax == NFHP_SYN_DEFAULT) && !fl)
			break;
		fputs(proto == 17 ? " -m udp" : " -m tcp", f);
		save_ports(f, "sport", sp);
		save_ports(f, "dport", dp);
		if (fl) {
			fprintf(f, "%s --tcp-flags ", fl->invert ? " !" : "");
			print_tcpf(f, hi32(fl, 0));
			fputc(' ', f);
			print_tcpf(f, lo32(fl, 0));
		}
		break;
	case 1:		/* multiport */
		mp = multiport(s);
		if (!mp)
			break;
		fprintf(f, " -m multiport%s --%s ", mp->invert ? " !" : "",
			mp->syntax == NFHP_SYN_MULTIPORT_BOTH ? "ports" :
			mp->dim == NFHP_DIM_SPORT ? "sports" : "dports");
		for (i = 0; i < mp->nranges; i++) {
			fprintf(f, "%s%u", i ? "," : "", lo32(mp, i));
			if (hi32(mp, i) != lo32(mp, i))
				fprintf(f, ":%u", hi32(mp, i));
		}
		break;
	case 2:		/* icmp */
		m = find_dim(s, NFHP_DIM_ICMP);
		if (!m)
			break;
		if (print_family == NFHP_FAMILY_IPV6) {
			/* libip6t_icmp6: the code when not all of them */
			fprintf(f, " -m icmp6%s --icmpv6-type %u",
				m->invert ? " !" : "", lo32(m, 0) >> 8);
			if ((lo32(m, 0) & 0xFF) != 0 ||
			    (hi32(m, 0) & 0xFF) != 0xFF)
				fprintf(f, "/%u", lo32(m, 0) & 0xFF);
			break;
		}
		fprintf(f, " -m icmp%s --icmp-type ", m->invert ? " !" : "");
		if (lo32(m, 0) == 0 && hi32(m, 0) == 0xFFFF)
			fputs("any", f);
		else if ((lo32(m, 0) & 0xFF) == 0 &&
			 (hi32(m, 0) & 0xFF) == 0xFF)
			fprintf(f, "%u", lo32(m, 0) >> 8);
		else
			fprintf(f, "%u/%u", lo32(m, 0) >> 8, lo32(m, 0) & 0xFF);
		break;
	case 3:		/* iprange */
		sp = find_dim(s, NFHP_DIM_SRC);
		dp = find_dim(s, NFHP_DIM_DST);
		if (sp && sp->form != NFHP_FORM_RANGES)
			sp = NULL;
		if (dp && dp->form != NFHP_FORM_RANGES)
			dp = NULL;
		if (!sp && !dp)
			break;
		fputs(" -m iprange", f);
		if (sp) {
			ip_str(a, sizeof(a), lo32(sp, 0));
			ip_str(b, sizeof(b), hi32(sp, 0));
			fprintf(f, "%s --src-range %s-%s",
				sp->invert ? " !" : "", a, b);
		}
		if (dp) {
			ip_str(a, sizeof(a), lo32(dp, 0));
			ip_str(b, sizeof(b), hi32(dp, 0));
			fprintf(f, "%s --dst-range %s-%s",
				dp->invert ? " !" : "", a, b);
		}
		break;
	case 4:		/* state, conntrack */
		m = find_dim(s, NFHP_DIM_STATE);
		if (m) {
			bool ct = m->syntax == NFHP_SYN_CONNTRACK;

			fprintf(f, " -m %s%s --%s ", ct ? "conntrack" : "state",
				m->invert ? " !" : "", ct ? "ctstate" : "state");
			print_states(f, m);
		}
		break;
	case 5:		/* ttl */
		m = find_dim(s, NFHP_DIM_TTL);
		if (!m)
			break;
		name = print_family == NFHP_FAMILY_IPV6 ? "hl" : "ttl";
		fprintf(f, " -m %s%s", name, m->invert ? " !" : "");
		if (m->syntax == NFHP_SYN_TTL_LT)
			fprintf(f, " --%s-lt %u", name, hi32(m, 0) + 1);
		else if (m->syntax == NFHP_SYN_TTL_GT)
			fprintf(f, " --%s-gt %u", name, lo32(m, 0) - 1);
		else
			fprintf(f, " --%s-eq %u", name, lo32(m, 0));
		break;
	case 6:		/* length */
		m = find_dim(s, NFHP_DIM_LEN);
		if (!m)
			break;
		fprintf(f, " -m length%s --length %u", m->invert ? " !" : "",
			lo32(m, 0));
		if (hi32(m, 0) != lo32(m, 0))
			fprintf(f, ":%u", hi32(m, 0));
		break;
	case 7:		/* mark */
		m = find_dim(s, NFHP_DIM_MARK);
		if (!m)
			break;
		fprintf(f, " -m mark%s --mark 0x%x", m->invert ? " !" : "",
			lo32(m, 0));
		if (hi32(m, 0) != 0xFFFFFFFFu)
			fprintf(f, "/0x%x", hi32(m, 0));
		break;
	case 8:		/* comment */
		if (s->comment[0]) {
			fputs(" -m comment --comment", f);
			nfhp_print_save_string(f, s->comment);
		}
		break;
	}
}

/* A compare of a set match's counts, as libxt_set prints it. */
static void print_setm_cmp(FILE *f, u8 cmp, u64 n, const char *what,
			   bool save)
{
	static const char * const ops[] = {
		[NFHP_SETM_CMP_EQ] = "eq", [NFHP_SETM_CMP_NE] = "eq",
		[NFHP_SETM_CMP_LT] = "lt", [NFHP_SETM_CMP_GT] = "gt",
	};

	if (cmp == NFHP_SETM_CMP_NONE || cmp > NFHP_SETM_CMP_GT)
		return;
	fprintf(f, " %s%s%s-%s %llu", cmp == NFHP_SETM_CMP_NE ? "! " : "",
		save ? "--" : "", what, ops[cmp], (unsigned long long)n);
}

/*
 * What a set match does with the counts of a set with counters, in
 * libxt_set's order: "! --update-counters", then the compares.
 */
static void print_setm_counts(FILE *f, const struct nfhp_setm_spec *m,
			      bool save)
{
	if (m->no_count)
		fprintf(f, " ! %supdate-counters", save ? "--" : "");
	print_setm_cmp(f, m->packets_cmp, m->packets, "packets", save);
	print_setm_cmp(f, m->bytes_cmp, m->bytes, "bytes", save);
}

/*
 * The set matches, as libxt_set's print_match() prints them: with
 * @prefix "--match-set" for iptables-save (after " -m set"), "match-set"
 * for iptables -L.  The kernel runs them after the native matches and
 * before the xtables ones, and keeps no place for them among the native
 * matches' order: they print there.
 */
static void print_setms(FILE *f, const struct nfhp_rule_spec *s, bool save)
{
	unsigned int i;

	for (i = 0; i < nfhp_spec_nsetm(s); i++) {
		const struct nfhp_setm_spec *m = &s->setm[i];
		/* A number set's port directions are its src and dst. */
		bool dst = m->dir == NFHP_SETM_DST || m->dir == NFHP_SETM_DPORT;

		fprintf(f, "%s %s%s %s %s", save ? " -m set" : "",
			m->invert ? "! " : "", save ? "--match-set" : "match-set",
			m->name, dst ? "dst" : "src");
		if (m->has_dir2)
			fprintf(f, ",%s", m->dir2 == NFHP_SETM_DST ||
					  m->dir2 == NFHP_SETM_DPORT ?
					  "dst" : "src");
		print_setm_counts(f, m, save);
		if (!m->has_value)
			continue;
		fprintf(f, " %s %u", save ? "--set-value" : "set-value",
			m->value_min);
		if (m->value_max != m->value_min)
			fprintf(f, ":%u", m->value_max);
	}
}

/* The fields of a state limit, as --state-limit-by takes them. */
static void print_limit_by(FILE *f, u8 fields)
{
	const char *sep = "";
	unsigned int i;

	for (i = 0; nfhp_limit_by_names[i].name; i++) {
		if (!(fields & nfhp_limit_by_names[i].value))
			continue;
		fputs(sep, f);
		fputs(nfhp_limit_by_names[i].name, f);
		sep = ",";
	}
}

/*
 * keep-state, after every match (the kernel makes the state when the
 * rule decides, whatever matched): " -m keep-state --state-limit N
 * --state-limit-by LIST" for iptables-save, " keep-state limit N by LIST"
 * for iptables -L.
 */
static void print_keep_state(FILE *f, const struct nfhp_rule_spec *s,
			     bool save)
{
	if (s->state.mode != NFHP_RSTATE_KEEP)
		return;
	fputs(save ? " -m keep-state" : " keep-state", f);
	if (!s->state.limit)
		return;
	fprintf(f, save ? " --state-limit %u --state-limit-by " :
		" limit %u by ", s->state.limit);
	print_limit_by(f, s->state.limit_by);
}

/*
 * The rule's matches in iptables-save syntax, after "-A CHAIN": the IP
 * part, the native matches in the order written, the set matches, the
 * xtables ones, keep-state.
 */
static void save_matches(FILE *f, const struct nfhp_rule_spec *s)
{
	u8 groups[NFHP_MOD_GROUPS];
	unsigned int i, n = print_order(s, groups);

	save_ip(f, s);
	for (i = 0; i < n; i++)
		save_group(f, s, groups[i]);
	print_setms(f, s, true);
	if (s->ext_len && print_ext)
		print_ext->save_matches(f, s);
	print_keep_state(f, s, true);
}

static void save_target(FILE *f, const struct nfhp_rule_spec *s)
{
	switch (s->action) {
	case NFHP_ACT_NONE:
		if (s->state.mode == NFHP_RSTATE_CHECK)
			fputs(" -j CHECK-STATE", f);
		break;
	case NFHP_ACT_ACCEPT:
		fputs(" -j ACCEPT", f);
		break;
	case NFHP_ACT_DROP:
		fputs(" -j DROP", f);
		break;
	case NFHP_ACT_RETURN:
		fputs(" -j RETURN", f);
		break;
	case NFHP_ACT_QUEUE:
		fputs(" -j QUEUE", f);
		break;
	case NFHP_ACT_JUMP:
		fputs(" -j ", f);
		fputs(s->target, f);
		break;
	case NFHP_ACT_GOTO:
		fputs(" -g ", f);
		fputs(s->target, f);
		break;
	case NFHP_ACT_XT:
		if (print_ext)
			print_ext->save_target(f, s);
		else
			fputs(" -j [xtables]", f);
		break;
	}
}

void nfhp_print_rule_save(FILE *f, const char *chain,
			  const struct nfhp_rule_spec *spec,
			  const struct nfhp_counter *c)
{
	if (c) {
		putc('[', f);
		put_u(f, c->packets);
		putc(':', f);
		put_u(f, c->bytes);
		fputs("] ", f);
	}
	fputs("-A ", f);
	fputs(chain, f);
	save_matches(f, spec);
	save_target(f, spec);
	fputc('\n', f);
}

/* xtables_print_num() */
static void print_num(FILE *f, u64 n, unsigned int flags, bool table)
{
	unsigned long long v = n;
	static const char sfx[] = "KMGT";
	unsigned int i;

	char buf[24];

	if (flags & NFHP_PRINT_EXACT) {
		*dec(buf, v) = '\0';
		put_right(f, buf, table ? 8 : 0);
		putc(' ', f);
		return;
	}
	if (v <= 99999) {
		*dec(buf, v) = '\0';
		put_right(f, buf, table ? 5 : 0);
		putc(' ', f);
		return;
	}
	for (i = 0; i < 4; i++) {
		v = (v + 500) / 1000;
		if (v <= 9999 || i == 3)
			break;
	}
	*dec(buf, v) = '\0';
	put_right(f, buf, table ? 4 : 0);
	putc(sfx[i], f);
	putc(' ', f);
}

void nfhp_print_chain_header(FILE *f, const char *chain, bool builtin,
			     u8 policy, const struct nfhp_counter *policy_counter,
			     unsigned int refs, unsigned int flags)
{
	static const struct nfhp_counter zero;

	fprintf(f, "Chain %s", chain);
	if (builtin) {
		if (!policy_counter)
			policy_counter = &zero;
		fprintf(f, " (policy %s",
			policy == NFHP_ACT_DROP ? "DROP" : "ACCEPT");
		if (flags & NFHP_PRINT_VERBOSE) {
			fputc(' ', f);
			print_num(f, policy_counter->packets, flags, false);
			fputs("packets, ", f);
			print_num(f, policy_counter->bytes, flags, false);
			fputs("bytes", f);
		}
		fputs(")\n", f);
	} else {
		fprintf(f, " (%u references)\n", refs);
	}
	if (flags & NFHP_PRINT_LINENUM)
		fprintf(f, "%-4s ", "num");
	if (flags & NFHP_PRINT_VERBOSE) {
		if (flags & NFHP_PRINT_EXACT)
			fprintf(f, "%8s %10s ", "pkts", "bytes");
		else
			fprintf(f, "%5s %5s ", "pkts", "bytes");
	}
	fprintf(f, "%-9s ", "target");
	fputs(" prot opt", f);
	if (flags & NFHP_PRINT_VERBOSE)
		fprintf(f, " %-6s %-6s ", "in", "out");
	fprintf(f, " %-19s  %-19s \n", "source", "destination");
}

static void print_port(FILE *f, unsigned int port, const char *proto,
		       bool numeric)
{
	struct servent *se;

	if (!numeric && proto) {
		se = getservbyport(htons(port), proto);
		if (se) {
			fputs(se->s_name, f);
			return;
		}
	}
	put_u(f, port);
}

static void list_ports(FILE *f, const char *name,
		       const struct nfhp_dim_match *m, const char *proto,
		       bool numeric)
{
	const char *inv = m->invert ? "!" : "";

	if (ports_all(m))
		return;
	putc(' ', f);
	fputs(name, f);
	if (lo32(m, 0) == hi32(m, 0)) {
		putc(':', f);
		fputs(inv, f);
		print_port(f, lo32(m, 0), proto, numeric);
	} else {
		fputs("s:", f);
		fputs(inv, f);
		print_port(f, lo32(m, 0), proto, numeric);
		fputc(':', f);
		print_port(f, hi32(m, 0), proto, numeric);
	}
}

static void list_icmp(FILE *f, const struct nfhp_dim_match *m, bool numeric)
{
	const struct nfhp_icmp_name *names = nfhp_icmp_names;
	unsigned int type, cmin, cmax, i;

	if (lo32(m, 0) == 0 && hi32(m, 0) == 0xFFFF) {
		type = 0xFF;
		cmin = 0;
		cmax = 0xFF;
	} else {
		type = lo32(m, 0) >> 8;
		cmin = lo32(m, 0) & 0xFF;
		cmax = hi32(m, 0) & 0xFF;
	}
	if (print_family == NFHP_FAMILY_IPV6) {
		/* ip6tables: "ipv6-icmp neighbour-solicitation", or "type" */
		names = nfhp_icmpv6_names;
		type = lo32(m, 0) >> 8;
		cmin = lo32(m, 0) & 0xFF;
		cmax = hi32(m, 0) & 0xFF;
		fputs(" ipv6-icmp", f);
	} else {
		fputs(" icmp", f);
	}
	if (!numeric) {
		for (i = 0; names[i].name; i++) {
			if (names[i].type == type &&
			    names[i].code_min == cmin &&
			    names[i].code_max == cmax) {
				fprintf(f, " %s%s", m->invert ? "!" : "",
					names[i].name);
				return;
			}
		}
	}
	if (m->invert)
		fputs(" !", f);
	fprintf(f, "type %u", type);
	if (cmin == cmax)
		fprintf(f, " code %u", cmin);
	else if (cmin != 0 || cmax != 0xFF)
		fprintf(f, " codes %u-%u", cmin, cmax);
}

/* One native match group (nfhp_mod_group()) of the -L match summary. */
static void list_group(FILE *f, const struct nfhp_rule_spec *s,
		       unsigned int group, bool numeric)
{
	const struct nfhp_dim_match *m, *sp, *dp, *fl, *mp;
	u8 proto = spec_proto(s);
	const char *pname = proto == 17 ? "udp" : "tcp";
	char a[32], b[32];
	unsigned int i;

	switch (group) {
	case 0:		/* tcp, udp */
		sp = find_dim(s, NFHP_DIM_SPORT);
		dp = find_dim(s, NFHP_DIM_DPORT);
		fl = find_dim(s, NFHP_DIM_TCPFLAGS);
		if (sp && sp->syntax != NFHP_SYN_DEFAULT)
			sp = NULL;
		if (dp && dp->syntax != NFHP_SYN_DEFAULT)
			dp = NULL;
		if (!sp && !dp && !fl)
			break;
		putc(' ', f);
		fputs(pname, f);
		if (sp)
			list_ports(f, "spt", sp, pname, numeric);
		if (dp)
			list_ports(f, "dpt", dp, pname, numeric);
		if (fl) {
			fprintf(f, " flags:%s", fl->invert ? "!" : "");
			if (numeric) {
				fprintf(f, "0x%02X/0x%02X", hi32(fl, 0),
					lo32(fl, 0));
			} else {
				print_tcpf(f, hi32(fl, 0));
				fputc('/', f);
				print_tcpf(f, lo32(fl, 0));
			}
		}
		break;
	case 1:		/* multiport */
		mp = multiport(s);
		if (mp) {
			const char *ppn = nfhp_proto_to_name(proto, false);

			fprintf(f, " multiport %s ",
				mp->syntax == NFHP_SYN_MULTIPORT_BOTH ? "ports" :
				mp->dim == NFHP_DIM_SPORT ? "sports" : "dports");
			if (mp->invert)
				fputs(" !", f);
			for (i = 0; i < mp->nranges; i++) {
				if (i)
					fputc(',', f);
				print_port(f, lo32(mp, i), ppn, numeric);
				if (hi32(mp, i) != lo32(mp, i)) {
					fputc(':', f);
					print_port(f, hi32(mp, i), ppn, numeric);
				}
			}
		}
		break;
	case 2:		/* icmp */
		m = find_dim(s, NFHP_DIM_ICMP);
		if (m)
			list_icmp(f, m, numeric);
		break;
	case 3:		/* iprange */
		sp = find_dim(s, NFHP_DIM_SRC);
		dp = find_dim(s, NFHP_DIM_DST);
		if (sp && sp->form == NFHP_FORM_RANGES) {
			ip_str(a, sizeof(a), lo32(sp, 0));
			ip_str(b, sizeof(b), hi32(sp, 0));
			fprintf(f, " source IP range%s %s-%s",
				sp->invert ? " !" : "", a, b);
		}
		if (dp && dp->form == NFHP_FORM_RANGES) {
			ip_str(a, sizeof(a), lo32(dp, 0));
			ip_str(b, sizeof(b), hi32(dp, 0));
			fprintf(f, " destination IP range%s %s-%s",
				dp->invert ? " !" : "", a, b);
		}
		break;
	case 4:		/* state, conntrack */
		m = find_dim(s, NFHP_DIM_STATE);
		if (m) {
			fprintf(f, "%s %s ", m->invert ? " !" : "",
				m->syntax == NFHP_SYN_CONNTRACK ? "ctstate" :
				"state");
			print_states(f, m);
		}
		break;
	case 5:		/* ttl */
		m = find_dim(s, NFHP_DIM_TTL);
		if (!m)
			break;
		fputs(print_family == NFHP_FAMILY_IPV6 ? " HL match HL" :
						       " TTL match TTL", f);
		if (m->syntax == NFHP_SYN_TTL_LT)
			fprintf(f, " < %u", hi32(m, 0) + 1);
		else if (m->syntax == NFHP_SYN_TTL_GT)
			fprintf(f, " > %u", lo32(m, 0) - 1);
		else
			fprintf(f, " %s %u", m->invert ? "!=" : "==",
				lo32(m, 0));
		break;
	case 6:		/* length */
		m = find_dim(s, NFHP_DIM_LEN);
		if (!m)
			break;
		fprintf(f, " length %s%u", m->invert ? "!" : "", lo32(m, 0));
		if (hi32(m, 0) != lo32(m, 0))
			fprintf(f, ":%u", hi32(m, 0));
		break;
	case 7:		/* mark */
		m = find_dim(s, NFHP_DIM_MARK);
		if (!m)
			break;
		fprintf(f, " mark match%s 0x%x", m->invert ? " !" : "",
			lo32(m, 0));
		if (hi32(m, 0) != 0xFFFFFFFFu)
			fprintf(f, "/0x%x", hi32(m, 0));
		break;
	case 8:		/* comment */
		if (s->comment[0])
			fprintf(f, " /* %s */", s->comment);
		break;
	}
}

/*
 * The match summary after the destination column: iptables -L prints
 * the matches in the rule's order too.
 */
static void list_matches(FILE *f, const struct nfhp_rule_spec *s,
			 bool numeric)
{
	u8 groups[NFHP_MOD_GROUPS];
	unsigned int i, n = print_order(s, groups);

	for (i = 0; i < n; i++)
		list_group(f, s, groups[i], numeric);
	print_setms(f, s, false);
	if (s->ext_len && print_ext)
		print_ext->list(f, s, numeric);
	print_keep_state(f, s, false);
}

static void list_addr(FILE *f, const struct nfhp_dim_match *m, bool numeric)
{
	char buf[64];

	if (!m || (m->form != NFHP_FORM_PREFIX && m->form != NFHP_FORM_MASK)) {
		putc(' ', f);
		put_left(f, !numeric ? "anywhere" :
			 print_family == NFHP_FAMILY_IPV6 ? "::/0" : "0.0.0.0/0",
			 19);
		putc(' ', f);
		return;
	}
	if (m->form == NFHP_FORM_PREFIX && !m->nranges && !numeric)
		strcpy(buf, "anywhere");
	else
		addr_str(buf, sizeof(buf), m, false);
	putc(m->invert ? '!' : ' ', f);
	put_left(f, buf, 19);
	putc(' ', f);
}

static const char *target_name(const struct nfhp_rule_spec *s)
{
	switch (s->action) {
	case NFHP_ACT_ACCEPT: return "ACCEPT";
	case NFHP_ACT_DROP: return "DROP";
	case NFHP_ACT_RETURN: return "RETURN";
	case NFHP_ACT_QUEUE: return "QUEUE";
	case NFHP_ACT_JUMP:
	case NFHP_ACT_GOTO: return s->target;
	case NFHP_ACT_XT:
		return print_ext ? print_ext->target_name(s) : "[xtables]";
	case NFHP_ACT_NONE:
		return s->state.mode == NFHP_RSTATE_CHECK ? "CHECK-STATE" : "";
	default: return "";
	}
}

void nfhp_print_list_rule(FILE *f, unsigned int num,
			  const struct nfhp_rule_spec *spec,
			  const struct nfhp_counter *c, unsigned int flags)
{
	static const struct nfhp_counter zero;
	bool numeric = flags & NFHP_PRINT_NUMERIC;
	const struct nfhp_dim_match *m;
	u8 proto = spec_proto(spec);
	const char *pname;
	char iface[NFHP_IFNAME_LEN + 3];
	int dim;

	char buf[24];

	if (!c)
		c = &zero;
	if (flags & NFHP_PRINT_LINENUM) {
		*dec(buf, num) = '\0';
		put_left(f, buf, 4);
		putc(' ', f);
	}
	if (flags & NFHP_PRINT_VERBOSE) {
		print_num(f, c->packets, flags, true);
		print_num(f, c->bytes, flags, true);
	}
	put_left(f, target_name(spec), 9);
	putc(' ', f);
	m = find_dim(spec, NFHP_DIM_PROTO);
	fputc(m && m->invert ? '!' : ' ', f);
	pname = numeric ? NULL : nfhp_proto_to_name(proto, true);
	if (!pname) {
		*dec(buf, proto) = '\0';
		pname = buf;
	}
	put_left(f, pname, 4);
	putc(' ', f);
	m = find_dim(spec, NFHP_DIM_FRAG);
	if (print_family == NFHP_FAMILY_IPV6) {
		/* ip6tables has no -f: blanks in its place. */
		fputs("   ", f);
	} else {
		fputc(m && m->invert ? '!' : '-', f);
		fputc(m ? 'f' : '-', f);
		fputc(' ', f);
	}
	if (flags & NFHP_PRINT_VERBOSE) {
		for (dim = NFHP_DIM_IIF; dim <= NFHP_DIM_OIF; dim++) {
			m = find_dim(spec, dim);
			snprintf(iface, sizeof(iface), "%s%s",
				 m && m->invert ? "!" : "",
				 m ? m->ifname : numeric ? "*" : "any");
			if (dim == NFHP_DIM_IIF)
				putc(' ', f);
			put_left(f, iface, 6);
			putc(' ', f);
		}
	}
	list_addr(f, find_dim(spec, NFHP_DIM_SRC), numeric);
	list_addr(f, find_dim(spec, NFHP_DIM_DST), numeric);
	if (spec->action == NFHP_ACT_GOTO)
		fputs("[goto] ", f);
	list_matches(f, spec, numeric);
	fputc('\n', f);
}
