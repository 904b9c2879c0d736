package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/openjibo/jibod/core/hub/token"
	"github.com/openjibo/jibod/internal/hubserver"
)

// shutdownTimeout bounds a graceful stop.
const shutdownTimeout = 10 * time.Second

// newHub builds the hub of cfg (its verifier, logger, limits…): the
// shipped skills plus those of configPath.
func newHub(configPath string, seed uint64, cfg hubserver.Config) (*hubserver.Server, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	skills, err := builtinSkills(seed, log)
	if err != nil {
		return nil, err
	}
	var remote []hubserver.HTTPSkill
	if configPath != "" {
		if remote, err = readSkillsConfig(configPath); err != nil {
			return nil, err
		}
	}
	cfg.Skills, cfg.HTTPSkills = skills, remote
	return hubserver.New(cfg)
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8787", "address to listen on (port 0: any free port)")
	keyFile := fs.String("key", "", "token signing key file: robots need a token signed with it")
	noAuth := fs.Bool("no-auth", false, "accept robots without a token (stand-in account and robot ids)")
	cert := fs.String("tls-cert", "", "TLS certificate file (with --tls-key: serve wss://)")
	key := fs.String("tls-key", "", "TLS private key file")
	config := fs.String("skills-config", "", "JSON file of skills served over HTTP")
	seed := fs.Uint64("seed", 0, "make the skills' choices deterministic (0: random)")
	maxConns := fs.Int("max-connections", hubserver.DefaultMaxConnections, "most robots connected at once")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return usagef("serve: --log-level %q: want debug, info, warn or error", *level)
	}
	if (*keyFile == "") == !*noAuth {
		return usagef("serve: give exactly one of --key FILE and --no-auth")
	}
	if (*cert == "") != (*key == "") {
		return usagef("serve: --tls-cert and --tls-key go together")
	}
	if *maxConns < 1 {
		return usagef("serve: --max-connections %d: want at least 1", *maxConns)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	var verifier hubserver.Verifier
	if *keyFile != "" {
		k, err := token.ReadKeyFile(*keyFile)
		if err != nil {
			return err
		}
		iss, err := token.NewIssuer(k, nil)
		if err != nil {
			return err
		}
		verifier = iss
	}
	hub, err := newHub(*config, *seed, hubserver.Config{Verifier: verifier, Logger: log,
		Limits: hubserver.Limits{MaxConnections: *maxConns}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{Handler: hub.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { // ends when srv is shut down
		if *cert != "" {
			served <- srv.ServeTLS(ln, *cert, *key)
		} else {
			served <- srv.Serve(ln)
		}
	}()
	scheme := "ws"
	if *cert != "" {
		scheme = "wss"
	}
	log.Info("jibohub serving", "addr", ln.Addr().String(), "auth", verifier != nil, "tls", *cert != "",
		"skills", len(hub.Skills()))
	fmt.Fprintf(stdout, "%s://%s\n", scheme, ln.Addr().String())

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	closeErr := hub.Close(sctx)
	shutErr := srv.Shutdown(sctx)
	if serveErr == nil {
		serveErr = <-served
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	log.Info("jibohub stopped")
	return errors.Join(serveErr, closeErr, shutErr)
}
