/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * nf-hipac: the generic netlink interface of nf_hipac.ko.
 *
 * Documentation
 * =============
 *
 * The family is "nf_hipac", version 1.  Every command works on the network
 * namespace of the socket.  Every command needs CAP_NET_ADMIN in the user
 * namespace that owns that network namespace; without it the reply is
 * -EPERM.  For the commands that change something the check is genetlink's
 * (GENL_UNS_ADMIN_PERM).  NFHP_CMD_LIST, whose rules and counters tell
 * what the firewall lets through, is refused the same way (with -EPERM
 * answering the dump request, once genetlink has checked its attributes,
 * before any message) unless root of the namespace opened reading up:
 * "1" in /proc/net/nf-hipac/world_readable, a setting of each network
 * namespace, "0" by default, which only CAP_NET_ADMIN there may change.
 * Errors carry an extended ack message.
 *
 * The rule set has the shape of the iptables filter table: the built-in
 * chains INPUT, FORWARD and OUTPUT, each with a policy, and user chains.
 * Rule positions are 1-based, as iptables counts them.
 *
 * NFHP_CMD_APPEND: append NFHPA_RULE to NFHPA_CHAIN.
 * NFHP_CMD_INSERT: insert NFHPA_RULE into NFHPA_CHAIN before position
 *     NFHPA_POS (1 when absent).
 * NFHP_CMD_DELETE: delete the rule of NFHPA_CHAIN at NFHPA_POS, or the first
 *     rule equal to NFHPA_RULE.
 * NFHP_CMD_REPLACE: replace the rule at NFHPA_POS of NFHPA_CHAIN with
 *     NFHPA_RULE.
 * NFHP_CMD_FLUSH: delete every rule of NFHPA_CHAIN, or of every chain when
 *     NFHPA_CHAIN is absent.
 * NFHP_CMD_NEW_CHAIN: create the user chain NFHPA_CHAIN.
 * NFHP_CMD_DEL_CHAIN: delete the empty, unreferenced user chain
 *     NFHPA_CHAIN or, when it is absent, every user chain: all of them
 *     must then be empty, else none is deleted.
 * NFHP_CMD_RENAME_CHAIN: rename user chain NFHPA_CHAIN to NFHPA_NEW_NAME.
 * NFHP_CMD_POLICY: set the policy of built-in chain NFHPA_CHAIN to
 *     NFHPA_POLICY (NFHP_ACT_ACCEPT or NFHP_ACT_DROP); NFHPA_COUNTERS, when
 *     present, sets the policy counters.
 * NFHP_CMD_ZERO: zero the counters of the rule at NFHPA_POS of NFHPA_CHAIN,
 *     of every rule of NFHPA_CHAIN, or of everything.
 * NFHP_CMD_LIST: NLM_F_DUMP only.  With NFHPA_CHAIN only that chain is
 *     listed.  For every chain, one message with NFHPA_CHAIN, NFHPA_POLICY
 *     (built-in chains only), NFHPA_COUNTERS (the policy's) and NFHPA_REFS;
 *     then one message per rule with NFHPA_CHAIN, NFHPA_POS and NFHPA_RULE
 *     (whose NFHPA_RULE_COUNTERS are filled).  Chains come in the order
 *     INPUT, FORWARD, OUTPUT, then user chains by name, like iptables-save.
 *     With NFHP_LIST_CHAINS_ONLY in NFHPA_LIST_FLAGS the rule messages are
 *     left out: what a restore --noflush or a jump needs to know of a rule
 *     set of 100k rules.  With NFHPA_RULE only the messages of the rules
 *     equal to it are sent, equal as NFHP_CMD_DELETE finds one (its
 *     NFHPA_RULE_COUNTERS are ignored), the chain messages as without: what
 *     iptables -C needs to know.  Kernels before NFHPA_RULE was read here
 *     ignore it and send every rule, so a client compares them too.
 * NFHP_CMD_BEGIN: open a transaction owned by this socket.  Until
 *     NFHP_CMD_COMMIT every change from this socket is staged and invisible
 *     to packets; other sockets' changes fail with -EBUSY.  It spans the
 *     rule sets of both families: changes to either are staged.
 * NFHP_CMD_COMMIT: publish every staged change with one pointer swap per
 *     family.  Both rule sets are built first: if either cannot be, the
 *     commit fails and neither changes.
 * NFHP_CMD_ABORT: drop every staged change.  Closing the socket with a
 *     transaction open aborts it too.
 *
 * Named sets (ipfw's tables, ipset's sets) map keys to a u32 value, per
 * network namespace; rules look packets up in them (NFHPA_RULE_SETM).
 * Changing a set's entries changes no rule and rebuilds no tree.  Outside
 * a transaction each set command takes effect at once.  Inside one (from
 * the socket that owns it) NFHP_CMD_SET_NEW, DEL, FLUSH, SWAP, MODIFY, ADD
 * and REMOVE are staged with the rule changes, and their results are as
 * the staged sets give them: rules added in the transaction may name a
 * set created in it, and not one destroyed in it.  NFHP_CMD_COMMIT
 * publishes the sets just before the rules, once nothing can fail; an
 * abort drops them.  NFHP_CMD_SET_TEST and NFHP_CMD_SET_LIST show the
 * committed sets.  While a transaction is open, set writes from other
 * sockets fail with -EBUSY, as rule changes do.
 * Each takes NFHPA_SET, whose NFHPA_SET_NAME names the set.
 *
 * NFHP_CMD_SET_NEW: create a set: NFHPA_SET_TYPE (enum nfhp_set_type),
 *     NFHPA_SET_ALGO (NFHP_SET_ADDR: "hash": hosts only; "lpm": prefixes,
 *     longest match; NFHP_SET_NUMBER: "bitmap": numbers below 65536, each
 *     its own entry; "range": non-overlapping ranges of any u32;
 *     NFHP_SET_FLOW: "hash": hosts, "lpm": prefixes, each with a
 *     protocol and a port, longest match),
 *     the family NFHPA_FAMILY (IPv4 when absent), optionally NFHPA_SET_LIMIT
 *     (most entries; 0 or absent: no limit) and NFHPA_SET_FLAGS
 *     (NFHP_SET_F_LOCKED; NFHP_SET_F_COUNTERS: each entry counts the
 *     packets and bytes of the lookups that found it, as ipset's
 *     "counters", for ever).  A number set takes NFHPA_SET_RANGE_LO and
 *     _HI, both or neither (-EINVAL), LO no greater than HI: the least
 *     and the greatest number its entries may hold, for ever (ipset's
 *     "range" of bitmap:port); absent, any u32.  -EEXIST when the name is
 *     taken, unless NFHP_SET_F_EXIST is given and the set has the same
 *     type, algorithm, family, range and NFHP_SET_F_COUNTERS.
 * NFHP_CMD_SET_DEL: destroy the set, or every set when NFHPA_SET_NAME is
 *     absent.  -EBUSY while a rule refers to it (for all: to any of them,
 *     and none is destroyed); a rule deleted in the open transaction still
 *     refers to it until the commit.
 * NFHP_CMD_SET_FLUSH: remove every entry of the set (of every set when
 *     NFHPA_SET_NAME is absent).
 * NFHP_CMD_SET_SWAP: exchange the entries of the set and of the set
 *     NFHPA_SET_OTHER, which must have the same type and family (-EINVAL);
 *     rules keep the names they refer to, and see the other entries from
 *     then on, all at once.  Each set keeps its name, limit and lock.
 *     Number sets must have the same range too, and both sets count
 *     (NFHP_SET_F_COUNTERS) or neither does; the counts move with the
 *     entries.
 * NFHP_CMD_SET_MODIFY: set NFHPA_SET_LIMIT and NFHPA_SET_FLAGS's
 *     NFHP_SET_F_LOCKED, those that are present.
 * NFHP_CMD_SET_ADD: add each NFHPA_SET_ENTRY (NFHPA_SETE_ADDR and
 *     NFHPA_SETE_PLEN, a number set's NFHPA_SETE_NUM_LO and _NUM_HI,
 *     and a flow set's NFHPA_SETE_PROTO and _PORT too, or an interface
 *     set's NFHPA_SETE_IFACE; NFHPA_SETE_VALUE, 0 when absent), in
 *     order.  With
 *     NFHP_SET_F_UPDATE in NFHPA_SET_FLAGS an entry already there takes
 *     the new value.  In a set with NFHP_SET_F_COUNTERS a new entry's
 *     counts start at its NFHPA_SETE_PACKETS and _BYTES (0 when absent),
 *     and an updated entry takes those present; in another set an entry
 *     with either is NFHP_SET_INVALID.  The reply holds NFHPA_SET with one NFHPA_SET_ENTRY
 *     per entry sent, in order, each with its NFHPA_SETE_RESULT (a flow
 *     set's without NFHPA_SETE_VALUE: it is the one sent).  An entry
 *     that fails does not stop the others.  At most NFHP_SET_MAX_BATCH
 *     entries (E2BIG, nothing applied).  The command fails (after the
 *     reply) with the first entry's error: -EEXIST (unless
 *     NFHP_SET_F_EXIST), -E2BIG over the limit, -EPERM while locked,
 *     -EINVAL for a key of another type or family, -ERANGE for numbers
 *     outside the set's range (NFHP_SET_OUT_OF_RANGE), -ENOMEM.
 *     A number set's entry is a range [LO, HI].  "range" takes it as one
 *     entry, and refuses (NFHP_SET_INVALID) one that overlaps an entry
 *     other than [LO, HI] itself; a remove must name an entry exactly.
 *     "bitmap" takes each number of it as an entry (ipset's bitmap:port),
 *     refuses HI > 65535, and changes all of them or none: an add
 *     without NFHP_SET_F_UPDATE where any is there already gives
 *     NFHP_SET_EXISTS, a remove where any is missing NFHP_SET_NOT_FOUND.
 *     The limit counts the numbers of a bitmap, the ranges of "range".
 * NFHP_CMD_SET_REMOVE: remove each NFHPA_SET_ENTRY, as NFHP_CMD_SET_ADD
 *     adds them; -ENOENT for an entry not there unless NFHP_SET_F_EXIST.
 * NFHP_CMD_SET_TEST: the reply's NFHPA_SET holds the one NFHPA_SET_ENTRY
 *     sent, with NFHPA_SETE_RESULT NFHP_SET_EXISTS and its value (and
 *     counts, in a set with NFHP_SET_F_COUNTERS), or
 *     NFHP_SET_NOT_FOUND.  As ipset's test, it is there when the entry
 *     found has NFHP_SETE_F_NOMATCH exactly when the one sent has it.
 *     A full-width key (a host) is looked up as a
 *     packet's address is (the longest prefix that holds it; of a flow
 *     set with its protocol and port); a shorter one must be an entry
 *     itself.  A single number (LO = HI) is looked
 *     up as a packet's port is (the entry that holds it); a range must
 *     be an entry of "range", or all of its numbers entries of "bitmap".
 *     A name is looked up as a packet's device is (the name, else the
 *     longest wildcard that holds it); a wildcard must be an entry.
 * NFHP_CMD_SET_LIST: NLM_F_DUMP only.  One message per set (only the one
 *     NFHPA_SET_NAME names, when present) with NFHPA_FAMILY and NFHPA_SET:
 *     name, type, algorithm, limit, flags, NFHPA_SET_COUNT (entries),
 *     NFHPA_SET_MEMORY (bytes) and NFHPA_SET_REFS (rules referring to it),
 *     and a number set's NFHPA_SET_RANGE_LO and _HI;
 *     with NFHPA_SET_NAME, then its entries, as many NFHPA_SET_ENTRY per
 *     message as fit, each with NFHPA_SETE_PACKETS and _BYTES in a set
 *     with NFHP_SET_F_COUNTERS.  A dump that runs beside writers of the
 *     set may miss an entry changed meanwhile, or list it twice.
 *
 * Counters (NFHP_SET_F_COUNTERS): every lookup of a packet that finds an
 * entry, by a set match of a rule the packet reached, adds one packet
 * and the packet's length (the IP header on) to that entry, whether or
 * not the rule then matches, and whether or not it is a nomatch entry,
 * as ipset counts.  A flush starts every
 * count again at 0.  A transaction writes to a copy of the set's entries
 * made when it first changes the set: what packets count meanwhile is
 * lost at its commit.
 *
 * Dynamic states (keep-state, NFHPA_RULE_STATE) live in one table per
 * network namespace for both families.  These commands work on the
 * committed rule set: NFHPA_STATE_CHAIN and NFHPA_STATE_POS name a rule as
 * it stands outside any open transaction.  Each takes NFHPA_STATE.
 *
 * NFHP_CMD_STATE_LIST: NLM_F_DUMP only.  One message per live state with
 *     NFHPA_STATE, every attribute of it filled in; with
 *     NFHPA_STATE_FAMILY in the request, the states of that family only;
 *     with a flow in it as NFHP_CMD_STATE_DEL takes one, that flow's
 *     state only, or no message when it has none.  The rule is the
 *     committed one whose states they are, at its position when the
 *     message is made; NFHPA_STATE_CHAIN and _POS are absent when it
 *     cannot be found (its commit is under way).  The dump resumes where
 *     its last message stopped: every state that lives from its start to
 *     its end is listed, one made meanwhile may be missed, and while the
 *     table grows some may be listed twice.  Needs CAP_NET_ADMIN as
 *     NFHP_CMD_LIST does: a state tells what the firewall lets through.
 * NFHP_CMD_STATE_DEL: delete the state of the flow NFHPA_STATE_FAMILY,
 *     _PROTO, _SRC, _DST, _SPORT, _DPORT, given either way round: -ENOENT
 *     when it has no live state.  An NFHP_CMD_STATE_DESTROY event follows.
 * NFHP_CMD_STATE_FLUSH: delete every state, or with NFHPA_STATE (and in it
 *     NFHPA_STATE_FAMILY) those of one family; with NFHPA_STATE_CHAIN and
 *     NFHPA_STATE_POS too, those of that keep-state rule of the family
 *     (IPv4 when absent), refused as NFHP_CMD_STATE_ADD refuses a rule.
 * NFHP_CMD_STATE_ADD: make a state by hand, to restore a standby's table:
 *     the flow as NFHP_CMD_STATE_DEL takes it, the creator's direction
 *     being SRC to DST; the rule NFHPA_STATE_CHAIN and NFHPA_STATE_POS
 *     of the family, which must be a keep-state rule (-ENOENT when there
 *     is no such rule, -EINVAL when it is no keep-state rule); and
 *     NFHPA_STATE_TIMEOUT, its seconds to live, 1 or more.  Optional:
 *     NFHPA_STATE_TCP_FWD and _REV (0 when absent), the counters (0).
 *     Its verdict is the rule's.  -EEXIST when the flow has a live state,
 *     -ENOSPC at the table's max_states or max limit parents, -EDQUOT at
 *     the rule's limit, as a packet's state would be refused.
 *
 * Events.  The multicast group "states" (NFHP_MCGRP_STATES) carries one
 * message per state made, NFHP_CMD_STATE_NEW, and per state deleted,
 * NFHP_CMD_STATE_DESTROY, of the socket's network namespace, each with
 * NFHPA_STATE as a listing has it.  The rule (NFHPA_STATE_CHAIN, _POS) is
 * where the last commit of the family put it, which NFHP_CMD_STATE_ADD
 * takes on a standby with the same rules; it is absent while a commit of
 * the family is under way (the DESTROY events of the states of a rule
 * that commit deletes among them) and when the kernel was short of
 * memory for the map of the rules' places, until the next commit.  NEW
 * comes from the packet that made the state (its
 * counters count that packet) or from NFHP_CMD_STATE_ADD; DESTROY when
 * the tick frees a dead state (NFHPA_STATE_TIMEOUT 0), a packet replaces
 * one, a delete, a flush, or its rule's deletion.  Joining needs
 * CAP_NET_ADMIN.  Events are sent without blocking the packet path: when
 * the listener's socket is full they are lost, and its next recv() fails
 * with ENOBUFS once.
 *
 * Attributes:
 *
 * NFHPA_CHAIN: NLA_NUL_STRING, at most NFHP_CHAIN_MAXNAMELEN - 1 bytes
 * NFHPA_NEW_NAME: NLA_NUL_STRING, as NFHPA_CHAIN
 * NFHPA_POS: NLA_U32, 1-based rule position
 * NFHPA_POLICY: NLA_U8, enum nfhp_action
 * NFHPA_COUNTERS: NLA_NESTED
 *     NFHPA_COUNTER_PACKETS: NLA_U64
 *     NFHPA_COUNTER_BYTES: NLA_U64
 * NFHPA_REFS: NLA_U32, number of rules jumping to the chain (dumps only)
 * NFHPA_LIST_FLAGS: NLA_U32, NFHP_CMD_LIST only: NFHP_LIST_* bits
 * NFHPA_FAMILY: NLA_U8, enum nfhp_family: the rule set a command works on,
 *     IPv4 when absent (kernels before the attribute know no other);
 *     -EAFNOSUPPORT for another value.  NFHP_CMD_BEGIN, COMMIT and ABORT
 *     ignore it: a transaction spans both families (see NFHP_CMD_BEGIN).
 * NFHPA_RULE: NLA_NESTED
 *     NFHPA_RULE_MATCH: NLA_NESTED, zero or more, at most one per dimension
 *         NFHPA_MATCH_DIM: NLA_U8, enum nfhp_dim
 *         NFHPA_MATCH_FORM: NLA_U8, enum nfhp_form
 *         NFHPA_MATCH_SYNTAX: NLA_U8, enum nfhp_syntax
 *         NFHPA_MATCH_INVERT: NLA_FLAG
 *         NFHPA_MATCH_RANGES: NLA_BINARY, 1 to NFHP_MAX_RANGES structs
 *             nfhp_uapi_range.  FORM_RANGES: the intervals.  FORM_PREFIX:
 *             the address in lo.  FORM_MASK: value in lo, mask in hi.
 *         NFHPA_MATCH_PREFIXLEN: NLA_U8, FORM_PREFIX only
 *         NFHPA_MATCH_IFNAME: NLA_NUL_STRING, FORM_IFNAME only
 *     NFHPA_RULE_ACTION: NLA_U8, enum nfhp_action
 *     NFHPA_RULE_TARGET: NLA_NUL_STRING, the chain of a jump or goto
 *     NFHPA_RULE_COMMENT: NLA_NUL_STRING, at most 255 bytes
 *     NFHPA_RULE_COUNTERS: NLA_NESTED as NFHPA_COUNTERS; initial counters
 *         on input (restore -c), current counters in dumps
 *     NFHPA_RULE_XT: NLA_NESTED, at most NFHP_XT_MAXLEN bytes of payload:
 *         the matches and the target the tree does not classify natively,
 *         run by the kernel's own xtables modules (xt_limit, xt_REJECT,
 *         ...), in the order iptables runs them.  The kernel keeps the
 *         payload as it came and dumps it back unchanged.
 *         NFHPA_XT_MATCH: NLA_NESTED, zero or more, run after the native
 *             dimensions matched, in order; all must match
 *         NFHPA_XT_TARGET: NLA_NESTED, exactly one with NFHP_ACT_XT, else
 *             none; it must come last
 *         Each of them holds:
 *             NFHPA_XTE_NAME: NLA_NUL_STRING, the extension's name, at
 *                 most XT_EXTENSION_MAXNAMELEN - 1 bytes ("limit")
 *             NFHPA_XTE_REVISION: NLA_U8, its revision
 *             NFHPA_XTE_DATA: NLA_BINARY, its info struct exactly as the
 *                 kernel module reads it (struct xt_rateinfo for limit),
 *                 XT_ALIGN()ed: what libxtables puts after the
 *                 xt_entry_match or xt_entry_target header
 *     NFHPA_RULE_ORDER: NLA_BINARY, 1 to NFHP_MAX_ORDER bytes, each an
 *         enum nfhp_module: the native match modules of the rule in the
 *         order they were written ("-m state ... -p tcp --dport 22" is
 *         NFHP_MOD_STATE, NFHP_MOD_TCP), so that a listing prints them
 *         back in that order as iptables-save does.  Modules it leaves
 *         out print after the listed ones in the canonical order (that
 *         of enum nfhp_module but with multiport and iprange before icmp
 *         and state: tcp/udp, multiport, icmp, iprange, state/conntrack,
 *         ttl, length, mark, comment); without the attribute all of them
 *         do.  The kernel dumps it back unchanged, compares it when
 *         NFHP_CMD_DELETE looks for an equal rule, and runs the matches
 *         in it as iptables does: a packet too short for the tcp, udp or
 *         icmp match (which iptables drops on the spot) is only dropped
 *         if the native matches written before that match let it
 *         through.  A tcp or udp match written after multiport is
 *         refused with EINVAL (send it as an xtables match, as the CLI
 *         does).  Userspace leaves the attribute out when the written
 *         order is the canonical one.
 *     NFHPA_RULE_SETM: NLA_NESTED, zero to NFHP_MAX_SETM: a set match
 *         ("-m set --match-set NAME src"), which holds when the packet's
 *         field is in the set (not in it with NFHPA_SETM_INVERT)
 *         NFHPA_SETM_NAME: NLA_NUL_STRING, the set; -ENOENT when there is
 *             no such set, -EINVAL when it is an address set of another
 *             family (number and interface sets serve both families)
 *         NFHPA_SETM_DIR: NLA_U8, enum nfhp_setm_dir: on a number set
 *             NFHP_SETM_SRC and _DST mean the ports, as ipset's "src"
 *             and "dst" do on bitmap:port; on an interface set the input
 *             and the output device, as iptables' -i and -o (a packet
 *             without that device is in no interface set);
 *             NFHP_SETM_SPORT and _DPORT on an address or interface set
 *             are refused with -EINVAL.  Of a two-field set, the first
 *             field's direction
 *         NFHPA_SETM_DIR2: NLA_U8, enum nfhp_setm_dir: the second field
 *             of a two-field set, required there and refused (-EINVAL)
 *             on a one-field set.  Of a flow set the port's direction,
 *             NFHP_SETM_SRC or _DST (NFHP_SETM_SPORT and _DPORT say the
 *             same): "--match-set NAME src,dst" is DIR SRC (the source
 *             address) and DIR2 DST (the destination port), as ipset
 *             reads it.  The protocol looked up is the packet's.
 *         NFHPA_SETM_INVERT: NLA_FLAG
 *         NFHPA_SETM_VALUE_MIN, NFHPA_SETM_VALUE_MAX: NLA_U32, both or
 *             neither: the entry that holds the field must also have a
 *             value from MIN to MAX ("--set-value MIN:MAX"); INVERT
 *             inverts the whole.  -EINVAL for one alone or MIN > MAX.
 *         NFHPA_SETM_FLAGS: NLA_U32, NFHP_SETM_F_* bits: with
 *             NFHP_SETM_F_NO_COUNT the rule's lookups do not count in a
 *             set with counters (ipset's "! --update-counters")
 *         NFHPA_SETM_PACKETS_CMP, NFHPA_SETM_BYTES_CMP: NLA_U8, enum
 *             nfhp_setm_cmp, each with NFHPA_SETM_PACKETS or _BYTES
 *             (NLA_U64): the entry's counts, once this lookup counted,
 *             must also compare so with the number ("--packets-gt N",
 *             "! --bytes-eq N"), as xt_set compares them; INVERT
 *             inverts the whole.  They hold in a set without counters.
 *             -EINVAL for a compare without its number or the reverse.
 *         Set matches run after the native dimensions matched, before
 *         the xtables matches.
 *     NFHPA_RULE_STATE: NLA_NESTED, at most one: the rule's part in
 *         nf-hipac's own dynamic states (not nf_conntrack's).  A hook's
 *         check point is the position of its first keep-state or
 *         check-state rule, user chains flattened in, whether a packet
 *         can reach that rule or not: a packet that gets
 *         that far without a verdict is looked up there, by its flow in
 *         either direction, and a live state gives it the verdict of the
 *         rule that made it.  It is a position, not a rule to match: a
 *         reply is checked there whether or not it would enter the user
 *         chain that holds the rule.
 *         NFHPA_RSTATE_MODE: NLA_U8, enum nfhp_rstate_mode, required
 *         NFHPA_RSTATE_LIMIT: NLA_U32, KEEP only: at most this many of the
 *             rule's states per parent, 1 or more; beyond it the state is
 *             refused and the rule does not match
 *         NFHPA_RSTATE_LIMIT_BY: NLA_U8, NFHP_STATE_LIMIT_* bits, with
 *             LIMIT only: the fields of the creating packet's flow that
 *             make a parent (NFHP_STATE_LIMIT_SRC_ADDR when absent)
 *         KEEP needs NFHP_ACT_ACCEPT or NFHP_ACT_DROP, the verdict its
 *         states give; CHECK needs NFHP_ACT_NONE and no match, set match
 *         or xtables extension.  -EINVAL otherwise.
 *
 * NFHPA_SET: NLA_NESTED
 *     NFHPA_SET_NAME: NLA_NUL_STRING, at most NFHP_SET_MAXNAMELEN - 1 bytes
 *     NFHPA_SET_OTHER: NLA_NUL_STRING, the other set of NFHP_CMD_SET_SWAP
 *     NFHPA_SET_TYPE: NLA_U8, enum nfhp_set_type
 *     NFHPA_SET_ALGO: NLA_NUL_STRING, "hash", "lpm", "bitmap" or "range";
 *         of NFHP_SET_FLOW "hash" (hosts) or "lpm" (prefixes); of
 *         NFHP_SET_IFACE "hash", a hash table per length of name, or
 *         "lpm", the names as 128-bit numbers, longest prefix match
 *     NFHPA_SET_LIMIT: NLA_U32, most entries, 0 for no limit
 *     NFHPA_SET_FLAGS: NLA_U32, NFHP_SET_F_* bits
 *     NFHPA_SET_ENTRY: NLA_NESTED, zero or more
 *         NFHPA_SETE_ADDR: NLA_BINARY, 16 bytes: the address as __u32[4],
 *             most significant word first, host byte order; an IPv4 one
 *             in the last word
 *         NFHPA_SETE_PLEN: NLA_U8, the prefix length (the family's width
 *             when absent); the bits below it must be 0
 *         NFHPA_SETE_VALUE: NLA_U32
 *         NFHPA_SETE_RESULT: NLA_U8, enum nfhp_set_result (replies)
 *         NFHPA_SETE_NUM_LO: NLA_U32, a number set's key, or the first
 *             number of its range; in place of ADDR and PLEN, which a
 *             number set refuses
 *         NFHPA_SETE_NUM_HI: NLA_U32, the last number of the range, at
 *             least NUM_LO (NUM_LO when absent)
 *         NFHPA_SETE_PROTO: NLA_U8, a flow set's transport protocol
 *             (IPPROTO_*), required there and refused elsewhere; 0 is
 *             refused, as ipset refuses it
 *         NFHPA_SETE_PORT: NLA_U16, host byte order, a flow set's port (0
 *             when absent): of TCP, UDP, SCTP and UDPLITE the port; of
 *             ICMP (an IPv4 set) and ICMPv6 (an IPv6 set) type << 8 |
 *             code, as ipset keeps them; of any other protocol it must
 *             be 0.  A flow set's entry is ADDR and PLEN (a host of
 *             "hash", a prefix of 1 to the family's width of "lpm"),
 *             PROTO and PORT: one key, no range
 *         NFHPA_SETE_IFACE: NLA_NUL_STRING, at most IFNAMSIZ - 1 bytes: an
 *             interface set's key, in place of ADDR, PLEN and the
 *             numbers, which it refuses (and they refuse it).  A name
 *             ("eth0") or, with a last "+", every name that starts with
 *             what precedes it ("eth+"; "+" alone: every interface), as
 *             iptables' -i takes them.  A name and the same with "+" are
 *             two entries.  A packet's device is looked up by name, not
 *             by index: an entry holds for a device created after it.
 *             The entry of the longest match gives the value: the name
 *             itself, then the wildcards, longest first.
 *         NFHPA_SETE_PACKETS, NFHPA_SETE_BYTES: NLA_U64, the entry's
 *             counts (NFHP_SET_F_COUNTERS); NFHPA_SETE_PAD pads them
 *         NFHPA_SETE_FLAGS: NLA_U32, NFHP_SETE_F_* bits (0 when absent;
 *             other bits are refused).  NFHP_SETE_F_NOMATCH, ipset's
 *             "nomatch", only in an "lpm" set of addresses or flows
 *             (NFHP_SET_INVALID elsewhere): a packet whose longest
 *             matching entry has it is not in the set.  An add with
 *             NFHP_SET_F_UPDATE gives an entry there the flag sent, or
 *             takes it away; a remove ignores it; dumps carry it
 * *     NFHPA_SET_COUNT: NLA_U32, NFHPA_SET_REFS: NLA_U32 and
 *     NFHPA_SET_MEMORY: NLA_U64 (dumps only)
 *
 * NFHPA_STATE: NLA_NESTED, a dynamic state
 *     NFHPA_STATE_FAMILY: NLA_U8, enum nfhp_family
 *     NFHPA_STATE_PROTO: NLA_U8, the transport protocol (IPPROTO_*)
 *     NFHPA_STATE_SRC, NFHPA_STATE_DST: NLA_BINARY, 16 bytes, as
 *         NFHPA_SETE_ADDR: the source and destination address of the
 *         packet that made the state (its "forward" direction)
 *     NFHPA_STATE_SPORT, NFHPA_STATE_DPORT: NLA_U16, its ports, host
 *         byte order; ICMP and ICMPv6 echo: the identifier in both; 0 for
 *         protocols without ports
 *     NFHPA_STATE_TCP_FWD, NFHPA_STATE_TCP_REV: NLA_U8, TCP: the flags
 *         seen forward and in reply, of FIN, SYN, RST as on the wire, and
 *         ACK for an ACK seen that way since the lifetime was last renewed
 *     NFHPA_STATE_TIMEOUT: NLA_U32, seconds left to live, rounded up
 *     NFHPA_STATE_PACKETS_FWD, NFHPA_STATE_BYTES_FWD,
 *     NFHPA_STATE_PACKETS_REV, NFHPA_STATE_BYTES_REV: NLA_U64, what it
 *         counted each way
 *     NFHPA_STATE_VERDICT: NLA_U8, NFHP_ACT_ACCEPT or NFHP_ACT_DROP: what
 *         its packets get (read only)
 *     NFHPA_STATE_CHAIN: NLA_NUL_STRING, the chain of the rule that made
 *         it, at most NFHP_CHAIN_MAXNAMELEN - 1 bytes
 *     NFHPA_STATE_POS: NLA_U32, that rule's 1-based position
 *
 * A rule with NFHPA_XT_MATCH attributes is classified by the tree in its
 * native dimensions, and its matches run only for packets the tree finds
 * in that box, as iptables runs them only after the rule's IP header part
 * matched.  The checkentry of every match and target runs when the rule
 * is added, with the hooks of its chain (all three for a user chain); a
 * failure refuses the rule with -EINVAL, an unknown extension with
 * -ENOENT, a known one without that revision with -EPROTOTYPE (as
 * ip_tables answers).
 */
