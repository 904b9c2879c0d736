package jcp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
)

// The example actions in testdata/examples (used in docs/body.md with
// `jibod jcp run`) are valid.
func TestExampleActionsParse(t *testing.T) {
	files, err := filepath.Glob("testdata/examples/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		_, err = jcp.ParseAction(data)
		require.NoError(t, err, f)
	}
}
