/* arch/x86_64/hv.c, the vendor-neutral seam: which backend hv_detect picks on each vendor
 * and what it says when neither works, the generic address space (hv_space_ptr bounds,
 * hv_space_create/destroy frame accounting), the bounds of the exit-name lookup, and what
 * completing or faulting an emulated instruction does to RFLAGS.TF/RF and DR6.
 * The backends are fakes; hv.c is included so that its static choose() is reachable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "arch/x86_64/hv.c"

/* Fake backends: detect answers as told and counts its calls. */
static bool vmx_ok, svm_ok;
static int vmx_calls, svm_calls;
static const char *vmx_why = "CPUID.1:ECX.VMX[bit 5] is clear";
static const char *svm_why = "CPUID.80000001H:ECX.SVM[bit 2] is clear";

static bool fake_vmx_detect(const char **why)
{
	vmx_calls++;
	if (!vmx_ok)
		*why = vmx_why;
	return vmx_ok;
}

static bool fake_svm_detect(const char **why)
{
	svm_calls++;
	if (!svm_ok)
		*why = svm_why;
	return svm_ok;
}

/* Space maps that build nothing but count, or fail after taking a frame. */
static int map_calls, unmap_calls;
static bool map_fails;
static bool fake_map(struct hv_space *s)
{
	map_calls++;
	s->root_pa = hv_frames.alloc();
	return s->root_pa && !map_fails;
}
static void fake_unmap(struct hv_space *s)
{
	unmap_calls++;
	if (s->root_pa)
		hv_frames.free(s->root_pa);
	s->root_pa = 0;
}

static unsigned last_name_asked;
static const char *fake_reason_name(unsigned r)
{
	last_name_asked = r;
	return r == 10 ? "CPUID" : NULL;
}

const struct hv_backend vmx_backend = {.name = "vmx",
				       .fault_name = "EPT violation",
				       .detect = fake_vmx_detect,
				       .space_map = fake_map,
				       .space_unmap = fake_unmap,
				       .exit_reason_name = fake_reason_name};
const struct hv_backend svm_backend = {.name = "svm",
				       .fault_name = "NPT fault",
				       .detect = fake_svm_detect,
				       .space_map = fake_map,
				       .space_unmap = fake_unmap,
				       .exit_reason_name = fake_reason_name};

static int frames_out;
static uint64_t fake_alloc(void)
{
	void *p = aligned_alloc(4096, 4096);
	if (p) {
		memset(p, 0, 4096);
		frames_out++;
	}
	return (uint64_t)(uintptr_t)p;
}
static void fake_free(uint64_t pa)
{
	frames_out--;
	free((void *)(uintptr_t)pa);
}

static void reset(bool vok, bool sok)
{
	vmx_ok = vok;
	svm_ok = sok;
	vmx_calls = svm_calls = 0;
}

/* Every vendor x every answer of the two detects: the vendor's own backend is asked first
 * and wins when it works; the other is asked only when it does not. */
static void test_choose_matrix(void **st)
{
	(void)st;
	char why[192];
	for (int amd = 0; amd < 2; amd++) {
		for (int vok = 0; vok < 2; vok++) {
			for (int sok = 0; sok < 2; sok++) {
				reset(vok, sok);
				const struct hv_backend *b =
					choose(amd, &vmx_backend, &svm_backend, why, sizeof why);
				const struct hv_backend *own = amd ? &svm_backend : &vmx_backend;
				const struct hv_backend *other = amd ? &vmx_backend : &svm_backend;
				bool own_ok = amd ? sok : vok, other_ok = amd ? vok : sok;
				if (own_ok)
					assert_ptr_equal(b, own);
				else if (other_ok)
					assert_ptr_equal(b, other);
				else
					assert_null(b);
				/* The own backend is always asked, once; the other only after it
				 * said no. */
				assert_int_equal(amd ? svm_calls : vmx_calls, 1);
				assert_int_equal(amd ? vmx_calls : svm_calls, own_ok ? 0 : 1);
			}
		}
	}
}

/* Neither works: the reason names both, the vendor's own first. */
static void test_why_names_both(void **st)
{
	(void)st;
	char why[192];
	reset(false, false);
	assert_null(choose(false, &vmx_backend, &svm_backend, why, sizeof why));
	assert_string_equal(why, "vmx: CPUID.1:ECX.VMX[bit 5] is clear; "
				 "svm: CPUID.80000001H:ECX.SVM[bit 2] is clear");
	reset(false, false);
	assert_null(choose(true, &vmx_backend, &svm_backend, why, sizeof why));
	assert_string_equal(why, "svm: CPUID.80000001H:ECX.SVM[bit 2] is clear; "
				 "vmx: CPUID.1:ECX.VMX[bit 5] is clear");
}

