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
# --rooms makes the harder pairs instead, where a comma's short pause is
# not heard as quiet: each wording in one of the two voices, with a
# comma and in one breath (no alone), in four backgrounds, the same for
# both ways of a pair:
#   pink10   pink noise 10 dB under the speech
#   babble10 two espeak-ng talkers reading everyday text, 10 dB under it
#            (8 s of it before the speech, for the voice activity
#            detector to learn it, 2.5 s after)
#   room     a reverberant room, no noise
#   far      a larger, more reverberant room, the highs cut, pink noise
#            set 10 dB under the dry speech before the far room's 6 dB
#            loss, so about 4-5 dB under the speech as heard
# (the manifest's noise field is BACKGROUND-WAY, e.g. far-breath). The
# rooms are drawn with scripts/draw.awk from a seed of neither the
# development set's rooms nor gen-hearing-devset.sh --tune-rooms'; the
# babble's talkers and text are the tuning twin's
# (gen-hearing-devset.sh --tune), the noise drawn afresh.
#
#   scripts/gen-wake-pairs.sh [--rooms] [DIR]   (DIR defaults to bin/wake-pairs)
#
# Only espeak-ng voices and sox noise. Deterministic for a given
# espeak-ng and sox (every sox run has -R).
set -euo pipefail

rooms=0
if [ "${1:-}" = --rooms ]; then
	rooms=1
	shift
fi
out=${1:-bin/wake-pairs}
here=$(cd "$(dirname "$0")" && pwd)
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

# rooms_pairs makes the --rooms set (see the top).
rooms_pairs() {
	: >"$out/rooms.tsv"
	local talkers=(en-us+m2 en-gb+m5)
	local texts=(
		"We drove up to the lake on Friday, but the cabin was colder than anyone expected."
		"The committee will publish its findings next month, after the final hearing."
		"Honestly the best part of the holiday was the little bakery around the corner."
		"He keeps losing his glasses and then finds them on top of his own head."
		"The bus was late again, so I walked the whole way in the pouring rain."
		"According to the forecast there will be strong winds along the coast tonight."
	)
	local parts=() k j
	for k in 0 1; do
		local files=()
		for ((j = 0; j < ${#texts[@]}; j++)); do
			espeak-ng -v "${talkers[$k]}" -s $((150 + 12 * k)) -p $((40 + 9 * k)) -w "$tmp/b.wav" "${texts[$(((j + 3 * k) % ${#texts[@]}))]}"
			sox -R -q -V1 "$tmp/b.wav" -r 16000 -c 1 -b 16 "$tmp/b$k-$j.wav" pad 0 0.$((2 + k))
			files+=("$tmp/b$k-$j.wav")
		done
		sox -R -q "${files[@]}" "$tmp/talker$k.wav" norm -20
		parts+=(-v 1 "$tmp/talker$k.wav")
	done
	sox -R -q -m "${parts[@]}" "$tmp/babble.wav" norm -20
	sox -R -q -n -r 16000 -c 1 -b 16 "$tmp/pink60.wav" synth 120 pinknoise
	sox -R -q "$tmp/pink60.wav" "$tmp/pinkr.wav" trim 40
	local bdur
	bdur=$(soxi -D "$tmp/babble.wav")
	local text bg way spoken v sp p room vol dur off lead
	for text in "${commands[@]}"; do
		i=$((i + 1))
		k=$((i % 2))
		v=${voices[$(((i + 2 * k) % 8))]} sp=${speeds[$(((i + k) % 5))]} p=${pitches[$(((i + 3 * k) % 6))]}
		for bg in pink10 babble10 room far; do
			room=
			case $bg in
			room) room=$(awk -v seed=557 -v n="$i" -v ranges="31 79 21 79 41 99 1 19" -f "$here/draw.awk" | awk '{ print "reverb", $1, $2, $3, 100, $4 }') ;;
			far) room=$(awk -v seed=881 -v n="$i" -v ranges="61 95 41 79 71 99 5 25 2501 3499" -f "$here/draw.awk" | awk '{ print "reverb", $1, $2, $3, 100, $4, "lowpass", $5 }') ;;
			esac
			vol=
			for way in comma breath; do
				case $way in
				comma) spoken="Hey Jibo, $text" ;;
				breath) spoken="Hey Jibo $text" ;;
				esac
				espeak-ng -v "$v" -s "$sp" -p "$p" -w "$tmp/raw.wav" "$spoken"
				sox -R -q -V1 "$tmp/raw.wav" -r 16000 -c 1 -b 16 "$tmp/s.wav" gain -6
				dur=$(soxi -D "$tmp/s.wav")
				# shellcheck disable=SC2086 # room holds the effects' arguments
				case $bg in
				room) sox -R -q "$tmp/s.wav" "$tmp/pad.wav" pad 1 1.5 $room ;;
				far) sox -R -q "$tmp/s.wav" "$tmp/pad.wav" pad 1 1.5 $room gain -6 ;;
				babble10) sox -R -q "$tmp/s.wav" "$tmp/pad.wav" pad 8 2.5 ;;
				*) sox -R -q "$tmp/s.wav" "$tmp/pad.wav" pad 1 1.5 ;;
				esac
				lead=1
				[ "$bg" = babble10 ] && lead=8
				n=$((n + 1))
				f=$(printf 'command-%03d-%s-%s.wav' "$n" "$bg" "$way")
				case $bg in
				room) cp "$tmp/pad.wav" "$out/$f" ;;
				*)
					local bed=$tmp/pinkr.wav
					off=$(((i * 7) % 50))
					if [ "$bg" = babble10 ]; then
						bed=$tmp/babble.wav
						off=$(awk -v i="$i" -v b="$bdur" 'BEGIN { printf "%.3f", (i * 3.7) - int(i * 3.7 / (b - 17)) * (b - 17) }')
					fi
					sox -R -q "$bed" "$tmp/seg.wav" trim "$off" "$(soxi -D "$tmp/pad.wav")"
					if [ -z "$vol" ]; then # the noise's level from the comma's speech
						vol=$(awk -v s="$(rms "$tmp/s.wav")" -v b="$(rms "$tmp/seg.wav")" 'BEGIN { printf "%.6f", s / (10 ^ 0.5) / b }')
					fi
					sox -R -q -V1 -m -v 1 "$tmp/pad.wav" -v "$vol" "$tmp/seg.wav" "$out/$f"
					;;
				esac
				printf '{"file":"%s","text":"%s","wake":true,"kind":"command","noise":"%s-%s","voice":"%s","speech_from_s":%s,"speech_to_s":%s}\n' \
					"$f" "hey jibo $text" "$bg" "$way" "$v/$sp/$p" "$lead" "$(awk -v a="$lead" -v d="$dur" 'BEGIN { printf "%.3f", a + d }')" >>"$manifest"
				if [ -n "$room" ]; then printf '%s\t%s\n' "$f" "$room" >>"$out/rooms.tsv"; fi
			done
		done
	done
	echo "gen-wake-pairs: $(wc -l <"$manifest") files in $out" >&2
}

sox -R -q -n -r 16000 -c 1 -b 16 "$tmp/pink.wav" synth 20 pinknoise
rms() { sox "$1" -n stat 2>&1 | awk '/RMS[ ]+amplitude/ {print $3}'; }
manifest="$out/manifest.jsonl"
: >"$manifest"
i=0 n=0
if [ "$rooms" = 1 ]; then
	rooms_pairs
	exit
fi
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
