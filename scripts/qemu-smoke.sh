#!/usr/bin/env bash
# Runs the ARM builds' selftest under qemu-user and checks they are static.
# binfmt_misc is not assumed: each binary is run through qemu explicitly.
set -euo pipefail
cd "$(dirname "$0")/.."

# qemu_board writes the sim profile with the motion watchdog relaxed to 5 s:
# emulated ARM on a loaded machine can miss the loop's ticks for longer than
# the sim's 1 s, which powers the motors off and fails the selftest; the
# watchdog itself is tested natively and on real boards.
qemu_board() {
	local f=${TMPDIR:-/tmp}/jibod-qemu-sim.json
	sed 's/"stallTimeoutMs": *[0-9]*/"stallTimeoutMs": 5000/' board/profiles/sim.json >"$f"
	grep -q '"stallTimeoutMs": 5000' "$f" || { echo "qemu: could not relax the sim profile's stall timeout" >&2; exit 1; }
	echo "$f"
}

check() {
	local bin=$1 qemu=$2
	[ -x "$bin" ] || { echo "qemu-smoke: $bin missing (run make cross)" >&2; exit 1; }
	local desc
	desc=$(file -b "$bin")
	echo "qemu-smoke: $bin: $desc"
	case "$desc" in
	*"statically linked"*) ;;
	*) echo "qemu-smoke: $bin is not statically linked" >&2; exit 1 ;;
	esac
	"$qemu" "$bin" version
	"$qemu" "$bin" selftest --board "$(qemu_board)"
}

check bin/linux-arm64/jibod qemu-aarch64-static
check bin/linux-armv7/jibod qemu-arm-static
echo "qemu-smoke: both ARM builds pass selftest"
