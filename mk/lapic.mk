# guests/lapic: the virtual local APIC (core/vlapic*.c; issue 13). Every check of d1 ok
# (xAPIC page, then x2APIC MSRs; NMIs sent while vCPU 1 handles one wait for its IRET:
# nmi_blocking), the garbage domain survives and shuts down cleanly, the domain without
# lapic=1 crashes on its first APIC page access and nothing else does.
UNIT_TESTS += insn_mov gwalk
UNIT_SRCS_insn_mov := test/unit/test_insn_mov.c core/insn_mov.c
UNIT_SRCS_gwalk := test/unit/test_gwalk.c core/gwalk.c

e2e-lapic_EXPECT = $(E2E_END) --reject '^\(d[12]\) .*BAD|d[124] crashed' \
    --expect '^sliver: d1 lapic: 32-bit ELF .* lapic$$' \
    --expect '^\(d1\) lapic: apic_base: got 0xfee00900 ok$$' \
    --expect '^\(d1\) lapic: eoi_order: got 72,61,50 ppr_in_72=0x70 nested=0 ok$$' \
    --expect '^\(d1\) lapic: oneshot: got 1 irq after [0-9]+ us, .* ok$$' \
    --expect '^\(d1\) lapic: periodic: got [0-9]+ in 20 ms .* ok$$' \
    --expect '^\(d1\) lapic: tscdeadline: got 1 irq after [0-9]+ us, .* ok$$' \
    --expect '^\(d1\) lapic: ipi_to_v1: got 10 ok$$' \
    --expect '^\(d1\) lapic: nmi_ipi: got 1 ok$$' \
    --expect '^\(d1\) lapic: nmi_blocking: got 2 of 1\+[123] \(1 in the handler\) depth=1 ok$$' \
    --expect '^\(d1\) lapic: x2apic_nmi_blocking: got 2 of 1\+[123] \(1 in the handler\) depth=1 ok$$' \
    --expect '^\(d1\) lapic: x2apic_mode: got base=0xfee00d00 gp=2 id=0 ldr=0x1 ok$$' \
    --expect '^\(d1\) lapic: x2apic_eoi_order: got 72,61,50 .* ok$$' \
    --expect '^\(d1\) lapic: x2apic_periodic: got [0-9]+ in 20 ms .* ok$$' \
    --expect '^\(d1\) lapic: x2apic_tscdeadline: got 1 irq .* ok$$' \
    --expect '^\(d1\) lapic: init_sipi: got magic=0x1234 cs=0x5000 ok$$' \
    --expect '^\(d1\) lapic: summary: 2[0-9] checks 0 bad$$' \
    --expect '^sliver: d1 shutdown code=0$$' \
    --expect '^\(d2\) lapic-garbage: survived 3000 mmio \+ 3000 msr ops seed=12345 ' \
    --expect '^sliver: d2 shutdown code=0$$' \
    --expect '^sliver: d3 crashed: $(E2E_FAULT): read at guest-physical 0xfee00020' \
    --expect '^sliver: d4 shutdown code=100$$'
$(eval $(call e2e_twin,e2e-lapic,$(BUILD)/lapic-bios.iso,--cpus 2 --timeout 300))
