/* VMCS set-up for a new vCPU (SDM Vol. 3C 24, 26.2-26.3 for what entry checks): controls
 * from vmx_caps, host state of this hypervisor, and a guest in 32-bit protected mode,
 * flat, paging off (unrestricted guest), like a multiboot kernel. */
#include "arch/x86_64/debugreg.h"
#include "arch/x86_64/vmx/vmx.h"
#include "lib/string.h"

extern char vmx_exit_entry[];

struct desc_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

void vmcs_write_host_percpu(struct vmx_vcpu *v)
{
	struct percpu *p = this_cpu();
	struct desc_ptr idtr;
	__asm__ volatile("sidt %0" : "=m"(idtr));
	vmcs_write(v, VMCS_HOST_TR_BASE, (uint64_t)&p->tss);
	vmcs_write(v, VMCS_HOST_GDTR_BASE, (uint64_t)p->gdt);
	vmcs_write(v, VMCS_HOST_IDTR_BASE, idtr.base);
	vmcs_write(v, VMCS_HOST_GS_BASE, (uint64_t)p);
	vmcs_write(v, VMCS_HOST_FS_BASE, rdmsr(MSR_FS_BASE));
}

static void host_state(struct vmx_vcpu *v)
{
	uint16_t cs, ss, ds, es, tr;
	__asm__ volatile("mov %%cs, %0; mov %%ss, %1; mov %%ds, %2; mov %%es, %3; str %4"
			 : "=r"(cs), "=r"(ss), "=r"(ds), "=r"(es), "=r"(tr));
	vmcs_write(v, VMCS_HOST_CR0, read_cr0());
	vmcs_write(v, VMCS_HOST_CR3, read_cr3());
	vmcs_write(v, VMCS_HOST_CR4, read_cr4());
	vmcs_write(v, VMCS_HOST_CS_SELECTOR, cs & 0xf8);
	vmcs_write(v, VMCS_HOST_SS_SELECTOR, ss & 0xf8);
	vmcs_write(v, VMCS_HOST_DS_SELECTOR, ds & 0xf8);
	vmcs_write(v, VMCS_HOST_ES_SELECTOR, es & 0xf8);
	vmcs_write(v, VMCS_HOST_FS_SELECTOR, 0);
	vmcs_write(v, VMCS_HOST_GS_SELECTOR, 0);
	vmcs_write(v, VMCS_HOST_TR_SELECTOR, tr & 0xf8);
	vmcs_write(v, VMCS_HOST_IA32_EFER, rdmsr(MSR_IA32_EFER));
	vmcs_write(v, VMCS_HOST_SYSENTER_CS, 0);
	vmcs_write(v, VMCS_HOST_SYSENTER_ESP, 0);
	vmcs_write(v, VMCS_HOST_SYSENTER_EIP, 0);
	vmcs_write(v, VMCS_HOST_RIP, (uint64_t)vmx_exit_entry);
	vmcs_write_host_percpu(v);
}

static void segment(struct vmx_vcpu *v, uint32_t sel_f, uint16_t sel, uint64_t base, uint32_t limit,
		    uint32_t ar)
{
	/* Selector, base, limit and access-rights fields are laid out in parallel. */
	vmcs_write(v, sel_f, sel);
	vmcs_write(v, VMCS_GUEST_ES_BASE + (sel_f - VMCS_GUEST_ES_SELECTOR), base);
	vmcs_write(v, VMCS_GUEST_ES_LIMIT + (sel_f - VMCS_GUEST_ES_SELECTOR), limit);
	vmcs_write(v, VMCS_GUEST_ES_AR + (sel_f - VMCS_GUEST_ES_SELECTOR), ar);
}

