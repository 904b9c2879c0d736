#!/usr/bin/env bash
# Generates the wake pairs set (docs/hearing.md): each of the tuning set's
# 36 command wordings, in two of its espeak-ng voices, said three ways
# by the same voice over the same noise, so a command after the wake
# phrase can be compared with the same command alone:
#   alone   "what time is it" (heard with the command window open)
#   comma   "Hey Jibo, what time is it" (espeak-ng pauses at the comma,
#           as every other set says the phrase)
#   breath  "Hey Jibo what time is it", in one breath: no pause between
#           the phrase and the command
# (the manifest's noise field names the way). Each file has 1 s of
# silence either side and pink noise 20 dB under the command alone
# (the same noise level for the three). Tuning side: choose on it.
#
#   scripts/gen-wake-pairs.sh [DIR]      (DIR defaults to bin/wake-pairs)
#
# Only espeak-ng voices and sox noise. Deterministic for a given
# espeak-ng and sox (every sox run has -R).
set -euo pipefail

out=${1:-bin/wake-pairs}
for p in espeak-ng sox soxi awk; do
	command -v "$p" >/dev/null 2>&1 || { echo "gen-wake-pairs: $p is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The tuning set's wordings and voices (scripts/gen-hearing-devset.sh --tune).
commands=(
	"what time is it" "what's the time" "tell me the time" "do you know what time it is"
	"what's the date" "what day is it today" "set a timer for five minutes"
	"set a timer for thirty seconds" "start a ten minute timer" "set a timer for an hour and a half"
	"set a timer" "cancel the timer" "how much time is left" "louder" "turn it down"
	"set the volume to seven" "what's the volume" "mute" "unmute" "how are you" "who are you"
	"how old are you" "what's your favorite color" "thank you" "good night" "are you a robot"
	"do you like pizza" "what can you do" "help" "hello" "good morning" "turn up the volume"
	"what do you like to do" "count down from two minutes" "timer for twenty seconds"
	"how long is left on my timer"
)
voices=(en-us en-us+m3 en-gb en-us+f2 en-gb-x-rp en-us+m1 en-029 en-us+f5)
speeds=(150 165 175 185 200)
pitches=(35 45 50 55 60 70)

sox -R -q -n -r 16000 -c 1 -b 16 "$tmp/pink.wav" synth 20 pinknoise
rms() { sox "$1" -n stat 2>&1 | awk '/RMS[ ]+amplitude/ {print $3}'; }
manifest="$out/manifest.jsonl"
: >"$manifest"
i=0 n=0
for text in "${commands[@]}"; do
	i=$((i + 1))
	for k in 0 1; do
		# Two voices a wording, two indices apart: each voice says
		# some wordings, whatever their parity.
		v=${voices[$(((i + 2 * k) % 8))]} sp=${speeds[$(((i + k) % 5))]} p=${pitches[$(((i + 3 * k) % 6))]}
		vol=
		for way in alone comma breath; do
			case $way in
			alone) spoken=$text said=$text wake=false ;;
			comma) spoken="Hey Jibo, $text" said="hey jibo $text" wake=true ;;
			breath) spoken="Hey Jibo $text" said="hey jibo $text" wake=true ;;
			esac
			espeak-ng -v "$v" -s "$sp" -p "$p" -w "$tmp/raw.wav" "$spoken"
			sox -R -q -V1 "$tmp/raw.wav" -r 16000 -c 1 -b 16 "$tmp/s.wav" gain -6
			if [ -z "$vol" ]; then # the noise's level from the command alone
				vol=$(awk -v s="$(rms "$tmp/s.wav")" -v b="$(rms "$tmp/pink.wav")" 'BEGIN { printf "%.6f", s / 10 / b }')
			fi
			sox -R -q "$tmp/s.wav" "$tmp/pad.wav" pad 1 1
			sox -R -q "$tmp/pink.wav" "$tmp/seg.wav" trim $((i % 7)) "$(soxi -D "$tmp/pad.wav")"
			n=$((n + 1))
			f=$(printf 'command-%03d-%s.wav' "$n" "$way")
			sox -R -q -V1 -m -v 1 "$tmp/pad.wav" -v "$vol" "$tmp/seg.wav" "$out/$f"
			printf '{"file":"%s","text":"%s","wake":%s,"kind":"command","noise":"%s","voice":"%s","speech_from_s":1,"speech_to_s":%s}\n' \
				"$f" "$said" "$wake" "$way" "$v/$sp/$p" "$(awk -v d="$(soxi -D "$tmp/s.wav")" 'BEGIN { printf "%.3f", 1 + d }')" >>"$manifest"
		done
	done
done
echo "gen-wake-pairs: $(wc -l <"$manifest") files in $out" >&2
