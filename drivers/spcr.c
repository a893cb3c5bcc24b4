#include "drivers/spcr.h"
#include "lib/le.h"
#include "lib/string.h"

/* Offsets in the table (SPCR specification, table 1). */
enum {
	OFF_LENGTH = 4,
	OFF_REVISION = 8,
	OFF_INTERFACE = 36,
	OFF_GAS = 40,		 /* space id, bit width, bit offset, access size, 64-bit address */
	OFF_INTERRUPT_TYPE = 52, /* bit 0: PC-AT 8259 IRQ */
	OFF_IRQ = 53,
	OFF_BAUD = 58,
	OFF_PCI_DEVICE = 64,
	OFF_PCI_VENDOR = 66,
	OFF_PCI_BUS = 68,
	OFF_PCI_DEV = 69,
	OFF_PCI_FN = 70,
};

#define GAS_SYSTEM_MEMORY 0
#define GAS_SYSTEM_IO	  1

/* Baud rate codes: 3 9600, 4 19200, 6 57600, 7 115200; 0 "as is". */
static bool decode_baud(uint8_t code, uint32_t *baud)
{
	static const uint32_t rates[8] = {0, 0, 0, 9600, 19200, 0, 57600, 115200};
	if (code >= 8 || (code && !rates[code]))
		return false;
	*baud = rates[code];
	return true;
}

const char *spcr_parse(const uint8_t *t, size_t len, struct spcr_info *out)
{
	if (!t || len < SPCR_MIN_LENGTH)
		return "shorter than an SPCR table";
	if (memcmp(t, "SPCR", 4))
		return "not an SPCR table";
	uint32_t tlen = le32(t + OFF_LENGTH);
	if (tlen < SPCR_MIN_LENGTH || tlen > len)
		return "bad table length";
	uint8_t sum = 0;
	for (uint32_t i = 0; i < tlen; i++)
		sum += t[i];
	if (sum)
		return "bad checksum";
	struct spcr_info s = {0};
	s.revision = t[OFF_REVISION];
	s.interface_type = t[OFF_INTERFACE];
	if (s.interface_type != 0x00 && s.interface_type != 0x01 && s.interface_type != 0x12)
		return "not a 16550-compatible UART";
	const uint8_t *gas = t + OFF_GAS;
	uint64_t addr;
	memcpy(&addr, gas + 4, 8);
	if (!addr)
		return "console redirection disabled (base address 0)";
	if (gas[0] != GAS_SYSTEM_MEMORY && gas[0] != GAS_SYSTEM_IO)
		return "base address neither memory nor I/O";
	s.mmio = gas[0] == GAS_SYSTEM_MEMORY;
	s.base = addr;
	/* Access size: 1 byte, 2 word, 3 dword (ACPI 6.5, 5.2.3.2); 0 means "legacy": take the
	 * register width from the bit width (8 or 32) as Linux does. */
	unsigned access = gas[3];
	if (access == 0)
		access = gas[1] == 32 ? 3 : gas[1] == 16 ? 2 : 1;
	if (access > 3)
		return "unsupported register access size";
	if (!s.mmio && (access != 1 || addr > 0xfff8))
		return "bad I/O port";
	s.reg_width = (uint8_t)(1u << (access - 1));
	s.reg_shift = (uint8_t)(access - 1);
	s.pc_irq = (t[OFF_INTERRUPT_TYPE] & 1) && t[OFF_IRQ] < 16 ? t[OFF_IRQ] : -1;
	if (!decode_baud(t[OFF_BAUD], &s.baud))
		return "unknown baud rate code";
	uint16_t dev_id = le16(t + OFF_PCI_DEVICE), vendor = le16(t + OFF_PCI_VENDOR);
	s.pci = dev_id != 0xffff && vendor != 0xffff;
	s.pci_bus = t[OFF_PCI_BUS];
	s.pci_dev = t[OFF_PCI_DEV];
	s.pci_fn = t[OFF_PCI_FN];
	*out = s;
	return NULL;
}
