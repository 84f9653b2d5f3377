// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the decision tree.
 *
 * DOC: Theory of Operation
 *
 * Problem
 * -------
 *
 * A chain is a list of rules; the first rule a packet matches decides.  A
 * linear walk costs every rule on every packet.  nf-hipac instead compiles
 * the rules of each hook into a tree that is searched with one binary
 * search per dimension, whatever the number of rules.
 *
 * Geometry
 * --------
 *
 * A packet is a point in a space of NFHP_DIM_MAX dimensions (addresses,
 * protocol, ports, conntrack state, ...; see enum nfhp_dim).  Every rule
 * matches a box: for each dimension a set of intervals (struct nfhp_box,
 * built by nfhp_box_from_spec()).  User chains are flattened before the
 * tree sees them (ruleset.c): a rule reached through a jump becomes an
 * entry whose box is the intersection of the jump's box and its own, and
 * RETURN becomes an entry that skips the rest of its chain invocation
 * (struct nfhp_entry, @scope_end).  The hook's policy is the last entry and
 * matches everything.
 *
 * Every node of the tree stands for a region: the box of packets that reach
 * it, one interval per dimension (struct nfhp_region).  The root's region is
 * everything.
 *
 * Building: nfhp_build()
 * ----------------------
 *
 * For a region and the entries that intersect it, in order, the relevant
 * entries are found first (nfhp_scan_push()): walking in order, an entry
 * that covers the whole region and is terminal ends the walk, because no
 * packet of the region gets past it.  RETURN entries that cover the region
 * remove the rest of their scope; those that only intersect it make the
 * rest of their scope "maybe skipped", and a maybe-skipped terminal cannot
 * end the walk.
 *
 * If every relevant entry covers the region, the decision is the same for
 * every packet in it, and the region becomes a leaf: the entries whose
 * counters must be bumped, the deciding one last (nfhp_leaf_get()).
 *
 * Most leaves hold one entry alone.  Such a leaf is part of its entry, its
 * header the entry's first bytes (struct nfhp_entry_leaf): a lookup that
 * ends there reads a single line, which holds the counter's address and
 * the verdict it needs anyway, and acl4_10k's trees take 18 % less memory.
 * It has no reference count and no twin in the deduplication table: it
 * lives as long as its entry, and a rule set drops its trees before it
 * frees the entries they point into.
 *
 * Where some relevant entry does not cover the region, one dimension is
 * split (nfhp_split()): the one restricted by most of the relevant entries
 * that do not cover it.  The interval ends of all relevant entries in that
 * dimension cut the region's interval into elementary intervals, and a
 * child is built for each from the entries that intersect it.  After the
 * split every relevant entry either covers a child's interval in that
 * dimension or misses it, so a dimension is split at most once on any
 * path: a lookup makes at most NFHP_DIM_MAX binary searches (one per level
 * of a wide node, see below).  Which entries reach which child is computed
 * in one sweep over the sorted interval ends with a bitmap of "active"
 * entries (nfhp_split_children()).
 *
 * Worked example, FORWARD with policy DROP::
 *
 *   1  -s 10.0.0.0/8 -p tcp --dport 22 -j ACCEPT
 *   2  -s 10.1.0.0/16 -j DROP
 *   3  -p tcp -j ACCEPT
 *
 * PROTO holds the protocol and the destination port together (key.h,
 * match.c "Protocol and port"): protocol << 18 | port, written p:port
 * below, with max for the largest port value a key can hold, marks
 * included.  Rule 1 needs 6:22 there, rule 3 6:0 to 6:max, all of tcp.
 *
 * At the root no entry covers everything.  SRC is restricted by two of the
 * non-covering entries, PROTO by two as well: SRC is split at
 * 10.0.0.0, 10.1.0.0, 10.2.0.0 and 11.0.0.0 into five intervals:
 *
 *   [0.0.0.0, 9.255.255.255]       entries 3, policy
 *   [10.0.0.0, 10.0.255.255]       entries 1, 3, policy
 *   [10.1.0.0, 10.1.255.255]       entries 1, 2 (2 covers: the walk ends)
 *   [10.2.0.0, 10.255.255.255]     entries 1, 3, policy
 *   [11.0.0.0, 255.255.255.255]    entries 3, policy
 *
 * The first and last children split PROTO into [0:0, 5:max] -> DROP
 * (policy), [6:0, 6:max] -> ACCEPT (3), [7:0, 255:max] -> DROP.  These two
 * children are the same tree, so deduplication makes them one node with
 * two parents.  Without list nodes (below), the 10.1.0.0/16 child would
 * split PROTO into 6:22 -> ACCEPT (1) and the rest -> DROP (2), and a
 * packet 10.1.2.3 -> tcp/22 would take two binary searches: SRC, PROTO.
 * Non-first fragments carry %NFHP_L4_FRAGMENT as their port, so they fall
 * in the "rest" and never match rule 1, as in iptables.
 *
 * Rule 1's tcp match also has an entry just before it (ruleset.c) that
 * drops the packets iptables' tcp match drops: a TCP header too short to
 * read, whose ports key.h sets above every real port.  It adds one more
 * interval to the PROTO nodes under 10.0.0.0/8, [6:%NFHP_L4_TRUNCATED,
 * 6:max], with a leaf that drops.
 *
 * (ruleset.c gives rules that are wildcards in an address a tree of
 * their own, see struct nfhp_tables: in the example, rule 3 would have a
 * tree of its own and the SRC node would serve rules 1 and 2 only.  The
 * short-header entry would be in a tree of its own too, "Short headers"
 * in group.c; a hook keeps them all in one tree only when a RETURN or a
 * goto makes its entries depend on each other.)
 *
 * List nodes
 * ----------
 *
 * Deep in a tree most regions hold a rule or two.  The seed set of
 * bench/seed.py, once its addresses are split, leaves each rule's region
 * with the rule, its short-header entry and the policy: a node and three
 * leaves per rule.  So a region whose relevant entries
 * are at most nfhp_list_max, all terminal and unconditional, the last one
 * covering the region, becomes one list node (nfhp_list_get()): the
 * entries in order and, for each but the last, the interval it needs in
 * each dimension where it does not cover the region.  A lookup takes the
 * first entry whose intervals hold the packet, as the split would have.
 * The 10.1.0.0/16 child of the example is such a region::
 *
 *   rule 1's short header   PROTO [6:%NFHP_L4_TRUNCATED, 6:max]
 *   rule 1                  PROTO [6:22, 6:22]
 *   rule 2                  (covers the region)
 *
 * and 10.1.2.3 -> tcp/22 takes one binary search, SRC, and two tests.
 * The other children of 10.0.0.0/8 would not be, rule 3 there needs
 * all of tcp, which overlaps rule 1; but with rule 3 in a tree of
 * its own they are lists too.  Lists are made only where every entry
 * decides some packet of the region (their intervals are disjoint, and
 * leave a gap in one dimension for the last), so that shadow analysis,
 * which reads leaves and lists, stays exact.  An update that cuts a list
 * builds its region anew (nfhp_update_list()); updates make lists only in
 * the regions they build.
 *
 * Deduplication
 * -------------
 *
 * Nodes are immutable once built and hash-consed (nfhp_node_intern()): a
 * node equal to one that exists is not created again, the existing one
 * gains a reference.  Rules that do not restrict a dimension would
 * otherwise be copied below every interval of it, the memory blow-up of
 * the original nf-hipac.  Adjacent intervals with the same child are merged
 * into one, and a node with one child is replaced by that child.
 *
 * Deduplication stores a subtree once; the memo (memo.c) builds it once.
 * Every relevant entry of a region covers the region in each dimension a
 * split on its path cut, and the region is the build's own in the others:
 * so its subtree depends on its relevant entries and on which dimensions
 * were cut, and a region reached again with both the same, by another
 * path, takes the subtree built the first time.  Both count: with
 * ``-s 10.0.0.0/8 -i eth0 -j ACCEPT`` and the policy, the SRC child of
 * 10.0.0.0/8 has the entries of the root, but only the child's interval
 * does the rule cover.  A random rule set of 170 rules over 12
 * dimensions reaches 964,000 regions by 56 million paths; each is built
 * once.
 *
 * Wide nodes
 * ----------
 *
 * A split can have as many intervals as there are rules: 100,000 source
 * prefixes give a root of about 200,000.  An update copies the nodes on
 * its path, and copying such a root means writing megabytes and touching
 * the reference count of every child, for a change of one interval.  So
 * no node holds more than 2 * %NFHP_NODE_FANOUT intervals: the children of
 * a wider split are cut into nodes of %NFHP_NODE_PIECE intervals, whose
 * regions are consecutive pieces of the split's interval, under a parent
 * node of the same dimension whose intervals are those pieces
 * (nfhp_make_chunks()), like the inner levels of a B-tree.  A lookup
 * searches the same dimension once per level (two for the ClassBench 100k
 * sets), an update copies one node per level: a piece of 6 KB and a
 * parent of about 400 intervals, where one node would be 2.4 MB.  With
 * a fan-out and pieces of 2 the root of the example above would have
 * three intervals of SRC, [0.0.0.0, 10.0.255.255], [10.1.0.0,
 * 10.255.255.255] and the rest, the first two leading to SRC nodes of two
 * intervals each, the last straight to the PROTO node of [11.0.0.0,
 * 255.255.255.255].
 *
 * Two builders
 * ------------
 *
 * A restore builds trees of a hundred thousand entries while the rest of
 * the machine waits, and the children of a split are independent.  So
 * the first split of nfhp_tree_build() with enough work (at least
 * nfhp_share_min relevant entries, counted over its elementary intervals,
 * in each half) cuts its intervals into two runs of about equal work and
 * hands the second run to a helper on the unbound workqueue
 * (nfhp_split_shared()).  The helper starts with the entries the first
 * run leaves active: it replays the interval ends before its own.
 *
 * Each builder has its own scratch stack, memo and active set.  They
 * share the read-only entries and interval ends and, under the forest's
 * lock while the helper runs, the hash table, the nodes' references and
 * the memory account: a subtree both runs build is still stored once, and
 * the tree is the one a single builder makes, unless the build is cut
 * short: each run then has its part of the budget, fixed when the split
 * is cut, and a run cannot take what the other leaves.  A second attempt
 * ("Bounded builds") shares its first split as the first attempt did:
 * it is most of such a build's time.  When one interval holds
 * most of the work (a protocol split where TCP holds nearly every rule)
 * the split is not cut; the build of that interval may share instead.
 *
 * The root of the example above has too little work to share.  The seed
 * set of 100,000 rules splits SRC at its root into more than 100,000
 * intervals (98 nodes of 1,024 under one, see "Wide nodes"); the helper
 * builds those from the middle one on.
 * Userspace runs the helper in the caller (the shim's workqueue), so the
 * tests see the same two runs, one after the other.
 *
 * Bounded builds
 * --------------
 *
 * A decision tree can need the product of the intervals of all its
 * dimensions: a university's firewall of 2,476 FORWARD entries, whose
 * MAC checks (run at packet time) RETURN from chains of source hosts
 * before chains of destination hosts, takes 470,000 nodes and 117 MB
 * built exactly.  So a build is given work to do, nfhp_build_budget units
 * per relevant entry of its root (within a floor and a ceiling,
 * nfhp_build_budget_of()): a unit is one relevant entry of one child of
 * a split, what the sweep scans.  The ClassBench sets take at most 140 a
 * relevant entry.
 *
 * A build first spends a quarter of its budget (nfhp_build_first units an
 * entry) as it goes, every region drawing on what is left.  Most rule
 * sets fit, and their tree is the exact one.  When a split would
 * overdraw, the first attempt is dropped whole, having cost a quarter of
 * what the second may spend, and a second one starts with the whole
 * budget (nfhp_build_region()): it counts a split's work
 * before making it (nfhp_split_work()), and each child may take of its
 * parent's pool in proportion to its relevant entries, and what a
 * child does not use (a memo hit uses nothing) goes to the siblings after
 * it.  A region whose split does not fit its share tries the dimensions
 * restricted by fewer entries (nfhp_split_plan()), a cut that does less
 * for a lookup but fits; where none does, it becomes a tested leaf
 * (nfhp_tested_get()): every relevant entry in order, each box tested
 * against the packet when a lookup ends there (%NFHP_WALK_TESTED,
 * nfhp_classify_walk() in ruleset.c).  Its last entry covers the region
 * and decides if reached, as in any leaf, so a lookup's bound and shadow
 * analysis read it as they read a leaf, and it stays exact.  So does a
 * region where the kernel stack runs short.
 *
 * Example: the university's firewall of ../shared/repro, whole (2,784
 * rules, 3,981 FORWARD entries; nf-hipac-sim --opaque-xt), builds in
 * 0.5 s and 25 MB with 2,048 units an entry; built exactly it took
 * 665,000 nodes, 557 MB and 20 s.  Its 1,850 native rules alone tested
 * 10 entries a lookup on average with 2,048 units an entry, 39 with 64.
 * Work, time and memory grow with the budget, not with the product of
 * the intervals.
 *
 * An update works from the same budget (nfhp_tree_update()'s @work), a
 * region at a time, and cuts a region short as a build does when its
 * share runs out; a build of the hook's tree would take as long as all
 * of it.  A tested leaf that an update meets is made again from its
 * entries and the candidates, as a tested leaf: updates do not deepen
 * what a build cut short, and their own work stays bounded.
 *
 * A build stops with -ECANCELED when its task has a signal pending,
 * between two children of a split, and nothing of it stays: an admin's
 * Ctrl-C on a restore leaves the old rules in force.  Not -EINTR, which
 * netlink_rcv_skb() takes for "no answer".
 *
 * Updates: nfhp_tree_update()
 * ---------------------------
 *
 * The tree is never changed in place.  For an entry that came or went, the
 * nodes whose regions miss its box are shared with the old tree; regions
 * inside the box are built anew from the entries that intersect the box;
 * leaves the box cuts are split along it.  Only the touched paths are new.
 * A commit publishes the new roots of all hooks with one pointer swap and
 * drops the references of the old roots after a grace period (ruleset.c),
 * which frees exactly the nodes no new tree shares.
 *
 * An update walks the tree as a tree, not as the graph that deduplication
 * made of it: a subtree under several parents is visited once for each
 * path to it.  Where the paths multiply (say 30 entries over a dozen
 * dimensions, each cutting a few intervals), one update can visit 10^8
 * nodes.  So an update is given a number of visits (ruleset.c gives 16
 * per entry of the hook, and 4096) and gives up with -EOVERFLOW past
 * them; the tree is then built anew, and a build has the memo of each
 * split's children.
 *
 * A path's copy of a range-location node keeps all its children but the
 * few the box meets (nfhp_update_rlp()).  Where those come back as they
 * were, the node is kept (nfhp_splice_same()).  Otherwise the copy is
 * spliced (struct nfhp_splice): the old keys and children before and
 * after the new ones are copied in two runs.  A wide copy, a root of
 * thousands of intervals at the ClassBench 10k sets, is drafted where it
 * is stored, borrows the children it shares with the old node instead of
 * counting a reference to each (struct nfhp_lend), and takes its index
 * (nfhp_splice_index()) and its hash (nfhp_splice_sum()) from the old
 * node's, changed where the splice changed it: with the 16,000 intervals
 * of seed.py's 10k root, an insert took 26 us where it took 230 with a
 * list of all children, their references, a copy of the draft, and its
 * index and hash made afresh.
 *
 * Matching: nfhp_tree_lookup()
 * ----------------------------
 *
 * From the root, while the node is not a leaf or a list, binary-search
 * the packet's value of the node's dimension among its upper bounds and
 * follow that child; a list gives its first entry whose tests hold the
 * packet (struct nfhp_hit).  No locks, no writes, no allocation.  The
 * lookup and the layout it reads are lookup.h, inline in nfhp_classify().
 *
 * Wide nodes (a root over thousands of source prefixes) would cost a dozen
 * probes, each a likely cache miss.  A 32-bit node with NFHP_INDEX_MIN
 * intervals or more carries an index (nfhp_index_fill()): the span of its
 * keys cut into about one bucket per key, each bucket naming the first
 * interval it can fall in.  The bucket of a value is a subtraction and a
 * shift away, and the binary search that follows covers a few keys, while
 * the line of the bucket's children is fetched.  Its last three steps
 * are one count of eight keys (nfhp_search32()), and a node of up to
 * eight intervals is counted whole: a binary step waits for the key the
 * step before it loaded, and those waits were most of a lookup.  With
 * the 10.0.0.0/8 example's five intervals the node is too small to carry
 * one; a node of 4096 intervals gets 4096 buckets.
 *
 * Every node also records the earliest entry below it (@min_order).  A
 * hook has up to NFHP_HOOK_TREES trees (group.c); they are searched in
 * the order of their earliest entries, and once a decision is found, a
 * subtree, or a whole tree, whose earliest entry comes after it cannot
 * change it and is not entered: branch and bound, on a decision that is
 * exact either way.  Half of those trees hold the short-header entries
 * and are searched only for keys with a short transport header
 * (nfhp_key_hot()).
 *
 * Extensions
 * ----------
 *
 * A rule may also have matches and a target the tree does not know
 * (ext.h: -m limit, -j REJECT, ...).  Its entry carries the rule's native
 * box as usual but is %NFHP_ENTRY_EVAL: whether it matches, or what its
 * target says, is known only at packet time, so it never ends a scan, and
 * a jump with such matches makes its chain's entries %NFHP_ENTRY_COND too
 * (they may be skipped), which pushes @maybe_to past them like a RETURN
 * that may or may not be taken.  A leaf with an EVAL entry keeps every
 * relevant entry, not only the counted ones, and says so in @ibits; the
 * lookup then walks its entries in order (ruleset.c) and runs the
 * extensions of those it reaches.  Example, FORWARD policy DROP::
 *
 *   1  -p tcp --dport 22 -m limit --limit 3/min -j ACCEPT
 *   2  -p tcp --dport 22 -j REJECT --reject-with tcp-reset
 *
 * Under PROTO [6,6], DPORT [22,22] the leaf holds 1 (EVAL), 2 (EVAL) and
 * the policy: a packet within the limit is accepted by 1, the next one
 * reset by 2; elsewhere the leaf is the policy alone and no extension
 * runs.
 */

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/cache.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "memo.h"
#include "tree_priv.h"

bool nfhp_splice_verify;
u32 nfhp_node_fanout = NFHP_NODE_FANOUT;
u32 nfhp_node_piece = NFHP_NODE_PIECE;
u32 nfhp_list_max = NFHP_LIST_MAX;
u32 nfhp_events_insertion_max = NFHP_EVENTS_INSERTION_MAX;
u32 nfhp_share_min = NFHP_SHARE_MIN;
u32 nfhp_build_budget = NFHP_BUILD_BUDGET;
u32 nfhp_build_first = NFHP_BUILD_FIRST;
u32 nfhp_build_budget_min = NFHP_BUILD_BUDGET_MIN;
u32 nfhp_build_budget_max = NFHP_BUILD_BUDGET_MAX;

u32 nfhp_cover_pieces = NFHP_COVER_PIECES;

static void nfhp_count_noncover(struct nfhp_scan *s, const struct nfhp_box *b,
				const struct nfhp_region *reg)
{
	unsigned int m, d;

	for (m = b->restricted; m; m &= m - 1) {
		d = __builtin_ctz(m);
		if (!nfhp_box_covers_dim(b, d, &reg->d[d]))
			s->noncover[d]++;
	}
}

/**
 * nfhp_scan_push() - consider the next entry intersecting a region
 * @s: the scan
 * @reg: the region
 * @e: the entry; entries must come in order
 *
 * Return: false once an entry decides every packet of @reg that reaches
 * it and nothing before it can skip it; later entries are irrelevant.
 */
bool nfhp_scan_push(struct nfhp_scan *s, const struct nfhp_region *reg,
		    const struct nfhp_entry *e)
{
	bool covers;

	if (e->order < s->skip_to)
		return true;
	covers = nfhp_box_covers(e->box, reg);
	s->rel[s->n++] = e;
	if (e->action == NFHP_ACT_RETURN) {
		if (covers && e->order >= s->maybe_to &&
		    !(e->flags & NFHP_ENTRY_EVAL))
			s->skip_to = max(s->skip_to, e->scope_end);
		else
			s->maybe_to = max(s->maybe_to, e->scope_end);
	} else if (e->flags & NFHP_ENTRY_EVAL &&
		   e->scope_end != NFHP_ORDER_UNSET) {
		/* A jump decided at packet time: its chain may be skipped. */
		s->maybe_to = max(s->maybe_to, e->scope_end);
	}
	if (!covers) {
		s->split = true;
		nfhp_count_noncover(s, e->box, reg);
		return true;
	}
	if (e->flags & NFHP_ENTRY_COND)
		return true;
	if (nfhp_entry_terminal(e))
		return e->order < s->maybe_to;
	return true;
}

/*
 * Does a leaf need @e?  Entries without a counter only matter when they
 * decide, unless the leaf is walked at packet time (@walk: it runs
 * extensions); then every relevant entry may decide or skip.
 */
static bool nfhp_leaf_needs(const struct nfhp_entry *e, bool last, bool walk)
{
	return last || e->cnt || walk;
}

/* The leaf of a region where every relevant entry covers the region. */
static noinline_for_stack int
nfhp_leaf_get(struct nfhp_forest *f, const struct nfhp_scan *s,
	      struct nfhp_node **out)
{
	const struct nfhp_entry **items;
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_node *leaf;
	unsigned int i, n = 0;
	bool walk = false;

	for (i = 0; i < s->n; i++)
		walk |= s->rel[i]->flags & NFHP_ENTRY_EVAL;
	for (i = 0; i < s->n; i++)
		if (nfhp_leaf_needs(s->rel[i], i == s->n - 1, walk))
			n++;
	/* Only the last is needed when it is alone: it is its own leaf. */
	if (n == 1 && s->rel[s->n - 1]->self == s->rel[s->n - 1]) {
		*out = nfhp_entry_leaf(s->rel[s->n - 1]);
		return 0;
	}
	leaf = nfhp_draft_new(f, NFHP_NODE_LEAF, n);
	if (!leaf)
		return -ENOMEM;
	items = (const struct nfhp_entry **)leaf->data;
	for (i = 0, n = 0; i < s->n; i++)
		if (nfhp_leaf_needs(s->rel[i], i == s->n - 1, walk))
			items[n++] = s->rel[i];
	leaf->ibits = walk;
	leaf->min_order = items[0]->order;
	*out = nfhp_node_intern(f, leaf);
	nfhp_scratch_release(&f->scratch, mark);
	return *out ? 0 : -ENOMEM;
}

/*
 * The leaf of a region past its share of the build's work: every relevant
 * entry, each tested against the packet when a lookup ends there, see
 * "Bounded builds" in DOC: Theory of Operation.
 */
static noinline_for_stack int
nfhp_tested_get(struct nfhp_forest *f, const struct nfhp_scan *s,
		struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_node *leaf;

	leaf = nfhp_draft_new(f, NFHP_NODE_LEAF, s->n);
	if (!leaf)
		return -ENOMEM;
	memcpy(leaf->data, s->rel, s->n * sizeof(*s->rel));
	leaf->ibits = NFHP_WALK_TESTED;
	leaf->min_order = s->rel[0]->order;
	*out = nfhp_node_intern(f, leaf);
	nfhp_scratch_release(&f->scratch, mark);
	return *out ? 0 : -ENOMEM;
}

/* Can @e be an entry of a list node: it ends a scan where it matches? */
static bool nfhp_list_entry_ok(const struct nfhp_entry *e)
{
	return !(e->flags & (NFHP_ENTRY_EVAL | NFHP_ENTRY_COND)) &&
	       nfhp_entry_terminal(e);
}

/*
 * Write the tests of @e, the dimensions where it does not cover @reg, to
 * @t.  Return the u32 words written, or 0 when a test would need more
 * than one interval, a 128-bit key, or more than NFHP_LIST_DIMS
 * dimensions.
 */
static unsigned int nfhp_list_tests_of(const struct nfhp_entry *e,
				       const struct nfhp_region *reg,
				       struct nfhp_list_tests *t)
{
	const struct nfhp_box *b = e->box;
	const struct nfhp_range *r;
	unsigned int m, d, nt = 0;

	for (m = b->restricted; m; m &= m - 1) {
		d = __builtin_ctz(m);
		if (nfhp_box_covers_dim(b, d, &reg->d[d]))
			continue;
		if (nfhp_box_nranges(b, d) != 1 || nfhp_dim_bits(d) != 32 ||
		    nt == NFHP_LIST_DIMS)
			return 0;
		r = nfhp_box_ranges(b, d);
		t->t[nt].dim = d;
		t->t[nt].lo = r->lo;
		t->t[nt].hi = r->hi;
		nt++;
	}
	t->n = nt;
	return nt ? nfhp_list_test_words(nt) : 0;
}

/* The test of dimension @d among the tests @t of one entry, or NULL. */
static const struct nfhp_list_test *
nfhp_list_test_dim(const struct nfhp_list_tests *t, unsigned int d)
{
	unsigned int j;

	for (j = 0; j < t->n; j++)
		if (t->t[j].dim == d)
			return &t->t[j];
	return NULL;
}

/* Do the tests @a and @b of two entries hold no packet of @reg in common? */
static bool nfhp_list_disjoint(const struct nfhp_list_tests *a,
			       const struct nfhp_list_tests *b,
			       const struct nfhp_region *reg)
{
	const struct nfhp_list_test *x, *y;
	u32 lo, hi;
	unsigned int j;

	for (j = 0; j < a->n; j++) {
		x = &a->t[j];
		y = nfhp_list_test_dim(b, x->dim);
		if (!y)
			continue;
		lo = max_t(u32, max(x->lo, y->lo), reg->d[x->dim].lo);
		hi = min_t(u32, min(x->hi, y->hi), reg->d[x->dim].hi);
		if (lo > hi)
			return true;
	}
	return false;
}

/*
 * Do the intervals of dimension @d of the @n tests in @t leave a gap in
 * @reg?  A test without @d covers it.
 */
static bool nfhp_list_gap_in(const struct nfhp_list_tests *const *t,
			     unsigned int n, unsigned int d,
			     const struct nfhp_region *reg)
{
	u64 from = reg->d[d].lo, end = reg->d[d].hi;
	const struct nfhp_list_test *x;
	bool moved = true;
	unsigned int i;

	/* Few intervals: advance past any that starts by @from, until stuck. */
	while (moved && from <= end) {
		moved = false;
		for (i = 0; i < n; i++) {
			x = nfhp_list_test_dim(t[i], d);
			if (!x)
				return false;
			if (x->lo <= from && x->hi >= from) {
				from = (u64)x->hi + 1;
				moved = true;
			}
		}
	}
	return from <= end;
}

/*
 * Does the last entry of a list decide some packet of @reg: do the tests
 * @t of the others leave a gap in one dimension?
 */
static bool nfhp_list_last_reached(const struct nfhp_list_tests *const *t,
				   unsigned int n,
				   const struct nfhp_region *reg)
{
	unsigned int j;

	for (j = 0; j < t[0]->n; j++)
		if (nfhp_list_gap_in(t, n, t[0]->t[j].dim, reg))
			return true;
	return false;
}

/*
 * Fill the list node @list from the relevant entries of @s, see "List
 * nodes" in DOC: Theory of Operation.  Return false when @s does not
 * qualify: then a subtree is built.
 */
static bool nfhp_list_fill(struct nfhp_node *list, const struct nfhp_region *reg,
			   const struct nfhp_scan *s)
{
	const struct nfhp_list_tests *test[NFHP_LIST_MAX_ANY];
	u32 *t = (u32 *)nfhp_list_tests(list);
	struct nfhp_list_tests *tests;
	unsigned int i, j, w, words = 0;

	for (i = 0; i < s->n; i++)
		if (!nfhp_list_entry_ok(s->rel[i]))
			return false;
	if (!nfhp_box_covers(s->rel[s->n - 1]->box, reg))
		return false;
	for (i = 0; i < s->n - 1; i++) {
		tests = (struct nfhp_list_tests *)(t + words);
		w = nfhp_list_tests_of(s->rel[i], reg, tests);
		if (!w)
			return false;
		test[i] = tests;
		words += w;
		for (j = 0; j < i; j++)
			if (!nfhp_list_disjoint(test[j], test[i], reg))
				return false;
	}
	if (!nfhp_list_last_reached(test, s->n - 1, reg))
		return false;
	if (words & 1)
		t[words] = 0;
	memcpy(list->data, s->rel, s->n * sizeof(*s->rel));
	list->ishift = words;
	list->min_order = s->rel[0]->order;
	return true;
}

/*
 * The list node of a region with few relevant entries, all terminal.
 * Return 1 when they do not qualify (nothing is allocated), else 0 or
 * -ENOMEM.
 */
noinline_for_stack int
nfhp_list_get(struct nfhp_forest *f, const struct nfhp_region *reg,
	      const struct nfhp_scan *s, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_node *list;
	int ret = 1;

	list = nfhp_draft_new(f, NFHP_NODE_LIST, s->n);
	if (!list)
		return -ENOMEM;
	if (nfhp_list_fill(list, reg, s)) {
		*out = nfhp_node_intern(f, list);
		ret = *out ? 0 : -ENOMEM;
	}
	nfhp_scratch_release(&f->scratch, mark);
	return ret;
}

/*
 * The dimension to split: the one restricted by most relevant entries that
 * do not cover the region, of those not in the bits @tried.  Return
 * %NFHP_DIM_MAX when no such entry is left.
 */
static unsigned int nfhp_split_dim(const struct nfhp_scan *s, u32 tried)
{
	unsigned int d, best = NFHP_DIM_MAX;

	for (d = 0; d < NFHP_DIM_MAX; d++)
		if (!(tried & BIT(d)) && s->noncover[d] &&
		    (best == NFHP_DIM_MAX || s->noncover[d] > s->noncover[best]))
			best = d;
	return best;
}

static int nfhp_event_cmp(const void *a, const void *b)
{
	const struct nfhp_event *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return 0;
}

/*
 * Copy an event field by field: a kernel build made the assignment of the
 * whole struct a call of memcpy(), a tenth of a bounded build under TCG.
 */
static inline void nfhp_event_copy(struct nfhp_event *to,
				   const struct nfhp_event *from)
{
	to->at = from->at;
	to->idx = from->idx;
	to->on = from->on;
}

/* Byte @b of @at, the least significant being byte 0. */
static inline unsigned int nfhp_event_byte(nfhp_u128 at, unsigned int b)
{
	u64 half = b < 8 ? (u64)at : (u64)(at >> 64);

	return (half >> (8 * (b & 7))) & 0xff;
}

/*
 * Sort the events of @dim by @at, least significant byte first, from @ev
 * to @tmp and back, with @count's 256 counters; return the one sorted
 * last (no copy back: memcpy() is slow under TCG).  Only the bytes in which
 * some events differ are sorted by: most of an interface name's, and the
 * high bytes of the addresses of a narrow region, cost nothing.  The
 * order of equal events does not matter: they are all applied before the
 * next interval is built.
 */
static struct nfhp_event *
nfhp_events_radix(struct nfhp_event *ev, struct nfhp_event *tmp, u32 *count,
		  unsigned int n, unsigned int dim)
{
	unsigned int bytes = nfhp_dim_bits(dim) / 8;
	struct nfhp_event *src = ev, *dst = tmp;
	unsigned int b, i, pos, c;
	nfhp_u128 differ = 0;

	for (i = 1; i < n; i++)
		differ |= ev[i].at ^ ev[0].at;
	for (b = 0; b < bytes; b++) {
		if (!nfhp_event_byte(differ, b))
			continue;
		memset(count, 0, 256 * sizeof(*count));
		for (i = 0; i < n; i++)
			count[nfhp_event_byte(src[i].at, b)]++;
		for (i = 0, pos = 0; i < 256; i++) {
			c = count[i];
			count[i] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++) {
			pos = count[nfhp_event_byte(src[i].at, b)]++;
			nfhp_event_copy(&dst[pos], &src[i]);
		}
		swap(src, dst);
	}
	return src;
}

static void nfhp_events_insertion(struct nfhp_event *ev, unsigned int n)
{
	struct nfhp_event tmp;
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		if (ev[i - 1].at <= ev[i].at)
			continue;
		tmp = ev[i];
		for (j = i; j && ev[j - 1].at > tmp.at; j--)
			ev[j] = ev[j - 1];
		ev[j] = tmp;
	}
}

