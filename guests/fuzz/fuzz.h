/* The fuzzer's op loop (fuzz.c) is built twice, as a 32-bit guest on guests/lib (main32.c)
 * and as a 64-bit guest on its own small long-mode runtime (entry64.S, rt64.c). This is
 * what the loop needs from either runtime. */
#ifndef GUESTS_FUZZ_FUZZ_H
#define GUESTS_FUZZ_FUZZ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sliver/bootinfo.h"

#define FZ_VEC_TIMER 0x20 /* SLIVER_PORT_TIMER is bound here on vCPU 0 */

/* --- provided by the runtime --- */
int fz_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* VMCALL with the calling convention of the current mode; *regs_ok is false when a register
 * the ABI preserves (every argument register but RDX) came back changed. */
int64_t fz_hc(uint64_t nr, const uint64_t a[5], bool *regs_ok);
uint64_t fz_clock_ns(void); /* ns since hypervisor boot, from the TSC (no exit) */
bool fz_arg(const char *key, char *buf, size_t len);
bool fz_arg_u64(const char *key, uint64_t *out);
__attribute__((noreturn)) void fz_exit(int code);
/* Set by the runtime's timer-vector handler (it also clears SLIVER_PORT_TIMER). */
extern volatile uint32_t fz_timer_fired;

/* --- provided by fuzz.c --- */
int fz_main(const struct sliver_boot_info *bi);
/* The runtime's handler for vectors 0..31: ip points at the saved return address. An
 * expected fault (an op armed fz_resume) resumes there; anything else is a FAIL. */
void fz_trap(unsigned vec, uintptr_t *ip, uint64_t err);

#endif
