package device

import "context"

// Switch is an on/off output, such as the power enable of the motors.
type Switch interface {
	// Set turns the output on or off.
	Set(ctx context.Context, on bool) error
	// On reports whether the output is on.
	On() bool
}

// Button is a momentary input, such as a push button on the body. Buttons
// report "press" and "release" events to their Observer.
type Button interface {
	// Name identifies the button, e.g. "stop".
	Name() string
	// Pressed reports whether the button is held down now.
	Pressed() bool
}
