/* hostile, state that is the vCPU's own: the debug registers (an execute breakpoint and a
 * single step fire here; breakpoints and DR0-3/DR7 stay in their domain across yields) and
 * the SSE registers (xmm3 kept across yields). */
#include "guests/hostile/hostile.h"
#include "guests/lib/hcinsn.h"
#include "lib/fmt.h"
#include "lib/string.h"

static volatile int db_hits;
static volatile uint32_t db_eip, db_dr6;

/* #DB: where and why (DR6, read through sliver's MOV DR exit). Stops what raised it: DR7
 * disarmed (an instruction breakpoint is a fault and would fire again) and TF cleared. */
static void on_db(struct rt_frame *f)
{
	uint32_t dr6;
	__asm__ volatile("mov %%dr6, %0" : "=r"(dr6));
	db_hits++;
	db_eip = f->eip;
	db_dr6 = dr6;
	f->eflags &= ~(1u << 8);
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u));
	__asm__ volatile("mov %0, %%dr6" : : "r"(0xffff0ff0u));
}

__attribute__((noinline)) static int bp_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* Called by every hostile domain (all load at the same addresses): armed in the even ones. */
__attribute__((noinline)) static int bp_victim(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 2;
}

static uint32_t rd_dr(unsigned n)
{
	uint32_t v = 0;
	switch (n) {
	case 0:
		__asm__ volatile("mov %%dr0, %0" : "=r"(v));
		break;
	case 1:
		__asm__ volatile("mov %%dr1, %0" : "=r"(v));
		break;
	case 2:
		__asm__ volatile("mov %%dr2, %0" : "=r"(v));
		break;
	case 3:
		__asm__ volatile("mov %%dr3, %0" : "=r"(v));
		break;
	case 7:
		__asm__ volatile("mov %%dr7, %0" : "=r"(v));
		break;
	default:
		break;
	}
	return v;
}

/* Debug registers are the guest's own (docs/vmx.md, docs/svm.md "debug registers"): an
 * execute breakpoint on our code fires here, as a fault at the target with DR6.B0, and
 * single-stepping over CPUID (which sliver emulates) gives the trap after it with DR6.BS
 * (SDM Vol. 3B 18.3.1.4). QEMU TCG before 9.1 never arms the DR7 that VMRUN loads
 * (docs/svm.md, QEMU bugs): there the breakpoint may not fire, but DR7 still reads back. */
static bool bp_may_not_fire(void)
{
	/* guests/lib/cpu.h's on_qemu_tcg (its inb/outb clash with this file's). */
	uint32_t a = 0x40000001u, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return b == 0x54474354u && c == 0x43544743u && d == 0x47435447u;
}

void try_debug_regs(void)
{
	rt_irq_register(1, on_db);
	db_hits = 0;
	__asm__ volatile("mov %0, %%dr6" : : "r"(0xffff0ff0u));
	__asm__ volatile("mov %0, %%dr0" : : "r"((uint32_t)(uintptr_t)bp_target));
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x401u)); /* L0, execute, 1 byte */
	uint32_t dr7 = rd_dr(7);
	bp_target(1);
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u));
	char got[64];
	fmt_snprintf(got, sizeof got, "%d #DB at %s, DR6 %x, DR7 reads %x", db_hits,
		     db_eip == (uint32_t)(uintptr_t)bp_target ? "target" : "elsewhere", db_dr6,
		     dr7);
	verdict("DR0/DR7 execute breakpoint", got,
		dr7 == 0x401 && ((db_hits == 1 && db_eip == (uint32_t)(uintptr_t)bp_target &&
				  db_dr6 == 0xffff0ff1u) ||
				 (db_hits == 0 && bp_may_not_fire())));

	/* POPF sets TF: the trap comes after the next instruction, CPUID (an exit). The two
	 * CPUIDs before it put the vCPU on core's quick path (docs/vmx.md, item 4), so the
	 * stepped one's #DB is raised and delivered inside the backend's loop. */
	db_hits = 0;
	uint32_t after = 0, leaf = 0, sub = 0;
	__asm__ volatile("cpuid\n\t"
			 "xor %%eax, %%eax\n\t"
			 "cpuid\n\t"
			 "xor %%eax, %%eax\n\t"
			 "xor %%ecx, %%ecx\n\t"
			 "pushf\n\t"
			 "orl $0x100, (%%esp)\n\t"
			 "popf\n\t"
			 "cpuid\n\t"
			 "1: movl $1b, %0"
			 : "=m"(after), "+a"(leaf), "+c"(sub)
			 :
			 : "ebx", "edx", "memory", "cc");
	fmt_snprintf(got, sizeof got, "%d #DB %s, DR6 %x", db_hits,
		     db_eip == after ? "right after it" : "elsewhere", db_dr6);
	verdict("single-step over CPUID (emulated)", got,
		db_hits == 1 && db_eip == after && db_dr6 == 0xffff4ff0u);
}

