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

// The MIMs a remote request is answered with while the hub cannot be
// reached: every prompt says "I can't reach the cloud right now".
const (
	// OfflineMIM answers a launch: the request is simply over.
	OfflineMIM = "CloudUnreachable"
	// OfflineAnswerMIM answers the answer to a cloud skill's question:
	// the skill keeps its session, and the answer said again once the hub
	// is back reaches it (the remote fallback names it in CONTEXT), so
	// the prompts ask for a retry.
	OfflineAnswerMIM = "CloudUnreachableAnswer"
)

// offline speaks the offline MIMs.
type offline struct {
	launch, answer *mim.MIM
	slimmer        *mim.Slimmer
}

func newOffline(s *mim.Slimmer) (*offline, error) {
	launch, err := mim.Load(mims, "mims/cloud_unreachable.mim")
	if err != nil {
		return nil, fmt.Errorf("loading the offline MIM: %w", err)
	}
	answer, err := mim.Load(mims, "mims/cloud_unreachable_answer.mim")
	if err != nil {
		return nil, fmt.Errorf("loading the offline answer MIM: %w", err)
	}
	if s == nil {
		s = &mim.Slimmer{}
	}
	return &offline{launch: launch, answer: answer, slimmer: s}, nil
}

// action is a JCP action speaking one of the offline prompts: those of
// OfflineAnswerMIM for an answer turn, of OfflineMIM otherwise.
func (o *offline) action(answerTurn bool, rt protocol.RuntimeContext, now time.Time) (json.RawMessage, error) {
	m := o.launch
	if answerTurn {
		m = o.answer
	}
	sel, err := o.slimmer.Slim(m, mim.Entry(m), mim.NewPromptData(rt, now, nil))
	if err != nil {
		return nil, fmt.Errorf("offline MIM %s: %w", m.ID, err)
	}
	return skill.ActionJSON(jcp.NewAction(sel.SLIM))
}
