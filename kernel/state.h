/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: dynamic states (keep-state, check-state, limit), the core.
 *
 * A state is a flow that a keep-state rule let through: its two ends,
 * the rule, the verdict to give its later packets in either direction,
 * how long it lives and what it counted.  The table of one namespace
 * holds them in a hash keyed so that both directions of a flow find the
 * same state; see DOC: Theory of Operation in state_table.c.
 *
 * This header and state_*.c are the pure core: no skb, no netlink, no
 * timer.  The caller supplies the flow (&struct nfhp_state_pkt) and the
 * time, in ticks of its own clock (jiffies in the kernel), and runs
 * nfhp_state_tick() now and then off the packet path.  They compile
 * unchanged against user/shim/ for the tests.
 */
#ifndef _NFHP_STATE_H
#define _NFHP_STATE_H

#include <linux/atomic.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/nf_hipac.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "key.h"
#include "mem.h"

/**
 * struct nfhp_state_tunables - the settings of a namespace's states
 * @syn_lifetime: seconds a TCP state lives after a SYN of its creator's
 *	side, until both sides have sent one (ipfw: dyn_syn_lifetime, 20)
 * @ack_lifetime: seconds an established TCP state lives, renewed once
 *	ACKs have been seen both ways since the last renewal (ipfw:
 *	dyn_ack_lifetime, 300)
 * @fin_lifetime: seconds after both sides sent a FIN (dyn_fin_lifetime, 1)
 * @rst_lifetime: seconds after a RST, or any other TCP flag mix
 *	(dyn_rst_lifetime, 1)
 * @udp_lifetime: seconds a UDP state lives after its last packet
 *	(dyn_udp_lifetime, 10)
 * @short_lifetime: the same for the other protocols: ICMP, ...
 *	(dyn_short_lifetime, 5)
 * @max_states: states the table holds at most (dyn_max, 16384)
 * @max_parents: parents of limits it holds at most (dyn_parent_max, 4096)
 * @buckets_init: the buckets of a new table, a power of two; also its
 *	writers' lock stripes, up to %NFHP_STATE_LOCKS_MAX (ipfw starts
 *	at 256)
 * @buckets_max: the most buckets growth may ever reach, a power of
 *	two: a hard cap on what @max_states asks for
 * @bucket_load: the states per bucket growth keeps under: the table
 *	grows up to @max_states / @bucket_load buckets, rounded up to a
 *	power of two (nfhp_state_buckets_bound()), as conntrack sizes
 *	its hash by its max
 *
 * The lifetimes are read on the packet path with READ_ONCE() and may
 * change at any time; the bounds change only through
 * nfhp_state_set_bounds(), which charges them to the memory account.
 */
struct nfhp_state_tunables {
	u32 syn_lifetime;
	u32 ack_lifetime;
	u32 fin_lifetime;
	u32 rst_lifetime;
	u32 udp_lifetime;
	u32 short_lifetime;
	u32 max_states;
	u32 max_parents;
	u32 buckets_init;
	u32 buckets_max;
	u32 bucket_load;
};

/* ipfw's defaults (sys/netpfil/ipfw/ip_fw_dynamic.c). */
#define NFHP_STATE_SYN_LIFETIME		20
#define NFHP_STATE_ACK_LIFETIME		300
#define NFHP_STATE_FIN_LIFETIME		1
#define NFHP_STATE_RST_LIFETIME		1
#define NFHP_STATE_UDP_LIFETIME		10
#define NFHP_STATE_SHORT_LIFETIME	5
#define NFHP_STATE_MAX			16384
#define NFHP_STATE_PARENT_MAX		4096
/* 4M buckets, 32 MiB of heads: about 4M states at the default load. */
#define NFHP_STATE_BUCKETS_MAX		(1u << 22)
#define NFHP_STATE_BUCKETS_INIT		256
#define NFHP_STATE_BUCKET_LOAD		1
/* Lock stripes at most: enough for two CPUs to rarely meet. */
#define NFHP_STATE_LOCKS_MAX		1024

