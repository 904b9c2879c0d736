package mim_test

import (
	"fmt"
	"time"

	"github.com/openjibo/jibod/core/skill/mim"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// A question MIM becomes a SLIM that speaks one of its prompts, resolved
// against prompt data, and listens with the MIM's rule.
func Example() {
	m, err := mim.Parse([]byte(`{
		"mim_type": "question",
		"rule_name": "timer/duration",
		"es_auto_tagging": true,
		"prompts": [
			{"prompt_category": "Entry-Core", "prompt_sub_category": "Q", "condition": "speaker",
			 "prompt": "${speaker}, for how long?", "prompt_id": "HowLong_QN_01"},
			{"prompt_category": "Entry-Core", "prompt_sub_category": "Q", "condition": "!speaker",
			 "prompt": "For how long?", "prompt_id": "HowLong_QN_02"}
		]}`), "HowLong.mim")
	if err != nil {
		fmt.Println(err)
		return
	}
	ann := "u-ann"
	rt := protocol.RuntimeContext{
		Loop:       protocol.Loop{Users: []protocol.LooperInfo{{FirstName: "Ann", ID: ann}}},
		Perception: protocol.Perception{Speaker: &ann},
	}
	var s mim.Slimmer
	sel, err := s.Slim(m, mim.Entry(m), mim.NewPromptData(rt, time.Now(), nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel.SLIM.Play.ESML)
	fmt.Println(sel.SLIM.Listen.Contexts)
	fmt.Println(string(sel.SLIM.Play.Meta))
	// Output:
	// Ann, for how long?
	// [timer/duration]
	// {"prompt_id":"HowLong_QN_01","prompt_sub_category":"Q","mim_id":"HowLong","mim_type":"question"}
}

// Load errors name the file, the prompt, the member and, for expressions,
// the column.
func ExampleParse_error() {
	_, err := mim.Parse([]byte(`{"mim_type": "announcement", "prompts": [
		{"prompt_category": "Entry-Core", "prompt_sub_category": "AN", "condition": "jibo.emotion === ", "prompt": "Hi."}]}`), "Hi.mim")
	fmt.Println(err)
	// Output:
	// Hi.mim: prompts[0].condition: column 18: unexpected end of expression
}
