#include "drivers/comspec.h"
#include "lib/cmdline.h"
#include "lib/string.h"

/* The next comma-separated field of *p: its start and length; *p moves past the comma. */
static const char *field(const char **p, size_t *len)
{
	const char *s = *p, *c = strchr(s, ',');
	*len = c ? (size_t)(c - s) : strlen(s);
	*p = c ? c + 1 : s + *len;
	return s;
}

static bool is(const char *f, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(f, word, n);
}

static bool prefix(const char *f, size_t n, const char *word)
{
	size_t w = strlen(word);
	return n > w && !memcmp(f, word, w);
}

/* <data bits 5-8><parity n|o|e|m|s><stop bits 1|2>, as Xen's DPS. */
static bool parse_dps(const char *f, size_t n, uint8_t *lcr)
{
	static const char parities[] = "noems";
	static const uint8_t parity_bits[] = {0x00, 0x08, 0x18, 0x28, 0x38};
	if (n != 3 || f[0] < '5' || f[0] > '8' || (f[2] != '1' && f[2] != '2'))
		return false;
	const char *p = f[1] ? strchr(parities, f[1]) : NULL;
	if (!p)
		return false;
	*lcr = (uint8_t)((f[0] - '5') | (f[2] == '2' ? 0x04 : 0) | parity_bits[p - parities]);
	return true;
}

static bool parse_hex_n(const char *f, size_t n, unsigned max, uint8_t *out)
{
	uint64_t v = 0;
	if (!n || n > 2)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = f[i];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16;
		if (d == 16)
			return false;
		v = v * 16 + d;
	}
	if (v > max)
		return false;
	*out = (uint8_t)v;
	return true;
}

static const char *find_n(const char *f, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (f[i] == c)
			return f + i;
	return NULL;
}

/* <bus>:<dev>.<fn>, hexadecimal as lspci prints it. */
static bool parse_bdf(const char *f, size_t n, struct com_spec *s)
{
	const char *colon = find_n(f, n, ':'), *dot = find_n(f, n, '.');
	if (!colon || !dot || dot < colon)
		return false;
	return parse_hex_n(f, (size_t)(colon - f), 0xff, &s->bus) &&
	       parse_hex_n(colon + 1, (size_t)(dot - colon - 1), 0x1f, &s->dev) &&
	       parse_hex_n(dot + 1, (size_t)(f + n - dot - 1), 7, &s->fn);
}

static const char *parse_where(const char *f, size_t n, struct com_spec *s)
{
	uint64_t v;
	if (is(f, n, "pci")) {
		s->where = COM_AT_PCI;
		return NULL;
	}
	if (prefix(f, n, "pci@")) {
		s->where = COM_AT_PCI;
		s->pci_bdf = true;
		return parse_bdf(f + 4, n - 4, s) ? NULL : "bad PCI address (bus:dev.fn)";
	}
	bool m32 = prefix(f, n, "mmio32@");
	if (m32 || prefix(f, n, "mmio@")) {
		size_t skip = m32 ? 7 : 5;
		if (!parse_u64_n(f + skip, n - skip, &v) || !v)
			return "bad MMIO address";
		s->where = COM_AT_MMIO;
		s->addr = v;
		s->reg_shift = m32 ? 2 : 0;
		s->reg_width = m32 ? 4 : 1;
		return NULL;
	}
	if (!parse_u64_n(f, n, &v) || !v || v > 0xfff8)
		return "bad I/O port";
	s->where = COM_AT_IO;
	s->addr = v;
	return NULL;
}

const char *com_spec_parse(const char *s, struct com_spec *out)
{
	struct com_spec c = {.lcr = 0x03, .reg_width = 1};
	const char *p = s;
	size_t n;
	const char *f = field(&p, &n);
	uint64_t baud;
	if (is(f, n, "auto"))
		c.baud = 0;
	else if (parse_u64_n(f, n, &baud) && baud >= 50 && baud <= 115200)
		c.baud = (uint32_t)baud;
	else
		return "bad baud rate";
	if (*p) {
		f = field(&p, &n);
		/* The DPS field may be left empty (`115200,,0x2f8`), as Xen allows. */
		if (n && !parse_dps(f, n, &c.lcr)) {
			/* No DPS: this field is already the port. */
			const char *err = parse_where(f, n, &c);
			if (err)
				return err;
			goto rest;
		}
	}
	if (*p) {
		f = field(&p, &n);
		const char *err = parse_where(f, n, &c);
		if (err)
			return err;
	}
rest:
	if (*p)
		return "unexpected fields after the port";
	*out = c;
	return NULL;
}

const char *console_sinks_parse(const char *s, unsigned *mask)
{
	unsigned m = 0;
	const char *p = s;
	while (*p) {
		size_t n;
		const char *f = field(&p, &n);
		if (is(f, n, "com1"))
			m |= CONSOLE_SINK_COM1;
		else if (is(f, n, "vga"))
			m |= CONSOLE_SINK_VGA;
		else if (!is(f, n, "none"))
			return "unknown console (com1, vga or none)";
	}
	*mask = m;
	return NULL;
}