/*
 * Sort events by @at, in place or into scratch memory allocated after
 * them; return the sorted ones.  sort()'s indirect calls were a fifth of
 * a build: most splits below the first levels have a handful of events,
 * sorted by insertion, and the wide ones by radix, the interface
 * dimensions too.  Without scratch memory for the radix sort, sort()
 * does it.
 */
static struct nfhp_event *nfhp_events_sort(struct nfhp_forest *f,
					   unsigned int dim,
					   struct nfhp_event *ev,
					   unsigned int n)
{
	struct nfhp_scratch_mark mark;
	struct nfhp_event *tmp, *sorted;
	u32 *count;

	if (n <= nfhp_events_insertion_max) {
		nfhp_events_insertion(ev, n);
		return ev;
	}
	mark = nfhp_scratch_mark(&f->scratch);
	tmp = nfhp_scratch_alloc(&f->scratch, n, sizeof(*tmp));
	count = nfhp_scratch_alloc(&f->scratch, 256, sizeof(*count));
	if (!tmp || !count) {
		nfhp_scratch_release(&f->scratch, mark);
		sort(ev, n, sizeof(*ev), nfhp_event_cmp, NULL);
		return ev;
	}
	sorted = nfhp_events_radix(ev, tmp, count, n, dim);
	/* Sorted into @tmp, which stays until the caller's release. */
	if (sorted == ev)
		nfhp_scratch_release(&f->scratch, mark);
	return sorted;
}

