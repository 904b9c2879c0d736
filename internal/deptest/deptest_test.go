package deptest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mod = "example.com/robot"

// pkg is a package of the synthetic module importing imports (module
// relative, or standard when they have no dot and are not ours).
func pkg(path string, imports ...string) Package {
	p := Package{ImportPath: mod + "/" + path}
	for _, i := range imports {
		p.Imports = append(p.Imports, mod+"/"+i)
	}
	return p
}

// texts are the violations as text, to compare in tables.
func texts(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

// TestCheckSynthetic checks the rules of this repository on small graphs:
// a clean one passes, and each forbidden import the issue names is caught.
func TestCheckSynthetic(t *testing.T) {
	rules := jibodRules
	rules.Module = mod
	rules.Allow = []Allowed{{From: "audio/listen", Import: "core/pipeline", Why: "test"}}
	clean := []Package{
		pkg("device"), pkg("device/ledring", "device"),
		pkg("motion", "device", "device/ledring", "internal/strictjson"),
		pkg("jcp", "motion", "internal/strictjson"),
		pkg("core/bus", "internal/strictjson"), pkg("core/pipeline", "core/bus"),
		pkg("core/intent", "core/pipeline", "core/bus"), pkg("core/diag", "core/bus", "jcp", "motion"),
		pkg("core/runtime", "core/diag", "device", "board", "audio"),
		pkg("audio", "device"), pkg("audio/listen", "audio", "core/pipeline"),
		pkg("board", "device", "motion", "jcp"),
		pkg("internal/strictjson"), pkg("internal/hubserver", "core/intent", "internal/strictjson"),
		pkg("cmd/jibod", "core/runtime", "core/diag", "board"), pkg("cmd/jibohub", "internal/hubserver"),
		{ImportPath: "fmt", Standard: true}, {ImportPath: "periph.io/x/conn/v3", Imports: []string{"fmt"}},
	}
	require.Empty(t, texts(rules.Check(clean)), "a clean graph")

	tests := []struct {
		name string
		add  Package
		want string
	}{
		{"core imports device", pkg("core/diag", "device/ledring"),
			mod + "/core/diag imports " + mod + "/device/ledring: core takes the body, boards and audio through interfaces it defines, never imports them"},
		{"core imports board", pkg("core/skill", "board"), mod + "/core/skill imports " + mod + "/board: "},
		{"core imports audio", pkg("core/web", "audio/listen"), mod + "/core/web imports " + mod + "/audio/listen: "},
		{"device imports motion", pkg("device/sim", "motion"), mod + "/device/sim imports " + mod + "/motion: device is the bottom floor"},
		{"device imports core", pkg("device/sfx", "core/bus"), mod + "/device/sfx imports " + mod + "/core/bus: "},
		{"device imports cmd", pkg("device/gpio", "cmd/jibod"), mod + "/device/gpio imports " + mod + "/cmd/jibod: "},
		{"motion imports jcp", pkg("motion/x", "jcp"), mod + "/motion/x imports " + mod + "/jcp: motion sits below"},
		{"motion imports core", pkg("motion/y", "core/bus"), mod + "/motion/y imports " + mod + "/core/bus: "},
		{"jcp imports core", pkg("jcp/character", "core/session"), mod + "/jcp/character imports " + mod + "/core/session: jcp sits below core"},
		{"audio imports core beyond the allow-list", pkg("audio/vad", "core/pipeline"), mod + "/audio/vad imports " + mod + "/core/pipeline: "},
		{"core imports the hub's side", pkg("core/hub", "internal/hubserver"), mod + "/core/hub imports " + mod + "/internal/hubserver: "},
		{"a leaf of internal imports core", pkg("internal/ascii", "core/bus"), mod + "/internal/ascii imports " + mod + "/core/bus: "},
		{"two areas import each other", pkg("core/pipeline/scenario", "core/intent"),
			"core/intent, core/pipeline: areas import each other: " + mod + "/core/intent imports " + mod + "/core/pipeline; " +
				mod + "/core/pipeline/scenario imports " + mod + "/core/intent"},
		{"three areas in a ring", pkg("core/bus/x", "core/intent"),
			"core/bus, core/intent, core/pipeline: areas import each other: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(rules.Check(append(clean[:len(clean):len(clean)], tt.add)))
			require.NotEmpty(t, got)
			found := false
			for _, g := range got {
				found = found || strings.Contains(g, tt.want)
			}
			assert.True(t, found, "want a violation containing %q, got %q", tt.want, got)
		})
	}
}

