// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the rule set of one network namespace: chains, rules,
 * transactions, flattening into per-hook entries, publication.
 *
 * The rule set is kept twice while a transaction is open: the committed
 * model ("live") and the staged one ("work").  They share every chain that
 * the transaction has not touched; a chain is copied the first time a
 * transaction changes it (its @gen is then the transaction's).  Rules are
 * immutable and shared.  A commit flattens and compiles only the hooks that
 * can reach a changed chain and publishes all trees with one pointer swap.
 * What the old trees and the old model alone used is picked then, into a
 * record (struct nfhp_release), and freed a grace period later: at once,
 * waiting for it, or, in the kernel, by a work item (pernet.c), so that a
 * commit does not wait several scheduler ticks for the packets still in
 * the old trees.  An abort frees what the transaction alone created.
 *
 * A hook is flattened into scratch memory first when it had entries: those
 * equal to an entry of the last commit are not allocated again but kept
 * (nfhp_flat_settle()), so a one-rule change in a user chain of 10,000
 * rules allocates a few dozen blocks, not 20,000.
 */
#include <linux/bsearch.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "candidx.h"
#include "counter.h"
#include "ext.h"
#include "firsts.h"
#include "group.h"
#include "lookup.h"
#include "match.h"
#include "rank.h"
#include "ruleset.h"
#include "seq.h"
#include "stats.h"
#include "tree.h"

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
#define NFHP_ORDER_GAP		(1ull << 32)
#define NFHP_ORDER_BASE		(1ull << 61)
#define NFHP_ORDER_POLICY	(1ull << 63)
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
 *	committed chain (seq.c)
 * @from: for a staged copy, the committed chain it was copied from, whose
 *	pages of rules it takes over at the commit (nfhp_seq_succeed())
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
	struct nfhp_seq rules;
	struct nfhp_chain *from;
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
 * struct nfhp_tables - what the packet path reads, published at once
 * @root: the trees of each hook, one per group of entries, NULL for an
 *	empty group (at least one tree per hook exists)
 * @seq: the trees of each hook in the order a lookup visits them: by the
 *	first entry they hold, so that the later ones can often be skipped;
 *	those of the width groups ([0]), then those of the hotdrop entries
 *	([1]), which only keys that nfhp_key_hot() finds visit (group.c,
 *	"Short headers")
 * @ntrees: trees in @seq of each hook
 * @policy: the policy of each hook
 * @entries: the flattened entries of each hook in order, for the rare walk
 *	that must go on without the trees (nfhp_classify_linear()): a copy
 *	of the hook's sequence, whose table and pages do not change while
 *	it is published
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
	struct nfhp_node *root[NFHP_HOOK_MAX][NFHP_GROUPS];
	const struct nfhp_node *seq[NFHP_HOOK_MAX][2][NFHP_WIDTH_TREES];
	u8 ntrees[NFHP_HOOK_MAX][2];
	u8 policy[NFHP_HOOK_MAX];
	struct nfhp_seq entries[NFHP_HOOK_MAX];
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
 *	finds its candidates in the index (candidx.h) and copies none
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
 * @mark: where the staged entries start
 */
struct nfhp_flat {
	struct nfhp_seq e;
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
	struct nfhp_scratch_mark mark;
};

/* Entry @i of @fl. */
static struct nfhp_entry *nfhp_flat_at(const struct nfhp_flat *fl,
				       unsigned int i)
{
	return nfhp_seq_get(&fl->e, i);
}

/*
 * Where @order falls among the entries [@lo, @hi) of @s, their orders
 * rising, as nfhp_entry_rank(): a search of the pages by their first
 * entries, then one of a page.
 */
static unsigned int nfhp_entries_rank(const struct nfhp_seq *s,
				      unsigned int lo, unsigned int hi,
				      u64 order)
{
	const struct nfhp_entry *const *p;
	const struct nfhp_seq_slot *slot;
	u32 a, b, k, from, to;

	if (lo >= hi)
		return lo;
	a = nfhp_seq_find(s, lo);
	b = nfhp_seq_find(s, hi - 1);
	/* The last page from @a on whose first entry comes before @order. */
	while (a < b) {
		k = a + (b - a + 1) / 2;
		p = (const struct nfhp_entry *const *)s->slot[k].page->p;
		if (p[0]->order < order)
			a = k;
		else
			b = k - 1;
	}
	slot = &s->slot[a];
	p = (const struct nfhp_entry *const *)slot->page->p;
	from = max(lo, slot->start) - slot->start;
	to = min(hi, slot->start + (u32)slot->page->n) - slot->start;
	return slot->start + nfhp_entry_rank(p, from, to, order);
}

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
	const struct nfhp_seq *rules;
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
 * struct nfhp_release - what a commit replaced, freed once no packet sees it
 * @next: the record of the next commit
 * @cookie: get_state_synchronize_rcu() when the new tables were published
 * @tables: the replaced tables
 * @flat: per hook, the replaced entries, as @tables published them
 * @kept: per hook, the @from of the entries that replaced @flat: which of
 *	them they carried over; nfhp_flat_free_replaced() frees the others
 * @nkept: per hook, the number of entries in @kept
 * @kept_cap: per hook, the room in @kept
 * @gone: per hook, the replaced entries to free when the entries that
 *	replaced @flat carried the others over without @kept (struct
 *	nfhp_flat's @gone), else NULL
 * @ngone: per hook, entries in @gone
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
	struct nfhp_flat flat[NFHP_HOOK_MAX];
	int *kept[NFHP_HOOK_MAX];
	unsigned int nkept[NFHP_HOOK_MAX];
	unsigned int kept_cap[NFHP_HOOK_MAX];
	struct nfhp_entry **gone[NFHP_HOOK_MAX];
	unsigned int ngone[NFHP_HOOK_MAX];
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

/*
 * Room for @n elements of a big array that grows or shrinks by a few at
 * each commit: an eighth more, so that the next commit's fits the spare.
 */
static unsigned int nfhp_roomy(unsigned int n)
{
	return n + n / 8 + 8;
}

/**
 * struct nfhp_ruleset - the rule set of a network namespace
 * @mem: its memory account
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
 * @flat: the entries the published trees were built from
 * @policy_cnt: counters of the policies
 * @cpool: where the rules' counters come from
 * @ext_ops: the evaluator of rules' extensions, or NULL
 * @ext_priv: its first argument
 * @nbound: rules alive whose extensions are valid at some hooks only
 *	(nfhp_rule.ext_hooks): while there are any, a commit checks that no
 *	user chain holding one is reached from another hook
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
 * @cands: per hook, the index of its committed entries that an update
 *	that walked the chains finds its candidates with, built at the first
 *	such update (candidx.h)
 * @scoped: per hook, its committed entries that skip, for such updates
 * @firsts: per hook, where each rule of its built-in chain begins among
 *	the committed entries, for such updates (firsts.h)
 * @staged: while a commit runs, the new entries of each hook; here and
 *	not on the commit's stack, under which the tree build recurses
 * @fold_age: per hook, commits since its fold was last chosen
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
 */
struct nfhp_ruleset {
	struct nfhp_mem mem;
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
	struct nfhp_flat flat[NFHP_HOOK_MAX];
	struct nfhp_rcounter policy_cnt[NFHP_HOOK_MAX];
	struct nfhp_cpool cpool;
	const struct nfhp_ext_ops *ext_ops;
	void *ext_priv;
	unsigned int nbound;
	struct nfhp_box any;
	struct nfhp_where *where;
	u32 where_mask;
	struct nfhp_release *releases;
	struct nfhp_release **releases_tail;
	bool defer_release;
	struct nfhp_spare spare;
	struct nfhp_candidx cands[NFHP_HOOK_MAX];
	struct nfhp_scoped scoped[NFHP_HOOK_MAX];
	struct nfhp_firsts firsts[NFHP_HOOK_MAX];
	struct nfhp_flat staged[NFHP_HOOK_MAX];
	unsigned int fold_age[NFHP_HOOK_MAX];
	unsigned int flattened;
	unsigned int flat_bound;
	u64 updates_given_up;
	struct nfhp_flat_frame jumps[NFHP_MAX_JUMP_DEPTH + 2];
	bool jumps_added;
	u8 *stable;
};

static void nfhp_tables_put(struct nfhp_ruleset *rs, struct nfhp_tables *t);

/*
 * Forget the indexes of hook @h's committed entries (the candidates, the
 * skipping entries and the rules' first entries): after a rebuild, or a
 * commit that failed after an update brought them forward.  The next
 * update that walks the chains finds them again.
 */
static void nfhp_hook_indexes_clear(struct nfhp_ruleset *rs, int h)
{
	struct nfhp_scoped *sc = &rs->scoped[h];

	nfhp_candidx_clear(&rs->mem, &rs->cands[h]);
	nfhp_firsts_clear(&rs->mem, &rs->firsts[h]);
	nfhp_free(&rs->mem, sc->e, sc->cap * sizeof(*sc->e));
	memset(sc, 0, sizeof(*sc));
}

/*
 * Make room in the array @arr of @cap elements for @need.  Only the
 * elements in use are ever read, so the new room is not zeroed: at
 * 100,000 rules a chain's array is 800 KB.
 */
static int nfhp_grow(struct nfhp_mem *mem, void **arr, unsigned int *cap,
		     unsigned int need, size_t size)
{
	unsigned int ncap = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = nfhp_alloc_uninit(mem, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	if (*arr)
		memcpy(p, *arr, (size_t)*cap * size);
	nfhp_free(mem, *arr, (size_t)*cap * size);
	*arr = p;
	*cap = ncap;
	return 0;
}

static int nfhp_list_add(struct nfhp_mem *mem, struct nfhp_rule_list *l,
			 struct nfhp_rule *r)
{
	int err = nfhp_grow(mem, (void **)&l->r, &l->cap, l->n + 1,
			    sizeof(*l->r));

	if (!err)
		l->r[l->n++] = r;
	return err;
}

/* Room in @l for @more rules, so that as many adds cannot fail. */
static int nfhp_list_reserve(struct nfhp_mem *mem, struct nfhp_rule_list *l,
			     unsigned int more)
{
	return nfhp_grow(mem, (void **)&l->r, &l->cap, l->n + more,
			 sizeof(*l->r));
}

static void nfhp_list_free(struct nfhp_mem *mem, struct nfhp_rule_list *l)
{
	nfhp_free(mem, l->r, l->cap * sizeof(*l->r));
	memset(l, 0, sizeof(*l));
}

/* FNV-1a of a chain name. */
static u32 nfhp_name_hash(const char *name)
{
	u32 h = 2166136261u;

	while (*name)
		h = (h ^ (u8)*name++) * 16777619u;
	return h;
}

/* Rules. */

/* Does @r leave the straight path through its chain? */
static bool nfhp_rule_jumps(const struct nfhp_rule *r)
{
	return r->action == NFHP_ACT_JUMP || r->action == NFHP_ACT_GOTO;
}

static bool nfhp_rule_branches(const struct nfhp_rule *r)
{
	return nfhp_rule_jumps(r) || r->action == NFHP_ACT_RETURN;
}

#define NFHP_ALL_HOOKS	((1u << NFHP_HOOK_MAX) - 1)

static void nfhp_rule_free(struct nfhp_ruleset *rs, struct nfhp_rule *r)
{
	if (r->ext)
		rs->ext_ops->destroy(rs->ext_priv, r->ext);
	rs->nbound -= r->ext_hooks != NFHP_ALL_HOOKS;
	nfhp_rule_body_free(&rs->mem, &r->body);
	nfhp_rcounter_put(&rs->cpool, r->cnt);
	nfhp_free(&rs->mem, r, sizeof(*r));
}

static int nfhp_reach(struct nfhp_ruleset *rs, const struct nfhp_model *m,
		      struct nfhp_chain *c, unsigned int depth);

/*
 * The hooks a rule of @c with the extensions of @spec is checked for, as
 * bits: those the staged rule set reaches @c from, none for a chain no
 * hook reaches yet (as iptables checks an unreferenced chain), all when
 * there are no extensions to check.  A jump added later is checked
 * against the rule's nfhp_ext_ops.hooks at commit (nfhp_check_hooks()).
 */
static unsigned int nfhp_chain_hooks(struct nfhp_ruleset *rs,
				     const struct nfhp_chain *c,
				     const struct nfhp_rule_spec *spec)
{
	unsigned int hooks = 0;
	int h;

	if (c->hook >= 0)
		return 1u << c->hook;
	if (!spec->ext_len || !rs->work)
		return NFHP_ALL_HOOKS;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		rs->mark++;
		nfhp_reach(rs, rs->work, rs->work->chains[h], 0);
		if (c->mark == rs->mark)
			hooks |= 1u << h;
	}
	return hooks;
}

/* Check @spec's extensions and make their handle for @r. */
static int nfhp_rule_ext(struct nfhp_ruleset *rs, struct nfhp_rule *r,
			 const struct nfhp_rule_spec *spec, unsigned int hooks,
			 const char **msg)
{
	bool matches = false;
	int err;

	if (!spec->ext_len) {
		if (spec->action != NFHP_ACT_XT)
			return 0;
		*msg = "an xtables target needs its extension data";
		return -EINVAL;
	}
	if (!rs->ext_ops) {
		*msg = "this program cannot evaluate xtables extensions";
		return -EOPNOTSUPP;
	}
	err = rs->ext_ops->create(rs->ext_priv, spec, hooks, &r->ext,
				  &matches, msg);
	if (err)
		return err;
	r->ext_match = matches;
	if (rs->ext_ops->hooks)
		r->ext_hooks = rs->ext_ops->hooks(r->ext) & NFHP_ALL_HOOKS;
	return 0;
}

static int nfhp_rule_new(struct nfhp_ruleset *rs,
			 const struct nfhp_rule_spec *spec, unsigned int hooks,
			 const struct nfhp_counter *counters,
			 struct nfhp_rule **out, const char **msg)
{
	struct nfhp_rule *r;
	int err = -ENOMEM;
	unsigned int i;

	if (spec->action >= NFHP_ACT_MAX) {
		*msg = "unknown rule action";
		return -EINVAL;
	}
	if (spec->ext_len > sizeof(spec->ext)) {
		*msg = "xtables extensions too long";
		return -EINVAL;
	}
	r = nfhp_alloc(&rs->mem, sizeof(*r));
	if (!r)
		goto out_nomem;
	r->action = spec->action;
	r->gen = rs->gen;
	r->ext_hooks = NFHP_ALL_HOOKS;
	strscpy(r->target, spec->target, sizeof(r->target));
	r->target_hash = nfhp_name_hash(r->target);
	for (i = 0; i < spec->nmatch && i < NFHP_DIM_MAX; i++)
		if (spec->m[i].dim < NFHP_DIM_MAX)
			r->written |= 1u << spec->m[i].dim;
	err = nfhp_rule_body_new(&rs->mem, spec, &r->body, msg);
	if (err)
		goto out_free_rule;
	err = -ENOMEM;
	r->cnt = nfhp_rcounter_new(&rs->cpool, counters);
	if (!r->cnt)
		goto out_free_body;
	err = nfhp_rule_ext(rs, r, spec, hooks, msg);
	if (err)
		goto out_put_counter;
	err = nfhp_list_add(&rs->mem, &rs->created, r);
	if (err)
		goto out_destroy_ext;
	rs->nbound += r->ext_hooks != NFHP_ALL_HOOKS;
	*out = r;
	return 0;
out_destroy_ext:
	if (r->ext)
		rs->ext_ops->destroy(rs->ext_priv, r->ext);
out_put_counter:
	nfhp_rcounter_put(&rs->cpool, r->cnt);
out_free_body:
	nfhp_rule_body_free(&rs->mem, &r->body);
out_free_rule:
	nfhp_free(&rs->mem, r, sizeof(*r));
out_nomem:
	if (err == -ENOMEM)
		*msg = "out of memory (see /proc/net/nf-hipac/info for the bound)";
	return err;
}

/* Chains and models. */

static void nfhp_chain_free(struct nfhp_ruleset *rs, struct nfhp_chain *c)
{
	nfhp_seq_free(&rs->mem, &c->rules);
	nfhp_free(&rs->mem, c, sizeof(*c));
}

/* Rule @i of @c, counted from 0. */
static struct nfhp_rule *nfhp_chain_at(const struct nfhp_chain *c,
				       unsigned int i)
{
	return nfhp_seq_get(&c->rules, i);
}

/* An empty chain. */
static struct nfhp_chain *nfhp_chain_alloc(struct nfhp_ruleset *rs,
					   const char *name, int hook)
{
	struct nfhp_chain *c = nfhp_alloc(&rs->mem, sizeof(*c));

	if (!c)
		return NULL;
	strscpy(c->name, name, sizeof(c->name));
	c->hash = nfhp_name_hash(c->name);
	c->hook = hook;
	c->policy = NFHP_ACT_ACCEPT;
	c->rs = rs;
	c->gen = rs->gen;
	return c;
}

static void nfhp_model_free(struct nfhp_ruleset *rs, struct nfhp_model *m)
{
	if (!m)
		return;
	nfhp_free(&rs->mem, m->slot, m->nslot * sizeof(*m->slot));
	nfhp_free(&rs->mem, m->chains, m->cap * sizeof(*m->chains));
	nfhp_free(&rs->mem, m, sizeof(*m));
}

static struct nfhp_model *nfhp_model_copy(struct nfhp_ruleset *rs,
					  const struct nfhp_model *from)
{
	struct nfhp_model *m = nfhp_alloc(&rs->mem, sizeof(*m));

	if (!m)
		return NULL;
	if (nfhp_grow(&rs->mem, (void **)&m->chains, &m->cap,
		      from ? from->n : NFHP_HOOK_MAX, sizeof(*m->chains))) {
		nfhp_free(&rs->mem, m, sizeof(*m));
		return NULL;
	}
	if (from) {
		memcpy(m->chains, from->chains, from->n * sizeof(*m->chains));
		m->n = from->n;
	}
	/* Without memory for the table the commit hashes anew. */
	if (from && from->hashed) {
		m->slot = nfhp_alloc_uninit(&rs->mem,
					    from->nslot * sizeof(*m->slot));
		if (m->slot) {
			memcpy(m->slot, from->slot,
			       from->nslot * sizeof(*m->slot));
			m->nslot = from->nslot;
			m->hashed = true;
			m->unique = from->unique;
		}
	}
	return m;
}

u32 nfhp_hash_min_chains = NFHP_HASH_MIN_CHAINS;

/*
 * Hash the names of @m's chains into @m->slot, unless it is hashed or
 * small.  Without memory it stays searched: slower, not wrong.
 */
static void nfhp_model_hash(struct nfhp_ruleset *rs, struct nfhp_model *m)
{
	unsigned int i, k, want = 64;
	u32 hash;

	if (m->hashed || m->n < nfhp_hash_min_chains)
		return;
	while (want < 2 * m->n)
		want *= 2;
	if (want != m->nslot) {
		nfhp_free(&rs->mem, m->slot, m->nslot * sizeof(*m->slot));
		m->nslot = 0;
		m->slot = nfhp_alloc_uninit(&rs->mem, want * sizeof(*m->slot));
		if (!m->slot)
			return;
		m->nslot = want;
	}
	memset(m->slot, 0, want * sizeof(*m->slot));
	m->unique = true;
	for (i = 0; i < m->n; i++) {
		hash = m->chains[i]->hash;
		for (k = hash & (want - 1); m->slot[k].idx;
		     k = (k + 1) & (want - 1))
			if (m->slot[k].hash == hash)
				m->unique = false;
		m->slot[k].hash = hash;
		m->slot[k].idx = i + 1;
		m->slot[k].gen = m->chains[i]->gen;
		m->slot[k].njump = m->chains[i]->njump;
	}
	m->hashed = true;
}

static const struct nfhp_model *nfhp_view(const struct nfhp_ruleset *rs)
{
	return rs->work ? rs->work : rs->live;
}

/*
 * The first user chain of @m whose name is not below @name: they are
 * sorted, and a flatten looks up every jump's target, so that thousands
 * of chains (a Kubernetes node's) cost a search each, not a pass.
 */
static unsigned int nfhp_chain_place(const struct nfhp_model *m,
				     const char *name)
{
	unsigned int lo = NFHP_HOOK_MAX, hi = m->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(m->chains[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index in @m of the chain @name, whose nfhp_name_hash() is @hash. */
static int nfhp_chain_lookup(const struct nfhp_model *m, const char *name,
			     u32 hash)
{
	const struct nfhp_chain_slot *slot;
	unsigned int i;

	if (m->hashed) {
		for (i = hash & (m->nslot - 1); m->slot[i].idx;
		     i = (i + 1) & (m->nslot - 1)) {
			slot = &m->slot[i];
			if (slot->hash == hash &&
			    !strcmp(m->chains[slot->idx - 1]->name, name))
				return slot->idx - 1;
		}
		return -1;
	}
	for (i = 0; i < NFHP_HOOK_MAX && i < m->n; i++)
		if (!strcmp(m->chains[i]->name, name))
			return i;
	i = nfhp_chain_place(m, name);
	return i < m->n && !strcmp(m->chains[i]->name, name) ? i : -1;
}

static int nfhp_chain_index(const struct nfhp_model *m, const char *name)
{
	/* A searched model needs no hash. */
	return nfhp_chain_lookup(m, name, m->hashed ? nfhp_name_hash(name) : 0);
}

/*
 * The slot of the chain that the jump or goto @r of @m goes to, when its
 * hash alone tells (see struct nfhp_model), else NULL.
 */
static const struct nfhp_chain_slot *
nfhp_target_slot(const struct nfhp_model *m, const struct nfhp_rule *r)
{
	unsigned int i;

	if (!m->hashed || !m->unique)
		return NULL;
	for (i = r->target_hash & (m->nslot - 1); m->slot[i].idx;
	     i = (i + 1) & (m->nslot - 1))
		if (m->slot[i].hash == r->target_hash)
			return &m->slot[i];
	return NULL;
}

/*
 * The index in @m of the chain that the jump or goto @r of @m goes to, or
 * -1, given its nfhp_target_slot() @slot.  Tests (nfhp_update_verify)
 * find it by its name all the same, and the slot must agree.
 */
static int nfhp_chain_target_at(const struct nfhp_model *m,
				const struct nfhp_rule *r,
				const struct nfhp_chain_slot *slot)
{
	int t;

	if (slot && !nfhp_update_verify)
		return slot->idx - 1;
	t = nfhp_chain_lookup(m, r->target, r->target_hash);
	WARN_ON_ONCE(slot && slot->idx - 1 != t);
	return t;
}

/* The index in @m of the chain that the jump or goto @r of @m goes to. */
static int nfhp_chain_target(const struct nfhp_model *m,
			     const struct nfhp_rule *r)
{
	return nfhp_chain_target_at(m, r, nfhp_target_slot(m, r));
}

/* The chain @c of @m changed: its slot follows. */
static void nfhp_chain_note(struct nfhp_model *m, const struct nfhp_chain *c)
{
	struct nfhp_chain_slot *slot;
	unsigned int i;

	if (!m->hashed)
		return;
	for (i = c->hash & (m->nslot - 1); m->slot[i].idx;
	     i = (i + 1) & (m->nslot - 1)) {
		slot = &m->slot[i];
		if (m->chains[slot->idx - 1] != c)
			continue;
		slot->gen = c->gen;
		slot->njump = c->njump;
		return;
	}
}

/* The index of chain @name in the staged model, or -ENOENT and @msg. */
static int nfhp_chain_work_index(struct nfhp_ruleset *rs, const char *name,
				 const char **msg)
{
	int i = nfhp_chain_index(rs->work, name);

	if (i < 0) {
		*msg = "no chain by that name";
		return -ENOENT;
	}
	return i;
}

/* The chain of the staged model by @name, staged or still shared. */
static struct nfhp_chain *nfhp_chain_work(struct nfhp_ruleset *rs,
					  const char *name, const char **msg)
{
	int i = nfhp_chain_work_index(rs, name, msg);

	return i < 0 ? ERR_PTR(i) : rs->work->chains[i];
}

/*
 * The staged copy of a chain, made from the committed one if needed: it
 * shares the committed chain's pages of rules until it changes them.
 */
static struct nfhp_chain *nfhp_chain_mut(struct nfhp_ruleset *rs,
					 const char *name, const char **msg)
{
	int i = nfhp_chain_work_index(rs, name, msg);
	struct nfhp_chain *c, *copy;

	if (i < 0)
		return ERR_PTR(i);
	c = rs->work->chains[i];
	if (c->gen == rs->gen)
		return c;
	copy = nfhp_chain_alloc(rs, c->name, c->hook);
	if (!copy || nfhp_seq_share(&rs->mem, &copy->rules, &c->rules)) {
		nfhp_free(&rs->mem, copy, sizeof(*copy));
		*msg = "out of memory";
		return ERR_PTR(-ENOMEM);
	}
	copy->policy = c->policy;
	copy->nbranch = c->nbranch;
	copy->njump = c->njump;
	copy->same_head = c->rules.n;
	copy->same_tail = c->rules.n;
	copy->from = c;
	rs->work->chains[i] = copy;
	nfhp_chain_note(rs->work, copy);
	return copy;
}

/*
 * At the commit, the staged copies take over the pages of rules of the
 * committed chains they replace, which then keep only the pages the
 * transaction replaced, to free them a grace period later.
 */
static void nfhp_chains_succeed(struct nfhp_ruleset *rs)
{
	struct nfhp_chain *c;
	unsigned int i;

	for (i = 0; i < rs->work->n; i++) {
		c = rs->work->chains[i];
		if (c->gen != rs->gen || !c->from)
			continue;
		nfhp_seq_succeed(&c->rules, &c->from->rules);
		c->from = NULL;
	}
}

/*
 * The transaction changed staged chain @c from rule @head on, and all
 * but its last @tail rules (struct nfhp_chain, @same_head).
 */
static void nfhp_chain_touched(struct nfhp_chain *c, unsigned int head,
			       unsigned int tail)
{
	c->same_head = min(c->same_head, head);
	c->same_tail = min(c->same_tail, tail);
	nfhp_chain_note(c->rs->work, c);
}

/*
 * Rules that leave a chain go to the removed list, or die if new.  It
 * cannot fail: the caller made the room first (nfhp_list_reserve()), or
 * the rule is one of this transaction's.
 */
static void nfhp_rule_retire(struct nfhp_ruleset *rs, struct nfhp_rule *r)
{
	unsigned int i;

	for (i = 0; i < rs->created.n; i++) {
		if (rs->created.r[i] != r)
			continue;
		rs->created.r[i] = rs->created.r[--rs->created.n];
		nfhp_rule_free(rs, r);
		return;
	}
	WARN_ON_ONCE(nfhp_list_add(&rs->mem, &rs->removed, r));
}

/* Walk the chains reachable from @c, marking them with rs->mark. */
static int nfhp_reach(struct nfhp_ruleset *rs, const struct nfhp_model *m,
		      struct nfhp_chain *c, unsigned int depth)
{
	unsigned int i;
	int err;

	if (c->mark == rs->mark)
		return 0;
	if (depth > NFHP_MAX_JUMP_DEPTH)
		return -ELOOP;
	c->mark = rs->mark;
	for (i = 0; i < c->rules.n && c->njump; i++) {
		const struct nfhp_rule *r = nfhp_chain_at(c, i);
		int t;

		if (!nfhp_rule_jumps(r))
			continue;
		t = nfhp_chain_target(m, r);
		if (t < 0)
			continue;
		err = nfhp_reach(rs, m, m->chains[t], depth + 1);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A jump or goto must go to a user chain.  Whether it closes a loop is
 * for the commit to say (nfhp_check_loops()): iptables takes a loop that
 * no hook reaches.
 */
static int nfhp_check_jump(struct nfhp_ruleset *rs,
			   const struct nfhp_rule_spec *spec, const char **msg)
{
	int t;

	if (spec->action != NFHP_ACT_JUMP && spec->action != NFHP_ACT_GOTO)
		return 0;
	t = nfhp_chain_index(rs->work, spec->target);
	if (t < 0 || rs->work->chains[t]->hook >= 0) {
		*msg = "jump target is not a user chain";
		return -ENOENT;
	}
	rs->jumps_added = true;
	return 0;
}

/*
 * Walk the jumps from @c, at @depth, for nfhp_check_loops(): the chains
 * on the walk's path are marked @path, those done @path + 1.  Return
 * -ELOOP for a loop, -E2BIG for a path of more than NFHP_MAX_JUMP_DEPTH
 * jumps.
 */
static int nfhp_loop_walk(const struct nfhp_model *m, struct nfhp_chain *c,
			  u32 path, unsigned int depth)
{
	struct nfhp_chain *to;
	unsigned int i;
	int t, err;

	if (depth > NFHP_MAX_JUMP_DEPTH)
		return -E2BIG;
	c->mark = path;
	for (i = 0; i < c->rules.n && c->njump; i++) {
		const struct nfhp_rule *r = nfhp_chain_at(c, i);

		if (!nfhp_rule_jumps(r))
			continue;
		t = nfhp_chain_target(m, r);
		if (t < 0)
			continue;
		to = m->chains[t];
		if (to->mark == path)
			return -ELOOP;
		if (to->mark == path + 1)
			continue;
		err = nfhp_loop_walk(m, to, path, depth + 1);
		if (err)
			return err;
	}
	c->mark = path + 1;
	return 0;
}

/*
 * A loop of jumps and gotos that a hook reaches is refused when the
 * table is replaced, as ip_tables' mark_source_chains() refuses it; one
 * among chains no hook reaches is not (iptables-legacy takes "-A web
 * -j web" until a hook jumps to web).
 */
static int nfhp_check_loops(struct nfhp_ruleset *rs, const char **msg)
{
	const struct nfhp_model *m = rs->work;
	u32 path = rs->mark + 1;
	int h, err = 0;

	rs->mark += 2;
	for (h = 0; h < NFHP_HOOK_MAX && !err; h++)
		err = nfhp_loop_walk(m, m->chains[h], path, 0);
	if (err == -E2BIG)
		*msg = "too many levels of chain jumps";
	else if (err)
		*msg = "loop detected in the chain jumps";
	return err ? -ELOOP : 0;
}

/* Flattening: user chains into the entries of a hook. */

/* Free the summaries of @fl, which it sizes by @cap. */
static void nfhp_flat_free_arrays(struct nfhp_ruleset *rs,
				  struct nfhp_flat *fl)
{
	nfhp_free(&rs->mem, fl->sum, (size_t)fl->cap * sizeof(*fl->sum));
}

/*
 * Keep the released summaries of @fl as the spare ones if they are
 * bigger; free the others.  The entries' pages are never kept: an update
 * shares or copies them one at a time.
 */
static void nfhp_flat_recycle(struct nfhp_ruleset *rs, struct nfhp_flat *fl)
{
	struct nfhp_flat *spare = &rs->spare.flat;

	nfhp_seq_free(&rs->mem, &fl->e);
	if (fl->cap > spare->cap)
		swap(*fl, *spare);
	nfhp_flat_free_arrays(rs, fl);
}

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

static void nfhp_spare_see(const struct nfhp_ruleset *rs,
			   struct nfhp_spare_seen *seen)
{
	seen->sum = rs->spare.flat.sum;
	seen->ints = rs->spare.ints;
}

/* Free the spare arrays that are still those @stale saw. */
static void nfhp_spare_trim(struct nfhp_ruleset *rs,
			    const struct nfhp_spare_seen *stale)
{
	struct nfhp_spare *spare = &rs->spare;

	if (spare->flat.sum && spare->flat.sum == stale->sum) {
		nfhp_flat_free_arrays(rs, &spare->flat);
		memset(&spare->flat, 0, sizeof(spare->flat));
	}
	if (spare->ints && spare->ints == stale->ints) {
		kvfree(spare->ints);
		spare->ints = NULL;
		spare->ints_cap = 0;
	}
}

/* An array of at least @n ints, *@cap of them: a spare one if it fits. */
static int *nfhp_ints_alloc(struct nfhp_ruleset *rs, unsigned int n,
			    unsigned int *cap)
{
	struct nfhp_spare *spare = &rs->spare;
	int *p;

	/* A spare more than twice the size would keep too much. */
	if (spare->ints && spare->ints_cap >= n && spare->ints_cap / 2 <= n) {
		p = spare->ints;
		*cap = spare->ints_cap;
		spare->ints = NULL;
		spare->ints_cap = 0;
		return p;
	}
	p = kvmalloc_array(nfhp_roomy(n), sizeof(*p), GFP_KERNEL);
	*cap = p ? nfhp_roomy(n) : 0;
	return p;
}

/* Give back an array of nfhp_ints_alloc(): the bigger ones are kept. */
static void nfhp_ints_free(struct nfhp_ruleset *rs, int *p, unsigned int cap)
{
	struct nfhp_spare *spare = &rs->spare;

	if (cap > spare->ints_cap) {
		swap(p, spare->ints);
		swap(cap, spare->ints_cap);
	}
	kvfree(p);
}

/* Make room in @fl for the summaries of @need entries, if it keeps them. */
static int nfhp_flat_reserve(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			     unsigned int need)
{
	unsigned int cap = fl->cap ? fl->cap : 8;
	struct nfhp_entry_sum *sum;

	if (!fl->summed || need <= fl->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (rs->spare.flat.cap == cap) {
		sum = rs->spare.flat.sum;
		memset(&rs->spare.flat, 0, sizeof(rs->spare.flat));
	} else {
		/* Only the first fl->e.n are ever read. */
		sum = nfhp_alloc_uninit(&rs->mem, (size_t)cap * sizeof(*sum));
		if (!sum)
			return -ENOMEM;
	}
	if (fl->e.n)
		memcpy(sum, fl->sum, (size_t)fl->e.n * sizeof(*sum));
	nfhp_flat_free_arrays(rs, fl);
	fl->sum = sum;
	fl->cap = cap;
	return 0;
}

/* The next entry's order, as nfhp_flat_add() will give it. */
static u64 nfhp_flat_next_order(const struct nfhp_flat *fl)
{
	return NFHP_ORDER_BASE + (u64)(fl->e.n + 1) * NFHP_ORDER_GAP;
}

static int nfhp_flat_add(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			 const struct nfhp_box *box, bool owns_box,
			 struct nfhp_rcounter *cnt,
			 const struct nfhp_rule *rule, u8 action, u8 flags,
			 unsigned int depth)
{
	struct nfhp_entry *e;

	if (fl->e.n >= rs->flat_bound)
		return -EFBIG;
	if (nfhp_flat_reserve(rs, fl, fl->e.n + 1))
		return -ENOMEM;
	if (fl->staged)
		e = nfhp_scratch_zalloc(&rs->forest.scratch, 1, sizeof(*e));
	else
		e = nfhp_alloc(&rs->mem, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->box = box;
	e->owns_box = owns_box;
	e->cnt = cnt ? cnt->pc : NULL;
	e->rule = rule;
	e->action = action;
	e->flags = flags;
	e->depth = depth;
	e->order = nfhp_flat_next_order(fl);
	e->group = nfhp_group_of(e, fl->fold);
	e->scope_end = NFHP_ORDER_UNSET;
	nfhp_entry_leaf_init(e);
	if (nfhp_seq_append(&rs->mem, &fl->e, e, e->group)) {
		if (!fl->staged)
			nfhp_free(&rs->mem, e, sizeof(*e));
		return -ENOMEM;
	}
	rs->flattened++;
	if (action == NFHP_ACT_RETURN)
		fl->skips = true;
	if (action == NFHP_ACT_XT)
		fl->rekeys = true;
	if (fl->summed)
		nfhp_entry_sum_fill(&fl->sum[fl->e.n - 1], box);
	return 0;
}

static void nfhp_entry_free(struct nfhp_ruleset *rs,
			    const struct nfhp_flat *fl, struct nfhp_entry *e)
{
	if (e->owns_box)
		nfhp_box_free(&rs->mem, (struct nfhp_box *)e->box);
	if (!fl->staged)
		nfhp_free(&rs->mem, e, sizeof(*e));
}

/* Free the lists of a walking update's entries, see struct nfhp_flat. */
static void nfhp_flat_free_delta(struct nfhp_ruleset *rs, struct nfhp_flat *fl)
{
	nfhp_free(&rs->mem, fl->own, fl->own_cap * sizeof(*fl->own));
	nfhp_free(&rs->mem, fl->gone, max(fl->ngone, 1u) * sizeof(*fl->gone));
	fl->own = NULL;
	fl->gone = NULL;
}

/*
 * Free the entries of @fl but those it shares with the hook's committed
 * ones (@fl->from, @fl->own).
 */
static void nfhp_flat_free(struct nfhp_ruleset *rs, struct nfhp_flat *fl)
{
	struct nfhp_seq_iter it;
	struct nfhp_entry *e;
	unsigned int i;

	if (!fl->from && fl->own) {
		for (i = 0; i < fl->nown; i++)
			nfhp_entry_free(rs, fl, nfhp_flat_at(fl, fl->own[i]));
	} else {
		nfhp_seq_iter_init(&it, &fl->e, 0);
		for (i = 0; (e = nfhp_seq_iter_next(&it)); i++)
			if (!fl->from || fl->from[i] < 0)
				nfhp_entry_free(rs, fl, e);
	}
	nfhp_flat_free_delta(rs, fl);
	if (fl->staged)
		nfhp_scratch_release(&rs->forest.scratch, fl->mark);
	nfhp_seq_free(&rs->mem, &fl->e);
	nfhp_flat_free_arrays(rs, fl);
	nfhp_ints_free(rs, fl->from, fl->from_cap);
	memset(fl, 0, sizeof(*fl));
}

/*
 * Flatten a hook for an update into scratch memory: most of its entries
 * equal entries of the last commit, which nfhp_flat_settle() keeps, so
 * only the changed ones are ever allocated.
 */
static void nfhp_flat_stage(struct nfhp_ruleset *rs, struct nfhp_flat *fl)
{
	fl->staged = true;
	fl->mark = nfhp_scratch_mark(&rs->forest.scratch);
}

/**
 * nfhp_flat_settle() - turn staged entries into entries of the rule set
 * @rs: the rule set
 * @fl: the entries, staged or not (then nothing is done)
 * @old: the hook's entries of the last commit, or NULL
 * @match: for each entry of @fl, the index of its equal in @old, or -1;
 *	NULL when none is kept
 *
 * A kept entry of @old replaces its staged equal; every other one is
 * copied into memory of its own.  On failure @fl holds the entries
 * settled so far and nothing staged.
 *
 * Return: 0 or -ENOMEM.
 */
static int nfhp_flat_settle(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			    const struct nfhp_flat *old, const int *match)
{
	unsigned int j = 0, settled, k, x;
	struct nfhp_entry *e, **at;
	struct nfhp_seq_page *pg;
	int err = 0;

	if (!fl->staged)
		return 0;
	/* The staged entries were appended: their pages are all @fl's own. */
	for (k = 0; k < fl->e.npages && !err; k++) {
		pg = fl->e.slot[k].page;
		for (x = 0; x < pg->n; x++, j++) {
			at = (struct nfhp_entry **)&pg->p[x];
			e = *at;
			if (match && match[j] >= 0) {
				if (e->owns_box)
					nfhp_box_free(&rs->mem,
						      (struct nfhp_box *)e->box);
				*at = nfhp_flat_at(old, match[j]);
				continue;
			}
			e = nfhp_alloc(&rs->mem, sizeof(*e));
			if (!e) {
				err = -ENOMEM;
				break;
			}
			*e = **at;
			nfhp_entry_leaf_init(e);
			*at = e;
		}
	}
	if (err) {
		settled = j;
		for (; j < fl->e.n; j++) {
			e = nfhp_flat_at(fl, j);
			if (e->owns_box)
				nfhp_box_free(&rs->mem,
					      (struct nfhp_box *)e->box);
		}
		nfhp_seq_truncate(&rs->mem, &fl->e, settled);
	}
	nfhp_scratch_release(&rs->forest.scratch, fl->mark);
	fl->staged = false;
	return err;
}

/*
 * @rbox narrowed by the matches @prefix of the jumps that lead to it: @rbox
 * itself when @prefix narrows nothing, else a new box, also in @own.
 */
static int nfhp_narrow(struct nfhp_ruleset *rs, const struct nfhp_box *prefix,
		       const struct nfhp_box *rbox,
		       const struct nfhp_box **box, struct nfhp_box **own)
{
	int err;

	*box = rbox;
	*own = NULL;
	/* Most rules of a user chain lie inside what the jump matches. */
	if (!prefix || nfhp_box_contains(prefix, rbox))
		return 0;
	err = nfhp_box_intersect(&rs->mem, prefix, rbox, own);
	if (!err)
		*box = *own;
	return err;
}

/*
 * The entry of one box of a rule reached with the matches @prefix, @flags
 * being %NFHP_ENTRY_COND inside a chain entered by a jump with extension
 * matches.  For a jump or goto *@into is set to what its chain is entered
 * with, @flags to the flags of that chain's entries; else it is NULL.
 */
static int nfhp_flatten_box(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			    const struct nfhp_rule *r,
			    const struct nfhp_box *rbox,
			    const struct nfhp_box *prefix, unsigned int depth,
			    u8 *flags, const struct nfhp_box **into)
{
	const struct nfhp_box *box;
	struct nfhp_box *own;
	u8 action = r->action, f = *flags;
	int err;

	*into = NULL;
	err = nfhp_narrow(rs, prefix, rbox, &box, &own);
	if (err)
		return err;
	if (box->empty) {
		nfhp_box_free(&rs->mem, own);
		if (!fl->rekeys || rbox->empty)
			return 0;
		/*
		 * A target before it may change the packet so that the
		 * rule matches after all: keep it for that walk, out of
		 * the trees (nfhp_groups_fill()).  A jump's chain goes
		 * along, every entry of it void too: the walk tests each
		 * with its rule's own box (nfhp_classify_linear()).
		 */
		box = rbox;
		own = NULL;
		f |= NFHP_ENTRY_VOID;
		fl->voids = true;
	}
	if (action == NFHP_ACT_JUMP || action == NFHP_ACT_GOTO)
		action = NFHP_ACT_NONE;
	err = nfhp_flat_add(rs, fl, box, own, r->cnt, r, action,
			    (r->ext ? f | NFHP_ENTRY_EVAL | NFHP_ENTRY_COND :
				      f) |
			    (rbox == r->body.alt ? NFHP_ENTRY_ALT : 0), depth);
	if (err) {
		nfhp_box_free(&rs->mem, own);
		return err;
	}
	if (!nfhp_rule_jumps(r))
		return 0;
	*into = box;
	*flags = r->ext_match ? f | NFHP_ENTRY_COND : f;
	return 0;
}

/* The entry that drops what @r's transport match drops, without counter. */
static int nfhp_flatten_hotdrop(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
				const struct nfhp_rule *r,
				const struct nfhp_box *prefix, u8 flags,
				unsigned int depth)
{
	const struct nfhp_box *box;
	struct nfhp_box *own;
	int err;

	err = nfhp_narrow(rs, prefix, r->body.hot, &box, &own);
	if (err)
		return err;
	if (own && own->empty) {
		nfhp_box_free(&rs->mem, own);
		return 0;
	}
	err = nfhp_flat_add(rs, fl, box, own, NULL, r,
			    NFHP_ENTRY_HOTDROP, flags, depth);
	if (err)
		nfhp_box_free(&rs->mem, own);
	return err;
}

/*
 * The RETURNs among @fl's entries from @start on that an inner chain did
 * not claim leave the chain flattened from @start: they skip to the next
 * entry.
 */
static void nfhp_flat_scope_returns(struct nfhp_flat *fl, unsigned int start)
{
	struct nfhp_seq_iter it;
	struct nfhp_entry *e;

	nfhp_seq_iter_init(&it, &fl->e, start);
	while ((e = nfhp_seq_iter_next(&it)))
		if (e->action == NFHP_ACT_RETURN &&
		    e->scope_end == NFHP_ORDER_UNSET)
			e->scope_end = nfhp_flat_next_order(fl);
}

/* What of its rule a frame of nfhp_flatten_rule() does next. */
enum {
	NFHP_STEP_HOT,
	NFHP_STEP_BOX,
	NFHP_STEP_ALT,
	NFHP_STEP_NEXT,
};

/*
 * Close the chain of frame @f at @depth, all its rules flattened: its
 * RETURNs skip to the entry after it, a goto into it adds the implicit
 * RETURN, and a jump decided at packet time learns where its scope ends.
 */
static int nfhp_flatten_leave(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			      const struct nfhp_flat_frame *f,
			      unsigned int depth)
{
	const struct nfhp_rule *r = f->jump->rule;
	struct nfhp_box *own = NULL;
	int err = 0;

	nfhp_flat_scope_returns(fl, f->start);
	/*
	 * After a goto nothing more of this chain runs: an implicit RETURN.
	 * It has a box of its own where the goto's entry owns its box: an
	 * update may replace that entry (nfhp_scope_set()) and keep this.
	 */
	if (r->action == NFHP_ACT_GOTO) {
		if (f->jump->owns_box)
			err = nfhp_box_clone(&rs->mem, f->prefix, &own);
		if (!err)
			err = nfhp_flat_add(rs, fl, own ?: f->prefix, own,
					    NULL, NULL, NFHP_ACT_RETURN,
					    f->flags, depth);
		if (err)
			nfhp_box_free(&rs->mem, own);
	}
	if (r->ext_match) {
		f->jump->scope_end = nfhp_flat_next_order(fl);
		fl->skips = true;
	}
	return err;
}

/*
 * Take the next step of frame @f's rule at @depth.  Return: 1 when it
 * entered a jump's chain (the frame after @f is that chain's), else 0 or
 * -errno.
 */
static int nfhp_flatten_step(struct nfhp_ruleset *rs,
			     const struct nfhp_model *m, struct nfhp_flat *fl,
			     struct nfhp_flat_frame *f, unsigned int depth)
{
	const struct nfhp_rule *r = f->rules ? nfhp_seq_get(f->rules, f->i) :
					      f->one;
	struct nfhp_flat_frame *in = f + 1;
	const struct nfhp_box *into;
	int err, t;

	switch (f->step++) {
	case NFHP_STEP_HOT:
		return r->body.hot ? nfhp_flatten_hotdrop(rs, fl, r, f->prefix,
							  f->flags, depth) : 0;
	case NFHP_STEP_BOX:
	case NFHP_STEP_ALT:
		break;
	default:
		f->i++;
		f->step = NFHP_STEP_HOT;
		cond_resched();
		return 0;
	}
	if (f->step == NFHP_STEP_NEXT && !r->body.alt)
		return 0;
	in->flags = f->flags;
	err = nfhp_flatten_box(rs, fl, r, f->step == NFHP_STEP_ALT ?
				  r->body.box : r->body.alt,
			       f->prefix, depth, &in->flags, &into);
	if (err || !into)
		return err;
	if (depth + 1 > NFHP_MAX_JUMP_DEPTH)
		return -ELOOP;
	t = nfhp_chain_target(m, r);
	if (t < 0)
		return -ENOENT;
	in->rules = &m->chains[t]->rules;
	in->n = m->chains[t]->rules.n;
	in->i = 0;
	in->step = NFHP_STEP_HOT;
	in->prefix = into;
	in->start = fl->e.n;
	in->jump = nfhp_flat_at(fl, fl->e.n - 1);
	return 1;
}

/*
 * The entries of one rule reached with the matches @prefix at @depth:
 * the drop of short packets first, then one run per box, the boxes being
 * disjoint, a jump's own entry followed by its chain's.  The chains are
 * walked with a stack of frames of the rule set's (@rs->jumps), not by
 * recursion: 64 levels of jumps took more than the kernel stack.
 */
static int nfhp_flatten_rule(struct nfhp_ruleset *rs,
			     const struct nfhp_model *m, struct nfhp_flat *fl,
			     const struct nfhp_rule *r,
			     const struct nfhp_box *prefix, unsigned int depth,
			     u8 flags)
{
	struct nfhp_flat_frame *f = rs->jumps;
	unsigned int top = 0;
	int err;

	f->rules = NULL;
	f->one = r;
	f->n = 1;
	f->i = 0;
	f->step = NFHP_STEP_HOT;
	f->prefix = prefix;
	f->flags = flags;
	for (;;) {
		f = &rs->jumps[top];
		if (f->i < f->n) {
			err = nfhp_flatten_step(rs, m, fl, f, depth + top);
			if (err > 0)
				top++;
		} else if (top) {
			err = nfhp_flatten_leave(rs, fl, f, depth + top);
			top--;
		} else {
			return 0;
		}
		if (err < 0)
			return err;
	}
}

/* Flatten a built-in chain. */
static int nfhp_flatten_top(struct nfhp_ruleset *rs,
			    const struct nfhp_model *m, struct nfhp_flat *fl,
			    const struct nfhp_chain *c)
{
	unsigned int i;
	int err;

	for (i = 0; i < c->rules.n; i++) {
		err = nfhp_flatten_rule(rs, m, fl, nfhp_chain_at(c, i), NULL,
					0, 0);
		if (err)
			return err;
		cond_resched();
	}
	if (c->nbranch)
		nfhp_flat_scope_returns(fl, 0);
	return 0;
}

/*
 * The entries the rules of @c make themselves: one per box and one for a
 * hotdrop box.  What its jumps add comes on top.
 */
static unsigned int nfhp_chain_entries(const struct nfhp_chain *c)
{
	const struct nfhp_rule *r;
	unsigned int i, n = 0;

	for (i = 0; i < c->rules.n; i++) {
		r = nfhp_chain_at(c, i);
		n += 1 + !!r->body.alt + !!r->body.hot;
	}
	return n;
}

static int nfhp_flatten_hook(struct nfhp_ruleset *rs,
			     const struct nfhp_model *m, enum nfhp_hook hook,
			     struct nfhp_flat *fl)
{
	int err;

	/*
	 * A chain with jumps is updated by scans of the summaries, which get
	 * room for the built-in chain's own entries and the policy at once:
	 * doubling up to 200,000 entries copied and cleared the arrays a
	 * twentieth of a restore's commit.
	 */
	fl->summed = m->chains[hook]->nbranch;
	fl->fold = rs->flat[hook].fold;
	err = nfhp_flat_reserve(rs, fl,
				nfhp_chain_entries(m->chains[hook]) + 1);
	if (!err)
		err = nfhp_flatten_top(rs, m, fl, m->chains[hook]);
	if (!err)
		err = nfhp_flat_add(rs, fl, &rs->any, false,
				    &rs->policy_cnt[hook], NULL,
				    NFHP_ENTRY_POLICY, 0, 0);
	if (!err)
		nfhp_flat_at(fl, fl->e.n - 1)->order = NFHP_ORDER_POLICY;
	if (err)
		nfhp_flat_free(rs, fl);
	return err;
}

/*
 * Where rules stand.  Every rule of a chain changed by a commit may move, so
 * a position kept in each rule would cost a commit a write to every rule
 * behind the change (100,000 at worst).  Instead the positions are looked
 * up in a table built from the committed chains when first asked (the
 * simulator's verdicts, the shadowed rules in /proc), which the next commit
 * drops.
 */

static void nfhp_where_drop(struct nfhp_ruleset *rs)
{
	if (!rs->where)
		return;
	nfhp_free(&rs->mem, rs->where, (rs->where_mask + 1) *
					sizeof(*rs->where));
	rs->where = NULL;
}

static struct nfhp_where *nfhp_where_slot(const struct nfhp_ruleset *rs,
					  const struct nfhp_rule *r)
{
	u32 i = nfhp_rule_hash(r) & rs->where_mask;

	while (rs->where[i].rule && rs->where[i].rule != r)
		i = (i + 1) & rs->where_mask;
	return &rs->where[i];
}

static int nfhp_where_build(struct nfhp_ruleset *rs)
{
	const struct nfhp_model *m = rs->live;
	unsigned int i, j, n = 0, size = 16;
	struct nfhp_where *w;

	for (i = 0; m && i < m->n; i++)
		n += m->chains[i]->rules.n;
	while (size < 2 * n)
		size *= 2;
	rs->where = nfhp_alloc(&rs->mem, size * sizeof(*rs->where));
	if (!rs->where)
		return -ENOMEM;
	rs->where_mask = size - 1;
	for (i = 0; m && i < m->n; i++) {
		for (j = 0; j < m->chains[i]->rules.n; j++) {
			w = nfhp_where_slot(rs, nfhp_chain_at(m->chains[i], j));
			w->rule = nfhp_chain_at(m->chains[i], j);
			w->chain = m->chains[i];
			w->pos = j + 1;
		}
	}
	return 0;
}

/*
 * The chain and position of committed rule @r; false when it has none.
 * Without memory for the table, the chains are searched.
 */
static bool nfhp_rule_locate(struct nfhp_ruleset *rs,
			     const struct nfhp_rule *r,
			     const struct nfhp_chain **c, unsigned int *pos)
{
	const struct nfhp_model *m = rs->live;
	const struct nfhp_where *w;
	unsigned int i, j;

	if (rs->where || !nfhp_where_build(rs)) {
		w = nfhp_where_slot(rs, r);
		*c = w->chain;
		*pos = w->pos;
		return w->rule;
	}
	for (i = 0; m && i < m->n; i++) {
		for (j = 0; j < m->chains[i]->rules.n; j++) {
			if (nfhp_chain_at(m->chains[i], j) == r) {
				*c = m->chains[i];
				*pos = j + 1;
				return true;
			}
		}
	}
	return false;
}

/* Life cycle. */

/**
 * nfhp_ruleset_new() - create an empty rule set
 * @mem_limit: the memory bound in bytes
 *
 * The built-in chains exist from the start with policy ACCEPT, and the
 * trees of all hooks are single leaves that accept.
 *
 * Return: the rule set, or NULL.
 */
struct nfhp_ruleset *nfhp_ruleset_new(u64 mem_limit)
{
	struct nfhp_ruleset *rs = kzalloc(sizeof(*rs), GFP_KERNEL);
	const char *msg;
	int h;

	if (!rs)
		return NULL;
	rs->releases_tail = &rs->releases;
	rs->mem.limit = mem_limit;
	rs->flat_bound = U32_MAX;
	nfhp_cpool_init(&rs->cpool, &rs->mem);
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		rs->policy_cnt[h].pc = alloc_percpu(struct nfhp_counter);
		rs->policy_cnt[h].refs = 1;
		if (!rs->policy_cnt[h].pc)
			goto out_free;
	}
	if (nfhp_forest_init(&rs->forest, &rs->mem))
		goto out_free;
	if (nfhp_txn_begin(rs))
		goto out_forest;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		struct nfhp_chain *c;

		c = nfhp_chain_alloc(rs, nfhp_hook_chain[h], h);
		if (!c)
			goto out_abort;
		rs->work->chains[rs->work->n++] = c;
	}
	if (nfhp_txn_commit(rs, &msg))
		goto out_forest;
	return rs;
out_abort:
	nfhp_txn_abort(rs);
out_forest:
	nfhp_forest_destroy(&rs->forest);
out_free:
	for (h = 0; h < NFHP_HOOK_MAX; h++)
		free_percpu(rs->policy_cnt[h].pc);
	kfree(rs);
	return NULL;
}

/**
 * nfhp_ruleset_set_ext() - give a rule set the evaluator of extensions
 * @rs: the rule set, still without rules
 * @ops: the evaluator (ext.h)
 * @priv: its first argument
 *
 * Without one, rules with extensions are refused.
 */
void nfhp_ruleset_set_ext(struct nfhp_ruleset *rs,
			  const struct nfhp_ext_ops *ops, void *priv)
{
	rs->ext_ops = ops;
	rs->ext_priv = priv;
}

static void nfhp_model_free_chains(struct nfhp_ruleset *rs,
				   struct nfhp_model *m)
{
	unsigned int i, j;

	for (i = 0; i < m->n; i++) {
		struct nfhp_chain *c = m->chains[i];

		for (j = 0; j < c->rules.n; j++)
			nfhp_rule_free(rs, nfhp_chain_at(c, j));
		nfhp_chain_free(rs, c);
	}
	nfhp_model_free(rs, m);
}

/**
 * nfhp_ruleset_free() - free a rule set
 * @rs: the rule set; no packet may reach it any more
 */
void nfhp_ruleset_free(struct nfhp_ruleset *rs)
{
	struct nfhp_spare_seen seen;
	struct nfhp_tables *t;
	int h;

	if (rs->work)
		nfhp_txn_abort(rs);
	nfhp_ruleset_release(rs, true);
	t = rcu_dereference_protected(rs->tables, 1);
	nfhp_tables_put(rs, t);
	for (h = 0; h < NFHP_HOOK_MAX; h++)
		nfhp_flat_free(rs, &rs->flat[h]);
	for (h = 0; h < NFHP_HOOK_MAX; h++)
		nfhp_hook_indexes_clear(rs, h);
	nfhp_model_free_chains(rs, rs->live);
	nfhp_spare_see(rs, &seen);
	nfhp_spare_trim(rs, &seen);
	nfhp_list_free(&rs->mem, &rs->created);
	nfhp_list_free(&rs->mem, &rs->removed);
	nfhp_list_free(&rs->mem, &rs->dups);
	nfhp_where_drop(rs);
	nfhp_forest_destroy(&rs->forest);
	for (h = 0; h < NFHP_HOOK_MAX; h++)
		free_percpu(rs->policy_cnt[h].pc);
	WARN_ON(rs->mem.used);
	kfree(rs);
}

/**
 * nfhp_ruleset_empty() - does the rule set accept everything unseen?
 * @rs: the rule set
 *
 * Return: true when every committed chain is empty and every policy is
 * ACCEPT: the hooks need not be registered.
 */
bool nfhp_ruleset_empty(const struct nfhp_ruleset *rs)
{
	unsigned int i;

	for (i = 0; i < rs->live->n; i++) {
		const struct nfhp_chain *c = rs->live->chains[i];

		if (c->rules.n || (c->hook >= 0 && c->policy != NFHP_ACT_ACCEPT))
			return false;
	}
	return true;
}

/* Transactions. */

/*
 * Set the counter @c to @val (zero when NULL) once the open transaction is
 * published (nfhp_counters_settle()).
 */
static int nfhp_counter_write(struct nfhp_ruleset *rs, struct nfhp_rcounter *c,
			      const struct nfhp_counter *val)
{
	static const struct nfhp_counter zero;

	if (nfhp_grow(&rs->mem, (void **)&rs->writes, &rs->writes_cap,
		      rs->nwrites + 1, sizeof(*rs->writes)))
		return -ENOMEM;
	rs->writes[rs->nwrites].c = c;
	rs->writes[rs->nwrites++].val = val ? *val : zero;
	return 0;
}

/*
 * Adoption.
 *
 * iptables-restore, and the tools that feed it a whole table on every
 * sync, re-send every rule: a chain is flushed and filled again, almost
 * always with the rules it had.  Each would be a new rule to the commit,
 * and the hook would be flattened and built afresh.  Before it diffs, a
 * commit takes back the committed rules that the transaction removed,
 * wherever a rule it created has the same specification, in the same
 * chain and in the same order among the rules it kept: the rule set means
 * the same, and what is left to do is the true changes.
 *
 * A rule taken back keeps its entries; its counters become those the
 * duplicate was given (zero without --counters), as the duplicate's own
 * would have been.  Rules with extensions that keep state are not taken
 * back (&struct nfhp_ext_ops @stateless).  A staged chain that then holds
 * exactly its committed rules, with the same policy, is the committed
 * chain again.
 */

/*
 * How far ahead of the last rule taken back a duplicate may find its rule
 * alone: further, the rule after it must match the next one too, so that
 * one rule equal to a far one does not leave all between unmatched.
 */
#define NFHP_ADOPT_JUMP		NFHP_DIFF_WINDOW

/* A committed rule's key: its specification's hash, then its place. */
static u64 nfhp_adopt_key(u32 hash, unsigned int pos)
{
	return (u64)hash << 32 | pos;
}

static int nfhp_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * May the committed rule @old take the place of the created rule @r?  With
 * extensions only when they keep no state (REJECT, LOG, -m set): a limit,
 * a quota or a count iptables-restore starts afresh.
 */
static bool nfhp_adopt_may(const struct nfhp_ruleset *rs,
			   const struct nfhp_rule *old,
			   const struct nfhp_rule *r)
{
	if (!old->adopt || old->ext_hooks != r->ext_hooks ||
	    !nfhp_packed_spec_equal(old->body.spec, r->body.spec))
		return false;
	return !old->ext || (rs->ext_ops->stateless &&
			     rs->ext_ops->stateless(old->ext));
}

/**
 * struct nfhp_adopt_chain - what adopting into one staged chain needs
 * @c: the staged chain
 * @lc: the committed chain of the same name
 * @lim: per rule of @c, the index in @lc of the next rule @c kept (its
 *	own for a kept rule), @lc's length after the last
 * @keys: nfhp_adopt_key() of @lc's removed rules, rising, built at the
 *	first duplicate not found in place; NULL before
 * @nkeys: entries in @keys
 */
struct nfhp_adopt_chain {
	struct nfhp_chain *c;
	const struct nfhp_chain *lc;
	unsigned int *lim;
	u64 *keys;
	unsigned int nkeys;
};

/* Fill @a->lim; false when @c did not keep @lc's rules in their order. */
static bool nfhp_adopt_limits(struct nfhp_ruleset *rs,
			      struct nfhp_adopt_chain *a)
{
	const struct nfhp_chain *c = a->c, *lc = a->lc;
	unsigned int j, k = 0, lim = lc->rules.n;

	for (j = 0; j < c->rules.n; j++) {
		if (nfhp_chain_at(c, j)->gen == rs->gen)
			continue;
		while (k < lc->rules.n &&
		       nfhp_chain_at(lc, k) != nfhp_chain_at(c, j))
			k++;
		if (k == lc->rules.n)
			return false;
		a->lim[j] = k++;
	}
	for (j = c->rules.n; j-- > 0;) {
		if (nfhp_chain_at(c, j)->gen != rs->gen)
			lim = a->lim[j];
		a->lim[j] = lim;
	}
	return true;
}

static int nfhp_adopt_keys(struct nfhp_ruleset *rs, struct nfhp_adopt_chain *a)
{
	const struct nfhp_chain *lc = a->lc;
	unsigned int k;

	a->keys = nfhp_scratch_alloc(&rs->forest.scratch, max(lc->rules.n, 1u),
				     sizeof(*a->keys));
	if (!a->keys)
		return -ENOMEM;
	for (k = 0; k < lc->rules.n; k++)
		if (nfhp_chain_at(lc, k)->adopt)
			a->keys[a->nkeys++] = nfhp_adopt_key(
				nfhp_packed_spec_hash(
					nfhp_chain_at(lc, k)->body.spec), k);
	sort(a->keys, a->nkeys, sizeof(*a->keys), nfhp_u64_cmp, NULL);
	return 0;
}

/*
 * The index in @a->lc of the first rule in [@from, @to) that the created
 * rule @r may take, or @to: by its hash, for one not in place.
 */
static unsigned int nfhp_adopt_find(struct nfhp_ruleset *rs,
				    struct nfhp_adopt_chain *a,
				    const struct nfhp_rule *r,
				    unsigned int from, unsigned int to)
{
	u32 hash = nfhp_packed_spec_hash(r->body.spec);
	unsigned int i;

	if (!a->keys && nfhp_adopt_keys(rs, a))
		return to;
	for (i = nfhp_u64_rank(a->keys, a->nkeys, nfhp_adopt_key(hash, from));
	     i < a->nkeys && a->keys[i] < nfhp_adopt_key(hash, to); i++)
		if (nfhp_adopt_may(rs, nfhp_chain_at(a->lc, (u32)a->keys[i]),
				   r))
			return (u32)a->keys[i];
	return to;
}

/*
 * Where in @a->lc the created rule @j of @a->c finds its committed rule,
 * from *@k on, or @a->lim[@j] for none: in place, one on (a rule deleted),
 * or by hash.  Where @j alone changed, the next rule tells without a
 * hash: it matches one on when @j replaced the rule at *@k, which *@k
 * then passes, and in place when @j was inserted.
 */
static unsigned int nfhp_adopt_at(struct nfhp_ruleset *rs,
				  struct nfhp_adopt_chain *a, unsigned int j,
				  unsigned int *k)
{
	const struct nfhp_chain *lc = a->lc;
	const struct nfhp_rule *r = nfhp_chain_at(a->c, j), *next = NULL;
	unsigned int lim = a->lim[j], at = *k;

	if (j + 1 < a->c->rules.n && nfhp_chain_at(a->c, j + 1)->gen == rs->gen)
		next = nfhp_chain_at(a->c, j + 1);
	if (at < lim && nfhp_adopt_may(rs, nfhp_chain_at(lc, at), r))
		return at;
	if (at + 1 < lim && nfhp_adopt_may(rs, nfhp_chain_at(lc, at + 1), r))
		return at + 1;
	if (next && at + 1 < lim &&
	    nfhp_adopt_may(rs, nfhp_chain_at(lc, at + 1), next)) {
		(*k)++;
		return lim;
	}
	if (next && at < lim && nfhp_adopt_may(rs, nfhp_chain_at(lc, at), next))
		return lim;
	return nfhp_adopt_find(rs, a, r, at, lim);
}

/* Rule @j of the staged chain gives way to rule @k of the committed one. */
static int nfhp_adopt_one(struct nfhp_ruleset *rs, struct nfhp_adopt_chain *a,
			  unsigned int j, unsigned int k)
{
	struct nfhp_rule *old = nfhp_chain_at(a->lc, k);
	struct nfhp_rule *dup = nfhp_chain_at(a->c, j);
	struct nfhp_counter sum;

	if (nfhp_list_reserve(&rs->mem, &rs->dups, 1) ||
	    nfhp_seq_set(&rs->mem, &a->c->rules, j, old))
		return -ENOMEM;
	nfhp_counter_sum(dup->cnt, &sum);
	if (nfhp_counter_write(rs, old->cnt, &sum)) {
		/* Its page is the chain's own now: this cannot fail. */
		WARN_ON_ONCE(nfhp_seq_set(&rs->mem, &a->c->rules, j, dup));
		return -ENOMEM;
	}
	WARN_ON_ONCE(nfhp_list_add(&rs->mem, &rs->dups, dup));
	old->adopt = 0;
	dup->adopt = 1;
	return 0;
}

/*
 * Take back into @a->c the committed rules of @a->lc that its created
 * rules duplicate: in place, else by hash before the next rule it kept.
 */
static int nfhp_adopt_rules(struct nfhp_ruleset *rs, struct nfhp_adopt_chain *a)
{
	const struct nfhp_chain *lc = a->lc;
	const struct nfhp_rule *next;
	struct nfhp_chain *c = a->c;
	unsigned int j, k = 0, at;
	int err;

	for (j = 0; j < c->rules.n; j++) {
		if (nfhp_chain_at(c, j)->gen != rs->gen) {
			k = a->lim[j] + 1;
			continue;
		}
		at = nfhp_adopt_at(rs, a, j, &k);
		if (at == a->lim[j])
			continue;
		next = j + 1 < c->rules.n ? nfhp_chain_at(c, j + 1) : NULL;
		/* A far rule alone may be another one that is equal. */
		if (at - k > NFHP_ADOPT_JUMP &&
		    (!next || at + 1 == a->lim[j] || next->gen != rs->gen ||
		     !nfhp_adopt_may(rs, nfhp_chain_at(lc, at + 1), next)))
			continue;
		err = nfhp_adopt_one(rs, a, j, at);
		if (err)
			return err;
		k = at + 1;
	}
	return 0;
}

/* A staged chain that holds its committed rules again is the committed one. */
static void nfhp_adopt_settle_chain(struct nfhp_ruleset *rs, unsigned int i,
				    struct nfhp_chain *lc)
{
	struct nfhp_chain *c = rs->work->chains[i];

	if (c->hook != lc->hook || c->policy != lc->policy ||
	    c->rules.n != lc->rules.n ||
	    nfhp_seq_same_len(&c->rules, 0, &lc->rules, 0, c->rules.n) !=
	    c->rules.n)
		return;
	rs->work->chains[i] = lc;
	nfhp_chain_note(rs->work, lc);
	nfhp_chain_free(rs, c);
}

/* Drop the rules nfhp_adopt() marked from @l: kept ones when @keep. */
static void nfhp_adopt_sweep(struct nfhp_rule_list *l, bool keep)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (!l->r[i]->adopt == !keep)
			l->r[n++] = l->r[i];
		l->r[i]->adopt = 0;
	}
	l->n = n;
}

/*
 * Adopt into each staged chain that the transaction changed, and give back
 * the committed chain where nothing is left changed (a policy set to what
 * it was, rules sent again); best effort: without memory a chain is left
 * as it is, which only costs time.
 */
static void nfhp_adopt(struct nfhp_ruleset *rs)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&rs->forest.scratch);
	struct nfhp_adopt_chain a;
	struct nfhp_chain *lc;
	bool rules = rs->removed.n && rs->created.n;
	unsigned int i;
	int idx;

	if (!rs->live)
		return;
	for (i = 0; i < rs->removed.n; i++)
		rs->removed.r[i]->adopt = 1;
	for (i = 0; i < rs->work->n; i++) {
		memset(&a, 0, sizeof(a));
		a.c = rs->work->chains[i];
		if (a.c->gen != rs->gen)
			continue;
		idx = nfhp_chain_index(rs->live, a.c->name);
		if (idx < 0)
			continue;
		lc = rs->live->chains[idx];
		a.lc = lc;
		a.lim = nfhp_scratch_alloc(&rs->forest.scratch,
					   max(a.c->rules.n, 1u),
					   sizeof(*a.lim));
		if (!a.lim)
			break;
		/* Not the committed chain's rules (a rename): none to adopt. */
		if (!rules || nfhp_adopt_limits(rs, &a)) {
			if (rules && nfhp_adopt_rules(rs, &a))
				break;
			nfhp_adopt_settle_chain(rs, i, lc);
		}
		nfhp_scratch_release(&rs->forest.scratch, mark);
	}
	nfhp_scratch_release(&rs->forest.scratch, mark);
	nfhp_adopt_sweep(&rs->removed, true);
	nfhp_adopt_sweep(&rs->created, false);
}

/*
 * The counters a transaction set hold once it is published, not before:
 * a restore that fails leaves the counters.  In the order it set them, so
 * that a rule zeroed, then sent again with counters, has those.
 */
static void nfhp_counters_settle(struct nfhp_ruleset *rs, bool published)
{
	unsigned int i;

	for (i = 0; published && i < rs->nwrites; i++)
		nfhp_counter_set(rs->writes[i].c, &rs->writes[i].val);
	nfhp_free(&rs->mem, rs->writes, rs->writes_cap * sizeof(*rs->writes));
	rs->writes = NULL;
	rs->writes_cap = 0;
	rs->nwrites = 0;
}

/*
 * The duplicates nfhp_adopt() replaced go with the rules the commit
 * removed, after it returned (a restore of 100,000 rules frees as many);
 * for a commit that failed, now.
 */
static void nfhp_adopt_end(struct nfhp_ruleset *rs, bool published)
{
	unsigned int i;

	for (i = 0; i < rs->dups.n; i++)
		if (!published ||
		    nfhp_list_add(&rs->mem, &rs->removed, rs->dups.r[i]))
			nfhp_rule_free(rs, rs->dups.r[i]);
	rs->dups.n = 0;
}

/**
 * nfhp_txn_begin() - open a transaction
 * @rs: the rule set
 *
 * Return: 0, -EBUSY when one is open already, or -ENOMEM.
 */
int nfhp_txn_begin(struct nfhp_ruleset *rs)
{
	if (rs->work)
		return -EBUSY;
	rs->work = nfhp_model_copy(rs, rs->live);
	if (!rs->work)
		return -ENOMEM;
	rs->gen++;
	rs->jumps_added = false;
	return 0;
}

/**
 * nfhp_txn_active() - is a transaction open?
 * @rs: the rule set
 *
 * Return: true between nfhp_txn_begin() and its commit or abort.
 */
bool nfhp_txn_active(const struct nfhp_ruleset *rs)
{
	return rs->work;
}

/**
 * nfhp_txn_abort() - forget every staged change
 * @rs: the rule set
 */
void nfhp_txn_abort(struct nfhp_ruleset *rs)
{
	unsigned int i;

	if (!rs->work)
		return;
	for (i = 0; i < rs->work->n; i++)
		if (rs->work->chains[i]->gen == rs->gen)
			nfhp_chain_free(rs, rs->work->chains[i]);
	for (i = 0; i < rs->created.n; i++)
		nfhp_rule_free(rs, rs->created.r[i]);
	nfhp_adopt_end(rs, false);
	nfhp_counters_settle(rs, false);
	rs->created.n = 0;
	rs->removed.n = 0;
	nfhp_model_free(rs, rs->work);
	rs->work = NULL;
}

/* Values of the commit's @stable, see nfhp_chain_stable(). */
enum {
	NFHP_CHAIN_UNSEEN,
	NFHP_CHAIN_STABLE,
	NFHP_CHAIN_CHANGED,
};

static bool nfhp_chain_stable(const struct nfhp_ruleset *rs, u8 *stable,
			      int i, unsigned int depth);

/*
 * nfhp_chain_stable() of the chain that the jump @r of the staged model
 * goes to.  A chain without jumps is stable when unchanged, which its
 * slot tells without reading it: on a Kubernetes node the 5,000 chains
 * read were a quarter of a commit.
 */
static bool nfhp_target_stable(const struct nfhp_ruleset *rs, u8 *stable,
			       const struct nfhp_rule *r, unsigned int depth)
{
	const struct nfhp_model *m = rs->work;
	const struct nfhp_chain_slot *slot = nfhp_target_slot(m, r);
	int t = nfhp_chain_target_at(m, r, slot);

	if (t < 0)
		return false;
	if (slot && nfhp_update_verify)
		WARN_ON_ONCE(slot->gen != m->chains[t]->gen ||
			     slot->njump != m->chains[t]->njump);
	else if (slot && !slot->njump && stable[t] == NFHP_CHAIN_UNSEEN)
		stable[t] = slot->gen != rs->gen &&
			    depth <= NFHP_MAX_JUMP_DEPTH ?
			    NFHP_CHAIN_STABLE : NFHP_CHAIN_CHANGED;
	return nfhp_chain_stable(rs, stable, t, depth);
}

/*
 * Is the chain @i of the staged model, and every chain it reaches, the
 * committed one?  Chains are copied when a transaction changes them, so
 * an old generation tells: the chain is then the committed one of that
 * name, with the same rules, whose jumps reach the same chains if these
 * are unchanged too.  What is found is kept in @stable, one per chain of
 * the staged model, for the commit: each jump's target is looked up once.
 */
static bool nfhp_chain_stable(const struct nfhp_ruleset *rs, u8 *stable,
			      int i, unsigned int depth)
{
	const struct nfhp_chain *c;
	unsigned int k;
	bool ok;

	if (stable[i] != NFHP_CHAIN_UNSEEN)
		return stable[i] == NFHP_CHAIN_STABLE;
	c = rs->work->chains[i];
	ok = c->gen != rs->gen && depth <= NFHP_MAX_JUMP_DEPTH;
	for (k = 0; k < c->rules.n && c->njump && ok; k++)
		if (nfhp_rule_jumps(nfhp_chain_at(c, k)))
			ok = nfhp_target_stable(rs, stable, nfhp_chain_at(c, k),
						depth + 1);
	stable[i] = ok ? NFHP_CHAIN_STABLE : NFHP_CHAIN_CHANGED;
	return ok;
}

/*
 * Hooks whose trees must be rebuilt: they reach a chain that changed, or
 * the commit has no memory for @rs->stable to tell.
 */
static unsigned int nfhp_dirty_hooks(struct nfhp_ruleset *rs)
{
	unsigned int dirty = 0;
	int h;

	for (h = 0; h < NFHP_HOOK_MAX; h++)
		if (!rs->live || !rs->stable ||
		    !nfhp_chain_stable(rs, rs->stable, h, 0))
			dirty |= 1u << h;
	return dirty;
}

/* A record for a commit that replaces model @old, or NULL. */
static struct nfhp_release *nfhp_release_new(struct nfhp_ruleset *rs,
					     const struct nfhp_model *old)
{
	struct nfhp_release *rel = nfhp_alloc(&rs->mem, sizeof(*rel));

	if (!rel || !old || !old->n)
		return rel;
	rel->chains = nfhp_alloc(&rs->mem, old->n * sizeof(*rel->chains));
	if (!rel->chains) {
		nfhp_free(&rs->mem, rel, sizeof(*rel));
		return NULL;
	}
	return rel;
}

/*
 * Free the replaced entries @fl but those that the @nfrom entries
 * replacing them carried over (@from, rising where not -1; NULL: none),
 * or only the @ngone entries @gone when it is not NULL.  Only the gaps
 * between the carried-over ones are read: @fl's pages stay as packets
 * saw them, and those it still owns, which the new entries did not
 * share, are freed with it.
 */
static void nfhp_flat_free_replaced(struct nfhp_ruleset *rs,
				    struct nfhp_flat *fl, const int *from,
				    unsigned int nfrom,
				    struct nfhp_entry *const *gone,
				    unsigned int ngone)
{
	unsigned int i = 0, j = 0;
	struct nfhp_seq_iter it;
	struct nfhp_entry *e;

	if (gone) {
		/* A walking update listed them: no pass over the others. */
		for (; j < ngone; j++)
			nfhp_entry_free(rs, fl, gone[j]);
		i = fl->e.n;
	}
	while (from && j < nfrom) {
		/* Runs of carried-over entries, most of them: no call. */
		while (j < nfrom && from[j] == (int)i) {
			i++;
			j++;
		}
		if (j == nfrom)
			break;
		if (from[j] < 0) {
			j++;
			continue;
		}
		for (; i < (unsigned int)from[j]; i++)
			nfhp_entry_free(rs, fl, nfhp_flat_at(fl, i));
	}
	nfhp_seq_iter_init(&it, &fl->e, i);
	while ((e = nfhp_seq_iter_next(&it)))
		nfhp_entry_free(rs, fl, e);
	nfhp_flat_recycle(rs, fl);
	memset(fl, 0, sizeof(*fl));
}

/*
 * Fill @rel with what the commit that just published replaced: the old
 * tables, the old entries and which of them the new ones carried over,
 * the removed rules, the old model and its chains the new one does not
 * have.
 */
static void nfhp_release_fill(struct nfhp_ruleset *rs,
			      struct nfhp_release *rel, struct nfhp_model *old,
			      struct nfhp_tables *old_tables,
			      struct nfhp_flat *old_flat)
{
	unsigned int i;
	int h;

	rel->tables = old_tables;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		rel->flat[h] = old_flat[h];
		/* What the new entries shared is theirs alone now. */
		rel->kept[h] = rs->flat[h].from;
		rel->nkept[h] = rs->flat[h].e.n;
		rel->kept_cap[h] = rs->flat[h].from_cap;
		rs->flat[h].from = NULL;
		rs->flat[h].from_cap = 0;
		rel->gone[h] = rs->flat[h].gone;
		rel->ngone[h] = rs->flat[h].ngone;
		rs->flat[h].gone = NULL;
		nfhp_flat_free_delta(rs, &rs->flat[h]);
	}
	rel->rules = rs->removed;
	memset(&rs->removed, 0, sizeof(rs->removed));
	rs->created.n = 0;
	rel->model = old;
	if (!old)
		return;
	rs->mark++;
	for (i = 0; i < rs->live->n; i++)
		rs->live->chains[i]->mark = rs->mark;
	for (i = 0; i < old->n; i++)
		if (old->chains[i]->mark != rs->mark)
			rel->chains[rel->nchains++] = old->chains[i];
}

static void nfhp_release_free(struct nfhp_ruleset *rs,
			      struct nfhp_release *rel)
{
	struct nfhp_model *old = rel->model;
	unsigned int i;
	int h;

	/* Trees first: their leaves may be entries' own (tree.h). */
	if (rel->tables)
		nfhp_tables_put(rs, rel->tables);
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		nfhp_flat_free_replaced(rs, &rel->flat[h], rel->kept[h],
					rel->nkept[h], rel->gone[h],
					rel->ngone[h]);
		nfhp_ints_free(rs, rel->kept[h], rel->kept_cap[h]);
		nfhp_free(&rs->mem, rel->gone[h],
			  max(rel->ngone[h], 1u) * sizeof(*rel->gone[h]));
	}
	for (i = 0; i < rel->rules.n; i++)
		nfhp_rule_free(rs, rel->rules.r[i]);
	nfhp_list_free(&rs->mem, &rel->rules);
	for (i = 0; i < rel->nchains; i++)
		nfhp_chain_free(rs, rel->chains[i]);
	if (old) {
		nfhp_free(&rs->mem, rel->chains, old->n * sizeof(*rel->chains));
		nfhp_model_free(rs, old);
	}
	nfhp_free(&rs->mem, rel, sizeof(*rel));
}

/**
 * nfhp_ruleset_release() - free what commits replaced, once packets cannot
 * see it any more
 * @rs: the rule set
 * @wait: wait for the grace periods still running; otherwise free only
 *	what the grace periods that ended allow
 *
 * Return: true when records are left, which need another call after a
 * grace period.
 */
bool nfhp_ruleset_release(struct nfhp_ruleset *rs, bool wait)
{
	struct nfhp_release *rel;

	while ((rel = rs->releases)) {
		if (!wait && !poll_state_synchronize_rcu(rel->cookie))
			break;
		cond_synchronize_rcu(rel->cookie);
		rs->releases = rel->next;
		nfhp_release_free(rs, rel);
	}
	if (!rs->releases)
		rs->releases_tail = &rs->releases;
	return rs->releases;
}

/**
 * nfhp_ruleset_defer_release() - let commits return before a grace period
 * @rs: the rule set
 * @defer: true: a commit leaves what it replaced to nfhp_ruleset_release(),
 *	which the caller runs after a grace period; false (the default): a
 *	commit waits for the grace period and frees it
 *
 * A grace period takes several scheduler ticks, milliseconds, which
 * would be most of the time of a small update.
 */
void nfhp_ruleset_defer_release(struct nfhp_ruleset *rs, bool defer)
{
	rs->defer_release = defer;
}

/* Drop the trees of @t's hook @h. */
static void nfhp_hook_trees_drop(struct nfhp_ruleset *rs,
				 struct nfhp_tables *t, int h)
{
	int g;

	for (g = 0; g < NFHP_GROUPS; g++) {
		nfhp_tree_put(&rs->forest, t->root[h][g]);
		t->root[h][g] = NULL;
	}
}

/* Drop the trees of @t and free it. */
static void nfhp_tables_put(struct nfhp_ruleset *rs, struct nfhp_tables *t)
{
	int h, g;

	for (h = 0; h < NFHP_HOOK_MAX; h++)
		for (g = 0; g < NFHP_GROUPS; g++)
			nfhp_tree_put(&rs->forest, t->root[h][g]);
	nfhp_free(&rs->mem, t, sizeof(*t));
}

bool nfhp_one_tree;

/*
 * Groups are independent only while no entry skips others: with a RETURN
 * (or a goto) the hook keeps one tree.
 */
static bool nfhp_flat_groupable(const struct nfhp_flat *fl)
{
	return !fl->skips && !nfhp_one_tree;
}

/**
 * struct nfhp_groups - a hook's entries sorted into groups
 * @e: the entries of each group, in order, then the policy
 * @n: entries of each group, the policy included
 * @all: one allocation that @e point into
 */
struct nfhp_groups {
	const struct nfhp_entry **e[NFHP_GROUPS];
	unsigned int n[NFHP_GROUPS];
	const struct nfhp_entry **all;
};

/* Sort @fl's entries into groups. */
static int nfhp_groups_fill(const struct nfhp_flat *fl, struct nfhp_groups *gr)
{
	unsigned int i, g, p = fl->e.n - 1, pos = 0;
	unsigned int n = fl->e.n - 1 + NFHP_GROUPS;
	bool groups = nfhp_flat_groupable(fl);
	const struct nfhp_entry *e;
	struct nfhp_seq_iter it;

	memset(gr, 0, sizeof(*gr));
	gr->all = kvmalloc_array(n, sizeof(*gr->all), GFP_KERNEL);
	if (!gr->all)
		return -ENOMEM;
	nfhp_seq_iter_init(&it, &fl->e, 0);
	for (i = 0; i < p; i++) {
		e = nfhp_seq_iter_next(&it);
		if (!(e->flags & NFHP_ENTRY_VOID))
			gr->n[groups ? it.tag : 0]++;
	}
	for (g = 0; g < NFHP_GROUPS; g++) {
		gr->e[g] = gr->all + pos;
		pos += gr->n[g] + 1;
		gr->n[g] = 0;
	}
	nfhp_seq_iter_init(&it, &fl->e, 0);
	for (i = 0; i < p; i++) {
		e = nfhp_seq_iter_next(&it);
		if (e->flags & NFHP_ENTRY_VOID)
			continue;
		g = groups ? it.tag : 0;
		gr->e[g][gr->n[g]++] = e;
	}
	e = nfhp_seq_iter_next(&it);
	for (g = 0; g < NFHP_GROUPS; g++)
		gr->e[g][gr->n[g]++] = e;	/* the policy */
	return 0;
}

u32 nfhp_fold_recheck = NFHP_FOLD_RECHECK;
u32 nfhp_update_visits_per_entry = NFHP_UPDATE_VISITS_PER_ENTRY;
u32 nfhp_flat_per_rule = NFHP_FLAT_PER_RULE;
u32 nfhp_flat_min = NFHP_FLAT_MIN;

/* The entries a hook of the staged rule set may flatten into. */
static unsigned int nfhp_flat_bound(const struct nfhp_model *m)
{
	u64 rules = 0;
	unsigned int i;

	for (i = 0; i < m->n; i++)
		rules += m->chains[i]->rules.n;
	return min_t(u64, max_t(u64, rules * nfhp_flat_per_rule,
				nfhp_flat_min), U32_MAX);
}
u32 nfhp_update_visits_min = NFHP_UPDATE_VISITS_MIN;

/*
 * Choose the fold of hook @h's entries @fl before its trees are built from
 * scratch, and group them by it.  Entries that an update carried over
 * (@from or @own set) are shared with the committed ones, whose groups
 * must not change under them: such a flat keeps its fold, as does one
 * without memory for the choice.
 */
static void nfhp_flat_regroup(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			      int h)
{
	struct nfhp_seq_page *pg;
	struct nfhp_entry *e;
	unsigned int k, x;
	u8 fold;

	if (fl->from || fl->own || !nfhp_flat_groupable(fl) ||
	    nfhp_fold_choose(&fl->e, NULL, &fold))
		return;
	rs->fold_age[h] = 0;
	if (fold == fl->fold)
		return;
	fl->fold = fold;
	/* Entries of its own alone: their pages are all its own too. */
	for (k = 0; k < fl->e.npages; k++) {
		pg = fl->e.slot[k].page;
		for (x = 0; x < pg->n; x++) {
			e = pg->p[x];
			pg->tag[x] = e->group = nfhp_group_of(e, fold);
		}
	}
}

/*
 * Has hook @h's fold gone stale?  Updates keep it, so rules added one by
 * one never choose it again: every so many commits, a share of the hook's
 * entries (a few entries' work a commit), it is chosen anew from the
 * committed entries, and the hook is rebuilt when the choice differs by
 * a margin (nfhp_fold_choose() with the fold it has).
 */
static bool nfhp_fold_stale(struct nfhp_ruleset *rs, int h)
{
	const struct nfhp_flat *fl = &rs->flat[h];
	u8 fold;

	if (!fl->e.n || !nfhp_flat_groupable(fl) ||
	    ++rs->fold_age[h] < max(nfhp_fold_recheck, fl->e.n / 8))
		return false;
	rs->fold_age[h] = 0;
	return !nfhp_fold_choose(&fl->e, &fl->fold, &fold) &&
	       fold != fl->fold;
}

/* Build the trees of one hook's entries into @t->root[@h]. */
static int nfhp_build_groups(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			     struct nfhp_tables *t, int h)
{
	struct nfhp_groups gr;
	unsigned int g;
	int err;

	err = nfhp_groups_fill(fl, &gr);
	if (err)
		return err;
	for (g = 0; g < NFHP_GROUPS && !err; g++) {
		/* Group 0 always has a tree: the policy at least. */
		if (gr.n[g] == 1 && g)
			continue;
		err = nfhp_tree_build(&rs->forest, gr.e[g], gr.n[g],
				      &t->root[h][g]);
	}
	kvfree(gr.all);
	return err;
}

static bool nfhp_entry_same(const struct nfhp_entry *a,
			    const struct nfhp_entry *b)
{
	return a->rule == b->rule && a->action == b->action &&
	       a->cnt == b->cnt && a->flags == b->flags &&
	       a->depth == b->depth &&
	       (a->box == b->box || (a->box->size == b->box->size &&
				     !memcmp(a->box, b->box, a->box->size)));
}

/*
 * Align the new entries with the old ones: @match[j] is the old index of
 * new entry j, or -1 for an added one.  Changes are local, so a greedy walk
 * that looks a window ahead finds them.
 */
static unsigned int nfhp_flat_diff(const struct nfhp_flat *old,
				   const struct nfhp_flat *fl, int *match)
{
	unsigned int i = 0, j, k, changes = 0;
	const struct nfhp_entry *a, *b;
	struct nfhp_seq_iter io, it;

	nfhp_seq_iter_init(&io, &old->e, 0);
	a = nfhp_seq_iter_next(&io);	/* old entry i, NULL past the last */
	nfhp_seq_iter_init(&it, &fl->e, 0);
	for (j = 0; (b = nfhp_seq_iter_next(&it)); j++) {
		if (a && !nfhp_entry_same(a, b)) {
			for (k = 1; k < NFHP_DIFF_WINDOW && i + k < old->e.n;
			     k++)
				if (nfhp_entry_same(nfhp_flat_at(old, i + k), b))
					break;
			if (i + k < old->e.n && k < NFHP_DIFF_WINDOW) {
				changes += k;	/* old i .. i + k - 1 removed */
				i += k;
				nfhp_seq_iter_init(&io, &old->e, i);
				a = nfhp_seq_iter_next(&io);
			}
		}
		if (a && nfhp_entry_same(a, b)) {
			match[j] = i++;
			a = nfhp_seq_iter_next(&io);
			continue;
		}
		match[j] = -1;	/* added */
		changes++;
	}
	return changes + (old->e.n - i);
}

/*
 * Keys for the @run added entries of @fl from @j on, between the kept
 * entries beside them, whose keys are @lo (0 at the head) and @hi, see
 * nfhp_flat_orders().
 */
static int nfhp_flat_orders_run(struct nfhp_flat *fl, u64 lo, u64 hi,
				unsigned int j, unsigned int run, bool apply)
{
	unsigned int k;
	u64 step;

	step = min_t(u64, (hi - lo) / (run + 1), NFHP_ORDER_GAP);
	if (!step)
		return -EAGAIN;
	for (k = 0; k < run && apply; k++)
		nfhp_flat_at(fl, j + k)->order = j ? lo + step * (k + 1) :
					  hi - step * (run - k);
	return 0;
}

/*
 * Give added entries order keys between their kept neighbours, so that no
 * kept entry, which packets may be comparing right now, changes its key.
 * Keys go NFHP_ORDER_GAP apart where there is room, next to the upper
 * neighbour at the head and next to the lower one elsewhere: inserts at
 * the head and appends then never run out of room.  With @apply false
 * only check that there is room.
 */
static int nfhp_flat_orders(struct nfhp_flat *fl, const struct nfhp_flat *old,
			    const int *match, bool apply)
{
	unsigned int j = 0, run;
	u64 lo, hi;
	int err;

	while (j < fl->e.n) {
		if (match[j] >= 0) {
			j++;
			continue;
		}
		for (run = 0; j + run < fl->e.n && match[j + run] < 0; run++)
			;
		if (j + run == fl->e.n)
			return -EAGAIN;	/* the policy is always kept */
		/* Only the neighbours of a run are read: few entries. */
		lo = j ? nfhp_flat_at(old, match[j - 1])->order : 0;
		hi = nfhp_flat_at(old, match[j + run])->order;
		err = nfhp_flat_orders_run(fl, lo, hi, j, run, apply);
		if (err)
			return err;
		j += run;
	}
	return 0;
}

/*
 * nfhp_flat_orders() for the added entries @d lists: their neighbours in
 * @fl are the kept entries themselves.
 */
static int nfhp_delta_orders(struct nfhp_flat *fl, const struct nfhp_delta *d)
{
	unsigned int a = 0, j, run;
	u64 lo, hi;
	int err;

	while (a < d->nadded) {
		for (run = 1; a + run < d->nadded &&
			      d->added[a + run] == d->added[a] + run; run++)
			;
		j = d->added[a];
		if (j + run == fl->e.n)
			return -EAGAIN;	/* the policy is always kept */
		lo = j ? nfhp_flat_at(fl, j - 1)->order : 0;
		hi = nfhp_flat_at(fl, j + run)->order;
		err = nfhp_flat_orders_run(fl, lo, hi, j, run, true);
		if (err)
			return err;
		a += run;
	}
	return 0;
}

/**
 * struct nfhp_scope_end - where a scope that is still open must end
 * @lo: the key of the last entry inside it
 * @hi: the key of the first entry after it
 *
 * A skip goes to the first entry whose key is not below @scope_end, so
 * any end in (@lo, @hi] is right.
 */
struct nfhp_scope_end {
	u64 lo;
	u64 hi;
};

/* Depths of entries: a chain 64 jumps deep and a goto's RETURN below it. */
#define NFHP_DEPTHS		(NFHP_MAX_JUMP_DEPTH + 2)

/* Is @e the RETURN that ends a chain a goto went to (it has no rule)? */
static bool nfhp_entry_implicit_return(const struct nfhp_entry *e)
{
	return !e->rule && e->action == NFHP_ACT_RETURN;
}

/* Does @e skip to where @end says? */
static bool nfhp_scope_holds(const struct nfhp_entry *e,
			     const struct nfhp_scope_end *end)
{
	return e->scope_end > end->lo && e->scope_end <= end->hi;
}

/*
 * Make entry @i of @fl, the committed entry @oi (or added, @added),
 * skip to @end.  An added entry is changed; a committed one, which
 * packets may be reading, is replaced by a copy that @d lists as added
 * and the original as removed, out of order (nfhp_flat_scopes() sorts).
 */
static int nfhp_scope_set(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			  struct nfhp_delta *d, unsigned int i, unsigned int oi,
			  bool added, const struct nfhp_scope_end *end)
{
	struct nfhp_entry *e = nfhp_flat_at(fl, i), *copy;
	struct nfhp_box *box = NULL;

	if (nfhp_scope_holds(e, end))
		return 0;
	if (added) {
		e->scope_end = end->hi;
		return 0;
	}
	if (d->nremoved == d->cap)
		return -EAGAIN;
	if (nfhp_grow(&rs->mem, (void **)&d->added, &d->added_cap,
		      d->nadded + 1, sizeof(*d->added)))
		return -ENOMEM;
	fl->own = d->added;
	fl->own_cap = d->added_cap;
	copy = nfhp_alloc(&rs->mem, sizeof(*copy));
	if (copy && e->owns_box && nfhp_box_clone(&rs->mem, e->box, &box)) {
		nfhp_free(&rs->mem, copy, sizeof(*copy));
		copy = NULL;
	}
	if (copy && nfhp_seq_set(&rs->mem, &fl->e, i, copy)) {
		if (box)
			nfhp_box_free(&rs->mem, box);
		nfhp_free(&rs->mem, copy, sizeof(*copy));
		copy = NULL;
	}
	if (!copy)
		return -ENOMEM;
	*copy = *e;
	nfhp_entry_leaf_init(copy);
	if (box)
		copy->box = box;
	copy->scope_end = end->hi;
	d->added[d->nadded++] = i;
	fl->nown = d->nadded;
	d->removed[d->nremoved++] = oi;
	return 0;
}

static int nfhp_uint_cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a;
	unsigned int y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * Fill @le and @ends for an entry at @depth whose key is @hi, after one
 * with key @lo: @le[k] is where a scope ends that the first entry at
 * depth k or less ends (a jump's at depth k), @ends[k] where one ends that
 * the first entry above depth k or a goto's RETURN at k ends (a RETURN's
 * at depth k).  Depths past @deepest had no entry yet.
 */
static void nfhp_scope_seen(struct nfhp_scope_end *le,
			    struct nfhp_scope_end *ends, unsigned int depth,
			    bool implicit, unsigned int deepest, u64 lo, u64 hi)
{
	unsigned int k;

	for (k = depth; k <= deepest; k++) {
		le[k].lo = lo;
		le[k].hi = hi;
		if (k > depth || implicit)
			ends[k] = le[k];
	}
}

static int nfhp_scoped_add(struct nfhp_ruleset *rs, struct nfhp_scoped *sc,
			   struct nfhp_entry *e, u64 hi)
{
	if (nfhp_grow(&rs->mem, (void **)&sc->e, &sc->cap, sc->n + 1,
		      sizeof(*sc->e)))
		return -ENOMEM;
	sc->e[sc->n].e = e;
	sc->e[sc->n++].hi = hi;
	return 0;
}

/*
 * Give the skipping entries of @fl, which an update carried over or added
 * (@d) with their keys given, the ends of their scopes: a RETURN's is
 * where its chain's invocation ends, a jump decided at packet time's
 * where its chain's does.  Added entries were flattened with ends
 * counted in positions, and a scope whose last entries came or went ends
 * elsewhere now.  One pass from the back, remembering per depth where
 * the scopes still open end (nfhp_scope_seen()).  @sc, unless NULL, is
 * filled with the skipping entries on the way, for the next update; it is
 * valid if all of them fit.  With @check, set nothing: every end must
 * hold already (nfhp_update_verify).
 */
static int nfhp_scopes_all(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			   const struct nfhp_flat *old, struct nfhp_delta *d,
			   struct nfhp_scoped *sc, bool check)
{
	struct nfhp_scratch *s = &rs->forest.scratch;
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(s);
	unsigned int nadded = d->nadded, nremoved = d->nremoved;
	unsigned int a = nadded, r = nremoved, deepest = 0, skips = 0, i;
	unsigned int oi = old->e.n - 1;	/* the policy's */
	struct nfhp_scope_end *le, *ends, *end;
	struct nfhp_entry *e;
	bool added;
	u64 before;
	int err = 0;

	le = nfhp_scratch_alloc(s, NFHP_DEPTHS, sizeof(*le));
	ends = nfhp_scratch_alloc(s, NFHP_DEPTHS, sizeof(*ends));
	if (!le || !ends) {
		err = -ENOMEM;
		goto out_release;
	}
	le[0].lo = fl->e.n > 1 ? nfhp_flat_at(fl, fl->e.n - 2)->order : 0;
	le[0].hi = nfhp_flat_at(fl, fl->e.n - 1)->order;
	ends[0] = le[0];
	if (sc) {
		sc->n = 0;
		sc->valid = false;
	}
	for (i = fl->e.n - 1; i-- > 0 && !err;) {
		e = nfhp_flat_at(fl, i);
		if (e->depth >= NFHP_DEPTHS) {
			err = -EAGAIN;
			break;
		}
		for (; deepest < e->depth; deepest++)
			le[deepest + 1] = ends[deepest + 1] = le[deepest];
		added = a > 0 && d->added[a - 1] == i;
		if (added) {
			a--;
		} else {
			for (; r > 0 && d->removed[r - 1] == oi - 1; r--)
				oi--;
			if (WARN_ON_ONCE(!oi || nfhp_flat_at(old, --oi) != e)) {
				err = -EAGAIN;
				break;
			}
		}
		/* A goto's RETURN (no rule) ends the chain of the goto. */
		end = NULL;
		if (e->action == NFHP_ACT_RETURN)
			end = &ends[e->depth - !e->rule];
		else if (e->scope_end != NFHP_ORDER_UNSET)
			end = &le[e->depth];
		if (end && check)
			WARN_ON_ONCE(!nfhp_scope_holds(e, end));
		else if (end)
			err = nfhp_scope_set(rs, fl, d, i, oi, added, end);
		/* Without room the index is found again next time. */
		if (end && sc &&
		    nfhp_scoped_add(rs, sc, nfhp_flat_at(fl, i), end->hi))
			sc = NULL;
		skips += !!end;
		before = i ? nfhp_flat_at(fl, i - 1)->order : 0;
		nfhp_scope_seen(le, ends, e->depth,
				nfhp_entry_implicit_return(e), deepest,
				before, e->order);
	}
	/* Without skips left the hook's entries go back to their groups. */
	if (!err && !skips)
		err = -EAGAIN;
	if (!err && sc)
		sc->valid = true;
out_release:
	nfhp_scratch_release(s, mark);
	return err;
}

/* Does @e skip later entries: a RETURN, or a jump decided at packet time? */
static bool nfhp_entry_skips(const struct nfhp_entry *e)
{
	return e->action == NFHP_ACT_RETURN ||
	       e->scope_end != NFHP_ORDER_UNSET;
}

/*
 * Can the scope of the skipping entry @j end at @r, a later entry?  A
 * jump's chain ends at the first entry not deeper than the jump; a
 * RETURN's invocation at the first entry above it or at the RETURN that
 * ends a goto into its chain.  A goto's own RETURN (no rule) ends the
 * chain of the goto.  As nfhp_scope_seen() remembers them.
 */
static bool nfhp_scope_ends_at(const struct nfhp_entry *j,
			       const struct nfhp_entry *r)
{
	unsigned int k;

	if (j->action != NFHP_ACT_RETURN)
		return r->depth <= j->depth;
	k = j->depth - !j->rule;
	return r->depth < k ||
	       (nfhp_entry_implicit_return(r) && r->depth == k);
}

/* Does the scope of @j, a RETURN, end only with the hook's chain? */
static bool nfhp_scope_at_policy(const struct nfhp_entry *j)
{
	return j->action == NFHP_ACT_RETURN && j->depth == !j->rule;
}

/*
 * The end of the scope of entry @p of @fl, by a pass over the scope.  A
 * RETURN of the hook's own chain, or of a chain it goes to, ends at the
 * policy, and is not passed over at all.
 */
static void nfhp_scope_after(const struct nfhp_flat *fl, unsigned int p,
			     struct nfhp_scope_end *end)
{
	const struct nfhp_entry *e = nfhp_flat_at(fl, p);
	unsigned int q = fl->e.n - 1;
	struct nfhp_seq_iter it;

	if (!nfhp_scope_at_policy(e)) {
		nfhp_seq_iter_init(&it, &fl->e, p + 1);
		for (q = p + 1; q + 1 < fl->e.n; q++)
			if (nfhp_scope_ends_at(e, nfhp_seq_iter_next(&it)))
				break;
	}
	end->lo = nfhp_flat_at(fl, q - 1)->order;
	end->hi = nfhp_flat_at(fl, q)->order;
}

/* The index of the first entry of @fl whose key is @order or more. */
static unsigned int nfhp_flat_lower(const struct nfhp_flat *fl, u64 order)
{
	return nfhp_entries_rank(&fl->e, 0, fl->e.n, order);
}

/*
 * nfhp_flat_lower() for a key whose entry is at @from or after it, and
 * likely near: a galloping search reads about 2 log2(d) entries for one
 * d entries on.  A commit on a Kubernetes node looks up where each of
 * 5,000 jumps ends, a few entries after it begins.
 */
static unsigned int nfhp_flat_lower_from(const struct nfhp_flat *fl,
					 unsigned int from, u64 order)
{
	unsigned int lo = from, hi = from, step = 1;

	while (hi < fl->e.n && nfhp_flat_at(fl, hi)->order < order) {
		lo = hi + 1;
		hi += step;
		step *= 2;
	}
	return nfhp_entries_rank(&fl->e, lo, min(hi, fl->e.n), order);
}

/* The index of the entry of @fl with the key @order, or -1. */
static int nfhp_flat_find(const struct nfhp_flat *fl, u64 order)
{
	unsigned int i = nfhp_flat_lower(fl, order);

	return i < fl->e.n && nfhp_flat_at(fl, i)->order == order ? i : -1;
}

/*
 * The keys of the entries the update (@d, its first @nadded and
 * @nremoved entries) added to @fl and removed from @old, rising, on the
 * scratch stack of @rs; NULL without memory.
 */
static u64 *nfhp_delta_keys(struct nfhp_ruleset *rs, const struct nfhp_flat *fl,
			    const struct nfhp_flat *old,
			    const struct nfhp_delta *d, unsigned int nadded,
			    unsigned int nremoved)
{
	u64 *keys = nfhp_scratch_alloc(&rs->forest.scratch,
				       nadded + nremoved + 1, sizeof(*keys));
	unsigned int k;

	if (!keys)
		return NULL;
	for (k = 0; k < nadded; k++)
		keys[k] = nfhp_flat_at(fl, d->added[k])->order;
	for (k = 0; k < nremoved; k++)
		keys[nadded + k] = nfhp_flat_at(old, d->removed[k])->order;
	sort(keys, nadded + nremoved, sizeof(*keys), nfhp_u64_cmp, NULL);
	return keys;
}

/* Is none of the @n rising @keys in [@lo, @hi]? */
static bool nfhp_keys_none_in(const u64 *keys, unsigned int n, u64 lo,
			      u64 hi)
{
	unsigned int i = nfhp_u64_rank(keys, n, lo);

	return i == n || keys[i] > hi;
}

/*
 * nfhp_scopes_all() without the pass over all entries: the committed
 * entries that skip, @sc, get their ends anew, each by a pass over its
 * own scope, where an entry came or went from their own key to their
 * end's (@hi), and the added ones that skip get theirs.  The others are
 * not even looked up: a Kubernetes node has thousands, and two searches
 * of the entries for each took longer than the pass over all.  @sc then
 * holds the new entries that skip, or is invalid after an error.
 */
static int nfhp_scopes_near(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			    const struct nfhp_flat *old, struct nfhp_delta *d,
			    struct nfhp_scoped *sc)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&rs->forest.scratch);
	unsigned int nadded = d->nadded, nremoved = d->nremoved, k, w = 0, a;
	struct nfhp_scoped_entry *it;
	struct nfhp_scope_end end;
	struct nfhp_entry *j;
	int err = 0, i, oi;
	u64 *keys;

	sc->valid = false;
	keys = nfhp_delta_keys(rs, fl, old, d, nadded, nremoved);
	if (!keys)
		return -ENOMEM;
	for (k = 0; k < sc->n && !err; k++) {
		it = &sc->e[k];
		j = it->e;
		if (!nfhp_scope_at_policy(j) &&
		    nfhp_keys_none_in(keys, nadded + nremoved, j->order,
				      it->hi)) {
			sc->e[w++] = *it;
			continue;
		}
		i = nfhp_flat_find(fl, j->order);
		if (i < 0 || nfhp_flat_at(fl, i) != j)
			continue;	/* removed */
		nfhp_scope_after(fl, i, &end);
		if (!nfhp_scope_holds(j, &end)) {
			oi = nfhp_flat_find(old, j->order);
			if (WARN_ON_ONCE(oi < 0 || nfhp_flat_at(old, oi) != j))
				err = -EAGAIN;
			else
				err = nfhp_scope_set(rs, fl, d, i, oi, false,
						     &end);
		}
		sc->e[w].e = nfhp_flat_at(fl, i);
		sc->e[w++].hi = end.hi;
	}
	nfhp_scratch_release(&rs->forest.scratch, mark);
	sc->n = w;
	for (a = 0; a < nadded && !err; a++) {
		i = d->added[a];
		if (!nfhp_entry_skips(nfhp_flat_at(fl, i)))
			continue;
		nfhp_scope_after(fl, i, &end);
		err = nfhp_scope_set(rs, fl, d, i, 0, true, &end) ?:
		      nfhp_scoped_add(rs, sc, nfhp_flat_at(fl, i), end.hi);
	}
	/* Without skips left the hook's entries go back to their groups. */
	if (!err && !sc->n)
		err = -EAGAIN;
	sc->valid = !err;
	return err;
}

