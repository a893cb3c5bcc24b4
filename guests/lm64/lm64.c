/* lm64: switches itself to long mode like a 64-bit kernel would (PAE, CR3, EFER.LME,
 * CR0.PG, then a far jump to a 64-bit code segment), and from 64-bit mode makes
 * hypercalls with the 64-bit convention (RAX, RDI, RSI, RDX): a console line, then
 * HC_SHUTDOWN with code 64. Code 65: EFER.LMA was not set in 64-bit mode.
 * mode=pae32 instead turns on 32-bit PAE paging (no long mode: the hypervisor must load
 * the PDPTEs into the VMCS), prints through its page tables and shuts down with code 32. */
#include "guests/lib/rt.h"
#include "lib/string.h"

__attribute__((noreturn)) void lm64_enter(const char *msg, uint32_t len);
void pae32_enable(void);

int main(const struct sliver_boot_info *bi)
{
	static const char msg[] = "lm64: hello from 64-bit mode\n";
	char mode[16] = "";
	rt_arg("mode", mode, sizeof mode);
	if (!strcmp(mode, "pae32")) {
		rt_printf("lm64: d%u turning on 32-bit PAE paging\n", bi->dom_id);
		pae32_enable();
		uint32_t cr0, cr4;
		__asm__ volatile("mov %%cr0, %0; mov %%cr4, %1" : "=r"(cr0), "=r"(cr4));
		rt_printf("lm64: PAE paging on (cr0=%x cr4=%x), still printing\n", cr0, cr4);
		rt_exit(32);
	}
	rt_printf("lm64: d%u switching to long mode\n", bi->dom_id);
	lm64_enter(msg, sizeof msg - 1);
}
