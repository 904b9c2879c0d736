package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/openjibo/jibod/audio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseManifest(t *testing.T) {
	good := `{"file":"a.wav","text":"hey jibo what time is it","wake":true,"kind":"command","noise":"clean","voice":"en-us/175/50"}

{"file":"sub/b.WAV","text":"the weather is nice","wake":false}
`
	items, err := ParseManifest(strings.NewReader(good))
	require.NoError(t, err)
	require.Len(t, items, 2)
	assert.Equal(t, Item{File: "a.wav", Text: "hey jibo what time is it", Wake: true, Kind: "command", Noise: "clean", Voice: "en-us/175/50"}, items[0])

	tests := []struct{ name, in, err string }{
		{"empty", "", "no items"},
		{"not json", "{", "line 1"},
		{"unknown field", `{"file":"a.wav","text":"x","wake":true,"extra":1}`, "unknown field"},
		{"no file", `{"text":"x"}`, `"file" missing`},
		{"escapes", `{"file":"../a.wav","text":"x"}`, "inside the folder"},
		{"absolute", `{"file":"/tmp/a.wav","text":"x"}`, "inside the folder"},
		{"not wav", `{"file":"a.mp3","text":"x"}`, ".wav"},
		{"blank text", `{"file":"a.wav","text":"  "}`, "blank"},
		{"twice", `{"file":"a.wav","text":"x"}` + "\n" + `{"file":"a.wav","text":"y"}`, "line 2: file \"a.wav\" already listed on line 1"},
		{"two objects", `{"file":"a.wav","text":"x"} {"file":"b.wav","text":"y"}`, "more than one"},
		{"long line", `{"file":"a.wav","text":"` + strings.Repeat("x", MaxLineBytes) + `"}`, "longer than"},
		{"long text", `{"file":"a.wav","text":"` + strings.Repeat("x", MaxTextBytes+1) + `"}`, "at most"},
		// Strict input (issue 22 items 9 and 10).
		{"text twice", `{"file":"a.wav","text":"x","text":"y"}`, `line 1: text: member given twice ("text")`},
		{"text not UTF-8", "{\"file\":\"a.wav\",\"text\":\"caf\xe9\"}", "line 1: text: invalid UTF-8"},
		{"text with a control character", `{"file":"a.wav","text":"stop\u001b[2J"}`, "line 1: text: control character U+001B (ESC)"},
		{"speech ends before it starts", `{"file":"a.wav","text":"x","speech_from_s":8,"speech_to_s":7}`, "want 0 ≤ from ≤ to"},
		{"speech before the file", `{"file":"a.wav","text":"x","speech_from_s":-1,"speech_to_s":2}`, "want 0 ≤ from ≤ to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseManifest(strings.NewReader(tt.in))
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

// scripted hears what its script says for each file, by the audio's
// length (the files are made with distinct lengths).
type scripted map[int]Heard

func (s scripted) Hear(_ context.Context, pcm []int16, open bool, _ time.Duration) (Heard, error) {
	h := s[len(pcm)]
	h.RecognizeTime = time.Duration(len(pcm)) * time.Second / audio.SampleRate / 50 // RTF 0.02
	h.RecognizeCPU = h.RecognizeTime / 2
	h.Speech = time.Duration(len(pcm)) * time.Second / audio.SampleRate
	h.Latencies = []time.Duration{100 * time.Millisecond}
	return h, nil
}

// meanings understands a fixed set of commands.
type meanings map[string]Meaning

func (m meanings) Understand(_ context.Context, text string) (Meaning, bool, error) {
	mm, ok := m[text]
	return mm, ok, nil
}

func writeWAV(t *testing.T, dir, name string, samples int) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, audio.EncodeWAV(&b, audio.SampleRate, 1, make([]int16, samples)))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644))
}

