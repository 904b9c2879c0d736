package diag

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/lineedit"
	"github.com/openjibo/jibod/core/lineedit/lineedittest"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/motion"
)

// jsonLines decodes each output line as a JSON object.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &o), "line %q", l)
		objs = append(objs, o)
	}
	return objs
}

func TestScriptHasNoPromptsOrEcho(t *testing.T) {
	s := newRig(t).server(t, nil)
	out := script(t, s, "version\nversion --json\nexit\nversion")
	assert.Equal(t, "jibod test ("+versionInfo()["go"].(string)+", "+versionInfo()["platform"].(string)+")\n", strings.SplitAfter(out, "\n")[0])
	objs := jsonLines(t, strings.SplitAfterN(out, "\n", 2)[1])
	require.Len(t, objs, 1, "nothing runs after exit")
	assert.Equal(t, "test", objs[0]["version"])
	assert.Contains(t, script(t, s, "version --json"), `"version":"test"`, "the last line needs no newline")
	assert.Equal(t, "error: no answer: the input ended\n", script(t, s, "unlock"))
}

func TestHelpCoversEveryCommand(t *testing.T) {
	s := newRig(t).server(t, nil)
	want := []string{"status", "version", "log", "bus", "utter", "say", "skills", "intents", "session", "pipeline",
		"hub", "people", "motor", "led", "audio", "board", "selftest", "config", "reboot", "unlock", "lock", "exit", "help"}
	for _, name := range want {
		out := script(t, s, "help "+name+" --json")
		o := jsonLines(t, out)[0]
		assert.Equal(t, name, o["command"])
		assert.NotEmpty(t, o["help"], name)
	}
	out := "\n" + script(t, s, "help")
	for _, name := range want {
		assert.Contains(t, out, "\n"+name+" ", "help lists %s", name)
	}
	assert.Contains(t, script(t, s, "staus"), "error: unknown command \"staus\"; `help` lists them (did you mean status?)")
	assert.Contains(t, script(t, s, "help motr"), "error: no command \"motr\" (did you mean motor?)")
	assert.Contains(t, script(t, s, "say \"unbalanced"), "error: unbalanced double quote")
}

// TestHelpLaysOutTables: a command's help keeps its table of uses
// apart, each use on a line of its own with its meaning under it, within
// the help's width, and nothing trails a line.
func TestHelpLaysOutTables(t *testing.T) {
	s := newRig(t).server(t, nil)
	audio := script(t, s, "help audio")
	for _, want := range []string{
		"\n  audio devices\n      the capture devices the robot can open, and which one it uses\n  audio listen\n",
		"\n  audio level [seconds]\n      the microphone's loudness over one second (or the seconds given,\n      up to 10): RMS and peak",
		"\n  audio record <seconds> <file>\n      * record up to 60 seconds",
	} {
		assert.Contains(t, audio, want)
	}
	motor := script(t, s, "help motor")
	for _, want := range []string{
		"\n\nMoves the body through its control loop, so every move keeps the axis's\nspeed and acceleration limits.\n  motor limits\n",
		"\n  motor <axis> <angle> --override\n      go past the shell's range",
		"\n  motor on\n      power the motors and home the body\nAxes: bottomSection_r",
	} {
		assert.Contains(t, motor, want)
	}
	for _, out := range []string{audio, motor, script(t, s, "help status"), script(t, s, "help exit")} {
		for i, l := range strings.Split(out, "\n") {
			if i > 1 { // the usage and the summary are one line each
				assert.LessOrEqual(t, len([]rune(l)), helpWidth, "%q", l)
			}
			assert.Equal(t, strings.TrimRight(l, " "), l, "nothing trails %q", l)
		}
	}
	assert.True(t, strings.HasPrefix(script(t, s, "help exit"), "exit\n  leave the shell"))
}

