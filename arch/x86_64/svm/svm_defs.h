/* AMD SVM architectural constants with APM names (AMD64 APM Vol. 2, chapter 15 and
 * appendix B/C): the VMCB layout, intercept bits, EXITCODEs, event-injection format and the
 * SVM MSRs. Private to arch/x86_64/svm. */
#ifndef ARCH_X86_64_SVM_SVM_DEFS_H
#define ARCH_X86_64_SVM_SVM_DEFS_H
#include <stddef.h>
#include <stdint.h>

/* MSRs (APM 15.30). */
#define MSR_VM_CR	0xc0010114u
#define MSR_VM_HSAVE_PA 0xc0010117u
#define VM_CR_SVMDIS	(1ull << 4)

/* CPUID (APM Vol. 3 appendix E). */
#define CPUID_80000001_ECX_SVM			  (1u << 2)
#define CPUID_8000000A_EDX_NP			  (1u << 0)
#define CPUID_8000000A_EDX_NRIPS		  (1u << 3)
#define CPUID_8000000A_EDX_FLUSH_BY_ASID	  (1u << 6)
#define CPUID_8000000A_EDX_DECODE_ASSISTS	  (1u << 7)
#define CPUID_8000000A_EDX_PAUSE_FILTER		  (1u << 10)
#define CPUID_8000000A_EDX_PAUSE_FILTER_THRESHOLD (1u << 12)
#define CPUID_8000000A_EDX_VMCB_CLEAN		  (1u << 5)

/* Intercept vector 3 (VMCB 0x00c) and 4 (0x010), table B-1. */
#define INTERCEPT_INTR	      (1u << 0)
#define INTERCEPT_NMI	      (1u << 1)
#define INTERCEPT_SMI	      (1u << 2)
#define INTERCEPT_VINTR	      (1u << 4)
#define INTERCEPT_RDPMC	      (1u << 15)
#define INTERCEPT_IRET	      (1u << 20)
#define INTERCEPT_CPUID	      (1u << 18)
#define INTERCEPT_INVD	      (1u << 22)
#define INTERCEPT_PAUSE	      (1u << 23)
#define INTERCEPT_HLT	      (1u << 24)
#define INTERCEPT_INVLPGA     (1u << 26)
#define INTERCEPT_IOIO_PROT   (1u << 27)
#define INTERCEPT_MSR_PROT    (1u << 28)
#define INTERCEPT_TASK_SWITCH (1u << 29)
#define INTERCEPT_SHUTDOWN    (1u << 31)
#define INTERCEPT_VMRUN	      (1u << 0)
#define INTERCEPT_VMMCALL     (1u << 1)
#define INTERCEPT_VMLOAD      (1u << 2)
#define INTERCEPT_VMSAVE      (1u << 3)
#define INTERCEPT_STGI	      (1u << 4)
#define INTERCEPT_CLGI	      (1u << 5)
#define INTERCEPT_SKINIT      (1u << 6)
#define INTERCEPT_RDTSCP      (1u << 7)
#define INTERCEPT_WBINVD      (1u << 9)
#define INTERCEPT_MONITOR     (1u << 10)
#define INTERCEPT_MWAIT	      (1u << 11)
#define INTERCEPT_MWAIT_COND  (1u << 12)
#define INTERCEPT_XSETBV      (1u << 13)

/* V_INTR fields (VMCB 0x060). */
#define V_TPR_MASK	  0xffull
#define V_IRQ		  (1ull << 8)
#define V_INTR_PRIO_SHIFT 16
#define V_IGN_TPR	  (1ull << 20)
#define V_INTR_MASKING	  (1ull << 24)
#define INTERRUPT_SHADOW  (1ull << 0)

/* TLB_CONTROL (VMCB 0x05c). */
#define TLB_CONTROL_DO_NOTHING 0
#define TLB_CONTROL_FLUSH_ALL  1
#define TLB_CONTROL_FLUSH_ASID 3

/* EVENTINJ / EXITINTINFO (APM 15.20). */
#define EVENT_VECTOR_MASK 0xffu
#define EVENT_TYPE_SHIFT  8
#define EVENT_TYPE_MASK	  (7u << 8)
#define EVENT_TYPE_INTR	  (0u << 8)
#define EVENT_TYPE_NMI	  (2u << 8)
#define EVENT_TYPE_EXCEPT (3u << 8)
#define EVENT_TYPE_SOFT	  (4u << 8)
#define EVENT_EV	  (1u << 11)
#define EVENT_VALID	  (1u << 31)

