package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"

	"github.com/openjibo/jibod/core/hub"
)

const hubUsage = `Usage:
  jibod hub status  --hub URL [--hub-token FILE] [--hub-ca FILE] [--hub-encoding cbor|json] [--json]
      connect once: can the robot reach the hub, which encoding it chose, which skills it serves
  jibod hub catalog --hub URL [--hub-token FILE] [--hub-ca FILE]
      print the hub's skill catalog (GET /v1/skills) as JSON
`

// cmdHub checks the hub link from the command line, one shot.
func cmdHub(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "status" && args[0] != "catalog") {
		fmt.Fprint(stderr, hubUsage)
		return usageError{"want status or catalog"}
	}
	sub := args[0]
	fs := flag.NewFlagSet("hub "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	hf := addHubFlags(fs, false)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	cfg, err := hf.config()
	if err != nil {
		return err
	}
	if cfg.URL == "" {
		fmt.Fprintln(stdout, "hub: none configured (every skill is local)")
		return nil
	}
	c, err := hub.NewClient(hub.Config{URL: cfg.URL, Token: cfg.TokenSource(), CAFile: cfg.CAFile,
		Encoding: cfg.Encoding, Link: hub.PerTurn, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	if sub == "catalog" {
		_, b, err := c.Catalog(ctx)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	type skillLine struct {
		ID      string   `json:"id"`
		Version string   `json:"version"`
		Intents []string `json:"intents"`
	}
	out := struct {
		URL      string      `json:"url"`
		Link     string      `json:"link"`
		Encoding string      `json:"encoding,omitempty"`
		Error    string      `json:"error,omitempty"`
		Skills   []skillLine `json:"skills"`
	}{URL: c.URL(), Link: "up", Skills: []skillLine{}}
	enc, err := c.Probe(ctx)
	if err != nil {
		out.Link, out.Error = "down", err.Error()
	} else {
		out.Encoding = enc.String()
		cat, _, err := c.Catalog(ctx)
		if err != nil {
			out.Error = err.Error()
		} else {
			for _, s := range cat.Skills {
				l := skillLine{ID: s.ID, Version: s.Version, Intents: []string{}}
				for _, in := range s.Config.Intents {
					l.Intents = append(l.Intents, in.Name)
				}
				out.Skills = append(out.Skills, l)
			}
			sort.Slice(out.Skills, func(i, j int) bool { return out.Skills[i].ID < out.Skills[j].ID })
		}
	}
	if *asJSON {
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprintf(stdout, "hub:  %s\nlink: %s", out.URL, out.Link)
		if out.Encoding != "" {
			fmt.Fprintf(stdout, " (%s)", out.Encoding)
		}
		fmt.Fprintln(stdout)
		for _, s := range out.Skills {
			fmt.Fprintf(stdout, "skill %s %s: %v\n", s.ID, s.Version, s.Intents)
		}
	}
	if out.Error != "" {
		return fmt.Errorf("hub %s: %s", out.URL, out.Error)
	}
	return nil
}
