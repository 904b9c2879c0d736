//go:build !sphinx

package main

import (
	"context"
	"github.com/openjibo/jibod/core/runtime/hearing"
	"io"
)

// cmdAudioAdapt needs the sphinx build, whose recogniser would use the
// adapted model.
func cmdAudioAdapt(context.Context, []string, io.Writer, io.Writer) error {
	return hearing.ErrNoASR
}
