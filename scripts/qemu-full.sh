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
#     after the wake phrase is heard and gives no command;
#   - issue 24's end-to-end checks, on arm64: "hey jibo" and a sentence no
#     skill knows wakes the robot (the wake word detector) and it asks
#     "Sorry, what was that?"; "hey jibo, what time is it" said 10 dB over
#     two other talkers, who talk before and after it, is answered by the
#     clock; an out-of-grammar request runs no command.
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
# Without dither sox's output is the same on every run: a command that
# sits near a recogniser floor is then heard the same way each time.
export SOX_OPTS=-D
mkdir -p bin/qemu-full
wav=${JIBOD_QEMU_WAV:-}
if [ -z "$wav" ]; then
	wav=bin/qemu-full/hey_jibo_what_time.wav
	synth "hey jibo, what time is it" "$wav"
fi
chatter=bin/qemu-full/out_of_grammar.wav
synth "hey jibo, she told me a story about her grandmother who lived on a farm" "$chatter"
unknown=bin/qemu-full/unknown.wav
synth "hey jibo, how far away is the moon" "$unknown"
request=bin/qemu-full/request.wav
synth "hey jibo, can you order me a large pizza with mushrooms" "$request"

# The command 10 dB over two espeak-ng talkers reading at once (a
# television), who talk for 8 s before it and about 3 s after, as
# audio/sphinx/e2e_test.go's TestSpokenCommandOverBabbleEnds mixes it.
rmsof() { sox "$1" -n stat 2>&1 | awk '/^RMS +amplitude/ {print $3}'; }
babble=bin/qemu-full/babble.wav
talk="And then she said that the whole thing had been arranged weeks ago, which nobody had told me about. In the second half the visitors pressed forward, but the keeper made two remarkable saves in a row. Prices in the market have risen sharply this spring, and farmers say the weather is to blame."
espeak-ng -v en-gb-x-gbclan -s 150 -w bin/qemu-full/talk-a.raw.wav "$talk"
espeak-ng -v en-us+m4 -s 162 -p 40 -w bin/qemu-full/talk-b.raw.wav "$talk"
sox -V1 bin/qemu-full/talk-a.raw.wav -r 16000 -c 1 -b 16 bin/qemu-full/talk-a.wav
sox -V1 bin/qemu-full/talk-b.raw.wav -r 16000 -c 1 -b 16 bin/qemu-full/talk-b.wav
# d whole seconds of babble: 8 before the command, 4 after its whole
# seconds; the first talker starts 3000 samples into the text.
d=$((8 + $(soxi -s "$wav") / 16000 + 4))
sox -V1 bin/qemu-full/talk-a.wav bin/qemu-full/talk-a-on.wav trim 3000s "${d}"
sox -V1 bin/qemu-full/talk-b.wav bin/qemu-full/talk-b-on.wav trim 0 "${d}"
sox -V1 -m bin/qemu-full/talk-a-on.wav bin/qemu-full/talk-b-on.wav bin/qemu-full/bed-cut.wav
sox -V1 "$wav" bin/qemu-full/cmd-padded.wav pad 8 "$(awk -v d="$d" -v n="$(soxi -s "$wav")" 'BEGIN { printf "%.6f", d - 8 - n / 16000 }')"
gain=$(awk -v c="$(rmsof "$wav")" -v b="$(rmsof bin/qemu-full/bed-cut.wav)" 'BEGIN { printf "%.6f", c / 10^(10/20) / b }')
sox -V1 -m -v "$gain" bin/qemu-full/bed-cut.wav -v 1 bin/qemu-full/cmd-padded.wav "$babble"

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

# run_trace ARCH QEMU WAV NAME: jibod run hears WAV; the trace is printed.
run_trace() {
	local arch=$1 qemu=$2 in=$3 name=$4
	local bin=bin/linux-$arch-full/jibod trace=bin/qemu-full/$name-$arch.jsonl
	qemu_run "$qemu" "$bin" run --board sim --input none --audio "file:$in" --state none --speak-wpm 0 \
		--trace "$trace" >"$trace.log" 2>&1 || {
		tail -n 20 "$trace" >&2
		cat "$trace.log" >&2
		fail "$arch: jibod run --audio file:$in failed"
	}
}

# commands lists the skill intents run in a trace ("jibo.clock:time_now").
commands() { grep -o '"type":"[a-z_.]*:[a-z_]*"' "$1" || true; }

# Issue 24: a wake phrase the detector hears whatever follows it, asking
# rather than acting, and a command over other people talking.
issue24() {
	local arch=$1 qemu=$2 trace
	run_trace "$arch" "$qemu" "$unknown" unknown
	trace=bin/qemu-full/unknown-$arch.jsonl
	grep -q '"type":"jibo.audio.wake"' "$trace" || fail "$arch: \"hey jibo\" before a sentence no skill knows did not wake the robot"
	grep -q 'Sorry, what was that?' "$trace.log" || fail "$arch: the robot did not ask again: $(cat "$trace.log")"
	[ -z "$(commands "$trace")" ] || fail "$arch: a sentence no skill knows ran $(commands "$trace")"
	echo "qemu-full: $arch: \"hey jibo\" and a sentence no skill knows: woken, and the robot asks again"

	run_trace "$arch" "$qemu" "$request" request
	trace=bin/qemu-full/request-$arch.jsonl
	[ -z "$(commands "$trace")" ] || fail "$arch: an out-of-grammar request ran $(commands "$trace")"
	echo "qemu-full: $arch: an out-of-grammar request runs no command"

	local start=$SECONDS
	run_trace "$arch" "$qemu" "$babble" babble
	trace=bin/qemu-full/babble-$arch.jsonl
	[ "$(commands "$trace")" = '"type":"jibo.clock:time_now"' ] || fail "$arch: over two-talker babble at 10 dB the clock did not answer (ran: $(commands "$trace"))"
	echo "qemu-full: $arch: a command over two-talker babble at 10 dB is answered ($((SECONDS - start)) s under qemu)"
}

check arm64 qemu-aarch64-static
hear arm64 qemu-aarch64-static
ignore arm64 qemu-aarch64-static
issue24 arm64 qemu-aarch64-static
check armv7 qemu-arm-static
hear armv7 qemu-arm-static
echo "qemu-full: the full ARM builds pass"