bool nfhp_update_verify;

/*
 * Set the scope ends of the skipping entries of @fl, hook @h, after an
 * update (@d): near the changes where the hook's committed skipping
 * entries are known, else in a pass over all entries, which then finds
 * them for the next update.  Tests check the first way
 * against the second (nfhp_update_verify).
 */
static int nfhp_flat_scopes(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			    const struct nfhp_flat *old, struct nfhp_delta *d,
			    int h)
{
	struct nfhp_scoped *sc = &rs->scoped[h];
	unsigned int nadded = d->nadded;
	int err;

	if (sc->valid)
		err = nfhp_scopes_near(rs, fl, old, d, sc);
	else
		err = nfhp_scopes_all(rs, fl, old, d, sc, false);
	if (!err && d->nadded > nadded) {
		sort(d->added, d->nadded, sizeof(*d->added), nfhp_uint_cmp,
		     NULL);
		sort(d->removed, d->nremoved, sizeof(*d->removed),
		     nfhp_uint_cmp, NULL);
	}
	if (!err && nfhp_update_verify)
		WARN_ON_ONCE(nfhp_scopes_all(rs, fl, old, d, NULL, true));
	return err;
}

/*
 * Gather the entries of group @g of @fl into @out, the policy last: all
 * of them where they skip, which keeps them in one tree.
 */
