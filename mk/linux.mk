# boot=linux (issue 28, docs/guests.md): the Linux x86 boot protocol (core/linuxboot.c, pure
# and host-tested; core/linux_load.c, its initrd and command line from the module lines).
HV_SRCS += core/linuxboot.c core/linux_load.c
UNIT_TESTS += linuxboot
UNIT_SRCS_linuxboot := test/unit/test_linuxboot.c core/linuxboot.c core/pcboot.c core/loader.c \
                       lib/cmdline.c lib/clockconv.c lib/fmt.c

# The kernel of Debian's linux-image-cloud-amd64 (tools/deps.sh installs it): /vmlinuz, the
# symlink its package keeps to the newest one.
LINUX_KERNEL ?= /vmlinuz
$(BUILD)/linux/initrd.cpio: tools/linux-initramfs.sh
	@mkdir -p $(@D)
	tools/linux-initramfs.sh $@
# The ISO: the scenario's files plus the kernel and the initramfs, named as linux.cfg says.
$(BUILD)/linux/vmlinuz: $(LINUX_KERNEL)
	@mkdir -p $(@D)
	cp -L $< $@
$(BUILD)/linux.iso $(BUILD)/linux-bios.iso: test/scenarios/linux.cfg $(BUILD)/sliver.elf $(GUEST_ELFS) \
		$(BUILD)/linux/vmlinuz $(BUILD)/linux/initrd.cpio tools/mkiso.sh
	tools/mkiso.sh linux $< $(BUILD) $(GUEST_ELFS) $(BUILD)/linux/vmlinuz $(BUILD)/linux/initrd.cpio
