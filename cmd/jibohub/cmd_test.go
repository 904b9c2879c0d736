package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/token"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/internal/hubserver"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestServeFlagErrors(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "hub.key")
	require.Equal(t, 0, run(context.Background(), []string{"keygen", "--out", key}, &bytes.Buffer{}, &bytes.Buffer{}))
	junk := filepath.Join(dir, "junk.pem")
	require.NoError(t, os.WriteFile(junk, []byte("not PEM\n"), 0o600))
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"no key and no --no-auth", []string{"serve", "--addr", "127.0.0.1:0"}, 2, "give exactly one of --key FILE and --no-auth"},
		{"key and --no-auth", []string{"serve", "--key", key, "--no-auth"}, 2, "give exactly one of --key FILE and --no-auth"},
		{"key file missing", []string{"serve", "--key", filepath.Join(dir, "missing.key")}, 1, "missing.key"},
		{"cert without key", []string{"serve", "--no-auth", "--tls-cert", junk}, 2, "--tls-cert and --tls-key go together"},
		{"bad TLS pair", []string{"serve", "--no-auth", "--addr", "127.0.0.1:0", "--tls-cert", junk, "--tls-key", junk}, 1, "tls"},
		{"bad log level", []string{"serve", "--no-auth", "--log-level", "loud"}, 2, `--log-level "loud"`},
		{"skills config missing", []string{"serve", "--no-auth", "--skills-config", filepath.Join(dir, "none.json")}, 1,
			"skills config: open"},
		{"skills config not JSON", []string{"serve", "--no-auth", "--skills-config", write("bad.json", "{")}, 1,
			"skills config " + filepath.Join(dir, "bad.json")},
		{"skills config entry without url", []string{"serve", "--no-auth", "--skills-config",
			write("nourl.json", `{"skills":[{"manifest":{"id":"acme/x"}}]}`)}, 1, "skills[0]: url: required"},
		{"skills config unknown field", []string{"serve", "--no-auth", "--skills-config",
			write("extra.json", `{"skills":[],"bogus":1}`)}, 1, `unknown field "bogus"`},
		{"skills config bad manifest", []string{"serve", "--no-auth", "--skills-config",
			write("badman.json", `{"skills":[{"url":"http://127.0.0.1:1/v1/main","manifest":{"id":"Not An Id"}}]}`)}, 1,
			"skills[0]: manifest:"},
		{"max connections", []string{"serve", "--no-auth", "--max-connections", "0"}, 2, "--max-connections 0"},
		{"stray argument", []string{"serve", "--no-auth", "extra"}, 2, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // a serve that got going stops at once
			var out, errOut bytes.Buffer
			code := run(ctx, tt.args, &out, &errOut)
			assert.Equal(t, tt.code, code, "stdout %s stderr %s", out.String(), errOut.String())
			assert.Contains(t, errOut.String(), tt.wantErr)
		})
	}
}

func TestKeygenAndToken(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "hub.key")
	code, out, errOut := runCmd("keygen", "--out", key)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, key+"\n", out)
	st, err := os.Stat(key)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	code, _, errOut = runCmd("keygen", "--out", key)
	assert.Equal(t, 1, code, "an existing key is not overwritten")
	assert.Contains(t, errOut, key+" exists; not overwritten")

	code, out, errOut = runCmd("token", "--key", key, "--robot", "Tall-Pine-Gale", "--ttl", "1h")
	require.Equal(t, 0, code, errOut)
	k, err := token.ReadKeyFile(key)
	require.NoError(t, err)
	iss, err := token.NewIssuer(k, nil)
	require.NoError(t, err)
	claims, err := iss.Verify(strings.TrimSpace(out))
	require.NoError(t, err, "the printed token verifies with the key")
	assert.Equal(t, "Tall-Pine-Gale", claims.RobotID())
	assert.Equal(t, "Tall-Pine-Gale", claims.AccountID(), "the account defaults to the robot")
	assert.WithinDuration(t, claims.IssuedAt.Add(time.Hour), claims.ExpiresAt, time.Second)

	for _, args := range [][]string{
		{"token", "--key", key},
		{"token", "--key", key, "--robot", "r", "--ttl", "0s"},
		{"keygen"},
	} {
		code, _, errOut := runCmd(args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.NotEmpty(t, errOut)
	}
}

func TestSkillsListing(t *testing.T) {
	code, out, errOut := runCmd("skills")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "openjibo/fact\tFun facts\tintents: fun_fact", lines[0])
	assert.Contains(t, lines[1], "openjibo/greeter")
	assert.Contains(t, lines[1], "triggers: NEW_ARRIVAL, SURPRISE")
	assert.Contains(t, lines[2], "openjibo/trivia\tTrivia\tintents: play_trivia")
	assert.Contains(t, lines[2], "rules: openjibo.trivia/answer")
}

// The shipped catalog's intents register on a robot with no warning: the
// samples are ASR-normalised already (GRM-02), as the robot's normaliser
// would give them ("let's" → "lets"). The control shows the check sees a
// sample that is not.
func TestCatalogRegistersCleanly(t *testing.T) {
	hub, err := newHub("", 1, hubserver.Config{})
	require.NoError(t, err)
	cat, err := wire.DecodeCatalog(hub.Catalog())
	require.NoError(t, err)
	require.Len(t, cat.Skills, 3)
	warnings := func(t *testing.T, files map[string]map[string]string, busID string) []string {
		fsys := fstest.MapFS{}
		for lang, fs := range files {
			for name, content := range fs {
				fsys[lang+"/"+name] = &fstest.MapFile{Data: []byte(content)}
			}
		}
		loc, err := intent.LoadLocale(fsys, ".")
		require.NoError(t, err)
		var out []string
		for _, w := range loc.Warnings {
			out = append(out, w.String())
		}
		eng := intent.NewTemplateEngine(intent.EngineOptions{})
		for _, def := range loc.TemplateIntents("", busID) {
			ws, err := eng.Register(def)
			require.NoError(t, err)
			for _, w := range ws {
				out = append(out, w.String())
			}
		}
		return out
	}
	for _, s := range cat.Skills {
		t.Run(s.ID, func(t *testing.T) {
			assert.Empty(t, warnings(t, s.Locale, strings.Replace(s.ID, "/", ".", 1)))
		})
	}
	t.Run("control: an apostrophe warns", func(t *testing.T) {
		got := warnings(t, map[string]map[string]string{"en-US": {"play.intent": "let's play trivia\n"}}, "acme.x")
		require.NotEmpty(t, got)
		assert.Contains(t, strings.Join(got, "\n"), "GRM-02")
	})
}
