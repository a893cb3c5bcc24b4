/* The ping path's stage stamps (core/pingtrace.h), built only with PINGTRACE=1.
 *
 * One ping is outstanding at a time (core/ping.c), so one record: ping_fire opens it on the
 * sender pCPU, each stage writes its TSC once (the first time its code runs for this ping,
 * on the pCPU where that stage happens: the sender's stages only while the sender raises
 * the ping, the target's only on the pCPU the kick went to after it went, the echo's only
 * for the ping's domain), ping_reply closes it: the ticks between each present stage and
 * the one before it are kept per path. A stage that did not happen (no pick when the echo
 * was running) is absent and its time goes to the next present one. Paths: `wake` (the
 * echo was blocked: woken, picked), `run` (it was running: the kick only makes it exit and
 * the vector goes in at the next entry), `queued` (it was runnable, waiting: picked).
 *
 * Every stamp costs itself a few tens of ticks (a call, RDTSC, the checks): they are
 * inside the stage that follows it, and `pingtrace cost` prints one stamp's cost, measured
 * at boot. The report sorts each stage's samples (exact percentiles). */
#include "core/pingtrace.h"
#include "arch/x86_64/cpu.h"
#include "drivers/console.h"
#include "sliver/hypercall.h"

#define PT_MAX 512 /* pings kept per path (the first ones) */

enum pt_path { PATH_WAKE, PATH_RUN, PATH_QUEUED, PATH_N };
static const char *const path_name[PATH_N] = {"wake", "run", "queued"};

static const char *const stage_name[PT_N] = {
	[PT_DUE] = "due",
	[PT_FIRE] = "fire",
	[PT_RAISE] = "raise",
	[PT_NOTIFY] = "notify",
	[PT_LOCKED] = "locked",
	[PT_WOKEN] = "woken",
	[PT_IPI] = "ipi",
	[PT_VMEXIT] = "vmexit",
	[PT_EXITED] = "exited",
	[PT_DRAIN] = "drain",
	[PT_PICK] = "pick",
	[PT_PLOCKED] = "plocked",
	[PT_PICKED] = "picked",
	[PT_PICKRET] = "pickret",
	[PT_PUT] = "put",
	[PT_ARMED] = "armed",
	[PT_RUN] = "run",
	[PT_LOADED] = "loaded",
	[PT_ENTRY] = "entry",
	[PT_INFO_EXIT] = "info_exit",
	[PT_INFO_HC] = "info_hc",
	[PT_INFO_ENTRY] = "info_entry",
	[PT_SEND_EXIT] = "send_exit",
	[PT_REPLY] = "reply",
};

static struct {
	bool on;	       /* a ping source exists */
	volatile bool live;    /* a ping's record is open */
	volatile bool raising; /* the sender is inside event_raise for it */
	unsigned dom, sender;  /* the ping's domain, the sender pCPU */
	volatile int target;   /* the pCPU its kick went to, -1: none yet */
	bool woke;	       /* sd_notify woke the echo */
	uint64_t echo_exit;    /* the TSC of the echo's last VM exit */
	uint64_t t[PT_N];      /* this ping's stamps, 0: absent */
	uint64_t cost;	       /* one stamp's own ticks */
	uint32_t n[PATH_N];    /* pings kept per path */
	uint64_t seen[PATH_N]; /* pings closed per path */
	uint32_t d[PATH_N][PT_N]
		  [PT_MAX]; /* ticks since the previous present stage, +1 (0: absent) */
} pt;

static void set(enum pt_stage s, uint64_t tsc)
{
	if (!pt.t[s])
		__atomic_store_n(&pt.t[s], tsc, __ATOMIC_RELAXED);
}

static bool sender_stage(enum pt_stage s)
{
	return s <= PT_IPI;
}

void pt_stamp(enum pt_stage s)
{
	uint64_t now = rdtsc();
	if (!pt.live || s >= PT_N)
		return;
	unsigned cpu = this_cpu()->id;
	if (sender_stage(s)) {
		if (pt.raising && cpu == pt.sender)
			set(s, now);
	} else if (pt.t[PT_IPI] && (int)cpu == pt.target) {
		set(s, now);
	}
}

void pt_ping_start(unsigned dom, unsigned cpu)
{
	pt.dom = dom;
	pt.on = true;
	pt.target = -1;
	/* One stamp's cost: two in a row on a scratch record, as the sender's checks pass. */
	pt.sender = this_cpu()->id;
	pt.live = pt.raising = true;
	pt_stamp(PT_NOTIFY);
	pt_stamp(PT_LOCKED);
	pt.cost = pt.t[PT_LOCKED] - pt.t[PT_NOTIFY];
	pt.live = pt.raising = false;
	for (unsigned s = 0; s < PT_N; s++)
		pt.t[s] = 0;
	pt.sender = cpu;
}

/* Late sends (issue 24): where the sender pCPU was when a ping it sent late (core/ping.c,
 * PING_LATE_NS) was due, from its last two guest runs (entry, exit, the exit's domain and
 * raw reason): `guest` (due while a guest ran: the exit that ended the run, then its
 * handling, came before the send), `entered` (due before the last entry: the loop entered
 * a guest with the ping due, during the exit before it), `after` (due after the last exit:
 * its handling, a pick, the switch, idle). */
