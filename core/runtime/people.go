package runtime

import (
	"log/slog"
	"path/filepath"
	"time"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/skill/people"
)

// openPeople opens the people file of the state folder ("" keeps them in
// memory). A file that cannot be used is logged, and the robot runs
// knowing nobody: people matter less than a robot that starts. The file
// is left as it is, and taken as soon as it is fixed.
func openPeople(stateDir string, now func() time.Time, log *slog.Logger) *people.Store {
	path := ""
	if stateDir != "" {
		path = filepath.Join(stateDir, people.FileName)
	}
	s, err := people.Open(path, people.Options{Now: now, Logger: log})
	if err != nil {
		log.Error("the loop file is unusable: nobody is in the loop until it is fixed", "err", err)
		return s
	}
	members, _ := s.Members()
	log.Info("loop", "members", len(members), "file", path)
	return s
}

// peopleView is the people the robot knows as the diagnostics shell sees
// them.
type peopleView struct{ s *people.Store }

// Members lists the people, and the file's problem if it has one.
func (v peopleView) Members() ([]diag.Person, error) {
	members, owner := v.s.Members()
	out := make([]diag.Person, 0, len(members))
	for _, m := range members {
		out = append(out, diag.Person{ID: m.ID, FirstName: m.FirstName, LastName: m.LastName, Owner: m.ID == owner})
	}
	return out, v.s.Err()
}