#ifndef _UAPI_LINUX_NF_HIPAC_H
#define _UAPI_LINUX_NF_HIPAC_H

#include <linux/types.h>

#define NFHP_GENL_NAME		"nf_hipac"
#define NFHP_GENL_VERSION	1
/* The multicast group of NFHP_CMD_STATE_NEW and _DESTROY. */
#define NFHP_MCGRP_STATES	"states"

#define NFHP_CHAIN_MAXNAMELEN	32
#define NFHP_MAX_RANGES	15
/*
 * Most intervals a NFHP_FORM_MASK match of a 32-bit dimension may stand
 * for: a mask that is not a prefix (-s 10.0.0.0/255.0.255.0) is 2^holes
 * of them, holes being its 0 bits above its lowest 1 bit.  More are
 * refused with E2BIG.
 */
#define NFHP_MAX_MASK_RANGES	2048

enum nfhp_cmd {
	NFHP_CMD_UNSPEC,
	NFHP_CMD_APPEND,
	NFHP_CMD_INSERT,
	NFHP_CMD_DELETE,
	NFHP_CMD_REPLACE,
	NFHP_CMD_FLUSH,
	NFHP_CMD_NEW_CHAIN,
	NFHP_CMD_DEL_CHAIN,
	NFHP_CMD_RENAME_CHAIN,
	NFHP_CMD_POLICY,
	NFHP_CMD_ZERO,
	NFHP_CMD_LIST,
	NFHP_CMD_BEGIN,
	NFHP_CMD_COMMIT,
	NFHP_CMD_ABORT,
	NFHP_CMD_SET_NEW,
	NFHP_CMD_SET_DEL,
	NFHP_CMD_SET_FLUSH,
	NFHP_CMD_SET_SWAP,
	NFHP_CMD_SET_MODIFY,
	NFHP_CMD_SET_ADD,
	NFHP_CMD_SET_REMOVE,
	NFHP_CMD_SET_TEST,
	NFHP_CMD_SET_LIST,
	NFHP_CMD_STATE_LIST,
	NFHP_CMD_STATE_DEL,
	NFHP_CMD_STATE_FLUSH,
	NFHP_CMD_STATE_ADD,
	NFHP_CMD_STATE_NEW,
	NFHP_CMD_STATE_DESTROY,
	__NFHP_CMD_MAX
};

