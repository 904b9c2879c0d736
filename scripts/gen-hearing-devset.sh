#!/usr/bin/env bash
# Generates the development set for endpointing, rejection and the
# open-vocabulary pass (docs/hearing.md): espeak-ng speech over noise that
# goes on after the speaker stops, so an utterance must end on the
# speaker, not on silence.
#
#   scripts/gen-hearing-devset.sh [--quick|--tune|--tune-rooms|--tune-music|--train] [DIR]
#
# DIR defaults to bin/hearing-devset. --tune makes its tuning twin (DIR
# defaults to bin/hearing-tuneset): the tuning set's sentences and voices
# (scripts/gen-audio-testset.sh) over babble of other espeak-ng talkers
# reading other text, and music drawn with another seed, in the same
# four backgrounds (babble2-10, babble2-5, babble4-10, music-10), so the
# listener's thresholds for a room that is not quiet are chosen on speech
# and noise the development set never uses.
# --tune-rooms makes the tuning side's rooms (DIR defaults to
# bin/hearing-tuneset-rooms): the tuning twin's sentences and voices in
# two backgrounds the development set has and the twin lacks,
#   room  a reverberant room, no noise (1 s of silence before, 1.5 s after)
#   far   far from the microphone: a larger, more reverberant room, the
#         highs lost, and pink noise at 10 dB (8 s before, 2.5 s after)
# each file in its own room, drawn with awk's generator from fixed seeds
# (rooms_seed, far_seed): sox reverb's reverberance, HF damping, room
# scale and pre-delay, and for far the low-pass corner, all odd integers,
# so never the development set's own rooms (reverb 50 50 80; far reverb
# 80 60 100, lowpass 3000, all even). The far rooms' pink noise is sox's
# fixed-seed generator past the 60 s the development set takes from it.
# Each file's room is written to DIR/rooms.tsv (file, sox effects).
# --tune-music makes the tuning side's music with a beat (DIR defaults to
# bin/hearing-tuneset-music): the tuning twin's sentences and voices over
# music with drums (a swept kick on beats one and three, a noise snare
# on two and four, a hi-hat on the off-beats) under plucked chords and a
# bass note at 150 beats a minute, its chords drawn from their own seed
# (beat_seed), so neither the wake set's music (a 60 Hz thump every half
# second) nor the twin's (no beat, a slow tremolo), in four backgrounds:
#   beat10-short, beat5-short  the music at 10 and 5 dB, starting only
#                 0.4-1 s before the speech (drawn from lead_seed per
#                 file), as when someone speaks as a song starts
#   beat10-long, beat5-long    the same with 8 s of music before
# and 8 s of the music after the speech in each.
# --train makes the acceptance model's training set for these backgrounds
# (DIR defaults to bin/hearing-trainset; scripts/train-accept.py): the
# commands and everyday sentences of gen-audio-testset.sh --train, in its
# voices, over babble and music of talkers, text and a seed of neither
# other set, in the tuning twin's four backgrounds.
# Each file is a sentence said by one espeak-ng voice with 8 s of the
# noise before it (the television was on before anyone spoke) and 2.5 s
# after it, the noise measured against the speech by RMS (noise beds carry a faint pink noise 40 dB under them, as
# a room and a microphone do, never digital silence):
#   clean      no noise (1 s of silence either side)
#   babble2-10 two other espeak-ng talkers reading everyday text, 10 dB
#   babble2-5  the same at 5 dB
#   babble4-10 four talkers at 10 dB
#   music-10   music-like noise synthesised with sox (plucked chords with
#              a bass line and tremolo) at 10 dB
#   reverb     the speech in a reverberant room (sox reverb), no noise
#   far        far from the microphone: more reverberation, the highs
#              lost, and pink noise at 10 dB
# Kinds: command (a template wording of the built-in skills), paraphrase
# (the same requests as people word them, which the grammar does not
# hold), other (everyday speech and requests no skill knows: nothing may
# be done). Half the files start with "Hey Jibo" (wake true); the others
# are heard with the command window open. The manifest says where the
# speech is in each file (speech_from_s, speech_to_s: the synthesised
# sentence's extent, its leading and trailing silence included).
#
# Only espeak-ng voices and sox noise: the voices of other synthesisers are kept
# for evaluation and never used here. Deterministic for a given
# espeak-ng and sox: every sox run has -R (its own random seed fixed) and
# the music's notes come from awk with a fixed seed.
set -euo pipefail