static unsigned int nfhp_group_gather(const struct nfhp_flat *fl,
				      unsigned int g,
				      const struct nfhp_entry **out)
{
	bool groups = nfhp_flat_groupable(fl);
	const struct nfhp_entry *e;
	struct nfhp_seq_iter it;
	unsigned int i, n = 0;

	nfhp_seq_iter_init(&it, &fl->e, 0);
	for (i = 0; i + 1 < fl->e.n; i++) {
		e = nfhp_seq_iter_next(&it);
		if (!groups || it.tag == g)
			out[n++] = e;
	}
	out[n++] = nfhp_seq_iter_next(&it);
	return n;
}

/* Has group @g of @fl an entry besides the policy?  Its tags tell. */
static bool nfhp_group_used(const struct nfhp_flat *fl, unsigned int g)
{
	unsigned int k, len, left = fl->e.n ? fl->e.n - 1 : 0;
	const struct nfhp_seq_page *pg;

	for (k = 0; k < fl->e.npages && left; k++) {
		pg = fl->e.slot[k].page;
		len = min_t(unsigned int, pg->n, left);
		if (memchr(pg->tag, g, len))
			return true;
		left -= len;
	}
	return false;
}

/**
 * struct nfhp_cands - how an update that walked the chains finds candidates
 * @idx: the index of the hook's committed entries
 * @removed: the committed entries the update removes, by address
 * @nremoved: entries in @removed
 * @d: the entries it adds, among those of @fl
 * @fl: the new entries
 */
