/* Architectural VMX constants, named as in the Intel SDM Vol. 3C (appendices A-C,
 * chapters 24-28). Only what sliver uses. */
#ifndef ARCH_X86_64_VMX_DEFS_H
#define ARCH_X86_64_VMX_DEFS_H

/* MSRs (SDM Vol. 4, and Vol. 3D appendix A). */
#define MSR_IA32_FEATURE_CONTROL	 0x3a
#define FEATURE_CONTROL_LOCKED		 (1u << 0)
#define FEATURE_CONTROL_VMX_OUTSIDE_SMX	 (1u << 2)
#define MSR_IA32_VMX_BASIC		 0x480
#define MSR_IA32_VMX_PINBASED_CTLS	 0x481
#define MSR_IA32_VMX_PROCBASED_CTLS	 0x482
#define MSR_IA32_VMX_EXIT_CTLS		 0x483
#define MSR_IA32_VMX_ENTRY_CTLS		 0x484
#define MSR_IA32_VMX_MISC		 0x485
#define MSR_IA32_VMX_CR0_FIXED0		 0x486
#define MSR_IA32_VMX_CR0_FIXED1		 0x487
#define MSR_IA32_VMX_CR4_FIXED0		 0x488
#define MSR_IA32_VMX_CR4_FIXED1		 0x489
#define MSR_IA32_VMX_PROCBASED_CTLS2	 0x48b
#define MSR_IA32_VMX_EPT_VPID_CAP	 0x48c
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS	 0x48d
#define MSR_IA32_VMX_TRUE_PROCBASED_CTLS 0x48e
#define MSR_IA32_VMX_TRUE_EXIT_CTLS	 0x48f
#define MSR_IA32_VMX_TRUE_ENTRY_CTLS	 0x490
#define VMX_BASIC_TRUE_CTLS		 (1ull << 55)

#define MSR_IA32_TSC	       0x10
#define MSR_IA32_TSC_ADJUST    0x3b
#define MSR_IA32_SYSENTER_CS   0x174
#define MSR_IA32_SYSENTER_ESP  0x175
#define MSR_IA32_SYSENTER_EIP  0x176
#define MSR_IA32_MISC_ENABLE   0x1a0
#define MSR_IA32_PAT	       0x277
#define MSR_IA32_MTRRCAP       0xfe
#define MSR_IA32_MTRR_DEF_TYPE 0x2ff
#define MSR_STAR	       0xc0000081
#define MSR_LSTAR	       0xc0000082
#define MSR_CSTAR	       0xc0000083
#define MSR_SFMASK	       0xc0000084
#define MSR_KERNEL_GS_BASE     0xc0000102
#define EFER_SCE	       (1ull << 0)
#define EFER_LME	       (1ull << 8)
#define EFER_LMA	       (1ull << 10)
#define EFER_NXE	       (1ull << 11)

/* CR0 and CR4 bits (SDM Vol. 3A 2.5). */
#define CR0_PE		  (1ull << 0)
#define CR0_MP		  (1ull << 1)
#define CR0_EM		  (1ull << 2)
#define CR0_TS		  (1ull << 3)
#define CR0_ET		  (1ull << 4)
#define CR0_NE		  (1ull << 5)
#define CR0_WP		  (1ull << 16)
#define CR0_AM		  (1ull << 18)
#define CR0_NW		  (1ull << 29)
#define CR0_CD		  (1ull << 30)
#define CR0_PG		  (1ull << 31)
#define CR4_VME		  (1ull << 0)
#define CR4_PVI		  (1ull << 1)
#define CR4_TSD		  (1ull << 2)
#define CR4_DE		  (1ull << 3)
#define CR4_PSE		  (1ull << 4)
#define CR4_PAE		  (1ull << 5)
#define CR4_MCE		  (1ull << 6)
#define CR4_PGE		  (1ull << 7)
#define CR4_PCE		  (1ull << 8)
#define CR4_OSFXSR	  (1ull << 9)
#define CR4_OSXMMEXCPT	  (1ull << 10)
#define CR4_VMXE	  (1ull << 13)
#define CR4_FSGSBASE	  (1ull << 16)
#define CR4_PCIDE	  (1ull << 17)
#define CR4_OSXSAVE	  (1ull << 18)
#define CR4_SMEP	  (1ull << 20)
#define CR4_SMAP	  (1ull << 21)
#define SEG_AR_L	  (1u << 13) /* CS access rights: 64-bit code segment */
#define CPUID_80000001_NX (1u << 20) /* EDX */
#define CPUID_7_FSGSBASE  (1u << 0)  /* EBX */
#define CPUID_7_SMEP	  (1u << 7)
#define CPUID_7_SMAP	  (1u << 20)