/* Interval ends of the relevant entries in @dim, clipped to the region. */
int nfhp_split_events(struct nfhp_forest *f,
		      const struct nfhp_scan *s, unsigned int dim,
		      const struct nfhp_range *span,
		      struct nfhp_event **out, unsigned int *nout)
{
	unsigned int i, j, n = 0, cap = 0;
	struct nfhp_event *ev;

	for (i = 0; i < s->n; i++)
		cap += 2 * nfhp_box_nranges(s->rel[i]->box, dim);
	ev = nfhp_scratch_alloc(&f->scratch, cap, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		const struct nfhp_box *b = s->rel[i]->box;
		const struct nfhp_range *r = nfhp_box_ranges(b, dim);

		for (j = 0; j < nfhp_box_nranges(b, dim); j++) {
			if (r[j].hi < span->lo || r[j].lo > span->hi)
				continue;
			ev[n].at = max(r[j].lo, span->lo);
			ev[n].idx = i;
			ev[n++].on = true;
			if (r[j].hi >= span->hi)
				continue;
			ev[n].at = r[j].hi + 1;
			ev[n].idx = i;
			ev[n++].on = false;
		}
	}
	*out = nfhp_events_sort(f, dim, ev, n);
	*nout = n;
	return 0;
}

/* Drop the references of the children @c. */
void nfhp_children_put(struct nfhp_forest *f, struct nfhp_children *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		nfhp_tree_put(f, c->node[i]);
}