#define NFHP_CMD_MAX (__NFHP_CMD_MAX - 1)

enum nfhp_attr {
	NFHPA_UNSPEC,
	NFHPA_CHAIN,
	NFHPA_NEW_NAME,
	NFHPA_POS,
	NFHPA_POLICY,
	NFHPA_COUNTERS,
	NFHPA_REFS,
	NFHPA_RULE,
	NFHPA_LIST_FLAGS,
	NFHPA_FAMILY,
	NFHPA_SET,
	NFHPA_STATE,
	__NFHPA_MAX
};

#define NFHPA_MAX (__NFHPA_MAX - 1)

/* NFHPA_LIST_FLAGS: chain messages only, no rule messages. */
#define NFHP_LIST_CHAINS_ONLY	(1U << 0)

enum nfhp_counter_attr {
	NFHPA_COUNTER_UNSPEC,
	NFHPA_COUNTER_PACKETS,
	NFHPA_COUNTER_BYTES,
	NFHPA_COUNTER_PAD,
	__NFHPA_COUNTER_MAX
};

#define NFHPA_COUNTER_MAX (__NFHPA_COUNTER_MAX - 1)

enum nfhp_rule_attr {
	NFHPA_RULE_UNSPEC,
	NFHPA_RULE_MATCH,
	NFHPA_RULE_ACTION,
	NFHPA_RULE_TARGET,
	NFHPA_RULE_COMMENT,
	NFHPA_RULE_COUNTERS,
	NFHPA_RULE_XT,
	NFHPA_RULE_ORDER,
	NFHPA_RULE_SETM,
	NFHPA_RULE_STATE,
	__NFHPA_RULE_MAX
};