struct pt_guest_run {
	uint64_t entry, exit;
	uint16_t dom, reason;
};
enum pt_late_where { LATE_GUEST, LATE_ENTERED, LATE_AFTER, LATE_N };
static const char *const late_name[LATE_N] = {"guest", "entered", "after"};
#define PT_LATE_KEYS 48
static struct {
	struct pt_guest_run last[2]; /* the sender's, newest first */
	struct {
		uint8_t where;
		uint16_t dom, reason;
		uint32_t n;
		uint64_t sum, max;
	} k[PT_LATE_KEYS];
	unsigned nk;
	uint64_t lost; /* late sends with no key left */
} late;

static void late_note(uint64_t due, uint64_t fire)
{
	const struct pt_guest_run *r = &late.last[0];
	enum pt_late_where w = !r->exit || due >= r->exit ? LATE_AFTER
			       : due >= r->entry	  ? LATE_GUEST
							  : LATE_ENTERED;
	if (w == LATE_ENTERED)
		r = &late.last[1];
	unsigned i = 0;
	while (i < late.nk &&
	       !(late.k[i].where == w && late.k[i].dom == r->dom && late.k[i].reason == r->reason))
		i++;
	if (i == late.nk) {
		if (i == PT_LATE_KEYS) {
			late.lost++;
			return;
		}
		late.nk++;
		late.k[i].where = (uint8_t)w;
		late.k[i].dom = r->dom;
		late.k[i].reason = r->reason;
	}
	uint64_t t = fire - due;
	late.k[i].n++;
	late.k[i].sum += t;
	if (t > late.k[i].max)
		late.k[i].max = t;
}

void pt_ping_fire(uint64_t due_tsc, uint64_t fire_tsc, bool was_late)
{
	if (was_late && fire_tsc > due_tsc)
		late_note(due_tsc, fire_tsc);
	pt.live = false;
	for (unsigned s = 0; s < PT_N; s++)
		pt.t[s] = 0;
	pt.target = -1;
	pt.woke = false;
	pt.t[PT_DUE] = due_tsc;
	pt.t[PT_FIRE] = fire_tsc;
	__atomic_store_n(&pt.live, true, __ATOMIC_RELEASE);
}

void pt_raising(bool on)
{
	pt.raising = on;
}

void pt_notify_result(bool woke)
{
	if (pt.live && pt.raising && this_cpu()->id == pt.sender)
		pt.woke = woke;
}

void pt_kick(unsigned cpu)
{
	if (!pt.live || !pt.raising || this_cpu()->id != pt.sender || pt.t[PT_IPI])
		return;
	pt.target = (int)cpu;
	pt_stamp(PT_IPI);
}

void pt_run(unsigned dom)
{
	if (dom == pt.dom)
		pt_stamp(PT_RUN);
}

/* After hv_vcpu_run: the entry it made (the echo's) and the exit it returns. */
void pt_ran(unsigned dom, uint64_t entry_tsc, uint64_t loaded_tsc, uint64_t exit_tsc,
	    unsigned reason)
{
	uint64_t now = rdtsc();
	if (pt.on && entry_tsc && this_cpu()->id == pt.sender) {
		late.last[1] = late.last[0];
		late.last[0] =
			(struct pt_guest_run){entry_tsc, exit_tsc, (uint16_t)dom, (uint16_t)reason};
	}
	if (!pt.live || !pt.t[PT_IPI] || (int)this_cpu()->id != pt.target)
		return;
	bool echo = dom == pt.dom;
	if (echo && entry_tsc) {
		if (!pt.t[PT_ENTRY]) {
			set(PT_LOADED, loaded_tsc);
			set(PT_ENTRY, entry_tsc);
		} else if (pt.t[PT_INFO_HC] && !pt.t[PT_INFO_ENTRY]) {
			set(PT_INFO_ENTRY, entry_tsc);
		}
	}
	/* The first exit that ends after the kick went (not one already under way). */
	if (!pt.t[PT_VMEXIT] && exit_tsc >= pt.t[PT_IPI]) {
		set(PT_VMEXIT, exit_tsc);
		set(PT_EXITED, now);
	}
	if (echo)
		pt.echo_exit = exit_tsc;
}

void pt_hypercall(unsigned dom, uint64_t nr)
{
	uint64_t now = rdtsc();
	if (!pt.live || dom != pt.dom || !pt.t[PT_ENTRY])
		return;
	if (nr == HC_EVENT_INFO && !pt.t[PT_INFO_HC]) {
		set(PT_INFO_EXIT, pt.echo_exit);
		set(PT_INFO_HC, now);
	} else if (nr == HC_EVENT_SEND && pt.t[PT_INFO_ENTRY] && !pt.t[PT_SEND_EXIT]) {
		set(PT_SEND_EXIT, pt.echo_exit);
	}
}

