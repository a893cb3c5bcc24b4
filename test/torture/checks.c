/* The torture test's checks (README.md, "Checks"): what the step loop (torture.c) asks
 * after its steps and at the end. A failure is printed and counted (t_fail); a broken lock
 * rule aborts at once (torture_lock_bug). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "torture.h"
#include "arch/x86_64/spinlock.h"

void t_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "torture: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	atomic_fetch_add(&failures, 1);
}

static void t_pr(void *arg, const char *fmt, ...)
{
	(void)arg;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

noreturn void torture_lock_bug(const spinlock_t *l, const struct lockorder_bad *b)
{
	fprintf(stderr, "torture: FAIL: lock order: %s: %s[%d] (rank %u) holding %s[%d]\n", b->why,
		l->cls->name, b->want_idx, l->cls->rank, b->held ? b->held->name : "-",
		b->held_idx);
	abort();
}

/* Every rq held (sd_audit): a blocked vCPU with an event pending and no notify under way is a
 * lost wake. */
static unsigned more_checks(void *arg)
{
	(void)arg;
	unsigned bad = 0;
	for (unsigned i = 0; i < C.doms; i++) {
		for (unsigned j = 0; j < doms[i].n; j++) {
			struct tvcpu *v = &doms[i].v[j];
			unsigned long done = atomic_load(&v->n_done);
			bool lost = v->s.blocked && !v->s.paused && !v->s.gone &&
				    atomic_load(&v->pending) &&
				    atomic_load(&doms[i].state) == D_LIVE;
			if (lost && atomic_load(&v->n_started) == done) {
				t_fail("d%uv%u blocked with an event pending (a lost wake): "
				       "state=%u "
				       "pcpu=%u running_on=%d notifies=%lu picks=%lu",
				       i + 1, j, v->s.sv.state, v->s.sv.pcpu, v->s.running_on, done,
				       atomic_load(&v->picks));
				bad++;
			}
		}
	}
	return bad;
}

void audit(void)
{
	unsigned bad = sd_audit(t_pr, NULL, more_checks, NULL);
	if (bad)
		t_fail("audit found %u problem(s)", bad);
}

/* Every pCPU stopped: what the scheduler charged each vCPU against what the loop ran it. */
void check_run_time(uint64_t t_end)
{
	for (unsigned id = 0; id < C.pcpus; id++) {
		struct tcpu *c = &cpus[id];
		if (c->cur && c->running && t_end > c->run_from)
			atomic_fetch_add(&c->cur->expect_atomic, t_end - c->run_from);
	}
	uint64_t worst = 0;
	for (unsigned i = 0; i < C.doms; i++) {
		for (unsigned j = 0; j < doms[i].n; j++) {
			struct tvcpu *v = &doms[i].v[j];
			if (v->s.gone || atomic_load(&doms[i].state) != D_LIVE)
				continue; /* its time went with its domain */
			uint64_t got = sd_run_ns(&v->s, t_end),
				 want = atomic_load(&v->expect_atomic);
			uint64_t d = got > want ? got - want : want - got;
			if (d > worst)
				worst = d;
			if (d) /* the scheduler's side, to tell a charge from a refund or debt */
				t_fail("d%uv%u charged %llu ns, ran %llu ns (state %u, run_ns "
				       "%llu, "
				       "owed %llu, refund %llu)",
				       i + 1, j, (unsigned long long)got, (unsigned long long)want,
				       v->s.sv.state, (unsigned long long)v->s.sv.c.run_ns,
				       (unsigned long long)v->s.sv.owed_ns,
				       (unsigned long long)v->s.sv.refund_ns);
		}
	}
}

/* Serial mode: every vCPU's charged time against what the loop ran, at this instant. */
void check_run_time_now(unsigned step_no)
{
	uint64_t t = t_clock_ns();
	for (unsigned i = 0; i < C.doms; i++) {
		if (atomic_load(&doms[i].state) != D_LIVE)
			continue;
		for (unsigned j = 0; j < doms[i].n; j++) {
			struct tvcpu *v = &doms[i].v[j];
			uint64_t want = atomic_load(&v->expect_atomic);
			for (unsigned id = 0; id < C.pcpus; id++)
				if (cpus[id].cur == v && cpus[id].running)
					want += t - cpus[id].run_from;
			uint64_t got = sd_run_ns(&v->s, t);
			if (got != want) {
				t_fail("step %u: d%uv%u charged %llu ns, ran %llu ns (cpu%u action "
				       "%d)",
				       step_no, i + 1, j, (unsigned long long)got,
				       (unsigned long long)want, torture_cpu,
				       cpus[torture_cpu].last_act);
				return;
			}
		}
	}
}

/* No wake is lost, at the end: with nothing blocking or changing any more, every vCPU
 * the door holds runnable must be picked within a second of virtual time (serial mode), or
 * of host time, extended by seconds up to DRAIN_SECONDS while some have not run (threads
 * mode: a loaded host gives each pCPU thread few decisions per second). */
static unsigned long before[T_MAX_DOMS][T_MAX_VCPUS];
static bool runnable[T_MAX_DOMS][T_MAX_VCPUS];

/* Before the drain: which vCPUs must run in it. */
void lost_wake_snapshot(void)
{
	for (unsigned i = 0; i < C.doms; i++)
		for (unsigned j = 0; j < doms[i].n; j++) {
			struct tvcpu *v = &doms[i].v[j];
			runnable[i][j] = !v->s.blocked && !v->s.paused && !v->s.gone &&
					 atomic_load(&doms[i].state) == D_LIVE;
			for (unsigned id = 0; id < C.pcpus; id++) /* halted: its pick blocks it */
				if (cpus[id].cur == v && cpus[id].then == SD_THEN_BLOCK)
					runnable[i][j] = false;
			before[i][j] = atomic_load(&v->picks);
		}
}

/* After it: each of them ran. Returns whether all did; `report` fails the run for each that
 * did not. */
bool lost_wake_check(bool report)
{
	bool all = true;
	for (unsigned i = 0; i < C.doms; i++) {
		for (unsigned j = 0; j < doms[i].n; j++) {
			struct tvcpu *v = &doms[i].v[j];
			bool runs = false; /* ran the whole second, picked before it */
			for (unsigned id = 0; id < C.pcpus; id++)
				runs |= cpus[id].cur == v && cpus[id].running;
			if (runnable[i][j] && !runs && atomic_load(&v->picks) == before[i][j] &&
			    atomic_load(&doms[i].state) == D_LIVE) {
				all = false;
				if (report)
					t_fail("d%uv%u runnable but not run in the drain (a lost "
					       "wake)",
					       i + 1, j);
			}
		}
	}
	return all;
}
