package diag

import (
	"context"
	"io"
	"time"

	"github.com/openjibo/jibod/core/bus"
	ovos "github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
	"github.com/openjibo/jibod/motion"
)

// Env is what the shell can see and do on the robot. cmd/jibod fills it
// from the running runtime. A nil member makes the commands that need it
// say the robot does not have it, so a partial Env (in tests, or on a body
// without lights) is fine.
type Env struct {
	// Version is the runtime's version; Board the body's profile name.
	Version, Board string
	// Started is when the runtime started (uptime).
	Started time.Time
	// Bus is the robot's message bus: bus tail, utter, intents, bus stats.
	Bus Bus
	// Logs keeps the runtime's recent log records (log, status).
	Logs *LogBook
	// Skills lists the installed skills; Runs their recent calls;
	// NotLoaded the installed skills left out at start (nil: none).
	Skills    SkillLister
	Runs      RunLister
	NotLoaded func() []SkillProblem
	// Sessions reads the default session; Pipeline is the default
	// session's stage order as configured.
	Sessions SessionReader
	Pipeline []string
	// Motion is the control loop that owns the motors; Motors are the
	// axes by name (for power) and Power their power switch (nil when the
	// body has none); Home is the pose the body homes to.
	Motion Motion
	Motors map[string]Motor
	Power  Switch
	Home   motion.Pose
	// Lights is the LED ring; nil when the body has none.
	Lights Lights
	// Actions runs JCP actions on the body (say).
	Actions ActionRunner
	// Audio is the microphone side; nil when the robot has no audio input.
	Audio Audio
	// BoardCheck checks the body's devices as they run.
	BoardCheck func(ctx context.Context) []DeviceCheck
	// Selftest exercises the runtime's chain, reporting each check as it
	// finishes.
	Selftest func(ctx context.Context, report func(Check)) error
	// Settings are the runtime configuration's keys (config get|set), in
	// addition to the shell's own.
	Settings []Setting
	// Reboot restarts the robot; RebootHow says how, for people ("exit
	// with status 75 for the service manager to restart jibod"). Nil
	// Reboot means the robot cannot be rebooted from the shell.
	Reboot    func(ctx context.Context) error
	RebootHow string
	// Hub is the robot's link to its cloud hub (status, hub); nil means
	// no hub is configured.
	Hub Hub
	// People are the people the robot knows, its loop (people); nil
	// means the robot keeps no loop.
	People People
	// StateDir is the runtime's state folder ("" when state is kept in
	// memory): status reports its free space, audio record writes there.
	StateDir string
	// Installed loads, updates and unloads the skills installed in the
	// state folder while the robot runs (skills sync); nil when the robot
	// keeps no state folder.
	Installed SkillSyncer
}

// Bus is the part of the robot's bus the shell uses; *bus.Bus is one.
type Bus interface {
	Publish(ctx context.Context, m bus.Message) error
	SubscribeAll(patterns []string, h bus.Handler, opts ...bus.SubOption) (*bus.Subscription, error)
	Stats() bus.Stats
}

// SkillLister lists installed skills; *skill.Host is one.
type SkillLister interface {
	Skills() []*registry.Manifest
}

// SkillProblem is an installed skill the robot left out at start.
type SkillProblem struct {
	// ID is its manifest's id; "" when the manifest could not be read.
	ID string `json:"id,omitempty"`
	// Dir is its package's folder.
	Dir string `json:"dir"`
	// Error says why it was left out.
	Error string `json:"error"`
}

// SkillSyncer makes the running skills match the packages installed in
// the state folder: `jibod skills install` and `uninstall` ask the running
// robot to, through `skills sync`.
type SkillSyncer interface {
	// SyncSkills syncs the skills ids (manifest ids), every installed or
	// running one when ids is empty.
	SyncSkills(ctx context.Context, ids []string) (SkillSync, error)
}

// SkillSync is what a skills sync did.
type SkillSync struct {
	// StateDir is the state folder the robot read.
	StateDir string `json:"state_dir"`
	// Changes says what happened to each skill.
	Changes []SkillChange `json:"changes"`
}

// SkillChange is what a skills sync did to one skill.
type SkillChange struct {
	ID string `json:"id"`
	// Change is "loaded", "updated", "unloaded", "unchanged", "not
	// loaded", "not installed" or "purged".
	Change string `json:"change"`
	// Version runs now; Previous ran before.
	Version  string `json:"version,omitempty"`
	Previous string `json:"previous,omitempty"`
	// Error says why a package was not loaded.
	Error string `json:"error,omitempty"`
}

// RunLister lists recent skill calls; *invoke.Log is one.
type RunLister interface {
	List(f invoke.Filter) []invoke.Record
}

// SessionReader reads the default session; *pipeline.Orchestrator is one.
type SessionReader interface {
	DefaultSession() ovos.Session
}

