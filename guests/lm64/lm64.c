/* lm64: switches itself to long mode like a 64-bit kernel would (PAE, CR3, EFER.LME,
 * CR0.PG, then a far jump to a 64-bit code segment), and from 64-bit mode makes
 * hypercalls with the 64-bit convention (RAX, RDI, RSI, RDX): a console line, then
 * HC_SHUTDOWN with code 64. Code 65: EFER.LMA was not set in 64-bit mode. */
#include "guests/lib/rt.h"
#include "lib/string.h"

__attribute__((noreturn)) void lm64_enter(const char *msg, uint32_t len);

int main(const struct sliver_boot_info *bi)
{
	static const char msg[] = "lm64: hello from 64-bit mode\n";
	rt_printf("lm64: d%u switching to long mode\n", bi->dom_id);
	lm64_enter(msg, sizeof msg - 1);
}