func TestStatus(t *testing.T) {
	r := newRig(t)
	r.log.Warn("something odd", "device", "led", "n", 3)
	r.log.Info("fine")
	s := r.server(t, func(c *Config) { c.Env.StateDir = t.TempDir() })
	out := script(t, s, "status")
	for _, want := range []string{"jibod:", "uptime:", "board:", "sim", "hub link:", "none configured (offline)", "cpu:", "memory:",
		"goroutines", "storage:", "control loop:", "200 Hz; lateness p50", "no fault", "motors:", "on; bottom 0.000 rad",
		"audio level:", "no audio input on this robot", "bus:", "shell:", "1 session: #", "last errors:",
		"WARN  something odd device=led n=3"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "fine", "only warnings and errors are last errors")

	o := jsonLines(t, script(t, s, "status --json"))[0]
	assert.Equal(t, "sim", o["board"])
	assert.Equal(t, "none configured (offline)", o["hub"])
	loop := o["control_loop"].(map[string]any)
	assert.EqualValues(t, 200, loop["rate_hz"])
	assert.Equal(t, "no audio input on this robot", o["audio"].(map[string]any)["error"])
	require.Len(t, o["last_errors"], 1)
}

// fakePipeline answers utterances on the bus as the orchestrator would,
// carrying the entry's context on every message.
func fakePipeline(t *testing.T, b *bus.Bus) {
	t.Helper()
	sub, err := b.Subscribe(pipeline.TopicHandle, func(ctx context.Context, m bus.Message) {
		derive := func(topic string, data map[string]any) bus.Message {
			out := bus.NewMessage(topic, data)
			for k, v := range m.Context {
				out.Context[k] = v
			}
			out.Context[bus.KeyUtteranceID] = "u-1"
			return out
		}
		text := m.Data["utterances"].([]any)[0].(string)
		for _, msg := range []bus.Message{
			derive(pipeline.TopicMatched, map[string]any{"skill_id": "jibo.clock", "intent_name": "time_now", "pipeline_id": "templates-high", "utterance": text}),
			derive(pipeline.TopicSpeak, map[string]any{"utterance": "It's noon."}),
			derive(pipeline.TopicHandled, map[string]any{}),
		} {
			_ = b.Publish(ctx, msg)
		}
	})
	require.NoError(t, err)
	t.Cleanup(sub.Close)
}

