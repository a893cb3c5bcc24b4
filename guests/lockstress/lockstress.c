/* lockstress: the vCPUs of one domain share a spinlock, as the threads of kernbench or
 * sysbench share a kernel lock, so that a preempted lock holder makes its siblings spin
 * (lock-holder preemption, the 2012 KVM thread in ../shared/seeds/ and issue 14).
 *
 * Command line:
 *   lock=ticket|tas  a ticket lock (FIFO: a preempted waiter also blocks the ones behind
 *                    it) or a test-and-set lock (default ticket)
 *   cs_us=N          critical section: N us of guest clock with the lock held (default 5)
 *   think_us=N       work between acquisitions, lock not held (default 20)
 *   count=N          stop after N acquisitions by all vCPUs together, print the result and
 *                    shut the domain down with code 0 (default 0: run forever)
 *   report_ms=N      print the rate every N ms (default 0: only at the end)
 * Output (vCPU 0): `lockstress: dD start vcpus=N lock=L cs_us= think_us= count=`, every
 * report `lockstress: acq=<total> rate=<per s>/s`, and at the end one line per vCPU
 * `lockstress: vN acq=<n> spin_us=<time waiting for the lock>` and
 * `lockstress: done acq=<n> ms=<guest clock> rate=<per s>/s spin_pct=<waiting/elapsed>`.
 * Every vCPU spins with PAUSE, the instruction PAUSE-loop exiting counts. */
#include "guests/lib/rt.h"
#include "lib/string.h"

struct percpu {
	volatile uint64_t acq, spin_ns;
	uint8_t pad[48]; /* one cache line each: counters do not share a line */
};

static struct {
	volatile uint32_t next, owner; /* ticket lock: next ticket, ticket being served */
	volatile uint32_t tas;	       /* test-and-set lock: 1 held */
	volatile uint32_t go, stop;
	volatile uint64_t total; /* acquisitions, updated under the lock */
} shared __attribute__((aligned(64)));

static struct percpu pc[SLIVER_MAX_VCPUS] __attribute__((aligned(64)));
static uint64_t cs_ns = 5000, think_ns = 20000, count;
static bool use_tas;

static void pause(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static void ticket_lock(void)
{
	uint32_t me = __atomic_fetch_add(&shared.next, 1, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&shared.owner, __ATOMIC_ACQUIRE) != me)
		pause();
}

static void ticket_unlock(void)
{
	__atomic_store_n(&shared.owner, shared.owner + 1, __ATOMIC_RELEASE);
}

static void tas_lock(void)
{
	while (__atomic_exchange_n(&shared.tas, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&shared.tas, __ATOMIC_RELAXED))
			pause();
}

static void tas_unlock(void)
{
	__atomic_store_n(&shared.tas, 0, __ATOMIC_RELEASE);
}

/* One round of one vCPU: think, take the lock, hold it cs_ns, count, release. */
static void lock_round(unsigned v)
{
	rt_spin_us(think_ns / 1000);
	uint64_t t0 = rt_clock_ns();
	if (use_tas)
		tas_lock();
	else
		ticket_lock();
	uint64_t t1 = rt_clock_ns();
	/* Waiters queued behind the last acquisition find `stop` and leave: exactly `count`
	 * acquisitions are counted. */
	bool counted = !shared.stop;
	if (counted) {
		rt_spin_until(t1 + cs_ns);
		if (++shared.total == count)
			shared.stop = 1;
	}
	if (use_tas)
		tas_unlock();
	else
		ticket_unlock();
	if (counted) {
		pc[v].spin_ns += t1 - t0;
		pc[v].acq++;
	}
}

int rt_main_ap(const struct sliver_boot_info *bi)
{
	/* Interrupts on, like vCPU 0 (rt_start): under Bochs an IF=0 guest ignores
	 * external-interrupt exiting (/work/shared/emulators.md, Bochs bug 1), so the
	 * hypervisor's reschedule IPIs to this pCPU were lost while it ran with no deadline,
	 * and a vCPU queued there (the capped hog of the 1.125x row) starved. */
	rt_sti();
	while (!shared.go)
		pause();
	while (bi->vcpu_id < SLIVER_MAX_VCPUS && !shared.stop)
		lock_round(bi->vcpu_id);
	for (;;)
		__asm__ volatile("cli; hlt");
}

static bool parse(void)
{
	char lock[16] = "ticket";
	uint64_t v;
	rt_arg("lock", lock, sizeof lock);
	if (!strcmp(lock, "tas"))
		use_tas = true;
	else if (strcmp(lock, "ticket")) {
		rt_printf("lockstress: lock=%s: expected ticket or tas\n", lock);
		return false;
	}
	if (rt_arg_u64("cs_us", &v))
		cs_ns = v * 1000;
	if (rt_arg_u64("think_us", &v))
		think_ns = v * 1000;
	rt_arg_u64("count", &count);
	return true;
}

/* vCPU 0 reports from a timer while it works: a report never needs the lock. */
static uint64_t report_ns, next_report, last_total, last_at;

static void report(uint64_t now)
{
	uint64_t total = shared.total;
	rt_printf("lockstress: acq=%llu rate=%llu/s\n", (unsigned long long)total,
		  (unsigned long long)((total - last_total) * 1000000000ull / (now - last_at)));
	last_total = total;
	last_at = now;
}

int main(const struct sliver_boot_info *bi)
{
	uint64_t report_ms = 0;
	if (!parse())
		return 1;
	rt_arg_u64("report_ms", &report_ms);
	report_ns = report_ms * 1000000ull;
	rt_printf("lockstress: d%u start vcpus=%u lock=%s cs_us=%llu think_us=%llu count=%llu\n",
		  bi->dom_id, bi->nr_vcpus, use_tas ? "tas" : "ticket",
		  (unsigned long long)(cs_ns / 1000), (unsigned long long)(think_ns / 1000),
		  (unsigned long long)count);
	uint64_t start = rt_clock_ns();
	last_at = start;
	next_report = start + report_ns;
	shared.go = 1;
	/* vCPU 0 works too, and reports between its acquisitions. */
	while (!shared.stop) {
		uint64_t now = rt_clock_ns();
		if (report_ns && now >= next_report) {
			report(now);
			next_report += report_ns;
		}
		lock_round(0);
	}
	uint64_t end = rt_clock_ns(), spin = 0, acq = 0;
	unsigned n = bi->nr_vcpus < SLIVER_MAX_VCPUS ? bi->nr_vcpus : SLIVER_MAX_VCPUS;
	/* The other vCPUs finish their current acquisition (at most one each) before their
	 * counters settle: wait until the sum matches the total. */
	for (unsigned tries = 0; tries < 1000000; tries++) {
		acq = 0;
		for (unsigned v = 0; v < n; v++)
			acq += pc[v].acq;
		if (acq >= shared.total)
			break;
		pause();
	}
	for (unsigned v = 0; v < n; v++) {
		rt_printf("lockstress: v%u acq=%llu spin_us=%llu\n", v,
			  (unsigned long long)pc[v].acq,
			  (unsigned long long)(pc[v].spin_ns / 1000));
		spin += pc[v].spin_ns;
	}
	uint64_t el = end - start ? end - start : 1;
	rt_printf("lockstress: done acq=%llu ms=%llu rate=%llu/s spin_pct=%llu\n",
		  (unsigned long long)acq, (unsigned long long)(el / 1000000),
		  (unsigned long long)(acq * 1000000000ull / el),
		  (unsigned long long)(spin * 100 / (el * n)));
	return 0;
}
