package main

import (
	"flag"
	"fmt"

	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/tts"
	"github.com/openjibo/jibod/audio/vad"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

// wakeThresholdUsage is --wake-threshold's help, for jibod run and audio
// eval: the level of the detector's held rule (the embedded model's
// figures are checked against it by TestWakeThresholdHelp).
const wakeThresholdUsage = "the wake word detector's held level, in (0, 1): it wakes when the wake phrase's probability stays at it or over " +
	"for the model's hold steps in a row (the embedded model: 5 steps of 20 ms), not on their mean, " +
	"so a value that suited a mean is much stricter here (default: the model's own, 0.78; docs/config.md)"

// addAudioFlags declares the audio flags on fs.
func addAudioFlags(fs *flag.FlagSet) *hearing.Config {
	f := &hearing.Config{}
	fs.StringVar(&f.Audio, "audio", "", "hear speech from: file:IN.wav, stdin (raw s16le 16 kHz mono), null, or a device backend such as portaudio[:DEVICE] (default: none, text only)")
	fs.BoolVar(&f.Realtime, "audio-realtime", false, "play a file: source in real time, as a microphone would, instead of as fast as it is read")
	fs.DurationVar(&f.CommandWindow, "command-window", listen.DefaultCommandWindow, "how long the robot listens for a command after \"hey jibo\", a wake button or a shell request, 1s..5m")
	fs.Float64Var(&f.GainDB, "audio-gain", 0, "gain in dB applied to the input ahead of detection (-40..40)")
	fs.Func("wake-button", "the board `BUTTON` that makes the robot listen, \"\" for none (default: a button named \"wake\", if the board has one)", func(s string) error {
		f.WakeButton, f.WakeButtonSet = s, true
		return nil
	})
	fs.DurationVar(&f.Silence, "vad-silence", vad.Defaults.SilenceTimeout, "silence that ends an utterance (after a 200 ms hangover), 20ms..1m")
	fs.DurationVar(&f.MaxSpeech, "vad-max-speech", vad.Defaults.MaxSpeech, "longest utterance, 1s..1m; longer speech is cut")
	fs.StringVar(&f.Wake, "wake", hearing.WakeDetector, "how the wake phrase is found: detector (the wake word detector: the phrase alone or followed by anything; docs/hearing.md) or grammar (the start of the sentence recognised)")
	fs.Float64Var(&f.WakeThreshold, "wake-threshold", 0, wakeThresholdUsage)
	fs.Float64Var(&f.EchoMargin, "echo-margin", 0, "with a PortAudio speaker: while the robot speaks, speech must be this many dB louder than what it plays to be heard (-40..40)")
	fs.StringVar(&f.Speech.TTS, "tts", hearing.TTSSim, "the robot's voice: sim (text on the board's speaker) or espeak (espeak-ng, played on the board's sound output)")
	fs.StringVar(&f.Speech.Voice, "tts-voice", "", "espeak-ng voice, e.g. en-us (default: espeak-ng's)")
	fs.IntVar(&f.Speech.WPM, "tts-wpm", 0, fmt.Sprintf("espeak-ng speaking rate in words per minute, %d..%d, or 0 for espeak-ng's own (default 0)", tts.MinWPM, tts.MaxWPM))
	fs.StringVar(&f.Speech.SpeakerWAV, "speaker-wav", "", "write everything the board's sound output plays to this WAV file")
	fs.StringVar(&f.Speech.Speaker, "speaker", "", "where the board's sound output plays: board, or portaudio[:DEVICE] (default: portaudio's default output with --audio portaudio, else board)")
	return f
}
