/* What the torture test needs of POSIX threads, apart: <pthread.h> brings <sched.h>, whose
 * sched_yield() has the name of sched/sched.h's. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

void torture_yield(void)
{
	sched_yield();
}

struct start {
	void (*loop)(unsigned id);
	unsigned id;
};

static void *thread_main(void *arg)
{
	struct start *s = arg;
	s->loop(s->id);
	return NULL;
}

/* Runs loop(0..n-1) on n threads for `seconds`, then sets *stop and joins them. */
void torture_threads(unsigned n, void (*loop)(unsigned id), unsigned seconds, atomic_bool *stop)
{
	static pthread_t th[256];
	static struct start st[256];
	for (unsigned id = 0; id < n && id < 256; id++) {
		st[id] = (struct start){loop, id};
		pthread_create(&th[id], NULL, thread_main, &st[id]);
	}
	struct timespec ts = {(time_t)seconds, 0};
	nanosleep(&ts, NULL);
	atomic_store(stop, true);
	for (unsigned id = 0; id < n && id < 256; id++)
		pthread_join(th[id], NULL);
}
