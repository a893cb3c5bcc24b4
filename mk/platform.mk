# Platform: lib, boot, arch/x86_64 (without vmx/), drivers, core platform services.
HV_SRCS += boot/multiboot2.S boot/ap_trampoline.S \
	arch/x86_64/isr.S arch/x86_64/idt.c arch/x86_64/gdt.c arch/x86_64/lapic.c \
	arch/x86_64/tsc.c arch/x86_64/timer_hw.c arch/x86_64/smp.c arch/x86_64/panic.c \
	arch/x86_64/power.c \
	drivers/uart16550.c drivers/console.c drivers/pit.c drivers/pic.c drivers/acpi.c \
	core/main.c core/bootinfo.c core/memmap.c core/mm.c core/timerq.c core/timer.c \
	core/selftest.c \
	lib/string.c lib/fmt.c lib/cmdline.c lib/clockconv.c

UNIT_TESTS += fmt cmdline memmap timerq clockconv
UNIT_SRCS_fmt := test/unit/test_fmt.c lib/fmt.c
UNIT_SRCS_cmdline := test/unit/test_cmdline.c lib/cmdline.c
UNIT_SRCS_memmap := test/unit/test_memmap.c core/memmap.c core/bootinfo.c
UNIT_SRCS_timerq := test/unit/test_timerq.c core/timerq.c
UNIT_SRCS_clockconv := test/unit/test_clockconv.c lib/clockconv.c