/* The protocols whose lifetimes differ (IPPROTO_*, as key.h spells them). */
#define NFHP_STATE_TCP		6
#define NFHP_STATE_UDP		17
#define NFHP_STATE_UDPLITE	136

/* TCP flags as on the wire (byte 13 of the header). */
#define NFHP_TCP_FIN	0x01
#define NFHP_TCP_SYN	0x02
#define NFHP_TCP_RST	0x04
#define NFHP_TCP_ACK	0x10

/**
 * struct nfhp_state_tuple - a packet's flow, as the packet path reads it
 * @src: the source address; IPv4 in @src[0], the rest zero; IPv6 most
 *	significant word first (nfhp_state_addr_set())
 * @dst: the destination address, the same way
 * @sport: the source port; ICMP and ICMPv6 echo: the identifier
 * @dport: the destination port; ICMP: the identifier again, so that the
 *	request and the reply are one flow
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @proto: the transport protocol (IPPROTO_*)
 *
 * Addresses are compared as words, so their byte order does not matter
 * as long as it is always the same.
 */
struct nfhp_state_tuple {
	u32 src[4];
	u32 dst[4];
	u16 sport;
	u16 dport;
	u8 family;
	u8 proto;
};

/**
 * struct nfhp_state_key - a flow in canonical order
 * @addr: the addresses of the two ends, the lower end first
 * @port: their ports, in the same order
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @proto: the transport protocol
 * @pad: zero, so that keys compare with memcmp()
 *
 * The lower end is the one whose (address, port) compares lower, so the
 * two directions of a flow give one key.
 */
struct nfhp_state_key {
	u32 addr[2][4];
	u16 port[2];
	u8 family;
	u8 proto;
	u8 pad[2];
};

/**
 * struct nfhp_state_pkt - what the core needs of a packet
 * @key: its flow, canonical (nfhp_state_pkt_init())
 * @tuple: its flow as it came, for limits and new states
 * @reverse: its source is the key's higher end
 * @tcp_flags: TCP: the header's flags; else 0
 * @ack: TCP: the acknowledgment number, host order
 * @len: its length, for the byte counters
 */
struct nfhp_state_pkt {
	struct nfhp_state_key key;
	struct nfhp_state_tuple tuple;
	bool reverse;
	u8 tcp_flags;
	u32 ack;
	u32 len;
};

/*
 * The fields a limit counts by (&struct nfhp_state_rule.limit_mask) are
 * the uapi's NFHP_STATE_LIMIT_*.
 */

/**
 * struct nfhp_state_rule - what a keep-state rule gives the states it makes
 * @rule: the rule, opaque to the core: states are flushed by it
 * @number: its number, for listings
 * @verdict: what to do with the flow's packets, opaque to the core
 * @limit: at most this many states per parent; 0 for no limit
 * @limit_mask: the fields of the creating packet's flow that make its
 *	parent, %NFHP_STATE_LIMIT_*
 * @retired: the rule is going: it makes no more states.  Set with
 *	WRITE_ONCE() before the rule's states are flushed, and read under
 *	the bucket lock a new state is linked under, so no state slips in
 *	behind the flush.
 */
struct nfhp_state_rule {
	const void *rule;
	u32 number;
	u32 verdict;
	u32 limit;
	u8 limit_mask;
	bool retired;
};

/**
 * struct nfhp_state_parent - the states of one limit's key
 * @next: the next parent of its bucket
 * @rule: the rule whose limit it is
 * @tuple: the creating packet's flow, masked to the limit's fields
 * @hash: the hash of @rule and @tuple
 * @count: the states that hold it; it is freed when this drops to 0
 *
 * Only the creators and the deleters of states see parents, each under
 * the parent's bucket lock: a parent needs no RCU.
 */
struct nfhp_state_parent {
	struct nfhp_state_parent *next;
	const void *rule;
	struct nfhp_state_tuple tuple;
	u32 hash;
	u32 count;
};

