/* The guest's instruction at CS:RIP, fetched through its own paging (insn_fetch.h): for
 * the exits that must decode what the guest ran (the xAPIC page, vlapic_regs.c). */
#include "core/insn_fetch.h"
#include "core/gwalk.h"
#include "core/insn_mov.h"
#include "core/vmm.h"
#include "lib/fmt.h"

static const void *guest_mem(void *ctx, uint64_t gpa, uint64_t len)
{
	return hv_space_ptr(ctx, gpa, len);
}

int insn_fetch(struct vcpu *v, uint8_t *buf, bool *long64, char *why, size_t wl)
{
	struct hv_state st;
	hv_read_state(v->hv, &st);
	struct gwalk_regs r = {hv_read_cr(v->hv, 0), hv_read_cr(v->hv, 3), hv_read_cr(v->hv, 4),
			       hv_read_efer(v->hv)};
	unsigned bits = st.code_bits ? st.code_bits : hv_guest_long_mode(v->hv) ? 64 : 32;
	*long64 = bits == 64;
	if (bits == 16) {
		fmt_snprintf(why, wl, "16-bit code is not emulated");
		return -1;
	}
	uint64_t la = st.rip + (*long64 ? 0 : st.cs_base);
	if (!*long64)
		la = (uint32_t)la;
	int n = 0;
	while (n < INSN_MAX_LEN) {
		uint64_t gpa, here = la + (uint64_t)n;
		unsigned level;
		enum gwalk_result res = gwalk(&r, *long64 ? here : (uint32_t)here, guest_mem,
					      v->dom->space, &gpa, &level);
		unsigned chunk = 0x1000 - (unsigned)(here & 0xfff);
		if (chunk > (unsigned)(INSN_MAX_LEN - n))
			chunk = (unsigned)(INSN_MAX_LEN - n);
		const uint8_t *p = res == GWALK_OK ? hv_space_ptr(v->dom->space, gpa, chunk) : NULL;
		if (!p) {
			if (n)
				return n; /* the decoder says whether it needed more */
			fmt_snprintf(why, wl, "instruction fetch at 0x%lx: %s (level %u)",
				     (unsigned long)here,
				     res == GWALK_OK ? "not guest memory" : gwalk_result_name(res),
				     level);
			return -1;
		}
		for (unsigned i = 0; i < chunk; i++)
			buf[n++] = p[i];
	}
	return n;
}

void insn_hex(const uint8_t *b, int n, char out[INSN_HEX_LEN])
{
	unsigned k = 0;
	out[0] = '\0';
	for (int i = 0; i < n && i < 8; i++)
		k += (unsigned)fmt_snprintf(out + k, INSN_HEX_LEN - k, "%s%02x", i ? " " : "",
					    b[i]);
}
