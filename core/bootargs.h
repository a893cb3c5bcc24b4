/* The hypervisor's own command-line keys (core/bootargs.c holds the table): each checked
 * once at boot, one line per bad word, then read through bootarg_u64. */
#ifndef CORE_BOOTARGS_H
#define CORE_BOOTARGS_H
#include <stddef.h>
#include <stdint.h>

/* Checks every word of the command line once. `other` (may be NULL) is asked first, for
 * the words another reader owns (the scheduler's): it returns 0 when it took the word,
 * < 0 when the word is its own but bad (the word is ignored: one line), > 0 when it is not
 * its own. Every other word must be in the table: an unknown key or a bad value gets one
 * line and the key keeps its default. Also says so when the line was cut. */
void bootargs_check(const char *cmdline, int (*other)(const char *w, size_t wl));
/* The value of a numeric key of the table (panics on a name not in it: a hypervisor bug):
 * the last occurrence when it is good, else the key's default. */
uint64_t bootarg_u64(const char *name);

#endif
