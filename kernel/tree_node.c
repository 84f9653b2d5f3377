// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the store of the decision tree's nodes.
 *
 * DOC: Node store
 *
 * The nodes of a rule set's trees, where they are kept (struct
 * nfhp_forest): the size and layout of a stored node, its control block
 * before it (struct nfhp_node_ctl) and, past a cache line, the record of a
 * wide node (struct nfhp_wide_ctl); the index of a wide 32-bit node
 * (nfhp_index_fill()); hashing and the deduplication table, which stores
 * each node once (nfhp_node_intern(), nfhp_node_store()); references, and
 * the children two copies of a wide node share (struct nfhp_lend); the
 * drafts builds and updates fill; and the walks that visit each stored node
 * once (nfhp_tree_stats(), nfhp_tree_walk_leaves()).  See "Deduplication"
 * and "Wide nodes" in DOC: Theory of Operation (tree.c).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "tree_priv.h"

#define NFHP_HASH_INIT_BUCKETS	1024

/* A node just stored lends and borrows nothing, and keeps its @sum. */
static void nfhp_wide_init(struct nfhp_node *node, u64 sum)
{
	struct nfhp_wide_ctl *wide;

	if (!nfhp_node_roomy(node))
		return;
	wide = nfhp_wide_ctl(node);
	wide->lend.peer = NULL;
	wide->sum = sum;
}

/* The index of an RLP64 node: nfhp_index_fill(), on u64 keys. */
static void nfhp_index_fill64(struct nfhp_node *node)
{
	u32 *idx = nfhp_index(node), i, b, nb, n = node->n;
	const u64 *k = nfhp_keys64(node);
	u64 span, first;
	u8 shift;

	span = k[n - 2] - k[0];
	nb = 1u << node->ibits;
	while (((span - 1) >> node->ishift) >= nb)
		node->ishift++;
	memset(idx, 0, (nb + 1) * sizeof(*idx));
	for (i = 1, first = k[0] + 1, shift = node->ishift; i < n - 1; i++)
		idx[((k[i] - first) >> shift) + 1] = i + 1;
	idx[0] = 1;
	for (b = 1; b <= nb; b++)
		idx[b] = max(idx[b], idx[b - 1]);
}

/**
 * nfhp_index_fill() - fill the index of a wide range-location node
 * @node: the node, its keys written; a node too narrow gets no index
 *
 * Bucket b holds the values whose offset past the first key, less one,
 * shifted right by @ishift, is b; index[b] is the first interval that can
 * hold such a value, so a value's interval lies between index[b] and
 * index[b + 1].  It depends on the keys alone, so equal nodes still have
 * equal bytes, and the hash and the comparison of nodes leave it out
 * (nfhp_node_own_bytes()).
 */
void nfhp_index_fill(struct nfhp_node *node)
{
	u32 *idx = nfhp_index(node), i, b, nb, span, first, n = node->n;
	const u32 *k = nfhp_keys32(node);
	u8 shift;

	node->ibits = nfhp_index_bits(node->kind, node->n);
	if (!node->ibits)
		return;
	if (node->kind == NFHP_NODE_RLP64)
		return nfhp_index_fill64(node);
	/*
	 * Values past the last key but one are the last interval's, which
	 * the clamp into the last bucket finds: the buckets divide the keys
	 * before it, which a wide last interval would crowd into few.
	 */
	span = k[n - 2] - k[0];
	nb = 1u << node->ibits;
	while (((span - 1) >> node->ishift) >= nb)
		node->ishift++;
	/*
	 * index[b] is one past the last key but the last whose bucket comes
	 * before b, the first key coming before all.  Each key marks the
	 * bucket after its own, in order, so a bucket's last mark stands,
	 * and a running maximum fills the buckets no key marks: two straight
	 * passes, no branch on the keys.  The search from bucket to bucket
	 * took 17 % of an update at seed.py's 10k set, this 12 %.
	 */
	memset(idx, 0, (nb + 1) * sizeof(*idx));
	/* Locals: the index could alias the header and the keys. */
	for (i = 1, first = k[0] + 1, shift = node->ishift; i < n - 1; i++)
		idx[((k[i] - first) >> shift) + 1] = i + 1;
	idx[0] = 1;
	for (b = 1; b <= nb; b++)
		idx[b] = max(idx[b], idx[b - 1]);
}

