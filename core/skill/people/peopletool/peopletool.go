// Package peopletool holds the tools `jibod people` runs on the people the
// robot knows (package people's store): listing them and adding someone.
package peopletool

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/openjibo/jibod/core/skill/people"
)

// personJSON is one member as List prints it in JSON.
type personJSON struct {
	people.Member
	Owner bool `json:"owner"`
}

// List writes the members of s to w, as a table (* marks the owner) or as
// JSON lines.
func List(w io.Writer, s *people.Store, asJSON bool) error {
	members, owner := s.Members()
	if asJSON {
		enc := json.NewEncoder(w)
		for _, m := range members {
			if err := enc.Encode(personJSON{Member: m, Owner: m.ID == owner}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(members) == 0 {
		fmt.Fprintf(w, "nobody in the loop yet (%s); 'jibod people add --first NAME' adds someone\n", s.Path())
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tOWNER\tSAY\tGENDER\tBIRTHDATE")
	for _, m := range members {
		mark := ""
		if m.ID == owner {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.Name(), mark, orDash(m.PhoneticName), orDash(m.Gender), orDash(m.Birthdate))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Add adds m to s (as the owner when owner is set), says so on w, and
// notes on warn everyone already called the same: said aloud, neither
// name picks one of them. The error is the store's.
func Add(w, warn io.Writer, s *people.Store, m people.Member, owner bool) error {
	added, err := s.Add(m, owner)
	if err != nil {
		return err
	}
	members, ownerID := s.Members()
	role := ""
	if added.ID == ownerID {
		role = ", the owner"
	}
	fmt.Fprintf(w, "added %s (%s%s)\n", added.Name(), added.ID, role)
	// Two people the robot cannot tell apart by name: it asks rather than
	// guesses when one says "this is Ann".
	for _, o := range members {
		if o.ID != added.ID && (people.Called(o, added.FirstName) || people.Called(o, added.Name())) {
			fmt.Fprintf(warn, "note: %s (%s) is called that too: said aloud, neither name picks one of them\n", o.Name(), o.ID)
		}
	}
	return nil
}
