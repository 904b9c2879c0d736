// Package selftest exercises a running robot's whole chain — its devices,
// bus and codecs, intents, skills, a two-turn conversation, the motors'
// limits and the JCP executor — and reports each check as it finishes:
// what `jibod selftest` prints and the shell's selftest command shows.
package selftest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// Timeout bounds the whole self-test.
const Timeout = 60 * time.Second

// closeTimeout bounds shutting the robot under test down.
const closeTimeout = 10 * time.Second

// Robot is the running robot the checks exercise.
type Robot struct {
	// Bus is the robot's bus, its pipeline and skills listening.
	Bus *bus.Bus
	// Exec runs JCP actions on the body.
	Exec ActionRunner
	// Motors are the body's motors by axis name (motion.AxisName).
	Motors map[string]Motor
	// Devices asks each device of the body whether it answers.
	Devices func(ctx context.Context) []Device
}

// ActionRunner runs a JCP action; *jcp.Executor is one.
type ActionRunner interface {
	Run(ctx context.Context, a *jcp.Action) (*jcp.Result, error)
}

// Motor is one axis's motor; a device.Motor is one.
type Motor interface {
	SetAngle(ctx context.Context, rad float64) error
}

// Device is whether one device of the body answered.
type Device struct {
	Device, Driver string
	OK             bool
	Error          string
}

// Step is one reported step: a check, starting the robot or shutting it
// down. Err is nil when it passed; Detail says what it saw.
type Step struct {
	Name, Detail string
	Err          error
}

// Starter starts the robot under test; stop shuts it down.
type Starter func(ctx context.Context) (r *Robot, stop func(context.Context) error, err error)

// check is one self-test step: it returns a detail for people or an error.
type check struct {
	name string
	run  func(ctx context.Context, r *Robot, u *console.Utterer) (string, error)
}

// Run starts a robot, runs every check on it, shuts it down and reports
// each step as it finishes (the shutdown is a step too). started is false
// when the robot did not start; that is reported as the step "start the
// runtime".
func Run(ctx context.Context, start Starter, report func(Step)) (passed, failed int, started bool) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	r, stop, err := start(ctx)
	if err != nil {
		report(Step{Name: "start the runtime", Err: err})
		return 0, 1, false
	}
	u, err := console.NewUtterer(r.Bus, "selftest")
	if err != nil {
		_ = stop(context.Background())
		report(Step{Name: "start the runtime", Err: err})
		return 0, 1, false
	}
	for _, c := range checks() {
		detail, err := c.run(ctx, r, u)
		if err != nil {
			failed++
		} else {
			passed++
		}
		report(Step{Name: c.name, Detail: detail, Err: err})
	}
	u.Close()
	closeCtx, cancelClose := context.WithTimeout(context.Background(), closeTimeout)
	defer cancelClose()
	if err := stop(closeCtx); err != nil {
		failed++
		report(Step{Name: "shut down cleanly", Err: err})
	} else {
		passed++
		report(Step{Name: "shut down cleanly"})
	}
	return passed, failed, true
}