/* A backend that is not linked in (the weak svm_backend before the merge) is skipped. */
static void test_missing_backend(void **st)
{
	(void)st;
	char why[192];
	for (int amd = 0; amd < 2; amd++) {
		reset(false, true);
		assert_null(choose(amd, &vmx_backend, NULL, why, sizeof why));
		assert_string_equal(why, "vmx: CPUID.1:ECX.VMX[bit 5] is clear");
		assert_int_equal(svm_calls, 0);
		reset(true, false);
		assert_ptr_equal(choose(amd, &vmx_backend, NULL, why, sizeof why), &vmx_backend);
	}
	assert_null(choose(false, NULL, NULL, why, sizeof why));
	assert_string_equal(why, "no virtualization backend is linked in");
}

/* Every buffer size: the reason is cut, never overrun (ASan), always terminated, and a
 * prefix of the whole text. */
static void test_why_truncates(void **st)
{
	(void)st;
	char full[192];
	reset(false, false);
	choose(false, &vmx_backend, &svm_backend, full, sizeof full);
	size_t len = strlen(full);
	for (size_t cap = 1; cap <= len + 2; cap++) {
		char *buf = malloc(cap);
		assert_non_null(buf);
		reset(false, false);
		assert_null(choose(false, &vmx_backend, &svm_backend, buf, cap));
		size_t n = strlen(buf);
		assert_int_equal(n, cap - 1 < len ? cap - 1 : len);
		assert_memory_equal(buf, full, n);
		free(buf);
	}
}

/* hv_space_ptr against a reference computed in 128 bits, on seeded random and edge
 * values: a pointer exactly when [gpa, gpa + len) lies in [0, size). */
static void test_space_ptr_bounds(void **st)
{
	(void)st;
	static const uint64_t edge[] = {0,
					1,
					4095,
					4096,
					1ull << 21,
					(1ull << 32) - 1,
					1ull << 32,
					UINT64_MAX / 2,
					UINT64_MAX - 1,
					UINT64_MAX};
	uint64_t x = 0x9e3779b97f4a7c15ull; /* xorshift64 seed */
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t r[3];
		for (int k = 0; k < 3; k++) {
			uint64_t y = x * (k + 1) + (uint64_t)i;
			/* a third edge values, a third small, a third anything */
			r[k] = (y % 3 == 0)   ? edge[(y >> 8) % (sizeof edge / sizeof edge[0])]
			       : (y % 3 == 1) ? (y >> 20) % (1u << 24)
					      : y;
		}
		struct hv_space s = {.root_pa = 0, .hpa = 1ull << 30, .size = r[0]};
		uint64_t gpa = r[1], len = r[2];
		bool inside = (unsigned __int128)gpa + len <= s.size;
		void *p = hv_space_ptr(&s, gpa, len);
		if (inside)
			assert_ptr_equal(p, (void *)(uintptr_t)(s.hpa + gpa));
		else
			assert_null(p);
	}
}

/* Create takes one frame for the space and the backend's; destroy (or a failed map)
 * gives every one back. */
static void test_space_frames(void **st)
{
	(void)st;
	static const struct hv_frame_ops ops = {fake_alloc, fake_free};
	hv_set_frame_ops(&ops);
	be = &vmx_backend;
	map_fails = false;
	map_calls = unmap_calls = frames_out = 0;
	struct hv_space *s = hv_space_create(1ull << 24, 1ull << 22);
	assert_non_null(s);
	assert_int_equal(frames_out, 2);
	assert_int_equal(s->hpa, 1ull << 24);
	assert_int_equal(s->size, 1ull << 22);
	hv_space_destroy(s);
	assert_int_equal(frames_out, 0);
	assert_int_equal(unmap_calls, 1);
	map_fails = true;
	assert_null(hv_space_create(0, 1ull << 20));
	assert_int_equal(frames_out, 0);
	assert_int_equal(unmap_calls, 2);
	hv_space_destroy(NULL);
	assert_int_equal(unmap_calls, 2);
	be = NULL;
}

/* Exit names: the backend is asked only below the "outside the table" index; everything
 * else, and a hole in its table, is "unknown". */
static void test_exit_reason_name(void **st)
{
	(void)st;
	assert_string_equal(hv_exit_reason_name(10), "unknown"); /* no backend yet */
	be = &svm_backend;
	for (unsigned r = 0; r < 1000; r++) {
		last_name_asked = ~0u;
		const char *n = hv_exit_reason_name(r);
		if (r == 10)
			assert_string_equal(n, "CPUID");
		else
			assert_string_equal(n, "unknown");
		assert_int_equal(last_name_asked, r < HV_NR_EXIT_REASONS - 1 ? r : ~0u);
	}
	assert_string_equal(hv_backend_name(), "svm");
	assert_string_equal(hv_fault_name(), "NPT fault");
	be = NULL;
	assert_string_equal(hv_backend_name(), "none");
	assert_string_equal(hv_exit_kind_name(HV_EXIT_EPT), "ept");
	assert_string_equal(hv_exit_kind_name(HV_EXIT_NR_KINDS), "?");
}

/* A vCPU of the fake debug backend: RIP, RFLAGS, DR6, the exiting instruction's length and
 * what was injected. */