/* The reply arrived (ping_reply, under the ping lock; tsc: when ping_reply was called):
 * the record closes. */
void pt_reply(uint64_t tsc)
{
	if (!pt.live)
		return;
	set(PT_REPLY, tsc);
	pt.live = false;
	enum pt_path p = pt.woke ? PATH_WAKE : pt.t[PT_PICK] ? PATH_QUEUED : PATH_RUN;
	pt.seen[p]++;
	if (pt.n[p] >= PT_MAX)
		return;
	unsigned prev = PT_DUE, i = pt.n[p]++;
	for (unsigned s = PT_FIRE; s < PT_N; s++) {
		if (!pt.t[s])
			continue;
		uint64_t dt = pt.t[s] > pt.t[prev] ? pt.t[s] - pt.t[prev] : 0;
		pt.d[p][s][i] = (uint32_t)(dt < 0xfffffffe ? dt : 0xfffffffe) + 1;
		prev = s;
	}
	pt.d[p][PT_DUE][i] = (uint32_t)(pt.t[PT_REPLY] - pt.t[PT_DUE]) + 1; /* the whole trip */
}

static uint32_t col[PT_MAX];

/* Shell sort (Ciura's gaps): the report's percentiles are exact. */
static void sort(uint32_t *a, unsigned n)
{
	static const unsigned gaps[] = {132, 57, 23, 10, 4, 1};
	for (unsigned g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
		for (unsigned i = gaps[g]; i < n; i++) {
			uint32_t x = a[i];
			unsigned j = i;
			for (; j >= gaps[g] && a[j - gaps[g]] > x; j -= gaps[g])
				a[j] = a[j - gaps[g]];
			a[j] = x;
		}
}

/* The slowest pings of a path (the p99 of 250 is its third slowest): per ping, the stages
 * more than 20 ticks off their p50 (p50s[]), as
 *   pingtrace <path> slow total= <stage>=<ticks>(<p50>) ... */
#define PT_SLOWEST 5
static void report_slowest(unsigned p, const uint32_t *p50s)
{
	static bool shown[PT_MAX];
	for (unsigned i = 0; i < PT_MAX; i++)
		shown[i] = false;
	for (unsigned k = 0; k < PT_SLOWEST && k < pt.n[p]; k++) {
		unsigned w = PT_MAX;
		for (unsigned i = 0; i < pt.n[p]; i++)
			if (!shown[i] && (w == PT_MAX || pt.d[p][PT_DUE][i] > pt.d[p][PT_DUE][w]))
				w = i;
		if (w == PT_MAX)
			break;
		shown[w] = true;
		printk("pingtrace %s slow total=%u", path_name[p], pt.d[p][PT_DUE][w] - 1);
		for (unsigned s = PT_FIRE; s < PT_N; s++) {
			uint32_t d = pt.d[p][s][w];
			if (d && (d - 1 > p50s[s] + 20 || d - 1 + 20 < p50s[s]))
				printk(" %s=%u(%u)", stage_name[s], d - 1, p50s[s]);
		}
		printk("\n");
	}
}

/* One line per path and stage:
 *   pingtrace <path> <stage> n= p50= p99= min= max= avg=
 * in TSC ticks (Bochs: instructions); stage `total` is the round trip from the scheduled
 * send time to the reply. */
void pt_report(void)
{
	if (!pt.on)
		return;
	printk("pingtrace cost ticks=%lu\n", (unsigned long)pt.cost);
	for (unsigned i = 0; i < late.nk; i++)
		printk("pingtrace late where=%s dom=%u reason=%u n=%u avg_ticks=%lu "
		       "max_ticks=%lu\n",
		       late_name[late.k[i].where], late.k[i].dom, late.k[i].reason, late.k[i].n,
		       (unsigned long)(late.k[i].sum / late.k[i].n), (unsigned long)late.k[i].max);
	if (late.lost)
		printk("pingtrace late unkeyed n=%lu\n", (unsigned long)late.lost);
	for (unsigned p = 0; p < PATH_N; p++) {
		uint32_t p50s[PT_N] = {0};
		if (!pt.n[p])
			continue;
		printk("pingtrace %s pings n=%u of=%lu\n", path_name[p], pt.n[p],
		       (unsigned long)pt.seen[p]);
		for (unsigned s = 0; s < PT_N; s++) {
			unsigned n = 0;
			uint64_t sum = 0;
			for (unsigned i = 0; i < pt.n[p]; i++)
				if (pt.d[p][s][i]) {
					col[n] = pt.d[p][s][i] - 1;
					sum += col[n++];
				}
			if (!n)
				continue;
			sort(col, n);
			p50s[s] = col[(n - 1) / 2];
			printk("pingtrace %s %s n=%u p50=%u p99=%u min=%u max=%u avg=%lu\n",
			       path_name[p], s == PT_DUE ? "total" : stage_name[s], n,
			       col[(n - 1) / 2], col[(n * 99 + 99) / 100 - 1], col[0], col[n - 1],
			       (unsigned long)(sum / n));
		}
		report_slowest(p, p50s);
	}
}
