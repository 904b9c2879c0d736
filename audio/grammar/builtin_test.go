package grammar

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openjibo/jibod/core/intent"
	"github.com/stretchr/testify/require"
)

// builtinIntents loads the built-in skills' launch intents from their
// locale folders, as the skill host registers them.
func builtinIntents(t testing.TB) []Intent {
	t.Helper()
	dirs, err := filepath.Glob("../../core/skill/builtin/*/locale")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	var out []Intent
	for _, d := range dirs {
		skill := "jibo." + filepath.Base(filepath.Dir(d))
		loc, err := intent.LoadLocale(os.DirFS(d), ".")
		require.NoError(t, err, d)
		for _, tag := range loc.Languages() {
			lang := loc.Langs[tag]
			for _, name := range lang.Names(intent.RoleIntent) {
				def, ok := lang.TemplateIntent("", skill, name)
				require.True(t, ok)
				out = append(out, FromDefinition(def))
			}
		}
	}
	return out
}