struct nfhp_cands {
	const struct nfhp_candidx *idx;
	const struct nfhp_entry **removed;
	unsigned int nremoved;
	const struct nfhp_delta *d;
	const struct nfhp_flat *fl;
};

/**
 * struct nfhp_cands_query - one search of nfhp_cands_find()
 * @cx: where it searches
 * @g: the group searched
 * @x: the summary of the changed entry
 * @box: its box
 * @out: the candidates found
 * @n: candidates in @out
 */
struct nfhp_cands_query {
	const struct nfhp_cands *cx;
	unsigned int g;
	const struct nfhp_entry_sum *x;
	const struct nfhp_box *box;
	const struct nfhp_entry **out;
	unsigned int n;
};

static int nfhp_ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const void *const *)a;
	uintptr_t y = (uintptr_t)*(const void *const *)b;

	return x < y ? -1 : x > y;
}

static int nfhp_entry_order_cmp(const void *a, const void *b)
{
	const struct nfhp_entry *x = *(const struct nfhp_entry *const *)a;
	const struct nfhp_entry *y = *(const struct nfhp_entry *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* An entry the index found: a candidate unless the update removes it. */
static void nfhp_cands_take(void *arg, const struct nfhp_entry *e,
			    const struct nfhp_entry_sum *sum)
{
	struct nfhp_cands_query *q = arg;
	const struct nfhp_cands *cx = q->cx;

	if (nfhp_box_disjoint(e->box, q->box))
		return;
	if (cx->nremoved && bsearch(&e, cx->removed, cx->nremoved,
				    sizeof(*cx->removed), nfhp_ptr_cmp))
		return;
	q->out[q->n++] = e;
}

/*
 * The entries of group @g of the new entries whose boxes meet @box (with
 * summary @x), in order, into @out: the committed ones the index finds
 * but those removed, and the added ones.
 */
static unsigned int nfhp_cands_find(const struct nfhp_cands *cx,
				    unsigned int g,
				    const struct nfhp_entry_sum *x,
				    const struct nfhp_box *box,
				    const struct nfhp_entry **out)
{
	struct nfhp_cands_query q = {
		.cx = cx, .g = g, .x = x, .box = box, .out = out,
	};
	const struct nfhp_flat *fl = cx->fl;
	bool groups = nfhp_flat_groupable(fl);
	const struct nfhp_entry *e;
	struct nfhp_entry_sum sum;
	unsigned int a;

	/* Entries that skip others share one tree: ask every group. */
	for (q.g = groups ? g : 0; q.g < (groups ? g + 1 : NFHP_GROUPS);
	     q.g++)
		nfhp_candidx_query(cx->idx, q.g, x, nfhp_cands_take, &q);
	for (a = 0; a < cx->d->nadded; a++) {
		e = nfhp_flat_at(fl, cx->d->added[a]);
		if (groups && e->group != g)
			continue;
		nfhp_entry_sum_fill(&sum, e->box);
		if (nfhp_entry_sum_meet(&sum, x) &&
		    !nfhp_box_disjoint(e->box, box))
			out[q.n++] = e;
	}
	sort(out, q.n, sizeof(*out), nfhp_entry_order_cmp, NULL);
	return q.n;
}

/*
 * The candidates of the @nchanged entries @changed (summaries @x) among the
 * entries of group @g of @fl, by a pass over them all: for a chain with
 * jumps, or when the index could not be built.  Those of changed entry k
 * go to @cands from k * @fl->n on, @n[k] of them.
 */
static void nfhp_cands_scan(const struct nfhp_flat *fl, unsigned int g,
			    const struct nfhp_entry *const *changed,
			    const struct nfhp_entry_sum *x,
			    unsigned int nchanged,
			    const struct nfhp_entry **cands, unsigned int *n)
{
	struct nfhp_entry_sum own;
	const struct nfhp_entry_sum *sum = &own;
	bool groups = nfhp_flat_groupable(fl);
	const struct nfhp_entry *e;
	struct nfhp_seq_iter it;
	unsigned int i, k;

	nfhp_seq_iter_init(&it, &fl->e, 0);
	for (i = 0; i + 1 < fl->e.n; i++) {
		e = nfhp_seq_iter_next(&it);
		if (groups && it.tag != g)
			continue;
		/* A walking update keeps no summaries: read the box. */
		if (fl->summed)
			sum = &fl->sum[i];
		else
			nfhp_entry_sum_fill(&own, e->box);
		for (k = 0; k < nchanged; k++)
			if (nfhp_entry_sum_meet(sum, &x[k]) &&
			    !nfhp_box_disjoint(e->box, changed[k]->box))
				cands[k * fl->e.n + n[k]++] = e;
	}
}

/*
 * Work one or two changed entries of group @g into its tree @root.  A
 * rule's hotdrop entry comes with it: one pass over the hook's summaries
 * (or one search of @cx each, unless NULL) finds the candidates of both.
 * The pass reads the whole hook rather than a copy of the group's
 * entries: making that copy would read it all anyway, and write as much.
 * @cands has room for twice @fl's entries.  Return: 0, -ENOMEM, or
 * -EOVERFLOW when the update of the tree gave up.
 */
static int nfhp_update_group(struct nfhp_ruleset *rs, struct nfhp_node **root,
			     const struct nfhp_entry *const *changed,
			     unsigned int nchanged,
			     const struct nfhp_flat *fl, unsigned int g,
			     const struct nfhp_cands *cx,
			     const struct nfhp_entry **cands)
{
	unsigned long visits = nfhp_update_visits_min +
			       (unsigned long)nfhp_update_visits_per_entry *
			       fl->e.n;
	/* An update may work as much as a build of the hook's tree would. */
	u64 work = nfhp_build_budget_of(nfhp_build_budget, fl->e.n);
	unsigned int k, n[2] = { 0, 0 }, stride = fl->e.n;
	struct nfhp_entry_sum x[2];
	struct nfhp_node *new;
	int err;

	for (k = 0; k < nchanged; k++) {
		nfhp_entry_sum_fill(&x[k], changed[k]->box);
		if (cx)
			n[k] = nfhp_cands_find(cx, g, &x[k], changed[k]->box,
					       cands + k * stride);
	}
	if (!cx)
		nfhp_cands_scan(fl, g, changed, x, nchanged, cands, n);
	for (k = 0; k < nchanged; k++) {
		cands[k * stride + n[k]++] = nfhp_flat_at(fl, fl->e.n - 1);
		err = nfhp_tree_update(&rs->forest, *root, changed[k]->box,
				       cands + k * stride, n[k], visits, work,
				       &new);
		if (err)
			return err;
		nfhp_tree_put(&rs->forest, *root);
		*root = new;
	}
	return 0;
}

/*
 * Build group @g's tree anew from @fl, into @root, which may hold the
 * committed tree: for a group new to the hook, or when an update of the
 * tree gave up ("Updates: nfhp_tree_update()" in tree.c).  @cands has
 * room for @fl's entries.
 */
static int nfhp_group_rebuild(struct nfhp_ruleset *rs, struct nfhp_node **root,
			      const struct nfhp_flat *fl, unsigned int g,
			      const struct nfhp_entry **cands)
{
	struct nfhp_node *new;
	int err;

	err = nfhp_tree_build(&rs->forest, cands,
			      nfhp_group_gather(fl, g, cands), &new);
	if (err)
		return err;
	if (*root)
		nfhp_tree_put(&rs->forest, *root);
	*root = new;
	return 0;
}

/* Do @a and @b belong in one nfhp_update_group()? */
static bool nfhp_entries_pair(const struct nfhp_entry *a,
			      const struct nfhp_entry *b)
{
	return a->action == NFHP_ENTRY_HOTDROP && b->rule == a->rule &&
	       b->group == a->group;
}

/*
 * Update the trees for the @n changed entries of @e whose indexes
 * @changed lists, rising, in pairs where nfhp_entries_pair() allows.  The
 * groups of the changed entries are added to @groups, unless NULL; those
 * whose trees were built anew from @fl to @built, and left alone after.
 */
static int nfhp_update_changed(struct nfhp_ruleset *rs, struct nfhp_tables *t,
			       int h, const struct nfhp_seq *e,
			       const unsigned int *changed, unsigned int n,
			       const struct nfhp_flat *fl,
			       const struct nfhp_cands *cx,
			       const struct nfhp_entry **cands,
			       unsigned int *groups, unsigned int *built)
{
	const struct nfhp_entry *ch[2];
	unsigned int i, k, nch, g;
	bool gave_up;
	int err = 0;

	for (k = 0; k < n && !err; k++) {
		i = changed[k];
		ch[0] = nfhp_seq_get(e, i);
		ch[1] = k + 1 < n && changed[k + 1] == i + 1 ?
			nfhp_seq_get(e, i + 1) : NULL;
		nch = 1;
		if (ch[1] && nfhp_entries_pair(ch[0], ch[1])) {
			nch++;
			k++;
		}
		/* Entries that skip others share one tree. */
		g = nfhp_flat_groupable(fl) ? ch[0]->group : 0;
		if (groups)
			*groups |= 1u << g;
		/* A tree built in this commit holds every change already. */
		if (*built & (1u << g))
			continue;
		if (t->root[h][g])
			err = nfhp_update_group(rs, &t->root[h][g], ch, nch,
						fl, g, cx, cands);
		if (!t->root[h][g] || err == -EOVERFLOW) {
			gave_up = err == -EOVERFLOW;
			*built |= 1u << g;
			err = nfhp_group_rebuild(rs, &t->root[h][g], fl, g,
						 cands);
			rs->updates_given_up += !err && gave_up;
		}
	}
	return err;
}

/*
 * List in @d the added (new) and the removed (old) entries that @match
 * tells, rising; @d's arrays have room for all entries.  @match rises
 * where it is not -1, so the old entries it skips are the removed ones,
 * and no entry is touched to find them.
 */
static void nfhp_changed_list(const struct nfhp_flat *fl,
			      const struct nfhp_flat *old, const int *match,
			      struct nfhp_delta *d)
{
	unsigned int i, next = 0;

	for (i = 0; i < fl->e.n; i++) {
		if (match[i] < 0) {
			d->added[d->nadded++] = i;
			continue;
		}
		while (next < (unsigned int)match[i])
			d->removed[d->nremoved++] = next++;
		next++;
	}
	/* The policies match, the last entry of both: none is left over. */
	WARN_ON_ONCE(next != old->e.n);
}

/*
 * Apply the added (new) and removed (old) entries to @t's trees; @d lists
 * them, or is NULL and @match tells.  @cx finds the candidates, or is NULL
 * and a scan of @fl does.
 */
static int nfhp_update_trees(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			     const struct nfhp_flat *old, const int *match,
			     const struct nfhp_delta *d,
			     const struct nfhp_cands *cx,
			     const struct nfhp_tables *cur,
			     struct nfhp_tables *t, int h)
{
	struct nfhp_scratch *s = &rs->forest.scratch;
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(s);
	const struct nfhp_entry **cands;
	struct nfhp_delta listed = {};
	unsigned int g, emptied = 0, built = 0;
	int err = -ENOMEM;

	/*
	 * Scratch memory, kept from one commit to the next: allocated anew,
	 * these arrays (1.6 MB at 100,000 entries) were page faults at every
	 * commit.
	 */
	cands = nfhp_scratch_alloc(s, 2 * fl->e.n, sizeof(*cands));
	if (!cands)
		goto out_release;
	if (!d) {
		listed.added = nfhp_scratch_alloc(s, fl->e.n, sizeof(int));
		listed.removed = nfhp_scratch_alloc(s, old->e.n, sizeof(int));
		if (!listed.added || !listed.removed)
			goto out_release;
		nfhp_changed_list(fl, old, match, &listed);
		d = &listed;
	}
	for (g = 0; g < NFHP_GROUPS; g++) {
		t->root[h][g] = cur->root[h][g];
		if (t->root[h][g])
			nfhp_tree_get(t->root[h][g]);
	}
	err = nfhp_update_changed(rs, t, h, &fl->e, d->added, d->nadded, fl,
				  cx, cands, NULL, &built);
	if (!err)
		err = nfhp_update_changed(rs, t, h, &old->e, d->removed,
					  d->nremoved, fl, cx, cands, &emptied,
					  &built);
	/* Only a group that lost entries can have none left. */
	for (g = 1; g < NFHP_GROUPS && !err; g++) {
		if (!(emptied & (1u << g)) || !t->root[h][g] ||
		    nfhp_group_used(fl, g))
			continue;
		nfhp_tree_put(&rs->forest, t->root[h][g]);
		t->root[h][g] = NULL;
	}
out_release:
	nfhp_scratch_release(s, mark);
	return err;
}

/*
 * The committed entries @d removes, sorted by address for bsearch(), into
 * @cx.  Return: false without memory.
 */
static bool nfhp_cands_removed(struct nfhp_ruleset *rs, struct nfhp_cands *cx,
			       const struct nfhp_flat *old)
{
	const struct nfhp_delta *d = cx->d;
	unsigned int i;

	cx->removed = nfhp_scratch_alloc(&rs->forest.scratch, d->nremoved,
					 sizeof(*cx->removed));
	if (!cx->removed)
		return false;
	for (i = 0; i < d->nremoved; i++)
		cx->removed[i] = nfhp_flat_at(old, d->removed[i]);
	sort(cx->removed, d->nremoved, sizeof(*cx->removed), nfhp_ptr_cmp,
	     NULL);
	cx->nremoved = d->nremoved;
	return true;
}

/*
 * Update the trees of a hook whose new entries @fl are aligned with the
 * old ones by @match, whose changes @d lists unless NULL; kept entries are
 * in @fl already.  -EAGAIN: too many changes, or no room for the new
 * order keys: rebuild instead.
 */
static int nfhp_update_matched(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			       const int *match, struct nfhp_delta *d,
			       struct nfhp_cands *cx,
			       unsigned int changes,
			       const struct nfhp_tables *cur,
			       struct nfhp_tables *t, int h)
{
	const struct nfhp_flat *old = &rs->flat[h];
	int err;

	if (changes > max_t(unsigned int, 64, fl->e.n / NFHP_INCR_MAX_SHARE))
		return -EAGAIN;
	/*
	 * Keys go to added entries only, this transaction's own: when there
	 * is no room, the caller flattens the hook afresh anyway.
	 */
	err = d ? nfhp_delta_orders(fl, d) :
		  nfhp_flat_orders(fl, old, match, true);
	if (!err && d && fl->skips)
		err = nfhp_flat_scopes(rs, fl, old, d, h);
	if (err)
		return err;
	/* The removed entries, the scopes' replaced ones included. */
	if (cx && !nfhp_cands_removed(rs, cx, old))
		cx = NULL;
	return nfhp_update_trees(rs, fl, old, match, d, cx, cur, t, h);
}

/*
 * Carry the unchanged entries of the hook's last commit over into @fl and
 * update its trees only where entries came or went.  -EAGAIN: a rebuild
 * from scratch is the better (or only) way; @fl is then untouched.
 */
static noinline_for_stack int
nfhp_update_hook(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		 const struct nfhp_tables *cur,
		 struct nfhp_tables *t, int h)
{
	const struct nfhp_flat *old = &rs->flat[h];
	unsigned int changes;
	int *match, err = -EAGAIN;

	/* Updates know neither skips nor entries that no tree holds. */
	if (!cur || !old->e.n || !nfhp_flat_groupable(fl) ||
	    !nfhp_flat_groupable(old) || fl->voids || old->voids)
		return -EAGAIN;
	match = nfhp_ints_alloc(rs, fl->e.n, &fl->from_cap);
	fl->from = match;
	if (!match)
		return -ENOMEM;
	changes = nfhp_flat_diff(old, fl, match);
	if (changes > max_t(unsigned int, 64, fl->e.n / NFHP_INCR_MAX_SHARE))
		goto out_free;
	err = nfhp_flat_orders(fl, old, match, false);
	if (err)
		goto out_free;
	err = nfhp_flat_settle(rs, fl, old, match);
	if (!err)
		err = nfhp_update_matched(rs, fl, match, NULL, NULL, changes,
					  cur, t, h);
	return err;
out_free:
	/* The caller settles @fl as entries of its own. */
	nfhp_ints_free(rs, fl->from, fl->from_cap);
	fl->from = NULL;
	fl->from_cap = 0;
	return err;
}

/*
 * Append the old entries [@i, @i + @n) to @fl as kept: runs of them, so
 * that a hundred thousand kept entries are a few calls, not as many.  The
 * pages of @old the run covers whole are shared, not copied: at 170,000
 * entries the copy was 1.4 MB, a third of a single-rule update.  Only a
 * walking update keeps entries this way: no summaries.
 */
static int nfhp_flat_keep(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			  const struct nfhp_flat *old, unsigned int i,
			  unsigned int n)
{
	return nfhp_seq_append_run(&rs->mem, &fl->e, &old->e, i, n);
}

/* Record the old entries [@i, @end) as removed; false when @d is full. */
static bool nfhp_delta_remove(struct nfhp_delta *d, unsigned int i,
			      unsigned int end)
{
	for (; i < end; i++) {
		if (d->nremoved == d->cap)
			return false;
		d->removed[d->nremoved++] = i;
	}
	return true;
}

/* Chains deeper than this are flattened afresh, not walked by an update. */
#define NFHP_REFLAT_DEPTH	8

/**
 * struct nfhp_reflat - a walk that carries a hook's committed entries over
 * @rs: the rule set
 * @fl: the new entries
 * @old: the hook's committed entries
 * @d: the changes found so far
 * @firsts: where the rules of the committed built-in chain begin in @old
 * @stable: the commit's, see nfhp_chain_stable()
 * @run_from: the first of the committed entries waiting to be carried over
 * @run_to: the entry after them
 *
 * The entries carried over are gathered into runs first: the rules of a
 * user chain of 400 are then one copy, not 400.
 */
struct nfhp_reflat {
	struct nfhp_ruleset *rs;
	struct nfhp_flat *fl;
	const struct nfhp_flat *old;
	struct nfhp_delta *d;
	const struct nfhp_firsts *firsts;
	u8 *stable;
	unsigned int run_from;
	unsigned int run_to;
};

static int nfhp_reflat_flush(struct nfhp_reflat *w)
{
	int err = nfhp_flat_keep(w->rs, w->fl, w->old, w->run_from,
				 w->run_to - w->run_from);

	w->run_from = w->run_to;
	return err;
}

/* Carry the committed entries [@from, @to) over. */
static int nfhp_reflat_keep(struct nfhp_reflat *w, unsigned int from,
			    unsigned int to)
{
	int err = 0;

	if (from == to)
		return 0;
	if (from != w->run_to) {
		err = nfhp_reflat_flush(w);
		w->run_from = from;
	}
	w->run_to = to;
	return err;
}

/* The committed entries [@from, @to) are gone; -EAGAIN: too many changes. */
static int nfhp_reflat_remove(struct nfhp_reflat *w, unsigned int from,
			      unsigned int to)
{
	return nfhp_delta_remove(w->d, from, to) ? 0 : -EAGAIN;
}

/*
 * Flatten the rule @r this transaction created into @w's entries, under
 * the matches @prefix of the jumps to its chain, as added ones.  A jump
 * adds its chain's entries too, so @d->added grows, up to as many
 * changes as an update takes.
 */
static int nfhp_reflat_created(struct nfhp_reflat *w,
			       const struct nfhp_rule *r,
			       const struct nfhp_box *prefix,
			       unsigned int depth, u8 flags)
{
	struct nfhp_ruleset *rs = w->rs;
	struct nfhp_flat *fl = w->fl;
	struct nfhp_delta *d = w->d;
	unsigned int k, m;
	int err;

	err = nfhp_reflat_flush(w);
	if (err)
		return err;
	k = fl->e.n;
	err = nfhp_flatten_rule(rs, rs->work, fl, r, prefix, depth, flags);
	if (d->nadded + fl->e.n - k > d->cap)
		err = err ?: -EAGAIN;
	else if (nfhp_grow(&rs->mem, (void **)&d->added, &d->added_cap,
			   d->nadded + fl->e.n - k, sizeof(*d->added)))
		err = err ?: -ENOMEM;
	else
		for (; k < fl->e.n; k++)
			d->added[d->nadded++] = k;
	fl->own = d->added;
	fl->own_cap = d->added_cap;
	fl->nown = d->nadded;
	/* Entries not listed are nobody's: free them here. */
	for (m = k; m < fl->e.n; m++)
		nfhp_entry_free(rs, fl, nfhp_flat_at(fl, m));
	nfhp_seq_truncate(&rs->mem, &fl->e, k);
	return err;
}

/* Does the rule @r keep all its committed entries, those it jumps to too? */
static bool nfhp_reflat_rule_kept(struct nfhp_reflat *w,
				  const struct nfhp_rule *r)
{
	if (!nfhp_rule_jumps(r))
		return true;
	return nfhp_target_stable(w->rs, w->stable, r, 0);
}

/*
 * Where the committed entries of the rule @r of a chain flattened at
 * @depth end, those from @i on: its own entries are at @depth, those of
 * the chains it jumps to deeper.  At most @most are read: the index
 * returned is @i + @most when the rule goes on past them.
 */
static unsigned int nfhp_reflat_extent(const struct nfhp_flat *old,
				       unsigned int i,
				       const struct nfhp_rule *r,
				       unsigned int depth, unsigned int most)
{
	unsigned int stop = old->e.n - 1;
	const struct nfhp_entry *e;
	struct nfhp_seq_iter it;

	if (stop - i > most)
		stop = i + most;
	nfhp_seq_iter_init(&it, &old->e, i);
	for (; i < stop; i++) {
		e = nfhp_seq_iter_next(&it);
		if (e->depth < depth || (e->depth == depth && e->rule != r))
			break;
	}
	return i;
}

/*
 * Entries of a built-in chain's jump read for where they end, before the
 * index of first entries is asked: most chains that a Kubernetes node
 * jumps to have two or three entries, and reading them is cheaper than a
 * search of the hook's entries.
 */
#define NFHP_REFLAT_SCAN	16

static int nfhp_reflat_chain(struct nfhp_reflat *w,
			     const struct nfhp_chain *oc,
			     const struct nfhp_chain *nc, unsigned int *pos,
			     const struct nfhp_box *prefix, unsigned int depth,
			     u8 flags, bool top);

/*
 * Where the committed entries of rule @oj of the built-in chain @oc
 * begin, at @from or after it, into *@i: the policy's after the last
 * rule.  The index of first entries gives the key.  A rule without
 * entries (one that matches nothing) is not in it, and begins where the
 * next rule does.  -EAGAIN, a bug, when the entry there is not the
 * rule's first, and the hook is built anew.
 */
static int nfhp_reflat_first(const struct nfhp_reflat *w,
			     const struct nfhp_chain *oc, unsigned int oj,
			     unsigned int from, unsigned int *i)
{
	const struct nfhp_flat *old = w->old;
	const struct nfhp_rule *r = NULL;
	u64 order = NFHP_ORDER_UNSET;
	unsigned int k;

	for (; oj < oc->rules.n; oj++) {
		r = nfhp_chain_at(oc, oj);
		order = nfhp_firsts_find(w->firsts, r);
		if (order != NFHP_ORDER_UNSET)
			break;
	}
	if (oj == oc->rules.n) {
		*i = old->e.n - 1;
		return 0;
	}
	k = nfhp_flat_lower_from(old, from, order);
	if (WARN_ON_ONCE(k + 1 >= old->e.n || nfhp_flat_at(old, k)->rule != r ||
			 nfhp_flat_at(old, k)->depth ||
			 (k && nfhp_flat_at(old, k - 1)->rule == r &&
			  !nfhp_flat_at(old, k - 1)->depth)))
		return -EAGAIN;
	*i = k;
	return 0;
}

/*
 * Where the committed entries of rule @oj of @oc, flattened at @depth
 * from @i on, end, into *@end.  They are read up to the next rule's,
 * but a built-in chain's jump may lead to thousands: past
 * NFHP_REFLAT_SCAN entries the next rule's first is looked up.
 */
static int nfhp_reflat_end(const struct nfhp_reflat *w,
			   const struct nfhp_chain *oc, unsigned int oj,
			   unsigned int i, unsigned int depth, bool top,
			   unsigned int *end)
{
	const struct nfhp_rule *r = nfhp_chain_at(oc, oj);
	bool far = top && nfhp_rule_jumps(r);
	unsigned int k;

	k = nfhp_reflat_extent(w->old, i, r, depth,
			       far ? NFHP_REFLAT_SCAN : U32_MAX);
	if (far && k - i == NFHP_REFLAT_SCAN)
		return nfhp_reflat_first(w, oc, oj + 1, k, end);
	*end = k;
	return 0;
}

/*
 * The rule @r at @depth is kept, but the chain it jumps to changed: its
 * own entries, the committed [@from, @to), are carried over, and each
 * one's chain is walked against the committed chain, with the entry's
 * box as what the jump matches and its flags (a jump decided at packet
 * time makes its chain's entries conditional); a goto's implicit RETURN
 * after the chain is carried over too.
 */
static int nfhp_reflat_jump(struct nfhp_reflat *w, const struct nfhp_rule *r,
			    unsigned int from, unsigned int to,
			    unsigned int depth)
{
	const struct nfhp_entry *e;
	int oc, nc, err = 0;

	if (depth + 1 >= NFHP_REFLAT_DEPTH)
		return -EAGAIN;
	oc = nfhp_chain_target(w->rs->live, r);
	nc = nfhp_chain_target(w->rs->work, r);
	if (oc < 0 || nc < 0)
		return -EAGAIN;
	while (from < to && !err) {
		e = nfhp_flat_at(w->old, from);
		if (e->rule != r || e->depth != depth)
			return -EAGAIN;	/* not the entries of @r */
		err = nfhp_reflat_keep(w, from, from + 1);
		from++;
		if (err || e->action == NFHP_ENTRY_HOTDROP)
			continue;
		err = nfhp_reflat_chain(w, w->rs->live->chains[oc],
					w->rs->work->chains[nc], &from, e->box,
					depth + 1,
					e->flags & (NFHP_ENTRY_COND |
						    NFHP_ENTRY_VOID),
					false);
		if (err || r->action != NFHP_ACT_GOTO)
			continue;
		if (from >= to || nfhp_flat_at(w->old, from)->rule ||
		    nfhp_flat_at(w->old, from)->action != NFHP_ACT_RETURN)
			return -EAGAIN;	/* no implicit RETURN */
		err = nfhp_reflat_keep(w, from, from + 1);
		from++;
	}
	return err;
}

/*
 * How many rules of the staged chain @nc from @j on are those of the
 * committed @oc from @oj on, for a chain without jumps.
 */
static unsigned int nfhp_reflat_same_len(const struct nfhp_chain *oc,
					 unsigned int oj,
					 const struct nfhp_chain *nc,
					 unsigned int j)
{
	unsigned int most = min(nc->rules.n - j, oc->rules.n - oj);
	unsigned int len = 0, known = 0;

	/* What the transaction left alone needs no comparing. */
	if (j == oj && j < nc->same_head)
		known = min(most, nc->same_head - j);
	if (nc->rules.n - j == oc->rules.n - oj &&
	    nc->rules.n - j <= nc->same_tail)
		known = most;
	if (!nfhp_update_verify)
		len = known;
	/* The chains' rule pointers, pages they share unread: no entry is. */
	len += nfhp_seq_same_len(&nc->rules, j + len, &oc->rules, oj + len,
				 most - len);
	WARN_ON_ONCE(len < known);
	return len;
}

/*
 * nfhp_reflat_same_len() for a chain with jumps: only the rules that
 * also keep all their entries, the jumps whose chains did not change.
 */
static unsigned int nfhp_reflat_kept_len(struct nfhp_reflat *w,
					 const struct nfhp_chain *oc,
					 unsigned int oj,
					 const struct nfhp_chain *nc,
					 unsigned int j)
{
	unsigned int len = 0, most = min(nc->rules.n - j, oc->rules.n - oj);
	const struct nfhp_rule *r;

	for (; len < most; len++) {
		r = nfhp_chain_at(nc, j + len);
		if (r != nfhp_chain_at(oc, oj + len) ||
		    !nfhp_reflat_rule_kept(w, r))
			break;
	}
	return len;
}

/*
 * Carry over the entries of the rules the committed built-in chain @oc
 * and the staged one @nc share from position @oj and @j on, as many as
 * follow alike and keep all their entries (a jump whose chain did not
 * change); the committed ones begin at *@i, and *@i ends after them.
 * Only the end of the run is looked up, not each rule's: 5,000 jumps of
 * a Kubernetes node are one run but for the chain that changed.
 * Return: how many rules, 0 when the first one is not kept.
 */
static int nfhp_reflat_run(struct nfhp_reflat *w, const struct nfhp_chain *oc,
			   unsigned int oj, const struct nfhp_chain *nc,
			   unsigned int j, unsigned int *i)
{
	unsigned int len, from = *i;
	int err;

	len = nc->njump ? nfhp_reflat_kept_len(w, oc, oj, nc, j) :
			  nfhp_reflat_same_len(oc, oj, nc, j);
	if (!len)
		return 0;
	err = nfhp_reflat_first(w, oc, oj + len, from, i);
	return err ?: nfhp_reflat_keep(w, from, *i) ?: len;
}

/*
 * Walk the committed chain @oc, whose entries begin at *@pos, and the
 * staged @nc side by side, both flattened under @prefix at @depth with
 * @flags: the entries of the rules both have are carried over (or
 * walked, for a jump whose chain changed), a rule this transaction
 * created is flattened, and a committed rule that @nc lacks was removed.
 * *@pos ends after @oc's entries.  @top: @oc is a built-in chain, where
 * the index of first entries finds runs of kept rules at once.
 */
static int nfhp_reflat_chain(struct nfhp_reflat *w,
			     const struct nfhp_chain *oc,
			     const struct nfhp_chain *nc, unsigned int *pos,
			     const struct nfhp_box *prefix, unsigned int depth,
			     u8 flags, bool top)
{
	const struct nfhp_rule *r;
	unsigned int j = 0, oj = 0, i = *pos, end;
	int err = 0, len;

	while (j < nc->rules.n && !err) {
		r = nfhp_chain_at(nc, j);
		if (top && oj < oc->rules.n && nfhp_chain_at(oc, oj) == r) {
			len = nfhp_reflat_run(w, oc, oj, nc, j, &i);
			if (len < 0)
				return len;
			j += len;
			oj += len;
			if (len)
				continue;
		}
		if (oj < oc->rules.n && nfhp_chain_at(oc, oj) == r) {
			err = nfhp_reflat_end(w, oc, oj, i, depth, top, &end);
			if (err)
				break;
			err = nfhp_reflat_rule_kept(w, r) ?
			      nfhp_reflat_keep(w, i, end) :
			      nfhp_reflat_jump(w, r, i, end, depth);
			i = end;
			j++;
			oj++;
		} else if (r->gen == w->rs->gen) {
			err = nfhp_reflat_created(w, r, prefix, depth, flags);
			j++;
		} else if (oj < oc->rules.n) {
			/* Removed: a rule stays the same object while kept. */
			err = nfhp_reflat_end(w, oc, oj, i, depth, top, &end);
			if (err)
				break;
			err = nfhp_reflat_remove(w, i, end);
			i = end;
			oj++;
		} else {
			return -EAGAIN;	/* not the chain of the entries */
		}
	}
	for (; oj < oc->rules.n && !err; oj++) {
		err = nfhp_reflat_end(w, oc, oj, i, depth, top, &end);
		if (err)
			break;
		err = nfhp_reflat_remove(w, i, end);
		i = end;
	}
	*pos = i;
	return err;
}

/*
 * The entries of hook @h now and at the last commit: a rule's entries
 * are its own and those of the chains it jumps to, and the index of
 * first entries tells where each rule of the built-in chain's begin.
 * So the two chains are compared rule by rule, the entries of the rules
 * they share are carried over, and only what this transaction changed
 * is flattened: the rules it created, and those of the chains it changed
 * where a kept rule jumps to them.  @d lists the changes; more than it
 * has room for are more than an update takes: -EAGAIN.
 */
static int nfhp_reflatten_hook(struct nfhp_ruleset *rs, int h,
			       struct nfhp_flat *fl, struct nfhp_delta *d,
			       unsigned int *changes)
{
	const struct nfhp_chain *nc = rs->work->chains[h];
	const struct nfhp_flat *old = &rs->flat[h];
	struct nfhp_reflat w = {
		.rs = rs, .fl = fl, .old = old, .d = d,
		.firsts = &rs->firsts[h], .stable = rs->stable,
	};
	unsigned int pos = 0;
	int err;

	err = nfhp_reflat_chain(&w, rs->live->chains[h], nc, &pos, NULL, 0, 0,
				true);
	if (!err && pos != old->e.n - 1)
		err = -EAGAIN;	/* not the chain of the entries */
	/* Then the policy, always kept. */
	if (!err)
		err = nfhp_reflat_keep(&w, old->e.n - 1, old->e.n);
	if (!err)
		err = nfhp_reflat_flush(&w);
	*changes = d->nadded + d->nremoved;
	return err;
}

/*
 * Is an update of hook @h bound to give up for a rebuild?  Each rule of a
 * hook's chain has at least one entry, so when more rules came or went
 * than an update takes entries (see nfhp_update_matched()), it is.  A
 * restore then flattens the hook once, not three times.  Only a guess
 * for chains with jumps, and a wrong guess merely rebuilds.
 */
static bool nfhp_rebuild_certain(const struct nfhp_ruleset *rs, int h)
{
	unsigned int now = rs->work->chains[h]->rules.n;
	unsigned int was = rs->live ? rs->live->chains[h]->rules.n : 0;
	unsigned int moved = now > was ? now - was : was - now;

	return moved > max_t(unsigned int, 64, (3 * now + 1) /
					       NFHP_INCR_MAX_SHARE);
}

/*
 * The candidate index of hook @h for an update from its committed entries
 * @old, or NULL when there is none and no memory to build it.
 */
static struct nfhp_candidx *nfhp_cands_index(struct nfhp_ruleset *rs, int h,
					     const struct nfhp_flat *old)
{
	struct nfhp_candidx *idx = &rs->cands[h];

	if (!idx->valid && nfhp_candidx_build(&rs->mem, idx, &old->e,
					      old->e.n - 1))
		return NULL;
	return idx;
}

/*
 * The index of first entries of hook @h for an update from its committed
 * entries @old, or NULL when there is none and no memory to build it.
 */
static const struct nfhp_firsts *
nfhp_firsts_index(struct nfhp_ruleset *rs, int h, const struct nfhp_flat *old)
{
	struct nfhp_firsts *f = &rs->firsts[h];

	if (!f->valid && nfhp_firsts_build(&rs->mem, f, &old->e, old->e.n,
					   rs->live->chains[h]->rules.n))
		return NULL;
	return f;
}

/*
 * Bring the index of first entries @f from the committed entries @old to
 * the new ones @fl (the changes @d): the rules whose first entry went are
 * forgotten, then the rules of the entries that came are noted, the
 * first entry winning.  An entry replaced by a copy keeps its key, so
 * its rule is noted again.  Without memory the index is cleared, to be
 * built again by the next update.  Tests check it against one built.
 */
static void nfhp_firsts_apply(struct nfhp_ruleset *rs, struct nfhp_firsts *f,
			      const struct nfhp_flat *old,
			      const struct nfhp_flat *fl,
			      const struct nfhp_delta *d, int h)
{
	struct nfhp_firsts built = {};
	const struct nfhp_entry *e;
	unsigned int i;

	for (i = 0; i < d->nremoved; i++) {
		e = nfhp_flat_at(old, d->removed[i]);
		if (!e->depth && e->rule)
			nfhp_firsts_del(f, e->rule, e->order);
	}
	for (i = 0; i < d->nadded; i++) {
		e = nfhp_flat_at(fl, d->added[i]);
		if (e->depth || !e->rule)
			continue;
		if (nfhp_firsts_add(&rs->mem, f, e->rule, e->order)) {
			nfhp_firsts_clear(&rs->mem, f);
			return;
		}
	}
	if (!nfhp_update_verify ||
	    nfhp_firsts_build(&rs->mem, &built, &fl->e, fl->e.n,
			      rs->work->chains[h]->rules.n))
		return;
	WARN_ON_ONCE(!nfhp_firsts_equal(f, &built));
	nfhp_firsts_clear(&rs->mem, &built);
}

/*
 * Bring @idx from the committed entries @old to the new ones @fl, which
 * @d lists the changes of; without memory it is cleared, to be built
 * again by the next update.
 */
static void nfhp_cands_apply(struct nfhp_ruleset *rs, struct nfhp_candidx *idx,
			     const struct nfhp_flat *old,
			     const struct nfhp_flat *fl,
			     const struct nfhp_delta *d)
{
	struct nfhp_entry_sum sum;
	struct nfhp_entry *e;
	unsigned int i;
	bool ok = true;

	for (i = 0; i < d->nremoved && ok; i++) {
		e = nfhp_flat_at(old, d->removed[i]);
		nfhp_entry_sum_fill(&sum, e->box);
		ok = !WARN_ON_ONCE(!nfhp_candidx_del(&rs->mem, idx, e->group, e,
						     &sum));
	}
	for (i = 0; i < d->nadded && ok; i++) {
		e = nfhp_flat_at(fl, d->added[i]);
		nfhp_entry_sum_fill(&sum, e->box);
		ok = !nfhp_candidx_add(&rs->mem, idx, e->group, e, &sum);
	}
	if (!ok)
		nfhp_candidx_clear(&rs->mem, idx);
}

/* List in @fl the committed entries @d removes, for the release. */
static int nfhp_flat_gone(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
			  const struct nfhp_flat *old,
			  const struct nfhp_delta *d)
{
	unsigned int i;

	fl->gone = nfhp_alloc(&rs->mem, max(d->nremoved, 1u) *
					sizeof(*fl->gone));
	if (!fl->gone)
		return -ENOMEM;
	for (i = 0; i < d->nremoved; i++)
		fl->gone[i] = nfhp_flat_at(old, d->removed[i]);
	fl->ngone = d->nremoved;
	return 0;
}

/*
 * nfhp_reflatten_hook() and nfhp_update_matched(), or -EAGAIN.  The
 * hook's committed entries must have no void entries, which an update cannot place.  A hook whose
 * entries skip (a RETURN, a goto, a jump decided at packet time) keeps
 * its one tree and has its scopes' ends set anew (nfhp_flat_scopes());
 * the first such entry, or the last one gone, rebuilds it.
 */
static noinline_for_stack int
nfhp_update_rules(struct nfhp_ruleset *rs, struct nfhp_flat *fl,
		  const struct nfhp_tables *cur, struct nfhp_tables *t, int h)
{
	const struct nfhp_flat *old = &rs->flat[h];
	const struct nfhp_chain *nc = rs->work->chains[h];
	/* A rule has up to three entries: hotdrop, box and alt. */
	unsigned int most = max(3 * nc->rules.n + 1, old->e.n), changes = 0;
	struct nfhp_scratch *s = &rs->forest.scratch;
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(s);
	struct nfhp_delta d = {
		.cap = max_t(unsigned int, 64, most / NFHP_INCR_MAX_SHARE) + 1,
	};
	struct nfhp_cands cx = { .d = &d, .fl = fl };
	int err = -ENOMEM;

	if (!cur || !old->e.n || !rs->live || !rs->stable || old->voids ||
	    !nfhp_firsts_index(rs, h, old))
		return -EAGAIN;
	fl->fold = old->fold;
	/* Entries carried over may run xtables targets, or skip. */
	fl->rekeys = old->rekeys;
	fl->skips = old->skips;
	/*
	 * The removed ones live on the scratch stack: two allocations per
	 * commit made glibc give pages back and fault them in again, 1 % of
	 * the inserts at fw1_100k took 30 ms.  The added ones are the new
	 * entries' @own, few.
	 */
	d.removed = nfhp_scratch_alloc(s, d.cap, sizeof(*d.removed));
	if (!d.removed || nfhp_grow(&rs->mem, (void **)&d.added, &d.added_cap,
				    3 * rs->created.n + 1,
				    sizeof(*d.added))) {
		nfhp_free(&rs->mem, d.added, d.added_cap * sizeof(*d.added));
		goto out_release;
	}
	fl->own = d.added;
	fl->own_cap = d.added_cap;
	/* Room for about as many pages as before: no doubling copies. */
	err = nfhp_seq_reserve(&rs->mem, &fl->e, old->e.npages + 4);
	if (!err)
		err = nfhp_reflatten_hook(rs, h, fl, &d, &changes);
	/*
	 * The first skipping entry merges the trees into one; and after a
	 * new xtables target a jump's rules that cannot match under it are
	 * void entries now, which the carried-over ones lack.
	 */
	if (!err && (fl->skips != old->skips || fl->voids ||
		     (fl->rekeys && !old->rekeys && nc->nbranch)))
		err = -EAGAIN;
	/* Without the index (no memory for it), the scan finds them. */
	if (!err)
		cx.idx = nfhp_cands_index(rs, h, old);
	if (!err)
		err = nfhp_update_matched(rs, fl, NULL, &d,
					  cx.idx ? &cx : NULL, changes, cur,
					  t, h);
	if (!err)
		err = nfhp_flat_gone(rs, fl, old, &d);
	if (!err && cx.idx)
		nfhp_cands_apply(rs, &rs->cands[h], old, fl, &d);
	if (!err)
		nfhp_firsts_apply(rs, &rs->firsts[h], old, fl, &d, h);
	/*
	 * On failure the rule set goes on with its committed entries.  The
	 * trees go first: their leaves may be the new entries' own.
	 */
	if (err) {
		nfhp_hook_trees_drop(rs, t, h);
		nfhp_flat_free(rs, fl);
	}
out_release:
	nfhp_scratch_release(s, mark);
	return err;
}

/* Order the trees of each hook for nfhp_classify(). */
static void nfhp_tables_sequence(struct nfhp_tables *t)
{
	const struct nfhp_node *tmp, **seq;
	unsigned int h, g, i, hot;

	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		t->ntrees[h][0] = 0;
		t->ntrees[h][1] = 0;
		for (g = 0; g < NFHP_GROUPS; g++) {
			if (!t->root[h][g])
				continue;
			hot = g >= NFHP_WIDTH_TREES;
			seq = t->seq[h][hot];
			i = t->ntrees[h][hot]++;
			seq[i] = t->root[h][g];
			for (; i && seq[i - 1]->min_order > seq[i]->min_order;
			     i--) {
				tmp = seq[i - 1];
				seq[i - 1] = seq[i];
				seq[i] = tmp;
			}
		}
	}
}

/* Flatten and compile the dirty hooks into @t; undo all on failure. */
static int nfhp_commit_build(struct nfhp_ruleset *rs, unsigned int dirty,
			     struct nfhp_tables *t, struct nfhp_flat *flat,
			     const char **msg)
{
	const struct nfhp_tables *cur = rcu_dereference_protected(rs->tables,
								  1);
	int h, g, err = 0;
	bool certain;

	rs->flat_bound = nfhp_flat_bound(rs->work);
	for (h = 0; h < NFHP_HOOK_MAX && !err; h++) {
		t->policy[h] = rs->work->chains[h]->policy;
		if (!(dirty & (1u << h))) {
			for (g = 0; g < NFHP_GROUPS; g++) {
				t->root[h][g] = cur->root[h][g];
				if (t->root[h][g])
					nfhp_tree_get(t->root[h][g]);
			}
			continue;
		}
		certain = nfhp_rebuild_certain(rs, h) || nfhp_fold_stale(rs, h);
		err = certain ? -EAGAIN :
				nfhp_update_rules(rs, &flat[h], cur, t, h);
		/* The indexes follow walking updates only. */
		if (err)
			nfhp_hook_indexes_clear(rs, h);
		if (err == -EAGAIN) {
			if (cur && rs->flat[h].e.n && !certain)
				nfhp_flat_stage(rs, &flat[h]);
			err = nfhp_flatten_hook(rs, rs->work, h, &flat[h]);
			if (err)
				break;
			err = certain ? -EAGAIN :
				nfhp_update_hook(rs, &flat[h], cur, t, h);
		}
		if (err == -EAGAIN)
			err = nfhp_flat_settle(rs, &flat[h], NULL, NULL) ?:
			      -EAGAIN;
		if (err == -EAGAIN) {
			nfhp_hook_trees_drop(rs, t, h);
			nfhp_flat_regroup(rs, &flat[h], h);
			err = nfhp_build_groups(rs, &flat[h], t, h);
		}
		/* An update flattens only what it adds: count them all. */
		if (!err && flat[h].e.n > rs->flat_bound)
			err = -EFBIG;
	}
	if (!err) {
		for (h = 0; h < NFHP_HOOK_MAX; h++) {
			const struct nfhp_flat *fl = dirty & (1u << h) ?
						     &flat[h] : &rs->flat[h];

			t->entries[h] = fl->e;
		}
		nfhp_tables_sequence(t);
		return 0;
	}
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		nfhp_hook_trees_drop(rs, t, h);
		nfhp_flat_free(rs, &flat[h]);
		/* An index a walking update brought forward is wrong now. */
		if (dirty & (1u << h))
			nfhp_hook_indexes_clear(rs, h);
	}
	if (err == -ELOOP)
		*msg = "too many levels of chain jumps";
	else if (err == -E2BIG)
		*msg = "rule set too deep to compile on the kernel stack";
	else if (err == -ECANCELED)
		*msg = "interrupted by a signal: the old rules stay in force";
	else if (err == -EFBIG)
		*msg = "user chains reached from too many places: a hook would flatten into more than 16 entries a rule";
	else
		*msg = "out of memory (see /proc/net/nf-hipac/info)";
	return err;
}

