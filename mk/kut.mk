# kvm-unit-tests, the x86 test suite KVM and QEMU run, as unmodified third-party boot=mb1
# guests (issue 13; docs/guests.md, "Third-party guests"). Not in `make test`: it clones
# the suite from the network. `make kut` clones it at a pinned commit into kut-src/,
# builds it and runs KUT_TESTS under KUT_EMU (qemu: SVM under TCG; bochs: VMX).
KUT_URL ?= https://gitlab.com/kvm-unit-tests/kvm-unit-tests.git
KUT_COMMIT ?= 1da1819e
# Outside build/: the suite has its own .d files, which the top Makefile would include.
KUT_DIR ?= kut-src
KUT_EMU ?= qemu
KUT_TESTS ?= msr tsc tsc_adjust smptest:2 apic:2 eventinj idt_test memory syscall umip xsave \
	debug setjmp hypercall pcid vmexit rmap_chain sieve
.PHONY: kut
$(KUT_DIR)/x86/msr.flat:
	[ -d $(KUT_DIR)/.git ] || git clone -q $(KUT_URL) $(KUT_DIR)
	git -C $(KUT_DIR) checkout -q $(KUT_COMMIT)
	cd $(KUT_DIR) && ./configure --arch=x86_64 >/dev/null && $(MAKE) -j2 >/dev/null
kut: all $(KUT_DIR)/x86/msr.flat
	tools/kut.sh -d $(KUT_DIR) -e $(KUT_EMU) $(KUT_TESTS)
