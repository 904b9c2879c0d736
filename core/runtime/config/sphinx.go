package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/audio/sphinx"
)

// The environment variables of the speech recogniser's settings
// (Sphinx), and of the state folder and the hub.
const (
	EnvSphinxModel      = "JIBOD_SPHINX_MODEL"
	EnvSphinxDict       = "JIBOD_SPHINX_DICT"
	EnvSphinxArgs       = "JIBOD_SPHINX_ARGS"
	EnvSphinxNBest      = "JIBOD_SPHINX_NBEST"
	EnvSphinxFloors     = "JIBOD_SPHINX_FLOORS"
	EnvSphinxNoiseFloor = "JIBOD_SPHINX_NOISE_FLOOR"
	EnvSphinxTrim       = "JIBOD_SPHINX_TRIM_MS"
	EnvSphinxDenoise    = "JIBOD_SPHINX_DENOISE_DB"
	EnvSphinxDecoys     = "JIBOD_SPHINX_DECOYS"
	EnvSphinxLM         = "JIBOD_SPHINX_LM"
	EnvSphinxSearch     = "JIBOD_SPHINX_SEARCH"

	EnvStateDir = "JIBOD_STATE_DIR"
	EnvHubURL   = "JIBOD_HUB_URL"
	EnvHubToken = "JIBOD_HUB_TOKEN"
)

// maxNBest is sphinx.MaxNBest, which only the sphinx build has
// (TestMaxNBestIsTheRecognisers checks them equal there).
const maxNBest = 20

// Sphinx is the speech recogniser's settings (the sphinx build's; other
// builds check them and hear nothing). Zero values leave the
// recogniser's own defaults.
type Sphinx struct {
	// Model is the acoustic model folder; "" is the state folder's
	// adapted model when there is one, else Debian's.
	Model string `json:"model"`
	// Dict is the pronouncing dictionary; "" is Debian's.
	Dict string `json:"dict"`
	// Args are extra pocketsphinx flags, for tuning.
	Args string `json:"args"`
	// NBest is how many hypotheses an utterance gives, 1..20; 0 is 1.
	NBest int `json:"nbest"`
	// Floors override the rejection floors, for tuning.
	Floors *Floors `json:"floors"`
	// NoiseFloorDB is how far under the speech (10..60 dB) a quieter
	// noise floor is raised before decoding; 0 is the recogniser's.
	NoiseFloorDB float64 `json:"noise_floor_db"`
	// TrimMS is how much audio (1..2000 ms, or off for all of it) is
	// decoded either side of an utterance's loud frames.
	TrimMS Switch `json:"trim_ms"`
	// DenoiseDB is the signal-to-noise ratio (1..40 dB, or off for
	// never) under which an utterance's noise is suppressed.
	DenoiseDB Switch `json:"denoise_db"`
	// Decoys "off" leaves the wake decoys out of the grammar, for
	// measuring what they do; "" or "on" keeps them.
	Decoys string `json:"decoys"`
	// LM turns the open-vocabulary pass on: "debian" for Debian's en-us
	// language model, or a language model file; "" or "off" for none.
	LM string `json:"lm"`
	// Search is how commands are decoded: "grammar" against the command
	// grammar alone; "ngram" with the domain language model made from
	// every wording of the skills' sentences, which transcribes what it
	// does not hold instead of forcing it onto a command; "verify"
	// against the grammar, the sentence found then checked against the
	// domain language model's transcript of the same audio; "fallback"
	// (or "", the default, with the wake word detector) against the
	// grammar, the domain language model transcribing only what the
	// grammar refuses, acted on when an intent's parse claims it surely.
	Search string `json:"search"`
}

// The values of Sphinx.Search.
const (
	SearchGrammar = "grammar"
	SearchNGram   = "ngram"
	SearchVerify  = "verify"
	// SearchFallback: the grammar, and the domain language model where
	// its sentence is refused.
	SearchFallback = "fallback"
)

// Floors are the recogniser's rejection floors, each in [0, 1].
type Floors struct {
	Confidence     float64 `json:"confidence"`
	Coverage       float64 `json:"coverage"`
	WakeConfidence float64 `json:"wake_confidence"`
	WakeCoverage   float64 `json:"wake_coverage"`
}

// Switch is a number or off; the zero value is neither (unset).
type Switch struct {
	Off   bool
	Value float64
}

// UnmarshalJSON takes a number or "off".
func (s *Switch) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err == nil {
		*s = Switch{Value: v}
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err == nil && str == "off" {
		*s = Switch{Off: true}
		return nil
	}
	return &json.UnmarshalTypeError{Value: string(b), Type: switchType}
}

// String is the value as the environment writes it: "" unset, "off" or
// the number.
func (s Switch) String() string {
	switch {
	case s.Off:
		return "off"
	case s.Value == 0:
		return ""
	}
	return strconv.FormatFloat(s.Value, 'g', -1, 64)
}

func parseSwitch(v string) (Switch, error) {
	if v == "off" {
		return Switch{Off: true}, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return Switch{}, err
	}
	return Switch{Value: f}, nil
}

// parseSetSwitch is parseSwitch for a variable that is set: 0 there
// would read as unset, so it is refused with want.
func parseSetSwitch(v, want string) (Switch, error) {
	sw, err := parseSwitch(v)
	if err == nil && !sw.Off && sw.Value == 0 {
		err = errors.New("want " + want)
	}
	return sw, err
}

