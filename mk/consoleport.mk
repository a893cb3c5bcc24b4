# The console device: Xen-style com1= / console= selection, ACPI SPCR, PCI 16550, and the
# multiboot2 framebuffer (docs/console.md, "Console device").
HV_SRCS += drivers/pci.c drivers/spcr.c drivers/comspec.c drivers/conport.c drivers/fb.c \
	drivers/font8x16.c

UNIT_TESTS += spcr
UNIT_SRCS_spcr := test/unit/test_spcr.c drivers/spcr.c
UNIT_TESTS += comspec
UNIT_SRCS_comspec := test/unit/test_comspec.c drivers/comspec.c lib/cmdline.c