static void guest_state(struct vmx_vcpu *v, uint64_t rip, uint32_t eax, uint32_t ebx)
{
	/* 24.4.1: AR = type | S<<4 | DPL<<5 | P<<7 | D/B<<14 | G<<15; bit 16 = unusable. */
	segment(v, VMCS_GUEST_CS_SELECTOR, 0x08, 0, 0xffffffff, 0xc09b);
	segment(v, VMCS_GUEST_SS_SELECTOR, 0x10, 0, 0xffffffff, 0xc093);
	segment(v, VMCS_GUEST_DS_SELECTOR, 0x10, 0, 0xffffffff, 0xc093);
	segment(v, VMCS_GUEST_ES_SELECTOR, 0x10, 0, 0xffffffff, 0xc093);
	segment(v, VMCS_GUEST_FS_SELECTOR, 0x10, 0, 0xffffffff, 0xc093);
	segment(v, VMCS_GUEST_GS_SELECTOR, 0x10, 0, 0xffffffff, 0xc093);
	segment(v, VMCS_GUEST_LDTR_SELECTOR, 0, 0, 0, 0x10000);
	segment(v, VMCS_GUEST_TR_SELECTOR, 0, 0, 0xff, 0x8b); /* busy 32-bit TSS */
	vmcs_write(v, VMCS_GUEST_GDTR_BASE, 0);
	vmcs_write(v, VMCS_GUEST_GDTR_LIMIT, 0xffff);
	vmcs_write(v, VMCS_GUEST_IDTR_BASE, 0);
	vmcs_write(v, VMCS_GUEST_IDTR_LIMIT, 0xffff);
	v->cr0 = CR0_PE | CR0_ET;
	v->cr4 = 0;
	v->efer = 0;
	vmx_write_cr(to_hv(v), 0, v->cr0);
	vmx_write_cr(to_hv(v), 4, v->cr4);
	vmcs_write(v, VMCS_GUEST_CR3, 0);
	vmcs_write(v, VMCS_GUEST_IA32_EFER, 0);
	vmcs_write(v, VMCS_GUEST_DR7, 0x400);
	vmcs_write(v, VMCS_GUEST_IA32_DEBUGCTL, 0);
	vmcs_write(v, VMCS_GUEST_RSP, 0);
	vmcs_write(v, VMCS_GUEST_RIP, rip);
	vmcs_write(v, VMCS_GUEST_RFLAGS, 0x2);
	vmcs_write(v, VMCS_GUEST_INTERRUPTIBILITY, 0);
	vmcs_write(v, VMCS_GUEST_ACTIVITY_STATE, 0);
	vmcs_write(v, VMCS_GUEST_PENDING_DBG_EXCEPTIONS, 0);
	vmcs_write(v, VMCS_GUEST_SYSENTER_CS, 0);
	vmcs_write(v, VMCS_GUEST_SYSENTER_ESP, 0);
	vmcs_write(v, VMCS_GUEST_SYSENTER_EIP, 0);
	vmcs_write(v, VMCS_LINK_POINTER, ~0ull);
	v->g.r[0] = eax;
	v->g.r[3] = ebx;
}

/* The state after INIT and SIPI (SDM Vol. 3A 9.1.1 table 9-1), in real mode under
 * unrestricted guest (26.3.1.2: CS type 11, SS type 3, DPL 0): CS = reset_cs with base
 * reset_cs << 4, the other segments 0, limits 0xFFFF, CR0 = ET (CD/NW left clear), CR4,
 * EFER, CR2, CR3 0, DR6/DR7 their reset values, general registers 0. */
void vmcs_reset_real(struct vmx_vcpu *v)
{
	segment(v, VMCS_GUEST_CS_SELECTOR, v->reset_cs, (uint64_t)v->reset_cs << 4, 0xffff, 0x9b);
	segment(v, VMCS_GUEST_SS_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_DS_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_ES_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_FS_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_GS_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_LDTR_SELECTOR, 0, 0, 0xffff, 0x10000);
	segment(v, VMCS_GUEST_TR_SELECTOR, 0, 0, 0xffff, 0x8b);
	vmcs_write(v, VMCS_GUEST_GDTR_BASE, 0);
	vmcs_write(v, VMCS_GUEST_GDTR_LIMIT, 0xffff);
	vmcs_write(v, VMCS_GUEST_IDTR_BASE, 0);
	vmcs_write(v, VMCS_GUEST_IDTR_LIMIT, 0xffff);
	/* Preset the shadows so that the checks of vmx_write_cr see no transition (a PG
	 * 1 -> 0 from 64-bit code would be refused to a guest, not to INIT). */
	v->cr0 = CR0_ET;
	v->cr4 = 0;
	v->efer = 0;
	vmx_write_cr(to_hv(v), 0, v->cr0);
	vmx_write_cr(to_hv(v), 4, v->cr4);
	vmx_write_efer(to_hv(v), 0);
	vmcs_write(v, VMCS_GUEST_CR3, 0);
	vmcs_write(v, VMCS_GUEST_DR7, 0x400);
	vmcs_write(v, VMCS_GUEST_RSP, 0);
	vmcs_write(v, VMCS_GUEST_RIP, v->reset_ip);
	vmcs_write(v, VMCS_GUEST_RFLAGS, 0x2);
	vmcs_write(v, VMCS_GUEST_INTERRUPTIBILITY, 0);
	vmcs_write(v, VMCS_GUEST_ACTIVITY_STATE, 0);
	vmcs_write(v, VMCS_GUEST_PENDING_DBG_EXCEPTIONS, 0);
	vmcs_write(v, VMCS_ENTRY_INTERRUPTION_INFO, 0);
	for (unsigned i = 0; i < 16; i++)
		v->g.r[i] = 0;
	for (unsigned i = 0; i < 4; i++)
		v->dr[i] = 0;
	v->dr[6] = DR6_RESET;
	v->dr[7] = DR7_RESET;
	vmx_load_debug_regs(v); /* loaded here: the hardware's DR0-3, DR6 are the vCPU's */
	v->cr2 = 0;
	write_cr2(0);
	v->pending_exc = false;
	vmx_uncache(v); /* RFLAGS and interruptibility were written around it */
}