/* Pin-based VM-execution controls (SDM 24.6.1). */
#define PIN_EXTERNAL_INTERRUPT_EXITING (1u << 0)
#define PIN_NMI_EXITING		       (1u << 3)
#define PIN_VIRTUAL_NMIS	       (1u << 5)
#define PIN_VMX_PREEMPTION_TIMER       (1u << 6)
/* Primary processor-based controls (SDM 24.6.2, table 24-6). */
#define CPU_INTERRUPT_WINDOW_EXITING	(1u << 2)
#define CPU_USE_TSC_OFFSETTING		(1u << 3)
#define CPU_HLT_EXITING			(1u << 7)
#define CPU_INVLPG_EXITING		(1u << 9)
#define CPU_MWAIT_EXITING		(1u << 10)
#define CPU_RDPMC_EXITING		(1u << 11)
#define CPU_RDTSC_EXITING		(1u << 12)
#define CPU_CR3_LOAD_EXITING		(1u << 15)
#define CPU_CR3_STORE_EXITING		(1u << 16)
#define CPU_CR8_LOAD_EXITING		(1u << 19)
#define CPU_CR8_STORE_EXITING		(1u << 20)
#define CPU_USE_TPR_SHADOW		(1u << 21)
#define CPU_MOV_DR_EXITING		(1u << 23)
#define CPU_UNCONDITIONAL_IO_EXITING	(1u << 24)
#define CPU_USE_IO_BITMAPS		(1u << 25)
#define CPU_MONITOR_TRAP_FLAG		(1u << 27)
#define CPU_USE_MSR_BITMAPS		(1u << 28)
#define CPU_MONITOR_EXITING		(1u << 29)
#define CPU_PAUSE_EXITING		(1u << 30)
#define CPU_ACTIVATE_SECONDARY_CONTROLS (1u << 31)
/* Secondary processor-based controls (table 24-7). */
#define CPU2_ENABLE_EPT		      (1u << 1)
#define CPU2_DESCRIPTOR_TABLE_EXITING (1u << 2)
#define CPU2_ENABLE_RDTSCP	      (1u << 3)
#define CPU2_ENABLE_VPID	      (1u << 5)
#define CPU2_WBINVD_EXITING	      (1u << 6)
#define CPU2_UNRESTRICTED_GUEST	      (1u << 7)
#define CPU2_ENABLE_INVPCID	      (1u << 12)
/* VM-exit controls (table 24-13). */
#define EXIT_SAVE_DEBUG_CONTROLS     (1u << 2)
#define EXIT_HOST_ADDRESS_SPACE_SIZE (1u << 9)
#define EXIT_ACK_INTERRUPT_ON_EXIT   (1u << 15)
#define EXIT_SAVE_IA32_PAT	     (1u << 18)
#define EXIT_LOAD_IA32_PAT	     (1u << 19)
#define EXIT_SAVE_IA32_EFER	     (1u << 20)
#define EXIT_LOAD_IA32_EFER	     (1u << 21)
/* VM-entry controls (table 24-15). */
#define ENTRY_LOAD_DEBUG_CONTROLS (1u << 2)
#define ENTRY_IA32E_MODE_GUEST	  (1u << 9)
#define ENTRY_LOAD_IA32_PAT	  (1u << 14)
#define ENTRY_LOAD_IA32_EFER	  (1u << 15)