/* VMCB clean bits (APM 15.15.3, table 15-9). */
#define CLEAN_I	   (1u << 0) /* intercepts, TSC offset, pause filter */
#define CLEAN_IOPM (1u << 1) /* IOPM_BASE, MSRPM_BASE */
#define CLEAN_ASID (1u << 2)
#define CLEAN_TPR  (1u << 3) /* V_TPR, V_IRQ, V_INTR_* */
#define CLEAN_NP   (1u << 4) /* NP_ENABLE, N_CR3, G_PAT */
#define CLEAN_CRX  (1u << 5) /* CR0, CR3, CR4, EFER */
#define CLEAN_DRX  (1u << 6) /* DR6, DR7 */
#define CLEAN_DT   (1u << 7) /* GDTR, IDTR */
#define CLEAN_SEG  (1u << 8) /* CS, DS, SS, ES, CPL */
#define CLEAN_CR2  (1u << 9)
#define CLEAN_LBR  (1u << 10)
#define CLEAN_ALL  0x7ffu

/* Segment attributes (VMCB format: type, S, DPL, P in 7:0; AVL, L, D/B, G in 11:8). */
#define SEG_ATTR_L  (1u << 9)
#define SEG_ATTR_DB (1u << 10) /* default operand size 32 (D/B of the descriptor) */

/* Nested page-table entries: the long-mode format (APM Vol. 2 5.3). Every level is a user
 * page because nested walks are user accesses (15.25.5). */
#define NPT_P  (1ull << 0)
#define NPT_RW (1ull << 1)
#define NPT_US (1ull << 2)
#define NPT_PS (1ull << 7)

/* NPF EXITINFO1: the #PF error-code format (15.25.6). */
#define NPF_P	  (1ull << 0)
#define NPF_WRITE (1ull << 1)
#define NPF_USER  (1ull << 2)
#define NPF_RSVD  (1ull << 3)
#define NPF_FETCH (1ull << 4)

/* IOIO EXITINFO1 (15.10.2, figure 15-2). */
#define IOIO_TYPE_IN  (1ull << 0)
#define IOIO_STR      (1ull << 2)
#define IOIO_REP      (1ull << 3)
#define IOIO_SZ_SHIFT 4

/* EXITCODEs (appendix C). */
#define VMEXIT_CR0_READ	   0x000
#define VMEXIT_CR8_READ	   0x008
#define VMEXIT_CR0_WRITE   0x010
#define VMEXIT_CR4_WRITE   0x014
#define VMEXIT_CR8_WRITE   0x018
#define VMEXIT_EXCP_DB	   0x041 /* #DB intercepted (EXCP_BASE 0x40 + 1) */
#define VMEXIT_DR0_READ	   0x020
#define VMEXIT_DR0_WRITE   0x030
#define VMEXIT_INTR	   0x060
#define VMEXIT_NMI	   0x061
#define VMEXIT_SMI	   0x062
#define VMEXIT_VINTR	   0x064
#define VMEXIT_RDPMC	   0x06f
#define VMEXIT_CPUID	   0x072
#define VMEXIT_IRET	   0x074
#define VMEXIT_INVD	   0x076
#define VMEXIT_PAUSE	   0x077
#define VMEXIT_HLT	   0x078
#define VMEXIT_INVLPGA	   0x07a
#define VMEXIT_IOIO	   0x07b
#define VMEXIT_MSR	   0x07c
#define VMEXIT_TASK_SWITCH 0x07d
#define VMEXIT_SHUTDOWN	   0x07f
#define VMEXIT_VMRUN	   0x080
#define VMEXIT_VMMCALL	   0x081
#define VMEXIT_VMLOAD	   0x082
#define VMEXIT_VMSAVE	   0x083
#define VMEXIT_STGI	   0x084
#define VMEXIT_CLGI	   0x085
#define VMEXIT_SKINIT	   0x086
#define VMEXIT_RDTSCP	   0x087
#define VMEXIT_WBINVD	   0x089
#define VMEXIT_MONITOR	   0x08a
#define VMEXIT_MWAIT	   0x08b
#define VMEXIT_MWAIT_COND  0x08c
#define VMEXIT_XSETBV	   0x08d
#define VMEXIT_NPF	   0x400
#define VMEXIT_INVALID	   0xffffffffffffffffull

struct vmcb_seg {
	uint16_t selector;
	uint16_t attrib;
	uint32_t limit;
	uint64_t base;
};

