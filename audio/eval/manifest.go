// Package eval measures the robot's hearing on a folder of WAV files:
// wake hit rate, false wakes per hour of other speech, command accuracy
// (intent and slots), real-time factor and latency. `jibod audio eval`
// runs it over the real chain (transformer chain, VAD, listener, speech
// recogniser) and the robot's intent engines.
//
// A folder holds WAV files and manifest.jsonl, one JSON object a line:
//
//	{"file": "a.wav", "text": "hey jibo what time is it", "wake": true}
//
// text is what is said; wake says whether it starts with the wake phrase.
// Optional kind, noise and voice fields (scripts/gen-audio-testset.sh
// writes them) break the figures down.
package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/strictjson"
	"github.com/openjibo/jibod/internal/textcheck"
)

// ManifestName is the manifest's file name inside a test folder.
const ManifestName = "manifest.jsonl"

// Limits on a manifest.
const (
	MaxItems     = 20_000
	MaxLineBytes = 4096
	MaxTextBytes = 1024
	maxTagBytes  = 64
)

// KindOther marks an item as everyday speech: never a command, even
// when its words fit an intent template.
const KindOther = "other"

// KindCommand marks an item as a command: its text should mean something
// to the robot's skills, and when it does not the report says so (see
// Report.Unscored) rather than quietly leaving it out of the figures.
const KindCommand = "command"

// Item is one manifest line.
type Item struct {
	File  string `json:"file"`
	Text  string `json:"text"`
	Wake  bool   `json:"wake"`
	Kind  string `json:"kind,omitempty"`
	Noise string `json:"noise,omitempty"`
	Voice string `json:"voice,omitempty"`
	// SpeechFrom and SpeechTo, when the set knows them, are where the
	// spoken text begins and ends in the file, in seconds: the report sets
	// the utterances the detector found against them.
	SpeechFrom float64 `json:"speech_from_s,omitempty"`
	SpeechTo   float64 `json:"speech_to_s,omitempty"`
}

// maxSpeechAt bounds SpeechFrom and SpeechTo (seconds).
const maxSpeechAt = 3600

// ReadManifest reads dir/manifest.jsonl. Every line must be a valid item
// naming a file inside dir; an error names the line.
func ReadManifest(dir string) ([]Item, error) {
	f, err := os.Open(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	defer f.Close()
	return ParseManifest(f)
}

// ParseManifest reads manifest lines from r; blank lines are skipped.
func ParseManifest(r io.Reader) ([]Item, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, MaxLineBytes), MaxLineBytes)
	var items []Item
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if len(items) == MaxItems {
			return nil, fmt.Errorf("manifest line %d: more than %d items", n, MaxItems)
		}
		if err := strictjson.CheckMembers([]byte(line)); err != nil {
			return nil, fmt.Errorf("manifest line %d: %w", n, err)
		}
		var it Item
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&it); err != nil {
			return nil, fmt.Errorf("manifest line %d: %w", n, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("manifest line %d: more than one JSON object", n)
		}
		if err := it.check(); err != nil {
			return nil, fmt.Errorf("manifest line %d: %w", n, err)
		}
		if prev, ok := seen[it.File]; ok {
			return nil, fmt.Errorf("manifest line %d: file %q already listed on line %d", n, it.File, prev)
		}
		seen[it.File] = n
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("manifest: a line is longer than %d bytes", MaxLineBytes)
		}
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	if len(items) == 0 {
		return nil, errors.New("manifest: no items")
	}
	return items, nil
}

func (it Item) check() error {
	switch {
	case it.File == "":
		return errors.New(`"file" missing`)
	case filepath.IsAbs(it.File) || !filepath.IsLocal(it.File):
		return fmt.Errorf("file %q: want a path inside the folder", it.File)
	case !strings.EqualFold(filepath.Ext(it.File), ".wav"):
		return fmt.Errorf("file %q: want a .wav file", it.File)
	case len(it.Text) > MaxTextBytes || !utf8.ValidString(it.Text):
		return fmt.Errorf("text: want valid UTF-8 of at most %d bytes", MaxTextBytes)
	case strings.TrimSpace(it.Text) == "":
		return errors.New(`"text" missing or blank`)
	case !(it.SpeechFrom >= 0 && it.SpeechFrom <= maxSpeechAt) || !(it.SpeechTo >= it.SpeechFrom && it.SpeechTo <= maxSpeechAt):
		return fmt.Errorf("speech_from_s %v, speech_to_s %v: want 0 ≤ from ≤ to ≤ %d", it.SpeechFrom, it.SpeechTo, maxSpeechAt)
	}
	// The text is matched against what the recogniser heard.
	if err := textcheck.Line(it.Text); err != nil {
		return fmt.Errorf("text: %w", err)
	}
	for _, tag := range []string{it.Kind, it.Noise, it.Voice} {
		if len(tag) > maxTagBytes || !utf8.ValidString(tag) {
			return fmt.Errorf("tag %q: want valid UTF-8 of at most %d bytes", tag, maxTagBytes)
		}
	}
	return nil
}