func TestRunScores(t *testing.T) {
	dir := t.TempDir()
	// Lengths tell the files apart; each is 1-2 s.
	files := []struct {
		item    Item
		samples int
		heard   Heard
	}{
		{Item{File: "w1.wav", Text: "hey jibo what time is it", Wake: true, Noise: "clean", Kind: "command"}, 16000,
			Heard{Wakes: 1, Commands: [][]string{{"what time is it"}}, Recognized: []string{"hey jibo what time is it"}}},
		{Item{File: "w2.wav", Text: "hey jibo set a timer for five minutes", Wake: true, Noise: "snr5", Kind: "command"}, 16001,
			Heard{Wakes: 1, Commands: [][]string{{"set a timer for nine minutes"}}, Recognized: []string{"hey jibo set a timer for nine minutes"}}},
		{Item{File: "w3.wav", Text: "hey jibo", Wake: true, Noise: "snr5", Kind: "wake"}, 16002,
			Heard{Recognized: []string{""}}},
		{Item{File: "c1.wav", Text: "what time is it", Wake: false, Noise: "clean", Kind: "command"}, 16003,
			Heard{Commands: [][]string{{"what time is it"}}, Recognized: []string{"what time is it"}}},
		{Item{File: "o1.wav", Text: "the weather in paris is lovely", Wake: false, Noise: "clean", Kind: "other"}, 32000,
			Heard{Wakes: 1, Commands: [][]string{{"what time is it"}}, Recognized: []string{"hey jibo what time is it"}}},
		{Item{File: "o2.wav", Text: "pass the salt", Wake: false, Noise: "snr5", Kind: "other"}, 32001,
			Heard{Recognized: []string{""}}},
		{Item{File: "o3.wav", Text: "the volume knob is stuck", Wake: false, Noise: "snr5", Kind: "other"}, 32002,
			Heard{Recognized: []string{""}}},
		// A command the skills do not understand as text: reported, not
		// scored.
		{Item{File: "u1.wav", Text: "hey jibo what can you do for me", Wake: true, Noise: "clean", Kind: "command"}, 16004,
			Heard{Wakes: 1, Commands: [][]string{{"what can you do"}}, Recognized: []string{"hey jibo what can you do"}}},
		{Item{File: "u2.wav", Text: "hey jibo what can you do for me", Wake: true, Noise: "snr5", Kind: "command"}, 16005,
			Heard{Wakes: 1, Commands: [][]string{{"what can you do"}}, Recognized: []string{"hey jibo what can you do"}}},
	}
	script := scripted{}
	var items []Item
	for _, f := range files {
		writeWAV(t, dir, f.item.File, f.samples)
		script[f.samples] = f.heard
		items = append(items, f.item)
	}
	items = append(items, Item{File: "missing.wav", Text: "hello", Kind: "command"})
	und := meanings{
		"what time is it":              {Intent: "clock:time"},
		"set a timer for five minutes": {Intent: "timer:set", Slots: map[string]string{"duration": "five minutes"}},
		"set a timer for nine minutes": {Intent: "timer:set", Slots: map[string]string{"duration": "nine minutes"}},
		"hello":                        {Intent: "basics:greet"},
		// Other speech whose words fit a template is still other speech.
		"the volume knob is stuck": {Intent: "volume:set", Slots: map[string]string{"level": "knob is stuck"}},
	}
	var progress []int
	rep, err := Run(context.Background(), dir, items, script, und, Options{Normalize: words, Progress: func(d, _ int) { progress = append(progress, d) }})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, progress)

	o := rep.Overall
	assert.Equal(t, 10, o.Files)
	assert.Equal(t, 1, o.Errors)
	assert.Equal(t, 5, o.WakeFiles)
	assert.Equal(t, 4, o.WakeHits)
	assert.InDelta(t, 4.0/5, o.WakeRate, 1e-9)
	assert.Equal(t, 1, o.FalseWakes)
	nonWake := float64(16003+32000+32001+32002) / audio.SampleRate
	assert.InDelta(t, nonWake, o.NonWakeSeconds, 1e-6)
	assert.InDelta(t, 3600/nonWake, o.FalseWakesPerH, 1e-6)
	assert.Equal(t, 3, o.Commands, "the bare wake phrase and other speech (even one that fits a template) are not commands; the unreadable file is not scored")
	assert.Equal(t, 2, o.CommandsCorrect, "a wrong slot is a wrong command")
	assert.Equal(t, 3, o.OtherFiles, "an unscored command is not other speech")
	assert.Equal(t, 2, o.Unscored)
	assert.Equal(t, 1, o.OtherAsCommands)
	assert.Equal(t, 1, o.OtherActedOn)
	assert.InDelta(t, 0.02, o.RealTimeFactor, 1e-3)
	assert.InDelta(t, 0.01, o.CPURealTimeFactor, 1e-3)
	assert.Equal(t, 100.0, o.LatencyP50Millis)

	assert.Equal(t, 1.0, rep.ByNoise["clean"].CommandAccuracy)
	assert.True(t, math.IsNaN(rep.ByKind["other"].CommandAccuracy))

	var whats []string
	for _, m := range rep.Mistakes() {
		whats = append(whats, m.What+" "+m.File)
	}
	assert.Equal(t, []string{"wrong action w2.wav", "missed wake w3.wav", "false wake o1.wav", "unreadable missing.wav"}, whats)
	assert.Equal(t, 2, o.WrongActions, "the timer set for nine minutes, and the other speech acted on")
	assert.Zero(t, o.OppositeActions)
	assert.InDelta(t, 1.0/3, o.WrongActionRate, 1e-9, "a command heard as another, of three commands")

	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "wake hits         80.0 % (4 of 5)  goal ≥ 95 %: BELOW the goal")
	assert.Equal(t, []string{"hey jibo what can you do for me"}, rep.Unscored(), "once per text")
	assert.Contains(t, text.String(), "WARNING: 1 command texts (2 files) mean nothing to the skills as text, so those files are not scored:\n  \"hey jibo what can you do for me\"\n")
	assert.Contains(t, text.String(), "real-time factor  0.010 CPU (0.020 wall)  goal ≤ 0.05: meets the goal")
	assert.Contains(t, text.String(), `want timer:set duration="five minutes" got timer:set duration="nine minutes"`)

	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	var decoded map[string]any
	require.NoError(t, json.Unmarshal(js.Bytes(), &decoded), "NaN never reaches JSON")
	assert.Equal(t, -1.0, decoded["by_kind"].(map[string]any)["other"].(map[string]any)["command_accuracy"])
	assert.Equal(t, []any{"hey jibo what can you do for me"}, decoded["unscored"])
}

