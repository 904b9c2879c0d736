package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/skill/people"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// openRobotLoop opens the loop of the state folder ("" keeps it in
// memory). A loop file that cannot be used is logged, and the robot runs
// with nobody in its loop: people matter less than a robot that starts.
// The file is left as it is, and taken as soon as it is fixed.
func openRobotLoop(stateDir string, now func() time.Time, log *slog.Logger) *people.Store {
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

// watchLoop looks at the loop file every interval and announces each
// change on the bus (people.TopicChanged, {count}), where the speech
// grammar's watcher takes it. The function it returns stops it and
// waits.
func watchLoop(ctx context.Context, s *people.Store, b *bus.Bus, interval time.Duration, log *slog.Logger) func() {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { // owned: the returned function cancels it and waits
		defer close(done)
		s.Watch(wctx, interval, func(l protocol.Loop) {
			log.Info("loop changed", "members", len(l.Users))
			m := bus.NewMessage(people.TopicChanged, map[string]any{"count": len(l.Users)})
			pctx, cancel := context.WithTimeout(wctx, time.Second)
			defer cancel()
			if err := b.Publish(pctx, m); err != nil {
				log.Warn("loop change not announced", "err", err)
			}
		})
	}()
	return func() { cancel(); <-done }
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
