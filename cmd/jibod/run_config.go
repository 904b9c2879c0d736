package main

import (
	"time"

	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

// audioBound carries the audio flags, bound to af rather than to the
// configuration, to and from it (config.Run.Load).
func audioBound(af *hearing.Config) config.Bound {
	return config.Bound{Set: func(c *config.Run) { setAudioFlags(af, c.Audio) }, Get: func(c *config.Run) { c.Audio = audioConfig(af) }}
}

// audioConfig is the audio flags' values as configuration.
func audioConfig(f *hearing.Config) config.Audio {
	a := config.Audio{Source: f.Audio, Realtime: f.Realtime, CommandWindow: config.Duration(f.CommandWindow), GainDB: f.GainDB,
		VADSilence: config.Duration(f.Silence), VADMaxSpeech: config.Duration(f.MaxSpeech), EchoMarginDB: f.EchoMargin,
		TTS: f.Speech.TTS, TTSVoice: f.Speech.Voice, TTSWPM: f.Speech.WPM, SpeakerWAV: f.Speech.SpeakerWAV, Speaker: f.Speech.Speaker}
	if f.WakeButtonSet {
		b := f.WakeButton
		a.WakeButton = &b
	}
	return a
}

// setAudioFlags gives the audio flags a's values, before the command line
// overrides them.
func setAudioFlags(f *hearing.Config, a config.Audio) {
	f.Audio, f.Realtime, f.CommandWindow, f.GainDB = a.Source, a.Realtime, time.Duration(a.CommandWindow), a.GainDB
	f.Silence, f.MaxSpeech, f.EchoMargin = time.Duration(a.VADSilence), time.Duration(a.VADMaxSpeech), a.EchoMarginDB
	f.Speech.TTS, f.Speech.Voice, f.Speech.WPM, f.Speech.SpeakerWAV, f.Speech.Speaker = a.TTS, a.TTSVoice, a.TTSWPM, a.SpeakerWAV, a.Speaker
	if a.WakeButton != nil {
		f.WakeButton, f.WakeButtonSet = *a.WakeButton, true
	}
}
