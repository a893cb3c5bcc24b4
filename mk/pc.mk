# The PC domains' devices (issue 27, core/pc.h): IOAPIC, CMOS/RTC (from the host's RTC,
# drivers/rtc.c), PIT, resets and the firmware, pc-testdev, emulated and unassigned MMIO.
HV_SRCS += core/mmio.c core/pc_ioapic.c core/pc_cmos.c core/pc_pit.c core/pc_reset.c \
	core/pc_testdev.c core/pc_load.c core/pc_pic.c drivers/rtc.c

# guests/pc: the minimal PC for unmodified third-party guests (issue 13, docs/guests.md).
# pc.elf is a multiboot1 kernel (boot=mb1), pc-real.bin a flat real-mode binary
# (boot=real); neither uses the sliver-ABI runtime of guests/lib (only its libgcc32 for
# 64-bit division, its IDT (isr.S, idt.c) and the cpu.h/apic.h helpers).
PC_GUEST_OBJS := $(patsubst %,$(BUILD)/guests/obj/guests/pc/%.o,mb1_entry pc apic devices reset ap lm) \
                 $(patsubst %,$(BUILD)/guests/obj/%.o,lib/fmt lib/string lib/cmdline guests/lib/libgcc32 \
                   guests/lib/isr guests/lib/idt)
$(BUILD)/guests/pc.elf: $(PC_GUEST_OBJS) guests/lib/guest.ld
	$(LD) $(GUEST_LDFLAGS) -o $@ $(filter %.o,$^)
$(BUILD)/guests/pc-real.bin: $(BUILD)/guests/obj/guests/pc/real.o
	$(LD) -m elf_i386 -nostdlib -static -Ttext=0x8000 --oformat binary -o $@ $<
# modpat.bin: the data of the boot=mb1 guest's extra modules (mb1.module_of=).
$(BUILD)/guests/modpat.bin: $(BUILD)/guests/obj/guests/pc/modpat.o
	objcopy -O binary -j .data $< $@
GUEST_ELFS += $(BUILD)/guests/pc.elf $(BUILD)/guests/pc-real.bin $(BUILD)/guests/modpat.bin