/* VMCS field encodings (appendix B). */
#define VMCS_VPID			  0x0000
#define VMCS_GUEST_ES_SELECTOR		  0x0800
#define VMCS_GUEST_CS_SELECTOR		  0x0802
#define VMCS_GUEST_SS_SELECTOR		  0x0804
#define VMCS_GUEST_DS_SELECTOR		  0x0806
#define VMCS_GUEST_FS_SELECTOR		  0x0808
#define VMCS_GUEST_GS_SELECTOR		  0x080a
#define VMCS_GUEST_LDTR_SELECTOR	  0x080c
#define VMCS_GUEST_TR_SELECTOR		  0x080e
#define VMCS_HOST_ES_SELECTOR		  0x0c00
#define VMCS_HOST_CS_SELECTOR		  0x0c02
#define VMCS_HOST_SS_SELECTOR		  0x0c04
#define VMCS_HOST_DS_SELECTOR		  0x0c06
#define VMCS_HOST_FS_SELECTOR		  0x0c08
#define VMCS_HOST_GS_SELECTOR		  0x0c0a
#define VMCS_HOST_TR_SELECTOR		  0x0c0c
#define VMCS_IO_BITMAP_A		  0x2000
#define VMCS_IO_BITMAP_B		  0x2002
#define VMCS_MSR_BITMAP			  0x2004
#define VMCS_TSC_OFFSET			  0x2010
#define VMCS_EPT_POINTER		  0x201a
#define VMCS_GUEST_PHYSICAL_ADDRESS	  0x2400
#define VMCS_LINK_POINTER		  0x2800
#define VMCS_GUEST_IA32_DEBUGCTL	  0x2802
#define VMCS_GUEST_IA32_PAT		  0x2804
#define VMCS_GUEST_PDPTE0		  0x280a /* PDPTE1..3: +2, +4, +6 */
#define VMCS_GUEST_IA32_EFER		  0x2806
#define VMCS_HOST_IA32_PAT		  0x2c00
#define VMCS_HOST_IA32_EFER		  0x2c02
#define VMCS_PIN_BASED_CONTROLS		  0x4000
#define VMCS_PROC_BASED_CONTROLS	  0x4002
#define VMCS_EXCEPTION_BITMAP		  0x4004
#define VMCS_PAGE_FAULT_ERROR_MASK	  0x4006
#define VMCS_PAGE_FAULT_ERROR_MATCH	  0x4008
#define VMCS_CR3_TARGET_COUNT		  0x400a
#define VMCS_EXIT_CONTROLS		  0x400c
#define VMCS_EXIT_MSR_STORE_COUNT	  0x400e
#define VMCS_EXIT_MSR_LOAD_COUNT	  0x4010
#define VMCS_ENTRY_CONTROLS		  0x4012
#define VMCS_ENTRY_MSR_LOAD_COUNT	  0x4014
#define VMCS_ENTRY_INTERRUPTION_INFO	  0x4016
#define VMCS_ENTRY_EXCEPTION_ERROR_CODE	  0x4018
#define VMCS_ENTRY_INSTRUCTION_LENGTH	  0x401a
#define VMCS_PROC_BASED_CONTROLS2	  0x401e
#define VMCS_VM_INSTRUCTION_ERROR	  0x4400
#define VMCS_EXIT_REASON		  0x4402
#define VMCS_EXIT_INTERRUPTION_INFO	  0x4404
#define VMCS_EXIT_INTERRUPTION_ERROR	  0x4406
#define VMCS_IDT_VECTORING_INFO		  0x4408
#define VMCS_IDT_VECTORING_ERROR	  0x440a
#define VMCS_EXIT_INSTRUCTION_LENGTH	  0x440c
#define VMCS_EXIT_INSTRUCTION_INFO	  0x440e
#define VMCS_GUEST_ES_LIMIT		  0x4800
#define VMCS_GUEST_CS_LIMIT		  0x4802
#define VMCS_GUEST_SS_LIMIT		  0x4804
#define VMCS_GUEST_DS_LIMIT		  0x4806
#define VMCS_GUEST_FS_LIMIT		  0x4808
#define VMCS_GUEST_GS_LIMIT		  0x480a
#define VMCS_GUEST_LDTR_LIMIT		  0x480c
#define VMCS_GUEST_TR_LIMIT		  0x480e
#define VMCS_GUEST_GDTR_LIMIT		  0x4810
#define VMCS_GUEST_IDTR_LIMIT		  0x4812
#define VMCS_GUEST_ES_AR		  0x4814
#define VMCS_GUEST_CS_AR		  0x4816
#define VMCS_GUEST_SS_AR		  0x4818
#define VMCS_GUEST_DS_AR		  0x481a
#define VMCS_GUEST_FS_AR		  0x481c
#define VMCS_GUEST_GS_AR		  0x481e
#define VMCS_GUEST_LDTR_AR		  0x4820
#define VMCS_GUEST_TR_AR		  0x4822
#define VMCS_GUEST_INTERRUPTIBILITY	  0x4824
#define VMCS_GUEST_ACTIVITY_STATE	  0x4826
#define VMCS_GUEST_SYSENTER_CS		  0x482a
#define VMCS_PREEMPTION_TIMER_VALUE	  0x482e
#define VMCS_HOST_SYSENTER_CS		  0x4c00
#define VMCS_CR0_GUEST_HOST_MASK	  0x6000
#define VMCS_CR4_GUEST_HOST_MASK	  0x6002
#define VMCS_CR0_READ_SHADOW		  0x6004
#define VMCS_CR4_READ_SHADOW		  0x6006
#define VMCS_EXIT_QUALIFICATION		  0x6400
#define VMCS_GUEST_LINEAR_ADDRESS	  0x640a
#define VMCS_GUEST_CR0			  0x6800
#define VMCS_GUEST_CR3			  0x6802
#define VMCS_GUEST_CR4			  0x6804
#define VMCS_GUEST_ES_BASE		  0x6806
#define VMCS_GUEST_CS_BASE		  0x6808
#define VMCS_GUEST_SS_BASE		  0x680a
#define VMCS_GUEST_DS_BASE		  0x680c
#define VMCS_GUEST_FS_BASE		  0x680e
#define VMCS_GUEST_GS_BASE		  0x6810
#define VMCS_GUEST_LDTR_BASE		  0x6812
#define VMCS_GUEST_TR_BASE		  0x6814
#define VMCS_GUEST_GDTR_BASE		  0x6816
#define VMCS_GUEST_IDTR_BASE		  0x6818
#define VMCS_GUEST_DR7			  0x681a
#define VMCS_GUEST_RSP			  0x681c
#define VMCS_GUEST_RIP			  0x681e
#define VMCS_GUEST_RFLAGS		  0x6820
#define VMCS_GUEST_PENDING_DBG_EXCEPTIONS 0x6822
#define VMCS_GUEST_SYSENTER_ESP		  0x6824
#define VMCS_GUEST_SYSENTER_EIP		  0x6826
#define VMCS_HOST_CR0			  0x6c00
#define VMCS_HOST_CR3			  0x6c02
#define VMCS_HOST_CR4			  0x6c04
#define VMCS_HOST_FS_BASE		  0x6c06
#define VMCS_HOST_GS_BASE		  0x6c08
#define VMCS_HOST_TR_BASE		  0x6c0a
#define VMCS_HOST_GDTR_BASE		  0x6c0c
#define VMCS_HOST_IDTR_BASE		  0x6c0e
#define VMCS_HOST_SYSENTER_ESP		  0x6c10
#define VMCS_HOST_SYSENTER_EIP		  0x6c12
#define VMCS_HOST_RSP			  0x6c14
#define VMCS_HOST_RIP			  0x6c16

