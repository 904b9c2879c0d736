package diag

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/core/bus"
)

// TopicHubTrigger asks the robot to send its hub a proactive TRIGGER
// (core/hub's jibo.hub.trigger): {source: NEW_ARRIVAL|SURPRISE}. The hub
// side takes it off the bus, so the shell asks exactly as any part of the
// robot does.
const TopicHubTrigger = "jibo.hub.trigger"

// hubUp is HubLink.Status of a link that answers (core/hub.Up).
const hubUp = "up"

// hubTriggers are the trigger sources a hub takes (the Jibo protocol's
// TRIGGER: protocol.TriggerNewArrival, protocol.TriggerSurprise).
var hubTriggers = []string{"NEW_ARRIVAL", "SURPRISE"}

// errNoHub is the hub command's answer on a robot without one.
var errNoHub = missing("hub configured: every skill is local (`jibod run --hub URL` links one, unless --offline)")

// hubHelp is `help hub`, wrapped as prose like every command's help.
const hubHelp = "`hub` (or `hub status`) shows the hub link: its state (since when; while down, the error and when the next attempt is), " +
	"the link mode (persistent or per-turn), the frame encoding, and the remote skills the hub's catalog offered " +
	"(the cached catalog's until the hub answers). `hub trigger NEW_ARRIVAL` or `hub trigger SURPRISE` (technician mode) " +
	"asks the hub for a proactive skill, as a person arriving would (the robot has no presence sensing yet); the link must be up, " +
	"and the hub may have nothing to offer: `log follow` shows what it chose."

func cmdHub(c *call) error {
	h := c.srv.env.Hub
	if h == nil {
		return errNoHub
	}
	sub := "status"
	if len(c.args) > 0 {
		sub = c.args[0]
	}
	switch sub {
	case "status":
		if len(c.args) > 1 {
			return c.usageErr("status takes no arguments")
		}
		return c.hubStatus(h)
	case "trigger":
		return c.hubTrigger(h)
	}
	return c.usageErr("no hub command %q", sub)
}

func (c *call) hubStatus(h Hub) error {
	l := h.Link()
	skills := h.Skills()
	if skills == nil {
		skills = []HubSkill{} // JSON: [] rather than null
	}
	if c.json {
		return c.emit(map[string]any{"link": l, "skills": skills})
	}
	rows := [][]string{{"link:", l.Summary}}
	if l.Status != hubUp && !l.Retry.IsZero() {
		// The summary gives the backoff as it was when the link went
		// down; a technician wants to know how long is left.
		next := "due now"
		if d := l.Retry.Sub(c.srv.now()); d > 0 {
			next = "in " + roundDur(d).String()
		}
		rows = append(rows, []string{"next attempt:", next})
	}
	rows = append(rows, []string{"mode:", orNone(l.Mode)}, []string{"encoding:", orNone(l.Encoding)})
	if len(skills) == 0 {
		rows = append(rows, []string{"remote skills:", "none (the hub's catalog was not fetched yet, or offers none)"})
		return c.table(rows)
	}
	rows = append(rows, []string{"remote skills:", strconv.Itoa(len(skills))})
	for _, s := range skills {
		rows = append(rows, []string{"  " + s.ID, s.Name})
	}
	return c.table(rows)
}

func (c *call) hubTrigger(h Hub) error {
	if len(c.args) != 2 {
		return c.usageErr("trigger needs one kind: %s", strings.Join(hubTriggers, " or "))
	}
	kind := strings.ToUpper(c.args[1])
	if !slices.Contains(hubTriggers, kind) {
		return c.usageErr("no trigger kind %q: want %s", c.args[1], strings.Join(hubTriggers, " or "))
	}
	b := c.srv.env.Bus
	if b == nil {
		return missing("message bus")
	}
	// The hub side drops a trigger at once while the link is not up: say
	// why here rather than leave a technician to find it in the log.
	if l := h.Link(); l.Status != hubUp {
		return fmt.Errorf("nothing triggered: the hub link is not up: %s", l.Summary)
	}
	m := bus.NewMessage(TopicHubTrigger, map[string]any{"source": kind})
	m.Context[bus.KeySource] = fmt.Sprintf("shell-%d", c.s.id)
	if err := b.Publish(c.ctx, m); err != nil {
		return fmt.Errorf("asking for a hub trigger: %w", err)
	}
	if c.json {
		return c.emit(map[string]any{"trigger": kind, "topic": TopicHubTrigger})
	}
	return c.printf("asked the hub for a %s proactive skill; `log follow` shows what it chose\n", kind)
}

// hubComplete completes the hub command's words.
func hubComplete(_ *Server, args []string) []string {
	switch {
	case len(args) == 0:
		return []string{"status", "trigger"}
	case len(args) == 1 && args[0] == "trigger":
		return append([]string(nil), hubTriggers...)
	}
	return nil
}
