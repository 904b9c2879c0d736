// Package store keeps skill state on the robot's disk so it survives a
// restart of jibod: the conversations of multi-turn skills (the graph
// session {id, nodeID, data, trace} exactly as on the wire, plus the
// question the skill is waiting on) and the timers that will launch a skill
// proactively later.
//
// # File
//
// One bbolt file, opened by one process: a second jibod on the same file
// fails fast with ErrInUse after Options.LockTimeout. The file is created
// 0600 in a directory created 0700. It holds three buckets: "meta" with the
// schema version (SchemaVersion; a file from a newer jibod is refused with
// ErrSchema, never rewritten), "conversations" keyed by bus session and
// skill id, and "timers" keyed by timer id. Records are JSON, so
// `bbolt get FILE conversations KEY` shows them as they are.
//
// # Crash safety
//
// Every Put and Delete is one bbolt read-write transaction, fsync'd before
// it returns: a record is either wholly on disk or not at all, even when
// the process is killed or the power fails mid-write. Writes happen once
// per skill turn or timer change, never per poll, which spares SD cards
// more than batching would (a turn's session must be durable before the
// robot speaks the question it waits on).
//
// # Validation
//
// Every record is validated when written (ErrInvalid names the field) and
// again when read: a record that does not decode, fails validation, exceeds
// its size limit or sits under a key that does not match its contents is
// reported with its key (a *RecordError wrapping ErrBadRecord) and skipped
// by the listing methods, so one bad record never stops the robot.
// DropUnreadable deletes such records.
//
// A file whose structure is damaged (cut short, overwritten, failing
// bbolt's consistency check) or that is empty is never mapped: Open checks
// it against its own meta pages first, renames it aside (path.damaged-TIME
// or path.empty-TIME) and starts a new file, logging at ERROR (WARN when
// empty) what was kept where and what was lost, so the robot starts rather
// than crash or refuse to. Damage met later fails the call with ErrCorrupt,
// naming the file and what the operator can do. The checks at Open cost two
// reads of the file (its size is bounded by the limits below). See
// docs/state-files.md.
//
// # Limits
//
// Counts, key lengths and record sizes are constants of this package
// (MaxConversations, MaxTimers, MaxConversationBytes, …); a Put beyond a
// count fails with ErrFull, and so does one that would grow the file past
// Options.MaxDBBytes.
package store
