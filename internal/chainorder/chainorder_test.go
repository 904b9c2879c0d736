package chainorder

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeployer(t *testing.T) {
	prio := map[string]int{"a": 1, "b": 2, "c": 3}
	tests := []struct {
		name  string
		order []string
		want  []string
		err   string
	}{
		{"as given, leaving some out", []string{"c", "a"}, []string{"c", "a"}, ""},
		{"an empty order runs nothing", []string{}, nil, ""},
		{"not loaded", []string{"a", "x"}, nil, `deployer order names "x", which is not loaded`},
		{"twice", []string{"a", "b", "a"}, nil, `deployer order names "a" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Deployer(tt.order, prio)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestByPriority(t *testing.T) {
	assert.Equal(t, []string{"low", "a", "b", "high"},
		ByPriority(map[string]int{"high": 9, "b": 5, "a": 5, "low": -1}), "ascending, ties by id")
	assert.Nil(t, ByPriority(nil))
}
