/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the rule set's private header, shared by the files that make
 * up the rule set (see ruleset.c for the list).  ruleset.h is the API.
 */
#ifndef _NFHP_RULESET_PRIV_H
#define _NFHP_RULESET_PRIV_H

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "cand_index.h"
#include "counter.h"
#include "ext.h"
#include "rule_starts.h"
#include "group.h"
#include "lookup.h"
#include "match.h"
#include "mem.h"
#include "lower_bound.h"
#include "ruleset.h"
#include "scratch.h"
#include "pageseq.h"
#include "stats.h"
#include "tree.h"
#include "tunables.h"
/* Jumps deeper than this are refused; iptables has no smaller limit. */
#define NFHP_MAX_JUMP_DEPTH	64
/*
 * Order keys.  A flattening numbers entries from NFHP_ORDER_BASE in steps
 * of NFHP_ORDER_GAP and gives the policy NFHP_ORDER_POLICY, so that an
 * update finds room for new keys below the first entry (-I 1, again and
 * again) and above the last rule (-A), besides 32 halvings of the gap
 * between two neighbours; only then must it flatten afresh.  That is
 * room for 1.5 * 2^30 entries, far more than memory holds.
 */
#define NFHP_ORDER_GAP		BIT_ULL(32)
#define NFHP_ORDER_BASE		BIT_ULL(61)
#define NFHP_ORDER_POLICY	BIT_ULL(63)
/* Trees per hook: by wide or narrow source and destination. */
#define NFHP_GROUPS		NFHP_HOOK_TREES
/* More changed entries than this share of a hook's are rebuilt from scratch. */
#define NFHP_INCR_MAX_SHARE	16
/* How far the diff of old and new entries looks ahead for a match. */
#define NFHP_DIFF_WINDOW	64

static const char * const nfhp_hook_chain[NFHP_HOOK_MAX] = {
	[NFHP_HOOK_INPUT] = "INPUT",
	[NFHP_HOOK_FORWARD] = "FORWARD",
	[NFHP_HOOK_OUTPUT] = "OUTPUT",
};

/**
 * struct nfhp_rule - an immutable rule
 * @body: its boxes and what the user wrote (nfhp_rule_body_new())
 * @cnt: its counters
 * @gen: the transaction that created it
 * @written: the dimensions its specification names, restricting them or
 *	not ("--ctstate" with every state restricts nothing, yet iptables
 *	turns conntrack on for it)
 * @action: &enum nfhp_action
 * @ext_match: it has matches the tree does not know (@ext), checked at
 *	packet time
 * @ext_hooks: the hooks its extensions are valid at, as bits
 * @adopt: while a commit adopts rules (nfhp_adopt()): on a committed rule,
 *	the transaction removed it and a duplicate may take it back; on a
 *	created one, it is a duplicate that gave way to a committed rule
 * @state: &enum nfhp_rstate_mode: a keep-state rule (its handle @ext
 *	makes the states) or a check-state rule
 * @target_hash: nfhp_name_hash() of @target, so that a commit's many
 *	lookups of jump targets hash no name (nfhp_chain_target())
 * @ext: the evaluator's handle of its extensions, or NULL
 * @target: chain of a jump or goto
 */
struct nfhp_rule {
	struct nfhp_rule_body body;
	struct nfhp_rcounter *cnt;
	u32 gen;
	u16 written;
	u8 action;
	u8 ext_match;
	u8 ext_hooks;
	u8 adopt;
	u8 state;
	u32 target_hash;
	void *ext;
	char target[NFHP_CHAIN_NAME_LEN];
};

/* 100,000 rules: a larger rule would take the next kmalloc bucket. */
static_assert(sizeof(struct nfhp_rule) <= 96);

