#include "arch/x86_64/smp.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/timer_hw.h"
#include "arch/x86_64/tsc.h"
#include "boot/boot.h"
#include "drivers/console.h"
#include "lib/string.h"

/* Mirrors the parameter block at the end of boot/ap_trampoline.S. */
struct ap_params {
	uint32_t cr3, efer;
	uint64_t stack, entry;
	uint32_t cpu, pad;
} __attribute__((packed));

extern uint8_t ap_trampoline[], ap_trampoline_end[];
extern struct ap_params ap_params;
extern uint32_t boot_efer;

static unsigned ncpus = 1;
static void (*ap_main_fn)(unsigned cpu);

unsigned cpu_count(void)
{
	return ncpus;
}

static void ap_entry(unsigned cpu)
{
	struct percpu *p = &percpu[cpu];
	cpu_init_this(p);
	lapic_init_this();
	__atomic_store_n(&p->online, true, __ATOMIC_RELEASE);
	ap_main_fn(cpu);
	for (;;)
		cpu_idle_wait();
}

unsigned smp_boot_aps(unsigned n, void (*ap_main)(unsigned cpu))
{
	ap_main_fn = ap_main;
	/* Symbols of the linked blob: compare addresses, not pointers to distinct objects. */
	uintptr_t blob_start = (uintptr_t)ap_trampoline;
	size_t blob = (size_t)((uintptr_t)ap_trampoline_end - blob_start);
	struct ap_params *params =
		(struct ap_params *)(AP_TRAMPOLINE_PA + ((uintptr_t)&ap_params - blob_start));

	for (unsigned cpu = 1; cpu < n && cpu < MAX_CPUS; cpu++) {
		struct percpu *p = &percpu[cpu];
		p->id = cpu;
		/* A fresh copy each time: the previous AP may still have been reading it. */
		memcpy((void *)AP_TRAMPOLINE_PA, ap_trampoline, blob);
		params->cr3 = (uint32_t)read_cr3();
		params->efer = boot_efer;
		params->stack = (uint64_t)(p->stack + CPU_STACK_SIZE);
		params->entry = (uint64_t)ap_entry;
		params->cpu = cpu;

		lapic_send_init(p->apic_id);
		tsc_delay_us(10000);
		for (int sipi = 0; sipi < 2 && !p->online; sipi++) {
			lapic_send_sipi(p->apic_id, AP_TRAMPOLINE_PA >> 12);
			tsc_delay_us(200);
		}
		uint64_t give_up = now_ns() + 500000000ull;
		while (!__atomic_load_n(&p->online, __ATOMIC_ACQUIRE) && now_ns() < give_up)
			cpu_relax();
		if (!p->online) {
			/* CPU numbers stay dense: the ones after it are not started either. */
			printk("smp: cpu%u (APIC ID %u) did not start; continuing with %u CPUs\n",
			       cpu, p->apic_id, ncpus);
			break;
		}
		ncpus++;
	}
	return ncpus;
}

void smp_send_ipi(unsigned cpu, uint8_t vector)
{
	lapic_send_ipi(percpu[cpu].apic_id, vector);
}

void smp_send_nmi(unsigned cpu)
{
	lapic_send_nmi(percpu[cpu].apic_id);
}
