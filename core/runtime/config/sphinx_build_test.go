//go:build sphinx

package config

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openjibo/jibod/audio/sphinx"
)

func TestMaxNBestIsTheRecognisers(t *testing.T) {
	assert.Equal(t, sphinx.MaxNBest, maxNBest)
}