/**
 * struct nfhp_chain - a chain of one model
 * @name: its name
 * @hook: the hook of a built-in chain, -1 for a user chain
 * @policy: the policy of a built-in chain
 * @rs: the rule set it belongs to
 * @gen: the transaction that created this copy
 * @hash: nfhp_name_hash() of @name
 * @mark: scratch for walks over the models
 * @nbranch: rules that jump, goto or return; without them the chain's
 *	entries are its rules, one to one, and commits take a short cut
 * @njump: rules that jump or goto: without them no other chain is
 *	reached from this one, and walks over the jumps need not read it
 * @same_head: in a staged copy, how many of its first rules are the
 *	committed chain's first ones, untouched by the transaction
 * @same_tail: the same for its last rules; in a chain that is not a
 *	staged copy both are 0, or stale and true, for it is the committed
 *	chain then
 * @rules: the rules in order, in pages that a staged copy shares with the
 *	committed chain (pageseq.c)
 * @from: for a staged copy, the committed chain it was copied from, whose
 *	pages of rules it takes over at the commit (nfhp_pageseq_succeed())
 * @state_mark: @holds_state is known for the commit whose
 *	&struct nfhp_ruleset.state_mark this is
 * @holds_state: the chain, or a chain it reaches, has a keep-state or
 *	check-state rule (nfhp_chain_holds_state())
 */
struct nfhp_chain {
	char name[NFHP_CHAIN_NAME_LEN];
	int hook;
	u8 policy;
	const struct nfhp_ruleset *rs;
	u32 gen;
	u32 hash;
	u32 mark;
	unsigned int nbranch;
	unsigned int njump;
	unsigned int same_head;
	unsigned int same_tail;
	struct nfhp_pageseq rules;
	struct nfhp_chain *from;
	u32 state_mark;
	bool holds_state;
};

/**
 * struct nfhp_chain_slot - a slot of the hash table of chain names
 * @hash: nfhp_name_hash() of the chain's name
 * @idx: its index in the model's chains plus one; 0 for a free slot
 * @gen: the chain's @gen
 * @njump: the chain's @njump
 *
 * @gen and @njump tell a commit whether a jump's chain changed without
 * reading the chain (nfhp_target_stable()); nfhp_chain_note() keeps them.
 */
struct nfhp_chain_slot {
	u32 hash;
	u32 idx;
	u32 gen;
	u32 njump;
};

/**
 * struct nfhp_model - the chains of a rule set
 * @n: chains
 * @cap: room in @chains
 * @chains: built-in chains in hook order, then user chains by name
 * @slot: a hash table of the chains' names: each chain in the slot its
 *	name hashes to or, on collision, the next free one
 * @nslot: slots in @slot, a power of two
 * @hashed: @slot holds the chains as they are; else they are searched
 * @unique: no two chains' names have the same hash
 *
 * A commit looks up the target of every jump it reaches, 5,000 of them on
 * a Kubernetes node whose chain names share a long prefix, and a binary
 * search of them cost strcmp() a dozen times each: most of a one-rule
 * commit.  So the commit hashes the names (nfhp_model_hash()); a change
 * of the chains between commits clears @hashed.  A jump's target is a
 * chain of the model (one still jumped to cannot be deleted), so with
 * @unique its hash alone finds it (nfhp_chain_target()): the lookups then
 * read no chain, which were 40 % of such a commit.
 */
struct nfhp_model {
	unsigned int n;
	unsigned int cap;
	struct nfhp_chain **chains;
	struct nfhp_chain_slot *slot;
	unsigned int nslot;
	bool hashed;
	bool unique;
};

/**
 * struct nfhp_hook_tables - what the packet path reads of one hook
 * @root: the trees, one per group of entries, NULL for an empty group (at
 *	least one tree per hook exists)
 * @seq: the trees in the order a lookup visits them: by the first entry
 *	they hold, so that the later ones can often be skipped; those of the
 *	width groups ([0]), then those of the hotdrop entries ([1]), which
 *	only keys that nfhp_key_hot() finds visit (group.c, "Short headers")
 * @ntrees: trees in @seq
 * @policy: the policy
 * @entries: the flattened entries in order, for the rare walk that must
 *	go on without the trees (nfhp_classify_linear()): a copy of the
 *	hook's sequence, whose table and pages do not change while it is
 *	published
 * @state_order: the order of the hook's first keep-state or check-state
 *	entry, its check point (classify.c, "The check point"); U64_MAX
 *	when it has none
 */
struct nfhp_hook_tables {
	struct nfhp_node *root[NFHP_GROUPS];
	const struct nfhp_node *seq[2][NFHP_WIDTH_TREES];
	u8 ntrees[2];
	u8 policy;
	struct nfhp_pageseq entries;
	u64 state_order;
};