/*
 * Hash @n words.  A node of a wide root is a megabyte and is hashed at
 * every update that copies it: four lanes of words a lane apart, whose
 * multiplies do not wait for each other, then the rest and the lanes in
 * one: 5.8 us a 100 KB node, where one lane took 21.6.
 */
static u64 nfhp_hash_words(const unsigned long *p, size_t n, u64 h)
{
	u64 a = h, b = h + 1, c = h + 2, d = h + 3;

	for (; n >= 4; n -= 4, p += 4) {
		a = nfhp_hash_mix(a, p[0]);
		b = nfhp_hash_mix(b, p[1]);
		c = nfhp_hash_mix(c, p[2]);
		d = nfhp_hash_mix(d, p[3]);
	}
	while (n--)
		a = nfhp_hash_mix(a, *p++);
	return nfhp_hash_mix(nfhp_hash_mix(nfhp_hash_mix(a, b), c), d);
}

static u32 nfhp_hash_fold(u64 h)
{
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 32);
}

/* The contents of every node are whole words, see nfhp_node_bytes(). */
/*
 * Bytes of @node's contents that tell it from other nodes: all but the
 * index of a wide node, which its keys decide (a quarter to a third of
 * its bytes, hashed at every update that copies it).
 */
static size_t nfhp_node_own_bytes(const struct nfhp_node *node)
{
	return nfhp_node_bytes(node) - sizeof(*node) -
	       nfhp_index_size(node->kind, node->n);
}

/**
 * nfhp_rlp32_sum() - the hash sum of a 32-bit range-location node
 * @node: the node
 *
 * The sum the node's hash is folded from, a term an interval: the keys'
 * order places each, so the sum tells the node as a hash of its words
 * would, and a copy with a few intervals changed takes their terms off
 * and adds the new ones (nfhp_splice_sum()).  Two sums, whose adds do
 * not wait for each other.
 *
 * Return: the sum.
 */
u64 nfhp_rlp32_sum(const struct nfhp_node *node)
{
	struct nfhp_node *const *child = nfhp_children(node);
	const u32 *key = nfhp_keys32(node);
	u64 a = 0, b = 0;
	u32 i;

	for (i = 0; i + 1 < node->n; i += 2) {
		a += nfhp_pair_hash(child[i], key[i]);
		b += nfhp_pair_hash(child[i + 1], key[i + 1]);
	}
	if (i < node->n)
		a += nfhp_pair_hash(child[i], key[i]);
	return a + b;
}

/* A leaf's @ibits tell how its entries are walked (%NFHP_WALK_TESTED). */
static u64 nfhp_node_header_hash(const struct nfhp_node *node)
{
	u64 walk = node->kind == NFHP_NODE_LEAF ? node->ibits : 0;

	return walk << 48 | (u64)node->kind << 40 | (u64)node->dim << 32 |
	       node->n;
}

/* The hash of a 32-bit range-location node whose sum is @sum. */
static u32 nfhp_node_hash_sum(const struct nfhp_node *node, u64 sum)
{
	return nfhp_hash_fold(nfhp_hash_mix(nfhp_node_header_hash(node), sum));
}

/*
 * The hash of @node's contents; for a 32-bit range-location node @sum is
 * set to the sum it is folded from, which a stored node keeps.
 */
static u32 nfhp_node_hash(const struct nfhp_node *node, u64 *sum)
{
	if (node->kind == NFHP_NODE_RLP32) {
		*sum = nfhp_rlp32_sum(node);
		return nfhp_node_hash_sum(node, *sum);
	}
	*sum = 0;
	return nfhp_hash_fold(nfhp_hash_words(node->data,
					      nfhp_node_own_bytes(node) /
					      sizeof(long),
					      nfhp_node_header_hash(node)));
}