/*
 * A jump may have made a user chain reachable from a hook that one of its
 * rules' extensions is not valid at (-m owner reached from INPUT), which
 * iptables refuses when it replaces the table; so does the commit.
 */
static int nfhp_check_hooks(struct nfhp_ruleset *rs, const char **msg)
{
	const struct nfhp_model *m = rs->work;
	unsigned int i, j;
	int h;

	if (!rs->nbound)
		return 0;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		rs->mark++;
		nfhp_reach(rs, m, m->chains[h], 0);
		for (i = 0; i < m->n; i++) {
			const struct nfhp_chain *c = m->chains[i];

			if (c->mark != rs->mark || c->hook >= 0)
				continue;
			for (j = 0; j < c->rules.n; j++) {
				if (nfhp_chain_at(c, j)->ext_hooks & (1u << h))
					continue;
				*msg = "an xtables match or target of a user chain is not valid at a hook that reaches the chain";
				return -EINVAL;
			}
		}
	}
	return 0;
}

/**
 * nfhp_txn_commit() - publish every staged change at once
 * @rs: the rule set
 * @msg: set to a reason on error, unless NULL
 *
 * On error the transaction is aborted and the committed rule set stays in
 * force, untouched.
 *
 * Return: 0 or -errno.
 */
int nfhp_txn_commit(struct nfhp_ruleset *rs, const char **msg)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&rs->forest.scratch);
	struct nfhp_flat *flat = rs->staged;
	const char *unasked;
	struct nfhp_spare_seen stale;
	struct nfhp_tables *t, *old_tables;
	struct nfhp_model *old = rs->live;
	struct nfhp_release *rel;
	unsigned int dirty;
	int h, err;

	if (!rs->work)
		return -EINVAL;
	/* Its steps say why they fail; a caller may not ask. */
	if (!msg)
		msg = &unasked;
	memset(rs->staged, 0, sizeof(rs->staged));
	rs->flattened = 0;
	nfhp_spare_see(rs, &stale);
	/*
	 * What earlier commits replaced and no packet sees any more goes
	 * now, not only when the release work runs: its arrays are this
	 * commit's spares (at 100,000 rules a commit without them took
	 * four times as long in the kernel).
	 */
	if (rs->defer_release)
		nfhp_ruleset_release(rs, false);
	err = rs->jumps_added ? nfhp_check_loops(rs, msg) : 0;
	if (!err)
		err = nfhp_check_hooks(rs, msg);
	if (err)
		goto out_abort;
	nfhp_model_hash(rs, rs->work);
	if (rs->live)
		nfhp_model_hash(rs, rs->live);
	nfhp_adopt(rs);
	rs->stable = nfhp_scratch_zalloc(&rs->forest.scratch, rs->work->n,
					 sizeof(*rs->stable));
	dirty = nfhp_dirty_hooks(rs);
	err = -ENOMEM;
	rel = nfhp_release_new(rs, old);
	if (!rel)
		goto out_abort;
	t = nfhp_alloc(&rs->mem, sizeof(*t));
	if (!t)
		goto out_free_release;
	err = nfhp_commit_build(rs, dirty, t, flat, msg);
	if (err)
		goto out_free_tables;
	rs->stable = NULL;
	nfhp_scratch_release(&rs->forest.scratch, mark);
	old_tables = rcu_dereference_protected(rs->tables, 1);
	rcu_assign_pointer(rs->tables, t);
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		if (!(dirty & (1u << h)))
			continue;
		swap(rs->flat[h], flat[h]);
		/* The pages the new entries share are theirs from now on. */
		nfhp_seq_succeed(&rs->flat[h].e, &flat[h].e);
	}
	nfhp_where_drop(rs);
	nfhp_chains_succeed(rs);
	rs->live = rs->work;
	rs->work = NULL;
	nfhp_counters_settle(rs, true);
	nfhp_adopt_end(rs, true);
	nfhp_release_fill(rs, rel, old, old_tables, flat);
	nfhp_spare_trim(rs, &stale);
	rel->cookie = get_state_synchronize_rcu();
	*rs->releases_tail = rel;
	rs->releases_tail = &rel->next;
	if (!rs->defer_release)
		nfhp_ruleset_release(rs, true);
	return 0;
