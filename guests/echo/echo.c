/* echo: answers every ping (SLIVER_PORT_PING) at once from its interrupt handler with an
 * event to the sender on SLIVER_PORT_PONG.
 * Command line: duty=<spin_us>/<sleep_us> spins and sleeps in that pattern (it still
 * answers pings while it spins, like dom0 in the 2006 measurement); without it, blocks. */
#include "guests/lib/rt.h"
#include "lib/cmdline.h"
#include "lib/string.h"

#define VEC_PING RT_VEC_FIRST_FREE

static volatile uint32_t replies;

static void ping_isr(struct rt_frame *f)
{
	(void)f;
	int32_t src = hc_event_recv(SLIVER_PORT_PING);
	if (src >= 0) {
		hc_event_send((uint32_t)src, SLIVER_PORT_PONG);
		replies++;
	}
}

static bool parse_duty(uint64_t *spin_us, uint64_t *sleep_us)
{
	char buf[48];
	if (!rt_arg("duty", buf, sizeof buf))
		return false;
	char *slash = strchr(buf, '/');
	if (!slash)
		return false;
	*slash = 0;
	return parse_u64(buf, spin_us) && parse_u64(slash + 1, sleep_us);
}

int main(const struct sliver_boot_info *bi)
{
	uint64_t spin_us = 0, sleep_us = 0;
	bool duty = parse_duty(&spin_us, &sleep_us);
	rt_irq_register(VEC_PING, ping_isr);
	hc_event_bind(SLIVER_PORT_PING, VEC_PING, 0);
	if (duty)
		rt_printf("echo: d%u ready duty=%llu/%llu\n", bi->dom_id,
			  (unsigned long long)spin_us, (unsigned long long)sleep_us);
	else
		rt_printf("echo: d%u ready\n", bi->dom_id);
	for (;;) {
		if (duty && spin_us + sleep_us) {
			rt_spin_us(spin_us);
			if (sleep_us)
				rt_sleep_us(sleep_us);
		} else {
			rt_wait_irq();
		}
	}
}
