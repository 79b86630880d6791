// Package usage marks the errors that are mistakes in a command line (a
// flag out of range, arguments that do not go together), as opposed to
// errors met running the command: simidx exits with status 2 for them, and
// points to the command's help.
package usage

import "fmt"

// Error is a mistake in a command line.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// Errorf returns an *Error with the message formatted as fmt.Sprintf does.
func Errorf(format string, args ...any) error {
	return &Error{msg: fmt.Sprintf(format, args...)}
}
