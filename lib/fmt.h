/* Freestanding printf-style formatting, shared by the hypervisor, guests and host tests.
 * Supports %d %i %u %x %X %p %s %c %% with flags '-' '0', a width (or '*'), a precision
 * for %s (or '.*'), and the length modifiers hh h l ll z. No floating point: the
 * hypervisor is built with -mgeneral-regs-only. */
#ifndef LIB_FMT_H
#define LIB_FMT_H
#include <stdarg.h>
#include <stddef.h>

/* Like vsnprintf: always NUL-terminates when size > 0; returns the length the full
 * output would have had. */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Text from outside (a command-line word, a module's line) made fit for one line of output:
 * src[0..len) into dst (NUL-terminated, size > 4), control characters as \n \r \t or \xNN
 * and a backslash doubled; what does not fit is cut and "..." ends it. Returns dst. */
char *fmt_escape(char *dst, size_t size, const char *src, size_t len);

#endif