func checks() []check {
	return []check{
		{"board devices answer", func(ctx context.Context, r *Robot, _ *console.Utterer) (string, error) {
			var names []string
			if r.Devices == nil {
				return "", errors.New("the robot cannot check its devices")
			}
			for _, c := range r.Devices(ctx) {
				if !c.OK {
					return "", fmt.Errorf("%s (%s): %s", c.Device, c.Driver, c.Error)
				}
				names = append(names, c.Device)
			}
			return strings.Join(names, ", "), nil
		}},
		{"bus codecs round-trip", func(context.Context, *Robot, *console.Utterer) (string, error) {
			m := bus.NewMessage("jibo.selftest", map[string]any{"n": 1, "s": "é", "l": []any{true, 2.5}})
			j, err := bus.EncodeJSON(m)
			if err != nil {
				return "", err
			}
			back, _, err := bus.DecodeJSON(j)
			if err != nil {
				return "", err
			}
			c, err := bus.NewCBOR()
			if err != nil {
				return "", err
			}
			cb, err := c.Encode(back)
			if err != nil {
				return "", err
			}
			again, _, err := c.Decode(cb)
			if err != nil {
				return "", err
			}
			j2, _ := bus.EncodeJSON(again)
			if string(j) != string(j2) {
				return "", fmt.Errorf("JSON %s came back as %s", j, j2)
			}
			return fmt.Sprintf("JSON %d bytes, CBOR %d bytes", len(j), len(cb)), nil
		}},
		{"malformed bus message refused", func(ctx context.Context, r *Robot, _ *console.Utterer) (string, error) {
			err := r.Bus.Publish(ctx, bus.Message{Type: "not a topic"})
			if !errors.Is(err, bus.ErrMalformed) {
				return "", fmt.Errorf("published without error: %v", err)
			}
			return err.Error(), nil
		}},
		{"skills registered their intents", func(ctx context.Context, r *Robot, _ *console.Utterer) (string, error) {
			return listIntents(ctx, r)
		}},
		{"greeting answered", func(ctx context.Context, _ *Robot, u *console.Utterer) (string, error) {
			return expectAnswer(ctx, u, "hello", "jibo.basics:greet", expectation{})
		}},
		{"time answered", func(ctx context.Context, _ *Robot, u *console.Utterer) (string, error) {
			return expectAnswer(ctx, u, "what time is it", "jibo.clock:time_now", expectation{"a time like 9:05 AM, noon or midnight", saysClockTime})
		}},
		{"question answered in a second turn", func(ctx context.Context, _ *Robot, u *console.Utterer) (string, error) {
			first, err := expectAnswer(ctx, u, "set a timer", "jibo.timer:set_timer", expectation{`"how long"`, func(s string) bool { return strings.Contains(strings.ToLower(s), "how long") }})
			if err != nil {
				return "", err
			}
			second, err := expectAnswer(ctx, u, "ten minutes", "jibo.timer:response", expectation{`"ten minutes"`, func(s string) bool { return strings.Contains(s, "ten minutes") }})
			if err != nil {
				return "", err
			}
			return first + "; " + second, nil
		}},
		{"nonsense gets a spoken answer", func(ctx context.Context, _ *Robot, u *console.Utterer) (string, error) {
			return expectAnswer(ctx, u, "flibbertigibbet", "jibo.fallback:fallback", expectation{"any words", func(s string) bool { return strings.TrimSpace(s) != "" }})
		}},
		{"bad entry gets an error and one handled", func(ctx context.Context, r *Robot, u *console.Utterer) (string, error) {
			return badEntry(ctx, r, u)
		}},
		{"motors move within limits", func(ctx context.Context, r *Robot, _ *console.Utterer) (string, error) {
			var parts []string
			for i := range motion.NumAxes {
				axis := motion.AxisName(i)
				m := r.Motors[axis]
				if m == nil {
					return "", fmt.Errorf("no %s motor", axis)
				}
				if err := m.SetAngle(ctx, 0.5); err != nil {
					return "", fmt.Errorf("%s to 0.5 rad: %w", axis, err)
				}
				if err := m.SetAngle(ctx, 4); err == nil {
					return "", fmt.Errorf("%s accepted 4 rad, beyond its limit", axis)
				}
				if err := m.SetAngle(ctx, 0); err != nil {
					return "", fmt.Errorf("%s back to 0: %w", axis, err)
				}
				parts = append(parts, axis)
			}
			return strings.Join(parts, ", ") + " moved; 4 rad refused", nil
		}},
		{"JCP sequence and parallel run", func(ctx context.Context, r *Robot, _ *console.Utterer) (string, error) {
			a := jcp.NewAction(jcp.Sequence(jcp.Say("one"), jcp.Parallel(false, jcp.Say("two"), jcp.Say("three"))))
			res, err := r.Exec.Run(ctx, a)
			if err != nil {
				return "", err
			}
			if len(res.Spoken) != 3 {
				return "", fmt.Errorf("spoke %q, want three lines", res.Spoken)
			}
			return fmt.Sprintf("%s, %d behaviours", res.Status, len(res.Behaviors)), nil
		}},
	}
}

