# Platform: lib, boot, arch/x86_64 (without vmx/), drivers, core platform services.
HV_SRCS += lib/string.c lib/fmt.c lib/cmdline.c

UNIT_TESTS += fmt cmdline
UNIT_SRCS_fmt := test/unit/test_fmt.c lib/fmt.c
UNIT_SRCS_cmdline := test/unit/test_cmdline.c lib/cmdline.c