# boot=mb1 with 2 vCPUs next to a sliver-ABI spinner and two multiboot1 modules of it
# (mb1.module_of=pc: no domains d3/d4): every check of pc.c, apic.c and devices.c ok (its
# memory map, the modules' bytes and lines in order, the LAPIC timer's three modes, the AP
# started by INIT-SIPI-SIPI into long mode, IPIs both ways, port 0x92, CMOS/RTC, the PIT
# with port 0x61, unassigned MMIO and pc-testdev, the IOAPIC, IA32_APIC_BASE moved), then
# reset.c's three resets and four boots (issue 27), long mode, exit status 42 through 0xf4.
e2e-pc-mb1_EXPECT = $(E2E_END) --reject 'BAD|crashed|refused' \
    --expect '^sliver: d1 pc: multiboot1 entry=0x10[0-9a-f]{4} mem=8 MiB vcpus=2 ' \
    --reject '^stat d[34] ' \
    --expect '^sliver: d1 pc: multiboot1 module 1 at 0x[0-9a-f]+000-0x[0-9a-f]+ \(5000 bytes\)$$' \
    --expect '^sliver: d1 pc: multiboot1 module 2 at 0x[0-9a-f]+000-0x[0-9a-f]+ \(5000 bytes\)$$' \
    --expect "^\(d1\) pc: mb1 info: got flags=[0-9a-f]*4d mem_lower=636 mem_upper=7168 cmdline='pc cpus=2 status=42 resets=1 mods=2 modlen=5000 modcl1=initrd=one modcl2=second_x=1' ok$$" \
    --expect '^\(d1\) pc: mb1 mmap: got 0\+9f000:1 9f000\+61000:2 100000\+700000:1 ok$$' \
    --expect '^\(d1\) pc: mb1 mods_count: got 2 ok$$' \
    --expect "^\(d1\) pc: mb1 module 1: got 0x[0-9a-f]+000\+5000 after 0x[0-9a-f]+, 0 bytes differ, 'initrd=one' ok$$" \
    --expect "^\(d1\) pc: mb1 module 2: got 0x[0-9a-f]+000\+5000 after 0x[0-9a-f]+, 0 bytes differ, 'second x=1' ok$$" \
    --expect '^\(d1\) pc: acpi madt cpus: got 2 ok$$' \
    --expect '^\(d1\) pc: fw_cfg: got QEMU cpus=2 ok$$' \
    --expect '^\(d1\) pc: pic as the firmware left it, then masked: got fa/ff ok$$' \
    --expect '^\(d1\) pc: pm timer 1 ms / 2 ms in TSC ticks: got [0-9]+/[0-9]+ .* ok$$' \
    --expect '^\(d1\) pc: IA32_MISC_ENABLE fast strings: got 1801/1800/1801 ok$$' \
    --expect '^\(d1\) pc: IA32_TSC write: got .* ok$$' \
    --expect '^\(d1\) pc: cpuid PDCM hidden, leaf 0xA zero: got 0/0 ok$$' \
    --expect '^\(d1\) pc: IA32_APIC_BASE: got 0xfee00900 \(moved: devices.c\) ok$$' \
    --expect '^\(d1\) pc: lapic id/version/svr: got cpuid.apic=1 id=0 ver=0x60014 svr 0x1ff then 0x1ff ok$$' \
    --expect '^\(d1\) pc: lapic timer one-shot 1 ms: got 1 irq after [0-9]+ us try [1-3] ok$$' \
    --expect '^\(d1\) pc: lapic timer periodic 500 us: got [0-9]+ irqs, the last in period [0-9]+ of 20 ms \(want 37..[0-9]+\)(, a period counted twice)?( \(QEMU TCG\))? try [1-3] ok$$' \
    --expect '^\(d1\) pc: lapic timer TSC-deadline 1 ms: got 1 irq after [0-9]+ us, msr then 0x0 try [1-3] ok$$' \
    --expect '^\(d1\) pc: lapic timer TSC-deadline already due: got 1 irq at once, 1 after 2 ms, msr then 0x0 try [1-3] ok$$' \
    --expect '^\(d1\) pc: lapic timer TSC-deadline follows an IA32_TSC write: got 1 irq [0-9]+ us after the write try [1-3] ok$$' \
    --expect '^\(d1\) pc: AP by INIT-SIPI-SIPI in long mode: got up=1 efer=0x500 ok$$' \
    --expect '^\(d1\) pc: lapic self-IPI: got 1 ok$$' \
    --expect '^\(d1\) pc: fixed IPI to the AP and its reply: got 10/10 ok$$' \
    --expect '^\(d1\) pc: port 0x92: got 0x2 ok$$' \
    --expect '^\(d1\) pc: cmos A/B/D, memory above 1 MiB: got 26/2/80 7168 KiB ok$$' \
    --expect '^\(d1\) pc: rtc fields \(BCD, 24 h\): got (19|20|21)[0-9]{2}-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9] ok$$' \
    --expect '^\(d1\) pc: rtc set to 2099-12-31 23:59:59, 1.2 s later: got 2100-01-01 00:00:0[01] ok$$' \
    --expect '^\(d1\) pc: pit counter 2 mode 0, 10 ms: got [0-9]+ us, count [0-9]+ then [0-9]+, [0-9]+ refresh toggles try [1-3] ok$$' \
    --expect '^\(d1\) pc: pit counter 0 at 1 ms through the 8259 \(IRQ 0\): got (18|19|20|21) irqs in 20 ms, isr 0x0 try [1-3] ok$$' \
    --expect '^\(d1\) pc: unassigned MMIO and port: got ffffffff ffffffff ff port ff ok$$' \
    --expect '^\(d1\) pc: pc-testdev iomem: got deadbeef 1234 0 ok$$' \
    --expect '^\(d1\) pc: ioapic in the MADT, version, ID: got 0xfec00000 ver 0x170011 id 0x0 then 0xf000000 arb 0xf000000 ok$$' \
    --expect '^\(d1\) pc: ioapic edge interrupt: got 1 then 1 ok$$' \
    --expect '^\(d1\) pc: ioapic level interrupt \(masked, unmasked, again\): got 0/1/2 tmr 1 remote_irr 0 ok$$' \
    --expect '^\(d1\) pc: IA32_APIC_BASE moved to 0xfed40000: got version 0x60014 there, 0xffffffff at 0xfee00030, reserved bit \#GP=1 ok$$' \
    --expect '^sliver: d1 soft reset through port 0x92$$' \
    --expect '^sliver: d1 firmware: shutdown code 0xa, resume at 0000:7100$$' \
    --expect '^sliver: d1 soft reset through the 8042 \(pulse\)$$' \
    --expect '^sliver: d1 hard reset through 0xcf9$$' \
    --expect '^\(d1\) pc: reset 1 by port 0x92: resumed at 40:67, then booted again: got resumed=1 port92=0x3 shutdown=0x0 ok$$' \
    --expect '^\(d1\) pc: reset 2 by INIT to the BSP: booted again: got port92=0x3 ok$$' \
    --expect '^\(d1\) pc: reset 3 by 0xcf9 \(hard\): port 0x92 bit 0 cleared: got port92=0x2 after 4 boots ok$$' \
    --expect '^\(d1\) pc: long mode: got EFER.LMA=1, PM timer moving ok$$' \
    --expect '^sliver: d1 exited status=42$$' \
    --expect '^stat d1 mmio_other=5$$' \
    --expect '^stat d2 name=spin state=running guest_ms=[0-9]+ '
