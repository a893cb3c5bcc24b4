# guests/lockstress: the lock-holder-preemption workload (issue 14). 4 vCPUs share a ticket
# lock next to a CPU hog on 2 pCPUs; the run must complete its 4000 acquisitions with every
# vCPU taking part, and print the rate and lock-wait time (the baseline without PAUSE-loop
# exiting: the figures go to docs/BENCHMARKS.md once directed yield exists).
e2e-lockstress_EXPECT = $(E2E_END) --reject 'crashed|refused' \
    --expect '^\(d1\) lockstress: d1 start vcpus=4 lock=ticket cs_us=5 think_us=20 count=4000$$' \
    --expect '^\(d1\) lockstress: v0 acq=[1-9][0-9]+ spin_us=[0-9]+$$' \
    --expect '^\(d1\) lockstress: v3 acq=[1-9][0-9]+ spin_us=[0-9]+$$' \
    --expect '^\(d1\) lockstress: done acq=4000 ms=[0-9]+ rate=[0-9]+/s spin_pct=[0-9]+$$' \
    --expect '^sliver: d1 shutdown code=0$$'
$(eval $(call e2e_twin,e2e-lockstress,$(BUILD)/lockstress-bios.iso,--cpus 2 --timeout 150))
