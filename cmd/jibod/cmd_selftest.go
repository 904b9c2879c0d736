package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

// selftestTimeout bounds the whole self-test.
const selftestTimeout = 60 * time.Second

// check is one self-test step: it returns a detail for people or an error.
type check struct {
	name string
	run  func(ctx context.Context, r *robot, u *utterer) (string, error)
}

func cmdSelftest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	boardName := fs.String("board", "sim", "board profile to test (a built-in name or a file)")
	logLevel := fs.String("log-level", "error", "log level for the runtime under test")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "jibod %s selftest on the %s board\n", version, *boardName)
	passed, failed, started := runSelftest(ctx, *boardName, log, func(name, detail string, err error) {
		switch {
		case err != nil:
			fmt.Fprintf(stdout, "[FAIL] %s: %v\n", name, err)
		case detail == "":
			fmt.Fprintf(stdout, "[pass] %s\n", name)
		default:
			fmt.Fprintf(stdout, "[pass] %s: %s\n", name, detail)
		}
	})
	if !started {
		return errors.New("selftest failed")
	}
	fmt.Fprintf(stdout, "selftest: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return errors.New("selftest failed")
	}
	return nil
}

// runSelftest starts a robot on boardName with its state in memory, runs
// every check on it, shuts it down and reports each step as it finishes
// (the shutdown is a step too). started is false when the robot did not
// start; that is reported as the step "start the runtime". jibod selftest
// and the shell's selftest command share it.
func runSelftest(ctx context.Context, boardName string, log *slog.Logger, report func(name, detail string, err error)) (passed, failed int, started bool) {
	ctx, cancel := context.WithTimeout(ctx, selftestTimeout)
	defer cancel()
	r, err := newRobot(ctx, robotConfig{Board: boardName, SpeakWPM: 0, Log: log})
	if err != nil {
		report("start the runtime", "", err)
		return 0, 1, false
	}
	u, err := newUtterer(r.bus, "selftest")
	if err != nil {
		r.Close(context.Background())
		report("start the runtime", "", err)
		return 0, 1, false
	}
	for _, c := range selftestChecks() {
		detail, err := c.run(ctx, r, u)
		if err != nil {
			failed++
		} else {
			passed++
		}
		report(c.name, detail, err)
	}
	u.Close()
	closeCtx, cancelClose := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelClose()
	if err := r.Close(closeCtx); err != nil {
		failed++
		report("shut down cleanly", "", err)
	} else {
		passed++
		report("shut down cleanly", "", nil)
	}
	return passed, failed, true
}

func selftestChecks() []check {
	return []check{
		{"board devices answer", func(ctx context.Context, r *robot, _ *utterer) (string, error) {
			var names []string
			for _, c := range r.body.Check(ctx) {
				if !c.OK {
					return "", fmt.Errorf("%s (%s): %s", c.Device, c.Driver, c.Error)
				}
				names = append(names, c.Device)
			}
			return strings.Join(names, ", "), nil
		}},
		{"bus codecs round-trip", func(context.Context, *robot, *utterer) (string, error) {
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
		{"malformed bus message refused", func(ctx context.Context, r *robot, _ *utterer) (string, error) {
			err := r.bus.Publish(ctx, bus.Message{Type: "not a topic"})
			if !errors.Is(err, bus.ErrMalformed) {
				return "", fmt.Errorf("published without error: %v", err)
			}
			return err.Error(), nil
		}},
		{"skills registered their intents", func(ctx context.Context, r *robot, _ *utterer) (string, error) {
			return listIntents(ctx, r)
		}},
		{"greeting answered", func(ctx context.Context, _ *robot, u *utterer) (string, error) {
			return expectAnswer(ctx, u, "hello", "jibo.basics:greet", expectation{})
		}},
		{"time answered", func(ctx context.Context, _ *robot, u *utterer) (string, error) {
			return expectAnswer(ctx, u, "what time is it", "jibo.clock:time_now", expectation{"a time like 9:05 AM", saysClockTime})
		}},
		{"question answered in a second turn", func(ctx context.Context, _ *robot, u *utterer) (string, error) {
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
		{"nonsense gets a spoken answer", func(ctx context.Context, _ *robot, u *utterer) (string, error) {
			return expectAnswer(ctx, u, "flibbertigibbet", "jibo.fallback:fallback", expectation{"any words", func(s string) bool { return strings.TrimSpace(s) != "" }})
		}},
		{"bad entry gets an error and one handled", func(ctx context.Context, r *robot, u *utterer) (string, error) {
			return badEntry(ctx, r, u)
		}},
		{"motors move within limits", func(ctx context.Context, r *robot, _ *utterer) (string, error) {
			var parts []string
			for _, axis := range device.Axes() {
				m := r.body.Motors[axis]
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
		{"JCP sequence and parallel run", func(ctx context.Context, r *robot, _ *utterer) (string, error) {
			a := jcp.NewAction(jcp.Sequence(jcp.Say("one"), jcp.Parallel(false, jcp.Say("two"), jcp.Say("three"))))
			res, err := r.exec.Run(ctx, a)
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

func listIntents(ctx context.Context, r *robot) (string, error) {
	got := make(chan bus.Message, 1)
	sub, err := r.bus.Subscribe(intent.TopicList+".response", func(_ context.Context, m bus.Message) {
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
	if err := r.bus.Publish(ctx, q); err != nil {
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

// saysClockTime reports whether s holds a time like "9:05 AM".
func saysClockTime(s string) bool {
	digit := func(i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i := range len(s) - 5 {
		if s[i] == ':' && digit(i-1) && digit(i+1) && digit(i+2) && strings.HasPrefix(s[i+3:], " ") &&
			(strings.HasPrefix(s[i+4:], "AM") || strings.HasPrefix(s[i+4:], "PM")) {
			return true
		}
	}
	return false
}

func expectAnswer(ctx context.Context, u *utterer, text, dispatch string, want expectation) (string, error) {
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

func badEntry(ctx context.Context, r *robot, u *utterer) (string, error) {
	done := make(chan bus.Message, 4)
	sub, err := r.bus.Subscribe(pipeline.TopicHandled, func(_ context.Context, m bus.Message) {
		if m.Context[keyInput] == "selftest-bad" {
			done <- m
		}
	})
	if err != nil {
		return "", err
	}
	defer sub.Close()
	m := bus.NewMessage(pipeline.TopicHandle, map[string]any{"utterances": "not a list"})
	m.Context[keyInput] = "selftest-bad"
	if err := r.bus.Publish(ctx, m); err != nil {
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