static bool nfhp_node_equal(const struct nfhp_node *a,
			    const struct nfhp_node *b)
{
	return nfhp_ctl(a)->hash == nfhp_ctl(b)->hash &&
	       a->kind == b->kind && a->dim == b->dim &&
	       a->n == b->n && a->ishift == b->ishift &&
	       (a->kind != NFHP_NODE_LEAF || a->ibits == b->ibits) &&
	       !memcmp(a->data, b->data, nfhp_node_own_bytes(a));
}

/**
 * nfhp_forest_init() - prepare the node store of a rule set
 * @f: the forest
 * @mem: the account for nodes
 * @family: the &enum nfhp_family of the rule set
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_forest_init(struct nfhp_forest *f, struct nfhp_mem *mem, u8 family)
{
	f->mem = mem;
	f->family = family;
	f->count = 0;
	f->mark = 0;
	f->mask = NFHP_HASH_INIT_BUCKETS - 1;
	f->home = NULL;
	f->shared = false;
	f->may_share = false;
	f->shared_splits = 0;
	mutex_init(&f->lock);
	nfhp_scratch_init(&f->scratch);
	f->buckets = nfhp_alloc(mem, NFHP_HASH_INIT_BUCKETS *
				sizeof(*f->buckets));
	return f->buckets ? 0 : -ENOMEM;
}

/**
 * nfhp_forest_destroy() - free the node store; every tree must be put
 * @f: the forest
 */
void nfhp_forest_destroy(struct nfhp_forest *f)
{
	WARN_ON(f->count);
	nfhp_free(f->mem, f->buckets, (f->mask + 1) * sizeof(*f->buckets));
	f->buckets = NULL;
	nfhp_scratch_destroy(&f->scratch);
	mutex_destroy(&f->lock);
}

/* The forest whose table and nodes @f builds into: its own or its home. */
static struct nfhp_forest *nfhp_home(struct nfhp_forest *f)
{
	return f->home ? f->home : f;
}

/*
 * While a helper builds (nfhp_split_shared()), the table, the nodes'
 * references and the account are shared by two threads.  Otherwise there
 * is one, and locking would only cost.
 */
static void nfhp_share_lock(struct nfhp_forest *f)
{
	f = nfhp_home(f);
	if (f->shared)
		mutex_lock(&f->lock);
}

static void nfhp_share_unlock(struct nfhp_forest *f)
{
	f = nfhp_home(f);
	if (f->shared)
		mutex_unlock(&f->lock);
}

/**
 * nfhp_node_get() - take a reference to a node
 * @f: the forest, locked while a helper builds
 * @node: the node
 */
void nfhp_node_get(struct nfhp_forest *f, struct nfhp_node *node)
{
	nfhp_share_lock(f);
	nfhp_node_ref(node);
	nfhp_share_unlock(f);
}

/* Double the hash table; on failure keep the old one, only slower. */
static void nfhp_forest_grow(struct nfhp_forest *f)
{
	u32 nmask = 2 * f->mask + 1, i;
	struct nfhp_node **nb, *node, *next;
	struct nfhp_node_ctl *ctl;

	nb = nfhp_alloc(f->mem, (nmask + 1) * sizeof(*nb));
	if (!nb)
		return;
	for (i = 0; i <= f->mask; i++) {
		for (node = f->buckets[i]; node; node = next) {
			ctl = nfhp_ctl(node);
			next = ctl->hnext;
			ctl->hnext = nb[ctl->hash & nmask];
			nb[ctl->hash & nmask] = node;
		}
	}
	nfhp_free(f->mem, f->buckets, (f->mask + 1) * sizeof(*f->buckets));
	f->buckets = nb;
	f->mask = nmask;
}

