/* Reads a scenario (a grub.cfg fragment: one multiboot2 line, module2 lines) and the
 * command-line overrides into a sim_cfg. Key lookup goes through lib/cmdline, the parser
 * the hypervisor and the guests use, so one file means the same thing everywhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cmdline.h"
#include "test/sim/sim.h"

static const char *g_path;

static int bad(const char *what, const char *key, const char *val)
{
	fprintf(stderr, "sliver-sim: %s: %s: bad value '%s' for %s\n", g_path, what, val, key);
	return -1;
}

static void append(char *line, const char *word, size_t len)
{
	size_t n = strlen(line);
	if (n + len + 2 >= SIM_LINE)
		return;
	line[n++] = ' ';
	memcpy(line + n, word, len);
	line[n + len] = '\0';
}

/* Optional u64 key with a range; returns -1 on a malformed or out-of-range value. */
static int get_u64(const char *line, const char *what, const char *key, uint64_t lo, uint64_t hi,
		   uint64_t *out)
{
	char buf[64];
	if (!cmdline_get(line, key, buf, sizeof(buf)))
		return cmdline_has(line, key) ? bad(what, key, "(too long)") : 0;
	uint64_t v;
	if (!parse_u64(buf, &v) || v < lo || v > hi)
		return bad(what, key, buf);
	*out = v;
	return 0;
}

