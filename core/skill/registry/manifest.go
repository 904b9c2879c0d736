package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/textcheck"
	"github.com/openjibo/jibod/jcp"
)

// Manifest limits and defaults.
const (
	// MaxManifestBytes bounds an encoded manifest.
	MaxManifestBytes = 16 << 10
	// MaxNamespaceLen and MaxNameLen bound the two parts of a skill id.
	MaxNamespaceLen = 32
	MaxNameLen      = 48
	// MaxVersionLen bounds the version string.
	MaxVersionLen = 64
	// MaxDisplayNameLen bounds the name, in characters.
	MaxDisplayNameLen = 64
	// MaxDescriptionLen bounds the description, in characters.
	MaxDescriptionLen = 500
	// MaxSideEffectTags bounds side_effect_tags.
	MaxSideEffectTags = 16
	// MaxIdempotentIntents bounds idempotent_intents.
	MaxIdempotentIntents = 64
	// MaxIntentNameLen bounds an intent name.
	MaxIntentNameLen = 64
	// MaxNetworkHosts bounds network_hosts.
	MaxNetworkHosts = 16
	// MaxNetworkHostLen bounds one network_hosts entry, port included.
	MaxNetworkHostLen = 253 + len(":65535")

	// DefaultTimeout is a skill call's time limit when the manifest gives
	// none: the hub's skill timeout (spec/jibo.md §1.5).
	DefaultTimeout = 10 * time.Second
	// MinTimeout and MaxTimeout bound a manifest's timeout.
	MinTimeout = 100 * time.Millisecond
	MaxTimeout = 60 * time.Second
)

// Limits are a skill's resource limits. A zero member means the default.
type Limits struct {
	// MaxActionBytes bounds one encoded JCP action:
	// MinActionBytes..jcp.MaxActionBytes, default jcp.MaxActionBytes.
	MaxActionBytes int
	// MaxBehaviors bounds the behaviours of one action, counted as jcp
	// counts them (a SLIM's PLAY, LISTEN and DISPLAY included):
	// 1..jcp.MaxBehaviors, default jcp.MaxBehaviors.
	MaxBehaviors int
	// MaxSpeechChars bounds the characters one action speaks, over all its
	// PLAYs (markup excluded): 1..MaxSpeechCharsLimit, default
	// DefaultMaxSpeechChars.
	MaxSpeechChars int
	// CallsPerMinute bounds the calls to the skill in any 60 seconds (the
	// invoker refuses the rest): 1..MaxCallsPerMinute, default
	// DefaultCallsPerMinute.
	CallsPerMinute int
	// MemoryMiB caps a WebAssembly skill's linear memory, in MiB:
	// 1..MaxMemoryMiB. Zero means the Wasm host's default; it stays zero
	// in EffectiveLimits, since a skill built into the robot has no memory
	// of its own to cap.
	MemoryMiB int
}

// Bounds and defaults of Limits.
const (
	MinActionBytes        = 64
	MaxSpeechCharsLimit   = 100_000
	DefaultMaxSpeechChars = 4000
	MaxCallsPerMinute     = 600
	DefaultCallsPerMinute = 120
	// MaxMemoryMiB bounds limits.memory_mib: a 32-bit board has 2 GiB of
	// address space for everything.
	MaxMemoryMiB = 512
)