bool vmx_vcpu_reset_real(struct hv_vcpu *hv, uint16_t cs, uint16_t ip)
{
	struct vmx_vcpu *v = to_vmx(hv);
	v->reset_cs = cs;
	v->reset_ip = ip;
	v->reset_pending = true;
	return true;
}

bool vmcs_setup(struct vmx_vcpu *v, uint64_t rip, uint32_t eax, uint32_t ebx, const char **why)
{
	const struct vmx_caps *c = &vmx_caps;
	v->cpu_ctls = c->cpu;
	v->entry_ctls = c->entry;
	vmcs_write(v, VMCS_PIN_BASED_CONTROLS, c->pin);
	vmcs_write(v, VMCS_PROC_BASED_CONTROLS, v->cpu_ctls);
	/* PAUSE-loop exiting only when core asked for it (hv_pause_loop); PAUSE exiting
	 * itself stays off (vmx_detect), so every PAUSE exit is a PAUSE-loop exit. */
	v->ple_on = hv_pause_loop.on && (c->cpu2 & CPU2_PAUSE_LOOP_EXITING);
	v->ple_window = hv_pause_loop.window;
	vmcs_write(v, VMCS_PROC_BASED_CONTROLS2,
		   v->ple_on ? c->cpu2 : c->cpu2 & ~CPU2_PAUSE_LOOP_EXITING);
	if (v->ple_on) {
		vmcs_write(v, VMCS_PLE_GAP, hv_pause_loop.gap);
		vmcs_write(v, VMCS_PLE_WINDOW, v->ple_window);
	}
	vmcs_write(v, VMCS_EXIT_CONTROLS, c->exit);
	vmcs_write(v, VMCS_ENTRY_CONTROLS, v->entry_ctls);
	vmcs_write(v, VMCS_EXCEPTION_BITMAP, 0);
	vmcs_write(v, VMCS_PAGE_FAULT_ERROR_MASK, 0);
	vmcs_write(v, VMCS_PAGE_FAULT_ERROR_MATCH, 0);
	vmcs_write(v, VMCS_CR3_TARGET_COUNT, 0);
	vmcs_write(v, VMCS_EXIT_MSR_STORE_COUNT, 0);
	vmcs_write(v, VMCS_EXIT_MSR_LOAD_COUNT, 0);
	vmcs_write(v, VMCS_ENTRY_MSR_LOAD_COUNT, 0);
	vmcs_write(v, VMCS_ENTRY_INTERRUPTION_INFO, 0);
	vmcs_write(v, VMCS_MSR_BITMAP, c->msr_bitmap_pa);
	vmcs_write(v, VMCS_EPT_POINTER, ept_pointer(v->space));
	vmcs_write(v, VMCS_VPID, v->vpid);
	vmcs_write(v, VMCS_TSC_OFFSET, 0);
	/* Every CR0/CR4 bit is host-owned: reads see the shadows, writes exit (hv_write_cr). */
	vmcs_write(v, VMCS_CR0_GUEST_HOST_MASK, ~0ull);
	vmcs_write(v, VMCS_CR4_GUEST_HOST_MASK, ~0ull);
	host_state(v);
	guest_state(v, rip, eax, ebx);
	vmx_uncache(v);
	v->preempt_ticks = UINT64_MAX; /* never written: the first entry writes it */
	if (v->vmx_error) {
		*why = "VMWRITE failed while setting up the VMCS";
		return false;
	}
	return true;
}

