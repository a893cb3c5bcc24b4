#!/usr/bin/env bash
# mkiso.sh NAME CFG BUILD_DIR [GUEST_ELF...]
# Builds BUILD_DIR/NAME.iso (hybrid BIOS+UEFI GRUB) and BUILD_DIR/NAME-bios.iso (BIOS only,
# few modules: boots in about a second under Bochs). CFG is a grub.cfg fragment (the
# multiboot2 line and module2 lines) that becomes the body of the only menu entry.
set -euo pipefail
name=$1 cfg=$2 build=$3
shift 3
# Without a multiboot2 line GRUB has nothing to boot and waits at its prompt until the run
# times out: refuse the scenario in one line.
if ! grep -qE '^\s*multiboot2\s+/boot/sliver\.elf' "$cfg"; then
	echo "mkiso: $cfg has no 'multiboot2 /boot/sliver.elf ...' line: GRUB would wait at its prompt" >&2
	exit 1
fi
stage=$build/iso/$name
rm -rf "$stage"
mkdir -p "$stage/boot/grub" "$stage/guests"
cp "$build/sliver.elf" "$stage/boot/sliver.elf"
for g in "$@"; do cp "$g" "$stage/guests/"; done
# Every /guests/ path the scenario names must exist, or GRUB would stop at a prompt.
for path in $(grep -oE '^\s*module2\s+\S+' "$cfg" | awk '{print $2}'); do
	if [ ! -e "$stage$path" ]; then
		echo "mkiso: $cfg names $path, which was not built" >&2
		exit 1
	fi
done
{
	echo "set timeout=0"
	echo "set default=0"
	echo "menuentry \"sliver $name\" {"
	sed -e '/^\s*#/d' -e '/^\s*$/d' -e 's/^/\t/' "$cfg"
	# sliver's multiboot2 header asks for a framebuffer (the console falls back to it when
	# no UART answers), and the multiboot2 command then sets gfxpayload=auto. BIOS: put back
	# EGA text mode, what a BIOS box shows at boot. UEFI has no text mode: GRUB needs its
	# video drivers (all_video: GOP, UGA) to pass the GOP framebuffer; without them it prints
	# "no suitable video mode found" and boots with no framebuffer.
	echo '	if [ "$grub_platform" = pc ]; then set gfxpayload=text; fi'
	echo '	if [ "$grub_platform" = efi ]; then insmod all_video; fi'
	echo "	boot"
	echo "}"
} >"$stage/boot/grub/grub.cfg"
common=(--locales= --fonts= --themes=)
grub-mkrescue "${common[@]}" -d /usr/lib/grub/i386-pc \
	--install-modules="multiboot2 normal iso9660 biosdisk part_msdos configfile test" \
	-o "$build/$name-bios.iso" "$stage" >"$build/iso/$name-bios.log" 2>&1 ||
	{ cat "$build/iso/$name-bios.log" >&2; exit 1; }
grub-mkrescue "${common[@]}" -o "$build/$name.iso" "$stage" >"$build/iso/$name.log" 2>&1 ||
	{ cat "$build/iso/$name.log" >&2; exit 1; }