quick=0
tune=0
rooms=0
beat=0
train=0
case "${1:-}" in
--quick)
	quick=1
	shift
	;;
--tune)
	tune=1
	shift
	;;
--tune-rooms)
	tune=1
	rooms=1
	shift
	;;
--tune-music)
	tune=1
	beat=1
	shift
	;;
--train)
	train=1
	shift
	;;
esac
out=${1:-bin/hearing-devset}
[ "$tune" = 1 ] && out=${1:-bin/hearing-tuneset}
[ "$rooms" = 1 ] && out=${1:-bin/hearing-tuneset-rooms}
[ "$beat" = 1 ] && out=${1:-bin/hearing-tuneset-music}
[ "$train" = 1 ] && out=${1:-bin/hearing-trainset}
for p in espeak-ng sox soxi awk; do
	command -v "$p" >/dev/null 2>&1 || { echo "gen-hearing-devset: $p is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sr=16000
to16k() { sox -R -q -V1 "$1" -r $sr -c 1 -b 16 "$2" "${@:3}"; }

commands=(
	"what time is it"
	"what's the date"
	"set a timer for five minutes"
	"set a timer for twenty seconds"
	"cancel the timer"
	"how much time is left"
	"turn it down"
	"turn it up"
	"set the volume to four"
	"volume seven"
	"mute"
	"unmute"
	"how are you"
	"what's your favorite color"
	"what can you do"
	"good morning"
)
paraphrases=(
	"what's the time please"
	"could you tell me what time it is"
	"please set a timer for seven minutes"
	"can you start a timer for ten minutes"
	"get rid of the timer"
	"how many minutes are left"
	"turn it down a bit"
	"make it louder"
	"could you speak up a little"
	"make it quieter please"
	"turn your sound off"
	"what day is it"
)
other=(
	"which colour do you like best"
	"he said the meeting was moved to thursday"
	"my sister is visiting us next weekend"
	"can you order me a pizza with extra cheese"
	"what's the weather going to be like tomorrow"
	"turn on the lights in the kitchen"
	"we should paint the fence before winter"
	"call my mother and tell her I'm late"
)
# The speakers, and the talkers of the babble: all espeak-ng, none shared.
voices=(en-us en-gb en-us+m3 en-gb-x-rp en-029 en-us+f2 en-gb-scotland en-us+m1)
speeds=(150 170 185 160 195)
pitches=(45 55 35 65 50)
babble_voices=(en-gb-x-gbclan en-us+m4 en-us-nyc en-gb+f3 en-us+m6 en-gb-x-gbcwmd)
babble_text=(
	"And then she said that the whole thing had been arranged weeks ago, which nobody had told me about."
	"In the second half the visitors pressed forward, but the keeper made two remarkable saves in a row."
	"Prices in the market have risen sharply this spring, and farmers say the weather is to blame."
	"I don't know why you keep bringing that up, it was years ago and everybody has moved on."
	"The recipe calls for two cups of flour, a pinch of salt and three eggs beaten until fluffy."
	"Scientists believe the comet will return in about seventy years, brighter than it was before."
	"Well, if you ask me, the new road through the valley was a mistake from the very beginning."
	"Tonight on the programme we meet a family who built their own house from recycled bottles."
)
noises=(clean babble2-10 babble2-5 babble4-10 music-10 reverb far)
music_seed=24
if [ "$tune" = 1 ]; then
	# The tuning set's commands and voices; babble talkers, their text
	# and the music's seed of neither set.
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
	paraphrases=()
	other=(
		"The weather in Paris is lovely this time of year. We should go in May."
		"Could you pass me the salt please? Thanks."
		"What time does the bakery open on Saturdays?"
		"Set the table for dinner, the guests arrive at eight."
		"Tell me a joke about penguins."
		"Play some music in the kitchen while I cook."
		"Jimbo said the meeting was moved to Thursday afternoon."
		"The volume of the box is about ten litres."
		"Remind me to call the dentist when we get home."
		"Can you believe how expensive the tickets were?"
	)
	voices=(en-us en-us+m3 en-gb en-us+f2 en-gb-x-rp en-us+m1 en-029 en-us+f5)
	speeds=(150 175 200 165 185)
	pitches=(50 35 70 45 60 55)
	babble_voices=(en-us+m2 en-gb+m5 en-029+f1 en-gb-x-rp+m7 en-us+f4 en-gb+m1)
	babble_text=(
		"We drove up to the lake on Friday, but the cabin was colder than anyone expected."
		"The committee will publish its findings next month, after the final hearing."
		"Honestly the best part of the holiday was the little bakery around the corner."
		"He keeps losing his glasses and then finds them on top of his own head."
		"The bus was late again, so I walked the whole way in the pouring rain."
		"According to the forecast there will be strong winds along the coast tonight."
		"She practised the piano for three hours every day before the competition."
		"If we leave the paint to dry overnight we can put the second coat on tomorrow."
	)
	music_seed=71
	noises=(babble2-10 babble2-5 babble4-10 music-10)
	[ "$rooms" = 1 ] && noises=(room far)
	[ "$beat" = 1 ] && noises=(beat10-short beat5-short beat10-long beat5-long)
fi
rooms_seed=311
far_seed=733
beat_seed=457
lead_seed=829
if [ "$train" = 1 ]; then
	# Other wordings than both other sets' (in and out of the grammar),
	# voices, babble talkers, their text and the music's seed of neither.
	commands=(
		"what time is it right now" "what's the current time" "could you tell me the time"
		"which day is it today" "what day of the week is it" "set a timer for seven minutes"
		"start a timer for fifteen minutes" "give me a timer for one minute" "set a three minute timer"
		"timer for eight minutes please" "clear the timer" "remove my timer" "please get rid of the timer"
		"how long until the timer goes off" "how many minutes are left" "turn the sound up"
		"a little louder please" "bring the volume down" "a bit quieter" "volume to six"
		"set the volume to two" "max volume" "how loud are you" "be quiet" "turn the sound back on"
		"thanks a lot" "how are you today" "who are you anyway" "when is your birthday"
		"are you a machine" "do you like music" "sweet dreams" "nice to meet you" "what else can you do"
	)
	paraphrases=()
	other=(
		"The bus was late again so I walked to work."
		"Could you hand me that cup on the shelf?"
		"We are thinking of painting the kitchen yellow."
		"Let's meet at the station at a quarter past ten."
		"How much did you pay for the new sofa?"
		"Turn the oven off when the bread is golden."
		"The football match starts in twenty minutes."
		"What's the capital of Australia?"
		"Can you order a pizza for us?"
		"Who won the election last year?"
		"Play my favourite song."
		"Turn on the lights in the living room."
	)
	voices=(en-us en-us+m3 en-gb en-us+f2 en-gb-x-rp en-us+m1 en-029 en-us+f5 en-us-nyc en-gb+m5 en-us+m7 en-029+m7)
	speeds=(145 160 178 190 205 170)
	pitches=(40 55 65 30 50 45 62)
	babble_voices=(en-us+m5 en-gb+m3 en-gb-x-rp+m1 en-029+m3 en-us+f1 en-gb+m7)
	babble_text=(
		"The garage said the car would be ready by Tuesday, but they still have not called."
		"We planted tomatoes along the fence and the squirrels ate every single one of them."
		"Her grandfather worked on the railway for forty years and never missed a single day."
		"The new library has a reading room on the top floor with a view over the harbour."
		"I think we should split the bill, since everybody ordered something different anyway."
		"After the storm the whole street was covered in leaves and broken branches."
		"They are opening a swimming pool next to the school at the end of the summer."
		"My phone battery dies by lunchtime now, so I carry a charger everywhere I go."
	)
	music_seed=113
	noises=(babble2-10 babble2-5 babble4-10 music-10)
fi
if [ "$quick" = 1 ]; then
	commands=("${commands[@]:0:3}")
	paraphrases=("${paraphrases[@]:0:2}")
	other=("${other[@]:0:2}")
	noises=(clean babble2-10)
fi

# A babble bed of N talkers: each reads the texts from its own starting
# point, one after the other, at its own speed and pitch, then the
# talkers are mixed at equal RMS.
babble() { # babble N OUT
	local n=$1 dst=$2 parts=()
	for ((k = 0; k < n; k++)); do
		local files=()
		for ((j = 0; j < ${#babble_text[@]}; j++)); do
			local t=${babble_text[$(((j + 3 * k) % ${#babble_text[@]}))]}
			espeak-ng -v "${babble_voices[$k]}" -s $((150 + 12 * k)) -p $((40 + 9 * k)) -w "$tmp/b.wav" "$t"
			to16k "$tmp/b.wav" "$tmp/b$k-$j.wav" pad 0 0.$((2 + k))
			files+=("$tmp/b$k-$j.wav")
		done
		sox -R -q "${files[@]}" "$tmp/talker$k.wav" norm -20
		parts+=(-v 1 "$tmp/talker$k.wav")
	done
	sox -R -q -m "${parts[@]}" "$tmp/mixed.wav" norm -20
	hiss "$tmp/mixed.wav" "$dst"
}

# hiss IN OUT: IN with pink noise 40 dB under its level.
hiss() {
	local d
	d=$(soxi -D "$1")
	sox -R -q -n -r $sr -c 1 -b 16 "$tmp/hiss.wav" synth "$d" pinknoise vol 0.0015
	sox -R -q -m "$1" "$tmp/hiss.wav" "$2"
}

# Music-like noise: plucked triads changing every half second over a bass
# line, with a slow tremolo; notes drawn with a fixed seed.
music() { # music OUT
	local args=() notes
	notes=$(awk -v seed="$music_seed" 'BEGIN { srand(seed); split("0 3 5 7 8 10 12", s, " ");
		for (i = 0; i < 80; i++) { r = s[int(rand() * 7) + 1]; printf "%d %d %d %d\n", r, r + 4, r + 7, r - 12 } }')
	local i=0
	while read -r a b c d; do
		sox -R -q -n -r $sr -c 1 -b 16 "$tmp/m$i.wav" synth 0.5 pluck "%$a" pluck "%$b" pluck "%$c" sine "%$d" remix - fade 0 0.5 0.05
		args+=("$tmp/m$i.wav")
		i=$((i + 1))
	done <<<"$notes"
	sox -R -q "${args[@]}" "$tmp/notes.wav" tremolo 3 40 norm -20
	hiss "$tmp/notes.wav" "$1"
}

# Music with a beat: one bar of drums (kick, snare, hi-hat) a bar, under
# a plucked chord on every beat and a bass note, the chord changing every
# two bars; 150 beats a minute (0.4 s a beat). Roots drawn from beat_seed.
beat_music() { # beat_music OUT
	local b=0.4
	sox -R -q -n -r $sr -c 1 -b 16 "$tmp/kick.wav" synth 0.16 sine 130:45 fade 0 0.16 0.12 pad 0 0.24
	sox -R -q -n -r $sr -c 1 -b 16 "$tmp/snare.wav" synth 0.14 pinknoise fade 0 0.14 0.12 highpass 500 pad 0 0.26
	sox -R -q -n -r $sr -c 1 -b 16 "$tmp/hat.wav" synth 0.04 whitenoise fade 0 0.04 0.035 highpass 5000 vol 0.4 pad 0.2 0.16
	sox -R -q -m "$tmp/kick.wav" "$tmp/hat.wav" "$tmp/beat1.wav"
	sox -R -q -m "$tmp/snare.wav" -v 0.6 "$tmp/kick.wav" -v 1 "$tmp/hat.wav" "$tmp/beat2.wav"
	sox -R -q "$tmp/beat1.wav" "$tmp/beat2.wav" "$tmp/beat1.wav" "$tmp/beat2.wav" "$tmp/drums.wav"
	local scale=(0 2 3 5 7 8 10) bars=() i r
	for ((i = 1; i <= 40; i++)); do
		r=${scale[$((($(draw $beat_seed $i 1 13) - 1) / 2))]}
		sox -R -q -n -r $sr -c 1 -b 16 "$tmp/chord.wav" synth $b pluck "%$((r - 3))" pluck "%$((r + 1))" pluck "%$((r + 4))" sine "%$((r - 15))" remix - fade 0 $b 0.15
		sox -R -q "$tmp/chord.wav" "$tmp/chord.wav" "$tmp/chord.wav" "$tmp/chord.wav" "$tmp/chords.wav" norm -20
		sox -R -q -m -v 1 "$tmp/chords.wav" -v 1.2 "$tmp/drums.wav" "$tmp/bar$i.wav"
		bars+=("$tmp/bar$i.wav" "$tmp/bar$i.wav")
	done
	sox -R -q "${bars[@]}" "$tmp/notes.wav" norm -20
	hiss "$tmp/notes.wav" "$1"
}

# draw SEED N LO HI [LO HI]...: odd integers, one in each [LO, HI], the
# Nth file's draws (N from 1) from one fixed-seed stream (scripts/draw.awk).
draw() {
	local seed=$1 n=$2
	shift 2
	awk -v seed="$seed" -v n="$n" -v ranges="$*" -f "$here/draw.awk"
}

echo "gen-hearing-devset: noise beds" >&2
if [ "$rooms" = 1 ]; then
	sox -R -q -n -r $sr -c 1 -b 16 "$tmp/pink-all.wav" synth 180 pinknoise
	sox -R -q "$tmp/pink-all.wav" "$tmp/pink-rooms.wav" trim 60
elif [ "$beat" = 1 ]; then
	beat_music "$tmp/beat.wav"
else
	babble 2 "$tmp/babble2.wav"
	babble 4 "$tmp/babble4.wav"
	music "$tmp/music.wav"
fi

rms() { sox "$1" -n stat 2>&1 | awk '/RMS[ ]+amplitude/ {print $3}'; }

# place SPEECH BED SNR OUT OFFSET [LEAD TAIL]: the speech LEAD seconds
# (8) into a stretch of the bed (from OFFSET seconds, wrapping) that goes
# on TAIL seconds (2.5) after it, the bed scaled to SNR dB under the
# speech's RMS.
place() {
	local speech=$1 bed=$2 snr=$3 dst=$4 off=$5 lead=${6:-8} tail=${7:-2.5}
	local dur beddur total
	dur=$(soxi -D "$speech")
	beddur=$(soxi -D "$bed")
	total=$(awk -v d="$dur" -v l="$lead" -v t="$tail" 'BEGIN { printf "%.3f", d + l + t }')
	off=$(awk -v o="$off" -v b="$beddur" -v t="$total" 'BEGIN { x = o - int(o / (b - t)) * (b - t); printf "%.3f", x }')
	sox -R -q "$speech" "$tmp/pad.wav" pad "$lead" "$tail"
	local vs vb vol
	vs=$(rms "$speech")
	sox -R -q "$bed" "$tmp/seg.wav" trim "$off" "$total"
	vb=$(rms "$tmp/seg.wav")
	vol=$(awk -v s="$vs" -v b="$vb" -v snr="$snr" 'BEGIN { printf "%.6f", s / (10 ^ (snr / 20)) / b }')
	sox -R -q -V1 -m -v 1 "$tmp/pad.wav" -v "$vol" "$tmp/seg.wav" "$dst"
}

manifest="$out/manifest.jsonl"
: >"$manifest"
if [ "$rooms" = 1 ]; then : >"$out/rooms.tsv"; fi
n=0
s=0
add() { # add KIND TEXT
	local kind=$1 text=$2
	s=$((s + 1))
	local li=0
	for level in "${noises[@]}"; do
		n=$((n + 1))
		li=$((li + 1))
		local v=${voices[$(((s + 3 * li) % ${#voices[@]}))]}
		local sp=${speeds[$(((s + li) % ${#speeds[@]}))]}
		local p=${pitches[$(((s + 2 * li) % ${#pitches[@]}))]}
		local wake=false spoken=$text said=$text
		if [ $(((s + li) % 2)) = 0 ]; then
			wake=true spoken="Hey Jibo, $text" said="hey jibo $text"
		fi
		espeak-ng -v "$v" -s "$sp" -p "$p" -w "$tmp/raw.wav" "$spoken"
		to16k "$tmp/raw.wav" "$tmp/speech.wav" gain -6
		local f at=8 sd room=
		sd=$(soxi -D "$tmp/speech.wav")
		f=$(printf '%s-%03d-%s.wav' "$kind" "$n" "$level")
		case "$level" in
		clean)
			sox -R -q "$tmp/speech.wav" "$out/$f" pad 1 1
			at=1
			;;
		babble2-*) place "$tmp/speech.wav" "$tmp/babble2.wav" "${level#babble2-}" "$out/$f" $((n * 7)) ;;
		babble4-*) place "$tmp/speech.wav" "$tmp/babble4.wav" "${level#babble4-}" "$out/$f" $((n * 7)) ;;
		music-*) place "$tmp/speech.wav" "$tmp/music.wav" "${level#music-}" "$out/$f" $((n * 3)) ;;
		beat*-short)
			at=$(draw $lead_seed $n 401 999 | awk '{ printf "%.3f", $1 / 1000 }')
			place "$tmp/speech.wav" "$tmp/beat.wav" "${level//[a-z-]/}" "$out/$f" $((n * 3)) "$at" 8
			;;
		beat*-long) place "$tmp/speech.wav" "$tmp/beat.wav" "${level//[a-z-]/}" "$out/$f" $((n * 3)) 8 8 ;;
		reverb)
			sox -R -q "$tmp/speech.wav" "$out/$f" pad 1 1 reverb 50 50 80
			at=1
			;;
		room)
			room=$(draw $rooms_seed $n 31 79 21 79 41 99 1 19 | awk '{ print $1, $2, $3, 100, $4 }')
			# shellcheck disable=SC2086 # room holds reverb's arguments
			sox -R -q "$tmp/speech.wav" "$out/$f" pad 1 1.5 reverb $room
			room="reverb $room"
			at=1
			;;
		far)
			if [ "$rooms" = 1 ]; then
				room=$(draw $far_seed $n 61 95 41 79 71 99 5 25 2501 3499 | awk '{ print $1, $2, $3, 100, $4, "lowpass", $5 }')
				# shellcheck disable=SC2086 # room holds the effects' arguments
				sox -R -q "$tmp/speech.wav" "$tmp/far.wav" pad 0 1.5 reverb $room gain -6
				place "$tmp/far.wav" "$tmp/pink-rooms.wav" 10 "$out/$f" $((n * 11))
				room="reverb $room"
			else
				sox -R -q "$tmp/speech.wav" "$tmp/far.wav" pad 0 1 reverb 80 60 100 lowpass 3000 gain -6
				sox -R -q -n -r $sr -c 1 -b 16 "$tmp/pink.wav" synth 60 pinknoise
				place "$tmp/far.wav" "$tmp/pink.wav" 10 "$out/$f" $((n % 50))
			fi
			;;
		esac
		printf '{"file":"%s","text":"%s","wake":%s,"kind":"%s","noise":"%s","voice":"%s","speech_from_s":%s,"speech_to_s":%s}\n' \
			"$f" "$said" "$wake" "$kind" "$level" "$v/$sp/$p" "$at" "$(awk -v a="$at" -v d="$sd" 'BEGIN { printf "%.3f", a + d }')" >>"$manifest"
		if [ -n "$room" ]; then printf '%s\t%s\n' "$f" "$room" >>"$out/rooms.tsv"; fi
	done
}

for c in "${commands[@]}"; do add command "$c"; done
for c in "${paraphrases[@]+"${paraphrases[@]}"}"; do add paraphrase "$c"; done
for c in "${other[@]}"; do add other "$c"; done
echo "gen-hearing-devset: $(wc -l <"$manifest") files in $out" >&2
