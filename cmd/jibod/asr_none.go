//go:build !sphinx

package main

import (
	"context"
	"io"

	"github.com/openjibo/jibod/core/runtime/hearing"
)

// cmdAudioAdapt needs the sphinx build, whose recogniser would use the
// adapted model.
func cmdAudioAdapt(context.Context, []string, io.Writer, io.Writer) error {
	return hearing.ErrNoASR
}
