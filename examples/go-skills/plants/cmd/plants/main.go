// Command plants runs the example Go skill (package plants) in a process
// of its own, for a stock jibod: `jibod run --local-skill plants`.
package main

import (
	"os"

	"github.com/openjibo/jibod/core/skill/local"
	"github.com/openjibo/jibod/examples/go-skills/plants"
)

func main() {
	os.Exit(local.Main(func() (*local.Skill, error) { return plants.New(local.Options{}) }))
}