/**
 * struct nfhp_tables - what the packet path reads, published at once
 * @hooks: the trees, policy and entries of each hook
 *
 * A hook's entries are split into groups by how wide their source and
 * destination addresses are (group.c), and each group gets its own tree:
 * rules that are wildcards in one address would otherwise be copied under
 * every interval of the other, the cross-product that made nf-hipac's
 * memory explode.  A packet is looked up in
 * the trees of its hook and the earliest deciding entry wins, as
 * nf-hipac's multi-path lookup did for its wildcard children; branch and
 * bound skips the trees that cannot win.
 */
struct nfhp_tables {
	struct nfhp_hook_tables hooks[NFHP_HOOK_MAX];
};

/**
 * struct nfhp_flat - the flattened entries of one hook
 * @e: the entries in order, their number @e.n; an update's entries share
 *	the committed ones' pages where it keeps whole pages of them
 *	(nfhp_flat_keep())
 * @sum: for each entry of @e, its summary, when @summed; the tag of each
 *	entry in @e is its group (entry->group), read without the entry
 * @from: while a transaction builds the entries, for each entry of @e the
 *	index of the same entry among the hook's committed ones, or -1 for
 *	an entry of its own; rises where it is not -1.  NULL: see @own.
 * @from_cap: room in @from
 * @own: with @from NULL, the positions of the entries of its own, all
 *	others being the committed ones carried over (an update that
 *	walked the chains, which knows them without a pass over all
 *	entries, nfhp_update_rules()); NULL with @from NULL: all are its
 *	own
 * @nown: positions in @own
 * @own_cap: room in @own
 * @gone: with @own, the committed entries it does not carry over, for
 *	the release
 * @ngone: entries in @gone
 * @cap: room in @sum
 * @summed: @sum is kept: the entries of a chain with jumps flattened
 *	afresh, whose updates scan the summaries; nfhp_update_rules()
 *	finds its candidates in the index (cand_index.h) and copies none
 * @rekeys: some entry runs an xtables target, which may change the
 *	packet and go on (nfhp_classify_linear()), or did before an
 *	update removed it: updates carry it over
 * @voids: some entry is %NFHP_ENTRY_VOID
 * @skips: some entry may skip later ones: a RETURN, or a jump decided at
 *	packet time (@scope_end set)
 * @staged: the entries live in the forest's scratch memory, from @mark on,
 *	until nfhp_flat_settle()
 * @fold: the width classes folded in grouping the entries (group.h); an
 *	update takes that of the committed entries
 * @state_seen: an entry of a keep-state or check-state rule was added
 * @state_dropped: flattening dropped a keep-state or check-state rule,
 *	or a jump to a chain holding one, that no packet reaches where it
 *	stands.  A walking update gives up on such entries: it carries
 *	entries over, not what was dropped between them.
 * @ghost: the first of those came before any entry of a state rule:
 *	the check point is before entry @ghost_at at the latest
 *	(nfhp_state_order())
 * @ghost_at: with @ghost, the index of the entry after the dropped rule
 * @mark: where the staged entries start
 */
struct nfhp_flat {
	struct nfhp_pageseq e;
	struct nfhp_entry_sum *sum;
	int *from;
	unsigned int from_cap;
	unsigned int *own;
	unsigned int nown;
	unsigned int own_cap;
	struct nfhp_entry **gone;
	unsigned int ngone;
	unsigned int cap;
	bool summed;
	bool rekeys;
	bool voids;
	bool skips;
	bool staged;
	u8 fold;
	bool state_seen;
	bool state_dropped;
	bool ghost;
	unsigned int ghost_at;
	struct nfhp_scratch_mark mark;
};

/**
 * struct nfhp_scoped_entry - a committed entry that skips, and its end
 * @e: the entry
 * @hi: the key of the first committed entry at or after its @scope_end:
 *	the scope stays as it is while no entry keyed from @e's key to
 *	this one comes or goes
 */
struct nfhp_scoped_entry {
	struct nfhp_entry *e;
	u64 hi;
};

/**
 * struct nfhp_scoped - the committed entries of a hook that skip
 * @e: the entries, in no order
 * @n: entries in @e
 * @cap: room in @e
 * @valid: @e holds exactly the hook's committed entries that skip
 *
 * An update that walked the chains sets the scope ends anew near the
 * entries that came only (nfhp_scopes_near()), from these: a RETURN atop
 * a chain or a jump decided at packet time, a quarter of the entries on
 * a Kubernetes node whose service chains return early.  Like the
 * candidate index, they are kept from one commit to the next, and found
 * again by a pass over all entries after a rebuild.
 */