#define NFHPA_RULE_MAX (__NFHPA_RULE_MAX - 1)

enum nfhp_match_attr {
	NFHPA_MATCH_UNSPEC,
	NFHPA_MATCH_DIM,
	NFHPA_MATCH_FORM,
	NFHPA_MATCH_SYNTAX,
	NFHPA_MATCH_INVERT,
	NFHPA_MATCH_RANGES,
	NFHPA_MATCH_PREFIXLEN,
	NFHPA_MATCH_IFNAME,
	__NFHPA_MATCH_MAX
};

#define NFHPA_MATCH_MAX (__NFHPA_MATCH_MAX - 1)

/* Longest NFHPA_RULE_ORDER. */
#define NFHP_MAX_ORDER		16

/* Largest NFHPA_RULE_XT payload. */
#define NFHP_XT_MAXLEN		4096

enum nfhp_xt_attr {
	NFHPA_XT_UNSPEC,
	NFHPA_XT_MATCH,
	NFHPA_XT_TARGET,
	__NFHPA_XT_MAX
};

#define NFHPA_XT_MAX (__NFHPA_XT_MAX - 1)

enum nfhp_xt_ext_attr {
	NFHPA_XTE_UNSPEC,
	NFHPA_XTE_NAME,
	NFHPA_XTE_REVISION,
	NFHPA_XTE_DATA,
	__NFHPA_XTE_MAX
};

