// Package jcp implements the Jibo Command Protocol as cloud skills speak it:
// the JCP action envelope and its behaviours (spec/jibo.md §3.1), a strict
// parser and validator, canonical JSON encoding, a small ESML parser (§3.5),
// and an Executor that runs actions on the body through interfaces defined
// here (Voice, Lights, Listener, State, Motion, Screen, Sounds).
//
// An action is parsed and validated once: ParseChecked (or Check, for one
// built in Go) returns a Checked that keeps what validation parsed (ESML,
// views, inline animations), and Executor.RunChecked runs it without
// parsing or validating again.
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
// and, from the wider RCP v2 vocabulary (§3.3):
//
//	LOOKAT            {"id","type":"LOOKAT","target":{"position":{x,y,z}} | {"angleVector":{x,y}} |
//	                   {"cameraTarget":{x,y}} | {"entityId","track"?},"options"?:{"type","dofs"}}
//	PLAY_ANIMATION    {"id","type":"PLAY_ANIMATION","animation":{"url"} | {"data"} | {"query"} | {"categories"},
//	                   "options"?:{"dofs","speed","loops"}}
//
// Every behaviour may carry "meta", kept as raw JSON. PLAY, LISTEN and
// DISPLAY appear only inside a SLIM's config.
//
// The executor arbitrates the robot's singleton resources (TTS, MOTION,
// LISTEN and the display layers DISPLAY0..4): within a run behaviours take
// turns; across runs a newer run waits (or, with ExecutorConfig.Preempt,
// takes over and the older holder is cancelled and told). A PLAY's ESML
// becomes a timeline: speech is cut where tags stand and animation and
// sound tags fire there (see play.go). Motion runs through package
// motion, which keeps every trajectory within the axes' limits; a
// cancelled run halts the body, which decelerates to rest.
package jcp