struct nfhp_scoped {
	struct nfhp_scoped_entry *e;
	unsigned int n;
	unsigned int cap;
	bool valid;
};

/**
 * struct nfhp_flat_frame - a chain being flattened, in the stack of jumps
 * @rules: its rules, or NULL at the bottom, where @one is the rule
 * @one: the rule flattened at the bottom of the stack
 * @n: rules
 * @i: the rule being flattened
 * @prefix: what the jumps that lead to the chain match, or NULL
 * @jump: the entry of the jump into the chain; unused at the bottom
 * @start: the chain's first entry
 * @flags: flags of the chain's entries, as the jumps to it set them
 * @step: what of rule @i is flattened next
 */
struct nfhp_flat_frame {
	const struct nfhp_pageseq *rules;
	const struct nfhp_rule *one;
	unsigned int n;
	unsigned int i;
	const struct nfhp_box *prefix;
	struct nfhp_entry *jump;
	unsigned int start;
	u8 flags;
	u8 step;
};

/**
 * struct nfhp_delta - where an update that walked the chains changed entries
 * @added: positions in the new entries of those the transaction added,
 *	rising (the new entries' @own)
 * @nadded: entries in @added
 * @added_cap: room in @added
 * @removed: indices in the old entries of those it dropped, rising
 * @nremoved: entries in @removed
 * @cap: room in @removed
 *
 * nfhp_reflatten_hook() sees them as it walks the chains, so that the
 * passes after it need not look for them among a hundred thousand
 * entries of @match (nfhp_flat_orders(), nfhp_update_trees()).
 */
struct nfhp_delta {
	unsigned int *added;
	unsigned int nadded;
	unsigned int added_cap;
	unsigned int *removed;
	unsigned int nremoved;
	unsigned int cap;
};

/**
 * struct nfhp_rule_list - rules a transaction created or removed
 * @r: the rules
 * @n: rules
 * @cap: room in @r
 */
struct nfhp_rule_list {
	struct nfhp_rule **r;
	unsigned int n;
	unsigned int cap;
};

/**
 * struct nfhp_counter_write - counters a transaction set, for its publish
 * @c: the counter
 * @val: its totals from then on
 */
struct nfhp_counter_write {
	struct nfhp_rcounter *c;
	struct nfhp_counter val;
};

/**
 * struct nfhp_where - where a committed rule stands
 * @rule: the rule, NULL for a free slot
 * @chain: its chain
 * @pos: its 1-based position there
 */
struct nfhp_where {
	const struct nfhp_rule *rule;
	const struct nfhp_chain *chain;
	unsigned int pos;
};

/**
 * struct nfhp_release_hook - what a commit replaced of one hook
 * @flat: the replaced entries, as the replaced tables published them
 * @kept: the @from of the entries that replaced @flat: which of them they
 *	carried over; nfhp_flat_free_replaced() frees the others
 * @nkept: the number of entries in @kept
 * @kept_cap: the room in @kept
 * @gone: the replaced entries to free when the entries that replaced
 *	@flat carried the others over without @kept (struct nfhp_flat's
 *	@gone), else NULL
 * @ngone: entries in @gone
 */
struct nfhp_release_hook {
	struct nfhp_flat flat;
	int *kept;
	unsigned int nkept;
	unsigned int kept_cap;
	struct nfhp_entry **gone;
	unsigned int ngone;
};

/**
 * struct nfhp_release - what a commit replaced, freed once no packet sees it
 * @next: the record of the next commit
 * @cookie: get_state_synchronize_rcu() when the new tables were published
 * @tables: the replaced tables
 * @hooks: per hook, the replaced entries and which of them to free
 * @rules: the rules the transaction removed
 * @chains: the chains only the replaced model had
 * @nchains: entries of @chains
 * @model: the replaced model, or NULL
 *
 * What to free is decided at the commit, against the model and entries
 * it published; later commits have records of their own.  The replaced
 * entries and their pages are not touched before the grace period: a
 * packet may still walk them (nfhp_classify_linear()).
 */
struct nfhp_release {
	struct nfhp_release *next;
	unsigned long cookie;
	struct nfhp_tables *tables;
	struct nfhp_release_hook hooks[NFHP_HOOK_MAX];
	struct nfhp_rule_list rules;
	struct nfhp_chain **chains;
	unsigned int nchains;
	struct nfhp_model *model;
};

