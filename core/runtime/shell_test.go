package runtime

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"github.com/openjibo/jibod/core/skill/protocol"
)

func TestReadPINHash(t *testing.T) {
	t.Setenv(PINHashEnv, "")
	dir := t.TempDir()
	pin := func(file, stateDir string) (string, error) {
		return ShellConfig{PINFile: file, StateDir: stateDir}.readPINHash()
	}

	h, err := pin("", dir)
	require.NoError(t, err)
	assert.Empty(t, h, "no file in the state folder: no PIN, not an error")
	h, err = pin("", NoState)
	require.NoError(t, err)
	assert.Empty(t, h)

	require.NoError(t, os.WriteFile(filepath.Join(dir, PINFileName), []byte("pbkdf2-sha256$x\n"), 0o600))
	h, err = pin("", dir)
	require.NoError(t, err)
	assert.Equal(t, "pbkdf2-sha256$x", h)

	require.NoError(t, os.Chmod(filepath.Join(dir, PINFileName), 0o666))
	_, err = pin("", dir)
	assert.ErrorContains(t, err, "others may write it")

	_, err = pin(filepath.Join(dir, "missing"), dir)
	assert.ErrorContains(t, err, "no such file", "a PIN file named in the configuration must exist")

	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("a"), diag.MaxPINFile+1), 0o600))
	_, err = pin(big, dir)
	assert.ErrorContains(t, err, "over 1024 bytes")

	t.Setenv(PINHashEnv, "from-env")
	h, err = pin("", dir)
	require.NoError(t, err)
	assert.Equal(t, "from-env", h, "the environment wins")
}

func TestShellWakeTopicIsTheListeners(t *testing.T) {
	assert.Equal(t, hearing.TopicWakeRequest, diag.TopicWakeRequest)
}

func TestShellSocketPath(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	assert.Equal(t, "/var/lib/jibod/shell.sock", ShellConfig{StateDir: "/var/lib/jibod"}.socketPath())
	assert.Empty(t, ShellConfig{StateDir: NoState}.socketPath())
	assert.Empty(t, ShellConfig{Socket: "off", StateDir: "/var/lib/jibod"}.socketPath())
	assert.Equal(t, "/run/x.sock", ShellConfig{Socket: "/run/x.sock", StateDir: NoState}.socketPath())
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	assert.Equal(t, "/run/user/1000/jibod-shell.sock", ShellConfig{StateDir: "/var/lib/jibod"}.socketPath())
}

func TestRunLoggerLevelFromShell(t *testing.T) {
	var stderr bytes.Buffer
	logs := NewLogs(&stderr, slog.LevelWarn)
	logs.Log.Info("quiet")
	assert.Empty(t, stderr.String())
	assert.Len(t, logs.Book.Recent(slog.LevelInfo, 0), 1, "the book keeps info whatever the level")
	settings := (&Robot{body: &Body{}}).runSettings(logs)
	require.Equal(t, "log.level", settings[0].Key)
	assert.Equal(t, "warn", settings[0].Get())
	_, err := settings[0].Check("loud")
	assert.Error(t, err)
	v, err := settings[0].Check("debug")
	require.NoError(t, err)
	require.NoError(t, settings[0].Apply(v))
	logs.Log.Debug("now shown")
	assert.Contains(t, stderr.String(), "now shown")
}

func TestShellVolumeSetting(t *testing.T) {
	r := startRobot(t, Config{StateDir: NoState})
	var vol *diag.Setting
	for _, s := range r.runSettings(NewLogs(io.Discard, slog.LevelWarn)) {
		if s.Key == "volume" {
			vol = &s
		}
	}
	require.NotNil(t, vol)
	assert.Equal(t, "6", vol.Get(), "a new robot starts at 6 of 10")
	for _, bad := range []string{"11", "-1", "loud", "5.5"} {
		_, err := vol.Check(bad)
		assert.Error(t, err, bad)
	}
	v, err := vol.Check("3")
	require.NoError(t, err)
	require.NoError(t, vol.Apply(v))
	assert.Equal(t, "3", vol.Get())
	assert.InDelta(t, 0.3, VolumeControl(r.body.Volume, nil, nil).Volume(), 1e-9)
}

