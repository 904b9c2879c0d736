package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/jcp/character"
)

// State on disk: the robot keeps skill conversations and timers in a bbolt
// file, the run records of its skills in a JSON-lines file, the owner's
// settings, the intent context of its conversations and the installed
// skills, all in one state folder.
const (
	StateFileName    = "state.db"
	RunsFileName     = "runs.jsonl"
	SettingsFileName = "settings.json"
	// ContextFileName keeps the default session's intent context.
	ContextFileName = "context.json"
	// SkillsDirName, CacheDirName and SkillDataFileName are where the
	// installed WebAssembly skills live in the state folder.
	SkillsDirName     = installed.SkillsDirName
	CacheDirName      = installed.CacheDirName
	SkillDataFileName = installed.DataFileName
	// StateDirEnv overrides the default state folder.
	StateDirEnv = "JIBOD_STATE_DIR"
	// NoState keeps everything in memory: nothing survives a restart.
	NoState = "none"
)

// hasState reports whether dir names a state folder (not memory).
func hasState(dir string) bool { return dir != "" && dir != NoState }

// DefaultStateDir is $JIBOD_STATE_DIR, else $XDG_STATE_HOME/jibod, else
// ~/.local/state/jibod; on the robot the flash tooling sets
// JIBOD_STATE_DIR=/var/lib/jibod.
func DefaultStateDir() string {
	if d := os.Getenv(StateDirEnv); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "jibod")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "jibod")
	}
	return NoState
}

// PrepareStateDir creates the state folder (0700) if it is missing.
func PrepareStateDir(dir string) error {
	if !hasState(dir) {
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

// RuntimeContext tells skills what the robot feels and who it attends to
// (jibo.md §2.2 runtime), from the body's social state, who it knows
// (people, asked each request: the people store looks at its file then,
// so a change made with `jibod people` reaches the next request; nil
// means nobody), and where and when it is.
func RuntimeContext(st *character.State, now func() time.Time, people func() protocol.Loop) func() protocol.RuntimeContext {
	return func() protocol.RuntimeContext {
		snap := st.Snapshot()
		rc := protocol.RuntimeContext{
			Character: protocol.Character{Emotion: protocol.Emotion{Name: snap.Emotion.Name,
				Valence: snap.Emotion.Valence, Confidence: snap.Emotion.Confidence}},
			Location: protocol.Location{ISO: now().Format(time.RFC3339)},
		}
		if people != nil {
			rc.Loop = people()
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
