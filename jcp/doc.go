// Package jcp implements the Jibo Command Protocol as cloud skills speak it:
// the JCP action envelope and its behaviours (spec/jibo.md §3.1), a strict
// parser and validator, canonical JSON encoding, a small ESML parser (§3.5),
// and an Executor that runs actions on the body through interfaces defined
// here (Voice, Lights, Listener, State).
//
// The package does not know which board it runs on: package board adapts a
// body's devices to these interfaces.
//
// Wire shape, as Jibo's own builders wrote it:
//
//	{"type":"JCP","config":{"version":"2.0","jcp":BEHAVIOUR}}
//
//	SLIM              {"id","type":"SLIM","config":{"play"?,"listen"?,"display"?},"options"?:{"displayMode"}}
//	PLAY              {"id","type":"PLAY","esml","autoRuleConfig"?,"speakOptions"?,"meta"?}
//	LISTEN            {"id","type":"LISTEN","contexts":[...],"intents"?}
//	DISPLAY           {"id","type":"DISPLAY","name"?,"view","layer"?,"visible"?,"keepDisplay"?,"onCancel"?,"overlay"?}
//	SEQUENCE          {"id","type":"SEQUENCE","children":[...]}
//	PARALLEL          {"id","type":"PARALLEL","children":[...],"succeedOnFirst"}
//	SET_PRESENT_PERSON {"id","type":"SET_PRESENT_PERSON","looperId","source","confidence"}
//	IMPACT_EMOTION    {"id","type":"IMPACT_EMOTION","valence"?,"confidence"?}
//
// Every behaviour may carry "meta", kept as raw JSON. PLAY, LISTEN and
// DISPLAY appear only inside a SLIM's config.
package jcp
