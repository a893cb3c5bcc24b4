/* echo: answers every ping (SLIVER_PORT_PING) at once from its interrupt handler with an
 * event to each sender on SLIVER_PORT_PONG: pings from several senders that coalesced on the
 * port (the hypervisor's and a domain's) each get their reply (HC_EVENT_INFO's sender set;
 * HC_EVENT_RECV names only the last one, and e2e-manydoms-svm's d98 then waited in vain).
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
	static struct sliver_event_info in;
	if (hc3(HC_EVENT_INFO, SLIVER_PORT_PING, (uint32_t)(uintptr_t)&in, sizeof in) <= 0)
		return;
	for (uint32_t h = 0; h < 2 * SLIVER_DOMSET_WORDS; h++) /* 32-bit halves: a 32-bit guest */
		for (uint32_t m = (uint32_t)(in.senders[h / 2] >> (h % 2 * 32)); m; m &= m - 1) {
			hc_event_send(h * 32 + (uint32_t)__builtin_ctz(m), SLIVER_PORT_PONG);
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
