package intent

import (
	"fmt"
	"log/slog"
	"testing"
)

// benchKeywordIntents generates n keyword intents: each has its own rare
// word, and shares common vocabularies ("what is", "please", "the") with
// every other, so common words lead to crowded trie nodes as they would in
// a real skill set.
func benchKeywordIntents(n int) []KeywordIntent {
	common := []KeywordVocab{voc("what_is", "what is", "whats", "tell me"), voc("please", "please")}
	defs := make([]KeywordIntent, n)
	for i := range defs {
		defs[i] = KeywordIntent{
			SkillID: fmt.Sprintf("skill%d", i%50), IntentName: fmt.Sprintf("intent%d", i), Lang: "en-us",
			Required: []KeywordVocab{voc(fmt.Sprintf("thing%d", i), fmt.Sprintf("gadget%d", i), fmt.Sprintf("widget %d", i))},
			Optional: common,
			OneOf:    [][]KeywordVocab{{voc("on", "(turn|switch) on"), voc("off", "(turn|switch) off"), voc("status", "status", "the state")}},
			Excluded: []KeywordVocab{voc("never", "never")},
		}
	}
	return defs
}

func newBenchKeywordEngine(b *testing.B, defs []KeywordIntent) *KeywordEngine {
	e := NewKeywordEngine(KeywordOptions{Logger: slog.New(slog.DiscardHandler)})
	for _, d := range defs {
		if _, err := e.Register(d); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// BenchmarkKeywordRegister1000 builds the index of 1,000 keyword intents.
func BenchmarkKeywordRegister1000(b *testing.B) {
	defs := benchKeywordIntents(1000)
	b.ReportAllocs()
	for b.Loop() {
		newBenchKeywordEngine(b, defs)
	}
}

// BenchmarkKeywordMatch matches against 1,000 keyword intents.
func BenchmarkKeywordMatch(b *testing.B) {
	e := newBenchKeywordEngine(b, benchKeywordIntents(1000))
	utterances := map[string]string{
		"short":    "switch on gadget500",
		"long":     "hey robot could you please tell me the state of widget 999 in the living room right now",
		"crowded":  "what is the status please",
		"vetoed":   "never turn on gadget7",
		"no_match": "how tall is the eiffel tower",
	}
	for name, u := range utterances {
		r := e.Match(u, "en-us", "")
		if (r != nil) != (name != "no_match" && name != "crowded" && name != "vetoed") {
			b.Fatalf("%s: %q gave %+v", name, u, r)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Match(u, "en-us", "")
			}
		})
	}
}
