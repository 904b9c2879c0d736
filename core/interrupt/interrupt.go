// Package interrupt stops the robot from outside the conversation: the
// head button, the console, the diagnostics shell. Each publishes the
// global stop's message, ovos.stop (STOP-06), for the default session, as
// the stop pipeline plugin's global_stop does: the skill host ends every
// action (speech and motion at once) and forgets what the skills were
// asking, and the body returns to rest (core/idle).
//
// A stop said to the robot ("stop", "never mind") goes through the
// pipeline's stop plugin instead, which stops the skill that is talking.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
)

// Publisher publishes on the bus; *bus.Bus is one.
type Publisher interface {
	Publish(ctx context.Context, m bus.Message) error
}

// Stop stops everything the robot does: one ovos.stop, from source (e.g.
// "console", "shell", "button.head").
func Stop(ctx context.Context, p Publisher, source string) error {
	m := bus.NewMessage(pipeline.TopicStop, map[string]any{})
	m.Context[bus.KeySource] = source
	if err := p.Publish(ctx, m); err != nil {
		return fmt.Errorf("stopping the robot: %w", err)
	}
	return nil
}

// DefaultButtons are the names of the buttons that stop the robot: Jibo's
// head touch, and a button labelled stop.
var DefaultButtons = []string{"head", "stop"}

// buttonTopic is the press event of button name (device events on the
// bus are jibo.body.<device>.<kind>, the device being button.<name>).
func buttonTopic(name string) string { return "jibo.body.button." + name + ".press" }

// Buttons stops the robot when one of its stop buttons is pressed.
type Buttons struct {
	bus *bus.Bus
	log *slog.Logger

	mu  sync.Mutex
	sub *bus.Subscription
}

// WatchButtons stops the robot on a press of any of names that the body
// has (have lists the body's buttons). It returns nil, and watches
// nothing, when the body has none of them.
func WatchButtons(b *bus.Bus, have, names []string, log *slog.Logger) (*Buttons, error) {
	if b == nil {
		return nil, errors.New("stop buttons: no bus")
	}
	if log == nil {
		log = slog.Default()
	}
	var topics []string
	for _, n := range names {
		if slices.Contains(have, n) {
			if strings.ContainsAny(n, ".*") || bus.ValidateTopic(buttonTopic(n)) != nil {
				return nil, fmt.Errorf("stop buttons: button name %q is not usable in a topic", n)
			}
			topics = append(topics, buttonTopic(n))
		}
	}
	if len(topics) == 0 {
		return nil, nil
	}
	w := &Buttons{bus: b, log: log.With("component", "interrupt")}
	sub, err := b.SubscribeAll(topics, w.onPress, bus.WithName("stop-buttons"), bus.WithQueue(16, bus.DropNewest))
	if err != nil {
		return nil, fmt.Errorf("stop buttons: %w", err)
	}
	w.sub = sub
	return w, nil
}

func (w *Buttons) onPress(ctx context.Context, m bus.Message) {
	name := strings.TrimSuffix(strings.TrimPrefix(m.Type, "jibo.body."), ".press")
	w.log.Info("stop button pressed", "button", name)
	if err := Stop(ctx, w.bus, name); err != nil {
		w.log.Warn("stop button", "button", name, "err", err)
	}
}

// Close stops watching; a nil Buttons is fine.
func (w *Buttons) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	sub := w.sub
	w.sub = nil
	w.mu.Unlock()
	if sub != nil {
		sub.Close()
	}
}
