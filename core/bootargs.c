/* The table of the hypervisor's command-line keys: name, range and default of each. A key
 * read anywhere in the hypervisor must be here, else the boot calls it a typo. The
 * scheduler's keys (sched=, credit.*, rr.*) are checked by sched_config_word instead. */
#include "core/bootargs.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/panic.h"
#include "core/bootinfo.h"
#include "drivers/console.h"
#include "lib/cmdcheck.h"
#include "lib/cmdline.h"
#include "sliver/event.h"
#include "lib/fmt.h"

#define MS_MAX 1000000000ull /* ~11.6 days: times in ms or us stay far from ns overflow */

static const struct cmdkey keys[] = {
	{"console", CMDKEY_ANY, 0, 0, 0},
	{"com1", CMDKEY_ANY, 0, 0, 0},	   /* drivers/comspec.c parses it (docs/console.md) */
	{"sim.*", CMDKEY_ANY, 0, 0, 0},	   /* the simulator's (test/sim), ignored here */
	{"expect.*", CMDKEY_ANY, 0, 0, 0}, /* the simulator's pass criteria */
	{"mem.raw", CMDKEY_ANY, 0, 0, 0},
	{"selftest", CMDKEY_ANY, 0, 0, 0},
	{"selftest.input", CMDKEY_ANY, 0, 0, 0},
	{"selftest.crash", CMDKEY_ANY, 0, 0, 0},
	{"selftest.reboot", CMDKEY_ANY, 0, 0, 0},
	{"selftest.console_async", CMDKEY_ANY, 0, 0, 0},
	{"selftest.slack_us", CMDKEY_U64, 0, MS_MAX, 500},
	{"run_ms", CMDKEY_U64, 0, MS_MAX, 0},
	{"console.rate", CMDKEY_U64, 0, 1000000, 2048}, /* x us since refill: no overflow */
	{"console.burst", CMDKEY_U64, 0, 1000000000, 8192},
	{"ping.dom", CMDKEY_U64, 0, SLIVER_MAX_DOMS - 1, 0},
	{"ping.interval_us", CMDKEY_U64, 10, MS_MAX, 10000},
	{"ping.count", CMDKEY_U64, 0, MS_MAX, 0},
	{"ping.jitter_us", CMDKEY_U64, 0, MS_MAX, 0},
	{"ping.delay_ms", CMDKEY_U64, 0, MS_MAX, 0},
	{"ping.seed", CMDKEY_U64, 0, UINT64_MAX, 1},
	{"ping.cpu", CMDKEY_U64, 0, MAX_CPUS - 1, 0},
	{"ping.uart", CMDKEY_U64, 0, 1, 0},
	{"vmm.sched_pcpus", CMDKEY_U64, 0, MAX_CPUS, 0}, /* 0: every pCPU */
	{"vmm.nmi_test_us", CMDKEY_U64, 0, MS_MAX, 0},
	{"vmm.break_dom", CMDKEY_U64, 0, SLIVER_MAX_DOMS - 1, 0},
	{"vmm.break_ms", CMDKEY_U64, 0, MS_MAX, 100},
	{"vmm.create_loop", CMDKEY_U64, 0, 1000, 0},
	{"vmm.svm_backstop_us", CMDKEY_U64, 0, MS_MAX, 500}, /* 0: off (core/vmm.c) */
	/* PAUSE-loop detection when sched.ple is not off (core/exit_pause_loop.c, hv.h):
	 * KVM's defaults (ple_gap 128, ple_window 4096, grow 2, shrink 0 = reset). */
	{"ple.gap", CMDKEY_U64, 0, UINT32_MAX, 128},
	{"ple.window", CMDKEY_U64, 1, UINT32_MAX, 4096},
	{"ple.window_max", CMDKEY_U64, 1, UINT32_MAX, 65536},
	{"ple.grow", CMDKEY_U64, 0, UINT32_MAX, 2},
	{"ple.shrink", CMDKEY_U64, 0, UINT32_MAX, 0},
};
#define NKEYS (sizeof keys / sizeof keys[0])

void bootargs_check(const char *cmdline, int (*other)(const char *w, size_t wl))
{
	size_t wl, len = 0;
	while (cmdline[len])
		len++;
	if (len >= BOOT_CMDLINE_MAX - 1)
		printk("sliver: the command line is longer than %u characters: the rest was cut "
		       "(its last word may be cut short)\n",
		       BOOT_CMDLINE_MAX - 1);
	bool first = true;
	for (const char *w = cmdline; (w = cmdline_next(w, &wl)); w += wl, first = false) {
		if (first && w[0] == '/')
			continue; /* GRUB passes the kernel's path first */
		int r = other ? other(w, wl) : 1;
		if (r == 0)
			continue;
		if (r < 0) {
			char e[64];
			printk("sliver: bad scheduler setting '%s': ignored, the scheduler keeps "
			       "its value\n",
			       fmt_escape(e, sizeof e, w, wl));
			continue;
		}
		const struct cmdkey *k;
		char msg[200];
		if (cmdcheck_word(keys, NKEYS, w, wl, &k, msg, sizeof msg) != CMDCHECK_OK)
			printk("sliver: %s\n", msg);
	}
}

uint64_t bootarg_u64(const char *name)
{
	const struct cmdkey *k = cmdcheck_find(keys, NKEYS, name);
	if (k && k->kind == CMDKEY_U64)
		return cmdcheck_u64(boot_info.cmdline, k);
	panic("bootarg_u64: '%s' is not a numeric key of core/bootargs.c", name);
}
