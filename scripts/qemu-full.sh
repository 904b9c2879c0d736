#!/usr/bin/env bash
# Runs the full static ARM builds (portaudio + pocketsphinx, `make
# cross-full`) under qemu-user, as `make test` does:
#   - each binary is statically linked, and its selftest passes;
#   - `jibod audio devices` lists the portaudio backend without aborting
#     (no sound card under qemu: ALSA's host API with no devices);
#   - the portaudio package's tests, built for the target with the real
#     library linked in, pass (32-bit arithmetic included, on armv7);
#   - each hears a WAV file: "hey jibo, what time is it" is recognised with
#     pocketsphinx and the clock skill answers; on arm64, everyday speech
#     after the wake phrase is heard and gives no command.
# At run time the binaries need what a robot would have: ALSA's
# configuration (/usr/share/alsa, Debian's libasound2-data) and the
# pocketsphinx model (/usr/share/pocketsphinx, pocketsphinx-en-us); under
# qemu-user they read the host's, which scripts/deps.sh --full installs.
set -euo pipefail
cd "$(dirname "$0")/.."

# The spoken input: synthesised as the host's end-to-end test does
# (audio/sphinx/e2e_test.go: espeak-ng en-us, sox to 16 kHz mono), or
# $JIBOD_QEMU_WAV.
synth() { # synth TEXT OUT.wav
	espeak-ng -v en-us -w "$2.raw.wav" "$1"
	sox -V1 "$2.raw.wav" -r 16000 -c 1 -b 16 "$2"
	rm -f "$2.raw.wav"
}
mkdir -p bin/qemu-full
wav=${JIBOD_QEMU_WAV:-}
if [ -z "$wav" ]; then
	wav=bin/qemu-full/hey_jibo_what_time.wav
	synth "hey jibo, what time is it" "$wav"
fi
chatter=bin/qemu-full/out_of_grammar.wav
synth "hey jibo, she told me a story about her grandmother who lived on a farm" "$chatter"

fail() {
	echo "qemu-full: $*" >&2
	exit 1
}

# shellcheck source=scripts/qemu-lib.sh
. scripts/qemu-lib.sh

check() {
	local arch=$1 qemu=$2
	local bin=bin/linux-$arch-full/jibod
	[ -x "$bin" ] || fail "$bin missing (run make cross-full)"
	local desc
	desc=$(file -b "$bin")
	case "$desc" in
	*"statically linked"*) ;;
	*) fail "$bin is not statically linked: $desc" ;;
	esac
	echo "qemu-full: $bin: $(du -h "$bin" | cut -f1): $desc"
	qemu_run "$qemu" "$bin" version
	qemu_run "$qemu" "$bin" selftest --board "$(qemu_board)"

	local out
	out=$(qemu_run "$qemu" "$bin" audio devices 2>&1) || fail "$arch: jibod audio devices failed: $out"
	grep -q '^portaudio: [0-9]* capture device' <<<"$out" || fail "$arch: jibod audio devices did not list the portaudio backend: $out"
	echo "qemu-full: $arch: $(grep '^portaudio:' <<<"$out")"

	local t
	t=$(scripts/cross-full.sh --test "$arch" ./audio/portaudio)
	out=$(qemu_run "$qemu" "$t" -test.count=1 -test.timeout=5m 2>&1) || {
		echo "$out" >&2
		fail "$arch: the portaudio package's tests failed under qemu ($t)"
	}
	echo "qemu-full: $arch: audio/portaudio tests pass with the real library"
}

hear() {
	local arch=$1 qemu=$2
	local bin=bin/linux-$arch-full/jibod trace=bin/qemu-full/hear-$arch.jsonl
	local start=$SECONDS
	qemu_run "$qemu" "$bin" run --board sim --input none --audio "file:$wav" --state none --speak-wpm 0 \
		--trace "$trace" >"$trace.log" 2>&1 || {
		tail -n 20 "$trace" >&2
		cat "$trace.log" >&2
		fail "$arch: jibod run --audio file:$wav failed"
	}
	grep -q '"type":"ovos.utterance.handle"' "$trace" || fail "$arch: nothing was recognised in $wav"
	grep -q '"type":"jibo.clock:time_now"' "$trace" && grep -q '"type":"ovos.utterance.speak"' "$trace" || {
		grep '"type":"ovos.utterance.handle"' "$trace" >&2
		fail "$arch: $wav was not understood as asking the time, or the clock did not answer"
	}
	echo "qemu-full: $arch: heard $wav and the clock answered ($((SECONDS - start)) s under qemu)"
}

# Everyday speech after the wake phrase: heard, but no command.
ignore() {
	local arch=$1 qemu=$2
	local bin=bin/linux-$arch-full/jibod trace=bin/qemu-full/chatter-$arch.jsonl
	qemu_run "$qemu" "$bin" run --board sim --input none --audio "file:$chatter" --state none --speak-wpm 0 \
		--trace "$trace" >"$trace.log" 2>&1 || {
		tail -n 20 "$trace" >&2
		cat "$trace.log" >&2
		fail "$arch: jibod run --audio file:$chatter failed"
	}
	grep -q '"type":"jibo.audio.speech.end"' "$trace" || fail "$arch: no speech found in $chatter"
	if grep -q '"type":"ovos.utterance.handle"' "$trace"; then
		grep '"type":"ovos.utterance.handle"' "$trace" >&2
		fail "$arch: out-of-grammar speech became a command"
	fi
	echo "qemu-full: $arch: out-of-grammar speech heard and ignored"
}

check arm64 qemu-aarch64-static
hear arm64 qemu-aarch64-static
ignore arm64 qemu-aarch64-static
check armv7 qemu-arm-static
hear armv7 qemu-arm-static
echo "qemu-full: the full ARM builds pass"
