/* Architectural MSR numbers, named as in the Intel SDM Vol. 4 (IA32_*) and, for the
 * long-mode MSRs both vendors share, AMD APM Vol. 2 appendix A. Vendor MSRs of one
 * virtualization extension stay in its backend (vmx/vmx_defs.h: IA32_VMX_*,
 * IA32_FEATURE_CONTROL; svm/: VM_CR, VM_HSAVE_PA). Not for the boot assembly (boot/boot.h
 * has its own, without C suffixes). */
#ifndef ARCH_X86_64_MSR_H
#define ARCH_X86_64_MSR_H

#define MSR_IA32_TSC	       0x10
#define MSR_IA32_APIC_BASE     0x1b
#define MSR_IA32_TSC_ADJUST    0x3b
#define MSR_IA32_BIOS_SIGN_ID  0x8b /* microcode update signature (SDM Vol. 4 2-2) */
#define MSR_IA32_MTRRCAP       0xfe
#define MSR_IA32_SYSENTER_CS   0x174
#define MSR_IA32_MCG_CAP       0x179
#define MSR_IA32_MCG_STATUS    0x17a
#define MSR_IA32_SYSENTER_ESP  0x175
#define MSR_IA32_SYSENTER_EIP  0x176
#define MSR_IA32_MISC_ENABLE   0x1a0
#define MSR_IA32_PAT	       0x277
#define MSR_IA32_MTRR_DEF_TYPE 0x2ff
#define MSR_IA32_TSC_DEADLINE  0x6e0
#define MSR_IA32_EFER	       0xc0000080
/* AMD's legacy performance counters, PerfEvtSel0-3 and PerfCtr0-3 (APM Vol. 2 13.2.1): present
 * on every AMD64 processor, whatever CPUID says. */
#define MSR_K7_EVNTSEL0	       0xc0010000
#define MSR_K7_PERFCTR3	       0xc0010007
#define MSR_K8_INT_PENDING_MSG 0xc0010055 /* AMD: interrupt pending / C1E on CMP halt */
#define MSR_STAR	       0xc0000081
#define MSR_LSTAR	       0xc0000082
#define MSR_CSTAR	       0xc0000083
#define MSR_SFMASK	       0xc0000084
#define MSR_FS_BASE	       0xc0000100
#define MSR_GS_BASE	       0xc0000101
#define MSR_KERNEL_GS_BASE     0xc0000102

#endif
