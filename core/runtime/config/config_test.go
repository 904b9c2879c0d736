package config

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defaults are jibod run's flag defaults, as cmd/jibod declares them.
func defaults() Run {
	return Run{Board: "sim", Input: "console", SpeakWPM: -1, Lang: "en-US", LogLevel: "warn", State: "none", RealTime: true,
		Hub:   Hub{Encoding: "cbor", Link: "persistent"},
		Shell: Shell{Baud: 115200, Reboot: "exit"},
		Audio: Audio{CommandWindow: Duration(8 * time.Second), VADSilence: Duration(700 * time.Millisecond),
			VADMaxSpeech: Duration(15 * time.Second), TTS: "sim"}}
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jibod.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

func TestDefaultsAreValid(t *testing.T) {
	c := defaults()
	require.NoError(t, c.Validate())
}

func TestFilePath(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.String("input", "console", "")
	fs.Bool("offline", false, "")
	fs.String("config", "", "")
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == FileEnv {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{nil, "", ""},
		{nil, "/etc/jibod.json", "/etc/jibod.json"},
		{[]string{"--config", "a.json"}, "/etc/jibod.json", "a.json"},
		{[]string{"-config=b.json", "--input", "stdin"}, "", "b.json"},
		{[]string{"--input", "stdin", "--config=c.json"}, "", "c.json"},
		{[]string{"--input", "stdin", "extra", "--config", "d.json"}, "", ""}, // after the first argument: not a flag
		{[]string{"--", "--config", "e.json"}, "", ""},
		{[]string{"--offline", "--config", "f.json"}, "", "f.json"},
		{[]string{"--offline=true", "-input=stdin", "-config", "g.json"}, "", "g.json"},
	} {
		assert.Equal(t, tc.want, FilePath(fs, tc.args, env(tc.env)), "%v", tc.args)
	}
}

// A file sets what it names over the defaults and leaves the rest.
func TestLoadFileOverDefaults(t *testing.T) {
	c := defaults()
	require.NoError(t, c.LoadFile(writeFile(t, `{
		"board": "/etc/jibod/board.json", "input": "none", "listen_window": "45s", "local_skills": ["/usr/bin/weather"],
		"hub": {"url": "wss://hub.example/", "link": "per-turn"},
		"shell": {"serial": "/dev/ttyGS0", "socket": "off"},
		"audio": {"source": "portaudio", "command_window": "12s", "wake_button": "", "echo_margin_db": 6},
		"sphinx": {"nbest": 3, "trim_ms": "off", "denoise_db": 12, "floors": {"confidence": 0.5, "coverage": 0.8, "wake_confidence": 0.9, "wake_coverage": 0.8}}
	}`)))
	want := defaults()
	want.Board, want.Input, want.ListenWindow, want.LocalSkills = "/etc/jibod/board.json", "none", Duration(45*time.Second), []string{"/usr/bin/weather"}
	want.Hub.URL, want.Hub.Link = "wss://hub.example/", "per-turn"
	want.Shell.Serial, want.Shell.Socket = "/dev/ttyGS0", "off"
	empty := ""
	want.Audio.Source, want.Audio.CommandWindow, want.Audio.WakeButton, want.Audio.EchoMarginDB = "portaudio", Duration(12*time.Second), &empty, 6
	want.Sphinx = Sphinx{NBest: 3, TrimMS: Switch{Off: true}, DenoiseDB: Switch{Value: 12},
		Floors: &Floors{Confidence: 0.5, Coverage: 0.8, WakeConfidence: 0.9, WakeCoverage: 0.8}}
	assert.Equal(t, want, c)
}

// A bad file is refused naming the file and the member, and nothing of
// it is applied.
func TestLoadFileRefuses(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"input": "telepathy"}`, `input "telepathy": want console, stdin, none, shell`},
		{`{"bogus": 1}`, `unknown field "bogus"`},
		{`{"input": "stdin", "input": "none"}`, `input: member given twice`},
		{`{"speak_wpm": "fast"}`, `speak_wpm: want a int, not a string`},
		{`{"audio": {"command_window": "soon"}}`, `audio.command_window: "soon": want a duration such as "12s"`},
		{`{"audio": {"command_window": "90m"}}`, `audio.command_window: 1h30m0s: want 1s..5m0s`},
		{`{"audio": {"tts": "flite"}}`, `audio.tts: "flite": want sim or espeak`},
		{`{"listen_window": "2h"}`, `listen_window 2h0m0s: want 0..1h`},
		{`{"log_level": "loud"}`, `log_level "loud": want debug, info, warn or error`},
		{`{"hub": {"encoding": "xml"}}`, `hub.encoding:`},
		{`{"hub": {"ca_file": "/etc/ca.pem"}}`, `hub.ca_file and hub.trigger_on_up need hub.url`},
		{`{"shell": {"reboot": "sometimes"}}`, `shell.reboot "sometimes": want exit, system or off`},
		{`{"sphinx": {"nbest": 21}}`, `sphinx.nbest 21: want 1 to 20`},
		{`{"sphinx": {"trim_ms": "never"}}`, `sphinx.trim_ms: "never": want off or a number`},
		{`{"sphinx": {"trim_ms": 2.5}}`, `sphinx.trim_ms 2.5: want off or a whole number of milliseconds from 1 to 2000`},
		{`{"sphinx": {"denoise_db": 41}}`, `sphinx.denoise_db 41: want off or a number of dB from 1 to 40`},
		{`{"sphinx": {"floors": {"confidence": 1.5}}}`, `sphinx.floors 1.5: want four numbers in [0, 1]`},
		{`{"sphinx": {"lm": "/nowhere/en.lm"}}`, `sphinx.lm: want off, debian or a language model file`},
		{`[1]`, `cannot unmarshal array`},
		{`{"input": "stdin"`, `unexpected end of JSON input`},
	} {
		c := defaults()
		path := writeFile(t, tc.body)
		err := c.LoadFile(path)
		require.Error(t, err, tc.body)
		assert.Contains(t, err.Error(), "config "+path+": ", tc.body)
		assert.Contains(t, err.Error(), tc.want, tc.body)
		assert.Equal(t, defaults(), c, "%s: nothing applied", tc.body)
	}
	c := defaults()
	err := c.LoadFile(writeFile(t, `{"lang": "`+strings.Repeat("x", MaxFileSize)+`"}`))
	assert.ErrorContains(t, err, "over 65536 bytes")
	err = c.LoadFile(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorContains(t, err, "no such file")
}

// Every problem of a file is reported, each on a line naming the file.
func TestLoadFileReportsEveryProblem(t *testing.T) {
	c := defaults()
	path := writeFile(t, `{"input": "telepathy", "sphinx": {"nbest": 30}}`)
	err := c.LoadFile(path)
	require.Error(t, err)
	assert.Equal(t, "config "+path+`: input "telepathy": want console, stdin, none, shell`+"\n"+
		"config "+path+": sphinx.nbest 30: want 1 to 20", err.Error())
}

// The environment overrides the file; a wrong variable is refused by
// name and nothing of the environment is applied.
func TestApplyEnv(t *testing.T) {
	env := map[string]string{
		EnvStateDir: "/var/lib/jibod", EnvHubURL: "ws://hub.local:8080/", EnvHubToken: "/etc/jibod/token",
		EnvSphinxModel: "/srv/model", EnvSphinxDict: "/srv/dict", EnvSphinxArgs: "-beam 1e-60",
		EnvSphinxNBest: "2", EnvSphinxFloors: "0.5, 0.6,0.7,0.8", EnvSphinxNoiseFloor: "30",
		EnvSphinxTrim: "300", EnvSphinxDenoise: "off", EnvSphinxDecoys: "off", EnvSphinxLM: "debian",
		EnvSphinxSearch: "ngram",
	}
	c := defaults()
	c.State, c.Sphinx.NBest = "/from/the/file", 5
	require.NoError(t, c.ApplyEnv(func(k string) string { return env[k] }))
	assert.Equal(t, "/var/lib/jibod", c.State)
	assert.Equal(t, Hub{URL: "ws://hub.local:8080/", TokenFile: "/etc/jibod/token", Encoding: "cbor", Link: "persistent"}, c.Hub)
	assert.Equal(t, Sphinx{Model: "/srv/model", Dict: "/srv/dict", Args: "-beam 1e-60", NBest: 2,
		Floors:       &Floors{Confidence: 0.5, Coverage: 0.6, WakeConfidence: 0.7, WakeCoverage: 0.8},
		NoiseFloorDB: 30, TrimMS: Switch{Value: 300}, DenoiseDB: Switch{Off: true}, Decoys: "off", LM: "debian", Search: "ngram"}, c.Sphinx)
	require.NoError(t, c.Validate())

	for _, tc := range []struct{ name, value, want string }{
		{EnvSphinxNBest, "many", `$JIBOD_SPHINX_NBEST="many": strconv.Atoi`},
		{EnvSphinxNBest, "99", `$JIBOD_SPHINX_NBEST 99: want 1 to 20`},
		{EnvSphinxFloors, "0.5,0.5", `$JIBOD_SPHINX_FLOORS="0.5,0.5": want four numbers`},
		{EnvSphinxFloors, "0.5,0.5,0.5,2", `$JIBOD_SPHINX_FLOORS 2: want four numbers in [0, 1]`},
		{EnvSphinxNoiseFloor, "5", `$JIBOD_SPHINX_NOISE_FLOOR 5: want a number of dB from 10 to 60`},
		{EnvSphinxTrim, "always", `$JIBOD_SPHINX_TRIM_MS="always"`},
		{EnvSphinxTrim, "0", `$JIBOD_SPHINX_TRIM_MS="0": want off or a whole number of milliseconds from 1 to 2000`},
		{EnvSphinxDenoise, "0", `$JIBOD_SPHINX_DENOISE_DB="0": want off or a number of dB from 1 to 40`},
		{EnvSphinxDenoise, "99", `$JIBOD_SPHINX_DENOISE_DB 99: want off or a number of dB from 1 to 40`},
		{EnvSphinxDecoys, "maybe", `$JIBOD_SPHINX_DECOYS "maybe": want on or off`},
		{EnvSphinxSearch, "phones", `$JIBOD_SPHINX_SEARCH "phones": want grammar, ngram, verify or fallback`},
		{EnvSphinxLM, "/nowhere.lm", `$JIBOD_SPHINX_LM: want off, debian or a language model file`},
	} {
		c := defaults()
		err := c.ApplyEnv(func(k string) string {
			switch k {
			case tc.name:
				return tc.value
			case EnvStateDir:
				return "/var/lib/jibod"
			}
			return ""
		})
		assert.ErrorContains(t, err, tc.want, tc.name+"="+tc.value)
		assert.Equal(t, defaults(), c, "%s=%s: nothing applied", tc.name, tc.value)
	}
}

// Validate names a field by its key and its flag, whatever set it.
func TestValidateNamesKeyAndFlag(t *testing.T) {
	c := defaults()
	c.SpeakWPM, c.Audio.TTSWPM, c.Shell.Serial, c.Shell.Baud = 5000, -3, "/dev/ttyS0", 1234
	err := c.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "speak_wpm (--speak-wpm) 5000: want -1 (the profile's rate) or 0..1000 words per minute")
	assert.Contains(t, err.Error(), "audio.tts_wpm (--tts-wpm): -3: want 0 (espeak-ng's rate) or 80..500")
	assert.Contains(t, err.Error(), "shell.baud (--serial-baud): ")
	c = defaults()
	c.Sphinx.NBest = 40
	assert.EqualError(t, c.Validate(), "sphinx.nbest 40: want 1 to 20", "no flag: the key alone")
}

// The espeak-ng rate is checked against what the voice accepts, so a
// config that passes does not fail at startup.
func TestValidateTTSRate(t *testing.T) {
	for _, tc := range []struct {
		wpm  int
		fail bool
	}{{0, false}, {79, true}, {80, false}, {500, false}, {501, true}, {600, true}, {-1, true}} {
		c := defaults()
		c.Audio.TTSWPM = tc.wpm
		err := c.Validate()
		if tc.fail {
			assert.ErrorContains(t, err, fmt.Sprintf("audio.tts_wpm (--tts-wpm): %d: want 0 (espeak-ng's rate) or 80..500", tc.wpm))
		} else {
			assert.NoError(t, err, tc.wpm)
		}
	}
}

// Every key with a flag is a field of the configuration.
func TestFlagsNameFields(t *testing.T) {
	c := defaults()
	for key := range Flags {
		body := `{}`
		parts := strings.Split(key, ".")
		if len(parts) == 2 {
			body = `{"` + parts[0] + `": {"` + parts[1] + `": null}}`
		} else {
			body = `{"` + key + `": null}`
		}
		require.NoError(t, c.decode([]byte(body)), key)
	}
}

// The example of docs/config.md is a configuration that checks.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/config.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(doc), "```json\n")
	require.True(t, ok, "docs/config.md has a JSON example")
	example, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	c := defaults()
	require.NoError(t, c.decode([]byte(example)))
	assert.Equal(t, "portaudio", c.Audio.Source)
}

// Load applies the sources in their order: the flags' defaults, the
// file, the environment, the command line; a --local-skill given replaces
// the file's list, and flags bound outside the configuration are given
// its values before the command line and read back after.
func TestLoadOrder(t *testing.T) {
	cfg := writeFile(t, `{"board": "rpi", "lang": "fr-FR", "state": "/var/lib/jibod", "local_skills": ["/usr/bin/weather"], "audio": {"gain_db": 6}}`)
	env := func(name string) string {
		return map[string]string{FileEnv: cfg, EnvStateDir: "/srv/jibod"}[name]
	}
	load := func(t *testing.T, args ...string) (Run, float64) {
		t.Helper()
		c := defaults()
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.String("config", "", "")
		fs.StringVar(&c.Board, "board", "sim", "")
		fs.StringVar(&c.Lang, "lang", "en-US", "")
		fs.StringVar(&c.State, "state", "none", "")
		fs.Func("local-skill", "", func(v string) error { c.LocalSkills = append(c.LocalSkills, v); return nil })
		gain := fs.Float64("audio-gain", 0, "") // bound outside the configuration
		outside := Bound{Set: func(c *Run) { *gain = c.Audio.GainDB }, Get: func(c *Run) { c.Audio.GainDB = *gain }}
		require.NoError(t, c.Load(fs, args, env, fs.Parse, outside))
		return c, *gain
	}

	c, gain := load(t)
	assert.Equal(t, "rpi", c.Board, "the file over the default")
	assert.Equal(t, "/srv/jibod", c.State, "the environment over the file")
	assert.Equal(t, []string{"/usr/bin/weather"}, c.LocalSkills)
	assert.InDelta(t, 6, gain, 0, "the flag outside was given the file's value")
	assert.InDelta(t, 6, c.Audio.GainDB, 0)

	c, gain = load(t, "--lang", "de-DE", "--state", "/tmp/j", "--local-skill", "/opt/a", "--local-skill", "/opt/b", "--audio-gain", "-3")
	assert.Equal(t, "rpi", c.Board)
	assert.Equal(t, "de-DE", c.Lang, "the command line over the file")
	assert.Equal(t, "/tmp/j", c.State, "the command line over the environment")
	assert.Equal(t, []string{"/opt/a", "/opt/b"}, c.LocalSkills, "given, the list replaces the file's")
	assert.InDelta(t, -3, gain, 0)
	assert.InDelta(t, -3, c.Audio.GainDB, 0, "read back after the command line")

	c = defaults()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	err := c.Load(fs, []string{"--nope"}, func(string) string { return "" }, fs.Parse, Bound{})
	require.ErrorContains(t, err, "flag provided but not defined: -nope")
}
