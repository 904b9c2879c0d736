//go:build sphinx

package hearing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNGramTuningSwitches(t *testing.T) {
	env := func(k, v string) func(string) string {
		return func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
	}
	s, err := ngramFromEnv(env("", ""))
	require.NoError(t, err)
	assert.Equal(t, ngramSettings{weight: openWeight, count: openWordCount}, s, "defaults when unset")
	s, err = ngramFromEnv(env(EnvNGramOpen, "0.1,500"))
	require.NoError(t, err)
	assert.Equal(t, ngramSettings{weight: 0.1, count: 500}, s)
	s, err = ngramFromEnv(env(EnvNGramOpen, "0"))
	require.NoError(t, err)
	assert.Equal(t, ngramSettings{weight: 0, count: openWordCount}, s, "no open words")
	for _, bad := range []string{"1", "-0.1", "NaN", "lots", "0.1,-3", "0.1,99999", "0.1,x"} {
		_, err := ngramFromEnv(env(EnvNGramOpen, bad))
		assert.ErrorContains(t, err, EnvNGramOpen, bad)
	}
}