static struct {
	uint64_t rip, rflags, dr6;
	unsigned exit_len;
	int injected; /* vector, -1 = none */
	bool has_error;
} fv;
/* skip_insn's contract (hv_backend.h), as vmx/regs.c and svm/regs.c keep it. */
static void fv_skip(struct hv_vcpu *v, int len)
{
	fv.rip += len < 0 ? fv.exit_len : (unsigned)len;
	uint64_t rflags = fv.rflags;
	fv.rflags &= ~(1ull << 16);
	if (rflags & (1ull << 8))
		hv_single_step_trap(v);
}
static uint64_t fv_rflags_get(struct hv_vcpu *v)
{
	(void)v;
	return fv.rflags;
}
static void fv_rflags_set(struct hv_vcpu *v, uint64_t val)
{
	(void)v;
	fv.rflags = val;
}
static uint64_t fv_dr_get(struct hv_vcpu *v, unsigned dr)
{
	(void)v;
	return dr == 6 ? fv.dr6 : 0;
}
static void fv_dr_set(struct hv_vcpu *v, unsigned dr, uint64_t val)
{
	(void)v;
	if (dr == 6)
		fv.dr6 = val;
}
static void fv_inject(struct hv_vcpu *v, uint8_t vector, bool has_error, uint32_t error)
{
	(void)v;
	(void)error;
	fv.injected = vector;
	fv.has_error = has_error;
}
static const struct hv_backend dbg_backend = {.name = "dbg",
					      .skip_insn = fv_skip,
					      .rflags_get = fv_rflags_get,
					      .rflags_set = fv_rflags_set,
					      .dr_get = fv_dr_get,
					      .dr_set = fv_dr_set,
					      .inject_exception = fv_inject};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng64(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* hv_skip_insn and hv_skip_exit_insn from random RFLAGS/DR6 (seeded): RIP moves by len (the
 * exit's own length for hv_skip_exit_insn), RF always clears, the other flags stay; TF set
 * gives exactly one #DB with DR6 = old DR6, B0-3 clear, BS set (SDM Vol. 3B 18.3.1.4:
 * hv_single_step_trap); TF clear injects nothing and leaves DR6 alone. */
static void test_skip_single_step(void **st)
{
	(void)st;
	be = &dbg_backend;
	unsigned tf_seen = 0;
	for (int i = 0; i < 2000; i++) {
		uint64_t rflags = (rng64() & 0x3f7fd5ull) | 2,
			 dr6 = 0xffff0ff0ull | (rng64() & 0xe00f);
		unsigned len = 1 + (unsigned)(rng64() % 15);
		fv.rip = rng64() >> 1;
		uint64_t rip = fv.rip;
		fv.rflags = rflags;
		fv.dr6 = dr6;
		fv.injected = -1;
		fv.exit_len = len;
		if (i & 1)
			hv_skip_exit_insn((struct hv_vcpu *)&fv);
		else
			hv_skip_insn((struct hv_vcpu *)&fv, len);
		assert_int_equal(fv.rip, rip + len);
		assert_int_equal(fv.rflags, rflags & ~(1ull << 16));
		if (rflags & (1ull << 8)) {
			tf_seen++;
			assert_int_equal(fv.injected, 1);
			assert_false(fv.has_error);
			assert_int_equal(fv.dr6, (dr6 & ~0xfull) | (1ull << 14));
		} else {
			assert_int_equal(fv.injected, -1);
			assert_int_equal(fv.dr6, dr6);
		}
	}
	assert_true(tf_seen > 500 && tf_seen < 1500);
	be = NULL;
}

/* hv_inject_exception sets RF for faults only (SDM Vol. 3A table 6-1: #DB is a trap or a
 * fault the CPU raises itself, NMI an interrupt, #BP/#OF traps, #DF/#MC aborts; vectors
 * 15 and 22-31 are reserved and taken as faults, as KVM does), and never clears it. */
static void test_inject_sets_rf_for_faults(void **st)
{
	(void)st;
	be = &dbg_backend;
	static const uint8_t not_fault[] = {1, 2, 3, 4, 8, 18};
	for (unsigned vec = 0; vec < 32; vec++) {
		bool fault = true;
		for (unsigned k = 0; k < sizeof not_fault; k++)
			fault = fault && vec != not_fault[k];
		for (int rf = 0; rf < 2; rf++) {
			fv.rflags = 0x202 | (rf ? 1ull << 16 : 0);
			fv.injected = -1;
			hv_inject_exception((struct hv_vcpu *)&fv, (uint8_t)vec, vec == 13, 0);
			assert_int_equal(fv.injected, (int)vec);
			assert_int_equal(fv.rflags, 0x202 | (fault || rf ? 1ull << 16 : 0));
		}
	}
	be = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_matrix),
		cmocka_unit_test(test_why_names_both),
		cmocka_unit_test(test_missing_backend),
		cmocka_unit_test(test_why_truncates),
		cmocka_unit_test(test_space_ptr_bounds),
		cmocka_unit_test(test_space_frames),
		cmocka_unit_test(test_exit_reason_name),
		cmocka_unit_test(test_skip_single_step),
		cmocka_unit_test(test_inject_sets_rf_for_faults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