/**
 * struct nfhp_spare - big arrays that commits freed, kept for the next one
 * @flat: a summary array (@sum of @cap entries) on the rule set's
 *	account; its other members are unused
 * @ints: an array of @ints_cap ints for a struct nfhp_flat's @from, the
 *	one int array of a hook's size a commit takes, or NULL
 * @ints_cap: room in @ints
 *
 * A commit that flattens a hook afresh (a chain with jumps changed)
 * replaces arrays of the hook's size, megabytes at 100,000 rules; a
 * single-rule update of a chain without jumps copies pages of entries
 * instead (struct nfhp_flat).  Taking them anew at every commit is
 * vmalloc() page by page and a TLB
 * flush at free in the kernel, and page faults in userspace; under TCG
 * every other vmalloc() of an int array of the hook's size took 40 ms
 * more, purging the lazily freed areas.  So arrays are taken with room
 * to grow (nfhp_roomy()), and what a commit did not take is freed at its
 * end (nfhp_spare_trim()), so that the arrays of a flushed chain do not
 * stay.
 */
struct nfhp_spare {
	struct nfhp_flat flat;
	int *ints;
	unsigned int ints_cap;
};

/**
 * struct nfhp_hook_state - the state a rule set keeps for one hook
 * @flat: the entries the published trees were built from
 * @policy_cnt: the counter of the policy
 * @cands: the index of the committed entries that an update that walked
 *	the chains finds its candidates with, built at the first such update
 *	(cand_index.h)
 * @scoped: the committed entries that skip, for such updates
 * @rule_starts: where each rule of the built-in chain begins among the
 *	committed entries, for such updates (rule_starts.h)
 * @fold_age: commits since the fold was last chosen
 */
struct nfhp_hook_state {
	struct nfhp_flat flat;
	struct nfhp_rcounter policy_cnt;
	struct nfhp_cand_index cands;
	struct nfhp_scoped scoped;
	struct nfhp_rule_starts rule_starts;
	unsigned int fold_age;
};

/**
 * struct nfhp_spare_seen - which spare arrays a commit found
 * @sum: the summary array's
 * @ints: the int array's
 *
 * Only the addresses: a copy of the spares would cost the commit's stack
 * frame, under which the tree build recurses.
 */
struct nfhp_spare_seen {
	const struct nfhp_entry_sum *sum;
	const int *ints;
};

/**
 * struct nfhp_prepared - a commit built and not yet published (txn.c)
 * @t: the tables it built, NULL when none is prepared
 * @rel: the record of what it replaces
 * @old: the model it replaces
 * @dirty: the hooks it built anew, as bits
 * @stale: the spare arrays there were before it
 */
struct nfhp_prepared {
	struct nfhp_tables *t;
	struct nfhp_release *rel;
	struct nfhp_model *old;
	unsigned int dirty;
	struct nfhp_spare_seen stale;
};

