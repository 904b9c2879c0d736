package protocol_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// A skill host decodes a request, classifies the turn and answers with a
// JCP action; the answer echoes the robot's transID.
func Example() {
	req, err := protocol.DecodeRequest([]byte(`{
		"type": "LISTEN_LAUNCH", "msgID": "mid-1", "ts": 1718035200000, "transID": "tid-42",
		"data": {
			"general": {"accountID": "a", "robotID": "Maple-Otter-Lantern-Quiet", "lang": "en-US", "release": "1.9.2"},
			"skill": {"id": "clock"},
			"result": {
				"nlu": {"intent": "askTime", "entities": {}, "rules": ["launch"]},
				"asr": {"text": "what time is it", "confidence": 0.9}
			}
		}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(req.Type, protocol.ClassifyListen(req.Data.Result.NLU, req.Data.Result.ASR), req.Data.Result.NLU.IntentName())

	action := json.RawMessage(`{"type":"JCP","config":{"version":"2.0","jcp":{"type":"SLIM","id":"1","config":{"play":{"esml":"It's <break size='0.2'/> noon."}}}}}`)
	resp := protocol.NewSkillAction(req, req.Data.Skill, action, true, protocol.WithTime(time.UnixMilli(1718035200075)))
	out, err := protocol.EncodeJSON(resp)
	if err != nil {
		fmt.Println(err)
		return
	}
	var env protocol.Envelope
	if err := json.Unmarshal(out, &env); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(env.Type, env.TransID, env.TS)
	fmt.Println(string(env.Data))
	// Output:
	// LISTEN_LAUNCH match askTime
	// SKILL_ACTION tid-42 1718035200075
	// {"skill":{"id":"clock"},"action":{"type":"JCP","config":{"version":"2.0","jcp":{"type":"SLIM","id":"1","config":{"play":{"esml":"It's <break size='0.2'/> noon."}}}}},"final":true,"fireAndForget":false}
}

// Bad input is rejected whole, with the JSON path of the fault.
func ExampleDecodeRequest_error() {
	_, err := protocol.DecodeRequest([]byte(`{"type":"LISTEN_UPDATE","msgID":"m","ts":1,
		"data":{"skill":{"id":"s"},"result":{"nlu":{"intent":null,"entities":null,"rules":["a",7]},"asr":{"text":"","confidence":0}}}}`))
	fmt.Println(err)
	// Output:
	// decode skill request: data.result.nlu.rules[1]: want string
}