out_free_tables:
	nfhp_free(&rs->mem, t, sizeof(*t));
out_free_release:
	if (old && old->n)
		nfhp_free(&rs->mem, rel->chains, old->n * sizeof(*rel->chains));
	nfhp_free(&rs->mem, rel, sizeof(*rel));
out_abort:
	rs->stable = NULL;
	nfhp_scratch_release(&rs->forest.scratch, mark);
	if (err == -ENOMEM && !*msg)
		*msg = "out of memory";
	nfhp_txn_abort(rs);
	return err;
}

/* Changes: each runs inside the open transaction or its own. */

typedef int (*nfhp_change_fn)(struct nfhp_ruleset *rs, void *arg,
			      const char **msg);

static int nfhp_change(struct nfhp_ruleset *rs, nfhp_change_fn fn, void *arg,
		       const char **msg)
{
	const char *dummy = NULL;
	bool own = !rs->work;
	int err;

	if (!msg)
		msg = &dummy;
	*msg = NULL;
	if (own) {
		err = nfhp_txn_begin(rs);
		if (err)
			return err;
	}
	err = fn(rs, arg, msg);
	if (own) {
		if (err)
			nfhp_txn_abort(rs);
		else
			err = nfhp_txn_commit(rs, msg);
	}
	return err;
}