#define NFHPA_XTE_MAX (__NFHPA_XTE_MAX - 1)

/**
 * struct nfhp_uapi_range - a closed interval of 128-bit values
 * @lo: first value, most significant 32-bit word first, host byte order
 * @hi: last value, same layout
 *
 * 32-bit dimensions use only lo[3] and hi[3]; the other words are 0.
 */
struct nfhp_uapi_range {
	__u32 lo[4];
	__u32 hi[4];
};

/**
 * enum nfhp_dim - the native dimensions (NFHPA_MATCH_DIM)
 * @NFHP_DIM_SRC: IPv4 source address
 * @NFHP_DIM_DST: IPv4 destination address
 * @NFHP_DIM_PROTO: layer-4 protocol number, 0..255
 * @NFHP_DIM_SPORT: TCP/UDP/SCTP/DCCP/UDP-Lite source port, 0 for others
 * @NFHP_DIM_DPORT: destination port, as @NFHP_DIM_SPORT
 * @NFHP_DIM_STATE: conntrack state, enum nfhp_ct_state
 * @NFHP_DIM_FRAG: 1 for a non-first fragment, else 0
 * @NFHP_DIM_TCPFLAGS: the TCP flags byte (FIN 0x01 .. CWR 0x80), 0 if not TCP
 * @NFHP_DIM_ICMP: ICMP type << 8 | code, 0 if not ICMP
 * @NFHP_DIM_TTL: TTL, 0..255
 * @NFHP_DIM_LEN: IP total length, 0..65535
 * @NFHP_DIM_MARK: packet mark
 * @NFHP_DIM_IIF: input interface name as a 128-bit big-endian number
 * @NFHP_DIM_OIF: output interface name, as @NFHP_DIM_IIF
 * @NFHP_DIM_MAX: number of dimensions
 */