func TestUtterShowsTheLifecycle(t *testing.T) {
	r := newRig(t)
	fakePipeline(t, r.bus)
	s := r.server(t, nil)
	out := script(t, s, "utter what time is it")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	assert.Contains(t, lines[0], `ovos.utterance.handle utterances=["what time is it"]`)
	assert.Contains(t, lines[1], "ovos.intent.matched jibo.clock:time_now via templates-high")
	assert.Contains(t, lines[2], `jibo says: "It's noon."`)
	assert.Contains(t, lines[3], "ovos.utterance.handled")

	objs := jsonLines(t, script(t, s, "utter --json what time is it"))
	require.Len(t, objs, 4)
	assert.Equal(t, pipeline.TopicHandled, objs[3]["type"])

	// pipeline remembers them: its recorder reads the bus on its own
	// queue, so the last one may show a moment after utter returns.
	const want = `"what time is it"  jibo.clock:time_now  templates-high`
	deadline := time.Now().Add(10 * time.Second)
	for out = script(t, s, "pipeline"); !strings.Contains(out, want) && time.Now().Before(deadline); out = script(t, s, "pipeline") {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Contains(t, out, want)
	assert.Contains(t, out, "stages: stop > converse > templates-high")

	assert.Contains(t, script(t, s, "utter"), "error: utter what? Give the text after the command")
	assert.Contains(t, script(t, s, "utter "+strings.Repeat("x", lineedit.MaxLineBytes)), "error: line longer than 1024 bytes; nothing was run")
}

func TestSay(t *testing.T) {
	r := newRig(t)
	said := make(chan string, 4)
	sub, err := r.bus.Subscribe("jibo.body.speaker.say", func(_ context.Context, m bus.Message) { said <- m.DataString("text") }, bus.WithQueue(8, bus.Block))
	require.NoError(t, err)
	defer sub.Close()
	s := r.server(t, nil)
	out := script(t, s, `say 1 < 2 & "quotes"`)
	assert.Equal(t, "said \"1 < 2 & quotes\"\n", out, "the text is said as words, markup escaped")
}

type fakeSkills []*registry.Manifest

func (f fakeSkills) Skills() []*registry.Manifest { return f }

func TestSkillsAndIntents(t *testing.T) {
	r := newRig(t)
	m, err := registry.ParseManifest([]byte(`{"id":"jibo/clock","version":"1.0.0","name":"Clock","description":"Tells the time.","permissions":["speech"],"safety_level":"low"}`))
	require.NoError(t, err)
	// A fake intent service answering ovos.intent.list.
	sub, err := r.bus.Subscribe("ovos.intent.list", func(ctx context.Context, q bus.Message) {
		ans, _ := q.Response(map[string]any{"ok": true, "intents": []any{map[string]any{"skill_id": "jibo.clock",
			"intent_name": "time_now", "lang": "en-us", "method": "template", "enabled": true, "session_id": "default", "asked": q.Data["skill_id"]}}})
		_ = r.bus.Publish(ctx, ans)
	})
	require.NoError(t, err)
	defer sub.Close()
	s := r.server(t, func(c *Config) { c.Env.Skills = fakeSkills{m} })
	out := script(t, s, "skills")
	assert.Contains(t, out, "jibo/clock")
	assert.Contains(t, out, "speech")
	out = script(t, s, "intents jibo/clock --json")
	list := jsonLines(t, out)[0]["intents"].([]any)
	require.Len(t, list, 1)
	assert.Equal(t, "jibo.clock", list[0].(map[string]any)["asked"], "a skill id is asked by its bus id")
	assert.Contains(t, script(t, s, "intents"), "time_now")
}

func TestMotor(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	top, _ := motion.AxisIndex(device.TopSection)

	// Locked: refused, and logged.
	out := script(t, s, "motor top 0.5")
	assert.Equal(t, "error: `motor top` needs technician mode: type `unlock` and the robot's PIN\n", out)
	assert.Zero(t, r.motion.Pose()[top])
	assert.Contains(t, logText(r.logs), "privileged command refused")

	// limits needs no PIN.
	out = script(t, s, "motor limits")
	assert.Regexp(t, `topSection_r +0\.000 +-3\.054\.\.3\.054 +-2\.954\.\.2\.954 +10\.0 rad/s +30\.0 rad/s2 +0\.000 +on`, out)

	out = script(t, s, "unlock\n"+testPIN+"\nmotor top 0.5\nmotor topSection_r 3.0\nmotor top 3.0 --override\nmotor top 4\nmotor head 30deg --json\nmotor home\nlock\nmotor home")
	assert.Contains(t, out, "technician mode: body, configuration and reboot commands are allowed")
	assert.Contains(t, out, "topSection_r: 0.000 rad (0.0 deg) -> 0.500 rad (28.6 deg)\narrived in")
	assert.Contains(t, out, "error: topSection_r: 3.000 rad (171.9 deg) is outside the shell's range -2.954..2.954 rad")
	assert.Contains(t, out, "topSection_r: 0.500 rad (28.6 deg) -> 3.000 rad (171.9 deg)\narrived in", "--override goes up to the limits")
	assert.Contains(t, out, "error: topSection_r: 4.000 rad (229.2 deg) is outside the axis's limits -3.054..3.054 rad; nothing can move it there")
	assert.Contains(t, out, `"moved":"topSection_r"`)
	assert.Contains(t, out, "technician mode locked\nerror: `motor home` needs technician mode")
	assert.InDelta(t, 0, r.motion.Pose()[top], 1e-9, "homed")
	logs := logText(r.logs)
	assert.Contains(t, logs, `shell: privileged command session=`)
	assert.Contains(t, logs, `command="motor top 3.0 --override"`)
	assert.Contains(t, logs, "technician mode unlocked")

	// Off and on again.
	out = script(t, s, "unlock\n"+testPIN+"\nmotor off\nmotor top 0.2\nstatus\nmotor on\nmotor top 0.2")
	assert.Contains(t, out, "motors off")
	assert.Contains(t, out, "error: the motors are off: `motor on` first")
	assert.Contains(t, out, "motors:        OFF")
	assert.Contains(t, out, "motors on")
	assert.InDelta(t, 0.2, r.motion.Pose()[top], 1e-9)
	assert.True(t, r.body.Power.On())
}

func logText(b *LogBook) string {
	var lines []string
	for _, e := range b.Recent(slog.LevelDebug, 0) {
		lines = append(lines, e.Line())
	}
	return strings.Join(lines, "\n")
}

func TestLED(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	s.ledStep = 5 * time.Millisecond
	out := script(t, s, "led red\nled\nled off --json\nled mauve\nled test")
	assert.Contains(t, out, "ring: 12 pixels #ff0000\n")
	assert.Contains(t, out, "12 pixels: #ff0000 #ff0000")
	assert.Contains(t, out, `{"led":"#000000","pixels":12}`)
	assert.Contains(t, out, "error: ")
	assert.Equal(t, 1, strings.Count(out, "black, blue, cyan"), "the colour names once: %s", out)
	assert.Contains(t, out, "showing red, green, blue, white, then a rainbow, on 12 pixels")
	assert.Contains(t, out, "done: every pixel should have shown each colour")
}

func TestConfigNothingHalfApplied(t *testing.T) {
	r := newRig(t)
	vol := "5"
	failApply := false
	s := r.server(t, func(c *Config) {
		c.Env.Settings = []Setting{{Key: "volume", Help: "0..10",
			Get: func() string { return vol },
			Check: func(v string) (any, error) {
				if v < "0" || v > "9" || len(v) != 1 {
					return nil, errors.New("want 0..9")
				}
				return v, nil
			},
			Apply: func(v any) error {
				if failApply {
					return errors.New("the amplifier did not answer")
				}
				vol = v.(string)
				return nil
			}}}
	})
	// Locked: refused.
	assert.Contains(t, script(t, s, "config set volume=7"), "needs technician mode")
	assert.Contains(t, script(t, s, "config get"), "volume           5")

	out := script(t, s, "unlock\n"+testPIN+"\nconfig set volume=7 shell.idle_lock=2x")
	assert.Contains(t, out, `error: nothing changed: shell.idle_lock=2x: want a duration from 1m to 8h0m0s, like 15m`)
	assert.Equal(t, "5", vol, "a bad value anywhere changes nothing")

	out = script(t, s, "unlock\n"+testPIN+"\nconfig set volume=7 volume=8\nconfig set nosuch=1")
	assert.Contains(t, out, "volume: given twice")
	assert.Contains(t, out, "nosuch: no such key")

	out = script(t, s, "unlock\n"+testPIN+"\nconfig set shell.idle_lock=15m volume=7\nconfig get --json")
	assert.Contains(t, out, "shell.idle_lock: 10m0s -> 15m0s\nvolume: 5 -> 7\n")
	assert.Contains(t, out, `"shell.idle_lock":"15m0s"`)
	assert.Equal(t, 15*time.Minute, s.idleLimit())

	// Applying the second key fails: the first is put back.
	failApply = true
	out = script(t, s, "unlock\n"+testPIN+"\nconfig set motor.margin=5deg volume=3")
	assert.Contains(t, out, "error: applying volume=3: the amplifier did not answer; the others were put back")
	assert.InDelta(t, DefaultMotorMargin, s.motorMargin(), 1e-12)
	assert.Equal(t, "7", vol)
	assert.Contains(t, logText(r.logs), "config changed")
}

// A key started outside the shell's range (by a flag) cannot be put back
// when a later key fails to apply: the technician is told, not left to
// believe everything was undone.
func TestConfigUndoSaysWhatStays(t *testing.T) {
	r := newRig(t)
	window := "90s" // from a flag: more than the shell sets
	s := r.server(t, func(c *Config) {
		c.Env.Settings = []Setting{
			{Key: "window", Help: "1s..60s", Get: func() string { return window },
				Check: func(v string) (any, error) {
					d, err := time.ParseDuration(v)
					if err != nil || d < time.Second || d > time.Minute {
						return nil, errors.New("want 1s..60s")
					}
					return v, nil
				},
				Apply: func(v any) error { window = v.(string); return nil }},
			{Key: "broken", Get: func() string { return "x" }, Check: func(v string) (any, error) { return v, nil },
				Apply: func(any) error { return errors.New("the device did not answer") }},
		}
	})
	out := script(t, s, "unlock\n"+testPIN+"\nconfig set window=12s broken=y")
	assert.Contains(t, out, "error: applying broken=y: the device did not answer; the others were put back except: window stays 12s: its old value 90s is outside what the shell sets")
	assert.Equal(t, "12s", window)
}

func TestRebootNeedsTechnicianAndConfirmation(t *testing.T) {
	r := newRig(t)
	reboots := 0
	s := r.server(t, func(c *Config) {
		c.Env.Reboot = func(context.Context) error { reboots++; return nil }
		c.Env.RebootHow = "exit with status 75"
	})
	assert.Contains(t, script(t, s, "reboot --yes"), "needs technician mode")
	out := script(t, s, "unlock\n"+testPIN+"\nreboot\nno\nreboot\nyes")
	assert.Contains(t, out, "not rebooting")
	assert.Contains(t, out, "rebooting: exit with status 75")
	assert.Equal(t, 1, reboots)
	out = script(t, s, "unlock\n"+testPIN+"\nreboot --yes")
	assert.Contains(t, out, "rebooting: exit with status 75", "--yes asks nothing")
	assert.Equal(t, 2, reboots)
	assert.Contains(t, logText(r.logs), "shell: reboot")

	noReboot := r.server(t, nil)
	assert.Contains(t, script(t, noReboot, "unlock\n"+testPIN+"\nreboot --yes"), "cannot be rebooted from the shell")
}

func TestUnlockWithoutPIN(t *testing.T) {
	r := newRig(t)
	s := r.server(t, func(c *Config) { c.PINHash = "" })
	out := script(t, s, "unlock\nmotor home")
	assert.Contains(t, out, "error: no technician PIN is configured on this robot: set one (see `jibod shell --hash-pin`) and restart jibod")
	assert.Contains(t, out, "needs technician mode")
	_, err := NewServer(Config{PINHash: "plain-1234"})
	assert.ErrorIs(t, err, ErrBadPINHash)
}

func TestIdleLock(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	tm := startTerm(t, s)
	tm.waitFor("jibo>")
	tm.typeIn("unlock\r")
	tm.waitFor("PIN:")
	tm.typeIn(testPIN + "\r")
	tm.waitFor("jibo#")
	r.clock.Advance(DefaultIdleLock - time.Second)
	tm.typeIn("version\r")
	waitCount(t, tm.scr, "jibo#", 2)
	r.clock.Advance(DefaultIdleLock)
	tm.typeIn("motor home\r")
	tm.waitFor("(technician mode locked: idle for 10m0s)")
	tm.waitFor("needs technician mode")
}

func waitCount(t *testing.T, scr *lineedittest.Screen, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for countOn(scr, want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q %d times; it shows:\n%s", want, n, scr.Text())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type panicSkills struct{}

func (panicSkills) Skills() []*registry.Manifest { panic("skill list exploded") }

func TestPanickingCommandEndsNothing(t *testing.T) {
	r := newRig(t)
	s := r.server(t, func(c *Config) { c.Env.Skills = panicSkills{} })
	out := script(t, s, "skills\nversion")
	assert.Contains(t, out, "error: internal error in skills (logged); the robot carries on\n")
	assert.Contains(t, out, "jibod test", "the session goes on")
	assert.Contains(t, logText(r.logs), "shell command panicked")
	// The bus is still fine.
	require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage("jibo.test", nil)))
}

func TestSessionLimit(t *testing.T) {
	r := newRig(t)
	s := r.server(t, func(c *Config) { c.MaxSessions = 2 })
	a, b := startTerm(t, s), startTerm(t, s)
	a.waitFor("jibo>")
	b.waitFor("jibo>")
	var out syncBuffer
	err := s.Serve(context.Background(), Conn{R: strings.NewReader("version\n"), W: &out, Name: "third", Mode: Script})
	assert.ErrorIs(t, err, ErrBusy)
	assert.Equal(t, "jibod shell: too many shell sessions (2 open); try again later\n", out.String())
	a.typeIn("status\r")
	a.waitFor("2 sessions: #1 pipe, #2 pipe")
}

func TestServerCloseEndsSessions(t *testing.T) {
	r := newRig(t)
	s, err := NewServer(Config{Env: r.env(), Now: r.clock.Now})
	require.NoError(t, err)
	tm := startTerm(t, s)
	tm.waitFor("jibo>")
	tm.typeIn("bus tail\r")
	tm.waitFor("(watching *")
	s.Close()
	select {
	case <-tm.done:
		assert.ErrorContains(t, tm.err, "shell closing")
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the session")
	}
	assert.ErrorContains(t, s.Serve(context.Background(), Conn{R: strings.NewReader(""), W: &syncBuffer{}}), "shell closed")
}

func TestBusStatsAndSession(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	out := script(t, s, "bus stats\nbus stats --json\nsession\nbus")
	assert.Contains(t, out, "published ")
	assert.Contains(t, out, `"published":`)
	assert.Contains(t, out, "error: this robot has no pipeline")
	assert.Contains(t, out, "error: tail or stats; usage: bus tail")
}

func TestBusTailCount(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	go func() {
		// Publish until the tail has what it wants; each publish is one line.
		for i := 0; i < 200; i++ {
			_ = r.bus.Publish(context.Background(), bus.NewMessage("jibo.test.tick", map[string]any{"i": i, "text": "a\x1b[31mred"}))
			time.Sleep(time.Millisecond)
		}
	}()
	out := script(t, s, "bus tail jibo.test --count 3")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 5, out)
	assert.Equal(t, "(watching jibo.test*; Ctrl-C stops)", lines[0])
	assert.Contains(t, lines[1], "jibo.test.tick i=")
	assert.Contains(t, lines[1], `text="a\u001b[31mred"`, "escape sequences from the bus never reach the terminal raw")
	assert.Equal(t, "(3 shown)", lines[4])
	assert.Contains(t, script(t, s, "bus tail a*b"), "error: topic prefix")
	assert.Contains(t, script(t, s, "bus tail --count 0"), "want 1..1000000")
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":    "plain\ttext\n",
		"esc\x1b[2Jclear":  "esc^[[2Jclear",
		"bell\a del\x7f":   "bell^G del^?",
		"c1 \u0085 next":   "c1 <U+0085> next",
		"bad \xff utf8":    "bad \uFFFD utf8",
		"é and ☕ are fine": "é and ☕ are fine",
	} {
		assert.Equal(t, want, sanitize(in), "%q", in)
	}
}

