package skill

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The one-word answers come from the yes/no rule itself.
func TestYesNoWords(t *testing.T) {
	assert.Equal(t, map[string]string{
		"yes": "yes", "yeah": "yes", "yep": "yes", "sure": "yes", "ok": "yes", "okay": "yes",
		"no": "no", "nope": "no", "nah": "no",
	}, YesNoWords("en-us"))
	assert.Equal(t, "yes", YesNoWords("EN-US")["yeah"])
	assert.Nil(t, YesNoWords("xx-yy"))
	assert.Nil(t, YesNoWords("../../x"))
}
