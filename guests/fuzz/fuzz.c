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
#include "guests/fuzz/fuzz.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "sliver/dominfo.h"
#include "sliver/errno.h"
#include "sliver/event.h"
#include "sliver/hypercall.h"

typedef unsigned long ureg; /* register width of the mode we are built for */

/* --- fault recovery ---------------------------------------------------------------------
 * An op arms fz_resume with the address right after the instruction that may fault; the
 * trap handler records the vector and resumes there. A fault with nothing armed is a FAIL. */
volatile uintptr_t fz_resume;
static volatile int fz_vec = -1;
static volatile uint64_t fz_err;

#ifdef __x86_64__
#define ARM	 "leaq 1f(%%rip), %%r11\n\tmovq %%r11, fz_resume(%%rip)\n\t"
#define DISARM	 "\n1:\tmovq $0, fz_resume(%%rip)"
#define ARM_CLOB "r11",
#define LM	 1
#define DX_CLOB	 "rdx"
#else
#define DX_CLOB "edx"
#define ARM	"movl $1f, fz_resume\n\t"
#define DISARM	"\n1:\tmovl $0, fz_resume"
#define ARM_CLOB
#define LM 0
#endif

#define V_NONE (-1)
#define V_DB   1
#define V_UD   6
#define V_GP   13

/* --- op classes -------------------------------------------------------------------------- */
enum {
	C_HC,
	C_IO,
	C_MSR,
	C_KGS,
	C_CR,
	C_DR,
	C_CPUID,
	C_CACHE,
	C_MWAIT,
	C_HLT,
	C_INT,
	C_VMX,
	C_PRIV,
	C_XSAVE,
	/* the holes issue 8 listed (fixed; e2e-fuzz-holes runs them on their own too) */
	C_CR8,
	C_SWAPGS,
	C_SYSCALL,
	C_CRINV,
	C_MSRINV,
	C_INVD,
	C_XSETBV,
	C_EVANY,
	C_NR
};
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

static const struct sliver_boot_info *bi;
static uint64_t seed, op_n, fails;
static unsigned cur;
static uint64_t rs; /* this op's PRNG state */
static uint64_t n_ops[C_NR], n_faults[C_NR];
static bool enabled[C_NR];
static unsigned en_list[C_NR], n_en;
static uint64_t mem;
static ureg cr0_base, cr4_base;
static uint64_t efer_base, kgs_expect, last_clock;
static uint32_t cpuid1_ecx, cpuid1_edx, cpuid7_ebx;
/* sliver runs on QEMU's emulator (TCG): CPUID 0x40000001 names the platform "TCGTCGTCGTCG"
 * (docs/hypercalls.md). Only then is an emulator's known gap accepted (emu_diff). */
static bool on_qemu_tcg;
static uint64_t n_emu_diff;

/* The emulator's answer where it differs from the CPU's by a known emulator gap (docs/svm.md,
 * QEMU items): accepted only under QEMU TCG, counted, named once. */
static void emu_diff(const char *what, const char *why)
{
	if (n_emu_diff++ == 0)
		fz_printf("fuzz: known emulator difference: %s (%s)\n", what, why);
}

/* Scratch memory: the only guest RAM a valid pointer argument may name (the hypervisor
 * writes there), and the page the single-instruction stubs are assembled into. */
static uint8_t scratch[16384] __attribute__((aligned(4096)));
static uint8_t stub[32] __attribute__((aligned(16)));