func TestLogCommand(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	for i := range 5 {
		r.log.Info("step", "i", i)
	}
	r.log.Error("bad thing", "err", errors.New("boom"))
	out := script(t, s, "log -n 3\nlog error --json\nlog loud\nlog -n 0\nversion")
	assert.Contains(t, out, "INFO  step i=4\n")
	assert.NotContains(t, out, "i=2")
	assert.Contains(t, out, `"msg":"bad thing"`)
	assert.Contains(t, out, `"level":"ERROR"`)
	assert.Contains(t, out, `error: "loud" is not a level`)
	_, last, _ := strings.Cut(out, `error: "loud" is not a level`)
	_, last, _ = strings.Cut(last, "\n")
	assert.True(t, strings.HasPrefix(last, "jibod test ("), "log -n 0 prints none: %q", last)
}

func TestNoRobotParts(t *testing.T) {
	s, err := NewServer(Config{PINHash: testPINHash, WrongPINDelay: -1})
	require.NoError(t, err)
	defer s.Close()
	out := script(t, s, strings.Join([]string{"status", "bus tail", "utter hi", "say hi", "skills", "intents", "session",
		"pipeline", "motor limits", "led red", "audio level", "board check", "selftest", "log", "hub", "people"}, "\n"))
	for _, want := range []string{"this robot has no message bus", "this robot has no voice", "this robot has no skill host",
		"this robot has no pipeline", "this robot has no motors", "this robot has no LED ring", "no audio input on this robot",
		"this robot has no body to check", "this robot has no self-test", "this robot has no log book", "this robot has no hub configured", "this robot has no loop", "recent utterances: none yet"} {
		assert.Contains(t, out, want)
	}
	assert.Contains(t, out, "control loop:  none")
}

