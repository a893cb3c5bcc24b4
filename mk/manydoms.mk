# 100 domains (issue 10: the hypervisor's tables hold 1024 domains, domain sets are 1024
# bits). The hostile guest is d98 and its peer echo d99: the allow list, sender sets and
# the reply rule work past the first 64 ids; every domain is created and started, the
# spinner (d100) runs, the echo answers the hypervisor's pings. 97 idle domains of 2 MiB
# need more than sliver-run's default 256 MiB.
e2e-manydoms_EXPECT = $(E2E_END) --reject 'crashed|refused| BAD' \
    --expect '^sliver: booted by .*, 100 module\(s\)$$' \
    --expect '^\(d98\) hostile: two events to self coalesce: got 136 count=2 last=98 senders=self ok$$' \
    --expect '^\(d98\) hostile: event_send to domain 1024: got -3 ok$$' \
    --expect '^\(d98\) hostile: signal a port the other domain allowed, get its reply: got send 0, reply from 99 ok$$' \
    --expect '^\(d98\) hostile: summary ok=[0-9]+ bad=0$$' \
    --expect '^\(d97\) idle: d97 blocking$$' \
    --expect '^stat d100 name=spin state=running guest_ms=[0-9]{3,} ' \
    --expect '^ping d99 n=[0-9]{3,} '
$(eval $(call e2e_twin,e2e-manydoms,$(BUILD)/manydoms-bios.iso,--cpus 2 --mem 512 --timeout 300))
