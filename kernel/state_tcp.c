// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: dynamic states, lifetimes: ipfw's TCP tracking.
 *
 * A state's TCP word gathers the SYN, FIN and RST flags each side sent,
 * the creator's side ("forward") in bits 0-7 and the other in bits 8-15.
 * What it holds picks the lifetime, as in ipfw:
 *
 *   flags seen                     lifetime    renewed
 *   SYN forward only               syn         by every packet
 *   both SYNs, at most one FIN     ack         once ACKs have gone both
 *                                              ways since the last renewal
 *   both SYNs and both FINs        fin         by every packet
 *   anything else (a RST, ...)     rst         by every packet
 *
 * An ACK counts for its side when its number is not behind the highest
 * that side acknowledged (in sequence space), so a replayed old segment
 * does not keep a dead connection alive.  Each side's ACK sets its bit
 * (%NFHP_STATE_ACK_FWD, %NFHP_STATE_ACK_REV); with both set, the state
 * gets the ack lifetime again and both bits are cleared.  UDP states
 * live udp seconds after their last packet, the other protocols short
 * seconds.
 */
#include <linux/kernel.h>

#include "state.h"

#define NFHP_TCP_TRACKED	(NFHP_TCP_FIN | NFHP_TCP_SYN | NFHP_TCP_RST)
#define NFHP_BOTH(f)		((f) | (f) << 8)
#define NFHP_TCP_WORD_FLAGS	NFHP_BOTH(NFHP_TCP_TRACKED)
#define NFHP_ACK_BOTH		(NFHP_STATE_ACK_FWD | NFHP_STATE_ACK_REV)
/* A lifetime no setting can have: the packet renews nothing. */
#define NFHP_NO_RENEWAL		U32_MAX

/**
 * enum nfhp_tcp_phase - what a TCP word's flags make of the connection
 * @NFHP_TCP_OPENING: the creator's SYN alone
 * @NFHP_TCP_OPEN: both SYNs, and at most one side's FIN
 * @NFHP_TCP_CLOSED: both SYNs and both FINs
 * @NFHP_TCP_OTHER: anything else: a RST, a reply's SYN alone, no SYN
 */
enum nfhp_tcp_phase {
	NFHP_TCP_OPENING,
	NFHP_TCP_OPEN,
	NFHP_TCP_CLOSED,
	NFHP_TCP_OTHER,
};

/**
 * nfhp_tcp_phase() - the phase a TCP word's flags say
 * @word: the word
 *
 * Return: its &enum nfhp_tcp_phase.
 */
static enum nfhp_tcp_phase nfhp_tcp_phase(u32 word)
{
	switch (word & NFHP_TCP_WORD_FLAGS) {
	case NFHP_TCP_SYN:
		return NFHP_TCP_OPENING;
	case NFHP_BOTH(NFHP_TCP_SYN):
	case NFHP_BOTH(NFHP_TCP_SYN) | NFHP_TCP_FIN:
	case NFHP_BOTH(NFHP_TCP_SYN) | NFHP_TCP_FIN << 8:
		return NFHP_TCP_OPEN;
	case NFHP_BOTH(NFHP_TCP_SYN | NFHP_TCP_FIN):
		return NFHP_TCP_CLOSED;
	default:
		return NFHP_TCP_OTHER;
	}
}

/**
 * nfhp_seq_ge() - is one sequence number at or after another?
 * @a: a number
 * @b: another
 *
 * Return: true if @a is at or after @b in sequence space.
 */
static bool nfhp_seq_ge(u32 a, u32 b)
{
	return (s32)(a - b) >= 0;
}

/**
 * nfhp_tcp_next() - a state's TCP word after a packet
 * @t: the table, for the lifetimes
 * @word: the word before
 * @pkt: the packet
 * @rev: it goes the other way than the creator
 * @ack_new: it acknowledges no less than its side did before
 * @life: the lifetime in seconds it renews the state with, or
 *	%NFHP_NO_RENEWAL
 *
 * Return: the word after.
 */