/* Append a child, merging it with an equal left neighbour. */
void nfhp_children_add(struct nfhp_forest *f, struct nfhp_children *c,
		       struct nfhp_node *child, nfhp_u128 hi)
{
	if (c->n && c->node[c->n - 1] == child) {
		nfhp_tree_put(f, child);
		c->hi[c->n - 1] = hi;
		return;
	}
	c->node[c->n] = child;
	c->hi[c->n++] = hi;
}

/**
 * struct nfhp_active - the relevant entries of the parent that intersect
 *	the current elementary interval
 * @bits: one bit per entry of the parent's relevant list
 * @words: one bit per word of @bits that is not zero
 *
 * A wide split has hundreds of thousands of entries but few of them meet
 * any one interval; @words lets the scan skip the empty words of @bits.
 */
struct nfhp_active {
	unsigned long *bits;
	unsigned long *words;
};

static int nfhp_active_init(struct nfhp_forest *f, struct nfhp_active *a,
			    unsigned int n)
{
	unsigned int nbits = BITS_TO_LONGS(n);

	a->bits = nfhp_scratch_zalloc(&f->scratch, nbits, sizeof(long));
	a->words = nfhp_scratch_zalloc(&f->scratch, BITS_TO_LONGS(nbits),
				       sizeof(long));
	return a->bits && a->words ? 0 : -ENOMEM;
}