/**
 * struct nfhp_state - one flow's state
 * @next: the next state of its bucket, under RCU
 * @rcu: frees it a grace period after it is unlinked
 * @key: its flow
 * @hash: the hash of @key, which places it in every array of buckets
 * @creator_reverse: the creating packet was reverse to @key's order:
 *	a packet is "forward" when its direction is the creator's
 * @tcp: TCP: the flags seen, %NFHP_TCP_* of the forward direction in
 *	bits 0-7 and of the reverse one in bits 8-15, and
 *	%NFHP_STATE_ACK_FWD and %NFHP_STATE_ACK_REV (state_tcp.c)
 * @ack: TCP: the highest acknowledgment number seen each way
 * @expire: the tick from which the state is dead
 * @rule: the rule that made it (&struct nfhp_state_rule.rule)
 * @rule_number: and its number
 * @verdict: what its packets get
 * @parent: the parent of its rule's limit, or NULL
 * @pkts: packets seen, forward and reverse
 * @bytes: bytes seen, forward and reverse
 *
 * The packet path writes @tcp with cmpxchg() and @ack, @expire and the
 * counters with WRITE_ONCE(), unlocked: two CPUs counting one flow at the
 * same instant may lose one count, as ipfw's states may.  The rest is
 * written once, before the state is published.
 */
struct nfhp_state {
	struct nfhp_state __rcu *next;
	struct rcu_head rcu;
	struct nfhp_state_key key;
	u32 hash;
	bool creator_reverse;
	u32 tcp;
	u32 ack[2];
	unsigned long expire;
	const void *rule;
	u32 rule_number;
	u32 verdict;
	struct nfhp_state_parent *parent;
	u64 pkts[2];
	u64 bytes[2];
};

#define NFHP_STATE_ACK_FWD	BIT(16)
#define NFHP_STATE_ACK_REV	BIT(17)

/**
 * struct nfhp_state_array - one array of buckets
 * @future: the bigger array a growth moves the states to, or NULL
 * @mask: the buckets, less one: a power of two less one
 * @head: the buckets, each a list of states under RCU
 *
 * A state's bucket is its hash & @mask in any array.
 */
struct nfhp_state_array {
	struct nfhp_state_array __rcu *future;
	u32 mask;
	struct nfhp_state __rcu *head[];
};

/**
 * struct nfhp_state_stats - what the table counted, for /proc
 * @created: states made
 * @expired: states the tick found dead and freed
 * @refused_max: states refused at @max_states
 * @refused_limit: states refused at their rule's limit
 * @refused_parents: states refused at @max_parents
 * @refused_nomem: states refused for want of memory
 */
struct nfhp_state_stats {
	atomic_long_t created;
	atomic_long_t expired;
	atomic_long_t refused_max;
	atomic_long_t refused_limit;
	atomic_long_t refused_parents;
	atomic_long_t refused_nomem;
};

/**
 * struct nfhp_state_table - the states of one namespace
 * @arr: the array of buckets lookups start from
 * @retired: an array a growth replaced, freed after its grace period
 * @retired_cookie: get_state_synchronize_rcu() when it was replaced
 * @grow_next: while @arr->future is set, the next bucket of @arr to move
 * @gc_next: the next bucket the tick expires
 * @locks: the writers' locks: bucket i of any array takes
 *	@locks[i & @lock_mask], so a growth keeps each state under its lock
 * @lock_mask: the locks, less one
 * @parents: the parents' buckets
 * @parent_locks: their locks, one per bucket
 * @parent_mask: the parents' buckets, less one
 * @count: the states linked, dead or alive
 * @parent_count: the parents
 * @seed: what the hashes mix in, chosen at init
 * @hz: ticks per second of the caller's clock
 * @lock: the mutex the caller serializes ticks, flushes and
 *	nfhp_state_set_bounds() with, for lockdep; NULL in tests
 * @tun: the settings
 * @mem: the account of the table's memory, the arrays of buckets included
 * @reserved: bytes reserved on @mem for @tun.max_states states and
 *	@tun.max_parents parents, which the packet path takes unlocked
 * @stats: what happened
 * @event: called with each state made (@made true) and each state
 *	unlinked (false), for the listeners of the glue; or NULL.  It runs
 *	where the state is made or unlinked: on the packet path, or under
 *	the bucket's lock with bottom halves off, and must not sleep.  A
 *	state it is given lives until the caller's RCU read side ends.
 * @event_arg: its first argument
 *
 * The packet path (nfhp_state_check(), nfhp_state_keep()) runs under
 * rcu_read_lock() with bottom halves off, any number at once.  Ticks,
 * flushes and nfhp_state_set_bounds() are serialized by the caller.
 */
