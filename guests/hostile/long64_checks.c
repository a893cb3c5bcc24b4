/* hostile, the verdicts on the 64-bit part (long64.S, entered from 32-bit mode): MOV CR8 as
 * a virtual TPR, SYSCALL/SYSRETQ through this vCPU's STAR/LSTAR/SFMASK, SWAPGS with its
 * own KERNEL_GS_BASE across yields, and leaving long mode the wrong way (#GP). */
#include "guests/hostile/hostile.h"
#include "guests/hostile/long64.h"
#include "lib/fmt.h"
#include "lib/string.h"

/* The 64-bit part (long64.S): MOV CR8 is a virtual TPR, SYSCALL/SYSRET use this vCPU's
 * STAR/LSTAR/SFMASK, SWAPGS this vCPU's KERNEL_GS_BASE across yields to other domains,
 * and leaving long mode the wrong way is #GP. */
void try_long64(const struct sliver_boot_info *bi, bool hold)
{
	static struct l64_result r;
	memset(&r, 0, sizeof r);
	r.kgs_pattern = 0xffff800000000000ull | ((uint64_t)bi->dom_id << 24) | 0x5a5au;
	r.hold_cr8 = hold;
	hostile64(&r);
	char got[64];
	verdict("64-bit part ran to its end", r.done == 0x64 ? "yes" : "no", r.done == 0x64);
	fmt_snprintf(got, sizeof got, "%llu", (unsigned long long)r.cr8_read);
	verdict("mov $15 to CR8, read back", got, r.cr8_read == 15);
	fmt_snprintf(got, sizeof got, "%llu/%llu/%llu ticks", (unsigned long long)r.ticks_tpr15,
		     (unsigned long long)r.ticks_tpr2, (unsigned long long)r.ticks_tpr1);
	verdict("timer vector 0x20 with TPR 15/2/1", got,
		r.ticks_tpr15 == 0 && r.ticks_tpr2 == 0 && r.ticks_tpr1 == 1);
	expect_vec("mov $16 to CR8 (reserved bits)", (int)r.cr8_16_vec, 13);
	expect_vec("syscall with EFER.SCE=0", (int)r.sc_ud_vec, 6);
	fmt_snprintf(got, sizeof got, "%llx", (unsigned long long)r.lstar_read);
	verdict("wrmsr/rdmsr LSTAR", got, r.lstar_read == (uintptr_t)l64_syscall_entry);
	fmt_snprintf(got, sizeof got, "rcx %s, r11=%llx rflags=%llx cs=%llx",
		     r.sc_rcx == r.sc_want_rcx ? "right" : "wrong", (unsigned long long)r.sc_r11,
		     (unsigned long long)r.sc_rflags, (unsigned long long)r.sc_cs);
	verdict("syscall lands at LSTAR", got,
		r.sc_rcx == r.sc_want_rcx && (r.sc_r11 & 0x600) == 0x600 &&
			!(r.sc_rflags & 0x600) && r.sc_cs == 0x18);
	fmt_snprintf(got, sizeof got, "cs=%llx", (unsigned long long)r.ring3_cs);
	verdict("sysretq to ring 3", got, r.ring3_cs == 0x3b);
	fmt_snprintf(got, sizeof got, "%llu of %llu rounds wrong", (unsigned long long)r.kgs_bad,
		     (unsigned long long)r.kgs_rounds);
	verdict("swapgs sees own KERNEL_GS_BASE across yields", got,
		r.kgs_bad == 0 && r.kgs_rounds == 200);
	expect_vec("clear CR0.PG in 64-bit code", (int)r.pg_clear_vec, 13);
	expect_vec("clear EFER.LME with paging on", (int)r.lme_clear_vec, 13);
	expect_vec("clear CR4.PAE in long mode", (int)r.pae_clear_vec, 13);
	expect_vec("set CR4.PCIDE (PCID hidden)", (int)r.pcide_vec, 13);
}
