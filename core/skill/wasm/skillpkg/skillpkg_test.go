package skillpkg

import (
	"archive/zip"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const manifest = `{"id": "acme/weather", "version": "1.0.0", "name": "Weather", "description": "Says the weather.",
  "permissions": ["speech"], "safety_level": "low"}`

// module is the smallest file that passes as a module here (the engine
// checks the rest).
var module = []byte("\x00asm\x01\x00\x00\x00")

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

func goodFiles() map[string]string {
	return map[string]string{
		"manifest.json":                      manifest,
		"skill.wasm":                         string(module),
		"locale/en-us/weather.intent":        "what is the weather [like]\n",
		"rules/when/en-us/when.intent":       "(today|tomorrow)\n",
		"locale/de-de/weather.intent":        "wie ist das wetter\n",
		"locale/en-us/vocab/days.voc":        "(monday|tuesday)\n",
		"locale/en-us/weather_report.dialog": "It's sunny.\n",
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, goodFiles())
	p, err := Read(dir)
	require.NoError(t, err)
	assert.Equal(t, "acme/weather", p.Manifest.ID)
	assert.Equal(t, module, p.Module)
	b, err := fs.ReadFile(p.Locale, "en-us/weather.intent")
	require.NoError(t, err)
	assert.Equal(t, "what is the weather [like]\n", string(b))
	b, err = fs.ReadFile(p.Rules, "when/en-us/when.intent")
	require.NoError(t, err)
	assert.Equal(t, "(today|tomorrow)\n", string(b))

	st, err := StampOf(dir)
	require.NoError(t, err)
	assert.True(t, st.Same(p.Stamp))
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, ModuleFile), later, later))
	st, err = StampOf(dir)
	require.NoError(t, err)
	assert.False(t, st.Same(p.Stamp), "a rewritten module is another copy")
}