struct nfhp_state_table {
	struct nfhp_state_array __rcu *arr;
	struct nfhp_state_array *retired;
	unsigned long retired_cookie;
	u32 grow_next;
	u32 gc_next;
	spinlock_t *locks;
	u32 lock_mask;
	struct nfhp_state_parent **parents;
	spinlock_t *parent_locks;
	u32 parent_mask;
	atomic_t count;
	atomic_t parent_count;
	u32 seed;
	u32 hz;
	struct mutex *lock;
	struct nfhp_state_tunables tun;
	struct nfhp_mem *mem;
	u64 reserved;
	struct nfhp_state_stats stats;
	void (*event)(void *arg, const struct nfhp_state *s, bool made);
	void *event_arg;
};

/**
 * struct nfhp_state_init - what a state made by hand starts with
 * @expire: the tick from which it is dead, after now
 * @tcp: TCP: its word, as &struct nfhp_state.tcp
 * @pkts: packets it counted, forward and reverse
 * @bytes: bytes, the same way
 */
struct nfhp_state_init {
	unsigned long expire;
	u32 tcp;
	u64 pkts[2];
	u64 bytes[2];
};

/**
 * struct nfhp_state_cursor - where a listing of the table stopped
 * @size: the buckets of the array it walks, or one more once it walked
 *	all of that array
 * @bucket: the next bucket to list
 * @mid: it stopped inside @bucket, before the state of @key
 * @moving: the array it walks grew while it did: the buckets it walked
 *	may have been moved on before it got there
 * @key: with @mid, the first state of @bucket to list
 *
 * Zeroed, it starts at the first bucket of the oldest array.
 */
struct nfhp_state_cursor {
	u32 size;
	u32 bucket;
	bool mid;
	bool moving;
	struct nfhp_state_key key;
};
/**
 * nfhp_state_serialized() - does the caller hold the table's writer mutex?
 * @t: the table
 *
 * For lockdep: ticks, flushes and nfhp_state_set_bounds() hold
 * @t->lock, which tests leave NULL.
 *
 * Return: true if it does, or if there is none to hold.
 */
static inline bool nfhp_state_serialized(const struct nfhp_state_table *t)
{
	return !t->lock || lockdep_is_held(t->lock);
}

/**
 * nfhp_state_lock() - the lock of the buckets of a hash
 * @t: the table
 * @h: the hash
 *
 * Bucket h & mask of any array is under this lock, since every array
 * has at least as many buckets as there are locks.
 *
 * Return: the lock.
 */
static inline spinlock_t *nfhp_state_lock(const struct nfhp_state_table *t,
					  u32 h)
{
	return &t->locks[h & t->lock_mask];
}

/* state_key.c */
void nfhp_state_pkt_init(struct nfhp_state_pkt *pkt,
			 const struct nfhp_state_tuple *tuple);
u32 nfhp_state_hash(const struct nfhp_state_table *t,
		    const struct nfhp_state_key *key);
bool nfhp_state_key_equal(const struct nfhp_state_key *a,
			  const struct nfhp_state_key *b);
