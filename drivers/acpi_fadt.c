/* The FADT (ACPI 6.5, 5.2.9) and \_S5 (7.4.2): what power-off, reset and the PM timer need,
 * read from the shapes real firmware ships. Pure: every field is read only when the
 * table's length covers it (fields were added by revision: 1.0 ends at 116 bytes, 2.0 adds
 * the reset register and the X_ blocks, 5.0 the sleep registers of hardware-reduced ACPI). */
#include "drivers/acpi_tables.h"
#include "lib/le.h"
#include "lib/string.h"

/* FADT offsets (table 5.9). */
enum {
	FADT_DSDT = 40,
	FADT_SMI_CMD = 48,
	FADT_ACPI_ENABLE = 52,
	FADT_PM1A_CNT = 64,
	FADT_PM1B_CNT = 68,
	FADT_PM_TMR = 76,
	FADT_PM1_CNT_LEN = 89,
	FADT_PM_TMR_LEN = 91,
	FADT_BOOT_ARCH = 109,
	FADT_FLAGS = 112,
	FADT_RESET_REG = 116,
	FADT_RESET_VALUE = 128,
	FADT_X_DSDT = 140,
	FADT_X_PM1A_CNT = 172,
	FADT_X_PM1B_CNT = 184,
	FADT_X_PM_TMR = 208,
	FADT_SLEEP_CONTROL = 244,
	FADT_SLEEP_STATUS = 256,
};
#define GAS_LEN 12

static struct acpi_gas gas_at(const uint8_t *p)
{
	return (struct acpi_gas){p[0], p[1], p[2], p[3], le64(p + 4)};
}

/* A 32-bit block (I/O port) as a GAS of `bytes` bytes. */
static struct acpi_gas io_block(uint32_t port, unsigned bytes)
{
	uint8_t access = bytes >= 4 ? 3 : bytes == 2 ? 2 : 1;
	return (struct acpi_gas){ACPI_GAS_IO, (uint8_t)(8 * bytes), 0, access, port};
}

/* ACPI 6.5 5.2.9: the 64-bit X_ field is used when it is there and its address non-zero,
 * else the 32-bit block (firmware ships both, or only one of them). */
static struct acpi_gas pick(const uint8_t *p, uint32_t n, unsigned x_off, unsigned off32,
			    unsigned bytes)
{
	if (n >= x_off + GAS_LEN) {
		struct acpi_gas g = gas_at(p + x_off);
		if (g.addr)
			return g;
	}
	uint32_t port = n >= off32 + 4 ? le32(p + off32) : 0;
	return port ? io_block(port, bytes) : (struct acpi_gas){0};
}

bool acpi_parse_fadt(struct acpi_power *pw, const uint8_t *p, size_t len)
{
	uint32_t n = acpi_table_length(p, len);
	if (n < ACPI_FADT_MIN_LEN || n > len)
		return false;
	pw->have_fadt = true;
	pw->smi_cmd = le32(p + FADT_SMI_CMD);
	pw->acpi_enable = p[FADT_ACPI_ENABLE];
	uint8_t cnt_len = n > FADT_PM1_CNT_LEN ? p[FADT_PM1_CNT_LEN] : 2;
	uint8_t tmr_len = n > FADT_PM_TMR_LEN ? p[FADT_PM_TMR_LEN] : 4;
	pw->pm1a_cnt = pick(p, n, FADT_X_PM1A_CNT, FADT_PM1A_CNT, cnt_len ? cnt_len : 2);
	pw->pm1b_cnt = pick(p, n, FADT_X_PM1B_CNT, FADT_PM1B_CNT, cnt_len ? cnt_len : 2);
	pw->pm_tmr = pick(p, n, FADT_X_PM_TMR, FADT_PM_TMR, tmr_len ? tmr_len : 4);
	pw->flags = n >= FADT_FLAGS + 4 ? le32(p + FADT_FLAGS) : 0;
	pw->boot_arch = n >= FADT_BOOT_ARCH + 2 ? le16(p + FADT_BOOT_ARCH) : 0;
	if (n > FADT_RESET_VALUE) {
		pw->reset = gas_at(p + FADT_RESET_REG);
		pw->reset_value = p[FADT_RESET_VALUE];
	}
	if (n >= FADT_SLEEP_STATUS + GAS_LEN) {
		pw->sleep_ctl = gas_at(p + FADT_SLEEP_CONTROL);
		pw->sleep_sts = gas_at(p + FADT_SLEEP_STATUS);
	}
	pw->dsdt = le32(p + FADT_DSDT);
	if (n >= FADT_X_DSDT + 8 && le64(p + FADT_X_DSDT)) /* X_DSDT (ACPI 2.0+) */
		pw->dsdt = le64(p + FADT_X_DSDT);
	return true;
}

/* One integer data object (20.2.3): Zero, One, Ones, or a Byte/Word/DWord/QWord constant.
 * Returns the bytes used; 0 when it is something else (a name, an expression) or the AML
 * ends first. */
static size_t aml_int(const uint8_t *q, size_t left, uint64_t *v)
{
	static const uint8_t width[] = {[0x0a] = 1, [0x0b] = 2, [0x0c] = 4, [0x0e] = 8};
	if (!left)
		return 0;
	if (q[0] == 0x00 || q[0] == 0x01) {
		*v = q[0];
		return 1;
	}
	if (q[0] == 0xff) {
		*v = ~0ull;
		return 1;
	}
	unsigned w = q[0] < sizeof(width) ? width[q[0]] : 0;
	if (!w || left < 1 + w)
		return 0;
	*v = 0;
	for (unsigned i = 0; i < w; i++)
		*v |= (uint64_t)q[1 + i] << (8 * i);
	return 1 + w;
}

