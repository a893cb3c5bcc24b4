# The fuzzer guest (guests/fuzz/, issue 8): one op loop (fuzz.c) built as a 32-bit guest on
# guests/lib (fuzz.elf) and as a 64-bit ELF64 guest on its own long-mode runtime
# (fuzz64.elf). Scenarios: test/scenarios/fuzz*.cfg.
FUZZ64_CFLAGS := -std=c11 -m64 -O2 -g $(WARN) -ffreestanding -nostdlib -nostdinc -fno-pic \
                 -fno-pie -static -fno-stack-protector -fno-builtin -mno-red-zone \
                 -mgeneral-regs-only -mcmodel=small -fno-asynchronous-unwind-tables \
                 -isystem $(shell $(CC) -print-file-name=include) -Iinclude -I. -MMD -MP
FUZZ64_SRCS := guests/fuzz/entry64.S guests/fuzz/rt64.c guests/fuzz/fuzz.c lib/string.c \
               lib/fmt.c lib/cmdline.c
FUZZ64_OBJS := $(patsubst %,$(BUILD)/guests/obj64/%.o,$(basename $(FUZZ64_SRCS)))
FUZZ32_OBJS := $(BUILD)/guests/obj/guests/fuzz/fuzz.o $(BUILD)/guests/obj/guests/fuzz/main32.o

GUEST_ELFS += $(BUILD)/guests/fuzz.elf $(BUILD)/guests/fuzz64.elf

# The runtime objects come in as prerequisites from mk/guests.mk (included after this file).
$(BUILD)/guests/fuzz.elf: $(FUZZ32_OBJS) guests/lib/guest.ld
	$(LD) $(GUEST_LDFLAGS) -o $@ $(filter %.o,$^)

$(BUILD)/guests/obj64/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ64_CFLAGS) -c -o $@ $<

$(BUILD)/guests/obj64/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -std=c11,$(FUZZ64_CFLAGS)) -D__ASSEMBLY__ -c -o $@ $<

$(BUILD)/guests/fuzz64.elf: $(FUZZ64_OBJS) guests/fuzz/fuzz64.ld
	$(LD) -m elf_x86_64 -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
	    --no-warn-rwx-segments -T guests/fuzz/fuzz64.ld -o $@ $(filter %.o,$^)
