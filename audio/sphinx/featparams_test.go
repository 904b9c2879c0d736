package sphinx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWithFeatParams: a flag the model's feat.params sets is written
// into a copy of it (pocketsphinx lets the file override the command
// line), every other flag stays an argument, and the model's file is
// left as it was.
func TestWithFeatParams(t *testing.T) {
	model := t.TempDir()
	const params = "-lowerf 130\n-upperf 6800\n-cmn batch\n-cmninit 41.00,-5.29\n"
	require.NoError(t, os.WriteFile(filepath.Join(model, "feat.params"), []byte(params), 0o644))
	other := filepath.Join(t.TempDir(), "other.params")
	require.NoError(t, os.WriteFile(other, []byte("-cmn batch\n-agc none\n"), 0o644))
	tests := []struct {
		name     string
		extra    []string
		wantArgs []string // with FILE for the copy's path; nil: extra as it is, no copy
		wantFile string
		err      string
	}{
		{name: "none", extra: nil},
		{name: "front end flags only", extra: []string{"-dither", "yes", "-warp_params", "1.1"}},
		{name: "cepstral mean", extra: []string{"-beam", "1e-60", "-cmn", "live"},
			wantArgs: []string{"-featparams", "FILE", "-beam", "1e-60"},
			wantFile: "-lowerf 130\n-upperf 6800\n-cmn live\n-cmninit 41.00,-5.29\n"},
		{name: "several, last wins", extra: []string{"-lowerf", "200", "-upperf", "6000", "-lowerf", "150"},
			wantArgs: []string{"-featparams", "FILE"},
			wantFile: "-lowerf 150\n-upperf 6000\n-cmn batch\n-cmninit 41.00,-5.29\n"},
		{name: "a file of one's own", extra: []string{"-featparams", other, "-agc", "max", "-lowerf", "200"},
			wantArgs: []string{"-featparams", "FILE", "-lowerf", "200"},
			wantFile: "-cmn batch\n-agc max\n"},
		{name: "a file of one's own, nothing moved", extra: []string{"-featparams", other, "-lowerf", "200"}},
		{name: "two words", extra: []string{"-cmn", "live batch"}, err: `argument -cmn "live batch": want one word`},
		{name: "a new line", extra: []string{"-cmn", "live\n-agc"}, err: "want one word"},
		{name: "odd", extra: []string{"-cmn"}, err: "not flag/value pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, tmp, err := withFeatParams(model, tt.extra)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				assert.Empty(t, tmp)
				return
			}
			require.NoError(t, err)
			if tt.wantArgs == nil {
				assert.Equal(t, tt.extra, args)
				assert.Empty(t, tmp)
				return
			}
			require.NotEmpty(t, tmp)
			defer os.Remove(tmp)
			want := strings.Join(tt.wantArgs, " ")
			assert.Equal(t, strings.Replace(want, "FILE", tmp, 1), strings.Join(args, " "))
			got, err := os.ReadFile(tmp)
			require.NoError(t, err)
			assert.Equal(t, tt.wantFile, string(got))
		})
	}
	kept, err := os.ReadFile(filepath.Join(model, "feat.params"))
	require.NoError(t, err)
	assert.Equal(t, params, string(kept))
}

// TestWithFeatParamsWithoutFile: a model folder without feat.params
// leaves the arguments to pocketsphinx; an oversized one is refused.
func TestWithFeatParamsWithoutFile(t *testing.T) {
	args, tmp, err := withFeatParams(t.TempDir(), []string{"-cmn", "live"})
	require.NoError(t, err)
	assert.Equal(t, []string{"-cmn", "live"}, args)
	assert.Empty(t, tmp)

	big := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(big, "feat.params"), []byte(strings.Repeat("-cmn batch\n", maxFeatParams/10)), 0o644))
	_, _, err = withFeatParams(big, []string{"-cmn", "live"})
	assert.ErrorContains(t, err, "over 65536 bytes")
}