static int64_t hc0(uint64_t nr, uint64_t a0, uint64_t a1)
{
	bool ok;
	return fz_hc(nr, (uint64_t[5]){a0, a1, 0, 0, 0}, &ok);
}
/* HC_SET_TIMER takes the 64-bit deadline as two 32-bit halves in both modes. */
static void set_timer(uint64_t ns)
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
static uint64_t rnd(void)
{
	return splitmix(&rs);
}
static uint32_t below(uint32_t n) /* uniform enough in [0, n) */
{
	return (uint32_t)(((rnd() >> 32) * n) >> 32);
}
static bool chance(uint32_t pct)
{
	return below(100) < pct;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
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

/* One of the allowed outcomes (a list of vectors, V_NONE for "no fault"), else FAIL. */
static bool expect(int got, const char *what, int a, int b)
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

/* --- single instructions, each under a recovery point -------------------------------------- */
static int x_rdmsr(uint32_t idx, uint64_t *val)
{
	uint32_t lo = 0, hi = 0;
	fz_vec = V_NONE;
	__asm__ volatile(ARM "rdmsr" DISARM : "=a"(lo), "=d"(hi) : "c"(idx) : ARM_CLOB "memory");
	*val = ((uint64_t)hi << 32) | lo;
	return fz_vec;
}
static int x_wrmsr(uint32_t idx, uint64_t val)
{
	fz_vec = V_NONE;
	__asm__ volatile(ARM "wrmsr" DISARM
			 :
			 : "c"(idx), "a"((uint32_t)val), "d"((uint32_t)(val >> 32))
			 : ARM_CLOB "memory");
	return fz_vec;
}
static uint64_t rdmsr_or_0(uint32_t idx)
{
	uint64_t v;
	return x_rdmsr(idx, &v) == V_NONE ? v : 0;
}

#define X_WRCR(n)                                                                                  \
	static int x_wrcr##n(ureg v)                                                               \
	{                                                                                          \
		fz_vec = V_NONE;                                                                   \
		__asm__ volatile(ARM "mov %0, %%cr" #n DISARM : : "r"(v) : ARM_CLOB "memory");     \
		return fz_vec;                                                                     \
	}                                                                                          \
	static ureg rdcr##n(void)                                                                  \
	{                                                                                          \
		ureg v;                                                                            \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                                  \
		return v;                                                                          \
	}
X_WRCR(0)
X_WRCR(3)
X_WRCR(4)
#ifdef __x86_64__
X_WRCR(8)
#endif

/* MOV to/from DRn, encoded by hand (0f 23 / 0f 21, ModRM 11 n 000 = RAX) so DR4/DR5 work. */
#define DR_CASE(n)                                                                                 \
	case n:                                                                                    \
		if (write)                                                                         \
			__asm__ volatile(ARM ".byte 0x0f, 0x23, 0xc0 + " #n " * 8" DISARM          \
					 : "+a"(*v)                                                \
					 :                                                         \
					 : ARM_CLOB "memory");                                     \
		else                                                                               \
			__asm__ volatile(ARM ".byte 0x0f, 0x21, 0xc0 + " #n " * 8" DISARM          \
					 : "+a"(*v)                                                \
					 :                                                         \
					 : ARM_CLOB "memory");                                     \
		break;
static int x_dr(unsigned n, bool write, ureg *v)
{
	fz_vec = V_NONE;
	switch (n) {
		DR_CASE(0)
		DR_CASE(1)
		DR_CASE(2)
		DR_CASE(3)
		DR_CASE(4)
		DR_CASE(5)
		DR_CASE(6)
		DR_CASE(7)
	}
	return fz_vec;
}

static void x_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

/* Runs the bytes b[0..n) from the stub page, with RAX = a and RCX = c on entry (returned
 * through them); the recovery point is the RET after them. */
static int x_stub(const uint8_t *b, unsigned n, ureg *a, ureg *c)
{
	memcpy(stub, b, n);
	stub[n] = 0xc3; /* ret */
	fz_vec = V_NONE;
	fz_resume = (uintptr_t)(stub + n);
	ureg ra = *a, rc = *c;
	__asm__ volatile("call *%2" : "+a"(ra), "+c"(rc) : "r"(stub) : DX_CLOB, "memory", "cc");
	fz_resume = 0;
	*a = ra, *c = rc;
	return fz_vec;
}
static int stub0(const uint8_t *b, unsigned n)
{
	ureg a = (uintptr_t)scratch, c = 0;
	return x_stub(b, n, &a, &c);
}

/* --- state that must not change behind our back ------------------------------------------ */
static void check_base(void)
{
	ureg c0 = rdcr0(), c4 = rdcr4();
	if (c0 != cr0_base || c4 != cr4_base) {
		fail("CR0/CR4 read %lx/%lx after the op, expected %lx/%lx", (unsigned long)c0,
		     (unsigned long)c4, (unsigned long)cr0_base, (unsigned long)cr4_base);
		x_wrcr0(cr0_base);
		x_wrcr4(cr4_base);
	}
}
static void check_efer(void)
{
	uint64_t e = rdmsr_or_0(0xc0000080u);
	if (e != efer_base) {
		fail("EFER read %llx after the op, expected %llx", (unsigned long long)e,
		     (unsigned long long)efer_base);
		x_wrmsr(0xc0000080u, efer_base);
	}
}

/* --- hypercalls ----------------------------------------------------------------------------- */
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

static void op_hc(void)
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

/* --- port I/O ------------------------------------------------------------------------------- */
static const uint16_t io_ports[] = {
	0x20,  0x21,  0x40,  0x43,  0x60,  0x61,  0x64,	 0x70,	0x71,  0x80,  0x92,  0xa0,   0xa1,
	0xb2,  0xf4,  0x1f0, 0x1f7, 0x2f8, 0x3c0, 0x3d4, 0x3f8, 0x3f9, 0x3fa, 0x3fb, 0x3fc,  0x3fd,
	0x3fe, 0x3ff, 0x402, 0x4d0, 0x4d1, 0x510, 0x511, 0xcf8, 0xcf9, 0xcfc, 0xe9,  0x8900, 0xffff,
};

static void op_io(void)
{
	uint16_t port = chance(50) ? io_ports[below(sizeof io_ports / sizeof io_ports[0])]
				   : (uint16_t)rnd();
	unsigned size = 1u << below(3);
	bool in = chance(50);
	ureg mask = size == 1 ? 0xff : size == 2 ? 0xffff : 0xffffffffu;
	bool com1 = size == 1 && port >= 0x3f8 && port <= 0x3ff, e9 = size == 1 && port == 0xe9;
	if (!in) {
		/* Bytes to COM1's THR or port 0xE9 are console output: keep the log readable. */
		if ((com1 && port == 0x3f8) || e9)
			port = 0x3ff;
		if (port == 0xf4) /* isa-debug-exit would end the domain (docs/guests.md) */
			port = 0x3ff;
		ureg v = (ureg)rnd();
		if (size == 1)
			__asm__ volatile("outb %%al, %%dx" : : "a"(v), "d"(port));
		else if (size == 2)
			__asm__ volatile("outw %%ax, %%dx" : : "a"(v), "d"(port));
		else
			__asm__ volatile("outl %%eax, %%dx" : : "a"(v), "d"(port));
		return;
	}
	ureg before = (ureg)rnd(), v = before;
	if (size == 1)
		__asm__ volatile("inb %%dx, %%al" : "+a"(v) : "d"(port));
	else if (size == 2)
		__asm__ volatile("inw %%dx, %%ax" : "+a"(v) : "d"(port));
	else
		__asm__ volatile("inl %%dx, %%eax" : "+a"(v) : "d"(port));
	ureg rest = size == 4 ? 0 : before & ~mask; /* 32-bit IN zero-extends, 8/16 merge */
	if ((v & ~mask) != rest)
		fail("in%u port %x: upper bits %lx, expected %lx", size * 8, port,
		     (unsigned long)(v & ~mask), (unsigned long)rest);
	ureg got = v & mask, want = mask;
	if (e9)
		want = 0xe9;
	else if (com1 && port == 0x3fd)
		want = 0x60; /* LSR: transmitter empty */
	else if (com1 && port == 0x3fa)
		want = 0x01; /* IIR: nothing pending */
	else if (com1)
		return;
	/* The minimal PC's registers with values of their own (docs/guests.md): fw_cfg data,
	 * the PM1 block and the PM timer. */
	if ((port == 0x511 && size == 1) || (port >= 0x600 && port < 0x60c))
		return;
	if (got != want)
		fail("in%u port %x read %lx, expected %lx", size * 8, port, (unsigned long)got,
		     (unsigned long)want);
}

/* --- MSRs ----------------------------------------------------------------------------------- */
#define MSR_EFER  0xc0000080u
#define MSR_STAR  0xc0000081u
#define MSR_LSTAR 0xc0000082u
#define MSR_CSTAR 0xc0000083u
#define MSR_FMASK 0xc0000084u
#define MSR_FSB	  0xc0000100u
#define MSR_GSB	  0xc0000101u
#define MSR_KGS	  0xc0000102u
#define MSR_PAT	  0x277u
#define PAT_BOOT  0x0007040600070406ull
#define EFER_SCE  (1ull << 0)
#define EFER_LME  (1ull << 8)
#define EFER_LMA  (1ull << 10)
#define EFER_NXE  (1ull << 11)

static const uint32_t msr_list[] = {
	0x10,	    0x1b,	0x3a,	    0x3b,	 0x48,	     0x49,	 0x8b,
	0xc1,	    0xe7,	0xe8,	    0xfe,	 0x174,	     0x175,	 0x176,
	0x179,	    0x17a,	0x186,	    0x198,	 0x199,	     0x1a0,	 0x1d9,
	0x200,	    0x201,	0x20f,	    0x250,	 0x258,	     0x277,	 0x2ff,
	0x345,	    0x38d,	0x38f,	    0x390,	 0x480,	     0x481,	 0x48b,
	0x491,	    0x6e0,	0x802,	    0x808,	 0x80b,	     0x830,	 0x838,
	0x8ff,	    MSR_EFER,	MSR_STAR,   MSR_LSTAR,	 MSR_CSTAR,  MSR_FMASK,	 MSR_FSB,
	MSR_GSB,    MSR_KGS,	0xc0000103, 0xc0010000,	 0xc0010004, 0xc0010015, 0xc0010114,
	0xc0011022, 0x40000000, 0x4b564d00, 0xffffffffu,
};
/* Writes docs/hypercalls.md promises to refuse with #GP. */
static bool msr_must_gp_on_write(uint32_t m)
{
	return m == 0x3a || m == 0x1b || (m >= 0x480 && m <= 0x491);
}
static bool canonical(uint64_t v)
{
	return (uint64_t)((int64_t)(v << 16) >> 16) == v;
}
static uint64_t rand_canonical(void)
{
	uint64_t v = rnd() & 0x00007fffffffffffull;
	return chance(50) ? v : v | 0xffff800000000000ull;
}

static void op_efer(void)
{
	static const uint64_t bits[] = {EFER_SCE,  EFER_LME,   EFER_LMA,   EFER_NXE,  1ull << 1,
					1ull << 9, 1ull << 12, 1ull << 15, 1ull << 63};
	uint64_t v = efer_base;
	for (unsigned i = 0, k = 1 + below(2); i < k; i++)
		v ^= bits[below(sizeof bits / sizeof bits[0])];
	bool ok = !(v & ~(EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE)) && !(LM && !(v & EFER_LME));
	int got = x_wrmsr(MSR_EFER, v);
	if (!expect(got, "wrmsr EFER", ok ? V_NONE : V_GP, ok ? V_NONE : V_GP))
		return;
	uint64_t rb = rdmsr_or_0(MSR_EFER);
	uint64_t want = ok ? ((v & ~EFER_LMA) | (efer_base & EFER_LMA)) : efer_base;
	if (rb != want)
		fail("EFER wrote %llx (%s), reads %llx, expected %llx", (unsigned long long)v,
		     ok ? "accepted" : "refused", (unsigned long long)rb, (unsigned long long)want);
	x_wrmsr(MSR_EFER, efer_base);
}

static void op_msr(void)
{
	uint32_t m;
	switch (below(6)) {
	case 0:
	case 1:
		m = msr_list[below(sizeof msr_list / sizeof msr_list[0])];
		break;
	case 2:
		m = 0x800 + below(0x100);
		break;
	case 3:
		m = 0xc0010000u + below(0x10000);
		break;
	case 4:
		m = (chance(50) ? 0 : 0xc0000000u) + below(0x2000);
		break;
	default:
		m = (uint32_t)rnd();
	}
	if (m == MSR_EFER) {
		op_efer();
		return;
	}
	uint64_t old;
	int rd = x_rdmsr(m, &old);
	if (!expect(rd, "rdmsr", V_NONE, V_GP) || chance(40))
		return;
	/* IA32_TSC and TSC_ADJUST move this vCPU's TSC (a per-vCPU offset, checked by the
	 * hostile guest): a random value would break the fuzzer's own clock. */
	if (m == 0x10 || m == 0x3b)
		return;
	uint64_t v;
	switch (below(5)) {
	case 0:
		v = 0;
		break;
	case 1:
		v = ~0ull;
		break;
	case 2:
		v = old ^ (1ull << below(64));
		break;
	case 3:
		v = rand_canonical();
		break;
	default:
		v = rnd();
	}
	bool gp_only = msr_must_gp_on_write(m), check_rb = false;
	switch (m) {
	case MSR_STAR:
		check_rb = true;
		break;
	case MSR_LSTAR:
	case MSR_CSTAR:
	case MSR_KGS:
		if (!canonical(v) && !enabled[C_MSRINV])
			v = rand_canonical();
		gp_only = !canonical(v);
		check_rb = true;
		if (m == MSR_KGS && !gp_only)
			v = ((uint64_t)bi->dom_id << 32) | (v & 0xffffffffu);
		break;
	case MSR_FMASK:
		if (!enabled[C_MSRINV])
			v = (uint32_t)v;
		gp_only = v >> 32;
		check_rb = true;
		break;
	case MSR_PAT:
		if (!enabled[C_MSRINV])
			v &= 0x0707070707070707ull & ~0x0202020202020202ull; /* types 0,1,4,5 */
		break;
	case 0x2ff: /* MTRRdefType: E, FE and a type only */
		if (!enabled[C_MSRINV])
			v = (v & 0xc00) | (chance(50) ? 6 : 0);
		break;
	}
	int wr = x_wrmsr(m, v);
	char what[64];
	fmt_snprintf(what, sizeof what, "wrmsr %x value %llx%s", m, (unsigned long long)v,
		     gp_only ? " (must be refused)" : "");
	expect(wr, what, gp_only ? V_GP : V_NONE, V_GP);
	if (wr == V_NONE) {
		uint64_t rb = 0;
		if (check_rb && (x_rdmsr(m, &rb) != V_NONE || rb != v))
			fail("msr %x wrote %llx, reads %llx", m, (unsigned long long)v,
			     (unsigned long long)rb);
		if (m == MSR_KGS)
			kgs_expect = v;
		if (m == MSR_PAT || m == MSR_FSB || m == MSR_GSB || (m >= 0x174 && m <= 0x176) ||
		    m == 0x2ff)
			x_wrmsr(m, rd == V_NONE ? old : 0);
	}
	check_efer();
}

/* KERNEL_GS_BASE is this vCPU's: it reads back what this domain wrote, after a yield that
 * lets other domains (other fuzzers writing their own) run on the pCPU. */
static void op_kgs(void)
{
	uint64_t got = rdmsr_or_0(MSR_KGS);
	if (got != kgs_expect)
		fail("KERNEL_GS_BASE reads %llx, this domain wrote %llx", (unsigned long long)got,
		     (unsigned long long)kgs_expect);
	kgs_expect = ((uint64_t)bi->dom_id << 32) | (uint32_t)rnd();
	if (x_wrmsr(MSR_KGS, kgs_expect) != V_NONE)
		fail("wrmsr KERNEL_GS_BASE %llx refused", (unsigned long long)kgs_expect);
	if (chance(25))
		hc0(HC_YIELD, 0, 0);
	got = rdmsr_or_0(MSR_KGS);
	if (got != kgs_expect)
		fail("KERNEL_GS_BASE reads %llx after a yield, this domain wrote %llx",
		     (unsigned long long)got, (unsigned long long)kgs_expect);
}

/* --- control registers ----------------------------------------------------------------------- */
#define CR0_PE (1ul << 0)
#define CR0_MP (1ul << 1)
#define CR0_TS (1ul << 3)
#define CR0_ET (1ul << 4)
#define CR0_NE (1ul << 5)
#define CR0_WP (1ul << 16)
#define CR0_AM (1ul << 18)
#define CR0_NW (1ul << 29)
#define CR0_CD (1ul << 30)
#define CR0_PG (1ul << 31)

/* CR4 bits this CPU (as CPUID shows it to us) has, and so must accept. */
static ureg cr4_known(void)
{
	ureg k = 0;
	if (cpuid1_edx & (1u << 1))
		k |= 1ul << 0 | 1ul << 1; /* VME, PVI */
	if (cpuid1_edx & (1u << 4))
		k |= 1ul << 2; /* TSD */
	if (cpuid1_edx & (1u << 3))
		k |= 1ul << 4; /* PSE */
	if (cpuid1_edx & (1u << 7))
		k |= 1ul << 6; /* MCE */
	if (cpuid1_edx & (1u << 13))
		k |= 1ul << 7; /* PGE */
	k |= 1ul << 8;	       /* PCE */
	if (cpuid1_edx & (1u << 24))
		k |= 1ul << 9; /* OSFXSR */
	if (cpuid1_edx & (1u << 25))
		k |= 1ul << 10; /* OSXMMEXCPT */
	if (cpuid7_ebx & (1u << 0))
		k |= 1ul << 16; /* FSGSBASE */
	if (cpuid7_ebx & (1u << 7))
		k |= 1ul << 20; /* SMEP */
	if (cpuid7_ebx & (1u << 20))
		k |= 1ul << 21; /* SMAP */
	return k;
}

static void cr_write_expect(int cr, ureg v, bool ok, const char *what)
{
	int got = cr == 0 ? x_wrcr0(v) : x_wrcr4(v);
	ureg base = cr == 0 ? cr0_base : cr4_base;
	char w[80];
	fmt_snprintf(w, sizeof w, "%s: cr%d value %lx", what, cr, (unsigned long)v);
	if (expect(got, w, ok ? V_NONE : V_GP, ok ? V_NONE : V_GP)) {
		ureg rb = cr == 0 ? rdcr0() : rdcr4();
		ureg want = !ok ? base : cr == 0 ? v | CR0_ET : v;
		if (rb != want)
			fail("%s: cr%d wrote %lx, reads %lx, expected %lx", what, cr,
			     (unsigned long)v, (unsigned long)rb, (unsigned long)want);
	}
	if (cr == 0)
		x_wrcr0(cr0_base);
	else
		x_wrcr4(cr4_base);
}

static void op_cr(void)
{
	switch (below(9)) {
	case 0: { /* CR0 bits any guest may flip */
		static const ureg flip[] = {CR0_MP, CR0_TS, CR0_NE, CR0_WP, CR0_AM, CR0_CD};
		ureg v = cr0_base;
		for (unsigned i = 0, k = 1 + below(3); i < k; i++)
			v ^= flip[below(6)];
		cr_write_expect(0, v, true, "mov cr0 (allowed bits)");
		break;
	}
	case 1: { /* CR0 writes hardware refuses */
		ureg v;
		switch (below(LM ? 3 : 2)) {
		case 0:
			v = (cr0_base & ~CR0_PE) | CR0_PG;
			break;
		case 1:
			v = (cr0_base | CR0_NW) & ~CR0_CD;
			break;
		default:
			v = cr0_base | (ureg)(rnd() | 1) << (LM ? 32 : 0);
		}
		cr_write_expect(0, v, false, "mov cr0 (refused)");
		break;
	}
	case 2: { /* CR4 bits CPUID says exist */
		ureg known = cr4_known(), v = cr4_base ^ ((ureg)rnd() & known);
		cr_write_expect(4, v, true, "mov cr4 (known bits)");
		break;
	}
	case 3: { /* CR4 writes hardware refuses: VMXE, reserved, PAE off in long mode */
		ureg v;
		switch (below(LM ? 4 : 2)) {
		case 0:
			v = cr4_base | 1ul << 13;
			break;
		case 1:
			v = cr4_base | 1ul << (26 + below(6));
			break;
		case 2:
			v = cr4_base & ~(1ul << 5);
			break;
		default:
			v = cr4_base | (ureg)(rnd() | 1) << (LM ? 32 : 0);
		}
		cr_write_expect(4, v, false, "mov cr4 (refused)");
		break;
	}
	case 4: { /* CR3: paging off in 32-bit mode (anything goes), the same tables in 64 */
		ureg old = rdcr3();
		ureg v = LM ? old : (ureg)rnd();
		expect(x_wrcr3(v), "mov cr3", V_NONE, V_NONE);
		if (rdcr3() != v)
			fail("cr3 wrote %lx, reads %lx", (unsigned long)v, (unsigned long)rdcr3());
		x_wrcr3(old);
		if (LM) /* bits above MAXPHYADDR */
			expect(x_wrcr3(old | (ureg)1 << (52 + below(11))), "mov cr3 reserved bits",
			       V_GP, V_GP);
		break;
	}
	case 5: /* CLTS */
		x_wrcr0(cr0_base | CR0_TS);
		__asm__ volatile("clts" ::: "memory");
		if (rdcr0() != ((cr0_base | CR0_ET) & ~CR0_TS))
			fail("clts: cr0 reads %lx", (unsigned long)rdcr0());
		x_wrcr0(cr0_base);
		break;
	case 6: { /* LMSW: PE, MP, EM, TS; cannot clear PE */
		uint16_t w = (uint16_t)((rnd() & 0xe) | (chance(50) ? 1 : 0));
		__asm__ volatile("lmsw %0" : : "r"(w) : "memory");
		ureg want = (cr0_base & ~0xful) | (w & 0xf) | CR0_PE;
		if (rdcr0() != want)
			fail("lmsw %x: cr0 reads %lx, expected %lx", w, (unsigned long)rdcr0(),
			     (unsigned long)want);
		x_wrcr0(cr0_base);
		break;
	}
	case 7:
		op_efer();
		break;
	default: { /* MOV from CR2 and back (CR2 is the vCPU's) */
		ureg v = (ureg)rnd(), rb;
		__asm__ volatile("mov %1, %%cr2; mov %%cr2, %0" : "=r"(rb) : "r"(v));
		if (rb != v)
			fail("cr2 wrote %lx, reads %lx", (unsigned long)v, (unsigned long)rb);
	}
	}
	check_efer();
}

/* Writes issue 8 found accepted where hardware gives #GP/#UD (fixed on another branch). */
static void op_crinv(void)
{
	uint32_t r[4];
	x_cpuid(1, 0, r);
	switch (below(4)) {
	case 0: { /* CR4 bits CPUID hides: PCIDE, OSXSAVE, UMIP, PKE, CET, LA57 */
		static const unsigned hidden[] = {17, 18, 11, 22, 23, 12};
		unsigned b = hidden[below(6)];
		bool has = (b == 17 && (r[2] & (1u << 17))) || (b == 18 && (r[2] & (1u << 26)));
		cr_write_expect(4, cr4_base | 1ul << b, has && !(b == 17 && !LM),
				"mov cr4 (hidden bit)");
		break;
	}
	case 1: /* DR4 with CR4.DE = 1 is #UD */
		if (x_wrcr4(cr4_base | 1ul << 3) == V_NONE) {
			ureg v = 0;
			expect(x_dr(4, chance(50), &v), "mov dr4 with CR4.DE", V_UD, V_UD);
			x_wrcr4(cr4_base);
		}
		break;
	case 2: /* 64-bit: PG off in 64-bit code is #GP */
		if (LM)
			cr_write_expect(0, cr0_base & ~CR0_PG, false,
					"mov cr0 PG=0 in 64-bit mode");
		break;
	default: /* non-canonical DR0 is fine; DR7 upper bits #GP already in op_dr */
		break;
	}
}

/* --- debug registers ------------------------------------------------------------------------- */
static void op_dr(void)
{
	unsigned n = below(8);
	ureg v, rb = 0;
	if (n < 4) {
		v = (ureg)rnd();
	} else if (n == 4 || n == 6) {
		v = (ureg)(uint32_t)rnd();
		if (LM && chance(20))
			v |= (ureg)1 << (32 + below(32));
	} else {
		v = ((ureg)(uint32_t)rnd() & 0xffff0300u) | 0x400; /* no enables, no GD */
		if (LM && chance(20))
			v |= (ureg)1 << (32 + below(32));
	}
	ureg w = v;
	bool high = LM && n >= 4 && (v >> 31 >> 1);
	int got = x_dr(n, true, &w);
	if (!expect(got, "mov to dr", high ? V_GP : V_NONE, high ? V_GP : V_NONE) || high)
		goto out;
	if (n == 6 || n == 4)
		goto out; /* DR6 has fixed bits the hypervisor may model */
	got = x_dr(n, false, &rb);
	expect(got, "mov from dr", V_NONE, V_NONE);
	if (rb != v)
		fail("dr%u wrote %lx, reads %lx", n, (unsigned long)v, (unsigned long)rb);
	if (n == 5) { /* alias of DR7 while CR4.DE = 0 */
		x_dr(7, false, &rb);
		if (rb != v)
			fail("dr5 wrote %lx, dr7 reads %lx", (unsigned long)v, (unsigned long)rb);
	}
out:;
	ureg d7 = 0x400;
	x_dr(7, true, &d7);
}

/* --- CPUID ----------------------------------------------------------------------------------- */
static void op_cpuid(void)
{
	uint32_t leaf, sub = chance(50) ? below(4) : (uint32_t)rnd();
	switch (below(5)) {
	case 0:
		leaf = below(0x20);
		break;
	case 1:
		leaf = 0x40000000u + below(0x20);
		break;
	case 2:
		leaf = 0x80000000u + below(0x20);
		break;
	case 3:
		leaf = chance(50) ? 1 : 0x40000000u;
		break;
	default:
		leaf = (uint32_t)rnd();
	}
	uint32_t r[4];
	x_cpuid(leaf, sub, r);
	if (leaf == 1) {
		uint32_t hidden = 1u << 3 | 1u << 5 | 1u << 6 | 1u << 21 | 1u << 24;
		if ((r[2] & hidden) || !(r[2] & (1u << 31)))
			fail("cpuid.1 ecx=%x: VMX/SMX/MONITOR/x2APIC/TSC-deadline shown or "
			     "hypervisor bit clear",
			     r[2]);
	}
	if (leaf == 0x40000000u && (r[0] < 0x40000000u || r[1] != 0x76696c53u ||
				    r[2] != 0x6c537265u || r[3] != 0x72657669u))
		fail("cpuid 0x40000000: %x %x %x %x, not SliverSliver", r[0], r[1], r[2], r[3]);
}

/* --- cache, MONITOR/MWAIT, HLT, INT n, VMX, privileged ---------------------------------------- */
static void op_cache(void)
{
	if (chance(50))
		__asm__ volatile("wbinvd" ::: "memory");
	else
		__asm__ volatile("clflush (%0)" : : "r"(scratch + below(4096)) : "memory");
}

static void op_invd(void)
{
	static const uint8_t invd[] = {0x0f, 0x08};
	expect(stub0(invd, 2), "invd", V_NONE, V_GP);
}

static void op_mwait(void)
{
	static const uint8_t monitor[] = {0x0f, 0x01, 0xc8}, mwait[] = {0x0f, 0x01, 0xc9};
	int got = chance(50) ? stub0(monitor, 3) : stub0(mwait, 3);
	expect(got, "monitor/mwait", V_UD, V_NONE);
}

static void op_hlt(void)
{
	uint64_t now = fz_clock_ns();
	uint64_t t = chance(20) ? now - below(1000) : now + below(300000);
	/* Armed with IF=0: a timer that fires at once must not be taken before the HLT. */
	__asm__ volatile("cli" ::: "memory");
	fz_timer_fired = 0;
	set_timer(t);
	if (chance(70)) /* HLT with IF=0 wakes on a pending interrupt, then STI takes it */
		__asm__ volatile("hlt; sti; nop" ::: "memory");
	else /* STI's shadow covers the HLT: the interrupt wakes it and is taken */
		__asm__ volatile("sti; hlt" ::: "memory");
}

static void op_int(void)
{
	static const uint8_t errcode[] = {8, 10, 11, 12, 13, 14, 17, 21, 29, 30};
	unsigned form = below(8);
	if (form == 0) { /* INT3 */
		static const uint8_t b[] = {0xcc};
		expect(stub0(b, 1), "int3", 3, 3);
		return;
	}
	if (form == 1) { /* ICEBP */
		static const uint8_t b[] = {0xf1};
		int got = stub0(b, 1);
		/* QEMU 7.2's TCG is built without WANT_ICEBP: 0xF1 is #UD there (docs/svm.md QEMU
		 * item 5); on a CPU and in Bochs it is #DB (SDM Vol. 3A 17.3.1.2). */
		if (on_qemu_tcg && got == V_UD)
			emu_diff("icebp is #UD under QEMU TCG, #DB on a CPU",
				 "docs/svm.md QEMU item 5");
		else
			expect(got, "icebp", V_DB, V_DB);
		return;
	}
	unsigned v = below(256);
	for (unsigned i = 0; i < sizeof errcode; i++)
		if (v == errcode[i])
			v = 3; /* our stubs would pop an error code INT n does not push */
	uint8_t b[2] = {0xcd, (uint8_t)v};
	int got = stub0(b, 2);
	expect(got, "int n", v < 32 ? (int)v : V_NONE, v < 32 ? (int)v : V_NONE);
}

static void op_vmx(void)
{
	static const struct {
		uint8_t b[6], n;
	} t[] = {
		{{0xf3, 0x0f, 0xc7, 0x30}, 4},	     /* vmxon (%rax) */
		{{0x0f, 0xc7, 0x30}, 3},	     /* vmptrld (%rax) */
		{{0x66, 0x0f, 0xc7, 0x30}, 4},	     /* vmclear (%rax) */
		{{0x0f, 0xc7, 0x38}, 3},	     /* vmptrst (%rax) */
		{{0x0f, 0x01, 0xc4}, 3},	     /* vmxoff */
		{{0x0f, 0x01, 0xc2}, 3},	     /* vmlaunch */
		{{0x0f, 0x01, 0xc3}, 3},	     /* vmresume */
		{{0x0f, 0x78, 0xc8}, 3},	     /* vmread %rcx, %rax */
		{{0x0f, 0x79, 0xc1}, 3},	     /* vmwrite %rcx, %rax */
		{{0x66, 0x0f, 0x38, 0x80, 0x08}, 5}, /* invept (%rax), %rcx */
		{{0x66, 0x0f, 0x38, 0x81, 0x08}, 5}, /* invvpid (%rax), %rcx */
		{{0x0f, 0x01, 0xd4}, 3},	     /* vmfunc */
		{{0x0f, 0x37}, 2},		     /* getsec */
	};
	unsigned i = below(sizeof t / sizeof t[0]);
	memset(scratch, 0, 16);
	ureg a = (uintptr_t)scratch, c = below(4) ? below(4) : (ureg)rnd();
	if (i == 4 || i == 5 || i == 6 || i == 11)
		a = below(4); /* vmfunc's leaf, anything for the rest */
	if (i == 7 || i == 8)
		a = (ureg)rnd();
	expect(x_stub(t[i].b, t[i].n, &a, &c), "vmx instruction", V_UD, V_UD);
}

static void op_priv(void)
{
	ureg a = 0, c = (ureg)rnd();
	switch (below(5)) {
	case 0: {
		static const uint8_t rdpmc[] = {0x0f, 0x33};
		expect(x_stub(rdpmc, 2, &a, &c), "rdpmc", V_UD, V_GP);
		break;
	}
	case 1: {
		static const uint8_t rdtscp[] = {0x0f, 0x01, 0xf9};
		expect(x_stub(rdtscp, 3, &a, &c), "rdtscp", V_NONE, V_UD);
		break;
	}
	case 2: {
		struct __attribute__((packed)) {
			uint16_t limit;
			uintptr_t base;
		} g, i;
		__asm__ volatile("sgdt %0" : "=m"(g));
		__asm__ volatile("sidt %0" : "=m"(i));
		if (!g.limit || !i.limit)
			fail("sgdt/sidt read limits %x/%x", g.limit, i.limit);
		break;
	}
	case 3: {
		static const uint8_t invlpg[] = {0x0f, 0x01, 0x38}; /* invlpg (%rax) */
		a = chance(50) ? (ureg)rnd() : (uintptr_t)scratch;
		expect(x_stub(invlpg, 3, &a, &c), "invlpg", V_NONE, V_NONE);
		break;
	}
	default: {
		static const uint8_t rdrand[] = {0x0f, 0xc7, 0xf0}; /* rdrand %eax */
		expect(x_stub(rdrand, 3, &a, &c), "rdrand", V_NONE, V_UD);
	}
	}
}

/* XGETBV/XSETBV with CR4.OSXSAVE = 0 (XSAVE is hidden): #UD from the CPU, no exit. */
static void op_xsave(void)
{
	static const uint8_t xgetbv[] = {0x0f, 0x01, 0xd0}, xsetbv[] = {0x0f, 0x01, 0xd1};
	ureg a = 1, c = below(2);
	if (cr4_base & (1ul << 18))
		return;
	expect(x_stub(chance(50) ? xgetbv : xsetbv, 3, &a, &c), "xgetbv/xsetbv", V_UD, V_UD);
}

/* With CR4.OSXSAVE set (if the hypervisor lets it be set while CPUID hides XSAVE), XSETBV
 * exits: today an unhandled exit that crashes the domain (issue 8). */
static void op_xsetbv(void)
{
	static const uint8_t xsetbv[] = {0x0f, 0x01, 0xd1};
	if (x_wrcr4(cr4_base | 1ul << 18) != V_NONE)
		return;
	ureg a = chance(50) ? 1 : 3, c = 0;
	expect(x_stub(xsetbv, 3, &a, &c), "xsetbv with OSXSAVE", V_GP, V_UD);
	x_wrcr4(cr4_base);
}

/* --- 64-bit only ----------------------------------------------------------------------------- */
#ifdef __x86_64__
static void op_cr8(void)
{
	ureg v = below(16);
	expect(x_wrcr8(v), "mov cr8", V_NONE, V_NONE);
	if (rdcr8() != v)
		fail("cr8 wrote %lx, reads %lx", (unsigned long)v, (unsigned long)rdcr8());
	hc0(HC_YIELD, 0, 0);
	x_wrcr8(0);
}

/* SWAPGS exchanges GS_BASE with KERNEL_GS_BASE without an exit: both must be this domain's,
 * also after a yield. Two 64-bit fuzzers on one pCPU see each other's values if not. */
static void op_swapgs(void)
{
	uint64_t p = ((uint64_t)bi->dom_id << 32) | (uint32_t)rnd();
	uint64_t q = ((uint64_t)bi->dom_id << 36) | (uint32_t)rnd();
	x_wrmsr(MSR_GSB, q);
	x_wrmsr(MSR_KGS, p);
	__asm__ volatile("swapgs" ::: "memory");
	if (chance(50))
		hc0(HC_YIELD, 0, 0);
	uint64_t g = rdmsr_or_0(MSR_GSB), k = rdmsr_or_0(MSR_KGS);
	__asm__ volatile("swapgs" ::: "memory");
	if (g != p || k != q)
		fail("after swapgs GS_BASE=%llx KERNEL_GS_BASE=%llx, expected %llx %llx",
		     (unsigned long long)g, (unsigned long long)k, (unsigned long long)p,
		     (unsigned long long)q);
	g = rdmsr_or_0(MSR_GSB), k = rdmsr_or_0(MSR_KGS);
	if (g != q || k != p)
		fail("after swapgs twice GS_BASE=%llx KERNEL_GS_BASE=%llx, expected %llx %llx",
		     (unsigned long long)g, (unsigned long long)k, (unsigned long long)q,
		     (unsigned long long)p);
	x_wrmsr(MSR_GSB, 0);
	kgs_expect = p;
}

extern char fz_syscall_entry[];
volatile uint32_t fz_syscall_hits;
__asm__(".text\n.global fz_syscall_entry\nfz_syscall_entry:\n\t"
	"incl fz_syscall_hits(%rip)\n\tpushq %r11\n\tpopfq\n\tjmp *%rcx\n");

/* SYSCALL with STAR/LSTAR/FMASK set: lands on LSTAR with CS from STAR (our 64-bit code
 * selector 0x08), and we jump back by hand (no SYSRET: we stay at CPL 0). */
static void op_syscall(void)
{
	uint32_t before = fz_syscall_hits;
	x_wrmsr(MSR_STAR, (uint64_t)0x08 << 32);
	x_wrmsr(MSR_LSTAR, (uintptr_t)fz_syscall_entry);
	x_wrmsr(MSR_FMASK, 0x200);
	x_wrmsr(MSR_EFER, efer_base | EFER_SCE);
	if (chance(50))
		hc0(HC_YIELD, 0, 0);
	fz_vec = V_NONE;
	__asm__ volatile(ARM "syscall" DISARM : : : ARM_CLOB "rcx", "memory", "cc");
	x_wrmsr(MSR_EFER, efer_base);
	if (expect(fz_vec, "syscall", V_NONE, V_NONE) && fz_syscall_hits != before + 1)
		fail("syscall did not arrive at LSTAR");
	uint16_t cs;
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	if (cs != 0x08)
		fail("after syscall CS=%x", cs);
}
#else
static void op_cr8(void)
{
}
static void op_swapgs(void)
{
}
static void op_syscall(void)
{
}
#endif

static void op_evany(void)
{
	uint64_t a[5] = {1 + below(SLIVER_MAX_DOMS - 1), SLIVER_PORT_USER + below(24), 0, 0, 0};
	bool ok;
	int64_t r = fz_hc(HC_EVENT_SEND, a, &ok);
	if (r != 0 && r != -SLIVER_ESRCH && r != -SLIVER_EPERM)
		fail("event_send(d%llu, port %llu) returned %lld", (unsigned long long)a[0],
		     (unsigned long long)a[1], (long long)r);
}

static void op_msrinv(void)
{
	static const uint32_t m[] = {MSR_LSTAR, MSR_CSTAR, MSR_KGS, MSR_FMASK, MSR_PAT, 0x2ff};
	unsigned i = below(6);
	uint64_t v = i < 3    ? (rnd() | 1ull << 50) & ~(1ull << 63)
		     : i == 3 ? rnd() | 1ull << 40
		     : i == 4 ? 0x0202020202020202ull
			      : 0x1000 | rnd();
	uint64_t old = rdmsr_or_0(m[i]);
	char what[64];
	fmt_snprintf(what, sizeof what, "wrmsr %x invalid value %llx", m[i], (unsigned long long)v);
	if (!expect(x_wrmsr(m[i], v), what, V_GP, V_GP))
		x_wrmsr(m[i], i == 2 ? kgs_expect : old);
}

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