// ApplyEnv sets the fields the environment gives (getenv's non-empty
// values) over c: the state folder, the hub and the recogniser's
// settings. A value that does not parse is refused naming the variable;
// c is then unchanged.
func (c *Run) ApplyEnv(getenv func(string) string) error {
	next := *c
	var errs []error
	set := func(name string, f func(v string) error) {
		if v := getenv(name); v != "" {
			if err := f(v); err != nil {
				errs = append(errs, fmt.Errorf("$%s=%q: %w", name, v, err))
			}
		}
	}
	str := func(p *string) func(string) error { return func(v string) error { *p = v; return nil } }
	set(EnvStateDir, str(&next.State))
	set(EnvHubURL, str(&next.Hub.URL))
	set(EnvHubToken, str(&next.Hub.TokenFile))
	s := &next.Sphinx
	set(EnvSphinxModel, str(&s.Model))
	set(EnvSphinxDict, str(&s.Dict))
	set(EnvSphinxArgs, str(&s.Args))
	set(EnvSphinxDecoys, str(&s.Decoys))
	set(EnvSphinxLM, str(&s.LM))
	set(EnvSphinxSearch, str(&s.Search))
	set(EnvSphinxNBest, func(v string) (err error) { s.NBest, err = strconv.Atoi(v); return err })
	set(EnvSphinxNoiseFloor, func(v string) (err error) { s.NoiseFloorDB, err = strconv.ParseFloat(v, 64); return err })
	set(EnvSphinxTrim, func(v string) (err error) {
		s.TrimMS, err = parseSetSwitch(v, fmt.Sprintf("off or a whole number of milliseconds from 1 to %d", sphinx.MaxTrimMargin.Milliseconds()))
		return err
	})
	set(EnvSphinxDenoise, func(v string) (err error) {
		s.DenoiseDB, err = parseSetSwitch(v, fmt.Sprintf("off or a number of dB from 1 to %g", sphinx.MaxDenoiseBelowSNR))
		return err
	})
	set(EnvSphinxFloors, func(v string) error {
		parts := strings.Split(v, ",")
		if len(parts) != 4 {
			return errors.New("want four numbers, confidence,coverage,wake-confidence,wake-coverage")
		}
		var f [4]float64
		for i, p := range parts {
			var err error
			if f[i], err = strconv.ParseFloat(strings.TrimSpace(p), 64); err != nil {
				return fmt.Errorf("%q is not a number", p)
			}
		}
		s.Floors = &Floors{Confidence: f[0], Coverage: f[1], WakeConfidence: f[2], WakeCoverage: f[3]}
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// Each variable names its own value when it is out of range.
	envName := map[string]string{"state": EnvStateDir, "hub.url": EnvHubURL, "hub.token_file": EnvHubToken,
		"sphinx.nbest": EnvSphinxNBest, "sphinx.floors": EnvSphinxFloors, "sphinx.noise_floor_db": EnvSphinxNoiseFloor,
		"sphinx.trim_ms": EnvSphinxTrim, "sphinx.denoise_db": EnvSphinxDenoise, "sphinx.decoys": EnvSphinxDecoys,
		"sphinx.lm": EnvSphinxLM, "sphinx.search": EnvSphinxSearch}
	if err := next.Sphinx.check(func(key string) string {
		if n, ok := envName[key]; ok && getenv(n) != "" {
			return "$" + n
		}
		return key
	}); err != nil {
		return err
	}
	*c = next
	return nil
}

func (s Sphinx) check(name func(string) string) error {
	var errs []error
	add := func(key, want string, v any) {
		errs = append(errs, fmt.Errorf("%s %s: want %s", name(key), quote(v), want))
	}
	if s.NBest < 0 || s.NBest > maxNBest {
		add("sphinx.nbest", fmt.Sprintf("1 to %d", maxNBest), s.NBest)
	}
	if f := s.Floors; f != nil {
		for _, v := range []float64{f.Confidence, f.Coverage, f.WakeConfidence, f.WakeCoverage} {
			if !(v >= 0 && v <= 1) { // NaN too
				add("sphinx.floors", "four numbers in [0, 1]", v)
				break
			}
		}
	}
	if db := s.NoiseFloorDB; db != 0 && !(db >= 10 && db <= 60) {
		add("sphinx.noise_floor_db", "a number of dB from 10 to 60", db)
	}
	if ms := s.TrimMS; !ms.Off && ms.Value != 0 && !(ms.Value >= 1 && ms.Value <= float64(sphinx.MaxTrimMargin.Milliseconds()) && ms.Value == float64(int(ms.Value))) {
		add("sphinx.trim_ms", fmt.Sprintf("off or a whole number of milliseconds from 1 to %d", sphinx.MaxTrimMargin.Milliseconds()), ms.Value)
	}
	if db := s.DenoiseDB; !db.Off && db.Value != 0 && !(db.Value >= 1 && db.Value <= sphinx.MaxDenoiseBelowSNR) {
		add("sphinx.denoise_db", fmt.Sprintf("off or a number of dB from 1 to %g", sphinx.MaxDenoiseBelowSNR), db.Value)
	}
	switch s.Decoys {
	case "", "on", "off":
	default:
		add("sphinx.decoys", "on or off", s.Decoys)
	}
	switch s.Search {
	case "", SearchGrammar, SearchNGram, SearchVerify, SearchFallback:
	default:
		add("sphinx.search", SearchGrammar+", "+SearchNGram+", "+SearchVerify+" or "+SearchFallback, s.Search)
	}
	switch s.LM {
	case "", "off", "debian":
	default:
		if err := fileExists(s.LM); err != nil {
			errs = append(errs, fmt.Errorf("%s: want off, debian or a language model file: %w", name("sphinx.lm"), err))
		}
	}
	return errors.Join(errs...)
}

var switchType = reflect.TypeFor[Switch]()