static void nfhp_active_set(struct nfhp_active *a, unsigned int i, bool on)
{
	unsigned int w = i / BITS_PER_LONG;

	if (on) {
		__set_bit(i, a->bits);
		__set_bit(w, a->words);
		return;
	}
	__clear_bit(i, a->bits);
	if (!a->bits[w])
		__clear_bit(w, a->words);
}

/*
 * Push the active entries into @s in order, up to the one after which
 * nfhp_scan_push() says nothing can matter.
 */
static void nfhp_active_scan(const struct nfhp_active *a,
			     const struct nfhp_scan *parent,
			     const struct nfhp_region *reg, struct nfhp_scan *s)
{
	unsigned int nbits = BITS_TO_LONGS(parent->n), sw, w, i;
	unsigned long words, bits;

	for (sw = 0; sw < BITS_TO_LONGS(nbits); sw++) {
		for (words = a->words[sw]; words; words &= words - 1) {
			w = sw * BITS_PER_LONG + __builtin_ctzl(words);
			for (bits = a->bits[w]; bits; bits &= bits - 1) {
				i = w * BITS_PER_LONG + __builtin_ctzl(bits);
				if (!nfhp_scan_push(s, reg, parent->rel[i]))
					return;
			}
		}
	}
}

/*
 * The work the subtree of a child of @n relevant entries may take: all
 * the run's pool on a build's first attempt, a share of it on the second
 * ("Bounded builds" in DOC: Theory of Operation).
 */
