// Package hearing is the robot's ear and voice wiring: it opens the
// voice and its recording (Speech), builds the speech recogniser from the
// parts of a running robot (its intent engines, the host's answer rules,
// the people it knows) and the typed speech settings (config.Sphinx), and
// runs the listener on the robot's bus. The sphinx build (-tags sphinx)
// builds pocketsphinx; other builds say they cannot hear. core/runtime
// starts and stops it; it takes only the parts it needs, never the
// runtime itself.
package hearing

import (
	"errors"
	"log/slog"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/people"
	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/jcp"
)

// Parts are what hearing needs of the running robot.
type Parts struct {
	// Bus carries what the listener hears and what it follows.
	Bus *bus.Bus
	// Intents are the intent engines the recogniser's grammar is built
	// from.
	Intents *intent.Stack
	// AnswerRules lists the answer rules of the skills' questions, for
	// the answer grammar; nil for none.
	AnswerRules func() []intent.TemplateIntent
	// People are the people the robot knows; their names are in the
	// grammar. Nil for none.
	People *people.Store
	// StateDir is the state folder ("" for none), where an adapted
	// acoustic model may be.
	StateDir string
	// Buttons are the board's buttons, some of which may wake the robot.
	Buttons []device.Button
	// Exec runs the listener's own lines (asking again) on the body; nil
	// for none.
	Exec *jcp.Executor
	// Session returns the robot's own session as it stands between
	// utterances (the orchestrator's), where the skills' follow-up
	// contexts live: the recogniser's claims on a transcript are made in
	// it, so a follow-up is claimed only while the orchestrator would
	// dispatch it (CTX-11). Nil claims in a session without context.
	Session func() session.Session
}

// ErrNoASR is what a build without a speech recogniser says when asked
// to listen.
var ErrNoASR = errors.New("this build has no speech recognition; build with -tags sphinx")

// Options are what the recogniser is built from.
type Options struct {
	Lang string
	Log  *slog.Logger
	// WakeInGrammar puts the wake phrase (and its decoys) in the
	// recogniser's grammar, for finding it there (--wake grammar); else
	// the wake word detector finds it and the recogniser hears only what
	// follows it, so its grammar holds the commands alone.
	WakeInGrammar bool
	// Sphinx are the recogniser's settings (file and environment, see
	// config.Run.ApplyEnv).
	Sphinx config.Sphinx
}
