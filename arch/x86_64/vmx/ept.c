/* Extended page tables (SDM Vol. 3C 28.2): the EPT format of the guest page-table builder
 * (arch/x86_64/gpt.c), and the backend's wrappers around it. One 4-level table per domain
 * maps guest-physical [0, size) onto one contiguous host range, read/write/execute,
 * write-back, with 2 MiB pages (when the CPU offers them) wherever guest and host addresses
 * are both aligned. Nothing else is mapped: any other access is an EPT violation. */
#include "arch/x86_64/gpt.h"
#include "arch/x86_64/vmx/vmx.h"

const struct gpt_format gpt_ept = {
	.name = "EPT",
	/* 28.2.2: an entry is not present when bits 2:0 (read, write, execute) are all 0. */
	.present = EPT_READ | EPT_WRITE | EPT_EXEC,
	.table = EPT_READ | EPT_WRITE | EPT_EXEC,
	/* 28.2.6: the memory type of a page is bits 5:3 of its entry (WB, IPAT clear). */
	.leaf = EPT_READ | EPT_WRITE | EPT_EXEC | EPT_MT_WB,
	.large = EPT_LARGE,
	.root = EPTP_WB | EPTP_WALK_4, /* 24.6.11 */
};

/* Frees the tables under s->root_pa and root_pa itself (hv.c frees s). */
void vmx_space_unmap(struct hv_space *s)
{
	gpt_unmap(&gpt_ept, s);
}

/* Builds the tables for [0, s->size) -> [s->hpa, ...); false when out of memory (hv.c then
 * calls vmx_space_unmap). */
bool vmx_space_map(struct hv_space *s)
{
	return gpt_map(&gpt_ept, s, vmx_caps.ept_vpid & EPT_CAP_2M);
}

uint64_t ept_pointer(struct hv_space *s)
{
	return gpt_root(&gpt_ept, s);
}