static void nfhp_node_free(struct nfhp_forest *f, struct nfhp_node *node)
{
	size_t bytes = nfhp_node_bytes(node);

	nfhp_free(f->mem, (u8 *)node - nfhp_node_lead(bytes),
		  nfhp_node_alloc_size(bytes));
}

static void nfhp_node_unlink(struct nfhp_forest *f, struct nfhp_node *node)
{
	struct nfhp_node **pp;

	f = nfhp_home(f);
	pp = &f->buckets[nfhp_ctl(node)->hash & f->mask];
	while (*pp != node)
		pp = &nfhp_ctl(*pp)->hnext;
	*pp = nfhp_ctl(node)->hnext;
	f->count--;
}

/**
 * nfhp_tree_get() - take a reference to a tree for another table
 * @root: the tree
 *
 * Only while no helper builds (struct nfhp_forest): the commit path.
 */
void nfhp_tree_get(struct nfhp_node *root)
{
	nfhp_node_ref(root);
}

/* nfhp_tree_put() with the forest locked, if it needs to be. */
static void __nfhp_tree_put(struct nfhp_forest *f, struct nfhp_node *root)
{
	struct nfhp_node **child;
	struct nfhp_lend *lend;
	u32 i, lo = 0, hi;

	if (!root || nfhp_node_embedded(root) || --nfhp_ctl(root)->refs)
		return;
	nfhp_node_unlink(f, root);
	if (!nfhp_node_final(root)) {
		hi = root->n;
		lend = nfhp_node_roomy(root) ? nfhp_lend_of(root) : NULL;
		if (lend && lend->peer) {
			/* The peer holds the rest now. */
			lo = lend->lo;
			hi = lend->hi;
			nfhp_lend_of(lend->peer)->peer = NULL;
		}
		child = nfhp_children(root);
		for (i = lo; i < hi; i++) {
			nfhp_refs_prefetch(child, i, hi);
			__nfhp_tree_put(f, child[i]);
		}
	}
	nfhp_node_free(f, root);
}

/**
 * nfhp_tree_put() - drop a reference to a node, freeing what becomes unused
 * @f: the forest
 * @root: the node, may be NULL
 *
 * The caller guarantees that no packet can still reach a node that drops to
 * zero references: the old root was unpublished a grace period ago, or the
 * node was never published.
 */
void nfhp_tree_put(struct nfhp_forest *f, struct nfhp_node *root)
{
	nfhp_share_lock(f);
	__nfhp_tree_put(f, root);
	nfhp_share_unlock(f);
}

/**
 * nfhp_draft_drop() - drop the references a draft holds to its children
 * @f: the forest
 * @draft: the draft node
 */
void nfhp_draft_drop(struct nfhp_forest *f,
		     const struct nfhp_node *draft)
{
	u32 i;

	if (nfhp_node_final(draft))
		return;
	nfhp_share_lock(f);
	for (i = 0; i < draft->n; i++)
		__nfhp_tree_put(f, nfhp_child(draft, i));
	nfhp_share_unlock(f);
}

/* The stored node equal to @draft, with a reference taken, or NULL. */
static struct nfhp_node *nfhp_node_twin(struct nfhp_forest *t,
					const struct nfhp_node *draft)
{
	struct nfhp_node *node;

	for (node = t->buckets[nfhp_ctl(draft)->hash & t->mask]; node;
	     node = nfhp_ctl(node)->hnext) {
		if (nfhp_node_equal(node, draft)) {
			nfhp_ctl(node)->refs++;
			return node;
		}
	}
	return NULL;
}

/*
 * Put the node just stored in @t's deduplication table, under @t's lock,
 * lending and borrowing nothing; @sum as nfhp_node_hash() set it.
 */
