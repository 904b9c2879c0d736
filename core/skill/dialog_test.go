package skill_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
)

func localeDialogs(t *testing.T, files map[string]string) *skill.LocaleDialogs {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	loc, err := intent.LoadLocale(fsys, ".")
	require.NoError(t, err)
	d, err := skill.NewLocaleDialogs(loc, func(int) int { return 0 })
	require.NoError(t, err)
	return d
}

// A skill's dialogs render in the turn's language, falling back to one
// with the same primary language; slots are filled from the caller's
// values, which are never read as slots themselves (GRM-13).
func TestLocaleDialogs(t *testing.T) {
	d := localeDialogs(t, map[string]string{
		"en-us/saved.dialog": "(OK|Right), I'll remember {memo}.\n",
		"en-us/hi.intent":    "hi\n",
		"fr-fr/saved.dialog": "D'accord, je retiens {memo}.\n",
		"fr-fr/hi.intent":    "salut\n",
	})
	for _, tt := range []struct{ lang, want string }{
		{"en-US", "OK, I'll remember {slot} and {memo}."},
		{"en-gb", "OK, I'll remember {slot} and {memo}."},
		{"fr-CA", "D'accord, je retiens {slot} and {memo}."},
	} {
		got, err := d.Render(tt.lang, "saved", map[string]string{"memo": "{slot} and {memo}", "extra": "x"})
		require.NoError(t, err, tt.lang)
		assert.Equal(t, tt.want, got, tt.lang)
	}

	_, err := d.Render("en-US", "saved", nil)
	assert.ErrorIs(t, err, skill.ErrDialogSlot)
	assert.ErrorContains(t, err, `dialog "saved": slot {memo}`)
	_, err = d.Render("en-US", "gone", nil)
	assert.ErrorIs(t, err, skill.ErrNoDialog)
	assert.ErrorContains(t, err, `"gone" in en-us`)
	_, err = d.Render("de-DE", "saved", map[string]string{"memo": "x"})
	assert.ErrorIs(t, err, skill.ErrNoDialog)
	assert.ErrorContains(t, err, "no dialogs in de-de (the skill has en-us, fr-fr)")
	_, err = d.Render("not a tag", "saved", nil)
	assert.ErrorIs(t, err, skill.ErrNoDialog)
}
