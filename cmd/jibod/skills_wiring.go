package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/builtin/basics"
	"github.com/openjibo/jibod/core/skill/builtin/capabilities"
	"github.com/openjibo/jibod/core/skill/builtin/chitchat"
	"github.com/openjibo/jibod/core/skill/builtin/clock"
	"github.com/openjibo/jibod/core/skill/builtin/fallback"
	"github.com/openjibo/jibod/core/skill/builtin/timer"
	"github.com/openjibo/jibod/core/skill/builtin/volume"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp/character"
)

// State on disk: the robot keeps skill conversations and timers in a bbolt
// file, and the run records of its skills in a JSON-lines file, both in
// one state folder.
const (
	stateFileName = "state.db"
	runsFileName  = "runs.jsonl"
	// stateDirEnv overrides the default state folder.
	stateDirEnv = "JIBOD_STATE_DIR"
	// noState keeps everything in memory: nothing survives a restart.
	noState = "none"
)

// defaultStateDir is $JIBOD_STATE_DIR, else $XDG_STATE_HOME/jibod, else
// ~/.local/state/jibod; on the robot the flash tooling sets
// JIBOD_STATE_DIR=/var/lib/jibod.
func defaultStateDir() string {
	if d := os.Getenv(stateDirEnv); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "jibod")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "jibod")
	}
	return noState
}

// prepareStateDir creates the state folder (0700) if it is missing.
func prepareStateDir(dir string) error {
	if dir == "" || dir == noState {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state folder %s: %w", dir, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return errors.New("state folder " + dir + ": not a folder")
	}
	return nil
}

// runtimeContext tells skills what the robot feels and who it attends to
// (jibo.md §2.2 runtime), from the body's social state, who it knows
// (loop, asked each request: the loop store looks at its file then, so a
// change made with `jibod loop` reaches the next request; nil means
// nobody), and where and when it is.
func runtimeContext(st *character.State, now func() time.Time, loop func() protocol.Loop) func() protocol.RuntimeContext {
	return func() protocol.RuntimeContext {
		snap := st.Snapshot()
		rc := protocol.RuntimeContext{
			Character: protocol.Character{Emotion: protocol.Emotion{Name: snap.Emotion.Name,
				Valence: snap.Emotion.Valence, Confidence: snap.Emotion.Confidence}},
			Location: protocol.Location{ISO: now().Format(time.RFC3339)},
		}
		if loop != nil {
			rc.Loop = loop()
		}
		if p := snap.Person; p != nil && p.LooperID != "" {
			id := p.LooperID
			conf := p.Confidence
			if conf > 1 { // SET_PRESENT_PERSON speaks percent (SetLooperIDNode sends 100)
				conf /= 100
			}
			rc.Perception.Speaker = &id
			rc.Perception.PeoplePresent = []protocol.Person{{ID: id, Type: "PERSON", Confidence: min(max(conf, 0), 1)}}
		}
		return rc
	}
}

// skillDeps is what the built-in skills are given. Each may be left out:
// a skill without what it needs says so when asked.
type skillDeps struct {
	// Now is the robot's clock.
	Now func() time.Time
	// Sched keeps the timer skill's alarms.
	Sched skill.Scheduler
	// Volume is the body's master volume.
	Volume volume.Control
	// Skills lists the installed skills' manifests, for "what can you do"
	// and the fallback's questions.
	Skills func() []*registry.Manifest
	// Guesser finds what the fallback may ask about; nil: it never asks.
	Guesser fallback.Guesser
	// Offline reports the cloud hub out of reach, for the fallback.
	Offline func() bool
	// Log is the skills' logger.
	Log *slog.Logger
}

// builtinSkills builds the skills that ship with the robot, in the order
// they are added to the host.
func builtinSkills(d skillDeps) ([]skill.Skill, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	var timers timer.Timers
	if d.Sched != nil {
		timers = skill.NewTimers(d.Sched, timer.ID, d.Now)
	}
	var out []skill.Skill
	var errs []error
	add := func(s skill.Skill, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		out = append(out, s)
	}
	add(basics.New(basics.Options{Logger: d.Log}))
	add(clock.New(clock.Options{Now: d.Now, Logger: d.Log}))
	add(timer.New(timer.Options{Timers: timers, Now: d.Now, Logger: d.Log}))
	add(chitchat.New(chitchat.Options{Now: d.Now, Logger: d.Log}))
	add(volume.New(volume.Options{Control: d.Volume, Logger: d.Log}))
	add(capabilities.New(capabilities.Options{Skills: d.Skills, Hidden: []string{fallback.ManifestID}, Now: d.Now, Logger: d.Log}))
	add(fallback.New(fallback.Options{Guesser: d.Guesser, Skills: d.Skills, Offline: d.Offline, Now: d.Now, Logger: d.Log}))
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("built-in skills: %w", err)
	}
	return out, nil
}