struct hv_vcpu *vmx_vcpu_create(struct hv_space *s, uint16_t vpid, uint64_t rip, uint32_t eax,
				uint32_t ebx, const char **why)
{
	_Static_assert(sizeof(struct vmx_vcpu) <= PAGE_SIZE, "vmx_vcpu fits a frame");
	uint64_t vpa = frame_alloc(), vmcs = frame_alloc();
	if (!vpa || !vmcs) {
		if (vpa)
			frame_free(vpa);
		if (vmcs)
			frame_free(vmcs);
		*why = "out of memory for the VMCS";
		return NULL;
	}
	struct vmx_vcpu *v = phys_to_virt(vpa);
	v->vmcs_pa = vmcs;
	v->space = s;
	v->dr[6] = DR6_RESET; /* architectural reset values */
	v->dr[7] = DR7_RESET;
	/* x87/SSE reset state (SDM Vol. 1 10.5.1): FCW 0x37f, MXCSR 0x1f80, rest zero. */
	v->fpu[0] = 0x7f;
	v->fpu[1] = 0x03;
	*(uint32_t *)&v->fpu[24] = 0x1f80;
	v->vpid = vpid;
	v->cpu = -1;
	v->host_cpu = (int)this_cpu()->id; /* vmcs_setup writes this pCPU's host fields */
	*(uint32_t *)phys_to_virt(vmcs) = vmx_caps.revision;
	struct vmx_cpu *vc = &vmx_cpu[this_cpu()->id];
	if (vc->current)
		vmx_vcpu_put(to_hv(vc->current));
	bool ok = vmclear(vmcs) && vmptrld(vmcs);
	if (!ok)
		*why = "VMCLEAR/VMPTRLD of a new VMCS failed";
	else
		ok = vmcs_setup(v, rip, eax, ebx, why);
	if (!vmclear(vmcs) && ok) {
		*why = "VMCLEAR after set-up failed";
		ok = false;
	}
	if (!ok) {
		frame_free(vmcs);
		frame_free(vpa);
		return NULL;
	}
	return to_hv(v);
}

void vmx_vcpu_put(struct hv_vcpu *hv)
{
	struct vmx_vcpu *v = to_vmx(hv);
	if (v->cpu < 0)
		return;
	struct vmx_cpu *vc = &vmx_cpu[v->cpu];
	/* The guest's x87/SSE registers leave with it (loaded again in load_here). */
	__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])v->fpu));
	v->cr2 = read_cr2();
	if (v->cpu == (int)this_cpu()->id)
		vmx_save_debug_regs(v);
	if (v->long_seen && v->cpu == (int)this_cpu()->id) {
		/* SWAPGS may have changed KERNEL_GS_BASE (index 0) without an exit. */
		v->lazy_msr[0] = rdmsr(vmx_lazy_msrs[0]);
		vc->hw_lazy[0] = v->lazy_msr[0];
	}
	if (!vmclear(v->vmcs_pa) && !v->vmx_error) {
		/* Should never happen; the next entry is refused and the domain crashed. */
		v->vmx_error = true;
		v->vmx_error_field = 0;
	}
	if (vc->current == v)
		vc->current = NULL;
	v->launched = false;
	__atomic_store_n(&v->cpu, -1, __ATOMIC_RELEASE);
}

int vmx_vcpu_loaded_on(struct hv_vcpu *hv)
{
	struct vmx_vcpu *v = to_vmx(hv);
	return __atomic_load_n(&v->cpu, __ATOMIC_ACQUIRE);
}

void vmx_vcpu_destroy(struct hv_vcpu *hv)
{
	struct vmx_vcpu *v = to_vmx(hv);
	if (!v)
		return;
	if (v->cpu >= 0)
		vmx_vcpu_put(hv);
	memset(phys_to_virt(v->vmcs_pa), 0, PAGE_SIZE);
	frame_free(v->vmcs_pa);
	frame_free(virt_to_phys(v));
}

/* boot=real: the new vCPU starts in real mode at cs:ip instead (unrestricted guest, SDM
 * Vol. 3C 26.3.1.2: CR0.PE = 0; CS/SS/DS/ES/FS/GS selector = base >> 4, limit 0xffff,
 * accessed read/write data or execute/read code, DPL 0, 16-bit). v has never run. */
bool vmx_start_real(struct hv_vcpu *hv, uint16_t cs, uint16_t ip)
{
	struct vmx_vcpu *v = to_vmx(hv);
	if (v->cpu >= 0 || v->launched)
		return false;
	struct vmx_cpu *vc = &vmx_cpu[this_cpu()->id];
	if (vc->current)
		vmx_vcpu_put(to_hv(vc->current));
	if (!vmptrld(v->vmcs_pa))
		return false;
	segment(v, VMCS_GUEST_CS_SELECTOR, cs, (uint64_t)cs << 4, 0xffff, 0x9b);
	segment(v, VMCS_GUEST_SS_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_DS_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_ES_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_FS_SELECTOR, 0, 0, 0xffff, 0x93);
	segment(v, VMCS_GUEST_GS_SELECTOR, 0, 0, 0xffff, 0x93);
	vmcs_write(v, VMCS_GUEST_IDTR_LIMIT, 0x3ff); /* real-mode IVT at 0 */
	vmcs_write(v, VMCS_GUEST_RIP, ip);
	v->cr0 = CR0_ET;
	vmx_write_cr(hv, 0, v->cr0);
	bool ok = !v->vmx_error;
	return vmclear(v->vmcs_pa) && ok;
}
