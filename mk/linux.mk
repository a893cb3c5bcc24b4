# boot=linux (issue 28, docs/guests.md): the Linux x86 boot protocol (core/linuxboot.c, pure
# and host-tested; core/linux_load.c, its initrd and command line from the module lines).
HV_SRCS += core/linuxboot.c core/linux_load.c
UNIT_TESTS += linuxboot
UNIT_SRCS_linuxboot := test/unit/test_linuxboot.c core/linuxboot.c core/pcboot.c core/loader.c \
                       lib/cmdline.c lib/clockconv.c lib/fmt.c

# The kernel of Debian's linux-image-cloud-amd64 (tools/deps.sh installs it): /vmlinuz, the
# symlink its package keeps to the newest one.
# Without it the test fails (the project has no skipped state), saying so in one line.
LINUX_KERNEL ?= /vmlinuz
$(BUILD)/linux/initrd.cpio: tools/linux-initramfs.sh guests/linux/uart-echo.c
	@mkdir -p $(@D)
	tools/linux-initramfs.sh $@
# The ISO: the scenario's files plus the kernel and the initramfs, named as linux.cfg says.
$(BUILD)/linux/vmlinuz: $(wildcard $(LINUX_KERNEL))
	@test -e $(LINUX_KERNEL) || { echo "e2e-linux: FAIL: no kernel at $(LINUX_KERNEL)" \
	    "(Debian's linux-image-cloud-amd64: make deps, or LINUX_KERNEL=<a bzImage>)"; exit 1; }
	@mkdir -p $(@D)
	cp -L $(LINUX_KERNEL) $@
# A bzImage that boots into garbage: the kernel's setup header with init_size 1 MiB and 4 KiB
# of 0xFF (an invalid opcode: #UD with no IDT, a triple fault) as its protected-mode code.
$(BUILD)/linux/badkernel: $(BUILD)/linux/vmlinuz
	python3 -c 'import sys,struct; d=bytearray(open(sys.argv[1],"rb").read()); \
	    n=((d[0x1f1] or 4)+1)*512; d[0x260:0x264]=struct.pack("<I",1<<20); \
	    open(sys.argv[2],"wb").write(bytes(d[:n])+b"\xff"*4096)' $< $@
# GUEST_ELFS in a second expansion ($$): files read after this one (mk/pc.mk,
# mk/service.mk) add guests to it, and a rule's prerequisites are otherwise expanded when
# the rule is read (`make e2e-linux-echo-svm` alone, on a fresh tree, missed pc.elf).
LINUX_ISO_DEPS = $(BUILD)/sliver.elf $$(GUEST_ELFS) $(BUILD)/linux/vmlinuz $(BUILD)/linux/initrd.cpio \
                 $(BUILD)/linux/badkernel tools/mkiso.sh
.SECONDEXPANSION:
$(BUILD)/linux.iso $(BUILD)/linux-bios.iso: test/scenarios/linux.cfg $(LINUX_ISO_DEPS)
	tools/mkiso.sh linux $< $(BUILD) $(GUEST_ELFS) $(filter $(BUILD)/linux/%,$^)
$(BUILD)/linux-%.iso $(BUILD)/linux-%-bios.iso: test/scenarios/linux-%.cfg $(LINUX_ISO_DEPS)
	tools/mkiso.sh linux-$* $< $(BUILD) $(GUEST_ELFS) $(filter $(BUILD)/linux/%,$^)

# The kernel boots to /init, which prints its marker with the kernel's uptime and powers
# off through ACPI S5; the run ends at run_ms. The check prints the time to userspace in
# emulated time (docs/BENCHMARKS.md): the kernel's own uptime at /init and the domain's time
# from its start to the power-off (/init powers off right after its marker).
e2e-linux_EXPECT = $(E2E_END) --reject 'crashed|refused|Kernel panic|BUG:|Oops|unchecked MSR|Call Trace' \
    --expect '^sliver: d1 linux: Linux bzImage entry=0x100000 mem=128 MiB vcpus=1 ' \
    --expect '^\(d1\) \[ *[0-9.]+\] Run /init as init process$$' \
    --expect '^\(d1\) linux-init: userspace up, uptime [0-9.]+ s, 1 cpus$$' \
    --expect '^\(d1\) linux-init: PASS$$' \
    --expect '^sliver: d1 ACPI S5: powered off [0-9.]+ ms after its start$$' \
    --expect '^sliver: d1 exited status=0$$'
e2e-linux_CHECK = @tools/linux-boot-time build/e2e/$@.log
$(eval $(call e2e_twin,e2e-linux,$(BUILD)/linux-bios.iso,--cpus 2 --timeout 170))

