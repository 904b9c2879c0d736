package hub

import (
	"context"
	"fmt"
	"time"

	"github.com/openjibo/jibod/core/bus"
)

// TopicLink is published on every change of the link's state:
// {state, url, encoding, since, error?, retry_in_ms?}.
const TopicLink = "jibo.hub.link"

// LinkStatus is how the link is.
type LinkStatus string

// The link's states.
const (
	// Disabled: no hub is configured, or the client is closed.
	Disabled LinkStatus = "disabled"
	// Connecting: a connection is being opened.
	Connecting LinkStatus = "connecting"
	// Up: the hub answers.
	Up LinkStatus = "up"
	// Down: the hub cannot be reached; Err says why and Retry when the
	// next attempt is.
	Down LinkStatus = "down"
)

// LinkState is the link's state with what explains it.
type LinkState struct {
	Status LinkStatus
	// URL is the hub's base URL; Encoding the frames' encoding.
	URL      string
	Encoding string
	// Since is when the link entered this state.
	Since time.Time
	// Err is why the link is down; nil otherwise.
	Err error
	// Retry is when the next connection attempt is due (Down only).
	Retry time.Time
}

// String is the one-line state the diagnostics shell shows.
func (s LinkState) String() string {
	switch s.Status {
	case Up:
		return fmt.Sprintf("up to %s (%s) since %s", s.URL, s.Encoding, s.Since.Format(time.RFC3339))
	case Down:
		msg := fmt.Sprintf("down: %s (since %s", s.URL, s.Since.Format(time.RFC3339))
		if !s.Retry.IsZero() {
			msg += fmt.Sprintf("; retry in %s", s.Retry.Sub(s.Since).Round(time.Millisecond))
		}
		msg += ")"
		if s.Err != nil {
			msg += ": " + s.Err.Error()
		}
		return msg
	case Connecting:
		return fmt.Sprintf("connecting to %s (%s)", s.URL, s.Encoding)
	}
	return "disabled"
}

// message is the state as a bus message.
func (s LinkState) message() bus.Message {
	d := map[string]any{"state": string(s.Status), "url": s.URL, "encoding": s.Encoding,
		"since": s.Since.UTC().Format(time.RFC3339Nano)}
	if s.Err != nil {
		d["error"] = s.Err.Error()
	}
	if !s.Retry.IsZero() {
		d["retry_in_ms"] = max(s.Retry.Sub(s.Since).Milliseconds(), 0)
	}
	m := bus.NewMessage(TopicLink, d)
	m.Context[bus.KeySource] = "hub"
	return m
}

// publishState puts st on the bus, bounded so a full queue cannot hold the
// link.
func publishState(b *bus.Bus, st LinkState) error {
	if b == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := b.Publish(ctx, st.message()); err != nil {
		return fmt.Errorf("publishing hub link state: %w", err)
	}
	return nil
}
