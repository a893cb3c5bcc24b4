/* sliver guest ABI: the boot-info page and the guest memory layout.
 *
 * A domain's memory is one range of guest-physical addresses [0, mem_bytes), all RAM,
 * mapped write-back; nothing else is mapped (no APIC, no MMIO). Each vCPU starts at the
 * ELF entry point in 32-bit protected mode: flat 4 GiB code/data segments, paging off,
 * interrupts off (RFLAGS = 0x2), EBX = guest-physical address of its boot-info page,
 * EAX = SLIVER_BOOT_MAGIC, ESP = 0 (the guest sets up its own stack).
 * The first SLIVER_GUEST_LOAD_MIN bytes are written by the hypervisor (boot-info pages);
 * ELF segments must load at or above it. */
#ifndef SLIVER_BOOTINFO_H
#define SLIVER_BOOTINFO_H
#include <stdint.h>

#define SLIVER_BOOT_MAGIC      0x534c5652u /* "SLVR" */
#define SLIVER_BOOT_VERSION    1u
#define SLIVER_MAX_VCPUS       64 /* per domain (issue 10); guests/lib's runtime stacks 8 */
#define SLIVER_BOOTINFO_GPA(v) (0x1000u + (uint32_t)(v)*0x1000u) /* vCPU v's page */
#define SLIVER_GUEST_LOAD_MIN  0x41000u /* above the last boot-info page, vCPU 63's */
#define SLIVER_CMDLINE_MAX     1024

#define SLIVER_BI_SERVICE (1u << 0) /* flags: this domain has role=service */

struct sliver_boot_info {
	uint32_t magic;	  /* SLIVER_BOOT_MAGIC */
	uint32_t version; /* SLIVER_BOOT_VERSION */
	uint32_t dom_id;  /* 1.. in module order */
	uint32_t vcpu_id; /* 0..nr_vcpus-1 */
	uint32_t nr_vcpus;
	uint32_t flags;	    /* SLIVER_BI_* */
	uint64_t mem_bytes; /* guest-physical memory size */
	/* Clock without exits: ns since hypervisor boot =
	 *   ((rdtsc() - tsc_base) * tsc_mul) >> tsc_shift   (96-bit intermediate product)
	 * This is the time base of HC_CLOCK and HC_SET_TIMER. */
	uint64_t tsc_base;
	uint32_t tsc_mul;
	uint32_t tsc_shift;
	uint64_t tsc_hz;
	char name[32];			  /* the domain's name= */
	char cmdline[SLIVER_CMDLINE_MAX]; /* the module's command line, NUL-terminated */
};

#endif
