package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/runtime/config"
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
	var h config.Hub
	addHubFlags(fs, &h, false)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	cfg, err := hubConfig(h)
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
	return hub.CheckStatus(ctx, c).Write(stdout, *asJSON)
}
