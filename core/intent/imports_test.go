package intent

import (
	goparser "go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/openjibo/jibod/"

// imports lists what the Go files under dir import, tests included, by
// file.
func imports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := goparser.ParseFile(token.NewFileSet(), p, nil, goparser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			out[p] = append(out[p], path)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestNoImportCycleWithPipeline: the intent stack builds on the pipeline's
// plugin contract, so nothing under core/pipeline, tests and the scenario
// runner included, imports core/intent: the runner is handed the stack's
// constructor instead.
func TestNoImportCycleWithPipeline(t *testing.T) {
	for file, paths := range imports(t, filepath.Join("..", "pipeline")) {
		for _, p := range paths {
			assert.False(t, p == module+"core/intent" || strings.HasPrefix(p, module+"core/intent/"),
				"%s imports %s", file, p)
		}
	}
	for file, paths := range imports(t, ".") {
		for _, p := range paths {
			assert.False(t, strings.HasPrefix(p, module+"core/pipeline/"), "%s imports %s", file, p)
		}
	}
}