enum nfhp_dim {
	NFHP_DIM_SRC,
	NFHP_DIM_DST,
	NFHP_DIM_PROTO,
	NFHP_DIM_SPORT,
	NFHP_DIM_DPORT,
	NFHP_DIM_STATE,
	NFHP_DIM_FRAG,
	NFHP_DIM_TCPFLAGS,
	NFHP_DIM_ICMP,
	NFHP_DIM_TTL,
	NFHP_DIM_LEN,
	NFHP_DIM_MARK,
	NFHP_DIM_IIF,
	NFHP_DIM_OIF,
	NFHP_DIM_MAX
};

/**
 * enum nfhp_family - the address family of a rule set
 * @NFHP_FAMILY_IPV4: IPv4, as iptables; NFPROTO_IPV4
 * @NFHP_FAMILY_IPV6: IPv6, as ip6tables; NFPROTO_IPV6
 *
 * Each family has a rule set of its own.  The values are netfilter's.  In
 * an IPv6 rule set %NFHP_DIM_SRC and %NFHP_DIM_DST hold 128-bit addresses
 * as big-endian numbers; in an IPv4 one, 32-bit ones.
 */
enum nfhp_family {
	NFHP_FAMILY_IPV4 = 2,
	NFHP_FAMILY_IPV6 = 10,
};

/**
 * enum nfhp_ct_state - values of %NFHP_DIM_STATE
 * @NFHP_CT_INVALID: no conntrack entry could be found or created
 * @NFHP_CT_ESTABLISHED: ESTABLISHED, either direction
 * @NFHP_CT_RELATED: RELATED, either direction
 * @NFHP_CT_NEW: NEW
 * @NFHP_CT_UNTRACKED: the packet is marked untracked
 * @NFHP_CT_MAX: number of states
 */
enum nfhp_ct_state {
	NFHP_CT_INVALID,
	NFHP_CT_ESTABLISHED,
	NFHP_CT_RELATED,
	NFHP_CT_NEW,
	NFHP_CT_UNTRACKED,
	NFHP_CT_MAX
};

/**
 * enum nfhp_form - how the values of a match are given (NFHPA_MATCH_FORM)
 * @NFHP_FORM_RANGES: a list of closed intervals (ports, "a:b", iprange,
 *	multiport lists, --state lists, ttl, length, icmp type/code)
 * @NFHP_FORM_PREFIX: an address and NFHPA_MATCH_PREFIXLEN (-s 10.0.0.0/8)
 * @NFHP_FORM_MASK: value/mask, every x with (x & mask) == value
 *	(--tcp-flags, --syn, --mark value/mask, -s and -d with a netmask
 *	that is not a prefix: at most %NFHP_MAX_MASK_RANGES intervals)
 * @NFHP_FORM_IFNAME: an interface name; "+" at its end is a wildcard
 * @NFHP_FORM_MAX: number of forms
 */
enum nfhp_form {
	NFHP_FORM_RANGES,
	NFHP_FORM_PREFIX,
	NFHP_FORM_MASK,
	NFHP_FORM_IFNAME,
	NFHP_FORM_MAX
};

/**
 * enum nfhp_syntax - the iptables option a match came from
 *
 * The kernel only stores it, so that a listing prints "--dport 22" and
 * "-m multiport --dports 22" back as they were written.
 */
enum nfhp_syntax {
	NFHP_SYN_DEFAULT,	/* -s -d -p -i -o -f, tcp/udp/icmp ports */
	NFHP_SYN_MULTIPORT,	/* -m multiport --sports/--dports */
	NFHP_SYN_MULTIPORT_BOTH, /* -m multiport --ports */
	NFHP_SYN_IPRANGE,	/* -m iprange --src-range/--dst-range */
	NFHP_SYN_STATE,		/* -m state --state */
	NFHP_SYN_CONNTRACK,	/* -m conntrack --ctstate */
	NFHP_SYN_ICMP,		/* -m icmp --icmp-type */
	NFHP_SYN_TTL_EQ,	/* -m ttl --ttl-eq */
	NFHP_SYN_TTL_LT,	/* -m ttl --ttl-lt */
	NFHP_SYN_TTL_GT,	/* -m ttl --ttl-gt */
	NFHP_SYN_LENGTH,	/* -m length --length */
	NFHP_SYN_MARK,		/* -m mark --mark */
	NFHP_SYN_TCPFLAGS,	/* --tcp-flags */
	NFHP_SYN_SYN,		/* --syn */
	NFHP_SYN_MAX
};