static u64 nfhp_child_budget(const struct nfhp_forest *f,
			     const struct nfhp_sweep *w, unsigned int n)
{
	if (!f->shares)
		return w->pool;
	if (!w->work)
		return 0;
	return min(w->pool, div64_u64(w->pool * n * NFHP_SHARE_OVERCOMMIT,
				      w->work));
}

/*
 * Build (or find in the memo) the child of one elementary interval, whose
 * relevant entries go to @s: a scan on the scratch stack, not in this
 * frame, as the build recurses through it.  Its share of the run's pool
 * is as its entries are to the run's that are left.  A leaf's region is
 * not remembered: its leaf is found as fast by deduplication.
 */
static int nfhp_build_child(struct nfhp_forest *f, struct nfhp_region *reg,
			    const struct nfhp_scan *parent,
			    const struct nfhp_active *active,
			    struct nfhp_sweep *w, struct nfhp_scan *s,
			    struct nfhp_node **out)
{
	struct nfhp_memo_key key;
	struct nfhp_node *twin = NULL;
	int err;

	*s = (struct nfhp_scan){ .rel = s->rel,
				 .cut = parent->cut | BIT(w->dim) };
	nfhp_active_scan(active, parent, reg, s);
	key = (struct nfhp_memo_key){ .rel = s->rel, .n = s->n, .cut = s->cut };
	if (s->split) {
		nfhp_memo_hash(&key);
		twin = nfhp_memo_find(f->memo, &key);
	}
	if (!f->shares) {
		/* A first attempt pays for each child's scan as it goes. */
		if (w->pool < s->n)
			return -ERANGE;
		w->pool -= s->n;
		w->used += s->n;
	}
	if (twin) {
		nfhp_node_get(f, twin);
		*out = twin;
	} else {
		s->budget = nfhp_child_budget(f, w, s->n);
		err = nfhp_build(f, reg, s, out);
		if (err)
			return err;
		if (s->split)
			nfhp_memo_store(f->memo, &key, *out);
		w->pool -= s->used;
		w->used += s->used;
	}
	w->work -= min_t(u64, w->work, s->n);
	return 0;
}

/* The earliest entry below any of @c's children. */
u64 nfhp_children_min(const struct nfhp_children *c)
{
	u64 min_order = U64_MAX;
	unsigned int i;

	for (i = 0; i < c->n; i++)
		min_order = min(min_order, c->node[i]->min_order);
	return min_order;
}

/* One node of the children @c, whose earliest entry is @min_order. */
static int nfhp_make_node(struct nfhp_forest *f, unsigned int dim,
			  struct nfhp_children *c, u64 min_order,
			  struct nfhp_node **out)
{
	u8 kind = nfhp_dim_bits(dim) == 128 ? NFHP_NODE_RLP128 :
					      NFHP_NODE_RLP32;
	struct nfhp_node *node;
	unsigned int i;

	if (c->n == 1) {
		*out = c->node[0];
		return 0;
	}
	node = nfhp_draft_new(f, kind, c->n);
	if (!node)
		return -ENOMEM;
	node->dim = dim;
	node->min_order = min_order;
	for (i = 0; i < c->n; i++) {
		if (kind == NFHP_NODE_RLP128)
			nfhp_keys128(node)[i] = c->hi[i];
		else
			nfhp_keys32(node)[i] = (u32)c->hi[i];
		nfhp_children(node)[i] = c->node[i];
	}
	if (kind == NFHP_NODE_RLP32)
		nfhp_index_fill(node);
	*out = nfhp_node_intern(f, node);
	return *out ? 0 : -ENOMEM;
}

/*
 * Cut the children @c into nodes of nfhp_node_piece intervals under a
 * parent node of the same dimension, see "Wide nodes" in DOC: Theory of
 * Operation.  On failure the references are @c's again, as with one node.
 */
static int nfhp_make_chunks(struct nfhp_forest *f, unsigned int dim,
			    struct nfhp_children *c, u64 min_order,
			    struct nfhp_node **out)
{
	unsigned int k = nfhp_node_piece, i, j;
	struct nfhp_scratch_mark mark;
	struct nfhp_children top, part;
	int err;

	top.n = DIV_ROUND_UP(c->n, k);
	top.node = nfhp_scratch_alloc(&f->scratch, top.n, sizeof(*top.node));
	top.hi = nfhp_scratch_alloc(&f->scratch, top.n, sizeof(*top.hi));
	if (!top.node || !top.hi)
		return -ENOMEM;
	for (j = 0, err = 0; j < top.n && !err; j++) {
		part.node = c->node + j * k;
		part.hi = c->hi + j * k;
		part.n = min(k, c->n - j * k);
		mark = nfhp_scratch_mark(&f->scratch);
		err = nfhp_make_node(f, dim, &part, nfhp_children_min(&part),
				     &top.node[j]);
		nfhp_scratch_release(&f->scratch, mark);
		top.hi[j] = part.hi[part.n - 1];
	}
	if (err)
		j--;	/* the failed part kept its references */
	else
		err = nfhp_make_rlp(f, dim, &top, min_order, out);
	if (!err)
		return 0;
	/* The parts took their children's references: hand them back. */
	for (i = 0; i < min(j * k, c->n); i++)
		nfhp_node_get(f, c->node[i]);
	for (i = 0; i < j; i++)
		nfhp_tree_put(f, top.node[i]);
	return err;
}

/*
 * The node of the children @c, whose earliest entry is @min_order: one
 * node, or for very many children a node of nodes (nfhp_make_chunks()).
 * The node takes over @c's references; on failure they stay with @c.
 */
int nfhp_make_rlp(struct nfhp_forest *f, unsigned int dim,
		  struct nfhp_children *c, u64 min_order,
		  struct nfhp_node **out)
{
	if (c->n > 2 * nfhp_node_fanout)
		return nfhp_make_chunks(f, dim, c, min_order, out);
	return nfhp_make_node(f, dim, c, min_order, out);
}

/*
 * Sweep the interval ends of @w->dim, building one child per interval.  A
 * commit whose task has a signal stops here, and nothing of the build
 * stays: an admin's Ctrl-C on a restore leaves the old rules in force.
 */
int nfhp_split_children(struct nfhp_forest *f, struct nfhp_region *reg,
			const struct nfhp_scan *s,
			struct nfhp_sweep *w,
			struct nfhp_children *c)
{
	const struct nfhp_event *ev = w->ev;
	struct nfhp_range span = reg->d[w->dim];
	unsigned int i, e, nev = w->nev;
	struct nfhp_active active;
	struct nfhp_scan *cs;
	struct nfhp_node *child;
	nfhp_u128 lo, hi;
	int err, k = 0;

	cs = nfhp_scratch_alloc(&f->scratch, 1, sizeof(*cs));
	if (cs)
		cs->rel = nfhp_scratch_alloc(&f->scratch, s->n, sizeof(*cs->rel));
	if (!cs || !cs->rel || nfhp_active_init(f, &active, s->n))
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		if (!nfhp_box_nranges(s->rel[i]->box, w->dim))
			nfhp_active_set(&active, i, true);
	/* A later run starts with the entries the earlier ones left on. */
	for (e = 0; e < w->from; e++)
		nfhp_active_set(&active, ev[e].idx, ev[e].on);
	lo = w->from ? ev[w->from].at : span.lo;
	for (;;) {
		for (; e < nev && ev[e].at == lo; e++)
			nfhp_active_set(&active, ev[e].idx, ev[e].on);
		hi = e < nev ? ev[e].at - 1 : span.hi;
		reg->d[w->dim].lo = lo;
		reg->d[w->dim].hi = hi;
		f->may_share = k++ == w->heavy;
		err = nfhp_build_child(f, reg, s, &active, w, cs, &child);
		f->may_share = false;
		if (err)
			break;
		nfhp_children_add(f, c, child, hi);
		cond_resched();
		if (signal_pending(current)) {
			err = -ECANCELED;
			break;
		}
		if (e >= w->to)
			break;
		lo = ev[e].at;
	}
	reg->d[w->dim] = span;
	return err;
}