// A malformed locale file does not stop the package: it is left out and
// reported, as ovos-core loads the rest of a skill.
func TestReadRefusesOneFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, goodFiles())
	write(t, dir, map[string]string{"locale/en-us/broken.intent": "turn (on|off\n"})
	p, err := Read(dir)
	require.NoError(t, err)
	require.Len(t, p.Refused, 1)
	assert.Equal(t, "locale/en-us/broken.intent", p.Refused[0].Path)
	assert.Equal(t, []string{"locale/en-us/broken.intent:1:6: '(' is never closed by ')'"}, p.Refused[0].Reasons)
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		want   string
	}{
		{"no manifest", func(t *testing.T, dir string) { require.NoError(t, os.Remove(filepath.Join(dir, "manifest.json"))) },
			"manifest.json is missing"},
		{"unknown permission", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"manifest.json": strings.Replace(manifest, `["speech"]`, `["speech", "camera"]`, 1)})
		}, `manifest.json: invalid manifest: permissions[1]: "camera" is not a permission`},
		{"reserved namespace", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"manifest.json": strings.Replace(manifest, "acme/weather", "jibo/weather", 1)})
		}, `the namespace "jibo" is reserved`},
		{"no module", func(t *testing.T, dir string) { require.NoError(t, os.Remove(filepath.Join(dir, "skill.wasm"))) },
			"skill.wasm"},
		{"not a module", func(t *testing.T, dir string) { write(t, dir, map[string]string{"skill.wasm": "#!/bin/sh\n"}) },
			"skill.wasm is not a WebAssembly module"},
		{"no locale", func(t *testing.T, dir string) { require.NoError(t, os.RemoveAll(filepath.Join(dir, "locale"))) },
			"locale/ is missing"},
		{"link", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "locale", "en-us", "passwd.dialog")))
		}, "locale/en-us/passwd.dialog is not a regular file or folder (links are refused)"},
		{"big locale file", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"locale/en-us/big.dialog": strings.Repeat("x", MaxFileBytes+1)})
		}, "big.dialog is 262145 bytes, limit 262144"},
		{"deep", func(t *testing.T, dir string) {
			write(t, dir, map[string]string{"locale/a/b/c/d/e/f/g.dialog": "x"})
		}, "nested deeper than 6 folders"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, goodFiles())
			tt.change(t, dir)
			p, err := Read(dir)
			assert.Nil(t, p)
			assert.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestInstallAndList(t *testing.T) {
	src := t.TempDir()
	write(t, src, goodFiles())
	p, err := Read(src)
	require.NoError(t, err)
	skills := filepath.Join(t.TempDir(), "skills")
	dst, err := Install(p, skills)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(skills, "acme.weather"), dst)
	back, err := Read(dst)
	require.NoError(t, err)
	assert.Equal(t, p.Manifest, back.Manifest)
	assert.Equal(t, p.Module, back.Module)
	b, err := fs.ReadFile(back.Rules, "when/en-us/when.intent")
	require.NoError(t, err)
	assert.Equal(t, "(today|tomorrow)\n", string(b))

	// Installing again replaces it whole: a file the new version lacks is gone.
	require.NoError(t, os.Remove(filepath.Join(src, "locale", "de-de", "weather.intent")))
	require.NoError(t, os.Remove(filepath.Join(src, "locale", "de-de")))
	write(t, src, map[string]string{"manifest.json": strings.Replace(manifest, "1.0.0", "1.1.0", 1)})
	p, err = Read(src)
	require.NoError(t, err)
	_, err = Install(p, skills)
	require.NoError(t, err)
	back, err = Read(dst)
	require.NoError(t, err)
	assert.Equal(t, "1.1.0", back.Manifest.Version)
	_, err = os.Stat(filepath.Join(dst, "locale", "de-de"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	des, err := os.ReadDir(skills)
	require.NoError(t, err)
	require.Len(t, des, 1, "no temporary folders left behind")

	// List: the installed skill, a package in the wrong folder, a broken one;
	// folders in progress are skipped.
	require.NoError(t, os.MkdirAll(filepath.Join(skills, ".install-123"), 0o700))
	write(t, filepath.Join(skills, "wrong.name"), map[string]string{"manifest.json": manifest})
	write(t, filepath.Join(skills, "acme.broken"), map[string]string{"manifest.json": "{"})
	entries, err := List(skills)
	require.NoError(t, err)
	require.Len(t, entries, 3)
	assert.ErrorContains(t, entries[0].Err, "manifest.json: invalid manifest")
	assert.Equal(t, "acme/weather", entries[1].Manifest.ID)
	assert.NoError(t, entries[1].Err)
	assert.ErrorContains(t, entries[2].Err, "the folder of skill acme/weather must be named acme.weather")

	none, err := List(filepath.Join(t.TempDir(), "missing"))
	require.NoError(t, err)
	assert.Empty(t, none)
}

func writeZip(t *testing.T, path string, entries map[string]string, links ...string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for name, text := range entries {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write([]byte(text))
		require.NoError(t, err)
	}
	for _, name := range links {
		h := &zip.FileHeader{Name: name}
		h.SetMode(os.ModeSymlink | 0o777)
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, err = w.Write([]byte("/etc/passwd"))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

func TestUnzip(t *testing.T) {
	for name, prefix := range map[string]string{"at the root": "", "in one folder": "weather/"} {
		t.Run(name, func(t *testing.T) {
			entries := map[string]string{}
			for k, v := range goodFiles() {
				entries[prefix+k] = v
			}
			file := filepath.Join(t.TempDir(), "weather.zip")
			writeZip(t, file, entries)
			dst := filepath.Join(t.TempDir(), "x")
			require.NoError(t, Unzip(file, dst))
			p, err := Read(dst)
			require.NoError(t, err)
			assert.Equal(t, "acme/weather", p.Manifest.ID)
		})
	}
	for _, tt := range []struct {
		name    string
		entries map[string]string
		links   []string
		want    string
	}{
		{"escape", map[string]string{"manifest.json": manifest, "../../evil": "x"}, nil, `entry "../../evil" would be written outside the package`},
		{"absolute", map[string]string{"manifest.json": manifest, "/etc/evil": "x"}, nil, "outside the package"},
		{"link", map[string]string{"manifest.json": manifest}, []string{"locale/x.dialog"}, "links are refused"},
		{"big entry", map[string]string{"locale/big.dialog": strings.Repeat("x", MaxFileBytes+1)}, nil, "limit 262144"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "bad.zip")
			writeZip(t, file, tt.entries, tt.links...)
			err := Unzip(file, filepath.Join(t.TempDir(), "x"))
			assert.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	notZip := filepath.Join(t.TempDir(), "x.zip")
	require.NoError(t, os.WriteFile(notZip, []byte("hello"), 0o644))
	assert.ErrorContains(t, Unzip(notZip, filepath.Join(t.TempDir(), "x")), "not a zip file")
}

func TestUninstall(t *testing.T) {
	src := t.TempDir()
	write(t, src, goodFiles())
	p, err := Read(src)
	require.NoError(t, err)
	skills := filepath.Join(t.TempDir(), "skills")
	dst, err := Install(p, skills)
	require.NoError(t, err)
	// A folder named for one skill but holding another is left alone.
	write(t, filepath.Join(skills, "acme.other"), map[string]string{"manifest.json": manifest})

	for _, tc := range []struct{ id, err string }{
		{"not an id", `uninstalling "not an id"`},
		{"acme/missing", "uninstalling acme/missing: not installed in " + skills},
		{"acme/other", "holds skill acme/weather; left alone"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			_, err := Uninstall(skills, tc.id)
			assert.ErrorContains(t, err, tc.err)
		})
	}
	_, err = os.Stat(filepath.Join(skills, "acme.other", "manifest.json"))
	require.NoError(t, err, "nothing removed on a refusal")

	dir, err := Uninstall(skills, "acme/weather")
	require.NoError(t, err)
	assert.Equal(t, dst, dir)
	entries, err := List(skills)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the other folder remains")
	assert.Equal(t, filepath.Join(skills, "acme.other"), entries[0].Dir)
	des, err := os.ReadDir(skills)
	require.NoError(t, err)
	assert.Len(t, des, 1, "no folder set aside is left behind")

	// A package broken on disk can still be removed.
	write(t, filepath.Join(skills, "acme.broken"), map[string]string{"manifest.json": "{"})
	_, err = Uninstall(skills, "acme/broken")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(skills, "acme.broken"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}
