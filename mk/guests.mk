# Test guests (guests/): separate 32-bit freestanding ELF images, linked at 1 MiB
# guest-physical by guests/lib/guest.ld. They include only include/sliver/, guests/lib
# and lib/.
GUEST_NAMES   := spinner echo idle hostile lm64 lockstress lapic exitbench storm
GUEST_CC      := $(CC)
GUEST_CFLAGS  := -std=c11 -m32 -march=i686 -O2 -g $(WARN) -ffreestanding -nostdlib -nostdinc \
                 -fno-pic -fno-pie -static -fno-stack-protector -fno-builtin \
                 -fno-asynchronous-unwind-tables -mno-sse -mno-mmx -mno-80387 \
                 -isystem $(shell $(CC) -print-file-name=include) -Iinclude -I. -MMD -MP
GUEST_LDFLAGS := -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
                 -T guests/lib/guest.ld
GUEST_LIB_SRCS := guests/lib/entry.S guests/lib/isr.S guests/lib/rt.c guests/lib/idt.c \
                  guests/lib/clock.c guests/lib/libgcc32.c lib/string.c lib/fmt.c lib/cmdline.c
GUEST_LIB_OBJS := $(patsubst %,$(BUILD)/guests/obj/%.o,$(basename $(GUEST_LIB_SRCS)))

GUEST_ELFS += $(patsubst %,$(BUILD)/guests/%.elf,$(GUEST_NAMES)) $(BUILD)/guests/notelf.elf

$(BUILD)/guests/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -c -o $@ $<

$(BUILD)/guests/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(filter-out -std=c11,$(GUEST_CFLAGS)) -D__ASSEMBLY__ -c -o $@ $<

# Each guest: guests/<name>/<name>.c plus any other .c/.S files in its folder.
guest_objs = $(patsubst %,$(BUILD)/guests/obj/%.o,$(basename $(wildcard guests/$(1)/*.c guests/$(1)/*.S)))
define guest_rule
$(BUILD)/guests/$(1).elf: $(call guest_objs,$(1)) $(GUEST_LIB_OBJS) guests/lib/guest.ld
	$$(LD) $$(GUEST_LDFLAGS) -o $$@ $$(filter %.o,$$^)
endef
$(foreach g,$(GUEST_NAMES),$(eval $(call guest_rule,$(g))))
# The fuzzer's 32-bit image (its own rule in mk/fuzz-guest.mk) links the same runtime.
$(BUILD)/guests/fuzz.elf: $(GUEST_LIB_OBJS)

# Not an ELF at all: the hostile scenario checks that the loader refuses it.
$(BUILD)/guests/notelf.elf:
	@mkdir -p $(dir $@)
	printf 'This is not an ELF image: the loader must refuse it.\n' >$@

.PHONY: guests
guests: $(GUEST_ELFS)
