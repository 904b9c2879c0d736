// Package diag is the diagnostics shell field technicians use over the
// robot's serial console, standard input/output or a local Unix socket.
//
// It has three parts:
//
//   - a line editor (core/lineedit, shared with the robot's console) that
//     works on a dumb terminal at 115200 baud: it echoes, edits with
//     backspace only (\b), keeps a history the arrow keys browse when the
//     terminal sends them, completes commands with Tab, bounds line length,
//     and ignores binary garbage. It needs no terminal capabilities beyond a
//     backspace that moves the cursor left;
//   - sessions (session.go, server.go): each connection is one session
//     with its own goroutines. A running command is aborted with Ctrl-C,
//     Ctrl-D on an empty line leaves, and a session that fails, panics or
//     loses its link ends alone, never the robot;
//   - commands (commands.go and cmd_*.go) that read and drive the robot
//     through the small interfaces of Env. Each prints plain text, or JSON
//     with --json, and has help. Commands that move the body, change
//     configuration or reboot need technician mode, unlocked with the
//     robot's PIN (access.go, pin.go); every privileged command is logged.
//
// Transports: ServeSerial (a serial device in raw mode through termios,
// reopened when it goes away), OpenStdio (standard input and output) and
// ServeUnix (a local socket that `jibod shell` attaches to, see Attach).
package diag
