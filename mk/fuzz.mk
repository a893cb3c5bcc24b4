# Host-side fuzzing (test/fuzz/README.md; `make fuzz` is the fuzzer guest, not this): one libFuzzer binary per firmware/input parser,
# linking the hypervisor's own sources (not copies), with ASan and UBSan.
#   make fuzz-host            every target for FUZZ_SECONDS (default 60) each
#   make fuzz-host-<target>   one target for FUZZ_TEST_SECONDS (in `make test`)
#   make fuzz-host-regress    replays test/fuzz/regress/<target>/* (crashes found and fixed)
# New inputs go to build/fuzz/corpus/<target>/ (the committed seeds are only read); crashes
# to build/fuzz/crash-<target>-*.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
# The issue's minute per target: about 5 minutes of `make test` on one core (CI: 2 cores,
# a 30-minute budget, about 3 minutes without these). Lower it for quick local runs.
FUZZ_TEST_SECONDS ?= 60
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(WARN) -Iinclude -I. -DHOST_TEST \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# -timeout: an input taking longer is a hang (the wrapped tag offset looped forever).
FUZZ_RUN_FLAGS := -timeout=10 -rss_limit_mb=1024 -print_final_stats=1

FUZZ_TARGETS := bootinfo memmap acpi elf cmdline
FUZZ_SRCS_bootinfo := core/bootinfo.c core/memmap.c
FUZZ_SRCS_memmap := core/memmap.c
FUZZ_SRCS_acpi := drivers/acpi_tables.c drivers/acpi_fadt.c
FUZZ_SRCS_elf := core/loader.c lib/fmt.c
FUZZ_SRCS_cmdline := lib/cmdline.c

define fuzz_rule
$(BUILD)/fuzz/fuzz_$(1): test/fuzz/fuzz_$(1).c test/fuzz/fuzz.h $$(FUZZ_SRCS_$(1))
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ test/fuzz/fuzz_$(1).c $$(FUZZ_SRCS_$(1))
fuzz-host-$(1): $(BUILD)/fuzz/fuzz_$(1)
	@mkdir -p $(BUILD)/fuzz/corpus/$(1)
	$$< $$(FUZZ_RUN_FLAGS) -max_total_time=$$(FUZZ_TEST_SECONDS) \
	    -artifact_prefix=$(BUILD)/fuzz/crash-$(1)- $(BUILD)/fuzz/corpus/$(1) test/fuzz/corpus/$(1)
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

fuzz-host:
	@set -e; for t in $(FUZZ_TARGETS); do \
	    $(MAKE) --no-print-directory fuzz-host-$$t FUZZ_TEST_SECONDS=$(FUZZ_SECONDS); done

# Every committed crash input must now pass (libFuzzer runs the files given, once each).
fuzz-host-regress: $(addprefix $(BUILD)/fuzz/fuzz_,$(FUZZ_TARGETS))
	@set -e; for t in $(FUZZ_TARGETS); do \
	    files=$$(find test/fuzz/regress/$$t -type f ! -name '*.md' 2>/dev/null | sort); \
	    [ -n "$$files" ] || continue; \
	    echo "== $$t: $$(echo $$files | wc -w) input(s)"; \
	    $(BUILD)/fuzz/fuzz_$$t -timeout=10 $$files; done

# Overrun tests for the parsers, shrunk from what the fuzzers found (cmocka, like mk/*.mk).
UNIT_TESTS += bootinfo acpi
UNIT_SRCS_bootinfo := test/unit/test_bootinfo.c core/bootinfo.c core/memmap.c
UNIT_SRCS_acpi := test/unit/test_acpi.c drivers/acpi_tables.c drivers/acpi_fadt.c

TEST_TARGETS += fuzz-host-regress $(addprefix fuzz-host-,$(FUZZ_TARGETS))
.PHONY: fuzz-host fuzz-host-regress $(addprefix fuzz-host-,$(FUZZ_TARGETS))

# Generated machines in the shapes real firmware ships (issue 26; test/unit/acpi_gen.c).
UNIT_TESTS += acpi_corpus
UNIT_SRCS_acpi_corpus := test/unit/test_acpi_corpus.c test/unit/acpi_gen.c \
	drivers/acpi_tables.c drivers/acpi_fadt.c drivers/spcr.c
# acpi-scan: the same parsers over a real machine's `acpidump` output (docs/metal.md).
$(BUILD)/acpi-scan: tools/acpi-scan.c test/unit/acpi_mem.h drivers/acpi_tables.c drivers/acpi_fadt.c drivers/spcr.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOSTCFLAGS) -o $@ $(filter %.c,$^)
