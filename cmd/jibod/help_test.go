package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/audio/wake"
)

// flagHelp splits a flag set's -h output into each flag's help text.
func flagHelp(t *testing.T, out string) map[string]string {
	t.Helper()
	help := map[string]string{}
	var name string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			name, _, _ = strings.Cut(rest, " ")
			continue
		}
		if name != "" {
			help[name] += strings.TrimSpace(line) + " "
		}
	}
	require.NotEmpty(t, help, "no flags in %q", out)
	return help
}

// TestWakeThresholdHelp: --wake-threshold says what it is now, the level
// the phrase's probability must hold for the model's hold steps, with the
// embedded model's figures.
func TestWakeThresholdHelp(t *testing.T) {
	m, err := wake.Default()
	require.NoError(t, err)
	for _, args := range [][]string{{"run", "-h"}, {"audio", "eval", "-h"}} {
		code, _, stderr := runCmd(t, args...)
		require.Equal(t, 0, code, stderr)
		h := flagHelp(t, stderr)["wake-threshold"]
		assert.Contains(t, h, "held level", args)
		assert.Contains(t, h, fmt.Sprintf("%d steps of %d ms", m.Hold(), m.Step().Milliseconds()), args)
		assert.Contains(t, h, fmt.Sprintf("the model's own, %g", m.Threshold()), args)
		assert.Contains(t, h, "docs/config.md", args)
	}
}

// TestRunHelpAgreesWithConfigDoc: every flag docs/config.md names is one
// of jibod run's, and the range the page gives it is in its help.
func TestRunHelpAgreesWithConfigDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/config.md")
	require.NoError(t, err)
	code, _, stderr := runCmd(t, "run", "-h")
	require.Equal(t, 0, code, stderr)
	help := flagHelp(t, stderr)
	row := regexp.MustCompile("^\\| `[a-z_.]+` \\| `--([a-z-]+)`[^|]* \\|[^|]*\\| (.*) \\|$")
	span := regexp.MustCompile(`-?\d+(?:\.\d+)?[a-z]*\.\.-?\d+(?:\.\d+)?[a-z]*`)
	rows := 0
	for _, line := range strings.Split(string(doc), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		h, ok := help[m[1]]
		if !assert.True(t, ok, "--%s of docs/config.md is no flag of jibod run", m[1]) {
			continue
		}
		for _, r := range span.FindAllString(m[2], -1) {
			assert.Contains(t, h, r, "--%s: docs/config.md says %q", m[1], m[2])
		}
	}
	assert.GreaterOrEqual(t, rows, 30, "the fields table was read")
}

// TestUsageNamesAudioTools: jibod's usage names every audio subcommand.
func TestUsageNamesAudioTools(t *testing.T) {
	code, stdout, _ := runCmd(t, "--help")
	require.Equal(t, 0, code)
	_, audio, ok := strings.Cut(stdout, "jibod audio ...")
	require.True(t, ok)
	audio, _, _ = strings.Cut(audio, "\n")
	for _, sub := range []string{"devices", "level", "eval", "prompts", "enroll", "adapt"} {
		assert.Contains(t, audio, sub)
	}
}
