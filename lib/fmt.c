#include "lib/fmt.h"
#include <stdbool.h>
#include <stdint.h>

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

static void put_str(struct out *o, const char *s, int width, int prec, bool left)
{
	int n = 0;
	if (!s)
		s = "(null)";
	while ((prec < 0 || n < prec) && s[n])
		n++;
	if (!left)
		pad(o, ' ', width - n);
	for (int i = 0; i < n; i++)
		put(o, s[i]);
	if (left)
		pad(o, ' ', width - n);
}

static void put_num(struct out *o, uint64_t v, bool neg, unsigned base, bool upper, int width,
		    bool left, bool zero, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, plen = 0;
	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	while (prefix[plen])
		plen++;
	int total = n + plen + (neg ? 1 : 0);
	if (!left && !zero)
		pad(o, ' ', width - total);
	if (neg)
		put(o, '-');
	for (int i = 0; i < plen; i++)
		put(o, prefix[i]);
	if (!left && zero)
		pad(o, '0', width - total);
	while (n)
		put(o, tmp[--n]);
	if (left)
		pad(o, ' ', width - total);
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = {buf, size, 0};
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		bool left = false, zero = false;
		int width = 0, prec = -1, lng = 0;
		for (;; fmt++) {
			if (fmt[1] == '-')
				left = true;
			else if (fmt[1] == '0')
				zero = true;
			else
				break;
		}
		fmt++;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				left = true;
				width = -width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
			}
		}
		for (;; fmt++) {
			if (*fmt == 'l')
				lng++;
			else if (*fmt == 'z')
				lng = 3;
			else if (*fmt == 'h')
				; /* promoted to int anyway; narrowed below is not needed for output
				   */
			else
				break;
		}
		uint64_t u;
		int64_t s;
		switch (*fmt) {
		case 'd':
		case 'i':
			s = lng == 0   ? va_arg(ap, int)
			    : lng == 1 ? va_arg(ap, long)
			    : lng == 2 ? va_arg(ap, long long)
				       : (int64_t)va_arg(ap, ptrdiff_t);
			u = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
			put_num(&o, u, s < 0, 10, false, width, left, zero, "");
			break;
		case 'u':
		case 'x':
		case 'X':
			u = lng == 0   ? va_arg(ap, unsigned int)
			    : lng == 1 ? va_arg(ap, unsigned long)
			    : lng == 2 ? va_arg(ap, unsigned long long)
				       : va_arg(ap, size_t);
			put_num(&o, u, false, *fmt == 'u' ? 10 : 16, *fmt == 'X', width, left, zero,
				"");
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			put_num(&o, u, false, 16, false, width, left, zero, "0x");
			break;
		case 's':
			put_str(&o, va_arg(ap, const char *), width, prec, left);
			break;
		case 'c':
			if (!left)
				pad(&o, ' ', width - 1);
			put(&o, (char)va_arg(ap, int));
			if (left)
				pad(&o, ' ', width - 1);
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* The escaped form of c in e (fmt_escape); returns its length. */
static size_t escape_one(unsigned char c, char e[4])
{
	static const char hex[] = "0123456789abcdef";
	if (c == '\n' || c == '\r' || c == '\t' || c == '\\') {
		e[0] = '\\';
		e[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\\';
		return 2;
	}
	if (c < 0x20 || c == 0x7f) {
		e[0] = '\\', e[1] = 'x', e[2] = hex[c >> 4], e[3] = hex[c & 15];
		return 4;
	}
	e[0] = (char)c;
	return 1;
}

char *fmt_escape(char *dst, size_t size, const char *src, size_t len)
{
	char e[4];
	size_t total = 0, o = 0;
	for (size_t i = 0; i < len; i++)
		total += escape_one((unsigned char)src[i], e);
	bool cut = total + 1 > size; /* then room is kept for "..." */
	for (size_t i = 0; i < len; i++) {
		size_t n = escape_one((unsigned char)src[i], e);
		if (cut && o + n + 3 + 1 > size) {
			dst[o++] = '.', dst[o++] = '.', dst[o++] = '.';
			break;
		}
		for (size_t k = 0; k < n; k++)
			dst[o++] = e[k];
	}
	dst[o] = 0;
	return dst;
}
