package registry

import (
	"fmt"
	"slices"
	"strings"
)

// Permission is something a skill may make the robot do. The set is closed:
// it is what the body and the runtime can do on a skill's behalf, and each
// one is enforced somewhere (Gate for what an action does, the invoker for
// proactive launches, the scheduler for timers, the Wasm host API for
// storage and network).
type Permission string

// The permissions.
const (
	// PermSpeech lets a skill speak: a PLAY whose ESML has words.
	PermSpeech Permission = "speech"
	// PermSound lets a skill play sounds: ESML <sfx>, <ssa> and <audio>.
	PermSound Permission = "sound"
	// PermMotion lets a skill move the motors: LOOKAT, PLAY_ANIMATION and
	// ESML <anim>/<es> of an animation that moves an axis (or one the gate
	// cannot resolve).
	PermMotion Permission = "motion"
	// PermLED lets a skill drive the light ring: an animation with a light
	// track. (The ring's own cues, such as the speaking colour, are the
	// runtime's and need no permission.)
	PermLED Permission = "led"
	// PermDisplay lets a skill use the screen: DISPLAY, and LOOKAT or
	// PLAY_ANIMATION restricted to the eye (dofs EYE).
	PermDisplay Permission = "display"
	// PermListen lets a skill ask a question: LISTEN, which opens the
	// microphone for the next turn and makes the skill its handler.
	PermListen Permission = "listen"
	// PermPerson lets a skill say who the robot is talking to:
	// SET_PRESENT_PERSON.
	PermPerson Permission = "person"
	// PermEmotion lets a skill change the robot's emotion: IMPACT_EMOTION.
	PermEmotion Permission = "emotion"
	// PermProactive lets a skill be launched without being asked
	// (PROACTIVE_LAUNCH), e.g. a timer's alarm or a greeting.
	PermProactive Permission = "proactive"
	// PermTimers lets a skill schedule something to happen later.
	PermTimers Permission = "timers"
	// PermStorage lets a skill keep data on the robot: the key-value
	// storage of the Wasm host API, scoped to the skill and bounded by
	// quotas.
	PermStorage Permission = "storage"
	// PermNetwork lets a skill fetch over HTTP from the hosts its manifest
	// lists in network_hosts (the Wasm host API), while the robot is
	// online.
	PermNetwork Permission = "network"
)

// permissionInfo lists the permissions in documentation order with what
// each grants.
var permissionInfo = []struct {
	p    Permission
	what string
}{
	{PermSpeech, "speak (PLAY with words)"},
	{PermSound, "play sounds (ESML sfx, ssa, audio)"},
	{PermMotion, "move the motors (LOOKAT, PLAY_ANIMATION, ESML anim/es)"},
	{PermLED, "drive the light ring (animations with a light track)"},
	{PermDisplay, "use the screen (DISPLAY, eye-only motion)"},
	{PermListen, "ask a question and hear the answer (LISTEN)"},
	{PermPerson, "set who the robot is talking to (SET_PRESENT_PERSON)"},
	{PermEmotion, "change the robot's emotion (IMPACT_EMOTION)"},
	{PermProactive, "start without being asked (PROACTIVE_LAUNCH)"},
	{PermTimers, "schedule something for later"},
	{PermStorage, "keep data on the robot (key-value storage, with quotas)"},
	{PermNetwork, "fetch over HTTP from the hosts listed in network_hosts"},
}

// AllPermissions returns every permission in documentation order.
func AllPermissions() []Permission {
	out := make([]Permission, len(permissionInfo))
	for i, pi := range permissionInfo {
		out[i] = pi.p
	}
	return out
}

// Valid reports whether p is one of the permissions.
func (p Permission) Valid() bool {
	for _, pi := range permissionInfo {
		if pi.p == p {
			return true
		}
	}
	return false
}

// Describe says what p grants, or "" for an unknown permission.
func (p Permission) Describe() string {
	for _, pi := range permissionInfo {
		if pi.p == p {
			return pi.what
		}
	}
	return ""
}

func permissionList() string {
	names := make([]string, len(permissionInfo))
	for i, pi := range permissionInfo {
		names[i] = string(pi.p)
	}
	return strings.Join(names, ", ")
}

