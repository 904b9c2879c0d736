package skill

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
)

// RenderOther never says the same line twice in a row while the dialog has
// another.
func TestRenderOther(t *testing.T) {
	loc, err := intent.LoadLocale(fstest.MapFS{
		"en-us/sorry.dialog": {Data: []byte("Sorry, {name}.\n(Hmm|Oops), {name}.\n")},
		"en-us/only.dialog":  {Data: []byte("Just this.\n")},
	}, ".")
	require.NoError(t, err)
	d, err := NewDialogs(loc.Langs["en-us"], func(n int) int { return 0 })
	require.NoError(t, err)
	last := ""
	for range 6 {
		got, err := d.RenderOther("sorry", map[string]string{"name": "Ann"}, last)
		require.NoError(t, err)
		assert.NotEqual(t, last, got)
		last = got
	}
	got, err := d.RenderOther("only", nil, "Just this.")
	require.NoError(t, err)
	assert.Equal(t, "Just this.", got, "one phrase: said again")
	_, err = d.RenderOther("sorry", nil, "")
	assert.ErrorIs(t, err, ErrDialogSlot)
	assert.ErrorContains(t, err, `dialog "sorry": slot {name}`)
}