// Manifest is what a skill declares about itself. In JSON:
//
//	{
//	  "id": "jibo/timer",                 // required: namespace/name
//	  "version": "1.2.0",                 // required: semantic version
//	  "name": "Timer",                    // required: 1..64 characters
//	  "description": "Sets timers …",     // required: 1..500 characters
//	  "permissions": ["speech", "listen", "sound", "proactive", "timers"],
//	  "timeout": "5s",                    // per call; default 10s, 100ms..60s
//	  "limits": {"max_action_bytes": 65536, "max_behaviors": 64,
//	             "max_speech_chars": 2000, "calls_per_minute": 60,
//	             "memory_mib": 32},         // memory_mib: Wasm skills only
//	  "network_hosts": ["api.example.com"], // with the network permission
//	  "safety_level": "moderate",         // required: low | moderate | high
//	  "side_effect_tags": ["timer.schedule"],
//	  "idempotent_intents": ["time_left"] // intents the invoker may retry
//	}
//
// Only the members shown exist; the optional ones may be left out, never
// null.
type Manifest struct {
	// ID is "namespace/name", both parts [a-z0-9][a-z0-9-]*.
	ID string
	// Version is a semantic version (MAJOR.MINOR.PATCH[-pre][+build]).
	Version string
	// Name is what the skill is called, for people.
	Name string
	// Description says what the skill does, for people ("what can you
	// do" reads it).
	Description string
	// Permissions are what the skill may make the robot do.
	Permissions []Permission
	// Timeout bounds one call to the skill; 0 means DefaultTimeout.
	Timeout time.Duration
	// Limits are the skill's resource limits.
	Limits Limits
	// SafetyLevel is how much harm the skill's effects could do; at least
	// what its permissions and side effects imply.
	SafetyLevel SafetyLevel
	// SideEffectTags say what the skill changes beyond the body.
	SideEffectTags []string
	// IdempotentIntents are the intents the skill handles harmlessly more
	// than once, which the invoker may therefore retry.
	IdempotentIntents []string
	// NetworkHosts are the only hosts the skill may fetch from (the
	// network permission): "host" (a lower-case DNS name or an IPv4
	// address) for its default ports, or "host:port" for exactly that
	// port.
	NetworkHosts []string
}

// BusID returns the skill's id on the bus: the id with '/' replaced by '.'
// ("jibo/timer" → "jibo.timer").
func (m *Manifest) BusID() string { return BusID(m.ID) }

// BusID maps a skill id to its bus id ("jibo/timer" → "jibo.timer").
// It does not check id; see ParseID.
func BusID(id string) string { return strings.Replace(id, "/", ".", 1) }

// ParseBusID maps a bus id back to the skill id ("jibo.timer" →
// "jibo/timer") and checks it.
func ParseBusID(busID string) (string, error) {
	ns, name, ok := strings.Cut(busID, ".")
	if !ok {
		return "", fmt.Errorf("bus id %q: want namespace.name: %w", busID, ErrInvalid)
	}
	id := ns + "/" + name
	if err := ParseID(id); err != nil {
		return "", fmt.Errorf("bus id %q: %w", busID, err)
	}
	return id, nil
}

// ParseID checks a skill id: "namespace/name", both parts
// [a-z0-9][a-z0-9-]*, at most MaxNamespaceLen and MaxNameLen bytes.
func ParseID(id string) error {
	ns, name, ok := strings.Cut(id, "/")
	switch {
	case !ok:
		return fmt.Errorf("skill id %q: want namespace/name: %w", id, ErrInvalid)
	case !isSlug(ns) || len(ns) > MaxNamespaceLen:
		return fmt.Errorf("skill id %q: namespace %q is not [a-z0-9][a-z0-9-]* of at most %d bytes: %w",
			id, ns, MaxNamespaceLen, ErrInvalid)
	case !isSlug(name) || len(name) > MaxNameLen:
		return fmt.Errorf("skill id %q: name %q is not [a-z0-9][a-z0-9-]* of at most %d bytes: %w",
			id, name, MaxNameLen, ErrInvalid)
	}
	return nil
}

// canonicalID accepts a skill id or a bus id and returns the skill id.
func canonicalID(id string) (string, error) {
	if strings.Contains(id, "/") {
		return id, ParseID(id)
	}
	return ParseBusID(id)
}

// Allows reports whether the manifest grants p.
func (m *Manifest) Allows(p Permission) bool { return slices.Contains(m.Permissions, p) }

// Idempotent reports whether the skill declares intent idempotent.
func (m *Manifest) Idempotent(intent string) bool {
	return intent != "" && slices.Contains(m.IdempotentIntents, intent)
}

// Clone returns a deep copy of m.
func (m *Manifest) Clone() *Manifest {
	c := *m
	c.Permissions = slices.Clone(m.Permissions)
	c.SideEffectTags = slices.Clone(m.SideEffectTags)
	c.IdempotentIntents = slices.Clone(m.IdempotentIntents)
	c.NetworkHosts = slices.Clone(m.NetworkHosts)
	return &c
}

// Normalized returns a copy of m with the defaults filled in (timeout,
// limits) and the lists sorted, the form the registry stores. It does not
// validate.
func (m *Manifest) Normalized() *Manifest {
	c := m.Clone()
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	c.Limits = c.effectiveLimits()
	slices.Sort(c.Permissions)
	slices.Sort(c.SideEffectTags)
	slices.Sort(c.IdempotentIntents)
	slices.Sort(c.NetworkHosts)
	return c
}