/**
 * struct nfhp_helper - the second run of a shared split
 * @work: the work item on the unbound workqueue
 * @f: the helper's forest: its own scratch stack, its home's table
 * @reg: the helper's copy of the region being split
 * @s: the split's relevant entries
 * @w: the helper's run
 * @c: the children it built
 * @memo: the subtrees it built
 * @err: its result
 */
struct nfhp_helper {
	struct work_struct work;
	struct nfhp_forest f;
	struct nfhp_region reg;
	const struct nfhp_scan *s;
	struct nfhp_sweep w;
	struct nfhp_children c;
	struct nfhp_memo memo;
	int err;
};

static void nfhp_helper_run(struct work_struct *work)
{
	struct nfhp_helper *h = container_of(work, struct nfhp_helper, work);
	struct nfhp_forest *f = &h->f;
	unsigned int n = h->w.nev - h->w.from + 1;

	h->c.node = nfhp_scratch_alloc(&f->scratch, n, sizeof(*h->c.node));
	h->c.hi = nfhp_scratch_alloc(&f->scratch, n, sizeof(*h->c.hi));
	h->err = -ENOMEM;
	if (h->c.node && h->c.hi)
		h->err = nfhp_split_children(f, &h->reg, h->s, &h->w, &h->c);
}

/**
 * struct nfhp_work_tally - the work of a split's intervals, walked in order
 * @done: the work of the intervals walked; an interval's work is the
 *	number of its relevant entries
 * @most: the work of the largest of them
 * @heavy: the index of that interval, or -1
 */
struct nfhp_work_tally {
	u64 done;
	u64 most;
	int heavy;
};

/*
 * Walk the intervals of a split whose region starts at @lo into @t, until
 * @t->done reaches @limit.  Return the event where the next interval
 * starts, or 0 when the walk got to the last interval.
 */
static unsigned int nfhp_work_walk(const struct nfhp_scan *s,
				   const struct nfhp_sweep *w, nfhp_u128 lo,
				   u64 limit, struct nfhp_work_tally *t)
{
	const struct nfhp_event *ev = w->ev;
	unsigned int i, e = 0;
	nfhp_u128 at = lo;
	long on = 0;
	int k;

	for (i = 0; i < s->n; i++)
		on += !nfhp_box_nranges(s->rel[i]->box, w->dim);
	for (k = 0; ; k++) {
		for (; e < w->nev && ev[e].at == at; e++)
			on += ev[e].on ? 1 : -1;
		t->done += on;
		if (on > t->most) {
			t->most = on;
			t->heavy = k;
		}
		if (e >= w->nev)
			return 0;
		if (t->done >= limit)
			return e;
		at = ev[e].at;
	}
}

/*
 * Plan the runs of a split whose region starts at @lo: @cut is the event
 * where the second run starts, at half of the work, or 0 not to cut, and
 * @first the work of the first run of @total; @heavy the interval that
 * holds most of the work when that is why.
 */
noinline_for_stack void
nfhp_share_plan(const struct nfhp_scan *s,
		const struct nfhp_sweep *w, nfhp_u128 lo,
		unsigned int *cut, u64 *first, u64 *total, int *heavy)
{
	struct nfhp_work_tally all = { .heavy = -1 }, half = { .heavy = -1 };

	*cut = 0;
	*heavy = -1;
	nfhp_work_walk(s, w, lo, U64_MAX, &all);
	*total = all.done;
	if (all.done >= 2 * (u64)nfhp_share_min && 2 * all.most <= all.done) {
		*cut = nfhp_work_walk(s, w, lo, (all.done + 1) / 2, &half);
		*first = half.done;
	} else if (all.most >= nfhp_share_min) {
		*heavy = all.heavy;
	}
}

/* The work of a split: every child's relevant entries, at most. */
u64 nfhp_split_work(const struct nfhp_scan *s,
		    const struct nfhp_sweep *w, nfhp_u128 lo)
{
	struct nfhp_work_tally all = { .heavy = -1 };

	nfhp_work_walk(s, w, lo, U64_MAX, &all);
	return all.done;
}

/*
 * Build the children of a split in two runs, the second by a helper; the
 * first run's work is @first_work of @total, its pool as that is to all.
 * Return: as nfhp_split_children(); -EAGAIN when no helper could be
 * made, for the caller to sweep alone.
 */
noinline_for_stack int
nfhp_split_shared(struct nfhp_forest *f, struct nfhp_region *reg,
		  const struct nfhp_scan *s,
		  struct nfhp_sweep *w, unsigned int cut, u64 first_work,
		  u64 total, struct nfhp_children *c)
{
	struct nfhp_sweep first = *w;
	struct nfhp_helper *h;
	unsigned int i;
	int err;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -EAGAIN;
	h->f.mem = f->mem;
	h->f.home = f;
	h->f.shares = f->shares;
	nfhp_scratch_init(&h->f.scratch);
	nfhp_memo_init(&h->memo);
	h->f.memo = &h->memo;
	h->reg = *reg;
	h->s = s;
	h->w = *w;
	h->w.from = cut;
	first.to = cut;
	first_work = min(first_work, total);
	first.pool = div64_u64(w->pool * first_work, max_t(u64, total, 1));
	h->w.pool = w->pool - first.pool;
	if (f->shares) {
		first.work = min(first_work, w->work);
		h->w.work = w->work - first.work;
	}
	INIT_WORK(&h->work, nfhp_helper_run);
	f->shared = true;
	queue_work(system_unbound_wq, &h->work);
	err = nfhp_split_children(f, reg, s, &first, c);
	flush_work(&h->work);
	f->shared = false;
	w->used += first.used + h->w.used;
	if (!err)
		err = h->err;
	if (!err)
		f->shared_splits++;
	for (i = 0; i < h->c.n; i++) {
		if (err)
			nfhp_tree_put(f, h->c.node[i]);
		else
			nfhp_children_add(f, c, h->c.node[i], h->c.hi[i]);
	}
	nfhp_memo_destroy(&h->memo);
	nfhp_scratch_destroy(&h->f.scratch);
	kfree(h);
	return err;
}

/* Build the children of a split, with a helper when it is worth one. */
static int nfhp_split_sweep(struct nfhp_forest *f, struct nfhp_region *reg,
			    const struct nfhp_scan *s, struct nfhp_sweep *w,
			    struct nfhp_children *c)
{
	u64 first = 0, total = 0;
	unsigned int cut;
	int err;

	if (f->may_share) {
		f->may_share = false;
		nfhp_share_plan(s, w, reg->d[w->dim].lo, &cut, &first, &total,
				&w->heavy);
		if (cut) {
			err = nfhp_split_shared(f, reg, s, w, cut, first, total,
						c);
			if (err != -EAGAIN)
				return err;
		}
	}
	return nfhp_split_children(f, reg, s, w, c);
}

/*
 * Split the region in the best dimension and build the children; past
 * the region's budget, make it a tested leaf instead.  Return 1 for that,
 * with nothing built, else 0 or an error.
 */
/*
 * Choose the dimension @w splits and its interval ends, on the scratch
 * stack: nfhp_split_dim()'s.  On a second attempt, its children's scans
 * must fit the region's budget, or it gives way to the next dimension, a
 * split that does less for the lookup but fits; a first attempt pays for
 * the scans as it makes them (nfhp_build_child()).  Return 0, 1 when
 * none fits, or -ENOMEM.
 */
