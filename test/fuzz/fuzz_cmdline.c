/* libFuzzer target: lib/cmdline.c. The input up to its first NUL is a key, the rest the
 * command line (no NUL: the whole input is the line, looked up with fixed keys). The number
 * parser also gets the raw bytes without a terminator. */
#include <string.h>
#include "fuzz.h"
#include "lib/cmdline.h"

static void lookup(const char *line, const char *key)
{
	char buf[64];
	uint64_t v;
	bool has = cmdline_has(line, key);
	bool got = cmdline_get(line, key, buf, sizeof(buf));
	FUZZ_CHECK(!got || has);
	if (got)
		FUZZ_CHECK(memchr(buf, 0, sizeof(buf)));
	if (cmdline_get_u64(line, key, &v))
		FUZZ_CHECK(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v;
	parse_u64_n((const char *)data, size, &v);
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	size_t klen = strlen(s);
	const char *line = klen < size ? s + klen + 1 : s;
	if (klen < size && klen > 0)
		lookup(line, s);
	static const char *const keys[] = {"sched", "name", "pin", "run_ms", "a", "=", "\""};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		lookup(line, keys[i]);
	size_t n = strlen(line), wlen;
	for (const char *w = line; (w = cmdline_next(w, &wlen)); w += wlen)
		FUZZ_CHECK(wlen > 0 && w >= line && w + wlen <= line + n);
	parse_u64(line, &v);
	free(s);
	return 0;
}
