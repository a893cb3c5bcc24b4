/* fuzz: a guest that does random hostile things to the hypervisor, from a seed, and checks
 * that each one is refused the way hardware or docs/hypercalls.md says (a fault the op can
 * produce, a documented error, a register that reads back what it should). Built twice: as
 * a 32-bit guest (fuzz.elf) and as a 64-bit one (fuzz64.elf); guests/fuzz/README.md lists
 * the op classes, modes and how to replay a failure.
 *
 * Op n (1-based) draws everything from its own PRNG state, splitmix64(seed, n), so the
 * sequence does not depend on what the hypervisor answered: `seed=S ops=N` replays the
 * run up to op N, `seed=S first=N ops=1` replays op N alone. */
#include <stdarg.h>
#include "guests/fuzz/fuzz_ops.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/hypercall.h"

volatile uintptr_t fz_resume;
volatile int fz_vec = -1;
volatile uint64_t fz_err;

/* --- op classes ----------------------------------------------------------------------------- */
static const struct {
	const char *name;
	bool dflt;
	bool lm_only;
} cls_def[C_NR] = {
	[C_HC] = {"hc", true, false},	       [C_IO] = {"io", true, false},
	[C_MSR] = {"msr", true, false},	       [C_KGS] = {"kgs", true, false},
	[C_CR] = {"cr", true, false},	       [C_DR] = {"dr", true, false},
	[C_CPUID] = {"cpuid", true, false},    [C_CACHE] = {"cache", true, false},
	[C_MWAIT] = {"mwait", true, false},    [C_HLT] = {"hlt", true, false},
	[C_INT] = {"int", true, false},	       [C_VMX] = {"vmx", true, false},
	[C_PRIV] = {"priv", true, false},      [C_XSAVE] = {"xsave", true, false},
	[C_CR8] = {"cr8", true, true},	       [C_SWAPGS] = {"swapgs", true, true},
	[C_SYSCALL] = {"syscall", true, true}, [C_CRINV] = {"crinv", true, false},
	[C_MSRINV] = {"msrinv", true, false},  [C_INVD] = {"invd", true, false},
	[C_XSETBV] = {"xsetbv", true, false},  [C_EVANY] = {"evany", true, false},
};

static void (*const ops[C_NR])(void) = {
	[C_HC] = op_hc,		[C_IO] = op_io,		  [C_MSR] = op_msr,
	[C_KGS] = op_kgs,	[C_CR] = op_cr,		  [C_DR] = op_dr,
	[C_CPUID] = op_cpuid,	[C_CACHE] = op_cache,	  [C_MWAIT] = op_mwait,
	[C_HLT] = op_hlt,	[C_INT] = op_int,	  [C_VMX] = op_vmx,
	[C_PRIV] = op_priv,	[C_XSAVE] = op_xsave,	  [C_CR8] = op_cr8,
	[C_SWAPGS] = op_swapgs, [C_SYSCALL] = op_syscall, [C_CRINV] = op_crinv,
	[C_MSRINV] = op_msrinv, [C_INVD] = op_invd,	  [C_XSETBV] = op_xsetbv,
	[C_EVANY] = op_evany,
};

/* --- this run -------------------------------------------------------------------------------- */
const struct sliver_boot_info *bi;
static uint64_t seed, op_n, fails;
static unsigned cur;
static uint64_t rs; /* this op's PRNG state */
static uint64_t n_ops[C_NR], n_faults[C_NR];
bool enabled[C_NR];
static unsigned en_list[C_NR], n_en;
uint64_t mem;
ureg cr0_base, cr4_base;
uint64_t efer_base, kgs_expect, last_clock;
uint32_t cpuid1_ecx, cpuid1_edx, cpuid7_ebx;
/* sliver runs on QEMU's emulator (TCG): CPUID 0x40000001 names the platform "TCGTCGTCGTCG"
 * (docs/hypercalls.md). Only then is an emulator's known gap accepted (emu_diff). */
bool on_qemu_tcg;
static uint64_t n_emu_diff;

/* The emulator's answer where it differs from the CPU's by a known emulator gap (docs/svm.md,
 * QEMU items): accepted only under QEMU TCG, counted, named once. */
void emu_diff(const char *what, const char *why)
{
	if (n_emu_diff++ == 0)
		fz_printf("fuzz: known emulator difference: %s (%s)\n", what, why);
}

uint8_t scratch[16384] __attribute__((aligned(4096)));

