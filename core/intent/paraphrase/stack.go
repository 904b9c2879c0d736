package paraphrase

import (
	"fmt"

	"github.com/openjibo/jibod/core/intent"
)

// NewStack builds the robot's intent stack: intent.NewStack with cfg, and
// a paraphrase tier made with o as a further source, after the sources cfg
// gives. Everything that understands text as the robot does (the robot,
// its tools, the scenario runner, the skills' test rig) builds its stack
// here; the tier is returned for callers that report on it.
func NewStack(cfg intent.StackConfig, o TierOptions) (*intent.Stack, *Tier, error) {
	if o.Logger == nil {
		o.Logger = cfg.Logger
	}
	tier := NewTier(o)
	cfg.Sources = append(append([]intent.Source(nil), cfg.Sources...), tier)
	st, err := intent.NewStack(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("building the intent stack with the paraphrase tier: %w", err)
	}
	return st, tier, nil
}
