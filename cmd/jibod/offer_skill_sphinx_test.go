//go:build sphinx

package main

import (
	"context"
	"io/fs"
	"testing/fstest"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// offerSkill is a graph skill behind a manifest, for the spoken tests'
// skills (core/runtime's people test has the full offer skill).
type offerSkill struct {
	manifest *skill.Manifest
	g        *graph.Skill
}

var _ skill.Skill = (*offerSkill)(nil)

const (
	offerUtterance = "do you have something for me"
	notInLoopLine  = "I don't know you yet."
)

func (s *offerSkill) Manifest() *skill.Manifest { return s.manifest }

func (s *offerSkill) Locale() fs.FS {
	return fstest.MapFS{"en-us/offer.intent": {Data: []byte(offerUtterance + "\n")}}
}

func (s *offerSkill) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return s.g.Handle(ctx, req)
}