static void nfhp_node_link(struct nfhp_forest *t, struct nfhp_node *node,
			   u64 sum)
{
	struct nfhp_node_ctl *ctl = nfhp_ctl(node);

	nfhp_wide_init(node, sum);
	ctl->hnext = t->buckets[ctl->hash & t->mask];
	t->buckets[ctl->hash & t->mask] = node;
	if (++t->count > 2 * (t->mask + 1))
		nfhp_forest_grow(t);
}

/**
 * nfhp_node_intern() - store a draft node, or find its stored twin
 * @f: the forest
 * @draft: the node, filled by the caller
 *
 * @draft is zeroed scratch memory filled by the caller and owns references
 * to its children, which a stored twin already holds on its own.  Most
 * drafts have a twin, so only new nodes are allocated.
 *
 * The copy is made outside the lock: while a helper builds, the other
 * builder would wait for the allocation.  The twin may have been stored
 * in the meantime, so it is looked for again.
 *
 * Return: the stored node equal to @draft, with a reference taken, or a
 * copy of @draft, stored.  Without memory NULL, and the references stay
 * with the caller, who holds its children in a list anyway.
 */
struct nfhp_node *nfhp_node_intern(struct nfhp_forest *f,
				   struct nfhp_node *draft)
{
	struct nfhp_forest *t = nfhp_home(f);
	size_t bytes = nfhp_node_bytes(draft);
	size_t size = nfhp_node_alloc_size(bytes);
	struct nfhp_node_ctl *ctl = nfhp_ctl(draft);
	struct nfhp_node *node, *copy;
	void *mem;
	u64 sum;

	ctl->hash = nfhp_node_hash(draft, &sum);
	nfhp_share_lock(f);
	node = nfhp_node_twin(t, draft);
	nfhp_share_unlock(f);
	if (node)
		goto out_drop_draft;
	mem = nfhp_alloc_unaccounted(size);
	if (!mem)
		return NULL;
	copy = (struct nfhp_node *)((u8 *)mem + nfhp_node_lead(bytes));
	memcpy(copy, draft, bytes);
	ctl = nfhp_ctl(copy);
	ctl->hash = nfhp_ctl(draft)->hash;
	ctl->refs = 1;
	ctl->mark = 0;
	nfhp_share_lock(f);
	node = t->shared ? nfhp_node_twin(t, draft) : NULL;
	if (node) {
		nfhp_share_unlock(f);
		nfhp_free_unaccounted(mem);
		goto out_drop_draft;
	}
	if (!nfhp_mem_charge(t->mem, mem, size)) {
		nfhp_share_unlock(f);
		return NULL;
	}
	nfhp_node_link(t, copy, sum);
	nfhp_share_unlock(f);
	return copy;
out_drop_draft:
	nfhp_draft_drop(f, draft);
	return node;
}

/* Zero the last word of the @size bytes at @p: the padding, if any. */
static void nfhp_zero_pad(void *p, size_t size)
{
	if (size)
		((unsigned long *)((u8 *)p + size))[-1] = 0;
}

/*
 * Zero @draft's header and padding and set its kind and size; the tail of
 * u32 keys is U32_MAX, of u64 keys U64_MAX (nfhp_keys_size()).
 */
static struct nfhp_node *nfhp_draft_init(struct nfhp_node *draft, u8 kind,
					 u32 n)
{
	memset(draft, 0, sizeof(*draft));
	draft->kind = kind;
	draft->n = n;
	if (kind == NFHP_NODE_RLP32) {
		memset(nfhp_keys32(draft) + n, 0xff,
		       nfhp_keys_size(kind, n) - n * sizeof(u32));
		nfhp_zero_pad(nfhp_index(draft), nfhp_index_size(kind, n));
	} else if (kind == NFHP_NODE_RLP64) {
		memset(nfhp_keys64(draft) + n, 0xff,
		       nfhp_keys_size(kind, n) - n * sizeof(u64));
		nfhp_zero_pad(nfhp_index(draft), nfhp_index_size(kind, n));
	}
	return draft;
}

