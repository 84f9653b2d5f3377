// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-sim: packet lines to keys, see pkt.h.
 */
#include "pkt.h"
#include "parse.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>

static bool get_uint(const char *s, unsigned long long max,
		     unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end && *v <= max;
}

static int tcp_flag_letter(char c)
{
	switch (toupper((unsigned char)c)) {
	case 'F': return 0x01;
	case 'S': return 0x02;
	case 'R': return 0x04;
	case 'P': return 0x08;
	case 'A': return 0x10;
	case 'U': return 0x20;
	case 'E': return 0x40;
	case 'C': return 0x80;
	default: return -1;
	}
}

static const char *const states[NFHP_CT_MAX] = {
	[NFHP_CT_INVALID] = "invalid",
	[NFHP_CT_ESTABLISHED] = "established",
	[NFHP_CT_RELATED] = "related",
	[NFHP_CT_NEW] = "new",
	[NFHP_CT_UNTRACKED] = "untracked",
};

/* Each half of each value in turn, with splitmix64's step between. */
static u64 key_hash(const struct nfhp_key *key)
{
	const u64 step = 0x9e3779b97f4a7c15ull;
	u64 h = 0;
	int d;

	for (d = 0; d < NFHP_DIM_MAX; d++) {
		h = nfhp_sim_mix64(h + step + (u64)key->v[d]);
		h = nfhp_sim_mix64(h + step + (u64)(key->v[d] >> 64));
	}
	return h;
}

/*
 * Seconds with up to three decimals ("12", "0.25") into ticks of
 * %NFHP_SIM_HZ; false for anything else.
 */
static bool get_time(const char *s, u64 *ticks)
{
	unsigned long long sec;
	unsigned int i, n, ms = 0;
	const char *dot = strchr(s, '.'), *frac;
	char *end;

	if (!dot)
		dot = s + strlen(s);
	if (dot == s || strspn(s, "0123456789") != (size_t)(dot - s))
		return false;
	errno = 0;
	sec = strtoull(s, &end, 10);
	if (errno || end != dot || sec >= ULLONG_MAX / NFHP_SIM_HZ)
		return false;
	frac = *dot ? dot + 1 : dot;
	n = strlen(frac);
	if ((*dot && !n) || n > 3 || strspn(frac, "0123456789") != n)
		return false;
	for (i = 0; i < 3; i++)
		ms = ms * 10 + (i < n ? frac[i] - '0' : 0);
	*ticks = sec * NFHP_SIM_HZ + ms * (NFHP_SIM_HZ / 1000);
	return true;
}

/* An ICMP or ICMPv6 echo request or reply, whose identifier is its ports. */
static bool icmp_echo(unsigned int proto, unsigned int type)
{
	if (proto == 1)
		return type == 8 || type == 0;
	return proto == 58 && (type == 128 || type == 129);
}

/*
 * The flow of @p as the module reads it from the skb (state_rule.c): the
 * addresses in 32-bit words, the most significant first; the ports of
 * a first fragment whose header holds them; an echo's identifier.
 */
static void fill_flow(struct nfhp_sim_pkt *p, unsigned int proto,
		      unsigned int sport, unsigned int dport, unsigned int id,
		      unsigned int icmp_type, unsigned int frag,
		      unsigned int l4len)
{
	struct nfhp_state_tuple *t = &p->flow;
	unsigned int i;

	t->proto = proto;
	for (i = 0; i < 4; i++) {
		t->src[i] = (u32)(p->key.v[NFHP_DIM_SRC] >> (96 - 32 * i));
		t->dst[i] = (u32)(p->key.v[NFHP_DIM_DST] >> (96 - 32 * i));
	}
	if (frag)
		return;
	if (proto == 6 && l4len >= 20) {
		t->sport = sport;
		t->dport = dport;
	} else if (proto != 6 && nfhp_proto_has_ports(proto) && l4len >= 4) {
		t->sport = sport;
		t->dport = dport;
	} else if (icmp_echo(proto, icmp_type) && l4len >= 6) {
		t->sport = id;
		t->dport = id;
	}
}