func TestCtrlCAtAQuestionAndTypeAhead(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	tm := startTerm(t, s)
	tm.waitFor("jibo>")
	tm.typeIn("unlock\r")
	tm.waitFor("PIN:")
	tm.typeIn("12\x03")
	waitCount(t, tm.scr, "jibo>", 2)
	assert.Contains(t, tm.scr.Text(), "PIN: **^C\njibo>", "Ctrl-C at the PIN abandons unlock quietly")
	assert.NotContains(t, tm.scr.Text(), "error:")

	// Typed while a command runs: kept for the next prompt...
	tm.typeIn("bus tail jibo.none\r")
	tm.waitFor("(watching jibo.none*")
	tm.typeIn("version\r")
	// ...unless Ctrl-C throws it away with the command.
	tm.typeIn("\x03")
	tm.waitFor("(0 shown)")
	tm.typeIn("lock\r")
	tm.waitFor("technician mode locked")
	assert.NotContains(t, tm.scr.Text(), "jibod test (", "type-ahead before Ctrl-C is dropped")

	tm.typeIn("bus tail jibo.ta --count 1\r")
	tm.waitFor("(watching jibo.ta*")
	tm.typeIn("version\r") // type-ahead kept
	require.NoError(t, r.bus.Publish(context.Background(), bus.NewMessage("jibo.ta.go", nil)))
	tm.waitFor("(1 shown)")
	tm.waitFor("jibod test (")
}