static int get_double(const char *line, const char *what, const char *key, double *out)
{
	char buf[64];
	if (!cmdline_get(line, key, buf, sizeof(buf)))
		return 0;
	if (!strcmp(buf, "none") || !strcmp(buf, "off")) {
		*out = 0;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (errno || end == buf || *end || v < 0)
		return bad(what, key, buf);
	*out = v;
	return 0;
}

/* "0", "0-3", "0,2,5-6" -> mask. */
static int parse_cpus(const char *s, sched_cpumask_t *out)
{
	sched_cpumask_t m = cpumask_none();
	while (*s) {
		char *end;
		errno = 0;
		unsigned long a = strtoul(s, &end, 10), b;
		if (end == s || errno || a >= SCHED_MAX_PCPUS)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			b = strtoul(s, &end, 10);
			if (end == s || b >= SCHED_MAX_PCPUS || b < a)
				return -1;
			s = end;
		}
		for (unsigned long i = a; i <= b; i++)
			cpumask_set(&m, (unsigned)i);
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	*out = m;
	return cpumask_empty(m) ? -1 : 0;
}

static int parse_module(struct sim_cfg *c, struct sim_dom *d, const char *path)
{
	char what[48], buf[128];
	snprintf(what, sizeof(what), "module d%u", d->id);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(base, "spinner", 7))
		d->kind = G_SPINNER;
	else if (!strncmp(base, "echo", 4))
		d->kind = G_ECHO;
	else if (!strncmp(base, "idle", 4))
		d->kind = G_IDLE;
	else if (!strncmp(base, "service", 7))
		d->kind = G_SERVICE;
	else if (!strncmp(base, "hostile", 7))
		d->kind = G_HOSTILE;
	else if (!strncmp(base, "lockstress", 10))
		d->kind = G_LOCK;
	else {
		fprintf(stderr, "sliver-sim: %s: %s: unknown guest kind '%s'\n", g_path, what,
			base);
		return -1;
	}
	snprintf(d->name, sizeof(d->name), "%.*s", (int)strcspn(base, "."), base);
	if (cmdline_get(d->line, "name", buf, sizeof(buf)))
		snprintf(d->name, sizeof(d->name), "%.31s", buf);
	uint64_t v = SCHED_DEFAULT_WEIGHT;
	if (get_u64(d->line, what, "weight", 1, SCHED_MAX_WEIGHT, &v))
		return -1;
	d->weight = (uint32_t)v;
	v = 0;
	if (get_u64(d->line, what, "cap", 0, 100 * SCHED_MAX_PCPUS, &v))
		return -1;
	d->cap = (uint32_t)v;
	v = 1;
	if (get_u64(d->line, what, "vcpus", 1, 64, &v))
		return -1;
	d->nvcpus = (uint32_t)v;
	v = 0;
	if (get_u64(d->line, what, "mem", 0, 1 << 20, &v))
		return -1;
	v = 5;
	if (get_u64(d->line, what, "service_us", 0, 1000000, &v))
		return -1;
	d->service_ns = v * 1000;
	v = c->boot_us;
	if (get_u64(d->line, what, "boot_us", 0, 10000000, &v))
		return -1;
	d->boot_ns = v * 1000;
	v = 5;
	if (get_u64(d->line, what, "cs_us", 0, 1000000, &v))
		return -1;
	d->cs_ns = v * 1000;
	v = 20;
	if (get_u64(d->line, what, "think_us", 0, 1000000, &v))
		return -1;
	d->think_ns = v * 1000;
	if (cmdline_get(d->line, "role", buf, sizeof(buf)) && strcmp(buf, "service") &&
	    strcmp(buf, "guest"))
		return bad(what, "role", buf);
	d->pin = cpumask_none();
	if (cmdline_get(d->line, "pin", buf, sizeof(buf)) && parse_cpus(buf, &d->pin))
		return bad(what, "pin", buf);
	if (cmdline_get(d->line, "duty", buf, sizeof(buf))) {
		unsigned long long a, b;
		char extra;
		if (sscanf(buf, "%llu/%llu%c", &a, &b, &extra) != 2 || a + b == 0 ||
		    a > 100000000ull || b > 100000000ull)
			return bad(what, "duty", buf);
		d->spin_ns = a * 1000;
		d->sleep_ns = b * 1000;
	}
	v = c->jiffy_us;
	if (get_u64(d->line, what, "jiffy_us", 0, 1000000, &v))
		return -1;
	d->jiffy_ns = v * 1000;
	v = c->wake_us;
	if (get_u64(d->line, what, "wake_us", 0, 1000000, &v))
		return -1;
	d->wake_ns = v * 1000;
	d->duty_wall = c->duty_wall;
	if (cmdline_get(d->line, "duty_clock", buf, sizeof(buf))) {
		if (!strcmp(buf, "wall") || !strcmp(buf, "cpu"))
			d->duty_wall = !strcmp(buf, "wall");
		else
			return bad(what, "duty_clock", buf);
	}
	d->attack = ATK_NONE;
	if (cmdline_get(d->line, "attack", buf, sizeof(buf))) {
		if (!strcmp(buf, "sleep-acct"))
			d->attack = ATK_SLEEP_ACCT;
		else if (!strcmp(buf, "yield95"))
			d->attack = ATK_YIELD95;
		else if (!strcmp(buf, "self-wake"))
			d->attack = ATK_SELF_WAKE;
		else if (strcmp(buf, "none"))
			return bad(what, "attack", buf);
	}
	v = 10000;
	if (get_u64(d->line, what, "attack.period_us", 100, 10000000, &v))
		return -1;
	d->atk_period_ns = v * 1000;
	v = 300;
	if (get_u64(d->line, what, "attack.lead_us", 1, 1000000, &v))
		return -1;
	d->atk_lead_ns = v * 1000;
	v = 100;
	if (get_u64(d->line, what, "attack.after_us", 1, 1000000, &v))
		return -1;
	d->atk_after_ns = v * 1000;
	return 0;
}

