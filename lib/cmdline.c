#include "lib/cmdline.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const char *cmdline_next(const char *p, size_t *wlen)
{
	while (*p && is_space(*p))
		p++;
	if (!*p)
		return NULL;
	const char *s = p;
	bool quoted = false;
	while (*p && (quoted || !is_space(*p))) {
		if (*p == '"')
			quoted = !quoted;
		p++;
	}
	*wlen = (size_t)(p - s);
	return s;
}

/* Finds the last word `key` or `key=...`; returns the value start (or NULL) and its length. */
static const char *find(const char *cmdline, const char *key, size_t *vlen, bool *found)
{
	size_t klen = 0, wlen;
	const char *val = NULL;
	while (key[klen])
		klen++;
	*found = false;
	for (const char *w = cmdline; (w = cmdline_next(w, &wlen)); w += wlen) {
		/* GRUB hands `key="a b"` over as `"key=a b"`: look past a leading quote. */
		size_t q = w[0] == '"';
		if (wlen < klen + q)
			continue;
		size_t i = 0;
		while (i < klen && w[q + i] == key[i])
			i++;
		if (i < klen)
			continue;
		if (wlen == klen + q || (q && wlen == klen + 2 && w[wlen - 1] == '"')) {
			*found = true;
			val = w + wlen;
			*vlen = 0;
		} else if (w[q + klen] == '=') {
			*found = true;
			val = w + q + klen + 1;
			*vlen = wlen - q - klen - 1;
		}
	}
	return val;
}

bool cmdline_has(const char *cmdline, const char *key)
{
	size_t vlen;
	bool found;
	find(cmdline, key, &vlen, &found);
	return found;
}

bool cmdline_get(const char *cmdline, const char *key, char *buf, size_t len)
{
	size_t vlen, n = 0;
	bool found;
	const char *v = find(cmdline, key, &vlen, &found);
	if (!found || len == 0)
		return false;
	for (size_t i = 0; i < vlen; i++) {
		if (v[i] == '"')
			continue;
		if (n + 1 >= len)
			return false;
		buf[n++] = v[i];
	}
	buf[n] = '\0';
	return true;
}

bool parse_u64_n(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		unsigned d;
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

bool parse_u64(const char *s, uint64_t *out)
{
	size_t len = 0;
	while (s[len])
		len++;
	return parse_u64_n(s, len, out);
}

bool cmdline_get_u64(const char *cmdline, const char *key, uint64_t *out)
{
	char buf[24];
	return cmdline_get(cmdline, key, buf, sizeof(buf)) && parse_u64(buf, out);
}
