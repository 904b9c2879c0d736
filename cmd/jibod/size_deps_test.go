package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pure ARM builds (make cross) link none of the packages that weighed
// much and bought nothing jibod needs; each has a lighter stand-in
// (docs/size.md). A new import of one brings its weight back.
func TestPureBuildLeavesOutHeavyPackages(t *testing.T) {
	heavy := map[string]string{
		"regexp":                        "internal/ascii and byte loops check names",
		"text/template":                 "it calls reflect's Method by name, which keeps every exported method",
		"html/template":                 "it calls reflect's Method by name, which keeps every exported method",
		"github.com/expr-lang/expr":     "core/skill/mim interprets MIM expressions",
		"periph.io/x/host/v3":           "board imports the host drivers it uses",
		"periph.io/x/host/v3/rpi":       "bcm283x names the Pi's pins; rpi only describes its headers",
		"periph.io/x/host/v3/allwinner": "no board profile uses it",
		"periph.io/x/host/v3/pine64":    "no board profile uses it",
	}
	for _, goarch := range []string{"arm64", "arm"} {
		cmd := exec.Command("go", "list", "-deps", "-tags", "nethttpomithttp2", ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch, "GOARM=7")
		out, err := cmd.Output()
		require.NoError(t, err, "go list")
		deps := strings.Fields(string(out))
		require.Contains(t, deps, "periph.io/x/host/v3/bcm283x", "the listing is jibod's")
		for _, p := range deps {
			why, ok := heavy[p]
			assert.False(t, ok, "%s: jibod imports %s (%s)", goarch, p, why)
			assert.False(t, p == "testing" || strings.HasPrefix(p, "testing/"), "%s: jibod imports %s, a test package", goarch, p)
		}
	}
}
