/* Nested page tables (APM Vol. 2 15.25): the NPT format of the guest page-table builder
 * (arch/x86_64/gpt.c), and the backend's wrappers around it. One 4-level table per domain in
 * the ordinary long-mode format maps guest-physical [0, size) onto one contiguous host range,
 * present/writable/user (nested walks are user accesses, 15.25.5), write-back (PAT index 0
 * of the host PAT), with 2 MiB pages wherever guest and host addresses are both aligned.
 * Nothing else is mapped: any other access is a nested page fault. */
#include "arch/x86_64/gpt.h"
#include "arch/x86_64/svm/svm.h"

const struct gpt_format gpt_npt = {
	.name = "NPT",
	.present = NPT_P,
	.table = NPT_P | NPT_RW | NPT_US,
	.leaf = NPT_P | NPT_RW | NPT_US, /* PWT, PCD, PAT clear: PAT entry 0, WB */
	.large = NPT_PS,
	.root = 0, /* nCR3 is the PML4's address alone (vmcb.c loads root_pa) */
};

void svm_space_unmap(struct hv_space *s)
{
	gpt_unmap(&gpt_npt, s);
}

bool svm_space_map(struct hv_space *s)
{
	return gpt_map(&gpt_npt, s, true);
}
