/* VM entry and exit (SDM Vol. 3C 26, 27.5), inline in vmx_vcpu_run (run.c, its only user):
 * the compiler saves the host's callee-saved registers in that function's own prologue, so
 * the entry has no call, no return and no second save of most of them. vmx_enter pushes
 * RBP (the frame pointer, which an asm cannot list as clobbered), RBX and R12 (where the
 * compiler keeps the vCPU and the exit record across the entry instead of reloading them
 * from the stack) and the gprs block, records RSP as
 * HOST_RSP (a VMWRITE only when it differs from *host_rsp, the value last written: the same
 * call path reaches here with the same RSP exit after exit; KVM: vmx_update_host_rsp),
 * loads the guest's general registers and executes VMRESUME (or VMLAUNCH the first time).
 * The exit lands at vmx_exit_entry (HOST_RIP) with RSP = HOST_RSP, stores the guest
 * registers and leaves the asm with 0; a failed VMLAUNCH/VMRESUME (or VMWRITE of HOST_RSP)
 * leaves it with 1. The label is global, so this expands once in the kernel. */
#ifndef ARCH_X86_64_VMX_ENTER_H
#define ARCH_X86_64_VMX_ENTER_H

#include "arch/x86_64/gprs_asm.h"
#include "arch/x86_64/vmx/vmx.h"

static inline __attribute__((always_inline)) int vmx_enter(struct vmx_gprs *g, bool launched,
							   uint64_t *host_rsp)
{
	uint64_t failed, l = launched;
	__asm__ volatile("push %%rbp\n\t"
			 "push %%rbx\n\t"
			 "push %%r12\n\t"
			 "push %%rdi\n\t" /* the gprs block, at 0(%%rsp) when the exit lands */
			 "cmp %%rsp, (%%rdx)\n\t"
			 "je 1f\n\t"
			 "mov $0x6c14, %%eax\n\t" /* VMCS_HOST_RSP */
			 "vmwrite %%rsp, %%rax\n\t"
			 "jbe 3f\n\t"
			 "mov %%rsp, (%%rdx)\n"
			 "1:\n\t"
			 "test %%esi, %%esi\n\t" /* the flags survive the moves below */
			 "mov 0(%%rdi), %%rax\n\t" GPRS_LOAD_FROM_RDI "mov 56(%%rdi), %%rdi\n\t"
			 "jz 2f\n\t"
			 "vmresume\n\t"
			 "jmp 3f\n"
			 "2:\n\t"
			 "vmlaunch\n"
			 "3:\n\t" /* VMfailInvalid / VMfailValid: still the host */
			 "pop %%rdi\n\t"
			 "pop %%r12\n\t"
			 "pop %%rbx\n\t"
			 "pop %%rbp\n\t"
			 "mov $1, %%eax\n\t"
			 "jmp 4f\n"
			 ".global vmx_exit_entry\n"
			 "vmx_exit_entry:\n\t"
			 "push %%rdi\n\t"
			 "mov 8(%%rsp), %%rdi\n\t"
			 "mov %%rax, 0(%%rdi)\n\t" GPRS_STORE_TO_RDI "pop %%rax\n\t"
			 "mov %%rax, 56(%%rdi)\n\t"
			 "pop %%rdi\n\t"
			 "pop %%r12\n\t"
			 "pop %%rbx\n\t"
			 "pop %%rbp\n\t"
			 "xor %%eax, %%eax\n"
			 "4:"
			 : "=a"(failed), "+D"(g), "+S"(l), "+d"(host_rsp)
			 :
			 : "rcx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "memory",
			   "cc");
	return (int)failed;
}

#endif
