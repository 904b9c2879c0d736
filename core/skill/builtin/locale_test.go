package builtin_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
)

// The robot loads the built-in skills' locales without enumerating their
// intents' sample sets (intent.LoadLocaleUnexpanded): what it registers is
// what the full load gives.
func TestBuiltinLocalesLoadUnexpanded(t *testing.T) {
	for _, d := range append(skillDirs, "fallback") {
		t.Run(d, func(t *testing.T) {
			files := os.DirFS(filepath.Join(d, "locale"))
			full, err := intent.LoadLocale(files, ".")
			require.NoError(t, err)
			lean, err := intent.LoadLocaleUnexpanded(files, ".")
			require.NoError(t, err)
			assert.Equal(t, full.TemplateIntents("", "jibo."+d), lean.TemplateIntents("", "jibo."+d))
			assert.Equal(t, full.Warnings, lean.Warnings)
			assert.Equal(t, full.Findings, lean.Findings)
		})
	}
}
