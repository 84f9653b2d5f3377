/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac-sim: opaque extensions, the matches and targets the tree does
 * not know (-m recent, -m mac, -j LOG, -j REJECT, ...), run by a model
 * instead of refused (nf-hipac-sim --opaque-xt).
 *
 * The parser hands them to this plug-in (xt_hooks.h), which keeps them as
 * the words iptables-save writes for them and prints them back from
 * there.  An option takes the words after it as its arguments, up to the
 * next word that starts with '-' or is "!"; "--opt=value" stays one word.
 * A -j NAME is a target when no chain has that name, as iptables keeps
 * chain and target names apart.  The extensions of a rule may run in any
 * order (&struct nfhp_parse_ext @any_order): a native match written after
 * them stays a dimension of the tree.
 *
 * The core and the reference run them through nfhp_sim_opaque_ops
 * (ext.h), a model that knows nothing of what they mean:
 *
 * - a match is a test that a packet passes or not by a hash of the
 *   packet's key (&struct nfhp_sim_pkt @hash) and of the match's words:
 *   each lets about half of all packets through, always the same ones;
 *   it keeps no state and drops nothing;
 * - -j REJECT drops the packet (NF_DROP); every other target (LOG,
 *   NFLOG, MARK, ...) lets the next rule decide and changes nothing.
 *
 * The packet the core and the reference give the model is the &struct
 * nfhp_sim_pkt being classified.  Both run the same model, so --check
 * still compares them exactly; the verdicts are the model's, not what
 * iptables would decide.
 */
#ifndef _NFHP_SIM_OPAQUE_H
#define _NFHP_SIM_OPAQUE_H

#include "pkt.h"
#include "ext.h"

extern const struct nfhp_ext_ops nfhp_sim_opaque_ops;

/*
 * Plug the opaque extensions into the parser and the printer; a -j NAME
 * naming a chain of @rs is a jump.  Unplug them with NULL.
 */
void nfhp_sim_opaque_plug(const struct nfhp_ruleset *rs);

#endif /* _NFHP_SIM_OPAQUE_H */
