package diag

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadPINFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "pin")
	require.NoError(t, os.WriteFile(good, []byte("pbkdf2-sha256$x\n"), 0o600))
	open := filepath.Join(dir, "open")
	require.NoError(t, os.WriteFile(open, []byte("h"), 0o600))
	require.NoError(t, os.Chmod(open, 0o666))
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("a"), MaxPINFile+1), 0o600))
	tests := []struct {
		name      string
		path      string
		mustExist bool
		want, err string
	}{
		{name: "a hash, trimmed", path: good, want: "pbkdf2-sha256$x"},
		{name: "missing: no PIN", path: filepath.Join(dir, "missing")},
		{name: "missing but named", path: filepath.Join(dir, "missing"), mustExist: true, err: "no such file"},
		{name: "others may write it", path: open, err: "others may write it (mode -rw-rw-rw-); chmod 600 it"},
		{name: "too big", path: big, err: "over 1024 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadPINFile(tt.path, tt.mustExist)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDurationSetting(t *testing.T) {
	v := 12 * time.Second
	s := DurationSetting("listen.x", "how long", "12s", time.Second, time.Minute,
		func() time.Duration { return v },
		func(d time.Duration) error {
			if d == 13*time.Second {
				return errors.New("unlucky")
			}
			v = d
			return nil
		})
	assert.Equal(t, "how long (1s..1m)", s.Help)
	assert.Equal(t, "12s", s.Get())
	for _, bad := range []string{"0.5s", "2m", "soon"} {
		_, err := s.Check(bad)
		assert.EqualError(t, err, "want a duration from 1s to 1m, like 12s", bad)
	}
	d, err := s.Check("30s")
	require.NoError(t, err)
	require.NoError(t, s.Apply(d))
	assert.Equal(t, "30s", s.Get())
	d, err = s.Check("13s")
	require.NoError(t, err)
	assert.EqualError(t, s.Apply(d), "listen.x: unlucky")
}
