#!/usr/bin/env bash
# Generates the speech test set `jibod audio eval` measures: espeak-ng
# speech in several voices, speeds and pitches, mixed with sox pink noise
# at several signal-to-noise ratios, plus manifest.jsonl, one line a file:
#   {"file":"…","text":"…","wake":true|false,"kind":"…","noise":"…","voice":"…"}
# kind: command (with the wake phrase when wake is true), wake (the phrase
# alone), other (everyday speech the robot must not act on).
#
#   scripts/gen-audio-testset.sh [--quick|--heldout|--hard|--wake|--paraphrase|--train] [DIR]
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
# --wake makes the wake word set (DIR defaults to bin/audio-testset-wake):
# the wake phrase alone, before commands and before requests no skill
# knows; the wake decoys ("hey jimbo", "hey joe", "gee bo", "hey jay",
# "jumbo") alone and in sentences; everyday sentences; and an hour of
# conversation without the phrase (kind talk, 60 s files, two talkers
# taking turns), for false wakes per hour. Voices are espeak-ng base voices
# with the variants the wake word network was not trained on
# (scripts/wake/data.py holds every seventh out), sentences none of its
# training had. Every file in seven conditions: clean, pink noise at 10 dB
# (snr10), babble of four other espeak-ng talkers at 10 and 5 dB
# (babble10, babble5), music-like chords at 10 dB (music10), a reverberant
# room (reverb), and far from the microphone (far: more room than voice,
# dull, 20 dB quieter, over a faint room noise).
# --paraphrase makes the paraphrase tuning set (DIR defaults to
# bin/audio-testset-paraphrase): requests to the built-in skills in
# other words than the tuning set's, as people put them (wordings the
# bounded command grammar mostly does not hold, written for this set, none
# of the held-out or development sets'), with and without the wake
# phrase, and other everyday sentences, in the tuning set's voices,
# speeds, pitches and noise: what happens where the grammar refuses a
# sentence is tuned on it (docs/hearing.md).
# --train makes the recogniser's training set (DIR defaults to
# bin/audio-testset-train), which the acceptance model
# (scripts/train-accept.py) is trained on: other wordings of the skills'
# commands than the tuning and held-out sets' (grammar sentences and
# wordings the grammar does not hold), requests no skill knows and other
# everyday speech, in the tuning set's voices and other espeak-ng
# variants of neither other set, at other speeds and pitches, clean and
# in pink noise. Nothing of the held-out set is in it.
# --quick makes a small set (clean audio only, a few files of each kind):
# the sphinx build's tests run the eval on it. Needs espeak-ng and sox (scripts/deps.sh installs them). The
# output is deterministic for a given espeak-ng and sox: every sox run has
# -R, without which its noise and dither are drawn afresh each time (so
# every noisy file has the same pink noise, scaled to its level).
set -euo pipefail

quick=0
heldout=0
hard=0
wakeset=0
paraphrase=0
trainset=0
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
--wake)
	wakeset=1
	shift
	;;
--paraphrase)
	paraphrase=1
	shift
	;;
--train)
	trainset=1
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
elif [ "$wakeset" = 1 ]; then
	out=${1:-bin/audio-testset-wake}
elif [ "$paraphrase" = 1 ]; then
	out=${1:-bin/audio-testset-paraphrase}
elif [ "$trainset" = 1 ]; then
	out=${1:-bin/audio-testset-train}
else
	out=${1:-bin/audio-testset}
