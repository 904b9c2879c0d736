package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent/paraphrase"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/motion"
)

// jibodBin is the real binary, built once for the end-to-end tests.
var jibodBin string

// testTrainer trains the paraphrase tiers of the robots the tests start
// in this process: they learn the same skills, so they train once.
var testTrainer = paraphrase.NewMemo().Train

// newTestRobot is runtime.New with the tests' paraphrase training.
func newTestRobot(ctx context.Context, cfg runtime.Config) (*runtime.Robot, error) {
	cfg.Trainer = testTrainer
	return runtime.New(ctx, cfg)
}

func TestMain(m *testing.M) {
	if motion.IsProcess() {
		// The tests' robots run their control loop here (--loop-process).
		os.Exit(runtime.ServeLoopProcess())
	}
	dir, err := os.MkdirTemp("", "jibod-e2e")
	if err != nil {
		panic(err)
	}
	jibodBin = filepath.Join(dir, "jibod")
	build := exec.Command("go", "build", "-o", jibodBin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		panic("building jibod: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type traced struct {
	Type    string         `json:"type"`
	Data    map[string]any `json:"data"`
	Context map[string]any `json:"context"`
}

func runJibod(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(jibodBin, args...)
	// Each run keeps its skill state and its shell socket apart: never the
	// developer's own, nor another run's (with XDG_RUNTIME_DIR set, every
	// jibod on the machine would serve its shell on one socket there, and
	// all but the first refuse to start).
	cmd.Env = shellTestEnv(t.TempDir(), "")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

func readTrace(t *testing.T, path string) []traced {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var msgs []traced
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m traced
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "every trace line is one JSON object")
		require.Len(t, m.Data, len(m.Data)) // data present
		msgs = append(msgs, m)
	}
	require.NoError(t, sc.Err())
	return msgs
}

// lifecycles groups trace lines by the input line that caused them.
func lifecycles(msgs []traced) map[string][]string {
	out := map[string][]string{}
	for _, m := range msgs {
		if id, ok := m.Context["jibo_input"].(string); ok {
			out[id] = append(out[id], m.Type)
		}
	}
	return out
}

func TestStdinTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	stdout, stderr, code := runJibod(t, "hello\nwhat time is it\nflibbertigibbet\n",
		"run", "--board", "sim", "--input", "stdin", "--trace", trace, "--speak-wpm", "0")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 3, stdout)
	assert.True(t, strings.HasPrefix(lines[0], "jibo: "), stdout)
	assert.Regexp(t, `^jibo: .*`+clockAnswer.String(), lines[1])
	assert.Regexp(t, `^jibo: \S`, lines[2], "never silent: the fallback answers aloud")

	msgs := readTrace(t, trace)
	lc := lifecycles(msgs)
	matched := []string{"ovos.utterance.handle", "ovos.intent.matched", "", "ovos.intent.handler.start",
		"ovos.utterance.speak", "ovos.intent.handler.complete", "ovos.utterance.handled"}
	for id, dispatch := range map[string]string{"stdin-1": "jibo.basics:greet", "stdin-2": "jibo.clock:time_now"} {
		want := append([]string(nil), matched...)
		want[2] = dispatch
		assert.Equal(t, want, lc[id], "lifecycle of %s, in order (§13.A)", id)
	}
	// Nothing understood it: the last fallback stage polls the fallback
	// skill, which answers aloud (FALLBACK-1).
	assert.Equal(t, []string{"ovos.utterance.handle", "ovos.fallback.ping", "ovos.fallback.pong", "ovos.intent.matched",
		"jibo.fallback:fallback", "ovos.intent.handler.start", "ovos.utterance.speak", "ovos.intent.handler.complete",
		"ovos.utterance.handled"}, lc["stdin-3"], "lifecycle of stdin-3, in order")

	// Every lifecycle message after the entry carries one utterance_id (PIPE-02).
	ids := map[string]map[any]bool{}
	for _, m := range msgs {
		in, _ := m.Context["jibo_input"].(string)
		if in == "" || m.Type == "ovos.utterance.handle" {
			continue
		}
		if ids[in] == nil {
			ids[in] = map[any]bool{}
		}
		ids[in][m.Context["utterance_id"]] = true
	}
	for in, set := range ids {
		assert.Len(t, set, 1, "%s has one utterance_id", in)
	}

	// The sim body's doings are on the bus.
	var body []string
	for _, m := range msgs {
		if strings.HasPrefix(m.Type, "jibo.body.") {
			body = append(body, m.Type)
		}
	}
	assert.Contains(t, body, "jibo.body.speaker.say")
	assert.Contains(t, body, "jibo.body.led.set")
}

