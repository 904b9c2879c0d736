#!/usr/bin/env bash
# Runs the ARM builds' selftest under qemu-user and checks they are static.
# binfmt_misc is not assumed: each binary is run through qemu explicitly.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/qemu-lib.sh
. scripts/qemu-lib.sh

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
	qemu_run "$qemu" "$bin" version
	qemu_run "$qemu" "$bin" selftest --board "$(qemu_board)"
}

check bin/linux-arm64/jibod qemu-aarch64-static
check bin/linux-armv7/jibod qemu-arm-static
echo "qemu-smoke: both ARM builds pass selftest"