// TestAllowedSkipsOnlyItsImport: an allow-list entry lets exactly its
// import pass.
func TestAllowedSkipsOnlyItsImport(t *testing.T) {
	rules := Rules{Module: mod, Layers: []Rule{{From: "core", Forbid: []string{"device"}, Why: "no"}},
		Allow: []Allowed{{From: "core/diag", Import: "device", Why: "known"}}}
	got := texts(rules.Check([]Package{pkg("core/diag", "device", "device/ledring"), pkg("core/web", "device")}))
	assert.Equal(t, []string{
		mod + "/core/diag imports " + mod + "/device/ledring: no",
		mod + "/core/web imports " + mod + "/device: no",
	}, got)
	assert.Equal(t, []Allowed{{From: "core/diag", Import: "device", Why: "known"}},
		staleAllowed(rules, []Package{pkg("core/web")}), "an entry nothing needs is stale")
}

// TestCgoChecks: a package that only builds with cgo, runtime/cgo in the
// pure build, and cgo files outside the standard library are each caught.
func TestCgoChecks(t *testing.T) {
	assert.Empty(t, Pure([]Package{{ImportPath: "fmt", Standard: true}, pkg("audio")}))
	assert.Equal(t, []string{
		mod + "/audio/portaudio: does not build without cgo: build constraints exclude all Go files",
		"runtime/cgo: cgo in the pure build",
	}, texts(Pure([]Package{
		{ImportPath: mod + "/audio/portaudio", Error: &PackageError{Err: "build constraints exclude all Go files"}},
		{ImportPath: "runtime/cgo", Standard: true},
	})))
	assert.Empty(t, NoCgo([]Package{{ImportPath: "net", Standard: true, CgoFiles: []string{"cgo_unix.go"}}}))
	assert.Equal(t, []string{mod + "/audio/sphinx: uses cgo without a build tag (sphinx.go)"},
		texts(NoCgo([]Package{{ImportPath: mod + "/audio/sphinx", CgoFiles: []string{"sphinx.go"}}})))
}

// TestLoadCatchesRealModule runs the whole chain, go list included, on a
// module written to disk: clean, it passes; with a forbidden import, a
// cycle between areas or an untagged cgo file added, the checks fail.
func TestLoadCatchesRealModule(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("go.mod", "module "+mod+"\n\ngo 1.25\n")
	write("device/device.go", "package device\n\nconst Name = \"motor\"\n")
	write("core/diag/diag.go", "package diag\n\nimport \"fmt\"\n\nfunc Show() string { return fmt.Sprint(\"ok\") }\n")
	write("cmd/robot/main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\""+mod+"/core/diag\"\n\t\""+mod+"/device\"\n)\n\nfunc main() { fmt.Println(diag.Show(), device.Name) }\n")
	rules := jibodRules
	rules.Module = mod
	rules.Allow = nil
	env := []string{"GOFLAGS=", "GOWORK=off", "GOOS=linux", "GOARCH=arm64"}
	load := func(cgo string) []Package {
		t.Helper()
		pkgs, err := Load(context.Background(), dir, append(env, "CGO_ENABLED="+cgo), "./...")
		require.NoError(t, err)
		return pkgs
	}
	require.Empty(t, texts(rules.Check(load("0"))), "the clean module")
	require.Empty(t, texts(Pure(load("0"))))
	require.Empty(t, texts(NoCgo(load("1"))))

	write("core/diag/diag.go", "package diag\n\nimport \""+mod+"/device\"\n\nfunc Show() string { return device.Name }\n")
	assert.Equal(t, []string{mod + "/core/diag imports " + mod + "/device: core takes the body, boards and audio through interfaces it defines, never imports them"},
		texts(rules.Check(load("0"))), "core importing device")

	write("core/diag/diag.go", "package diag\n\nimport \""+mod+"/core/bus\"\n\nfunc Show() string { return bus.Name }\n")
	write("core/bus/bus.go", "package bus\n\nconst Name = \"bus\"\n")
	write("core/bus/x/x.go", "package x\n\nimport \""+mod+"/core/diag\"\n\nvar V = diag.Show()\n")
	assert.Equal(t, []string{"core/bus, core/diag: areas import each other: " + mod + "/core/bus/x imports " + mod + "/core/diag; " +
		mod + "/core/diag imports " + mod + "/core/bus"}, texts(rules.Check(load("0"))), "two areas importing each other")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "core", "bus", "x")))

	// A driver whose only file needs cgo: the pure build cannot build it,
	// and with cgo on it is cgo outside a build tag.
	write("device/mic/mic.go", "package mic\n\n// #include <stdlib.h>\nimport \"C\"\n\nfunc Open() { C.free(nil) }\n")
	write("cmd/robot/mic.go", "package main\n\nimport \""+mod+"/device/mic\"\n\nvar _ = mic.Open\n")
	pure := texts(Pure(load("0")))
	require.Len(t, pure, 1)
	assert.Contains(t, pure[0], mod+"/device/mic: does not build without cgo: ")
	assert.Equal(t, []string{mod + "/device/mic: uses cgo without a build tag (mic.go)"}, texts(NoCgo(load("1"))))
}