int64_t hc0(uint64_t nr, uint64_t a0, uint64_t a1)
{
	bool ok;
	return fz_hc(nr, (uint64_t[5]){a0, a1, 0, 0, 0}, &ok);
}
/* HC_SET_TIMER takes the 64-bit deadline as two 32-bit halves in both modes. */
void set_timer(uint64_t ns)
{
	hc0(HC_SET_TIMER, (uint32_t)ns, ns >> 32);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
uint64_t rnd(void)
{
	return splitmix(&rs);
}
uint32_t below(uint32_t n) /* uniform enough in [0, n) */
{
	return (uint32_t)(((rnd() >> 32) * n) >> 32);
}
bool chance(uint32_t pct)
{
	return below(100) < pct;
}

void fail(const char *fmt, ...)
{
	char d[200];
	va_list ap;
	va_start(ap, fmt);
	fmt_vsnprintf(d, sizeof d, fmt, ap);
	va_end(ap);
	if (++fails <= 20)
		fz_printf("fuzz: FAIL seed=%llu op=%llu class=%s %s\n", (unsigned long long)seed,
			  (unsigned long long)op_n, cls_def[cur].name, d);
}

static const char *vname(int v)
{
	static const char *const n[32] = {
		"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "v9",  "#TS",
		"#NP", "#SS", "#GP", "#PF", "v15", "#MF", "#AC", "#MC", "#XM", "#VE", "#CP",
	};
	if (v < 0)
		return "none";
	return v < 32 && n[v] ? n[v] : "v?";
}

bool expect(int got, const char *what, int a, int b)
{
	if (got == a || got == b)
		return true;
	fail("%s: got %s (err=%llx), expected %s%s%s", what, vname(got), (unsigned long long)fz_err,
	     vname(a), b != a ? " or " : "", b != a ? vname(b) : "");
	return false;
}

void fz_trap(unsigned vec, uintptr_t *ip, uint64_t err)
{
	if (fz_resume) {
		fz_vec = (int)vec;
		fz_err = err;
		*ip = fz_resume;
		fz_resume = 0;
		n_faults[cur]++;
		return;
	}
	fail("unexpected %s (vector %u) err=%llx at ip=%lx outside any op's recovery point",
	     vname((int)vec), vec, (unsigned long long)err, (unsigned long)*ip);
	fz_printf("fuzz: summary seed=%llu ops=%llu fail=%llu aborted\n", (unsigned long long)seed,
		  (unsigned long long)op_n, (unsigned long long)fails);
	fz_exit(3);
}

/* --- fatal acts: each must crash this domain (or, hltnone, leave it blocked for good) ------ */
static void fatal(const char *what)
{
	fz_printf("fuzz: fatal %s now\n", what);
	volatile uint32_t *p = 0;
	if (!strcmp(what, "ins")) {
		__asm__ volatile("insb" : : "D"(scratch), "d"(0x60) : "memory");
	} else if (!strcmp(what, "outs")) {
		__asm__ volatile("rep outsb" : : "S"(scratch), "c"(4), "d"(0x80) : "memory");
	} else if (!strcmp(what, "oob_read")) {
		p = (volatile uint32_t *)(uintptr_t)(mem + ((uint64_t)below(256) << 12));
		fz_printf("fuzz: read %x\n", *p);
	} else if (!strcmp(what, "oob_write")) {
		p = (volatile uint32_t *)(uintptr_t)(0x40000000u + ((uint64_t)below(256) << 12));
		*p = 1;
	} else if (!strcmp(what, "lapic")) {
		p = (volatile uint32_t *)(uintptr_t)0xfee00030u;
		fz_printf("fuzz: lapic version %x\n", *p);
	} else if (!strcmp(what, "ioapic")) {
		p = (volatile uint32_t *)(uintptr_t)0xfec00000u;
		*p = 1;
	} else if (!strcmp(what, "hltnone")) {
		set_timer(0);
		for (;;)
			__asm__ volatile("cli; hlt" ::: "memory");
	} else {
		fz_printf("fuzz: unknown fatal act %s\n", what);
		fz_exit(2);
	}
	fail("fatal act %s did not end the domain", what);
	fz_exit(1);
}

/* --- command line and the loop ------------------------------------------------------------- */
static bool parse_classes(const char *s)
{
	for (unsigned i = 0; i < C_NR; i++)
		enabled[i] = cls_def[i].dflt;
	while (*s) {
		const char *e = s;
		while (*e && *e != ',')
			e++;
		bool neg = *s == '-';
		const char *n = s + (neg || *s == '+');
		size_t len = (size_t)(e - n);
		bool found = false;
		for (unsigned i = 0; i < C_NR; i++) {
			bool all = len == 3 && !memcmp(n, "all", 3);
			bool none = len == 4 && !memcmp(n, "none", 4);
			if (all || none ||
			    (strlen(cls_def[i].name) == len && !memcmp(n, cls_def[i].name, len))) {
				enabled[i] = none ? false : !neg;
				found = true;
			}
		}
		if (!found && !(len == 7 && !memcmp(n, "default", 7))) {
			fz_printf("fuzz: unknown class %.*s\n", (int)len, n);
			return false;
		}
		s = *e ? e + 1 : e;
	}
	return true;
}

/* The counts, at most 8 classes a line: a console line is at most 200 bytes (DCON_LINE). */
static void print_counts(const char *what, uint64_t ops)
{
	char line[200];
	int n = fmt_snprintf(line, sizeof line, "fuzz: %s seed=%llu ops=%llu fail=%llu", what,
			     (unsigned long long)seed, (unsigned long long)ops,
			     (unsigned long long)fails);
	uint64_t faults = 0;
	unsigned on_line = 0;
	for (unsigned i = 0; i < C_NR; i++) {
		faults += n_faults[i];
		if (!enabled[i])
			continue;
		if (on_line == 8) {
			fz_printf("%s\n", line);
			n = fmt_snprintf(line, sizeof line, "fuzz: %s+", what);
			on_line = 0;
		}
		n += fmt_snprintf(line + n, sizeof line - (size_t)n, " %s=%llu", cls_def[i].name,
				  (unsigned long long)n_ops[i]);
		on_line++;
	}
	fz_printf("%s faults=%llu t_ms=%llu\n", line, (unsigned long long)faults,
		  (unsigned long long)(fz_clock_ns() / 1000000));
}

static void print_emu_diff(void)
{
	if (n_emu_diff)
		fz_printf("fuzz: known emulator differences=%llu\n",
			  (unsigned long long)n_emu_diff);
}

int fz_main(const struct sliver_boot_info *boot)
{
	bi = boot;
	mem = bi->mem_bytes;
	uint64_t nops = 10000, first = 1, report = 0, ms = 0;
	char mode[16] = "safe", cl[160] = "default", fatal_act[16] = "";
	fz_arg_u64("seed", &seed);
	fz_arg_u64("ops", &nops);
	fz_arg_u64("first", &first);
	fz_arg_u64("report", &report);
	fz_arg_u64("ms", &ms);
	fz_arg("mode", mode, sizeof mode);
	fz_arg("classes", cl, sizeof cl);
	fz_arg("fatal", fatal_act, sizeof fatal_act);
	if (!parse_classes(cl))
		return 2;
	if (!report)
		report = nops >= 8 ? nops / 4 : 1;
	if (report > 100000)
		report = 100000;
	if (first == 0)
		first = 1;
	for (unsigned i = 0; i < C_NR; i++)
		if (enabled[i] && (!cls_def[i].lm_only || LM))
			en_list[n_en++] = i;
	uint32_t r[4];
	x_cpuid(1, 0, r);
	cpuid1_ecx = r[2], cpuid1_edx = r[3];
	x_cpuid(7, 0, r);
	cpuid7_ebx = r[1];
	x_cpuid(0x40000001u, 0, r); /* "TCGT" "CGTC" "GTCG" */
	on_qemu_tcg = r[1] == 0x54474354u && r[2] == 0x43544743u && r[3] == 0x47435447u;
	cr0_base = rdcr0();
	cr4_base = rdcr4();
	efer_base = rdmsr_or_0(MSR_EFER);
	kgs_expect = ((uint64_t)bi->dom_id << 32) | 0x600d;
	x_wrmsr(MSR_KGS, kgs_expect);
	last_clock = 0;
	fz_printf("fuzz: start d%u bits=%d seed=%llu ops=%llu first=%llu mode=%s classes=%s\n",
		  bi->dom_id, LM ? 64 : 32, (unsigned long long)seed, (unsigned long long)nops,
		  (unsigned long long)first, mode, cl);
	if (!n_en) {
		fz_printf("fuzz: no op class enabled\n");
		return 2;
	}
	uint64_t stop_ns = ms ? fz_clock_ns() + ms * 1000000ull : ~0ull, done = nops;
	for (uint64_t i = 0; i < nops; i++) {
		if ((i & 255) == 0 && fz_clock_ns() >= stop_ns) {
			done = i; /* ms= reached first */
			break;
		}
		op_n = first + i;
		rs = seed ^ (op_n * 0xd1342543de82ef95ull);
		splitmix(&rs);
		cur = en_list[below(n_en)];
		n_ops[cur]++;
		ops[cur]();
		check_base();
		if ((i + 1) % report == 0 && i + 1 < nops)
			print_counts("progress", i + 1);
	}
	if (!strcmp(mode, "fatal")) {
		static const char *const acts[] = {"ins",   "outs",   "oob_read", "oob_write",
						   "lapic", "ioapic", "hltnone"};
		rs = seed ^ 0xfa7a1;
		print_counts("summary", done);
		print_emu_diff();
		fatal(fatal_act[0] ? fatal_act : acts[below(7)]);
	}
	print_counts("summary", done);
	print_emu_diff();
	return fails ? 1 : 0;
}