/* The VMCB (appendix B): control area at 0, state-save area at 0x400. */
struct vmcb {
	uint32_t intercept_cr; /* reads 15:0, writes 31:16 */
	uint32_t intercept_dr; /* reads 15:0, writes 31:16 */
	uint32_t intercept_exceptions;
	uint32_t intercept_misc1; /* vector 3 */
	uint32_t intercept_misc2; /* vector 4 */
	uint32_t intercept_misc3; /* vector 5 */
	uint8_t reserved_018[0x03c - 0x018];
	uint16_t pause_filter_threshold;
	uint16_t pause_filter_count;
	uint64_t iopm_base_pa;
	uint64_t msrpm_base_pa;
	uint64_t tsc_offset;
	uint32_t asid;
	uint8_t tlb_control;
	uint8_t reserved_05d[3];
	uint64_t vintr; /* V_TPR, V_IRQ, V_INTR_PRIO, V_IGN_TPR, V_INTR_MASKING, V_INTR_VECTOR */
	uint64_t interrupt_shadow;
	uint64_t exitcode;
	uint64_t exitinfo1;
	uint64_t exitinfo2;
	uint64_t exitintinfo;
	uint64_t np_enable;
	uint64_t avic_apic_bar;
	uint64_t ghcb_pa;
	uint64_t eventinj;
	uint64_t n_cr3;
	uint64_t virt_ext;
	uint32_t clean;
	uint32_t reserved_0c4;
	uint64_t next_rip;
	uint8_t insn_len;
	uint8_t insn_bytes[15];
	uint8_t reserved_0e0[0x400 - 0x0e0];
	/* State-save area. */
	struct vmcb_seg es, cs, ss, ds, fs, gs, gdtr, ldtr, idtr, tr;
	uint8_t reserved_4a0[0x4cb - 0x4a0];
	uint8_t cpl;
	uint32_t reserved_4cc;
	uint64_t efer;
	uint8_t reserved_4d8[0x548 - 0x4d8];
	uint64_t cr4, cr3, cr0, dr7, dr6, rflags, rip;
	uint8_t reserved_580[0x5d8 - 0x580];
	uint64_t rsp;
	uint8_t reserved_5e0[0x5f8 - 0x5e0];
	uint64_t rax;
	uint64_t star, lstar, cstar, sfmask, kernel_gs_base;
	uint64_t sysenter_cs, sysenter_esp, sysenter_eip;
	uint64_t cr2;
	uint8_t reserved_648[0x668 - 0x648];
	uint64_t g_pat;
	uint64_t dbgctl;
	uint8_t reserved_678[0x1000 - 0x678];
};

_Static_assert(offsetof(struct vmcb, pause_filter_threshold) == 0x03c, "VMCB 0x03c");
_Static_assert(offsetof(struct vmcb, asid) == 0x058, "VMCB 0x058");
_Static_assert(offsetof(struct vmcb, vintr) == 0x060, "VMCB 0x060");
_Static_assert(offsetof(struct vmcb, exitcode) == 0x070, "VMCB 0x070");
_Static_assert(offsetof(struct vmcb, eventinj) == 0x0a8, "VMCB 0x0a8");
_Static_assert(offsetof(struct vmcb, clean) == 0x0c0, "VMCB 0x0c0");
_Static_assert(offsetof(struct vmcb, insn_len) == 0x0d0, "VMCB 0x0d0");
_Static_assert(offsetof(struct vmcb, es) == 0x400, "VMCB 0x400");
_Static_assert(offsetof(struct vmcb, tr) == 0x490, "VMCB 0x490");
_Static_assert(offsetof(struct vmcb, cpl) == 0x4cb, "VMCB 0x4cb");
_Static_assert(offsetof(struct vmcb, efer) == 0x4d0, "VMCB 0x4d0");
_Static_assert(offsetof(struct vmcb, cr4) == 0x548, "VMCB 0x548");
_Static_assert(offsetof(struct vmcb, rip) == 0x578, "VMCB 0x578");
_Static_assert(offsetof(struct vmcb, rsp) == 0x5d8, "VMCB 0x5d8");
_Static_assert(offsetof(struct vmcb, rax) == 0x5f8, "VMCB 0x5f8");
_Static_assert(offsetof(struct vmcb, cr2) == 0x640, "VMCB 0x640");
_Static_assert(offsetof(struct vmcb, g_pat) == 0x668, "VMCB 0x668");
_Static_assert(sizeof(struct vmcb) == 0x1000, "VMCB is one page");

#endif
