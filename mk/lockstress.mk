# guests/lockstress: the lock-holder-preemption workload (issue 14). 4 vCPUs share a ticket
# lock next to a CPU hog on 2 pCPUs; the run must complete its 4000 acquisitions with every
# vCPU taking part, and print the rate and lock-wait time (the baseline without PAUSE-loop
# exiting: the figures go to docs/BENCHMARKS.md once directed yield exists).
lockstress_expect = $(E2E_END) --reject 'crashed|refused' \
    --expect '^\(d1\) lockstress: d1 start vcpus=4 lock=ticket cs_us=5 think_us=20 count=$(1)$$$$' \
    --expect '^\(d1\) lockstress: v0 acq=[1-9][0-9]+ spin_us=[0-9]+$$$$' \
    --expect '^\(d1\) lockstress: v1 acq=[1-9][0-9]+ spin_us=[0-9]+$$$$' \
    --expect '^\(d1\) lockstress: v2 acq=[1-9][0-9]+ spin_us=[0-9]+$$$$' \
    --expect '^\(d1\) lockstress: v3 acq=[1-9][0-9]+ spin_us=[0-9]+$$$$' \
    --expect '^\(d1\) lockstress: done acq=$(1) ms=[0-9]+ rate=[0-9]+/s spin_pct=[0-9]+$$$$' \
    --expect '^sliver: d1 shutdown code=0$$$$'
e2e-lockstress_EXPECT = $(call lockstress_expect,4000)
e2e-lockstress: $(BUILD)/lockstress-bios.iso
	tools/e2e.sh $@ $(e2e-lockstress_EXPECT) -- --emu bochs --cpus 2 --timeout 150 $<
# The SVM twin: its own scenario (test/scenarios/lockstress-svm.cfg), 1000 acquisitions in at
# most 15 emulated seconds. QEMU's TCG has no PAUSE filter: ~177 acquisitions/s is the no-PLE
# baseline under SVM (docs/svm.md), so 4000 would not finish in the 8 s of the VMX run.
e2e-lockstress-svm: $(BUILD)/lockstress-svm-bios.iso
	tools/e2e.sh $@ $(call lockstress_expect,1000) -- --emu qemu --icount --cpus 2 --timeout 150 $<
SVM_TESTS += e2e-lockstress-svm
TEST_TARGETS += e2e-lockstress
.PHONY: e2e-lockstress e2e-lockstress-svm