func TestDisconnectEndsTheSessionAndItsTail(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	before := r.bus.Stats().Subscribers
	tm := startTerm(t, s)
	tm.waitFor("jibo>")
	tm.typeIn("bus tail\r")
	tm.waitFor("(watching *")
	assert.Equal(t, before+1, r.bus.Stats().Subscribers)
	require.NoError(t, tm.in.Close())
	select {
	case <-tm.done:
		assert.NoError(t, tm.err, "the peer left")
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end at the disconnect")
	}
	assert.Equal(t, before, r.bus.Stats().Subscribers, "the tail's subscription is gone")
}

// brokenTerminal accepts a few writes, then fails, as a terminal whose
// cable was pulled.
type brokenTerminal struct {
	mu sync.Mutex
	n  int
}

func (b *brokenTerminal) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	if b.n > 3 {
		return 0, errors.New("write /dev/ttyGS0: input/output error")
	}
	return len(p), nil
}

func TestBrokenTerminalEndsOnlyItsSession(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() {
		done <- s.Serve(context.Background(), Conn{R: pr, W: &brokenTerminal{}, Close: pr.Close, Name: "broken", Mode: Terminal})
	}()
	go func() {
		for {
			if _, err := pw.Write([]byte("bus tail\r")); err != nil {
				return
			}
			_ = r.bus.Publish(context.Background(), bus.NewMessage("jibo.test.x", nil))
			time.Sleep(time.Millisecond)
		}
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, errLinkLost)
	case <-time.After(10 * time.Second):
		t.Fatal("a terminal that fails did not end its session")
	}
	out := script(t, s, "version")
	assert.Contains(t, out, "jibod test", "other sessions go on")
}

