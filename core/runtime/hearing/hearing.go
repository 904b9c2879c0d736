// Package hearing builds the robot's speech recogniser from a running
// runtime (its intent engines, the host's answer rules, the people it
// knows) and the typed speech settings (config.Sphinx). The sphinx build
// (-tags sphinx) builds pocketsphinx; other builds say they cannot hear.
package hearing

import (
	"errors"
	"log/slog"

	"github.com/openjibo/jibod/audio/grammar"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/runtime/config"
)

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

// GrammarIntents lists the stack's template and keyword intents as the
// speech grammar reads them.
func GrammarIntents(s *intent.Stack) []grammar.Intent {
	intents := grammar.FromTemplates(s.Templates.Registrations(""))
	return append(intents, grammar.FromKeywords(s.Keywords.Registrations(""))...)
}