func listIntents(ctx context.Context, r *Robot) (string, error) {
	got := make(chan bus.Message, 1)
	sub, err := r.Bus.Subscribe(intent.TopicList+".response", func(_ context.Context, m bus.Message) {
		if m.IsFor("selftest") {
			select {
			case got <- m:
			default:
			}
		}
	})
	if err != nil {
		return "", err
	}
	defer sub.Close()
	q := bus.NewMessage(intent.TopicList, map[string]any{})
	q.Context[bus.KeySource] = "selftest"
	if err := r.Bus.Publish(ctx, q); err != nil {
		return "", err
	}
	select {
	case m := <-got:
		list, _ := m.Data["intents"].([]any)
		var names []string
		for _, e := range list {
			o, _ := e.(map[string]any)
			names = append(names, fmt.Sprintf("%v:%v", o["skill_id"], o["intent_name"]))
		}
		if len(names) == 0 {
			return "", errors.New("no intents registered")
		}
		return strings.Join(names, ", "), nil
	case <-ctx.Done():
		return "", fmt.Errorf("no answer to %s: %w", intent.TopicList, ctx.Err())
	}
}

// expectation is what a self-test wants the robot to say; a zero one
// takes any answer.
type expectation struct {
	what string
	ok   func(said string) bool
}

// saysClockTime reports whether s holds a time like "9:05 AM", or the
// clock's words for 12:00 ("noon", "midnight"): a self-test run on the
// hour must not fail the robot.
func saysClockTime(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if w == "noon" || w == "midnight" {
			return true
		}
	}
	digit := func(i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i := range len(s) - 5 {
		if s[i] == ':' && digit(i-1) && digit(i+1) && digit(i+2) && strings.HasPrefix(s[i+3:], " ") &&
			(strings.HasPrefix(s[i+4:], "AM") || strings.HasPrefix(s[i+4:], "PM")) {
			return true
		}
	}
	return false
}

func expectAnswer(ctx context.Context, u *console.Utterer, text, dispatch string, want expectation) (string, error) {
	_, msgs, err := u.Say(ctx, text)
	if err != nil {
		return "", err
	}
	topics := lifecycleTopics(msgs)
	if !contains(topics, dispatch) || !contains(topics, pipeline.TopicHandlerDone) {
		return "", fmt.Errorf("%q: lifecycle %v, want %s completed", text, topics, dispatch)
	}
	var said []string
	for _, m := range msgs {
		if m.Type == pipeline.TopicSpeak {
			said = append(said, m.DataString("utterance"))
		}
	}
	if len(said) == 0 {
		return "", fmt.Errorf("%q: the robot said nothing", text)
	}
	if want.ok != nil && !want.ok(strings.Join(said, " ")) {
		return "", fmt.Errorf("%q: said %q, want %s", text, said, want.what)
	}
	return fmt.Sprintf("%q → %s → %q", text, dispatch, strings.Join(said, " ")), nil
}

func badEntry(ctx context.Context, r *Robot, u *console.Utterer) (string, error) {
	done := make(chan bus.Message, 4)
	sub, err := r.Bus.Subscribe(pipeline.TopicHandled, func(_ context.Context, m bus.Message) {
		if m.Context[console.KeyInput] == "selftest-bad" {
			done <- m
		}
	})
	if err != nil {
		return "", err
	}
	defer sub.Close()
	m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": "not a list"})
	m.Context[console.KeyInput] = "selftest-bad"
	if err := r.Bus.Publish(ctx, m); err != nil {
		return "", err
	}
	select {
	case h := <-done:
		e := h.DataString("error")
		if e == "" {
			return "", errors.New("handled carries no error")
		}
		return e, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func lifecycleTopics(msgs []bus.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, m.Type)
	}
	return out
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}