// shellOn is a shell on r as jibod runs it, with a PIN for technician
// mode; script runs lines through it and returns what it printed.
func shellOn(t *testing.T, r *Robot, c ShellConfig) func(lines ...string) string {
	t.Helper()
	if c.Logs == nil {
		c.Logs = NewLogs(io.Discard, slog.LevelWarn)
	}
	c.StateDir, c.Reboot = NoState, ShellOff
	hash, err := diag.HashPIN("2468", diag.MinPINIterations)
	require.NoError(t, err)
	srv, err := diag.NewServer(diag.Config{Env: r.shellEnv(c), Logger: c.Logs.Log,
		PINHash: hash, WrongPINDelay: -1})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return func(lines ...string) string {
		var out bytes.Buffer
		in := strings.Join(append([]string{"unlock", "2468"}, lines...), "\n")
		require.NoError(t, srv.Serve(context.Background(), diag.Conn{R: strings.NewReader(in), W: &out, Name: "test", Mode: diag.Script}))
		return out.String()
	}
}

// `config set listen.command_window 12s` changes the window the running
// listener opens at its next wake; `listen.answer_window` the time the
// next question waits. Bad values are refused, naming key, value and
// range, and change nothing.
func TestShellListenWindows(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	r := startRobot(t, Config{StateDir: NoState, Now: func() time.Time { return now }, Hearing: hearing.Config{Audio: "null"},
		Recognizer: func(context.Context, hearing.Parts, hearing.Options) (audio.Recognizer, func() error, error) {
			return silentASR{}, func() error { return nil }, nil
		}})
	lis := r.Hearing().Listener()
	require.NotNil(t, lis)
	sh := shellOn(t, r, ShellConfig{})

	out := sh("config get")
	assert.Regexp(t, `listen\.command_window +8s +how long the robot listens for a command after "hey jibo", a wake button or `+"`audio listen`"+`; from the next wake \(1s\.\.1m\)`, out)
	assert.Regexp(t, `listen\.answer_window +30s +how long the robot waits for the answer to a skill's question; from the next question \(1s\.\.5m\)`, out)

	assert.Contains(t, sh("config set listen.command_window 12s"), "listen.command_window: 8s -> 12s\n")
	assert.Equal(t, 12*time.Second, lis.CommandWindow(), "the listener opens 12s windows from the next wake")
	assert.Contains(t, sh("config set listen.answer_window=45s"), "listen.answer_window: 30s -> 45s\n")
	assert.Equal(t, 45*time.Second, r.host.ListenWindow())

	for _, tc := range []struct{ key, value, want string }{
		{"listen.command_window", "90s", "want a duration from 1s to 1m, like 12s"},
		{"listen.command_window", "500ms", "want a duration from 1s to 1m, like 12s"},
		{"listen.command_window", "12", "want a duration from 1s to 1m, like 12s"},
		{"listen.command_window", "soon", "want a duration from 1s to 1m, like 12s"},
		{"listen.answer_window", "10m", "want a duration from 1s to 5m, like 45s"},
		{"listen.answer_window", "-5s", "want a duration from 1s to 5m, like 45s"},
		{"listen.answer_window", "0", "want a duration from 1s to 5m, like 45s"},
	} {
		out := sh("config set " + tc.key + "=" + tc.value)
		assert.Contains(t, out, "error: nothing changed: "+tc.key+"="+tc.value+": "+tc.want+"\n", tc.key+"="+tc.value)
	}
	// Both together: one bad value and neither changes.
	assert.Contains(t, sh("config set listen.command_window=20s listen.answer_window=1h"),
		"error: nothing changed: listen.answer_window=1h: want a duration from 1s to 5m, like 45s\n")
	assert.Equal(t, 12*time.Second, lis.CommandWindow(), "nothing changed")
	assert.Equal(t, 45*time.Second, r.host.ListenWindow(), "nothing changed")

	// The next question waits 45s for its answer.
	sh("utter set a timer")
	rm, ok := r.orch.DefaultSession().ResponseMode()
	require.True(t, ok, "the timer skill asked for how long")
	assert.InDelta(t, float64(now.Add(45*time.Second).Unix()), rm.ExpiresAt, 0.001)
}

