/* What a hardware-virtualization backend (vmx/, svm/) provides: one const table of the
 * functions hv.h declares, chosen once at boot from CPUID by hv_detect (arch/x86_64/hv.c),
 * so one binary runs on Intel and AMD. Each member has the contract of the hv.h function
 * of the same name without the hv_ prefix. struct hv_vcpu (hv.h: the general registers)
 * heads each backend's own state (struct vmx_vcpu, struct svm_vcpu), to which the backend
 * casts it. struct hv_space is shared:
 * both backends map guest-physical [0, size) onto [hpa, hpa + size) with 4-level tables
 * of their own format (EPT, or NPT = ordinary long-mode page tables) rooted at root_pa, so
 * hv_space_ptr is generic. Only hv.c and the backends include this file. */
#ifndef ARCH_X86_64_HV_BACKEND_H
#define ARCH_X86_64_HV_BACKEND_H
#include <stddef.h>
#include "arch/x86_64/hv.h"

struct hv_space {
	uint64_t root_pa; /* PML4 of the EPT / nested page tables */
	uint64_t hpa, size;
};

struct hv_backend {
	const char *name;	/* "vmx", "svm" */
	const char *fault_name; /* a guest access outside its memory: "EPT violation" */
	/* Called on the BSP in turn until one says yes; false with a reason otherwise. */
	bool (*detect)(const char **why);
	int (*cpu_init)(const char **why);

	/* Fill s->root_pa (s->hpa, s->size set); false when out of memory (hv.c then calls
	 * space_unmap). space_unmap frees the tables below root_pa and root_pa itself. */
	bool (*space_map)(struct hv_space *s);
	void (*space_unmap)(struct hv_space *s);

	struct hv_vcpu *(*vcpu_create)(struct hv_space *s, uint16_t asid, uint64_t rip,
				       uint32_t eax, uint32_t ebx, const char **why);
	void (*vcpu_destroy)(struct hv_vcpu *v);
	bool (*vcpu_reset_real)(struct hv_vcpu *v, uint16_t cs, uint16_t ip); /* NULL: none */
	void (*vcpu_put)(struct hv_vcpu *v);
	int (*vcpu_loaded_on)(struct hv_vcpu *v);
	void (*vcpu_run)(struct hv_vcpu *v, uint64_t deadline_tsc, int inject_vector,
			 struct hv_exit *e);

	uint64_t (*rsp_get)(struct hv_vcpu *v);
	void (*rsp_set)(struct hv_vcpu *v, uint64_t val);
	/* RIP += len (len < 0: the exiting instruction's own length), the STI/MOV SS shadow
	 * ends and RFLAGS.RF is cleared; when RFLAGS.TF was set, hv_single_step_trap. */
	void (*skip_insn)(struct hv_vcpu *v, int len);
	uint64_t (*rflags_get)(struct hv_vcpu *v);
	void (*rflags_set)(struct hv_vcpu *v, uint64_t val);
	void (*inject_exception)(struct hv_vcpu *v, uint8_t vector, bool has_error, uint32_t error);
	void (*request_nmi)(struct hv_vcpu *v);
	bool (*nmi_masked)(struct hv_vcpu *v);
	bool (*guest_long_mode)(struct hv_vcpu *v);
	unsigned (*guest_cpl)(struct hv_vcpu *v);
	bool (*guest_if)(struct hv_vcpu *v);
	bool (*write_cr)(struct hv_vcpu *v, unsigned cr, uint64_t val);
	uint64_t (*read_cr)(struct hv_vcpu *v, unsigned cr);
	bool (*write_efer)(struct hv_vcpu *v, uint64_t val);
	uint64_t (*read_efer)(struct hv_vcpu *v);
	uint64_t (*guest_cr4_valid)(void);
	int (*msr_write)(struct hv_vcpu *v, uint32_t msr, uint64_t val);
	/* Optional (NULL: not offered, hv.c answers false). */
	bool (*set_tsc_offset)(struct hv_vcpu *v, uint64_t offset);
	bool (*start_real)(struct hv_vcpu *v, uint16_t cs, uint16_t ip);
	void (*read_state)(struct hv_vcpu *v, struct hv_state *st);
	uint64_t (*dr_get)(struct hv_vcpu *v, unsigned dr);
	void (*dr_set)(struct hv_vcpu *v, unsigned dr, uint64_t val);
	void (*test_break_guest_state)(struct hv_vcpu *v);

	/* Raw exit reasons are counted per domain by a dense index < HV_NR_EXIT_REASONS that
	 * the backend assigns (VMX: the basic exit reason; SVM: its own dense map of EXITCODE);
	 * index HV_NR_EXIT_REASONS - 1 is "outside the table". hv.c bounds-checks reason
	 * (< HV_NR_EXIT_REASONS - 1) before it calls; NULL: "unknown". */
	const char *(*exit_reason_name)(unsigned reason);
	const char *(*insn_error_name)(uint32_t err);
	/* The names of the backend's EXITSTATS counters (hv_exit_stats). */
	const char *exit_stats_names[HV_EXIT_STATS_MAX];
	/* Whether the CPU can report PAUSE loops (hv_pause_loop); NULL: no. */
	bool (*pause_loop_supported)(void);
};

extern const struct hv_backend vmx_backend;
extern const struct hv_backend svm_backend;

/* hv.c, for the backends' skip_insn: the single-step #DB (DR6.BS) after an instruction
 * completed with RFLAGS.TF set. */
void hv_single_step_trap(struct hv_vcpu *v);

/* Frames for VMCSs/VMCBs, bitmaps and paging structures (set by hv_set_frame_ops). */
extern struct hv_frame_ops hv_frames;
/* Core's quick path (hv.h, hv_set_exit_quick; a refusal until core sets it). */
extern hv_exit_quick_fn hv_exit_quick;
/* PAUSE-loop detection as core set it (hv_set_pause_loop); read at vcpu_create. */
extern struct hv_pause_loop hv_pause_loop;

#endif