/**
 * enum nfhp_module - a native match module (the bytes of NFHPA_RULE_ORDER)
 * @NFHP_MOD_TCP: -m tcp, or the tcp match -p tcp loads for --sport,
 *	--dport, --tcp-flags, --syn (%NFHP_SYN_DEFAULT ports, the TCP flags)
 * @NFHP_MOD_UDP: -m udp, or the udp match -p udp loads for --sport, --dport
 * @NFHP_MOD_ICMP: -m icmp, or the icmp match -p icmp loads for --icmp-type
 * @NFHP_MOD_MULTIPORT: -m multiport (%NFHP_SYN_MULTIPORT,
 *	%NFHP_SYN_MULTIPORT_BOTH)
 * @NFHP_MOD_IPRANGE: -m iprange (%NFHP_SYN_IPRANGE)
 * @NFHP_MOD_STATE: -m state (%NFHP_SYN_STATE)
 * @NFHP_MOD_CONNTRACK: -m conntrack (%NFHP_SYN_CONNTRACK)
 * @NFHP_MOD_TTL: -m ttl (%NFHP_SYN_TTL_EQ, _LT, _GT)
 * @NFHP_MOD_LENGTH: -m length (%NFHP_SYN_LENGTH)
 * @NFHP_MOD_MARK: -m mark (%NFHP_SYN_MARK)
 * @NFHP_MOD_COMMENT: -m comment (NFHPA_RULE_COMMENT)
 * @NFHP_MOD_MAX: number of modules
 */
enum nfhp_module {
	NFHP_MOD_TCP,
	NFHP_MOD_UDP,
	NFHP_MOD_ICMP,
	NFHP_MOD_MULTIPORT,
	NFHP_MOD_IPRANGE,
	NFHP_MOD_STATE,
	NFHP_MOD_CONNTRACK,
	NFHP_MOD_TTL,
	NFHP_MOD_LENGTH,
	NFHP_MOD_MARK,
	NFHP_MOD_COMMENT,
	NFHP_MOD_MAX
};

/**
 * enum nfhp_action - what a rule does when it matches (NFHPA_RULE_ACTION)
 * @NFHP_ACT_NONE: nothing but count (no -j)
 * @NFHP_ACT_ACCEPT: ACCEPT
 * @NFHP_ACT_DROP: DROP
 * @NFHP_ACT_RETURN: RETURN
 * @NFHP_ACT_JUMP: -j to the user chain NFHPA_RULE_TARGET
 * @NFHP_ACT_GOTO: -g to the user chain NFHPA_RULE_TARGET
 * @NFHP_ACT_XT: the xtables target NFHPA_XT_TARGET (REJECT, LOG, MARK, ...)
 *	decides or, returning XT_CONTINUE, lets the next rule decide
 * @NFHP_ACT_QUEUE: QUEUE, iptables' standard verdict NF_QUEUE: the packet
 *	goes to userspace queue 0 (dropped while nobody listens), as
 *	NFQUEUE --queue-num 0 sends it
 * @NFHP_ACT_MAX: number of actions
 */
enum nfhp_action {
	NFHP_ACT_NONE,
	NFHP_ACT_ACCEPT,
	NFHP_ACT_DROP,
	NFHP_ACT_RETURN,
	NFHP_ACT_JUMP,
	NFHP_ACT_GOTO,
	NFHP_ACT_XT,
	NFHP_ACT_QUEUE,
	NFHP_ACT_MAX
};

/* Longest set name, its NUL included. */
#define NFHP_SET_MAXNAMELEN	32
/*
 * Most NFHPA_SET_ENTRY of one NFHP_CMD_SET_ADD or NFHP_CMD_SET_REMOVE: the
 * reply, an entry for each, must fit one attribute.  More are refused
 * with E2BIG before any is applied.
 */
#define NFHP_SET_MAX_BATCH	1024
/* Most NFHPA_RULE_SETM of one rule. */
#define NFHP_MAX_SETM		4

enum nfhp_set_attr {
	NFHPA_SET_UNSPEC,
	NFHPA_SET_NAME,
	NFHPA_SET_OTHER,
	NFHPA_SET_TYPE,
	NFHPA_SET_ALGO,
	NFHPA_SET_LIMIT,
	NFHPA_SET_FLAGS,
	NFHPA_SET_ENTRY,
	NFHPA_SET_COUNT,
	NFHPA_SET_MEMORY,
	NFHPA_SET_REFS,
	NFHPA_SET_PAD,
	NFHPA_SET_RANGE_LO,
	NFHPA_SET_RANGE_HI,
	__NFHPA_SET_MAX
};

#define NFHPA_SET_MAX (__NFHPA_SET_MAX - 1)

/* NFHPA_SET_FLAGS */
#define NFHP_SET_F_LOCKED	(1U << 0)	/* adds and removes fail */
#define NFHP_SET_F_UPDATE	(1U << 1)	/* an add updates a value */
#define NFHP_SET_F_EXIST	(1U << 2)	/* ipset's -exist */
#define NFHP_SET_F_COUNTERS	(1U << 3)	/* entries count packets */

/* NFHPA_SETE_FLAGS */
#define NFHP_SETE_F_NOMATCH	(1U << 0)	/* ipset's nomatch */

enum nfhp_set_entry_attr {
	NFHPA_SETE_UNSPEC,
	NFHPA_SETE_ADDR,
	NFHPA_SETE_PLEN,
	NFHPA_SETE_VALUE,
	NFHPA_SETE_RESULT,
	NFHPA_SETE_NUM_LO,
	NFHPA_SETE_NUM_HI,
	NFHPA_SETE_PROTO,
	NFHPA_SETE_PORT,
	NFHPA_SETE_IFACE,
	NFHPA_SETE_PACKETS,
	NFHPA_SETE_BYTES,
	NFHPA_SETE_PAD,
	NFHPA_SETE_FLAGS,
	__NFHPA_SETE_MAX
};

#define NFHPA_SETE_MAX (__NFHPA_SETE_MAX - 1)

/**
 * enum nfhp_set_type - what the keys of a set are (NFHPA_SET_TYPE)
 * @NFHP_SET_ADDR: addresses or prefixes of the set's family
 * @NFHP_SET_NUMBER: u32 numbers and ranges of them; rules look ports up
 * @NFHP_SET_FLOW: an address or prefix of the set's family with a
 *	transport protocol and a port (ipset's hash:ip,port and
 *	hash:net,port); rules look up an address and a port
 * @NFHP_SET_IFACE: interface names, exact or with iptables' "+" wildcard;
 *	rules look up the packet's input ("src") or output ("dst") device
 *	by name.  The set's family does not matter: it serves both.
 */
