#!/usr/bin/env bash
# Generates the speech test set `jibod audio eval` measures: espeak-ng
# speech in several voices, speeds and pitches, mixed with sox pink noise
# at several signal-to-noise ratios, plus manifest.jsonl, one line a file:
#   {"file":"…","text":"…","wake":true|false,"kind":"…","noise":"…","voice":"…"}
# kind: command (with the wake phrase when wake is true), wake (the phrase
# alone), other (everyday speech the robot must not act on).
#
#   scripts/gen-audio-testset.sh [--quick|--heldout|--hard] [DIR]
#   scripts/gen-audio-testset.sh --enroll PROMPTS [DIR]
#   scripts/gen-audio-testset.sh --enroll-heldout PROMPTS [DIR]
#   scripts/gen-audio-testset.sh --enroll-hard PROMPTS [DIR]
#
# Without options it makes the tuning set (DIR defaults to
# bin/audio-testset): thresholds and decoder settings are chosen on it.
# --heldout makes the held-out set (DIR defaults to
# bin/audio-testset-heldout): other sentences (other wordings of the same
# commands, other everyday speech), other voices, speeds and pitches,
# nothing shared with the tuning set, so its figures are the honest ones.
# --enroll makes an adaptation set (DIR defaults to bin/audio-testset-enroll):
# the sentences of the file PROMPTS, one a line (`jibod audio prompts`
# prints them), read by each of the tuning set's voices, going through its
# speeds, pitches and noise levels, one file per voice and sentence, as
# `jibod audio enroll` would record people reading them (everyone enrolling
# reads the same list); `jibod audio adapt` adapts to it. Prompts the
# tuning set says (with or without the wake phrase) are left out.
# --enroll-heldout does the same with the held-out set's voices (DIR
# defaults to bin/audio-testset-enroll-heldout): the robot's own people
# enrolled, as the held-out set's speakers would be on a robot of theirs.
# They read at the tuning set's speeds and pitches, and the held-out
# set's sentences are left out, so its sentences, speeds, pitches and
# recordings stay unheard.
# --hard makes the hard tuning set (DIR defaults to
# bin/audio-testset-hard): the tuning set's sentences in eight voices of
# neither other set (New York, Caribbean, RP and British variants the
# others do not use), at other speeds and pitches, clean and in 10, 5 and
# 3 dB of noise. The tuning set with its people enrolled stands near the
# goals, where a draw of enrollment sentences moves it as much as a
# change does; this one has room left to show which changes help.
# --enroll-hard makes its voices' enrollment (DIR defaults to
# bin/audio-testset-enroll-hard), read at the tuning set's speeds and
# pitches like the held-out one.
# --quick makes a small set (clean audio only, a few files of each kind):
# the sphinx build's tests run the eval on it. Needs espeak-ng and sox (scripts/deps.sh installs them). The
# output is deterministic for a given espeak-ng and sox: every sox run has
# -R, without which its noise and dither are drawn afresh each time (so
# every noisy file has the same pink noise, scaled to its level).
set -euo pipefail

quick=0
heldout=0
hard=0
prompts=
enroll_heldout=0
enroll_hard=0
case "${1:-}" in
--enroll | --enroll-heldout | --enroll-hard)
	[ "$1" = --enroll-heldout ] && enroll_heldout=1
	[ "$1" = --enroll-hard ] && enroll_hard=1
	prompts=${2:?$1 needs a file of sentences}
	[ -f "$prompts" ] || { echo "gen-audio-testset: $prompts: no such file" >&2; exit 1; }
	shift 2
	;;
--quick)
	quick=1
	shift
	;;
--heldout)
	heldout=1
	shift
	;;
--hard)
	hard=1
	shift
	;;
esac
if [ "$enroll_heldout" = 1 ]; then
	out=${1:-bin/audio-testset-enroll-heldout}
	heldout=1
