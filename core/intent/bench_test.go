package intent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/openjibo/jibod/core/session"
)

var benchVocab = map[string][]string{
	"what_is": {"what is", "what's", "tell me"},
	"the":     {"the", "my", "our"},
	"class":   {"battery [level]", "temperature", "humidity", "(power|energy) usage"},
}

func BenchmarkExpand(b *testing.B) {
	templates := map[string]string{
		"worked":     "open (the|) (door|gate)",
		"vocabulary": "<what_is> [<the>] {name}['s] <class> [in [<the>] {area}]",
		"wide":       "(a|b|c|d|e) (f|g|h|i|j) (k|l|m|n|o) [p] [q] {x}",
	}
	for name, tpl := range templates {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Expand(tpl, benchVocab, ExpandOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchIntents generates n intents with four templates each: unique words
// so most samples anchor on a rare word, and shared phrasing so some
// anchors are crowded.
func benchIntents(n int) []TemplateIntent {
	defs := make([]TemplateIntent, n)
	for i := range defs {
		defs[i] = TemplateIntent{
			SkillID: fmt.Sprintf("skill%d", i%50), IntentName: fmt.Sprintf("intent%d", i), Lang: "en-us",
			Samples: []string{
				fmt.Sprintf("(turn|switch) on [the] device%d", i),
				fmt.Sprintf("set [the] device%d to {value} [percent]", i),
				fmt.Sprintf("what is the status of device%d in [the] {room}", i),
				fmt.Sprintf("(play|start) {item} on speaker%d", i),
			},
			Entities: map[string][]string{"room": {"kitchen", "living room", "bedroom"}},
		}
		if i%10 == 0 {
			defs[i].Samples = append(defs[i].Samples, "tell me about {topic}", "what is {topic}")
		}
	}
	return defs
}

func newBenchEngine(b *testing.B, defs []TemplateIntent) *TemplateEngine {
	e := NewTemplateEngine(EngineOptions{Logger: slog.New(slog.DiscardHandler)})
	for _, d := range defs {
		if _, err := e.Register(d); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// BenchmarkRegister1000 builds the index of 1,000 intents from scratch.
func BenchmarkRegister1000(b *testing.B) {
	defs := benchIntents(1000)
	b.ReportAllocs()
	for b.Loop() {
		newBenchEngine(b, defs)
	}
}

// BenchmarkMatch matches against 1,000 intents.
func BenchmarkMatch(b *testing.B) {
	e := newBenchEngine(b, benchIntents(1000))
	utterances := map[string]string{
		"exact":    "Switch on the device500",
		"slot":     "set device500 to 40 percent",
		"entity":   "what is the status of device999 in the living room",
		"crowded":  "tell me about the weather tomorrow",
		"no_match": "how tall is the eiffel tower",
		// Skip words and tolerated optional words.
		"filler":      "um could you please switch on the device500",
		"filler_slot": "please set device500 to 40 percent for me",
		"missing":     "what is status of device999 in living room",
		"near_miss":   "please switch the device500 on",
	}
	for name, u := range utterances {
		if !strings.HasSuffix(name, "_miss") && name != "no_match" && e.Match(u, "en-us", "") == nil {
			b.Fatalf("%s: %q does not match", name, u)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Match(u, "en-us", "")
			}
		})
	}
}

func BenchmarkNormalize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Normalize("Hey Jibo, what's the temperature in the Living Room? It's 20.5 degrees!")
	}
}

func BenchmarkLoadLocale(b *testing.B) {
	fsys := os.DirFS("testdata/ovos-skill-lights")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadLocale(fsys, "locale"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExplain ranks near misses for an unmatched utterance against
// 1,000 intents, as `jibod intents match` does for a "match": null line.
func BenchmarkExplain(b *testing.B) {
	e := newBenchEngine(b, benchIntents(1000))
	b.ReportAllocs()
	for b.Loop() {
		if ex := e.Explain("please switch the device500 on", "en-us", "", 3); len(ex.NearMisses) == 0 {
			b.Fatal("no near misses")
		}
	}
}

// evalCorpus is the part of an evaluation corpus (the format `jibod intents
// eval` reads) the benchmarks use.
type evalCorpus struct {
	Lang    string              `json:"lang"`
	Vocab   map[string][]string `json:"vocab"`
	Intents map[string]struct {
		Templates []string       `json:"templates"`
		Slots     map[string]any `json:"slots"`
	} `json:"intents"`
	Tests []struct {
		Utterance string `json:"utterance"`
	} `json:"tests"`
}

// corpusDefs reads a corpus's template intents. The Home Assistant corpus
// is not in the repository: BenchmarkCorpus reads it from
// $JIBOD_HA_CORPUS when set (../shared/eval/ha_en.json beside it).
func corpusDefs(b *testing.B, path string) ([]TemplateIntent, []string) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var c evalCorpus
	if err := json.Unmarshal(data, &c); err != nil {
		b.Fatal(err)
	}
	var defs []TemplateIntent
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range c.Intents {
			if !yield(n) {
				return
			}
		}
	}) {
		in := c.Intents[name]
		def := TemplateIntent{SkillID: "eval", IntentName: name, Lang: c.Lang, Samples: in.Templates, Vocab: c.Vocab}
		for slot, v := range in.Slots {
			if list, ok := v.([]any); ok {
				if def.Entities == nil {
					def.Entities = map[string][]string{}
				}
				for _, x := range list {
					def.Entities[slot] = append(def.Entities[slot], x.(string))
				}
			}
		}
		defs = append(defs, def)
	}
	var us []string
	for _, t := range c.Tests {
		us = append(us, t.Utterance)
	}
	return defs, us
}

// BenchmarkCorpus builds the intent stack from a corpus's templates and
// matches its tests through the stack, one recognition and one claim per
// utterance, as the robot's bands do.
func BenchmarkCorpus(b *testing.B) {
	corpora := map[string]string{"robot_en": "../../testdata/corpus/robot_en.json"}
	if p := os.Getenv("JIBOD_HA_CORPUS"); p != "" {
		corpora["ha_en"] = p
	}
	for name, path := range corpora {
		defs, us := corpusDefs(b, path)
		b.Run(name+"/build", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				st, err := NewStack(StackConfig{Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					b.Fatal(err)
				}
				for _, d := range defs {
					if _, err := st.Templates.Register(d); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		st, err := NewStack(StackConfig{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range defs {
			if _, err := st.Templates.Register(d); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name+"/match", func(b *testing.B) {
			b.ReportAllocs()
			ctx, s := context.Background(), session.Empty()
			i := 0
			for b.Loop() {
				if _, _, _, err := st.Claim(ctx, Query{Hypotheses: Texts(us[i%len(us)]), Lang: "en-us", Session: s}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