// Motion is the control loop the shell moves the body through, so every
// move keeps the loop's velocity and acceleration limits; a
// *motion.Controller is one.
type Motion interface {
	Limits() [motion.NumAxes]motion.AxisLimits
	Pose() motion.Pose
	MoveTo(p motion.Pose, sel motion.Axes) (*motion.Job, error)
	Halt(reason string)
	Moving() bool
	Recover(ctx context.Context) error
	Fault() error
	Stats() motion.Stats
	Period() time.Duration
}

// Motor is one axis's motor as the shell powers it; a device.Motor is one.
type Motor interface {
	Enabled() bool
	Enable(ctx context.Context, on bool) error
}

// Switch is the motors' power switch; a device.Switch is one.
type Switch interface {
	Set(ctx context.Context, on bool) error
	On() bool
}

// Hub is the robot's link to its cloud hub as the shell sees it;
// cmd/jibod builds one from its hub client and remote skills.
type Hub interface {
	// Link is the link's state now.
	Link() HubLink
	// Skills are the remote skills of the hub's catalog the robot holds
	// (the cached catalog's until the hub first answers).
	Skills() []HubSkill
}

// HubLink is the hub link's state (core/hub.LinkState) and how the link
// is configured.
type HubLink struct {
	// Status is up, down, connecting or disabled (core/hub.LinkStatus).
	Status string `json:"status"`
	// Summary is the state in one line, error and retry included
	// (core/hub.LinkState.String): what status shows.
	Summary string `json:"summary"`
	URL     string `json:"url"`
	// Mode is persistent or per-turn (--hub-link); Encoding the frames'
	// encoding: the one in use when up, the one preferred otherwise.
	Mode     string `json:"mode"`
	Encoding string `json:"encoding"`
	// Since is when the link entered this state.
	Since time.Time `json:"since,omitzero"`
	// Error is why the link is down; Retry when the next attempt is due.
	Error string    `json:"error,omitempty"`
	Retry time.Time `json:"retry,omitzero"`
}

// HubSkill is one remote skill of the hub's catalog.
type HubSkill struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// People are the people the robot knows (Jibo's loop) as the shell sees
// them; cmd/jibod builds one from its core/skill/people store.
type People interface {
	// Members lists the members in the order they were added, with the
	// loop file's problem when it has one (the members are then the last
	// good ones, or none).
	Members() ([]Person, error)
}

// Person is one person the robot knows.
type Person struct {
	ID        string `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name,omitempty"`
	Owner     bool   `json:"owner"`
}

// Lights is the LED ring as the shell drives it, colours by name or as
// #rrggbb; cmd/jibod builds one from the body's LED animator.
type Lights interface {
	// Len is how many pixels the ring has.
	Len() int
	// Colours are the colour names Fill knows.
	Colours() []string
	// Frame is each pixel's colour now, as #rrggbb.
	Frame() []string
	// Fill sets every pixel to colour ("off" darkens the ring) and
	// returns the colour as #rrggbb; an unknown colour is an error naming
	// the colours known.
	Fill(ctx context.Context, colour string) (string, error)
	// Test shows each of colours on the whole ring for step, then a
	// rainbow for two steps, and returns when it is over.
	Test(ctx context.Context, colours []string, step time.Duration) error
}

// ActionRunner runs a JCP action; *jcp.Executor is one.
type ActionRunner interface {
	Run(ctx context.Context, a *jcp.Action) (*jcp.Result, error)
}

// Audio is the robot's audio input as the shell sees it.
type Audio interface {
	// Devices lists the capture devices.
	Devices(ctx context.Context) ([]AudioDevice, error)
	// Level measures the input for d.
	Level(ctx context.Context, d time.Duration) (AudioLevel, error)
	// Record writes d of the input to w as a WAV file and returns how many
	// samples it wrote and at what rate.
	Record(ctx context.Context, d time.Duration, w io.Writer) (samples, rate int, err error)
}

// AudioDevice is one capture device.
type AudioDevice struct {
	Backend    string `json:"backend"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	Default    bool   `json:"default"`
	InUse      bool   `json:"in_use"`
	Channels   int    `json:"channels,omitempty"`
	SampleRate int    `json:"sample_rate,omitempty"`
}

// AudioLevel is the input's loudness over a span, in dB relative to full
// scale (0 is the loudest a sample can be; silence is very negative).
type AudioLevel struct {
	RMS    float64       `json:"rms_dbfs"`
	Peak   float64       `json:"peak_dbfs"`
	Over   time.Duration `json:"-"`
	Source string        `json:"source"`
}

// DeviceCheck is whether one device of the body answered.
type DeviceCheck struct {
	Device string `json:"device"`
	Driver string `json:"driver"`
	Where  string `json:"where,omitempty"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Check is one self-test step's outcome.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Setting is one key of the runtime configuration. Check validates a
// value and returns what Apply takes, so a `config set` of several keys
// checks them all before applying any.
type Setting struct {
	Key   string
	Help  string
	Get   func() string
	Check func(value string) (any, error)
	Apply func(v any) error
}
