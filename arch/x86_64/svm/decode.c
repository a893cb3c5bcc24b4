/* The exiting instruction, for CPUs without NRIP save and decode assists (QEMU's SVM,
 * APM 15.7.1, 15.33): its bytes are read from guest memory at CS.base + RIP through the
 * guest's own page tables (none, 32-bit, PAE or 4-level, SDM Vol. 3A 4.3-4.5) and guest-
 * physical memory (hv_space_ptr), one translation for the bytes in RIP's page, then legacy
 * prefixes, REX (64-bit code only) and the few opcodes that exit with an instruction to complete
 * are decoded: enough for the length and, for MOV CR/DR, CLTS and LMSW, the operands. Anything else
 * fails: the domain is crashed with a dump rather than resumed at a guessed RIP. */
#include "arch/x86_64/svm/svm.h"

#define PTE_P  1ull
#define PTE_PS (1ull << 7)
#define ADDR52 0x000ffffffffff000ull

static const uint64_t *entry(struct svm_vcpu *s, uint64_t pa)
{
	return hv_space_ptr(s->space, pa, 8);
}

/* Guest-linear to guest-physical, or false (not present / outside memory). */
bool svm_translate(struct svm_vcpu *s, uint64_t la, uint64_t *gpa)
{
	uint64_t cr3 = s->vmcb->cr3;
	if (!(s->cr0 & CR0_PG)) {
		*gpa = (uint32_t)la;
		return true;
	}
	if (s->efer & EFER_LMA) {
		uint64_t t = cr3 & ADDR52;
		for (int level = 3; level >= 0; level--) {
			const uint64_t *e = entry(s, t + 8 * ((la >> (12 + 9 * level)) & 511));
			if (!e || !(*e & PTE_P))
				return false;
			if (level > 0 && level < 3 && (*e & PTE_PS)) {
				uint64_t size = 1ull << (12 + 9 * level);
				*gpa = (*e & ADDR52 & ~(size - 1)) | (la & (size - 1));
				return true;
			}
			t = *e & ADDR52;
		}
		*gpa = t | (la & 0xfff);
		return true;
	}
	la = (uint32_t)la;
	if (s->cr4 & CR4_PAE) {
		const uint64_t *e = entry(s, (cr3 & 0xffffffe0ull) + 8 * (la >> 30));
		if (!e || !(*e & PTE_P))
			return false;
		uint64_t t = *e & ADDR52;
		for (int level = 1; level >= 0; level--) {
			e = entry(s, t + 8 * ((la >> (12 + 9 * level)) & 511));
			if (!e || !(*e & PTE_P))
				return false;
			if (level == 1 && (*e & PTE_PS)) {
				*gpa = (*e & ADDR52 & ~0x1fffffull) | (la & 0x1fffff);
				return true;
			}
			t = *e & ADDR52;
		}
		*gpa = t | (la & 0xfff);
		return true;
	}
	const uint32_t *pde = hv_space_ptr(s->space, (cr3 & 0xfffff000u) + 4 * (la >> 22), 4);
	if (!pde || !(*pde & PTE_P))
		return false;
	if ((*pde & PTE_PS) && (s->cr4 & CR4_PSE)) {
		*gpa = (*pde & 0xffc00000u) | (la & 0x3fffff);
		return true;
	}
	const uint32_t *pte =
		hv_space_ptr(s->space, (*pde & 0xfffff000u) + 4 * ((la >> 12) & 1023), 4);
	if (!pte || !(*pte & PTE_P))
		return false;
	*gpa = (*pte & 0xfffff000u) | (la & 0xfff);
	return true;
}

/* The exiting instruction's bytes: those of the page RIP is in, read in place (one
 * translation), then byte by byte across a page boundary (fetch). */
struct window {
	struct svm_vcpu *s;
	uint64_t la; /* the linear address of byte 0 */
	bool long64;
	const uint8_t *p;
	unsigned n; /* bytes readable at p */
};

/* Byte `off` of the exiting instruction, from beyond the first page. */
static bool fetch(const struct window *w, unsigned off, uint8_t *byte)
{
	uint64_t la = w->la + off, gpa;
	if (!w->long64)
		la = (uint32_t)la;
	if (!svm_translate(w->s, la, &gpa))
		return false;
	const uint8_t *p = hv_space_ptr(w->s->space, gpa, 1);
	if (!p)
		return false;
	*byte = *p;
	return true;
}

static inline bool byte_at(const struct window *w, unsigned off, uint8_t *byte)
{
	if (off < w->n) {
		*byte = w->p[off];
		return true;
	}
	return fetch(w, off, byte);
}

static void window_open(struct window *w, struct svm_vcpu *s)
{
	w->s = s;
	w->long64 = svm_in_64bit_code(s);
	w->la = s->vmcb->rip + (w->long64 ? 0 : s->vmcb->cs.base);
	if (!w->long64)
		w->la = (uint32_t)w->la;
	w->n = 0;
	uint64_t gpa = (uint32_t)w->la; /* paging off (translate's first case, inline) */
	unsigned in_page = 4096 - (unsigned)(w->la & 0xfff);
	unsigned n = in_page < 15 ? in_page : 15;
	if (((s->cr0 & CR0_PG) && !svm_translate(s, w->la, &gpa)) ||
	    !(w->p = hv_space_ptr(s->space, gpa, n)))
		return; /* every byte through fetch, which then fails where it should */
	w->n = n;
}

bool svm_fetch_decode(struct svm_vcpu *s, struct svm_insn *in, const char **why)
{
	*in = (struct svm_insn){0};
	struct window w;
	window_open(&w, s);
	unsigned i = 0;
	uint8_t c;
	*why = "cannot read the exiting instruction";
	/* Legacy prefixes, then REX (64-bit code only: it must come last). */
	for (;; i++) {
		if (i >= 14) {
			*why = "instruction longer than 15 bytes";
			return false;
		}
		if (!byte_at(&w, i, &c))
			return false;
		if (w.long64 && (c & 0xf0) == 0x40) {
			in->rex_r = c & 4;
			in->rex_b = c & 1;
			continue;
		}
		if (c == 0xf0)
			in->lock = true;
		else if (c == 0xf3 || c == 0xf2)
			in->rep = c == 0xf3;
		else if (c != 0x66 && c != 0x67 && c != 0x2e && c != 0x36 && c != 0x3e &&
			 c != 0x26 && c != 0x64 && c != 0x65)
			break;
		in->rex_r = in->rex_b = false; /* a REX not right before the opcode is ignored */
	}
	in->op[0] = c;
	in->nop = 1;
	if (c == 0x0f) {
		if (!byte_at(&w, i + 1, &in->op[1]))
			return false;
		in->nop = 2;
		uint8_t o = in->op[1];
		if (o == 0x01 || (o >= 0x20 && o <= 0x23)) {
			if (!byte_at(&w, i + 2, &in->modrm))
				return false;
			in->op[2] = in->modrm;
			in->nop = 3;
			if (o == 0x01 && (in->modrm >> 6) != 3 && ((in->modrm >> 3) & 7) >= 4) {
				*why = "memory operand (LMSW/SMSW m16) is not emulated";
				return false;
			}
		}
	}
	in->len = (uint8_t)(i + in->nop);
	return true;
}