/* Breakpoints stay in their domain: the even domains arm an execute breakpoint on
 * bp_victim (DR0) and tag DR1-DR3 with their id, the odd ones call bp_victim and tag
 * theirs, 40 times across yields (d2 and d3 share pCPU 0; the others are placed by the
 * scheduler). No #DB may reach an odd domain, every domain reads its own DR0-DR3 and DR7
 * back after each switch, and at the end an even domain's breakpoint still fires. */
void try_debug_isolation(const struct sliver_boot_info *bi)
{
	bool armer = !(bi->dom_id & 1);
	uint32_t want[4] = {armer ? (uint32_t)(uintptr_t)bp_victim : 0x1000u * bi->dom_id,
			    0x11110000u | bi->dom_id, 0x22220000u | bi->dom_id,
			    0x33330000u | bi->dom_id};
	uint32_t want7 = armer ? 0x402u : 0x400u; /* G0: execute, 1 byte */
	__asm__ volatile("mov %0, %%dr0" : : "r"(want[0]));
	__asm__ volatile("mov %0, %%dr1" : : "r"(want[1]));
	__asm__ volatile("mov %0, %%dr2" : : "r"(want[2]));
	__asm__ volatile("mov %0, %%dr3" : : "r"(want[3]));
	__asm__ volatile("mov %0, %%dr7" : : "r"(want7));
	db_hits = 0;
	bool same = true;
	int x = 0;
	for (int i = 0; i < 40 && same && !db_hits; i++) {
		hc_yield();
		rt_spin_us(100);
		if (!armer)
			x = bp_victim(x);
		for (unsigned n = 0; n < 4; n++)
			same = same && rd_dr(n) == want[n];
		same = same && rd_dr(7) == want7;
	}
	int stray = db_hits;
	char got[64];
	if (armer) {
		bp_victim(0);
		fmt_snprintf(got, sizeof got, "%s, %d #DB at the end",
			     same ? "own DR0-3/DR7" : "DRs changed", db_hits - stray);
		verdict("breakpoint kept across 40 yields", got,
			same && !stray &&
				((db_hits == 1 && db_eip == (uint32_t)(uintptr_t)bp_victim) ||
				 (db_hits == 0 && bp_may_not_fire())));
	} else {
		fmt_snprintf(got, sizeof got, "%s, %d #DB", same ? "own DR0-3/DR7" : "DRs changed",
			     stray);
		verdict("other domains' breakpoints across 40 yields", got, same && !stray);
	}
	__asm__ volatile("mov %0, %%dr7" : : "r"(0x400u));
}

/* SSE registers are per vCPU: a pattern in xmm3 must survive being switched out while
 * other domains (the other hostile guests do the same) run on the pCPU. */
void try_fpu(const struct sliver_boot_info *bi)
{
	uint32_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	__asm__ volatile("mov %0, %%cr4" : : "r"(cr4 | (1u << 9)) : "memory"); /* OSFXSR */
	uint32_t pat[4] = {bi->dom_id * 0x01010101u, 0x5a5a0000u | bi->dom_id, ~bi->dom_id,
			   0x12345678u};
	uint32_t got[4];
	__asm__ volatile("movdqu %0, %%xmm3" : : "m"(pat));
	bool same = true;
	for (int i = 0; i < 40 && same; i++) {
		hc_yield();
		rt_spin_us(100);
		__asm__ volatile("movdqu %%xmm3, %0" : "=m"(got));
		same = !memcmp(got, pat, sizeof pat);
	}
	verdict("xmm3 kept across 40 yields", same ? "same" : "changed", same);
}