static char *skip_ws(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

int scenario_load(struct sim_cfg *c, const char *path, int noverrides, char **overrides)
{
	g_path = path;
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "sliver-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	memset(c, 0, sizeof(*c));
	char raw[SIM_LINE];
	bool have_hv = false;
	while (fgets(raw, sizeof(raw), f)) {
		raw[strcspn(raw, "\r\n")] = '\0';
		char *p = skip_ws(raw);
		size_t wlen;
		const char *w = cmdline_next(p, &wlen);
		if (!w || *w == '#')
			continue;
		bool mb = wlen == 10 && !strncmp(w, "multiboot2", 10);
		bool mod = wlen == 7 && !strncmp(w, "module2", 7);
		if (!mb && !mod)
			continue; /* menuentry, set, braces: not ours */
		const char *img = cmdline_next(w + wlen, &wlen);
		if (!img) {
			fprintf(stderr, "sliver-sim: %s: line without an image: %s\n", path, raw);
			fclose(f);
			return -1;
		}
		const char *args = img + wlen;
		if (mb) {
			snprintf(c->hv_line, sizeof(c->hv_line), "%s", args);
			have_hv = true;
			continue;
		}
		if (c->ndoms == SIM_MAX_DOMS) {
			fprintf(stderr, "sliver-sim: %s: more than %d modules\n", path,
				SIM_MAX_DOMS);
			fclose(f);
			return -1;
		}
		struct sim_dom *d = &c->doms[c->ndoms];
		d->id = ++c->ndoms;
		snprintf(d->line, sizeof(d->line), "%s", args);
		snprintf(d->image, sizeof(d->image), "%.*s", (int)wlen, img);
	}
	fclose(f);
	if (!have_hv) {
		fprintf(stderr, "sliver-sim: %s: no multiboot2 line\n", path);
		return -1;
	}
	/* Overrides: `key=value` go to the hypervisor line, `dN.key=value` to module N. */
	for (int i = 0; i < noverrides; i++) {
		const char *o = overrides[i];
		unsigned n;
		int used = 0;
		if (sscanf(o, "d%u.%n", &n, &used) == 1 && used > 0) {
			if (n < 1 || n > c->ndoms) {
				fprintf(stderr, "sliver-sim: override %s: no module d%u\n", o, n);
				return -1;
			}
			append(c->doms[n - 1].line, o + used, strlen(o + used));
		} else {
			append(c->hv_line, o, strlen(o));
		}
	}
	const char *h = c->hv_line, *what = "multiboot2 line";
	uint64_t v = 10000;
	if (get_u64(h, what, "sim.duration_ms", 1, 3600000, &v))
		return -1;
	c->duration_ns = v * 1000000;
	v = 0;
	if (get_u64(h, what, "sim.warmup_ms", 0, 3600000, &v))
		return -1;
	c->warmup_ns = v * 1000000;
	v = 1;
	if (get_u64(h, what, "sim.pcpus", 1, SCHED_MAX_PCPUS, &v))
		return -1;
	c->pcpus = (unsigned)v;
	v = 2000;
	if (get_u64(h, what, "sim.switch_ns", 0, 10000000, &v))
		return -1;
	c->switch_ns = v;
	v = 1;
	if (get_u64(h, what, "sim.seed", 0, UINT64_MAX, &v))
		return -1;
	c->seed = v;
	v = 0;
	if (get_u64(h, what, "sim.dump", 0, 1, &v))
		return -1;
	c->dump = v;
	v = 0;
	if (get_u64(h, what, "sim.trace", 0, 1, &v))
		return -1;
	c->trace = v;
	char ew[16];
	if (cmdline_get(h, "sim.event_wake", ew, sizeof(ew))) {
		if (!strcmp(ew, "blocked"))
			c->wake_blocked_only = true;
		else if (strcmp(ew, "all"))
			return bad(what, "sim.event_wake", ew);
	}
	v = 50;
	if (get_u64(h, what, "sim.boot_us", 0, 10000000, &v))
		return -1;
	c->boot_us = v;
	v = 5;
	if (get_u64(h, what, "sim.ple_window_us", 0, 1000000, &v))
		return -1;
	c->ple_window_ns = v * 1000;
	v = 0;
	if (get_u64(h, what, "sim.jiffy_us", 0, 1000000, &v))
		return -1;
	c->jiffy_us = v;
	v = 0;
	if (get_u64(h, what, "sim.wake_us", 0, 1000000, &v))
		return -1;
	c->wake_us = v;
	c->duty_wall = true;
	if (cmdline_get(h, "sim.duty_clock", ew, sizeof(ew))) {
		if (!strcmp(ew, "wall") || !strcmp(ew, "cpu"))
			c->duty_wall = !strcmp(ew, "wall");
		else
			return bad(what, "sim.duty_clock", ew);
	}
	if (cmdline_get(h, "sim.locks", ew, sizeof(ew))) {
		if (!strcmp(ew, "off"))
			c->lock_mode = LOCKS_OFF;
		else if (!strcmp(ew, "global"))
			c->lock_mode = LOCKS_GLOBAL;
		else if (!strcmp(ew, "percpu"))
			c->lock_mode = LOCKS_PERCPU;
		else
			return bad(what, "sim.locks", ew);
	}
	v = 100;
	if (get_u64(h, what, "sim.lock_xfer_ns", 0, 1000000, &v))
		return -1;
	c->lock_xfer_ns = v;
	v = 1000;
	if (get_u64(h, what, "sim.lock_ps_per_insn", 1, 1000000, &v))
		return -1;
	c->lock_ps_per_insn = v;
	v = 0;
	if (get_u64(h, what, "sim.lock_jitter_ns", 0, 1000000, &v))
		return -1;
	c->lock_jitter_ns = v;
	v = 0;
	if (get_u64(h, what, "ping.dom", 0, c->ndoms, &v))
		return -1;
	c->ping_dom = (unsigned)v;
	v = 5000;
	if (get_u64(h, what, "ping.interval_us", 1, 10000000, &v))
		return -1;
	c->ping_interval_ns = v * 1000;
	v = 0;
	if (get_u64(h, what, "ping.jitter_us", 0, 10000000, &v))
		return -1;
	c->ping_jitter_ns = v * 1000;
	if (c->ping_jitter_ns >= c->ping_interval_ns) {
		fprintf(stderr, "sliver-sim: %s: ping.jitter_us must be below ping.interval_us\n",
			path);
		return -1;
	}
	if (get_double(h, what, "expect.ping_p99_us", &c->exp_ping_p99_us) ||
	    get_double(h, what, "expect.ping_max_us", &c->exp_ping_max_us) ||
	    get_double(h, what, "expect.ping_avg_min_us", &c->exp_ping_avg_min_us) ||
	    get_double(h, what, "expect.lat_p99_us", &c->exp_lat_p99_us) ||
	    get_double(h, what, "expect.lock_rate_min", &c->exp_lock_rate_min) ||
	    get_double(h, what, "expect.share_tol", &c->exp_share_tol) ||
	    get_double(h, what, "expect.cap_tol", &c->exp_cap_tol) ||
	    get_double(h, what, "expect.rel_tol_pct", &c->exp_rel_tol_pct) ||
	    get_double(h, what, "expect.gain_max", &c->exp_gain_max) ||
	    get_double(h, what, "expect.migrations_max", &c->exp_migrations_max) ||
	    get_double(h, what, "expect.ping_p99_min_us", &c->exp_ping_p99_min_us) ||
	    get_double(h, what, "expect.wall_bound", &c->exp_wall_bound) ||
	    get_double(h, what, "expect.echo_lat_p99_us", &c->exp_echo_lat_p99_us) ||
	    get_double(h, what, "expect.echo_lat_slice_us", &c->exp_echo_lat_slice_us) ||
	    get_double(h, what, "expect.stuck_pct", &c->exp_stuck_pct) ||
	    get_double(h, what, "expect.lock_wait_p99_ns", &c->exp_lock_wait_p99_ns) ||
	    get_double(h, what, "expect.lock_wait_p99_min_ns", &c->exp_lock_wait_p99_min_ns))
		return -1;
	v = c->exp_stuck_pct > 0 ? 1000 : 0;
	if (get_u64(h, what, "sim.inv_us", 0, 1000000, &v))
		return -1;
	c->inv_ns = v * 1000;
	v = 10000;
	if (get_u64(h, what, "sim.inv_margin_us", 0, 1000000000, &v))
		return -1;
	c->inv_margin_ns = v * 1000;
	v = 100;
	if (get_u64(h, what, "sim.inv_tau_ms", 1, 1000000, &v))
		return -1;
	c->inv_tau_ns = v * 1000000;
	for (unsigned i = 0; i < c->ndoms; i++) {
		struct sim_dom *d = &c->doms[i];
		if (parse_module(c, d, d->image))
			return -1;
		if (!cpumask_subset(d->pin, cpumask_below(c->pcpus))) {
			fprintf(stderr, "sliver-sim: %s: d%u pins a pCPU >= sim.pcpus=%u\n", path,
				d->id, c->pcpus);
			return -1;
		}
	}
	return 0;
}