/**
 * struct nfhp_change_args - arguments of a change, see nfhp_change()
 * @chain: chain name
 * @name: second name (rename)
 * @pos: 1-based position, 0 when not given
 * @spec: rule specification
 * @counters: initial counters
 * @action: policy
 */
struct nfhp_change_args {
	const char *chain;
	const char *name;
	unsigned int pos;
	const struct nfhp_rule_spec *spec;
	const struct nfhp_counter *counters;
	u8 action;
};

static int nfhp_do_insert(struct nfhp_ruleset *rs, void *arg,
			  const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c = nfhp_chain_work(rs, a->chain, msg);
	struct nfhp_rule *r;
	int err;

	if (IS_ERR(c))
		return PTR_ERR(c);
	if (a->pos < 1 || a->pos > c->rules.n + 1) {
		*msg = "index of insertion too big";
		return -E2BIG;
	}
	err = nfhp_check_jump(rs, a->spec, msg);
	if (err)
		return err;
	err = nfhp_rule_new(rs, a->spec, nfhp_chain_hooks(rs, c, a->spec),
			    a->counters, &r, msg);
	if (err)
		return err;
	c = nfhp_chain_mut(rs, a->chain, msg);
	err = IS_ERR(c) ? PTR_ERR(c) :
			  nfhp_seq_insert(&rs->mem, &c->rules, a->pos - 1, r);
	if (err) {
		*msg = "out of memory";
		/* A rule of this transaction is freed, which cannot fail. */
		nfhp_rule_retire(rs, r);
		return err;
	}
	c->nbranch += nfhp_rule_branches(r);
	c->njump += nfhp_rule_jumps(r);
	nfhp_chain_touched(c, a->pos - 1, c->rules.n - a->pos);
	return 0;
}

/* The staged chain of @a, whose rule at @a->pos must exist. */
static struct nfhp_chain *nfhp_chain_mut_at(struct nfhp_ruleset *rs,
					    const struct nfhp_change_args *a,
					    const char *too_big,
					    const char **msg)
{
	struct nfhp_chain *c = nfhp_chain_mut(rs, a->chain, msg);

	if (!IS_ERR(c) && (a->pos < 1 || a->pos > c->rules.n)) {
		*msg = too_big;
		return ERR_PTR(-E2BIG);
	}
	return c;
}

static int nfhp_do_delete(struct nfhp_ruleset *rs, void *arg,
			  const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	struct nfhp_rule *r;
	int err;

	c = nfhp_chain_mut_at(rs, a, "index of deletion too big", msg);
	if (IS_ERR(c))
		return PTR_ERR(c);
	r = nfhp_chain_at(c, a->pos - 1);
	err = nfhp_list_reserve(&rs->mem, &rs->removed, 1) ?:
	      nfhp_seq_delete(&rs->mem, &c->rules, a->pos - 1);
	if (err) {
		*msg = "out of memory";
		return err;
	}
	/* Counted first: a rule of this transaction dies when retired. */
	c->nbranch -= nfhp_rule_branches(r);
	c->njump -= nfhp_rule_jumps(r);
	nfhp_rule_retire(rs, r);
	nfhp_chain_touched(c, a->pos - 1, c->rules.n - (a->pos - 1));
	return 0;
}

static int nfhp_do_replace(struct nfhp_ruleset *rs, void *arg,
			   const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	struct nfhp_rule *r, *old;
	int err;

	c = nfhp_chain_mut_at(rs, a, "index of replacement too big", msg);
	if (IS_ERR(c))
		return PTR_ERR(c);
	err = nfhp_check_jump(rs, a->spec, msg);
	if (!err)
		err = nfhp_rule_new(rs, a->spec,
				    nfhp_chain_hooks(rs, c, a->spec), NULL,
				    &r, msg);
	if (err)
		return err;
	old = nfhp_chain_at(c, a->pos - 1);
	err = nfhp_list_reserve(&rs->mem, &rs->removed, 1) ?:
	      nfhp_seq_set(&rs->mem, &c->rules, a->pos - 1, r);
	if (err) {
		*msg = "out of memory";
		nfhp_rule_retire(rs, r);
		return err;
	}
	c->nbranch += nfhp_rule_branches(r) - nfhp_rule_branches(old);
	c->njump += nfhp_rule_jumps(r) - nfhp_rule_jumps(old);
	nfhp_rule_retire(rs, old);
	nfhp_chain_touched(c, a->pos - 1, c->rules.n - a->pos);
	return 0;
}

static int nfhp_flush_one(struct nfhp_ruleset *rs, const char *name,
			  const char **msg)
{
	struct nfhp_chain *c = nfhp_chain_mut(rs, name, msg);
	unsigned int i;

	if (IS_ERR(c))
		return PTR_ERR(c);
	if (nfhp_list_reserve(&rs->mem, &rs->removed, c->rules.n)) {
		*msg = "out of memory";
		return -ENOMEM;
	}
	for (i = 0; i < c->rules.n; i++)
		nfhp_rule_retire(rs, nfhp_chain_at(c, i));
	nfhp_seq_free(&rs->mem, &c->rules);
	c->nbranch = 0;
	c->njump = 0;
	nfhp_chain_touched(c, 0, 0);
	return 0;
}

static int nfhp_do_flush(struct nfhp_ruleset *rs, void *arg,
			 const char **msg)
{
	struct nfhp_change_args *a = arg;
	unsigned int i;
	int err;

	if (a->chain)
		return nfhp_flush_one(rs, a->chain, msg);
	for (i = 0; i < rs->work->n; i++) {
		err = nfhp_flush_one(rs, rs->work->chains[i]->name, msg);
		if (err)
			return err;
	}
	return 0;
}

static bool nfhp_chain_name_ok(const char *name, const char **msg)
{
	size_t len = strnlen(name, NFHP_CHAIN_NAME_LEN);

	if (!len || len == NFHP_CHAIN_NAME_LEN) {
		*msg = "chain name empty or too long";
		return false;
	}
	if (!strcmp(name, "ACCEPT") || !strcmp(name, "DROP") ||
	    !strcmp(name, "RETURN") || name[0] == '-' || name[0] == '!') {
		*msg = "invalid chain name";
		return false;
	}
	return true;
}

/* Insert @c into the model keeping user chains sorted by name. */
static int nfhp_model_insert(struct nfhp_ruleset *rs, struct nfhp_chain *c)
{
	struct nfhp_model *m = rs->work;
	unsigned int i;
	int err;

	err = nfhp_grow(&rs->mem, (void **)&m->chains, &m->cap, m->n + 1,
			sizeof(*m->chains));
	if (err)
		return err;
	i = nfhp_chain_place(m, c->name);
	memmove(&m->chains[i + 1], &m->chains[i],
		(m->n - i) * sizeof(*m->chains));
	m->chains[i] = c;
	m->n++;
	m->hashed = false;
	return 0;
}

static void nfhp_model_remove(struct nfhp_model *m, unsigned int i)
{
	memmove(&m->chains[i], &m->chains[i + 1],
		(m->n - i - 1) * sizeof(*m->chains));
	m->n--;
	m->hashed = false;
}

static int nfhp_do_new_chain(struct nfhp_ruleset *rs, void *arg,
			     const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	int err;

	if (!nfhp_chain_name_ok(a->chain, msg))
		return -EINVAL;
	if (nfhp_chain_index(rs->work, a->chain) >= 0) {
		*msg = "chain already exists";
		return -EEXIST;
	}
	c = nfhp_chain_alloc(rs, a->chain, -1);
	if (!c)
		return -ENOMEM;
	err = nfhp_model_insert(rs, c);
	if (err)
		nfhp_chain_free(rs, c);
	return err;
}

static unsigned int nfhp_model_refs(const struct nfhp_model *m,
				    const char *name)
{
	unsigned int i, j, refs = 0;

	for (i = 0; i < m->n; i++) {
		const struct nfhp_chain *c = m->chains[i];

		for (j = 0; j < c->rules.n && c->njump; j++)
			if ((nfhp_chain_at(c, j)->action == NFHP_ACT_JUMP ||
			     nfhp_chain_at(c, j)->action == NFHP_ACT_GOTO) &&
			    !strcmp(nfhp_chain_at(c, j)->target, name))
				refs++;
	}
	return refs;
}

static int nfhp_delete_one(struct nfhp_ruleset *rs, unsigned int i,
			   const char **msg)
{
	struct nfhp_chain *c = rs->work->chains[i];

	if (c->hook >= 0) {
		*msg = "cannot delete a built-in chain";
		return -EPERM;
	}
	if (nfhp_model_refs(rs->work, c->name)) {
		*msg = "chain is still referenced";
		return -EMLINK;
	}
	if (c->rules.n) {
		*msg = "chain is not empty";
		return -ENOTEMPTY;
	}
	nfhp_model_remove(rs->work, i);
	if (c->gen == rs->gen)
		nfhp_chain_free(rs, c);
	return 0;
}

static int nfhp_do_delete_chain(struct nfhp_ruleset *rs, void *arg,
				const char **msg)
{
	struct nfhp_change_args *a = arg;
	unsigned int i;
	int idx;

	if (a->chain) {
		idx = nfhp_chain_index(rs->work, a->chain);
		if (idx < 0) {
			*msg = "no chain by that name";
			return -ENOENT;
		}
		return nfhp_delete_one(rs, idx, msg);
	}
	/* Without a name: every user chain, like iptables -X. */
	for (i = rs->work->n; i > NFHP_HOOK_MAX; i--) {
		int err = nfhp_delete_one(rs, i - 1, msg);

		if (err)
			return err;
	}
	return 0;
}

/* A rule of @c that differs from @r only in its jump target. */
static int nfhp_rule_retarget(struct nfhp_ruleset *rs,
			      const struct nfhp_chain *c, struct nfhp_rule *r,
			      const char *target, struct nfhp_rule **out)
{
	struct nfhp_rule_spec *spec = kzalloc(sizeof(*spec), GFP_KERNEL);
	const char *msg;
	int err;

	if (!spec)
		return -ENOMEM;
	nfhp_spec_unpack(r->body.spec, spec);
	strscpy(spec->target, target, sizeof(spec->target));
	err = nfhp_rule_new(rs, spec, nfhp_chain_hooks(rs, c, spec), NULL,
			    out, &msg);
	kfree(spec);
	if (err)
		return err;
	/* The renamed rule keeps counting where the old one stopped. */
	nfhp_rcounter_put(&rs->cpool, (*out)->cnt);
	(*out)->cnt = r->cnt;
	r->cnt->refs++;
	return 0;
}

static int nfhp_retarget_jumps(struct nfhp_ruleset *rs, const char *from,
			       const char *to, const char **msg)
{
	unsigned int i, j;
	int err;

	for (i = 0; i < rs->work->n; i++) {
		struct nfhp_chain *c = rs->work->chains[i];

		for (j = 0; j < c->rules.n; j++) {
			struct nfhp_rule *r = nfhp_chain_at(c, j), *nr;

			if ((r->action != NFHP_ACT_JUMP &&
			     r->action != NFHP_ACT_GOTO) ||
			    strcmp(r->target, from))
				continue;
			c = nfhp_chain_mut(rs, c->name, msg);
			if (IS_ERR(c))
				return PTR_ERR(c);
			err = nfhp_rule_retarget(rs, c, r, to, &nr);
			if (err)
				return err;
			err = nfhp_list_reserve(&rs->mem, &rs->removed, 1) ?:
			      nfhp_seq_set(&rs->mem, &c->rules, j, nr);
			if (err) {
				nfhp_rule_retire(rs, nr);
				return err;
			}
			nfhp_rule_retire(rs, r);
		}
	}
	return 0;
}

static int nfhp_do_rename(struct nfhp_ruleset *rs, void *arg,
			  const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	int idx, err;

	if (!nfhp_chain_name_ok(a->name, msg))
		return -EINVAL;
	idx = nfhp_chain_index(rs->work, a->chain);
	if (idx < 0) {
		*msg = "no chain by that name";
		return -ENOENT;
	}
	if (rs->work->chains[idx]->hook >= 0) {
		*msg = "cannot rename a built-in chain";
		return -EPERM;
	}
	if (nfhp_chain_index(rs->work, a->name) >= 0) {
		*msg = "chain already exists";
		return -EEXIST;
	}
	err = nfhp_retarget_jumps(rs, a->chain, a->name, msg);
	if (err)
		return err;
	c = nfhp_chain_mut(rs, a->chain, msg);
	if (IS_ERR(c))
		return PTR_ERR(c);
	nfhp_model_remove(rs->work, nfhp_chain_index(rs->work, a->chain));
	strscpy(c->name, a->name, sizeof(c->name));
	c->hash = nfhp_name_hash(c->name);
	return nfhp_model_insert(rs, c);
}

static int nfhp_do_policy(struct nfhp_ruleset *rs, void *arg,
			  const char **msg)
{
	struct nfhp_change_args *a = arg;
	struct nfhp_chain *c;
	int idx;

	if (a->action != NFHP_ACT_ACCEPT && a->action != NFHP_ACT_DROP) {
		*msg = "policy must be ACCEPT or DROP";
		return -EINVAL;
	}
	idx = nfhp_chain_index(rs->work, a->chain);
	if (idx < 0) {
		*msg = "no chain by that name";
		return -ENOENT;
	}
	if (rs->work->chains[idx]->hook < 0) {
		*msg = "only built-in chains have a policy";
		return -EINVAL;
	}
	c = nfhp_chain_mut(rs, a->chain, msg);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (a->counters &&
	    nfhp_counter_write(rs, &rs->policy_cnt[c->hook], a->counters)) {
		*msg = "out of memory";
		return -ENOMEM;
	}
	c->policy = a->action;
	return 0;
}

/**
 * nfhp_rule_insert() - insert a rule before a position
 * @rs: the rule set
 * @chain: the chain
 * @pos: the 1-based position the new rule takes; the chain's length + 1
 *	appends
 * @spec: the rule
 * @counters: initial counters, or NULL
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_insert(struct nfhp_ruleset *rs, const char *chain,
		     unsigned int pos, const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *counters, const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .pos = pos,
				      .spec = spec, .counters = counters };

	return nfhp_change(rs, nfhp_do_insert, &a, msg);
}

/**
 * nfhp_rule_append() - append a rule to a chain
 * @rs: the rule set
 * @chain: the chain
 * @spec: the rule
 * @counters: initial counters, or NULL
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_append(struct nfhp_ruleset *rs, const char *chain,
		     const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *counters, const char **msg)
{
	const struct nfhp_model *m = nfhp_view(rs);
	int idx = nfhp_chain_index(m, chain);

	if (idx < 0) {
		if (msg)
			*msg = "no chain by that name";
		return -ENOENT;
	}
	return nfhp_rule_insert(rs, chain, m->chains[idx]->rules.n + 1, spec,
				counters, msg);
}

/**
 * nfhp_rule_replace() - replace the rule at a position
 * @rs: the rule set
 * @chain: the chain
 * @pos: 1-based position
 * @spec: the new rule
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_replace(struct nfhp_ruleset *rs, const char *chain,
		      unsigned int pos, const struct nfhp_rule_spec *spec,
		      const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .pos = pos,
				      .spec = spec };

	return nfhp_change(rs, nfhp_do_replace, &a, msg);
}

/**
 * nfhp_rule_delete() - delete the rule at a position
 * @rs: the rule set
 * @chain: the chain
 * @pos: 1-based position
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_rule_delete(struct nfhp_ruleset *rs, const char *chain,
		     unsigned int pos, const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .pos = pos };

	return nfhp_change(rs, nfhp_do_delete, &a, msg);
}

/**
 * nfhp_rule_delete_spec() - delete the first rule equal to @spec
 * @rs: the rule set
 * @chain: the chain
 * @spec: the rule
 * @msg: set to a reason on error
 *
 * Return: 0, -ENOENT when no rule is equal, or -errno.
 */
int nfhp_rule_delete_spec(struct nfhp_ruleset *rs, const char *chain,
			  const struct nfhp_rule_spec *spec, const char **msg)
{
	const struct nfhp_model *m = nfhp_view(rs);
	struct nfhp_packed_spec *p;
	struct nfhp_mem scratch = { .limit = ~0ull };
	const struct nfhp_chain *c;
	unsigned int i;
	int idx, err;

	idx = nfhp_chain_index(m, chain);
	if (idx < 0) {
		if (msg)
			*msg = "no chain by that name";
		return -ENOENT;
	}
	c = m->chains[idx];
	err = nfhp_spec_pack(&scratch, spec, &p);
	if (err)
		return err;
	for (i = 0; i < c->rules.n; i++)
		if (nfhp_rule_is(nfhp_chain_at(c, i), p))
			break;
	nfhp_free(&scratch, p, p->size);
	if (i == c->rules.n) {
		if (msg)
			*msg = "bad rule (does a matching rule exist in that chain?)";
		return -ENOENT;
	}
	return nfhp_rule_delete(rs, chain, i + 1, msg);
}

/**
 * nfhp_chain_flush() - delete every rule of a chain, or of all chains
 * @rs: the rule set
 * @chain: the chain, or NULL for all
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_chain_flush(struct nfhp_ruleset *rs, const char *chain,
		     const char **msg)
{
	struct nfhp_change_args a = { .chain = chain };

	return nfhp_change(rs, nfhp_do_flush, &a, msg);
}

/**
 * nfhp_chain_new() - create a user chain
 * @rs: the rule set
 * @chain: its name
 * @msg: set to a reason on error
 *
 * Return: 0, -EEXIST or -errno.
 */
int nfhp_chain_new(struct nfhp_ruleset *rs, const char *chain,
		   const char **msg)
{
	struct nfhp_change_args a = { .chain = chain };

	return nfhp_change(rs, nfhp_do_new_chain, &a, msg);
}

/**
 * nfhp_chain_delete() - delete an empty, unreferenced user chain
 * @rs: the rule set
 * @chain: its name, or NULL for every user chain
 * @msg: set to a reason on error
 *
 * Return: 0, -ENOTEMPTY, -EMLINK or -errno.
 */
int nfhp_chain_delete(struct nfhp_ruleset *rs, const char *chain,
		      const char **msg)
{
	struct nfhp_change_args a = { .chain = chain };

	return nfhp_change(rs, nfhp_do_delete_chain, &a, msg);
}

/**
 * nfhp_chain_rename() - rename a user chain; jumps to it follow
 * @rs: the rule set
 * @chain: its name
 * @new_name: the new name
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_chain_rename(struct nfhp_ruleset *rs, const char *chain,
		      const char *new_name, const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .name = new_name };

	return nfhp_change(rs, nfhp_do_rename, &a, msg);
}

/**
 * nfhp_chain_policy() - set the policy of a built-in chain
 * @rs: the rule set
 * @chain: the chain
 * @action: %NFHP_ACT_ACCEPT or %NFHP_ACT_DROP
 * @counters: new policy counters, or NULL to keep them
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_chain_policy(struct nfhp_ruleset *rs, const char *chain, u8 action,
		      const struct nfhp_counter *counters, const char **msg)
{
	struct nfhp_change_args a = { .chain = chain, .action = action,
				      .counters = counters };

	return nfhp_change(rs, nfhp_do_policy, &a, msg);
}

/*
 * Inside a transaction a zeroing waits for the publish, as the counters
 * given to rules and policies do: a restore that fails leaves them.  A
 * @fresh counter, a rule's the transaction created, no packet counted
 * yet: it is zeroed now.  A renamed jump is created yet shares the
 * committed jump's counter (nfhp_rule_retarget()), so that one waits.
 */
static int nfhp_zero(struct nfhp_ruleset *rs, struct nfhp_rcounter *c,
		     bool fresh)
{
	if (!rs->work || fresh) {
		nfhp_counter_zero(c);
		return 0;
	}
	return nfhp_counter_write(rs, c, NULL);
}

/**
 * nfhp_counters_zero() - zero counters, at once, outside transactions
 * @rs: the rule set
 * @chain: the chain, or NULL for every chain and policy
 * @pos: the rule's 1-based position, or 0 for the whole chain; a built-in
 *	chain's policy counters are zeroed either way, as iptables does
 * @msg: set to a reason on error
 *
 * Return: 0 or -errno.
 */
