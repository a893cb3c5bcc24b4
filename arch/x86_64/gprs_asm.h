/* The guest's general registers as both backends' entry code moves them (svm/enter.h,
 * vmx/enter.h): from and to the block at RDI, laid out in SDM register order, 8 bytes each
 * (HV_RAX = 0 ... HV_R15 = 15, arch/x86_64/hv.h). RAX, RSP and RDI are not here: RSP lives
 * in the VMCS/VMCB, RAX in the VMCB on SVM and first on VMX, and RDI holds the block's
 * address until last. Strings for an extended asm (`%%` for `%`). */
#ifndef ARCH_X86_64_GPRS_ASM_H
#define ARCH_X86_64_GPRS_ASM_H

/* RCX, RDX, RBX, RBP, RSI, R8-R15 from the block at RDI. */
#define GPRS_LOAD_FROM_RDI                                                                         \
	"mov 8(%%rdi), %%rcx\n\t"                                                                  \
	"mov 16(%%rdi), %%rdx\n\t"                                                                 \
	"mov 24(%%rdi), %%rbx\n\t"                                                                 \
	"mov 40(%%rdi), %%rbp\n\t"                                                                 \
	"mov 48(%%rdi), %%rsi\n\t"                                                                 \
	"mov 64(%%rdi), %%r8\n\t"                                                                  \
	"mov 72(%%rdi), %%r9\n\t"                                                                  \
	"mov 80(%%rdi), %%r10\n\t"                                                                 \
	"mov 88(%%rdi), %%r11\n\t"                                                                 \
	"mov 96(%%rdi), %%r12\n\t"                                                                 \
	"mov 104(%%rdi), %%r13\n\t"                                                                \
	"mov 112(%%rdi), %%r14\n\t"                                                                \
	"mov 120(%%rdi), %%r15\n\t"

/* RCX, RDX, RBX, RBP, RSI, R8-R15 into the block at RDI. */
#define GPRS_STORE_TO_RDI                                                                          \
	"mov %%rcx, 8(%%rdi)\n\t"                                                                  \
	"mov %%rdx, 16(%%rdi)\n\t"                                                                 \
	"mov %%rbx, 24(%%rdi)\n\t"                                                                 \
	"mov %%rbp, 40(%%rdi)\n\t"                                                                 \
	"mov %%rsi, 48(%%rdi)\n\t"                                                                 \
	"mov %%r8, 64(%%rdi)\n\t"                                                                  \
	"mov %%r9, 72(%%rdi)\n\t"                                                                  \
	"mov %%r10, 80(%%rdi)\n\t"                                                                 \
	"mov %%r11, 88(%%rdi)\n\t"                                                                 \
	"mov %%r12, 96(%%rdi)\n\t"                                                                 \
	"mov %%r13, 104(%%rdi)\n\t"                                                                \
	"mov %%r14, 112(%%rdi)\n\t"                                                                \
	"mov %%r15, 120(%%rdi)\n\t"

#endif