$(eval $(call e2e_twin,e2e-pc-mb1,$(BUILD)/pc-mb1-bios.iso,--cpus 2 --timeout 150))

# boot=real: the flat binary at 0x8000 in real mode, exit status 17 (0x11); modules that
# are not valid images for their boot= are refused with one line each, and so are bad
# multiboot1 modules (mb1.module_of=) and boot=mb1 domains whose modules do not fit (their
# modules say nothing: modules 11-27 and 29).
e2e-pc-real_EXPECT = $(E2E_END) --reject 'BAD|crashed' \
    --expect '^sliver: d1 real: real-mode entry=0x8000 mem=2 MiB vcpus=1 ' \
    --expect '^\(d1\) pc-real: hello from real mode$$' \
    --expect '^\(d1\) pc-real: cr0.pe=0 cs=0800 bda=636 ok$$' \
    --expect '^sliver: d1 exited status=17$$' \
    --expect '^sliver: module 2 \(boot=mb1 name=nomb1\) refused: no multiboot1 header in the first 8 KiB$$' \
    --expect '^sliver: module 3 \(boot=real name=highreal\) refused: segment 0 at 0x100000\+0x[0-9a-f]+ outside guest memory \[0x500, 0x9f000\)$$' \
    --expect '^sliver: module 4 \(boot=bios name=bogus\) refused: boot= must be sliver, mb1, real or linux$$' \
    --expect '^sliver: module 5 \(boot=real name=noload load=0x100\) refused: boot=real image of [0-9]+ bytes at 0x100 outside' \
    --expect '^sliver: module 6 \(mb1.module_of=nosuch\) refused: mb1.module_of=nosuch names no boot=mb1 module$$' \
    --expect '^sliver: module 7 \(mb1.module_of=real\) refused: mb1.module_of=real names no boot=mb1 module$$' \
    --expect '^sliver: module 8 \(mb1.module_of=\) refused: mb1.module_of= must be the name of a boot=mb1 domain \(1-31 characters\)$$' \
    --expect '^sliver: module 9 \(mb1.module_of=a+\) refused: mb1.module_of= must be the name' \
    --expect '^sliver: module 10 \(boot=mb1 name=greedy mem=2\) refused: 17 multiboot1 modules \(mb1.module_of=\): at most 16$$' \
    --expect '^sliver: module 28 \(boot=mb1 name=big mem=2\) refused: multiboot1 module 1 \([0-9]+ bytes\) does not fit in guest memory at 0x[0-9a-f]+ \(mem 0x200000\)$$' \
    --reject '^sliver: module (1[1-9]|2[0-79]) '
$(eval $(call e2e_twin,e2e-pc-real,$(BUILD)/pc-real-bios.iso,--cpus 2 --timeout 150))
