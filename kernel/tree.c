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
 * tree sees them (flat.c): a rule reached through a jump becomes an
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
 * Rule 1's tcp match also has an entry just before it (flat.c) that
 * drops the packets iptables' tcp match drops: a TCP header too short to
 * read, whose ports key.h sets above every real port.  It adds one more
 * interval to the PROTO nodes under 10.0.0.0/8, [6:%NFHP_L4_TRUNCATED,
 * 6:max], with a leaf that drops.
 *
 * (group.c gives rules that are wildcards in an address a tree of
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
 * are at most nfhp_tunables.list_max, all terminal and unconditional, the last
 * one covering the region, becomes one list node (nfhp_list_get()): the
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
 * Tests compare 32 bits of the packet's value.  In a 128-bit dimension
 * they compare a window of 32 bits, the lowest above which the region's
 * values share every bit (nfhp_list_window()), and only where the
 * interval's ends, cut to the region, are whole blocks below the window:
 * then the window decides exactly.  In fd00:1::/32, a test for
 * fd00:1:2::/48 compares bits 64 to 95, [0x20000, 0x2ffff]; one for a
 * /128 host there cannot be made, and the region is split instead.  The
 * whole of a dimension, ::/0, only lets /32s and wider be tested, so an
 * IPv6 rule set has more small nodes than its IPv4 twin where a list
 * tests an address no split cut.
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
 * nfhp_tunables.share_min relevant entries, counted over its elementary
 * intervals, in each half) cuts its intervals into two runs of about equal work
 * and hands the second run to a helper on the unbound workqueue
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
 * built exactly.  So a build is given work to do, nfhp_tunables.build_budget
 * units per relevant entry of its root (within a floor and a ceiling,
 * nfhp_build_budget_of()): a unit is one relevant entry of one child of
 * a split, what the sweep scans.  The ClassBench sets take at most 140 a
 * relevant entry.
 *
 * A build first spends a quarter of its budget (nfhp_tunables.build_first units
 * an entry) as it goes, every region drawing on what is left.  Most rule
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
 * nfhp_classify_walk() in classify.c).  Its last entry covers the region
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
 * of it.  The updates of one tree in one commit share the budget of a
 * build's first attempt (struct nfhp_update_budget in update.c): past
 * it, the tree is built anew, so that a commit of many changes costs at
 * most about a build and a quarter.
 * A tested leaf that an update meets is made again from its entries and
 * the candidates, as a tested leaf: updates do not deepen what a build
 * cut short, and their own work stays bounded.
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
 * drops the references of the old roots after a grace period (release.c),
 * which frees exactly the nodes no new tree shares.
 *
 * An update walks the tree as a tree, not as the graph that deduplication
 * made of it: a subtree under several parents is visited once for each
 * path to it.  Where the paths multiply (say 30 entries over a dozen
 * dimensions, each cutting a few intervals), one update can visit 10^8
 * nodes.  So the updates of a tree in one commit are given a number of
 * visits (update.c gives 16 per entry of the hook, and 4096) and give up
 * with -EOVERFLOW past them; the tree is then built anew, and a build has
 * the memo of each split's children.
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
 * IPv6 addresses are 128 bits, but the ends of prefixes of /64 or shorter
 * end in 64 one bits, and a node whose keys all do keeps their top halves
 * (RLP64, nfhp_node_kind_for()): K:ones is below V:x exactly when K < V,
 * so a u64 search over the value's top half is exact, with the index and
 * the count of eight as above.  fd00:1::/32 and 2001:db8::/48 end in
 * fd00:1:ffff:ffff:... and 2001:db8:0:ffff:...: both keys are u64.  A
 * node with a host's /128 among its keys keeps nfhp_u128 keys (RLP128)
 * and a plain binary search.
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
 * lookup then walks its entries in order (classify.c) and runs the
 * extensions of those it reaches.  Example, FORWARD policy DROP::
 *
 *   1  -p tcp --dport 22 -m limit --limit 3/min -j ACCEPT
 *   2  -p tcp --dport 22 -j REJECT --reject-with tcp-reset
 *
 * Under PROTO [6,6], DPORT [22,22] the leaf holds 1 (EVAL), 2 (EVAL) and
 * the policy: a packet within the limit is accepted by 1, the next one
 * reset by 2; elsewhere the leaf is the policy alone and no extension
 * runs.
 *
 * Files
 * -----
 *
 * The tree is built, updated and stored by files named for what they
 * hold; tree.h is their API, tree_priv.h what they share, and lookup.h
 * the lookup, inline in nfhp_classify()::
 *
 *   tree.c         this overview and the build: a region's relevant
 *                  entries (nfhp_scan_push()), its leaf or tested leaf,
 *                  the choice of its split, bounded builds
 *   tree_list.c    list nodes
 *   tree_split.c   a split: its interval ends and their sort, the sweep
 *                  that builds its children, their node or wide nodes
 *   tree_share.c   two builders: a split's work, the helper's half
 *   tree_node.c    the node store: layout, index, hashing and
 *                  deduplication, references and lending, drafts,
 *                  statistics walks
 *   tree_update.c  updates, and the splice of range-location nodes
 *   tree_shadow.c  whether a hook's trees decide a box before an entry
 *   memo.c         a build's memo of the subtrees of its regions
 *
 * The entries' boxes come from match.c, which makes them of the rules'
 * matches, and box.c answers what the build asks of them: does a box
 * cover a region, does it meet it.
 */

