// Package registry governs the robot's skills: what each skill declares
// about itself in its manifest (who it is, what it may make the body do,
// how long it may take, how much it may ask for at once, how risky it is),
// the registry of the skills installed, and the permission gate that
// checks every JCP action a skill returns against its declared
// permissions and limits before any of it runs.
//
// This manifest is the robot's own skill manifest. It is not Jibo's
// ManifestSkillConfig (spec/jibo.md §2.6), which a hub uses to route
// intents to cloud skills; that lives in package protocol.
//
// # Manifests are JSON
//
// A manifest is one JSON object (format in Manifest). JSON and not YAML:
// every other data file of jibod (board profiles, animations, MIMs, JCP
// actions) is JSON, the standard library decodes it, and JSON has one way
// to write each value, so a manifest means the same to every reader (YAML's
// implicit typing turns `no` into false and `1.10` into 1.1). Decoding is
// strict: an unknown member, a duplicate member, a null, a wrongly typed
// value or a value outside its bounds is an error naming the member's path
// ("limits.max_behaviors: …"), and nothing is returned then.
//
// # Skill ids and bus ids
//
// A skill id is "namespace/name", both parts [a-z0-9][a-z0-9-]*. Dispatch
// topics are "<skill_id>:<intent>" and bus topics may not contain '/', so
// on the bus a skill is known by its bus id, the id with '/' replaced by
// '.': "jibo/timer" is "jibo.timer". Neither part may contain '.', so the
// mapping is one to one and ParseBusID reverses it. Every registry method
// that takes an id accepts either form.
//
// # Errors
//
// Errors wrap one of the sentinels ErrInvalid (a bad manifest: also a
// *FieldError naming the member), ErrNotFound, ErrExists, ErrBusy (the
// skill is being removed or replaced) and ErrDenied (the gate refused an
// action: a *DeniedError), so callers test them with errors.Is.
package registry
