package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/loadgen"
	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/jcp/timeline"
	"github.com/openjibo/jibod/motion"
)

// runInBubble runs the command line in a synctest bubble, so that speech,
// motion and the sampler run on fake time, and returns the exit code and
// outputs.
func runInBubble(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var code int
	var stdout, stderr bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		code = run(context.Background(), testTrainer, args, strings.NewReader(""), &stdout, &stderr)
	})
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// timelineLines parses the printed timeline into "device event" strings,
// plus the lines themselves.
func timelineLines(t *testing.T, out string) ([]string, []timeline.Event) {
	t.Helper()
	var kinds []string
	var events []timeline.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e timeline.Event
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		events = append(events, e)
		k := e.Device + " " + e.Event
		if id, ok := e.Values["id"].(string); ok && e.Device == "jcp" {
			k += " " + id
		}
		if n, ok := e.Values["name"].(string); ok && e.Device == "motion" {
			k += " " + n
		}
		kinds = append(kinds, k)
	}
	return kinds, events
}

func lastIndexOf(list []string, s string) int {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] == s {
			return i
		}
	}
	return -1
}

func indexOf(t *testing.T, list []string, s string) int {
	t.Helper()
	for i, x := range list {
		if x == s {
			return i
		}
	}
	t.Fatalf("%q not in %v", s, list)
	return -1
}

const seqAction = `{"type":"JCP","config":{"version":"2.0","jcp":{"id":"greet","type":"SEQUENCE","children":[
  {"id":"hello","type":"SLIM","config":{"play":{"id":"hello-say","esml":"Hello there! Let me look over here."}}},
  {"id":"look","type":"LOOKAT","target":{"angleVector":{"x":0.9,"y":0.25}}}]}}}`

const parAction = `{"type":"JCP","config":{"version":"2.0","jcp":{"id":"party","type":"PARALLEL","children":[
  {"id":"dance","type":"PLAY_ANIMATION","animation":{"url":"dance"},"options":{"dofs":"BODY"}},
  {"id":"thinking","type":"PLAY_ANIMATION","animation":{"url":"led-thinking"}}]}}}`

// jibod jcp run on a SEQUENCE of speech and a LOOKAT: the timeline says
// the robot spoke, moving with its words (auto-rules), then turned, in
// order, as JSON lines a person can read; the SVG draws it.
func TestJCPRunSequence(t *testing.T) {
	file := writeFile(t, "seq.json", seqAction)
	svg := filepath.Join(t.TempDir(), "seq.svg")
	code, out, stderr := runInBubble(t, "jcp", "run", "--svg", svg, file)
	require.Equal(t, 0, code, stderr)
	kinds, events := timelineLines(t, out)
	say := indexOf(t, kinds, "speaker say")
	done := lastIndexOf(kinds, "speaker done")
	wiggle := indexOf(t, kinds, "motion animation happy-wiggle")
	look := indexOf(t, kinds, "motion lookat")
	arrived := lastIndexOf(kinds, "motion arrived lookat")
	result := indexOf(t, kinds, "jcp result")
	assert.True(t, say < done && done < look && look < arrived, "%v", kinds)
	// The loop reports arrival from its own goroutine: at the same instant
	// as the LOOKAT's success, it may be printed after it.
	assert.LessOrEqual(t, events[arrived].Ms, events[result].Ms)
	var said []string
	for i, k := range kinds {
		if k == "speaker say" {
			said = append(said, events[i].Values["text"].(string))
		}
	}
	assert.Equal(t, []string{"Hello there!", "Let me look over here."}, said, "each clause in one breath")
	assert.Equal(t, "succeeded", events[result].Values["status"])
	// 7 words at 150 words per minute: 2.8 s of speech, without a gap.
	assert.InDelta(t, 2800, events[done].Ms-events[say].Ms, 50)
	// The greeting's wiggle starts as "Hello" is said.
	assert.InDelta(t, events[say].Ms, events[wiggle].Ms, 20)
	for i := 1; i < len(events); i++ {
		assert.GreaterOrEqual(t, events[i].Ms, events[i-1].Ms, "in time order")
	}

	pic, err := os.ReadFile(svg)
	require.NoError(t, err)
	s := string(pic)
	assert.True(t, strings.HasPrefix(s, `<svg xmlns="http://www.w3.org/2000/svg"`))
	assert.Equal(t, 3, strings.Count(s, "<polyline"), "one line per axis")
	for _, want := range []string{"seq.json — succeeded", "LOOKAT look", "SLIM hello", "“Hello there!”", "“Let me look over here.”", ">lookat<", ">happy-wiggle<", "LED ring"} {
		assert.Contains(t, s, want)
	}
}

// ... and on a PARALLEL of an animation and an LED pattern: both run at
// once; the ring shows the pattern while the body dances.
func TestJCPRunParallel(t *testing.T) {
	file := writeFile(t, "par.json", parAction)
	svg := filepath.Join(t.TempDir(), "par.svg")
	code, out, stderr := runInBubble(t, "jcp", "run", "--samples", "--svg", svg, file)
	require.Equal(t, 0, code, stderr)
	kinds, events := timelineLines(t, out)
	dance := indexOf(t, kinds, "motion animation dance")
	led := indexOf(t, kinds, "led play")
	assert.Equal(t, "led-thinking", events[led].Values["name"])
	assert.InDelta(t, events[dance].Ms, events[led].Ms, 5, "started together")
	assert.Less(t, indexOf(t, kinds, "led end"), indexOf(t, kinds, "motion finished dance"), "the 3 s pattern ends before the 4 s dance")
	// The samples show the base swinging while the ring lights up.
	var maxBase float64
	lit := false
	for _, e := range events {
		if e.Device != "sample" {
			continue
		}
		maxBase = max(maxBase, e.Values["bottomSection_r"].(float64))
		lit = lit || e.Values["led"] != "#000000"
	}
	assert.InDelta(t, 0.5, maxBase, 0.05)
	assert.True(t, lit)
	pic, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(pic), "PLAY_ANIMATION thinking")
	assert.Contains(t, string(pic), `fill="#40c0ff"`, "the thinking comet on the ring strip")
}

