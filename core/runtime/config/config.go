// Package config is `jibod run`'s one configuration: a typed value read
// from a JSON file, then the environment, then the command line, each
// overriding the one before (docs/config.md), and validated at start with
// errors that name the field as it was given.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/openjibo/jibod/internal/strictjson"
)

// FileEnv names the configuration file when --config does not.
const FileEnv = "JIBOD_CONFIG"

// MaxFileSize bounds the configuration file.
const MaxFileSize = 64 << 10

// Run is the configuration of `jibod run`. The zero value of a field the
// file leaves out is never applied: decoding starts from the values the
// command line's flags were declared with, which are the defaults.
type Run struct {
	Board        string   `json:"board"`
	Input        string   `json:"input"`
	Trace        string   `json:"trace"`
	SpeakWPM     int      `json:"speak_wpm"`
	Lang         string   `json:"lang"`
	LogLevel     string   `json:"log_level"`
	State        string   `json:"state"`
	ListenWindow Duration `json:"listen_window"`
	RealTime     bool     `json:"realtime"`
	LoopProcess  bool     `json:"loop_process"`
	Web          string   `json:"web"`
	Offline      bool     `json:"offline"`
	LocalSkills  []string `json:"local_skills"`
	Hub          Hub      `json:"hub"`
	Shell        Shell    `json:"shell"`
	Audio        Audio    `json:"audio"`
	Sphinx       Sphinx   `json:"sphinx"`
}

// Hub is how the robot reaches its hub.
type Hub struct {
	URL         string `json:"url"`
	TokenFile   string `json:"token_file"`
	CAFile      string `json:"ca_file"`
	Encoding    string `json:"encoding"`
	Link        string `json:"link"`
	TriggerOnUp string `json:"trigger_on_up"`
}

// Shell is where the diagnostics shell is served.
type Shell struct {
	Socket  string `json:"socket"`
	Serial  string `json:"serial"`
	Baud    int    `json:"baud"`
	PINFile string `json:"pin_file"`
	Reboot  string `json:"reboot"`
}

// Audio is hearing and speaking.
type Audio struct {
	Source        string   `json:"source"`
	Realtime      bool     `json:"realtime"`
	CommandWindow Duration `json:"command_window"`
	GainDB        float64  `json:"gain_db"`
	// WakeButton is the board button that makes the robot listen; nil
	// leaves the choice to the board (a button named "wake"), "" is none.
	WakeButton   *string  `json:"wake_button"`
	VADSilence   Duration `json:"vad_silence"`
	VADMaxSpeech Duration `json:"vad_max_speech"`
	EchoMarginDB float64  `json:"echo_margin_db"`
	TTS          string   `json:"tts"`
	TTSVoice     string   `json:"tts_voice"`
	TTSWPM       int      `json:"tts_wpm"`
	SpeakerWAV   string   `json:"speaker_wav"`
	Speaker      string   `json:"speaker"`
}

// Duration is a time.Duration written as Go writes it ("12s", "1m30s").
type Duration time.Duration

// UnmarshalJSON takes a duration string. A wrong one is an
// *json.UnmarshalTypeError, which the decoder gives the member's path.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	v, err := time.Duration(0), json.Unmarshal(b, &s)
	if err == nil {
		v, err = time.ParseDuration(s)
	}
	if err != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: durationType}
	}
	*d = Duration(v)
	return nil
}

var durationType = reflect.TypeFor[Duration]()

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d Duration) String() string { return time.Duration(d).String() }

// FilePath is the configuration file the command line names with
// --config (or -config), else $JIBOD_CONFIG; "" for none. args are read
// as fs would parse them, up to the first argument that is not a flag;
// nothing is parsed into fs.
func FilePath(fs *flag.FlagSet, args []string, getenv func(string) string) string {
	takesValue := func(name string) bool {
		f := fs.Lookup(name)
		if f == nil {
			return false
		}
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		return !ok || !b.IsBoolFlag()
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		switch {
		case name == "config" && hasValue:
			return value
		case name == "config" && i+1 < len(args):
			return args[i+1]
		case !hasValue && takesValue(name):
			i++ // its value
		}
	}
	return getenv(FileEnv)
}

// Bound carries the fields of flags bound outside a Run to and from it:
// Set gives the flags c's values before the command line is parsed, Get
// reads them back after. Either may be nil.
type Bound struct {
	Set, Get func(c *Run)
}

// Load fills c in the order docs/config.md gives: the values c holds (the
// defaults of the flags bound to its fields), then the configuration file
// (FilePath), then the environment (ApplyEnv), then the command line args,
// which parse applies to fs. --local-skill, repeatable, replaces the
// file's list when given rather than adding to it.
func (c *Run) Load(fs *flag.FlagSet, args []string, getenv func(string) string, parse func(args []string) error, outside Bound) error {
	if outside.Get != nil {
		outside.Get(c)
	}
	if path := FilePath(fs, args, getenv); path != "" {
		if err := c.LoadFile(path); err != nil {
			return err
		}
	}
	if err := c.ApplyEnv(getenv); err != nil {
		return err
	}
	if outside.Set != nil {
		outside.Set(c)
	}
	skills := c.LocalSkills
	c.LocalSkills = nil
	if err := parse(args); err != nil {
		return err
	}
	if !given(fs, Flags["local_skills"]) {
		c.LocalSkills = skills
	}
	if outside.Get != nil {
		outside.Get(c)
	}
	return nil
}

// given reports whether the command line fs parsed gave the flag name.
func given(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// LoadFile reads the configuration file at path over c and validates
// the result. A file that is too big, is not one JSON object, has a
// member twice, a member this configuration does not have or a value of
// the wrong type is refused with the member's path; c is then unchanged.
func (c *Run) LoadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return fmt.Errorf("config %s: over %d bytes", path, MaxFileSize)
	}
	if err := c.decode(data); err != nil {
		// Each problem on its own line, each naming the file.
		prefix := "config " + path + ": "
		return errors.New(prefix + strings.ReplaceAll(err.Error(), "\n", "\n"+prefix))
	}
	return nil
}

func (c *Run) decode(data []byte) error {
	if err := strictjson.Check(data); err != nil {
		return err
	}
	next := *c
	next.LocalSkills = append([]string(nil), c.LocalSkills...)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&next); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			switch te.Type {
			case durationType:
				return fmt.Errorf("%s: %s: want a duration such as \"12s\"", te.Field, te.Value)
			case switchType:
				return fmt.Errorf("%s: %s: want off or a number", te.Field, te.Value)
			}
			return fmt.Errorf("%s: want a %s, not a %s", te.Field, te.Type, te.Value)
		}
		return err
	}
	if err := next.check(func(key string) string { return key }); err != nil {
		return err
	}
	*c = next
	return nil
}
