package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/openjibo/jibod/internal/hubserver"
)

// runSkills lists the skills `jibohub serve` would host, one line each:
// id, intents, proactive triggers and answer rules.
func runSkills(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("skills-config", "", "JSON file of skills served over HTTP")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	hub, err := newHub(*config, 0, hubserver.Config{Logger: log})
	if err != nil {
		return err
	}
	for _, s := range hub.Skills() {
		fmt.Fprintf(stdout, "%s\t%s\tintents: %s", s.ID, s.Name, list(s.Intents))
		if len(s.Proactive) > 0 {
			fmt.Fprintf(stdout, "\ttriggers: %s", list(s.Proactive))
		}
		if len(s.Rules) > 0 {
			fmt.Fprintf(stdout, "\trules: %s", list(s.Rules))
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

func list(ss []string) string {
	if len(ss) == 0 {
		return "-"
	}
	return strings.Join(ss, ", ")
}
