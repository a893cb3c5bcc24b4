#include "drivers/pci.h"
#include "arch/x86_64/cpu.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA	   0xcfc
#define PCI_VENDOR_ID	   0x00
#define PCI_COMMAND	   0x04
#define PCI_CLASS_REV	   0x08
#define PCI_HEADER_TYPE	   0x0c /* byte 0x0e, in the dword at 0x0c */
#define PCI_BAR0	   0x10
#define PCI_CMD_IO	   0x1
#define PCI_CMD_MEM	   0x2

static uint32_t cfg_address(struct pci_addr a, unsigned off)
{
	return 1u << 31 | (uint32_t)a.bus << 16 | (uint32_t)(a.dev & 31) << 11 |
	       (uint32_t)(a.fn & 7) << 8 | (off & 0xfc);
}

uint32_t pci_cfg_read32(struct pci_addr a, unsigned off)
{
	outl(PCI_CONFIG_ADDRESS, cfg_address(a, off));
	return inl(PCI_CONFIG_DATA);
}

void pci_cfg_write32(struct pci_addr a, unsigned off, uint32_t v)
{
	outl(PCI_CONFIG_ADDRESS, cfg_address(a, off));
	outl(PCI_CONFIG_DATA, v);
}

bool pci_present(struct pci_addr a)
{
	return (pci_cfg_read32(a, PCI_VENDOR_ID) & 0xffff) != 0xffff;
}

uint32_t pci_class(struct pci_addr a)
{
	return pci_cfg_read32(a, PCI_CLASS_REV) >> 8;
}

struct pci_bar pci_bar_decode(uint32_t lo, uint32_t hi)
{
	struct pci_bar b = {0};
	if (lo & 1) { /* I/O: bits 31:2 */
		b.io = true;
		b.base = lo & ~3u;
		return b;
	}
	b.base = lo & ~0xfu;
	if (((lo >> 1) & 3) == 2) /* type 10b: 64-bit */
		b.base |= (uint64_t)hi << 32;
	return b;
}

struct pci_bar pci_bar(struct pci_addr a, unsigned n)
{
	uint32_t lo = pci_cfg_read32(a, PCI_BAR0 + 4 * n);
	uint32_t hi = n < 5 ? pci_cfg_read32(a, PCI_BAR0 + 4 * (n + 1)) : 0;
	return pci_bar_decode(lo, hi);
}

void pci_enable(struct pci_addr a, bool io)
{
	uint32_t cmd = pci_cfg_read32(a, PCI_COMMAND);
	uint32_t want = io ? PCI_CMD_IO : PCI_CMD_MEM;
	if (!(cmd & want))
		pci_cfg_write32(a, PCI_COMMAND, (cmd & 0xffff) | want);
}

bool pci_find_class(uint32_t cls, struct pci_addr *out)
{
	for (unsigned bus = 0; bus < 256; bus++) {
		for (unsigned dev = 0; dev < 32; dev++) {
			struct pci_addr a = {(uint8_t)bus, (uint8_t)dev, 0};
			if (!pci_present(a))
				continue;
			/* Header type bit 7: a multi-function device has functions 1-7 too. */
			bool multi = (pci_cfg_read32(a, PCI_HEADER_TYPE) >> 16) & 0x80;
			for (unsigned fn = 0; fn < (multi ? 8u : 1u); fn++) {
				a.fn = (uint8_t)fn;
				if (fn && !pci_present(a))
					continue;
				if (pci_class(a) == cls) {
					*out = a;
					return true;
				}
			}
		}
	}
	return false;
}
