# Configuration and failure paths (issue 8): bad words get one line each and the rest
# boots; a domain whose creation fails part way gives back every frame; the event-port
# access rules (core/evpolicy.c) host-tested.
UNIT_TESTS += evpolicy
UNIT_SRCS_evpolicy := test/unit/test_evpolicy.c core/evpolicy.c lib/cmdline.c lib/fmt.c

# Every bad word of test/scenarios/badconfig.cfg: one line each (counted by the _CHECK),
# then the good domains run. Both are twins (mk/e2e.mk): Bochs/VMX and QEMU/SVM (-svm).
e2e-config-bad_EXPECT = $(E2E_END) --reject 'crashed|tail=cut' \
	    --expect "^sliver: the command line is longer than 1023 characters: the rest was cut" \
	    --expect "^sliver: bad setting 'run_ms=18446744073709551615': out of range \(0\.\.1000000000\): using the default 0$$" \
	    --expect "^sliver: bad setting 'ping.interval_us=abc': not a number .*default 10000$$" \
	    --expect "^sliver: bad setting 'console.rate=-5': not a number \(0\.\.1000000\): using the default 2048$$" \
	    --expect "^sliver: bad setting 'vmm.break_ms=99999999999999999999999': does not fit in 64 bits .*default 100$$" \
	    --expect "^sliver: bad scheduler setting 'credit.tslice_us=0': ignored" \
	    --expect "^sliver: bad scheduler setting 'sched=nosuch': ignored" \
	    --expect "^sliver: unknown setting 'credit.profile=xen-credit1' \(a typo\?\): ignored$$" \
	    --expect "^sliver: unknown setting 'pingg.dom=2' \(a typo\?\): ignored$$" \
	    --expect "^sliver: bad setting 'ping.count=x1': not a number" \
	    --expect "^sliver: bad setting 'vmm.nmi_test_us=10ms': not a number" \
	    --expect "^sliver: unknown setting 'comment=c{40}\.\.\.' \(a typo\?\): ignored$$" \
	    --expect '^sliver: module 3 \(name=n{40}\) refused: name= is longer than 31 characters$$' \
	    --expect '^sliver: module 4 \(name=p1 pin=0,0,.*\) refused: pin= list is longer than 255 characters$$' \
	    --expect '^sliver: module 5 \(name=p2 pin=0-x\) refused: pin= must be a CPU list' \
	    --expect '^sliver: module 6 \(name=c1 cap=150\) refused: cap= must be 0\.\.100 ' \
	    --expect '^sliver: module 8 \(name=svc2 role=service\) refused: role=service: d7 is the service domain already$$' \
	    --expect '^sliver: module 9 \(name=spin\) refused: name=spin is taken by d1$$' \
	    --expect '^sliver: module 10: command line longer than 1023 characters: the rest was cut$$' \
	    --expect '^sliver: d64 i64: 32-bit ELF' \
	    --expect "^sliver: d2: evt.allow item '1:nosuch': no such domain: ignored" \
	    --expect '^sliver: d63 i63: 32-bit ELF' --expect '^\(d63\) idle: d63 blocking' \
	    --expect '^\(d7\) service: d7 shell ready' --expect '^sliver: run_ms reached' \
	    --expect '^\(d1\) spin iters=[0-9]+ rate=[0-9]{6,}/s'
# Every ping answered under Bochs; under QEMU TCG (one thread for all vCPUs, 64 domains on
# 2 pCPUs) a ping now and then times out (lost=1 seen once in CI): up to 2 of ~49 lost.
e2e-config-bad_VMX = --expect '^ping d2 n=[1-9][0-9]+ lost=0 '
e2e-config-bad_SVM = --expect '^ping d2 n=[1-9][0-9]+ lost=[0-2] '
e2e-config-bad_CHECK = @n=$$(grep -cE "^sliver: (bad setting|bad scheduler setting|unknown setting|module [0-9]+ .*refused|module [0-9]+: command line|the command line is longer|warning: .* module|d[0-9]+: evt.allow)" build/e2e/$@.log); \
	  [ "$$n" = 20 ] || { echo "e2e $@: $$n configuration lines, expected exactly 20 (one per bad word)"; exit 1; }
$(eval $(call e2e_twin,e2e-config-bad,$(BUILD)/badconfig-bios.iso,--cpus 2 --timeout 150))

# vmm.create_loop=40: creations from module 1 with each frame allocation failed in turn,
# every success undone; the free-frame count must come back exactly.
e2e-config-createloop_EXPECT = $(E2E_END) --reject 'crashed|refused|LEAK' \
	    --expect '^sliver: create loop n=40 allocations=[1-9][0-9]* created=[1-9][0-9]* failed=[1-9][0-9]* frames before=([0-9]+) after=\1$$' \
	    --expect '^sliver: d1 spin: 32-bit ELF' --expect '^sliver: d2 echo: 32-bit ELF' \
	    --expect '^\(d1\) spin iters=[0-9]+ rate=[0-9]{6,}/s' --expect '^\(d2\) echo: d2 ready'
$(eval $(call e2e_twin,e2e-config-createloop,$(BUILD)/create-loop-bios.iso,--cpus 2 --timeout 150))
