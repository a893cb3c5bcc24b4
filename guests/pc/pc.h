/* guests/pc: port I/O, MSR and CPUID helpers and the shared check/print functions, so that
 * more checks (the virtual LAPIC's) can live in files of their own. */
#ifndef GUESTS_PC_PC_H
#define GUESTS_PC_PC_H
#include <stdbool.h>
#include <stdint.h>
#include "guests/lib/cpu.h"

static inline void cpuid(uint32_t leaf, uint32_t *ecx, uint32_t *edx)
{
	uint32_t a, b;
	cpuid4(leaf, &a, &b, ecx, edx);
}
static inline uint32_t cpuid_eax(uint32_t leaf)
{
	uint32_t a, b, c, d;
	cpuid4(leaf, &a, &b, &c, &d);
	return a;
}

/* Timing checks measure up to this many times (QEMU TCG freezes a vCPU while another
 * runs: docs/svm.md, QEMU item 6); a wrong rate or period fails every try. */
#define PC_TRIES 3

void pc_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints `pc: <what>: got <x> ok|BAD` and counts a failure. */
void pc_check(const char *what, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Failures of pc_check on this boot. */
unsigned pc_fails(void);
/* devices.c: port 0x92, CMOS/RTC, the PIT with port 0x61, unassigned MMIO and ports,
 * pc-testdev's iomem, the IOAPIC (madt_ioapic: its address in the MADT), IA32_APIC_BASE
 * moved. After pc_apic_checks (the IDT). */
void pc_device_checks(uint64_t tsc_per_ms, uint32_t mem_upper, uint32_t madt_ioapic);
/* reset.c: the resets, one per boot (PC_RESET_MARK in low memory counts them). stage 0 is
 * the first boot; pc_reset_checks resets (never returns) until the last boot, where it
 * returns the failures of every boot. */
#define PC_RESET_MARK 0x7000u
unsigned pc_reset_stage(void);
unsigned pc_reset_checks(void);
/* apic.c: the virtual local APIC as a PC OS uses it (IA32_APIC_BASE, self-IPI, the LVT
 * timer in its three modes, INIT-SIPI-SIPI of the AP into long mode, fixed IPIs and the
 * AP's reply); tsc_per_ms from the PM timer. */
void pc_apic_checks(uint64_t tsc_per_ms);
/* guests/lib/idt.c: the 32-bit IDT onto guests/lib/isr.S (selector 0x08, pc_gdt). */
void rt_idt_init(void);
/* ap.S: the real-mode trampoline the BSP copies to PC_AP_TRAMP and its state. */
#define PC_AP_TRAMP 0x8000u /* SIPI vector 0x08 */
extern const uint8_t pc_ap_tramp[];
extern const uint32_t pc_ap_tramp_len;
extern volatile uint32_t pc_ap_up, pc_ap_efer, pc_ap_ipis;
/* lm.S: long mode, its own checks, then OUT status to 0xf4. */
__attribute__((noreturn)) void pc_lm_exit(uint32_t status);

#endif