fi
for p in espeak-ng sox; do
	command -v "$p" >/dev/null 2>&1 || { echo "gen-audio-testset: $p is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# room_tail: how long babble and music go on after the speech's 0.6 s of
# tail (mix): long enough for the voice activity detector's 6 s window
# of the background to hold the room alone, so an utterance that began
# with the room ends on the room, as it would live.
room_tail=8

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
if [ "$paraphrase" = 1 ]; then
	# The built-in skills asked as people put it, in the tuning set's
	# voices, speeds, pitches and noise.
	commands=(
		"what's the time right now"
		"have you got the time"
		"could you check the time for me"
		"what's today's date"
		"which day of the week is it"
		"what date is it today"
		"put a timer on for eight minutes"
		"i'd like a timer for twelve minutes"
		"i need a timer for twenty minutes"
		"give me a three minute timer"
		"set me a timer for one hour"
		"make a timer for ninety seconds"
		"stop my timer please"
		"turn off the timer"
		"never mind the timer"
		"how long does my timer have left"
		"how much longer on the timer"
		"when does my timer go off"
		"make it a bit quieter"
		"could you turn it down please"
		"turn the sound up a little"
		"you're too quiet"
		"can you speak louder"
		"put the volume on six"
		"change the volume to two"
		"how loud are you right now"
		"be quiet for a bit"
		"switch the sound back on"
		"what are you called"
		"tell me who you are"
		"how's it going"
		"what colour do you like most"
		"what sort of things can you do"
		"thanks a lot"
		"good night jibo"
		"morning jibo"
	)
	other=(
		"I left my umbrella on the bus this morning."
		"The soup needs a little more salt and pepper."
		"Could you hand me the remote control?"
		"We should paint the kitchen a lighter colour."
		"My phone battery is almost empty again."
		"The dog barked at the postman for ten minutes."
		"Is it going to snow over the weekend?"
		"I can't find the charger for my laptop."
		"Let's watch a film after dinner tonight."
		"The bus was late, so I walked to work."
		"Turn the oven off when the bread is golden."
		"How long does it take to drive to the coast?"
		"He always sings in the shower, it's so loud."
		"The meeting starts in five minutes, hurry up."
		"Who left the lights on in the garage?"
		"Grandma is coming to stay with us for a week."
	)
fi
if [ "$hard" = 1 ]; then
	# The tuning set's sentences; voices, speeds, pitches and noise of
	# neither set, with more of the noise the other sets lose most in.
	voices=(en-us-nyc en-029+m7 en-gb-x-rp+m7 en-us+f1 en-gb+m5 en-us-nyc+m5 en-us+m7 en-gb-x-rp+f1)
	speeds=(145 168 190 210 158)
	pitches=(44 62 30 56 68 36)
	noises=(clean snr10 snr5 snr3)
fi
if [ "$wakeset" = 1 ]; then
	# Everyday speech of both other sets, for the long conversations.
	talk=("${other[@]}"
		"The bridge was closed for repairs all week."
		"Could you bring the laundry in before it rains?"
		"My cousin is getting married in June."
		"I burnt the toast again this morning."
		"The museum is free on the first Sunday of the month."
		"Somebody parked in front of our garage."
		"We ran out of coffee filters."
		"The concert tickets sold out in ten minutes."
		"Let's ask the neighbours if they want to come for a barbecue."
		"I think the heating is broken, it's freezing in here."
		"Have you finished reading that book I lent you?"
		"The garden centre has a sale on this weekend."
		"Why is there sand all over the carpet?"
		"I'll pick the kids up from school today."
	)
	commands=("${commands[@]:0:12}")
	# The phrase before requests no skill knows.
	unknown=(
		"what's the capital of peru"
		"do you ever dream at night"
		"can you order me a taxi"
		"how far away is the moon"
		"read me the news"
		"who won the match yesterday"
	)
	# The decoys, alone and as people say them to someone else.
	decoys=(
		"Hey Jimbo" "Hey Jimbo, where did you put my shoes?"
		"Hey Joe" "Hey Joe, the bus is here."
		"Gee bo" "Gee, Bo, that was quick."
		"Hey Jay" "Hey Jay, pass me the ball."
		"Jumbo" "That jumbo jet is huge."
	)
	other=(
		"The bridge was closed for repairs all week."
		"Could you bring the laundry in before it rains?"
		"My cousin is getting married in June."
		"I burnt the toast again this morning."
		"The museum is free on the first Sunday of the month."
		"Somebody parked in front of our garage."
	)
	# Babble: other talkers saying other things.
	babble_lines=(
		"And then she said she would never go back there again."
		"The prices at that supermarket have gone up so much."
		"I told him to call the landlord about the leak."
		"We should have taken the earlier train, honestly."
		"Did you see the documentary about the deep sea last night?"
		"My knee has been hurting since the football match."
		"They are building a new roundabout near the school."
		"Honestly I think the second film was better than the first."
	)
	babble_voices=(en-gb+Gene2 en-us+antonio en-029+f4 en-gb-x-rp+iven2 en-us-nyc+klatt3 en-gb-scotland+m3 en-us+quincy en-gb+max)
	voices=(en-us+m3 en-gb+klatt3 en-gb-x-rp+Andy en-us-nyc+david en-029+max en-gb-scotland+quincy en-us+f4
		en-gb-x-gbclan+steph2 en-gb-x-gbcwmd+Michael en-us+iven2 en-gb+antonio en-us+Gene2 en-gb-x-rp+robosoft5 en-us+Storm)
	speeds=(135 150 165 180 195 210 175)
	pitches=(30 42 50 58 66 74)
	noises=(clean snr10 babble10 babble5 music10 reverb far)
fi
if [ "$trainset" = 1 ]; then
	# Commands in other words than both other sets', in and out of the
	# grammar, and speech the robot must not act on.
	commands=(
		"what time is it right now"
		"what's the current time"
		"what hour is it"
		"could you tell me the time"
		"i wonder what time it is"
		"which day is it today"
		"what month is it"
		"what day of the week is it"
		"what year is it"
		"set a timer for seven minutes"
		"start a timer for fifteen minutes"
		"give me a timer for one minute"
		"i need a timer for twenty minutes"
		"set a three minute timer"
		"make a countdown for four minutes"
		"timer for eight minutes please"
		"set a timer for ninety seconds"
		"put on a timer for six minutes"
		"clear the timer"
		"remove my timer"
		"forget the timer"
		"turn the timer off"
		"please get rid of the timer"
		"how long until the timer goes off"
		"how much time do i have left"
		"how many minutes are left"
		"turn the sound up"
		"a little louder please"
		"make it louder"
		"bring the volume down"
		"a bit quieter"
		"softer please"
		"could you be a little quieter"
		"volume to six"
		"set the volume to two"
		"max volume"
		"what volume are you at"
		"how loud are you"
		"be quiet"
		"turn the sound off"
		"turn the sound back on"
		"sound on"
		"thanks a lot"
		"thank you so much"
		"how are you today"
		"how's it going"
		"who are you anyway"
		"what should i call you"
		"when is your birthday"
		"how many years old are you"
		"are you a machine"
		"are you human"
		"do you like music"
		"do you love dogs"
		"which colour do you like best"
		"what do you do for fun"
		"sweet dreams"
		"nighty night"
		"i'm going to bed"
		"hiya"
		"good day"
		"nice to meet you"
		"what else can you do"
		"what are your skills"
		"what are you good at"
	)
	other=(
		"The bus was late again so I walked to work."
		"Could you hand me that cup on the shelf?"
		"We are thinking of painting the kitchen yellow."
		"My sister is learning to play the violin."
		"The printer in the office has run out of paper."
		"I left my umbrella at the restaurant last night."
		"Let's meet at the station at a quarter past ten."
		"The river froze over during the cold winter."
		"He forgot his password and had to reset it."
		"Which way is the nearest post office?"
		"Set aside some time for the garden this weekend."
		"How much did you pay for the new sofa?"
		"The baby finally fell asleep after lunch."
		"I would love a cup of tea right now."
		"Turn the oven off when the bread is golden."
		"Are you going to the market tomorrow morning?"
		"The kids want pancakes for breakfast again."
		"Did anyone see where the dog went?"
		"This book is much longer than I expected."
		"The phone keeps ringing but nobody answers."
		"What a lovely surprise to see you here."
		"I can't remember where I parked the car."
		"The football match starts in twenty minutes."
		"She painted a picture of the mountains."
		"My grandfather tells the best stories."
		"Please close the window, it's getting cold."
		"We should book the hotel before it fills up."
		"The soup needs a little more salt."
		"Who left the lights on in the hallway?"
		"The shop on the corner sells fresh bread."
		"What's the capital of Australia?"
		"Can you order a pizza for us?"
		"Read me a poem about the sea."
		"Who won the election last year?"
		"How far is it to the airport?"
		"Do you ever get tired?"
		"Play my favourite song."
		"Call my mother please."
		"What's the weather going to be like tomorrow?"
		"Turn on the lights in the living room."
	)
	voices=(en-us en-us+m3 en-gb en-us+f2 en-gb-x-rp en-us+m1 en-029 en-us+f5 en-us-nyc en-gb+m5 en-us+m7 en-029+m7)
	speeds=(145 160 178 190 205 170)
	pitches=(40 55 65 30 50 45 62)
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

# rms FILE: its RMS amplitude.
rms() { sox "$1" -n stat 2>&1 | awk '/RMS[ ]+amplitude/ {print $3}'; }

# mix LEVEL IN OUT: 0.4 s of lead-in and 0.6 s of tail, then the level's
# condition: clean; snrN pink noise, babbleN babble, musicN music at N dB
# signal-to-noise ratio (by RMS over the speech); reverb, a reverberant
# room; far, far from the microphone. Babble and music go on for
# room_tail more after that, as a room does: a file that stopped while
# they played would end the stream inside the utterance, which a live
# robot never sees (the listener drops an utterance the stream cut off).
# The lead-in, the speech and the first 0.6 s after it are what they were
# without it, sample for sample.
mix() {
	local level=$1 in=$2 dst=$3
	sox -R -q "$in" "$tmp/pad.wav" pad 0.4 0.6
	case "$level" in
	clean)
		mv "$tmp/pad.wav" "$dst"
		return
		;;
	reverb)
		sox -R -q -V1 "$tmp/pad.wav" "$dst" reverb 60 50 100
		return
		;;
	far)
		# More room than voice, the highs lost on the way, 20 dB down,
		# over a faint room noise.
		sox -R -q -V1 "$tmp/pad.wav" "$tmp/far.wav" reverb -w 85 40 100 30 lowpass 3500 gain -n -26
		sox -R -q -V1 "$tmp/pad.wav" "$tmp/direct.wav" lowpass 3500 gain -n -32
		sox -R -q -n -r 16000 -c 1 -b 16 "$tmp/noise.wav" synth "$(soxi -D "$tmp/far.wav")" brownnoise vol 0.002
		sox -R -q -V1 -m "$tmp/far.wav" "$tmp/direct.wav" "$tmp/noise.wav" "$dst"
		return
		;;
	esac
	local snr=${level##*[a-z]}
	local r dur vol
	r=$(rms "$in")
	dur=$(soxi -D "$tmp/pad.wav")
	case "$level" in
	snr*)
		# Full-scale pink noise has an RMS of about 0.149.
		vol=$(awk -v r="$r" -v s="$snr" 'BEGIN { printf "%.6f", r / (10 ^ (s / 20)) / 0.149 }')
		sox -R -q -n -r 16000 -c 1 -b 16 "$tmp/noise.wav" synth "$dur" pinknoise vol "$vol"
		;;
	babble* | music*)
		# A stretch of the long track, starting elsewhere each file,
		# scaled by its part under the padded speech; the track played
		# twice over, so the room's tail never runs out.
		local track=$tmp/${level%%[0-9]*}.wav
		local len off
		len=$(soxi -D "$track")
		off=$(awk -v n="$n" -v l="$len" -v d="$dur" 'BEGIN { printf "%.2f", (n * 7.31) % (l - d - 1) }')
		[ -f "$tmp/twice-${track##*/}" ] || sox -R -q "$track" "$track" "$tmp/twice-${track##*/}"
		sox -R -q "$track" "$tmp/piece.wav" trim "$off" "$dur"
		vol=$(awk -v r="$r" -v s="$snr" -v b="$(rms "$tmp/piece.wav")" 'BEGIN { printf "%.6f", r / (10 ^ (s / 20)) / b }')
		sox -R -q "$tmp/twice-${track##*/}" "$tmp/piece.wav" trim "$off" "$(awk -v d="$dur" -v t="$room_tail" 'BEGIN { print d + t }')"
		sox -R -q -V1 "$tmp/piece.wav" "$tmp/noise.wav" vol "$vol"
		sox -R -q "$tmp/pad.wav" "$tmp/padded.wav" pad 0 "$room_tail"
		mv "$tmp/padded.wav" "$tmp/pad.wav"
		;;
	*)
		echo "gen-audio-testset: unknown noise level $level" >&2
		exit 1
		;;
	esac
	sox -R -q -V1 -m -v 1 "$tmp/pad.wav" -v 1 "$tmp/noise.wav" "$dst"
}

