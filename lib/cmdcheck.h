/* Checked command-line keys: one table of the keys a reader knows, each a number with a
 * range and a default or a free-form word. Every word of a command line is checked once
 * (cmdcheck_word: a bad one gets exactly one line saying what is wrong and what is used
 * instead), and every read (cmdcheck_u64) returns a value inside the key's range: the
 * last occurrence when it is good, the default when it is absent or bad. */
#ifndef LIB_CMDCHECK_H
#define LIB_CMDCHECK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cmdkey_kind {
	CMDKEY_U64, /* decimal or 0x-hex in [min, max] */
	CMDKEY_ANY, /* bare or with any value (flags, names) */
};

struct cmdkey {
	const char *name; /* "x.*" (CMDKEY_ANY): every key starting with "x." */
	enum cmdkey_kind kind;
	uint64_t min, max, def;
};

enum cmdcheck_result {
	CMDCHECK_OK = 0,
	CMDCHECK_UNKNOWN,   /* no such key */
	CMDCHECK_MALFORMED, /* not a number (or a bare key that needs one) */
	CMDCHECK_OVERFLOW,  /* a number beyond 64 bits */
	CMDCHECK_RANGE,	    /* a number outside [min, max] */
};

/* Checks the word w[0..wl) (`key`, `key=value` or GRUB's `"key=value"`) against keys[n].
 * *key is set to the matching entry or NULL. Unless the result is CMDCHECK_OK, msg holds
 * one line (no newline) naming the word, the problem and what is used instead. */
enum cmdcheck_result cmdcheck_word(const struct cmdkey *keys, size_t n, const char *w, size_t wl,
				   const struct cmdkey **key, char *msg, size_t len);

/* The value of a CMDKEY_U64 key: its last occurrence in cmdline when that is a number in
 * range, else k->def. Silent: cmdcheck_word reports. */
uint64_t cmdcheck_u64(const char *cmdline, const struct cmdkey *k);

/* The entry called name, or NULL. */
const struct cmdkey *cmdcheck_find(const struct cmdkey *keys, size_t n, const char *name);

#endif
