package mim

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: no input makes Parse panic, and whatever parses survives its
// canonical form unchanged.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/mims/*.mim")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"mim_type":"announcement","prompts":[{"prompt_category":"Entry-Core","prompt_sub_category":"AN","condition":"a === 'b' && !c","prompt":"${x || 'y'} ${'}'}"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data, "F.mim")
		if err != nil {
			return
		}
		out, err := m.MarshalJSON()
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		again, err := Parse(out, "F.mim")
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, out)
		}
		out2, err := again.MarshalJSON()
		if err != nil {
			t.Fatalf("marshal again: %v", err)
		}
		if string(out) != string(out2) {
			t.Fatalf("canonical form is not stable:\n%s\n%s", out, out2)
		}
		var s Slimmer
		for i := range m.Prompts {
			p := &m.Prompts[i]
			_, _ = s.Slim(m, Config{Category: p.Category, SubCategory: p.SubCategory, Index: p.Index}, PromptData{})
		}
	})
}
