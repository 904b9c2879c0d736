package hub

import (
	"embed"
	"encoding/json"
	"fmt"
	"time"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/jcp"
)

//go:embed mims/*.mim
var mims embed.FS

// OfflineMIM is the MIM a remote request is answered with while the hub
// cannot be reached: every prompt says "I can't reach the cloud right now".
const OfflineMIM = "CloudUnreachable"

// offline speaks the offline MIM.
type offline struct {
	m       *mim.MIM
	slimmer *mim.Slimmer
}

func newOffline(s *mim.Slimmer) (*offline, error) {
	m, err := mim.Load(mims, "mims/cloud_unreachable.mim")
	if err != nil {
		return nil, fmt.Errorf("loading the offline MIM: %w", err)
	}
	if s == nil {
		s = &mim.Slimmer{}
	}
	return &offline{m: m, slimmer: s}, nil
}

// action is a JCP action speaking one of the offline prompts.
func (o *offline) action(rt protocol.RuntimeContext, now time.Time) (json.RawMessage, error) {
	sel, err := o.slimmer.Slim(o.m, mim.Entry(o.m), mim.NewPromptData(rt, now, nil))
	if err != nil {
		return nil, fmt.Errorf("offline MIM: %w", err)
	}
	return skill.ActionJSON(jcp.NewAction(sel.SLIM))
}
