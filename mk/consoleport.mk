# The console device: Xen-style com1= / console= selection, ACPI SPCR, PCI 16550, and the
# multiboot2 framebuffer (docs/console.md, "Console device").
HV_SRCS += drivers/pci.c drivers/spcr.c drivers/comspec.c drivers/conport.c drivers/fb.c \
	drivers/font8x16.c

UNIT_TESTS += spcr
UNIT_SRCS_spcr := test/unit/test_spcr.c drivers/spcr.c
UNIT_TESTS += uart
UNIT_SRCS_uart := test/unit/test_uart.c drivers/uart16550.c
UNIT_TESTS += bootinfo_fb
UNIT_SRCS_bootinfo_fb := test/unit/test_bootinfo_fb.c core/bootinfo.c core/memmap.c
UNIT_TESTS += comspec
UNIT_SRCS_comspec := test/unit/test_comspec.c drivers/comspec.c lib/cmdline.c

# End-to-end (QEMU TCG, no VMX needed: the selftest scenario ends with `sliver: exit 0`).
# tools/console-test.py boots with -no-shutdown and reads the serial file and the screen.
CONPORT_TEST := timeout 500 tools/console-test.py
CONPORT_OK := --expect '^selftest: PASS' --expect '^sliver: hypervisor starting$$'
$(BUILD)/spcr-com2.bin: tools/mkspcr.py
	@mkdir -p $(dir $@)
	tools/mkspcr.py $@ --io 0x2f8 --baud 115200
# com1=...,0x2f8: the first QEMU port is null, the console is on the second.
e2e-console-com2: $(BUILD)/console-com2.iso
	$(CONPORT_TEST) $@ $(BUILD)/console-com2-bios.iso --serial-file --serial-index 1 \
	    $(CONPORT_OK) --expect '^console: com1 io 0x2f8 \(command line\), 115200 baud$$'
# Typed input on that port reaches the ring through its ISA IRQ (3), debug keys included.
e2e-console-com2-input: $(BUILD)/console-com2-input.iso
	$(CONPORT_TEST) $@ $(BUILD)/console-com2-input-bios.iso --serial-file --serial-index 1 \
	    --input test/e2e/input-hello.txt --expect '^console: com1 io 0x2f8' \
	    --expect '^selftest: debug key ran' --expect '^selftest: input "\#*hello\\x1d\."$$'
# No com1=: the ACPI SPCR table (added with -acpitable) points at 0x2F8.
e2e-console-spcr: $(BUILD)/selftest.iso $(BUILD)/spcr-com2.bin
	$(CONPORT_TEST) $@ $(BUILD)/selftest-bios.iso --serial-file --serial-index 1 \
	    --acpitable $(BUILD)/spcr-com2.bin \
	    $(CONPORT_OK) --expect '^console: com1 io 0x2f8 \(ACPI SPCR\), 115200 baud$$'
# com1=...,pci: no ISA port at all, a PCI 16550 (QEMU pci-serial, I/O BAR).
e2e-console-pci: $(BUILD)/console-pci.iso
	$(CONPORT_TEST) $@ $(BUILD)/console-pci-bios.iso --serial-file --pci-serial $(CONPORT_OK) \
	    --expect '^console: com1 pci [0-9a-f]{2}:[0-9a-f]{2}\.[0-7] io 0x[0-9a-f]+ \(command line\), 115200 baud$$'
# -serial none: no UART answers, the lines appear in BIOS EGA text mode (read from 0xB8000).
e2e-console-ega: $(BUILD)/selftest.iso
	$(CONPORT_TEST) $@ $(BUILD)/selftest-bios.iso --screen text \
	    --expect-screen '^console: no UART answers; framebuffer EGA text 80x25' \
	    --expect-screen '^selftest: PASS' --expect-screen '^sliver: exit 0$$'
# console=com1,vga: the EGA text screen equals the serial log drawn on an 80x25 terminal.
e2e-console-ega-same: $(BUILD)/console-vga.iso
	$(CONPORT_TEST) $@ $(BUILD)/console-vga-bios.iso --serial-file --screen text \
	    --same-as-serial $(CONPORT_OK)
# UEFI (OVMF GOP), console=com1,vga: the screendump, decoded glyph by glyph with
# drivers/font8x16.c, equals the serial log drawn on the framebuffer's grid.
e2e-console-gop: $(BUILD)/console-vga.iso
	$(CONPORT_TEST) $@ $(BUILD)/console-vga.iso --uefi --timeout 420 --serial-file \
	    --screen gop --same-as-serial $(CONPORT_OK) --expect 'framebuffer RGB'
# UEFI, -serial none: the fallback draws on the GOP framebuffer.
e2e-console-gop-fallback: $(BUILD)/selftest.iso
	$(CONPORT_TEST) $@ $(BUILD)/selftest.iso --uefi --timeout 420 --screen gop \
	    --expect-screen '^console: no UART answers; framebuffer RGB' \
	    --expect-screen '^selftest: PASS' --expect-screen '^sliver: exit 0$$'
CONSOLE_E2E := e2e-console-com2 e2e-console-com2-input e2e-console-spcr e2e-console-pci e2e-console-ega \
	e2e-console-ega-same e2e-console-gop e2e-console-gop-fallback
TEST_TARGETS += $(CONSOLE_E2E)
.PHONY: $(CONSOLE_E2E)