enum nfhp_set_type {
	NFHP_SET_ADDR = 1,
	NFHP_SET_NUMBER = 2,
	NFHP_SET_FLOW = 3,
	NFHP_SET_IFACE = 4,
};

/**
 * enum nfhp_set_result - what an add or a remove did to one entry
 *	(NFHPA_SETE_RESULT)
 * @NFHP_SET_ADDED: the key was new, and is in the set now
 * @NFHP_SET_UPDATED: the key was there; its value is the new one now
 * @NFHP_SET_EXISTS: the key was there, and the add did not update it
 * @NFHP_SET_DELETED: the key was there, and is not now
 * @NFHP_SET_NOT_FOUND: the key of a remove was not in the set
 * @NFHP_SET_LIMIT: the key was new, and the set is full
 * @NFHP_SET_LOCKED: the set is locked: nothing changed
 * @NFHP_SET_INVALID: the key is not one of the set's type and family, or
 *	overlaps an entry of a "range" set
 * @NFHP_SET_NOMEM: no memory for the key
 * @NFHP_SET_OUT_OF_RANGE: a number of the key is outside the number
 *	set's range (NFHPA_SET_RANGE_LO and _HI): nothing changed
 */
enum nfhp_set_result {
	NFHP_SET_ADDED,
	NFHP_SET_UPDATED,
	NFHP_SET_EXISTS,
	NFHP_SET_DELETED,
	NFHP_SET_NOT_FOUND,
	NFHP_SET_LIMIT,
	NFHP_SET_LOCKED,
	NFHP_SET_INVALID,
	NFHP_SET_NOMEM,
	NFHP_SET_OUT_OF_RANGE,
};

enum nfhp_setm_attr {
	NFHPA_SETM_UNSPEC,
	NFHPA_SETM_NAME,
	NFHPA_SETM_DIR,
	NFHPA_SETM_INVERT,
	NFHPA_SETM_VALUE_MIN,
	NFHPA_SETM_VALUE_MAX,
	NFHPA_SETM_DIR2,
	NFHPA_SETM_FLAGS,
	NFHPA_SETM_PACKETS_CMP,
	NFHPA_SETM_PACKETS,
	NFHPA_SETM_BYTES_CMP,
	NFHPA_SETM_BYTES,
	NFHPA_SETM_PAD,
	__NFHPA_SETM_MAX
};

#define NFHPA_SETM_MAX (__NFHPA_SETM_MAX - 1)

/* NFHPA_SETM_FLAGS */
#define NFHP_SETM_F_NO_COUNT	(1U << 0)	/* ! --update-counters */

/**
 * enum nfhp_setm_cmp - how a set match compares an entry's count
 *	(NFHPA_SETM_PACKETS_CMP, NFHPA_SETM_BYTES_CMP); ipset's numbers
 * @NFHP_SETM_CMP_NONE: it does not
 * @NFHP_SETM_CMP_EQ: the count is the number ("--packets-eq N")
 * @NFHP_SETM_CMP_NE: it is not ("! --packets-eq N")
 * @NFHP_SETM_CMP_LT: it is less ("--packets-lt N")
 * @NFHP_SETM_CMP_GT: it is greater ("--packets-gt N")
 */
enum nfhp_setm_cmp {
	NFHP_SETM_CMP_NONE,
	NFHP_SETM_CMP_EQ,
	NFHP_SETM_CMP_NE,
	NFHP_SETM_CMP_LT,
	NFHP_SETM_CMP_GT,
};

/**
 * enum nfhp_setm_dir - the packet field a set match looks up
 *	(NFHPA_SETM_DIR)
 * @NFHP_SETM_SRC: the source address; of a number set, the source port
 * @NFHP_SETM_DST: the destination address; of a number set, the
 *	destination port
 * @NFHP_SETM_SPORT: the source port: number sets only
 * @NFHP_SETM_DPORT: the destination port: number sets only
 *
 * A port is a TCP or UDP packet's, as ipset's bitmap:port takes them; a
 * packet of another protocol, a later fragment or one too short for its
 * ports has none, and is in no number set (so "!" holds for it).
 *
 * A flow set (NFHPA_SETM_DIR2) takes the port as ipset's hash:ip,port
 * does: of TCP, UDP, SCTP and UDPLITE the port; of ICMP (IPv4) and
 * ICMPv6 (IPv6) type << 8 | code; of any other protocol 0.  A later
 * fragment, or a packet too short for its ports or its ICMP type and
 * code, is in no flow set.
 */
enum nfhp_setm_dir {
	NFHP_SETM_SRC,
	NFHP_SETM_DST,
	NFHP_SETM_SPORT,
	NFHP_SETM_DPORT,
};

/**
 * enum nfhp_rstate_mode - a rule's part in the dynamic states
 *	(NFHPA_RSTATE_MODE)
 * @NFHP_RSTATE_NONE: none
 * @NFHP_RSTATE_KEEP: keep-state ("-m keep-state"): when the rule matches,
 *	a state is made for the packet's flow, whose later packets, either
 *	way, get the rule's verdict at the check point
 * @NFHP_RSTATE_CHECK: check-state ("-j CHECK-STATE"): a check point and
 *	nothing else; a packet with no live state goes on to the next rule
 */
enum nfhp_rstate_mode {
	NFHP_RSTATE_NONE,
	NFHP_RSTATE_KEEP,
	NFHP_RSTATE_CHECK,
};

enum nfhp_rstate_attr {
	NFHPA_RSTATE_UNSPEC,
	NFHPA_RSTATE_MODE,
	NFHPA_RSTATE_LIMIT,
	NFHPA_RSTATE_LIMIT_BY,
	__NFHPA_RSTATE_MAX
};

#define NFHPA_RSTATE_MAX (__NFHPA_RSTATE_MAX - 1)

/* The fields of a flow a limit counts by (NFHPA_RSTATE_LIMIT_BY). */
#define NFHP_STATE_LIMIT_SRC_ADDR	0x01
#define NFHP_STATE_LIMIT_SRC_PORT	0x02
#define NFHP_STATE_LIMIT_DST_ADDR	0x04
#define NFHP_STATE_LIMIT_DST_PORT	0x08
#define NFHP_STATE_LIMIT_ALL		0x0f

enum nfhp_state_attr {
	NFHPA_STATE_UNSPEC,
	NFHPA_STATE_FAMILY,
	NFHPA_STATE_PROTO,
	NFHPA_STATE_SRC,
	NFHPA_STATE_DST,
	NFHPA_STATE_SPORT,
	NFHPA_STATE_DPORT,
	NFHPA_STATE_TCP_FWD,
	NFHPA_STATE_TCP_REV,
	NFHPA_STATE_TIMEOUT,
	NFHPA_STATE_PACKETS_FWD,
	NFHPA_STATE_BYTES_FWD,
	NFHPA_STATE_PACKETS_REV,
	NFHPA_STATE_BYTES_REV,
	NFHPA_STATE_VERDICT,
	NFHPA_STATE_CHAIN,
	NFHPA_STATE_POS,
	NFHPA_STATE_PAD,
	__NFHPA_STATE_MAX
};

#define NFHPA_STATE_MAX (__NFHPA_STATE_MAX - 1)

#endif /* _UAPI_LINUX_NF_HIPAC_H */