static noinline_for_stack int
nfhp_split_plan(struct nfhp_forest *f, const struct nfhp_region *reg,
		const struct nfhp_scan *s, struct nfhp_sweep *w)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_event *ev;
	u32 tried = 0;
	int err;

	/* Every relevant entry goes to some child: no split costs less. */
	if (f->shares && s->budget < s->n)
		return 1;
	for (;;) {
		w->dim = nfhp_split_dim(s, tried);
		if (w->dim == NFHP_DIM_MAX)
			return 1;
		tried |= BIT(w->dim);
		/*
		 * An entry that covers the region in the dimension goes to
		 * each of at least two children, any other to one at least:
		 * past the budget, the events need not be sorted to know.
		 */
		if (f->shares &&
		    2 * (u64)s->n - s->noncover[w->dim] > s->budget)
			continue;
		err = nfhp_split_events(f, s, w->dim, &reg->d[w->dim], &ev,
					&w->nev);
		if (err)
			return err;
		w->ev = ev;
		w->to = w->nev;
		if (!f->shares)
			return 0;
		w->work = nfhp_split_work(s, w, reg->d[w->dim].lo);
		if (w->work <= s->budget)
			return 0;
		nfhp_scratch_release(&f->scratch, mark);
	}
}

static int nfhp_split(struct nfhp_forest *f, struct nfhp_region *reg,
		      struct nfhp_scan *s, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_sweep w = { .heavy = -1 };
	struct nfhp_children c = {};
	unsigned int i;
	int err;

	err = nfhp_split_plan(f, reg, s, &w);
	if (err)
		goto out_release;
	w.pool = s->budget - w.work;
	c.node = nfhp_scratch_alloc(&f->scratch, w.nev + 1, sizeof(*c.node));
	c.hi = nfhp_scratch_alloc(&f->scratch, w.nev + 1, sizeof(*c.hi));
	s->used = w.work;
	err = -ENOMEM;
	if (c.node && c.hi)
		err = nfhp_split_sweep(f, reg, s, &w, &c);
	s->used += w.used;
	if (!err)
		err = nfhp_make_rlp(f, w.dim, &c, nfhp_children_min(&c), out);
	if (err)
		for (i = 0; i < c.n; i++)
			nfhp_tree_put(f, c.node[i]);
out_release:
	nfhp_scratch_release(&f->scratch, mark);
	return err;
}

int nfhp_build(struct nfhp_forest *f, struct nfhp_region *reg,
	       struct nfhp_scan *s, struct nfhp_node **out)
{
	int err;

	s->used = 0;
	if (WARN_ON(!s->n))
		return -EINVAL;
	if (!s->split)
		return nfhp_leaf_get(f, s, out);
	if (s->n >= 2 && s->n <= min_t(u32, nfhp_list_max, NFHP_LIST_MAX_ANY)) {
		err = nfhp_list_get(f, reg, s, out);
		if (err <= 0)
			return err;
	}
	/* Where the stack ends, a region is tested as it is. */
	err = nfhp_stack_low() ? 1 : nfhp_split(f, reg, s, out);
	return err == 1 ? nfhp_tested_get(f, s, out) : err;
}

/*
 * The whole key space as a region, on the scratch stack: 448 bytes kept
 * off the kernel stack, under which a build or update recurses.
 */
struct nfhp_region *nfhp_region_scratch(struct nfhp_forest *f)
{
	struct nfhp_region *reg = nfhp_scratch_alloc(&f->scratch, 1,
						     sizeof(*reg));

	if (reg)
		nfhp_region_full(reg);
	return reg;
}

/**
 * nfhp_tree_build() - compile the flattened entries of a hook into a tree
 * @f: the forest to allocate nodes in
 * @entries: the entries, sorted by order, ending with the policy
 * @n: number of entries
 * @root: set to the root, holding one reference
 *
 * For more details, see DOC: Theory of Operation.
 *
 * Return: 0, or -ENOMEM with nothing allocated.
 */
int nfhp_tree_build(struct nfhp_forest *f, const struct nfhp_entry **entries,
		    unsigned int n, struct nfhp_node **root)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	struct nfhp_region *reg = nfhp_region_scratch(f);
	int err;

	if (!reg)
		return -ENOMEM;
	f->may_share = true;
	err = nfhp_build_region(f, reg, entries, n, true, NULL,
				root);
	f->may_share = false;
	nfhp_scratch_release(&f->scratch, mark);
	return err;
}

/**
 * nfhp_build_budget_of() - the work a build of @n relevant entries may do
 * @per_entry: work units per entry
 * @n: the entries
 *
 * Return: @per_entry for each entry, within nfhp_build_budget_min and
 * nfhp_build_budget_max.
 */
u64 nfhp_build_budget_of(u32 per_entry, unsigned int n)
{
	return clamp_t(u64, (u64)per_entry * n, nfhp_build_budget_min,
		       nfhp_build_budget_max);
}

/*
 * Build the subtree of the region @reg whose relevant entries are @s, on
 * a first attempt or (@shares) on the second, with a memo of its own.
 */
static int nfhp_build_attempt(struct nfhp_forest *f, struct nfhp_region *reg,
			      struct nfhp_scan *s, u64 budget, bool shares,
			      struct nfhp_node **out)
{
	struct nfhp_memo memo, *outer = f->memo;
	int err;

	s->budget = budget;
	nfhp_memo_init(&memo);
	f->memo = &memo;
	f->shares = shares;
	err = nfhp_build(f, reg, s, out);
	f->shares = false;
	f->memo = outer;
	nfhp_memo_destroy(&memo);
	return err;
}

/*
 * Build the subtree of a region from entries in order, some outside it,
 * with a budget of nfhp_build_budget work units per relevant entry: all
 * of it for any part on a first attempt, and when that runs out, shares
 * of it on a second ("Bounded builds" in DOC: Theory of Operation).
 * Unless @deepen, the region is a leaf, a list or a tested leaf.  An update
 * passes the work it has @left, which the build takes from: a region
 * gets no more than is left, and both attempts count.  -EOVERFLOW when
 * not even the region's scan is left.
 */
int nfhp_build_region(struct nfhp_forest *f, struct nfhp_region *reg,
		      const struct nfhp_entry **entries, unsigned int n,
		      bool deepen, u64 *left, struct nfhp_node **out)
{
	struct nfhp_scratch_mark mark = nfhp_scratch_mark(&f->scratch);
	bool may_share = f->may_share;
	struct nfhp_scan s = {};
	u64 budget, first;
	unsigned int i;
	int err;

	s.rel = nfhp_scratch_alloc(&f->scratch, n, sizeof(*s.rel));
	if (!s.rel)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!nfhp_box_intersects(entries[i]->box, reg))
			continue;
		if (!nfhp_scan_push(&s, reg, entries[i]))
			break;
	}
	budget = deepen ? nfhp_build_budget_of(nfhp_build_budget, s.n) : 0;
	first = deepen ? nfhp_build_budget_of(nfhp_build_first, s.n) : 0;
	if (left) {
		if (*left < s.n) {
			err = -EOVERFLOW;
			goto out_release;
		}
		*left -= s.n;
		budget = min(budget, *left);
	}
	first = min(first, budget);
	err = deepen ? nfhp_build_attempt(f, reg, &s, first, false, out) :
		       -ERANGE;
	if (err == -ERANGE && deepen) {
		f->builds_cut++;
		/* The first attempt spent its budget. */
		if (left) {
			*left -= first;
			budget = min(budget, *left);
		}
	}
	if (err == -ERANGE) {
		/* The second attempt may share its first split as well. */
		f->may_share = may_share;
		err = nfhp_build_attempt(f, reg, &s, budget, true, out);
	}
	if (!err && left)
		*left -= min(*left, s.used);
out_release:
	nfhp_scratch_release(&f->scratch, mark);
	return err;
}
