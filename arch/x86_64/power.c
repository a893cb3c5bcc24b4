#include "arch/x86_64/power.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/tsc.h"
#include "drivers/acpi.h"
#include "drivers/console.h"
#include "lib/string.h"

#define QEMU_DEBUG_EXIT_PORT 0xf4
#define BOCHS_DEBUGGER_PORT  0x8900

static bool under_qemu(void)
{
	if (!cpu_has_feature_ecx1(31))
		return false;
	struct cpuid_regs r = cpuid(0x40000000, 0);
	char sig[13];
	memcpy(sig, &r.ebx, 4);
	memcpy(sig + 4, &r.ecx, 4);
	memcpy(sig + 8, &r.edx, 4);
	sig[12] = 0;
	return !strcmp(sig, "TCGTCGTCGTCG") || !memcmp(sig, "KVMKVMKVM", 9);
}

static void bochs_port_write(const char *s)
{
	while (*s)
		outb(BOCHS_DEBUGGER_PORT, (uint8_t)*s++);
}

/* Power-off or reset did not happen: one line says why, and the machine stops where it is
 * (on a box, the last lines on the serial console or the screen say what to do). */
static noreturn void halt_saying(const char *what, const char *why)
{
	printk("sliver: %s: %s\n", what, why);
	printk("sliver: halted: switch the machine off by hand\n");
	console_drain(rdtsc() + (tsc_hz ? tsc_hz : 1ull << 32));
	for (;;)
		__asm__ volatile("cli; hlt");
}

noreturn void hv_exit(int status)
{
	irq_disable();
	/* Everything queued reaches the wire first, waiting at most the time the UART needs
	 * for the console's rings (48 KiB at 115200 baud: about 4.3 s), then the last line. */
	uint64_t deadline = rdtsc() + (tsc_hz ? tsc_hz * 6 : 1ull << 34);
	console_drain(deadline);
	printk("sliver: exit %d\n", status);
	console_drain(deadline);
	if (under_qemu())
		outb(QEMU_DEBUG_EXIT_PORT, (uint8_t)status);
	if (console_is_bochs())
		bochs_port_write(status == EXIT_PASS ? "D" : "Shutdown");
	halt_saying("power-off", acpi_poweroff());
}

noreturn void hv_reboot(void)
{
	irq_disable();
	uint64_t deadline = rdtsc() + (tsc_hz ? tsc_hz * 6 : 1ull << 34);
	console_drain(deadline);
	printk("sliver: reset\n");
	console_drain(deadline);
	halt_saying("reset", acpi_reset());
}