#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "memo.h"
#include "tree_priv.h"

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

/* Bits of nfhp_split_floor()'s set of interval ends, a power of two. */
#define NFHP_FLOOR_BITS		4096

/* A bit for an interval end: one of NFHP_FLOOR_BITS. */
static inline unsigned int nfhp_floor_bit(nfhp_u128 at)
{
	u64 x = (u64)at ^ (u64)(at >> 64);

	return ((u32)x ^ (u32)(x >> 32)) * 0x9e3779b1u >> 20;
}

/*
 * A floor under the work of splitting @s in @dim, found without sorting:
 * an entry that covers the region in @dim goes to every child, any other
 * to one child at least, and each distinct interval end inside the span
 * starts a child.  Ends are counted as the bits of @bits they set, and two
 * ends may share a bit, so the count is never above the truth.
 */
static u64 nfhp_split_floor(const struct nfhp_scan *s, unsigned int dim,
			    const struct nfhp_range *span, u64 *bits)
{
	unsigned int i, j, bit, ends = 0;
	nfhp_u128 at;

	memset(bits, 0, NFHP_FLOOR_BITS / 8);
	for (i = 0; i < s->n; i++) {
		const struct nfhp_box *b = s->rel[i]->box;
		const struct nfhp_range *r = nfhp_box_ranges(b, dim);

		for (j = 0; j < 2 * nfhp_box_nranges(b, dim); j++) {
			const struct nfhp_range *rj = &r[j / 2];

			if (rj->hi < span->lo || rj->lo > span->hi)
				continue;
			if (j & 1 ? rj->hi >= span->hi : rj->lo <= span->lo)
				continue;
			at = j & 1 ? rj->hi + 1 : rj->lo;
			bit = nfhp_floor_bit(at);
			if (bits[bit / 64] & BIT_ULL(bit % 64))
				continue;
			bits[bit / 64] |= BIT_ULL(bit % 64);
			ends++;
		}
	}
	return (u64)(s->n - s->noncover[dim]) * (ends + 1) +
	       s->noncover[dim];
}

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
	struct nfhp_scratch_mark mark;
	struct nfhp_event *ev;
	u64 *bits = NULL;
	u32 tried = 0;
	int err;

	/* Every relevant entry goes to some child: no split costs less. */
	if (f->shares && s->budget < s->n)
		return 1;
	if (f->shares)
		bits = nfhp_scratch_alloc(&f->scratch, NFHP_FLOOR_BITS / 64,
					  sizeof(*bits));
	mark = nfhp_scratch_mark(&f->scratch);
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
		if (bits && nfhp_split_floor(s, w->dim, &reg->d[w->dim],
					     bits) > s->budget)
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