void nfhp_state_tuple_mask(struct nfhp_state_tuple *out,
			   const struct nfhp_state_tuple *in, u8 mask);
void nfhp_state_addr_set(u32 *w, u8 family, nfhp_u128 v);
nfhp_u128 nfhp_state_addr_get(const u32 *w, u8 family);

/* state_tcp.c */
void nfhp_state_update(const struct nfhp_state_table *t, struct nfhp_state *s,
		       const struct nfhp_state_pkt *pkt, bool reverse,
		       unsigned long now);

/* state_limit.c */
int nfhp_state_parent_get(struct nfhp_state_table *t,
			  const struct nfhp_state_rule *rule,
			  const struct nfhp_state_pkt *pkt,
			  struct nfhp_state_parent **parent);
void nfhp_state_parent_put(struct nfhp_state_table *t,
			   struct nfhp_state_parent *p);
int nfhp_state_parents_init(struct nfhp_state_table *t, u32 buckets);
void nfhp_state_parents_free(struct nfhp_state_table *t);

/* state_table.c */
void nfhp_state_tunables_default(struct nfhp_state_tunables *tun);
int nfhp_state_table_init(struct nfhp_state_table *t, struct nfhp_mem *mem,
			  const struct nfhp_state_tunables *tun, u32 hz,
			  struct mutex *lock);
void nfhp_state_table_destroy(struct nfhp_state_table *t);
int nfhp_state_set_bounds(struct nfhp_state_table *t, u32 max_states,
			  u32 max_parents);
struct nfhp_state *nfhp_state_find(const struct nfhp_state_table *t,
				   const struct nfhp_state_key *key);
struct nfhp_state *nfhp_state_check(struct nfhp_state_table *t,
				    const struct nfhp_state_pkt *pkt,
				    unsigned long now);
int nfhp_state_keep(struct nfhp_state_table *t,
		    const struct nfhp_state_pkt *pkt,
		    const struct nfhp_state_rule *rule, unsigned long now,
		    struct nfhp_state **state);
bool nfhp_state_dead(const struct nfhp_state *s, unsigned long now);
void nfhp_state_unlink(struct nfhp_state_table *t, struct nfhp_state *s,
		       struct nfhp_state __rcu **link);
u32 nfhp_state_unlink_if(struct nfhp_state_table *t,
			 struct nfhp_state_array *a, u32 i,
			 bool (*pick)(const struct nfhp_state *s,
				      const void *arg),
			 const void *arg);
unsigned int nfhp_state_flush_if(struct nfhp_state_table *t,
				 bool (*pick)(const struct nfhp_state *s,
					      const void *arg),
				 const void *arg);
unsigned int nfhp_state_flush(struct nfhp_state_table *t, const void *rule);
int nfhp_state_add(struct nfhp_state_table *t,
		   const struct nfhp_state_pkt *pkt,
		   const struct nfhp_state_rule *rule,
		   const struct nfhp_state_init *init, unsigned long now);
int nfhp_state_delete(struct nfhp_state_table *t,
		      const struct nfhp_state_key *key, unsigned long now);
u32 nfhp_state_buckets(const struct nfhp_state_table *t);
u32 nfhp_state_buckets_bound(const struct nfhp_state_table *t);
struct nfhp_state_array *nfhp_state_array_new(struct nfhp_state_table *t,
					      u32 buckets);
void nfhp_state_array_free(struct nfhp_state_table *t,
			   struct nfhp_state_array *a);

/* state_gc.c */
void nfhp_state_tick(struct nfhp_state_table *t, unsigned long now,
		     u32 budget);
bool nfhp_state_growing(const struct nfhp_state_table *t);
u32 nfhp_state_growth_left(const struct nfhp_state_table *t);

/* state_walk.c */
int nfhp_state_walk(const struct nfhp_state_table *t,
		    struct nfhp_state_cursor *cur, unsigned long now,
		    int (*fn)(void *arg, const struct nfhp_state *s),
		    void *arg);

#endif /* _NFHP_STATE_H */
