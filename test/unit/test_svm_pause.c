/* arch/x86_64/svm/pause.c, PAUSE-loop detection through the PAUSE filter (APM Vol. 2
 * 15.14.4), which QEMU 7.2 TCG does not have (so no e2e run): seeded random parameters and
 * windows against KVM's __grow_ple_window/__shrink_ple_window computed in 64 bits and
 * clamped to the 16-bit count; the window stays in [base, max] over random grow/shrink
 * sequences; the VMCB set-up (intercept only when asked and present, count = window,
 * threshold = gap only with EDX[12]); an exit grows PAUSE_FILTER_COUNT and marks the
 * intercepts dirty, a load shrinks it, an unchanged window leaves the clean bits alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "arch/x86_64/svm/pause.c"

struct hv_pause_loop hv_pause_loop;
struct svm_caps svm_caps;

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t lim16(uint64_t v)
{
	return v > 0xffff ? 0xffff : v;
}

/* The reference: KVM's arithmetic with base = window and max = window_max, both at most
 * 0xffff (KVM's pause_filter_count_max is USHRT_MAX). */
static uint64_t ref_grow(const struct hv_pause_loop *p, uint64_t w)
{
	uint64_t base = lim16(p->window), max = lim16(p->window_max);
	max = max < base ? base : max;
	uint64_t n = !p->grow ? base : p->grow < base ? w * p->grow : w + p->grow;
	return n > max ? max : n;
}

static uint64_t ref_shrink(const struct hv_pause_loop *p, uint64_t w)
{
	uint64_t base = lim16(p->window);
	uint64_t n = !p->shrink		? base
		     : p->shrink < base ? w / p->shrink
		     : w > p->shrink	? w - p->shrink
					: 0;
	return n < base ? base : n;
}

static struct hv_pause_loop random_params(void)
{
	static const uint32_t mods[] = {0, 1, 2, 3, 4, 100, 4096, 100000, 0xffffffffu};
	struct hv_pause_loop p = {.on = true};
	p.window = (uint32_t)(rnd() % 3 ? 1 + rnd() % 0x1ffff : 1 + rnd() % 16);
	p.window_max = (uint32_t)(rnd() % 4 ? p.window + rnd() % 0x2ffff : rnd() % 0x1ffff);
	p.grow = mods[rnd() % 9];
	p.shrink = mods[rnd() % 9];
	p.gap = (uint32_t)(rnd() % 0x3ffff);
	return p;
}

static void test_arith_against_kvm(void **state)
{
	(void)state;
	for (int i = 0; i < 200000; i++) {
		struct hv_pause_loop p = random_params();
		uint32_t w = (uint32_t)(rnd() % 0x10000);
		assert_int_equal(svm_ple_grow(&p, w), ref_grow(&p, w));
		assert_int_equal(svm_ple_shrink(&p, w), ref_shrink(&p, w));
	}
}

static void test_window_stays_in_bounds(void **state)
{
	(void)state;
	for (int i = 0; i < 2000; i++) {
		struct hv_pause_loop p = random_params();
		uint32_t base = (uint32_t)lim16(p.window), max = (uint32_t)lim16(p.window_max);
		max = max < base ? base : max;
		uint32_t w = base;
		for (int k = 0; k < 200; k++) {
			uint32_t next = rnd() & 1 ? svm_ple_grow(&p, w) : svm_ple_shrink(&p, w);
			assert_true(next >= base && next <= max);
			w = next;
		}
		/* Growing from the base reaches the max, unless the modifier resets (0) or
		 * multiplies by 1. */
		bool moves = p.grow && !(p.grow == 1 && base > 1);
		w = base;
		for (int k = 0; k < 70000; k++)
			w = svm_ple_grow(&p, w);
		assert_int_equal(w, moves ? max : base);
	}
}

static struct vmcb vmcb_page;
static struct svm_vcpu vcpu;

static void fresh_vcpu(void)
{
	memset(&vmcb_page, 0, sizeof vmcb_page);
	memset(&vcpu, 0, sizeof vcpu);
	vcpu.vmcb = &vmcb_page;
}

static void test_setup_exit_load(void **state)
{
	(void)state;
	for (int i = 0; i < 5000; i++) {
		hv_pause_loop = random_params();
		hv_pause_loop.on = rnd() & 1;
		svm_caps.features = (uint32_t)rnd() & (CPUID_8000000A_EDX_PAUSE_FILTER |
						       CPUID_8000000A_EDX_PAUSE_FILTER_THRESHOLD);
		bool filter = svm_caps.features & CPUID_8000000A_EDX_PAUSE_FILTER;
		bool thresh = svm_caps.features & CPUID_8000000A_EDX_PAUSE_FILTER_THRESHOLD;
		assert_int_equal(svm_pause_loop_supported(), filter);
		fresh_vcpu();
		vmcb_page.intercept_misc1 = INTERCEPT_PAUSE; /* whatever was there goes */
		svm_ple_setup(&vcpu);
		bool on = hv_pause_loop.on && filter;
		assert_int_equal(vcpu.ple_on, on);
		assert_int_equal(!!(vmcb_page.intercept_misc1 & INTERCEPT_PAUSE), on);
		if (!on) {
			assert_int_equal(vmcb_page.pause_filter_count, 0);
			svm_ple_load(&vcpu); /* nothing to shrink */
			assert_int_equal(vmcb_page.pause_filter_count, 0);
			continue;
		}
		uint32_t base = (uint32_t)lim16(hv_pause_loop.window);
		assert_int_equal(vmcb_page.pause_filter_count, base);
		assert_int_equal(vmcb_page.pause_filter_threshold,
				 thresh ? lim16(hv_pause_loop.gap) : 0);
		for (int k = 0; k < 20; k++) {
			uint32_t before = vcpu.ple_window;
			vcpu.dirty = 0;
			bool grow = rnd() & 1;
			if (grow)
				svm_ple_exit(&vcpu);
			else
				svm_ple_load(&vcpu);
			uint64_t want = grow ? ref_grow(&hv_pause_loop, before)
					     : ref_shrink(&hv_pause_loop, before);
			assert_int_equal(vcpu.ple_window, want);
			assert_int_equal(vmcb_page.pause_filter_count, want);
			assert_int_equal(vcpu.dirty, want != before ? CLEAN_I : 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arith_against_kvm),
		cmocka_unit_test(test_window_stays_in_bounds),
		cmocka_unit_test(test_setup_exit_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
