package intent_test

import (
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/core/intent"
)

func ExampleKeywordEngine_Match() {
	engine := intent.NewKeywordEngine(intent.KeywordOptions{Logger: slog.New(slog.DiscardHandler)})
	_, err := engine.Register(intent.KeywordIntent{
		SkillID:    "weather.openjibo",
		IntentName: "current",
		Lang:       "en-us",
		Required:   []intent.KeywordVocab{{Name: "weather", Samples: []string{"weather", "forecast"}}},
		Optional:   []intent.KeywordVocab{{Name: "when", Samples: []string{"today", "(right|) now"}}},
		Excluded:   []intent.KeywordVocab{{Name: "past", Samples: []string{"yesterday"}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range []string{"Weather right now?", "what's the weather like today", "how was the weather yesterday"} {
		r := engine.Match(u, "en-US", "")
		if r == nil {
			fmt.Printf("%q: no match\n", u)
			continue
		}
		fmt.Printf("%q: %s:%s %v %.2f\n", u, r.SkillID, r.IntentName, r.Slots, r.Confidence)
	}
	// Output:
	// "Weather right now?": weather.openjibo:current map[weather:weather when:right now] 1.00
	// "what's the weather like today": weather.openjibo:current map[weather:weather when:today] 0.40
	// "how was the weather yesterday": no match
}
