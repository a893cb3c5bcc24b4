#!/usr/bin/env bash
# linux-initramfs.sh OUT.cpio: the initramfs of the boot=linux e2e test (mk/linux.mk), built
# at test time from Debian's busybox-static: /bin/busybox and an /init that prints the
# marker on its console (ttyS0 through the kernel's console= word), the kernel's uptime at
# that point, and powers off (busybox poweroff -f: the reboot system call, which the kernel
# carries out through ACPI S5 when the DSDT has \_S5); with linux_reboot=1 on the kernel's
# command line it first reboots once. With linux_echo=<spin_us>/<sleep_us> (and
# linux_echo_count=N) it runs /bin/uart-echo (guests/linux/uart-echo.c, built here with the
# host's gcc -static) on ttyS0 before powering off: the UART ping's echo (issue 28 item 4).
set -euo pipefail
out=$1
src=$(cd "$(dirname "$0")/.." && pwd)/guests/linux/uart-echo.c
bb=/bin/busybox
if ! file -L "$bb" 2>/dev/null | grep -q 'statically linked' && ! ldd "$bb" 2>&1 | grep -q 'not a dynamic'; then
	echo "linux-initramfs: $bb is not a static busybox (apt-get install busybox-static)" >&2
	exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin" "$dir/proc" "$dir/dev" "$dir/sys"
cp "$bb" "$dir/bin/busybox"
gcc -static -O2 -Wall -Wextra -Werror -s -o "$dir/bin/uart-echo" "$src"
ln -s busybox "$dir/bin/sh"
cat >"$dir/init" <<'INIT'
#!/bin/sh
/bin/busybox mount -t proc proc /proc
/bin/busybox echo "linux-init: userspace up, uptime $(/bin/busybox cut -d' ' -f1 /proc/uptime) s, $(/bin/busybox grep -c ^processor /proc/cpuinfo) cpus"
/bin/busybox echo "linux-init: PASS"
# linux_reboot=1 on the kernel command line (the kernel hands unknown words to init as its
# environment): reboot once, told apart by the RTC, which a PC keeps across a reset.
if [ "$linux_reboot" = 1 ]; then
	/bin/busybox mount -t devtmpfs dev /dev
	# (Linux's rtc-cmos refuses years after 2069 without an ACPI 2.0 FADT century field.)
	if [ "$(/bin/busybox date -u +%Y)" -lt 2060 ]; then
		/bin/busybox date -u -s "2060-01-01 00:00:00" >/dev/null
		if /bin/busybox hwclock -u -w; then
			/bin/busybox echo "linux-init: RTC set to 2060, rebooting"
			/bin/busybox reboot -f
		fi
		/bin/busybox echo "linux-init: FAIL: cannot set the RTC"
	fi
	/bin/busybox echo "linux-init: booted again, RTC year $(/bin/busybox date -u +%Y)"
fi
# linux_echo=<spin_us>/<sleep_us> [linux_echo_count=N]: answer the hypervisor's UART ping.
if [ -n "$linux_echo" ]; then
	/bin/busybox mount -t devtmpfs dev /dev
	/bin/uart-echo "$linux_echo" "${linux_echo_count:-0}"
fi
/bin/busybox poweroff -f
INIT
chmod 755 "$dir/init"
(cd "$dir" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) >"$out"
