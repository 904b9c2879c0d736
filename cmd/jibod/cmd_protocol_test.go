package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	protocheck "github.com/openjibo/jibod/core/skill/protocol/check"
)

const protocolExamples = "../../examples/protocol"

func TestProtocolCheckInvalidExamples(t *testing.T) {
	dir := filepath.Join(protocolExamples, "invalid")
	f, err := os.Open(filepath.Join(dir, "expected.txt"))
	require.NoError(t, err)
	defer f.Close()
	expected := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, ok := strings.Cut(sc.Text(), ": error: ")
		require.True(t, ok, "expected.txt line %q", sc.Text())
		expected[name] = sc.Text()
	}
	require.NoError(t, sc.Err())

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	checkedFiles := 0
	for _, e := range entries {
		if e.Name() == "expected.txt" {
			continue
		}
		checkedFiles++
		t.Run(e.Name(), func(t *testing.T) {
			want, ok := expected[e.Name()]
			require.True(t, ok, "expected.txt has a line for %s", e.Name())
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), testTrainer, []string{"protocol", "check", filepath.Join(dir, e.Name())}, nil, &stdout, &stderr)
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout.String())
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			require.Len(t, lines, 2, stderr.String())
			assert.Equal(t, dir+string(filepath.Separator)+want, lines[0], "the error expected.txt gives, under the path as given")
			assert.Equal(t, "jibod protocol: 1 of 1 files invalid", lines[1])
		})
	}
	assert.Equal(t, len(expected), checkedFiles, "every line of expected.txt has its file")
}

func TestProtocolCheckCommand(t *testing.T) {
	valid := filepath.Join(protocolExamples, "skill", "listen_launch.json")
	hubAction := filepath.Join(protocolExamples, "hub-to-robot", "skill_action.json")
	invalid := filepath.Join(protocolExamples, "invalid", "trigger_unknown_source.json")
	jcpFile := filepath.Join(protocolExamples, "jcp", "lookat.json")
	big := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte(" "), protocheck.MaxBytes+1), 0o644))
	missing := filepath.Join(t.TempDir(), "missing.json")

	tests := []struct {
		name      string
		args      []string
		code      int
		stdout    []string // lines, in order
		stderrHas []string
		jsonLines int
	}{
		{name: "valid", args: []string{valid}, code: 0,
			stdout: []string{valid + ": skill request LISTEN_LAUNCH ok"}, jsonLines: 1},
		{name: "quiet", args: []string{"--quiet", valid, jcpFile}, code: 0,
			stdout:    []string{valid + ": skill request LISTEN_LAUNCH ok", jcpFile + ": JCP action LOOKAT ok"},
			stderrHas: []string{jcpFile + ": warning: config.jcp.label: not read by the JCP executor; kept"}},
		{name: "every file is checked, exit 1", args: []string{"--quiet", invalid, valid}, code: 1,
			stdout: []string{valid + ": skill request LISTEN_LAUNCH ok"},
			stderrHas: []string{invalid + `: error: data.triggerSource: "BORED" is not one of "NEW_ARRIVAL", "SURPRISE"`,
				"jibod protocol: 1 of 2 files invalid"}},
		{name: "as hub-to-robot", args: []string{"--quiet", "--as", "hub-to-robot", hubAction}, code: 0,
			stdout: []string{hubAction + ": hub-to-robot SKILL_ACTION ok"}},
		{name: "as the wrong kind", args: []string{"--quiet", "--as", "manifest", valid}, code: 1,
			stderrHas: []string{valid + ": error: id: required"}},
		{name: "missing file", args: []string{missing}, code: 1,
			stderrHas: []string{missing + ": error: cannot read: open " + missing + ": no such file or directory"}},
		{name: "directory", args: []string{protocolExamples}, code: 1,
			stderrHas: []string{protocolExamples + ": error: cannot read: read " + protocolExamples + ": is a directory"}},
		{name: "too big", args: []string{big}, code: 1,
			stderrHas: []string{big + ": error: file is over 1048576 bytes"}},
		{name: "no files", args: nil, code: 2, stderrHas: []string{"jibod protocol: want at least one file"}},
		{name: "unknown kind for --as", args: []string{"--as", "letter", valid}, code: 2,
			stderrHas: []string{`jibod protocol: --as "letter": want one of skill-request, skill-response, robot-to-hub, hub-to-robot, jcp-action, jcp-behaviour, manifest, mim`}},
		{name: "bad flag", args: []string{"--loud", valid}, code: 2, stderrHas: []string{"flag provided but not defined: -loud"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"protocol", "check"}, tt.args...)
			code := run(context.Background(), testTrainer, args, nil, &stdout, &stderr)
			assert.Equal(t, tt.code, code, stderr.String())
			var okLines []string
			jsonLines := 0
			for line := range strings.Lines(stdout.String()) {
				line = strings.TrimSuffix(line, "\n")
				if strings.HasPrefix(line, "{") {
					jsonLines++
					assert.True(t, json.Valid([]byte(line)), line)
					continue
				}
				okLines = append(okLines, line)
			}
			assert.Equal(t, tt.stdout, okLines)
			assert.Equal(t, tt.jsonLines, jsonLines)
			for _, want := range tt.stderrHas {
				assert.Contains(t, stderr.String(), want)
			}
		})
	}
}

func TestProtocolSubcommandUsage(t *testing.T) {
	for _, args := range [][]string{{"protocol"}, {"protocol", "lint"}} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), testTrainer, args, nil, &stdout, &stderr), args)
		assert.Contains(t, stderr.String(), "jibod protocol check [--quiet] [--as KIND] FILE...")
	}
}
