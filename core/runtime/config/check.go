package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/audio/tts"
	"github.com/openjibo/jibod/audio/vad"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/web"
	"github.com/openjibo/jibod/device/sim"
)

// Flags are the command line's names of the fields, by key: an error in
// a value that may come from a flag names both.
var Flags = map[string]string{
	"board": "board", "input": "input", "trace": "trace", "speak_wpm": "speak-wpm", "lang": "lang",
	"log_level": "log-level", "state": "state", "listen_window": "listen-window", "realtime": "realtime", "loop_process": "loop-process",
	"web": "web", "offline": "offline", "local_skills": "local-skill",
	"hub.url": "hub", "hub.token_file": "hub-token", "hub.ca_file": "hub-ca", "hub.encoding": "hub-encoding",
	"hub.link": "hub-link", "hub.trigger_on_up": "hub-trigger-on-up",
	"shell.socket": "shell-socket", "shell.serial": "serial", "shell.baud": "serial-baud",
	"shell.pin_file": "shell-pin-file", "shell.reboot": "shell-reboot",
	"audio.source": "audio", "audio.realtime": "audio-realtime", "audio.command_window": "command-window",
	"audio.gain_db": "audio-gain", "audio.wake_button": "wake-button", "audio.vad_silence": "vad-silence",
	"audio.vad_max_speech": "vad-max-speech", "audio.echo_margin_db": "echo-margin", "audio.tts": "tts",
	"audio.tts_voice": "tts-voice", "audio.tts_wpm": "tts-wpm", "audio.speaker_wav": "speaker-wav",
	"audio.speaker": "speaker",
}

// Validate checks the whole configuration; an error names each wrong
// field by its key and, where it has one, its flag.
func (c *Run) Validate() error {
	return c.check(func(key string) string {
		if f, ok := Flags[key]; ok {
			return key + " (--" + f + ")"
		}
		return key
	})
}

// Level is LogLevel as slog reads it; Validate has checked that it is
// one.
func (c *Run) Level() slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(strings.ToUpper(c.LogLevel)))
	return l
}

// Limits of the values checked here that no package owns.
const maxListenWindow = time.Hour

// check validates c, naming each field with name(key).
func (c *Run) check(name func(key string) string) error {
	var errs []error
	bad := func(key string, v any, want string, args ...any) {
		errs = append(errs, fmt.Errorf("%s %s: want "+want, append([]any{name(key), quote(v)}, args...)...))
	}
	oneOf := func(key, v string, want ...string) {
		for _, w := range want {
			if v == w {
				return
			}
		}
		bad(key, v, strings.Join(want, ", "))
	}
	oneOf("input", c.Input, "console", "stdin", "none", "shell")
	if c.SpeakWPM < -1 || c.SpeakWPM > sim.MaxWPM {
		bad("speak_wpm", c.SpeakWPM, "-1 (the profile's rate) or 0..%d words per minute", sim.MaxWPM)
	}
	var l slog.Level
	if l.UnmarshalText([]byte(strings.ToUpper(c.LogLevel))) != nil {
		bad("log_level", c.LogLevel, "debug, info, warn or error")
	}
	if w := time.Duration(c.ListenWindow); w < 0 || w > maxListenWindow {
		bad("listen_window", c.ListenWindow, "0..1h")
	}
	if c.Web != "" && c.Web != "off" {
		if err := web.CheckAddr(c.Web); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name("web"), err))
		}
	}
	for _, p := range c.LocalSkills {
		if p == "" {
			bad("local_skills", p, "program paths")
		}
	}
	errs = append(errs, c.Hub.check(name), c.Shell.check(name), c.Audio.check(name), c.Sphinx.check(name))
	return errors.Join(errs...)
}

func (h Hub) check(name func(string) string) error {
	var errs []error
	if h.URL != "" {
		if _, err := hub.NewClient(hub.Config{URL: h.URL}); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name("hub.url"), err))
		}
	} else if h.CAFile != "" || h.TriggerOnUp != "" {
		errs = append(errs, fmt.Errorf("%s and %s need %s", name("hub.ca_file"), name("hub.trigger_on_up"), name("hub.url")))
	}
	if _, err := wire.ParseEncoding(h.Encoding); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name("hub.encoding"), err))
	}
	if _, err := hub.ParseLinkMode(h.Link); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name("hub.link"), err))
	}
	if t := h.TriggerOnUp; t != "" && t != "NEW_ARRIVAL" && t != "SURPRISE" {
		errs = append(errs, fmt.Errorf("%s %q: want NEW_ARRIVAL or SURPRISE", name("hub.trigger_on_up"), t))
	}
	return errors.Join(errs...)
}

func (s Shell) check(name func(string) string) error {
	var errs []error
	if s.Serial != "" && s.Serial != "off" {
		if err := diag.CheckBaud(s.Baud); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name("shell.baud"), err))
		}
	}
	switch s.Reboot {
	case "exit", "system", "off":
	default:
		errs = append(errs, fmt.Errorf("%s %q: want exit, system or off", name("shell.reboot"), s.Reboot))
	}
	return errors.Join(errs...)
}

func (a Audio) check(name func(string) string) error {
	var errs []error
	add := func(key string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name(key), err))
		}
	}
	if a.Source != "" {
		_, _, err := audio.ParseSpec(a.Source)
		add("audio.source", err)
	}
	if w := time.Duration(a.CommandWindow); w < time.Second || w > listen.MaxCommandWindow {
		add("audio.command_window", fmt.Errorf("%s: want 1s..%s", a.CommandWindow, listen.MaxCommandWindow))
	}
	_, err := transform.NewGain(a.GainDB)
	add("audio.gain_db", err)
	add("audio.vad_silence", (vad.Config{SilenceTimeout: time.Duration(a.VADSilence), MaxSpeech: time.Duration(a.VADMaxSpeech)}).Validate())
	if a.EchoMarginDB < -listen.MaxEchoMarginDB || a.EchoMarginDB > listen.MaxEchoMarginDB {
		add("audio.echo_margin_db", fmt.Errorf("%v: want -%d..%d dB", a.EchoMarginDB, listen.MaxEchoMarginDB, listen.MaxEchoMarginDB))
	}
	if a.TTS != "sim" && a.TTS != "espeak" {
		add("audio.tts", fmt.Errorf("%q: want sim or espeak", a.TTS))
	}
	if w := a.TTSWPM; w != 0 && (w < tts.MinWPM || w > tts.MaxWPM) {
		add("audio.tts_wpm", fmt.Errorf("%d: want 0 (espeak-ng's rate) or %d..%d", w, tts.MinWPM, tts.MaxWPM))
	}
	if sp := a.Speaker; sp != "" && sp != "board" {
		if n, _, err := audio.ParseSpec(sp); err != nil || n != "portaudio" {
			add("audio.speaker", fmt.Errorf("%q: want board or portaudio[:DEVICE]", sp))
		}
	}
	return errors.Join(errs...)
}

// quote writes a value for an error: strings quoted, others as they are.
func quote(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// fileExists reports whether path names something that exists.
func fileExists(path string) error {
	_, err := os.Stat(path)
	return err
}