// TestWrongAndOppositeActions: issue 24 item 3 counts a command acted on
// as another apart from one missed, and an opposite action (down heard as
// up, set heard as cancel) apart again.
func TestWrongAndOppositeActions(t *testing.T) {
	dir := t.TempDir()
	files := []struct {
		item    Item
		samples int
		heard   Heard
	}{
		{Item{File: "down.wav", Text: "turn it down", Kind: "command"}, 16000,
			Heard{Commands: [][]string{{"turn it up"}}, Recognized: []string{"turn it up"}}},
		{Item{File: "set.wav", Text: "set a timer", Kind: "command"}, 16001,
			Heard{Commands: [][]string{{"cancel the timer"}}, Recognized: []string{"cancel the timer"}}},
		{Item{File: "vol.wav", Text: "volume four", Kind: "command"}, 16002,
			Heard{Commands: [][]string{{"volume forty one"}}, Recognized: []string{"volume forty one"}}},
		{Item{File: "miss.wav", Text: "mute", Kind: "command"}, 16003,
			Heard{Commands: [][]string{{"mumble"}}, Recognized: []string{"mumble"}}},
		{Item{File: "none.wav", Text: "unmute", Kind: "command"}, 16004, Heard{Recognized: []string{""}}},
		{Item{File: "ok.wav", Text: "turn it up", Kind: "command"}, 16005,
			Heard{Commands: [][]string{{"turn it up"}}, Recognized: []string{"turn it up"}}},
	}
	script := scripted{}
	var items []Item
	for _, f := range files {
		writeWAV(t, dir, f.item.File, f.samples)
		script[f.samples] = f.heard
		items = append(items, f.item)
	}
	und := meanings{
		"turn it down":     {Intent: "jibo.volume:volume_down"},
		"turn it up":       {Intent: "jibo.volume:volume_up"},
		"set a timer":      {Intent: "jibo.timer:set_timer"},
		"cancel the timer": {Intent: "jibo.timer:cancel_timer"},
		"volume four":      {Intent: "jibo.volume:volume_set", Slots: map[string]string{"level": "four"}},
		"volume forty one": {Intent: "jibo.volume:volume_set", Slots: map[string]string{"level": "forty one"}},
		"mute":             {Intent: "jibo.volume:mute"},
		"unmute":           {Intent: "jibo.volume:unmute"},
	}
	rep, err := Run(context.Background(), dir, items, script, und, Options{Normalize: words})
	require.NoError(t, err)
	o := rep.Overall
	assert.Equal(t, 6, o.Commands)
	assert.Equal(t, 1, o.CommandsCorrect)
	assert.Equal(t, 3, o.WrongActions, "down as up, set as cancel, four as forty one; the misses are not wrong actions")
	assert.Equal(t, 2, o.OppositeActions)
	assert.InDelta(t, 0.5, o.WrongActionRate, 1e-9)
	var whats []string
	for _, m := range rep.Mistakes() {
		whats = append(whats, m.What+" "+m.File)
	}
	assert.Equal(t, []string{"opposite action down.wav", "opposite action set.wav", "wrong action vol.wav", "no intent miss.wav", "no command none.wav"}, whats)
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "wrong actions     50.0 % of commands (3 commands heard as another)  goal ≤ 2 %: BELOW the goal")
	assert.Contains(t, text.String(), "opposite actions  2 ")
	assert.False(t, Opposite("jibo.volume:volume_up", "other.skill:volume_down"), "opposites belong to one skill")
}