/**
 * struct nfhp_ruleset - the rule set of a network namespace
 * @mem: its memory account
 * @family: its &enum nfhp_family, IPv4 or IPv6
 * @lock: the mutex its caller serializes it with, for lockdep, or NULL
 *	(nfhp_ruleset_set_lock())
 * @forest: the nodes of its trees
 * @live: the committed model
 * @work: the staged model, NULL outside a transaction
 * @gen: generation of the open or last transaction
 * @mark: generation of walks over the models
 * @created: rules the open transaction created
 * @removed: committed rules the open transaction removed
 * @writes: the counters the open transaction set (a policy's "[p:b]",
 *	-Z, a rule taken back by nfhp_adopt()), in order, for the publish
 * @nwrites: entries in @writes
 * @writes_cap: room in @writes
 * @dups: while a commit runs, the created rules nfhp_adopt() replaced
 * @tables: the published trees
 * @hooks: the state of each hook
 * @cpool: where the rules' counters come from
 * @ext_ops: the evaluator of rules' extensions, or NULL
 * @ext_priv: its first argument
 * @nbound: rules alive whose extensions are valid at some hooks only
 *	(nfhp_rule.ext_hooks): while there are any, a commit checks that no
 *	user chain holding one is reached from another hook
 * @nstate: rules alive that are keep-state or check-state: without any,
 *	a commit looks for no check point
 * @state_mark: counts the commits, for &struct nfhp_chain.holds_state
 * @any: a box that matches everything, for the policies
 * @where: where each committed rule stands, built when first asked
 *	(nfhp_rule_locate()), dropped at every commit; NULL when not built
 * @where_mask: slots of @where less one
 * @releases: what commits replaced, oldest first, waiting for the grace
 *	periods after them (nfhp_ruleset_release())
 * @releases_tail: where the next record goes
 * @defer_release: a commit leaves its record for nfhp_ruleset_release();
 *	otherwise it waits for the grace period and frees it
 * @spare: arrays the released records left for the next commit
 * @staged: while a commit runs, the new entries of each hook; here and
 *	not on the commit's stack, under which the tree build recurses
 * @flattened: entries the last commit flattened, for all hooks: those
 *	an update carried over are not counted
 * @flat_bound: while a commit runs, the entries a hook may have
 *	(%NFHP_FLAT_PER_RULE)
 * @updates_given_up: tree updates that ran out of visits, the trees then
 *	built anew (nfhp_group_rebuild())
 * @jumps: the stack of chains a flatten is in (nfhp_flatten_rule()), and
 *	one frame more for the jump it may be about to make
 * @jumps_added: the open transaction added a jump or goto: its commit
 *	looks for a loop of jumps (nfhp_check_loops())
 * @stable: while a commit runs, for each chain of the staged model
 *	whether it and the chains it reaches are the committed ones
 *	(nfhp_chain_stable()), or NULL without memory
 * @prepared: a commit nfhp_txn_prepare() built, waiting for
 *	nfhp_txn_finish() or nfhp_txn_unprepare()
 */
struct nfhp_ruleset {
	struct nfhp_mem mem;
	u8 family;
	struct mutex *lock;	/* see nfhp_ruleset_set_lock() */
	struct nfhp_forest forest;
	struct nfhp_model *live;
	struct nfhp_model *work;
	u32 gen;
	u32 mark;
	struct nfhp_rule_list created;
	struct nfhp_rule_list removed;
	struct nfhp_counter_write *writes;
	unsigned int nwrites;
	unsigned int writes_cap;
	struct nfhp_rule_list dups;
	struct nfhp_tables __rcu *tables;
	struct nfhp_hook_state hooks[NFHP_HOOK_MAX];
	struct nfhp_cpool cpool;
	const struct nfhp_ext_ops *ext_ops;
	void *ext_priv;
	unsigned int nbound;
	unsigned int nstate;
	u32 state_mark;
	struct nfhp_box any;
	struct nfhp_where *where;
	u32 where_mask;
	struct nfhp_release *releases;
	struct nfhp_release **releases_tail;
	bool defer_release;
	struct nfhp_spare spare;
	struct nfhp_flat staged[NFHP_HOOK_MAX];
	unsigned int flattened;
	unsigned int flat_bound;
	u64 updates_given_up;
	struct nfhp_flat_frame jumps[NFHP_MAX_JUMP_DEPTH + 2];
	bool jumps_added;
	u8 *stable;
	struct nfhp_prepared prepared;
};

/**
 * struct nfhp_cands - how an update that walked the chains finds candidates
 * @idx: the index of the hook's committed entries
 * @removed: the committed entries the update removes, by address
 * @nremoved: entries in @removed
 * @d: the entries it adds, among those of @fl
 * @fl: the new entries
 */
struct nfhp_cands {
	const struct nfhp_cand_index *idx;
	const struct nfhp_entry **removed;
	unsigned int nremoved;
	const struct nfhp_delta *d;
	const struct nfhp_flat *fl;
};

/* Entry @i of @fl. */
static inline struct nfhp_entry *nfhp_flat_at(const struct nfhp_flat *fl,
					      unsigned int i)
{
	return nfhp_pageseq_get(&fl->e, i);
}

/*
 * Room for @n elements of a big array that grows or shrinks by a few at
 * each commit: an eighth more, so that the next commit's fits the spare.
 */
static inline unsigned int nfhp_roomy(unsigned int n)
{
	return n + n / 8 + 8;
}

/* Does @r leave the straight path through its chain? */
static inline bool nfhp_rule_jumps(const struct nfhp_rule *r)
{
	return r->action == NFHP_ACT_JUMP || r->action == NFHP_ACT_GOTO;
}

