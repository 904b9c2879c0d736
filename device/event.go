package device

import "time"

// Event is one thing a device did, as reported to an [Observer].
type Event struct {
	// Time is when the device acted.
	Time time.Time
	// Device names the device, e.g. "speaker", "led" or "motor.topSection_r".
	Device string
	// Kind says what happened, e.g. "say", "set" or "move".
	Kind string
	// Values carries the details; keys depend on Device and Kind.
	Values map[string]any
}

// Observer receives device events. Devices call it synchronously while they
// hold their own lock, so that events arrive in the order the device's state
// changed: an Observer must return quickly and must not call back into the
// device that reported the event.
type Observer func(Event)
