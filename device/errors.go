package device

import "errors"

// ErrClosed is returned by a device that has been closed.
var ErrClosed = errors.New("device closed")

// ErrDisabled is returned when a disabled motor is asked to move.
var ErrDisabled = errors.New("motor disabled")
