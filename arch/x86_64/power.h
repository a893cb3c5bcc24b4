/* Ending a run: write out what the console has queued (bounded wait), print
 * `sliver: exit <status>`, drain the UART and power off. */
#ifndef ARCH_X86_64_POWER_H
#define ARCH_X86_64_POWER_H
#include <stdnoreturn.h>

#define EXIT_PASS  0
#define EXIT_FAIL  1 /* a test or check failed */
#define EXIT_PANIC 2 /* hypervisor bug or CPU exception */
#define EXIT_NO_HV 3 /* this CPU cannot run guests */

/* Powers off through, in order: QEMU's isa-debug-exit (port 0xf4, exit code status*2+1),
 * Bochs' debugger port 0x8900 (exit 0 for status 0, else 1), ACPI S5. If all fail: one
 * line with the reason (`sliver: power-off: no \_S5 in DSDT or SSDTs`), one saying the
 * machine is halted, and it halts. */
noreturn void hv_exit(int status);
/* Reboots through the FADT reset register, port 0xCF9, the 8042 (drivers/acpi.c); if none
 * works, one line says why and the machine halts as above. */
noreturn void hv_reboot(void);

#endif