/*
 * Split the region in the best dimension and build the children; past
 * the region's budget, make it a tested leaf instead.  Return 1 for that,
 * with nothing built, else 0 or an error.
 */
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

/**
 * nfhp_build() - build the subtree of a region
 * @f: the forest
 * @reg: the region
 * @s: its relevant entries and its budget; @s->used is set to the work
 *	the subtree took
 * @out: set to the subtree, holding one reference
 *
 * A leaf where every relevant entry covers the region, else a list node
 * where they qualify, else a split (nfhp_split()), and a tested leaf where
 * no split fits the budget or the stack runs short.  See "Building:
 * nfhp_build()" in DOC: Theory of Operation.
 *
 * Return: 0, -ENOMEM, -ERANGE when a first attempt runs out of its
 * budget, or -ECANCELED when the task has a signal pending.
 */
int nfhp_build(struct nfhp_forest *f, struct nfhp_region *reg,
	       struct nfhp_scan *s, struct nfhp_node **out)
{
	int err;

	s->used = 0;
	if (WARN_ON(!s->n))
		return -EINVAL;
	if (!s->split)
		return nfhp_leaf_get(f, s, out);
	if (s->n >= 2 &&
	    s->n <= min_t(u32, nfhp_tunables.list_max, NFHP_LIST_MAX_ANY)) {
		err = nfhp_list_get(f, reg, s, out);
		if (err <= 0)
			return err;
	}
	/* Where the stack ends, a region is tested as it is. */
	err = nfhp_stack_low() ? 1 : nfhp_split(f, reg, s, out);
	return err == 1 ? nfhp_tested_get(f, s, out) : err;
}

/**
 * nfhp_region_scratch() - the whole key space as a region, off the stack
 * @f: the forest, whose scratch stack holds it
 *
 * 448 bytes kept off the kernel stack, under which a build or update
 * recurses.
 *
 * Return: the region, or NULL.
 */
struct nfhp_region *nfhp_region_scratch(struct nfhp_forest *f)
{
	struct nfhp_region *reg = nfhp_scratch_alloc(&f->scratch, 1,
						     sizeof(*reg));

	if (reg)
		nfhp_region_full(f->family, reg);
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
 * Return: @per_entry for each entry, within nfhp_tunables.build_budget_min and
 * nfhp_tunables.build_budget_max.
 */
u64 nfhp_build_budget_of(u32 per_entry, unsigned int n)
{
	return clamp_t(u64, (u64)per_entry * n, nfhp_tunables.build_budget_min,
		       nfhp_tunables.build_budget_max);
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

/**
 * nfhp_build_region() - build the subtree of a region within a budget
 * @f: the forest
 * @reg: the region
 * @entries: the entries in order, some outside @reg
 * @n: number of @entries
 * @deepen: false: the region is a leaf, a list or a tested leaf
 * @left: the work an update has left, or NULL for a build
 * @out: set to the subtree, holding one reference
 *
 * The budget is nfhp_tunables.build_budget work units per relevant entry: all
 * of it for any part on a first attempt, and when that runs out, shares of
 * it on a second ("Bounded builds" in DOC: Theory of Operation).  An
 * update passes the work it has @left, which the build takes from: a
 * region gets no more than is left, and both attempts count.
 *
 * Return: 0, an error of nfhp_build() but -ERANGE, or -EOVERFLOW when not
 * even the region's scan is left.
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
	budget = deepen ? nfhp_build_budget_of(nfhp_tunables.build_budget, s.n) : 0;
	first = deepen ? nfhp_build_budget_of(nfhp_tunables.build_first, s.n) : 0;
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
