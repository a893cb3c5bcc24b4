/* VMRUN (APM Vol. 2 15.5, 15.17, 15.21), inline in svm_vcpu_run (run.c, its only user): the
 * compiler saves the host's callee-saved registers in that function's prologue, so the
 * entry has no call and no second save of most of them. Called with interrupts disabled:
 * push RBP (the frame pointer, which an asm cannot list as clobbered), RBX and R12 (where
 * the compiler keeps the vCPU across the entry) and the three arguments; CLGI, then STI
 * (held by GIF=0 until VMRUN: with V_INTR_MASKING the host's RFLAGS.IF saved by VMRUN is
 * what lets a physical interrupt exit the guest), VMLOAD the guest's FS/GS/TR/LDTR/
 * KERNEL_GS_BASE/STAR.../SYSENTER state (the host's is in the host page, saved once by
 * svm_cpu_init: it never changes), load the guest GPRs (RAX and RSP live in the VMCB),
 * VMRUN. After #VMEXIT (GIF=0, host RSP/RIP/RAX back from the save area): store the guest
 * GPRs, VMSAVE the guest's state, VMLOAD the host's (GS base again the per-CPU block), CLI,
 * STGI: the interrupt that caused the exit stays pending for the caller's window. */
#ifndef ARCH_X86_64_SVM_ENTER_H
#define ARCH_X86_64_SVM_ENTER_H

#include "arch/x86_64/gprs_asm.h"
#include "arch/x86_64/svm/svm.h"

static inline __attribute__((always_inline)) void svm_enter(struct svm_gprs *g, uint64_t vmcb_pa,
							    uint64_t host_vmcb_pa)
{
	__asm__ volatile("push %%rbp\n\t"
			 "push %%rbx\n\t"
			 "push %%r12\n\t"
			 "push %%rdi\n\t" /* 16(%%rsp): the gprs block */
			 "push %%rdx\n\t" /* 8(%%rsp): host VMCB-format page */
			 "push %%rsi\n\t" /* 0(%%rsp): guest VMCB */
			 "clgi\n\t"
			 "sti\n\t"
			 "mov %%rsi, %%rax\n\t"
			 "vmload %%rax\n\t" GPRS_LOAD_FROM_RDI "mov 56(%%rdi), %%rdi\n\t"
			 "vmrun %%rax\n\t"
			 "push %%rdi\n\t" /* the guest's RDI; the gprs block now at 24(%%rsp) */
			 "mov 24(%%rsp), %%rdi\n\t" GPRS_STORE_TO_RDI "pop %%rax\n\t"
			 "mov %%rax, 56(%%rdi)\n\t"
			 "mov 0(%%rsp), %%rax\n\t"
			 "vmsave %%rax\n\t"
			 "mov 8(%%rsp), %%rax\n\t"
			 "vmload %%rax\n\t"
			 "cli\n\t"
			 "stgi\n\t"
			 "add $16, %%rsp\n\t"
			 "pop %%rdi\n\t"
			 "pop %%r12\n\t"
			 "pop %%rbx\n\t"
			 "pop %%rbp"
			 : "+D"(g), "+S"(vmcb_pa), "+d"(host_vmcb_pa)
			 :
			 : "rax", "rcx", "r8", "r9", "r10", "r11", "r13", "r14", "r15", "memory",
			   "cc");
}

#endif
