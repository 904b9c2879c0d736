//go:build sphinx

package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTrimFromEnv(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
		err   string
	}{
		{"", 0, ""},
		{"off", -1, ""},
		{"150", 150 * time.Millisecond, ""},
		{"2000", 2 * time.Second, ""},
		{"0", 0, "JIBOD_SPHINX_TRIM_MS=\"0\": want off or a number of milliseconds from 1 to 2000"},
		{"2001", 0, "from 1 to 2000"},
		{"lots", 0, "from 1 to 2000"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv(envSphinxTrim, tt.value)
			got, err := trimFromEnv()
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
