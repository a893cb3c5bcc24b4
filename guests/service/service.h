/* What the service shell's files share: the helpers of util.c and the commands of
 * cmd_*.c, which the command table (service.c) points at. Private to guests/service/. */
#ifndef GUESTS_SERVICE_SERVICE_H
#define GUESTS_SERVICE_SERVICE_H
#include <stdbool.h>
#include <stdint.h>
#include "guests/lib/rt.h"
#include "sliver/dominfo.h"
#include "sliver/service.h"

/* --- util.c ------------------------------------------------------------------------------ */
#define TEXT_MAX 4096
extern char text[TEXT_MAX]; /* where the hypervisor writes its reports (HC_SCHED_GET, ...) */
/* CPU% bookkeeping for `list` and `top`: run time per domain at the last call. */
extern uint64_t last_run_ns[SLIVER_MAX_DOMS], last_list_ns;
extern const char *const state_names[]; /* SLIVER_DOM_* states, 5 of them */

int32_t hc_ptr(uint32_t nr, uint32_t a0, const void *p, uint32_t len);
void print_text(int32_t n);		      /* the first n bytes of text, when n > 0 */
const char *errname(int32_t r);		      /* -SLIVER_E* in words */
bool fail(int32_t r, const char *what);	      /* r < 0: prints `error: what: ...` */
bool parse_dom(const char *s, uint32_t *dom); /* "4" or "d4" -> 4 */
/* "0", "0-2", "0,2" -> CPU set, bit n % 8 of byte n / 8 for CPU n (CPUs 0..255) */
bool parse_cpus(const char *s, uint8_t mask[SLIVER_CPUMASK_BYTES]);
void print_us(const char *key, uint64_t ns); /* " key=<us>.<3 digits>" */
int list_doms(struct sliver_dom_info *d, unsigned max);
/* CPU% since the previous call, tenths of a percent of one pCPU. */
uint32_t cpu_permille(const struct sliver_dom_info *d, uint64_t dt);

/* --- the commands: argv[0] is the command's name ----------------------------------------- */
void cmd_list(int argc, char **argv);	 /* cmd_dom.c */
void cmd_sched(int argc, char **argv);	 /* cmd_dom.c */
void cmd_pin(int argc, char **argv);	 /* cmd_dom.c */
void cmd_pause(int argc, char **argv);	 /* cmd_dom.c */
void cmd_unpause(int argc, char **argv); /* cmd_dom.c */
void cmd_destroy(int argc, char **argv); /* cmd_dom.c */
void cmd_reset(int argc, char **argv);	 /* cmd_dom.c */
void cmd_ping(int argc, char **argv);	 /* cmd_ping.c */
void pong_isr(struct rt_frame *f);	 /* cmd_ping.c: SLIVER_PORT_PONG's vector */
void cmd_lat(int argc, char **argv);	 /* cmd_stats.c */
void cmd_perf(int argc, char **argv);	 /* cmd_stats.c */
void cmd_top(int argc, char **argv);	 /* cmd_stats.c */
void cmd_trace(int argc, char **argv);	 /* cmd_stats.c */

#endif