/**
 * nfhp_draft_new() - a draft node on the scratch stack
 * @f: the forest, whose scratch stack holds it
 * @kind: the node's kind
 * @n: its intervals or entries
 *
 * Its header and its padding are zeroed, the rest is for the caller to
 * fill, every byte, as every byte is hashed.  Zeroing whole drafts was a
 * seventh of a build.
 *
 * Return: the draft, with room for @n intervals or entries, or NULL.
 */
struct nfhp_node *nfhp_draft_new(struct nfhp_forest *f, u8 kind,
				 u32 n)
{
	struct nfhp_node_ctl *ctl;

	ctl = nfhp_scratch_alloc(&f->scratch, 1, sizeof(*ctl) +
				 nfhp_node_size(kind, n));
	if (!ctl)
		return NULL;
	return nfhp_draft_init((struct nfhp_node *)(ctl + 1), kind, n);
}

/**
 * nfhp_draft_alloc() - a draft node in memory of its own
 * @kind: the node's kind
 * @n: its intervals
 *
 * To be stored as it is: a wide node's copy would otherwise be copied once
 * more by nfhp_node_intern().  Give it to nfhp_node_store(), or free it
 * with nfhp_draft_free().
 *
 * Return: the draft, its header and padding zeroed, or NULL.
 */
struct nfhp_node *nfhp_draft_alloc(u8 kind, u32 n)
{
	size_t bytes = nfhp_node_size(kind, n);
	u8 *mem = nfhp_alloc_unaccounted(nfhp_node_alloc_size(bytes));

	if (!mem)
		return NULL;
	return nfhp_draft_init((struct nfhp_node *)(mem +
						    nfhp_node_lead(bytes)),
			       kind, n);
}

/**
 * nfhp_draft_free() - free a draft from nfhp_draft_alloc() that was not stored
 * @draft: the draft, its references dropped
 */
void nfhp_draft_free(struct nfhp_node *draft)
{
	nfhp_free_unaccounted((u8 *)draft -
			      nfhp_node_lead(nfhp_node_bytes(draft)));
}

/**
 * nfhp_node_store() - store a wide draft as it is, or find its stored twin
 * @f: the forest
 * @draft: a 32-bit range-location node from nfhp_draft_alloc()
 * @sum: its hash sum
 *
 * nfhp_node_intern() without the copy.
 *
 * Return: @draft, stored, or its stored twin with a reference taken;
 * @draft and the references it holds are then the caller's to drop.
 * Without memory NULL, @draft freed, and the references to its children
 * stay with the caller.
 */
struct nfhp_node *nfhp_node_store(struct nfhp_forest *f,
				  struct nfhp_node *draft, u64 sum)
{
	struct nfhp_node_ctl *ctl = nfhp_ctl(draft);
	struct nfhp_forest *t = nfhp_home(f);
	size_t bytes = nfhp_node_bytes(draft);
	struct nfhp_node *twin;

	ctl->hash = nfhp_node_hash_sum(draft, sum);
	ctl->refs = 1;
	ctl->mark = 0;
	nfhp_share_lock(f);
	twin = nfhp_node_twin(t, draft);
	if (twin) {
		nfhp_share_unlock(f);
		return twin;
	}
	if (!nfhp_mem_charge(t->mem, (u8 *)draft - nfhp_node_lead(bytes),
			     nfhp_node_alloc_size(bytes))) {
		nfhp_share_unlock(f);
		return NULL;
	}
	nfhp_node_link(t, draft, sum);
	nfhp_share_unlock(f);
	return draft;
}

static void nfhp_hist_add(unsigned int *hist, unsigned int value)
{
	unsigned int b = 0;

	while (value > 1 && b < NFHP_HIST_BUCKETS - 1) {
		value >>= 1;
		b++;
	}
	hist[b]++;
}