elif [ "$enroll_hard" = 1 ]; then
	out=${1:-bin/audio-testset-enroll-hard}
	hard=1
elif [ -n "$prompts" ]; then
	out=${1:-bin/audio-testset-enroll}
elif [ "$heldout" = 1 ]; then
	out=${1:-bin/audio-testset-heldout}
elif [ "$hard" = 1 ]; then
	out=${1:-bin/audio-testset-hard}
else
	out=${1:-bin/audio-testset}
fi
for p in espeak-ng sox; do
	command -v "$p" >/dev/null 2>&1 || { echo "gen-audio-testset: $p is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Commands the built-in skills understand, as people say them.
commands=(
	"what time is it"
	"what's the time"
	"tell me the time"
	"do you know what time it is"
	"what's the date"
	"what day is it today"
	"set a timer for five minutes"
	"set a timer for thirty seconds"
	"start a ten minute timer"
	"set a timer for an hour and a half"
	"set a timer"
	"cancel the timer"
	"how much time is left"
	"louder"
	"turn it down"
	"set the volume to seven"
	"what's the volume"
	"mute"
	"unmute"
	"how are you"
	"who are you"
	"how old are you"
	"what's your favorite color"
	"thank you"
	"good night"
	"are you a robot"
	"do you like pizza"
	"what can you do"
	"help"
	"hello"
	"good morning"
	"turn up the volume"
	"what do you like to do"
	"count down from two minutes"
	"timer for twenty seconds"
	"how long is left on my timer"
)

# Everyday speech: some of it close to a command or to the wake phrase.
other=(
	"The weather in Paris is lovely this time of year. We should go in May."
	"Could you pass me the salt please? Thanks."
	"I went to the store yesterday and bought some apples and a loaf of bread."
	"My brother plays football on Sundays with his friends from work."
	"What a beautiful day it is outside. Let's have lunch in the garden."
	"The train leaves at half past nine, so we need to get up early."
	"She told me a story about her grandmother who lived on a farm."
	"How many people live in this city? I think about two million."
	"Time flies when you are having fun. It's already December."
	"Hello there, how have you been? It's been ages."
	"What time does the bakery open on Saturdays?"
	"Set the table for dinner, the guests arrive at eight."
	"Turn left at the second corner and then keep going straight."
	"I really like pizza, especially with mushrooms."
	"Tell me a joke about penguins."
	"Play some music in the kitchen while I cook."
	"Hey Joe, are you coming to the party tonight?"
	"Hey Jim, can you give me a hand with these boxes?"
	"Jimbo said the meeting was moved to Thursday afternoon."
	"Gibbons are small apes that live in the forests of Asia."
	"The volume of the box is about ten litres."
	"Don't forget to water the plants before you leave for the weekend."
	"We watched a documentary about volcanoes last night, it was amazing."
	"Can you believe how expensive the tickets were?"
	"The children are building a sandcastle on the beach."
	"Remind me to call the dentist when we get home."
	"Our neighbours have a new puppy, it's very cute."
	"I'm not sure whether the shop is open on public holidays."
)

# espeak-ng voices, speeds (words per minute) and pitches, taken in turn
# so that every voice meets every noise level. Six male-sounding voices
# and two female variants (pocketsphinx's model fits espeak's female
# variants badly: see docs/hearing.md).
voices=(en-us en-us+m3 en-gb en-us+f2 en-gb-x-rp en-us+m1 en-029 en-us+f5)
speeds=(150 175 200 165 185)
pitches=(50 35 70 45 60 55)
noises=(clean snr20 snr10 snr5)
tuning_noises=("${noises[@]}")
tuning_speeds=("${speeds[@]}")
tuning_pitches=("${pitches[@]}")

if [ "$heldout" = 1 ]; then
	# Held out: the same skills asked in other words, and other speech.
	commands=(
		"what is the time"
		"what's the date today"
		"what is today's date"
		"what day is it"
		"set a timer for ten minutes"
		"set a timer for two minutes"
		"set a timer for forty five seconds"
		"start a timer for three minutes"
		"set a five minute timer"
		"cancel my timer"
		"stop the timer"
		"how much time is left on my timer"
		"volume up"
		"turn the volume up"
		"turn the volume down"
		"turn it up"
		"set volume to five"
		"set the volume to three"
		"quieter"
		"what is the volume"
		"what is your name"
		"good evening"
		"hi"
		"hi there"
		"thanks"
		"what can i say"
		"what is your favourite colour"
		"what do you like"
		"how are you doing"
		"hey there"
		"good afternoon"
		"what can you do for me"
		"help me"
	)
	other=(
		"Hey Jack, did you see the game last night?"
		"Jim bought a new bicycle for his daughter."
		"The timer on the oven is broken again."
		"What time is the concert tomorrow?"
		"Turn the music down a little, the baby is sleeping."
		"I set an alarm but I slept through it anyway."
		"Tell me about your holiday in Spain."
		"The library closes at six on weekdays."
		"He asked how long the journey would take."
		"Good morning everyone, let's start the meeting."
		"My favourite colour used to be green."
		"Can you help me carry the shopping inside?"
		"There is a robot vacuum cleaner in the living room."
		"We need five more minutes to finish the cake."
		"It is raining again, so bring an umbrella."
		"Hey, Jay, bring me that book please."
		"The volume knob on this radio is stuck."
		"Thanks for dinner, it was delicious."
		"Do you know where I left my keys?"
		"The cat sleeps on the windowsill all afternoon."
	)
	voices=(en-gb-scotland en-us+m2 en-gb-x-gbclan en-us+f3 en-gb-x-gbcwmd en-us+m4 en-us+m6 en-gb+f4)
	speeds=(140 160 180 195 170)
	pitches=(40 52 65 48 58 38)
fi
if [ "$hard" = 1 ]; then
	# The tuning set's sentences; voices, speeds, pitches and noise of
	# neither set, with more of the noise the other sets lose most in.
	voices=(en-us-nyc en-029+m7 en-gb-x-rp+m7 en-us+f1 en-gb+m5 en-us-nyc+m5 en-us+m7 en-gb-x-rp+f1)
	speeds=(145 168 190 210 158)
	pitches=(44 62 30 56 68 36)
	noises=(clean snr10 snr5 snr3)
fi
if [ "$enroll_heldout" = 1 ] || [ "$enroll_hard" = 1 ]; then
	noises=("${tuning_noises[@]}")
	speeds=("${tuning_speeds[@]}")
	pitches=("${tuning_pitches[@]}")
fi
if [ "$quick" = 1 ]; then
	commands=("${commands[@]:0:4}")
	other=("${other[@]:0:2}")
	noises=(clean)
fi

manifest="$out/manifest.jsonl"
: >"$manifest"
n=0 # files
s=0 # sentences

# synth TEXT OUT: speech at 16 kHz mono 16-bit; the voice, speed and pitch
# follow the sentence count s and the noise level li.
# An enrollment sets vi, the voice's index, itself.
vi=
synth() {
	local v=${voices[${vi:-$(((s + 3 * li) % ${#voices[@]}))}]}
	local sp=${speeds[$(((s + li) % ${#speeds[@]}))]}
	local p=${pitches[$(((s + 5 * li) % ${#pitches[@]}))]}
	espeak-ng -v "$v" -s "$sp" -p "$p" -w "$tmp/raw.wav" "$1"
	sox -R -q -V1 "$tmp/raw.wav" -r 16000 -c 1 -b 16 "$2" gain -6
	voice="$v/$sp/$p"
}

# mix IN NOISE OUT: 0.4 s of lead-in and 0.6 s of tail, pink noise at the
# signal-to-noise ratio the level names (by RMS over the speech).
mix() {
	local level=$1 in=$2 dst=$3
	sox -R -q "$in" "$tmp/pad.wav" pad 0.4 0.6
	if [ "$level" = clean ]; then
		mv "$tmp/pad.wav" "$dst"
		return
	fi
	local snr=${level#snr}
	local rms dur
	rms=$(sox "$in" -n stat 2>&1 | awk '/RMS[ ]+amplitude/ {print $3}')
	dur=$(soxi -D "$tmp/pad.wav")
	# Full-scale pink noise has an RMS of about 0.149.
	local vol
	vol=$(awk -v r="$rms" -v s="$snr" 'BEGIN { printf "%.6f", r / (10 ^ (s / 20)) / 0.149 }')
	sox -R -q -n -r 16000 -c 1 -b 16 "$tmp/noise.wav" synth "$dur" pinknoise vol "$vol"
	sox -R -q -V1 -m -v 1 "$tmp/pad.wav" -v 1 "$tmp/noise.wav" "$dst"
}

# add KIND WAKE TEXT SPOKEN: one file per noise level.
add() {
	local kind=$1 wake=$2 text=$3 spoken=$4
	s=$((s + 1))
	li=0
	for level in "${noises[@]}"; do
		n=$((n + 1))
		li=$((li + 1))
		local f
		f=$(printf '%s-%03d-%s.wav' "$kind" "$n" "$level")
		synth "$spoken" "$tmp/speech.wav"
		mix "$level" "$tmp/speech.wav" "$out/$f"
		printf '{"file":"%s","text":"%s","wake":%s,"kind":"%s","noise":"%s","voice":"%s"}\n' \
			"$f" "$text" "$wake" "$kind" "$level" "$voice" >>"$manifest"
	done
}

if [ -n "$prompts" ]; then
	# The sentences of the set these voices belong to, as the prompts
	# spell them: left out, so an enrollment never records what its set
	# measures.
	declare -A said=(["hey jibo"]=1)
	for c in "${commands[@]}"; do
		c=$(printf '%s' "$c" | tr -cd "a-z ")
		said["$c"]=1
		said["hey jibo $c"]=1
	done
	lines=()
	while IFS= read -r line || [ -n "$line" ]; do
		line=$(printf '%s' "$line" | tr -cd 'a-z \n')
		[ -n "${line// /}" ] || continue
		[ -z "${said[$line]:-}" ] || continue
		lines+=("$line")
	done <"$prompts"
	# Every voice reads every sentence, as everyone enrolling on a robot
	# reads the same list; one file per voice and sentence, going through
	# the noise levels, speeds and pitches in turn.
	k=0
	for ((vi = 0; vi < ${#voices[@]}; vi++)); do
		for ((j = 0; j < ${#lines[@]}; j++)); do
			line=${lines[$j]}
			s=$((j + vi))
			li=$((s % ${#noises[@]}))
			level=${noises[$li]}
			k=$((k + 1))
			wake=false
			case "$line" in "hey jibo"*) wake=true ;; esac
			f=$(printf 'enroll-%04d-%s.wav' "$k" "$level")
			synth "$line" "$tmp/speech.wav"
			mix "$level" "$tmp/speech.wav" "$out/$f"
			printf '{"file":"%s","text":"%s","wake":%s,"kind":"enroll","noise":"%s","voice":"%s"}\n' \
				"$f" "$line" "$wake" "$level" "$voice" >>"$manifest"
		done
	done
	echo "gen-audio-testset: $(wc -l <"$manifest") files in $out" >&2
	exit 0
fi

for c in "${commands[@]}"; do
	add command true "hey jibo $c" "Hey Jibo, $c"
	add command false "$c" "$c"
done
for i in 1 2 3 4 5 6; do
	[ "$quick" = 1 ] && [ "$i" -gt 2 ] && break
	add wake true "hey jibo" "Hey Jibo"
done
for o in "${other[@]}"; do
	add other false "$o" "$o"
done
echo "gen-audio-testset: $(wc -l <"$manifest") files in $out" >&2
