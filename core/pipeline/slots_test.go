package pipeline

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// grm01Slot is the expression templateSlots implements (GRM-01).
var grm01Slot = regexp.MustCompile(`\{\{?(?:[a-z_][a-z0-9_]*:)?([a-z_][a-z0-9_]*)\}?\}`)

func expressionSlots(s string) []string {
	var out []string
	for _, m := range grm01Slot.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

var slotSamples = []string{
	"", "what time is it", "{x}", "{{x}}", "{{x}", "{x}}", "{{{x}}}", "{a:b}", "{{a:b}}",
	"{a:}", "{:b}", "{a:b:c}", "{a:b} and {c}", "set a timer for {duration} please",
	"{Upper}", "{a1_b}", "{1a}", "{_x}", "{x", "x}", "{}", "{{}}", "{a b}", "{é}", "{x}{y}",
	"{{x}}}", "{a:{b}}", "{{a:b}", "{ab:cd}}", "play {genre:music} by {artist}",
}

// GRM-01: slot names in a template are read as the spec's expression reads them.
func TestTemplateSlotsGRM01(t *testing.T) {
	tests := []struct {
		template string
		want     []string
	}{
		{"set a timer for {duration}", []string{"duration"}},
		{"play {genre:music} by {{artist}}", []string{"music", "artist"}},
		{"{a:} {:b} {1a} {x", nil},
		{"{{x}", []string{"x"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, templateSlots(tt.template), "%q", tt.template)
	}
	for _, s := range slotSamples {
		assert.Equal(t, expressionSlots(s), templateSlots(s), "%q", s)
	}
}

func FuzzTemplateSlotsGRM01(f *testing.F) {
	for _, s := range slotSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if want, got := expressionSlots(s), templateSlots(s); !assert.ObjectsAreEqual(want, got) {
			t.Fatalf("%q: expression %q, templateSlots %q", s, want, got)
		}
	})
}

func TestValidatePluginID(t *testing.T) {
	for id, ok := range map[string]bool{"padatious": true, "ovos-adapt_2": true, "": false, "a b": false, "a.b": false, "é": false} {
		assert.Equal(t, ok, ValidatePluginID(id) == nil, "%q", id)
	}
}
