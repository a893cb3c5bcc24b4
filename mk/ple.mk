# PAUSE-loop exits and directed yield (issue 14). The lockstress scenario (4 vCPUs of one
# domain share a ticket lock next to a CPU hog on 2 pCPUs) runs twice, with sched.ple=off
# (test/scenarios/lockstress.cfg) and with sched.ple=directed (lockstress-directed.cfg,
# the same plus the key); tools/ple-compare passes when the directed run completes its
# 4000 acquisitions in less emulated time (Bochs clock: sync=none).
PLE_RUN := -- --emu bochs --cpus 2 --timeout 200
PLE_DONE := --reject 'crashed|refused' --expect '^sliver: d1 shutdown code=0$$' \
    --expect '^\(d1\) lockstress: done acq=4000 ms=[0-9]+ rate=[0-9]+/s spin_pct=[0-9]+$$'
e2e-ple: $(BUILD)/lockstress-bios.iso $(BUILD)/lockstress-directed-bios.iso
	tools/e2e.sh $@-off $(E2E_END) $(PLE_DONE) --reject 'PAUSE-loop exits on' \
	    $(PLE_RUN) $(BUILD)/lockstress-bios.iso
	tools/e2e.sh $@-directed $(E2E_END) $(PLE_DONE) \
	    --expect '^sliver: PAUSE-loop exits on \(sched.ple=directed' \
	    $(PLE_RUN) $(BUILD)/lockstress-directed-bios.iso
	tools/ple-compare build/e2e/$@-off.log build/e2e/$@-directed.log 1.5

TEST_TARGETS += e2e-ple
.PHONY: e2e-ple
