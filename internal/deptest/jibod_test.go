package deptest

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hubSide is the hub's own packages: the robot's floors must not import
// them, and jibod must not carry them.
var hubSide = []string{"internal/hubserver"}

// jibodRules are the package map's import rules ("imports run one way"):
// cmd → core → jcp → motion → device, with audio and board beside them
// and internal/ as leaves everyone may use.
var jibodRules = Rules{
	Module: "github.com/openjibo/jibod",
	Areas:  []string{"core", "cmd", "internal", "examples"},
	Layers: []Rule{
		{From: "core", Forbid: append([]string{"device", "board", "audio", "cmd", "examples"}, hubSide...),
			// The composition root builds the body, the board and the
			// audio and hands them to core as interfaces.
			Except: []string{"core/runtime"},
			Why:    "core takes the body, boards and audio through interfaces it defines, never imports them"},
		{From: "jcp", Forbid: append([]string{"core", "audio", "board", "cmd", "examples"}, hubSide...),
			Why: "jcp sits below core and drives motion and devices through interfaces it is handed"},
		{From: "motion", Forbid: append([]string{"jcp", "core", "audio", "board", "cmd", "examples"}, hubSide...),
			Why: "motion sits below jcp and core: it only knows the devices it moves"},
		{From: "device", Forbid: append([]string{"core", "jcp", "motion", "audio", "board", "cmd", "examples", "sdk"}, hubSide...),
			Why: "device is the bottom floor: drivers import nothing of ours above them"},
		// No exceptions: what audio needs of core (the transformer id rule,
		// the intent engines' normaliser, the bus) the wiring hands in.
		{From: "audio", Forbid: append([]string{"core", "jcp", "motion", "board", "cmd", "examples"}, hubSide...),
			Why: "audio is capture, playback and hearing beside device; core reaches it through interfaces"},
		{From: "board", Forbid: append([]string{"core", "audio", "cmd", "examples"}, hubSide...),
			Why: "board builds device drivers from a profile; it knows nothing above the body"},
		{From: "internal", Forbid: []string{"core", "jcp", "motion", "device", "audio", "board", "cmd", "examples", "sdk"},
			Except: hubSide,
			Why:    "internal/ holds leaves every floor may use, so they import nothing of ours above them"},
		{From: "internal/hubserver", Forbid: []string{"device", "audio", "board", "motion", "cmd", "examples"},
			Why: "the hub hosts skills; it has no body"},
		{From: "cmd/jibod", Forbid: append([]string{"cmd/jibohub"}, hubSide...),
			Why: "the robot does not carry the hub's side"},
		{From: "cmd/jibohub", Forbid: []string{"cmd/jibod", "device", "audio", "board"},
			Why: "the hub does not carry the robot's body"},
	},
}

// moduleRoot is the folder of this module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	require.NoError(t, err)
	gomod := strings.TrimSpace(string(out))
	require.NotEmpty(t, gomod, "not in a module")
	return filepath.Dir(gomod)
}

// TestImportRules checks every package of the module against the import
// rules and the area cycle check.
func TestImportRules(t *testing.T) {
	root := moduleRoot(t)
	pkgs, err := Load(context.Background(), root, nil, "./...")
	require.NoError(t, err)
	require.Greater(t, len(pkgs), 50, "go list listed too little to be the module")
	for _, v := range jibodRules.Check(pkgs) {
		t.Errorf("%s", v)
	}
	for _, a := range staleAllowed(jibodRules, pkgs) {
		t.Logf("allow-list entry no longer needed: %s imports %s", a.From, a.Import)
	}
}

// staleAllowed are the allow-list entries no package needs any more.
func staleAllowed(r Rules, pkgs []Package) []Allowed {
	have := map[[2]string]bool{}
	for _, p := range pkgs {
		from, ok := r.rel(p.ImportPath)
		if !ok {
			continue
		}
		for _, ip := range p.Imports {
			if imp, ok := r.rel(ip); ok {
				have[[2]string{from, imp}] = true
			}
		}
	}
	var out []Allowed
	for _, a := range r.Allow {
		if !have[[2]string{a.From, a.Import}] {
			out = append(out, a)
		}
	}
	return out
}

// TestJibodPureBuild checks the robot's binary as `make cross` builds it:
// without cgo for both ARM boards, it needs no cgo package and does not
// carry the hub's side; with cgo allowed but no build tags, no package of
// its own or of a dependency uses cgo (portaudio, pocketsphinx and espeak
// stay behind their tags).
func TestJibodPureBuild(t *testing.T) {
	root := moduleRoot(t)
	for _, arch := range [][]string{{"GOARCH=arm64"}, {"GOARCH=arm", "GOARM=7"}} {
		t.Run(arch[0], func(t *testing.T) {
			env := append([]string{"GOOS=linux", "GOFLAGS=", "CGO_ENABLED=0"}, arch...)
			pkgs, err := Load(context.Background(), root, env, "./cmd/jibod")
			require.NoError(t, err)
			require.Greater(t, len(pkgs), 100, "go list listed too little to be jibod's dependencies")
			for _, v := range Pure(pkgs) {
				t.Errorf("%s", v)
			}
			for _, v := range jibodRules.Banned(pkgs, hubSide, "the hub's side in the robot's binary") {
				t.Errorf("%s", v)
			}
			env[2] = "CGO_ENABLED=1"
			pkgs, err = Load(context.Background(), root, env, "./cmd/jibod")
			require.NoError(t, err)
			for _, v := range NoCgo(pkgs) {
				t.Errorf("%s", v)
			}
		})
	}
}