func TestShellListenWindowsNeedAnEar(t *testing.T) {
	r := startRobot(t, Config{StateDir: NoState})
	out := shellOn(t, r, ShellConfig{})("config get", "config set listen.command_window=12s")
	assert.NotContains(t, out, "listen.command_window  ", "no --audio: no command window to set")
	assert.Contains(t, out, "listen.answer_window")
	assert.Contains(t, out, "error: nothing changed: listen.command_window: no such key")
}

func TestShellHubTopicAndKindsAreTheHubs(t *testing.T) {
	assert.Equal(t, hub.TopicTrigger, diag.TopicHubTrigger)
	r := startRobot(t, Config{StateDir: NoState})
	var err error
	r.hub, err = newHubLink(r, HubConfig{URL: "ws://127.0.0.1:9/", Encoding: wire.CBOR, Link: hub.PerTurn}, NoState, "en-US", time.Now, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	sh := shellOn(t, r, ShellConfig{})
	// The kinds the shell takes are the protocol's: refused only because
	// the link is not up.
	for _, kind := range []string{protocol.TriggerNewArrival, protocol.TriggerSurprise} {
		assert.Contains(t, sh("hub trigger "+kind), "error: nothing triggered: the hub link is not up: connecting to ws://127.0.0.1:9 (cbor)\n")
	}
}

// `hub` on a robot with a hub link (not started: connecting) and the
// catalog applied shows the link, its mode and encoding, and the skills.
func TestShellHubShowsTheLinkAndCatalog(t *testing.T) {
	r := startRobot(t, Config{StateDir: NoState})
	var err error
	r.hub, err = newHubLink(r, HubConfig{URL: "ws://127.0.0.1:9/", Encoding: wire.CBOR, Link: hub.PerTurn}, NoState, "en-US", time.Now, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	sh := shellOn(t, r, ShellConfig{})
	assert.Contains(t, sh("hub"), "link:           connecting to ws://127.0.0.1:9 (cbor)\n"+
		"mode:           per-turn\n"+
		"encoding:       cbor\n"+
		"remote skills:  none (the hub's catalog was not fetched yet, or offers none)\n")

	require.NoError(t, r.hub.remote.Apply(context.Background(), &wire.Catalog{Skills: []wire.CatalogSkill{
		{ID: "openjibo/trivia", Name: "Trivia", Version: "1.0.0",
			Config: protocol.ManifestSkillConfig{ID: "openjibo/trivia", Intents: []protocol.ManifestIntent{{Name: "play_trivia"}}},
			Locale: map[string]map[string]string{"en-US": {"play_trivia.intent": "play trivia\n"}}},
		{ID: "openjibo/fact", Name: "Fun facts", Version: "1.0.0",
			Config: protocol.ManifestSkillConfig{ID: "openjibo/fact", Intents: []protocol.ManifestIntent{{Name: "fun_fact"}}},
			Locale: map[string]map[string]string{"en-US": {"fun_fact.intent": "tell me a fun fact\n"}}},
	}}))
	out := sh("hub", "hub --json", "status")
	assert.Contains(t, out, "link:              connecting to ws://127.0.0.1:9 (cbor)\n"+
		"mode:              per-turn\n"+
		"encoding:          cbor\n"+
		"remote skills:     2\n"+
		"  openjibo/fact    Fun facts\n"+
		"  openjibo/trivia  Trivia\n")
	assert.Contains(t, out, `"skills":[{"id":"openjibo/fact","name":"Fun facts"},{"id":"openjibo/trivia","name":"Trivia"}]`)
	assert.Contains(t, out, `"status":"connecting"`)
	assert.Contains(t, out, "hub link:      connecting to ws://127.0.0.1:9 (cbor)\n")
}