func TestLogFollow(t *testing.T) {
	r := newRig(t)
	s := r.server(t, nil)
	tm := startTerm(t, s)
	tm.waitFor("jibo>")
	tm.typeIn("log debug follow -n 0\r")
	tm.waitFor("(following; Ctrl-C stops)")
	r.log.Debug("a debug record", "k", 1)
	tm.waitFor("DEBUG a debug record k=1")
	tm.typeIn("\x03")
	waitCount(t, tm.scr, "jibo>", 2)
	r.log.Info("after the follow")
	tm.typeIn("version\r")
	tm.waitFor("jibod test (")
	assert.NotContains(t, tm.scr.Text(), "after the follow")
}

// fakeAudio hears a steady level.
type fakeAudio struct{ recorded time.Duration }

func (f *fakeAudio) Devices(context.Context) ([]AudioDevice, error) {
	return []AudioDevice{{Backend: "portaudio", ID: "hw:1,0", Name: "USB mic", Default: true, InUse: true, Channels: 2, SampleRate: 48000}}, nil
}

func (f *fakeAudio) Level(ctx context.Context, d time.Duration) (AudioLevel, error) {
	return AudioLevel{RMS: -42.5, Peak: -30, Over: d, Source: "portaudio"}, nil
}

func (f *fakeAudio) Record(ctx context.Context, d time.Duration, w io.Writer) (int, int, error) {
	f.recorded = d
	_, err := w.Write([]byte("RIFF...."))
	return int(d.Seconds() * 16000), 16000, err
}