func TestTraceToStdout(t *testing.T) {
	stdout, stderr, code := runJibod(t, "hello\n", "run", "--input", "stdin", "--trace", "-", "--speak-wpm", "0")
	require.Equal(t, 0, code, stderr)
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m traced
		require.NoError(t, json.Unmarshal([]byte(l), &m), "standard output holds only the trace: %q", l)
		if m.Type == "ovos.utterance.handled" {
			n++
		}
	}
	assert.Equal(t, 1, n)
}

func TestBadInputKeepsRunning(t *testing.T) {
	in := "\n" + strings.Repeat("a", 1<<20) + "\n\xff\xfe not utf-8\nhello\n"
	trace := filepath.Join(t.TempDir(), "bad.jsonl")
	stdout, stderr, code := runJibod(t, in, "run", "--input", "stdin", "--trace", trace, "--speak-wpm", "0", "--log-level", "info")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "empty input line ignored")
	assert.Contains(t, stderr, "line 2: 1048576 bytes exceeds the 2048-byte limit; ignored")
	assert.Contains(t, stderr, "line 3: not valid UTF-8; ignored")
	assert.Contains(t, stdout, "jibo: ", "the robot still answers the good line")
	lc := lifecycles(readTrace(t, trace))
	assert.Len(t, lc, 1, "refused lines never reach the bus")
}

func TestConsole(t *testing.T) {
	stdout, stderr, code := runJibod(t, "hello\n", "run", "--input", "console", "--speak-wpm", "0")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Type to talk to the robot")
	assert.Contains(t, stdout, "you> ")
	assert.Contains(t, stdout, "jibo: ")
	assert.Contains(t, stdout, "[body] speaker.say text=")
	assert.Contains(t, stdout, "[body] led.set color=#00aaff")
}

func TestSelftestAndVersion(t *testing.T) {
	stdout, stderr, code := runJibod(t, "", "selftest")
	require.Equal(t, 0, code, stdout+stderr)
	assert.Contains(t, stdout, "selftest: 12 passed, 0 failed")
	assert.NotContains(t, stdout, "[FAIL]")

	stdout, _, code = runJibod(t, "", "version")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `^jibod \S+ \(go`, stdout)
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "Usage:"},
		{[]string{"dance"}, `unknown command "dance"`},
		{[]string{"run", "--bogus"}, "flag provided but not defined"},
		{[]string{"run", "stdin"}, `unexpected argument "stdin"`},
		// run's flags are checked by its configuration, once, each
		// named by its key and its flag.
		{[]string{"run", "--input", "telepathy"}, `input (--input) "telepathy": want console, stdin, none, shell`},
		{[]string{"run", "--log-level", "loud"}, `log_level (--log-level) "loud": want debug, info, warn or error`},
		{[]string{"run", "--listen-window", "2h"}, `listen_window (--listen-window) 2h0m0s: want 0..1h`},
		{[]string{"run", "--web", "5426"}, `web (--web): web address "5426"`},
		{[]string{"run", "--shell-reboot", "sometimes"}, `shell.reboot (--shell-reboot) "sometimes": want exit, system or off`},
		{[]string{"run", "--serial", "/dev/ttyGS0", "--serial-baud", "1234"}, "shell.baud (--serial-baud): baud rate 1234 not supported"},
		{[]string{"run", "--audio-gain", "80"}, "audio.gain_db (--audio-gain): "},
		{[]string{"run", "--hub-link", "sometimes"}, "hub.link (--hub-link): "},
		{[]string{"run", "--input", "telepathy", "--speak-wpm", "5000"}, "input (--input) \"telepathy\": want console, stdin, none, shell\n" +
			"speak_wpm (--speak-wpm) 5000: want -1 (the profile's rate) or 0..1000 words per minute"},
		// and the audio flags the configuration does not hold.
		{[]string{"run", "--audio", "null", "--wake", "spotter"}, `--wake "spotter": want detector or grammar`},
	}
	for _, tt := range tests {
		_, stderr, code := runJibod(t, "", tt.args...)
		assert.Equal(t, 2, code, tt.args)
		assert.Contains(t, stderr, tt.want)
		if strings.Contains(tt.want, "(--") {
			assert.Equal(t, 1, strings.Count(stderr, tt.want), "reported once: %s", stderr)
		}
	}
	_, stderr, code := runJibod(t, "", "run", "--board", "mars", "--input", "stdin")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `board "mars"`)
}