/* PkgLength (20.2.4): lead byte bits 6-7 say how many bytes follow; returns the bytes the
 * encoding takes and the length it gives (counted from its first byte), 0 if truncated. */
static size_t pkg_length(const uint8_t *q, size_t left, size_t *len)
{
	if (!left)
		return 0;
	size_t follow = q[0] >> 6;
	if (left < 1 + follow)
		return 0;
	*len = follow ? q[0] & 0x0f : q[0] & 0x3f;
	for (size_t i = 0; i < follow; i++)
		*len |= (size_t)q[1 + i] << (4 + 8 * i);
	return 1 + follow;
}

/* The package after `_S5_` at q (left bytes): `12 <PkgLength> <NumElements> <elements>`
 * or `13 <PkgLength> <NumElements as a TermArg> <elements>` (VarPackage). */
static bool s5_package(struct acpi_power *pw, const uint8_t *q, size_t left)
{
	if (left < 2 || (q[0] != 0x12 && q[0] != 0x13))
		return false;
	size_t plen, i = 1, used = pkg_length(q + 1, left - 1, &plen);
	if (!used || plen > left - 1)
		return false;
	left = 1 + plen; /* the package's own end */
	i += used;
	if (i >= left)
		return false; /* a PkgLength shorter than itself */
	uint64_t count;
	if (q[0] == 0x12) {
		count = q[i++];
	} else {
		size_t u = aml_int(q + i, left - i, &count);
		if (!u)
			return false;
		i += u;
	}
	if (!count)
		return false;
	uint64_t v[2] = {0, 0};
	for (unsigned k = 0; k < 2 && k < count; k++) {
		size_t u = i < left ? aml_int(q + i, left - i, &v[k]) : 0;
		if (!u)
			return false;
		i += u;
	}
	if (count == 1) /* one integer: SLP_TYPa in bits 0-7, SLP_TYPb in bits 8-15 */
		v[1] = v[0] >> 8;
	pw->slp_typ_a = v[0] & 7; /* SLP_TYPx is 3 bits of PM1_CNT (4.8.3.2.1) */
	pw->slp_typ_b = v[1] & 7;
	return true;
}

bool acpi_find_s5_ex(struct acpi_power *pw, const uint8_t *p, size_t len, bool *method)
{
	uint32_t n = acpi_table_length(p, len);
	if (!n || n > len)
		return false;
	for (size_t off = ACPI_HEADER_LEN; n - off >= 6; off++) {
		const uint8_t *q = p + off;
		if (memcmp(q, "_S5_", 4))
			continue;
		if (s5_package(pw, q + 4, n - off - 4))
			return true;
		/* `Method (_S5, ...)`: MethodOp 14, PkgLength (1-4 bytes), then the name. */
		for (size_t k = 2; k <= 5 && k <= off - ACPI_HEADER_LEN; k++)
			if (q[-(long)k] == 0x14 && (size_t)((q[1 - (long)k] >> 6) + 2) == k)
				*method = true;
	}
	return false;
}

bool acpi_find_s5(struct acpi_power *pw, const uint8_t *p, size_t len)
{
	bool method = false;
	return acpi_find_s5_ex(pw, p, len, &method);
}

int acpi_poweroff_plan(const struct acpi_power *pw, bool have_s5, const char **why)
{
	if (!pw->have_fadt) {
		*why = "no FADT";
		return ACPI_OFF_NONE;
	}
	if (!have_s5) {
		*why = pw->s5_from == ACPI_S5_METHOD ? "\\_S5 is a method (sliver runs no AML)"
						     : "no \\_S5 in DSDT or SSDTs";
		return ACPI_OFF_NONE;
	}
	if (pw->flags & ACPI_FADT_HW_REDUCED) {
		if (pw->sleep_ctl.addr && pw->sleep_ctl.space <= ACPI_GAS_IO)
			return ACPI_OFF_SLEEP_REG;
		*why = "hardware-reduced FADT without a sleep control register";
		return ACPI_OFF_NONE;
	}
	if (pw->pm1a_cnt.addr && pw->pm1a_cnt.space <= ACPI_GAS_IO)
		return ACPI_OFF_PM1;
	*why = pw->pm1a_cnt.addr ? "PM1a control block in an address space sliver cannot write"
				 : "FADT has no PM1a control block";
	return ACPI_OFF_NONE;
}

int acpi_reset_plan(const struct acpi_power *pw, const char **why)
{
	const struct acpi_gas *r = &pw->reset;
	bool usable = r->addr && !r->bit_offset && r->space <= ACPI_GAS_PCI;
	if ((pw->flags & ACPI_FADT_RESET_REG_SUP) && usable)
		return ACPI_RESET_FADT;
	if (!(pw->flags & ACPI_FADT_HW_REDUCED))
		return ACPI_RESET_CF9; /* the PC's reset control register, then the 8042 */
	if (pw->boot_arch & ACPI_BOOT_ARCH_8042)
		return ACPI_RESET_KBC;
	/* Hardware-reduced, nothing else left: a reset register the firmware filled in
	 * without setting RESET_REG_SUP (Bay Trail tablets: 0xCF9, value 6) is tried. */
	if (usable)
		return ACPI_RESET_FADT;
	*why = "hardware-reduced ACPI with no usable reset register and no 8042";
	return ACPI_RESET_NONE;
}
