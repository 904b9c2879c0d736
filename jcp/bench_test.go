package jcp_test

import (
	"context"
	"image/color"
	"testing"

	"github.com/openjibo/jibod/jcp"
)

// instantVoice speaks instantly.
type instantVoice struct{}

func (instantVoice) Say(context.Context, string) error { return nil }

// typicalSLIM is a cloud answer as the Slimmer produces it.
var typicalSLIM = []byte(env(`{"id":"0123456789abcdef0123456789abcdef","type":"SLIM","config":{
	"play":{"id":"fedcba9876543210fedcba9876543210","type":"PLAY",
		"esml":"<speak><es cat='happy' filter='!ssa-only, !sfx-only' endNeutral='true'>It's sunny and 72 degrees in Boston today.</es> <anim cat='dance' nonBlocking='true'/> Enjoy it!</speak>",
		"autoRuleConfig":true,"meta":{"prompt_id":"Weather_AN_01","prompt_sub_category":"AN","mim_id":"Weather","mim_type":"announcement"}}}}`))

// BenchmarkParseAndRunSLIM measures the per-turn cost of the executor on
// the hot path: parse and check a typical SLIM once and run it as checked
// (speech itself is instant).
func BenchmarkParseAndRunSLIM(b *testing.B) {
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: instantVoice{}, Lights: newFakeLights(12, color.RGBA{A: 0xff})})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a, err := jcp.ParseChecked(typicalSLIM)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ex.RunChecked(ctx, a, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseESML(b *testing.B) {
	const src = "<speak><es cat='happy' filter='!ssa-only, !sfx-only' endNeutral='true'>It's sunny &amp; 72 degrees in Boston today.</es> <break size='0.3'/> <anim cat='dance'/> Enjoy it!</speak>"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jcp.ParseESML(src); err != nil {
			b.Fatal(err)
		}
	}
}
