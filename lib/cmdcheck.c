#include "lib/cmdcheck.h"
#include "lib/cmdline.h"
#include "lib/fmt.h"

/* Splits a word into key and value the way lib/cmdline's lookups see it: a leading quote
 * (GRUB's `"key=a b"`) and the quotes around the value are not part of either. */
static void split(const char *w, size_t wl, const char **k, size_t *kl, const char **v, size_t *vl,
		  bool *has_val)
{
	if (wl && w[0] == '"')
		w++, wl--;
	size_t eq = 0;
	while (eq < wl && w[eq] != '=')
		eq++;
	*k = w;
	*kl = eq;
	*has_val = eq < wl;
	*v = *has_val ? w + eq + 1 : w + wl;
	*vl = *has_val ? wl - eq - 1 : 0;
	if (!*has_val && *kl && w[*kl - 1] == '"')
		(*kl)--;
	if (*vl && (*v)[0] == '"')
		(*v)++, (*vl)--;
	if (*vl && (*v)[*vl - 1] == '"')
		(*vl)--;
}

/* name "x.*" matches every key that starts with "x." (a family another reader owns). */
static bool name_eq(const char *name, const char *k, size_t kl)
{
	size_t i = 0;
	while (i < kl && name[i] && name[i] == k[i])
		i++;
	if (name[i] == '*' && !name[i + 1] && i > 0 && name[i - 1] == '.' && i < kl)
		return true;
	return i == kl && !name[i];
}

const struct cmdkey *cmdcheck_find(const struct cmdkey *keys, size_t n, const char *name)
{
	size_t kl = 0;
	while (name[kl])
		kl++;
	for (size_t i = 0; i < n; i++)
		if (name_eq(keys[i].name, name, kl))
			return &keys[i];
	return NULL;
}

/* The number in v[0..vl): CMDCHECK_OK, _MALFORMED or _OVERFLOW. */
static enum cmdcheck_result number(const char *v, size_t vl, uint64_t *out)
{
	if (parse_u64_n(v, vl, out))
		return CMDCHECK_OK;
	/* parse_u64_n refuses junk and overflow alike: tell them apart for the message. */
	size_t i = vl > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 2 : 0;
	bool hex = i == 2;
	if (i == vl)
		return CMDCHECK_MALFORMED;
	for (; i < vl; i++) {
		char c = v[i];
		bool digit = (c >= '0' && c <= '9') ||
			     (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
		if (!digit)
			return CMDCHECK_MALFORMED;
	}
	return CMDCHECK_OVERFLOW;
}

/* At most 48 characters of the word in the message: a 1000-character word stays one
 * readable line. */
#define SHOW 48

enum cmdcheck_result cmdcheck_word(const struct cmdkey *keys, size_t n, const char *w, size_t wl,
				   const struct cmdkey **key, char *msg, size_t len)
{
	const char *k, *v;
	size_t kl, vl;
	bool has_val;
	split(w, wl, &k, &kl, &v, &vl, &has_val);
	char shown[SHOW + 4]; /* the word as printed: escaped, cut with "..." */
	fmt_escape(shown, sizeof shown, w, wl);
	*key = NULL;
	for (size_t i = 0; i < n && kl; i++)
		if (name_eq(keys[i].name, k, kl))
			*key = &keys[i];
	const struct cmdkey *e = *key;
	if (!e) {
		fmt_snprintf(msg, len, "unknown setting '%s' (a typo?): ignored", shown);
		return CMDCHECK_UNKNOWN;
	}
	if (e->kind == CMDKEY_ANY)
		return CMDCHECK_OK;
	uint64_t x = 0;
	enum cmdcheck_result r = has_val ? number(v, vl, &x) : CMDCHECK_MALFORMED;
	if (r == CMDCHECK_OK && (x < e->min || x > e->max))
		r = CMDCHECK_RANGE;
	if (r == CMDCHECK_OK)
		return r;
	static const char *const why[] = {
		[CMDCHECK_MALFORMED] = "not a number",
		[CMDCHECK_OVERFLOW] = "does not fit in 64 bits",
		[CMDCHECK_RANGE] = "out of range",
	};
	fmt_snprintf(msg, len, "bad setting '%s': %s (%llu..%llu): using the default %llu", shown,
		     why[r], (unsigned long long)e->min, (unsigned long long)e->max,
		     (unsigned long long)e->def);
	return r;
}

uint64_t cmdcheck_u64(const char *cmdline, const struct cmdkey *k)
{
	char buf[32];
	uint64_t x;
	if (!cmdline_get(cmdline, k->name, buf, sizeof buf) || !parse_u64(buf, &x) || x < k->min ||
	    x > k->max)
		return k->def;
	return x;
}