# tracks: the babble and the music the wake set's files take their noise
# from, 120 s each. Babble is four talkers, each saying the babble lines
# one after another in a voice of its own, started at other points; music
# is plucked chords changing every half second over a bass note, and a
# kick-like thump on the beat.
tracks() {
	local t i k line
	for ((t = 0; t < 4; t++)); do
		: >"$tmp/talker.list"
		for ((k = 0; k < 44; k++)); do
			i=$(((k * 3 + t * 5) % ${#babble_lines[@]}))
			line=${babble_lines[$i]}
			espeak-ng -v "${babble_voices[$(((t * 2 + k) % ${#babble_voices[@]}))]}" -s $((150 + 10 * t)) -p $((35 + 10 * t)) -w "$tmp/b.wav" "$line"
			sox -R -q -V1 "$tmp/b.wav" -r 16000 -c 1 -b 16 "$tmp/talker-$t-$k.wav" pad 0 0.$((3 + t))
			echo "$tmp/talker-$t-$k.wav" >>"$tmp/talker.list"
		done
		# shellcheck disable=SC2046
		sox -R -q -V1 $(cat "$tmp/talker.list") "$tmp/talker-$t.wav" trim $((t * 2)) 120
	done
	sox -R -q -V1 -m "$tmp/talker-0.wav" "$tmp/talker-1.wav" "$tmp/talker-2.wav" "$tmp/talker-3.wav" "$tmp/babble.wav" gain -n -6
	local chords=("C3 E3 G3" "A2 C3 E3" "F2 A2 C3" "G2 B2 D3" "E3 G3 B3" "D3 F3 A3")
	: >"$tmp/music.list"
	for ((k = 0; k < 240; k++)); do
		local c=${chords[$(((k / 2 + k / 8) % ${#chords[@]}))]}
		local args=()
		for note in $c; do args+=(pluck "$note"); done
		# One note a channel, then mixed down with the bass quieter.
		sox -R -q -V1 -n -r 16000 -c 4 -b 16 -t wav - synth 0.5 "${args[@]}" sine "${c%% *}" |
			sox -R -q -V1 -t wav - -c 1 "$tmp/note.wav" remix 1v0.3,2v0.3,3v0.3,4v0.15 fade 0 0.5 0.3
		sox -R -q -V1 -n -r 16000 -c 1 -b 16 "$tmp/kick.wav" synth 0.12 sine 60 fade 0 0.12 0.1 pad 0 0.38
		sox -R -q -V1 -m "$tmp/note.wav" "$tmp/kick.wav" "$tmp/chord-$k.wav"
		echo "$tmp/chord-$k.wav" >>"$tmp/music.list"
	done
	# shellcheck disable=SC2046
	sox -R -q -V1 $(cat "$tmp/music.list") "$tmp/music.wav" gain -n -6
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

if [ "$wakeset" = 1 ]; then
	tracks
	for i in 1 2 3 4; do
		spoken=("Hey Jibo" "Hey, Jibo." "Hey Jibo?" "Hey Jibo!")
		add wake true "hey jibo" "${spoken[$((i - 1))]}"
	done
	for c in "${commands[@]}"; do
		add command true "hey jibo $c" "Hey Jibo, $c"
	done
	for c in "${unknown[@]}"; do
		add unknown true "hey jibo $c" "Hey Jibo $c"
	done
	for d in "${decoys[@]}"; do
		add decoy false "$(printf '%s' "$d" | tr 'A-Z' 'a-z' | tr -cd "a-z '")" "$d"
	done
	for o in "${other[@]}"; do
		add other false "$o" "$o"
	done
	# An hour of conversation: two talkers taking turns, 60 s a file,
	# each file in one condition.
	for ((f = 0; f < 63; f++)); do
		level=${noises[$((f % ${#noises[@]}))]}
		: >"$tmp/talk.list"
		len=0
		k=0
		while [ "$len" -lt 62 ]; do
			line=${talk[$(((f * 5 + k * 7) % ${#talk[@]}))]}
			v=${voices[$(((f + k % 2 * 5) % ${#voices[@]}))]}
			espeak-ng -v "$v" -s "${speeds[$(((f + k) % ${#speeds[@]}))]}" -p "${pitches[$(((f * 2 + k) % ${#pitches[@]}))]}" -w "$tmp/t.wav" "$line"
			sox -R -q -V1 "$tmp/t.wav" -r 16000 -c 1 -b 16 "$tmp/talk-$k.wav" gain -6 pad 0 0.$((3 + (f + k) % 7))
			echo "$tmp/talk-$k.wav" >>"$tmp/talk.list"
			len=$((len + $(soxi -D "$tmp/talk-$k.wav" | cut -d. -f1) + 1))
			k=$((k + 1))
		done
		# shellcheck disable=SC2046
		sox -R -q -V1 $(cat "$tmp/talk.list") "$tmp/talk.wav" trim 0 59
		n=$((n + 1))
		file=$(printf 'talk-%03d-%s.wav' "$n" "$level")
		mix "$level" "$tmp/talk.wav" "$out/$file"
		printf '{"file":"%s","text":"%s","wake":false,"kind":"talk","noise":"%s","voice":"%s"}\n' \
			"$file" "conversation" "$level" "two talkers" >>"$manifest"
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
