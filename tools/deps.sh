#!/usr/bin/env bash
# Installs what sliver needs on Debian/Ubuntu when something is missing: with apt-get when
# running as root, otherwise it prints the exact command to run.
set -euo pipefail
pkgs=(gcc make binutils python3 bochs bochsbios vgabios bochs-term qemu-system-x86
	grub-pc-bin grub-efi-amd64-bin grub-common xorriso mtools ovmf libcmocka-dev
	cppcheck clang-format gnuplot-nox clang libclang-rt-14-dev
	linux-image-cloud-amd64 busybox-static cpio) # the boot=linux test's kernel and initramfs
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "sliver needs: ${missing[*]}" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