# 2 vCPUs (Linux starts the AP by INIT-SIPI-SIPI through the virtual LAPIC), a reboot
# through the 8042 into the same kernel (the RTC tells /init it is the second boot), the
# refusals, and a bzImage whose code is garbage (badkernel, d6): its triple fault at the
# 32-bit entry crashes that domain with a dump (ESI = the zero page) and nothing else. Under
# QEMU/SVM only (Bochs runs two busy vCPUs at about 1.6x the wall time).
e2e-linux-smp-svm: $(BUILD)/linux-smp-bios.iso
	tools/e2e.sh $@ $(E2E_END) --reject 'd1 crashed|Kernel panic|BUG:|Oops|unchecked MSR|Call Trace' \
	    --expect '^sliver: d6 crashed: triple fault$$' \
	    --expect '^sliver: d6v0 rip=0000000000100000 ' \
	    --expect '^sliver: d6v0 rsi=0000000000007000 ' \
	    --expect '^sliver: d1 linux: Linux bzImage entry=0x100000 mem=128 MiB vcpus=2 ' \
	    --expect '^sliver: module 3 \(boot=linux name=notbz mem=128\) refused: not a bzImage: no boot flag 0xaa55 and "HdrS" setup header$$' \
	    --expect '^sliver: module 4 \(boot=linux name=small mem=32\) refused: kernel does not fit: it needs memory up to 0x[0-9a-f]+ \(init_size 0x[0-9a-f]+ at 0x1000000\), mem is 0x2000000$$' \
	    --expect '^sliver: module 5 \(initrd_of=nosuch\) refused: initrd_of=nosuch names no boot=linux module$$' \
	    --expect '^\(d1\) \[ *[0-9.]+\] smp: Brought up 1 node, 2 CPUs$$' \
	    --expect '^\(d1\) linux-init: userspace up, uptime [0-9.]+ s, 2 cpus$$' \
	    --expect '^\(d1\) linux-init: PASS$$' \
	    --expect '^\(d1\) linux-init: RTC set to 2060, rebooting$$' \
	    --expect '^sliver: d1 soft reset through the 8042 \(pulse\)$$' \
	    --expect '^sliver: d1 firmware: boot again \(image reloaded\)$$' \
	    --expect '^\(d1\) linux-init: booted again, RTC year 2060$$' \
	    --reject 'linux-init: FAIL' \
	    --expect '^sliver: d1 ACPI S5: powered off [0-9.]+ ms after its start$$' \
	    --expect '^sliver: d1 exited status=0$$' \
	    -- --emu qemu --icount --cpus 2 --timeout 170 $<
	@tools/linux-boot-time build/e2e/$@.log
SVM_TESTS += e2e-linux-smp-svm
.PHONY: e2e-linux-smp-svm

# The emulated COM1's registers (core/vuart.c: the receive FIFO of the UART ping, issue 28
# item 4), pure and host-tested.
HV_SRCS += core/vuart.c
UNIT_TESTS += vuart
UNIT_SRCS_vuart := test/unit/test_vuart.c core/vuart.c

# The UART echo (issue 28 item 4): Linux's /init runs uart-echo on ttyS0 and the hypervisor
# pings it through COM1 (ping.uart=1): 200 pings, every one answered, then uart-echo exits
# and Linux powers off. The ping line is the 2006 experiment's figure with a real kernel;
# the share line says the domain's CPU time while the pings ran. Bochs/VMX (e2e-linux-echo)
# and QEMU/SVM (e2e-linux-echo-svm).
e2e-linux-echo_EXPECT = $(E2E_END) --reject 'crashed|refused|Kernel panic|BUG:|Oops|Call Trace|uart-echo: (read|write|raw mode|/dev/ttyS0):' \
    --expect '^sliver: ping d1 through COM1 from pCPU 1 every 5000 \+- 500 us from 14000 ms$$' \
    --expect '^\(d1\) \[ *[0-9.]+\] serial8250: ttyS0 at I/O 0x3f8 \(irq = 4, base_baud = 115200\) is a 16550A$$' \
    --expect '^\(d1\) uart-echo: ready duty=0/0 count=200 fifo=1$$' \
    --expect '^\(d1\) uart-echo: answered 200 bytes$$' \
    --expect '^sliver: d1 ACPI S5: powered off [0-9.]+ ms after its start$$' \
    --expect '^ping d1 n=200 lost=0 ' \
    --expect '^ping share window_ms=[0-9]+ d1=[0-9]+\.[0-9]$$'
e2e-linux-echo_CHECK = @grep -h '^ping ' build/e2e/$@.log
$(eval $(call e2e_twin,e2e-linux-echo,$(BUILD)/linux-echo-bios.iso,--cpus 2 --timeout 300))

# The 2006 table with a real kernel (docs/BENCHMARKS.md "Linux echo through the UART"): Linux
# running uart-echo with a duty cycle next to two spinners on one pCPU, under sched=credit,
# credit1 and eevdf (tools/linux-echo-table.sh; EMU=bochs ROWS= POLICIES= COUNT= pass through).
bench-linux-echo: $(BUILD)/linux/vmlinuz $(BUILD)/linux/initrd.cpio
	$(MAKE) BUILD=$(RELEASE_BUILD) RELEASE=1 all
	tools/linux-echo-table.sh
.PHONY: bench-linux-echo