// ImpliedSafetyLevel is the lowest safety level m may declare given its
// permissions and side-effect tags (unknown ones are ignored here;
// Validate reports them).
func (m *Manifest) ImpliedSafetyLevel() SafetyLevel {
	level := SafetyLow
	for _, p := range m.Permissions {
		if l := permissionLevel(p); !level.AtLeast(l) {
			level = l
		}
	}
	for _, t := range m.SideEffectTags {
		if l, err := tagLevel(t); err == nil && !level.AtLeast(l) {
			level = l
		}
	}
	return level
}

// Validate checks every rule of a manifest and returns a *FieldError
// naming the first member that breaks one. Zero Timeout and Limits members
// stand for their defaults and are valid.
func (m *Manifest) Validate() error {
	if m == nil {
		return fieldErr("", "no manifest")
	}
	if m.ID == "" {
		return fieldErr("id", "missing")
	}
	if err := ParseID(m.ID); err != nil {
		return fieldErr("id", "%s", strings.TrimSuffix(err.Error(), ": "+ErrInvalid.Error()))
	}
	if m.Version == "" {
		return fieldErr("version", "missing")
	}
	if err := checkSemver(m.Version); err != nil {
		return fieldErr("version", "%v", err)
	}
	if err := checkText("name", m.Name, MaxDisplayNameLen); err != nil {
		return err
	}
	if err := checkText("description", m.Description, MaxDescriptionLen); err != nil {
		return err
	}
	for i, p := range m.Permissions {
		if !p.Valid() {
			return fieldErr(fmt.Sprintf("permissions[%d]", i), "%q is not a permission (want one of %s)", p, permissionList())
		}
		if j := slices.Index(m.Permissions, p); j < i {
			return fieldErr(fmt.Sprintf("permissions[%d]", i), "%q is listed twice (also at [%d])", p, j)
		}
	}
	if err := m.validateNetworkHosts(); err != nil {
		return err
	}
	if m.Timeout != 0 && (m.Timeout < MinTimeout || m.Timeout > MaxTimeout) {
		return fieldErr("timeout", "%s is outside %s..%s", m.Timeout, MinTimeout, MaxTimeout)
	}
	if err := m.Limits.validate(); err != nil {
		return err
	}
	if len(m.SideEffectTags) > MaxSideEffectTags {
		return fieldErr("side_effect_tags", "%d tags, limit %d", len(m.SideEffectTags), MaxSideEffectTags)
	}
	for i, t := range m.SideEffectTags {
		if _, err := tagLevel(t); err != nil {
			return fieldErr(fmt.Sprintf("side_effect_tags[%d]", i), "%v", err)
		}
		if j := slices.Index(m.SideEffectTags, t); j < i {
			return fieldErr(fmt.Sprintf("side_effect_tags[%d]", i), "%q is listed twice (also at [%d])", t, j)
		}
	}
	if m.SafetyLevel == "" {
		return fieldErr("safety_level", "missing")
	}
	if !m.SafetyLevel.Valid() {
		return fieldErr("safety_level", "%q is not one of %s, %s, %s", m.SafetyLevel, SafetyLow, SafetyModerate, SafetyHigh)
	}
	if implied := m.ImpliedSafetyLevel(); !m.SafetyLevel.AtLeast(implied) {
		return fieldErr("safety_level", "%q is below %q, which the permissions and side effects imply", m.SafetyLevel, implied)
	}
	if len(m.IdempotentIntents) > MaxIdempotentIntents {
		return fieldErr("idempotent_intents", "%d intents, limit %d", len(m.IdempotentIntents), MaxIdempotentIntents)
	}
	for i, in := range m.IdempotentIntents {
		path := fmt.Sprintf("idempotent_intents[%d]", i)
		if !validIntentName(in) {
			return fieldErr(path, "%q is not an intent name ([A-Za-z0-9][A-Za-z0-9_.-]*, at most %d bytes)", in, MaxIntentNameLen)
		}
		if j := slices.Index(m.IdempotentIntents, in); j < i {
			return fieldErr(path, "%q is listed twice (also at [%d])", in, j)
		}
	}
	return nil
}

