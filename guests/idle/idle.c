/* idle: blocks forever. Interrupts stay off and no port is bound, so HC_BLOCK never
 * returns; if it ever does, the guest says so and blocks again. vCPU 0 says so through
 * a polled COM1 and blocks with HC_BLOCK; other vCPUs say so through port 0xE9 and halt
 * (HLT with IF=0), which must block them in the hypervisor just the same. */
#include "guests/lib/rt.h"
#include "lib/fmt.h"

/* Every other vCPU (vcpus=N) blocks the same way. */
int rt_main_ap(const struct sliver_boot_info *bi)
{
	char line[48];
	fmt_snprintf(line, sizeof line, "idle: d%uv%u blocking\n", bi->dom_id, bi->vcpu_id);
	rt_e9_puts(line);
	for (;;)
		__asm__ volatile("cli; hlt");
}

int main(const struct sliver_boot_info *bi)
{
	char line[48];
	fmt_snprintf(line, sizeof line, "idle: d%u blocking\n", bi->dom_id);
	rt_com1_puts(line);
	hc_event_bind(SLIVER_PORT_TIMER, 0, 0);
	rt_cli();
	for (;;) {
		hc_block();
		rt_puts("idle: spurious wake");
	}
}
