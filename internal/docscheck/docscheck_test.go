package docscheck

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository, seen from this package's folder.
const root = "../.."

func TestLinks(t *testing.T) {
	md := "# T\n" +
		"See [the guide](docs/a.md) and ![a picture](img/p.png \"title\").\n" +
		"Not `[code](x.md)`, nor ``[more code](y.md)``.\n" +
		"```sh\n[fenced](z.md)\n```\n" +
		"\n    [indented code](w.md)\n\n" +
		"[web](https://example.com/x) [anchor](#t) [both](b.md#part)\n"
	assert.Equal(t, []Link{
		{Line: 2, Target: "docs/a.md"},
		{Line: 2, Target: "img/p.png"},
		{Line: 10, Target: "https://example.com/x"},
		{Line: 10, Target: "#t"},
		{Line: 10, Target: "b.md#part"},
	}, Links([]byte(md)))
	assert.True(t, Link{Target: "https://example.com/x"}.External())
	assert.True(t, Link{Target: "mailto:a@b.c"}.External())
	assert.False(t, Link{Target: "../core/bus/bus.go"}.External())
}

func TestAnchors(t *testing.T) {
	md := "# Install on a Raspberry Pi\n## 1. Wire it\n## The `shell`: PIN & lock\n## Figures\n## Figures\n```\n# not a heading\n```\n#nospace\n"
	assert.Equal(t, map[string]bool{
		"install-on-a-raspberry-pi": true,
		"1-wire-it":                 true,
		"the-shell-pin--lock":       true,
		"figures":                   true,
		"figures-1":                 true,
	}, Anchors([]byte(md)))
}

func TestCitedIDs(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"plain", "// REG-09: keyed by session; see also CTX-11 and REG-09", []string{"REG-09", "CTX-11"}},
		{"sub-item is its requirement", "STOP-03.6 and CONV-06.1", []string{"STOP-03", "CONV-06"}},
		{"long prefixes", "OVOS-INTENT-1 and SES2-05, STOP-1", []string{"OVOS-INTENT-1", "SES2-05", "STOP-1"}},
		{"standards are not requirements", "UTF-8, BCP-47 tags, ISO-8601, GPL-3.0", nil},
		{"inside words is not an ID", "xREG-09 REG-09x reg-09", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CitedIDs([]byte(tt.text)))
		})
	}
}

func TestGoProse(t *testing.T) {
	src := "// Package p follows REG-09.\npackage p\n\nconst NFFT = 512\n\nfunc f(n int) bool { return n&(NFFT-1) == 0 } /* STOP-1 */\n\nvar e = \"refused (TRF-12)\"\nvar r = `raw CTX-11`\n"
	assert.Equal(t, []string{"REG-09", "STOP-1", "TRF-12", "CTX-11"}, CitedIDs(GoProse([]byte(src))))
	assert.Contains(t, CitedIDs([]byte(src)), "NFFT-1", "the whole text would cite the expression")
}

func TestIndex(t *testing.T) {
	md := "| ID | meaning | checked by |\n|---|---|---|\n" +
		"| `REG-09` | registrations are per session | `core/intent/service_test.go`, `TestX` |\n" +
		"| STOP-1 | the stop plugin | — |\n" +
		"| not an ID | x | y |\n"
	assert.Equal(t, []IndexRow{
		{Line: 3, ID: "REG-09", Meaning: "registrations are per session", Files: []string{"core/intent/service_test.go"}},
		{Line: 4, ID: "STOP-1", Meaning: "the stop plugin"},
	}, Index([]byte(md)))
}

// markdownFiles lists the repository's Markdown pages, less test data.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	require.NoError(t, err)
	return files
}

func skipDir(name string) bool {
	return name == ".git" || name == "bin" || name == "testdata" || name == "node_modules"
}

// TestDocLinksResolve: every relative link of the README and the guides
// (and any other page outside test data) names a file or folder of the
// repository, and a #fragment names a heading of its page.
func TestDocLinksResolve(t *testing.T) {
	pages := markdownFiles(t)
	require.Contains(t, pages, filepath.Join(root, "README.md"))
	anchors := map[string]map[string]bool{}
	anchorsOf := func(p string) map[string]bool {
		if a, ok := anchors[p]; ok {
			return a
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		anchors[p] = Anchors(b)
		return anchors[p]
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, page)
		for _, l := range Links(b) {
			if l.External() {
				continue
			}
			target, frag, _ := strings.Cut(l.Target, "#")
			dest := page
			if target != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: no such file", rel, l.Line, l.Target)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
				t.Errorf("%s:%d: link %q: no heading with that anchor", rel, l.Line, l.Target)
			}
		}
	}
}

// citingExt are the files whose text may cite a requirement ID.
var citingExt = []string{".go", ".sh", ".md", ".expected", ".intent", ".entity", ".voc", ".json"}

// TestCitedRequirementsAreIndexed: every requirement ID cited in the
// repository (code, tests, scripts, test data, docs) is explained in
// docs/requirements.md, and each file the index names for an ID exists and
// cites it.
func TestCitedRequirementsAreIndexed(t *testing.T) {
	indexPath := filepath.Join(root, "docs", "requirements.md")
	b, err := os.ReadFile(indexPath)
	require.NoError(t, err)
	rows := Index(b)
	require.NotEmpty(t, rows, "docs/requirements.md lists no requirements")
	indexed := map[string]bool{}
	for _, r := range rows {
		assert.False(t, indexed[r.ID], "docs/requirements.md:%d: %s listed twice", r.Line, r.ID)
		indexed[r.ID] = true
		assert.NotEmpty(t, r.Meaning, "docs/requirements.md:%d: %s says nothing", r.Line, r.ID)
	}

	citedBy := map[string][]string{}
	texts := map[string][]byte{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() && d.Name() == "docscheck" {
			// This package's own examples and patterns are no citations.
			return filepath.SkipDir
		}
		if d.IsDir() || !slices.Contains(citingExt, path.Ext(d.Name())) && d.Name() != "Makefile" {
			return nil
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if path.Ext(p) == ".go" {
			text = GoProse(text)
		}
		texts[rel] = text
		for _, id := range CitedIDs(text) {
			citedBy[id] = append(citedBy[id], rel)
		}
		return nil
	})
	require.NoError(t, err)

	var missing []string
	for id, files := range citedBy {
		if !indexed[id] {
			missing = append(missing, id+" (cited in "+strings.Join(files, ", ")+")")
		}
	}
	slices.Sort(missing)
	assert.Empty(t, missing, "requirement IDs cited but missing from docs/requirements.md")

	for _, r := range rows {
		for _, f := range r.Files {
			text, ok := texts[f]
			if !assert.True(t, ok, "docs/requirements.md:%d: %s: no file %s", r.Line, r.ID, f) {
				continue
			}
			assert.Contains(t, CitedIDs(text), r.ID, "docs/requirements.md:%d: %s does not cite %s", r.Line, f, r.ID)
		}
	}
}

// TestReadmePointsIntoDocs: the README stays a front page (at most 300
// lines) and the guides live in docs/.
func TestReadmePointsIntoDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	lines := strings.Count(string(b), "\n")
	assert.LessOrEqual(t, lines, 300, "README.md has %d lines; put guides in docs/ and link them", lines)
	guides := map[string]bool{}
	for _, l := range Links(b) {
		if strings.HasPrefix(l.Target, "docs/") && strings.HasSuffix(l.Target, ".md") {
			guides[l.Target] = true
		}
	}
	assert.GreaterOrEqual(t, len(guides), 6, "README.md links %d guides in docs/", len(guides))
}