func (l Limits) validate() error {
	for _, c := range []struct {
		name      string
		v, lo, hi int
	}{
		{"max_action_bytes", l.MaxActionBytes, MinActionBytes, jcp.MaxActionBytes},
		{"max_behaviors", l.MaxBehaviors, 1, jcp.MaxBehaviors},
		{"max_speech_chars", l.MaxSpeechChars, 1, MaxSpeechCharsLimit},
		{"calls_per_minute", l.CallsPerMinute, 1, MaxCallsPerMinute},
		{"memory_mib", l.MemoryMiB, 1, MaxMemoryMiB},
	} {
		if c.v != 0 && (c.v < c.lo || c.v > c.hi) {
			return fieldErr("limits."+c.name, "%d is outside %d..%d", c.v, c.lo, c.hi)
		}
	}
	return nil
}

// checkText checks a required one-line human text of at most max
// characters.
func checkText(path, s string, max int) error {
	switch {
	case s == "":
		return fieldErr(path, "missing")
	case !utf8.ValidString(s):
		return fieldErr(path, "is not valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		return fieldErr(path, "is %d characters, limit %d", utf8.RuneCountInString(s), max)
	case strings.TrimSpace(s) != s:
		return fieldErr(path, "has leading or trailing white space")
	}
	// Names are shown and spoken: bidi overrides and the like read
	// differently from how they look (textcheck); TAB is refused too.
	if err := textcheck.Line(s); err != nil {
		return fieldErr(path, "%v", err)
	}
	for i, r := range s {
		if unicode.IsControl(r) {
			return fieldErr(path, "control character %U at byte %d", r, i)
		}
	}
	return nil
}

// validIntentName reports whether s can be the intent part of a dispatch
// topic: [A-Za-z0-9][A-Za-z0-9_.-]*, no "..", not ending in '.'.
func validIntentName(s string) bool {
	if s == "" || len(s) > MaxIntentNameLen || strings.Contains(s, "..") || strings.HasSuffix(s, ".") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '_' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// checkSemver checks a semantic version: MAJOR.MINOR.PATCH, each a
// number without leading zeros, then optionally -pre-release and +build,
// dot-separated identifiers of [0-9A-Za-z-] (numeric pre-release
// identifiers without leading zeros).
func checkSemver(v string) error {
	if len(v) > MaxVersionLen {
		return fmt.Errorf("is %d bytes, limit %d", len(v), MaxVersionLen)
	}
	core, build, hasBuild := strings.Cut(v, "+")
	core, pre, hasPre := strings.Cut(core, "-")
	nums := strings.Split(core, ".")
	if len(nums) != 3 {
		return fmt.Errorf("%q is not a semantic version MAJOR.MINOR.PATCH", v)
	}
	for i, n := range nums {
		part := [...]string{"major", "minor", "patch"}[i]
		if n == "" || strings.Trim(n, "0123456789") != "" {
			return fmt.Errorf("%q: %s %q is not a number", v, part, n)
		}
		if len(n) > 1 && n[0] == '0' {
			return fmt.Errorf("%q: %s %q has a leading zero", v, part, n)
		}
	}
	check := func(what, s string, numeric bool) error {
		for _, id := range strings.Split(s, ".") {
			if id == "" || strings.Trim(id, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") != "" {
				return fmt.Errorf("%q: %s identifier %q is not [0-9A-Za-z-]+", v, what, id)
			}
			if numeric && len(id) > 1 && id[0] == '0' && strings.Trim(id, "0123456789") == "" {
				return fmt.Errorf("%q: %s identifier %q has a leading zero", v, what, id)
			}
		}
		return nil
	}
	if hasPre {
		if err := check("pre-release", pre, true); err != nil {
			return err
		}
	}
	if hasBuild {
		if err := check("build", build, false); err != nil {
			return err
		}
	}
	return nil
}

// ParseManifest decodes a manifest strictly, fills in the defaults and
// validates it. Errors are *FieldError values (errors.Is ErrInvalid)
// naming the member; nothing is returned with an error.
func ParseManifest(data []byte) (*Manifest, error) {
	if len(data) > MaxManifestBytes {
		return nil, fieldErr("", "%d bytes, limit %d", len(data), MaxManifestBytes)
	}
	root, err := readObject(data, "")
	if err != nil {
		return nil, err
	}
	if err := root.allow("id", "version", "name", "description", "permissions", "timeout", "limits",
		"safety_level", "side_effect_tags", "idempotent_intents", "network_hosts"); err != nil {
		return nil, err
	}
	m := &Manifest{}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"id", &m.ID}, {"version", &m.Version}, {"name", &m.Name}, {"description", &m.Description}} {
		if *f.dst, err = root.str(f.name); err != nil {
			return nil, err
		}
	}
	perms, err := root.strs("permissions")
	if err != nil {
		return nil, err
	}
	for _, p := range perms {
		m.Permissions = append(m.Permissions, Permission(p))
	}
	if s, err := root.str("timeout"); err != nil {
		return nil, err
	} else if s != "" {
		d, perr := time.ParseDuration(s)
		if perr != nil {
			return nil, fieldErr("timeout", "%q is not a duration such as \"5s\" or \"1500ms\"", s)
		}
		if d == 0 {
			return nil, fieldErr("timeout", "%q is zero; leave timeout out for the default", s)
		}
		m.Timeout = d
	}
	if raw, ok := root.m["limits"]; ok {
		lim, err := readObject(raw, "limits")
		if err != nil {
			return nil, err
		}
		if err := lim.allow("max_action_bytes", "max_behaviors", "max_speech_chars", "calls_per_minute", "memory_mib"); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			name string
			dst  *int
		}{
			{"max_action_bytes", &m.Limits.MaxActionBytes}, {"max_behaviors", &m.Limits.MaxBehaviors},
			{"max_speech_chars", &m.Limits.MaxSpeechChars}, {"calls_per_minute", &m.Limits.CallsPerMinute},
			{"memory_mib", &m.Limits.MemoryMiB},
		} {
			if *f.dst, err = lim.positive(f.name); err != nil {
				return nil, err
			}
		}
	}
	level, err := root.str("safety_level")
	if err != nil {
		return nil, err
	}
	m.SafetyLevel = SafetyLevel(level)
	if m.SideEffectTags, err = root.strs("side_effect_tags"); err != nil {
		return nil, err
	}
	if m.IdempotentIntents, err = root.strs("idempotent_intents"); err != nil {
		return nil, err
	}
	if m.NetworkHosts, err = root.strs("network_hosts"); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m.Normalized(), nil
}

