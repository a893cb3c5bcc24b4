/* fuzz, op classes `hc` and `evany`: hypercalls with hostile numbers and arguments (pointers
 * straddling or beyond RAM, into MMIO windows, non-canonical; lengths that wrap), each
 * result checked against docs/hypercalls.md, and HC_EVENT_SEND to any domain and port. */
#include "guests/fuzz/fuzz_ops.h"
#include "sliver/dominfo.h"
#include "sliver/errno.h"
#include "sliver/event.h"
#include "sliver/hypercall.h"

#define SCRATCH_INFO (scratch + 8192) /* where valid HC_SELF_INFO pointers point */

static uint64_t hostile_ptr(void)
{
	uint64_t s = (uintptr_t)SCRATCH_INFO;
	switch (below(14)) {
	case 0:
		return s + below(64); /* valid, maybe misaligned */
	case 1:
		return mem - below(128); /* straddling the end of RAM */
	case 2:
		return mem + (below(1024) << 12); /* beyond RAM */
	case 3:
		return 0xfee00000u + (below(256) << 4); /* LAPIC window */
	case 4:
		return 0xfec00000u; /* IOAPIC */
	case 5:
		return 0xffffffffu - below(64); /* wraps a 32-bit length */
	case 6:
		return 0xffffffff80000000ull + below(0x100000); /* a hypervisor-style address */
	case 7:
		return 1ull << 63;
	case 8:
		return ~0ull - below(4096);
	case 9:
		return rnd();
	case 10:
		return (uint32_t)rnd();
	case 11:
		return 0x100000000ull + (uintptr_t)SCRATCH_INFO; /* valid address + 4 GiB */
	case 12:
		return below(0x1000); /* page 0: guest RAM the hypervisor leaves alone */
	default:
		return mem >> 1;
	}
}
static uint64_t hostile_len(void)
{
	switch (below(10)) {
	case 0:
		return 0;
	case 1:
		return 1 + below(64);
	case 2:
		return sizeof(struct sliver_dom_info);
	case 3:
		return HC_CONSOLE_MAX + below(2);
	case 4:
		return 0x7fffffffu;
	case 5:
		return 0xffffffffu;
	case 6:
		return ~0ull;
	case 7:
		return -(uint64_t)(uintptr_t)SCRATCH_INFO; /* ptr + len wraps to 0 */
	case 8:
		return rnd();
	default:
		return (uint32_t)rnd();
	}
}
static uint64_t hostile_int(void)
{
	switch (below(6)) {
	case 0:
		return below(40);
	case 1:
		return 0xffffffffu;
	case 2:
		return ~0ull;
	case 3:
		return 256 + below(1000);
	case 4:
		return (uint32_t)rnd();
	default:
		return rnd();
	}
}

/* The hypervisor sees only the low 32 bits of a 32-bit guest's registers. */
static uint64_t arg_view(uint64_t v)
{
	return LM ? v : (uint32_t)v;
}
static bool in_ram(uint64_t p, uint64_t len)
{
	return len && p < mem && len <= mem - p;
}
/* A pointer the hypervisor would accept must point into SCRATCH_INFO (or page 0), never at
 * our own code and data. */
static void keep_writes_in_scratch(uint64_t *ptr, uint64_t len)
{
	uint64_t p = arg_view(*ptr);
	if (!in_ram(p, len))
		return;
	uint64_t s = (uintptr_t)SCRATCH_INFO;
	if ((p + len <= 0x1000) || (p >= s && p + len <= s + 4096))
		return;
	*ptr = s + (p & 63);
}

