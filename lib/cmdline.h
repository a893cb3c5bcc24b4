/* Command lines of the form `word key=value key="quoted value" flag`, as GRUB passes them
 * to the hypervisor and to each module. Shared by the hypervisor, guests and the simulator.
 * Lookups return the last occurrence of a key, so later settings override earlier ones. */
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copies the value of `key` (quotes removed) into buf. Returns false when the key is
 * absent or the value does not fit; a bare `key` yields "". */
bool cmdline_get(const char *cmdline, const char *key, char *buf, size_t len);
/* True when `key` appears at all (bare or with a value). */
bool cmdline_has(const char *cmdline, const char *key);
/* Decimal or 0x-hex; returns false when absent or malformed, leaving *out unchanged. */
bool cmdline_get_u64(const char *cmdline, const char *key, uint64_t *out);
/* Parses a whole decimal/hex string; false on junk or overflow. */
bool parse_u64(const char *s, uint64_t *out);
/* The same for the first len characters of s (no terminator needed). */
bool parse_u64_n(const char *s, size_t len, uint64_t *out);

/* Iterates over the words of a command line: returns the next word's start and sets
 * *wlen, or NULL at the end. Quoted parts stay inside their word. */
const char *cmdline_next(const char *p, size_t *wlen);

#endif
