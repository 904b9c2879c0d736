package mim

import (
	"errors"
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

// FuzzExpression: no expression makes compiling or running it panic or
// hang, whatever the data.
func FuzzExpression(f *testing.F) {
	for _, src := range []string{
		`jibo.emotion === 'PLEASED' && !speaker`, `skill.list.join(", ") + skill.n`,
		`dt.now.isInRange('11/1','2/18') ? loop.list : skill.s.toUpperCase()`,
		`[1, [2, [3]]] == "1,2,3"`, `typeof skill.missing === "undefined"`, "`x` + 0x1F + 1e3",
		`skill.self + ""`, `skill.list[skill.n - 1].length`, `-"" * +[] % !{}`,
	} {
		f.Add(src)
	}
	self := []any{1}
	self[0] = self
	d := NewPromptData(testRuntime(), testNow, map[string]any{
		"list": []any{"a", 2.0, nil, map[string]any{"k": true}}, "n": 2, "s": "héllo", "self": self,
	})
	f.Fuzz(func(t *testing.T, src string) {
		p, err := newCompiler().compile(src)
		if err != nil {
			var ee *exprError
			if !errors.As(err, &ee) {
				t.Fatalf("compile error is not an *exprError: %v", err)
			}
			if ee.Column < 0 || ee.Column > len(src)+1 {
				t.Fatalf("column %d outside %q", ee.Column, src)
			}
			return
		}
		_, _ = p.run(d.env())
	})
}
