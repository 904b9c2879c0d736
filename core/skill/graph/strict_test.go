package graph_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/internal/strictjson"
)

// Session data naming a member twice is refused (issue 22 item 9): the
// skill would read one value and another reader the other.
func TestSessionDataReadStrictly(t *testing.T) {
	id := "t/s"
	req := &protocol.Request{Data: &protocol.RequestData{Skill: protocol.SkillData{ID: &id,
		Session: &protocol.Session{ID: "s1", Data: json.RawMessage(`{"count":1,"count":2}`)}}}}
	_, err := graph.NewData(req, id, nil)
	assert.ErrorIs(t, err, graph.ErrSessionData)
	assert.ErrorIs(t, err, strictjson.ErrDuplicate)
}
