/* Constants shared by the boot assembly (BSP entry and AP trampoline) and C. */
#ifndef BOOT_BOOT_H
#define BOOT_BOOT_H

#define BOOT_STACK_SIZE 16384
#define BOOT_CS64	0x08
#define BOOT_DS		0x10

#define MSR_EFER 0xc0000080
#define EFER_LME (1 << 8)
#define EFER_NXE (1 << 11)
#define PTE_P	 (1 << 0)
#define PTE_W	 (1 << 1)
#define PTE_PWT	 (1 << 3)
#define PTE_PCD	 (1 << 4)
#define PTE_PS	 (1 << 7)

/* Full register values, never read-modify-write: firmware leaves bits we do not want. */
#define BOOT_CR0 0x80010033 /* PG | WP | NE | ET | MP | PE */
#define BOOT_CR4 0x000000a0 /* PGE | PAE */

/* The AP trampoline is copied to this page: below 1 MiB, SIPI vector 0x08. */
#define AP_TRAMPOLINE_PA 0x8000

#endif
