/* idle: blocks forever. Interrupts stay off and no port is bound, so HC_BLOCK never
 * returns; if it ever does, the guest says so and blocks again. */
#include "guests/lib/rt.h"

/* Every other vCPU (vcpus=N) blocks the same way. */
int rt_main_ap(const struct sliver_boot_info *bi)
{
	rt_printf("idle: d%uv%u blocking\n", bi->dom_id, bi->vcpu_id);
	rt_cli();
	for (;;)
		hc_block();
}

int main(const struct sliver_boot_info *bi)
{
	rt_printf("idle: d%u blocking\n", bi->dom_id);
	hc_event_bind(SLIVER_PORT_TIMER, 0, 0);
	rt_cli();
	for (;;) {
		hc_block();
		rt_puts("idle: spurious wake");
	}
}
