package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Status is what one connection to the hub found, as `jibod hub status`
// reports it: whether the link is up, the encoding chosen, the skills the
// hub serves.
type Status struct {
	URL      string        `json:"url"`
	Link     string        `json:"link"` // "up" or "down"
	Encoding string        `json:"encoding,omitempty"`
	Error    string        `json:"error,omitempty"`
	Skills   []StatusSkill `json:"skills"`
}

// StatusSkill is one skill of the hub's catalog.
type StatusSkill struct {
	ID      string   `json:"id"`
	Version string   `json:"version"`
	Intents []string `json:"intents"`
}

// CheckStatus connects to the hub once and reads its catalog; what went
// wrong is in the status's Error.
func CheckStatus(ctx context.Context, c *Client) Status {
	out := Status{URL: c.URL(), Link: "up", Skills: []StatusSkill{}}
	enc, err := c.Probe(ctx)
	if err != nil {
		out.Link, out.Error = "down", err.Error()
		return out
	}
	out.Encoding = enc.String()
	cat, _, err := c.Catalog(ctx)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	for _, s := range cat.Skills {
		l := StatusSkill{ID: s.ID, Version: s.Version, Intents: []string{}}
		for _, in := range s.Config.Intents {
			l.Intents = append(l.Intents, in.Name)
		}
		out.Skills = append(out.Skills, l)
	}
	sort.Slice(out.Skills, func(i, j int) bool { return out.Skills[i].ID < out.Skills[j].ID })
	return out
}

// Write writes the status to w, as one JSON object with asJSON, else for a
// person; the error is what went wrong connecting, if anything.
func (s Status) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n", b)
	} else {
		s.WriteText(w)
	}
	if s.Error != "" {
		return fmt.Errorf("hub %s: %s", s.URL, s.Error)
	}
	return nil
}

// WriteText writes the status for a person.
func (s Status) WriteText(w io.Writer) {
	fmt.Fprintf(w, "hub:  %s\nlink: %s", s.URL, s.Link)
	if s.Encoding != "" {
		fmt.Fprintf(w, " (%s)", s.Encoding)
	}
	fmt.Fprintln(w)
	for _, sk := range s.Skills {
		fmt.Fprintf(w, "skill %s %s: %v\n", sk.ID, sk.Version, sk.Intents)
	}
}
