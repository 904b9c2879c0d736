package main

import (
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
)

// keyInput is the context key the text inputs put on their entries. Every
// lifecycle message derives its context from the entry's, so it comes back
// on all of them and ties a lifecycle to the line that started it.
const keyInput = console.KeyInput

// utterer and newUtterer keep this package's callers (tests on other
// branches among them) unchanged; new code calls console.NewUtterer.
type utterer = console.Utterer

func newUtterer(b *bus.Bus, source string) (*utterer, error) { return console.NewUtterer(b, source) }