func TestAudio(t *testing.T) {
	r := newRig(t)
	fa := &fakeAudio{}
	state := t.TempDir()
	s := r.server(t, func(c *Config) { c.Env.Audio = fa; c.Env.StateDir = state })
	wakes := make(chan bus.Message, 1)
	sub, err := r.bus.Subscribe(TopicWakeRequest, func(_ context.Context, m bus.Message) { wakes <- m })
	require.NoError(t, err)
	defer sub.Close()

	out := script(t, s, "audio devices\naudio level 0.5\naudio level --json\naudio listen\nstatus\naudio record 2 a.wav")
	assert.Regexp(t, `portaudio +hw:1,0 +USB mic +48000 Hz, 2 ch +default, in use`, out)
	assert.Contains(t, out, "-42.5 dBFS RMS, peak -30.0 dBFS over 0.5 s from portaudio")
	assert.Contains(t, out, `"rms_dbfs":-42.5`)
	assert.Contains(t, out, "the robot listens for a command now")
	assert.Contains(t, out, "audio level:   -42.5 dBFS (peak -30.0) from portaudio")
	assert.Contains(t, out, "error: `audio record` needs technician mode")
	assert.Equal(t, "shell-1", (<-wakes).Source())

	out = script(t, s, "unlock\n"+testPIN+"\naudio record 2 a.wav\naudio record 2 a.wav\naudio record 61 b.wav\naudio record 1 ../c.wav\naudio record 1 c.mp3")
	assert.Contains(t, out, "wrote "+filepath.Join(state, "recordings", "a.wav")+": 32000 samples at 16000 Hz (2.0 s)")
	assert.Contains(t, out, "file exists", "never overwritten")
	assert.Contains(t, out, "seconds \"61\": want 0.1..60")
	assert.Contains(t, out, "give a bare file name")
	assert.Contains(t, out, "the file must end in .wav")
	assert.Equal(t, 2*time.Second, fa.recorded)
	st, err := os.Stat(filepath.Join(state, "recordings", "a.wav"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	assert.Contains(t, logText(r.logs), "shell: audio recorded")
}

func BenchmarkTailLine(b *testing.B) {
	m := bus.NewMessage(pipeline.TopicSpeak, map[string]any{"utterance": "The time is 8:32 AM.", "lang": "en-US", "listen": false})
	at := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		_ = sanitize(tailLine(m, at, false))
	}
}
