// Package hub is the robot's side of the hub link (spec/jibo.md §1, §2,
// §7): a Client that speaks the Jibo hub protocol over websockets to
// /v1/listen and /v1/proactive (JSON frames as real robots send them, or
// the compact CBOR encoding negotiated by subprotocol, core/hub/wire),
// with JWT bearer auth, TLS with an optional extra CA, per-turn
// transactions matched by transID, the §1.5 timeouts, heartbeats, and
// reconnection with jittered backoff.
//
// On top of the link: RemoteSkill is the robot's proxy for one skill of
// the hub's catalog (GET /v1/skills), hosted by the ordinary skill host so
// its SKILL_ACTIONs run on the body like a local skill's; Fallback is the
// "hub-fallback" pipeline stage that hands what nothing local understood
// to the hub as CLIENT_ASR, naming the cloud skill active in the bus
// session (its kept {id, session}) in CONTEXT so the hub can route the
// text to it as an answer (jibo.md §1.3, §1.5); Remote keeps the proxies in step with the
// catalog (cached on disk so remote intents are known when the robot
// starts offline) and runs proactive TRIGGERs. While the hub cannot be
// reached the remote stages report unavailable, local skills carry on,
// and a remote request is answered with a spoken "I can't reach the cloud
// right now" from an embedded MIM instead of silence.
package hub
