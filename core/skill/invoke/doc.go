// Package invoke calls skills for the skill host and keeps a record of
// every call.
//
// An Invoker makes one call of a skill (a Handler, for a
// registry.Manifest) with the manifest's timeout, contains a panic (the
// error names the skill; the stack goes to the log only), takes the answer
// checked (a CheckedHandler's protocol.CheckedResponse, validated once
// where it was made; Checking validates a plain Handler's), parses the
// SKILL_ACTION's JCP action with jcp.ParseChecked and checks it with the
// registry.Gate (the one parse of the action on its way to the body), and
// retries only what the
// manifest declares idempotent, only after a transient failure (a timeout
// or a handler error), with bounded attempts and backoff that honours the
// context. A handler that ignores its context cannot hold the robot: at
// its deadline the call is abandoned and the caller goes on.
//
// Every call yields one Record {time, skill, intent, request id and
// transaction id, request and response types, outcome, attempts, duration,
// error}, given to a Recorder: Log keeps the newest in memory, FileLog
// appends them to a JSON-lines file bounded by compaction that another
// process (jibod skills runs) reads with ReadFile while jibod runs.
package invoke