// words is the tests' text normaliser: lower case, letters and digits,
// single spaces.
func words(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// The manifest's text and the wake phrase are read through the
// normaliser the wiring hands in, as the intent engines would read them.
func TestRunReadsTextThroughTheNormaliser(t *testing.T) {
	dir := t.TempDir()
	writeWAV(t, dir, "a.wav", 16000)
	script := scripted{16000: {Wakes: 1, Commands: [][]string{{"what time is it"}}, Recognized: []string{"hey jibo what time is it"}}}
	und := meanings{"what time is it": {Intent: "clock:time"}}
	items := []Item{{File: "a.wav", Text: "Hey Jibo, what time is it?", Wake: true, Noise: "clean", Kind: "command"}}
	rep, err := Run(context.Background(), dir, items, script, und, Options{Normalize: words, Wake: "Hey, Jibo"})
	require.NoError(t, err)
	require.Len(t, rep.Results, 1)
	assert.Equal(t, Meaning{Intent: "clock:time"}, rep.Results[0].Truth)
	assert.True(t, rep.Results[0].TruthOK)
	assert.Equal(t, 1, rep.Overall.WakeHits)
	assert.Equal(t, 1, rep.Overall.CommandsCorrect)

	_, err = Run(context.Background(), dir, items, script, und, Options{})
	assert.ErrorContains(t, err, "no text normaliser")
}

func TestRunRefusesAWakeItemWithoutThePhrase(t *testing.T) {
	_, err := Run(context.Background(), t.TempDir(), []Item{{File: "a.wav", Text: "what time is it", Wake: true}},
		scripted{}, meanings{}, Options{Normalize: words})
	assert.ErrorContains(t, err, `does not start with "hey jibo"`)
}

func TestSameMeaningComparesReadValues(t *testing.T) {
	timer := func(words, read string) Meaning {
		m := Meaning{Intent: "timer:set", Slots: map[string]string{"duration": words}}
		if read != "" {
			m.Read = map[string]string{"duration": read}
		}
		return m
	}
	tests := []struct {
		name string
		a, b Meaning
		want bool
	}{
		{"same words", timer("two minutes", ""), timer("two minutes", ""), true},
		{"other words, no values read", timer("two minute", ""), timer("two minutes", ""), false},
		{"other words, same value read", timer("two minute", "2m0s"), timer("two minutes", "2m0s"), true},
		{"other values read", timer("two minutes", "2m0s"), timer("ten minutes", "10m0s"), false},
		{"a value on one side only: words compared", timer("two minutes", "2m0s"), timer("the fan of", ""), false},
		{"other intent", timer("two minutes", "2m0s"), Meaning{Intent: "timer:cancel", Slots: map[string]string{"duration": "two minutes"}, Read: map[string]string{"duration": "2m0s"}}, false},
		{"a slot missing", timer("two minutes", "2m0s"), Meaning{Intent: "timer:set"}, false},
		{"other slot name", timer("two minutes", ""), Meaning{Intent: "timer:set", Slots: map[string]string{"length": "two minutes"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SameMeaning(tt.a, tt.b))
			assert.Equal(t, tt.want, SameMeaning(tt.b, tt.a), "symmetric")
		})
	}
}

// Measuring the wake word alone: no understander is asked, only wakes
// are scored, and the report says so.
func TestRunWakeOnly(t *testing.T) {
	dir := t.TempDir()
	files := []struct {
		item    Item
		samples int
		heard   Heard
	}{
		{Item{File: "w1.wav", Text: "hey jibo what is the weather on mars", Wake: true, Noise: "babble5", Kind: "unknown"}, 16000,
			Heard{Wakes: 1, WakeCPU: 20 * time.Millisecond}},
		{Item{File: "w2.wav", Text: "hey jibo what time is it", Wake: true, Noise: "clean", Kind: "command"}, 16001,
			Heard{WakeCPU: 20 * time.Millisecond}},
		{Item{File: "d1.wav", Text: "hey jimbo", Wake: false, Noise: "clean", Kind: "decoy"}, 16002,
			Heard{Wakes: 1, WakeCPU: 20 * time.Millisecond}},
		{Item{File: "t1.wav", Text: "conversation", Wake: false, Noise: "babble5", Kind: "talk"}, 16003,
			Heard{WakeCPU: 20 * time.Millisecond}},
	}
	script := scripted{}
	var items []Item
	for _, f := range files {
		writeWAV(t, dir, f.item.File, f.samples)
		script[f.samples] = f.heard
		items = append(items, f.item)
	}
	rep, err := Run(context.Background(), dir, items, script, nil, Options{Normalize: words, WakeOnly: true})
	require.NoError(t, err)
	o := rep.Overall
	assert.Equal(t, 2, o.WakeFiles)
	assert.Equal(t, 1, o.WakeHits)
	assert.Equal(t, 1, o.FalseWakes)
	assert.Zero(t, o.Commands+o.OtherFiles+o.Unscored, "nothing but wakes is scored")
	assert.InDelta(t, 0.02, o.WakeCPURealTimeFactor, 1e-4)
	assert.Equal(t, 1, rep.ByKind["decoy"].FalseWakes)
	assert.Equal(t, 1.0, rep.ByNoise["babble5"].WakeRate)
	assert.Nil(t, rep.Unscored())

	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	s := text.String()
	assert.Contains(t, s, "wake hits         50.0 % (1 of 2)")
	assert.Contains(t, s, "wake word CPU     0.0200 of real time")
	assert.NotContains(t, s, "command accuracy")
	assert.Contains(t, s, "   decoy                1          -  1 (3599.6)")
	var whats []string
	for _, m := range rep.Mistakes() {
		whats = append(whats, m.What+" "+m.File)
	}
	assert.Equal(t, []string{"missed wake w2.wav", "false wake d1.wav"}, whats)
}

// A mistake says where the command was lost: the utterances against where
// the speech is, and what the recogniser found and what dropped it.
func TestMistakesSayWhy(t *testing.T) {
	dir := t.TempDir()
	writeWAV(t, dir, "c.wav", 16000)
	item := Item{File: "c.wav", Text: "what time is it", Kind: "command", SpeechFrom: 8, SpeechTo: 9.25}
	heard := Heard{Recognized: []string{""},
		Spans: []Span{{Start: 100 * time.Millisecond, End: 5500 * time.Millisecond, Reason: "silence"},
			{Start: 8040 * time.Millisecond, End: 9100 * time.Millisecond, Reason: "silence"}},
		Decisions: []Decision{{Audio: 1800 * time.Millisecond,
			Verdict: audio.Verdict{Sentence: "whats the time", Confidence: 0.41, Coverage: 1, Dropped: "confidence", SNR: 12.2,
				Fallback: "guess", Transcript: "whats the tide", TranscriptConfidence: 0.9, TranscriptCoverage: 0.95,
				Claim: "clock:time", ClaimScore: 0.8}}}}
	und := meanings{"what time is it": {Intent: "clock:time"}}
	rep, err := Run(context.Background(), dir, []Item{item}, scripted{16000: heard}, und, Options{Normalize: words})
	require.NoError(t, err)
	ms := rep.Mistakes()
	require.Len(t, ms, 1)
	assert.Equal(t, "no command", ms[0].What)
	assert.Equal(t, `utterances 0.10–5.50 s (silence), 8.04–9.10 s (silence) for speech at 8.00–9.25 s; `+
		`recognised 1.80 s (SNR 12 dB): "whats the time" confidence 0.41 coverage 1.00, dropped by confidence; `+
		`fallback: "whats the tide" confidence 0.90 coverage 0.95 claimed by clock:time at 0.80, guess`, ms[0].Why)
}

// TestFilesCarryTheVerdicts: the JSON report gives every file's
// recognitions with what the recogniser measured, the acceptance model's
// probability and features among them (what scripts/train-accept.py
// learns from) and the background measure the speech enhancement was
// gated on, where the detector found each utterance, and a mistake's why names the model's probability and
// whether the utterance was enhanced.
func TestFilesCarryTheVerdicts(t *testing.T) {
	dir := t.TempDir()
	writeWAV(t, dir, "c.wav", 16000)
	item := Item{File: "c.wav", Text: "what time is it", Kind: "command"}
	heard := Heard{Recognized: []string{""}, Spans: []Span{{Start: 200 * time.Millisecond, End: 1700 * time.Millisecond, Reason: "silence"}},
		Decisions: []Decision{{Audio: 1500 * time.Millisecond,
			Verdict: audio.Verdict{Sentence: "whats the date", Confidence: 0.9, Coverage: 0.95, SNR: 20, Background: 5.6, Enhanced: true,
				Accept: 0.3, Features: []float64{-40, 0.95}, Dropped: "acceptance"}}}}
	und := meanings{"what time is it": {Intent: "clock:time"}}
	rep, err := Run(context.Background(), dir, []Item{item}, scripted{16000: heard}, und, Options{Normalize: words})
	require.NoError(t, err)
	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	var decoded struct {
		Files []FileResult `json:"files"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &decoded))
	require.Len(t, decoded.Files, 1)
	assert.Equal(t, []FileDecision{{AudioSeconds: 1.5, Sentence: "whats the date", Confidence: 0.9, Coverage: 0.95,
		Accept: 0.3, SNR: 20, Background: 5.6, Enhanced: true, Dropped: "acceptance", Features: []float64{-40, 0.95}}}, decoded.Files[0].Decisions)
	assert.Equal(t, []FileSpan{{Start: 0.2, End: 1.7, Reason: "silence"}}, decoded.Files[0].Utterances)
	ms := rep.Mistakes()
	require.Len(t, ms, 1)
	assert.Contains(t, ms[0].Why, `recognised 1.50 s (SNR 20 dB, background 5.6 dB, enhanced): "whats the date" confidence 0.90 coverage 0.95 acceptance 0.30, dropped by acceptance`)
}

// quarterSpeech hears a quarter of each file as speech and spends 0.04 s
// of CPU on each second of it.
type quarterSpeech struct{}

func (quarterSpeech) Hear(_ context.Context, pcm []int16, _ bool, _ time.Duration) (Heard, error) {
	speech := time.Duration(len(pcm)) * time.Second / audio.SampleRate / 4
	return Heard{Speech: speech, RecognizeTime: speech / 20, RecognizeCPU: speech / 25, Recognized: []string{""}}, nil
}

// TestCPUPerAudioSecond: cpu_rtf is the recogniser's CPU over the speech
// handed to it; cpu_per_audio_s over all the set's audio, which a
// listening robot pays for.
func TestCPUPerAudioSecond(t *testing.T) {
	dir := t.TempDir()
	var items []Item
	for i, n := range []int{16000, 48000} {
		it := Item{File: fmt.Sprintf("o%d.wav", i), Text: "pass the salt", Kind: "other"}
		writeWAV(t, dir, it.File, n)
		items = append(items, it)
	}
	rep, err := Run(context.Background(), dir, items, quarterSpeech{}, meanings{}, Options{Normalize: words})
	require.NoError(t, err)
	o := rep.Overall
	assert.InDelta(t, 4.0, o.AudioSeconds, 1e-9)
	assert.InDelta(t, 0.04, o.CPURealTimeFactor, 1e-9, "CPU per second of speech, as before")
	assert.InDelta(t, 0.01, o.CPUPerAudioSecond, 1e-9, "CPU per second of all the audio")

	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	var doc struct {
		Overall map[string]any `json:"overall"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	assert.InDelta(t, 0.01, doc.Overall["cpu_per_audio_s"], 1e-9)
	assert.InDelta(t, 0.04, doc.Overall["cpu_rtf"], 1e-9)
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "recogniser CPU    0.0100 s per second of all the audio (0.0 of 0.1 min handed to it)")
}

// TestLostSaysWhereACommandWasLost: each command the robot did not act
// on is counted by where it was lost, and a refused sentence is read to
// tell a floor refusing the command said from one refusing another; a
// command right or heard as another is no loss.
func TestLostSaysWhereACommandWasLost(t *testing.T) {
	dir := t.TempDir()
	und := meanings{"what time is it": {Intent: "clock:time"}, "whats the time": {Intent: "clock:time"},
		"whats the date": {Intent: "clock:date"}, "and the time": {Intent: "clock:time_followup"}}
	decided := func(v audio.Verdict) Heard {
		return Heard{Wakes: 1, Recognized: []string{v.Sentence}, Decisions: []Decision{{Audio: time.Second, Verdict: v}}}
	}
	tests := []struct {
		name  string
		wake  bool
		heard Heard
		want  string
	}{
		{"the wake phrase not spotted", true, Heard{}, LostWake},
		{"nothing recognised after the phrase", true, Heard{Wakes: 1}, LostNoUtterance},
		{"the garbage path won", true, decided(audio.Verdict{Sentence: "=the =do", Dropped: "garbage"}), LostGarbage},
		{"a floor refused the command said", true, decided(audio.Verdict{Sentence: "whats the time", Confidence: 0.5, Dropped: "confidence"}), LostRefusedRight},
		{"a floor refused another sentence", false, decided(audio.Verdict{Sentence: "whats the date", Confidence: 0.5, Dropped: "confidence"}), LostRefusedOther},
		{"no sentence", false, decided(audio.Verdict{Dropped: "no sentence"}), LostNoSentence},
		{"heard as a wake decoy", false, decided(audio.Verdict{Sentence: "hey jay whats the time", Dropped: "decoy"}), LostDecoy},
		{"a sentence sent that means nothing here", false,
			Heard{Recognized: []string{"and the time"}, Commands: [][]string{{"and the follow"}},
				Decisions: []Decision{{Audio: time.Second, Verdict: audio.Verdict{Sentence: "and the follow"}}}}, LostNoIntent},
		{"right: no loss", false, Heard{Recognized: []string{"whats the time"}, Commands: [][]string{{"whats the time"}}}, ""},
		{"another command: no loss", false, Heard{Recognized: []string{"whats the date"}, Commands: [][]string{{"whats the date"}}}, ""},
	}
	var items []Item
	heard := scripted{}
	for i, tt := range tests {
		n := 1600 * (i + 1)
		name := fmt.Sprintf("c%d.wav", i)
		writeWAV(t, dir, name, n)
		text := "what time is it"
		if tt.wake {
			text = "hey jibo " + text
		}
		items = append(items, Item{File: name, Text: text, Kind: "command", Wake: tt.wake})
		heard[n] = tt.heard
	}
	// A command whose file cannot be read is an error, not a command.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.wav"), []byte("not a wav"), 0o644))
	items = append(items, Item{File: "bad.wav", Text: "what time is it", Kind: "command"})
	rep, err := Run(context.Background(), dir, items, heard, und, Options{Normalize: words})
	require.NoError(t, err)
	for i, tt := range tests {
		assert.Equal(t, tt.want, rep.Results[i].Lost, tt.name)
	}
	o := rep.Overall
	assert.Equal(t, 1, o.Errors)
	lostBy := 0
	for _, n := range o.LostBy {
		lostBy += n
	}
	assert.Equal(t, o.Commands-o.CommandsCorrect-o.WrongActions, lostBy, "every command not acted on is in a bucket")
	assert.Equal(t, map[string]int{LostWake: 1, LostNoUtterance: 1, LostGarbage: 1, LostRefusedRight: 1, LostRefusedOther: 1,
		LostNoSentence: 1, LostNoIntent: 1, LostDecoy: 1}, rep.Overall.LostBy)
	var text bytes.Buffer
	require.NoError(t, rep.WriteText(&text))
	assert.Contains(t, text.String(), "commands lost     garbage path 1, no intent 1, no sentence 1, no utterance 1, refused another sentence 1, refused the right sentence 1, wake 1, wake decoy 1 (not acted on, by where)")
}

// TestByWakeSaysWhenTheVoicesDiffer: the report splits the files by
// the wake phrase, and says so when no voice says commands both ways
// (a set whose halves differ by voice too: the twin's, 29 of 72 right
// with the phrase against 44 without, were all voice).
func TestByWakeSaysWhenTheVoicesDiffer(t *testing.T) {
	note := "NOTE: no voice says commands both with and without the wake phrase"
	tests := []struct {
		name     string
		voices   [4]string // with the phrase, with, without, without
		wantNote bool
	}{
		{"apart", [4]string{"en-gb/175/50", "en-029/150/60", "en-us+m1/175/50", "en-us+f2/200/45"}, true},
		{"one voice says both", [4]string{"en-gb/175/50", "en-us+m1/150/60", "en-us+m1/175/50", "en-us+f2/200/45"}, false},
		{"no voices named", [4]string{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			right := Heard{Wakes: 1, Commands: [][]string{{"what time is it"}}}
			script := scripted{16000: right, 16001: Heard{Wakes: 1}, 16002: right, 16003: right}
			var items []Item
			for i, v := range tc.voices {
				f := fmt.Sprintf("c%d.wav", i)
				writeWAV(t, dir, f, 16000+i)
				it := Item{File: f, Text: "what time is it", Kind: "command", Voice: v}
				if i < 2 {
					it.Text, it.Wake = "hey jibo what time is it", true
				}
				items = append(items, it)
			}
			rep, err := Run(context.Background(), dir, items, script, meanings{"what time is it": {Intent: "clock:time"}}, Options{Normalize: words})
			require.NoError(t, err)
			assert.Equal(t, 1, rep.ByWake[WithWake].CommandsCorrect)
			assert.Equal(t, 2, rep.ByWake[WithWake].Commands)
			assert.Equal(t, 2, rep.ByWake[WithoutWake].CommandsCorrect)
			var text bytes.Buffer
			require.NoError(t, rep.WriteText(&text))
			assert.Contains(t, text.String(), "\nby wake ")
			if tc.wantNote {
				assert.Contains(t, text.String(), note)
			} else {
				assert.NotContains(t, text.String(), note)
			}
			var js bytes.Buffer
			require.NoError(t, rep.WriteJSON(&js))
			var decoded struct {
				ByWake map[string]map[string]any `json:"by_wake"`
			}
			require.NoError(t, json.Unmarshal(js.Bytes(), &decoded))
			assert.InDelta(t, 0.5, decoded.ByWake[WithWake]["command_accuracy"], 1e-9)
		})
	}
}