int nfhp_sim_parse_packet(const char *line, struct nfhp_sim_pkt *p,
			  char *err, size_t errlen)
{
	unsigned long long sport = 0, dport = 0, v;
	unsigned int proto = 0, flags = 0, icmp = 0, frag = 0, l4len = 65535;
	unsigned int i, id = 0;
	bool have_icmp = false, have_id = false;
	char buf[1024], *tok, *save, *val;
	u32 addr;
	u8 pr;

	memset(p, 0, sizeof(*p));
	p->hook = NFHP_HOOK_FORWARD;
	p->len = 64;
	p->key.v[NFHP_DIM_STATE] = NFHP_CT_NEW;
	p->key.v[NFHP_DIM_TTL] = 64;
	snprintf(buf, sizeof(buf), "%s", line);
	tok = buf + strspn(buf, " \t\r\n");
	if (!*tok || *tok == '#')
		return 1;
	for (tok = strtok_r(buf, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		val = strchr(tok, '=');
		if (!val)
			goto bad;
		*val++ = 0;
		if (!strcmp(tok, "hook")) {
			if (!strcasecmp(val, "input"))
				p->hook = NFHP_HOOK_INPUT;
			else if (!strcasecmp(val, "forward"))
				p->hook = NFHP_HOOK_FORWARD;
			else if (!strcasecmp(val, "output"))
				p->hook = NFHP_HOOK_OUTPUT;
			else
				goto bad;
		} else if (!strcmp(tok, "src") || !strcmp(tok, "dst")) {
			nfhp_u128 *a = &p->key.v[tok[0] == 's' ? NFHP_DIM_SRC :
						      NFHP_DIM_DST];

			/* An IPv6 address for the rule sets of nf-hipac-sim -6. */
			if (strchr(val, ':')) {
				struct in6_addr a6;

				if (inet_pton(AF_INET6, val, &a6) != 1)
					goto bad;
				for (*a = 0, i = 0; i < 16; i++)
					*a = *a << 8 | a6.s6_addr[i];
			} else if (nfhp_parse_ipv4(val, &addr)) {
				*a = addr;
			} else {
				goto bad;
			}
		} else if (!strcmp(tok, "proto")) {
			if (!nfhp_parse_protocol(val, &pr))
				goto bad;
			proto = pr;
		} else if (!strcmp(tok, "sport")) {
			if (!get_uint(val, 65535, &sport))
				goto bad;
		} else if (!strcmp(tok, "dport")) {
			if (!get_uint(val, 65535, &dport))
				goto bad;
		} else if (!strcmp(tok, "in") || !strcmp(tok, "out")) {
			if (strlen(val) > NFHP_IFNAME_LEN - 1)
				goto bad;
			p->key.v[tok[0] == 'i' ? NFHP_DIM_IIF : NFHP_DIM_OIF] =
				nfhp_ifname_value(val, 0);
		} else if (!strcmp(tok, "state")) {
			for (i = 0; i < NFHP_CT_MAX; i++)
				if (!strcasecmp(val, states[i]))
					break;
			if (i == NFHP_CT_MAX)
				goto bad;
			p->key.v[NFHP_DIM_STATE] = i;
		} else if (!strcmp(tok, "ttl")) {
			if (!get_uint(val, 255, &v))
				goto bad;
			p->key.v[NFHP_DIM_TTL] = v;
		} else if (!strcmp(tok, "len")) {
			if (!get_uint(val, 65535, &v))
				goto bad;
			p->len = v;
		} else if (!strcmp(tok, "frag")) {
			if (!get_uint(val, 8191, &v))
				goto bad;
			frag = v;
		} else if (!strcmp(tok, "l4len")) {
			if (!get_uint(val, 65535, &v))
				goto bad;
			l4len = v;
		} else if (!strcmp(tok, "flags")) {
			for (i = 0; val[i]; i++) {
				int f = tcp_flag_letter(val[i]);

				if (f < 0)
					goto bad;
				flags |= f;
			}
		} else if (!strcmp(tok, "icmp")) {
			char *slash = strchr(val, '/');
			unsigned long long code = 0;

			if (slash)
				*slash++ = 0;
			if (!get_uint(val, 255, &v) ||
			    (slash && !get_uint(slash, 255, &code)))
				goto bad;
			icmp = v << 8 | code;
			have_icmp = true;
		} else if (!strcmp(tok, "mark")) {
			if (!get_uint(val, 0xFFFFFFFFu, &v))
				goto bad;
			p->key.v[NFHP_DIM_MARK] = v;
		} else if (!strcmp(tok, "id")) {
			if (!get_uint(val, 65535, &v))
				goto bad;
			id = v;
			have_id = true;
		} else if (!strcmp(tok, "ack")) {
			if (!get_uint(val, 0xFFFFFFFFu, &v))
				goto bad;
			p->ack = v;
		} else if (!strcmp(tok, "time")) {
			if (!get_time(val, &p->time))
				goto bad;
			p->timed = true;
		} else {
			goto bad;
		}
	}
	p->key.v[NFHP_DIM_FRAG] = !!frag;
	p->key.v[NFHP_DIM_LEN] = p->len;
	if (nfhp_proto_has_ports(proto) && !frag) {
		p->key.v[NFHP_DIM_SPORT] = sport;
		p->key.v[NFHP_DIM_DPORT] = dport;
	}
	if (proto == 6 && !frag)
		p->key.v[NFHP_DIM_TCPFLAGS] = flags;
	/* ICMP's or ICMPv6's type and code, as the kernel's hooks fill them. */
	if ((proto == 1 || proto == 58) && !frag && have_icmp)
		p->key.v[NFHP_DIM_ICMP] = icmp;
	if (have_id && !(have_icmp && icmp_echo(proto, icmp >> 8))) {
		snprintf(err, errlen,
			 "id= is an ICMP echo's identifier: give proto=icmp icmp=8 or 0 (ipv6-icmp: 128 or 129)");
		return -1;
	}
	fill_flow(p, proto, sport, dport, id, have_icmp ? icmp >> 8 : 256,
		  frag, l4len);
	if (proto == 6 && !frag && l4len >= 20)
		p->tcp_flags = flags;
	else
		p->ack = 0;
	nfhp_key_set_l4_short(&p->key, proto, frag, l4len);
	nfhp_key_fold_port(&p->key, proto);
	p->hash = key_hash(&p->key);
	return 0;
bad:
	snprintf(err, errlen, "bad packet field `%s%s%s'", tok,
		 val ? "=" : "", val ? val : "");
	return -1;
}

/**
 * nfhp_sim_pkt_flow() - the flow of a packet, for the states (states.h)
 * @pkt: the packet, &struct nfhp_sim_pkt
 * @tcp_flags: set to its TCP flags
 * @ack: set to its acknowledgment number
 * @len: set to its length
 *
 * Return: its flow, its family unset.
 */
const struct nfhp_state_tuple *nfhp_sim_pkt_flow(const void *pkt,
						 u8 *tcp_flags, u32 *ack,
						 u32 *len)
{
	const struct nfhp_sim_pkt *p = pkt;

	*tcp_flags = p->tcp_flags;
	*ack = p->ack;
	*len = p->len;
	return &p->flow;
}

void nfhp_sim_key_ifname(nfhp_u128 v, char name[NFHP_IFNAME_LEN + 1])
{
	int i;

	for (i = 0; i < NFHP_IFNAME_LEN; i++)
		name[i] = (char)(u8)(v >> (8 * (NFHP_IFNAME_LEN - 1 - i)));
	name[NFHP_IFNAME_LEN] = 0;
}