// Invalid JCP is refused whole with a clear error; nothing of it runs (the
// body is not even opened).
func TestJCPRunRefusesInvalid(t *testing.T) {
	file := writeFile(t, "bad.json", `{"type":"JCP","config":{"jcp":{"id":"s","type":"SEQUENCE","children":[
		{"id":"a","type":"SLIM","config":{"play":{"esml":"fine"}}},
		{"id":"b","type":"LOOKAT","target":{"angleVector":{"x":9,"y":0}}}]}}}`)
	code, out, stderr := runInBubble(t, "jcp", "run", file)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "parse JCP action: config.jcp.children[1].target.angleVector.x: 9 is outside ±6.28")

	code, _, stderr = runInBubble(t, "jcp", "run")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "want exactly one action file")
	code, _, _ = runInBubble(t, "jcp", "walk")
	assert.Equal(t, 2, code)
	code, _, stderr = runInBubble(t, "jcp", "run", filepath.Join(t.TempDir(), "missing.json"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "reading action")
}

// jibod motion loop reports tick counts and lateness percentiles.
func TestMotionLoop(t *testing.T) {
	code, out, stderr := runInBubble(t, "motion", "loop", "--seconds", "2", "--timer", "go")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "control loop: 200 Hz (go timer) for 2.0 s on the sim board, playing look-around, no other load")
	assert.Regexp(t, `ticks (399|400), missed 0`, out, "a tick at the very end may fall either side")
	assert.Contains(t, out, "lateness: p50 0 µs  p99 0 µs  max 0 µs", "fake time is never late")
	assert.Contains(t, out, "real-time service: ordinary scheduling", "Go timers get none")

	code, out, stderr = runInBubble(t, "motion", "loop", "--seconds", "1", "--rate", "100", "--move", "", "--json", "--timer", "go")
	require.Equal(t, 0, code, stderr)
	var rep runtime.LoopReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 100, rep.Rate)
	assert.InDelta(t, 100, rep.Ticks, 1)
	assert.Empty(t, rep.Moving)

	code, _, stderr = runInBubble(t, "motion", "loop", "--seconds", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--seconds 0")
	code, _, stderr = runInBubble(t, "motion", "loop", "--timer", "sundial")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--timer "sundial": want precise or go`)
	code, _, stderr = runInBubble(t, "motion", "loop", "--move", "moonwalk", "--seconds", "1", "--timer", "go")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `--move "moonwalk": no such animation`)
}

// With --load the whole robot runs and answers utterances meanwhile,
// several in flight, every one answered. This one runs on real time: busy
// inputs would never let a bubble's fake clock move on. It asserts no
// timing, only that both happened: however slow the machine, each input's
// first lines are said and every line said is answered.
func TestMotionLoopUnderLoad(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"motion", "loop", "--seconds", "3", "--load", "--json"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var rep runtime.LoopReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
	assert.True(t, rep.Load)
	assert.GreaterOrEqual(t, rep.Utterances, int64(loadgen.DefaultInputs*rep.InFlight))
	assert.Zero(t, rep.Unanswered)
	assert.Zero(t, rep.Refused+rep.Failed, rep.FirstError)
	assert.Equal(t, 8, rep.InFlight)
	assert.Positive(t, rep.Ticks)
	// The loop asks for real-time service by default: granted (as root)
	// or refused with a reason, item by item.
	assert.True(t, rep.RealTime.Priority > 0 || len(rep.RealTime.Refused) > 0, "%+v", rep.RealTime)
	assert.True(t, rep.RealTime.MemoryLocked || len(rep.RealTime.Refused) > 0, "%+v", rep.RealTime)
}

// --realtime=false leaves the loop an ordinary goroutine.
func TestMotionLoopWithoutRealTime(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), testTrainer, []string{"motion", "loop", "--seconds", "0.2", "--realtime=false", "--json"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var rep runtime.LoopReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep))
	assert.Equal(t, motion.RealTimeStatus{CPU: -1}, rep.RealTime)
	assert.Positive(t, rep.Ticks)
}

// jibod board check opens every device and reports each one.
func TestBoardCheck(t *testing.T) {
	code, out, stderr := runInBubble(t, "board", "check")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"speaker", "led", "motor-power", "motor.topSection_r"} {
		assert.Regexp(t, `(?m)^`+want+` +sim +ok `, out)
	}

	code, out, _ = runInBubble(t, "board", "check", "--json")
	require.Equal(t, 0, code)
	assert.Equal(t, 8, strings.Count(out, `"ok":true`))

	if _, err := os.Stat("/dev/i2c-1"); err == nil {
		t.Skip("this machine has an I²C bus 1: the rpi profile might answer")
	}
	code, out, stderr = runInBubble(t, "board", "check", "--board", "rpi")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `(?m)^speaker +sim +ok `, out, "what is there is still reported")
	assert.Regexp(t, `(?m)^motor.topSection_r +pca9685 +/dev/i2c-1 0x40 ch 2 +FAIL +open motor.topSection_r: `, out)
	assert.Contains(t, stderr, "devices did not answer")
}
