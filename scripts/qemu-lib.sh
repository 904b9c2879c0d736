# Shared by scripts/qemu-smoke.sh and scripts/qemu-full.sh (sourced).

# qemu_run runs an ARM binary under qemu-user with a time limit, so a hang
# under emulation fails the run in minutes rather than eating CI's budget.
# At the limit the guest gets SIGQUIT first: Go prints every goroutine's
# stack, which is what a hang needs to be understood. JIBOD_QEMU_TIMEOUT
# sets the limit in seconds (default 600).
qemu_run() { # qemu_run QEMU BINARY ARGS...
	local rc=0
	timeout -k 20 -s QUIT "${JIBOD_QEMU_TIMEOUT:-600}" "$@" || rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "qemu: $2 ${3:-} did not finish within ${JIBOD_QEMU_TIMEOUT:-600} s (stacks above)" >&2
	fi
	return "$rc"
}

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
