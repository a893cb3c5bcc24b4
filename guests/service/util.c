/* service: what the shell's commands share: the text buffer the hypervisor's reports are
 * written into, error lines, domain and pCPU-list arguments, microsecond fields, the domain
 * list and the CPU% bookkeeping of `list` and `top`. */
#include "guests/service/service.h"
#include "lib/cmdline.h"
#include "lib/string.h"

char text[TEXT_MAX];

/* CPU% bookkeeping for `list` and `top`: run time per domain at the last call. */
uint64_t last_run_ns[SLIVER_MAX_DOMS], last_list_ns;

int32_t hc_ptr(uint32_t nr, uint32_t a0, const void *p, uint32_t len)
{
	return hc3(nr, a0, (uint32_t)(uintptr_t)p, len);
}

void print_text(int32_t n)
{
	if (n > 0)
		hc_console_write(text, (uint32_t)n);
}

const char *errname(int32_t r)
{
	switch (-r) {
	case SLIVER_EPERM:
		return "not permitted";
	case SLIVER_ENOENT:
		return "no such entry";
	case SLIVER_ESRCH:
		return "no such domain";
	case SLIVER_EINVAL:
		return "invalid argument";
	case SLIVER_EBUSY:
		return "busy";
	case SLIVER_ENOSYS:
		return "this hypervisor has no such call";
	case SLIVER_EFAULT:
		return "bad address";
	default:
		return "failed";
	}
}

bool fail(int32_t r, const char *what)
{
	if (r < 0)
		rt_printf("error: %s: %s (%d)\n", what, errname(r), (int)r);
	return r < 0;
}

/* "4" or "d4" -> 4 */
bool parse_dom(const char *s, uint32_t *dom)
{
	uint64_t v;
	if (*s == 'd')
		s++;
	if (!parse_u64(s, &v) || v == 0 || v >= SLIVER_MAX_DOMS)
		return false;
	*dom = (uint32_t)v;
	return true;
}

/* "0", "0-2", "0,2" -> bit n % 8 of byte n / 8 for CPU n (HC_VCPU_AFFINITY's layout) */
bool parse_cpus(const char *s, uint8_t mask[SLIVER_CPUMASK_BYTES])
{
	char buf[64];
	uint8_t m[SLIVER_CPUMASK_BYTES] = {0};
	bool any = false;
	size_t n = strlen(s);
	if (n >= sizeof buf)
		return false;
	memcpy(buf, s, n + 1);
	for (char *p = buf; *p;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		char *dash = strchr(p, '-');
		uint64_t a, b;
		if (dash) {
			*dash = 0;
			if (!parse_u64(p, &a) || !parse_u64(dash + 1, &b))
				return false;
		} else if (!parse_u64(p, &a)) {
			return false;
		} else {
			b = a;
		}
		if (a > b || b >= SLIVER_MAX_PCPUS)
			return false;
		for (uint64_t c = a; c <= b; c++)
			m[c / 8] |= (uint8_t)(1u << (c % 8));
		any = true;
		if (!comma)
			break;
		p = comma + 1;
	}
	memcpy(mask, m, sizeof m);
	return any;
}

void print_us(const char *key, uint64_t ns)
{
	rt_printf(" %s=%llu.%03llu", key, (unsigned long long)(ns / 1000),
		  (unsigned long long)(ns % 1000));
}

const char *const state_names[] = {"running", "blocked", "paused", "crashed", "shutdown"};

int list_doms(struct sliver_dom_info *d, unsigned max)
{
	return hc3(HC_DOM_LIST, (uint32_t)(uintptr_t)d, max, 0);
}

/* CPU% since the previous call, tenths of a percent of one pCPU. Run time is charged at
 * switches, so over a window of a few slices a vCPU can show more than it could use: the
 * result is capped at its vCPUs' 100% each. */
uint32_t cpu_permille(const struct sliver_dom_info *d, uint64_t dt)
{
	uint64_t used = d->run_ns - last_run_ns[d->dom_id];
	uint64_t pm = dt ? used * 1000 / dt : 0, max = 1000ull * (d->nr_vcpus ? d->nr_vcpus : 1);
	return (uint32_t)(pm < max ? pm : max);
}
