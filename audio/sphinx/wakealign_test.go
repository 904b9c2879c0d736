package sphinx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWakeAlignment: the alignment's paths are the phrase, after filler
// words priced at lead each (speech cut into before it) or none, and
// before filler words priced at perWord each or none; every path holds
// the phrase once, whole and in order.
func TestWakeAlignment(t *testing.T) {
	a, err := wakeAlignment([]string{"hey", "jibo"}, []string{"=a", "=oh"}, 0.5, 0.2)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"=a =a hey jibo @0.25", "=a =oh hey jibo @0.25", "=a hey jibo =a @0.1", "=a hey jibo =oh @0.1", "=a hey jibo @0.5",
		"=oh =a hey jibo @0.25", "=oh =oh hey jibo @0.25", "=oh hey jibo =a @0.1", "=oh hey jibo =oh @0.1", "=oh hey jibo @0.5",
		"hey jibo =a =a @0.04", "hey jibo =a =oh @0.04", "hey jibo =a @0.2", "hey jibo =oh =a @0.04", "hey jibo =oh =oh @0.04", "hey jibo =oh @0.2",
		"hey jibo @1",
	}, pathsOf(t, a, 4))

	_, err = wakeAlignment(nil, []string{"=a"}, 1, 1)
	assert.Error(t, err, "no phrase")
	_, err = wakeAlignment([]string{"hey", "jibo"}, nil, 1, 1)
	assert.Error(t, err, "no filler words")
}
