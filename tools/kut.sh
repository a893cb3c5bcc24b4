#!/usr/bin/env bash
# kut.sh: runs kvm-unit-tests x86 images (third-party multiboot1 guests written for QEMU/KVM,
# issue 13) as boot=mb1 domains of sliver, one boot per test, and prints one line per test:
#   <test> smp=<n> <emu> | SUMMARY: ... | d1 exited status=<v> | msr d1 unknown=...
# Status 0 is a pass, 1 failures, 38 all skipped (kvm-unit-tests' 77 >> 1).
# Usage: tools/kut.sh [-e bochs|qemu] [-d KUT_DIR] [-t RUN_MS] [-w WALL_S] TEST[:SMP[:ARGS]] ...
#   WALL_S (default 600): the emulator's wall-clock limit per test (sliver-run --timeout), so
#   one test that runs long in wall time cannot hold the whole run.
#   ARGS: the test's own arguments, commas for spaces (vmexit:1:cpuid,vmcall); the guest's
#   command line starts with its name as argv[0] (docs/guests.md).
#   KUT_DIR (default kut-src): a built checkout (./configure --arch=x86_64 && make); with
#   `make kut` (mk/kut.mk) it is cloned at a pinned commit and built first.
# Logs: build/kut/logs/<test>[_<args>]-<emu>.log. The guest gets the environment kvm-unit-tests reads
# from its first multiboot module (TEST_DEVICE=0: no QEMU test device here).
set -euo pipefail
cd "$(dirname "$0")/.."
emu=qemu kut=kut-src run_ms=20000 wall=600
while getopts "e:d:t:w:" o; do
	case $o in
	e) emu=$OPTARG ;;
	d) kut=$OPTARG ;;
	t) run_ms=$OPTARG ;;
	w) wall=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
logs=build/kut/logs
mkdir -p "$logs"
for ts in "$@"; do
	t=${ts%%:*} n=${ts#*:} a=
	[ "$n" = "$ts" ] && n=1
	case $n in *:*) a=${n#*:} n=${n%%:*} ;; esac
	a=${a//,/ }
	stage=build/kut/iso-$t
	rm -rf "$stage" && mkdir -p "$stage"
	printf 'TEST_DEVICE=0\n' >"$stage/env"
	cat >"$stage/k.cfg" <<EOC
multiboot2 /boot/sliver.elf console=com1 run_ms=$run_ms console.rate=0
module2 /guests/$t.flat boot=mb1 name=$t mem=128 vcpus=$n $a
module2 /guests/env mb1.module_of=$t
EOC
	cp build/sliver.elf "$stage/"
	tools/mkiso.sh "kut-$t" "$stage/k.cfg" "$stage" "$kut/x86/$t.flat" "$stage/env" >/dev/null
	args=(--emu qemu --icount)
	[ "$emu" = bochs ] && args=(--emu bochs)
	log=$logs/$t${a:+_${a// /_}}-$emu.log
	rc=0
	tools/sliver-run "${args[@]}" --cpus 2 --timeout "$wall" --log "$log" \
		"$stage/kut-$t-bios.iso" >/dev/null 2>&1 || rc=$?
	s=$(grep -m1 -o "SUMMARY.*" "$log" || true)
	x=$(grep -m1 -oE "d1 (exited status=[0-9]+|crashed: .*)" "$log" || echo "no exit")
	[ $rc = 124 ] && x="$x (wall timeout ${wall}s)"
	u=$(grep -m1 -oE "msr d1 unknown=[0-9]+ last=0x[0-9a-f]+" "$log" || true)
	echo "$t smp=$n $emu | $s | $x | $u"
done
