/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: a rule specification packed to the bytes it needs.
 *
 * A rule keeps what the user wrote only to list it back and to find equal
 * rules: packed, that is a few dozen bytes instead of struct
 * nfhp_rule_spec's kilobytes.
 */
#ifndef _NFHP_PACKED_SPEC_H
#define _NFHP_PACKED_SPEC_H

#include "mem.h"
#include "spec.h"

/**
 * struct nfhp_packed_spec - a rule specification in as few bytes as it needs
 * @size: bytes allocated, this header included
 * @len: bytes of @data in use
 * @data: the packed matches, action, target and comment
 */
struct nfhp_packed_spec {
	u32 size;
	u32 len;
	u8 data[];
};

int nfhp_spec_pack(struct nfhp_mem *mem, const struct nfhp_rule_spec *s,
		   struct nfhp_packed_spec **out);

size_t nfhp_spec_packed_len(const struct nfhp_rule_spec *s);
void nfhp_spec_pack_into(struct nfhp_packed_spec *p,
			 const struct nfhp_rule_spec *s, size_t len);
void nfhp_spec_unpack(const struct nfhp_packed_spec *p,
		      struct nfhp_rule_spec *s);
bool nfhp_packed_spec_equal(const struct nfhp_packed_spec *a,
			    const struct nfhp_packed_spec *b);
u32 nfhp_packed_spec_hash(const struct nfhp_packed_spec *p);

#endif /* _NFHP_PACKED_SPEC_H */