static inline bool nfhp_rule_branches(const struct nfhp_rule *r)
{
	return nfhp_rule_jumps(r) || r->action == NFHP_ACT_RETURN;
}

/* Rule @i of @c, counted from 0. */
static inline struct nfhp_rule *nfhp_chain_at(const struct nfhp_chain *c,
					      unsigned int i)
{
	return nfhp_pageseq_get(&c->rules, i);
}

static inline const struct nfhp_model *nfhp_view(const struct nfhp_ruleset *rs)
{
	return rs->work ? rs->work : rs->live;
}

/**
 * nfhp_tables_held() - the published tables, for the rule set's writer
 * @rs: the rule set, its @lock held
 *
 * Every caller but the packet path holds the mutex that serializes @rs,
 * and lockdep checks it does.  Before the caller names its mutex (a rule
 * set being made, or one no one else reaches), @rs is the caller's alone.
 *
 * Return: the tables packets read.
 */
static inline struct nfhp_tables *
nfhp_tables_held(const struct nfhp_ruleset *rs)
{
	return rcu_dereference_protected(rs->tables,
					 !rs->lock || lockdep_is_held(rs->lock));
}

/*
 * Groups are independent only while no entry skips others: with a RETURN
 * (or a goto) the hook keeps one tree.
 */
static inline bool nfhp_flat_groupable(const struct nfhp_flat *fl)
{
	return !fl->skips && !nfhp_tunables.one_tree;
}

/* ruleset.c */
void nfhp_hook_indexes_clear(struct nfhp_ruleset *rs, int h);
int nfhp_grow(struct nfhp_mem *mem, void **arr, unsigned int *cap,
	      unsigned int need, size_t size);
int nfhp_list_add(struct nfhp_mem *mem, struct nfhp_rule_list *l,
		  struct nfhp_rule *r);
int nfhp_list_reserve(struct nfhp_mem *mem, struct nfhp_rule_list *l,
		      unsigned int more);
void nfhp_list_free(struct nfhp_mem *mem, struct nfhp_rule_list *l);

/* chain.c */
u32 nfhp_name_hash(const char *name);
void nfhp_rule_free(struct nfhp_ruleset *rs, struct nfhp_rule *r);
unsigned int nfhp_chain_hooks(struct nfhp_ruleset *rs,
			      const struct nfhp_chain *c,
			      const struct nfhp_rule_spec *spec);
int nfhp_rule_new(struct nfhp_ruleset *rs,
		  const struct nfhp_rule_spec *spec, unsigned int hooks,
		  const struct nfhp_counter *counters,
		  struct nfhp_rule **out, const char **msg);
void nfhp_chain_free(struct nfhp_ruleset *rs, struct nfhp_chain *c);
struct nfhp_chain *nfhp_chain_alloc(struct nfhp_ruleset *rs,
				    const char *name, int hook);
void nfhp_model_free(struct nfhp_ruleset *rs, struct nfhp_model *m);
struct nfhp_model *nfhp_model_copy(struct nfhp_ruleset *rs,
				   const struct nfhp_model *from);
void nfhp_model_hash(struct nfhp_ruleset *rs, struct nfhp_model *m);
unsigned int nfhp_chain_place(const struct nfhp_model *m,
			      const char *name);
int nfhp_chain_index(const struct nfhp_model *m, const char *name);
const struct nfhp_chain_slot *
nfhp_target_slot(const struct nfhp_model *m, const struct nfhp_rule *r);
int nfhp_chain_target_at(const struct nfhp_model *m,
			 const struct nfhp_rule *r,
			 const struct nfhp_chain_slot *slot);
int nfhp_chain_target(const struct nfhp_model *m,
		      const struct nfhp_rule *r);
void nfhp_chain_note(struct nfhp_model *m, const struct nfhp_chain *c);
struct nfhp_chain *nfhp_chain_work(struct nfhp_ruleset *rs,
				   const char *name, const char **msg);
struct nfhp_chain *nfhp_chain_mut(struct nfhp_ruleset *rs,
				  const char *name, const char **msg);
void nfhp_chains_succeed(struct nfhp_ruleset *rs);
void nfhp_chain_touched(struct nfhp_chain *c, unsigned int head,
			unsigned int tail);
