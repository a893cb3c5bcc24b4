#include "arch/x86_64/power.h"
#include "arch/x86_64/cpu.h"
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

noreturn void hv_exit(int status)
{
	irq_disable();
	printk("sliver: exit %d\n", status);
	console_drain();
	if (under_qemu())
		outb(QEMU_DEBUG_EXIT_PORT, (uint8_t)status);
	if (console_is_bochs())
		bochs_port_write(status == EXIT_PASS ? "D" : "Shutdown");
	acpi_poweroff();
	for (;;)
		__asm__ volatile("cli; hlt");
}
