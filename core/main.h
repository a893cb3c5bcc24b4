/* Entry points between core/main.c and the rest of core/. */
#ifndef CORE_MAIN_H
#define CORE_MAIN_H
#include <stdnoreturn.h>

/* The VMM (core/vmm.c): vmm_boot builds the domains on the BSP once; vmm_cpu_loop is the
 * scheduler loop every CPU runs forever. */
void vmm_boot(void);
void vmm_cpu_loop(void);

/* The platform selftest (core/selftest.c), chosen by `selftest` on the command line. */
noreturn void selftest_bsp(void);
noreturn void selftest_ap(void);

#endif
