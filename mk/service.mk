# The service domain (guests/service): the privileged shell. Built like the other guests
# (guest_rule from mk/guests.mk).
GUEST_ELFS += $(BUILD)/guests/service.elf
$(eval $(call guest_rule,service))

# Hypervisor side: the service domain's calls, console input for it, debug keys.
HV_SRCS += core/service.c core/service_keys.c

# Every shell command through autorun (2 pCPUs), each output parsed. Twins (mk/e2e.mk):
# Bochs/VMX and QEMU/SVM (-svm).
e2e-service-shell_EXPECT = --expect '^sliver: run complete: PASS' --reject 'crashed|PANIC|refused' \
	    --expect '^\(d1\) service: d1 shell ready' --expect '^\(d1\)   lat +\[dom\]' \
	    --expect '^\(d1\) list d5 name=echo state=running role=guest vcpus=1 weight=256 cap=0 pcpu=0 mem_mib=4 cpu_pct=[0-9]+\.[0-9]$$' \
	    --expect '^\(d1\) reply from d6: seq=10 time_us=[0-9]+\.[0-9]{3}$$' \
	    --expect '^\(d1\) ping d6 n=10 lost=0 min_us=[0-9.]+ avg_us=[0-9]{1,3}\.[0-9]+ p50_us=[0-9.]+ p99_us=[0-9.]+ max_us=[0-9.]+ mdev_us=[0-9.]+ late=[0-9]+$$' \
	    --expect '^\(d1\) ping d5 n=20 lost=0 ' \
	    --expect '^\(d1\) lat d5v0 n=[1-9][0-9]* min_us=[0-9.]+ avg_us=[0-9.]+ p50_us=[0-9.]+ p90_us=[0-9.]+ p99_us=[0-9.]+ p999_us=[0-9.]+ max_us=[0-9.]+ mdev_us=[0-9.]+$$' \
	    --expect '^\(d1\) +[0-9]+-[0-9]+ +us \#+ +[1-9]' \
	    --expect '^\(d1\) sched d2 weight=512 cap=30$$' \
	    --expect '^\(d1\) sched: tslice_us=500 ok$$' \
	    --expect '^\(d1\) sched=credit credit.tslice_us=500 ' \
	    --expect "^\(d1\) error: profile=xen-credit1: invalid argument \(-22\)$$" \
	    --expect '^\(d1\) top t=1 d1=[0-9.]+% d2=(29|30|31)\.[0-9]% d3=' \
	    --expect '^\(d1\) list d2 name=spin1 state=running role=guest vcpus=1 weight=512 cap=30 ' \
	    --expect '^\(d1\) perf d5v0 pcpu=0 run_ms=[1-9][0-9]* wait_ms=[0-9]+ wakes=[1-9]' \
	    --expect '^\(d1\) exits d5 .*(VMCALL|VMMCALL)=[1-9]' \
	    --expect '^\(d1\) perf cpu1 idle_pct=[0-9]+ sched_calls=[1-9][0-9]* decision_n=' \
	    --expect '^\(d1\) trace cpu0 t_us=[0-9.]+ (wake|boost|switch) d5v0' \
	    --expect '^\(d1\) pin d4v0 cpus=0-1$$' --expect '^\(d1\) reset: counters of 5 cleared$$' \
	    --expect "^\(d1\) error: unknown command 'bogus'" --expect '^\(d1\) error: usage: ping' \
	    --expect "^\(d1\) error: sched: '1024' is not a domain id" \
	    --expect "^\(d1\) error: sched: bad argument 'weight=0'" \
	    --expect '^\(d1\) error: pause: d1 is this shell' --expect '^\(d1\) autorun: done$$'
$(eval $(call e2e_twin,e2e-service-shell,$(BUILD)/service.iso,--cpus 2 --timeout 300))

# The demo as `make run` boots it, with a run length added so that it ends.
$(BUILD)/demo-test.cfg: test/scenarios/demo.cfg
	@mkdir -p $(BUILD)
	sed 's|^multiboot2 .*|& run_ms=6000|' $< >$@
$(BUILD)/demo-test.iso: $(BUILD)/demo-test.cfg $(BUILD)/sliver.elf $(GUEST_ELFS) tools/mkiso.sh
	tools/mkiso.sh demo-test $< $(BUILD) $(GUEST_ELFS)
e2e-demo_EXPECT = --expect '^sliver: run complete: PASS' --reject 'crashed|PANIC|refused' \
	--expect '^\(d1\) ping d5 n=20 lost=0 ' --expect '^\(d1\) lat d5v0 n=[1-9]' \
	--expect '^\(d1\) top t=3 ' --expect '^\(d1\)   help ' --expect '^\(d1\) sliver> $$'
$(eval $(call e2e_twin,e2e-demo,$(BUILD)/demo-test.iso,--cpus 2 --timeout 300))

# A flooding guest is rate-limited; the others' lines and the hypervisor's still appear.
e2e-console-flood_EXPECT = --expect '^sliver: run complete: PASS' --reject 'crashed|PANIC' \
	--expect '^\(d1\) \[console rate limit: [1-9][0-9]* bytes dropped\]$$' \
	--expect '^\(d3\) spin iters=[0-9]+ rate=' --expect '^ping d2 n=[1-9][0-9]+ '
$(eval $(call e2e_twin,e2e-console-flood,$(BUILD)/console-flood.iso,--cpus 2 --timeout 300))

# A domain that ends owing a drop note gets it ("domain ended"): its last lines never vanish
# silently (a hostile run lost d1's last line to the rate limit that way).
e2e-console-end_EXPECT = $(E2E_END) --reject 'crashed' --expect '^sliver: d1 shutdown code=0$$' \
	--expect '^\(d1\) \[console rate limit: [1-9][0-9]* bytes dropped, domain ended\]$$'
$(eval $(call e2e_twin,e2e-console-end,$(BUILD)/console-end.iso,--cpus 1 --timeout 300))
