/* Fetching the guest's instruction at CS:RIP through its page tables. */
#ifndef CORE_INSN_FETCH_H
#define CORE_INSN_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vcpu;

/* Up to INSN_MAX_LEN (15) bytes at CS:RIP into buf, through the guest's paging a page at a
 * time; *long64 says whether the code is 64-bit. Returns the count fetched, or -1 with a
 * reason in why (16-bit code, or the first page unmapped or its tables not memory). A
 * short count means a later page failed: the decoder says whether it needed more. */
int insn_fetch(struct vcpu *v, uint8_t *buf, bool *long64, char *why, size_t wl);

/* The first (up to 8) of n fetched bytes as hex, "0f 01 c1", for a domain's crash line. */
#define INSN_HEX_LEN (3 * 8)
void insn_hex(const uint8_t *b, int n, char out[INSN_HEX_LEN]);

#endif
