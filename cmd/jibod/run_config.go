package main

import (
	"flag"
	"os"
	"time"

	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/runtime/hearing"
)

// loadRunConfig fills c as docs/config.md orders it: the flags' defaults
// (already in c and in the hub, audio and shell flags), then the
// configuration file, then the environment, then the command line.
func loadRunConfig(c *config.Run, fs *flag.FlagSet, args []string, hf *hubFlags, af *hearing.Config, sf *shellFlags) error {
	c.Hub = config.Hub{URL: *hf.url, TokenFile: *hf.token, CAFile: *hf.ca, Encoding: *hf.encoding, Link: *hf.link, TriggerOnUp: *hf.triggerOnUp}
	c.Shell = config.Shell(*sf)
	c.Audio = audioConfig(af)
	if path := config.FilePath(fs, args, os.Getenv); path != "" {
		if err := c.LoadFile(path); err != nil {
			return err
		}
	}
	if err := c.ApplyEnv(os.Getenv); err != nil {
		return err
	}
	*hf.url, *hf.token, *hf.ca, *hf.encoding, *hf.link, *hf.triggerOnUp = c.Hub.URL, c.Hub.TokenFile, c.Hub.CAFile, c.Hub.Encoding, c.Hub.Link, c.Hub.TriggerOnUp
	*sf = shellFlags(c.Shell)
	setAudioFlags(af, c.Audio)
	// --local-skill, repeatable, replaces the file's list when given.
	skills := c.LocalSkills
	c.LocalSkills = nil
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !flagGiven(fs, "local-skill") {
		c.LocalSkills = skills
	}
	c.Hub = config.Hub{URL: *hf.url, TokenFile: *hf.token, CAFile: *hf.ca, Encoding: *hf.encoding, Link: *hf.link, TriggerOnUp: *hf.triggerOnUp}
	c.Shell = config.Shell(*sf)
	c.Audio = audioConfig(af)
	return nil
}

// flagGiven reports whether the command line gave the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
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