// MarshalJSON writes the manifest in the form ParseManifest reads, every
// member present, timeout as a duration string.
func (m *Manifest) MarshalJSON() ([]byte, error) {
	type limits struct {
		MaxActionBytes int `json:"max_action_bytes,omitempty"`
		MaxBehaviors   int `json:"max_behaviors,omitempty"`
		MaxSpeechChars int `json:"max_speech_chars,omitempty"`
		CallsPerMinute int `json:"calls_per_minute,omitempty"`
		MemoryMiB      int `json:"memory_mib,omitempty"`
	}
	w := struct {
		ID                string       `json:"id"`
		Version           string       `json:"version"`
		Name              string       `json:"name"`
		Description       string       `json:"description"`
		Permissions       []Permission `json:"permissions"`
		Timeout           string       `json:"timeout,omitempty"`
		Limits            limits       `json:"limits"`
		SafetyLevel       SafetyLevel  `json:"safety_level"`
		SideEffectTags    []string     `json:"side_effect_tags"`
		IdempotentIntents []string     `json:"idempotent_intents"`
		NetworkHosts      []string     `json:"network_hosts,omitempty"`
	}{
		ID: m.ID, Version: m.Version, Name: m.Name, Description: m.Description,
		Permissions: orEmpty(m.Permissions),
		Limits:      limits(m.Limits), SafetyLevel: m.SafetyLevel,
		SideEffectTags: orEmpty(m.SideEffectTags), IdempotentIntents: orEmpty(m.IdempotentIntents),
		NetworkHosts: m.NetworkHosts,
	}
	if m.Timeout != 0 {
		w.Timeout = m.Timeout.String()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, fmt.Errorf("encoding manifest %s: %w", m.ID, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads a manifest with ParseManifest.
func (m *Manifest) UnmarshalJSON(data []byte) error {
	p, err := ParseManifest(data)
	if err != nil {
		return err
	}
	*m = *p
	return nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