static u32 nfhp_tcp_next(const struct nfhp_state_table *t, u32 word,
			 const struct nfhp_state_pkt *pkt, bool rev,
			 bool ack_new, u32 *life)
{
	word |= (u32)(pkt->tcp_flags & NFHP_TCP_TRACKED) << (rev ? 8 : 0);
	switch (nfhp_tcp_phase(word)) {
	case NFHP_TCP_OPENING:
		*life = READ_ONCE(t->tun.syn_lifetime);
		break;
	case NFHP_TCP_OPEN:
		*life = NFHP_NO_RENEWAL;
		if (!ack_new)
			break;
		word |= rev ? NFHP_STATE_ACK_REV : NFHP_STATE_ACK_FWD;
		if ((word & NFHP_ACK_BOTH) == NFHP_ACK_BOTH) {
			word &= ~NFHP_ACK_BOTH;
			*life = READ_ONCE(t->tun.ack_lifetime);
		}
		break;
	case NFHP_TCP_CLOSED:
		*life = READ_ONCE(t->tun.fin_lifetime);
		break;
	default:
		*life = READ_ONCE(t->tun.rst_lifetime);
	}
	return word;
}

/**
 * nfhp_state_update() - a packet of a state's flow went by
 * @t: the table, for the lifetimes
 * @s: the state
 * @pkt: the packet
 * @rev: it goes the other way than the state's creator
 * @now: the caller's clock
 *
 * Counts the packet, and for TCP folds its flags into the state's word
 * (with cmpxchg(), so that two CPUs lose no flag).  Then renews the
 * state's lifetime as the word says, or for the other protocols by the
 * protocol's lifetime.  Runs unlocked on the packet path.
 */
void nfhp_state_update(const struct nfhp_state_table *t, struct nfhp_state *s,
		       const struct nfhp_state_pkt *pkt, bool rev,
		       unsigned long now)
{
	u32 old, word, life;
	bool ack_new = false;
	unsigned long exp;

	WRITE_ONCE(s->pkts[rev], READ_ONCE(s->pkts[rev]) + 1);
	WRITE_ONCE(s->bytes[rev], READ_ONCE(s->bytes[rev]) + pkt->len);
	switch (s->key.proto) {
	case NFHP_STATE_TCP:
		if (pkt->tcp_flags & NFHP_TCP_ACK) {
			u32 last = READ_ONCE(s->ack[rev]);

			ack_new = !last || nfhp_seq_ge(pkt->ack, last);
			if (ack_new)
				WRITE_ONCE(s->ack[rev], pkt->ack);
		}
		old = READ_ONCE(s->tcp);
		for (;;) {
			u32 seen;

			word = nfhp_tcp_next(t, old, pkt, rev, ack_new, &life);
			if (word == old)
				break;
			seen = cmpxchg(&s->tcp, old, word);
			if (seen == old)
				break;
			old = seen;
		}
		break;
	case NFHP_STATE_UDP:
	case NFHP_STATE_UDPLITE:
		life = READ_ONCE(t->tun.udp_lifetime);
		break;
	default:
		life = READ_ONCE(t->tun.short_lifetime);
	}
	if (life == NFHP_NO_RENEWAL)
		return;
	exp = now + (unsigned long)life * t->hz;
	/* Write the line only when the time moved. */
	if (READ_ONCE(s->expire) != exp)
		WRITE_ONCE(s->expire, exp);
}

/**
 * nfhp_state_dead() - has a state's lifetime run out?
 * @s: the state
 * @now: the caller's clock
 *
 * A dead state is not matched, and the tick frees it.
 *
 * Return: true if it has.
 */
bool nfhp_state_dead(const struct nfhp_state *s, unsigned long now)
{
	return (long)(now - READ_ONCE(s->expire)) >= 0;
}