// SafetyLevel says how much harm a skill's effects could do, so an owner
// (and the robot) can decide how far to trust it. The set is closed and
// ordered; a manifest may declare a higher level than its permissions and
// side effects imply, never a lower one.
type SafetyLevel string

// The safety levels, least to most.
const (
	// SafetyLow: the skill's effects end with its action and stay in the
	// robot's voice, screen, lights and speaker.
	SafetyLow SafetyLevel = "low"
	// SafetyModerate: the skill moves the body in the room, or acts later
	// or on its own (permissions motion, proactive, timers; side effects in
	// the timer domain).
	SafetyModerate SafetyLevel = "moderate"
	// SafetyHigh: the skill has effects outside the robot (side effects in
	// the network, home or message domains). A host may want the owner's
	// confirmation before running such skills.
	SafetyHigh SafetyLevel = "high"
)

func (s SafetyLevel) rank() int {
	switch s {
	case SafetyLow:
		return 1
	case SafetyModerate:
		return 2
	case SafetyHigh:
		return 3
	}
	return 0
}

// Valid reports whether s is one of the safety levels.
func (s SafetyLevel) Valid() bool { return s.rank() > 0 }

// AtLeast reports whether s is o or higher.
func (s SafetyLevel) AtLeast(o SafetyLevel) bool { return s.rank() >= o.rank() }

// SideEffectDomain is a domain of side-effect tags. Tags are
// "<domain>.<effect>": the domain is one of a closed set, the effect
// [a-z0-9][a-z0-9-]* (at most MaxTagEffectLen bytes), e.g.
// "timer.schedule", "device.volume", "home.lights".
type SideEffectDomain struct {
	// Name is the domain, the part of a tag before the '.'.
	Name string
	// Level is the safety level a tag of this domain implies.
	Level SafetyLevel
	// Meaning says what a skill with such a tag does.
	Meaning string
}

var sideEffectDomains = []SideEffectDomain{
	{"device", SafetyLow, "changes the robot's own settings (volume, brightness)"},
	{"storage", SafetyLow, "keeps data on the robot"},
	{"timer", SafetyModerate, "makes something happen later"},
	{"network", SafetyHigh, "talks to services off the robot"},
	{"home", SafetyHigh, "operates devices in the home"},
	{"message", SafetyHigh, "sends messages to people"},
}

// MaxTagEffectLen bounds the effect part of a side-effect tag.
const MaxTagEffectLen = 32

// SideEffectDomains returns the side-effect tag domains.
func SideEffectDomains() []SideEffectDomain { return slices.Clone(sideEffectDomains) }

// tagLevel checks a side-effect tag and returns the safety level it
// implies.
func tagLevel(tag string) (SafetyLevel, error) {
	domain, effect, ok := strings.Cut(tag, ".")
	if !ok {
		return "", fmt.Errorf("%q is not <domain>.<effect>", tag)
	}
	var level SafetyLevel
	for _, d := range sideEffectDomains {
		if d.Name == domain {
			level = d.Level
		}
	}
	if level == "" {
		names := make([]string, len(sideEffectDomains))
		for i, d := range sideEffectDomains {
			names[i] = d.Name
		}
		return "", fmt.Errorf("%q: domain %q is not one of %s", tag, domain, strings.Join(names, ", "))
	}
	if len(effect) > MaxTagEffectLen || !isSlug(effect) {
		return "", fmt.Errorf("%q: effect %q is not [a-z0-9][a-z0-9-]* of at most %d bytes", tag, effect, MaxTagEffectLen)
	}
	return level, nil
}

// permissionLevel is the safety level a permission implies.
func permissionLevel(p Permission) SafetyLevel {
	switch p {
	case PermMotion, PermProactive, PermTimers:
		return SafetyModerate
	case PermNetwork: // like the network side-effect domain: effects outside the robot
		return SafetyHigh
	}
	return SafetyLow
}

// isSlug reports whether s is [a-z0-9][a-z0-9-]*.
func isSlug(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0:
		default:
			return false
		}
	}
	return true
}