void nfhp_rule_retire(struct nfhp_ruleset *rs, struct nfhp_rule *r);
int nfhp_reach(struct nfhp_ruleset *rs, const struct nfhp_model *m,
	       struct nfhp_chain *c, unsigned int depth);
int nfhp_check_jump(struct nfhp_ruleset *rs,
		    const struct nfhp_rule_spec *spec, const char **msg);
int nfhp_check_loops(struct nfhp_ruleset *rs, const char **msg);
void nfhp_where_drop(struct nfhp_ruleset *rs);

/* edit.c */
unsigned int nfhp_model_refs(const struct nfhp_model *m,
			     const char *name);

/* adopt.c */
int nfhp_u64_cmp(const void *a, const void *b);
void nfhp_adopt(struct nfhp_ruleset *rs);
void nfhp_adopt_end(struct nfhp_ruleset *rs, bool published);

/* flat.c */
void nfhp_flat_recycle(struct nfhp_ruleset *rs, struct nfhp_flat *fl);
void nfhp_spare_see(const struct nfhp_ruleset *rs,
		    struct nfhp_spare_seen *seen);
void nfhp_spare_trim(struct nfhp_ruleset *rs,
		     const struct nfhp_spare_seen *stale);
int *nfhp_ints_alloc(struct nfhp_ruleset *rs, unsigned int n,
		     unsigned int *cap);
void nfhp_ints_free(struct nfhp_ruleset *rs, int *p, unsigned int cap);
void nfhp_entry_free(struct nfhp_ruleset *rs,
		     const struct nfhp_flat *fl, struct nfhp_entry *e);
void nfhp_flat_free_delta(struct nfhp_ruleset *rs, struct nfhp_flat *fl);
void nfhp_flat_free(struct nfhp_ruleset *rs, struct nfhp_flat *fl);
void nfhp_flat_stage(struct nfhp_ruleset *rs, struct nfhp_flat *fl);
int nfhp_flat_settle(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		     const struct nfhp_flat *old, const int *match);
int nfhp_flatten_rule(struct nfhp_ruleset *rs,
		      const struct nfhp_model *m, struct nfhp_flat *fl,
		      const struct nfhp_rule *r,
		      const struct nfhp_box *prefix, unsigned int depth,
		      u8 flags);
int nfhp_flatten_hook(struct nfhp_ruleset *rs,
		      const struct nfhp_model *m, enum nfhp_hook hook,
		      struct nfhp_flat *fl);

/* scope.c */
unsigned int nfhp_flat_lower_from(const struct nfhp_flat *fl,
				  unsigned int from, u64 order);
int nfhp_flat_scopes(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		     const struct nfhp_flat *old, struct nfhp_delta *d,
		     int h);

/* update.c */
int nfhp_update_matched(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			const int *match, struct nfhp_delta *d,
			struct nfhp_cands *cx,
			unsigned int changes,
			const struct nfhp_tables *cur,
			struct nfhp_tables *t, int h);
int nfhp_update_hook(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		     const struct nfhp_tables *cur,
		     struct nfhp_tables *t, int h);

/* reflatten.c */
bool nfhp_rebuild_certain(const struct nfhp_ruleset *rs, int h);
int nfhp_update_rules(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		      const struct nfhp_tables *cur, struct nfhp_tables *t,
		      int h);

/* txn.c */
int nfhp_counter_write(struct nfhp_ruleset *rs, struct nfhp_rcounter *c,
		       const struct nfhp_counter *val);
bool nfhp_target_stable(const struct nfhp_ruleset *rs, u8 *stable,
			const struct nfhp_rule *r, unsigned int depth);

/* release.c */
struct nfhp_release *nfhp_release_new(struct nfhp_ruleset *rs,
				      const struct nfhp_model *old);
void nfhp_release_fill(struct nfhp_ruleset *rs,
		       struct nfhp_release *rel, struct nfhp_model *old,
		       struct nfhp_tables *old_tables,
		       struct nfhp_flat *old_flat);
void nfhp_hook_trees_drop(struct nfhp_ruleset *rs,
			  struct nfhp_tables *t, int h);
void nfhp_tables_put(struct nfhp_ruleset *rs, struct nfhp_tables *t);

/* classify.c */
unsigned int nfhp_entries_lower_bound(const struct nfhp_pageseq *s,
				      unsigned int lo, unsigned int hi,
			       u64 order);

#endif /* _NFHP_RULESET_PRIV_H */