void op_hc(void)
{
	uint64_t a[5];
	for (int i = 0; i < 5; i++)
		a[i] = chance(50) ? hostile_ptr() : chance(50) ? hostile_len() : hostile_int();
	uint64_t nr;
	switch (below(10)) {
	case 0:
	case 1:
	case 2:
	case 3:
	case 4:
		nr = below(10);
		break;
	case 5:
	case 6:
		nr = below(101);
		break;
	case 7:
		nr = HC_PRIV_FIRST + below(HC_PRIV_END - HC_PRIV_FIRST);
		break;
	case 8:
		nr = (uint32_t)rnd();
		break;
	default:
		nr = rnd();
	}
	if (arg_view(nr) == HC_SHUTDOWN)
		nr = HC_SELF_INFO;
	uint64_t n = arg_view(nr), a0 = arg_view(a[0]), a1 = arg_view(a[1]), a2 = arg_view(a[2]);
	int64_t want = -SLIVER_ENOSYS, want2 = 1; /* 1: no second choice */
	bool any_nonneg = false;
	switch (n) {
	case HC_CONSOLE_WRITE:
		/* Valid (pointer, length) pairs would print our memory: make them invalid. */
		if (a1 && a1 <= HC_CONSOLE_MAX && in_ram(a0, a1))
			a[0] = a0 = mem + below(4096);
		want = a1 > HC_CONSOLE_MAX ? -SLIVER_E2BIG : a1 == 0 ? 0 : -SLIVER_EFAULT;
		break;
	case HC_YIELD:
	case HC_BLOCK:
	case HC_SET_TIMER:
		want = 0;
		break;
	case HC_CLOCK:
		any_nonneg = true;
		break;
	case HC_EVENT_SEND:
		if (!enabled[C_EVANY] && a0 != 0 && a0 != bi->dom_id)
			a[0] = a0 =
				chance(50) ? bi->dom_id : SLIVER_MAX_DOMS + (uint32_t)rnd() % 1000;
		if (a1 >= SLIVER_NR_PORTS)
			want = -SLIVER_EINVAL;
		else if (a0 == SLIVER_DOMID_HV)
			want = a1 == SLIVER_PORT_PONG ? 0 : -SLIVER_EINVAL;
		else if (a0 >= SLIVER_MAX_DOMS)
			want = -SLIVER_ESRCH;
		else if (a0 == bi->dom_id)
			want = 0;
		else /* another domain: it never allowed us nor signalled us here */
			want = -SLIVER_EPERM, want2 = -SLIVER_ESRCH;
		break;
	case HC_EVENT_ALLOW:
		want = a0 < SLIVER_NR_PORTS && a2 <= 1 &&
				       (a1 == SLIVER_DOMID_ANY || (a1 > 0 && a1 < SLIVER_MAX_DOMS))
			       ? 0
			       : -SLIVER_EINVAL;
		break;
	case HC_EVENT_INFO: {
		uint64_t len = a2 < sizeof(struct sliver_event_info)
				       ? a2
				       : sizeof(struct sliver_event_info);
		keep_writes_in_scratch(&a[1], len);
		a1 = arg_view(a[1]);
		if (!in_ram(a1, len))
			want = -SLIVER_EFAULT;
		else if (a0 >= SLIVER_NR_PORTS)
			want = -SLIVER_EINVAL;
		else
			any_nonneg = true, want = -SLIVER_EAGAIN;
		break;
	}
	case HC_EVENT_BIND:
		/* Port 0 is our timer: rebind it only to its own vector. */
		if (a0 == SLIVER_PORT_TIMER && a1 >= SLIVER_VECTOR_MIN && a1 <= 255)
			a[1] = a1 = FZ_VEC_TIMER;
		if (a0 == SLIVER_PORT_TIMER && a1 == 0)
			a[1] = a1 = 1;
		if (a0 > 255 || a1 > 255 || a2 > 255 || a0 >= SLIVER_NR_PORTS ||
		    a2 >= bi->nr_vcpus || (a1 && a1 < SLIVER_VECTOR_MIN))
			want = -SLIVER_EINVAL;
		else
			want = 0;
		break;
	case HC_EVENT_RECV:
		if (a0 >= SLIVER_NR_PORTS)
			want = -SLIVER_EINVAL;
		else
			any_nonneg = true, want = -SLIVER_EAGAIN;
		break;
	case HC_SELF_INFO: {
		uint64_t len =
			a1 < sizeof(struct sliver_dom_info) ? a1 : sizeof(struct sliver_dom_info);
		keep_writes_in_scratch(&a[0], len);
		a0 = arg_view(a[0]);
		want = in_ram(a0, len) ? (int64_t)len : -SLIVER_EFAULT;
		break;
	}
	default:
		if (n >= HC_PRIV_FIRST && n < HC_PRIV_END)
			want = -SLIVER_EPERM;
	}
	/* HC_BLOCK: a wake-up soon, armed with IF=0 so it cannot be taken before we block. */
	if (n == HC_BLOCK) {
		__asm__ volatile("cli" ::: "memory");
		set_timer(fz_clock_ns() + below(200000));
	}
	uint64_t t0 = fz_clock_ns();
	bool regs_ok = true;
	int64_t r = fz_hc(nr, a, &regs_ok);
	__asm__ volatile("sti; nop" ::: "memory");
	uint64_t t1 = fz_clock_ns();
	if (!regs_ok)
		fail("hypercall %llu changed a register the ABI preserves", (unsigned long long)nr);
	if (n == HC_CLOCK) {
		if (r < (int64_t)last_clock || (uint64_t)r + 1000000 < t0 ||
		    (uint64_t)r > t1 + 1000000)
			fail("HC_CLOCK %lld outside [%llu, %llu] (last %llu)", (long long)r,
			     (unsigned long long)t0, (unsigned long long)t1,
			     (unsigned long long)last_clock);
		last_clock = (uint64_t)r;
		return;
	}
	if (r == want || r == want2 || (any_nonneg && r >= 0 && r < SLIVER_MAX_DOMS))
		return;
	fail("hypercall %llu(%llx, %llx, %llx, %llx, %llx) returned %lld, expected %lld",
	     (unsigned long long)nr, (unsigned long long)a[0], (unsigned long long)a[1],
	     (unsigned long long)a[2], (unsigned long long)a[3], (unsigned long long)a[4],
	     (long long)r, (long long)want);
}

void op_evany(void)
{
	uint64_t a[5] = {1 + below(SLIVER_MAX_DOMS - 1), SLIVER_PORT_USER + below(24), 0, 0, 0};
	bool ok;
	int64_t r = fz_hc(HC_EVENT_SEND, a, &ok);
	if (r != 0 && r != -SLIVER_ESRCH && r != -SLIVER_EPERM)
		fail("event_send(d%llu, port %llu) returned %lld", (unsigned long long)a[0],
		     (unsigned long long)a[1], (long long)r);
}