/* A leaf or list at @depth. */
static void nfhp_stats_leaf(const struct nfhp_node *node, unsigned int depth,
			    struct nfhp_tree_stats *st)
{
	st->leaves++;
	st->lists += node->kind == NFHP_NODE_LIST;
	if (node->kind == NFHP_NODE_LEAF && node->ibits & NFHP_WALK_TESTED) {
		st->tested++;
		st->tested_entries += node->n;
		st->tested_max = max(st->tested_max, node->n);
	}
	st->depth = max(st->depth, depth);
	nfhp_hist_add(st->leaf_size_hist, node->n);
	st->depth_hist[min_t(unsigned int, depth, NFHP_HIST_BUCKETS - 1)]++;
}

static void nfhp_stats_walk(struct nfhp_forest *f,
			    const struct nfhp_node *node, unsigned int depth,
			    struct nfhp_tree_stats *st)
{
	struct nfhp_node_ctl *ctl = nfhp_ctl(node);
	struct nfhp_entry *e;
	u32 i;

	if (nfhp_node_embedded(node)) {
		e = (struct nfhp_entry *)node;
		if (e->seen) {
			st->shared++;
			return;
		}
		e->seen = 1;
		nfhp_stats_leaf(node, depth, st);
		return;
	}
	if (ctl->mark == f->mark) {
		st->shared++;
		return;
	}
	ctl->mark = f->mark;
	st->mem += nfhp_node_alloc_size(nfhp_node_bytes(node));
	if (nfhp_node_final(node)) {
		nfhp_stats_leaf(node, depth, st);
		return;
	}
	st->nodes++;
	st->nodes_per_dim[node->dim]++;
	nfhp_hist_add(st->node_size_hist, node->n);
	for (i = 0; i < node->n; i++)
		nfhp_stats_walk(f, nfhp_child(node, i), depth + 1, st);
}

/*
 * Clear what nfhp_stats_walk() marked in entries' own leaves: packets read
 * those lines, but not @seen.
 */
static void nfhp_stats_unsee(struct nfhp_forest *f,
			     const struct nfhp_node *node)
{
	struct nfhp_node_ctl *ctl = nfhp_ctl(node);
	u32 i;

	if (nfhp_node_embedded(node)) {
		((struct nfhp_entry *)node)->seen = 0;
		return;
	}
	if (ctl->mark == f->mark || nfhp_node_final(node))
		return;
	ctl->mark = f->mark;
	for (i = 0; i < node->n; i++)
		nfhp_stats_unsee(f, nfhp_child(node, i));
}

/**
 * nfhp_tree_stats() - add the shape of a tree to @st
 * @f: the forest
 * @root: the tree
 * @st: the statistics; shared nodes are counted once
 */
void nfhp_tree_stats(struct nfhp_forest *f, const struct nfhp_node *root,
		     struct nfhp_tree_stats *st)
{
	f->mark++;
	nfhp_stats_walk(f, root, 0, st);
	f->mark++;
	nfhp_stats_unsee(f, root);
}

static void nfhp_leaf_walk(struct nfhp_forest *f, const struct nfhp_node *node,
			   nfhp_leaf_cb cb, void *ctx)
{
	struct nfhp_node_ctl *ctl = nfhp_ctl(node);
	u32 i;

	if (nfhp_node_embedded(node)) {
		cb(ctx, node);
		return;
	}
	if (ctl->mark == f->mark)
		return;
	ctl->mark = f->mark;
	if (nfhp_node_final(node)) {
		cb(ctx, node);
		return;
	}
	for (i = 0; i < node->n; i++)
		nfhp_leaf_walk(f, nfhp_child(node, i), cb, ctx);
}

/**
 * nfhp_tree_walk_leaves() - call @cb for every leaf
 * @f: the forest
 * @root: the tree
 * @cb: the callback
 * @ctx: its context
 *
 * A shared leaf is passed once, an entry's own at each of its places.
 */
void nfhp_tree_walk_leaves(struct nfhp_forest *f,
			   const struct nfhp_node *root,
			   nfhp_leaf_cb cb, void *ctx)
{
	f->mark++;
	nfhp_leaf_walk(f, root, cb, ctx);
}