int nfhp_counters_zero(struct nfhp_ruleset *rs, const char *chain,
		       unsigned int pos, const char **msg)
{
	const struct nfhp_model *m = nfhp_view(rs);
	unsigned int i, j;
	int idx = -1;

	if (chain) {
		idx = nfhp_chain_index(m, chain);
		if (idx < 0) {
			if (msg)
				*msg = "no chain by that name";
			return -ENOENT;
		}
		if (pos > m->chains[idx]->rules.n) {
			if (msg)
				*msg = "index of counter too big";
			return -E2BIG;
		}
	}
	for (i = 0; i < m->n; i++) {
		const struct nfhp_chain *c = m->chains[i];

		if (idx >= 0 && (int)i != idx)
			continue;
		/* iptables-legacy zeroes the policy with any rule of its chain. */
		if (c->hook >= 0 &&
		    nfhp_zero(rs, &rs->policy_cnt[c->hook], false))
			goto out_nomem;
		for (j = 0; j < c->rules.n; j++)
			if ((!pos || j + 1 == pos) &&
			    nfhp_zero(rs, nfhp_chain_at(c, j)->cnt,
				      nfhp_chain_at(c, j)->gen == rs->gen &&
				      nfhp_chain_at(c, j)->cnt->refs == 1))
				goto out_nomem;
	}
	return 0;
out_nomem:
	if (msg)
		*msg = "out of memory";
	return -ENOMEM;
}

/* Reading. */

/**
 * nfhp_chain_first() - the first chain, INPUT
 * @rs: the rule set
 *
 * Return: the chain.
 */
const struct nfhp_chain *nfhp_chain_first(const struct nfhp_ruleset *rs)
{
	return nfhp_view(rs)->chains[0];
}

/**
 * nfhp_chain_next() - the chain after @c
 * @rs: the rule set
 * @c: a chain of it
 *
 * Return: the next chain, or NULL after the last.
 */
const struct nfhp_chain *nfhp_chain_next(const struct nfhp_ruleset *rs,
					 const struct nfhp_chain *c)
{
	const struct nfhp_model *m = nfhp_view(rs);
	int i = nfhp_chain_lookup(m, c->name, c->hash);

	/* Found by name, not by a walk: a listing of 5000 chains calls it. */
	return i >= 0 && i + 1 < (int)m->n ? m->chains[i + 1] : NULL;
}

/**
 * nfhp_chain_find() - a chain by name
 * @rs: the rule set
 * @name: the name
 *
 * Return: the chain or NULL.
 */
const struct nfhp_chain *nfhp_chain_find(const struct nfhp_ruleset *rs,
					 const char *name)
{
	const struct nfhp_model *m = nfhp_view(rs);
	int i = nfhp_chain_index(m, name);

	return i < 0 ? NULL : m->chains[i];
}

/**
 * nfhp_chain_name() - the name of a chain
 * @c: the chain, or NULL (the chain of a rule that has none)
 *
 * Return: the name, "?" for NULL.
 */
const char *nfhp_chain_name(const struct nfhp_chain *c)
{
	return c ? c->name : "?";
}

/**
 * nfhp_chain_builtin() - is this INPUT, FORWARD or OUTPUT?
 * @c: the chain
 *
 * Return: true for a built-in chain.
 */
bool nfhp_chain_builtin(const struct nfhp_chain *c)
{
	return c->hook >= 0;
}

/**
 * nfhp_chain_get_policy() - the policy of a built-in chain
 * @c: the chain
 *
 * Return: %NFHP_ACT_ACCEPT or %NFHP_ACT_DROP.
 */
u8 nfhp_chain_get_policy(const struct nfhp_chain *c)
{
	return c->policy;
}

/**
 * nfhp_chain_refs() - how many rules jump or go to a chain
 * @c: the chain
 *
 * Linear in the number of rules.
 *
 * Return: the number of references.
 */
unsigned int nfhp_chain_refs(const struct nfhp_chain *c)
{
	return nfhp_model_refs(nfhp_view(c->rs), c->name);
}

/**
 * nfhp_chain_count() - how many chains a rule set has
 * @rs: the rule set
 *
 * Return: the number of chains, built-in ones included.
 */
unsigned int nfhp_chain_count(const struct nfhp_ruleset *rs)
{
	return nfhp_view(rs)->n;
}

/**
 * nfhp_chain_refs_all() - how many rules jump or go to each chain
 * @rs: the rule set
 * @refs: set to nfhp_chain_refs() of every chain, in the order of
 *	nfhp_chain_first() and nfhp_chain_next(): nfhp_chain_count() of them
 *
 * One pass over the jumps, where nfhp_chain_refs() of every chain of a
 * listing took one pass over all rules per chain.
 */
void nfhp_chain_refs_all(const struct nfhp_ruleset *rs, unsigned int *refs)
{
	const struct nfhp_model *m = nfhp_view(rs);
	unsigned int i, j;
	int t;

	memset(refs, 0, m->n * sizeof(*refs));
	for (i = 0; i < m->n; i++) {
		const struct nfhp_chain *c = m->chains[i];

		for (j = 0; j < c->rules.n && c->njump; j++) {
			const struct nfhp_rule *r = nfhp_chain_at(c, j);

			if (!nfhp_rule_jumps(r))
				continue;
			t = nfhp_chain_lookup(m, r->target, r->target_hash);
			if (t >= 0)
				refs[t]++;
		}
	}
}

/**
 * nfhp_chain_rules() - how many rules a chain has
 * @c: the chain
 *
 * Return: the number of rules.
 */
unsigned int nfhp_chain_rules(const struct nfhp_chain *c)
{
	return c->rules.n;
}

/**
 * nfhp_chain_policy_counter() - the counters of a built-in chain's policy
 * @c: the chain
 * @sum: set to the counters summed over all CPUs (0 for user chains)
 */
void nfhp_chain_policy_counter(const struct nfhp_chain *c,
			       struct nfhp_counter *sum)
{
	memset(sum, 0, sizeof(*sum));
	if (c->hook >= 0)
		nfhp_counter_sum(&c->rs->policy_cnt[c->hook], sum);
}

/**
 * nfhp_rule_first() - the first rule of a chain
 * @c: the chain
 *
 * Return: the rule, or NULL for an empty chain.
 */
const struct nfhp_rule *nfhp_rule_first(const struct nfhp_chain *c)
{
	return c->rules.n ? nfhp_chain_at(c, 0) : NULL;
}

/**
 * nfhp_rule_at() - the rule at a position
 * @c: the chain
 * @pos: 1-based position
 *
 * Return: the rule, or NULL past the end.
 */
const struct nfhp_rule *nfhp_rule_at(const struct nfhp_chain *c,
				     unsigned int pos)
{
	return pos >= 1 && pos <= c->rules.n ? nfhp_chain_at(c, pos - 1) : NULL;
}

/**
 * nfhp_rule_get_spec() - what the user wrote for a rule
 * @r: the rule
 * @spec: filled with the specification
 *
 * Return: 0.
 */
int nfhp_rule_get_spec(const struct nfhp_rule *r, struct nfhp_rule_spec *spec)
{
	nfhp_spec_unpack(r->body.spec, spec);
	return 0;
}

/**
 * nfhp_rule_is() - is a rule the one a delete by rule looks for?
 * @r: the rule
 * @spec: the specification looked for, packed (nfhp_spec_pack())
 *
 * Return: true when nfhp_rule_delete_spec() would take @r for @spec.
 */
bool nfhp_rule_is(const struct nfhp_rule *r,
		  const struct nfhp_packed_spec *spec)
{
	return nfhp_packed_spec_equal(r->body.spec, spec);
}

/**
 * nfhp_rule_counter() - the counters of a rule
 * @r: the rule
 * @sum: set to the counters summed over all CPUs
 */
void nfhp_rule_counter(const struct nfhp_rule *r, struct nfhp_counter *sum)
{
	nfhp_counter_sum(r->cnt, sum);
}

/**
 * nfhp_rule_chain() - the chain of a committed rule
 * @rs: the rule set
 * @r: the rule
 *
 * Call with the rule set's lock held (it may build &nfhp_ruleset.where).
 *
 * Return: the chain it had at the last commit, NULL if none.
 */
const struct nfhp_chain *nfhp_rule_chain(struct nfhp_ruleset *rs,
					 const struct nfhp_rule *r)
{
	const struct nfhp_chain *c = NULL;
	unsigned int pos;

	nfhp_rule_locate(rs, r, &c, &pos);
	return c;
}

/**
 * nfhp_rule_position() - the 1-based position of a committed rule
 * @rs: the rule set
 * @r: the rule
 *
 * Call with the rule set's lock held, as nfhp_rule_chain().
 *
 * Return: the number --line-numbers shows for it, 0 if none.
 */
unsigned int nfhp_rule_position(struct nfhp_ruleset *rs,
				const struct nfhp_rule *r)
{
	const struct nfhp_chain *c;
	unsigned int pos = 0;

	nfhp_rule_locate(rs, r, &c, &pos);
	return pos;
}

/* The packet path. */

static void nfhp_count(const struct nfhp_entry *e, unsigned int len)
{
	if (!e->cnt)
		return;
	this_cpu_add(e->cnt->packets, 1);
	this_cpu_add(e->cnt->bytes, len);
}

/* Fill @verdict from the deciding entry @best. */
static void nfhp_decide(const struct nfhp_tables *t, enum nfhp_hook hook,
			const struct nfhp_entry *best,
			struct nfhp_verdict *verdict)
{
	verdict->hook = hook;
	verdict->rule = best->rule;
	verdict->action = best->action;
	verdict->hotdrop = false;
	if (best->action == NFHP_ENTRY_POLICY) {
		verdict->action = t->policy[hook];
	} else if (best->action == NFHP_ENTRY_HOTDROP) {
		verdict->rule = NULL;
		verdict->action = NFHP_ACT_DROP;
		verdict->hotdrop = true;
	}
}

/*
 * The hit entry with the smallest order not yet walked, or NULL; @walk is
 * set to how its hit is walked.
 */
static const struct nfhp_entry *
nfhp_merge_next(const struct nfhp_hit *hit, unsigned int nhits,
		unsigned int *pos, u8 *walk)
{
	const struct nfhp_entry *e, *best = NULL;
	unsigned int g, from = 0;

	for (g = 0; g < nhits; g++) {
		if (pos[g] == hit[g].n)
			continue;
		e = hit[g].items[pos[g]];
		if (!best || e->order < best->order) {
			best = e;
			from = g;
		}
	}
	if (best) {
		pos[from]++;
		*walk = hit[from].walk;
	}
	return best;
}

/*
 * Do the extension matches of the rule of @e, which the tree found the
 * packet in, match too?  A jump that does not match skips its chain.
 */
static enum nfhp_ext_result nfhp_eval_match(const struct nfhp_ruleset *rs,
					    const struct nfhp_entry *e,
					    void *pkt, u64 *skip)
{
	enum nfhp_ext_result res;

	if (!(e->flags & NFHP_ENTRY_EVAL) || !e->rule->ext_match)
		return NFHP_EXT_MATCH;
	res = rs->ext_ops->match(e->rule->ext, pkt);
	if (res == NFHP_EXT_NOMATCH && e->action != NFHP_ACT_RETURN &&
	    e->scope_end != NFHP_ORDER_UNSET)
		*skip = max(*skip, e->scope_end);
	return res;
}

/**
 * struct nfhp_walk - a packet-time walk over entries
 * @rs: the rule set
 * @t: its published tables
 * @hook: the hook
 * @pkt: the packet, for the extensions
 * @len: its length, for the counters
 * @skip: entries ordered before this are skipped (returns, jumps not taken)
 * @key: the packet's key, brought up to date when a target changes it
 * @rekeyed: the trees' leaves no longer describe the packet
 */
struct nfhp_walk {
	const struct nfhp_ruleset *rs;
	const struct nfhp_tables *t;
	enum nfhp_hook hook;
	void *pkt;
	unsigned int len;
	u64 skip;
	struct nfhp_key key;
	bool rekeyed;
};

static void nfhp_decide_hotdrop(struct nfhp_verdict *verdict)
{
	verdict->rule = NULL;
	verdict->action = NFHP_ACT_DROP;
	verdict->hotdrop = true;
}

/*
 * An entry of a walk that matches the packet, extensions included: count
 * it and do what it says.  Return true when the walk goes on, false when
 * @verdict is decided.
 */
static bool nfhp_walk_matched(struct nfhp_walk *w, const struct nfhp_entry *e,
			      struct nfhp_verdict *verdict)
{
	u32 v;

	nfhp_count(e, w->len);
	switch (e->action) {
	case NFHP_ACT_NONE:
		return true;
	case NFHP_ACT_RETURN:
		w->skip = max(w->skip, e->scope_end);
		return true;
	case NFHP_ACT_XT:
		v = w->rs->ext_ops->target(e->rule->ext, w->pkt);
		if (v == NFHP_EXT_CONTINUE) {
			if (w->rs->ext_ops->rekey &&
			    w->rs->ext_ops->rekey(w->pkt, &w->key))
				w->rekeyed = true;
			return true;
		}
		nfhp_decide(w->t, w->hook, e, verdict);
		verdict->xt_verdict = v;
		return false;
	default:
		nfhp_decide(w->t, w->hook, e, verdict);
		return false;
	}
}

/* An entry of a walk whose box holds the packet, see nfhp_walk_matched(). */
static bool nfhp_walk_entry(struct nfhp_walk *w, const struct nfhp_entry *e,
			    struct nfhp_verdict *verdict)
{
	switch (nfhp_eval_match(w->rs, e, w->pkt, &w->skip)) {
	case NFHP_EXT_NOMATCH:
		return true;
	case NFHP_EXT_HOTDROP:
		nfhp_decide_hotdrop(verdict);
		return false;
	default:
		return nfhp_walk_matched(w, e, verdict);
	}
}

/*
 * Does the rule part of @e hold @key?  Its box is narrowed by the jumps
 * that lead to it, which were taken before the key changed; its rule's
 * own box is what counts now.
 */
static bool nfhp_entry_own_match(const struct nfhp_entry *e,
				 const struct nfhp_key *key)
{
	const struct nfhp_rule *r = e->rule;
	const struct nfhp_box *own;

	if (!r)
		return true;	/* the policy, the return after a goto */
	if (e->action == NFHP_ENTRY_HOTDROP)
		own = r->body.hot;
	else
		own = e->flags & NFHP_ENTRY_ALT ? r->body.alt : r->body.box;
	return nfhp_box_contains_key(own, key);
}

static bool nfhp_entry_jumps(const struct nfhp_entry *e)
{
	return e->rule && e->action == NFHP_ACT_NONE &&
	       (e->rule->action == NFHP_ACT_JUMP ||
		e->rule->action == NFHP_ACT_GOTO);
}

/*
 * After a target changed the packet (a mark), the rest of the hook's
 * entries in order, as ipt_do_table would go on: the trees were searched
 * with the old key, and the entries' boxes hold the conditions of jumps
 * taken with it.  So each entry is tested with its rule's own box, and a
 * jump not taken now skips the deeper entries after it, its chain.
 */
static void nfhp_classify_linear(struct nfhp_walk *w, u64 after,
				 struct nfhp_verdict *verdict)
{
	const struct nfhp_seq *all = &w->t->entries[w->hook];
	int untaken = -1;	/* depth of the jump not taken */
	const struct nfhp_entry *e;
	enum nfhp_ext_result res;
	struct nfhp_seq_iter it;

	/* Orders are at most NFHP_ORDER_POLICY: @after + 1 does not wrap. */
	nfhp_seq_iter_init(&it, all,
			   nfhp_entries_rank(all, 0, all->n, after + 1));
	while ((e = nfhp_seq_iter_next(&it))) {
		if (untaken >= 0 && e->depth > untaken)
			continue;
		untaken = -1;
		if (e->order < w->skip)
			continue;
		res = NFHP_EXT_NOMATCH;
		if (nfhp_entry_own_match(e, &w->key))
			res = nfhp_eval_match(w->rs, e, w->pkt, &w->skip);
		if (res == NFHP_EXT_HOTDROP) {
			nfhp_decide_hotdrop(verdict);
			return;
		}
		if (res == NFHP_EXT_NOMATCH) {
			if (nfhp_entry_jumps(e))
				untaken = e->depth;
			continue;
		}
		if (!nfhp_walk_matched(w, e, verdict))
			return;
	}
	WARN_ON_ONCE(1);	/* the policy matches every packet */
}

/*
 * The walk for hits with extensions or tested entries: their entries in
 * order, merged across the trees, running extensions where the tree
 * could not decide, testing the boxes of the entries of a region whose
 * build was cut short (%NFHP_WALK_TESTED).  An entry reached through a
 * jump has the jump's box in its own, so a jump whose box misses the
 * packet takes its chain with it.  Every hit ends in an entry no earlier
 * one can skip, so the walk ends there at the latest.  Once a target
 * changed the packet, the rest is nfhp_classify_linear().
 */
static void nfhp_classify_walk(struct nfhp_walk *w,
			       const struct nfhp_hit *hit, unsigned int nhits,
			       struct nfhp_verdict *verdict)
{
	unsigned int pos[NFHP_GROUPS] = {};
	const struct nfhp_entry *e;
	u8 how = 0;

	while ((e = nfhp_merge_next(hit, nhits, pos, &how))) {
		if (e->order < w->skip)
			continue;
		if (how & NFHP_WALK_TESTED &&
		    !nfhp_box_contains_key(e->box, &w->key))
			continue;
		if (!nfhp_walk_entry(w, e, verdict))
			return;
		if (unlikely(w->rekeyed)) {
			nfhp_classify_linear(w, e->order, verdict);
			return;
		}
	}
	WARN_ON_ONCE(1);	/* a policy ends every hit */
}

/**
 * nfhp_classify() - classify a packet, counting the rules it matches
 * @rs: the rule set
 * @hook: the hook the packet is at
 * @key: the packet, as nfhp_key_fold_port() left it
 * @len: its length, for the byte counters
 * @pkt: what the rule set's &struct nfhp_ext_ops need to run extensions
 *	on the packet, or NULL when it has none
 * @verdict: filled with the outcome
 *
 * Lockless: call under rcu_read_lock() (netfilter hooks already are).
 */
void nfhp_classify(const struct nfhp_ruleset *rs, enum nfhp_hook hook,
		   const struct nfhp_key *key, unsigned int len, void *pkt,
		   struct nfhp_verdict *verdict)
{
	const struct nfhp_tables *t = rcu_dereference(rs->tables);
	const struct nfhp_entry *const *items, *best = NULL, *last;
	unsigned int g, i, nhits = 0, hot, hots = nfhp_key_hot(key);
	const struct nfhp_node *const *seq;
	struct nfhp_hit hit[NFHP_GROUPS], *h;
	bool eval = false;
	u64 bound = U64_MAX;

	/*
	 * Branch and bound: a tree can only beat the decision so far.  The
	 * trees of hotdrop entries come second, and only for hot keys.
	 */
	for (hot = 0; hot <= hots; hot++) {
		seq = t->seq[hook][hot];
		for (g = 0; g < t->ntrees[hook][hot]; g++) {
			if (seq[g]->min_order >= bound)
				break;
			h = &hit[nhits];
			if (!nfhp_tree_lookup(seq[g], key, bound, h))
				continue;
			nhits++;
			eval |= h->walk;
			last = h->items[h->n - 1];
			if (last->order < bound) {
				best = last;
				bound = best->order;
			}
		}
	}
	if (unlikely(eval)) {
		struct nfhp_walk w = {
			.rs = rs, .t = t, .hook = hook, .pkt = pkt, .len = len,
			.key = *key,
		};

		verdict->hook = hook;
		verdict->action = t->policy[hook];
		verdict->rule = NULL;
		verdict->hotdrop = false;
		nfhp_classify_walk(&w, hit, nhits, verdict);
		return;
	}
	/* Count what matched before the decision, in every tree, once. */
	for (g = 0; g < nhits; g++) {
		items = hit[g].items;
		for (i = 0; items[i]->order < bound; i++)
			nfhp_count(items[i], len);
	}
	nfhp_count(best, len);
	nfhp_decide(t, hook, best, verdict);
}

/* Accounting. */

/**
 * nfhp_ruleset_mem_limit() - the memory bound
 * @rs: the rule set
 *
 * Return: the bound in bytes.
 */
u64 nfhp_ruleset_mem_limit(const struct nfhp_ruleset *rs)
{
	return rs->mem.limit;
}

/**
 * nfhp_ruleset_set_mem_limit() - change the memory bound
 * @rs: the rule set
 * @limit: the new bound in bytes
 *
 * Return: 0, or -EINVAL when more than @limit is in use already.
 */
int nfhp_ruleset_set_mem_limit(struct nfhp_ruleset *rs, u64 limit)
{
	if (limit < rs->mem.allocated)
		return -EINVAL;
	rs->mem.limit = limit;
	return 0;
}

/**
 * nfhp_ruleset_mem_used() - bytes the core asked for
 * @rs: the rule set
 *
 * Return: the bytes.
 */
u64 nfhp_ruleset_mem_used(const struct nfhp_ruleset *rs)
{
	return rs->mem.used;
}

/**
 * nfhp_ruleset_mem_allocated() - bytes the allocator reserved
 * @rs: the rule set
 *
 * Return: the bytes.
 */
u64 nfhp_ruleset_mem_allocated(const struct nfhp_ruleset *rs)
{
	return rs->mem.allocated;
}

/**
 * nfhp_ruleset_nchains() - number of chains, built-in ones included
 * @rs: the rule set
 *
 * Return: the number.
 */
unsigned int nfhp_ruleset_nchains(const struct nfhp_ruleset *rs)
{
	return nfhp_view(rs)->n;
}

/**
 * nfhp_ruleset_nrules() - number of rules in all chains
 * @rs: the rule set
 *
 * Return: the number.
 */
unsigned int nfhp_ruleset_nrules(const struct nfhp_ruleset *rs)
{
	const struct nfhp_model *m = nfhp_view(rs);
	unsigned int i, n = 0;

	for (i = 0; i < m->n; i++)
		n += m->chains[i]->rules.n;
	return n;
}

/**
 * nfhp_ruleset_shared_splits() - splits two builders built
 * @rs: the rule set
 *
 * Return: how many splits of tree builds had a helper build half of their
 * children (tree.c, "Two builders").
 */
u64 nfhp_ruleset_shared_splits(const struct nfhp_ruleset *rs)
{
	return rs->forest.shared_splits;
}

/**
 * nfhp_ruleset_flattened() - entries the last commit flattened
 * @rs: the rule set
 *
 * A rebuild flattens every entry of the hooks it rebuilds; an update
 * only those of the rules it added and of the chains they reach.
 *
 * Return: the number of entries.
 */
unsigned int nfhp_ruleset_flattened(const struct nfhp_ruleset *rs)
{
	return rs->flattened;
}

/**
 * nfhp_ruleset_builds_cut() - tree builds that ran out of work
 * @rs: the rule set
 *
 * A build whose first attempt ran out of its budget builds again with a
 * share of it for each region, and the regions past their shares become
 * tested leaves ("Bounded builds" in tree.c).
 *
 * Return: how many builds did so since @rs was made.
 */
u64 nfhp_ruleset_builds_cut(const struct nfhp_ruleset *rs)
{
	return rs->forest.builds_cut;
}

/**
 * nfhp_ruleset_updates_given_up() - tree updates that gave up
 * @rs: the rule set
 *
 * An update that would visit more nodes than a build makes gives up, and
 * the tree is built anew ("Updates: nfhp_tree_update()" in tree.c).
 *
 * Return: how many times that happened since @rs was made.
 */
u64 nfhp_ruleset_updates_given_up(const struct nfhp_ruleset *rs)
{
	return rs->updates_given_up;
}

/* For stats.c: the committed tree and entries of a hook. */

/**
 * nfhp_ruleset_tree() - a published tree of a hook
 * @rs: the rule set
 * @hook: the hook
 * @group: which of the hook's trees
 * @f: set to the forest holding it
 *
 * Return: the root, or NULL when the group is empty.
 */
const struct nfhp_node *nfhp_ruleset_tree(const struct nfhp_ruleset *rs,
					  enum nfhp_hook hook,
					  unsigned int group,
					  struct nfhp_forest **f)
{
	const struct nfhp_tables *t = rcu_dereference_protected(rs->tables,
								  1);

	*f = (struct nfhp_forest *)&rs->forest;
	return group < NFHP_GROUPS ? t->root[hook][group] : NULL;
}

/**
 * nfhp_ruleset_entries() - the flattened entries of a hook's tree
 * @rs: the rule set
 * @hook: the hook
 *
 * Return: the entries in order, their number @n; they change with the
 * next commit.
 */
const struct nfhp_seq *nfhp_ruleset_entries(const struct nfhp_ruleset *rs,
					    enum nfhp_hook hook)
{
	return &rs->flat[hook].e;
}

/**
 * nfhp_ruleset_entry_tree() - which of a hook's trees holds an entry
 * @rs: the rule set
 * @hook: the hook
 * @e: one of nfhp_ruleset_entries()
 *
 * A hook whose entries may skip later ones (a RETURN) keeps them all in
 * tree 0; otherwise each is in the tree of its group.
 *
 * Return: the @group of nfhp_ruleset_tree() that holds @e.
 */
unsigned int nfhp_ruleset_entry_tree(const struct nfhp_ruleset *rs,
				     enum nfhp_hook hook,
				     const struct nfhp_entry *e)
{
	return nfhp_flat_groupable(&rs->flat[hook]) ? e->group : 0;
}

/**
 * nfhp_rule_written() - the dimensions a rule's specification names
 * @r: the rule
 *
 * Return: a bit per &enum nfhp_dim.
 */
u16 nfhp_rule_written(const struct nfhp_rule *r)
{
	return r->written;
}

/**
 * nfhp_rule_box() - what a rule matches, normalized
 * @r: the rule
 *
 * Return: its (first) box.
 */
const struct nfhp_box *nfhp_rule_box(const struct nfhp_rule *r)
{
	return r->body.box;
}
