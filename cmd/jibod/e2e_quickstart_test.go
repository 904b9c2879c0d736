package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/sdk/wasmskill"
)

// sdkModule is the SDK's module path.
const sdkModule = "github.com/openjibo/jibod/sdk/wasmskill"

// guideBlock is a fenced code block of a guide.
type guideBlock struct {
	info, body string
	line       int
}

// guideBlocks reads the fenced code blocks of a Markdown file.
func guideBlocks(t *testing.T, file string) []guideBlock {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var out []guideBlock
	var cur *guideBlock
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &guideBlock{info: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += line + "\n"
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "%s: a code block is not closed", file)
	return out
}

// The quick-start guide, run exactly as a newcomer types it: every `sh`
// block in order from an empty folder, the robot (`sh robot`) in the
// background, every file block written. Only the environment differs:
// the SDK comes from a module proxy in a folder (GOPROXY=file://…) made
// here from sdk/wasmskill at the version the guide asks for, and the
// robot's home, state and socket folders are the test's own.
func TestSkillsQuickstartGuide(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a skill with the Go toolchain")
	}
	guide := filepath.Join("..", "..", "docs", "skills-quickstart.md")
	blocks := guideBlocks(t, guide)
	raw, err := os.ReadFile(guide)
	require.NoError(t, err)
	require.Contains(t, string(raw), "go get "+sdkModule+"@"+wasmskill.Version,
		"the guide gets the SDK at its current version")

	tmp := t.TempDir()
	home, work, run := filepath.Join(tmp, "home"), filepath.Join(tmp, "work"), filepath.Join(tmp, "run")
	for _, d := range []string{home, work, run} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}
	gobin, err := exec.LookPath("go")
	require.NoError(t, err)
	env := []string{
		"PATH=" + filepath.Dir(jibodBin) + string(os.PathListSeparator) + filepath.Dir(gobin) + string(os.PathListSeparator) + "/usr/bin:/bin",
		"HOME=" + home, "XDG_RUNTIME_DIR=" + run, "LANG=C.UTF-8",
		"GOPROXY=" + moduleProxy(t, filepath.Join("..", "..", "sdk", "wasmskill"), sdkModule, wasmskill.Version),
		"GOSUMDB=off", "GOTOOLCHAIN=local", "GOFLAGS=-modcacherw",
		"GOMODCACHE=" + filepath.Join(tmp, "modcache"), // never the developer's: the proxy's version is this tree's
		"GOCACHE=" + goEnv("GOCACHE"),                  // shared: the standard library for wasip1 compiles once
	}

	dir := work
	var robot *exec.Cmd
	var robotIn io.WriteCloser
	t.Cleanup(func() {
		if robot != nil && robot.ProcessState == nil {
			_ = robot.Process.Kill()
			_ = robot.Wait()
		}
	})
	var outputs []string
	for _, b := range blocks {
		fields := strings.Fields(b.info)
		if len(fields) == 0 {
			continue
		}
		var file string
		for _, f := range fields[1:] {
			if v, ok := strings.CutPrefix(f, "file="); ok {
				file = v
			}
		}
		switch {
		case file != "":
			p := filepath.Join(dir, filepath.FromSlash(file))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(b.body), 0o644), "line %d", b.line)
		case fields[0] == "sh" && len(fields) > 1 && fields[1] == "robot":
			require.Nil(t, robot, "line %d: one robot", b.line)
			robot = exec.Command("bash", "-c", "exec "+strings.TrimSpace(b.body))
			robot.Dir, robot.Env = dir, env
			robot.Stdout, robot.Stderr = io.Discard, io.Discard
			robotIn, err = robot.StdinPipe()
			require.NoError(t, err)
			require.NoError(t, robot.Start())
			// It serves its shell before it reads what is typed: the
			// socket's appearance says it is up.
			sock := filepath.Join(run, "jibod-shell.sock")
			deadline := time.Now().Add(2 * time.Minute)
			for {
				if _, err := os.Stat(sock); err == nil {
					break
				}
				require.True(t, time.Now().Before(deadline), "the robot did not start")
				time.Sleep(20 * time.Millisecond)
			}
		case fields[0] == "sh":
			start := time.Now()
			// The block runs as typed; the folder it ends in is where the
			// next one starts, as in a terminal.
			script := "set -e\n" + b.body + "pwd >&3\n"
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir, cmd.Env = dir, env
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			cmd.ExtraFiles = []*os.File{pw}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err = cmd.Run()
			require.NoError(t, pw.Close())
			where, _ := io.ReadAll(pr)
			require.NoError(t, pr.Close())
			require.NoError(t, err, "line %d:\n%s\n%s", b.line, b.body, out.String())
			dir = strings.TrimSpace(string(where))
			t.Logf("line %d, %.1f s:\n%s%s", b.line, time.Since(start).Seconds(), b.body, out.String())
			outputs = append(outputs, out.String())
		}
	}
	require.NotNil(t, robot, "the guide starts a robot")
	all := strings.Join(outputs, "\n")
	assert.Contains(t, all, "installed me/dice 0.1.0")
	assert.Regexp(t, `The running jibod \(.*jibod-shell\.sock\): loaded me/dice 0\.1\.0\.`, all)
	assert.Regexp(t, `jibo says: "(You rolled|It came up) [1-6]\."`, all, "the skill answers the first question")
	assert.Regexp(t, `jibo says: "(You rolled|It came up|(And|Well,) the die says) [1-6]\."`, all)
	assert.Contains(t, all, "): reloaded me/dice 0.1.0.", "installing again replaces the running skill")
	assert.Contains(t, all, "): unloaded me/dice (was 0.1.0).")

	// The guide's output block shows what install prints.
	installOut := regexp.MustCompile(`(?m)^  limits: .*$`).FindString(all)
	assert.Contains(t, string(raw), installOut, "the guide shows install's output as it is")

	require.NoError(t, robotIn.Close()) // Ctrl-D
	require.NoError(t, robot.Wait(), "the robot exits cleanly")
}

// moduleProxy lays out a Go module proxy in a folder (the GOPROXY
// protocol's files: list, .info, .mod, .zip) serving the module in dir at
// version, and returns its file:// URL.
func moduleProxy(t *testing.T, dir, modPath, version string) string {
	t.Helper()
	root := t.TempDir()
	at := filepath.Join(root, filepath.FromSlash(modPath), "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, version+".info"),
		[]byte(fmt.Sprintf(`{"Version":%q,"Time":"2026-11-27T00:00:00Z"}`, version)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, version+".mod"), mod, 0o644))
	f, err := os.Create(filepath.Join(at, version+".zip"))
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		w, err := zw.Create(modPath + "@" + version + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}))
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return "file://" + filepath.ToSlash(root)
}
