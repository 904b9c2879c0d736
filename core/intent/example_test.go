package intent_test

import (
	"fmt"
	"log/slog"

	"github.com/openjibo/jibod/core/intent"
)

func ExampleExpand() {
	vocab := map[string][]string{"device": {"lamp", "(tv|television)"}}
	samples, _, err := intent.Expand("turn (on|off) [the] <device>", vocab, intent.ExpandOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range samples[:4] {
		fmt.Println(s)
	}
	fmt.Println(len(samples), "samples")

	_, _, err = intent.Expand("{a} [and] {b}", nil, intent.ExpandOptions{})
	fmt.Println(err)
	// Output:
	// turn off lamp
	// turn off television
	// turn off the lamp
	// turn off the television
	// 12 samples
	// line 1 col 11: slots {a} and {b} are adjacent in sample "{a} {b}" (GRM-07)
}

func ExampleTemplateEngine_Match() {
	engine := intent.NewTemplateEngine(intent.EngineOptions{Logger: slog.New(slog.DiscardHandler)})
	_, err := engine.Register(intent.TemplateIntent{
		SkillID:    "lights.openjibo",
		IntentName: "turn_on",
		Lang:       "en-us",
		Samples:    []string{"turn on [the] {device}", "lights on"},
		Entities:   map[string][]string{"device": {"kitchen light", "lamp"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range []string{"Lights on!", "Turn on the kitchen light.", "what time is it"} {
		r := engine.Match(u, "en-US", "")
		if r == nil {
			fmt.Printf("%q: no match\n", u)
			continue
		}
		fmt.Printf("%q: %s:%s %v %.2f\n", u, r.SkillID, r.IntentName, r.Slots, r.Confidence)
	}
	// Output:
	// "Lights on!": lights.openjibo:turn_on map[] 0.97
	// "Turn on the kitchen light.": lights.openjibo:turn_on map[device:kitchen light] 0.97
	// "what time is it": no match
}

func ExampleTemplateEngine_Explain() {
	engine := intent.NewTemplateEngine(intent.EngineOptions{Logger: slog.New(slog.DiscardHandler)})
	for _, def := range []intent.TemplateIntent{
		{SkillID: "lights", IntentName: "on", Lang: "en-us", Samples: []string{"turn on the light"}},
		{SkillID: "lights", IntentName: "off", Lang: "en-us", Samples: []string{"turn off the light"}},
	} {
		if _, err := engine.Register(def); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Filler words are skipped and a missing "the" tolerated, at a lower
	// confidence.
	r := engine.Match("could you turn on light please", "en-us", "")
	fmt.Printf("%s:%s %.2f\n%s\n", r.SkillID, r.IntentName, r.Confidence, r.Why)

	// A negation is not a filler: no match, and Explain says how close
	// each intent came.
	ex := engine.Explain("dont turn on the light", "en-us", "", 2)
	fmt.Println(ex.Match == nil)
	for _, n := range ex.NearMisses {
		fmt.Printf("%s:%s %.2f %s\n", n.SkillID, n.IntentName, n.Score, n.Reason)
	}
	// Output:
	// lights:on 0.81
	// template "turn on the light": 3 of 6 words literal; skipped "could you"; missing "the"; skipped "please"
	// true
	// lights:on 0.67 template "turn on the light": 4 of 5 words literal; unexplained "dont"
	// lights:off 0.25 template "turn off the light": 3 of 5 words literal; unexplained "dont"; template word "off" not said; unexplained "on"
}