/* Interruptibility state (SDM 24.4.2, table 24-3). */
#define INTR_BLOCKING_BY_STI	(1u << 0)
#define INTR_BLOCKING_BY_MOV_SS (1u << 1)
#define INTR_BLOCKING_BY_SMI	(1u << 2)
#define INTR_BLOCKING_BY_NMI	(1u << 3)
/* Interruption-information format (SDM 24.8.3, 24.9.2). */
#define INTR_INFO_VALID		     (1u << 31)
#define INTR_INFO_DELIVER_ERROR_CODE (1u << 11)
#define INTR_TYPE_EXTERNAL	     (0u << 8)
#define INTR_TYPE_NMI		     (2u << 8)
#define INTR_TYPE_HW_EXCEPTION	     (3u << 8)
#define INTR_TYPE_SW_INTERRUPT	     (4u << 8)
#define INTR_TYPE_MASK		     (7u << 8)

/* Basic exit reasons (appendix C). */
#define EXIT_REASON_EXCEPTION_NMI	0
#define EXIT_REASON_EXTERNAL_INTERRUPT	1
#define EXIT_REASON_TRIPLE_FAULT	2
#define EXIT_REASON_INIT		3
#define EXIT_REASON_SIPI		4
#define EXIT_REASON_IO_SMI		5
#define EXIT_REASON_OTHER_SMI		6
#define EXIT_REASON_INTERRUPT_WINDOW	7
#define EXIT_REASON_NMI_WINDOW		8
#define EXIT_REASON_TASK_SWITCH		9
#define EXIT_REASON_CPUID		10
#define EXIT_REASON_GETSEC		11
#define EXIT_REASON_HLT			12
#define EXIT_REASON_INVD		13
#define EXIT_REASON_INVLPG		14
#define EXIT_REASON_RDPMC		15
#define EXIT_REASON_RDTSC		16
#define EXIT_REASON_RSM			17
#define EXIT_REASON_VMCALL		18
#define EXIT_REASON_VMCLEAR		19
#define EXIT_REASON_VMLAUNCH		20
#define EXIT_REASON_VMPTRLD		21
#define EXIT_REASON_VMPTRST		22
#define EXIT_REASON_VMREAD		23
#define EXIT_REASON_VMRESUME		24
#define EXIT_REASON_VMWRITE		25
#define EXIT_REASON_VMXOFF		26
#define EXIT_REASON_VMXON		27
#define EXIT_REASON_CR_ACCESS		28
#define EXIT_REASON_DR_ACCESS		29
#define EXIT_REASON_IO_INSTRUCTION	30
#define EXIT_REASON_RDMSR		31
#define EXIT_REASON_WRMSR		32
#define EXIT_REASON_INVALID_GUEST_STATE 33
#define EXIT_REASON_MSR_LOADING		34
#define EXIT_REASON_MWAIT		36
#define EXIT_REASON_MONITOR_TRAP_FLAG	37
#define EXIT_REASON_MONITOR		39
#define EXIT_REASON_PAUSE		40
#define EXIT_REASON_MACHINE_CHECK	41
#define EXIT_REASON_TPR_BELOW_THRESHOLD 43
#define EXIT_REASON_APIC_ACCESS		44
#define EXIT_REASON_VIRTUALIZED_EOI	45
#define EXIT_REASON_GDTR_IDTR_ACCESS	46
#define EXIT_REASON_LDTR_TR_ACCESS	47
#define EXIT_REASON_EPT_VIOLATION	48
#define EXIT_REASON_EPT_MISCONFIG	49
#define EXIT_REASON_INVEPT		50
#define EXIT_REASON_RDTSCP		51
#define EXIT_REASON_PREEMPTION_TIMER	52
#define EXIT_REASON_INVVPID		53
#define EXIT_REASON_WBINVD		54
#define EXIT_REASON_XSETBV		55
#define EXIT_REASON_APIC_WRITE		56
#define EXIT_REASON_RDRAND		57
#define EXIT_REASON_INVPCID		58
#define EXIT_REASON_VMFUNC		59
#define EXIT_REASON_ENCLS		60
#define EXIT_REASON_RDSEED		61
#define EXIT_REASON_PML_FULL		62
#define EXIT_REASON_XSAVES		63
#define EXIT_REASON_XRSTORS		64
#define VMX_NR_EXIT_REASONS		65
#define EXIT_REASON_FAILED_VMENTRY	(1u << 31)

/* EPT (SDM 28.2). */
#define EPT_READ	       (1ull << 0)
#define EPT_WRITE	       (1ull << 1)
#define EPT_EXEC	       (1ull << 2)
#define EPT_MT_WB	       (6ull << 3)
#define EPT_LARGE	       (1ull << 7)
#define EPTP_WB		       6ull
#define EPTP_WALK_4	       (3ull << 3)
#define EPT_CAP_WALK_4	       (1ull << 6)
#define EPT_CAP_WB	       (1ull << 14)
#define EPT_CAP_2M	       (1ull << 16)
#define EPT_CAP_INVEPT	       (1ull << 20)
#define EPT_CAP_INVEPT_SINGLE  (1ull << 25)
#define EPT_CAP_INVEPT_ALL     (1ull << 26)
#define EPT_CAP_INVVPID	       (1ull << 32)
#define EPT_CAP_INVVPID_SINGLE (1ull << 41)
#define EPT_CAP_INVVPID_ALL    (1ull << 42)

#endif
